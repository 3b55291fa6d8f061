"""FileIO wrappers for fault injection: record the IO steps of an operation, fail at one of
them (an exception, a SIGKILL of the process, a torn write), or commit without a real
conditional put (racy on purpose).

Every wrapper forwards to an inner :class:`reference.io.FileIO` and implements the same
protocol, so the reference cannot tell it from a store. A *step* is one call that changes the
store: ``write_bytes``, ``create_exclusive`` or ``delete``. Reads are never steps.

Fault kinds, at the chosen step:

* ``RAISE``: the call raises :class:`InjectedFault` (a :class:`StorageError`) without touching
  the store; the process goes on (its error handling runs).
* ``AMBIGUOUS``: the call is carried out, then raises :class:`InjectedFault`: the store did it
  but the caller was told it failed (a lost response).
* ``KILL``: the process is killed with SIGKILL before the call (nothing after it runs).
* ``TEAR``: a partial file is left, then the process is killed: a ``write_bytes`` leaves the
  first half of its bytes under the target name (a store without atomic writes); a
  ``create_exclusive`` leaves them under a temporary name beside the target (what a crash while
  :class:`reference.io.LocalFileIO` writes its temporary file leaves); a ``delete`` cannot tear
  and only kills.

With ``in_process=True`` a KILL or TEAR does not kill the process: it raises
:class:`SimulatedCrash` (a ``BaseException``, so no ``except Exception`` handler stops it) and
every later call on the wrapper raises it again, so clean-up code that runs while the
exception unwinds cannot touch the store, just as a dead process could not. Used where forking
is unsafe (the S3 client's threads).
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from dataclasses import dataclass
from enum import Enum
from typing import Any

from reference import layout
from reference.errors import StorageError
from reference.io import TEMP_FILE_SUFFIX, FileIO, LocalFileIO, local_os_path

TEAR_FRACTION_NUMERATOR = 1
TEAR_FRACTION_DENOMINATOR = 2
DEFAULT_RACE_WINDOW_SECONDS = 0.05


class StepKind(Enum):
    """A call that changes the store."""

    WRITE = "write"
    CREATE = "create"
    DELETE = "delete"


class FileRole(Enum):
    """What a path is, by the table layout (``reference.layout``)."""

    DATA = "data file"
    CHANGELOG = "changelog file"
    FILE_INDEX = "file index"
    INDEX = "index file"
    MANIFEST = "manifest"
    MANIFEST_LIST = "manifest list"
    INDEX_MANIFEST = "index manifest"
    SNAPSHOT = "snapshot"
    HINT = "hint"
    SCHEMA = "schema"
    TAG = "tag"
    CONSUMER = "consumer"
    STATISTICS = "statistics"
    TEMPORARY = "temporary file"
    OTHER = "other"


class FaultKind(Enum):
    RAISE = "raise"
    AMBIGUOUS = "ambiguous"
    KILL = "kill"
    TEAR = "tear"


def classify_path(path: str) -> FileRole:
    """The role of ``path`` from its name and directory."""
    directory, _, name = path.rstrip(layout.SEPARATOR).rpartition(layout.SEPARATOR)
    parent = directory.rpartition(layout.SEPARATOR)[2]
    hints = {hint.value for hint in layout.HintFile}
    if name.startswith(".") or name.endswith(TEMP_FILE_SUFFIX):
        return FileRole.TEMPORARY
    if parent == layout.MANIFEST_DIR:
        for prefix, role in (
            (layout.MANIFEST_LIST_PREFIX, FileRole.MANIFEST_LIST),
            (layout.INDEX_MANIFEST_PREFIX, FileRole.INDEX_MANIFEST),
            (layout.MANIFEST_PREFIX, FileRole.MANIFEST),
        ):
            if name.startswith(prefix):
                return role
    by_directory = {
        layout.SCHEMA_DIR: FileRole.SCHEMA,
        layout.INDEX_DIR: FileRole.INDEX,
        layout.TAG_DIR: FileRole.TAG,
        layout.CONSUMER_DIR: FileRole.CONSUMER,
        layout.STATISTICS_DIR: FileRole.STATISTICS,
    }
    if parent in (layout.SNAPSHOT_DIR, layout.CHANGELOG_DIR):
        return FileRole.HINT if name in hints else FileRole.SNAPSHOT
    if parent in by_directory:
        return by_directory[parent]
    if layout.parse_bucket_dir_name(parent) is not None:
        if name.endswith(layout.FILE_INDEX_SUFFIX):
            return FileRole.FILE_INDEX
        if name.startswith(layout.CHANGELOG_FILE_PREFIX):
            return FileRole.CHANGELOG
        if name.startswith(layout.DATA_FILE_PREFIX):
            return FileRole.DATA
    return FileRole.OTHER


@dataclass(frozen=True)
class IOStep:
    """One store-changing call: its position in the sequence, kind, path and role."""

    index: int
    kind: StepKind
    path: str
    role: FileRole
    created: bool | None = None
    """For a CREATE: whether it created the file (False: the name existed)."""


class InjectedFault(StorageError):
    """The failure a :class:`FaultyFileIO` injects (a store error, so the reference's own
    handling of store errors applies)."""


class SimulatedCrash(BaseException):
    """The process "died" at an injected fault (``FaultyFileIO(in_process=True)``)."""


class DelegatingFileIO:
    """Forwards every :class:`FileIO` call to ``inner``; subclasses hook the steps."""

    def __init__(self, inner: FileIO) -> None:
        self.inner = inner

    # -- reads (never steps) ----------------------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        return self.inner.read_bytes(path)

    def exists(self, path: str) -> bool:
        return self.inner.exists(path)

    def list_dir(self, path: str) -> list[str]:
        return self.inner.list_dir(path)

    def list_files_recursive(self, path: str) -> list[str]:
        return self.inner.list_files_recursive(path)

    def file_size(self, path: str) -> int:
        return self.inner.file_size(path)

    def modification_time_millis(self, path: str) -> int:
        return self.inner.modification_time_millis(path)

    def open_input(self, path: str) -> Any:
        return self.inner.open_input(path)

    def mkdirs(self, path: str) -> None:
        self.inner.mkdirs(path)

    def delete_dir(self, path: str) -> None:
        self.inner.delete_dir(path)

    # -- steps ------------------------------------------------------------------------------

    def write_bytes(self, path: str, data: bytes) -> None:
        self.inner.write_bytes(path, data)

    def create_exclusive(self, path: str, data: bytes) -> bool:
        return self.inner.create_exclusive(path, data)

    def delete(self, path: str) -> bool:
        return self.inner.delete(path)


class RecordingFileIO(DelegatingFileIO):
    """Records every step (thread-safe) in :attr:`steps`."""

    def __init__(self, inner: FileIO) -> None:
        super().__init__(inner)
        self.steps: list[IOStep] = []
        self._guard = threading.Lock()

    def _record(self, kind: StepKind, path: str, created: bool | None = None) -> None:
        with self._guard:
            self.steps.append(IOStep(len(self.steps), kind, path, classify_path(path), created))

    def write_bytes(self, path: str, data: bytes) -> None:
        self.inner.write_bytes(path, data)
        self._record(StepKind.WRITE, path)

    def create_exclusive(self, path: str, data: bytes) -> bool:
        created = self.inner.create_exclusive(path, data)
        self._record(StepKind.CREATE, path, created)
        return created

    def delete(self, path: str) -> bool:
        deleted = self.inner.delete(path)
        self._record(StepKind.DELETE, path)
        return deleted


def kill_this_process() -> None:
    """SIGKILL ourselves: no ``finally``, no ``atexit``, no flush."""
    os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)  # the signal is delivered asynchronously; never return


def write_torn(inner: FileIO, path: str, data: bytes) -> None:
    """Leave the first part of ``data`` under ``path``, bypassing atomic replacement."""
    partial = data[: len(data) * TEAR_FRACTION_NUMERATOR // TEAR_FRACTION_DENOMINATOR]
    if isinstance(inner, LocalFileIO):
        target = local_os_path(path)
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(partial)
    else:
        inner.write_bytes(path, partial)


def compute_temp_path(path: str) -> str:
    """A temporary name beside ``path``, as :class:`LocalFileIO` uses for its writes."""
    directory, _, name = path.rpartition(layout.SEPARATOR)
    return f"{directory}{layout.SEPARATOR}.{name}.{uuid.uuid4().hex}{TEMP_FILE_SUFFIX}"


class FaultyFileIO(DelegatingFileIO):
    """Injects ``fault`` at step number ``at`` (0-based, counting steps as
    :class:`RecordingFileIO` does); every other call passes through. :attr:`fired` tells
    whether the step was reached. After a ``RAISE`` the wrapper goes on passing calls."""

    def __init__(
        self, inner: FileIO, at: int, fault: FaultKind, *, in_process: bool = False
    ) -> None:
        super().__init__(inner)
        self.at = at
        self.fault = fault
        self.in_process = in_process
        self.count = 0
        self.fired: IOStep | None = None
        self.dead = False
        self._guard = threading.Lock()

    def _is_target(self, kind: StepKind, path: str) -> bool:
        self._check_alive()
        with self._guard:
            index = self.count
            self.count += 1
        if index != self.at:
            return False
        self.fired = IOStep(index, kind, path, classify_path(path))
        return True

    def _check_alive(self) -> None:
        if self.dead:
            raise SimulatedCrash(f"the process died at step {self.at}")

    def _die(self) -> None:
        if not self.in_process:
            kill_this_process()
        self.dead = True
        self._check_alive()

    def _fail_before(self, kind: StepKind, path: str, data: bytes | None) -> None:
        """KILL, TEAR and RAISE act before the call reaches the store."""
        if self.fault is FaultKind.RAISE:
            raise InjectedFault(f"injected failure at step {self.at}", path=path)
        if self.fault is FaultKind.TEAR and data is not None:
            if kind is StepKind.CREATE:
                write_torn(self.inner, compute_temp_path(path), data)
            else:
                write_torn(self.inner, path, data)
        self._die()

    # -- reads fail too once the process is dead ------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        self._check_alive()
        return self.inner.read_bytes(path)

    def exists(self, path: str) -> bool:
        self._check_alive()
        return self.inner.exists(path)

    def list_dir(self, path: str) -> list[str]:
        self._check_alive()
        return self.inner.list_dir(path)

    def list_files_recursive(self, path: str) -> list[str]:
        self._check_alive()
        return self.inner.list_files_recursive(path)

    def open_input(self, path: str) -> Any:
        self._check_alive()
        return self.inner.open_input(path)

    # -- steps ----------------------------------------------------------------------------------

    def write_bytes(self, path: str, data: bytes) -> None:
        if self._is_target(StepKind.WRITE, path):
            if self.fault is FaultKind.AMBIGUOUS:
                self.inner.write_bytes(path, data)
                raise InjectedFault(f"injected lost response at step {self.at}", path=path)
            self._fail_before(StepKind.WRITE, path, data)
        self.inner.write_bytes(path, data)

    def create_exclusive(self, path: str, data: bytes) -> bool:
        if self._is_target(StepKind.CREATE, path):
            if self.fault is FaultKind.AMBIGUOUS:
                self.inner.create_exclusive(path, data)
                raise InjectedFault(f"injected lost response at step {self.at}", path=path)
            self._fail_before(StepKind.CREATE, path, data)
        return self.inner.create_exclusive(path, data)

    def delete(self, path: str) -> bool:
        if self._is_target(StepKind.DELETE, path):
            if self.fault is FaultKind.AMBIGUOUS:
                self.inner.delete(path)
                raise InjectedFault(f"injected lost response at step {self.at}", path=path)
            self._fail_before(StepKind.DELETE, path, None)
        return self.inner.delete(path)


class RacyFileIO(DelegatingFileIO):
    """A store without conditional put: ``create_exclusive`` checks that the name is free,
    waits ``window`` seconds (to make the race likely), then does a plain overwriting write.
    Two writers can both "create" the same snapshot; the later write silently wins."""

    def __init__(self, inner: FileIO, window: float = DEFAULT_RACE_WINDOW_SECONDS) -> None:
        super().__init__(inner)
        self.window = window

    def create_exclusive(self, path: str, data: bytes) -> bool:
        if self.inner.exists(path):
            return False
        time.sleep(self.window)
        self.inner.write_bytes(path, data)
        return True
