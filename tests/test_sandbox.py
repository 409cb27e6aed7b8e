"""Author code runs only in the sandbox: hostile references and kernel sources (tests/hostile_code/)
each fail with a clear reason, and a secret planted outside the entry's folder is found nowhere."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from measure import sandbox
from measure.harness import compile as nvcc
from measure.harness.check import call_reference
from measure.sandbox import bwrap, nvcc as sandbox_nvcc
from measure.spec.includes import IncludeError, included_files

HOSTILE = Path(__file__).parent / "hostile_code"
needs_sandbox = pytest.mark.skipif(sandbox.problem() is not None, reason=f"no sandbox here: {sandbox.problem()}")
needs_nvcc = pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")
TIGHT = sandbox.Limits(wall_s=8, cpu_s=20, memory_bytes=2 << 30, file_bytes=64 << 20, processes=32)


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A secret outside every entry's folder, where a node keeps its key, and the home pointing at it."""
    home = tmp_path / "home"
    key = home / ".config" / "glossary" / "node-key"
    key.parent.mkdir(parents=True)
    secret = "SECRET-" + os.urandom(16).hex()
    key.write_text(secret)
    monkeypatch.setenv("HOME", str(home))
    return key, secret


def entry_with(tmp_path: Path, name: str, planted_key: Path, **subs: str) -> Path:
    folder = tmp_path / "entries" / "hostile"
    folder.mkdir(parents=True, exist_ok=True)
    text = (HOSTILE / name).read_text().replace("SECRET_PATH", str(planted_key))
    for k, v in subs.items():
        text = text.replace(k, v)
    target = "reference.py" if name.endswith(".py") else "kernel.cu"
    (folder / target).write_text(text)
    return folder


def run_reference(folder: Path, limits=TIGHT) -> str:
    """The error the hostile reference ends in (it must end in one)."""
    x = np.arange(64, dtype=np.float32)
    try:
        with sandbox.SandboxedReference(folder, "reference.py", limits=limits) as ref:
            answer = call_reference(ref, "v", {"x": x}, {}, {"n": 64}, {"y": 64})
    except sandbox.ReferenceFailed as err:
        return str(err)
    pytest.fail(f"the hostile reference returned {sorted(answer)} instead of failing")


def nowhere(secret: str, *places: Path, text: str = "") -> None:
    assert secret not in text
    for place in places:
        for path in place.rglob("*") if place.is_dir() else [place]:
            if path.is_file() and not path.is_symlink() and path.name != "node-key":
                assert secret not in path.read_text(errors="replace"), path


@needs_sandbox
@pytest.mark.parametrize("name", ["read_key.py", "read_key_at_import.py", "raise_secret.py"])
def test_a_reference_cannot_read_the_nodes_key(tmp_path, planted, name):
    key, secret = planted
    folder = entry_with(tmp_path, name, key)
    error = run_reference(folder)
    assert "No such file" in error or "could not read" in error or "key: " in error, error
    nowhere(secret, tmp_path / "entries", Path("/dev/shm"), text=error)


@needs_sandbox
def test_a_reference_cannot_write_outside_its_scratch_folder(tmp_path, planted):
    key, _ = planted
    outside = tmp_path / "outside.txt"
    folder = entry_with(tmp_path, "write_outside.py", key, OUTSIDE_PATH=str(outside))
    Path("/tmp/planted.txt").unlink(missing_ok=True)
    error = run_reference(folder)
    # Its home is its own private /tmp, gone with it; nothing else took the write.
    assert "wrote ['/tmp/planted.txt']" in error, error
    assert not outside.exists() and not (folder / "planted.txt").exists()
    assert not Path("/tmp/planted.txt").exists() and not (Path(os.environ["HOME"]) / "planted.txt").exists()


@needs_sandbox
def test_a_reference_has_no_network(tmp_path, planted):
    key, _ = planted
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(10)
    got = []

    def accept():
        try:
            conn, _ = server.accept()
            got.append(conn.recv(100))
        except OSError:
            pass

    listener = threading.Thread(target=accept, daemon=True)
    listener.start()
    folder = entry_with(tmp_path, "open_socket.py", key, PORT=str(server.getsockname()[1]))
    error = run_reference(folder)
    server.close()
    listener.join(timeout=5)
    assert "Connection refused" in error or "unreachable" in error or "Errno" in error, error
    assert got == []


