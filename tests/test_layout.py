"""The code's layout as a test: arrows point down the pipeline, measure/ stands alone, modules stay small.

Stages, top to bottom: the build, the checks and the command line; site/; verdicts/; figures/
and measuring/ (side by side, neither imports the other); entries/.  A module imports only from
its own stage or a stage below it, and nothing under measure/ imports glossary/.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The rank of each stage: a module may import from a rank at or below its own (same-rank
# neighbours only within one stage).
RANK = {"entries": 0, "measuring": 1, "figures": 1, "verdicts": 2, "site": 3, "": 4}
MAX_LINES = 400
LONG_ALLOWED = {"glossary/site/svgplot.py"}  # the SVG writer: one drawing, one module


def _modules(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> list[tuple[str, list[str], int]]:
    """(module, names, line) of every import in the file, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.module, [a.name for a in node.names], node.lineno))
    return out


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in RANK else ""


def _target_stage(module: str, names: list[str]) -> list[str]:
    """The stages an import reaches: ``from glossary import site`` reaches site."""
    if module == "glossary":
        return [n if n in RANK else "" for n in names]
    parts = module.split(".")
    return [parts[1] if len(parts) > 1 and parts[1] in RANK else ""]


def test_measure_imports_nothing_from_glossary():
    found = [f"{p.relative_to(ROOT)}:{line} imports {mod}" for p in _modules("measure")
             for mod, _, line in _imports(p) if mod == "glossary" or mod.startswith("glossary.")]
    assert not found, "\n".join(found)


def test_glossary_imports_point_down_the_pipeline():
    found = []
    for path in _modules("glossary"):
        rel = path.relative_to(ROOT)
        module = ".".join(rel.with_suffix("").parts)
        own = _stage(module)
        for mod, names, line in _imports(path):
            if mod != "glossary" and not mod.startswith("glossary."):
                continue
            for target in _target_stage(mod, names):
                same_rank_other = RANK[target] == RANK[own] and target != own
                if RANK[target] > RANK[own] or same_rank_other:
                    found.append(f"{rel}:{line}: {own or 'top'} imports {mod} ({target or 'top'})")
    assert not found, "\n".join(found)


def test_no_private_name_crosses_a_package():
    found = []
    for package in ("glossary", "measure", "bench", "hooks"):
        for path in _modules(package):
            here = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
            for mod, names, line in _imports(path):
                if not (mod.startswith("glossary") or mod.startswith("measure")):
                    continue
                private = [n for n in names if n.startswith("_") and not n.startswith("__")]
                if private and mod.rsplit(".", 1)[0] != here and mod != here:
                    found.append(f"{path.relative_to(ROOT)}:{line}: {mod} {', '.join(private)}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("package", ["glossary", "measure"])
def test_modules_stay_small(package):
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in _modules(package)
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
            and str(p.relative_to(ROOT)) not in LONG_ALLOWED]
    assert not long, "\n".join(long)


def test_the_longest_test_files_are_handed_out_first():
    # conftest's SLOW_FILES put first in collection order, and pytest-xdist told to keep that order
    # (by default it hands out the files with the most tests first): a renamed file would silently
    # fall back to its alphabetical place, and a dropped option would undo the whole list
    import tomllib

    from conftest import SLOW_FILES

    assert [name for name in SLOW_FILES if not (ROOT / "tests" / name).is_file()] == []
    assert len(set(SLOW_FILES)) == len(SLOW_FILES)
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    assert "--dist loadfile" in options and "--no-loadscope-reorder" in options.split()
