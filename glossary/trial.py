"""`glossary check` runs an entry's code the way the node will, without a GPU: in the sandbox.

The reference is started in the sandbox and asked for every measured variant's answer at the
spec's smallest size, on inputs drawn as the harness draws them; an import error, an exception,
a missing output, a wrong shape or dtype, or a run over its time budget is an error naming the
reference.  Where nvcc is on the PATH the sources are compiled in the sandbox for the spec's
first arch, and a launch whose kernel no source defines is named; where cuobjdump is here too,
the sass claims are judged on the compiled code (``glossary.sass_trial``).  This is how an author
without a GPU, and CI, exercise the sandbox.

The compiles (a few at a time, each once: ``glossary.trial_compiles``) run while the reference does;
both may have been started before this module was imported (``glossary.trial_start``); the findings
come in the same order whatever finishes first: the reference's, then the compiles', then the sass
claims' (judged only where nothing else was found).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from glossary.entries.model import Entry
from glossary import trial_compiles
from glossary.trial_start import LIMITS, Started, StartedReference
from measure import sandbox
from measure.harness import compile as nvcc
from measure.harness.check import call_reference, output_names
from measure.harness.errors import MeasurementError
from measure.harness.workspace import FLOOR_STREAM, NP_DTYPES, allocation_bytes, fill_input
from measure.spec.sizes import variant_counts

MAX_TRIAL_BYTES = 256 << 20   # inputs and outputs at the smallest size, for a reference that is not elementwise
TRIAL_ELEMENTS = 4096         # what an elementwise reference is asked


@dataclass(frozen=True)
class Finding:
    key: str
    message: str
    severity: str = "error"


def try_entry(entry: Entry, compile_kernels: bool = True, started: Started | None = None) -> list[Finding]:
    """What running the entry's code in the sandbox found wrong ([] when all is well).  ``started``: the
    trial's sandboxes, begun already (``glossary.trial_start.start``, with the same ``compile_kernels``);
    closed here."""
    try:
        return _try_entry(entry, compile_kernels, started)
    finally:
        if started is not None:
            started.close()


def _try_entry(entry: Entry, compile_kernels: bool, started: Started | None) -> list[Finding]:
    spec = entry.meta.measure
    if spec is None:
        return []
    why = sandbox.problem()
    if why:  # then ``start`` started nothing
        return [Finding("measure", f"the entry's code was not run: {why}")]
    compiles = started.compiles if started is not None else trial_compiles.begin(entry, compile_kernels)
    reference = started.reference if started is not None else None
    if compiles is None:
        return _try_reference(entry, reference) if reference is not None else _try_reference(entry)
    sass = None
    if any(claim.kind == "sass" for claim in spec.claims):  # the claims' judges are imported only for them
        from glossary import sass_trial as sass

    with compiles, ThreadPoolExecutor(1, thread_name_prefix="trial reference") as one:
        answer = (one.submit(_try_reference, entry, reference) if reference is not None
                  else one.submit(_try_reference, entry))
        for job in sass.compiles_wanted(entry) if sass else []:  # begun now too, a few at a time
            compiles.start(*job)
        findings = answer.result() + _try_compile(entry, compiles)
        if not findings and sass:  # the compiled code against the sass claims, where cuobjdump is here
            findings += [Finding(key, message) for key, message in sass.sass_findings(entry, compiles)]
    return findings


def _try_reference(entry: Entry, started: StartedReference | None = None) -> list[Finding]:
    """The reference's findings; ``started``: the reference begun already (else it is started here)."""
    spec = entry.meta.measure
    params = min(spec.sizes, key=lambda p: sum(allocation_bytes(spec, p).values()))
    try:
        sizes = allocation_bytes(spec, params)
    except MeasurementError as err:
        return [Finding("measure.sizes", str(err))]
    counts = {name: n // np.dtype(NP_DTYPES[spec.buffers[name].dtype]).itemsize for name, n in sizes.items()}
    shown = spec.reference
    scale = min(1.0, MAX_TRIAL_BYTES / max(1, sum(sizes.values())))
    inputs = {}
    for stream, (name, buf) in enumerate(spec.buffers.items(), start=FLOOR_STREAM + 1):
        if buf.role == "input":  # the harness's draw; its first elements do not depend on the count drawn
            count = min(counts[name], TRIAL_ELEMENTS) if spec.reference_elementwise else counts[name]
            inputs[name] = fill_input(spec.seed, stream, count, buf.dtype, buf.init)
    outputs = {n: counts[n] for n in output_names(spec)}
    try:
        reference = (started.take() if started is not None
                     else sandbox.SandboxedReference(entry.folder, spec.reference, limits=LIMITS, label=entry.slug))
    except (sandbox.ReferenceFailed, sandbox.SandboxUnavailable) as err:
        return [Finding("measure.reference", f"{shown}: {err}")]
    findings = []
    try:
        asked = set()
        for variant in spec.measured_variants:
            key = (variant.base if reference.reads_variant else None,
                   tuple(variant.point.items()) if reference.reads_point else ())
            if key in asked:
                continue
            asked.add(key)
            stop = None
            if spec.reference_elementwise and inputs:  # an elementwise reference is asked a few thousand elements
                stop = min(TRIAL_ELEMENTS, *(counts[n] for n in inputs))
            want = {n: (stop if stop is not None else c) for n, c in outputs.items()}
            if stop is None:  # outputs sized by the sweep, at this variant's point
                seen = variant_counts(spec, variant, params)
                want = {n: seen[n] for n in outputs if n in seen}
            if scale < 1.0 and stop is None:  # a whole-size reference is asked the smallest size, when small
                findings.append(Finding("measure.reference", f"{shown} was not tried: the smallest size needs "
                                        f"{sum(sizes.values()) >> 20} MiB, over the trial's "
                                        f"{MAX_TRIAL_BYTES >> 20} MiB", "warning"))
                break
            try:
                answer = call_reference(reference, variant.base, inputs, _scalars(spec),
                                        {**params, **variant.point}, want, 0 if stop else None, stop)
            except sandbox.ReferenceFailed as err:
                findings.append(Finding("measure.reference", f"{shown}, variant {variant.name} at "
                                        f"{_label(params)}: {err}"))
                break
            if set(answer) != set(outputs):
                findings.append(Finding("measure.reference", f"{shown} must return {{output name: array}} for "
                                        f"exactly {sorted(outputs)}; it returned {sorted(answer)}"))
                break
    finally:
        reference.close()
    return findings


def _try_compile(entry: Entry, compiles: trial_compiles.Compiles) -> list[Finding]:
    spec = entry.meta.measure
    defined: set[str] = set()
    wanted = sorted({launch.kernel for v in spec.measured_variants for launch in v.launches if launch.kernel})
    for rel, arch, flags in trial_compiles.first_arch(spec):
        try:
            built = compiles.get(rel, arch, flags)
        except (sandbox.CompileFailed, sandbox.SandboxUnavailable) as err:
            extra = flags[len(spec.nvcc_flags):]
            return [Finding(f"measure.sources[{spec.sources.index(rel)}]", f"{rel} does not compile for {arch} in "
                            f"the sandbox{' with ' + ' '.join(extra) if extra else ''}: {err}")]
        defined |= set(wanted) - set(nvcc.cubin_symbols_present(built.cubin, wanted))
    missing = [k for k in wanted if k not in defined]
    return [Finding("measure.variants", f"a launch names kernel {k}, which {', '.join(spec.sources)} do not define "
                                        f"(as extern \"C\" __global__)") for k in missing]


def _scalars(spec) -> dict:
    from measure.harness.correctness import kernel_scalars
    return kernel_scalars(spec)


def _label(params: dict) -> str:
    return ", ".join(f"{k} = {v:,}" for k, v in params.items())
