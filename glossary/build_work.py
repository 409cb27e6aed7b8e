"""What a build asks of every entry, as functions a pool's worker runs (``glossary.entries.parallel``):
each entry judged with its recorded results, and each shown entry's page rendered.  They are module
level so that a worker can import them by name; ``glossary.build`` hands them out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jinja2.sandbox import SandboxedEnvironment

from glossary.entries import lint
from glossary.entries.model import Entry
from glossary.memo import Memo
from glossary.site import page, render, tooltips
from glossary.verdicts import assess
from glossary.verdicts import trust as trust_mod
from measure import store



def judged(context: tuple[trust_mod.Trust, dict], entry: Entry, memo: Memo | None = None,
            context_key: str = "") -> tuple[assess.Assessment, list[lint.Finding]] | store.StoreError:
    """One entry judged with its recorded results, and the figures its body types by hand (lint):
    what ``load`` asks of every entry, on every core (``glossary.entries.parallel``).  A results file that
    cannot be used is returned, and the build stops on the first in the entries' order."""
    policy, catalog = context
    try:
        if memo is not None:
            judged = memo.keep("assessment", entry.slug, context_key,
                               lambda: assess.assess_recorded(entry, policy, catalog, load=memo.results))
        else:
            judged = assess.assess_recorded(entry, policy, catalog)
    except store.StoreError as err:
        return err
    if memo is not None:  # the lint reads the entry alone
        return judged, memo.keep("figure lint", entry.slug, "", lambda: lint.unbound_figures(entry))
    return judged, lint.unbound_figures(entry)


@dataclass(frozen=True)
class PageInputs:
    """What an entry's page is rendered from besides its model: the site around it."""

    templates_dir: Path
    models: dict[str, page.PageModel]
    hidden: frozenset[str]
    catalog: dict
    by_day: dict
    terms: tooltips.Matcher | list[tooltips.Term]


# A pool worker's template environment, made once (inherited from the build where the pool forks).
_envs: dict[Path, SandboxedEnvironment] = {}


def share_env(templates_dir: Path, env: SandboxedEnvironment) -> None:
    """Hand the build's environment (its templates compiled) to the workers a pool forks next."""
    _envs[templates_dir] = env


def entry_page(context: PageInputs, slug: str, env: SandboxedEnvironment | None = None) -> str:
    """The Markdown of a shown entry's page, its tooltip table appended (in a worker: ``glossary.entries.parallel``)."""
    if env is None:
        env = _envs.get(context.templates_dir) or _envs.setdefault(
            context.templates_dir, render.make_env(context.templates_dir))
    markdown = render.render_entry(env, context.models[slug], hidden=context.hidden, catalog=context.catalog,
                                   by_day=context.by_day)
    return tooltips.append(markdown, context.terms, slug)
