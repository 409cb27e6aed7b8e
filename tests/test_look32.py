"""Issue 32, looked at again (look32): what the screenshots of every entry page showed, each with
a test.  On the CPU, over the repository's own entries and results."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from glossary.build import GlossaryBuild
from glossary.site import plots, svgplot
from repository_build import repository_build

from test_meaning_plots import VIEWS
from test_meaning_tables import _attribute_tables

ROOT = Path(__file__).resolve().parent.parent
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def build() -> GlossaryBuild:
    return repository_build()


def test_attributes_all_said_in_the_lead_draw_no_table_of_names(build):
    # l2-persistence's three kernels share every attribute: the lead says them, and a table of
    # the three version names alone (what the page showed) is left out
    page = build.render_page("l2-persistence.md")
    lines = [line.strip() for line in page.splitlines()]
    at = next(i for i, line in enumerate(lines) if line.startswith("Kernel attributes at "))
    lead = lines[at].replace("\u00a0", " ")
    assert "The same for every kernel here: registers/thread 32," in lead
    # a name and its value never part at a line break ('shared/block' at a line's end, '0 B' on the next)
    assert "registers/thread\u00a032, shared/block\u00a00\u00a0B," in lines[at]
    assert lead.endswith("limited by warps."), lead
    following = next(line for line in lines[at + 1:] if line)
    assert not following.startswith("| version"), "a table of version names alone follows the lead"


def test_attributes_that_differ_keep_their_table(build):
    # thread-block-clusters' kernels differ in registers: the table stays, and the lead ends in ':'
    tables = _attribute_tables(build.render_page("thread-block-clusters.md"))
    assert tables and all(lead.endswith(":") and len(rows[0]) > 1 for lead, rows in tables)


def _l2_lines(view) -> list[svgplot.RefLine]:
    return [r for p in plots.device_panels(view) for r in p.refs if r.at_x and (r.label or "").startswith("L2 ")]


@pytest.mark.parametrize("key", ["l2-persistence/nvidia-h200", "thread-block-clusters/nvidia-h200"])
def test_a_sweep_wholly_past_the_l2_does_not_stretch_its_axis_to_the_l2(key):
    view = VIEWS[key]
    swept = [s.working_set_bytes for s in view.sizes if s.rows]
    assert min(swept) > view.l2_bytes  # the data these pages have: every size past the L2
    assert _l2_lines(view) == []
    for panel in plots.device_panels(view):
        if panel.xscale.log and panel.xticks:
            assert min(t for t, _ in panel.xticks) > view.l2_bytes / 2, f"{key}: {panel.title!r} reaches left to the L2"
    assert "L2" not in plots.alt_text(view)


def test_a_sweep_across_the_l2_still_marks_it():
    view = VIEWS["kernel-fusion/nvidia-h200"]
    assert any(s.working_set_bytes <= view.l2_bytes for s in view.sizes if s.rows)
    assert _l2_lines(view)
    texts = {t.text for t in ET.fromstring(plots.device_svg(view)).iter(SVG_NS + "text")}
    assert any(t and t.startswith("L2 ") for t in texts)


ALIGN = re.compile(r"^\|(:?-+:?\|)+$")


@pytest.mark.parametrize("slug", sorted(p.stem for p in (ROOT / "entries").glob("*.md")))
def test_every_table_has_an_alignment_row_markdown_reads(build, slug):
    # occupancy, register-spilling, roofline and tensor-memory-accelerator printed their Kernel
    # attributes table as a paragraph of pipes: the 'limited by' column's ':--' went through the
    # escaping of a plain value and came out '&#58;--'
    lines = [line.strip() for line in build.render_page(f"{slug}.md").splitlines()]
    for i, line in enumerate(lines[:-1]):
        if line.startswith("|") and not lines[i - 1].startswith("|") and lines[i + 1].startswith("|"):
            assert ALIGN.match(lines[i + 1]), f"{slug}: the table under {line[:60]!r} has alignment row {lines[i + 1]!r}"


def test_a_sweep_of_copies_over_the_host_link_names_no_l2(build):
    # pinned-memory's sweep caption said '(L2 is 60 MiB)' beside copies the L2 does not touch
    page = build.render_page("pinned-memory.md")
    caption = next(line.strip() for line in page.splitlines() if line.strip().startswith("Size sweep:"))
    assert "L2" not in caption, caption
    fused = build.render_page("kernel-fusion.md")
    captions = [line for line in fused.splitlines() if line.strip().startswith("Size sweep:")]  # one a device
    assert any("(L2 is 60 MiB)" in caption for caption in captions), captions  # the H200's


def test_a_column_of_times_takes_one_unit():
    from glossary.figures import fmt
    assert fmt.column_unit([2.104e-3, 0.921e-3, 1.644e-3]) == "µs"
    assert fmt.duration(0.921e-3, "µs") == "0.9210 µs"
    assert fmt.duration(0.921e-3) == "921.0 ns"  # a time on its own keeps the unit that fits it
    assert fmt.column_unit([1.706e-3, 0.1089e-3]) == "µs"
    assert fmt.column_unit([0.0182, 1.849]) is None  # 18.2 µs to 1.849 ms: each cell its own unit
    assert fmt.column_unit([None, 0.0]) is None and fmt.column_unit([]) is None
    assert fmt.column_unit([0.99996e-3]) == "µs"  # rounds to 1.000 µs, as duration writes it


def _column_units(page: str, header: str) -> dict[str, set[str]]:
    """Each table whose header row starts with ``header``: its columns' time units."""
    lines = [line.strip() for line in page.splitlines()]
    found = {}
    for i, line in enumerate(lines):
        if line.startswith(header):
            names = [c.strip() for c in line.strip("|").split("|")]
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                for name, cell in zip(names, (c.strip() for c in row.strip("|").split("|"))):
                    unit = cell.rsplit(" ", 1)[-1]
                    if unit in ("ns", "µs", "ms", "s") and cell[:1].isdigit():
                        found.setdefault(f"{i}:{name}", set()).add(unit)
    return found