@needs_sandbox
def test_a_reference_cannot_import_the_harness_to_patch_it(tmp_path, planted):
    key, _ = planted
    error = run_reference(entry_with(tmp_path, "patch_measure.py", key))
    assert "importing reference.py failed" in error and "No module named 'measure'" in error, error


@needs_sandbox
def test_a_reference_that_spins_forever_is_stopped_at_its_wall_clock(tmp_path, planted):
    key, _ = planted
    limits = sandbox.Limits(wall_s=3, cpu_s=20, memory_bytes=2 << 30, file_bytes=64 << 20, processes=32)
    error = run_reference(entry_with(tmp_path, "spin.py", key), limits)
    assert "wall-clock limit" in error, error


@needs_sandbox
def test_a_reference_cannot_allocate_100_gb(tmp_path, planted):
    key, _ = planted
    error = run_reference(entry_with(tmp_path, "allocate.py", key))
    assert "MemoryError" in error or "memory" in error, error


@needs_sandbox
def test_a_reference_that_forks_repeatedly_is_stopped(tmp_path, planted):
    key, _ = planted
    error = run_reference(entry_with(tmp_path, "fork.py", key))
    assert "processes" in error or "wall-clock" in error, error
    assert "wall-clock" not in error or bwrap.os.getuid() == 0, error


@needs_sandbox
def test_what_comes_back_is_checked_before_use(tmp_path, planted):
    key, secret = planted
    error = run_reference(entry_with(tmp_path, "wrong_shape.py", key))
    assert "holds 3 elements" in error and "expected 64" in error, error
    folder = entry_with(tmp_path, "symlink_out.py", key)
    x = np.arange(64, dtype=np.float32)
    with sandbox.SandboxedReference(folder, "reference.py", limits=TIGHT) as ref:
        # It returned key z (not y) and planted a link where y's file would be: never followed.
        with pytest.raises(sandbox.ReferenceFailed, match="not a regular file|cannot be opened"):
            sandbox.reference.read_float64(ref._all[0].out / "1-y.npy", 64) if _call(ref, x) else None
    nowhere(secret, tmp_path / "entries")


def _call(ref, x) -> bool:
    answer = call_reference(ref, "v", {"x": x}, {}, {"n": 64}, {"y": 64})
    assert sorted(answer) == ["z"] and answer["z"] is None
    return True


@needs_sandbox
def test_the_harness_process_imports_no_author_code(tmp_path):
    folder = tmp_path / "entries" / "plain"
    folder.mkdir(parents=True)
    (folder / "reference.py").write_text("import numpy as np\nMARK = 1\n"
                                         "def reference(variant, inputs, scalars, params):\n"
                                         "    return {'y': inputs['x'] * 2}\n")
    before = set(sys.modules)
    x = np.arange(1000, dtype=np.float32)
    with sandbox.SandboxedReference(folder, "reference.py") as ref:
        answer = call_reference(ref, "v", {"x": x}, {}, {}, {"y": 10}, 10, 20)
    np.testing.assert_array_equal(answer["y"], x[10:20].astype(np.float64) * 2)
    loaded = [m for m in set(sys.modules) - before
              if str(getattr(sys.modules[m], "__file__", "") or "").startswith(str(tmp_path))]
    assert loaded == []
    assert not any(hasattr(m, "MARK") and getattr(m, "__file__", "") and str(tmp_path) in m.__file__
                   for m in list(sys.modules.values()) if m is not None)


# -- kernel sources -----------------------------------------------------------------------------


@pytest.mark.parametrize("name,why", [("include_key.cu", "only files in the entry's folder"),
                                      ("include_zero.cu", "only files in the entry's folder"),
                                      ("include_escape.cu", "leaves the entry's folder"),
                                      ("include_computed.cu", "names no file literally")])
def test_the_entry_model_refuses_includes_it_cannot_fingerprint(tmp_path, planted, name, why):
    key, secret = planted
    folder = entry_with(tmp_path, name, key)
    with pytest.raises(IncludeError, match=why) as err:
        included_files(folder, ["kernel.cu"])
    assert err.value.file == "kernel.cu" and err.value.line in (1, 2)
    assert secret not in str(err.value)


