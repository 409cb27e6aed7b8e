"""Collect: the page model of an entry (entry + results + verdicts), and the context its template sees.

Templates receive only what is built here: plain values, already derived and formatted, so a
template never does arithmetic on measurements.  The files these values point at (plots, tag
pages, kernels) are made by ``glossary.site.sitefiles`` from the same functions, so a link and
its target agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from glossary.entries import lessons
from glossary.entries.model import Entry, sha256
from glossary.figures import cite, fmt
from glossary.figures.views import DeviceView
from glossary.site import plots, reproduced, tags
from glossary.verdicts import claims
from glossary.verdicts.assess import Assessment
from glossary.verdicts.gate import Verdict, is_real_name
from glossary.verdicts.review import short_fingerprint
from glossary.entries.lead import without_repeated_lead


@dataclass(frozen=True)
class PageModel:
    """Everything an entry page shows."""

    entry: Entry
    verdict: Verdict
    devices: tuple[DeviceView, ...]
    related: tuple[Entry, ...]  # only entries that will be on the site
    preview: bool
    notes: tuple[str, ...] = field(default_factory=tuple)
    body: str | None = None  # the body with bound figures rendered; None: the raw body
    claims: tuple = ()  # glossary.verdicts.claims.ClaimVerdict, every device and size
    figure_problems: tuple[str, ...] = ()  # bound figures that found no data
    cited: tuple[str, ...] = ()  # the source URL of each cited figure in the body
    review_key: str | None = None  # the reviewer's key id, where a signed review verified
    author_key: str | None = None  # the author's key id, where the author's signature verified
    mode: str = "names"  # the trust policy the entry was judged under (glossary.verdicts.trust)
    refused_by: tuple[str, ...] = ()  # the checks that refused it (assess.Finding.check): what a draft waits for
    # (device key, link) of each imported result that says where a reader can read its source
    # (imported_from_url): an http(s) URL or a docs-relative file under assets/, which the site publishes.
    import_sources: tuple[tuple[str, str], ...] = ()
    # device key -> what the page says of other nodes' reproductions of its record (glossary.site.reproduced)
    reproduced: dict = field(default_factory=dict)

    @classmethod
    def of(cls, judged: Assessment, related: tuple[Entry, ...], preview: bool) -> "PageModel":
        """The page of an assessed entry; ``related`` are the related entries the site shows."""
        measured = judged.measured
        return cls(entry=judged.entry, verdict=judged.verdict, devices=measured.devices, related=related,
                   preview=preview, body=measured.body, claims=measured.claims,
                   figure_problems=measured.figure_problems, cited=measured.cited, review_key=judged.review_key,
                   author_key=judged.author_key, mode=judged.mode,
                   refused_by=tuple(dict.fromkeys(f.check for f in judged.refusals)),
                   import_sources=tuple(sorted((key, r.imported_from_url) for key, r in judged.results.items()
                                               if r.imported and r.imported_from_url)),
                   reproduced=reproduced.items(judged.entry, judged.results, judged.reproductions))


def signatures(model: PageModel) -> dict:
    """What the byline may say about signatures: only what verified (``names_only`` under
    ``trust: names``, where nobody signs); a key is shown only for a signature that verified."""
    return {"names_only": model.mode != "signed", "author_key": model.author_key or "",
            "key": model.review_key or "", "both": both_signed(model)}


def both_signed(model: PageModel) -> bool:
    """Published with the author's and a different reviewer's signature, both verified."""
    return (model.verdict.publishable and model.mode == "signed" and bool(model.author_key)
            and bool(model.review_key) and model.author_key != model.review_key)


def waits_for(model: PageModel) -> str:
    """What a draft waits for first, in words: a named author, the author's signature, a reviewer, or
    other fixes."""
    if not is_real_name(model.entry.meta.author):
        return "a named author"
    if "author" in model.refused_by and model.mode == "signed":
        return "the author's signature"
    if "review" in model.refused_by or not is_real_name(model.entry.meta.reviewer):
        return "a reviewer's signature" if model.mode == "signed" else "a named reviewer"
    return "other fixes, which glossary check lists"


def home_claim(models: list[PageModel], drafts: list[PageModel], preview: bool = False) -> str:
    """The home page's sentence about who signed what, counted from the entries' verification
    outcomes: ``models`` are the pages the site shows, ``drafts`` the entries it leaves out."""
    published = [m for m in models if m.verdict.publishable]
    waiting = [m for m in models if not m.verdict.publishable] + list(drafts)
    if not published:
        line = "No entry is published yet"
        if waiting:
            counts: dict[str, int] = {}
            for m in waiting:
                counts[waits_for(m)] = counts.get(waits_for(m), 0) + 1
            parts = ", ".join(f"{n:,} for {why}" for why, n in counts.items())
            line += (f": {_entries(len(waiting))} {'waits' if len(waiting) == 1 else 'wait'} as "
                     f"draft{'' if len(waiting) == 1 else 's'} ({parts})")
        return line + "."
    if any(m.mode != "signed" for m in published):
        line = (f"{_entries(len(published))}, names only, not signed: each names an author and a different "
                f"reviewer, nobody signed {'it' if len(published) == 1 else 'them'}, and results are unsigned.")
    else:
        both = sum(both_signed(m) for m in published)
        line = (f"{_entries(both)}, each signed by its author and a different reviewer with keys this repository "
                f"trusts.")
    if preview and waiting:
        line += f" The {_entries(len(waiting))} marked (draft) {'is' if len(waiting) == 1 else 'are'} not published."
    return line


def _entries(n: int) -> str:
    return f"{n:,} entr{'y' if n == 1 else 'ies'}"


def _name_or_pending(name: str | None) -> str:
    return name.strip() if is_real_name(name) else "pending"


def _date_or_pending(value: Any) -> str:
    return value.isoformat() if value is not None else "pending"


def device_label(view) -> str:
    """A device as the index and byline name it: imported figures are labelled wherever they appear."""
    return f"{view.gpu} (imported)" if view.provenance == "imported" else view.gpu


def entry_context(model: PageModel, catalog: dict[int, lessons.CatalogLesson],
                  by_day: dict[int, list[dict]] | None = None) -> dict:
    """The plain values the entry template sees: the one place a page's context is put together."""
    entry = model.entry
    meta = entry.meta
    devices_line = ", ".join(f"{device_label(d)} on {d.captured_on}" for d in model.devices if d.status == "ok")
    any_counted = any(r.counted_bytes_per_elem is not None
                      for d in model.devices for s in d.sizes for r in s.rows)
    any_flops = any(r.gflops is not None for d in model.devices for s in d.sizes for r in s.rows)
    kinds = {c.kind for c in meta.measure.claims} if meta.measure else set()
    floor_claims = [v.name for c in meta.measure.claims if c.kind == "fraction_of_floor"
                    for v in meta.measure.measured(c.variant)] if meta.measure else []
    link_claims = [v.name for c in meta.measure.claims if c.kind == "fraction_of_link"
                   for v in meta.measure.measured(c.variant)] if meta.measure else []
    by_device = _claims_by_device(model)
    return {
        "page": {
            "title": meta.title,
            "summary": meta.summary.strip(),
            # the lead shows the summary: a first sentence that repeats it is left out (glossary.entries.lead)
            "body": without_repeated_lead(meta.summary, entry.body if model.body is None else model.body).strip() + "\n",
            "draft": not model.verdict.publishable,
            "missing": list(model.verdict.missing),
            "has_spec": meta.measure is not None,
            "devices": list(model.devices),
            "claims": by_device,
            "verdict_lines": {d.key: verdict_line(d, by_device.get(d.key, []), floor_claims, link_claims) for d in model.devices},
            "results": {d.key: f"{entry.slug}/results/{d.key}.json" for d in model.devices},
            "reproduced": model.reproduced,
            **related_items(model.related),
            "lessons": lessons.resolve(list(meta.lessons), catalog, by_day, entry.slug),
            "sources": source_items(meta.sources, model.cited),
            "byline": {
                "author": _name_or_pending(meta.author),
                "reviewer": _name_or_pending(meta.reviewer),
                "written_on": _date_or_pending(meta.written_on),
                "reviewed_on": _date_or_pending(meta.reviewed_on),
                "measured": devices_line,
                # published with a fingerprint means the gate found it matches what is shown
                "signed": model.verdict.publishable and bool(meta.review_fingerprint),
                "fingerprint": short_fingerprint(meta.review_fingerprint) if meta.review_fingerprint else "",
                **signatures(model),
            },
            "slug": entry.slug,
            "tags": [{"name": t, "path": tags.tag_path(t)} for t in meta.tags],
            "plots": {d.key: {"path": plot_path(entry.slug, d.key), "alt": plots.alt_text(d)}
                      for d in model.devices if plots.has_plot(d)},
            "kernels": kernel_sources(model),
        },
        "counted": any_counted,
        # boilerplate only where it applies: the copy-floor comparison where a claim judges against
        # the floor, the byte ratio where a claim does or the variants' predicted bytes differ
        "uses_floor": "fraction_of_floor" in kinds,
        "uses_byte_ratio": "speedup_matches_bytes" in kinds,
        "gflops": any_flops,
    }


