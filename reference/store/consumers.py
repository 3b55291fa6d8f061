"""Consumers: named readers whose progress holds snapshots back from expiration.

Spec: ``docs/flink/consumer-id.md`` (the ``consumer-id`` option of a streaming read) and the
``$consumers`` system table; options ``consumer-id``, ``consumer.expiration-time``.
Java: ``consumer/ConsumerManager``, ``consumer/Consumer``.

Rules:

1. A consumer is the file ``consumer/consumer-<id>`` of a branch holding
   ``{"nextSnapshot" : N}``: the next snapshot the reader named ``<id>`` will read. A
   streaming reader with option ``consumer-id`` writes it as it progresses; resetting a
   consumer overwrites it with a chosen snapshot id.
2. Snapshot expiration never expires snapshot ``N`` or any later one, for the smallest ``N``
   among the branch's consumers (``reference.store.expire`` rule 1).
3. A consumer whose file was last written before a given time is deleted by consumer
   expiration (``consumer.expiration-time`` before now, run before snapshot expiration).
"""

from __future__ import annotations

import contextlib

from reference import layout
from reference.errors import FileMissingError, SpecViolation
from reference.io import FileIO
from reference.spec.snapshot import FIRST_SNAPSHOT_ID, Consumer, encode_consumer
from reference.store import metadata


def validate_consumer_id(consumer_id: str) -> None:
    if layout.is_blank(consumer_id) or layout.SEPARATOR in consumer_id:
        raise SpecViolation(f"consumer id {consumer_id!r} is blank or has a '/'", code="CONSUMER")


def write_consumer(
    file_io: FileIO,
    table_root: str,
    consumer_id: str,
    next_snapshot: int,
    *,
    branch: str = layout.MAIN_BRANCH,
) -> None:
    """Rule 1: record (or reset) a consumer's next snapshot."""
    validate_consumer_id(consumer_id)
    if next_snapshot < FIRST_SNAPSHOT_ID:
        raise SpecViolation(f"next snapshot {next_snapshot} is not a snapshot id", code="CONSUMER")
    path = layout.consumer_path(table_root, consumer_id, branch)
    file_io.write_bytes(path, encode_consumer(Consumer(next_snapshot)).encode("utf-8"))


def delete_consumer(
    file_io: FileIO, table_root: str, consumer_id: str, *, branch: str = layout.MAIN_BRANCH
) -> bool:
    return file_io.delete(layout.consumer_path(table_root, consumer_id, branch))


def read_consumers(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> dict[str, int]:
    """Every consumer's next snapshot; one deleted while listing is skipped."""
    found: dict[str, int] = {}
    for consumer_id in metadata.list_consumer_ids(file_io, table_root, branch):
        with contextlib.suppress(FileMissingError):
            consumer = metadata.read_consumer(file_io, table_root, consumer_id, branch)
            found[consumer_id] = consumer.next_snapshot
    return found


def find_min_next_snapshot(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> int | None:
    """Rule 2: the smallest next snapshot of any consumer, or None without consumers."""
    return min(read_consumers(file_io, table_root, branch).values(), default=None)


def expire_consumers(
    file_io: FileIO,
    table_root: str,
    written_before_millis: int,
    *,
    branch: str = layout.MAIN_BRANCH,
) -> list[str]:
    """Rule 3: delete consumers last written before ``written_before_millis``; returns their
    ids."""
    expired: list[str] = []
    for consumer_id in metadata.list_consumer_ids(file_io, table_root, branch):
        path = layout.consumer_path(table_root, consumer_id, branch)
        with contextlib.suppress(FileMissingError):
            if file_io.modification_time_millis(path) < written_before_millis:
                file_io.delete(path)
                expired.append(consumer_id)
    return expired
