"""Streaming reads by snapshot: the planning and reading behind the ``paimon`` stream source.

Offsets are snapshot ids: ``{"snapshot": n}`` means every snapshot up to ``n`` was read, and
:data:`NOTHING_READ` (-1) that the stream has not started. The rules follow
``reference/store/stream.py`` for the default start (``latest-full``):

1. The first micro-batch reads the latest snapshot in full (a merged read, as
   :mod:`spark_impl.plan`; tables that look up (deletion vectors, first-row, ``force-lookup``,
   the ``lookup`` producer) read only their levels above 0, the ``full-compaction`` producer
   only its top level ``num-levels - 1``: the changelog of the rest comes later), each row with
   the kind of its merged record (``+I`` or ``+U``, as Java's reader).
2. Each later micro-batch reads the changes of the snapshots after the previous offset, in id
   order, as the changelog producer says: ``none`` the data files APPEND snapshots add,
   ``input`` the changelog files of APPEND snapshots, ``lookup`` / ``full-compaction`` the
   changelog files of COMPACT snapshots. Changes are the records of those files, unmerged, with
   their kinds. OVERWRITE snapshots (and the other kinds) are skipped.
3. A snapshot that expired before it was read fails the read.
4. *Start* (``scan.mode``, resolved as ``reference.spec.options.resolve_startup_mode``; Java
   ``AbstractDataTableScan.createStartingScanner``): ``latest-full`` / ``full`` as rule 1;
   ``latest``: the snapshots after the latest one when the query starts; ``from-snapshot``
   (``scan.snapshot-id``): that snapshot's changes and later (never before the earliest);
   ``from-snapshot-full``: that snapshot in full, then later ones; ``from-timestamp``
   (``scan.timestamp-millis``): the changes of the snapshots committed at or after it;
   ``compacted-full``: the latest (full) compaction's snapshot in full, then later ones. A
   tag cannot start a stream (Paimon 0.9): refused. An initial offset that asks for a full
   read carries ``full``: the snapshot read in full first.
5. *Trigger.AvailableNow*: the latest snapshot when the query starts caps every offset.
6. *Consumers* (``consumer-id``, Java ``ConsumerManager``): a new query starts at the
   consumer's recorded next snapshot (unless ``consumer.ignore-progress``), without a full
   read; each finished micro-batch records the snapshot after it in ``consumer/consumer-<id>``
   as ``{"nextSnapshot": N}``.
7. *Read schema*: the schema the source reports, which is the start snapshot's when
   ``scan.snapshot-id`` names one (Java 0.9's ``FileStoreTable.copy`` time-travels the
   schema to it; a column renamed since keeps its old name, one dropped since is still read,
   one widened since is narrowed back) and the latest otherwise; every split reads its files
   evolved to that schema.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from reference import layout
from reference.errors import InvalidOptionError, SnapshotNotFoundError, UnsupportedFeature
from reference.io import FileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.data import RowKind
from reference.spec.manifest import FileKind, ManifestEntry
from reference.spec.options import (
    ChangelogProducer,
    StartupMode,
    option_value,
    resolve_startup_mode,
)
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import (
    FIRST_SNAPSHOT_ID,
    Consumer,
    Snapshot,
    decode_consumer,
    encode_consumer,
)
from reference.spec.stream_scan import (
    is_follow_up_snapshot,
    needs_lookup,
    select_compacted_start,
    select_full_read_levels,
)
from spark_impl.changelog import is_lookup_merge, select_lookup_candidates
from spark_impl.merge import KIND_COLUMN, compute_merge_config, is_add_kind
from spark_impl.metadata import (
    find_earliest_snapshot_id,
    find_latest_snapshot_id,
    latest_schema_id,
    read_manifest,
    read_manifest_list,
    read_schema_json,
    read_snapshot,
)
from spark_impl.options import resolve_time_travel
from spark_impl.plan import (
    DataFileRef,
    Split,
    TimeTravel,
    compute_bucket_dir,
    plan_read,
    resolve_read_schema,
)
from spark_impl.read import empty_table, read_file_records, read_split
from spark_impl.reduce import reduce_records

NOTHING_READ = -1
SNAPSHOT_KEY = "snapshot"
FULL_KEY = "full"
ROW_KIND_COLUMN = "_ROW_KIND"
ROW_KIND_STRINGS = np.array([kind.short_string for kind in RowKind], dtype=object)
INSERT = RowKind.INSERT.short_string


class StreamSplit(NamedTuple):
    """One task of a micro-batch: a full split (merged) or changed files (raw records)."""

    split: Split
    full: bool
    schema_json: str
    file_schema_jsons: Mapping[int, str]


def latest_offset(file_io: FileIO, table_root: str, start: int) -> int:
    latest = find_latest_snapshot_id(file_io, table_root)
    return start if latest is None else max(latest, start)


def compute_full_read_levels(schema: TableSchema) -> Callable[[int], bool]:
    """Rule 1: the levels a stream's full read takes (``reference.spec.stream_scan`` rules 1
    and 2: lookup tables above level 0, ``full-compaction`` the top level)."""
    core = schema.core_options
    return select_full_read_levels(
        needs_lookup(schema), core.changelog_producer, core.num_levels - 1
    )


def select_levels(split: Split, keep: Callable[[int], bool]) -> Split:
    return replace(split, files=tuple(f for f in split.files if keep(f.level)))


def stream_schema_json(file_io: FileIO, table_root: str, schema_json: str | None) -> str:
    """Rule 7: the stream's read schema, given (the schema the source reports), else the
    latest."""
    if schema_json is not None:
        return schema_json
    return read_schema_json(file_io, table_root, latest_schema_id(file_io, table_root))


def resolve_stream_schema_json(file_io: FileIO, table_root: str, options: Mapping[str, str]) -> str:
    """Rule 7: the schema a stream with these (plain) options reads in, the one the source
    reports: the snapshot ``scan.snapshot-id`` / ``scan.timestamp-millis`` selects, else the
    latest."""
    try:
        choice = resolve_time_travel(options)
    except UnsupportedFeature:
        travel = TimeTravel()
    else:
        travel = TimeTravel(choice.snapshot_id, choice.tag_name, choice.timestamp_millis)
    return resolve_read_schema(file_io, table_root, travel)[1]


def full_splits(
    file_io: FileIO, table_root: str, snapshot_id: int, schema_json: str | None = None
) -> list[StreamSplit]:
    """Rule 1, read in the stream's schema (rule 7)."""
    plan = plan_read(file_io, table_root, TimeTravel(snapshot_id=snapshot_id))
    latest_json = stream_schema_json(file_io, table_root, schema_json)
    keep = compute_full_read_levels(decode_schema(latest_json))
    jsons = dict(plan.file_schema_jsons)
    splits = [select_levels(split, keep) for split in plan.splits]
    return [
        StreamSplit(
            split, True, latest_json, {f.schema_id: jsons[f.schema_id] for f in split.files}
        )
        for split in splits
        if split.files
    ]


