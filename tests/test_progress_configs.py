"""The measuring bar moves per configuration: worker events, the pool's callback, the tally, the CLI (CPU)."""

from __future__ import annotations

import functools
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from glossary.cli import cli
from glossary.entries.model import load_entries
from glossary.measuring import plan, pool, worker
from glossary.measuring.progress import ConfigsLog, Tally, configurations
from measure import store

STEPWISE = "pool_fakes:stepwise"

# Two sizes and three variants: six configurations.
ENTRY = """---
title: {title}
summary: A fixture entry for configuration progress.
measure:
  sources: [k.cu]
  archs: [sm_75]
  reference: ref.py
  sizes: [{sizes}]
  headline: {{n: 1024}}
  buffers: {{x: {{role: input}}, y: {{role: output}}}}
  variants:
{variants}
---
Body.
"""
VARIANT = ('    - {{name: {name}, label: {name}, bytes_per_elem: 8, '
           'launches: [{{kernel: k, grid: ["4"], block: [256], args: [x, y, n]}}]}}')


def make_entry(root: Path, slug: str, sizes: int, variants: int) -> None:
    text = ENTRY.format(title=slug, sizes=", ".join(f"{{n: {1024 * 2 ** i}}}" for i in range(sizes)),
                        variants="\n".join(VARIANT.format(name=f"v{i}") for i in range(variants)))
    (root / f"{slug}.md").write_text(text)
    (root / slug).mkdir()
    (root / slug / "k.cu").write_text('extern "C" __global__ void k(const float* x, float* y, int n) {}\n')
    (root / slug / "ref.py").write_text("def reference(variant, inputs, scalars, params):\n"
                                        "    return {'y': inputs['x']}\n")


def gpus(count: int, name: str = "Fake GPU") -> list[dict]:
    return [{"index": i, "name": name, "pci_bus_id": f"0000:{i:02x}:00.0", "device": store.device_key(name)}
            for i in range(count)]


def job(slug: str) -> pool.Job:
    return pool.Job(slug=slug, entry_path=f"/nowhere/{slug}.md", entries_dir="/nowhere", fingerprint="sha256:x",
                    device="fake-gpu")


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("FAKE_STEP", "0.03")
    monkeypatch.setenv("FAKE_SLEEP", "0.05")


def run_pool(jobs: list[pool.Job], target: str = STEPWISE, count: int = 1, deadline_s: float = 60.0):
    """Run jobs through a real pool; every callback is logged in order, and a tally kept as the CLI keeps it."""
    events: list[tuple] = []
    tally = Tally({j: 4 for j in jobs})
    seen: list[float] = []

    def on_configs(j: pool.Job, done: float, total: int) -> None:
        events.append(("configs", j.slug, done, total))
        tally.update(j, done, total)
        seen.append(tally.completed)

    def on_done(outcome: pool.Outcome) -> None:
        events.append(("done", outcome.job.slug, outcome.ok))
        tally.finish(outcome.job)
        seen.append(tally.completed)

    outcomes = pool.Pool(gpus(count), target=target, say=lambda *a: None, on_done=on_done,
                         on_configs=on_configs, deadline_s=deadline_s).run(jobs)
    return {o.job.slug: o for o in outcomes}, events, tally, seen


def reports(events: list[tuple], slug: str) -> list[float]:
    return [e[2] for e in events if e[0] == "configs" and e[1] == slug]


# -- the pool ---------------------------------------------------------------------------


def test_the_parent_receives_monotone_progress_that_ends_at_the_total():
    done, events, tally, seen = run_pool([job("a"), job("b")], count=2)
    assert done["a"].ok and done["b"].ok
    for slug in ("a", "b"):
        got = reports(events, slug)
        assert got and got == sorted(got) and got[-1] == 4.0
        assert all(e[3] == 4 for e in events if e[0] == "configs" and e[1] == slug)
        last_report = max(i for i, e in enumerate(events) if e[0] == "configs" and e[1] == slug)
        assert events.index(("done", slug, True)) > last_report  # nothing arrives after the job ended
    assert tally.completed == tally.total == 8
    assert seen == sorted(seen)


