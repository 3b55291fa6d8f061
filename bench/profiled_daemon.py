"""A PySpark daemon whose forked Python workers run every task under :mod:`cProfile`.

Spark starts it instead of ``pyspark.daemon`` when a session sets
``spark.python.daemon.module=bench.profiled_daemon`` (see ``bench/profile.py``). It is
PySpark's own daemon with its per-task entry point wrapped: each task (data-source planning,
reading, writing, ``mapInArrow``, RDD functions) dumps its profile to
``$BENCH_PROFILE_DIR/worker-<pid>-<n>.prof``. Nothing of spark_impl is touched.
"""

from __future__ import annotations

import cProfile
import itertools
import os
import socket

from pyspark import daemon

PROFILE_DIR_VARIABLE = "BENCH_PROFILE_DIR"
_tasks = itertools.count()
_unprofiled_worker = daemon.worker


def profiled_worker(sock: socket.socket, authenticated: bool) -> int:
    """PySpark's worker entry point for one task, under cProfile."""
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        code = _unprofiled_worker(sock, authenticated)
    finally:
        profiler.disable()
        directory = os.environ.get(PROFILE_DIR_VARIABLE)
        if directory:
            name = f"worker-{os.getpid()}-{next(_tasks)}.prof"
            profiler.dump_stats(os.path.join(directory, name))
    return code


if __name__ == "__main__":
    daemon.worker = profiled_worker
    daemon.manager()
