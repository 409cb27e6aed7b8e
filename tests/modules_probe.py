"""A worker target for tests/test_sandbox_gpu.py: the real harness job, then a note of every module
this worker process holds whose file lies under the entries folder (there must be none)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from glossary.measuring.worker import run_harness


def run(job, progress, on_configs=None):
    result = run_harness(job, progress, on_configs)
    entries = str(Path(job.entries_dir).resolve())
    held = sorted(name for name, module in list(sys.modules.items())
                  if str(getattr(module, "__file__", "") or "").startswith(entries))
    Path(os.environ["GLOSSARY_TEST_MODULES_OUT"]).write_text(json.dumps(held))
    return result
