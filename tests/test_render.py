"""Rendering: derived figures computed from recorded results, strict templates."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from glossary.figures import fmt
from glossary.site.render import make_env
from repository_build import repository_build
import real_glossary

ROOT = Path(__file__).resolve().parent.parent


def test_figures_are_pure_arithmetic():
    assert fmt.gbps(36, 16_777_216, 2.419) == pytest.approx(249.68, abs=0.01)
    assert fmt.gbps(12, 16_777_216, 0.785) == pytest.approx(256.46, abs=0.01)
    assert fmt.fmt_ms(2.419) == "2.419"
    assert fmt.fmt_ms(0.01234) == "0.01234"
    assert fmt.fmt_bytes(50 * 2**20) == "50 MiB"
    assert fmt.fmt_bpe(12) == "12" and fmt.fmt_bpe(13.2) == "13.2"


def kernel_fusion_page(preview: bool = True) -> str:
    return repository_build(preview).render_page("kernel-fusion.md")


def test_t4_table_reproduces_the_seed_by_computing_it():
    page = kernel_fusion_page()
    assert "| staged chain, timed as one | 2.419 ms | 36 | – | 249.7 |" in page
    assert "| fused chain, one kernel | 785.0 µs | 12 | 13.2 | 256.5 |" in page
    assert "staged / fused = **3.08×** in time, against a byte ratio of 3.00× predicted." in page
    assert "**244.8 GB/s**" in page


def test_t4_environment_line_and_import_notice():
    page = kernel_fusion_page()
    # the lead says what a reader checks (GPU, driver, CUDA, clocks, date); the build folds away
    assert ("**Measured on** Tesla T4, driver 595.84, CUDA 12.6; clocks not recorded, throttling not recorded; "
            "2026-09-01.") in page
    assert '??? note "How it was measured: the build, the samples"' in page
    assert "Built with `nvcc -std=c++17 -O3 -arch=sm_75` (nvcc V12.6.85)." in page
    assert "Mean of 10 runs after 3 warm-ups" in page
    assert "Imported, not measured by a trusted node" in page


def test_unsigned_entry_shows_draft_banner_and_pending_byline():
    page = kernel_fusion_page()
    assert '!!! warning "Draft: not published"' in page
    assert "- a named author" in page and "- a named reviewer" in page
    assert "Written by: pending. Reviewed by: pending." in page
    assert "stays a draft until" in page and "Signed by its author" not in page


def test_refused_entry_is_not_rendered_outside_preview():
    assert kernel_fusion_page(preview=False) is None


def test_templates_are_strict(tmp_path):
    (tmp_path / "t.j2").write_text("{{ missing.value }}")
    env = make_env(tmp_path)
    with pytest.raises(jinja2.UndefinedError):
        env.get_template("t.j2").render()


def test_templates_are_sandboxed(tmp_path):
    (tmp_path / "t.j2").write_text("{{ x.__class__.__mro__ }}")
    env = make_env(tmp_path)
    with pytest.raises(jinja2.exceptions.SecurityError):
        env.get_template("t.j2").render(x=1)


def test_compile_command_hides_the_install_path():
    from glossary.site.render import _compile_command

    assert _compile_command("nvcc --cubin -O3 -arch sm_90 -I/tmp/site/pycuda/cuda kernel.cu") == \
        "nvcc --cubin -O3 -arch sm_90 -I<pycuda>/cuda kernel.cu"
    assert _compile_command("nvcc -std=c++17 -O3 -arch=sm_75") == "nvcc -std=c++17 -O3 -arch=sm_75"


@pytest.mark.parametrize("environment, shown", [({"gpu": "NVIDIA H200", "captured_at": "2026-12-01T09:00:00Z"},
                                                 "(2026-12-01T09:00:00Z)"),
                                                ({"gpu": "NVIDIA H200"}, "(date unknown)"), (None, "(date unknown)")])
def test_a_last_failure_shows_its_error_and_date_beside_the_kept_figures(environment, shown):
    import json

    from glossary.site import page as page_mod, render
    from glossary.verdicts import findings
    from glossary.verdicts.gate import judge
    from measure.results import parse

    entry = real_glossary.entries()["roofline"]
    data = json.loads((entry.folder / "results" / "nvidia-h200.json").read_text())
    failure = {"error": "roofline: Xid 79 during sampling"}
    if environment is not None:
        failure["environment"] = environment
    measured = findings.collect(entry, {"nvidia-h200": parse(dict(data, last_failure=failure))})
    model = page_mod.PageModel(entry=entry, verdict=judge(entry.meta.author, entry.meta.reviewer, ()),
                               devices=measured.devices, related=(), preview=True, body=measured.body,
                               claims=measured.claims, figure_problems=measured.figure_problems)
    markdown = render.render_entry(render.make_env(ROOT / "templates"), model)
    assert f"roofline: Xid 79 during sampling {shown}" in markdown
    assert "None" not in markdown.split("Xid 79", 1)[1].split("\n", 1)[0]


def test_counters_carried_from_an_earlier_result_say_so_on_the_page():
    import copy
    import json

    from glossary.site import page as page_mod, render
    from glossary.verdicts import findings
    from glossary.verdicts.gate import judge
    from measure.results import parse

    entry = real_glossary.entries()["kernel-fusion"]
    data = copy.deepcopy(json.loads((entry.folder / "results" / "nvidia-h200.json").read_text()))
    for size in data["sizes"]:  # the recorded result may carry counters itself: start from none carried
        size.pop("counters_from", None)
    uncarried = copy.deepcopy(data)
    for size in data["sizes"][-2:]:
        size["counter_key"] = "sha256:k"
        size["counters_from"] = {"captured_at": "2026-11-30T10:00:00+00:00", "fingerprint": "sha256:f",
                                 "signed_by": "nvidia-h200-node-x"}
    measured = findings.collect(entry, {"nvidia-h200": parse(data)})
    assert [c[0] for c in measured.devices[0].carried_counters] == ["n = 67,108,864", "n = 268,435,456"]
    model = page_mod.PageModel(entry=entry, verdict=judge(entry.meta.author, entry.meta.reviewer, ()),
                               devices=measured.devices, related=(), preview=True, body=measured.body,
                               claims=measured.claims, figure_problems=measured.figure_problems)
    markdown = render.render_entry(render.make_env(ROOT / "templates"), model)
    assert ("DRAM counters at n = 67,108,864, n = 268,435,456 were not profiled again: they are kept from the result "
            "captured 2026-11-30 and signed by `nvidia-h200-node-x`") in markdown
    assert "were not profiled again" not in render.render_entry(
        render.make_env(ROOT / "templates"),
        page_mod.PageModel(entry=entry, verdict=judge(entry.meta.author, entry.meta.reviewer, ()),
                           devices=findings.collect(entry, {"nvidia-h200": parse(uncarried)}).devices,
                           related=(), preview=True, body=measured.body, claims=measured.claims,
                           figure_problems=measured.figure_problems))
