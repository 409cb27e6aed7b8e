#!/usr/bin/env bash
# On the verification node, one card: this code (counters profiled afresh), the code before the work
# (.whl/base.tgz), then this code again; bench/agreement.py for each pair.  $OUT/a.tgz.
#   bench/node_agree.sh NODE_NAME SLUG ...
set -u
name=${1:?node name}; shift
slugs=$*
export PYTHONPATH=/tmp/site:$PWD NO_MKDOCS_2_WARNING=1 GLOSSARY_NODE_KEY=/tmp/nodekey
test -d /tmp/site/pycuda || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
a=$OUT/a; mkdir -p "$a/new1" "$a/before" "$a/new2"
wall() { python3 -c "print(round($(date +%s.%N) - $1, 1))"; }
nvidia-smi --query-gpu=name,uuid --format=csv > "$a/smi.txt"
python3 -m glossary.cli node init --name "$name" > "$a/node_line.txt" 2> /dev/null
cat "$a/node_line.txt" >> trust/nodes.allowed_signers
run() {  # label, then the command's words
  label=$1; shift; start=$(date +%s.%N)
  "$@" > "$a/$label.log" 2>&1; echo "$label rc=$? wall $(wall $start) s" | tee -a "$a/walls.txt"
}
run new1 python3 -m glossary.cli measure --all --recount $slugs
for s in $slugs; do cp "entries/$s/results/nvidia-h200.json" "$a/new1/$s.json"; done
rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .whl/base.tgz -C /tmp/base
run before env -C /tmp/base PYTHONPATH=/tmp/site:/tmp/base GLOSSARY_NODE_KEY=/nonexistent python3 -m glossary.cli measure --all $slugs
for s in $slugs; do cp "/tmp/base/entries/$s/results/nvidia-h200.json" "$a/before/$s.json"; done
run new2 python3 -m glossary.cli measure --all $slugs
for s in $slugs; do cp "entries/$s/results/nvidia-h200.json" "$a/new2/$s.json"; done
for s in $slugs; do
  for pair in "before new1" "before new2" "new1 new2"; do
    set -- $pair
    python3 bench/agreement.py "$a/$1/$s.json" "$a/$2/$s.json" > "$a/agree_${s}_$1_$2.txt" 2>&1
    echo "$s $1->$2: $(grep worst "$a/agree_${s}_$1_$2.txt")"
  done
done
tar czf "$OUT/a.tgz" -C "$OUT" a