def change_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot, producer: ChangelogProducer
) -> list[ManifestEntry]:
    """Rule 2: the files whose records are the changes of one snapshot."""
    if not is_follow_up_snapshot(snapshot.commit_kind, producer):
        return []
    if producer is ChangelogProducer.NONE:
        manifest_list = snapshot.delta_manifest_list
    else:
        if snapshot.changelog_manifest_list is None:
            return []
        manifest_list = snapshot.changelog_manifest_list
    entries = [
        entry
        for meta in read_manifest_list(file_io, table_root, manifest_list)
        for entry in read_manifest(file_io, table_root, meta.file_name)
    ]
    return [e for e in entries if e.kind is FileKind.ADD]


def change_splits(
    file_io: FileIO, table_root: str, start: int, end: int, schema_json: str | None = None
) -> list[StreamSplit]:
    """Rule 2 for the snapshots ``start + 1 .. end``: one split per snapshot and bucket, read
    in the stream's schema (rule 7)."""
    latest_json = stream_schema_json(file_io, table_root, schema_json)
    schema = decode_schema(latest_json)
    schema_id = schema.id
    producer = schema.core_options.changelog_producer
    earliest = find_earliest_snapshot_id(file_io, table_root)
    if earliest is not None and start + 1 < earliest:
        raise SnapshotNotFoundError(
            f"snapshot {start + 1} expired before the stream read it", path=table_root
        )
    partition_types = [f.type for f in schema.partition_type.fields]
    jsons: dict[int, str] = {schema_id: latest_json}
    splits = []
    for snapshot_id in range(start + 1, end + 1):
        snapshot = read_snapshot(file_io, table_root, snapshot_id)
        grouped: dict[tuple[bytes, int], list[DataFileRef]] = {}
        for entry in change_entries(file_io, table_root, snapshot, producer):
            meta = entry.file
            if meta.schema_id not in jsons:
                jsons[meta.schema_id] = read_schema_json(file_io, table_root, meta.schema_id)
            partition = tuple(deserialize_binary_row(entry.partition, partition_types))
            directory = compute_bucket_dir(table_root, schema, partition, entry.bucket)

            grouped.setdefault((entry.partition, entry.bucket), []).append(
                DataFileRef(
                    path=layout.data_file_path(directory, meta.file_name, meta.external_path),
                    schema_id=meta.schema_id,
                    level=meta.level,
                    row_count=meta.row_count,
                    min_sequence_number=meta.min_sequence_number,
                )
            )
        for (partition_bytes, bucket), files in grouped.items():
            partition = tuple(deserialize_binary_row(partition_bytes, partition_types))
            used = {f.schema_id: jsons[f.schema_id] for f in files}
            splits.append(
                StreamSplit(Split(partition, bucket, tuple(files)), False, latest_json, used)
            )
    return splits


