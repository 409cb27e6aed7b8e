"""Assess: everything that decides whether an entry reaches the site, in one step.

The build and `glossary check` / `status` call ``assess`` and nothing else, so
the reasons a build logs for a refused entry are the reasons `check` prints, in
the same words.  The gate checks content as well as names:

- a named author and a different named reviewer (``glossary.verdicts.gate``);
- a review that is current over what the page shows (``glossary.verdicts.review``);
- no scaffold text left (the ``TODO`` lines `glossary new` writes);
- for an entry with a measurement spec, a current result measured by the
  harness on at least one device (imported figures alone do not publish);
- every bound figure finds its data;
- every claim holds, unless the entry declares its expected failure with a
  reason (``measure.claims[i].expected_failure``), which the reviewer signs and
  the page shows beside the verdict;
- under ``trust: signed`` (``glossary.verdicts.trust`` and ``glossary.verdicts.people``), every measured result the page
  shows carries a trusted node's signature; the content carries the author's
  signature, by a key listed under the author's name; and the review carries the
  reviewer's, by a key listed under the reviewer's name and not the author's, naming
  the authorship statement it reviewed.

Pure: parsed entries and loaded results in, an ``Assessment`` out.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from glossary.entries import images, masking
from glossary.verdicts import agreement, claims, findings, gate, people, reproductions, review, trust
from glossary.verdicts.findings import Measured
from glossary.entries.model import Entry, display_path
from measure import store
from measure.results import Result
from measure.spec import fit_problems
from measure.spec.signatures import signature_problems

# `glossary new` writes "TODO: ..." where the author has prose to write.
_SCAFFOLD = re.compile(r"\bTODO\b")


@dataclass(frozen=True)
class Finding:
    """One reason about an entry: which check found it and a sentence a person can act on."""

    check: str  # gate, review, content, results, figures, claims
    message: str
    draft: bool = False  # what a draft lacks by design (names, signatures, a result, prose): --drafts-ok


# The checks whose every refusal is what a draft lacks by design: names, the signatures behind them,
# a current result and the claims judged on it.  A spec, content or figure problem is never one of
# them (`glossary check --drafts-ok` still fails on those).
DRAFT_CHECKS = ("gate", "review", "author", "results", "claims")


@dataclass(frozen=True)
class Assessment:
    """One entry judged against its recorded results."""

    entry: Entry
    results: dict[str, Result]
    review: review.Review
    measured: Measured
    verdict: gate.Verdict
    refusals: tuple[Finding, ...]  # each keeps the entry off the site
    warnings: tuple[Finding, ...]  # worth a WARNING, but the entry may publish
    review_key: str | None = None  # the reviewer's key that signed the review, where it verified
    author_key: str | None = None  # the author's key that signed the content, where it verified
    mode: str = "names"  # the trust policy it was judged under: "signed" or "names"
    # Other nodes' reproductions of the records (glossary.verdicts.reproductions): shown beside the
    # record, never in its place; only those that count appear on the page.
    reproductions: tuple[reproductions.Checked, ...] = ()

    @property
    def publishable(self) -> bool:
        return self.verdict.publishable


def assess_recorded(entry: Entry, policy: trust.Trust | None = None, catalog: dict | None = None,
                    load: Callable[[Path], dict[str, Result]] = store.load_results) -> Assessment:
    """The one assess step of the build and of `glossary check`: load the entry's recorded results
    (``measure.store``: a StoreError names the file and the key) and judge the entry with them."""
    recorded = load(entry.folder)
    policy = policy or trust.Trust(mode="names")
    return assess(entry, recorded, policy, catalog, reproductions.check_entry(entry, recorded, policy))


def assess(entry: Entry, results: dict[str, Result], policy: trust.Trust | None = None,
           catalog: dict | None = None, reproduced: list[reproductions.Checked] | tuple = ()) -> Assessment:
    """Judge ``entry`` with its recorded ``results`` (device key -> result data) under ``policy``
    (default: ``trust: names``, where names alone count and nothing is signed); ``catalog`` is
    the lesson catalogue the page resolves its lesson days through."""
    policy = policy or trust.Trust(mode="names")
    signed = review.review_of(entry, results, catalog)
    measured = _attested(entry, findings.collect(entry, results), results, policy)
    names = gate.judge(entry.meta.author, entry.meta.reviewer)
    refusals = [Finding("gate", reason) for reason in names.reasons]
    refusals += [Finding("review", reason) for reason in signed.refusals]
    review_key = author_key = None
    author = None
    content = review.content_fingerprint(entry, results, catalog) if policy.signed else None
    if policy.signed and gate.is_real_name(entry.meta.author):
        author = people.check_author(entry, content, policy,
                                    changed=lambda old: review.diff_review(old or "", content))
        if author.problem:
            refusals.append(Finding("author", author.problem))
        author_key = author.keyid
    if signed.status == "current":
        check = people.check_review(entry, signed.current, policy, author, content)
        if check.problem:
            refusals.append(Finding("review", check.problem))
        review_key = check.keyid
    elif signed.status == "unsigned" and policy.signed:
        refusals.append(Finding("review", f"reviewer {entry.meta.reviewer} has not signed with `glossary sign`; "
                                          f"a reviewer field written by hand does not publish"))
    refusals += [Finding("content", reason, draft=True) for reason in scaffold_problems(entry)]
    refusals += [Finding("content", reason) for reason in unsafe_files(entry)]
    refusals += [Finding("content", f"{display_path(entry.path)}: the body's HTML holds {what}, which the "
                                    f"site would strip; remove it (raw HTML and attributes may not carry script, "
                                    f"handlers, styles or other URL schemes)")
                 for what in unsafe_markup(entry)]
    refusals += [Finding("spec", f"{key}: {why}") for key, why in _signature_problems(entry)]
    refusals += _result_refusals(entry, measured)
    unmeasured = not any(d.status == "ok" and d.provenance == "measured" and not d.stale for d in measured.devices)
    refusals += [Finding("figures", _figure_reason(entry, why), draft=unmeasured and not why.startswith(_NOT_DATA))
                 for why in measured.figure_problems]
    refusals += [Finding("claims", reason) for reason in failing_claims(measured)]
    warnings = _result_warnings(measured) + _reproduction_warnings(reproduced)
    if entry.meta.measure is not None:
        warnings += [Finding("results", why) for why in fit_problems(entry.meta.measure)]
    if signed.warning and not refusals:
        warnings.append(Finding("review", signed.warning))
    refusals = [dataclasses.replace(f, draft=True) if f.check in DRAFT_CHECKS else f for f in refusals]
    extra = tuple(f.message for f in refusals if f.check != "gate")
    verdict = gate.judge(entry.meta.author, entry.meta.reviewer, extra)
    return Assessment(entry=entry, results=results, review=signed, measured=measured, verdict=verdict,
                      refusals=tuple(refusals), warnings=tuple(warnings), review_key=review_key,
                      author_key=author_key, mode=policy.mode, reproductions=tuple(reproduced))


# Markup the sanitizer could have to remove: a tag, an attribute list, or a link whose URL has a
# scheme other than http(s) and mailto.  A body with none of these renders to nothing it would touch.
_MARKUP = re.compile(r"<[A-Za-z!/?]|\{[:.#]|\{\s*[\w:-]+\s*=|\]\(\s*<?(?!https?:|mailto:)[A-Za-z][\w+.-]*:"
                     r"|^\s*\[[^\]]+\]:\s*<?(?!https?:|mailto:)[A-Za-z][\w+.-]*:", re.MULTILINE)


def unsafe_markup(entry: Entry) -> list[str]:
    """What the sanitizer would remove from the entry's body (``glossary.entries.allowlist.body_problems``),
    checked only where the body has markup to check: a tag or an attribute list."""
    if not _MARKUP.search(entry.body):  # most bodies: prose, code and bound figures only
        return []
    from glossary.entries import allowlist

    return allowlist.body_problems(entry.body)


def unsafe_files(entry: Entry) -> list[str]:
    """A reason for each file of the entry's that could run script on the site: an SVG the body
    shows that ``images.svg_problem`` refuses, and a declared file a browser would open as a
    document (``images.is_active``).  The site publishes neither in any mode; the entry waits."""
    out = [f"{display_path(entry.path.parent / path)}: the SVG {why}; an image on the site must be "
           f"a plain picture: remove it (or export the drawing again as plain SVG, or as PNG)"
           for path, why in images.svg_problems(entry.image_files).items()]
    out += [f"{display_path(entry.folder / name)}: a browser opens a {name.rsplit('.', 1)[-1]} file as a document "
            f"that can run script; kernels are .cu or .cuh and references .py: rename it"
            for name in sorted(entry.kernel_files) if images.is_active(name)]
    return out


def _signature_problems(entry: Entry) -> list[tuple[str, str]]:
    """Launch arguments the kernels' own signatures do not take (measure.spec.signatures): they would
    be packed as one type and read as another."""
    spec = entry.meta.measure
    if spec is None:
        return []
    sources = {name: entry.kernel_files[name].decode("utf-8", "replace")
               for name in spec.sources if name in entry.kernel_files}
    return signature_problems(spec, sources)


def _attested(entry: Entry, measured: Measured, results: dict[str, Result], policy: trust.Trust) -> Measured:
    """The device views with what the trust policy says of each result file."""
    views = []
    for view in measured.devices:
        check = trust.check_result(entry.slug, view.key, results[view.key], policy)
        path = store.results_dir(entry.folder) / f"{view.key}.json"
        views.append(dataclasses.replace(view, attestation=check.status, attested_by=check.signer,
                                         attestation_note=check.reason, path=path))
    return dataclasses.replace(measured, devices=tuple(views))


def scaffold_problems(entry: Entry) -> list[str]:
    """Where the entry still holds the scaffold's TODO text (code blocks in the body excepted)."""
    meta = entry.meta
    places = [key for key, text in (("title", meta.title), ("summary", meta.summary)) if _SCAFFOLD.search(text)]
    first = findings.body_first_line(entry)  # lines of the file, as an editor numbers them
    lines = [first + n - 1 for n, line in _prose_lines(entry.body) if _SCAFFOLD.search(line)]
    if lines:
        places.append("body (line" + ("s " if len(lines) > 1 else " ") + ", ".join(map(str, lines[:5]))
                      + (", ..." if len(lines) > 5 else "") + " of the file)")
    for i, lesson in enumerate(meta.lessons):
        if _SCAFFOLD.search(lesson.title) or _SCAFFOLD.search(lesson.note):
            places.append(f"lessons[{i}]")
    for i, source in enumerate(meta.sources):
        if _SCAFFOLD.search(source.title) or _SCAFFOLD.search(source.note):
            places.append(f"sources[{i}]")
    if not places:
        return []
    return [f"the {', '.join(places)} still hold{'s' if len(places) == 1 else ''} scaffold text (TODO); "
            f"write the entry before it is reviewed"]


