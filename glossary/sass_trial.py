"""`glossary check`'s reading of the compiled code, where the CUDA toolkit's cuobjdump is here.

For an entry with claims of kind sass, every source is compiled in the sandbox for each arch the
spec claims (with each variant's own options; a compile the trial made already is not made again,
``glossary.trial_compiles``), disassembled by ``cuobjdump -sass`` in the sandbox,
and every sass claim judged as the node will judge it (``glossary.verdicts.sass_claims``).  A claim
that fails on an arch it is about, without a declared expected failure, is an error naming the
claim.  Where cuobjdump is not here (a CPU machine without the toolkit) nothing is judged: the
claim is "not checked here", and the node's result decides it.
"""

from __future__ import annotations

from types import SimpleNamespace

from glossary.entries.model import Entry
from glossary.trial_compiles import Compiles, flag_sets
from glossary.verdicts.claim_kinds import expand
from glossary.verdicts.claims import describe
from glossary.verdicts.sass_claims import judge_sass
from measure import sandbox, sass
from measure.harness import compile as nvcc
from measure.sandbox.sass import DisassemblyFailed, disassemble, find_cuobjdump
from measure.spec.limits import NOMINAL_DEVICE


def compiles_wanted(entry: Entry) -> list[tuple[str, str, list[str]]]:
    """(source, arch, flags) of every compile the sass claims are judged on, in the order judged; []
    where nothing can be judged here (no sass claims, no nvcc or no cuobjdump)."""
    spec = entry.meta.measure
    if spec is None or not any(c.kind == "sass" for c in spec.claims):
        return []
    if nvcc.find_nvcc() is None or find_cuobjdump() is None:
        return []
    return _compiles_of(spec)


def _compiles_of(spec) -> list[tuple[str, str, list[str]]]:
    return [(rel, arch, flags) for arch in spec.archs for flags in flag_sets(spec) for rel in spec.sources]


def sass_findings(entry: Entry, compiles: Compiles | None = None) -> list[tuple[str, str]]:
    """(key, message) for each sass claim that fails on an arch it is about; [] where nothing can
    be judged here (no sass claims, no nvcc or no cuobjdump).  ``compiles``: the trial's, whose
    cubins are used where it made them already (else the compiles are made here)."""
    spec = entry.meta.measure
    written = [(ci, c) for ci, c in enumerate(spec.claims) if c.kind == "sass"] if spec else []
    exe, tool = nvcc.find_nvcc(), find_cuobjdump()
    if not written or exe is None or tool is None:
        return []
    if compiles is None:
        with Compiles(entry, exe) as own:
            return _judged(entry, written, tool, own)
    return _judged(entry, written, tool, compiles)


def _judged(entry: Entry, written: list, tool: str, compiles: Compiles) -> list[tuple[str, str]]:
    spec = entry.meta.measure
    options = nvcc.module_options(spec, NOMINAL_DEVICE)
    for job in _compiles_of(spec):  # all begun at once (a few run at a time), read in order below
        compiles.start(*job)
    out = []
    for arch in spec.archs:
        variants: dict[str, dict[str, dict[str, int]]] = {}
        for extra in dict.fromkeys(options.values()):
            functions: dict[str, dict[str, int]] = {}
            for index, rel in enumerate(spec.sources):
                try:
                    built = compiles.get(rel, arch, [*spec.nvcc_flags, *extra])
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