def plan_micro_batch(
    file_io: FileIO, table_root: str, start: int, end: int, schema_json: str | None = None
) -> list[StreamSplit]:
    """The splits of the micro-batch ``(start, end]`` (rules 1-3). With deletion vectors (and
    a producer other than ``lookup``) the full read skips level 0, so the fully read
    snapshot's own changes follow it, as Java's scan re-reads that snapshot."""
    if end <= start:
        return []
    if start != NOTHING_READ:
        return change_splits(file_io, table_root, start, end, schema_json)
    return [
        *full_splits(file_io, table_root, end, schema_json),
        *level_zero_follow_up(file_io, table_root, end, schema_json),
    ]


def with_row_kinds(table: pa.Table, kinds: np.ndarray) -> pa.Table:
    return table.append_column(ROW_KIND_COLUMN, pa.array(ROW_KIND_STRINGS[kinds], type=pa.string()))


def read_stream_split(file_io: FileIO, split: StreamSplit) -> pa.Table:
    """The rows of one split in the stream's schema plus ``_ROW_KIND``."""
    schema: TableSchema = decode_schema(split.schema_json)
    schemas = {i: decode_schema(j) for i, j in split.file_schema_jsons.items()}
    names = [f.name for f in schema.fields]
    if split.full and not schema.primary_keys:
        table = read_split(file_io, split.split, schema, schemas)
        return with_row_kinds(table, np.zeros(table.num_rows, dtype=np.int64))
    if split.full:
        return read_merged_with_kinds(file_io, split.split, schema, schemas)
    tables = []
    for ref in split.split.files:
        records = read_file_records(file_io, ref, schema, schemas[ref.schema_id], {})
        if schema.primary_keys:
            kinds = np.asarray(records.column(KIND_COLUMN).to_numpy(), dtype=np.int64)
        else:
            kinds = np.zeros(records.num_rows, dtype=np.int64)
        tables.append(with_row_kinds(records.select(names), kinds))
    if not tables:
        return with_row_kinds(empty_table(schema), np.zeros(0, dtype=np.int64))
    return pa.concat_tables(tables)


def read_merged_with_kinds(
    file_io: FileIO,
    split: Split,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    *,
    keep_retractions: bool = False,
) -> pa.Table:
    """Rule 1 for a primary-key split: one row per key with the kind of its merged record
    (``+I`` or ``+U``, as Java's reader sets the row kind from the record), retractions
    dropped (kept with ``keep_retractions``, as Java ``MergeFileSplitRead`` with
    ``keepDelete`` for the ``audit_log`` system table)."""
    dv_cache: dict[str, bytes] = {}
    files = sorted(split.files, key=lambda f: f.min_sequence_number)
    tables = [read_file_records(file_io, f, schema, schemas[f.schema_id], dv_cache) for f in files]
    names = [f.name for f in schema.fields]
    if not tables:
        return with_row_kinds(empty_table(schema), np.zeros(0, dtype=np.int64))
    records = pa.concat_tables(tables)
    config = compute_merge_config(schema)
    if is_lookup_merge(schema):
        levels = np.repeat([f.level for f in files], [table.num_rows for table in tables])
        records = select_lookup_candidates(records, levels, config)
    merged = reduce_records(records, config).merged
    kinds = np.asarray(merged.column(KIND_COLUMN).to_numpy(), dtype=np.int64)
    adding = np.ones(len(kinds), dtype=bool) if keep_retractions else is_add_kind(kinds)
    merged = merged.filter(pa.array(adding))
    return with_row_kinds(merged.select(names), kinds[adding])


def offset_value(offset: Mapping[str, object] | None) -> int:
    if not offset or SNAPSHOT_KEY not in offset:
        return NOTHING_READ
    value = offset[SNAPSHOT_KEY]
    return int(value) if isinstance(value, (int, str)) else NOTHING_READ


