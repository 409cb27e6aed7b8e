"""Validation cost: measure.typed.load against pydantic v2 (strict, unknown keys forbidden), side by side.

    PYTHONPATH=$PWD python bench/validation_cost.py [--wheels DIR] [--quick]

Times, in one run and on the same inputs,

  (i)  ``measure.typed.load`` of the committed results files (entries/*/results/*.json), of the
       front-matter of the committed entries, and of the synthetic entries and signed results that
       bench/gen_entries.py writes for the 1,000-entry build benchmark;
  (ii) pydantic v2 models of the same shape, ``ConfigDict(strict=True, extra="forbid", frozen=True,
       allow_inf_nan=False)``, validating the same plain data (``model_validate``), and for results
       files also straight from the file's bytes (``model_validate_json``).

The pydantic models are a full mirror, not a subset: ``pydantic_mirror`` derives one model per
dataclass of ``measure.results.Result`` (21 records) and of ``glossary.entries.model.FrontMatter`` (with
``measure.spec.MeasureSpec``: 10 records), field by field from the dataclasses themselves, so the two
sides cannot drift: same field names, types, defaults and required keys; the numeric bounds of
results.py (``above`` / ``at_least``, every number finite) as pydantic constraints (checked in
pydantic-core); ``max_items`` / ``max_length`` as ``Field(max_length=...)``; ``unique_items`` and the
records' own cross-field rules (``_rules`` / ``validate``: the spec's expression checks, the samples
counts, ...) as after-validators that call the very same Python functions typed.py calls.  Two
deliberate departures from plain strict mode, both to accept what typed.py accepts: a date may be ISO
text or a datetime (strict pydantic takes only a ``datetime.date``), and lists stay lists (typed.py
builds tuples; strict pydantic refuses a list for a tuple field).

It prints microseconds per file for each side and the ratio pydantic / typed, import times, the
dependency's size, three hostile inputs with the message each side gives, and what the difference
comes to over the 1,000-entry cold build (about 43-45 s in BENCHMARKS.md).  Without pydantic it says
so, prints the typed.py figures and exits 0.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import datetime as dt
import difflib
import gc
import json
import math
import os
import re
import subprocess
import sys
import time
import timeit
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, get_args, get_origin

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "bench"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from glossary import model  # noqa: E402
from measure import results, typed  # noqa: E402
from measure.typed import SchemaError, describe  # noqa: E402

try:
    import pydantic
    from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError,
                          model_validator)
except ImportError:  # the typed.py half still runs
    pydantic = None

COLD_BUILD_S = (43.0, 45.0)  # BENCHMARKS.md, N = 1,000, cold (2026-12-01 runs)
N_SYNTHETIC = 1000


# -- the pydantic mirror -----------------------------------------------------------------------


def _date_in(value: Any) -> Any:
    """What typed._convert_date accepts besides a date: a datetime (its day) or ISO text."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            return value  # left for pydantic to refuse
    return value


def _unique(value: list) -> list:
    """typed._check_bounds' unique_items: a repeated item is an error naming its index."""
    first: dict[Any, int] = {}
    for i, item in enumerate(value):
        earlier = first.setdefault(item, i)
        if earlier != i:
            raise SchemaError(f"[{i}]", f"{describe(item)} repeats [{earlier}]; list it once")
    return value