def test_an_included_header_counts_in_the_fingerprints(tmp_path):
    folder = tmp_path / "e"
    (folder / "inc").mkdir(parents=True)
    (folder / "k.cu").write_text('#include "impl.cuh"\n#include <cuda_fp16.h>\n  #  include "inc/more.cuh"\n')
    (folder / "impl.cuh").write_text('#include "inc/more.cuh"\n')
    (folder / "inc" / "more.cuh").write_text('#include "deep.cuh"\n')   # relative to inc/
    (folder / "inc" / "deep.cuh").write_text("#define X 1\n")
    assert sorted(included_files(folder, ["k.cu"])) == ["impl.cuh", "inc/deep.cuh", "inc/more.cuh"]


@needs_sandbox
@needs_nvcc
@pytest.mark.parametrize("name", ["include_key.cu", "include_zero.cu", "include_escape.cu"])
def test_a_compile_cannot_read_outside_the_entry(tmp_path, planted, name):
    """Past the entry model (as if it were skipped), the sandboxed compile still fails, bounded."""
    key, secret = planted
    folder = entry_with(tmp_path, name, key)
    limits = sandbox.Limits(wall_s=60, cpu_s=60, memory_bytes=2 << 30, file_bytes=64 << 20, processes=32)
    with pytest.raises(sandbox.CompileFailed) as err:
        sandbox_nvcc.compile_source(folder, "kernel.cu", "sm_90", ["-O3"], nvcc=nvcc.find_nvcc(), limits=limits)
    assert secret not in str(err.value)
    assert len(str(err.value)) < 20000


@needs_sandbox
@needs_nvcc
def test_a_compile_that_reads_an_unfingerprinted_entry_file_is_refused(tmp_path):
    folder = _entry_folder(tmp_path, {"k.cu": '#include "impl.cuh"\nextern "C" __global__ void k(float *y) { y[0] = ONE; }\n',
                                      "impl.cuh": "#define ONE 1.0f\n"})
    built = sandbox_nvcc.compile_source(folder, "k.cu", "sm_90", [], nvcc=nvcc.find_nvcc(),
                                        covered={"k.cu", "impl.cuh"})
    assert built.reads == ("k.cu", "impl.cuh") and built.cubin[:4] == b"\x7fELF"
    assert "/entry/k.cu" in built.command
    with pytest.raises(sandbox.CompileFailed, match="impl.cuh, which the entry's fingerprints do not cover"):
        sandbox_nvcc.compile_source(folder, "k.cu", "sm_90", [], nvcc=nvcc.find_nvcc(), covered={"k.cu"})


def test_no_sandbox_is_one_line_saying_how_to_install_it(monkeypatch):
    monkeypatch.setenv("BWRAP", "/nonexistent/bwrap")
    monkeypatch.setattr(bwrap.shutil, "which", lambda name: None)
    monkeypatch.setattr(bwrap.Path, "is_file", lambda self: False)
    why = bwrap.problem()
    assert why and "apt-get install bubblewrap" in why and "\n" not in why
    with pytest.raises(sandbox.SandboxUnavailable):
        bwrap.require()


@needs_sandbox
def test_a_sandbox_started_from_a_thread_outlives_the_thread(tmp_path):
    """--die-with-parent fires when the thread that started bwrap ends: the chunked check starts
    servers from pool threads, so they must be started elsewhere and survive them."""
    folder = tmp_path / "entries" / "plain"
    folder.mkdir(parents=True)
    (folder / "reference.py").write_text("def reference(variant, inputs, scalars, params):\n"
                                         "    return {'y': inputs['x'] + 1}\n")
    x = np.arange(100, dtype=np.float32)
    with sandbox.SandboxedReference(folder, "reference.py") as ref:
        ref._servers.get()  # the first server is busy: the thread below must start a second
        done = []
        worker = threading.Thread(target=lambda: done.append(call_reference(ref, "v", {"x": x}, {}, {}, {"y": 100})))
        worker.start()
        worker.join()
        assert len(ref._all) == 2 and done
        import time
        time.sleep(0.5)  # the thread that asked is gone; its server must still answer
        answer = ref._all[1].ask({"call": 99, "variant": "v", "inputs": {}, "scalars": {}, "params": {},
                                  "outputs": []})
        assert answer.get("call") == 99


