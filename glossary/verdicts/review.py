"""Review sign-off bound to content: the review fingerprint, stale reviews, signing.

``glossary sign`` writes three front-matter keys: ``reviewer``,
``reviewed_on`` and ``review_fingerprint``.  The fingerprint is compound, so a
stale review can say *what* changed since it was signed::

    v2:fm=<12 hex>,body=<12 hex>,kernels=<12 hex>,results=<12 hex>[,images=<12 hex>]

Each part is the first 12 hex digits of a SHA-256 over:

fm        the front-matter as parsed data, minus ``review_fingerprint`` itself, and the
          lesson catalogue's title and link for each lesson day the entry lists, as
          canonical JSON (sorted keys, dates as YYYY-MM-DD): comments and layout
          do not count, values do.  The reviewer's name and date are covered, so
          renaming the reviewer or back-dating the review after signing makes the
          review stale;
body      the Markdown body, line endings normalised to LF, outer whitespace
          stripped (what the page shows);
kernels   every file the spec names (kernel sources and the reference), by
          name, length and bytes: exactly the files the site publishes for it;
results   every recorded result file of the entry, whole, as canonical JSON:
          what the page, its plots, the published result files and
          ``glossary.json`` are made from, ``last_failure`` included (the page
          shows it).  A file added, removed or changed after signing voids the
          review.
images    only where the body links images (``glossary.entries.images``): every image
          under ``assets/`` it links and each one's dark partner, by path, length and
          bytes (a linked file that is missing by path alone): exactly the files the
          site publishes for it.  The part is left out for an entry without images,
          so their fingerprints are those of the four parts above.

Format v1 left out the reviewer, the date and ``last_failure``; a v1 review is
stale and must be signed again.

Everything here is a pure function of its arguments; the command line reads
and writes files.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Literal


from glossary.verdicts.gate import is_real_name, name_problem, same_person
from glossary.entries import frontmatter, images
from glossary.entries.errors import EntryError
from glossary.entries.frontmatter import FRONT_MATTER_RE, split_front_matter
from glossary.entries.model import Entry, display_path
from measure.results import Result

REVIEW_KEYS = ("reviewer", "reviewed_on", "review_fingerprint")  # the keys `glossary sign` writes
UNSIGNED_KEYS = ("review_fingerprint",)  # the only front-matter the fingerprint cannot cover: itself
FORMAT = "v2"
PARTS = {"fm": "front-matter", "body": "body", "kernels": "kernel sources", "results": "recorded results",
         "images": "images"}
OPTIONAL_PARTS = ("images",)  # written only where the entry has one (an entry without images has no images part)
_FINGERPRINT_RE = re.compile(r"^(v\d+):" + ",".join(f"{p}=([0-9a-f]{{12}})" for p in PARTS if p not in OPTIONAL_PARTS)
                             + "".join(f"(?:,{p}=([0-9a-f]{{12}}))?" for p in OPTIONAL_PARTS) + "$")


class ReviewError(Exception):
    """Signing cannot go ahead; the message says why and what to do."""


# -- the fingerprint --------------------------------------------------------------


def _canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=True,
                      default=_json_default).encode("utf-8")


def _json_default(value: Any) -> str:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


def _part(name: str, data: bytes) -> str:
    return hashlib.sha256(name.encode() + b"\0" + data).hexdigest()[:12]


def compute_review_fingerprint(entry: Entry, results: dict[str, Result], catalog: dict | None = None,
                               unsigned: tuple[str, ...] = UNSIGNED_KEYS) -> str:
    """The compound fingerprint of what a reviewer of ``entry`` sees, with these recorded results.

    ``catalog`` is the lesson catalogue (``glossary.entries.lessons``): the titles and links it gives the
    entry's lesson days are shown on the page, so they are part of what the reviewer signs.
    ``unsigned`` are the front-matter keys left out (``content_fingerprint`` leaves out the review's).
    """
    front = {k: v for k, v in entry.raw_meta.items() if k not in unsigned}
    shown = _catalogue_lines(entry, catalog or {})
    if shown:
        front = dict(front)
        front["\0lessons catalogue"] = shown  # a key no front-matter can have
    body = entry.body.replace("\r\n", "\n").strip().encode("utf-8")
    kernels = b"".join(f"{name}\0{len(data)}\0".encode() + data for name, data in sorted(entry.kernel_files.items()))
    parts = {
        "fm": _part("fm", _canonical(front)),
        "body": _part("body", body),
        "kernels": _part("kernels", kernels),
        "results": _part("results", _canonical({k: r.plain() for k, r in results.items()})),
    }
    shown_images = _image_paths(entry)
    if shown_images:
        parts["images"] = _part("images", b"".join(_file_record(p, entry.image_files.get(p)) for p in shown_images))
    return f"{FORMAT}:" + ",".join(f"{k}={v}" for k, v in parts.items())


def content_fingerprint(entry: Entry, results: dict[str, Result], catalog: dict | None = None) -> str:
    """The fingerprint both people sign: the review fingerprint's parts over the entry without the
    review's own keys (reviewer, reviewed_on, review_fingerprint).  The author signs it before anyone
    reviews; the reviewer's signed statement names it too, so the two signatures cover the same
    content, and writing the review into the front-matter does not void the author's."""
    return compute_review_fingerprint(entry, results, catalog, unsigned=REVIEW_KEYS)


def _image_paths(entry: Entry) -> list[str]:
    """The images the fingerprint covers: those the body links under ``assets/`` and the dark partners read."""
    return sorted(set(images.asset_images(entry.body)) | set(getattr(entry, "image_files", {})))


def _file_record(name: str, data: bytes | None) -> bytes:
    """A file by name, length and bytes, as the kernels part has them; a missing file by name alone."""
    if data is None:
        return f"{name}\0missing\0".encode()
    return f"{name}\0{len(data)}\0".encode() + data


def _catalogue_lines(entry: Entry, catalog: dict) -> dict[str, list]:
    """The catalogue's title and URL for each lesson day the entry lists (days it knows only)."""
    days = [lesson.day for lesson in getattr(entry.meta, "lessons", ())] if hasattr(entry, "meta") else []
    return {str(day): [catalog[day].title, catalog[day].url] for day in sorted(set(days)) if day in catalog}


def parse_fingerprint(text: str | None) -> tuple[str, dict[str, str]] | None:
    """(format, {part: hex}) of a compound fingerprint; None when it is not one."""
    match = _FINGERPRINT_RE.match((text or "").strip())
    if not match:
        return None
    return match.group(1), {p: h for p, h in zip(PARTS, match.groups()[1:]) if h is not None}


def short_fingerprint(fingerprint: str) -> str:
    """12 hex digits that stand for a whole compound fingerprint (shown in the byline)."""
    return hashlib.sha256(fingerprint.strip().encode("utf-8")).hexdigest()[:12]


def diff_review(old: str, new: str) -> list[str]:
    """What changed between the signed fingerprint ``old`` and the current ``new``, in words."""
    before, after = parse_fingerprint(old), parse_fingerprint(new)
    if after is None:
        raise ValueError(f"not a review fingerprint: {new!r}")
    if before is None:
        return [f"review fingerprint (it is not one `glossary sign` writes: {old!r})"]
    if before[0] != after[0]:
        return [f"fingerprint format ({before[0]}, now {after[0]})"]
    return [PARTS[p] for p in PARTS if before[1].get(p) != after[1].get(p)]


# -- the state of an entry's review -------------------------------------------------


@dataclass(frozen=True)
class Review:
    """Where an entry's review stands against its content now."""

    status: Literal["none", "unsigned", "current", "stale"]
    reviewer: str | None
    reviewed_on: dt.date | None
    fingerprint: str | None  # as signed
    current: str  # as computed now
    changed: tuple[str, ...] = ()

    @property
    def refusals(self) -> tuple[str, ...]:
        """Reasons for the gate: a stale review refuses the entry."""
        if self.status != "stale":
            return ()
        when = self.reviewed_on.isoformat() if self.reviewed_on else "an unrecorded date"
        return (f"review is stale: the {_join(self.changed)} changed since {self.reviewer} reviewed it "
                f"on {when}; a reviewer must read it again and run `glossary sign` to re-sign",)

    @property
    def warning(self) -> str | None:
        """A hand-written reviewer: accepted, with this warning."""
        if self.status != "unsigned":
            return None
        return (f"reviewer {self.reviewer} has not signed with `glossary sign`; "
                f"the review is not bound to the content")

    @property
    def short(self) -> str | None:
        return short_fingerprint(self.fingerprint) if self.fingerprint else None


def review_of(entry: Entry, results: dict[str, Result], catalog: dict | None = None) -> Review:
    """Compare the entry's signed review fingerprint with its content, results and lessons now."""
    meta = entry.meta
    current = compute_review_fingerprint(entry, results, catalog)
    common = dict(reviewer=meta.reviewer, reviewed_on=meta.reviewed_on, fingerprint=meta.review_fingerprint,
                  current=current)
    if not is_real_name(meta.reviewer):
        return Review(status="none", **common)
    if not (meta.review_fingerprint or "").strip():
        return Review(status="unsigned", **common)
    changed = tuple(_name_images(diff_review(meta.review_fingerprint, current), entry))
    return Review(status="stale" if changed else "current", changed=changed, **common)


def _name_images(changed: list[str], entry: Entry) -> list[str]:
    """The changed parts in words, the images part naming the image files it covers."""
    paths = _image_paths(entry)
    named = f"images ({', '.join(display_path(entry.path.parent / p) for p in paths)})" if paths else "images"
    return [named if part == PARTS["images"] else part for part in changed]


def _join(items: tuple[str, ...] | list[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# -- signing ----------------------------------------------------------------------


def signs_as_author(entry: Entry, name: str) -> bool:
    """Whether ``glossary sign --as NAME`` signs ``entry`` as its author (else as its reviewer)."""
    return is_real_name(entry.meta.author) and same_person(name, entry.meta.author)


def signer_problem(entry: Entry, name: str) -> str | None:
    """Why ``name`` may not sign ``entry`` as its reviewer (None when they may)."""
    if not is_real_name(name):
        why = name_problem(name) or "is not a name"
        return (f"{name!r}: the name {why}; sign with the reviewer's real name, e.g. "
                f"--as \"Firstname Lastname\"")
    if not is_real_name(entry.meta.author):
        return (f"{entry.path}: the entry has no named author yet (author is {entry.meta.author!r}); "
                f"the author puts their name in `author:` before anyone reviews")
    if same_person(name, entry.meta.author):
        return (f"{name!r} is the author of {entry.path.name} (or looks the same as {entry.meta.author!r}); "
                f"a different person must review and sign")
    return None


def sign_entry(entry: Entry, text: str, name: str, date: dt.date, results: dict[str, Result],
               catalog: dict | None = None) -> tuple[str, str]:
    """(the entry's new text, its review fingerprint) once ``name`` signs it on ``date``.

    The fingerprint covers the reviewer's name and the date, so it is computed over
    the front-matter as it reads with both written in.
    """
    draft = sign_text(text, name, date, "")
    try:
        raw_meta, _ = split_front_matter(draft, entry.path)
    except EntryError as err:
        raise ReviewError(f"could not edit the front-matter safely ({err.message})") from None
    fingerprint = compute_review_fingerprint(dataclasses.replace(entry, raw_meta=raw_meta), results, catalog)
    return sign_text(text, name, date, fingerprint), fingerprint


def sign_text(text: str, name: str, date: dt.date, fingerprint: str) -> str:
    """The entry ``text`` with reviewer, reviewed_on and review_fingerprint set.

    Only those keys' values change (or their lines are added); every other
    byte, comments included, stays.  The result is re-parsed to prove it.
    """
    name = " ".join(name.split())
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    rest = text[len(bom):]
    match = FRONT_MATTER_RE.match(rest)
    if not match:
        raise ReviewError("expected YAML front-matter between '---' lines at the top of the file")
    front, start = match.group(1), match.start(1)
    values = {"reviewer": frontmatter.yaml_scalar(name), "reviewed_on": date.isoformat(),
              "review_fingerprint": json.dumps(fingerprint)}
    try:
        edited = frontmatter.set_keys(front, values, REVIEW_KEYS)
    except frontmatter.EditError as err:
        raise ReviewError(str(err)) from None
    new = bom + rest[:start] + edited + rest[match.end(1):]
    _verify(text, new, name, date, fingerprint)
    return new


def _verify(old: str, new: str, name: str, date: dt.date, fingerprint: str) -> None:
    try:
        before, body_before = split_front_matter(old, "entry")
        after, body_after = split_front_matter(new, "entry")
    except EntryError as err:
        raise ReviewError(f"could not edit the front-matter safely ({err.message}); "
                          f"set reviewer, reviewed_on and review_fingerprint by hand") from None
    expected = {k: v for k, v in before.items() if k not in REVIEW_KEYS}
    expected.update(reviewer=name, reviewed_on=date, review_fingerprint=fingerprint)
    if after != expected or body_after != body_before:
        raise ReviewError("could not edit the front-matter safely (re-reading it gave other values); "
                          "set reviewer, reviewed_on and review_fingerprint by hand")
