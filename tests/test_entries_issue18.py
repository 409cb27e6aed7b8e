"""The issue-18 entries (occupancy, bank conflicts, warp divergence, tensor cores, register
spilling), on the CPU: no GPU, no pycuda, and not through the spec model (the sweep, metrics
and per-buffer tolerance keys they use are issue 18's design, which measure/ implements).

For each entry: the reference's output shapes and keys, and a NumPy emulation of what the
kernel computes (float32 rounding step by step) agreeing with the float64 reference within the
tolerance the spec sets.  The spec-arithmetic tests check the front-matter's own numbers: the
shared-memory expression fits exactly `blocks` blocks on nominal devices, the bank model gives
the predicted conflicts, every prediction names a point of its variant's sweep, and the entry
stays within the configuration budget.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from entry_files import ENTRIES, check_unsigned_and_files, f32, front_matter, reference_of, within

SLUGS = ("occupancy", "bank-conflicts", "warp-divergence", "tensor-cores", "register-spilling")
L2 = 60 * 2**20      # the H200's L2
MAX_CONFIGS = 30     # sizes x expanded variants, per entry


def fma32(a, b, c) -> np.ndarray:
    """fmaf: a*b + c rounded once to float32 (float64 holds a float32 product exactly)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(np.float32)


def expanded_names(variant: dict) -> list[str]:
    sweep = variant.get("sweep") or {}
    if not sweep:
        return [variant["name"]]
    keys = list(sweep)
    return [f"{variant['name']}[" + ",".join(f"{k}={v}" for k, v in zip(keys, point)) + "]"
            for point in itertools.product(*(sweep[k] for k in keys))]


# -- the front-matter, as written against the design -------------------------------------------

@pytest.mark.parametrize("slug", SLUGS)
def test_front_matter_basics(slug):
    fm = check_unsigned_and_files(slug)
    assert all(str(s["checked"]) == "2026-12-01" and s["url"].startswith("https://") for s in fm["sources"])


@pytest.mark.parametrize("slug", SLUGS)
def test_predictions_name_expanded_variants_and_the_budget_holds(slug):
    m = front_matter(slug)["measure"]
    names = {v["name"]: expanded_names(v) for v in m["variants"]}
    every = set(names) | {e for es in names.values() for e in es}
    for metric in m.get("metrics", []):
        for key in (metric.get("predict") or {}):
            assert key in every, f"{metric['name']}: prediction for unknown variant {key}"
        if metric["per"] == "request":
            assert metric.get("request")
    for claim in m.get("claims", []):
        for key in ("num", "den", "variant"):
            if key in claim:
                assert claim[key] in every, claim
    configs = len(m["sizes"]) * sum(len(es) for es in names.values())
    assert configs <= MAX_CONFIGS, f"{slug}: {configs} configurations"


@pytest.mark.parametrize("slug", ["occupancy", "bank-conflicts", "register-spilling"])
def test_memory_bound_entries_have_a_size_past_four_l2(slug):
    m = front_matter(slug)["measure"]
    sizes = [eval(m["elements"], {}, dict(s)) for s in m["sizes"]]  # noqa: S307 (our own spec text)
    assert max(sizes) * 8 >= 4 * L2


# Nominal devices: (shared memory per SM, opt-in shared memory per block, reservation per block,
# registers per SM, max warps per SM, max blocks per SM).
DEVICES = {"sm_80": (167936, 166912, 1024, 65536, 64, 32), "sm_90": (233472, 232448, 1024, 65536, 64, 32)}


@pytest.mark.parametrize("arch", sorted(DEVICES))
def test_occupancy_shared_expression_fits_exactly_blocks(arch):
    smem_per_sm, optin, reserved, _, _, _ = DEVICES[arch]
    variant = next(v for v in front_matter("occupancy")["measure"]["variants"] if v["name"] == "by_shared")
    text = variant["launches"][0]["shared"]
    for blocks in variant["sweep"]["blocks"]:
        shared = eval(text, {}, {"smem_per_sm": smem_per_sm, "blocks": blocks})  # noqa: S307
        assert 0 < shared <= optin
        fit = smem_per_sm // (shared + reserved)
        assert fit == blocks, (blocks, shared, fit)