class _Mirror:
    """Pydantic models of the same shape as a tree of typed.py dataclasses."""

    CONFIG = None  # set once pydantic is imported

    def __init__(self) -> None:
        self.models: dict[type, type] = {}
        _Mirror.CONFIG = ConfigDict(strict=True, extra="forbid", frozen=True, allow_inf_nan=False)

    def model(self, cls: type) -> type:
        if cls in self.models:
            return self.models[cls]
        fields, hints = typed._shape(cls)
        annotations: dict[str, Any] = {}
        namespace: dict[str, Any] = {"model_config": _Mirror.CONFIG, "__doc__": cls.__doc__,
                                     "__module__": __name__, "__qualname__": cls.__qualname__}
        for name, f in fields.items():
            annotations[name] = self.annotation(hints[name], f.metadata, top=True)
            kw: dict[str, Any] = {"description": f.metadata.get("doc")}
            if f.default is not dataclasses.MISSING:
                kw["default"] = f.default
            elif f.default_factory is not dataclasses.MISSING:
                factory = f.default_factory
                if dataclasses.is_dataclass(factory):  # MeasureSpec.timing: default_factory=Timing
                    factory = self.model(factory)
                kw["default_factory"] = factory
            namespace[name] = Field(**kw)
        namespace["__annotations__"] = annotations
        # The record's own methods (MeasureSpec._check_values, Variant.useful_bytes ...), so the
        # rules below run unchanged on the pydantic object.
        for name, value in vars(cls).items():
            if not name.startswith("__") and name not in fields and name not in ("validate", "_rules") and \
                    (callable(value) or isinstance(value, property)):
                namespace[name] = value
        rule = cls._rules if issubclass(cls, results._Record) else getattr(cls, "validate", None)
        if rule is not None:  # results' number checks are constraints above; the rest is Python either way
            def after(self, _rule=rule):
                _rule(self)
                return self
            namespace["_typed_rules"] = model_validator(mode="after")(after)
        made = type(cls.__name__, (BaseModel,), namespace)
        self.models[cls] = made
        return made

    def annotation(self, tp: Any, meta: Any, top: bool = False) -> Any:
        """The pydantic annotation of typed.py type ``tp`` with the field's bounds ``meta``."""
        if typed._is_optional(tp):
            return Optional[self.annotation(typed._strip_optional(tp), meta, top)]
        origin = get_origin(tp)
        if dataclasses.is_dataclass(tp):
            return self.model(tp)
        if origin is Literal or tp is bool:
            return tp
        if origin in (list, dict):
            item = self.annotation(get_args(tp)[-1], meta)
            shaped = list[item] if origin is list else dict[str, item]
            extra: list[Any] = []
            if top and meta.get("max_items") is not None:
                extra.append(Field(max_length=meta["max_items"]))
            if top and meta.get("unique_items"):
                extra.append(AfterValidator(_unique))
            return Annotated[tuple([shaped] + extra)] if extra else shaped
        if tp is dt.date:
            return Annotated[dt.date, BeforeValidator(_date_in)]
        if tp is str:
            return Annotated[str, Field(max_length=meta["max_length"])] if meta.get("max_length") else str
        if tp in (int, float):
            bound = meta.get("bound")
            if bound is None:
                return tp
            kind, limit = bound
            return Annotated[tp, Field(gt=limit) if kind == "above" else Field(ge=limit)]
        raise TypeError(f"unsupported field type {tp!r}")


def pydantic_mirror() -> tuple[type, type, int]:
    """(Result, FrontMatter, how many models) as pydantic models; FrontMatter holds the MeasureSpec mirror."""
    mirror = _Mirror()
    return mirror.model(results.Result), mirror.model(model.FrontMatter), len(mirror.models)


# -- messages ----------------------------------------------------------------------------------


def _dotted(loc: tuple) -> str:
    out = ""
    for part in loc:
        out = typed._join(out, part) if isinstance(part, int) else typed._join(out, str(part))
    return out


def _model_at(root: type, loc: tuple) -> type | None:
    """The pydantic model whose key ``loc`` names (for the known keys of an unknown one)."""
    tp: Any = root
    for part in loc:
        while True:  # Optional[...] / Annotated[...] down to the container or model
            if get_origin(tp) is Annotated:
                tp = get_args(tp)[0]
            elif typed._is_optional(tp):
                tp = typed._strip_optional(tp)
            else:
                break
        if isinstance(tp, type) and issubclass(tp, BaseModel) and isinstance(part, str):
            tp = tp.model_fields[part].annotation
        elif get_origin(tp) in (list, dict):
            tp = get_args(tp)[-1]
        else:
            return None
    while get_origin(tp) is Annotated or typed._is_optional(tp):
        tp = get_args(tp)[0] if get_origin(tp) is Annotated else typed._strip_optional(tp)
    return tp if isinstance(tp, type) and issubclass(tp, BaseModel) else None