def make_offset(snapshot_id: int) -> dict[str, int]:
    return {SNAPSHOT_KEY: snapshot_id}


# --------------------------------------------------------------------------------------------
# Start position and consumers (rules 4-6)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamStart:
    """The options that place a stream's start, read once (Java ``CoreOptions``)."""

    mode: StartupMode
    snapshot_id: int | None
    timestamp_millis: int | None
    tag_name: str | None
    consumer_id: str | None
    ignore_progress: bool
    delta_commits: int | None
    producer: ChangelogProducer


def read_stream_start(schema: TableSchema, options: Mapping[str, str]) -> StreamStart:
    """The table's options overridden by the read's (Java dynamic options)."""
    merged = {**schema.options, **options}
    consumer_id = option_value(merged, "consumer-id")
    if consumer_id is not None and (not consumer_id.strip() or "/" in consumer_id):
        raise InvalidOptionError("consumer-id", consumer_id, "must be a non-empty file name")
    return StreamStart(
        mode=resolve_startup_mode(merged),
        snapshot_id=option_value(merged, "scan.snapshot-id"),
        timestamp_millis=option_value(merged, "scan.timestamp-millis"),
        tag_name=option_value(merged, "scan.tag-name"),
        consumer_id=consumer_id,
        ignore_progress=bool(option_value(merged, "consumer.ignore-progress")),
        delta_commits=option_value(merged, "full-compaction.delta-commits"),
        producer=option_value(merged, "changelog-producer"),
    )


def list_snapshot_ids(file_io: FileIO, table_root: str) -> list[int]:
    earliest = find_earliest_snapshot_id(file_io, table_root)
    latest = find_latest_snapshot_id(file_io, table_root)
    return [] if earliest is None or latest is None else list(range(earliest, latest + 1))


def find_snapshot_before_time(file_io: FileIO, table_root: str, time_millis: int) -> int:
    """The latest snapshot committed before ``time_millis``, one below the earliest when none
    is (Java ``SnapshotManager.earlierThanTimeMills``); 0 without snapshots."""
    ids = list_snapshot_ids(file_io, table_root)
    found = ids[0] - 1 if ids else 0
    for snapshot_id in ids:
        if read_snapshot(file_io, table_root, snapshot_id).time_millis < time_millis:
            found = snapshot_id
    return found


def find_compacted_snapshot_id(file_io: FileIO, table_root: str, start: StreamStart) -> int | None:
    """``compacted-full``: the snapshot ``reference.spec.stream_scan.select_compacted_start``
    picks from the newest back, else the latest snapshot."""
    ids = list_snapshot_ids(file_io, table_root)
    newest_first = (read_snapshot(file_io, table_root, i) for i in reversed(ids))
    picked = select_compacted_start(newest_first, start.delta_commits, start.producer)
    if picked is not None:
        return picked.id
    return ids[-1] if ids else None


def read_consumer_next(file_io: FileIO, table_root: str, consumer_id: str) -> int | None:
    """The next snapshot the consumer recorded (``consumer/consumer-<id>``), if any."""
    path = layout.consumer_path(table_root, consumer_id)
    if not file_io.exists(path):
        return None
    return decode_consumer(file_io.read_bytes(path)).next_snapshot


def write_consumer_next(file_io: FileIO, table_root: str, consumer_id: str, next_id: int) -> None:
    """Rule 6: record the consumer's progress (``{"nextSnapshot": N}``)."""
    path = layout.consumer_path(table_root, consumer_id)
    file_io.write_bytes(path, encode_consumer(Consumer(next_id)).encode())


def compute_initial_offset(
    file_io: FileIO, table_root: str, options: Mapping[str, str]
) -> dict[str, int]:
    """Rules 4 and 6: the offset a new query starts from (``snapshot``: every snapshot up to it
    counts as read; ``full``: that snapshot is read in full first)."""
    schema = decode_schema(
        read_schema_json(file_io, table_root, latest_schema_id(file_io, table_root))
    )
    start = read_stream_start(schema, options)
    earliest = find_earliest_snapshot_id(file_io, table_root) or FIRST_SNAPSHOT_ID
    if start.consumer_id is not None and not start.ignore_progress:
        resumed = read_consumer_next(file_io, table_root, start.consumer_id)
        if resumed is not None:
            return make_offset(max(resumed, earliest) - 1)
    return compute_mode_offset(file_io, table_root, start, earliest)


