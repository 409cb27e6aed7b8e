#!/usr/bin/env bash
# On the verification node, in one call (one card):
#   1. the code before the work (a `git archive` of BASE in .whl/base.tgz) measures the whole glossary
#      once (`glossary measure --all`): the "before" wall time and results on this card;
#   2. this code measures it the same way, then each entry alone (wall time each), signed with
#      this node's key; each re-measure is compared with the before result of this card
#      (bench/agreement.py);
#   3. the GPU tests; the counter cache (the first entry measured again, then re-timed with ten more
#      warm-ups); the author's quick look twice; a real `mkdocs build`.
# Logs and results go under $OUT/v.tgz.
#   bench/node_verify.sh NODE_NAME [SLUG ...]
set -u
name=${1:?node name}; shift
slugs=${*:-$(ls entries/*/results/nvidia-h200.json | cut -d/ -f2)}
export PYTHONPATH=/tmp/site:$PWD NO_MKDOCS_2_WARNING=1
test -d /tmp/site/pycuda || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
v=$OUT/v
mkdir -p "$v/committed" "$v/before" "$v/new" "$v/demo"
wall() { python3 -c "print(round($(date +%s.%N) - $1, 1))"; }
for s in $slugs; do cp "entries/$s/results/nvidia-h200.json" "$v/committed/$s.json"; done
nvidia-smi --query-gpu=name,driver_version,uuid,clocks.max.sm,clocks.max.mem --format=csv > "$v/smi.txt"
lscpu | grep -E "Model name|^CPU\(s\)" > "$v/cpu.txt"
if test -f .whl/base.tgz; then
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .whl/base.tgz -C /tmp/base
  start=$(date +%s.%N)
  (cd /tmp/base && XDG_CACHE_HOME=/tmp/cache-base PYTHONPATH=/tmp/site:/tmp/base GLOSSARY_NODE_KEY=/nonexistent python3 -m glossary.cli measure --all $slugs) > "$v/before_all.log" 2>&1
  echo "before: glossary measure --all rc=$? wall $(wall $start) s" | tee -a "$v/walls.txt"
  for s in $slugs; do cp "/tmp/base/entries/$s/results/nvidia-h200.json" "$v/before/$s.json"; done
fi
export GLOSSARY_NODE_KEY=/tmp/nodekey XDG_CACHE_HOME=/tmp/cache-new  # a cold compiler cache, as on a fresh node
python3 -m glossary.cli node init --name "$name" > "$v/node_line.txt" 2> "$v/node_init.txt"
cat "$v/node_line.txt" >> trust/nodes.allowed_signers   # so this node's own results verify here
start=$(date +%s.%N); python3 -m glossary.cli measure --all $slugs > "$v/after_all.log" 2>&1
echo "after: glossary measure --all rc=$? wall $(wall $start) s" | tee -a "$v/walls.txt"
for s in $slugs; do
  start=$(date +%s.%N)
  /usr/bin/time -f "%U user %S sys" -o "$v/cpu_$s.txt" python3 -m glossary.cli measure --all "$s" > "$v/measure_$s.log" 2>&1
  echo "$s rc=$? wall $(wall $start) s $(cat $v/cpu_$s.txt)" | tee -a "$v/walls.txt"
  cp "entries/$s/results/nvidia-h200.json" "$v/new/$s.json"
  test -f "$v/before/$s.json" && python3 bench/agreement.py "$v/before/$s.json" "$v/new/$s.json" > "$v/agree_$s.txt" 2>&1
  grep worst "$v/agree_$s.txt"
done
(time python3 -m pytest -m gpu -q -p no:cacheprovider tests) > "$v/gpu_tests.log" 2>&1; tail -4 "$v/gpu_tests.log"
d=$(echo $slugs | cut -d' ' -f1)
start=$(date +%s.%N); python3 -m glossary.cli measure --all "$d" > "$v/demo/again.log" 2>&1
echo "$d again rc=$? wall $(wall $start) s" | tee -a "$v/walls.txt"
cp "entries/$d/results/nvidia-h200.json" "$v/demo/again.json"
cp "entries/$d.md" /tmp/entry.bak
sed -i 's/timing: {warmups: \([0-9]*\)/timing: {warmups: 1\1/' "entries/$d.md"
start=$(date +%s.%N); python3 -m glossary.cli measure "$d" > "$v/demo/warmups.log" 2>&1
echo "$d warmups+10 rc=$? wall $(wall $start) s" | tee -a "$v/walls.txt"
cp "entries/$d/results/nvidia-h200.json" "$v/demo/warmups.json"
cp /tmp/entry.bak "entries/$d.md"
for s in $slugs; do cp "$v/new/$s.json" "entries/$s/results/nvidia-h200.json"; done
for i in 1 2; do
  start=$(date +%s.%N); python3 -m glossary.cli try "$d" > "$v/try_$i.log" 2>&1
  echo "try $d #$i rc=$? wall $(wall $start) s" | tee -a "$v/walls.txt"
done
start=$(date +%s.%N); GLOSSARY_MEASURE=always python3 -m mkdocs build -d /tmp/built > "$v/build.log" 2>&1
echo "mkdocs build rc=$? wall $(wall $start) s" | tee -a "$v/walls.txt"
cp trust/nodes.allowed_signers "$v/"
tar czf "$OUT/v.tgz" -C "$OUT" v