@pytest.mark.parametrize("slug", ["p-fail", "p-hang", "p-crash"])
def test_a_job_that_ends_half_way_has_its_share_closed(slug):
    """Failed, killed at the deadline, or its worker died twice: the bar still reaches its end."""
    done, events, tally, seen = run_pool([job(slug), job("q")], deadline_s=2.0)
    assert not done[slug].ok and done["q"].ok
    assert 0 < max(reports(events, slug)) <= 2.0  # it stopped half way ...
    assert tally.completed == tally.total == 8  # ... and the bar still reaches its end
    assert max(seen) == 8
    assert seen == sorted(seen) or slug == "p-crash"  # a crash is retried once, from 0


def test_a_retried_job_starts_again_from_nothing_and_is_counted_once():
    done, events, tally, seen = run_pool([job("y-crash-once"), job("z")])
    assert done["y-crash-once"].ok and done["z"].ok
    got = reports(events, "y-crash-once")
    reset = got.index(0.0)
    assert reset > 0 and got[:reset] == sorted(got[:reset])  # the first attempt, then the pool's 0
    assert got[reset:] == sorted(got[reset:]) and got[-1] == 4.0  # the retry, from 0 to the end
    assert max(seen) == tally.completed == tally.total == 8  # never more than the total


def test_a_target_of_two_parameters_still_works_and_reports_no_configurations():
    done, events, tally, seen = run_pool([job("old-style")], target="pool_fakes:sleepy")
    assert done["old-style"].ok
    assert events == [("done", "old-style", True)]
    assert tally.completed == tally.total == 4


def test_which_targets_take_configuration_progress():
    assert worker.takes_configs(lambda job, progress, on_configs: None)
    assert worker.takes_configs(worker.run_harness)
    assert not worker.takes_configs(lambda job, progress: None)


# -- the worker's throttle and the harness call -------------------------------------------


def test_the_throttle_holds_back_reports_but_always_sends_the_final_one():
    now = [0.0]
    sent: list[dict] = []
    send = worker.ConfigsSender(lambda **m: sent.append(m), "k", interval_s=0.1, clock=lambda: now[0])
    for t, done in ((0.0, 0.5), (0.03, 1.0), (0.06, 1.5), (0.12, 2.0), (0.15, 2.5), (0.16, 4.0)):
        now[0] = t
        send(done, 4)
    assert [m["done"] for m in sent] == [0.5, 2.0, 4.0]  # 4.0 came 0.04 s after 2.0: sent anyway
    assert sent[-1] == {"event": "configs", "slug": "k", "done": 4.0, "total": 4}
    send.flush()
    assert len(sent) == 3  # nothing new to send
    now[0] = 0.2
    send(4.0, 4)
    assert len(sent) == 3  # the same report twice is sent once
    held = worker.ConfigsSender(lambda **m: sent.append(m), "k", interval_s=0.1, clock=lambda: 0.0)
    held(1.0, 4)
    held(1.5, 4)
    held.flush()  # a job that ends (or fails) short of its total: the latest report still goes out
    assert [m["done"] for m in sent[3:]] == [1.0, 1.5]


def _fake_result(job: pool.Job) -> dict:
    import pool_fakes

    return pool_fakes._result(job)


def test_run_harness_passes_configuration_progress_and_carried_counters_on(tmp_path, monkeypatch):
    import json

    from measure import harness

    make_entry(tmp_path, "six", 2, 3)
    offered = {"sizes": [{"params": {"n": 1}, "counter_key": "sha256:k", "variants": {}, "from": {}}]}
    the_job = pool.Job(slug="six", entry_path=str(tmp_path / "six.md"), entries_dir=str(tmp_path),
                       fingerprint="sha256:x", device="fake-gpu", prior_counters=json.dumps(offered))
    calls: list[dict] = []

    def measure_entry(slug, entry_dir, spec, fingerprint, progress=print, on_configs=None, prior_counters=None,
                      **confinement):
        calls.append({"prior": prior_counters})
        on_configs(6.0, 6)
        return _fake_result(the_job)

    monkeypatch.setattr(harness, "measure_entry", measure_entry)
    monkeypatch.delenv("GLOSSARY_WORKER_PCI_BUS_ID", raising=False)
    got: list[tuple] = []
    worker.run_harness(the_job, lambda line: None, lambda done, total: got.append((done, total)))
    assert calls == [{"prior": offered}] and got == [(6.0, 6)]