def _prose_lines(body: str) -> list[tuple[int, str]]:
    """(line number in the body, text) of every line, with code (fenced blocks, code spans) blanked."""
    masked, _ = masking.mask_code(body)
    return [(n, line) for n, line in enumerate(masked.splitlines(), 1)]


def _result_refusals(entry: Entry, measured: Measured) -> list[Finding]:
    out = [Finding("results", f"the result {display_path(d.path)} is unverified: {d.attestation_note}; "
                              f"only results signed by a trusted node publish (docs/maintainers/trust.md)")
           for d in measured.devices if d.attestation == "unverified"]
    if entry.meta.measure is None:
        return out
    current = [d for d in measured.devices if d.status == "ok" and d.provenance == "measured" and not d.stale]
    if current:
        return out
    have = [d for d in measured.devices if d.status == "ok"]
    if not have:
        why = "it has a measurement spec but no recorded result"
    elif all(d.provenance == "imported" for d in have):
        why = (f"it has a measurement spec but only imported results ({', '.join(d.gpu for d in have)}), "
               f"none measured by the harness")
    else:
        why = (f"it has a measurement spec but every measured result is stale "
               f"({', '.join(d.gpu for d in have if d.stale)}: the spec, kernels or harness changed since)")
    return out + [Finding("results", f"{why}; measure it on the verification node (mkdocs build there, or "
                                     f"glossary measure {entry.slug})")]