@pytest.mark.parametrize("slug", ["cuda-graphs", "launch-overhead"])
def test_launch_and_graph_tables_write_each_time_column_in_one_unit(build, slug):
    # cuda-graphs wrote '921.0 ns' under '2.104 µs' (GPU per launch) and '300.5 ns' under
    # '1.706 µs' (host per kernel node); launch-overhead '920.0 ns' under '2.122 µs'
    page = build.render_page(f"{slug}.md")
    columns = {}
    for header in ("| version | time |", "| version | nodes", "| elements | version | launches |"):
        columns.update(_column_units(page, header))
    assert columns, f"{slug}: no time columns found"
    for name, units in columns.items():
        if name.split(":", 1)[1] != "time":  # the headline's time column spans kernels of any length
            assert len(units) == 1, f"{slug}: column {name!r} mixes {sorted(units)}"
    assert "0.9210 µs" in page if slug == "cuda-graphs" else "0.9200 µs" in page


def _tag_box(x: float, y: float, anchor: str, text: str) -> tuple[float, float, float, float]:
    w = svgplot.text_width(text) * 1.1
    left = x - (w if anchor == "end" else 0.0)
    return left, y - svgplot.FONT * 0.8, left + w, y + 1


def test_a_tag_anchored_at_its_end_sits_left_of_its_point_clear_of_it():
    # the roofline's '14' and '15' (one intensity, nearly one rate) printed as '1514': a tag set
    # to the left (anchor end, dx -6) was drawn starting 6 px left of its point, across it
    placed: list = []
    left = svgplot.Label(x=0, y=0, text="14", anchor="end", dx=-6, dy=-4, bold=True, avoid=True)
    right = svgplot.Label(x=0, y=0, text="15", anchor="start", dx=6, dy=-4, bold=True, avoid=True)
    a = svgplot._clear_spot(100.0, 100.0, left, placed)
    b = svgplot._clear_spot(100.0, 101.0, right, placed)
    assert a == (94.0, 96.0, "end") and b == (106.0, 97.0, "start")
    box_a, box_b = _tag_box(*a, "14"), _tag_box(*b, "15")
    assert box_a[2] < 100.0 < box_b[0], "each tag stays off its point"
    assert box_a[2] <= box_b[0]


@pytest.mark.parametrize("key", ["roofline/nvidia-h200", "tensor-cores/nvidia-h200"])
def test_roofline_tags_do_not_overlap(key):
    import re as _re
    svg = plots.device_svg(VIEWS[key]).decode()
    tags = [(float(x), float(y), a, t) for x, y, a, t in _re.findall(
        r'<text x="([\d.]+)" y="([\d.]+)"[^>]*text-anchor="(start|end)"[^>]*font-weight="bold"[^>]*>(\d+)</text>', svg)]
    assert len(tags) >= 3, f"{key}: roofline tags not found"
    boxes = [_tag_box(x, y, a, t) for x, y, a, t in tags]
    for i, p in enumerate(boxes):
        for q in boxes[i + 1:]:
            assert not (p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]), f"{key}: tags overlap"


