"""The measuring pool on the CPU: workers are real processes, the harness is a stand-in (pool_fakes)."""

from __future__ import annotations

import json
import logging
import time

import pytest

from glossary.measuring import plan, pool
from glossary.entries.model import load_entries
from measure import store

FAKE = "pool_fakes:sleepy"


def gpus(count: int, name: str = "Fake GPU") -> list[dict]:
    return [{"index": i, "name": name, "pci_bus_id": f"0000:{i:02x}:00.0", "device": store.device_key(name)}
            for i in range(count)]


def job(slug: str, device: str = "fake-gpu") -> pool.Job:
    return pool.Job(slug=slug, entry_path=f"/nowhere/{slug}.md", entries_dir="/nowhere", fingerprint="sha256:x",
                    device=device)


def run(jobs, count=2, **kw):
    lines = []
    outcomes = pool.Pool(gpus(count), target=FAKE, say=lambda who, line: lines.append((who, line)), **kw).run(jobs)
    return {o.job.slug: o for o in outcomes}, lines


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("FAKE_SLEEP", "0.3")


# -- pure choices -----------------------------------------------------------------------


def test_select_gpus():
    four = gpus(4)
    assert pool.select_gpus("all", four) == four
    assert [g["index"] for g in pool.select_gpus("2", four)] == [0, 1]
    assert [g["index"] for g in pool.select_gpus("3,1", four)] == [3, 1]
    for bad, says in (("5", r"has 4 GPU\(s\)"), ("0,9", "among 0, 1, 2, 3"), ("1,1", "distinct"), ("x", "expected")):
        with pytest.raises(pool.PoolError, match=says):
            pool.select_gpus(bad, four)
    with pytest.raises(pool.PoolError, match="no CUDA device"):
        pool.select_gpus("all", [])


def test_shards_split_every_measurable_entry_once():
    slugs = [f"term-{i}" for i in range(10)]
    shards = [pool.shard_slugs(slugs, i, 3) for i in (1, 2, 3)]
    assert set().union(*shards) == set(slugs)
    assert sum(len(s) for s in shards) == len(slugs)
    assert [len(s) for s in shards] == [4, 3, 3]
    assert pool.shard_slugs(list(reversed(slugs)), 2, 3) == shards[1]  # order of discovery does not matter
    assert pool.parse_shard("2/4") == (2, 4)
    for bad in ("0/4", "5/4", "1", "a/b", "1/0"):
        with pytest.raises(pool.PoolError):
            pool.parse_shard(bad)


def test_visible_device_follows_the_parents_own_selection():
    assert pool.visible_device(1, {}) == "1"
    assert pool.visible_device(1, {"CUDA_VISIBLE_DEVICES": "4,6"}) == "6"
    assert pool.visible_device(0, {"CUDA_VISIBLE_DEVICES": "GPU-abc"}) == "GPU-abc"


# -- workers ------------------------------------------------------------------------------


def test_two_workers_share_one_queue_and_are_bound_to_their_gpu():
    jobs = [job(f"term-{i}") for i in range(8)]
    t0 = time.monotonic()
    done, lines = run(jobs, count=2)
    wall = time.monotonic() - t0
    assert all(o.ok for o in done.values()) and len(done) == 8
    by_gpu = {}
    for o in done.values():
        by_gpu.setdefault(o.gpu, []).append(o)
        assert o.result["environment"]["cuda_visible_devices"] == str(o.gpu)
    assert set(by_gpu) == {0, 1} and all(len(v) >= 2 for v in by_gpu.values())
    # 8 jobs of 0.3 s on two workers overlap: well under the 2.4 s they take one after another
    assert wall < 2.4 + 3.0  # generous for process start on a busy CI machine
    # Both GPUs worked at once: each began a job before the other began its last.  (Not "the first two
    # jobs went to both": on a loaded machine one worker's start can take longer than a 0.3 s job.)
    starts = [(o.result["environment"]["started"], o.gpu) for o in done.values()]
    first = {g: min(t for t, on in starts if on == g) for g in (0, 1)}
    last = {g: max(t for t, on in starts if on == g) for g in (0, 1)}
    assert first[0] < last[1] and first[1] < last[0], sorted(starts)
    assert any(who == "GPU 1" and "measuring" in line for who, line in lines)  # progress per GPU


