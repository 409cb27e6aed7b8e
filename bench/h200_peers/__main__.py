"""``python3 -m bench.h200_peers``: run the benchmark (see the package's docstring)."""

import sys
from pathlib import Path

if not __package__:  # run as `python3 bench/h200_peers`: the repository root on the path, not this folder
    sys.path[0] = str(Path(__file__).resolve().parents[2])

from bench.h200_peers.cli import main  # noqa: E402

sys.exit(main())