def test_a_copies_table_has_no_column_of_dashes(build):
    # streams-overlap's copies cross the link both ways: no share of a one-way floor, and the
    # 'of link floor' column was '–' in every row
    page = build.render_page("streams-overlap.md")
    header = next(line.strip() for line in page.splitlines() if line.strip().startswith("| version | direction |"))
    assert "of link floor" not in header
    pinned = build.render_page("pinned-memory.md")
    assert "| version | direction | bytes | time | link GB/s | of link floor |" in pinned


@pytest.mark.parametrize("slug, first", [("bank-conflicts", "8192 × 8192*"), ("tensor-cores", "4096 × 4096 × 4096*"),
                                         ("tensor-memory-accelerator", "8192 × 8192*")])
def test_sweep_tables_name_a_matrix_size_as_the_caption_does(build, slug, first):
    # the caption said 'GB/s at 8192 × 8192' and the sweep table beneath it '67,108,864*'
    page = build.render_page(f"{slug}.md")
    rows = [line.strip() for line in page.splitlines() if line.strip().startswith("|")]
    assert not any(r.startswith("| elements |") for r in rows)
    assert any(r.startswith(f"| {first} |") for r in rows), f"{slug}: no sweep row names {first}"


def test_sweep_tables_keep_element_counts_for_a_vector(build):
    page = build.render_page("kernel-fusion.md")
    assert "| elements | working set |" in page and "| 67,108,864* |" in page


def test_claims_name_a_matrix_size_as_the_claim_does(build):
    # tensor-cores' claim '(at 2048 × 2048 × 2048)' was evidenced at '4,194,304: time ratio 3.46×'
    page = build.render_page("tensor-cores.md")
    row = next(line for line in page.splitlines() if "(at 2048 × 2048 × 2048) | holds |" in line)
    assert "| 2048 × 2048 × 2048: time ratio" in row and "4,194,304" not in row
    fused = build.render_page("kernel-fusion.md")
    assert "67,108,864: " in fused  # a vector's size stays its element count


def test_byte_sizes_read_in_one_style():
    # register-spilling's local/thread column had '1016 B' under '728 B' and over '1.1 KiB';
    # tensor-memory-accelerator's shared/block '16.0 KiB static' beside '16 KiB static'
    from glossary.figures import fmt
    assert fmt.fmt_bytes(1016) == "1,016 B" and fmt.fmt_bytes(728) == "728 B"
    assert fmt.fmt_bytes(16392) == "16,392 B" and fmt.fmt_bytes(16384) == "16 KiB"
    assert fmt.fmt_bytes(4224) == "4.1 KiB" and fmt.fmt_bytes(60 << 20) == "60 MiB"
    assert fmt.fmt_bytes(0) == "0 B" and fmt.fmt_bytes(1.5 * 2 ** 30) == "1.5 GiB"


def test_a_log_axis_over_less_than_a_few_fold_gets_round_ticks():
    # warp-divergence's TFLOP/s sweep (15.6 and 29.4) had two ticks, its ends: '15' and '30.4'
    assert svgplot.log_ticks(15.0, 30.4) == [15.0, 20.0, 25.0, 30.0]
    assert svgplot.log_ticks(1.0, 1000.0) == [1.0, 10.0, 100.0, 1000.0]
    view = VIEWS["warp-divergence/nvidia-h200"]
    for panel in plots.device_panels(view):
        if panel.yscale.log:
            labels = [t.text for t in ET.fromstring(svgplot.figure([panel])).iter(SVG_NS + "text")]
            assert "30.4" not in labels, f"{panel.title!r}: an axis end as a tick"


def test_a_disagreeing_reproduction_names_its_two_worst_numbers_and_counts_the_rest():
    """Seen at 420 px: cuda-graphs' warning named five numbers and ran to thirty lines."""
    from repository_build import render

    page = render("cuda-graphs")
    start = page.index('!!! warning "A reproduction disagrees"')
    warning = page[start:page.index("\n\n", start + 40)]
    assert warning.count("of the record (agreement expected") == 2
    assert re.search(r"and \d+ more", warning)
