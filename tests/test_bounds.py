"""Bounded work (issue 14): hostile entry input costs seconds, not hours, and every malformed
input is an EntryError naming the file and the key, never a traceback.

One group of tests per class: expressions, YAML aliases, quadratic Markdown, tags and related
links, sizes (and the memory they need), dates, reserved slugs.  Timings are generous bounds for a
slow 2-core machine; before these bounds each case ran for minutes or hours.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest

from conftest import mkdocs, write_project

from glossary.entries import frontmatter, model
from glossary.entries.markdown_budget import markup_problem
from glossary.entries.model import EntryError, EntryErrors, load_entries, parse_entry
from measure import expr
from measure.spec import MAX_SIZE, MeasureSpec, fit_problems
from measure.typed import load

TODAY = dt.date(2026, 6, 15)
FRONT = "title: T\nsummary: S.\nauthor: pending\nreviewer: pending\n"
SPEC = """\
measure:
  sources: [k.cu]
  reference: ref.py
  archs: [sm_90]
  sizes: [{{n: {n}}}]
  headline: {{n: {n}}}
  elements: "{elements}"
  buffers: {{x: {{role: input, size: "{size}"}}, y: {{role: output}}}}
  variants:
    - name: copy
      label: copy
      bytes_per_elem: 8
      launches: [{{kernel: copy, grid: ["{grid}"], block: [256], args: [x, y, "{arg}"]}}]