def compute_mode_offset(
    file_io: FileIO, table_root: str, start: StreamStart, earliest: int
) -> dict[str, int]:
    """Rule 4 by ``scan.mode`` (Java ``AbstractDataTableScan.createStartingScanner``)."""
    mode = start.mode
    if mode is StartupMode.LATEST_FULL:
        return make_offset(NOTHING_READ)
    if mode is StartupMode.LATEST:
        return make_offset(find_latest_snapshot_id(file_io, table_root) or 0)
    if mode in (StartupMode.FROM_SNAPSHOT, StartupMode.FROM_SNAPSHOT_FULL):
        if start.snapshot_id is None:
            raise InvalidOptionError(
                "scan.tag-name", start.tag_name, "a stream starts from a snapshot id, not a tag"
            )
        first = max(start.snapshot_id, earliest)
        if mode is StartupMode.FROM_SNAPSHOT:
            return make_offset(first - 1)
        return {SNAPSHOT_KEY: first - 1, FULL_KEY: first}
    if mode is StartupMode.FROM_TIMESTAMP:
        if start.timestamp_millis is None:
            raise InvalidOptionError("scan.timestamp", None, "use scan.timestamp-millis")
        return make_offset(find_snapshot_before_time(file_io, table_root, start.timestamp_millis))
    if mode is StartupMode.COMPACTED_FULL:
        picked = find_compacted_snapshot_id(file_io, table_root, start)
        if picked is None:
            return make_offset(NOTHING_READ)
        return {SNAPSHOT_KEY: picked - 1, FULL_KEY: picked}
    raise InvalidOptionError("scan.mode", mode.value, "not a streaming start")


def full_snapshot_of(offset: Mapping[str, object] | None) -> int | None:
    """The snapshot an initial offset reads in full first (rule 4), if any."""
    value = None if offset is None else offset.get(FULL_KEY)
    return int(value) if isinstance(value, (int, str)) else None


def plan_offsets(
    file_io: FileIO,
    table_root: str,
    start: Mapping[str, object],
    end: Mapping[str, object],
    schema_json: str | None = None,
) -> list[StreamSplit]:
    """The splits between two offsets: a full read first when ``start`` asks for one; read in
    ``schema_json`` (the stream's schema, rule 7; ``None``: the latest)."""
    first, last = offset_value(start), offset_value(end)
    full = full_snapshot_of(start)
    if full is None:
        return plan_micro_batch(file_io, table_root, first, last, schema_json)
    if last < full:
        return []
    return [
        *full_splits(file_io, table_root, full, schema_json),
        *level_zero_follow_up(file_io, table_root, full, schema_json),
        *change_splits(file_io, table_root, full, last, schema_json),
    ]


def level_zero_follow_up(
    file_io: FileIO, table_root: str, full: int, schema_json: str | None = None
) -> list[StreamSplit]:
    """Rule 1's exception: with deletion vectors (and a producer other than ``lookup``) a
    full read skips level 0, so the fully read snapshot's own changes follow it."""
    schema = decode_schema(stream_schema_json(file_io, table_root, schema_json))
    core = schema.core_options
    if core.deletion_vectors_enabled and core.changelog_producer is not ChangelogProducer.LOOKUP:
        return change_splits(file_io, table_root, full - 1, full, schema_json)
    return []


def latest_offset_after(
    file_io: FileIO, table_root: str, start: Mapping[str, object], cap: int | None
) -> dict[str, int]:
    """The end of the next micro-batch: the latest snapshot (at most ``cap``, the
    ``Trigger.AvailableNow`` target), never before the start's full snapshot."""
    begin = offset_value(start)
    latest = latest_offset(file_io, table_root, begin)
    if cap is not None:
        latest = max(begin, min(latest, cap))
    full = full_snapshot_of(start)
    if full is not None and latest < full:
        return dict(start)  # type: ignore[arg-type]
    return make_offset(latest)


def record_consumer(
    file_io: FileIO, table_root: str, options: Mapping[str, str], end: Mapping[str, object]
) -> None:
    """Rule 6 for a finished micro-batch ending at ``end``: the consumer's next snapshot is
    the one after it (``exactly-once`` and ``at-least-once`` alike: the source records a batch
    only once Spark has logged it done, see :mod:`spark_impl.stream_source`). An initial
    offset (nothing read, or a full read pending) records nothing."""
    consumer_id = options.get("consumer-id")
    done = offset_value(end)
    if consumer_id is None or done == NOTHING_READ or full_snapshot_of(end) is not None:
        return
    write_consumer_next(file_io, table_root, consumer_id, done + 1)
