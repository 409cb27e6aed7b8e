"""Everything that stands between an entry and publication, collected for `glossary check` and `status`.

``inspect`` parses every entry on its own (one malformed entry does not hide
the others), then runs each check and returns one ``EntryReport`` per entry:
the schema, links, images, scaffold text, the publish gate, stale reviews, stale
results, unbound figures and bound figures without data.  Nothing is printed
here; the command line renders the reports.

The gate and the site's modules are imported by the checks that use them, after the entries'
code has started running in the sandbox (issue 34: it is what a first check waits for).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from glossary.entries.masking import mask_code
from glossary.settings import GlossaryError, Settings
from glossary.entries import images
from glossary.entries.lead import lead_warning
from glossary.entries.model import Entry, EntryError, display_path, parse_entry, related_problems
from glossary.entries.model import entry_paths as model_entry_paths

if TYPE_CHECKING:
    from glossary import trial_start
    from glossary.figures import views
    from glossary.verdicts import trust
    from glossary.verdicts.review import Review
    from measure.results import Result

Severity = Literal["error", "warning"]
_ENTRY_LINK = re.compile(r"(?<!!)\[[^\]]+\]\((?:\./)?([A-Za-z0-9_-]+)\.md(?:#[^)\s]*)?\)")


class CheckError(Exception):
    """The command was pointed at something that is not there (a usage problem)."""


@dataclass(frozen=True)
class Problem:
    """One finding: which check found it, how bad it is, and a sentence a person can act on."""

    check: str  # schema, links, files, content, gate, review, results, figures, claims
    severity: Severity
    message: str
    line: int | None = None
    refusal: bool = False  # a publish-gate reason a draft has by design (assess.DRAFT_CHECKS): --drafts-ok

    def to_json(self) -> dict:
        return {"check": self.check, "severity": self.severity, "message": self.message, "line": self.line,
                "refusal": self.refusal}


@dataclass
class EntryReport:
    """One entry's state: parsed entry (None when malformed), its results, review and problems."""

    slug: str
    path: Path
    entry: Entry | None = None
    results: dict[str, Result] = field(default_factory=dict)
    devices: list[views.DeviceView] = field(default_factory=list)
    review: Review | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]

    @property
    def publishable(self) -> bool:
        """What `mkdocs build` would do: publish (True) or refuse (False)."""
        return self.entry is not None and not self.errors

    @property
    def stale_results(self) -> bool:
        return any(d.stale for d in self.devices)

    @property
    def unmeasured(self) -> bool:
        return (self.entry is not None and self.entry.meta.measure is not None
                and not any(d.status == "ok" for d in self.devices))

    @property
    def stale_review(self) -> bool:
        return self.review is not None and self.review.status == "stale"


def entry_paths(entries_dir: Path) -> list[Path]:
    """Every entry file (entries/*.md but index.md); CheckError when the folder is missing."""
    if not entries_dir.is_dir():
        raise CheckError(f"no entries folder at {entries_dir}; run from the repository root or pass --entries DIR")
    return model_entry_paths(entries_dir)


