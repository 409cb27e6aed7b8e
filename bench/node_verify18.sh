#!/usr/bin/env bash
# On the verification node, in one call (one card), for issue 18's entries and the harness 1.5 re-measure:
#   1. a node key of this session (its public line comes back; the private key stays on the node);
#   2. `glossary measure --all` of every entry with a spec (the wall time, each entry's log);
#   3. the GPU tests; the peers in bench/ (torch matmul beside the tensor-core entry);
#   4. a real `mkdocs build` with GLOSSARY_MEASURE=always (nothing left to measure).
# Logs and results under $OUT/v.tgz.     bench/node_verify18.sh NODE_NAME [SLUG ...]
set -u
name=${1:?node name}; shift
slugs=${*:-$(for f in entries/*.md; do grep -q '^measure:' "$f" && basename "$f" .md; done)}
export PYTHONPATH=/tmp/site:$PWD NO_MKDOCS_2_WARNING=1
test -d /tmp/site/pycuda || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
v=$OUT/v; mkdir -p "$v/new"
wall() { python3 -c "print(round($(date +%s.%N) - $1, 1))"; }
nvidia-smi --query-gpu=name,driver_version,uuid,clocks.max.sm,clocks.max.mem --format=csv > "$v/smi.txt"
export GLOSSARY_NODE_KEY=/tmp/nodekey XDG_CACHE_HOME=/tmp/cache-new
python3 -m glossary.cli node init --name "$name" > "$v/node_line.txt" 2> "$v/node_init.txt"
cat "$v/node_line.txt" >> trust/nodes.allowed_signers
for s in $slugs; do
  start=$(date +%s.%N)
  timeout ${ENTRY_TIMEOUT:-240} python3 -m glossary.cli measure --all "$s" > "$v/measure_$s.log" 2>&1
  echo "$s rc=$? wall $(wall $start) s" | tee -a "$v/walls.txt"
  test -f "entries/$s/results/nvidia-h200.json" && cp "entries/$s/results/nvidia-h200.json" "$v/new/$s.json"
  tail -2 "$v/measure_$s.log"
done
test -n "${SKIP_TESTS:-}" || { (time timeout 300 python3 -m pytest -m gpu -q -p no:cacheprovider tests) > "$v/gpu_tests.log" 2>&1; tail -4 "$v/gpu_tests.log"; }
test -n "${SKIP_PEERS:-}" || { test -f bench/tensor_peer.py && timeout 120 python3 bench/tensor_peer.py > "$v/tensor_peer.log" 2>&1; }
start=$(date +%s.%N); GLOSSARY_MEASURE=always python3 -m mkdocs build -d /tmp/built > "$v/build.log" 2>&1
echo "mkdocs build rc=$? wall $(wall $start) s" | tee -a "$v/walls.txt"
grep -iE "measur|WARNING" "$v/build.log" | tail -12
tar czf "$OUT/v.tgz" -C "$OUT" v
