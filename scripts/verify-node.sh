#!/usr/bin/env bash
# The verification node's routine, in one go: GPU tests, the measuring build, a second
# build that must measure nothing, and a demonstration that a kernel edit re-measures
# exactly the entry it belongs to.  Logs and the recorded results go to $1 (default ./verify-out).
#
# Usage (on the GPU machine, with pycuda, mkdocs and this project importable):
#     bash scripts/verify-node.sh OUT_DIR
set -uo pipefail
out=${1:-verify-out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 NO_MKDOCS_2_WARNING=1
export GLOSSARY_TEST_LOG_DIR="$out"   # the GPU fault tests leave the log a user would see there
root=$(pwd)
log() { printf '\n===== %s =====\n' "$*" | tee -a "$out/verify.log"; }

log "GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1 | tee -a "$out/verify.log"

log "node key: made here, its private half never leaves this machine"
if [ ! -f "${GLOSSARY_NODE_KEY:-$HOME/.config/verified-cuda-glossary/node_ed25519}" ]; then
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr 'A-Z ' 'a-z-')
    python3 -m glossary.cli node init --name "${gpu:-gpu}-node-$(date -u +%Y-%m-%d-%H%M)" > "$out/node.allowed_signers"
fi
cat "$out/node.allowed_signers" 2>/dev/null | tee -a "$out/verify.log"
echo "add that line to trust/nodes.allowed_signers and retire it in the same change (glossary node retire NAME), so the results signed here verify and nothing else it signs does" | tee -a "$out/verify.log"

if [ "${VERIFY_ALL:-0}" = 1 ]; then
    log "re-measure every entry (VERIFY_ALL=1), signed with this node's key"
    python3 -m glossary.cli measure --all 2>&1 | tee "$out/measure-all.log" | tail -n 30 | tee -a "$out/verify.log"
fi

log "GPU tests (pytest -m gpu)"
python3 -m pytest -m gpu -q -p no:cacheprovider 2>&1 | tee "$out/pytest-gpu.log" | tail -n 15 | tee -a "$out/verify.log"

log "build 1: measures what is stale"
GLOSSARY_MEASURE=always python3 -m mkdocs build 2>&1 | tee "$out/build1.log" | grep -v "^INFO    -  Building\|Cleaning" | tee -a "$out/verify.log"

log "build 2: must measure nothing"
GLOSSARY_MEASURE=always python3 -m mkdocs build 2>&1 | tee "$out/build2.log" | grep -i "measur" | tee -a "$out/verify.log"

cp entries/*/results/*.json "$out/" 2>/dev/null

log "demo: a second entry, then an edit to its kernel"
demo=$(mktemp -d)
cp -r "$root"/. "$demo/"
cd "$demo"
rm -rf site
cp entries/kernel-fusion.md entries/fusion-demo.md
mkdir -p entries/fusion-demo && cp entries/kernel-fusion/*.cu entries/kernel-fusion/*.py entries/fusion-demo/
sed -i 's/^title: Kernel fusion/title: Fusion demo/' entries/fusion-demo.md
python3 - <<'PY'
import re, pathlib
p = pathlib.Path("entries/fusion-demo.md")
s = p.read_text()
# Small sizes only: the demo shows which entry re-measures, not new figures.
s = re.sub(r"  sizes:\n(    - .*\n)+", "  sizes:\n    - {n: 4194304}\n    - {n: 16777216}\n", s)
s = s.replace("headline: {n: 67108864}", "headline: {n: 16777216}").replace("counters: true", "counters: false")
s = s.replace("  timing:", "  counters: false\n  timing:", 1)
s = s.replace('fig.on("tesla-t4").gpu()', 'fig.gpu()').replace('fig.on("tesla-t4").speedup', 'fig.speedup')
p.write_text(s)
PY
GLOSSARY_MEASURE=always python3 -m mkdocs build 2>&1 | grep -i "measur" | tee -a "$out/verify.log"
echo "// an edit" >> entries/fusion-demo/chain.cu
log "after editing entries/fusion-demo/chain.cu"
GLOSSARY_MEASURE=always python3 -m mkdocs build 2>&1 | grep -i "measur" | tee -a "$out/verify.log"
cd "$root"
log "done"
