"""Concurrent Spark writers (issue 18 item 2): ``python scripts/run_spark_writers.py --store
local|s3 --apps 4 --writes 6 --runs 3 [--kills 5]``; prints the figures per run (see
:mod:`conformance.concurrency.spark_writers`)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.concurrency.spark_writers import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["run"]))