def _resident_blocks(regs: int, threads: int, smem_per_sm: int = 233472, regs_per_sm: int = 65536) -> int:
    per_warp = math.ceil(regs * 32 / 256) * 256
    warps = threads // 32
    return min(regs_per_sm // (per_warp * warps), 64 // warps, 32)


def test_occupancy_register_predictions_follow_the_compiled_counts():
    # ptxas (nvcc 13.0, sm_90) gives 24, 56, 90 and 156 registers for ballast 0, 32, 64, 128.
    metric = front_matter("occupancy")["measure"]["metrics"][0]
    for ballast, regs in {0: 24, 32: 56, 64: 90, 128: 156}.items():
        warps = _resident_blocks(regs, 256) * 8
        assert metric["predict"][f"by_regs[ballast={ballast}]"] == pytest.approx(100 * warps / 64)
    for block in (32, 64, 128, 256, 512, 1024):
        assert metric["predict"][f"by_block[block={block}]"] == pytest.approx(100 * block / 32 / 64)


def _wavefronts(word_addresses) -> int:
    """Passes a request needs: the most distinct words any one bank is asked for."""
    banks: dict[int, set] = {}
    for w in word_addresses:
        banks.setdefault(w % 32, set()).add(w)
    return max(len(s) for s in banks.values())


@pytest.mark.parametrize("pad,loads,stores", [(0, 32, 1), (1, 1, 1)])
def test_bank_model_gives_the_predicted_wavefronts(pad, loads, stores):
    row = 32 + pad
    for ty in range(8):
        for j in range(0, 32, 8):
            store = [(ty + j) * row + tx for tx in range(32)]      # tile[ty + j][tx]
            load = [tx * row + ty + j for tx in range(32)]         # tile[tx][ty + j]
            assert _wavefronts(store) == stores
            assert _wavefronts(load) == loads
    metrics = {m["name"]: m["predict"] for m in front_matter("bank-conflicts")["measure"]["metrics"]}
    name = "naive" if pad == 0 else "padded"
    assert metrics["wavefronts"][name] == loads and metrics["conflicts"][name] == loads - 1
    assert metrics["store_conflicts"][name] == stores - 1


# -- references against emulations of the kernels ---------------------------------------------

def test_occupancy_reference_matches_the_kernel():
    ref = reference_of("occupancy")
    rng = np.random.default_rng(1)
    x = f32(rng.standard_normal(4096))
    a = float(np.float32(1.5))
    out = ref.reference("by_regs", {"x": x.astype(np.float64)}, {"a": a, "flag": 0}, {"n": 4096, "ballast": 64})
    assert set(out) == {"y"} and out["y"].shape == (4096,) and out["y"].dtype == np.float64
    kernel = f32(np.float32(a) * x)
    assert within(kernel, out["y"], 1e-5, 1e-6)


def test_transpose_reference_matches_a_tiled_emulation():
    ref = reference_of("bank-conflicts")
    rows, cols = 64, 96
    a = np.arange(rows * cols, dtype=np.float64)
    out = ref.reference("naive", {"a": a}, {}, {"rows": rows, "cols": cols})
    assert set(out) == {"b"} and out["b"].shape == (rows * cols,)
    b = np.empty(rows * cols)
    A = a.reshape(rows, cols)
    for by in range(rows // 32):
        for bx in range(cols // 32):
            tile = A[by * 32:(by + 1) * 32, bx * 32:(bx + 1) * 32]      # tile[ty][tx] = a[row][col]
            for ty in range(32):                                          # b[(bx*32 + ty) * rows + by*32 + tx]
                b[(bx * 32 + ty) * rows + by * 32: (bx * 32 + ty) * rows + by * 32 + 32] = tile[:, ty]
    assert np.array_equal(b, out["b"])


def _divergence_kernel(x, q, a, b, c, d, reps, chain):
    y = f32(x)
    for it in range(reps):
        take_b = ((q + it) & 1) == 1
        ya, yb = y.copy(), y.copy()
        for _ in range(chain):
            ya = fma32(ya, a, b)
            yb = f32(f32(yb * np.float32(c)) + np.float32(d))
        y = np.where(take_b, yb, ya)
    return y


@pytest.mark.parametrize("variant", ["divergent", "uniform"])
def test_divergence_reference_matches_the_kernel(variant):
    ref = reference_of("warp-divergence")
    m = front_matter("warp-divergence")["measure"]
    scalars = {k: float(np.float32(v)) for k, v in m["scalars"].items() if k != "reps"}
    scalars["reps"] = m["scalars"]["reps"]
    n = 4096
    x = f32(np.random.default_rng(2).uniform(-1, 1, n))
    out = ref.reference(variant, {"x": x.astype(np.float64)}, scalars, {"n": n})
    assert set(out) == {"y"} and out["y"].shape == (n,)
    i = np.arange(n)
    q = (i & 1) if variant == "divergent" else ((i >> 5) & 1)
    got = _divergence_kernel(x, q, scalars["a"], scalars["b"], scalars["c"], scalars["d"], scalars["reps"], ref.CHAIN)
    assert within(got, out["y"], m["rtol"], m["atol"])
    # The two kernels compute different functions (the lanes' starting paths differ): the
    # reference must read the variant.
    other = ref.reference("uniform" if variant == "divergent" else "divergent", {"x": x.astype(np.float64)},
                          scalars, {"n": n})
    assert not np.allclose(other["y"], out["y"])


def test_divergence_flops_per_elem_matches_the_kernel_constants():
    m = front_matter("warp-divergence")["measure"]
    chain = reference_of("warp-divergence").CHAIN
    src = (ENTRIES / "warp-divergence" / "branch.cu").read_text()
    assert f"#define CHAIN {chain}" in src
    for v in m["variants"]:
        assert v["flops_per_elem"] == m["scalars"]["reps"] * chain * 2


def _to_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 to the nearest bfloat16 (ties to even), returned as float32."""
    bits = f32(x).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def _c_tolerance():
    buf = front_matter("tensor-cores")["measure"]["buffers"]["c"]
    return float(buf["rtol"]), float(buf["atol"])


def _fma_chain_product(a16, b16):
    """mm_fma_f16: each output a float32 FMA chain over k (products of halves are exact)."""
    a, b = a16.astype(np.float32), b16.astype(np.float32)
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for kk in range(a.shape[1]):
        acc = fma32(a[:, kk:kk + 1], b[kk:kk + 1, :], acc)
    return acc


def _tensor_core_product(a, b, group=16):
    """A pessimistic model of the tensor units: each group of 16 products summed exactly, then
    added to the float32 accumulator with truncation (round toward zero) instead of rounding."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k0 in range(0, a.shape[1], group):
        exact = acc.astype(np.float64) + a[:, k0:k0 + group] @ b[k0:k0 + group, :]
        nearest = exact.astype(np.float32)
        over = np.abs(nearest.astype(np.float64)) > np.abs(exact)
        acc = np.where(over, np.nextafter(nearest, np.float32(0)), nearest)
    return acc


@pytest.mark.parametrize("variant", ["fma", "wmma_f16", "wmma_bf16"])
def test_matmul_reference_matches_the_kernels_at_k_4096(variant):
    ref = reference_of("tensor-cores")
    rtol, atol = _c_tolerance()
    m, n, k = 16, 32, 4096  # the largest k of the sweep, on a few outputs
    rng = np.random.default_rng(3)
    a = f32(rng.standard_normal((m, k)))
    b = f32(rng.standard_normal((k, n)))
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    abf, bbf = _to_bf16(a), _to_bf16(b)
    inputs = {"a": a16.astype(np.float64).reshape(-1), "b": b16.astype(np.float64).reshape(-1),
              "a_bf": abf.astype(np.float64).reshape(-1), "b_bf": bbf.astype(np.float64).reshape(-1)}
    out = ref.reference(variant, inputs, {}, {"m": m, "n": n, "k": k})
    assert set(out) == {"c"} and out["c"].shape == (m * n,)
    if variant == "fma":
        got = _fma_chain_product(a16, b16)
    elif variant == "wmma_f16":
        got = _tensor_core_product(a16, b16)
    else:
        got = _tensor_core_product(abf, bbf)
    assert within(got.reshape(-1), out["c"], rtol, atol)


def test_matmul_reference_tells_the_input_formats_apart():
    ref = reference_of("tensor-cores")
    rng = np.random.default_rng(4)
    a = f32(rng.standard_normal(64 * 64))
    inputs = {"a": a.astype(np.float16).astype(np.float64), "b": a.astype(np.float16).astype(np.float64),
              "a_bf": _to_bf16(a).astype(np.float64), "b_bf": _to_bf16(a).astype(np.float64)}
    params = {"m": 64, "n": 64, "k": 64}
    assert not np.array_equal(ref.reference("wmma_f16", inputs, {}, params)["c"],
                              ref.reference("wmma_bf16", inputs, {}, params)["c"])
    assert np.array_equal(ref.reference("wmma_f16", inputs, {}, params)["c"],
                          ref.reference("fma", inputs, {}, params)["c"])


def _rotate_kernel(x, a, n_vals=64, steps=8, threads=128):
    v = [f32(x.reshape(-1, n_vals, threads)[:, j, :]) for j in range(n_vals)]
    for _ in range(steps):
        for j in range(n_vals):
            v[j] = fma32(a, v[j], v[(j + 1) % n_vals])   # in place, in order: v[63] sees the new v[0]
    return np.stack(v, axis=1).reshape(-1)


def test_spilling_reference_matches_the_kernel():
    ref = reference_of("register-spilling")
    m = front_matter("register-spilling")["measure"]
    a = float(np.float32(m["scalars"]["a"]))
    n = 2 * ref.N * ref.THREADS * 4
    x = f32(np.random.default_rng(5).standard_normal(n))
    out = ref.reference("spill", {"x": x.astype(np.float64)}, {"a": a}, {"n": n, "regs": 32})
    assert set(out) == {"y"} and out["y"].shape == (n,)
    assert within(_rotate_kernel(x, a, ref.N, ref.STEPS, ref.THREADS), out["y"], m["rtol"], m["atol"])
    # The register limit never changes the result.
    again = ref.reference("spill", {"x": x.astype(np.float64)}, {"a": a}, {"n": n, "regs": 255})
    assert np.array_equal(again["y"], out["y"])


def test_spilling_grid_covers_the_elements():
    ref = reference_of("register-spilling")
    m = front_matter("register-spilling")["measure"]
    launch = m["variants"][0]["launches"][0]
    assert launch["grid"] == [f"n / {ref.N * ref.THREADS}"] and launch["block"] == [ref.THREADS]
    for size in m["sizes"]:
        assert size["n"] % (ref.N * ref.THREADS) == 0


# -- the kernels compile for every arch each entry claims, with each variant's defines ----------

def _compile_cases():
    """(slug, arch, nvcc options) for every variant at every point of its sweep, worked out from the
    front-matter here, independently of the harness's own ``compile_options``."""
    for slug in SLUGS:
        m = front_matter(slug)["measure"]
        for arch in m["archs"]:
            for v in m["variants"]:
                sweep = v.get("sweep") or {}
                keys = list(sweep)
                for point in itertools.product(*(sweep[k] for k in keys)) if keys else [()]:
                    env = dict(zip(keys, point))
                    flags = [f"-D{k}={eval(str(e), {}, env)}" for k, e in (v.get("defines") or {}).items()]  # noqa: S307
                    if v.get("maxrregcount"):
                        flags.append(f"-maxrregcount={eval(str(v['maxrregcount']), {}, env)}")  # noqa: S307
                    yield slug, arch, tuple(flags)


def test_each_variants_flags_are_a_build_that_the_compile_test_compiles():
    # tests/test_compile.py compiles every build the harness makes for an entry (its sandboxed nvcc,
    # each arch, each variant's options); compiling the same builds here again cost 32 nvcc runs,
    # about 28 CPU-s of the suite (issue 34).  What is left to check here is that the harness's builds
    # are the ones the front-matter asks for.
    from test_compile import CASES

    compiled = {(case.values[0], case.values[2], case.values[4]) for case in CASES}
    wanted = set(_compile_cases())
    assert {slug for slug, _, _ in wanted} == set(SLUGS)
    assert not wanted - compiled, f"builds the front-matter asks for that the compile test does not compile: " \
                                  f"{sorted(wanted - compiled)}"


# -- bench/tensor_peer.py: the pure parts (no torch, no GPU) ------------------------------------

def _peer():
    path = Path(__file__).resolve().parent.parent / "bench" / "tensor_peer.py"
    spec = importlib.util.spec_from_file_location("tensor_peer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tensor_peer_flops_and_the_harness_columns(tmp_path):
    peer = _peer()
    assert peer.tflops(1024, 1.0) == pytest.approx(2 * 1024 ** 3 / 1e-3 / 1e12)
    results = tmp_path / "r.json"
    results.write_text(json.dumps({"sizes": [
        {"params": {"m": 1024, "n": 1024, "k": 1024}, "elements": 1024 * 1024,
         "variants": {"fma": {"flops_per_elem": 2048.0, "stats": {"mean": 0.5}},
                      "wmma_f16": {"flops_per_elem": 2048.0, "stats": {"mean": 0.05}}}}]}))
    got = peer.harness_tflops(results)
    assert got[(1024, "fma")] == pytest.approx(peer.tflops(1024, 0.5))
    assert got[(1024, "wmma_f16")] == pytest.approx(peer.tflops(1024, 0.05))
    assert peer.harness_tflops(tmp_path / "absent.json") == {}
    table = peer.render([{"size": 1024, "fp16": 1.0, "bf16": 2.0, "fp32": 3.0}], got)
    assert "harness wmma_f16" in table and "harness fma" in table and table.splitlines()[-1].split()[0] == "1024"


def test_tensor_peer_skips_cleanly_without_a_gpu():
    path = Path(__file__).resolve().parent.parent / "bench" / "tensor_peer.py"
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a CUDA device is present: the peer would run for real")
    except ImportError:
        pass
    done = subprocess.run([sys.executable, str(path), "--sizes", "64", "--runs", "1"], capture_output=True, text=True)
    assert done.returncode == 0 and "GPU node" in done.stderr


# -- predictions that come from the compiler's own report (nvcc 13.0) ---------------------------

def _ptxas_report(source: Path, arch: str, flags: list[str]) -> dict[str, int]:
    """ptxas's report of the entry's source, compiled in the sandbox: an entry's code is compiled nowhere else."""
    from measure.sandbox import nvcc as sandbox_nvcc

    text = sandbox_nvcc.compile_source(source.parent, source.name, arch, ["-std=c++17", "-O3", *flags, "-Xptxas", "-v"],
                                       nvcc=shutil.which("nvcc")).log
    found = {key: int(m.group(1)) for key, pat in (("registers", r"Used (\d+) registers"),
                                                    ("spill_st", r"(\d+) bytes spill stores"),
                                                    ("spill_ld", r"(\d+) bytes spill loads"),
                                                    ("stack", r"(\d+) bytes stack frame"))
             if (m := re.search(pat, text))}
    return found


def _nvcc_13_0() -> bool:
    if shutil.which("nvcc") is None:
        return False
    return "release 13.0" in subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout


@pytest.mark.skipif(not _nvcc_13_0(), reason="the predictions are nvcc 13.0's spill and register counts")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_spill_predictions_are_the_compilers_spill_bytes_per_element(arch):
    m = front_matter("register-spilling")["measure"]
    ref = reference_of("register-spilling")
    predict = {metric["name"]: metric["predict"] for metric in m["metrics"]}
    for regs in m["variants"][0]["sweep"]["regs"]:
        report = _ptxas_report(ENTRIES / "register-spilling" / "rotate.cu", arch, [f"-maxrregcount={regs}"])
        name = f"spill[regs={regs}]"
        assert predict["local_ld"][name] == pytest.approx(report["spill_ld"] / ref.N)
        assert predict["local_st"][name] == pytest.approx(report["spill_st"] / ref.N)
        assert report["registers"] <= regs


@pytest.mark.skipif(not _nvcc_13_0(), reason="the predictions are nvcc 13.0's register counts")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_occupancy_ballast_raises_registers_without_spilling(arch):
    metric = front_matter("occupancy")["measure"]["metrics"][0]
    for ballast in (0, 32, 64, 128):
        report = _ptxas_report(ENTRIES / "occupancy" / "scale.cu", arch, [f"-DBALLAST={ballast}"])
        assert report["spill_ld"] == report["spill_st"] == 0 and report["stack"] == 0
        warps = _resident_blocks(report["registers"], 256) * 8
        assert metric["predict"][f"by_regs[ballast={ballast}]"] == pytest.approx(100 * warps / 64)