def pydantic_message(root: type, err: Any, shown: str) -> str:
    """A ValidationError in the project's form (file, dotted key, expected / found, did-you-mean):
    the wrapper a switch would need, since pydantic's own text has none of the last two."""
    errors = err.errors(include_url=False)
    first = errors[0]
    key = _dotted(first["loc"])
    kind = first["type"]
    if kind == "extra_forbidden":
        known = list(_model_at(root, first["loc"][:-1]).model_fields)
        close = difflib.get_close_matches(str(first["loc"][-1]), known, n=1)
        message = f"unknown key (known keys: {', '.join(known)})" + (f"; did you mean '{close[0]}'?" if close else "")
    elif kind == "value_error" and isinstance(first.get("ctx", {}).get("error"), SchemaError):
        inner = first["ctx"]["error"]
        key = key + inner.key if inner.key.startswith("[") else typed._join(key, inner.key) if inner.key else key
        message = inner.message
    elif kind == "missing":
        message = "required key is missing"
    else:
        message = f"{first['msg'][0].lower()}{first['msg'][1:]}, found {describe(first['input'])}"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return (f"{shown}, key '{key}': {message}" if key else f"{shown}: {message}") + more


def typed_message(cls: type, data: Any, shown: str) -> str:
    """What the build says for ``data``: model.EntryError / store.StoreError's form."""
    try:
        typed.load(cls, data)
    except SchemaError as err:
        return f"{shown}, key '{err.key}': {err.message}" if err.key else f"{shown}: {err.message}"
    return f"{shown}: (accepted)"


# -- inputs ------------------------------------------------------------------------------------


@dataclasses.dataclass
class Doc:
    name: str
    kind: Literal["result", "front-matter"]
    data: Any
    raw: bytes | None = None  # the file's JSON bytes, for model_validate_json


def committed() -> list[Doc]:
    docs = []
    for path in sorted((ROOT / "entries").glob("*/results/*.json")):
        raw = path.read_bytes()
        docs.append(Doc(str(path.relative_to(ROOT)), "result", json.loads(raw), raw))
    for path in sorted((ROOT / "entries").glob("*.md")):
        if path.name == "index.md":
            continue
        data, _ = model.split_front_matter(path.read_text(encoding="utf-8"), path)
        docs.append(Doc(str(path.relative_to(ROOT)), "front-matter", data))
    return docs


def synthetic(n: int) -> tuple[list[Any], list[Any], list[bytes]]:
    """The front-matter and signed results bench/gen_entries.py writes for n entries (in memory;
    the results' fingerprint is a stand-in: nothing here is stale-checked)."""
    import gen_entries
    from measure import attest

    node = attest.Signer.generate()
    fronts, res, raws = [], [], []
    for i in range(n):
        data, _ = model.split_front_matter(gen_entries.entry_text(i, n), f"term-{i:04d}.md")
        fronts.append(data)
        r = attest.sign_result(gen_entries.result(i, gen_entries.slug(i), "sha256:" + "0" * 64), node,
                               signed_at=gen_entries.DAY.isoformat())
        raws.append(json.dumps(r).encode())
        res.append(json.loads(raws[-1]))
    return fronts, res, raws


# -- timing ------------------------------------------------------------------------------------


def per_call_us(fn, repeats: int) -> float:
    """Best of ``repeats`` runs of autoranged batches (>= 0.2 s each), GC on as in a build; µs a call."""
    timer = timeit.Timer(fn, setup=gc.enable)
    number, _ = timer.autorange()
    return min(timer.repeat(repeats, number)) / number * 1e6


def _normal(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_normal(v) for v in value]
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    return value


def same_result(cls: type, pcls: type, data: Any) -> bool:
    """Both accept ``data`` and build the same values (tuples and lists aside)."""
    return _normal(dataclasses.asdict(typed.load(cls, data))) == _normal(pcls.model_validate(data).model_dump(warnings=False))


