"""`glossary`: the command line of authors and reviewers.

Exit codes, for every subcommand: 0 all is well; 1 problems found (an entry
that would not publish, a refused signature, no GPU to measure on); 2 a usage
error (an unknown option or entry, a missing entries folder).
"""

from glossary.cli import authoring, importing, measuring, node, rendering, reproducing, signing, trying  # noqa: F401  (each registers its commands)
from glossary.cli.common import cli, main

__all__ = ["cli", "main"]
