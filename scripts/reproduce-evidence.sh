#!/usr/bin/env bash
# Issue 35's node run, in one go, into $1 (at most 8 files come back, so the reproductions are tarred):
# a fresh node key made here (`glossary node init`), every entry with a committed H200 record
# reproduced and compared (`glossary reproduce --all`: measured again in the sandbox, counters
# profiled anew, nothing written to results/), and the public line for trust/reproducers.allowed_signers.
#
#   OUT/gpu.txt                       the cards (nvidia-smi)
#   OUT/node-init.log                 what `node init` printed (its nodes-file line is not used: this
#                                     key signs reproductions only)
#   OUT/reproduce.log                 the agreement report, every number's ratio, and the exit status
#   OUT/reproducers.allowed_signers   the line to add to trust/reproducers.allowed_signers
#   OUT/reproductions.tgz             entries/*/reproductions/*.json, the signed reproductions
#
# Usage (on a fresh GPU machine, with pycuda, mkdocs, bwrap and this project importable):
#     bash scripts/reproduce-evidence.sh OUT_DIR [SLUG...]     # no SLUG: every entry (--all)
# Each reproduction is written as its measurement ends, so a run cut short by REPRODUCE_TIMEOUT
# (default 540 s) brings back what it finished; run the rest on another fresh machine, by slug.
set -uo pipefail
out=${1:-reproduce-out}
shift || true
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(--all)
mkdir -p "$out"
export PYTHONUNBUFFERED=1 NO_MKDOCS_2_WARNING=1
keydir=$(mktemp -d)  # outside the repository; dies with the machine
export GLOSSARY_NODE_KEY="$keydir/node_ed25519"
name="nvidia-h200-repro-$(date -u +%Y-%m-%d-%H%M)"
nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version --format=csv > "$out/gpu.txt" 2>&1
python3 -m glossary.cli node init --name "$name" > "$out/node-init.log" 2>&1
rm -f entries/*/reproductions/*.json  # only what this node makes comes back
timeout "${REPRODUCE_TIMEOUT:-540}" python3 -m glossary.cli reproduce "${which[@]}" --node "$name" --gpus all \
    > "$out/reproduce.log" 2>&1
echo "exit status $?" >> "$out/reproduce.log"
grep 'namespaces="glossary-reproduction"' "$out/reproduce.log" | tail -1 > "$out/reproducers.allowed_signers"
tar czf "$out/reproductions.tgz" entries/*/reproductions/*.json 2>/dev/null
grep -E "^(agrees|DISAGREES|no record|not compared|failed)|past 4× the L2:|inside the L2:|exit status" "$out/reproduce.log"
cat "$out/reproducers.allowed_signers"