def import_cost(snippet: str, python: str, base: str = "pass", runs: int = 15) -> tuple[float, float]:
    """(best wall ms of ``python -c "base; snippet"`` minus ``python -c base``, -X importtime ms of the
    modules the snippet adds at the top level)."""
    paths = [str(ROOT), str(ROOT / "bench"), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    snippet = f"{base}; {snippet}"

    def wall(code: str) -> float:
        best = math.inf
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run([python, "-c", code], check=True, env=env)
            best = min(best, time.perf_counter() - t)
        return best

    def tops(code: str) -> dict[str, int]:
        err = subprocess.run([python, "-X", "importtime", "-c", code], check=True, env=env,
                             capture_output=True, text=True).stderr
        out = {}
        for line in err.splitlines():
            m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)", line)
            if m and not m.group(3):
                out[m.group(4)] = int(m.group(2))
        return out

    before = tops(base)
    added = sum(us for name, us in tops(snippet).items() if name not in before)
    return (wall(snippet) - wall(base)) * 1e3, added / 1e3


def wheel_sizes(folder: Path) -> list[tuple[str, int]]:
    return [(p.name, p.stat().st_size) for p in sorted(folder.glob("*.whl"))
            if re.match(r"(pydantic|pydantic_core|annotated_types|typing_extensions|typing_inspection)-", p.name)]


def installed_size(dist: str) -> int:
    from importlib import metadata

    total = 0
    for f in metadata.distribution(dist).files or ():
        try:
            total += f.locate().stat().st_size
        except OSError:
            pass
    return total


# -- the hostile inputs ------------------------------------------------------------------------


def hostile(docs: list[Doc]) -> list[tuple[str, type, str, Any]]:
    """(what, typed class, file shown, data) for the three inputs."""
    fm = next(d for d in docs if d.name == "entries/kernel-fusion.md")
    res = next(d for d in docs if d.name == "entries/kernel-fusion/results/nvidia-h200.json")
    typo = copy.deepcopy(fm.data)
    typo["measure"].setdefault("timing", {})["warmup"] = 3  # warmups, two mappings deep
    text = copy.deepcopy(res.data)
    text["sizes"][0]["variants"]["fused"]["bytes_per_elem"] = "12.0"
    nan = copy.deepcopy(res.data)
    nan["sizes"][0]["variants"]["fused"]["stats"]["mean"] = float("nan")
    return [("a misspelt key nested two deep (measure.timing.warmup for warmups)", model.FrontMatter, fm.name, typo),
            ("text where a number belongs (bytes_per_elem: \"12.0\")", results.Result, res.name, text),
            ("a NaN statistic (stats.mean: NaN)", results.Result, res.name, nan)]


def _mutations(docs: list[Doc]) -> list[tuple[str, type, Any]]:
    """More hostile inputs, each a one-key change, to check both sides refuse the same ones."""
    fm = next(d for d in docs if d.name == "entries/kernel-fusion.md").data
    res = next(d for d in docs if d.name == "entries/kernel-fusion/results/nvidia-h200.json").data
    out: list[tuple[str, type, Any]] = []

    def put(what: str, cls: type, base: Any, change) -> None:
        data = copy.deepcopy(base)
        change(data)
        out.append((what, cls, data))

    variant = lambda d: d["sizes"][0]["variants"]["fused"]  # noqa: E731
    put("unknown top-level key", results.Result, res, lambda d: d.update(fingerprnt="x"))
    put("one sample fewer than stats.n", results.Result, res, lambda d: variant(d)["samples_ms"].pop())
    put("a negative sample", results.Result, res, lambda d: variant(d)["samples_ms"].__setitem__(3, -1.0))
    put("true for an integer", results.Result, res, lambda d: d["sizes"][0].__setitem__("elements", True))
    put("required key removed", results.Result, res, lambda d: d["environment"].pop("gpu"))
    put("a value outside a Literal", results.Result, res, lambda d: d.update(status="okay"))
    put("Infinity in a mapping of numbers", results.Result, res,
        lambda d: d["sizes"][0]["sampling"]["median_ci_rel"].__setitem__("fused", float("inf")))
    put("the published statistic missing", results.Result, res, lambda d: variant(d)["stats"].pop("mean"))
    put("a repeated tag", model.FrontMatter, fm, lambda d: d.update(tags=["memory-bound", "memory-bound"]))
    put("13 tags (max_items 12)", model.FrontMatter, fm, lambda d: d.update(tags=[f"t{i}" for i in range(13)]))
    put("a 121-character title", model.FrontMatter, fm, lambda d: d.update(title="x" * 121))
    put("an impossible date (text)", model.FrontMatter, fm, lambda d: d["sources"][0].update(checked="2026-13-45"))
    put("a ratio naming no variant", model.FrontMatter, fm,
        lambda d: d["measure"].update(ratios=[{"num": "nope", "den": "fused"}]))
    put("a grid expression with an unknown name", model.FrontMatter, fm,
        lambda d: d["measure"]["variants"][0]["launches"][0].update(grid=["ceil(m / 256)"]))
    put("an ISO date as text (accepted)", model.FrontMatter, fm, lambda d: d.update(written_on="2026-01-05"))
    return out


