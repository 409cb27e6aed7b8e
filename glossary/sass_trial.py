"""`glossary check`'s reading of the compiled code, where the CUDA toolkit's cuobjdump is here.

For an entry with claims of kind sass, every source is compiled in the sandbox for each arch the
spec claims (with each variant's own options), disassembled by ``cuobjdump -sass`` in the sandbox,
and every sass claim judged as the node will judge it (``glossary.verdicts.sass_claims``).  A claim
that fails on an arch it is about, without a declared expected failure, is an error naming the
claim.  Where cuobjdump is not here (a CPU machine without the toolkit) nothing is judged: the
claim is "not checked here", and the node's result decides it.
"""

from __future__ import annotations

from types import SimpleNamespace

from glossary.entries.model import Entry
from glossary.verdicts.claim_kinds import expand
from glossary.verdicts.claims import describe
from glossary.verdicts.sass_claims import judge_sass
from measure import sandbox, sass
from measure.harness import compile as nvcc
from measure.sandbox.sass import DisassemblyFailed, disassemble, find_cuobjdump
from measure.spec.limits import NOMINAL_DEVICE


def sass_findings(entry: Entry) -> list[tuple[str, str]]:
    """(key, message) for each sass claim that fails on an arch it is about; [] where nothing can
    be judged here (no sass claims, no nvcc or no cuobjdump)."""
    spec = entry.meta.measure
    written = [(ci, c) for ci, c in enumerate(spec.claims) if c.kind == "sass"] if spec else []
    exe, tool = nvcc.find_nvcc(), find_cuobjdump()
    if not written or exe is None or tool is None:
        return []
    options = nvcc.module_options(spec, NOMINAL_DEVICE)
    out = []
    for arch in spec.archs:
        variants: dict[str, dict[str, dict[str, int]]] = {}
        for extra in dict.fromkeys(options.values()):
            functions: dict[str, dict[str, int]] = {}
            for index, rel in enumerate(spec.sources):
                try:
                    built = sandbox.compile_source(entry.folder, rel, arch, [*spec.nvcc_flags, *extra], nvcc=exe,
                                                   covered=set(entry.kernel_files))
                    functions.update(sass.parse_sass(disassemble(built.cubin, cuobjdump=tool)))
                except (sandbox.CompileFailed, sandbox.SandboxUnavailable, DisassemblyFailed, sass.SassError) as err:
                    return [(f"measure.sources[{index}]", f"{rel} could not be compiled and disassembled for {arch} "
                                                          f"to check the sass claims: {err}")]
            for v in spec.measured_variants:
                if options[v.name] == extra:
                    wanted = {s.kernel for s in v.launches if s.kernel}
                    variants[v.name] = {k: functions.get(k, {}) for k in sorted(wanted)}
        record = SimpleNamespace(unavailable=None, variants=variants, arch=arch, tool="cuobjdump here")
        for ci, claim in written:
            if claim.applies_to(None, arch) is not None and claim.archs is not None:
                continue  # about other archs
            for one in expand(claim, spec):
                status, numbers = judge_sass(one, record)
                if status == "fails" and not claim.expected_failure:
                    out.append((f"measure.claims[{ci}]", f"fails for {arch}: {describe(one, spec)} ({numbers})"))
    return out
