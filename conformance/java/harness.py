"""The Python client of the Java oracle harness (Paimon 0.9 behind a line protocol).

One :class:`JavaHarness` owns one JVM, started on first use and kept for the session. Each call
sends one JSON request line and waits for its JSON response line::

    with JavaHarness() as java:
        java.create_table(path, fields, primary_keys=["k"], options={"bucket": "1"})
        java.write(path, [(1, "a"), (RowKind.DELETE, (1, "a"))], commit=True)
        rows = java.read(path, snapshot_id=1).rows     # [(RowKind, tuple), ...]

A table is named by its directory (``str`` / ``Path``) or by :class:`CatalogTable` (warehouse,
database, table through Paimon's filesystem catalog). Values use the ``reference.spec.data``
conventions and are converted by :mod:`conformance.java.values` using the column types, which
the harness reports with every read.

An error response raises :class:`JavaHarnessError` carrying Java's exception, its causes and the
JVM's recent stderr. A request that times out kills the JVM; the next request starts a new one.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from conformance.java import build as java_build
from conformance.java.values import decode_change, encode_change, encode_value
from reference.spec import types as t
from reference.spec.data import Row, RowKind, Value

DEFAULT_TIMEOUT_SECONDS = 180.0
SHUTDOWN_TIMEOUT_SECONDS = 10.0
THREAD_DUMP_TIMEOUT_SECONDS = 30.0
STDERR_TAIL_LINES = 200
STDERR_LINES_IN_MESSAGE = 20
STACK_LINES_IN_MESSAGE = 30
STDERR_NOISE_PREFIX = "SLF4J:"
"""The jar bundles slf4j without a binding; its three-line notice is not kept."""
DEFAULT_JVM_ARGS = ("-Duser.timezone=UTC",)
"""Pin the JVM's zone so no format library's local-time handling can shift timestamp values."""


class JavaHarnessError(RuntimeError):
    """A request failed in the JVM, or the JVM died or timed out.

    ``error`` is Java's ``"<exception class>: <message>"`` (empty if the JVM itself failed),
    ``causes`` the chain of causes, ``trace`` Java's stack trace (for a timeout: the JVM's thread
    dump), ``stderr`` the JVM's output on stderr while the request ran.
    """

    def __init__(
        self,
        message: str,
        *,
        error: str = "",
        causes: Sequence[str] = (),
        trace: str = "",
        stderr: str = "",
    ) -> None:
        super().__init__(message)
        self.error = error
        self.causes = tuple(causes)
        self.trace = trace
        self.stderr = stderr


def java_unavailable_reason() -> str | None:
    """Why the harness cannot run here (no java, javac or pyspark), or ``None`` if it can.

    A missing network only shows when the jar is not cached yet: :func:`build.ensure_built`
    then raises :class:`~conformance.java.build.DownloadFailed`.
    """
    for tool in ("java", "javac"):
        if java_build.find_java_tool(tool) is None:
            return f"'{tool}' not found (install a JDK 17 to run the Java 0.9 oracle)"
    try:
        java_build.hadoop_jars()
    except java_build.BuildError as error:
        return str(error)
    return None


# --------------------------------------------------------------------------------------------
# Request arguments and results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CatalogTable:
    """A table of a filesystem catalog: ``<warehouse>/<database>.db/<table>``."""

    warehouse: str | os.PathLike[str]
    database: str
    table: str


@dataclass(frozen=True)
class BranchTable:
    """A branch of the table in directory ``path``: requests work on the branch's schema and
    snapshots (Paimon's ``branch`` option)."""

    path: str | os.PathLike[str]
    branch: str


TableLocation = str | os.PathLike[str] | CatalogTable | BranchTable
"""A table directory, a catalog entry, or a branch of a table directory."""


def table_arguments(table: TableLocation) -> dict[str, Any]:
    """The request members that name ``table``."""
    if isinstance(table, BranchTable):
        return {"path": str(Path(table.path).resolve()), "branch": table.branch}
    if isinstance(table, CatalogTable):
        return {
            "warehouse": str(Path(table.warehouse).resolve()),
            "database": table.database,
            "table": table.table,
        }
    return {"path": str(Path(table).resolve())}


@dataclass(frozen=True)
class JavaRows:
    """Rows as Java read them, in Java's order, with the columns they have."""

    fields: tuple[t.DataField, ...]
    rows: list[tuple[RowKind, Row]]

    @property
    def row_type(self) -> t.RowType:
        return t.RowType(self.fields)

    def values(self) -> list[Row]:
        """The rows without their row kinds."""
        return [row for _, row in self.rows]


@dataclass(frozen=True)
class JavaStreamBatch:
    """The rows of one streaming plan and the snapshot the scan reads next."""

    next_snapshot_id: int | None
    rows: list[tuple[RowKind, Row]]


@dataclass(frozen=True)
class JavaStream:
    """A streaming read from a start snapshot up to the latest one."""

    fields: tuple[t.DataField, ...]
    batches: list[JavaStreamBatch]
    complete: bool

    @property
    def rows(self) -> list[tuple[RowKind, Row]]:
        return [row for batch in self.batches for row in batch.rows]


class Change:
    """Constructors of the ``changes`` of :meth:`JavaHarness.alter_table`."""

    @staticmethod
    def set_option(key: str, value: str) -> dict[str, Any]:
        return {"action": "set_option", "key": key, "value": value}

    @staticmethod
    def remove_option(key: str) -> dict[str, Any]:
        return {"action": "remove_option", "key": key}

    @staticmethod
    def add_column(
        name: str,
        data_type: t.DataType,
        *,
        comment: str | None = None,
        first: bool = False,
        after: str | None = None,
    ) -> dict[str, Any]:
        return {
            "action": "add_column",
            "name": name,
            "type": t.type_to_json(data_type),
            "comment": comment,
            "first": first,
            "after": after,
        }

    @staticmethod
    def drop_column(name: str) -> dict[str, Any]:
        return {"action": "drop_column", "name": name}

    @staticmethod
    def rename_column(name: str, new_name: str) -> dict[str, Any]:
        return {"action": "rename_column", "name": name, "new_name": new_name}

    @staticmethod
    def update_column_type(name: str, data_type: t.DataType) -> dict[str, Any]:
        return {"action": "update_column_type", "name": name, "type": t.type_to_json(data_type)}

    @staticmethod
    def update_column_nullability(name: str, nullable: bool) -> dict[str, Any]:
        return {"action": "update_column_nullability", "name": name, "nullable": nullable}

    @staticmethod
    def update_column_position(
        name: str, *, first: bool = False, after: str | None = None
    ) -> dict[str, Any]:
        return {"action": "update_column_position", "name": name, "first": first, "after": after}


def _parse_fields(fields_json: Iterable[Any]) -> tuple[t.DataField, ...]:
    return tuple(t.parse_data_field(f) for f in fields_json)


def _decode_rows(changes: Iterable[Any], row_type: t.RowType) -> list[tuple[RowKind, Row]]:
    return [decode_change(change, row_type) for change in changes]


def _as_change(item: Row | tuple[RowKind, Row]) -> tuple[RowKind, Row]:
    """A written item is a row (an insert) or a ``(RowKind, row)`` pair."""
    if len(item) == 2 and isinstance(item[0], RowKind):
        return item[0], tuple(item[1])
    return RowKind.INSERT, tuple(item)


# --------------------------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------------------------


class JavaHarness:
    """A long-lived JVM running ``PaimonHarness`` and the typed calls it answers."""

    def __init__(
        self,
        build: java_build.Build | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        jvm_args: Sequence[str] = DEFAULT_JVM_ARGS,
    ) -> None:
        self._build = build
        self.timeout = timeout
        self._jvm_args = tuple(jvm_args)
        self._process: subprocess.Popen[bytes] | None = None
        self._scratch: str | None = None
        self._responses: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: collections.deque[tuple[int, str]] = collections.deque(
            maxlen=STDERR_TAIL_LINES
        )
        self._stderr_count = itertools.count()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> JavaHarness:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def is_running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Build if needed and start the JVM (a no-op when it is already running)."""
        if self.is_running:
            return
        if self._build is None:
            self._build = java_build.ensure_built()
        self._scratch = tempfile.mkdtemp(prefix="paimon-kit-jvm-")
        command = [*self._build.command(), self._scratch]
        command[1:1] = self._jvm_args
        self._responses = queue.Queue()
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert self._process.stdout is not None and self._process.stderr is not None
        self._spawn(self._pump_stdout, self._process.stdout)
        self._spawn(self._pump_stderr, self._process.stderr)

    def close(self) -> None:
        """Ask the JVM to shut down (abandoning uncommitted writes); kill it if it lingers."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            try:
                assert process.stdin is not None
                process.stdin.write(b'{"cmd": "shutdown"}\n')
                process.stdin.close()
                process.wait(SHUTDOWN_TIMEOUT_SECONDS)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()
        self._remove_scratch()

    def _spawn(self, target: Any, stream: IO[bytes]) -> None:
        threading.Thread(target=target, args=(stream,), daemon=True).start()

    def _pump_stdout(self, stream: IO[bytes]) -> None:
        responses = self._responses
        for line in stream:
            responses.put(line)
        responses.put(None)

    def _pump_stderr(self, stream: IO[bytes]) -> None:
        for raw in stream:
            line = raw.decode("utf-8", "replace")
            if not line.startswith(STDERR_NOISE_PREFIX):
                self._stderr.append((next(self._stderr_count), line))

    def stderr_since(self, index: int) -> str:
        """The JVM's stderr lines numbered ``index`` and later (within the kept tail)."""
        return "".join(line for number, line in list(self._stderr) if number >= index)

    # -- the protocol ------------------------------------------------------------------------

    def request(
        self, cmd: str, *, timeout: float | None = None, **arguments: Any
    ) -> dict[str, Any]:
        """Send one request and return its successful response (raise on an error response)."""
        with self._lock:
            self.start()
            process = self._process
            assert process is not None and process.stdin is not None
            request_id = next(self._ids)
            stderr_start = self._stderr[-1][0] + 1 if self._stderr else 0
            line = json.dumps({"id": request_id, "cmd": cmd, **arguments}, allow_nan=False)
            try:
                process.stdin.write(line.encode("utf-8") + b"\n")
                process.stdin.flush()
            except OSError as broken:
                raise self._failure(
                    cmd, f"cannot send to the JVM: {broken}", stderr_start
                ) from None
            response = self._await(cmd, request_id, timeout or self.timeout, stderr_start)
        if not response.get("ok"):
            error = str(response.get("error", "unknown error"))
            causes = [str(c) for c in response.get("causes", [])]
            message = f"{cmd}: {error}" + "".join(f"\n  caused by {c}" for c in causes)
            stderr = self.stderr_since(stderr_start)
            if stderr:
                message += "\n  JVM stderr:\n" + _tail(stderr)
            raise JavaHarnessError(
                message,
                error=error,
                causes=causes,
                trace=str(response.get("trace", "")),
                stderr=stderr,
            )
        return response

    def _await(
        self, cmd: str, request_id: int, timeout: float, stderr_start: int
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._responses.get(timeout=max(remaining, 0))
            except queue.Empty:
                dump = self._thread_dump()
                self._kill()
                reason = f"no response within {timeout:.0f}s; the JVM was killed"
                main_thread = _main_thread_stack(dump)
                if main_thread:
                    top = main_thread.splitlines()[:STACK_LINES_IN_MESSAGE]
                    reason += "\n  its main thread was at:\n" + "\n".join("    " + x for x in top)
                failure = self._failure(cmd, reason, stderr_start)
                failure.trace = dump
                raise failure from None
            if line is None:
                code = self._process.wait() if self._process is not None else None
                self._process = None
                self._remove_scratch()
                raise self._failure(cmd, f"the JVM exited (code {code})", stderr_start)
            response: dict[str, Any] = json.loads(line)
            if response.get("id") == request_id:
                return response

    def _thread_dump(self) -> str:
        """The JVM's thread stacks (``jstack``), to see where a request hangs; "" if unavailable."""
        jstack = java_build.find_java_tool("jstack")
        if jstack is None or self._process is None:
            return ""
        try:
            result = subprocess.run(
                [jstack, str(self._process.pid)],
                check=False,
                capture_output=True,
                text=True,
                timeout=THREAD_DUMP_TIMEOUT_SECONDS,
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return result.stdout

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()
        self._remove_scratch()

    def _remove_scratch(self) -> None:
        """Delete the JVM's spill directory (a killed JVM cannot)."""
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def _failure(self, cmd: str, reason: str, stderr_start: int) -> JavaHarnessError:
        stderr = self.stderr_since(stderr_start)
        message = f"{cmd}: {reason}" + (f"\n  JVM stderr:\n{_tail(stderr)}" if stderr else "")
        return JavaHarnessError(message, stderr=stderr)

    # -- tables ------------------------------------------------------------------------------

    def ping(self) -> dict[str, Any]:
        return self.request("ping")

    def create_table(
        self,
        table: TableLocation,
        fields: Sequence[t.DataField] | t.RowType,
        *,
        partition_keys: Sequence[str] = (),
        primary_keys: Sequence[str] = (),
        options: Mapping[str, str] | None = None,
        comment: str | None = None,
        ignore_if_exists: bool = False,
    ) -> dict[str, Any]:
        """Create a table; returns its description (see :meth:`describe`)."""
        columns = fields.fields if isinstance(fields, t.RowType) else fields
        return self.request(
            "create_table",
            **table_arguments(table),
            fields=[t.field_to_json(f) for f in columns],
            partition_keys=list(partition_keys),
            primary_keys=list(primary_keys),
            options=dict(options or {}),
            comment=comment,
            ignore_if_exists=ignore_if_exists,
        )

    def describe(self, table: TableLocation) -> dict[str, Any]:
        """``location``, ``schema`` (the schema file JSON), ``bucket_mode``,
        ``latest_snapshot_id``."""
        return self.request("describe", **table_arguments(table))

    def row_type(self, table: TableLocation) -> t.RowType:
        """The table's current row type."""
        return t.RowType(_parse_fields(self.describe(table)["schema"]["fields"]))

    def alter_table(
        self, table: TableLocation, changes: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        """Apply schema changes built with :class:`Change`; returns the new description."""
        return self.request("alter_table", **table_arguments(table), changes=list(changes))

    def drop_table(self, table: TableLocation, *, ignore_if_not_exists: bool = False) -> None:
        self.request(
            "drop_table", **table_arguments(table), ignore_if_not_exists=ignore_if_not_exists
        )

    # -- writes ------------------------------------------------------------------------------

    def write(
        self,
        table: TableLocation,
        rows: Iterable[Row | tuple[RowKind, Row]],
        *,
        row_type: t.RowType | None = None,
        mode: str = "batch",
        commit_user: str | None = None,
        overwrite: bool | Mapping[str, str] | None = None,
        bucket: int | None = None,
        commit: bool = False,
        commit_identifier: int | None = None,
    ) -> dict[str, Any]:
        """Write rows into the table's open writer (opened on first use).

        ``rows`` holds plain rows (inserts) or ``(RowKind, row)`` pairs. ``mode`` is ``batch``
        (one commit per writer) or ``stream`` (many commits; identifiers count up from 1 unless
        given). ``overwrite`` (batch only) is ``True`` for the whole table or a
        ``{partition column: value string}`` spec. ``bucket`` forces a bucket for every row
        (dynamic-bucket tables otherwise get one from Paimon's ``HashBucketAssigner``). With
        ``commit`` the writer commits after the rows.
        """
        row_type = row_type or self.row_type(table)
        encoded = [encode_change(*_as_change(item), row_type) for item in rows]
        return self.request(
            "write",
            **table_arguments(table),
            rows=encoded,
            mode=mode,
            commit_user=commit_user,
            overwrite=dict(overwrite) if isinstance(overwrite, Mapping) else overwrite,
            bucket=bucket,
            commit=commit,
            commit_identifier=commit_identifier,
        )

    def compact(
        self,
        table: TableLocation,
        *,
        partition: Mapping[str, Value] | None = None,
        bucket: int | None = None,
        full: bool = True,
        mode: str = "batch",
        commit_user: str | None = None,
        commit: bool = False,
        commit_identifier: int | None = None,
    ) -> dict[str, Any]:
        """Compact one bucket, or (``bucket=None``) every bucket written or in the latest
        snapshot. Paimon's writer ignores ``full-compaction.delta-commits``; call this instead."""
        arguments: dict[str, Any] = {"bucket": bucket}
        if bucket is not None:
            arguments["partition"] = self._encode_partition(table, partition or {})
        return self.request(
            "compact",
            **table_arguments(table),
            **arguments,
            full=full,
            mode=mode,
            commit_user=commit_user,
            commit=commit,
            commit_identifier=commit_identifier,
        )

    def _encode_partition(self, table: TableLocation, partition: Mapping[str, Value]) -> list[Any]:
        schema = self.describe(table)["schema"]
        row_type = t.RowType(_parse_fields(schema["fields"]))
        keys = schema["partitionKeys"]
        if set(partition) != set(keys):
            raise ValueError(f"partition {dict(partition)} does not name the keys {keys}")
        return [encode_value(partition[k], row_type.field_by_name(k).type) for k in keys]

    def commit(
        self,
        table: TableLocation,
        *,
        commit_identifier: int | None = None,
        wait_compaction: bool = True,
    ) -> dict[str, Any]:
        """Commit the open writer; returns ``snapshot_id`` (latest after the commit),
        ``new_snapshot`` and ``commit_identifier``."""
        return self.request(
            "commit",
            **table_arguments(table),
            commit_identifier=commit_identifier,
            wait_compaction=wait_compaction,
        )

    def close_writer(self, table: TableLocation) -> bool:
        """Abandon the open writer of a table; ``True`` if there was one."""
        return bool(self.request("close_writer", **table_arguments(table))["closed"])

    # -- reads -------------------------------------------------------------------------------

    def read(
        self,
        table: TableLocation,
        *,
        snapshot_id: int | None = None,
        tag: str | None = None,
        timestamp_millis: int | None = None,
        incremental_between: tuple[int | str, int | str] | None = None,
        projection: Sequence[str] | None = None,
        options: Mapping[str, str] | None = None,
    ) -> JavaRows:
        """A batch read (``ReadBuilder``) of the latest snapshot or the one chosen; ``options``
        are dynamic table options (``scan.mode``, ``incremental-between-scan-mode``, ...)."""
        response = self.request(
            "read",
            **table_arguments(table),
            snapshot_id=snapshot_id,
            tag=tag,
            timestamp_millis=timestamp_millis,
            incremental_between=list(incremental_between) if incremental_between else None,
            projection=list(projection) if projection is not None else None,
            options=dict(options or {}),
        )
        return self._rows(response)

    def read_stream(
        self,
        table: TableLocation,
        *,
        snapshot_id: int | None = None,
        projection: Sequence[str] | None = None,
        options: Mapping[str, str] | None = None,
        max_plans: int | None = None,
    ) -> JavaStream:
        """A streaming read (``newStreamScan``) from ``snapshot_id`` (``scan.mode`` =
        ``from-snapshot`` unless ``options`` say otherwise) until past the latest snapshot."""
        response = self.request(
            "read_stream",
            **table_arguments(table),
            snapshot_id=snapshot_id,
            projection=list(projection) if projection is not None else None,
            options=dict(options or {}),
            max_plans=max_plans,
        )
        fields = _parse_fields(response["fields"])
        row_type = t.RowType(fields)
        batches = [
            JavaStreamBatch(batch["next_snapshot_id"], _decode_rows(batch["rows"], row_type))
            for batch in response["batches"]
        ]
        return JavaStream(fields, batches, bool(response["complete"]))

    def system_table(
        self,
        table: TableLocation,
        name: str,
        *,
        projection: Sequence[str] | None = None,
        options: Mapping[str, str] | None = None,
    ) -> JavaRows:
        """Rows of ``<table>$<name>`` (``snapshots``, ``files``, ``audit_log``, ``tags``...)."""
        response = self.request(
            "system_table",
            **table_arguments(table),
            name=name,
            projection=list(projection) if projection is not None else None,
            options=dict(options or {}),
        )
        return self._rows(response)

    @staticmethod
    def _rows(response: Mapping[str, Any]) -> JavaRows:
        fields = _parse_fields(response["fields"])
        return JavaRows(fields, _decode_rows(response["rows"], t.RowType(fields)))

    # -- snapshots and maintenance -----------------------------------------------------------

    def list_snapshots(self, table: TableLocation) -> list[dict[str, Any]]:
        """Every snapshot's JSON (as Java 0.9 serializes it), by id."""
        snapshots: list[dict[str, Any]] = self.request("list_snapshots", **table_arguments(table))[
            "snapshots"
        ]
        return snapshots

    def create_tag(
        self,
        table: TableLocation,
        name: str,
        *,
        snapshot_id: int | None = None,
        time_retained: str | int | None = None,
    ) -> int:
        """Tag a snapshot (default: the latest); returns the tagged snapshot id."""
        response = self.request(
            "create_tag",
            **table_arguments(table),
            name=name,
            snapshot_id=snapshot_id,
            time_retained=time_retained,
        )
        return int(response["snapshot_id"])

    def delete_tag(self, table: TableLocation, name: str) -> None:
        self.request("delete_tag", **table_arguments(table), name=name)

    def list_tags(self, table: TableLocation) -> dict[str, int]:
        """Tag name -> snapshot id."""
        response = self.request("list_tags", **table_arguments(table))
        return {tag["name"]: int(tag["snapshot_id"]) for tag in response["tags"]}

    def create_branch(
        self, table: TableLocation, name: str, *, from_tag: str | None = None
    ) -> None:
        """Create branch ``name``: empty (the latest schema, no snapshot) or from a tag."""
        self.request("create_branch", **table_arguments(table), name=name, from_tag=from_tag)

    def rollback(
        self, table: TableLocation, *, snapshot_id: int | None = None, tag: str | None = None
    ) -> None:
        self.request("rollback", **table_arguments(table), snapshot_id=snapshot_id, tag=tag)

    def expire_snapshots(
        self,
        table: TableLocation,
        *,
        retain_max: int | None = None,
        retain_min: int | None = None,
        time_retained: str | int | None = None,
        max_deletes: int | None = None,
    ) -> int:
        """Expire snapshots; unset limits come from the table's options. Returns the count."""
        response = self.request(
            "expire_snapshots",
            **table_arguments(table),
            retain_max=retain_max,
            retain_min=retain_min,
            time_retained=time_retained,
            max_deletes=max_deletes,
        )
        return int(response["expired"])

    # -- golden byte vectors (VectorCommands.java) -------------------------------------------

    def vector_binary_row(
        self,
        types: Sequence[t.DataType],
        rows: Iterable[Row | tuple[RowKind, Row]],
        *,
        writer: str = "serializer",
    ) -> list[tuple[bytes, int]]:
        """``(bytes, hashCode)`` of each row as a Java 0.9 BinaryRow. ``writer`` picks the
        Java writer: ``serializer`` (``InternalRowSerializer.toBinaryRow``) or ``projection``
        (a generated projection, as for partitions and keys)."""
        row_type = t.RowType(tuple(t.DataField(i, f"f{i}", dt) for i, dt in enumerate(types)))
        response = self.request(
            "vector_binary_row",
            types=[t.type_to_json(dt) for dt in types],
            rows=[encode_change(*_as_change(item), row_type) for item in rows],
            writer=writer,
        )
        return [(bytes.fromhex(r["bytes"]), int(r["hash"])) for r in response["rows"]]

    def vector_bucket(
        self,
        fields: Sequence[t.DataField],
        rows: Iterable[Row],
        bucket_counts: Sequence[int],
        *,
        partition_keys: Sequence[str] = (),
        primary_keys: Sequence[str] = (),
        options: Mapping[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Per row: ``bucket_key`` (hex of the bucket-key BinaryRow), ``bucket_key_hash``,
        ``buckets`` (count as text -> bucket) and, with a primary key,
        ``trimmed_primary_key`` / ``trimmed_primary_key_hash``."""
        row_type = t.RowType(tuple(fields))
        response = self.request(
            "vector_bucket",
            fields=[t.field_to_json(f) for f in fields],
            partition_keys=list(partition_keys),
            primary_keys=list(primary_keys),
            options=dict(options or {}),
            rows=[encode_change(RowKind.INSERT, tuple(row), row_type) for row in rows],
            bucket_counts=list(bucket_counts),
        )
        result: list[dict[str, Any]] = response["rows"]
        return result

    def vector_hash_index(self, hashes: Sequence[int]) -> tuple[bytes, list[int]]:
        """The bytes of Java's HASH index file of ``hashes`` and the ints Java reads back."""
        response = self.request("vector_hash_index", hashes=list(hashes))
        return bytes.fromhex(response["bytes"]), [int(h) for h in response["decoded"]]

    def vector_deletion_vectors(self, vectors: Mapping[str, Sequence[int]]) -> list[dict[str, Any]]:
        """Java's deletion-vectors index files for ``vectors`` (data file -> deleted
        positions): per file ``bytes`` (hex), ``ranges`` ``[[name, offset, length]]``,
        ``row_count`` and ``decoded`` ``[[name, positions]]`` as Java reads it back."""
        response = self.request(
            "vector_deletion_vectors",
            vectors=[[name, list(positions)] for name, positions in vectors.items()],
        )
        files: list[dict[str, Any]] = response["files"]
        return files

    def vector_file_index(
        self,
        index_type: str,
        data_type: t.DataType,
        values: Sequence[Value],
        *,
        options: Mapping[str, str] | None = None,
        queries: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        """One column's index body (``bytes`` hex) from Java's ``FileIndexer`` of
        ``index_type`` (``bloom-filter``, ``bitmap``), the bloom ``hashes`` of non-null values,
        and ``results`` of ``queries`` (``{"op", "literal" | "literals"}`` with internal
        values): ``"REMAIN"`` / ``"SKIP"``, or the row ids a bitmap answers."""
        encoded_queries = []
        for query in queries:
            encoded = {"op": query["op"]}
            if "literal" in query:
                encoded["literal"] = encode_value(query["literal"], data_type)
            if "literals" in query:
                encoded["literals"] = [encode_value(v, data_type) for v in query["literals"]]
            encoded_queries.append(encoded)
        return self.request(
            "vector_file_index",
            index_type=index_type,
            type=t.type_to_json(data_type),
            options=dict(options or {}),
            values=[encode_value(v, data_type) for v in values],
            queries=encoded_queries,
        )

    def vector_file_index_container(
        self, fields: Sequence[t.DataField], rows: Iterable[Row], options: Mapping[str, str]
    ) -> tuple[bytes, list[tuple[str, list[tuple[str, bytes]]]]]:
        """The file-index container Java's ``DataFileIndexWriter`` builds for ``rows`` under
        the table ``options`` (``file-index.*``), and Java's reading of it: columns in order,
        each with its ``(index type, body)`` pairs."""
        row_type = t.RowType(tuple(fields))
        response = self.request(
            "vector_file_index_container",
            fields=[t.field_to_json(f) for f in fields],
            options=dict(options),
            rows=[encode_change(RowKind.INSERT, tuple(row), row_type) for row in rows],
        )
        decoded = [
            (str(column), [(str(kind), bytes.fromhex(body)) for kind, body in indexes])
            for column, indexes in response["decoded"]
        ]
        return bytes.fromhex(response["bytes"]), decoded

    def decode_meta_file(
        self, path: str | os.PathLike[str], file_format: str, kind: str
    ) -> tuple[t.RowType, list[dict[str, Any]]]:
        """The records of a ``manifest``, ``manifest-list`` or ``index-manifest`` file in
        ``file_format`` as Java 0.9 decodes them: the versioned record type and each record as
        a JSON object by field name (values in the harness encoding, nested rows as objects)."""
        response = self.request(
            "decode_meta_file",
            path=str(Path(path).resolve()),
            format=file_format,
            kind=kind,
        )
        return t.RowType(_parse_fields(response["fields"])), list(response["records"])

    # -- compaction picking (CompactionCommands.java) -----------------------------------------

    def pick_compaction(
        self,
        scenarios: Sequence[Sequence[tuple[int, Sequence[tuple[str, int]]]]],
        *,
        strategy: str = "universal",
        num_levels: int,
        max_size_amplification: int = 200,
        size_ratio: int = 1,
        trigger: int = 5,
    ) -> list[tuple[int, list[str]] | None]:
        """Java 0.9's pick for each scenario: a list of sorted runs ``(level, [(file name,
        size)])`` in run order (level-0 runs first). ``strategy`` is ``universal``,
        ``force_level0`` (``ForceUpLevel0Compaction``) or ``full``
        (``CompactStrategy.pickFullCompaction``). A pick is ``(output level, [file names])``,
        ``None`` when nothing is picked."""
        response = self.request(
            "pick_compaction",
            strategy=strategy,
            num_levels=num_levels,
            max_size_amplification=max_size_amplification,
            size_ratio=size_ratio,
            trigger=trigger,
            scenarios=[
                [
                    {"level": level, "files": [{"name": n, "size": z} for n, z in files]}
                    for level, files in runs
                ]
                for runs in scenarios
            ],
        )
        return [
            None if pick is None else (int(pick["output_level"]), list(pick["files"]))
            for pick in response["picks"]
        ]


def _tail(text: str) -> str:
    lines = text.rstrip("\n").splitlines()[-STDERR_LINES_IN_MESSAGE:]
    return "\n".join("    " + line for line in lines)


def _main_thread_stack(thread_dump: str) -> str:
    """The ``"main"`` thread's block of a ``jstack`` dump (where a request is being handled)."""
    blocks = thread_dump.split("\n\n")
    return next((block for block in blocks if block.startswith('"main"')), "")
