"""The build's settings as one typed object: ``extra.glossary`` in mkdocs.yml, then the environment.

Each setting is declared once in ``OPTIONS`` (its key under ``extra.glossary``, the environment
variable that overrides it, how its text is read, and its default), so the build, ``glossary
check`` and the command line read the same values the same way.  A key ``extra.glossary`` does
not know is an error with a did-you-mean, as a misspelt ``mesure: always`` would otherwise leave
a verification node silently not measuring.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import yaml

from glossary.entries import lessons
from glossary.verdicts import NODES_FILE, PEOPLE_FILE, TRUST_MODES

if TYPE_CHECKING:
    from glossary.verdicts import trust as trust_mod

PREVIEW_ENV = "GLOSSARY_PREVIEW"
MEASURE_MODES = ("auto", "always", "never")
DEFAULT_CACHE = ".cache/glossary"  # beside mkdocs.yml, ignored by git
DEFAULT_DOCS = "build/docs"        # the render stage's folder, where mkdocs.yml names none


class GlossaryError(Exception):
    """A build-stopping problem, phrased for the person running the build."""


def _choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def read(value: Any) -> str:
        text = str(value).strip().lower()
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, found {text!r}")
        return text
    return read


def _workers(value: Any) -> int | None:
    text = str(value).strip().lower()
    if text == "auto":
        return None
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"expected auto or a number of processes of at least 1, found {value!r}")
    return int(text)


def _seconds(value: Any) -> float:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = 0.0
    if not seconds > 0:
        raise ValueError(f"expected a number of seconds above 0, found {value!r}")
    return seconds


@dataclass(frozen=True)
class Option:
    """One setting: its ``extra.glossary`` key, the variable that overrides it, how it is read."""

    key: str
    env: str | None
    read: Callable[[Any], Any]
    default: Any


DEFAULT_SITE_NAME = "Glossary"  # where no mkdocs.yml names the site

# field name -> how it is set; the order is the order errors are reported in.
OPTIONS: dict[str, Option] = {
    "measure": Option("measure", "GLOSSARY_MEASURE", _choice(MEASURE_MODES), "auto"),
    "gpus": Option("gpus", "GLOSSARY_GPUS", str, "all"),
    "deadline_s": Option("deadline_s", "GLOSSARY_DEADLINE", _seconds, 1800.0),
    # Processes that parse, judge, render and draw the entries (glossary.entries.parallel): auto, one a core.
    "workers": Option("workers", "GLOSSARY_WORKERS", _workers, "auto"),
    "trust": Option("trust", "GLOSSARY_TRUST", _choice(TRUST_MODES), "signed"),
    "templates_dir": Option("templates", None, str, "templates"),
    "lessons_file": Option("lessons", None, str, lessons.DEFAULT_PATH),
    "cache_dir": Option("cache", None, str, DEFAULT_CACHE),
    "trusted_nodes": Option("trusted_nodes", None, str, NODES_FILE),
    "trusted_people": Option("trusted_people", None, str, PEOPLE_FILE),
    # Where the entries are, when mkdocs.yml's docs_dir is the generated folder the render stage
    # writes (glossary.site.publish); unset, docs_dir is the entries folder (test fixtures only).
    "sources_dir": Option("entries", None, str, ""),
    # Where a preview (GLOSSARY_PREVIEW=1, mkdocs serve) renders, apart from the published folder.
    "preview_dir": Option("preview_docs", None, str, "build/preview"),
}
_PATHS = ("templates_dir", "lessons_file", "cache_dir", "preview_dir")  # relative to mkdocs.yml's folder


@dataclass(frozen=True)
class Settings:
    """How a build behaves."""

    entries_dir: Path
    templates_dir: Path
    preview: bool = False               # drafts shown (GLOSSARY_PREVIEW=1, or mkdocs serve)
    measure: str = "auto"               # auto, always or never (glossary.measuring)
    lessons_file: Path | None = None    # the lesson catalogue (glossary.entries.lessons)
    gpus: str = "all"                   # which GPUs measure (glossary.measuring.pool.select_gpus)
    deadline_s: float = 1800.0          # per entry; a measurement past it is killed and recorded as failed
    workers: int | None = None          # processes for the per-entry work (glossary.entries.parallel); None: a core each
    cache_dir: Path | None = None       # plots kept between builds (glossary.site.plots.PlotCache)
    trust: str = "signed"               # glossary.verdicts.trust: "signed" or "names"
    trust_root: Path | None = None      # the folder the trust files are relative to (mkdocs.yml's)
    trusted_nodes: str = NODES_FILE
    trusted_people: str = PEOPLE_FILE
    site_name: str = DEFAULT_SITE_NAME  # mkdocs.yml's site_name: the home page's heading
    sources_dir: str = ""               # extra.glossary.entries, as written (empty: docs_dir holds the entries)
    preview_dir: Path | None = None     # where a preview renders (glossary.site.publish)
    publish_dir: Path | None = None     # mkdocs.yml's docs_dir where it is the render stage's folder

    @property
    def render_dir(self) -> Path | None:
        """The folder this build renders into and builds from (None: the entries folder is docs_dir)."""
        if not self.sources_dir:
            return None
        return self.preview_dir if self.preview else self.publish_dir
    overrides: tuple[str, ...] = ()     # environment variables that change what mkdocs.yml says, in words

    @classmethod
    def resolve(cls, entries_dir: Path, config_dir: Path, extra: dict, serving: bool,
                environ: dict | None = None, site_name: str | None = None,
                docs_dir: Path | None = None) -> "Settings":
        """The settings of a build: ``extra`` is mkdocs.yml's ``extra``; each variable of
        ``environ`` (default: the process environment) overrides its key; ``site_name`` is
        mkdocs.yml's.  Where ``extra.glossary.entries`` names the entries, ``docs_dir`` (mkdocs.yml's)
        is the folder the render stage writes, and ``entries_dir`` is replaced by the named one."""
        environ = os.environ if environ is None else environ
        given = extra.get("glossary") or {}
        if not isinstance(given, dict):
            raise GlossaryError(f"extra.glossary: expected a mapping of settings, found {given!r}")
        _refuse_unknown(given)
        values: dict[str, Any] = {}
        overrides: list[str] = []
        for name, option in OPTIONS.items():
            raw, where = option.default, None
            if option.key in given and given[option.key] not in (None, ""):
                raw, where = given[option.key], f"extra.glossary.{option.key}"
            configured, configured_where = raw, where
            if option.env and environ.get(option.env):
                raw, where = environ[option.env], option.env
            try:
                values[name] = option.read(raw)
            except ValueError as err:
                names = " / ".join(n for n in (option.env, f"extra.glossary.{option.key}") if n)
                raise GlossaryError(f"{names}: {err} (from {where or 'the default'})") from None
            if name in WARN_ON_OVERRIDE and where == option.env:
                overrides += _override_warning(option, values[name], configured, configured_where)
        for name in _PATHS:
            values[name] = config_dir / values[name]
        preview = serving or environ.get(PREVIEW_ENV, "").strip().lower() in ("1", "true", "yes")
        name = " ".join(str(site_name or "").split()) or DEFAULT_SITE_NAME
        publish_dir = None
        if values["sources_dir"]:
            entries_dir = config_dir / values["sources_dir"]
            publish_dir = Path(docs_dir) if docs_dir is not None else config_dir / DEFAULT_DOCS
        return cls(entries_dir=entries_dir, preview=preview, trust_root=config_dir, site_name=name,
                   overrides=tuple(overrides), publish_dir=publish_dir, **values)

    @classmethod
    def for_project(cls, entries_dir: Path, environ: dict | None = None) -> "Settings":
        """The settings of the project whose entries are ``entries_dir`` (its mkdocs.yml is beside it)."""
        config_dir = entries_dir.resolve().parent
        config = read_config(config_dir / "mkdocs.yml")
        docs = config.get("docs_dir")
        return cls.resolve(entries_dir, config_dir, read_extra(config), serving=False,
                           environ=environ, site_name=read_site_name(config),
                           docs_dir=config_dir / docs if isinstance(docs, str) else None)

    def override_warnings(self) -> tuple[str, ...]:
        """One sentence per environment variable that changes this build from what mkdocs.yml says
        (each a WARNING of every build it changes)."""
        return self.overrides

    def replace(self, **changes: Any) -> "Settings":
        return dataclasses.replace(self, **changes)

    def load_catalog(self) -> dict:
        """The lesson catalogue (day -> title and URL); GlossaryError names a malformed day."""
        try:
            return lessons.load_catalog(self.lessons_file) if self.lessons_file else {}
        except lessons.LessonsError as err:
            raise GlossaryError(str(err)) from None

    def load_trust(self) -> trust_mod.Trust:
        """The trust policy and the keys the repository lists; GlossaryError names a bad line."""
        from glossary.verdicts import trust as trust_mod

        if self.trust_root is None:
            return trust_mod.Trust(mode=self.trust)
        try:
            return trust_mod.load_trust(self.trust_root, self.trust, self.trusted_nodes, self.trusted_people)
        except trust_mod.TrustError as err:
            raise GlossaryError(str(err)) from None


# Settings whose value from the environment, where it changes mkdocs.yml's, is a WARNING: the trust
# policy decides what publishes, so a variable left set in a shell must not change it silently.
WARN_ON_OVERRIDE = ("trust",)


def _override_warning(option: Option, value: Any, configured: Any, where: str | None) -> list[str]:
    try:
        before = option.read(configured)
    except ValueError:
        before = configured
    if before == value:
        return []
    source = f"{where} in mkdocs.yml" if where else "the default"
    return [f"{option.env}={value} in the environment overrides extra.glossary.{option.key} ({before}, from "
            f"{source}) for this build: what publishes and what pages say follow {option.key}: {value}; "
            f"unset {option.env} to build as mkdocs.yml says"]


def _refuse_unknown(given: dict) -> None:
    known = [o.key for o in OPTIONS.values()]
    for key in given:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise GlossaryError(f"extra.glossary.{key}: not a glossary setting (known: {', '.join(known)}){hint}")


class _AnyTagLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """Reads mkdocs.yml's plain values; tags such as !ENV or !!python/name are left as None.  libyaml's
    parser where PyYAML has it: the pure-Python one took 25 ms a read of this repository's mkdocs.yml,
    on the path of every `glossary check` (issue 34)."""


_AnyTagLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def read_config(config_file: Path) -> dict:
    """A mkdocs.yml's top level as plain values, for the command line (empty where it cannot be read)."""
    try:
        data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_AnyTagLoader)
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def read_site_name(config: dict) -> str | None:
    """``site_name`` of a mkdocs.yml read by ``read_config`` (None where there is none)."""
    name = config.get("site_name")
    return name if isinstance(name, str) else None


def read_extra(config: dict) -> dict:
    """``extra`` of a mkdocs.yml read by ``read_config`` (empty where there is none)."""
    extra = config.get("extra")
    return extra if isinstance(extra, dict) else {}
