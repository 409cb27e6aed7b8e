"""Kernel signatures read from the CUDA sources, against the arguments a spec passes (pure, CPU).

pycuda packs each argument as the spec says (a pointer, a float32, an int32 or int64) and the
kernel reads the bytes its signature declares; a mismatch is not an error anywhere, only wrong
numbers (an int64 index read as an int, a float32 scale read as an int).  ``signature_problems``
reads every ``__global__`` function's parameter list from the sources and names each launch
argument whose kind or type does not match, with the key to fix.  A parameter of a type it cannot
place (a template parameter, a macro, a struct) is not judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from measure.spec.model import MeasureSpec

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_KERNEL = re.compile(r"__global__\s+void\s+(?:__launch_bounds__\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*)?"
                     r"([A-Za-z_]\w*)\s*\(")
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "unsigned", "signed", "struct"}
# The C types of a pointee (a buffer's element) and of a scalar, as the spec's data types.
_POINTEE = {"float": "float32", "float2": "float32", "float4": "float32", "double": "float64",
            "double2": "float64", "int": "int32", "int32_t": "int32", "int2": "int32", "int4": "int32",
            "__half": "float16", "half": "float16", "__half2": "float16", "half2": "float16",
            "__nv_bfloat16": "bfloat16", "nv_bfloat16": "bfloat16", "__nv_bfloat162": "bfloat16",
            "int8_t": "int8", "char": "int8", "char4": "int8"}
# CUDA's vector types (float2, int4, uint3, double4, ...) read the element type of their base, and
# the fixed-width integer types theirs; a pointee no spec data type has (short, long long, uint64_t)
# is named as its own type, so a buffer passed to it is a mismatch rather than not judged.
_VECTOR_BASES = {"float": "float32", "double": "float64", "int": "int32", "uint": "int32", "char": "int8",
                 "uchar": "uint8", "short": "int16", "ushort": "int16", "long": "int64", "ulong": "int64",
                 "longlong": "int64", "ulonglong": "int64"}
_POINTEE.update({f"{base}{width}": dtype for base, dtype in _VECTOR_BASES.items() for width in (1, 2, 3, 4)})
_POINTEE.update({"uint32_t": "int32", "int64_t": "int64", "uint64_t": "int64", "long long": "int64",
                 "int16_t": "int16", "uint16_t": "int16", "short": "int16", "uint8_t": "uint8",
                 "__nv_bfloat162": "bfloat16", "nv_bfloat162": "bfloat16", "bool": "bool"})
_SCALAR = {"float": "float32", "double": "float64", "int": "int32", "int32_t": "int32", "uint32_t": "int32",
           "unsigned": "int32", "long long": "int64", "int64_t": "int64", "uint64_t": "int64", "size_t": "int64",
           "ptrdiff_t": "int64", "long": "int64"}


@dataclass(frozen=True)
class Param:
    """One kernel parameter: its text, whether it is a pointer, and its type as a spec data type
    (None where it cannot be placed)."""
    text: str
    pointer: bool
    dtype: str | None


def kernel_signatures(source: str) -> dict[str, list[Param]]:
    """Every non-template ``__global__`` function's parameters in ``source``, by name."""
    text = _COMMENTS.sub(" ", source)
    out: dict[str, list[Param]] = {}
    for match in _KERNEL.finditer(text):
        before = text[max(0, match.start() - 200):match.start()]
        if re.search(r"template\s*<[^;{}]*>\s*(extern\s+\"C\"\s*)?$", before):
            continue
        depth, i = 1, match.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        body = text[match.end():i - 1].strip()
        out[match.group(1)] = [] if body in ("", "void") else [_param(p) for p in _split(body)]
    return out


def _split(body: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += {"<": 1, ">": -1, "(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return [p.strip() for p in parts]


def _param(text: str) -> Param:
    pointer = "*" in text or "[" in text
    words = re.findall(r"[A-Za-z_]\w*", text.split("=")[0])
    if len(words) > 1 and not pointer or pointer and words and text.rstrip().endswith(words[-1]):
        words = words[:-1]  # the parameter's name
    kept = [w for w in words if w not in _QUALIFIERS]
    unsigned = "unsigned" in words
    if pointer:
        name = " ".join(kept)
        return Param(text, True, _POINTEE.get(name) if name != "char" or not unsigned else None)
    name = " ".join(kept) or ("unsigned" if unsigned else "")
    if name == "long" and words.count("long") == 2:
        name = "long long"
    if unsigned and name in ("int", "long long"):
        name = {"int": "uint32_t", "long long": "uint64_t"}[name]
    return Param(text, False, _SCALAR.get(name))


def signature_problems(spec: MeasureSpec, sources: dict[str, str]) -> list[tuple[str, str]]:
    """(key, message) for each launch argument its kernel's signature does not take: a count that
    differs, a buffer where the kernel takes a value (or the reverse), a buffer of another element
    type, a scalar or integer argument of another type (pure)."""
    signatures: dict[str, list[Param]] = {}
    for text in sources.values():
        signatures.update(kernel_signatures(text))
    problems = []
    for vi, variant in enumerate(spec.variants):
        for li, launch in enumerate(variant.launches):
            where = f"measure.variants[{vi}].launches[{li}]"
            params = signatures.get(launch.kernel)
            if params is None:
                continue
            if len(params) != len(launch.args):
                problems.append((f"{where}.args", f"kernel {launch.kernel} declares {len(params)} parameter(s), "
                                                  f"the launch passes {len(launch.args)}"))
                continue
            for ai, (arg, param) in enumerate(zip(launch.args, params)):
                message = _mismatch(spec, arg, param, launch.kernel, ai)
                if message:
                    problems.append((f"{where}.args[{ai}]", message))
    return problems


def _mismatch(spec: MeasureSpec, arg: str, param: Param, kernel: str, index: int) -> str | None:
    declared = f"kernel {kernel} declares parameter {index + 1} as `{param.text}`"
    if arg in spec.buffers:
        if not param.pointer:
            return f"buffer {arg} is passed as a pointer, but {declared}"
        dtype = spec.buffers[arg].dtype
        if param.dtype is not None and param.dtype != dtype:
            return f"buffer {arg} holds {dtype}, but {declared}"
        return None
    if param.pointer:
        return f"{arg!r} is passed as a value, but {declared}, a pointer"
    if arg in spec.scalars:
        kind, _ = spec.scalar(arg)
        if param.dtype is not None and param.dtype != kind:
            hint = {"float32": "write it with a decimal point (4.0)", "int32": "write it as an integer (4)"} \
                .get(param.dtype, f"write it as {{value: ..., type: {param.dtype}}}")
            return f"scalar {arg} is passed as {kind}, but {declared} ({param.dtype}); {hint}"
        return None
    if param.dtype is not None and param.dtype != spec.index_type and param.dtype.startswith("int"):
        return (f"integer argument {arg!r} is passed as measure.index_type {spec.index_type}, but {declared} "
                f"({param.dtype}); set index_type: {param.dtype} or change the kernel")
    if param.dtype is not None and not param.dtype.startswith("int"):
        return f"integer argument {arg!r} is passed as {spec.index_type}, but {declared} ({param.dtype})"
    return None
