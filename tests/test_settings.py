"""The build's settings: one typed object from extra.glossary, then the environment."""

from pathlib import Path

import pytest

from glossary.settings import GlossaryError, Settings

HERE = Path("/project")


def resolve(extra: dict, environ: dict | None = None, serving: bool = False) -> Settings:
    return Settings.resolve(HERE / "entries", HERE, {"glossary": extra}, serving=serving, environ=environ or {})


def test_defaults_and_paths_beside_mkdocs_yml():
    s = resolve({})
    assert (s.measure, s.gpus, s.deadline_s, s.trust, s.preview) == ("auto", "all", 1800.0, "signed", False)
    assert s.templates_dir == HERE / "templates" and s.cache_dir == HERE / ".cache/glossary"
    assert s.trust_root == HERE


def test_the_environment_overrides_mkdocs_yml():
    s = resolve({"measure": "never", "gpus": "0", "deadline_s": 60},
                {"GLOSSARY_MEASURE": "Always", "GLOSSARY_GPUS": "1,2", "GLOSSARY_DEADLINE": "5",
                 "GLOSSARY_TRUST": "names", "GLOSSARY_PREVIEW": "yes"})
    assert (s.measure, s.gpus, s.deadline_s, s.trust, s.preview) == ("always", "1,2", 5.0, "names", True)
    assert resolve({}, serving=True).preview


@pytest.mark.parametrize("extra, environ, words", [
    ({"measure": "sometimes"}, {}, ["GLOSSARY_MEASURE / extra.glossary.measure", "'sometimes'",
                                    "from extra.glossary.measure"]),
    ({}, {"GLOSSARY_DEADLINE": "-1"}, ["GLOSSARY_DEADLINE / extra.glossary.deadline_s", "above 0",
                                       "from GLOSSARY_DEADLINE"]),
    ({"trust": "maybe"}, {}, ["extra.glossary.trust", "signed, names"]),
    ({"mesure": "always"}, {}, ["extra.glossary.mesure", "did you mean 'measure'?"]),
])
def test_a_bad_setting_names_its_key_and_where_it_came_from(extra, environ, words):
    with pytest.raises(GlossaryError) as caught:
        resolve(extra, environ)
    for word in words:
        assert word in str(caught.value)


def test_settings_are_a_value():
    s = resolve({})
    with pytest.raises(Exception):
        s.measure = "always"  # frozen: a build's settings do not change under it
    assert s.replace(measure="never").measure == "never" and s.measure == "auto"
