"""Time `mkdocs build` over synthetic glossaries: the glossary against plain Material.

    python3 bench/build_cost.py [--sizes 100,1000] [--repeat 3] [--work DIR] [--markdown OUT.md]

For every N it writes N synthetic entries (bench/gen_entries.py) and times, each as
a fresh `mkdocs build` subprocess (wall time of the whole command, start-up included):

    glossary, cold      the hook's build with an empty plot cache and no compiled templates (one run: it is the costly one)
    plain, in nav       the same pages as plain Markdown under plain Material, every page in the nav
    plain, out of nav   the same plain pages with only the home page in the nav
    glossary, rebuild   the glossary again with nothing changed: plots come from the cache

Cheap builds are repeated and the best run is taken (--repeat, only while a run takes
under CHEAP_S seconds).  Measuring stays off throughout (GLOSSARY_MEASURE=never and
`measure: never` in the synthetic mkdocs.yml), so no build here touches a GPU.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "bench"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import gen_entries  # noqa: E402  (bench/ is this script's own folder)

CHEAP_S = 30.0
GOAL_VS_OUT_OF_NAV = 1.5
GOAL_VS_IN_NAV = 0.25
_PLOTS = re.compile(r"plots: (\d+) drawn, (\d+) from the cache")


@dataclass
class Timing:
    n: int
    build: str
    seconds: float
    runs: int
    plots_drawn: int | None = None
    plots_cached: int | None = None


def build_env(user_cache: Path | None = None) -> dict[str, str]:
    """The environment of every timed build: this checkout's packages, measuring off, and the user's
    cache (compiled templates: glossary.site.bytecode) in ``user_cache`` where given."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", GLOSSARY_MEASURE="never")
    if user_cache is not None:
        env["XDG_CACHE_HOME"] = str(user_cache)
    env.pop("GLOSSARY_PREVIEW", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def run_build(project: Path, user_cache: Path | None = None) -> tuple[float, str]:
    """One `mkdocs build` in ``project``: (wall seconds, its log); raises on failure."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=project, env=build_env(user_cache),
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"mkdocs build failed in {project}:\n{done.stderr[-3000:]}")
    if re.search(r"\bmeasuring \S+ on\b", done.stderr):
        raise RuntimeError(f"{project}: the build measured something; the benchmark must never touch a GPU")
    return seconds, done.stderr


def timed(n: int, name: str, project: Path, repeat: int, user_cache: Path | None = None) -> Timing:
    """Best of up to ``repeat`` runs; a run slower than CHEAP_S is not repeated."""
    best, log, runs = float("inf"), "", 0
    while runs < max(1, repeat):
        seconds, text = run_build(project, user_cache)
        runs += 1
        if seconds < best:
            best, log = seconds, text
        if seconds >= CHEAP_S:
            break
    found = _PLOTS.search(log)
    drawn, cached = (int(found.group(1)), int(found.group(2))) if found else (None, None)
    print(f"  N={n:<5} {name:<20} {best:8.2f} s  ({runs} run{'s' if runs != 1 else ''})"
          + (f"  plots drawn {drawn}, from cache {cached}" if found else ""), flush=True)
    return Timing(n, name, best, runs, drawn, cached)


def measure(n: int, work: Path, repeat: int) -> list[Timing]:
    """All four builds for one N."""
    print(f"N={n}: writing synthetic entries ...", flush=True)
    glossary = gen_entries.write_glossary(work / f"n{n}" / "glossary", n)
    shutil.rmtree(glossary / ".cache", ignore_errors=True)
    user_cache = work / f"n{n}" / "user-cache"  # cold: no compiled templates either
    shutil.rmtree(user_cache, ignore_errors=True)
    out = [timed(n, "glossary, cold", glossary, 1, user_cache)]
    plain_nav = gen_entries.write_plain(glossary, work / f"n{n}" / "plain-nav", in_nav=True)
    plain_nonav = gen_entries.write_plain(glossary, work / f"n{n}" / "plain-nonav", in_nav=False)
    out.append(timed(n, "plain, in nav", plain_nav, repeat))
    out.append(timed(n, "plain, out of nav", plain_nonav, repeat))
    out.append(timed(n, "glossary, rebuild", glossary, repeat, user_cache))
    return out


def zensical_times(n: int, work: Path) -> tuple[float, float, float] | None:
    """(glossary render, zensical build of the render, zensical build of the plain pages out of nav)
    at ``n``, in seconds: the second builder (issue 30) beside plain Zensical on the same pages."""
    exe = shutil.which("zensical") or str(Path(sys.executable).parent / "zensical")
    if not Path(exe).is_file():
        print("  zensical is not installed: its row is left out", flush=True)
        return None
    glossary, plain = work / f"n{n}" / "glossary", work / f"n{n}" / "plain-nonav"
    rendered = work / f"n{n}" / "glossary-render"
    shutil.rmtree(rendered, ignore_errors=True)
    shutil.copytree(glossary, rendered, ignore=shutil.ignore_patterns("site", ".cache"))
    config = yaml.safe_load((rendered / "mkdocs.yml").read_text(encoding="utf-8"))
    config["docs_dir"] = "build/docs"
    config.setdefault("extra", {}).setdefault("glossary", {})["entries"] = "entries"
    (rendered / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (rendered / "build" / "docs").mkdir(parents=True, exist_ok=True)

    def run(cmd: list[str], cwd: Path) -> float:
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, env=build_env(), capture_output=True, text=True)
        if done.returncode not in (0, 1):  # glossary render exits 1 for refused entries
            raise RuntimeError(f"{' '.join(cmd)} failed in {cwd}:\n{(done.stdout + done.stderr)[-3000:]}")
        return time.perf_counter() - start

    render_s = run([sys.executable, "-m", "glossary.cli", "--entries", str(rendered / "entries"), "render"], rendered)
    built_s = run([exe, "build"], rendered)
    plain_s = run([exe, "build"], plain)
    print(f"  N={n:<5} glossary render {render_s:.2f} s + zensical build {built_s:.2f} s = "
          f"{render_s + built_s:.2f} s; plain zensical out of nav {plain_s:.2f} s: "
          f"{(render_s + built_s) / plain_s:.2f}x", flush=True)
    return render_s, built_s, plain_s


def machine() -> str:
    """CPU model, cores and software versions, for the record."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import jinja2
    import mkdocs
    import yaml
    from importlib.metadata import version

    return (f"{model}, {len(os.sched_getaffinity(0))} cores (nproc), Python {platform.python_version()}, "
            f"MkDocs {mkdocs.__version__}, Material {version('mkdocs-material')}, "
            f"Jinja2 {jinja2.__version__}, PyYAML {yaml.__version__} (libyaml: {yaml.__with_libyaml__})")


def ratios(timings: list[Timing], n: int, build: str) -> tuple[float, float]:
    """(glossary build / plain out of nav, glossary build / plain in nav) at N."""
    by = {t.build: t.seconds for t in timings if t.n == n}
    return by[build] / by["plain, out of nav"], by[build] / by["plain, in nav"]


def markdown(timings: list[Timing], command: str, when: str) -> str:
    """The results as a Markdown table with the goals checked."""
    lines = [
        f"Command: `{command}`  ",
        f"Machine: {machine()}  ",
        f"Date: {when}",
        "",
        "| N | build | wall s | runs (best taken) | × plain out of nav | × plain in nav | plots drawn / from cache |",
        "|--:|:--|--:|--:|--:|--:|:--|",
    ]
    for t in timings:
        if t.build.startswith("glossary"):
            out_nav, in_nav = ratios(timings, t.n, t.build)
            rel = f"{out_nav:.2f} | {in_nav:.2f}"
        else:
            rel = "– | –"
        plots = f"{t.plots_drawn} / {t.plots_cached}" if t.plots_drawn is not None else "–"
        lines.append(f"| {t.n:,} | {t.build} | {t.seconds:.2f} | {t.runs} | {rel} | {plots} |")
    lines += ["", f"Goals at the largest N (glossary ≤ {GOAL_VS_OUT_OF_NAV}× plain out of nav, "
                  f"≤ {GOAL_VS_IN_NAV}× plain in nav; the rebuild draws no plot):", ""]
    top = max(t.n for t in timings)
    for build in ("glossary, cold", "glossary, rebuild"):
        out_nav, in_nav = ratios(timings, top, build)
        lines.append(f"- {build}: {out_nav:.2f}× out of nav ({_verdict(out_nav <= GOAL_VS_OUT_OF_NAV)}), "
                     f"{in_nav:.2f}× in nav ({_verdict(in_nav <= GOAL_VS_IN_NAV)})")
    rebuilds = [t for t in timings if t.build == "glossary, rebuild"]
    drew = all(t.plots_drawn == 0 for t in rebuilds)
    lines.append(f"- rebuild with nothing changed draws no plot: {_verdict(drew)}")
    return "\n".join(lines) + "\n"


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sizes", default="100,1000", help="comma-separated N values (default 100,1000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of a cheap build; the best is taken (default 3)")
    ap.add_argument("--work", type=Path, help="where the synthetic projects go (default: a temporary folder)")
    ap.add_argument("--markdown", type=Path, help="also write the table as Markdown to this file")
    opts = ap.parse_args(argv)
    try:
        sizes = [int(v) for v in opts.sizes.split(",") if v.strip()]
    except ValueError:
        ap.error(f"--sizes: expected comma-separated whole numbers, found {opts.sizes!r}")
    if not sizes or min(sizes) < 1:
        ap.error("--sizes: every N must be at least 1")
    work = opts.work or Path(tempfile.mkdtemp(prefix="glossary-build-cost-"))
    when = dt.datetime.now().astimezone().isoformat(timespec="minutes")
    timings: list[Timing] = []
    zensical = {}
    for n in sizes:
        timings += measure(n, work, opts.repeat)
        zensical[n] = zensical_times(n, work)
    command = "python3 bench/build_cost.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = markdown(timings, command.strip(), when)
    rows = [(n, z) for n, z in zensical.items() if z]
    if rows:
        text += ("\n\n| N | glossary render | zensical build of it | together | plain zensical, out of nav | "
                 "× plain zensical |\n|---|---|---|---|---|---|\n")
        text += "\n".join(f"| {n:,} | {r:.2f} s | {b:.2f} s | {r + b:.2f} s | {p:.2f} s | {(r + b) / p:.2f}× |"
                           for n, (r, b, p) in rows)
    print("\n" + text)
    if opts.markdown:
        opts.markdown.write_text(text, encoding="utf-8")
    print(f"projects left in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
