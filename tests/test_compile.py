"""Every entry's kernels compile with nvcc for every arch its spec claims (CPU; skipped without nvcc)."""

from pathlib import Path

import pytest

from entry_files import front_matter_at

from measure.harness import compile as nvcc
from measure.sandbox import nvcc as sandbox_nvcc
from measure.spec import MeasureSpec
from measure.spec.limits import NOMINAL_DEVICE
from measure.typed import load

ENTRIES = Path(__file__).resolve().parent.parent / "entries"


def _cases():
    for md in sorted(ENTRIES.glob("*.md")):
        data = front_matter_at(md)
        if "measure" not in data:
            continue
        spec = load(MeasureSpec, data["measure"], key="measure")
        # Each distinct build a variant asks for (its defines and register limit), device names
        # bound to the nominal device the spec is checked against.
        builds = sorted(set(nvcc.module_options(spec, NOMINAL_DEVICE).values()))
        for arch in spec.archs:
            for source in spec.sources:
                for extra in builds:
                    shown = "-" + "_".join(o.lstrip("-") for o in extra) if extra else ""
                    yield pytest.param(md.stem, spec, arch, source, extra, id=f"{md.stem}-{source}-{arch}{shown}")


CASES = list(_cases())


def test_some_entry_has_kernels():
    assert CASES, "expected at least one entry with a measure: spec (kernel-fusion)"


@pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")
@pytest.mark.parametrize("slug,spec,arch,source,extra", CASES)
def test_entry_kernels_compile(slug, spec, arch, source, extra, tmp_path):
    src = ENTRIES / slug / source
    out = nvcc.compile_cubin(spec, src, arch, tmp_path / f"{Path(source).stem}.{arch}.cubin", extra=extra)
    data = out.read_bytes()
    assert data[:4] == b"\x7fELF"
    built = {v.name for v in spec.measured_variants if nvcc.module_options(spec, NOMINAL_DEVICE)[v.name] == extra}
    launched = sorted({launch.kernel for v in spec.measured_variants if v.name in built for launch in v.launches
                       if launch.kernel})
    defined = [k for k in launched if k not in nvcc.cubin_symbols_present(data, [k])]
    # With several sources a kernel may live in another one; with one, all must be here.
    if len(spec.sources) == 1:
        assert defined == launched, f"kernels missing or mangled (not extern \"C\"): " \
                                    f"{sorted(set(launched) - set(defined))}"


def test_nvcc_command_shape():
    spec = CASES[0].values[1]
    cmd = sandbox_nvcc.command("nvcc", list(spec.nvcc_flags), "sm_90", "chain.cu")
    assert cmd[:2] == ["nvcc", "--cubin"]
    assert cmd[2:2 + len(spec.nvcc_flags)] == list(spec.nvcc_flags)
    assert ["-arch", "sm_90"] == cmd[2 + len(spec.nvcc_flags):4 + len(spec.nvcc_flags)]
    # The sandbox sees the entry's folder at /entry, its include path, and writes only to /out.
    assert cmd[-1] == "/entry/chain.cu" and "-I/entry" in cmd
    # What it read comes from the preprocessed source it keeps (no second, host-side preprocessing:
    # issue 34), and the command results record names none of that.
    assert cmd[cmd.index("--keep-dir") + 1] == "/out/keep" and "-MD" not in cmd
    assert sandbox_nvcc.shown_command(cmd) == "nvcc --cubin " + " ".join(spec.nvcc_flags) + \
        " -arch sm_90 -I/entry -o /out/kernel.cubin /entry/chain.cu"


@pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")
def test_compile_error_carries_nvcc_output(tmp_path):
    spec = CASES[0].values[1]
    bad = tmp_path / "bad.cu"
    bad.write_text('extern "C" __global__ void k(float* y) { y[0] = undefined_name; }\n')
    with pytest.raises(nvcc.NvccError, match="undefined_name"):
        nvcc.compile_cubin(spec, bad, "sm_90", tmp_path / "bad.cubin")


def test_parse_nvcc_version():
    text = ("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
            "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\nCuda compilation tools, release 13.0, V13.0.88\n"
            "Build cuda_13.0.r13.0/compiler.36424714_0\n")
    assert nvcc.parse_nvcc_version(text) == "V13.0.88"
    assert nvcc.parse_nvcc_version("no version here") is None
