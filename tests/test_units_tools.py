"""The harness's shared helpers: binary units, the CUDA-tool search, and its independence
from the site generator."""

from pathlib import Path

from conftest import fresh_python
from measure import harness, tools, units
from measure.harness import compile as nvcc, counters

ROOT = Path(__file__).resolve().parent.parent


def test_binary_bytes_in_the_largest_unit_reached():
    assert units.binary_bytes(50 * 2**20) == "50 MiB"
    assert units.binary_bytes(1.5 * 2**30) == "1.5 GiB"
    assert units.binary_bytes(2**40) == "1024 GiB"
    assert units.binary_bytes(1536) == "1.5 KiB"
    assert units.binary_bytes(1023) == "1023 B"
    assert units.binary_bytes(0) == "0 B"


def test_binary_bytes_in_a_given_unit():
    assert units.binary_bytes(3 * 2**29, "GiB", digits=2) == "1.50 GiB"
    assert units.binary_bytes(2**20, "KiB", digits=0) == "1024 KiB"
    assert units.binary_bytes(2**37 * 4, "GiB") == "512.0 GiB"


def test_binary_counts_have_bare_prefixes():
    assert units.binary(65536, unit="", sep="") == "64K"
    assert units.binary(3 * 2**19, unit="", sep="") == "1.5M"
    assert units.binary(512, unit="", sep="") == "512"


def test_the_out_of_memory_message_in_gib():
    msg = harness.memory_shortfall(512 * 2**30, 140 * 2**30, 141 * 2**30, "n=2^37", "NVIDIA H200")
    assert "n=2^37 needs 512.0 GiB of device memory" in msg
    assert "NVIDIA H200 has 140.0 GiB free of 141.0 GiB" in msg
    assert harness.memory_shortfall(1, 2, 3, "n=1", "gpu") is None


def _tool(folder: Path, name: str) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n")
    path.chmod(0o755)
    return str(path)


def test_find_cuda_tool_order(tmp_path, monkeypatch):
    on_path = _tool(tmp_path / "path", "mytool")
    named = _tool(tmp_path / "named", "mytool")
    installed = _tool(tmp_path / "cuda", "mytool")
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    monkeypatch.setenv("MYTOOL", named)
    folders = (str(tmp_path / "none"), str(tmp_path / "cuda"))
    assert tools.find_cuda_tool("mytool", env_var="MYTOOL", folders=folders) == named
    monkeypatch.setenv("MYTOOL", str(tmp_path / "missing"))  # not a file: passed over
    assert tools.find_cuda_tool("mytool", env_var="MYTOOL", folders=folders) == on_path
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert tools.find_cuda_tool("mytool", env_var="MYTOOL", folders=folders) == installed
    assert tools.find_cuda_tool("mytool", folders=(str(tmp_path / "none"),)) is None


def test_find_nvcc_and_ncu_use_the_one_search(tmp_path, monkeypatch):
    named = _tool(tmp_path / "named", "nvcc")
    monkeypatch.setenv("NVCC", named)
    assert nvcc.find_nvcc() == named
    assert nvcc.nvcc_version(named) == "V13.0.88"
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    ncu = _tool(tmp_path / "path", "ncu")
    assert counters.find_ncu() == ncu
    assert counters.ncu_version(ncu) is None  # no "Version x" line
    assert counters.ncu_version(str(tmp_path / "missing")) is None
    assert tools.version_output(str(tmp_path / "missing")) is None


def test_measure_imports_nothing_from_glossary():
    code = ("import importlib, pkgutil, sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'glossary':\n"
            "            raise ImportError(name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "import measure\n"
            "for m in pkgutil.iter_modules(measure.__path__):\n"
            "    importlib.import_module('measure.' + m.name)\n")
    proc = fresh_python(code)
    assert proc.returncode == 0, proc.stderr
