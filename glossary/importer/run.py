"""One import, from a folder of Markdown terms to draft entries: read, name, link, summarise, write.

Collect, then write: every term is read and named first, so links resolve to the slugs the
entries will have; aliases are chosen once every link text is known; only then is each entry
rendered, parsed back by the strict entry parser, and written atomically.
"""

from __future__ import annotations

import itertools
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from glossary.entries.lead import without_repeated_lead
from glossary.entries.model import (MAX_ALIASES, MAX_RELATED, MAX_SUMMARY_CHARS, MAX_TAG_CHARS, MAX_TAGS,
                                    RESERVED_SLUGS, TAG_RE)
from glossary.entries.scaffold import slugify
from glossary.importer import aliases, files, naming
from glossary.importer.assets import Images
from glossary.importer.links import Targets, TermLinks
from glossary.importer.markdown import first_paragraph, opens_with_figure, plain_text, sentence_end, template_syntax
from glossary.importer.reading import SourceTerm, read_terms
from glossary.importer.report import ImportReport
from glossary.importer.writing import Draft, earlier_import, problem, render, sync_folder, write

Progress = Callable[[int, int], None]


class SourceFolderError(Exception):
    """The folder to import is not there (a usage problem)."""


def import_glossary(src: Path, entries_dir: Path, *, dry_run: bool = False, overwrite: bool = False,
                    progress: Progress | None = None, renames: dict[str, str] | None = None,
                    merges: dict[str, str] | None = None) -> ImportReport:
    """Import the Markdown terms under ``src`` as draft entries in ``entries_dir``; the report says
    what each file became and what did not map.  ``dry_run`` writes nothing; ``overwrite`` lets an
    entry written by an earlier import be replaced (never one written otherwise).  ``progress`` is
    called with (done, total) as entries are written.  ``renames`` (slug -> new slug) names terms
    otherwise; ``merges`` (slug -> entry or imported slug) writes no entry for a term and points
    every link to it at the other one."""
    src, entries_dir = Path(src), Path(entries_dir)
    if not src.is_dir():
        raise SourceFolderError(f"no folder to import at {src}")
    report = ImportReport(source_dir=src, entries_dir=entries_dir, dry_run=dry_run)
    landing: set[str] = set()
    terms = read_terms(src, report, landing)
    existing = {p.stem for p in entries_dir.glob("*.md")} if entries_dir.is_dir() else set()
    writable, merged = _name(terms, entries_dir, overwrite, renames or {}, merges or {}, existing, report)
    targets = Targets({t.rel: t.slug for t in terms}, existing, landing, merged)
    terms = [t for t in terms if t.slug not in merged]
    images = Images(src, entries_dir, dry_run)
    drafted = [_draft(t, targets, images, t.slug in writable) for t in terms]
    drafts = [d for d, _ in drafted]
    _add_aliases(terms, drafts, [uses for _, uses in drafted])
    with tempfile.TemporaryDirectory(prefix="glossary-import-") as scratch:
        for done, (term, draft) in enumerate(zip(terms, drafts), 1):
            if term.slug in writable:
                _write(term, draft, entries_dir, dry_run, Path(scratch))
            if progress is not None:
                progress(done, len(terms))
    if report.imported and not dry_run:
        sync_folder(entries_dir)
    report.files.sort(key=lambda f: f.source)
    return report