def agreement(docs: list[Doc], p_result: type, p_front: type) -> None:
    print("\n== do both refuse the same inputs, under the same key? ==")
    same = 0
    cases = _mutations(docs)
    for what, cls, data in cases:
        pcls = p_result if cls is results.Result else p_front
        t = typed_message(cls, data, "f")
        try:
            pcls.model_validate(data)
            p = "f: (accepted)"
        except ValidationError as err:
            p = pydantic_message(pcls, err, "f")
        key = lambda m: m.split(":", 1)[0]  # noqa: E731  "f, key 'x.y'"
        agree = key(t) == key(p) and ("(accepted)" in t) == ("(accepted)" in p)
        same += agree
        print(f"  {'same key ' if agree else 'DIFFERENT'} {what:40} typed: {t[3:][:90]}")
        if not agree or "(and " in p:
            print(f"  {'':50} pydantic: {p[3:][:90]}")
    print(f"  {same} of {len(cases)} give the same verdict under the same key")


# -- main --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--wheels", type=Path, default=Path("/tmp/pyd"),
                    help="folder of downloaded wheels to size (pip download pydantic pydantic-core ... -d DIR)")
    ap.add_argument("--quick", action="store_true", help="fewer repeats (3 instead of 7), 200 synthetic entries")
    opts = ap.parse_args(argv)
    repeats = 3 if opts.quick else 7
    n_syn = 200 if opts.quick else N_SYNTHETIC
    have = pydantic is not None
    print(f"Python {sys.version.split()[0]} ({sys.executable}); pydantic "
          + (f"{pydantic.VERSION}, pydantic-core {__import__('pydantic_core').__version__}" if have else "NOT INSTALLED in this interpreter: typed.py figures only"))

    print(f"code under test: {Path(typed.__file__).parent.parent} (measure.typed, measure.results, glossary.entries.model)")
    docs = committed()
    t = time.perf_counter()
    fronts, syn_results, syn_raws = synthetic(n_syn)
    print(f"inputs: {len(docs)} committed files; {n_syn} synthetic entries and signed results "
          f"(bench/gen_entries.py) made in {time.perf_counter() - t:.1f} s")

    if have:
        t = time.perf_counter()
        PResult, PFront, count = pydantic_mirror()
        build_ms = (time.perf_counter() - t) * 1e3
        classes = {"result": (results.Result, PResult), "front-matter": (model.FrontMatter, PFront)}
        for d in docs:
            cls, pcls = classes[d.kind]
            assert same_result(cls, pcls, d.data), f"the mirror disagrees with typed.py on {d.name}"
        assert all(same_result(model.FrontMatter, PFront, f) for f in fronts[:20])
        assert all(same_result(results.Result, PResult, r) for r in syn_results[:20])
        print(f"pydantic mirror: {count} models built in {build_ms:.0f} ms "
              f"(class creation, once per process); it accepts every input and builds the same values")
    else:
        classes = {"result": (results.Result, None), "front-matter": (model.FrontMatter, None)}

    # -- per file
    real = {"typed": [], "pydantic": []}  # the committed H200 results: what a measured result weighs
    print("\n== validation cost per file (µs, best of %d; GC on) ==" % repeats)
    head = f"{'file':58} {'KB':>6} {'typed':>9}"
    if have:
        head += f" {'pydantic':>9} {'ratio':>6} {'p.json':>9} {'json+typed':>10}"
    print(head)
    for d in docs:
        cls, pcls = classes[d.kind]
        size = len(d.raw) if d.raw else len(json.dumps(d.data, default=str))
        typed_us = per_call_us(lambda: typed.load(cls, d.data), repeats)
        line = f"{d.name:58} {size / 1024:6.1f} {typed_us:9.0f}"
        measured = d.kind == "result" and d.data.get("provenance") == "measured"
        if measured:
            real["typed"].append(typed_us)
        if have:
            pyd_us = per_call_us(lambda: pcls.model_validate(d.data), repeats)
            if measured:
                real["pydantic"].append(pyd_us)
            line += f" {pyd_us:9.0f} {pyd_us / typed_us:6.2f}"
            if d.raw is not None:
                pj = per_call_us(lambda: pcls.model_validate_json(d.raw), repeats)
                jt = per_call_us(lambda: typed.load(cls, json.loads(d.raw)), repeats)
                line += f" {pj:9.0f} {jt:10.0f}"
        print(line)

    # -- the synthetic build's inputs
    print(f"\n== the synthetic build's inputs: {n_syn} entries (µs per entry, best of {min(repeats, 3)} passes) ==")

    def per_pass(fn, items) -> float:
        best = math.inf
        for _ in range(min(repeats, 3)):
            t = time.perf_counter()
            for x in items:
                fn(x)
            best = min(best, time.perf_counter() - t)
        return best / len(items) * 1e6

    rows = [("front-matter", lambda x: typed.load(model.FrontMatter, x),
             (lambda x: PFront.model_validate(x)) if have else None, fronts),
            ("signed result (json data)", lambda x: typed.load(results.Result, x),
             (lambda x: PResult.model_validate(x)) if have else None, syn_results)]
    per_entry = {"typed": 0.0, "pydantic": 0.0}
    for name, tf, pf, items in rows:
        tu = per_pass(tf, items)
        per_entry["typed"] += tu
        line = f"{name:28} typed {tu:7.0f} µs"
        if have:
            pu = per_pass(pf, items)
            per_entry["pydantic"] += pu
            line += f"   pydantic {pu:7.0f} µs   ratio {pu / tu:5.2f}"
        print(line)
    if have:
        pj = per_pass(lambda b: PResult.model_validate_json(b), syn_raws)
        jt = per_pass(lambda b: typed.load(results.Result, json.loads(b)), syn_raws)
        print(f"{'signed result (from bytes)':28} json.loads+typed {jt:5.0f} µs   model_validate_json {pj:5.0f} µs   "
              f"ratio {pj / jt:5.2f}")

    # -- import time and size
    print("\n== import time (ms; wall: best of 15 fresh interpreters minus `python -c pass`; -X importtime: "
          "cumulative of the modules added) ==")
    build_imports = "import glossary.build, mkdocs.commands.build"
    costs = [("import measure.typed", "import measure.typed", "pass"),
             ("import measure.results, glossary.entries.model (typed models)", "import measure.results, glossary.entries.model",
              "pass")]
    if have:
        costs += [("import pydantic (the lazy package only)", "import pydantic", "pass"),
                  ("from pydantic import BaseModel, ConfigDict, Field", "from pydantic import BaseModel, ConfigDict, Field",
                   "pass"),
                  ("  the same, after the build's own imports (the real extra)",
                   "from pydantic import BaseModel, ConfigDict, Field", build_imports),
                  ("  building the 31 mirror models (pydantic already imported)",
                   "import validation_cost as v; v.pydantic_mirror()", build_imports + "; import validation_cost")]
    for label, snippet, base in costs:
        wall_ms, imp_ms = import_cost(snippet, sys.executable, base)
        print(f"  {label:62} wall {wall_ms:6.1f}   importtime {imp_ms:6.1f}")
    if have:
        print("\n== dependency size ==")
        wheels = wheel_sizes(opts.wheels)
        for name, size in wheels:
            print(f"  wheel {name:80} {size / 1024:7.0f} KB")
        if wheels:
            print(f"  wheels in all: {sum(s for _, s in wheels) / 2**20:.2f} MB")
        else:
            print(f"  (no wheels in {opts.wheels}: `pip download pydantic pydantic-core annotated-types "
                  f"typing-extensions typing-inspection --no-deps -d {opts.wheels}` to size them)")
        total = 0
        for dist in ("pydantic", "pydantic_core", "annotated_types", "typing_extensions", "typing_inspection"):
            size = installed_size(dist)
            total += size
            print(f"  installed {dist:22} {size / 2**20:6.2f} MB")
        print(f"  installed in all: {total / 2**20:.2f} MB (measure/typed.py: "
              f"{(ROOT / 'measure' / 'typed.py').stat().st_size / 1024:.0f} KB, no dependency)")

    # -- messages
    print("\n== three hostile inputs: the messages ==")
    for what, cls, shown, data in hostile(docs):
        print(f"\n-- {what}")
        print(f"typed.py:          {typed_message(cls, data, shown)}")
        if have:
            pcls = PResult if cls is results.Result else PFront
            try:
                pcls.model_validate(data)
                print("pydantic:          (accepted)")
            except ValidationError as err:
                raw = str(err).replace("\n", "\n                   ")
                print(f"pydantic, raw:     {raw}")
                print(f"pydantic, wrapped: {pydantic_message(pcls, err, shown)}")

    if have:
        agreement(docs, PResult, PFront)

    # -- the build
    print(f"\n== effect on the {N_SYNTHETIC:,}-entry cold build ({COLD_BUILD_S[0]:.0f}-{COLD_BUILD_S[1]:.0f} s, "
          f"BENCHMARKS.md) ==")
    typed_s = per_entry["typed"] * N_SYNTHETIC / 1e6
    print(f"  typed.py: {per_entry['typed']:.0f} µs per entry (front-matter + one result) x {N_SYNTHETIC:,} = "
          f"{typed_s:.2f} s, {typed_s / COLD_BUILD_S[1] * 100:.1f}-{typed_s / COLD_BUILD_S[0] * 100:.1f}% of the build")
    if have:
        pyd_s = per_entry["pydantic"] * N_SYNTHETIC / 1e6
        one_off = build_ms / 1e3
        print(f"  pydantic: {per_entry['pydantic']:.0f} µs per entry x {N_SYNTHETIC:,} = {pyd_s:.2f} s, plus "
              f"{one_off:.2f} s building the models once per process (and pydantic's import, above)")
        print(f"  difference: {pyd_s + one_off - typed_s:+.2f} s per cold build "
              f"({(pyd_s + one_off - typed_s) / COLD_BUILD_S[1] * 100:+.1f}% of {COLD_BUILD_S[1]:.0f} s)")
    if real["typed"]:
        # The synthetic results are small (3 sizes x 2 variants x 5 samples); a measured one has 50+ samples
        # per variant and copy region at every size.
        mean_t = sum(real["typed"]) / len(real["typed"])
        line = (f"  with results the size of the {len(real['typed'])} committed measured ones instead "
                f"(mean {mean_t / 1e3:.1f} ms typed")
        if have:
            mean_p = sum(real["pydantic"]) / len(real["pydantic"])
            line += (f", {mean_p / 1e3:.2f} ms pydantic): {N_SYNTHETIC:,} of them cost {mean_t * N_SYNTHETIC / 1e6:.1f} s "
                     f"typed against {mean_p * N_SYNTHETIC / 1e6:.2f} s pydantic")
        else:
            line += f"): {N_SYNTHETIC:,} of them cost {mean_t * N_SYNTHETIC / 1e6:.1f} s"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