def test_a_hung_entry_is_killed_at_the_deadline_and_the_rest_goes_on():
    done, lines = run([job("a-hang"), job("b"), job("c")], count=1, deadline_s=2.0)
    assert "deadline" in done["a-hang"].error and "killed" in done["a-hang"].error
    assert done["b"].ok and done["c"].ok  # a fresh worker took over the GPU


def test_a_crashing_worker_loses_only_its_entry():
    done, lines = run([job("x-crash"), job("y-crash-once"), job("z")], count=1)
    assert "died (signal 9) 2 times" in done["x-crash"].error
    assert done["y-crash-once"].ok  # retried once, then fine
    assert done["z"].ok
    assert any("retrying" in line for _, line in lines)


def test_failures_are_data_and_stray_stdout_cannot_break_the_protocol():
    done, lines = run([job("p-fail"), job("q-noisy")], count=1)
    assert done["p-fail"].error == "p-fail: output y is wrong in 3 of 1024 elements"
    assert done["q-noisy"].ok
    assert any("not protocol" in line for _, line in lines)


def test_jobs_go_only_to_gpus_of_their_model():
    mixed = [dict(gpus(1, "Model A")[0]), dict(gpus(2, "Model B")[1])]
    done = pool.Pool(mixed, target=FAKE, say=lambda *a: None).run(
        [job("t1", "model-a"), job("t2", "model-b"), job("t3", "model-c")])
    by = {o.job.slug: o for o in done}
    assert by["t1"].gpu == 0 and by["t2"].gpu == 1
    assert "no working GPU of model model-c" in by["t3"].error


# -- through measuring: staleness, store, log ---------------------------------------------------

ENTRY = """---
title: {title}
summary: A fixture entry for the pool.
measure:
  sources: [k.cu]
  archs: [sm_75]
  reference: ref.py
  sizes: [{{n: 1024}}]
  headline: {{n: 1024}}
  buffers: {{x: {{role: input}}, y: {{role: output}}}}
  variants:
    - {{name: copy, label: copy, bytes_per_elem: 8, launches: [{{kernel: k, grid: ["4"], block: [256], args: [x, y, n]}}]}}
---
Body.
"""


def make_entries(root, slugs):
    for slug in slugs:
        (root / f"{slug}.md").write_text(ENTRY.format(title=slug))
        (root / slug).mkdir()
        (root / slug / "k.cu").write_text('extern "C" __global__ void k(const float* x, float* y, int n) {}\n')
        (root / slug / "ref.py").write_text("def reference(variant, inputs, scalars, params):\n"
                                            "    return {'y': inputs['x']}\n")
    return load_entries(root)