"""


def spec_text(n: int = 1024, elements: str = "n", size: str = "n", grid: str = "ceil(n / 256)", arg: str = "n") -> str:
    return SPEC.format(n=n, elements=elements, size=size, grid=grid, arg=arg)


def entry_error(tmp_path: Path, front: str, body: str = "Body.\n", name: str = "term.md",
                today: dt.date = TODAY) -> EntryError:
    """The one EntryError of a folder holding one entry; asserts it names the file."""
    (tmp_path / name).write_text(f"---\n{front}---\n{body}")
    with pytest.raises(EntryErrors) as caught:
        load_entries(tmp_path, today=today)
    (err,) = caught.value.errors
    assert str(err).startswith(f"{tmp_path / name}")
    assert "Traceback" not in str(err)
    return err


def timed(seconds: float):
    """A context manager asserting its block runs in under ``seconds``."""

    class _Timer:
        def __enter__(self):
            self.start = time.perf_counter()
            return self

        def __exit__(self, *exc):
            self.elapsed = time.perf_counter() - self.start
            if exc[0] is None:
                assert self.elapsed < seconds, f"took {self.elapsed:.1f} s (at most {seconds} s)"
            return False

    return _Timer()


# 1. Expressions ---------------------------------------------------------------------------------

@pytest.mark.parametrize("where, text, fragment", [
    ("size", "9 ** 9 ** 9", "raises 9 to the power 387,420,489; exponents may be at most 64"),
    ("size", "n * 2**60", "beyond 2**64"),
    ("size", "n * 2**39", "expected 1 to 2**40"),
    ("elements", "n * 1.0e30", "holds the number 1e+30, beyond"),
    ("elements", "n" + "+n" * 50, "more than 40 terms and operators"),
    ("elements", "n" * 300, "is 300 characters long; an expression may have at most 200"),
    ("grid", "ceil(n / 0)", "division by zero"),
    ("arg", "min(n)", "calls min() with 1 argument(s); it takes 2 to 8"),
    ("arg", "(0 - n) ** 0.5", "gives a complex number"),
])
def test_expressions_are_bounded_and_errors_name_the_key(tmp_path, where, text, fragment):
    key = {"size": "measure.buffers.x.size", "elements": "measure.elements",
           "grid": "measure.variants[0].launches[0].grid[0]", "arg": "measure.variants[0].launches[0].args[2]"}
    with timed(5):
        err = entry_error(tmp_path, FRONT + spec_text(**{where: text}))
    assert err.key == key[where]
    assert repr(text[:40]) in err.message or text[:40] in err.message
    assert fragment in err.message


def test_exponent_bomb_is_instant():
    with timed(1):
        with pytest.raises(expr.ExprError, match="exponents may be at most 64"):
            expr.evaluate("9 ** 9 ** 9", {})
        with pytest.raises(expr.ExprError, match="beyond 2"):
            expr.evaluate("(2 ** 64) * (2 ** 64) * (2 ** 64)", {})
    assert expr.evaluate("2 ** 64", {}) == expr.MAX_MAGNITUDE
    assert expr.evaluate("1 ** 1000000000", {}) == 1


# 2. YAML alias bombs --------------------------------------------------------------------------------

def alias_bomb() -> str:
    """Schema-valid (before the bounds): 30 variants x 1,000 aliased launches x 3,000 aliased args,
    about 15 KB; over 20 s of loading before, minutes with the old model walking every argument."""
    args = "args: &args [" + ", ".join(["n"] * 3000) + "]"
    launches = ("&ls [&l {kernel: copy, grid: [\"ceil(n / 256)\"], block: [256], " + args + "}, "
                + ", ".join(["*l"] * 999) + "]")
    variants = "\n".join(f"    - {{name: v{v}, label: v{v}, bytes_per_elem: 8, launches: {launches if v == 0 else '*ls'}}}"
                         for v in range(30))
    return FRONT + spec_text().split("  variants:")[0] + "  variants:\n" + variants + "\n"


@pytest.mark.parametrize("loader", ["libyaml", "pure"])
def test_alias_bomb_is_refused_by_either_loader(tmp_path, monkeypatch, loader):
    if loader == "pure":
        monkeypatch.setattr(frontmatter, "_FastLoader", frontmatter._StrictLoader)
    front = alias_bomb()
    assert len(front) < 16_000
    with timed(5):
        err = entry_error(tmp_path, front)
    assert err.key == "measure"
    assert f"expands to more than {frontmatter.MAX_YAML_VALUES:,} values" in err.message


@pytest.mark.parametrize("loader", ["libyaml", "pure"])
def test_alias_that_contains_itself_is_an_error(tmp_path, monkeypatch, loader):
    if loader == "pure":
        monkeypatch.setattr(frontmatter, "_FastLoader", frontmatter._StrictLoader)
    err = entry_error(tmp_path, FRONT + "tags: &t [a, *t]\n")
    assert err.key == "tags"
    assert "refers to the node that contains it" in err.message


def test_front_matter_size_and_depth_are_bounded(tmp_path):
    err = entry_error(tmp_path, FRONT + "lessons:\n" + "  - {day: 1, title: x}\n" * 4000)
    assert err.key == "" and f"at most {frontmatter.MAX_FRONT_MATTER_BYTES:,} are read" in err.message
    with timed(5):
        deep = entry_error(tmp_path, FRONT + "tags: " + "[" * 5000 + "]" * 5000 + "\n")
    assert "nests too deeply" in deep.message or "not valid YAML" in deep.message


def test_a_real_sized_front_matter_is_far_below_the_budget():
    text = (Path(__file__).resolve().parent.parent / "entries" / "kernel-fusion.md").read_text()
    front = frontmatter.FRONT_MATTER_RE.match(text).group(1)
    node = frontmatter._FastLoader(front).get_single_node()
    frontmatter._check_expansion(node)  # no error
    assert len(front) * 10 < frontmatter.MAX_FRONT_MATTER_BYTES


# 3. Quadratic Markdown ----------------------------------------------------------------------------

HOSTILE_BODIES = {
    "unclosed [": ("[" * 20_000, "The '[' and '](' of links"),
    "unclosed [ with words": ("[a " * 7_000, "The '[' and '](' of links"),
    "unclosed ](": ("[x](" * 5_000, "The '[' and '](' of links"),
    "quoted title": ('[a](x "b) ' * 5_000, "The '[' and '](' of links"),
    "nested brackets": ("[" * 2_000 + "a" + "]" * 2_000, "The '[' and '](' of links"),
    "CDATA": ("<![CDATA[" * 2_000, "The '[' and '](' of links"),
    "unclosed tags": ("<a " * 8_000, "The '<' of tags"),
    "unclosed tags, one per paragraph": ("<a \n\n" * 2_400, "The '<' of tags"),
    "unclosed quoted attribute": ('<b x="' * 4_000, "The '<' of tags"),
    "[ one per paragraph": ("[a\n\n" * 2_400, "the '[' of links"),
    "distinct backtick runs": ("".join("`" * k + "a" for k in range(1, 300)), "The backtick runs of code spans"),
    "many code spans": ("`a " * 40_000, "more than 8,000 inline elements"),
    "many links in a long paragraph": (("[a](b) " + "word " * 3) * 7_000, "so much inline markup for its length"),
    "nested emphasis": ("*a " * 1_000 + "b" + " c*" * 1_000, "emphasis is nested more than 64 deep"),
    "nested strong emphasis": ("**a " * 1_000 + "b" + " c**" * 1_000, "emphasis is nested more than 64 deep"),
    "list markers": ("- " * 1_000 + "x", "quote or list markers"),
    "quote markers": (">" * 5_000 + " x", "quote or list markers"),
    "nested lists": ("".join("    " * i + "- a\n" for i in range(300)), "quote or list markers"),
    "many lines": ("a\n\n" * 3_000, "lines; at most 5,000 are read"),
    "repeated headings": ("# h\n\n" * 400, "more than 300 headings"),
    "many links, four per paragraph": (("[a](b) " * 4 + "\n\n") * 2_100, "more than 8,000 inline elements"),
    "intraword emphasis": ("a*b*c " * 20_000, "inline"),
    "abbreviations": ("".join(f"*[A{i}]: x\n" for i in range(1_000)), "more than 100 abbreviations"),
    "unclosed template tags": ("}{% " * 50_000, "The '{{', '{%' and '{#' of template code"),
    "template code nested in brackets": ("{{ " + "(" * 100 + "1" + ")" * 100 + " }}", "open more than 32 deep"),
    "nested braces": ("{{ " * 1_000, "open more than 32 deep"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_BODIES))
def test_quadratic_body_is_refused_with_file_key_and_line(tmp_path, name):
    body, fragment = HOSTILE_BODIES[name]
    with timed(5):
        err = entry_error(tmp_path, FRONT, body="Intro.\n\n" + body + "\n")
    assert err.key == "body"
    assert err.message.startswith("line ")
    line = int(err.message.split()[1].rstrip(":"))
    assert 9 <= line <= 9 + body.count("\n")  # the file's line: front-matter 1-6, 'Intro.' 7, the body from 9
    assert fragment in err.message


def test_markup_problem_names_the_line_of_the_costliest_opener():
    body = "Fine prose.\n\n" * 5 + "still fine [link](x.md)\n" + "[" * 5_000 + "\n"
    line, message = markup_problem(body)
    assert line == body.count("\n") - 1
    assert "never closed" in message and "write a literal bracket as \\[" in message


def _ordinary_bodies() -> dict[str, str]:
    words = "the warp scheduler issues one instruction per cycle while loads wait in flight".split()
    prose = " ".join(words * 3)
    links = " ".join(f"see [term {i}](https://docs.nvidia.com/cuda/x{i}.html#s-{i}) and [entry](kernel-fusion.md) "
                     f"({prose[:40]})" for i in range(500))
    ptx = ("```ptx\n.reg .f32 %f<4>;\nld.param.u64 %rd1, [_Z6kernelPfS_i_param_0];\nmov.b32 {%f2, %f3}, %r1;\n"
           "@%p1 bra $L__BB0_2;\nst.global.v2.f32 [%rd4], {%f2, %f3};\n```\n") * 40
    cuda = ("```cuda\nextern \"C\" __global__ void f(const float* __restrict__ x, float *y, long n) {\n"
            "    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"
            "    if (i<n && x[i] > 0) { y[i] = x[i] * *y; }  // a<b, c<<2, &x, **pp, a_b__c\n"
            "    kernel<<<grid, block>>>(x, y, n);\n}\n```\n") * 100
    table = "| Variant | GB/s | `time` |\n|---|---|---|\n" + "".join(
        f"| **v{i}** | {i * 3.5:.1f} | `{i} us`, see [x](roofline.md), *fast* &amp; <sub>{i}</sub> |\n" for i in range(300))
    nested = "".join("    " * d + "- " + prose[:30] + "\n" for d in range(8)) + "\n> > > - quoted list\n"
    math = "The interval [0, 1) and (a, b], arrays a[i][j], a < b > c, 2 * 3, x_i, __syncthreads(). " * 200
    emphasis = " ".join(f"**bold {i}** *em* _em_ `code_{i}` `{{%f{i}, %f{i + 1}}}`" for i in range(300))
    return {"500 links in one paragraph": links, "PTX in fences": ptx, "CUDA in fences": cuda,
            "a 300-row table": table, "nested lists and quotes": nested, "math-like prose": math,
            "a paragraph of emphasis": emphasis}


@pytest.mark.parametrize("name", sorted(_ordinary_bodies()))
def test_ordinary_heavy_markdown_is_accepted(name):
    assert markup_problem(_ordinary_bodies()[name]) is None


def test_real_build_refuses_a_quadratic_body_in_seconds(tmp_path):
    """Before: 20 KB of '[' on one line kept `mkdocs build` busy for over 30 s (40 KB: 200 s)."""
    project = write_project(tmp_path, {})
    (project / "entries" / "term.md").write_text(f"---\n{FRONT}---\n" + "[" * 40_000 + "\n")
    with timed(15):
        run = mkdocs(project, "build")
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    assert "term.md, key 'body': line 7: The '[' and '](' of links" in run.stderr


def test_real_build_of_ordinary_heavy_markdown_stays_quick(tmp_path):
    body = "\n\n".join(f"## {name}\n\n{text}" for name, text in _ordinary_bodies().items())
    project = write_project(tmp_path, {})
    (project / "entries" / "term.md").write_text(f"---\n{FRONT}---\n{body}\n")
    with timed(30):
        run = mkdocs(project, "build", env={"GLOSSARY_PREVIEW": "1"})
    assert run.returncode == 0, run.stderr
    page = (project / "site" / "term" / "index.html").read_text()
    assert "%f3" in page and "_Z6kernelPfS_i_param_0" in page and "term 499" in page


# 4. Tags, related links, abbreviations -----------------------------------------------------------

@pytest.mark.parametrize("front, key, fragment", [
    ("related: [a-b, c-d, a-b]\n", "related[2]", "text 'a-b' repeats related[0]; list it once"),
    ("tags: [memory, latency, memory]\n", "tags[2]", "text 'memory' repeats tags[0]"),
    ("tags: [Memory bound, memory-bound]\n", "tags[1]", "is the same tag as tags[0] ('Memory bound'); list it once"),
    ("tags: [sm_90, SM-90]\n", "tags[1]", "is the same tag as tags[0] ('sm_90')"),
    ("abbreviations: [SM, SM]\n", "abbreviations[1]", "repeats abbreviations[0]"),
    ("tags: [" + ", ".join(f"t{i}" for i in range(13)) + "]\n", "tags", "expected at most 12 items, found 13"),
    ("related: [" + ", ".join(f"e{i}" for i in range(31)) + "]\n", "related", "expected at most 30 items, found 31"),
    ("abbreviations: [" + ", ".join(f"a{i}" for i in range(21)) + "]\n", "abbreviations",
     "expected at most 20 items, found 21"),
    ("tags: [" + "x" * 33 + "]\n", "tags[0]", "expected at most 32 characters, found 33"),
    ("tags: ['<b>bold</b>']\n", "tags[0]", "expected a short topic name"),
    ("tags: ['two  spaces']\n", "tags[0]", "expected a short topic name"),
    ("tags: [index]\n", "tags[0]", "'index' is the page listing every tag"),
    ("title: " + "T" * 121 + "\n", "title", "expected at most 120 characters, found 121"),
])
def test_lists_are_capped_and_repeats_are_errors(tmp_path, front, key, fragment):
    text = FRONT.replace("title: T\n", "") if front.startswith("title:") else FRONT
    err = entry_error(tmp_path, text + front)
    assert err.key == key
    assert fragment in err.message


def test_ten_thousand_tags_are_refused_before_any_is_read(tmp_path):
    with timed(5):  # YAML aliases keep 10,000 tags under the front-matter's size cap
        err = entry_error(tmp_path, FRONT + "tags: [&t memory, " + ", ".join(["*t"] * 9_999) + "]\n")
    assert err.key == "tags" and "found 10,000; a tag is a topic page of the site" in err.message
    with timed(5):
        err = entry_error(tmp_path, FRONT + "related: [&k kernel-fusion, " + ", ".join(["*k"] * 9_999) + "]\n")
    assert err.key == "related" and "found 10,000" in err.message


def test_schema_carries_the_caps():
    schema = model.front_matter_schema()["properties"]
    assert schema["tags"]["maxItems"] == model.MAX_TAGS and schema["tags"]["uniqueItems"] is True
    assert schema["tags"]["items"]["maxLength"] == model.MAX_TAG_CHARS
    assert schema["related"]["maxItems"] == model.MAX_RELATED
    assert schema["abbreviations"]["maxItems"] == model.MAX_ABBREVIATIONS


# 5. Sizes and the memory they need ------------------------------------------------------------------

@pytest.mark.parametrize("size, key, fragment", [
    ("2199023255552", "measure.sizes[0].n", "expected at most 2**40 (1,099,511,627,776) elements, found 2,199,023,255,552"),
    ("1.0e+30", "measure.sizes[0].n", "expected an integer, found a number 1e+30"),
    ("1e30", "measure.sizes[0].n", "expected an integer, found text '1e30'"),
])
def test_size_values_are_bounded_at_parse_time(tmp_path, size, key, fragment):
    err = entry_error(tmp_path, FRONT + spec_text().replace("{n: 1024}", "{n: %s}" % size))
    assert err.key == key
    assert fragment in err.message


def _spec(n: int, archs: list[str], buffers: int = 3) -> MeasureSpec:
    return load(MeasureSpec, {
        "sources": ["k.cu"], "reference": "ref.py", "archs": archs,
        "sizes": [{"n": 1 << 20}, {"n": n}], "headline": {"n": 1 << 20},
        "buffers": {f"b{i}": {"role": "input", "dtype": "float64"} for i in range(buffers)},
        "variants": [{"name": "v", "label": "v", "bytes_per_elem": 8,
                      "launches": [{"kernel": "k", "grid": ["ceil(n / 256)"], "block": [256], "args": ["b0", "n"]}]}],
    })


def test_fit_problems_names_size_working_set_and_arch():
    spec = _spec(2**38, ["sm_75", "sm_90a", "sm_52"])  # 3 float64 buffers of 2**38: 6.6 TB
    problems = fit_problems(spec)
    assert len(problems) == 2  # sm_52 is not in the table: not judged
    assert problems[0].startswith("measure.sizes[1] {n: 274877906944} needs a working set of 6.6 TB")
    assert "more than the 48.0 GB of the largest sm_75 GPU (Quadro RTX 8000)" in problems[0]
    assert "more than the 144.0 GB of the largest sm_90 GPU (GH200)" in problems[1]
    assert "lower the size or drop sm_90 from measure.archs" in problems[1]


def test_fit_problems_is_empty_where_every_size_fits():
    assert fit_problems(_spec(1 << 26, ["sm_75", "sm_90"])) == []
    assert fit_problems(_spec(3 << 30, ["sm_90"], buffers=1)) == []        # 25.8 GB on a 144 GB arch
    assert len(fit_problems(_spec(3 << 30, ["sm_75"], buffers=3))) == 1    # 77 GB past 48 GB
    assert MAX_SIZE == 2**40


# 6. Dates in the future ---------------------------------------------------------------------------

@pytest.mark.parametrize("front, key", [
    ("sources:\n  - {title: G, url: 'https://x.org', checked: 2026-06-17}\n", "sources[0].checked"),
    ("written_on: 2027-01-01\n", "written_on"),
    ("reviewed_on: 2026-07-01\n", "reviewed_on"),
])
def test_future_dates_are_refused_against_the_injected_clock(tmp_path, front, key):
    err = entry_error(tmp_path, FRONT + front)
    assert err.key == key
    assert "is in the future (today is 2026-06-15); write the day it happened" in err.message


def test_a_day_of_clock_slack_and_the_past_are_accepted(tmp_path):
    (tmp_path / "term.md").write_text(
        f"---\n{FRONT}written_on: 2026-06-16\nsources:\n  - {{title: G, url: 'https://x.org', checked: 2020-01-01}}\n"
        f"---\nBody.\n")
    assert load_entries(tmp_path, today=TODAY)["term"].meta.written_on == dt.date(2026, 6, 16)
    with pytest.raises(EntryErrors):
        load_entries(tmp_path, today=dt.date(2026, 6, 14))


# 7. Reserved slugs ---------------------------------------------------------------------------------

@pytest.mark.parametrize("slug", ["tags", "search", "assets", "glossary", "sitemap", "404"])
def test_reserved_slugs_are_refused(tmp_path, slug):
    err = entry_error(tmp_path, FRONT, name=f"{slug}.md")
    assert err.key == ""
    assert f"the slug {slug!r} is a path the site itself uses" in err.message
    assert "reserved: 404, assets, glossary, index, search, sitemap, tags" in err.message


def test_index_is_reserved_when_parsed_as_an_entry(tmp_path):
    (tmp_path / "index.md").write_text(f"---\n{FRONT}---\nHome.\n")
    with pytest.raises(EntryError, match="is a path the site itself uses"):
        parse_entry(tmp_path / "index.md", tmp_path)
    assert load_entries(tmp_path) == {}  # the home page is not an entry


def test_real_entries_pass_every_bound():
    entries = load_entries(Path(__file__).resolve().parent.parent / "entries")
    assert entries
    for entry in entries.values():
        assert markup_problem(entry.body) is None
        if entry.meta.measure:
            assert fit_problems(entry.meta.measure) == []