def resolve_slugs(entries_dir: Path, names: tuple[str, ...] | list[str]) -> list[str]:
    """Slugs for ENTRY arguments: a slug, an entry file, or a file in an entry's folder."""
    known = [p.stem for p in entry_paths(entries_dir)]
    root = entries_dir.resolve()
    out = []
    for name in names:
        slug = name
        path = Path(name)
        if path.suffix == ".md" or "/" in name or "\\" in name:
            full = path.resolve()
            if full.parent == root and full.suffix == ".md":
                slug = full.stem
            elif root in full.parents:
                slug = full.relative_to(root).parts[0]
            else:
                slug = path.stem
        if slug not in known:
            close = difflib.get_close_matches(slug, known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise CheckError(f"no entry {name!r} in {entries_dir}{hint}")
        if slug not in out:
            out.append(slug)
    return out


def inspect(entries_dir: Path, only: list[str] | None = None, lint: bool = True,
            policy: trust.Trust | None = None, run_code: bool = False) -> tuple[list[EntryReport], list[Problem]]:
    """Reports for every entry (or those in ``only``), and problems that belong to no one entry.

    ``policy`` is the project's trust policy (default: read from the mkdocs.yml beside the
    entries folder, as the build reads it); ``run_code`` runs each entry's reference (and, where
    nvcc is here, its compiles) in the sandbox (``glossary.trial``), as `glossary check` does.
    """
    paths = entry_paths(entries_dir)
    options = Settings.for_project(entries_dir)
    reports = {p.stem: EntryReport(slug=p.stem, path=p) for p in paths}
    wanted = [r for s, r in reports.items() if only is None or s in only]
    _parse(wanted, entries_dir)
    # the entries' code starts running in the sandbox now, while the rest is checked
    code = _CodeRuns([r.entry for r in wanted if r.entry is not None], options.cache_dir) if run_code else None
    try:
        policy, catalog, general = _project(options, policy)
        parsed = {r.slug: r.entry for r in wanted if r.entry is not None}
        from glossary.site.strays import stray_files

        # A check of some entries reads no other entry (a link needs only the other's file): the stray
        # files of their own folders, not of the whole tree, whose images need every entry parsed.
        strays = stray_files(entries_dir, parsed, only=None if only is None else list(parsed))
        general += [Problem("files", "warning", why) for why in strays]
        unbound = _lint(general) if lint else None
        for report in wanted:
            if report.entry is None:
                continue
            _check_links(report, set(reports), entries_dir)
            _check_images(report, entries_dir)
            _check_lead(report)
            _check_results_and_review(report, policy, catalog)
            if code is not None:
                report.problems += code.problems(report.slug)
            if unbound is not None:
                _check_figures(report, unbound)
    finally:
        if code is not None:
            code.close()
    return wanted, general


def _project(options: Settings, policy: trust.Trust | None) -> tuple[trust.Trust, dict, list[Problem]]:
    """The trust policy (``policy``, else the project's), the lesson catalogue, and their problems."""
    from glossary.verdicts import trust  # here: the entries' code starts before the trust policy loads

    general: list[Problem] = []
    if policy is None:
        try:
            policy = options.load_trust()
        except GlossaryError as err:
            general.append(Problem("trust", "error", str(err)))
            policy = trust.Trust(mode="signed")
    try:
        catalog = options.load_catalog()
    except GlossaryError as err:
        general.append(Problem("lessons", "error", str(err)))
        catalog = {}
    return policy, catalog, general + _check_render(options)


def _parse(reports: list[EntryReport], entries_dir: Path) -> None:
    for report in reports:
        try:
            report.entry = parse_entry(report.path, entries_dir)
        except EntryError as err:
            report.problems.append(Problem("schema", "error", str(err)))


def _check_render(options: Settings) -> list[Problem]:
    """A published render (mkdocs.yml's docs_dir) older than its sources: a builder that runs none of
    the glossary's code (Zensical) would publish it as it is."""
    if options.publish_dir is None or options.preview:
        return []
    from glossary.site import publish

    try:
        stale = publish.stale_render(options.publish_dir, publish.sources_of(options))
    except (OSError, publish.RenderError) as err:
        return [Problem("render", "warning", f"{options.publish_dir}: {err}")]
    return [Problem("render", "warning", f"{display_path(options.publish_dir)} is older than its sources ({why}): "
                                         f"run `glossary render` before any builder other than mkdocs builds it")
            for why in stale]


class _CodeRuns:
    """Each entry's code run in the sandbox (``glossary.trial``), one entry after another on a thread of
    their own, so that the checks that only read files go on meanwhile; ``problems(slug)`` waits for
    that entry's and returns them as a serial check would have.  The first entry's sandboxes start
    here, before this returns (``_start_code``): a first check waits on them longest (issue 34)."""

    def __init__(self, entries: list[Entry], cache_dir: Path | None) -> None:
        from concurrent.futures import ThreadPoolExecutor

        measured = [e for e in entries if e.meta.measure is not None]
        self._head = _start_code(measured[0], cache_dir) if measured else None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="glossary check code")
        self._runs = {e.slug: self._pool.submit(_code_problems, e, cache_dir, self._head if i == 0 else None)
                      for i, e in enumerate(measured)}

    def problems(self, slug: str) -> list[Problem]:
        run = self._runs.get(slug)
        return run.result() if run is not None else []

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._head is not None and self._head.started is not None:
            self._head.started.close()  # already closed, unless its run was cancelled


@dataclass
class _HeadStart:
    """An entry's trial as far as it goes without NumPy: its marker, and its sandboxes started
    (None where a clean trial of this very code left the marker, or nothing can start here)."""

    marker: Path | None
    passed: bool
    started: trial_start.Started | None


def _start_code(entry: Entry, cache_dir: Path | None) -> _HeadStart:
    from glossary import trial_cache

    # the user's cache, not the project's cache_dir: a marker a pull request commits must not count
    marker = trial_cache.marker(trial_cache.user_dir() if cache_dir is not None else None, entry)
    if trial_cache.passed(marker):  # this very code ran cleanly already
        return _HeadStart(marker, True, None)
    from glossary import trial_start

    return _HeadStart(marker, False, trial_start.start(entry))  # nvcc and the reference start now


def _code_problems(entry: Entry, cache_dir: Path | None, head: _HeadStart | None = None) -> list[Problem]:
    head = head or _start_code(entry, cache_dir)
    if head.passed:
        return []
    from glossary import trial, trial_cache

    findings = trial.try_entry(entry, started=head.started)
    if not findings:
        trial_cache.remember(head.marker)
    return [Problem("code", finding.severity, f"{finding.key}: {finding.message}") for finding in findings]


def _lint(general: list[Problem]):
    try:
        from glossary.entries.lint import unbound_figures
    except ImportError as err:
        general.append(Problem("figures", "warning", f"lint unavailable ({err}); unbound figures were not checked"))
        return None
    return unbound_figures