# Figure problems that are not a figure waiting for data (the body's template, a citation).
_NOT_DATA = ("the body", "cannot render", "a cited figure", "cite_table")


def _figure_reason(entry: Entry, why: str) -> str:
    """A figure problem as check and the build say it: a figure without data names the file's line
    and the figure (``glossary.figures.bind`` reports each figure once, as a FigureProblem)."""
    if why.startswith(_NOT_DATA):
        return why
    line, figure = getattr(why, "line", None), getattr(why, "figure", None)
    if line is None:
        return f"a bound figure has no data: {why}"
    return f"a bound figure has no data: {display_path(entry.path)}:{line}: {figure}: {why}"


def failing_claims(measured: Measured) -> list[str]:
    """One sentence per claim that fails on a device without a declared expected failure."""
    by_device: dict[str, list[claims.ClaimVerdict]] = {}
    for verdict in measured.claims:
        by_device.setdefault(verdict.device, []).append(verdict)
    out = []
    for device, verdicts in by_device.items():
        for summary in claims.summarize(verdicts):
            if summary.status != "fails" or summary.expected_failure:
                continue
            numbers = "; ".join((f"{v.elements:,}: " if v.elements else "") + v.numbers
                                for v in summary.evaluated if v.failed)
            out.append(f"a claim fails on {device}: {summary.statement} ({numbers}); fix the entry, or declare "
                       f"measure.claims[].expected_failure with the reason for the reviewer to sign")
    return out


