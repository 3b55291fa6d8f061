"""A Spark standalone cluster on loopback addresses, for tests that must prove cluster behaviour.

One master on ``127.0.0.1`` and one worker per given loopback address (``127.0.0.2``,
``127.0.0.3``, ...), each a JVM started from the ``pyspark`` package's own ``spark-class``.
Workers on different addresses count as different hosts to Spark's scheduler, which matters
for speculative execution: a speculative copy of a task is never placed on a host that already
runs an attempt of it. Everything binds to loopback; the processes are stopped (their process
groups killed) by :meth:`Cluster.stop`.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance.spark_settings import TEST_JVM_OPTIONS

MASTER_HOST = "127.0.0.1"
DEFAULT_WORKER_HOSTS = ("127.0.0.2", "127.0.0.3")
WORKER_CORES = 1
WORKER_MEMORY = "1g"
START_TIMEOUT_SECONDS = 90.0
POLL_SECONDS = 0.5
REGISTERED_LINE = "Registering worker"
EXECUTOR_JVM_OPTIONS_VARIABLE = "JDK_JAVA_OPTIONS"
"""Read by every ``java`` a daemon starts (a worker's executors inherit its environment)."""


class ClusterUnavailable(RuntimeError):
    """The cluster could not start here (no Java, a loopback address that cannot be bound)."""


@dataclass
class Cluster:
    master_url: str
    work_dir: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def spark_class() -> Path:
    import pyspark  # noqa: PLC0415 (only where a cluster is started)

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


def start_daemon(arguments: Sequence[str], host: str, log: Path) -> subprocess.Popen[bytes]:
    """One JVM of the cluster in its own process group, bound to ``host``."""
    environment = {**os.environ, "SPARK_LOCAL_IP": host, "SPARK_NO_DAEMONIZE": "1"}
    # The test JVM options for the daemons and, through the worker's environment, for the
    # executors it launches.
    environment.setdefault(EXECUTOR_JVM_OPTIONS_VARIABLE, TEST_JVM_OPTIONS)
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(spark_class()), *arguments],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,
        )


def wait_for_workers(log: Path, count: int, processes: Sequence[subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in processes):
            raise ClusterUnavailable(f"a cluster process exited; see the logs in {log.parent}")
        if log.exists() and log.read_text(errors="replace").count(REGISTERED_LINE) >= count:
            return
        time.sleep(POLL_SECONDS)
    raise ClusterUnavailable(f"{count} workers did not register in {START_TIMEOUT_SECONDS} s")


def start_cluster(work_dir: Path, worker_hosts: Sequence[str] = DEFAULT_WORKER_HOSTS) -> Cluster:
    """Start the master and the workers; :class:`ClusterUnavailable` when they cannot run."""
    work_dir.mkdir(parents=True, exist_ok=True)
    port = free_port(MASTER_HOST)
    master_url = f"spark://{MASTER_HOST}:{port}"
    cluster = Cluster(master_url, work_dir)
    master_arguments = ["org.apache.spark.deploy.master.Master", "--host", MASTER_HOST]
    master_arguments += ["--port", str(port), "--webui-port", str(free_port(MASTER_HOST))]
    master_log = work_dir / "master.log"
    cluster.processes.append(start_daemon(master_arguments, MASTER_HOST, master_log))
    try:
        for host in worker_hosts:
            worker_dir = work_dir / f"worker-{host}"
            worker_arguments = ["org.apache.spark.deploy.worker.Worker", master_url]
            worker_arguments += ["--host", host, "--cores", str(WORKER_CORES)]
            worker_arguments += ["--memory", WORKER_MEMORY, "--webui-port", "0"]
            worker_arguments += ["--work-dir", str(worker_dir)]
            log = work_dir / f"worker-{host}.log"
            cluster.processes.append(start_daemon(worker_arguments, host, log))
        wait_for_workers(master_log, len(worker_hosts), cluster.processes)
    except BaseException:
        cluster.stop()
        raise
    return cluster