def test_measure_entries_records_results_keeps_good_ones_and_lists_failures(tmp_path, caplog):
    entries = make_entries(tmp_path, ["alpha", "beta-fail", "gamma-hang"])
    log = logging.getLogger("test.pool")
    kw = dict(target=FAKE, available=gpus(2), deadline_s=3.0)
    with caplog.at_level(logging.INFO, logger="test.pool"):
        first = plan.measure_entries(list(entries.values()), log, **kw)
    assert {o.job.slug: o.ok for o in first} == {"alpha": True, "beta-fail": False, "gamma-hang": False}
    alpha = json.loads((tmp_path / "alpha/results/fake-gpu.json").read_text())
    assert alpha["status"] == "ok"
    failed = json.loads((tmp_path / "beta-fail/results/fake-gpu.json").read_text())
    assert failed["status"] == "failed" and "wrong in 3 of 1024" in failed["error"]
    summary = [r.message for r in caplog.records if r.message.startswith("measurement failed for 2 of 3")]
    assert summary and "beta-fail on fake-gpu" in summary[0] and "gamma-hang on fake-gpu" in summary[0]
    # a good result, then a failure: the good one stays, with the failure beside it
    good = dict(alpha, entry="beta-fail", fingerprint="sha256:older")
    store.record_success(tmp_path / "beta-fail", good)
    plan.measure_entries([entries["beta-fail"]], log, **kw)
    kept = json.loads((tmp_path / "beta-fail/results/fake-gpu.json").read_text())
    assert kept["status"] == "ok" and kept["fingerprint"] == "sha256:older"
    assert "wrong in 3 of 1024" in kept["last_failure"]["error"]
    # current results are not measured again
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="test.pool"):
        assert plan.measure_entries([entries["alpha"]], log, **kw) == []
    assert "nothing to measure" in caplog.text


def test_plan_shards_and_models(tmp_path):
    entries = list(make_entries(tmp_path, ["a", "b", "c", "d"]).values())
    two_models = [dict(gpus(1, "Model A")[0]), dict(gpus(2, "Model B")[1])]
    jobs = plan.plan(entries, two_models)
    assert [(j.slug, j.device) for j in jobs] == [(s, d) for d in ("model-a", "model-b") for s in "abcd"]
    first, second = (plan.plan(entries, gpus(1), shard=(i, 2)) for i in (1, 2))
    assert {j.slug for j in first} == {"a", "c"} and {j.slug for j in second} == {"b", "d"}


def test_shards_from_two_nodes_and_two_models_merge_by_copying_files(tmp_path, monkeypatch):
    """Node 1 runs shard 1/2 and node 2 shard 2/2, each on its own GPU model; copying node 2's
    result files into node 1's tree completes both models, with nothing stale and nothing overwritten."""
    import shutil

    monkeypatch.setenv("FAKE_SLEEP", "0.05")
    slugs = ["a", "b", "c"]
    nodes = [tmp_path / "node1", tmp_path / "node2"]
    for node in nodes:
        node.mkdir()
        make_entries(node, slugs)
    log = logging.getLogger("test.pool")
    for model in ("Model A", "Model B"):
        for i, node in enumerate(nodes, 1):
            entries = list(load_entries(node).values())
            plan.measure_entries(entries, log, shard=(i, 2), target=FAKE, available=gpus(1, model))
    for path in (nodes[1]).glob("*/results/*.json"):
        dest = nodes[0] / path.relative_to(nodes[1])
        assert not dest.exists()  # each (entry, device) was measured by exactly one node
        dest.parent.mkdir(exist_ok=True)
        shutil.copy(path, dest)
    merged = list(load_entries(nodes[0]).values())
    for device in ("model-a", "model-b"):
        assert plan.stale_entries(merged, device) == []


def test_fleet_recipes_use_options_the_cli_has():
    import re
    from pathlib import Path

    import yaml

    from glossary.cli import cli

    root = Path(__file__).resolve().parent.parent / "docs" / "examples"
    workflow = yaml.safe_load((root / "measure-fleet.yml").read_text())
    assert set(workflow["jobs"]) == {"measure", "collect"}
    text = (root / "measure-fleet.yml").read_text() + (root / "measure-array.sbatch").read_text()
    known = {opt for p in cli.commands["measure"].params for opt in getattr(p, "opts", [])}
    lines = re.findall(r"glossary measure([^\n|]*)", text)
    flags = {token for line in lines for token in line.split() if token.startswith("--")}
    assert flags and flags <= known, flags - known