def _reproduction_warnings(reproduced) -> list[Finding]:
    """A WARNING per reproduction that does not count or disagrees: named, never hiding the record."""
    out = []
    for r in reproduced:
        where = display_path(r.path)
        if r.status == "refused":
            out.append(Finding("reproductions", f"the reproduction {where} is refused: {r.reason}"))
        elif r.status == "earlier":
            out.append(Finding("reproductions", f"the reproduction {where} does not count: {r.reason}"))
        elif r.status == "disagrees":
            worst = sorted(r.agreement.outside, key=lambda n: -n.difference)
            shown = "; ".join(f"{n.where}: {n.ratio:.4f} of the record (tolerance {agreement.percent(n.tolerance)})"
                              if n.ratio is not None else f"{n.where}: not measured" for n in worst[:3])
            more = f" and {len(worst) - 3} more" if len(worst) > 3 else ""
            out.append(Finding("reproductions", f"the reproduction {where} by node {r.node} disagrees with the "
                                                f"record beyond its tolerance ({shown}{more}); the page shows it "
                                                f"as disagreeing, and the record stands as measured"))
    return out


def _result_warnings(measured: Measured) -> list[Finding]:
    out = []
    for d in measured.devices:
        if d.status == "ok" and d.stale:
            out.append(Finding("results", f"results for {d.gpu} (captured {d.captured_on}) are stale: the spec, "
                                          f"kernels or harness changed since; re-measure on the verification node"))
        if d.status != "ok":
            out.append(Finding("results", f"the measurement on {d.gpu} failed: {d.error}"))
        elif d.last_failure:
            error = d.last_failure.error.strip().splitlines()[:1]
            out.append(Finding("results", f"the last attempt to re-measure on {d.gpu} failed"
                                          f"{': ' + error[0] if error else ''}; the recorded figures are kept"))
    return out
