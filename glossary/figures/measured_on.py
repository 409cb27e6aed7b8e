"""The "Measured on" paragraph's words (issue 32, item 8): the clocks as a reader checks them, and
the accuracy check in words a reader can verify (pure).

The accuracy check the harness applies to every output element is
``|got - ref| <= atol + rtol * |ref|`` against a float64 reference (``measure.harness.check``):
relative and absolute tolerance combine, so near a zero reference the relative error alone can be
large (tensor-cores records 200.9) while the element is well inside its allowance (4.1% of it).
The page says the check, the tolerances each output was held to and how much of the allowance the
worst element used; never the relative error alone.
"""

from __future__ import annotations

from glossary.figures import fmt


def clocks_text(env) -> str:
    """'SM clock 1980 MHz before and after timing (its maximum 1980 MHz), memory clock 3201 MHz'; the
    template adds whether they were throttled, in bold where they were (pure)."""
    c = env.clocks
    parts = []
    if c is not None and c.sm_mhz_after is not None:
        before = c.sm_mhz_before
        when = "before and after timing" if before in (None, c.sm_mhz_after) else \
            f"after timing ({before} MHz before)"
        sm = f"SM clock {c.sm_mhz_after} MHz {when}"
        if c.sm_mhz_max is not None:
            sm += f" (its maximum {c.sm_mhz_max} MHz)"
        parts.append(sm)
    if c is not None and c.memory_mhz is not None:
        parts.append(f"memory clock {c.memory_mhz} MHz")
    return ", ".join(parts) or "clocks not recorded"


def _number(value: float) -> str:
    """A tolerance as the spec writes one: 1e-05 -> '1e-5', 0.001 -> '1e-3', 0.02 -> '2e-2' (pure)."""
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.3g}".split("e") if "e" in f"{value:.3g}" else (None, None)
    if mantissa is None:
        mantissa, exponent = f"{value:.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def tolerances(spec) -> list[tuple[str, float, float]]:
    """(output buffer, rtol, atol) for each output the harness compares, as the spec holds them
    (a buffer's own, else its data type's, else the spec's: ``MeasureSpec.tolerance``)."""
    return [(name, *spec.tolerance(name)) for name, buf in spec.buffers.items() if buf.role == "output"]


def accuracy_text(spec, checks, current: bool) -> str:
    """The accuracy check in words a reader can verify: 'Every output element was within 1e-5
    relative or 1e-6 absolute of a float64 reference (|got − ref| ≤ 1e-6 + 1e-5 × |ref|) before
    timing, at every size; the worst element used 33% of that allowance.'  ``checks`` are the
    sizes' recorded ``SizeCheck`` records (None where a size has none); the tolerances come from
    the spec where the result is ``current`` (the fingerprint covers them), else from the record
    (pure)."""
    checks = [c for c in checks if c is not None]
    if spec is None or not checks:
        return ""
    if current:
        held = tolerances(spec)
    else:
        held = [("output", checks[0].rtol, checks[0].atol)]
    groups: dict[tuple[float, float], list[str]] = {}
    for name, rtol, atol in held:
        groups.setdefault((rtol, atol), []).append(name)
    if len(groups) == 1:
        ((rtol, atol), names), = groups.items()
        which = "Every output element" if len(held) > 1 or not current else f"Every element of the output {names[0]}"
        said = (f"{which} was within {_number(rtol)} relative or {_number(atol)} absolute of a float64 "
                f"reference (|got − ref| ≤ {_number(atol)} + {_number(rtol)} × |ref|)")
    else:
        said = "Every output element was within its tolerance of a float64 reference (|got − ref| ≤ atol + rtol × |ref|: " + \
            "; ".join(f"{', '.join(names)} {_number(r)} relative or {_number(a)} absolute"
                      for (r, a), names in groups.items()) + ")"
    used = max(c.max_tolerance_used for c in checks)
    rel = max(c.max_rel_err for c in checks)
    if used == 0:
        return f"{said} at every size; every element matched the reference exactly."
    text = f"{said} at every size; the worst element used {fmt.percent(used)} of that allowance"
    if rel > max(r for r, _ in groups):
        # the relative error alone looks like a failure; the absolute term is what covers it
        text += (f". The relative error alone reaches {fmt.significant(rel)} where the reference is near "
                 f"zero: there the absolute term is the allowance")
    return text + "."
