#!/usr/bin/env bash
# On the verification node: GPU tests, then re-measure every entry that has H200 results, one
# `glossary measure --all SLUG` at a time (wall time each), and compare each re-measure with the
# result it replaces (bench/agreement.py).  Logs and results go under $OUT/v; nothing else is kept.
#   bench/node_verify.sh NODE_NAME [SLUG ...]
set -u
name=${1:?node name}; shift
slugs=${*:-$(ls entries/*/results/nvidia-h200.json | cut -d/ -f2)}
export PYTHONPATH=/tmp/site:$PWD NO_MKDOCS_2_WARNING=1 GLOSSARY_NODE_KEY=/tmp/nodekey
test -d /tmp/site/pycuda || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
mkdir -p "$OUT/v/old" "$OUT/v/new"
for s in $slugs; do cp "entries/$s/results/nvidia-h200.json" "$OUT/v/old/$s.json"; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/v/smi.txt"
test -f /tmp/nodekey || python3 -m glossary.cli node init --name "$name" > "$OUT/v/node_init.txt" 2>&1
for s in $slugs; do
  start=$(date +%s.%N)
  python3 -m glossary.cli measure --all "$s" > "$OUT/v/measure_$s.log" 2>&1
  echo "$s rc=$? wall $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s" | tee -a "$OUT/v/walls.txt"
  cp "entries/$s/results/nvidia-h200.json" "$OUT/v/new/$s.json"
  python3 bench/agreement.py "$OUT/v/old/$s.json" "$OUT/v/new/$s.json" > "$OUT/v/agree_$s.txt" 2>&1
  tail -3 "$OUT/v/agree_$s.txt"
done
(time python3 -m pytest -m gpu -q -p no:cacheprovider tests) > "$OUT/v/gpu_tests.log" 2>&1; tail -4 "$OUT/v/gpu_tests.log"
tar czf "$OUT/v.tgz" -C "$OUT" v
