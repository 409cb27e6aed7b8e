"""Issue 32, item 8: the "Measured on" paragraph leads with what a reader checks (GPU, driver, CUDA,
clocks and whether they were throttled, host, date) and the accuracy check in words a reader can
verify; the build, the per-size sample counts and the carried counters fold away.  Over the
repository's committed results and literal records."""

from __future__ import annotations

from types import SimpleNamespace

from glossary.figures import measured_on
from measure.results.model import EnvClocks

import real_glossary

ENTRIES = real_glossary.entries()


def _view(slug: str):
    return real_glossary.view(slug)


def _check(used: float, rel: float, rtol: float = 1e-5, atol: float = 1e-6):
    return SimpleNamespace(max_tolerance_used=used, max_rel_err=rel, max_abs_err=0.0, rtol=rtol, atol=atol)


def test_tensor_cores_accuracy_says_rtol_and_atol_combine():
    text = _view("tensor-cores").accuracy
    # the tolerance the output was held to (its buffer's, not the spec's default), the check, the allowance used,
    # and why a relative error of 200.9 passes
    assert text.startswith("Every element of the output c was within 1e-3 relative or 2e-2 absolute of a float64 "
                           "reference (|got − ref| ≤ 2e-2 + 1e-3 × |ref|) at every size")
    assert "the worst element used 4.1% of that allowance" in text
    assert "The relative error alone reaches 200.9 where the reference is near zero: there the absolute term" in text


def test_the_default_tolerance_in_the_words_of_the_issue():
    text = _view("cuda-graphs").accuracy
    assert "within 1e-5 relative or 1e-6 absolute of a float64 reference" in text
    assert "relative error alone" not in text  # nothing to explain where it stays under rtol


def test_an_exact_match_is_said_so():
    spec = ENTRIES["pinned-memory"].meta.measure
    assert measured_on.accuracy_text(spec, [_check(0.0, 0.0)], True).endswith(
        "every element matched the reference exactly.")
    # a stale result: the record's tolerances, since the spec may have changed since
    stale = measured_on.accuracy_text(spec, [_check(0.5, 0.1, rtol=1e-4, atol=1e-4)], False)
    assert stale.startswith("Every output element was within 1e-4 relative or 1e-4 absolute")
    assert measured_on.accuracy_text(spec, [None], True) == "" and measured_on.accuracy_text(None, [], True) == ""


def test_clocks_in_words():
    env = SimpleNamespace(clocks=EnvClocks(sm_mhz_max=1980, memory_mhz=3201, sm_mhz_before=1980, sm_mhz_after=1980))
    assert measured_on.clocks_text(env) == ("SM clock 1980 MHz before and after timing (its maximum 1980 MHz), "
                                            "memory clock 3201 MHz")
    env = SimpleNamespace(clocks=EnvClocks(sm_mhz_max=1980, sm_mhz_before=1980, sm_mhz_after=1410))
    assert measured_on.clocks_text(env) == "SM clock 1410 MHz after timing (1980 MHz before) (its maximum 1980 MHz)"
    assert measured_on.clocks_text(SimpleNamespace(clocks=None)) == "clocks not recorded"


def test_the_page_leads_with_what_a_reader_checks():
    from repository_build import render

    page = render("tensor-cores")
    lead = next(line.strip() for line in page.splitlines() if "**Measured on** NVIDIA H200" in line)
    assert lead.startswith("**Measured on** NVIDIA H200, driver 580.159.04, CUDA 13.0; SM clock 1980 MHz")
    assert "not throttled (the harness does not lock clocks); host `vm`; 2026-12-02." in lead
    # nothing of the build, the sample counts or the carried counters in the lead: they are folded
    assert "nvcc" not in lead and "samples" not in lead and "counters" not in lead
    folded = page[page.index('??? note "How it was measured: the build, the samples, the counters kept"'):]
    body = folded.split("\n\n")[0]
    assert "Built with `/usr/local/cuda-13.0/bin/nvcc" in body and "Mean of the samples of each size" in body
    assert "DRAM counters at 4096 × 4096 × 4096 were not profiled again" in body
    assert "Every element of the output c was within 1e-3 relative or 2e-2 absolute" in page
