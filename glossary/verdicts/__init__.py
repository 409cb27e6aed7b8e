"""The verdicts on each entry: the publish gate, reviews, trust and the assessment that joins them."""

# What a project's settings name of the trust policy (extra.glossary: trust, trusted_nodes, trusted_people;
# ``trust``): here, so that reading the settings does not import the trust module and its cryptography
# (a first `glossary check` starts the entry's compiles sooner: issue 34).
TRUST_MODES = ("signed", "names")
NODES_FILE = "trust/nodes.allowed_signers"
PEOPLE_FILE = "trust/people.allowed_signers"