def test_two_measuring_runs_at_once_take_turns_on_a_gpu(tmp_path):
    """A second run waits for the GPU instead of timing its kernels beside the first one's,
    then finds the entries current and measures nothing; the store is whole."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    make_entries(tmp_path, ["one", "two"])
    script = (
        "import logging, sys\n"
        "logging.basicConfig(level=logging.INFO, format='%(message)s')\n"
        "from glossary.measuring import plan\n"
        "from glossary.entries.model import load_entries\n"
        "from pathlib import Path\n"
        "gpu = [{'index': 0, 'name': 'Fake GPU', 'pci_bus_id': '0000:99:00.0', 'device': 'fake-gpu'}]\n"
        "out = plan.measure_entries(list(load_entries(Path(sys.argv[1])).values()), logging.getLogger('m'),\n"
        "                                target='pool_fakes:sleepy', available=gpu)\n"
        "print('MEASURED', len(out))\n")
    here = str(Path(__file__).resolve().parent)
    env = dict(os.environ, FAKE_SLEEP="1.0", GLOSSARY_LOCK_DIR=str(tmp_path / "locks"),
               PYTHONPATH=os.pathsep.join([here, *sys.path]))
    runs = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for _ in range(2)]
    outputs = [r.communicate(timeout=120)[0] for r in runs]
    assert all(r.returncode == 0 for r in runs), outputs
    measured = sorted(int(o.rsplit("MEASURED", 1)[1]) for o in outputs)
    assert measured == [0, 2], outputs
    assert any("waiting for it to finish" in o for o in outputs)
    for slug in ("one", "two"):
        assert json.loads((tmp_path / slug / "results" / "fake-gpu.json").read_text())["status"] == "ok"


def test_failure_headline_keeps_the_compilers_error_line():
    text = "x: nvcc failed on k.cu for sm_90:\nkernel.cu(4): error: expected a \";\"\n   if (i < n)\n"
    assert plan.headline(text) == 'x: nvcc failed on k.cu for sm_90: kernel.cu(4): error: expected a ";"'
    assert plan.headline("did not finish") == "did not finish"


def test_a_node_with_a_key_signs_what_it_records_and_the_results_verify(tmp_path, monkeypatch, caplog):
    from glossary.verdicts import trust
    from measure import attest

    key = tmp_path / "node-key" / "node_ed25519"
    signer = attest.Signer.generate()
    signer.save(key)
    monkeypatch.setenv(attest.NODE_KEY_ENV, str(key))
    (tmp_path / "e").mkdir()
    entries = make_entries(tmp_path / "e", ["alpha", "beta-fail"])
    log = logging.getLogger("test.pool.signed")
    kw = dict(target=FAKE, available=gpus(1), deadline_s=3.0)
    plan.measure_entries(list(entries.values()), log, **kw)
    policy = trust.Trust(mode="signed", nodes=trust.Keyring(path=None, keys={signer.public.keyid: trust.TrustedKey(
        name="test-node", key=signer.public)}))
    alpha = json.loads((tmp_path / "e/alpha/results/fake-gpu.json").read_text())
    assert trust.check_result("alpha", "fake-gpu", store.load_file(tmp_path / "e/alpha/results/fake-gpu.json"),
                              policy).status == "verified"
    # a failure beside a good result is signed on its own; the good result's signature still holds
    older = dict(alpha, entry="beta-fail", fingerprint="sha256:older")
    store.record_success(tmp_path / "e/beta-fail", attest.sign_result(older, signer))
    plan.measure_entries([entries["beta-fail"]], log, **kw)
    kept = json.loads((tmp_path / "e/beta-fail/results/fake-gpu.json").read_text())
    assert "signature" in kept["last_failure"]
    assert trust.check_result("beta-fail", "fake-gpu", store.load_file(tmp_path / "e/beta-fail/results/fake-gpu.json"),
                              policy).status == "verified"
    monkeypatch.setenv(attest.NODE_KEY_ENV, str(tmp_path / "missing"))
    with caplog.at_level(logging.WARNING, logger="test.pool.signed"):
        plan.measure_entries([entries["alpha"]], log, only_stale=False, **kw)
    assert "this node has no signing key" in caplog.text
