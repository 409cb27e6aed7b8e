"""What a sandboxed compile read comes from the line markers of the one preprocessed source nvcc keeps
(issue 34: nvcc's -MD preprocessed the source a second time, host-side, for a fifth of a small compile),
and the watchdog counts a sandbox's processes by walking its own tree: each as safe as before."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from measure import sandbox
from measure.harness import compile as nvcc
from measure.sandbox import bwrap, nvcc as sandbox_nvcc
from measure.sandbox.nvcc import CompileFailed, entry_reads, preprocessed_reads

needs_sandbox = pytest.mark.skipif(sandbox.problem() is not None, reason=f"no sandbox here: {sandbox.problem()}")
needs_nvcc = pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")
TOOLKIT = ("/usr/local/cuda-13.0",)

II = '''# 0 "/entry/k.cu"
# 0 "<built-in>"
# 0 "<command-line>"
# 1 "/usr/include/stdc-predef.h" 1 3 4
# 0 "<command-line>" 2
# 1 "/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/cuda_runtime.h" 1
#pragma GCC diagnostic push
typedef int x;
# 1 "/entry/k.cu"
# 1 "/entry/impl.cuh" 1
# 1 "/entry/we\\"ird\\\\name.cuh" 1
# 2 "/entry/impl.cuh" 2
# 2 "/entry/k.cu" 2
extern "C" __global__ void k(float *y) { y[0] = 1.0f; }
'''


def _ii(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "k.cpp1.ii"
    path.write_text(text)
    return path


def test_every_file_a_marker_names_is_read_in_the_order_first_named(tmp_path):
    names = preprocessed_reads(_ii(tmp_path, II), "k.cu")
    assert names == ["/entry/k.cu", "/usr/include/stdc-predef.h",
                     "/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/cuda_runtime.h",
                     "/entry/impl.cuh", '/entry/we"ird\\name.cuh']
    assert entry_reads(names[:4], TOOLKIT, "k.cu", {"k.cu", "impl.cuh"}) == ("k.cu", "impl.cuh")


def test_a_marker_the_source_writes_itself_can_name_a_file_never_hide_one(tmp_path):
    """`#line` (or a raw string) adds a name: the compile is refused as if it read that file."""
    spoofed = II.replace("typedef int x;\n", 'typedef int x;\n# 7 "/etc/passwd"\n')
    names = preprocessed_reads(_ii(tmp_path, spoofed), "k.cu")
    assert "/etc/passwd" in names and "/entry/impl.cuh" in names
    with pytest.raises(CompileFailed, match="read /etc/passwd, outside the entry's folder"):
        entry_reads(names, TOOLKIT, "k.cu", None)


def test_an_entry_file_the_fingerprints_do_not_cover_is_refused(tmp_path):
    names = preprocessed_reads(_ii(tmp_path, II), "k.cu")
    with pytest.raises(CompileFailed, match="impl.cuh, which the entry's fingerprints do not cover"):
        entry_reads(names, TOOLKIT, "k.cu", {"k.cu"})


@pytest.mark.parametrize("text, why", [
    ("int x;\n", "names no files"),                                  # markers off (gcc -P)
    ('# 1 "/entry/k.cu"\n# 3 "/entry/a.cuh\n', "cannot be read"),     # a marker cut short
])
def test_a_preprocessed_source_that_cannot_say_what_was_read_is_refused(tmp_path, text, why):
    with pytest.raises(CompileFailed, match=why):
        preprocessed_reads(_ii(tmp_path, text), "k.cu")


def test_a_preprocessed_source_is_read_only_as_the_compile_wrote_it(tmp_path):
    link = tmp_path / "link.ii"
    link.symlink_to(_ii(tmp_path, II))
    with pytest.raises(CompileFailed, match="no preprocessed source"):
        preprocessed_reads(link, "k.cu")
    with pytest.raises(CompileFailed, match="over 0 MiB"):
        preprocessed_reads(_ii(tmp_path, II), "k.cu", limit=100)


def test_the_command_results_record_is_the_command_before_issue_34():
    argv = sandbox_nvcc.command("/cuda/bin/nvcc", ["-O3"], "sm_90", "k.cu")
    assert sandbox_nvcc.shown_command(argv) == "/cuda/bin/nvcc --cubin -O3 -arch sm_90 -I/entry -o /out/kernel.cubin /entry/k.cu"


@needs_sandbox
@needs_nvcc
def test_a_header_only_the_device_side_includes_is_read_and_checked(tmp_path):
    """The cubin is compiled from the device-side preprocessing, so its includes are the ones checked."""
    folder = tmp_path / "e"
    folder.mkdir()
    (folder / "k.cu").write_text('#ifdef __CUDA_ARCH__\n#include "dev.cuh"\n#endif\n'
                                 'extern "C" __global__ void k(float *y) { y[0] = ONE; }\n')
    (folder / "dev.cuh").write_text("#define ONE 1.0f\n")
    built = sandbox_nvcc.compile_source(folder, "k.cu", "sm_90", ["-O3"], nvcc=nvcc.find_nvcc(),
                                        covered={"k.cu", "dev.cuh"})
    assert built.reads == ("k.cu", "dev.cuh") and built.cubin[:4] == b"\x7fELF"
    assert "--keep" not in built.command and "-MD" not in built.command
    with pytest.raises(sandbox.CompileFailed, match="dev.cuh, which the entry's fingerprints do not cover"):
        sandbox_nvcc.compile_source(folder, "k.cu", "sm_90", ["-O3"], nvcc=nvcc.find_nvcc(), covered={"k.cu"})


def test_the_watchdog_counts_a_tree_as_the_whole_process_table_does(monkeypatch):
    """Walking the sandbox's own tree finds the processes and memory a scan of every process finds."""
    proc = subprocess.Popen(["bash", "-c", "sleep 30 & sleep 30 & (sleep 30 & wait) & wait"], start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while bwrap._descendants(proc.pid)[0] < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        walked = bwrap._descendants(proc.pid)
        monkeypatch.setattr(bwrap, "_children_of_tree", lambda root: None)  # a kernel without children files
        scanned = bwrap._descendants(proc.pid)
    finally:
        os.killpg(proc.pid, 9)  # its own process group: the test's processes and nothing else
        proc.wait()
    assert walked[0] == scanned[0] == 3  # four processes under bash; the first is counted as bwrap's own
    assert abs(walked[1] - scanned[1]) < (8 << 20) and walked[1] > 0