def _name(terms: list[SourceTerm], entries_dir: Path, overwrite: bool, renames: dict[str, str],
          merges: dict[str, str], existing_slugs: set[str], report: ImportReport) -> tuple[set[str], dict[str, str]]:
    """Give each term a unique slug (noting clashes, renames and near-duplicates); (the slugs whose
    entry may be written, merged slug -> the slug it was merged into)."""
    taken: dict[str, str] = {}
    writable = set()
    merged: dict[str, str] = {}
    for term in terms:
        base = slugify(term.rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]) or slugify(term.title) or "term"
        if base in merges:
            into = merges[base] or base
            merged[base] = into
            term.slug, term.report.slug, term.report.entry = base, into, entries_dir / f"{into}.md"
            term.report.note("slug", f"merged into {into!r} (--merge-into): no entry is written for it, and every "
                                     f"link to it points at {into}.md; add what it says there by hand")
            continue
        if base in renames:
            term.report.note("slug", f"renamed {base!r} -> {renames[base]!r} (--rename)")
            base = renames[base]
        section = slugify(term.section or "")
        candidates = [base]
        if base in RESERVED_SLUGS:
            term.report.note("slug", f"the slug {base!r} is a path the site itself uses; renamed")
            candidates = []
        candidates += [f"{section}-{base}"] if section else []
        numbered = (f"{base}-{i}" for i in itertools.count(2))
        slug = next(c for c in itertools.chain(candidates, [f"{base}-term"], numbered)
                    if c not in taken and c not in RESERVED_SLUGS)
        if base in taken:
            term.report.note("slug", f"{base!r} is already the slug of {taken[base]}; this term became {slug!r}")
        elif slug != base and base not in RESERVED_SLUGS:
            term.report.note("slug", f"became {slug!r}")
        taken[slug] = term.rel
        term.slug = slug
        term.report.slug = slug
        term.report.entry = entries_dir / f"{slug}.md"
        existing = entries_dir / f"{slug}.md"
        what = files.lkind(existing)
        if what not in (None, "a regular file"):
            term.report.fail("slug", f"{existing} is {what}, not an entry file; nothing is written over it: "
                                     f"remove it and import again")
            continue
        if existing.exists() and not earlier_import(existing):
            # an entry of the project's own: the term is imported under another slug, never over it
            other = next(c for c in itertools.chain(candidates[1:], [f"{base}-term"], numbered)
                         if c not in taken and c not in RESERVED_SLUGS and not (entries_dir / f"{c}.md").exists())
            del taken[slug]
            term.report.note("slug", f"{existing} already exists (an entry not written by `glossary import`), so "
                                     f"this term became {other!r}: `--merge-into {slug}` merges it into that entry "
                                     f"instead, `--rename {slug}=NEW` names it")
            slug = other
            taken[slug] = term.rel
            term.slug = term.report.slug = slug
            term.report.entry = existing = entries_dir / f"{slug}.md"
        if existing.exists() and not overwrite:
            term.report.fail("slug", f"{existing} already exists and is not overwritten; --overwrite replaces "
                                     f"entries an earlier import wrote")
            continue
        if existing.exists():
            term.report.note("slug", f"replaces {existing}, written by an earlier import")
        writable.add(slug)
    bases = {slugify(t.rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]) for t in terms}
    for option, asked in (("--rename", renames), ("--merge-into", merges)):
        for old in sorted(set(asked) - bases):
            report.note("slug", f"{option} {old}: no term of the folder has the slug {old!r}; nothing was "
                                f"renamed or merged", "error")
    for slug, into in merged.items():
        if into not in taken and into not in existing_slugs:
            term = next(t for t in terms if t.slug == slug)
            term.report.fail("slug", f"--merge-into {slug}={into}: {into!r} is neither an entry nor an imported term")
    _near_duplicates(terms, existing_slugs, taken, set(merged))
    return writable, merged


def _near_duplicates(terms: list[SourceTerm], existing: set[str], taken: dict[str, str], merged: set[str]) -> None:
    """Note each imported slug that is nearly another one, of an entry already there or of
    another imported term ('bank-conflict' and 'bank-conflicts', 'roofline-model' and 'roofline')."""
    where = {slug: f"the existing entry {slug!r}" for slug in existing}
    where.update({slug: f"{slug!r}, imported from {rel}" for slug, rel in taken.items()})
    near = naming.near_duplicates(where)
    for term in terms:
        if term.slug in merged or term.slug not in taken:
            continue
        for other in near.get(term.slug, []):
            term.report.note("slug", f"{term.slug!r} is nearly {where[other]}: check they are not one term "
                                     f"(`--merge-into {term.slug}={other}` merges it, `--rename {term.slug}=NEW` "
                                     f"names it)")


def _tags(term: SourceTerm) -> list[str]:
    out, seen = [], set()
    for raw in ([term.section] if term.section else []) + term.tags:
        tag = slugify(raw)[:MAX_TAG_CHARS].strip("-")
        if not tag or not TAG_RE.match(tag) or tag == "index":
            term.report.note("tags", f"{raw!r} cannot be made a tag (letters and digits joined by '-'); left out")
            continue
        if tag in seen:
            continue
        if len(out) == MAX_TAGS:
            term.report.note("tags", f"more than {MAX_TAGS} tags; {raw!r} and later ones left out")
            break
        seen.add(tag)
        out.append(tag)
    return out


def _summary(term: SourceTerm, links: TermLinks) -> tuple[str, str]:
    """(summary, body without the sentence it came from)."""
    body = term.body
    if term.summary:
        return term.summary, without_repeated_lead(term.summary, body)
    todo = f"TODO: one sentence that defines {term.title}."
    para = first_paragraph(body)
    if para is None:
        term.report.note("summary", "the body does not open with a paragraph of prose, so there is no first "
                                    "sentence to take; the summary is a TODO to write")
        return todo, body
    start, stop = para
    if opens_with_figure(body):
        term.report.note("summary", "the body opens with a figure; the summary is the first sentence of the prose "
                                    "after it, and the figure stays where it was")
    end = sentence_end(body[start:stop])
    whole = end is None
    end = stop - start if whole else end
    sentence = body[start:start + end]
    summary = plain_text(sentence)
    if not summary:
        term.report.note("summary", "the first sentence has no text; the summary is a TODO to write")
        return todo, body
    if len(summary) > MAX_SUMMARY_CHARS:
        term.report.note("summary", f"the first sentence is {len(summary)} characters, over the "
                                    f"{MAX_SUMMARY_CHARS} a summary may have; it stays in the body and the "
                                    f"summary is a TODO to write")
        return todo, body
    if whole:
        term.report.note("summary", "the first paragraph has no sentence end; all of it became the summary")
    links.run(sentence, counting=False)  # the terms it links to count for related and aliases
    rest = body[start + end:]
    if start + end >= stop:
        rest = rest.lstrip("\n")  # the paragraph was that one sentence
    return summary, body[:start] + rest


