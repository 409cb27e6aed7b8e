#!/usr/bin/env bash
# The verification node's run at the end of a change, in one call, into $1 (6 files, 7 with NODE_TESTS;
# the device returns at most 8, and results must leave in the call that made them):
#   node.allowed_signers  a fresh node key's public line (its private half stays on the machine)
#   measure.log           the GPU, then `glossary measure` of what is stale or missing (SLUGS first)
#   build.log             a real `mkdocs build` with GLOSSARY_MEASURE=always: it must measure nothing
#   check.log             `glossary check` of the entries measured
#   results.tgz           every entry's results/*.json
#   pytest-gpu.log        `pytest -m gpu`, the whole GPU suite
#   pytest-node.log       with NODE_TESTS="tests/a.py tests/b.py": those CPU tests too, on the node's
#                         own Python, bubblewrap and nvcc (a change to the sandbox or the build's pools)
# Usage (on the GPU machine, with pycuda, mkdocs, bwrap and this project importable):
#     bash scripts/node-final.sh OUT_DIR [SLUG...]   (MEASURE_ARGS=--all re-measures SLUGs that are current)
set -uo pipefail
out=${1:?out dir}; shift
mkdir -p "$out"
export PYTHONUNBUFFERED=1 NO_MKDOCS_2_WARNING=1 COLUMNS=160
export PATH="$PATH:$(dirname "$(readlink -f /usr/local/cuda/bin/nvcc)")"   # cuobjdump for sass claims
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr "A-Z" "a-z" | grep -oE "[a-z][0-9]+" | head -1)
python3 -m glossary.cli node init --name "nvidia-${gpu:-gpu}-node-$(date -u +%Y-%m-%d-%H%M)" > "$out/node.allowed_signers" 2>&1
{ nvidia-smi --query-gpu=name,driver_version --format=csv; date -u; } > "$out/measure.log" 2>&1
timeout "${MEASURE_TIMEOUT:-240}" python3 -m glossary.cli measure ${MEASURE_ARGS:-} --deadline "${DEADLINE:-120}" "$@" >> "$out/measure.log" 2>&1
echo "measure exit $?" >> "$out/measure.log"
GLOSSARY_MEASURE=always timeout 90 python3 -m mkdocs build > "$out/build.log" 2>&1
echo "build exit $?" >> "$out/build.log"
timeout 60 python3 -m glossary.cli check "$@" > "$out/check.log" 2>&1
tar czf "$out/results.tgz" entries/*/results/*.json
timeout "${TEST_TIMEOUT:-220}" python3 -m pytest -m gpu -q -p no:cacheprovider -rs tests > "$out/pytest-gpu.log" 2>&1
if [ -n "${NODE_TESTS:-}" ]; then
    # shellcheck disable=SC2086 -- a list of test files, split on spaces
    timeout "${NODE_TESTS_TIMEOUT:-150}" python3 -m pytest -q -p no:cacheprovider -rs $NODE_TESTS > "$out/pytest-node.log" 2>&1
    tail -3 "$out/pytest-node.log"
fi
tail -15 "$out/pytest-gpu.log"; grep -E "recorded|failed|measure exit" "$out/measure.log" | tail -12