def source_items(sources, cited: tuple[str, ...]) -> list[dict]:
    """The Sources list: each source with its anchor (where the body's "cited" marks link) and how
    many of the page's figures are cited from it."""
    return [{"title": s.title, "url": s.url, "note": s.note, "checked": s.checked.isoformat(),
             "anchor": cite.source_anchor(s, n), "cited": cited.count(s.url)}
            for n, s in enumerate(sources, 1)]


def _claims_by_device(model: PageModel) -> dict[str, list[claims.ClaimSummary]]:
    keys = {d.gpu: d.key for d in model.devices}
    by_device: dict[str, list] = {}
    for verdict in model.claims:
        by_device.setdefault(keys.get(verdict.device, verdict.device), []).append(verdict)
    return {key: claims.summarize(verdicts) for key, verdicts in by_device.items()}


def verdict_line(view: DeviceView, summaries: list[claims.ClaimSummary], floor_claims: list[str],
                 link_claims: list[str] = ()) -> str:
    """The one line at the top of a device tab: how the claims came out, and the figure that sums
    the entry up at the headline size ('3 of 4 claims hold; fused vec4 runs at 103% of the copy
    floor': the first variant a copy-floor claim is about, else the first a link-floor claim is
    about, else the roofline, else the first ratio), in the site's number style (pure)."""
    parts = [claims.tally(summaries)] if summaries else []
    head = view.headline
    if head is not None and head.rows:
        rows = {r.name: r for r in head.rows}
        judged = [rows[v] for v in floor_claims if v in rows and rows[v].fraction_of_floor is not None]
        linked = [rows[v] for v in link_claims if v in rows and rows[v].of_link is not None]
        if judged:
            parts.append(f"{judged[0].short} runs at {fmt.percent(judged[0].fraction_of_floor)} of the copy floor")
        elif linked:
            parts.append(f"{linked[0].short} runs at {fmt.percent(linked[0].of_link)} of the link floor")
        elif head.roofline is not None and head.roofline.source == "peer":  # a cited peak sums up nothing measured
            roof = head.roofline
            parts.append(f"compute ceiling {fmt.flops(roof.compute_gflops)}, ridge at "
                         f"{fmt.significant(roof.ridge, 3)} FLOP/B")
        elif head.ratios:
            q = head.ratios[0]
            parts.append(f"{q.short} = {fmt.ratio(q.time_ratio)} in time at {head.label}")
    return "; ".join(p for p in parts if p)


