"""Peak resident memory of this process and of its descendants, sampled from ``/proc``.

Spark's Python workers are grandchildren of this process (JVM -> ``pyspark.daemon`` -> forked
workers), so ``resource.getrusage`` cannot see them; a sampling thread reads every
descendant's ``statm`` instead. Peaks shorter than the sampling interval can be missed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")
SAMPLE_SECONDS = 0.25
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MIB = 1 << 20
WORKER_MARKERS = ("pyspark.daemon", "pyspark/daemon", "pyspark.worker", "bench.profiled_daemon")


def read_parent_ids() -> dict[int, int]:
    """``{pid: parent pid}`` of every process visible in ``/proc``."""
    parents: dict[int, int] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    return parents


def list_descendants(root: int, parents: dict[int, int]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def read_rss(pid: int) -> int:
    """Resident bytes of ``pid`` (0 if it has gone)."""
    try:
        return int((PROC / str(pid) / "statm").read_text().split()[1]) * PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return 0


def read_command(pid: int) -> str:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def is_python_worker(command: str) -> bool:
    return any(marker in command for marker in WORKER_MARKERS)


@dataclass
class PeakMemory:
    """Peaks (MiB) sampled between :meth:`start` and :meth:`stop`: this process, the whole
    tree, the largest single Spark Python worker and the JVM (a descendant running java)."""

    own_mib: float = 0.0
    tree_mib: float = 0.0
    worker_mib: float = 0.0
    jvm_mib: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _commands: dict[int, str] = field(default_factory=dict)

    def _sample(self) -> None:
        me = os.getpid()
        own = read_rss(me)
        tree, worker, jvm = own, 0, 0
        for pid in list_descendants(me, read_parent_ids()):
            rss = read_rss(pid)
            tree += rss
            command = self._commands.setdefault(pid, read_command(pid))
            if is_python_worker(command):
                worker = max(worker, rss)
            elif "java" in command.split(" ", 1)[0]:
                jvm = max(jvm, rss)
        self.own_mib = max(self.own_mib, own / MIB)
        self.tree_mib = max(self.tree_mib, tree / MIB)
        self.worker_mib = max(self.worker_mib, worker / MIB)
        self.jvm_mib = max(self.jvm_mib, jvm / MIB)

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            self._sample()

    def start(self) -> None:
        self._sample()
        self._thread = threading.Thread(target=self._run, name="peak-memory", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()

    def as_info(self) -> dict[str, float]:
        """The peaks rounded for a benchmark's ``extra_info``."""
        return {
            "peak_own_mib": round(self.own_mib, 1),
            "peak_tree_mib": round(self.tree_mib, 1),
            "peak_worker_mib": round(self.worker_mib, 1),
            "peak_jvm_mib": round(self.jvm_mib, 1),
        }


@contextmanager
def tracking_peaks() -> Iterator[PeakMemory]:
    """Sample peaks while the ``with`` block runs."""
    peak = PeakMemory()
    peak.start()
    try:
        yield peak
    finally:
        peak.stop()
