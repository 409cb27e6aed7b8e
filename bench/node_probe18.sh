#!/usr/bin/env bash
# On the verification node: the issue-18 GPU tests, the harness's GPU tests, and what ncu knows
# (ncu --query-metrics, in full, for checking declared metric names). Logs under $OUT/p.tgz.
set -u
export PYTHONPATH=/tmp/site:$PWD NO_MKDOCS_2_WARNING=1
test -d /tmp/site/pycuda || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
p=$OUT/p; mkdir -p "$p"
ncu --query-metrics > "$p/ncu_metrics.txt" 2>&1
ncu --version > "$p/ncu_version.txt" 2>&1
python3 -c "import cuda.bindings, ml_dtypes; print(cuda.bindings.__version__, ml_dtypes.__version__)" > "$p/imports.txt" 2>&1
timeout 400 python3 -m pytest -q -p no:cacheprovider -m gpu -s tests/test_issue18_gpu.py ${EXTRA_TESTS:-} > "$p/gpu_tests.log" 2>&1
echo "gpu tests rc=$?" >> "$p/gpu_tests.log"
tail -30 "$p/gpu_tests.log"
tar czf "$OUT/p.tgz" -C "$OUT" p && rm -rf "$p"