def plot_path(slug: str, device_key: str) -> str:
    """Docs-relative path of a device's plot."""
    return f"{slug}/plots/{device_key}.svg"


def kernel_sources(model: PageModel) -> list[dict]:
    """The measured CUDA sources: name, docs-relative path, sha256, code and a safe fence."""
    spec = model.entry.meta.measure
    if spec is None:
        return []
    out = []
    for name in spec.sources:
        data = model.entry.kernel_files.get(name)
        if data is None:
            continue
        code = data.decode("utf-8", errors="replace").rstrip("\n")
        longest = max((len(m) for m in re.findall(r"`{3,}|~{3,}", code)), default=0)
        out.append({
            "name": name,
            "path": f"{model.entry.slug}/{name}",
            "sha256": sha256(data),
            "code": code,
            "fence": "`" * max(3, longest + 1),
            "lang": "cuda" if name.endswith((".cu", ".cuh")) else "cpp",
        })
    return out


# The Related terms list: the author's order (``related:`` lists the closest first), the first
# MAX_RELATED_SHOWN with their summaries, the rest named plainly in one closing line ("And 3 more:
# ...") so the list stays short without hiding a link.
MAX_RELATED_SHOWN = 8


def related_items(related: tuple[Entry, ...]) -> dict[str, list[dict]]:
    """``related`` (shown entries, in the author's order) as the template's ``related`` (with
    summaries, at most MAX_RELATED_SHOWN) and ``related_more`` (the rest: titles and slugs)."""
    items = [{"slug": r.slug, "title": r.title, "summary": r.meta.summary.strip()} for r in related]
    return {"related": items[:MAX_RELATED_SHOWN], "related_more": items[MAX_RELATED_SHOWN:]}