def _draft(term: SourceTerm, targets: Targets, images: Images,
           writable: bool) -> tuple[Draft, list[tuple[str, str]]]:
    """The term's entry, and the (link text, slug) of each link it makes to another term."""
    links = TermLinks(term.rel, term.slug, targets, images, term.report, copying=writable,
                      source_body=term.source_body, body_line=term.body_line)
    summary, body = _summary(term, links)
    body = links.run(body)
    if template_syntax(body):
        term.report.note("links", "the prose holds '{{', '{%' or '{#' outside code, which the build reads as "
                                  "template code (a figure): check each one, or put it in a code span")
    related: list[str] = []
    for written in term.related:
        kind, slug, _ = targets.resolve(written, term.rel)
        if kind != "term":
            term.report.note("related", f"related {written!r} names no term of the imported folder; left out")
        elif slug != term.slug and slug not in related:
            related.append(slug)
    for slug in links.related:
        if slug != term.slug and slug not in related:
            related.append(slug)
    if len(related) > MAX_RELATED:
        term.report.note("related", f"links to {len(related)} terms; the first {MAX_RELATED} are related, "
                                    f"not: {', '.join(related[MAX_RELATED:])}")
        related = related[:MAX_RELATED]
    draft = Draft(slug=term.slug, source=term.rel, title=term.title, summary=summary, body=body,
                  related=related, tags=_tags(term), abbreviations=term.abbreviations,
                  aliases=list(term.aliases) + _question_alias(term), sources=term.sources)
    return draft, links.uses


_QUESTION = re.compile(r"(?i)^(?:what|how|why|when|which|who)\b.*\?$|^什么(?:是|叫).+[？?]$|^.+是什么[？?]$")
# "什么是线程束？", "什么叫线程束？", "线程束是什么？": the term is what the question asks about.
_WHAT_IS_CJK = re.compile(r"^(?:什么(?:是|叫)(?P<after>.+?)|(?P<before>.+?)是什么)[？?]$")
_WHAT_IS = re.compile(r"(?i)^(?:what|who)\s+(is|are)\s+(?:(?:a|an|the)\s+)?(.+?)\s*\?$")


def _question_alias(term: SourceTerm) -> list[str]:
    """For a question-style title, the term's name: the file name in words ("warp.md" for "What is a
    warp?"), or where the file name is the question too, what the question asks about ("What is
    occupancy?" -> "occupancy").  Prose says the name, never the question, so it becomes an alias."""
    if not _QUESTION.match(term.title):
        return []
    name = " ".join(re.split(r"[-_\s]+", term.rel.rsplit("/", 1)[-1].rsplit(".", 1)[0])).strip()
    where = "its file name"
    cjk = _WHAT_IS_CJK.match(term.title)
    if cjk:  # the file name of a translation is the English one: the question names the term itself
        name, where = (cjk.group("after") or cjk.group("before")).strip(), "the question"
    elif _QUESTION.match(name + "?"):
        asked = _WHAT_IS.match(term.title)
        name, where = ("", "") if asked is None else (naming.singular(asked.group(2)) if asked.group(1).lower() == "are"
                                                       else asked.group(2), "the question")
    spellings = [term.title, *term.abbreviations, *term.aliases]
    if not name or any(s.casefold() == name.casefold() for s in spellings) or len(term.aliases) >= MAX_ALIASES:
        return []
    term.report.note("aliases", f"the title is a question; {where} gives the term's name {name!r}, added as an "
                                f"alias so prose that says it gets the tooltip")
    return [name]


def _add_aliases(terms: list[SourceTerm], drafts: list[Draft], links: list[list[tuple[str, str]]]) -> None:
    named = [aliases.Named(d.slug, d.title, (d.title, *d.abbreviations, *d.aliases), len(d.aliases))
             for d in drafts]
    uses: dict[str, list[tuple[str, str]]] = {}
    for draft, made in zip(drafts, links):
        for text, slug in made:
            uses.setdefault(slug, []).append((text, draft.slug))
    new, left = aliases.choose(named, uses)
    for term, draft in zip(terms, drafts):
        draft.aliases += new.get(draft.slug, [])
        for why in left.get(draft.slug, []):
            term.report.note("aliases", f"link text {why}; not made an alias")


def _write(term: SourceTerm, draft: Draft, entries_dir: Path, dry_run: bool, scratch: Path) -> None:
    text = render(draft)
    why, figures = problem(text, draft.slug, entries_dir, scratch)
    for note in figures:  # the figures the import could not map to measured or cited ones
        term.report.note("figures", note)
    if why:
        term.report.fail("validate", f"the entry would not parse, so it was not written: {why}")
        return
    if not dry_run:
        try:
            entries_dir.mkdir(parents=True, exist_ok=True)
            write(entries_dir / f"{draft.slug}.md", text)
        except OSError as err:
            term.report.fail("file", f"{entries_dir / f'{draft.slug}.md'} could not be written: {err.strerror or err}")
            return
    term.report.imported = True
