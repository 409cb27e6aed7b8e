#!/usr/bin/env bash
# The node's evidence that author code runs sandboxed (issue 28), in one go, into $1 (8 files at most):
# a fresh node key; every real entry measured under it; a build that must measure nothing; the
# hostile set beside a real entry in one `glossary measure --all` on one GPU, the key looked for
# everywhere; the sandbox's cost per entry; the GPU tests of the sandbox and the faults.
# Exactly 8 files: the device returns at most 8 from $OUT (a ninth is dropped, silently but for a
# note), and the results must leave in this same call: the next call copies the working tree over
# the node's tracked files, results included.
#
# Usage (on the GPU machine, with pycuda, mkdocs, bwrap and this project importable):
#     bash scripts/sandbox-evidence.sh OUT_DIR
set -uo pipefail
out=${1:-sandbox-out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 NO_MKDOCS_2_WARNING=1
name="nvidia-h200-node-$(date -u +%Y-%m-%d-%H%M)"
python3 -m glossary.cli node init --name "$name" > "$out/node.allowed_signers" 2>&1
{ nvidia-smi --query-gpu=name,driver_version --format=csv; date -u; } > "$out/measure-all.log" 2>&1
timeout 330 python3 -m glossary.cli measure --all >> "$out/measure-all.log" 2>&1
GLOSSARY_MEASURE=always timeout 90 python3 -m mkdocs build > "$out/build.log" 2>&1
tar czf "$out/results.tgz" entries/*/results/*.json
GLOSSARY_REFERENCE_TIMEOUT=15 timeout 130 python3 -m bench.hostile_node "$out/hn" --real kernel-fusion \
    > "$out/hostile.txt" 2>&1
tar czf "$out/hostile.tgz" -C "$out" hn && rm -rf "$out/hn"
timeout 50 python3 -m bench.sandbox_cost kernel-fusion --repeats 3 > "$out/cost.txt" 2>&1
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_sandbox_gpu.py tests/test_faults_gpu.py \
    > "$out/pytest-gpu.log" 2>&1
tail -3 "$out/pytest-gpu.log"
