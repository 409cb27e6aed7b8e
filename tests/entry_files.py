"""An entry's files as the CPU tests of the issue-18 and issue-19 entries read them: the
front-matter and body, the float64 reference imported as a module, and float32 comparisons."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np
import yaml

ENTRIES = Path(__file__).resolve().parent.parent / "entries"


# libyaml where PyYAML has it: the test modules that parametrize over the entries' specs read every
# front-matter while they are collected, in every pytest-xdist worker (issue 34).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def split(slug: str) -> tuple[dict, str]:
    """The entry's front-matter (parsed) and its body."""
    text = (ENTRIES / f"{slug}.md").read_text(encoding="utf-8")
    head, body = text[3:].split("\n---", 1)
    return yaml.load(head, Loader=_LOADER), body


@functools.lru_cache(maxsize=None)
def _front_matter_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text[3:].split("\n---", 1)[0] if text.startswith("---") else ""


def front_matter_at(path: Path) -> dict:
    """The front-matter of the entry file at ``path`` ({} where it has none), parsed afresh from a text
    read once per test process: the caller may change what it gets."""
    return yaml.load(_front_matter_text(Path(path)), Loader=_LOADER) or {}


def front_matter(slug: str) -> dict:
    return split(slug)[0]


def check_unsigned_and_files(slug: str) -> dict:
    """The checks every real entry's front-matter passes: nobody's name typed (author and reviewer
    pending, no dates), sources on https, related entries and the spec's files there, the headline
    one of the sizes. Returns the front-matter for the caller's own checks."""
    fm = front_matter(slug)
    assert fm["author"] == "pending" and fm["reviewer"] == "pending"
    assert fm["written_on"] is None and fm["reviewed_on"] is None
    assert all(s["url"].startswith("https://") for s in fm["sources"])
    for other in fm["related"]:
        assert (ENTRIES / f"{other}.md").exists(), other
    m = fm["measure"]
    for source in m["sources"]:
        assert (ENTRIES / slug / source).exists()
    assert (ENTRIES / slug / m["reference"]).exists()
    assert m["headline"] in m["sizes"]
    return fm


def reference_of(slug: str):
    """The entry's reference.py, imported under a module name of its own."""
    path = ENTRIES / slug / "reference.py"
    spec = importlib.util.spec_from_file_location(f"ref_{slug.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def f32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def within(got, ref, rtol, atol) -> bool:
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    return bool(np.all(np.abs(got - ref) <= atol + rtol * np.abs(ref)))