def _check_links(report: EntryReport, known: set[str], entries_dir: Path) -> None:
    entry = report.entry
    report.problems += [Problem("links", "error", str(err)) for err in related_problems(entry, known, entries_dir)]
    for match in _ENTRY_LINK.finditer(mask_code(entry.body)[0]):  # a link-like text in code is code
        if match.group(1) not in known:
            report.problems.append(Problem("links", "warning", f"{entry.path}: the body links to "
                                                               f"{match.group(1)}.md, which is not an entry"))


def _check_images(report: EntryReport, entries_dir: Path) -> None:
    """A warning, as for a link to no entry, per image the body links that no reader would see: one
    that points to no file, one outside ``assets/`` (never published) or one the build cannot read."""
    from glossary.verdicts.findings import body_first_line

    entry = report.entry
    first = body_first_line(entry)
    seen = set()
    for link in images.links(entry.body):
        if link.target in seen:  # once per image, at its first link (a reference's use, then its definition)
            continue
        seen.add(link.target)
        line = first + link.line - 1
        where = f"{entry.path}:{line}: the image {link.target}"
        path = link.published_path
        file = entries_dir / (path or link.target.lstrip("/"))
        if not file.is_file():
            why = f"{where} points to no file (expected {file}); add it, or fix the link"
        elif path is None:
            why = (f"{where} lies outside {images.ASSETS}/, so the site does not publish it; move it to "
                   f"{entries_dir / images.IMAGES_DIR}/ and link it as {images.IMAGES_DIR}/NAME.EXT")
        elif path in images.THEME_FILES:
            why = f"{where} is a file of the theme, which the site would replace with this image; rename it"
        elif path not in entry.image_files:
            why = (f"{where} is not published: it is a symbolic link, lies outside {entries_dir / images.ASSETS} "
                   f"or is larger than {images.MAX_IMAGE_BYTES // (1024 * 1024)} MB")
        else:
            continue
        report.problems.append(Problem("content", "warning", why, line))


def _check_lead(report: EntryReport) -> None:
    """A warning where the body's first sentence repeats the summary (the page leaves it out)."""
    entry = report.entry
    why = lead_warning(entry.path, entry.meta.summary, entry.body)
    if why:
        report.problems.append(Problem("content", "warning", why, _line_of_body(entry)))


def _line_of_body(entry: Entry) -> int | None:
    """The file's line where the body starts (after the front-matter), where it can be found."""
    try:
        text = entry.path.read_text(encoding="utf-8")
    except OSError:
        return None
    head = re.match(r"\ufeff?---\r?\n.*?\r?\n---[ \t]*\r?\n", text, re.S)
    if head is None:
        return None
    rest = text[head.end():]
    blank = len(rest) - len(rest.lstrip("\r\n"))
    return head.group(0).count("\n") + rest[:blank].count("\n") + 1


def _check_results_and_review(report: EntryReport, policy: trust.Trust, catalog: dict) -> None:
    from glossary.verdicts import assess, gate
    from measure import store

    entry = report.entry
    try:
        judged = assess.assess_recorded(entry, policy, catalog)
    except store.StoreError as err:
        report.problems.append(Problem("results", "error", str(err)))
        verdict = gate.judge(entry.meta.author, entry.meta.reviewer)
        report.problems += [Problem("gate", "error", reason, refusal=True) for reason in verdict.reasons]
        return
    report.results = judged.results
    report.devices = list(judged.measured.devices)
    report.review = judged.review
    report.problems += [Problem(f.check, "error", f.message, refusal=f.draft) for f in judged.refusals]
    report.problems += [Problem(f.check, "warning", f.message) for f in judged.warnings]


def _check_figures(report: EntryReport, unbound_figures) -> None:
    try:
        findings = unbound_figures(report.entry)
    except Exception as err:  # the lint is another module's: report its failure, keep checking the rest
        report.problems.append(Problem("figures", "error", f"the unbound-figure lint failed on this entry: {err!r}"))
        return
    for finding in findings:
        report.problems.append(Problem("figures", "warning", str(finding), getattr(finding, "line", None)))


def status_row(report: EntryReport) -> dict:
    """One `glossary status` row as plain data: publishable or why not, devices, staleness, review."""
    rv = report.review
    return {
        "slug": report.slug,
        "path": str(report.path),
        "title": report.entry.title if report.entry else None,
        "publishable": report.publishable,
        "why_not": [p.message for p in report.errors],
        "devices": [{"key": d.key, "gpu": d.gpu, "captured_on": d.captured_on, "status": d.status,
                     "imported": d.provenance == "imported", "stale": d.stale, "attestation": d.attestation,
                     "signed_by": d.attested_by} for d in report.devices],
        "stale_results": report.stale_results,
        "unmeasured": report.unmeasured,
        "stale_review": report.stale_review,
        "review": {
            "status": rv.status if rv else None,
            "reviewer": rv.reviewer if rv and rv.status != "none" else None,
            "reviewed_on": rv.reviewed_on.isoformat() if rv and rv.reviewed_on else None,
            "fingerprint": rv.short if rv else None,
            "changed": list(rv.changed) if rv else [],
        },
    }
