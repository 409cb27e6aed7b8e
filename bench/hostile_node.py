"""On the verification node: hostile entries measured in one `glossary measure --all` beside real ones.

    python -m bench.hostile_node OUT_DIR [--real kernel-fusion,launch-overhead]

Copies the project to a scratch folder, adds one entry per hostile reference in
tests/hostile_code/ (each a small copy of kernel-fusion whose reference.py is the attack, named
so the queue takes them first), makes a node key outside the project, and measures everything
on one GPU (one worker takes them all).  Then it looks for every line of the private key in every
file of the project, the logs and the scratch folders, and writes OUT_DIR/hostile-node.json: per
entry what was recorded (result or failure, and why) and where the key was found (nowhere).  The
kernel-source attacks are refused by the entry model before anything runs; the compile sandbox is
tried on them directly, against the node's real key.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile_code"
SKIP_COPY = {".git", "site", ".whl", ".venv", "__pycache__"}


def make_project(scratch: Path, real: list[str], key: Path) -> tuple[Path, list[str]]:
    project = scratch / "project"
    shutil.copytree(ROOT, project, ignore=lambda d, names: [n for n in names if n == "__pycache__" or
                                                              (Path(d) == ROOT and n in SKIP_COPY)])
    entries = project / "entries"
    for md in entries.glob("*.md"):
        if md.stem not in real and md.name != "index.md":
            md.unlink()
            shutil.rmtree(entries / md.stem, ignore_errors=True)
        else:  # the entries they relate to are not in the project
            md.write_text(re.sub(r"(?m)^related: .*$", "related: []", md.read_text()))
    base = (entries / "kernel-fusion.md").read_text() if "kernel-fusion" in real else \
        (ROOT / "entries" / "kernel-fusion.md").read_text()
    small = re.sub(r"  sizes:\n(    - .*\n)+", "  sizes:\n    - {n: 1048576}\n", base)
    small = small.replace("headline: {n: 67108864}", "headline: {n: 1048576}")
    small = re.sub(r"\n  counters: true", "\n  counters: false", small)
    small = re.sub(r"\n  claims:\n(    .*\n|      .*\n)*", "\n", small)
    small = re.sub(r"(?m)^related: .*$", "related: []", small)
    made = []
    for attack in sorted(HOSTILE.glob("*.py")):
        slug = "a-hostile-" + attack.stem.replace("_", "-")
        folder = entries / slug
        folder.mkdir()
        shutil.copy(ROOT / "entries" / "kernel-fusion" / "chain.cu", folder / "chain.cu")
        code = attack.read_text().replace("SECRET_PATH", str(key)).replace("OUTSIDE_PATH", str(project / "planted"))
        (folder / "reference.py").write_text(code.replace("PORT", "9"))
        (entries / f"{slug}.md").write_text(small.replace("title: Kernel fusion", f"title: Hostile {attack.stem}"))
        made.append(slug)
    return project, made


def secret_lines(key: Path) -> list[str]:
    return [line.strip() for line in key.read_text().splitlines() if len(line.strip()) >= 16 and "-----" not in line]


def find_secret(lines: list[str], *places: Path) -> list[str]:
    hits = []
    for place in places:
        for path in (place.rglob("*") if place.is_dir() else [place]):
            try:
                if path.is_symlink() or not path.is_file() or path.stat().st_size > 64 << 20:
                    continue
                text = path.read_text(errors="replace")
            except OSError:
                continue
            if any(line in text for line in lines):
                hits.append(str(path))
    return hits


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--real", default="kernel-fusion,launch-overhead")
    opts = ap.parse_args()
    opts.out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="hostile-node-"))
    key = scratch / "node-key" / "node_ed25519"
    env = dict(os.environ, GLOSSARY_NODE_KEY=str(key), PYTHONUNBUFFERED="1")
    real = [s for s in opts.real.split(",") if s]
    project, made = make_project(scratch, real, key)
    env["PYTHONPATH"] = os.pathsep.join([str(project), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                        if p and Path(p).resolve() != ROOT]])
    cli = [sys.executable, "-m", "glossary.cli"]
    made_key = subprocess.run([*cli, "node", "init", "--name", "hostile-test-node"], cwd=project, env=env,
                              capture_output=True, text=True)
    if made_key.returncode != 0:
        sys.exit(f"glossary node init failed:\n{made_key.stdout}{made_key.stderr}")
    lines = secret_lines(key)
    started = time.monotonic()
    measured = subprocess.run([*cli, "--entries", str(project / "entries"), "measure", "--all", "--gpus", "1"],
                              cwd=project, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    (opts.out / "hostile-measure.log").write_text(measured.stdout + measured.stderr)
    checked = subprocess.run([*cli, "--entries", str(project / "entries"), "check", *made], cwd=project, env=env,
                             capture_output=True, text=True)
    (opts.out / "hostile-check.log").write_text(checked.stdout + checked.stderr)
    compile_attacks = {}
    from measure import sandbox
    from measure.harness import compile as nvcc
    for cu in sorted(HOSTILE.glob("*.cu")):
        folder = scratch / "cu" / cu.stem
        folder.mkdir(parents=True)
        (folder / "kernel.cu").write_text(cu.read_text().replace("SECRET_PATH", str(key)))
        t0 = time.monotonic()
        try:
            sandbox.compile_source(folder, "kernel.cu", "sm_90", ["-O3"], nvcc=nvcc.find_nvcc())
            compile_attacks[cu.name] = {"outcome": "compiled (!)"}
        except Exception as err:  # noqa: BLE001 -- every outcome is reported
            text = str(err)
            compile_attacks[cu.name] = {"outcome": type(err).__name__, "seconds": round(time.monotonic() - t0, 1),
                                        "message": text[:300], "key_in_message": any(l in text for l in lines)}
    per_entry = {}
    for slug in [*made, *real]:
        for path in sorted((project / "entries" / slug / "results").glob("*.json")):
            data = json.loads(path.read_text())
            failure = data.get("last_failure") or (data if data.get("status") == "failed" or "error" in data else None)
            per_entry[f"{slug}/{path.name}"] = {"status": data.get("status"), "device": data.get("device"),
                                                "failure": (failure or {}).get("error", "")[:400] if failure else None}
        if not any(name.startswith(f"{slug}/") for name in per_entry):
            per_entry[slug] = {"file": None}
    hits = find_secret(lines, project, opts.out, Path("/dev/shm"), Path(tempfile.gettempdir()) / "planted.txt")
    hits = [h for h in hits if not h.startswith(str(key.parent))]
    text_hits = [name for name, text in (("measure", measured.stdout + measured.stderr),
                                         ("check", checked.stdout + checked.stderr)) if any(l in text for l in lines)]
    summary = {"measure_exit": measured.returncode, "check_exit": checked.returncode, "seconds": round(seconds, 1),
               "entries": per_entry, "compile_attacks": compile_attacks, "key_found_in_files": hits,
               "key_found_in_output": text_hits, "key_lines_searched": len(lines),
               "real_results": {slug: _numbers(project / "entries" / slug / "results") for slug in real}}
    (opts.out / "hostile-node.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps({k: v for k, v in summary.items() if k != "real_results"}, indent=2))
    shutil.rmtree(scratch, ignore_errors=True)
    return 0 if not hits and not text_hits else 1


def _numbers(folder: Path) -> dict:
    """Each real entry's headline numbers: variant -> median ms at each size."""
    out = {}
    for path in folder.glob("*.json"):
        data = json.loads(path.read_text())
        for size in data.get("sizes", []):
            label = ",".join(f"{k}={v}" for k, v in size["params"].items())
            for name, v in size.get("variants", {}).items():
                out[f"{path.stem} {label} {name}"] = (v.get("stats") or {}).get("median")
    return out


if __name__ == "__main__":
    sys.exit(main())
