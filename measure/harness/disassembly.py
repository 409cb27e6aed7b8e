"""The result's ``sass`` record: each variant's kernels disassembled on the node (``measure.sass``).

Every distinct cubin the harness loaded is read once by ``cuobjdump -sass`` in the sandbox
(``measure.sandbox.sass``) and its text parsed here; a node without cuobjdump, or a disassembly that
fails, records why instead, and a claim of kind sass is then "not checked" (never held).
"""

from __future__ import annotations

import hashlib

from measure import sass, tools
from measure.harness.compile import Built, parse_nvcc_version
from measure.sandbox import SandboxUnavailable
from measure.sandbox.sass import DisassemblyFailed, disassemble, find_cuobjdump


def sass_record(built: Built, arch: str) -> dict:
    """{tool, arch, variants: {variant: {kernel: {mnemonic: count}}}}, or {unavailable: why}."""
    exe = find_cuobjdump()
    if exe is None:
        return {"unavailable": "cuobjdump was not found on the node that measured (set $CUOBJDUMP or put it on PATH)"}
    read: dict[str, dict[str, dict[str, int]]] = {}
    variants: dict[str, dict[str, dict[str, int]]] = {}
    try:
        for variant, kernels in built.cubins.items():
            for kernel, cubin in kernels.items():
                digest = hashlib.sha256(cubin).hexdigest()
                if digest not in read:
                    read[digest] = sass.parse_sass(disassemble(cubin, cuobjdump=exe))
                variants.setdefault(variant, {})[kernel] = dict(sorted(read[digest].get(kernel, {}).items()))
    except (DisassemblyFailed, SandboxUnavailable, sass.SassError) as err:
        return {"unavailable": f"the kernels could not be disassembled: {err}"}
    text = tools.version_output(exe)
    return {"tool": (parse_nvcc_version(text) if text else None) or "cuobjdump", "arch": arch, "variants": variants}
