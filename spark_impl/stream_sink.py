"""``df.writeStream.format("paimon")``: the streaming sink, exactly once across restarts.

Usage::

    (df.writeStream.format("paimon")
        .option("checkpointLocation", "/ckpt/q1")
        .outputMode("append")
        .start("/warehouse/db.db/t"))

Rules (Java: ``flink/sink/CommitterOperator``, ``operation/FileStoreCommitImpl.
filterCommitted``, ``table/sink/StreamTableCommit``):

1. Each micro-batch is one commit of the table: its tasks write files as a batch write does
   (:class:`spark_impl.batch_source.PaimonWriter`, each task planning from the latest snapshot,
   so a batch sees the sequence numbers and files of the batches before it), and the driver
   commits them with *commit identifier* = Spark's batch id.
2. The *commit user* is stable across restarts of the same query: the ``commit.user`` option
   when given, else a name derived from the query's ``checkpointLocation`` option
   (:func:`compute_commit_user`). Spark replays a batch whose commit landed but whose
   checkpoint entry was not written (the driver died in between) with the same batch id; the
   commit then finds that the user committed that identifier already (Java
   ``filterCommitted``: the user's latest identifier is at least as large) and commits
   nothing, so every row lands once. Without either option each query draws a fresh user
   (a query without a checkpoint cannot be resumed anyway).
3. A path that holds no table yet gets one made from the stream's schema and Paimon's options
   (``primary-key``, ``partition``, ``bucket``, ...), as a batch write does
   (:func:`spark_impl.batch_source.prepare_write_target`).
4. Output mode ``complete`` overwrites the table each batch (``INSERT OVERWRITE``); ``append``
   and ``update`` append (a primary-key table merges updates by key).
"""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSourceStreamArrowWriter, WriterCommitMessage
from pyspark.sql.types import StructType

from reference.errors import InvalidOptionError
from spark_impl.batch_source import PaimonWriter, open_file_io, prepare_write_target
from spark_impl.options import (
    CHECKPOINT_LOCATION_OPTION,
    COMMIT_IDENTIFIER_OPTION,
    COMMIT_USER_OPTION,
)

COMMIT_USER_NAMESPACE = uuid.UUID("5f1b3c1e-7d0a-4f55-9f3e-2f5c3b0d9a11")
"""The namespace of the commit users derived from checkpoint locations (UUID version 5)."""
COMMIT_USER_PREFIX = "spark-stream-"
KILL_AFTER_COMMIT_ENV = "PAIMON_KIT_STREAM_SINK_KILL_AFTER_COMMIT"
"""Fault hook for tests: the batch id after whose commit the query's process group is killed
(the crash between the table commit and Spark's checkpoint entry)."""


def compute_commit_user(options: Mapping[str, str]) -> str | None:
    """Rule 2: ``commit.user``, else one derived from ``checkpointLocation``, else ``None``."""
    given = options.get(COMMIT_USER_OPTION)
    if given is not None:
        if not given.strip():
            raise InvalidOptionError(COMMIT_USER_OPTION, given, "must not be empty")
        return given
    location = options.get(CHECKPOINT_LOCATION_OPTION)
    if not location:
        return None
    normalized = location.rstrip("/")
    return COMMIT_USER_PREFIX + str(uuid.uuid5(COMMIT_USER_NAMESPACE, normalized))


def check_stream_options(options: Mapping[str, str]) -> None:
    """The identifier is the batch id: a fixed ``commit.identifier`` would collide."""
    if COMMIT_IDENTIFIER_OPTION in options:
        raise InvalidOptionError(
            COMMIT_IDENTIFIER_OPTION,
            options[COMMIT_IDENTIFIER_OPTION],
            "a stream sink commits each micro-batch with its batch id as identifier",
        )


def find_driver_jvm() -> int | None:
    """The nearest ancestor process running Java (the driver's JVM; Linux ``/proc``)."""
    pid = os.getppid()
    while pid > 1:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return None
        if b"java" in command.split(b"\0", 1)[0]:
            return pid
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return None


def kill_after_commit(batch_id: int) -> None:
    """The fault hook of :data:`KILL_AFTER_COMMIT_ENV` (tests only): SIGKILL the process
    group of the driver's JVM (the driver program and the JVM), then this process."""
    wanted = os.environ.get(KILL_AFTER_COMMIT_ENV)
    if wanted is None or wanted.strip() != str(batch_id):
        return
    jvm = find_driver_jvm()
    os.killpg(os.getpgid(jvm) if jvm is not None else os.getpgrp(), signal.SIGKILL)
    os._exit(1)


class PaimonStreamWriter(DataSourceStreamArrowWriter):
    """The ``paimon`` stream sink (module docstring); Spark ``StreamingWrite`` semantics."""

    def __init__(
        self, options: dict[str, str], overwrite: bool, spark_schema: StructType | None = None
    ) -> None:
        check_stream_options(options)
        prepare_write_target(open_file_io(options), options, spark_schema)
        self.options = options
        self.overwrite = overwrite
        self.commit_user = compute_commit_user(options) or str(uuid.uuid4())

    def batch_writer(self, batch_id: int | None = None) -> PaimonWriter:
        """A batch writer planned now from the latest snapshot (rule 1); with ``batch_id``,
        one that commits as this query's user with that identifier (rule 2)."""
        options = dict(self.options)
        if batch_id is not None:
            options[COMMIT_USER_OPTION] = self.commit_user
            options[COMMIT_IDENTIFIER_OPTION] = str(batch_id)
        return PaimonWriter(options, self.overwrite)

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
        return self.batch_writer().write(iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        self.batch_writer(batchId).commit(messages)
        kill_after_commit(batchId)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        self.batch_writer(batchId).abort(messages)


def create_stream_writer(
    options: Mapping[str, Any], overwrite: bool, spark_schema: StructType | None = None
) -> PaimonStreamWriter:
    """What ``PaimonDataSource.streamWriter`` returns; a path that holds no table yet gets one
    made from the stream's schema and Paimon's options, as a batch write does."""
    plain = {str(k): str(v) for k, v in options.items()}
    return PaimonStreamWriter(plain, overwrite, spark_schema)
