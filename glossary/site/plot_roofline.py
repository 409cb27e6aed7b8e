"""The roofline panel of ``glossary.site.plots``: the roof from the copy floor and a compute
ceiling that is not the kernel under study (a peer measured in the same run, or a cited peak), in
TFLOP/s against FLOP per byte, log-log (pure)."""

from __future__ import annotations

from glossary.figures import fmt
from glossary.figures.views import DeviceView
from glossary.site import svgplot
from glossary.site.plot_axes import FLOOR_COLOR, L2_COLOR, PALETTE, display_name
from glossary.site.plot_axes import line as _line


def panel(view: DeviceView) -> svgplot.Panel:
    """Log-log, in TFLOP/s: the roof min(bandwidth x intensity, compute ceiling), each variant's
    point, the ridge.  The ceiling's label says where it comes from (a peer measured in the same
    run, or a cited peak); the y axis spans the roof from the left edge to the ceiling.

    Points are numbered, and the legend under the panel names each number: sixteen variants
    cannot each have a colour of their own."""
    size = view.headline
    roof = size.roofline
    rows = [r for r in size.rows if r.intensity is not None and r.gflops is not None]
    xs = [r.intensity for r in rows]
    lo, hi = min(xs + [roof.ridge]) / 2, max(xs + [roof.ridge]) * 2
    ys = [r.gflops / 1000 for r in rows] + [roof.roof(lo) / 1000, roof.compute_gflops / 1000]
    ceiling = "peer" if roof.source == "peer" else "cited peak"
    panel = svgplot.Panel(width=svgplot.PANEL_WIDTH, title=f"Roofline at {size.label}",
                          xlabel="arithmetic intensity (FLOP/byte)", ylabel="TFLOP/s",
                          xscale=svgplot.Scale(log=True, base=2), yscale=svgplot.Scale(log=True), grid="xy",
                          ylim=(min(ys) / 1.5, max(ys) * 1.5),
                          legend=())  # always under the axes: a legend of every variant covers the points
    # two straight pieces in log-log: the bandwidth slope up to the ridge, then flat
    panel.series.append(_line([(x, roof.roof(x) / 1000) for x in (lo, roof.ridge, hi)], FLOOR_COLOR,
                              f"roof (copy floor; {ceiling})",
                              title=f"roof: {fmt.rate(roof.bandwidth_gbps)} (the copy floor) up to "
                                    f"{fmt.flops(roof.compute_gflops)} ({roof.compute_text})"))
    # Points only: variants at the same intensity (scalar and 16-byte, one chain and several)
    # would make a line through them in spec order zigzag.
    numbered = len(rows) > 1
    for i, r in enumerate(rows):
        name = display_name(r)
        key = f"{i + 1}: {name}" if numbered else name
        title = (f"{r.display}: {fmt.duration(r.ms)}, {fmt.flops(r.gflops)} at "
                 f"{fmt.significant(r.intensity, 3)} FLOP/B ({fmt.percent(roof.fraction(r))} of the roof)")
        panel.series.append(_line([(r.intensity, r.gflops / 1000)], PALETTE[i % len(PALETTE)], key, marker="o",
                                  dash="none", marker_size=5, titles=[title]))
        if numbered:
            # alternate sides, so two points at one intensity and nearly one rate keep their numbers apart
            left = i % 2 == 1
            panel.labels.append(svgplot.Label(x=r.intensity, y=r.gflops / 1000, text=str(i + 1),
                                              anchor="end" if left else "start", dx=-6 if left else 6, dy=-4,
                                              bold=True, avoid=True, color=PALETTE[i % len(PALETTE)]))
    ridge = f"{fmt.significant(roof.ridge, 3)} FLOP/B"
    panel.refs.append(svgplot.RefLine(roof.ridge, at_x=True, color=L2_COLOR, dash=":", width=1.4,
                                      label=f"ridge {ridge}"))
    return panel