# -- counting and logging -------------------------------------------------------------------


def test_configurations_are_sizes_times_variants(tmp_path):
    make_entry(tmp_path, "six", 2, 3)
    make_entry(tmp_path, "two", 1, 2)
    (tmp_path / "plain.md").write_text("---\ntitle: Plain\nsummary: No spec.\n---\nBody.\n")
    entries = load_entries(tmp_path)
    assert {slug: configurations(e) for slug, e in entries.items()} == {"six": 6, "two": 2, "plain": 0}


def test_the_tally_scales_a_changed_total_and_counts_unplanned_jobs():
    a, b = job("a"), job("b")
    tally = Tally({a: 10})
    tally.update(a, 1.0, 2)  # the entry changed since it was planned: half of it is half of 10
    assert tally.completed == 5.0
    tally.update(b, 1.0, 4)
    assert (tally.completed, tally.total) == (6.0, 14)
    tally.update(a, 0.0, 2)
    tally.finish(b)
    assert tally.completed == 4.0


def test_the_build_log_says_how_an_entry_gets_on_a_few_times(caplog):
    now = [0.0]
    log = logging.getLogger("test.progress.configs")
    say = ConfigsLog(log, every_s=5.0, clock=lambda: now[0])
    j = job("kernel-fusion")
    with caplog.at_level(logging.INFO, logger="test.progress.configs"):
        for step in range(1, 41):
            now[0] = step * 1.0  # 20 configurations, two reports a second: 40 s
            say(j, step / 2, 20)
    assert [r.message for r in caplog.records] == [
        "kernel-fusion on fake-gpu: 5 of 20 configurations",
        "kernel-fusion on fake-gpu: 10 of 20 configurations",
        "kernel-fusion on fake-gpu: 15 of 20 configurations"]
    caplog.clear()
    fast = ConfigsLog(log, every_s=5.0, clock=lambda: 1.0)  # all of it within a second: one line
    with caplog.at_level(logging.INFO, logger="test.progress.configs"):
        for step in range(1, 41):
            fast(j, step / 2, 20)
    assert [r.message for r in caplog.records] == ["kernel-fusion on fake-gpu: 5 of 20 configurations"]


def test_measure_entries_passes_configuration_progress_through(tmp_path):
    make_entry(tmp_path, "six", 2, 3)
    got: list[tuple] = []
    outcomes = plan.measure_entries(list(load_entries(tmp_path).values()), logging.getLogger("test.progress"),
                                    target=STEPWISE, available=gpus(1),
                                    on_configs=lambda j, done, total: got.append((j.slug, done, total)))
    assert [o.ok for o in outcomes] == [True]
    assert got and got[-1] == ("six", 6.0, 6)


# -- the command line -------------------------------------------------------------------------


@pytest.mark.parametrize("fail", ["", "two"])
def test_the_cli_bar_counts_the_configurations_of_its_jobs(tmp_path, monkeypatch, fail):
    entries = tmp_path / "entries"
    entries.mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: T\nextra:\n  glossary:\n    trust: names\n")
    make_entry(entries, "six", 2, 3)
    make_entry(entries, "two", 1, 2)
    h200 = [{"index": 0, "name": "NVIDIA H200", "pci_bus_id": "0000:00:00.0", "device": "nvidia-h200"}]
    monkeypatch.setattr(plan, "available_gpus", lambda: (h200, ""))
    monkeypatch.setattr(plan, "measure_entries", functools.partial(plan.measure_entries, target=STEPWISE))
    monkeypatch.setenv("FAKE_FAIL", fail)
    result = CliRunner().invoke(cli, ["--entries", str(entries), "measure"], catch_exceptions=False)
    assert result.exit_code == (1 if fail else 0), result.output
    assert "8 configurations of 2 entries on 1 GPU" in result.output
    assert "8/8" in result.output  # a failed entry's share is closed too
    single = CliRunner().invoke(cli, ["--entries", str(entries), "measure", "--all", "two"], catch_exceptions=False)
    assert "2 configurations of 1 entry on 1 GPU" in single.output and "2/2" in single.output