@needs_sandbox
def test_a_forked_process_starts_sandboxes_of_its_own(tmp_path):
    """A fork (the test suite forks its mkdocs and glossary commands) inherits the parent's spawner
    with its thread gone: the child's first sandbox waited for ever on a job no thread would take."""
    limits = sandbox.Limits(wall_s=10, cpu_s=10, memory_bytes=1 << 30, file_bytes=1 << 20, processes=16)
    mounts = bwrap.Mounts(ro={}, rw={})
    exe = bwrap.require()
    assert bwrap.run(exe, mounts, limits, ["/bin/true"]).returncode == 0  # the parent's spawner thread runs
    pid = os.fork()
    if pid == 0:  # the child: the same call, then out without pytest's exit handlers
        code = 1
        try:
            code = 0 if bwrap.run(exe, mounts, limits, ["/bin/true"]).returncode == 0 else 1
        finally:
            os._exit(code)
    for _ in range(400):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the forked process's sandbox never started (20 s)")
    assert os.waitstatus_to_exitcode(status) == 0


@needs_sandbox
def test_one_call_that_never_answers_is_stopped(tmp_path, planted, monkeypatch):
    key, _ = planted
    monkeypatch.setattr(sandbox.reference, "CALL_TIMEOUT_S", 2.0)
    limits = sandbox.Limits(wall_s=60, cpu_s=60, memory_bytes=2 << 30, file_bytes=64 << 20, processes=32)
    error = run_reference(entry_with(tmp_path, "spin.py", key), limits)
    assert "more than 2 s to answer one call" in error, error


def test_what_lies_under_tmp_is_still_bound(monkeypatch):
    """A venv or checkout under /tmp (CI clones there) must not be hidden by the sandbox's private /tmp."""
    mounts = bwrap.Mounts(ro={"/tmp/venv": "/tmp/venv", "/entry": "/e"}, rw={"/io/out": "/tmp/scratch/out"})
    args = bwrap.argv("bwrap", mounts, sandbox.Limits(), ["python3"])
    tmpfs = args.index("/tmp", args.index("--tmpfs"))
    assert tmpfs < args.index("/tmp/venv") and tmpfs < args.index("/tmp/scratch/out")


def test_the_server_runs_a_reference_only_inside_the_sandbox(tmp_path):
    """The one place an entry's reference is imported (server.serve) refuses to run anywhere but at
    the path the sandbox binds it to: trusted code may import the module, never run an entry with it."""
    from measure.sandbox import server

    (tmp_path / "reference.py").write_text("raise SystemExit('the reference ran')\n")
    with pytest.raises(SystemExit, match="only inside the sandbox"):
        server.serve(str(tmp_path / "reference.py"))


@needs_sandbox
@needs_nvcc
def test_a_compile_hands_back_ptxas_s_report_and_the_cache_keeps_it(tmp_path):
    # The register and spill counts issue 18's predictions are checked against come from ptxas's report
    # of a compile in the sandbox, never from nvcc run on an entry's code outside it.
    folder = _entry_folder(tmp_path, {"k.cu": 'extern "C" __global__ void k(float *y) { y[threadIdx.x] = 1.0f; }\n'})
    flags = ["-O3", "-Xptxas", "-v"]
    built = sandbox_nvcc.compile_source(folder, "k.cu", "sm_90", flags, nvcc=nvcc.find_nvcc(), cache=tmp_path / "c")
    assert "Used" in built.log and "registers" in built.log
    assert [json.loads(p.read_text())["log"] for p in (tmp_path / "c").glob("*.json")] == [built.log]
    again = sandbox_nvcc.compile_source(folder, "k.cu", "sm_90", flags, nvcc=nvcc.find_nvcc(), cache=tmp_path / "c")
    assert again == built  # from the cache: the same cubin, reads, command and report


def _entry_folder(tmp_path: Path, files: dict[str, str]) -> Path:
    """An entry's folder holding ``files`` (name -> text)."""
    folder = tmp_path / "e"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder
