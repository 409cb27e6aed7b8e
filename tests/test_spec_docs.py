"""The authors' reference (docs/maintainers/writing-an-entry.md) is generated from the code.

The committed guide must equal what ``measure.spec.docgen`` renders from the live spec, expression
language, claim kinds, ``fig`` figures and data types; the renderer is tested on tiny dataclasses.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

import pytest
import yaml

from measure.spec import docgen, limits, model
from measure.typed import doc


def test_the_committed_guide_is_current():
    text = docgen.DOC.read_text(encoding="utf-8")
    _, stale = docgen.regenerate(text)
    assert not stale, f"generated sections {stale} of {docgen.DOC.name} are stale; run: {docgen.COMMAND}"


# -- the renderer on a tiny spec ----------------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    """A leaf.

    More words the table leaves out."""

    kind: Literal["a", "b"] = doc("which | one", default="a")
    tol: float = doc("a tolerance", default=1e-5)


@dataclass(frozen=True)
class Root:
    """The root."""

    name: str = doc("what it is called")
    leaves: list[Leaf] = doc("the leaves", max_items=4)
    by_name: dict[str, Leaf] = doc("leaves by name", default_factory=dict)
    one: Leaf = doc("one leaf", default_factory=Leaf)
    flags: list[str] = doc("options", default_factory=lambda: ("-O3",))
    maybe: int | None = doc("an optional count", default=None)
    either: int | str = doc("a count or an expression", default="n")


def test_every_reachable_dataclass_gets_a_table_at_its_key_path():
    assert [(cls.__name__, path) for cls, path in docgen.reachable(Root, "top")] == [
        ("Root", "top"), ("Leaf", "top.leaves[]")]
    nested = dict((c.__name__, p) for c, p in docgen.reachable(model.MeasureSpec, "measure"))
    assert nested["Launch"] == "measure.variants[].launches[]"
    assert nested["Buffer"] == "measure.buffers.<name>"


def test_a_table_row_holds_key_type_default_and_doc():
    text = docgen.render_keys(Root, "top", "###")
    rows = {line.split(" | ")[0].strip("| `"): line for line in text.splitlines() if line.startswith("| `")}
    assert rows["name"] == "| `name` | text | required | what it is called |"
    assert rows["leaves"] == "| `leaves` | a list of `Leaf` | required | the leaves; at most 4 |"
    assert rows["by_name"] == "| `by_name` | a mapping of names to `Leaf` | `{}` | leaves by name |"
    assert rows["one"] == "| `one` | `Leaf` | the `Leaf` defaults | one leaf |"
    assert rows["flags"] == '| `flags` | a list of text | `["-O3"]` | options |'
    assert rows["maybe"] == "| `maybe` | an integer | none | an optional count |"
    assert rows["either"] == "| `either` | an integer or text | `n` | a count or an expression |"
    assert rows["kind"] == "| `kind` | one of: 'a', 'b' | `a` | which \\| one |"  # a pipe cannot end the cell
    assert rows["tol"] == "| `tol` | a number | `1.0e-5` | a tolerance |"
    assert "### `top.leaves[]` (Leaf)\n\nA leaf.\n\n| key |" in text
    assert "More words" not in text


def test_a_new_field_or_class_appears_without_touching_the_renderer():
    @dataclass(frozen=True)
    class Metric:
        """A declared metric."""
        per: Literal["element", "launch"] = doc("how the total is divided", default="element")

    Grown = dataclasses.make_dataclass("Grown", [("metrics", list[Metric], doc("declared metrics", default_factory=tuple))],
                                       bases=(Root,), frozen=True)
    text = docgen.render_keys(Grown, "top", "###")
    assert "### `top.metrics[]` (Metric)" in text
    assert "| `per` | one of: 'element', 'launch' | `element` | how the total is divided |" in text


@pytest.mark.parametrize("value", [1e-5, 1e-3, 0.005, 30.0, 2e10, 1.5e-12])
def test_float_defaults_read_back_as_numbers_in_yaml(value):
    # PyYAML (YAML 1.1) reads 1e-05 as text; the reference writes 1.0e-5
    assert yaml.safe_load(f"k: {docgen.yaml_value(value)}") == {"k": value}


def test_every_claim_kind_is_listed_with_its_words():
    words, rest = docgen.claim_kind_words()
    assert set(words) == set(model.CLAIM_NEEDS)
    assert all(words.values())
    text = docgen.render_claims()
    for kind, needs in model.CLAIM_NEEDS.items():
        assert f"| `{kind}` | {', '.join(f'`{k}`' for k in needs)} |" in text


def test_constants_the_code_adds_appear_in_the_reference(monkeypatch):
    for module in (limits, model, docgen.expr):
        monkeypatch.delattr(module, "DEVICE_NAMES", raising=False)
    assert "Device names: none" in docgen.render_expressions()  # nothing is invented
    monkeypatch.setattr(limits, "DEVICE_NAMES", ("sm_count", "warp_size"), raising=False)
    assert "Device names: `sm_count`, `warp_size`." in docgen.render_expressions()
    monkeypatch.setattr(limits, "DTYPE_TOLERANCE", {"float32": (1e-3, 2e-3)}, raising=False)
    assert "| `float32` | 4 | `0.001` | `0.002` |" in docgen.render_dtypes()


def test_figures_are_read_from_the_source_without_importing_it():
    source = '''
class Figures:
    def on(self, device_key: str) -> "Figures":
        """Another device.

        More."""
    def ms(self, variant: str) -> str:
        return ""
    def at(self, **params: int):
        """Another size."""
    def _private(self):
        """Not shown."""
'''
    assert docgen.figure_rows(source) == [["`fig.on(device_key)`", "Another device."],
                                          ["`fig.ms(variant)`", ""], ["`fig.at(**params)`", "Another size."]]


# -- markers ------------------------------------------------------------------------------------

SECTIONS = {"one": lambda: "ONE", "two": lambda: "TWO"}
DOC = ("# Guide\n\nhand text\n\n<!-- generated: one -->\nold\n<!-- end generated -->\n\nmiddle\n\n"
       "<!-- generated: two -->\n\nTWO\n\n<!-- end generated -->\ntail\n")


def test_only_the_text_between_markers_is_rewritten():
    fresh, stale = docgen.regenerate(DOC, SECTIONS)
    assert stale == ["one"]
    assert fresh == DOC.replace("<!-- generated: one -->\nold\n", "<!-- generated: one -->\n\nONE\n\n")
    assert docgen.regenerate(fresh, SECTIONS) == (fresh, [])


@pytest.mark.parametrize("text, message", [
    ("<!-- generated: one -->\nx\n", "has no '<!-- end generated -->'"),
    ("<!-- generated: one -->\n<!-- generated: two -->\n<!-- end generated -->\n", "has no"),
    ("x\n<!-- end generated -->\n", "without a '<!-- generated"),
    ("<!-- generated: nine -->\n<!-- end generated -->\n", "unknown section 'nine'"),
])
def test_markers_that_do_not_pair_are_refused(text, message):
    with pytest.raises(docgen.MarkerError, match=message):
        docgen.regenerate(text, SECTIONS)


def test_a_missing_or_repeated_section_is_refused():
    with pytest.raises(docgen.MarkerError, match="no section for two"):
        docgen.regenerate(DOC.split("middle")[0], SECTIONS)
    twice = DOC + "<!-- generated: one -->\n<!-- end generated -->\n"
    with pytest.raises(docgen.MarkerError, match="'one' appears twice"):
        docgen.regenerate(twice, SECTIONS)


def test_check_names_the_stale_section_and_write_fixes_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(docgen, "SECTIONS", SECTIONS)
    path = tmp_path / "guide.md"
    path.write_text(DOC, encoding="utf-8")
    assert docgen.main(["--check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "section 'one' is stale; run: python -m measure.spec.docgen --write" in err
    assert "'two'" not in err
    assert docgen.main(["--write", str(path)]) == 0
    assert docgen.main(["--check", str(path)]) == 0
    assert "\n\nONE\n\n" in path.read_text(encoding="utf-8")
