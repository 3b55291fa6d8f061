"""Streaming reads: a full (or no) start, then the changes of each new snapshot, in order.

Spec: ``docs/flink/sql-query.mdx`` ("Streaming Query", scan modes), ``docs/primary-key-table/
changelog-producer.md``, ``docs/flink/consumer-id.md``; the seeds' changelog-producer sections.
Java (0.9.0): ``table/source/DataTableStreamScan``, ``AbstractDataTableScan
.createStartingScanner``, ``table/source/snapshot/{FullStartingScanner,
ContinuousLatestStartingScanner, ContinuousFromSnapshotStartingScanner,
ContinuousFromSnapshotFullStartingScanner, ContinuousFromTimestampStartingScanner,
CompactedStartingScanner, FullCompactedStartingScanner}``, ``{Delta,InputChangelog,
CompactionChangelog}FollowUpScanner``, ``BoundedChecker``, ``NextSnapshotFetcher``,
``consumer/ConsumerManager``, ``utils/SnapshotManager.earlierThanTimeMills``.

Rules:

1. *Plans.* A streaming read is a sequence of plans; each plan reads at most one snapshot and
   tells the snapshot to read next (``checkpoint``). A plan that found nothing to read is empty
   and the next call tries again.
2. *Start* (``scan.mode``, resolved as in ``reference.spec.options.resolve_startup_mode``):
   ``latest-full`` (the default; also ``full``): the latest snapshot read in full, then the
   snapshots after it; ``latest``: only snapshots after the latest one at the time of the first
   plan (from snapshot 1 when the table had none when the read was created);
   ``from-snapshot`` (``scan.snapshot-id``): that snapshot's changes and later (never before the
   earliest snapshot); ``from-snapshot-full``: that snapshot in full, then later ones;
   ``from-timestamp`` (``scan.timestamp-millis``): the changes of every snapshot committed at or
   after that time; ``compacted-full``: in full the latest COMPACT snapshot (for the
   full-compaction producer or with ``full-compaction.delta-commits`` = N: the latest COMPACT
   snapshot whose commit identifier is a multiple of N or ``Long.MAX_VALUE``), else the latest
   snapshot, then later ones. A tag, a watermark or an incremental range cannot start a stream.
3. *Full reads* are batch reads (merged, retractions dropped) except that tables that look up
   (``changelog-producer = lookup``, deletion vectors, first-row, ``force-lookup``) read only
   files above level 0 and the full-compaction producer only the top level (``num-levels - 1``):
   the changelog of the rest comes later. With deletion vectors but another producer the read
   then continues *at* the fully read snapshot, whose level-0 files are read as changes.
4. *Follow-up*: each snapshot after the start, in id order, is read or skipped by the table's
   changelog producer: ``none`` reads the data files APPEND snapshots add, ``input`` the
   changelog files of APPEND snapshots, ``lookup`` and ``full-compaction`` the changelog files
   of COMPACT snapshots. Changes are every record of the files read, unmerged, with its kind.
   An OVERWRITE snapshot is skipped unless ``streaming-read-overwrite`` (primary-key tables):
   then the rows of the files it deleted come as ``-D`` and those of the files it added as
   they are.
5. *End.* With ``scan.bounded.watermark`` the stream ends at the first snapshot whose watermark
   exceeds it. A snapshot id behind the earliest snapshot has expired: the read fails; one
   ahead of the latest is waited for.
6. *Consumers.* With ``consumer-id`` a stream starts at the consumer's recorded next snapshot
   (unless ``consumer.ignore-progress``), without a full read, and records its progress in
   ``consumer/consumer-<id>`` as ``{"nextSnapshot": N}``. ``exactly-once`` records the snapshot
   after the last one fully processed (Java: at a completed checkpoint); ``at-least-once``
   records the snapshot being processed before it is handed out, so a restart reads it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from enum import Enum

from reference.errors import InvalidOptionError, SnapshotNotFoundError, UnsupportedFeature
from reference.io import FileIO
from reference.spec.data import RowKind
from reference.spec.key_value import KeyValue
from reference.spec.manifest import FileKind, ManifestEntry
from reference.spec.options import (
    ChangelogProducer,
    ConsumerMode,
    StartupMode,
    option_value,
    resolve_startup_mode,
)
from reference.spec.schema import TableSchema
from reference.spec.snapshot import (
    FIRST_SNAPSHOT_ID,
    CommitKind,
    Snapshot,
)
from reference.spec.stream_scan import (
    is_follow_up_snapshot,
    needs_lookup,
    select_compacted_start,
    select_full_read_levels,
)
from reference.store import consumers, metadata
from reference.store.incremental import (
    ScanMode,
    compute_splits,
    read_list_entries,
    read_merged_split,
    read_raw_split,
    read_snapshot_change_entries,
)
from reference.store.query import load_schemas
from reference.store.read import ChangeRow, apply_record_defaults, compute_read_defaults
from reference.store.scan import (
    compute_live_entries,
    list_snapshot_manifests,
    read_deletion_files,
    read_manifest,
)


class PlanKind(Enum):
    """What one plan read (rule 1)."""

    NOTHING = "nothing"
    FULL = "full"
    DELTA = "delta"
    CHANGELOG = "changelog"
    OVERWRITE = "overwrite"
    END = "end"


@dataclass(frozen=True)
class StreamPlan:
    """One plan: the snapshot it read (``None`` when it read none), what it read, its change
    records (kinds, sequence numbers, values) and the snapshot to read next."""

    kind: PlanKind
    snapshot_id: int | None
    records: list[KeyValue]
    next_snapshot_id: int | None

    @property
    def changes(self) -> list[ChangeRow]:
        return [(record.kind, record.value) for record in self.records]


# --------------------------------------------------------------------------------------------
# Settings
# --------------------------------------------------------------------------------------------

LevelFilter = Callable[[int], bool]


@dataclass(frozen=True)
class StreamSettings:
    """The options a streaming read uses, read once."""

    startup_mode: StartupMode
    producer: ChangelogProducer
    snapshot_id: int | None
    timestamp_millis: int | None
    full_compaction_delta_commits: int | None
    read_overwrite: bool
    bounded_watermark: int | None
    consumer_id: str | None
    consumer_mode: ConsumerMode
    ignore_consumer_progress: bool
    looks_up: bool
    deletion_vectors: bool
    top_level: int


def compute_stream_settings(schema: TableSchema, options: Mapping[str, str]) -> StreamSettings:
    """The table's options overridden by the read's ``options`` (Java dynamic options)."""
    merged = {**schema.options, **options}
    read_schema = replace(schema, options=merged)
    core = read_schema.core_options
    producer: ChangelogProducer = option_value(merged, "changelog-producer")
    deletion_vectors = core.deletion_vectors_enabled
    return StreamSettings(
        startup_mode=resolve_startup_mode(merged),
        producer=producer,
        snapshot_id=option_value(merged, "scan.snapshot-id"),
        timestamp_millis=option_value(merged, "scan.timestamp-millis"),
        full_compaction_delta_commits=core.full_compaction_delta_commits,
        read_overwrite=bool(option_value(merged, "streaming-read-overwrite"))
        and schema.is_primary_key_table,
        bounded_watermark=option_value(merged, "scan.bounded.watermark"),
        consumer_id=option_value(merged, "consumer-id"),
        consumer_mode=option_value(merged, "consumer.mode"),
        ignore_consumer_progress=bool(option_value(merged, "consumer.ignore-progress")),
        looks_up=needs_lookup(read_schema),
        deletion_vectors=deletion_vectors and schema.is_primary_key_table,
        top_level=core.num_levels - 1,
    )


# --------------------------------------------------------------------------------------------
# Starting (rule 2)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Start:
    """Where a stream starts: a snapshot read in full, or only the next snapshot to read."""

    full_snapshot_id: int | None
    next_snapshot_id: int


def find_snapshot_before_time(file_io: FileIO, table_root: str, time_millis: int) -> int | None:
    """The latest snapshot committed strictly before ``time_millis``, one below the earliest
    when none is, ``None`` without snapshots (Java ``earlierThanTimeMills``)."""
    ids = metadata.list_snapshot_ids(file_io, table_root)
    if not ids:
        return None
    found = ids[0] - 1
    for snapshot_id in ids:
        if metadata.read_snapshot(file_io, table_root, snapshot_id).time_millis < time_millis:
            found = snapshot_id
    return found


def find_compacted_snapshot_id(
    file_io: FileIO, table_root: str, settings: StreamSettings
) -> int | None:
    """``compacted-full``'s snapshot (rule 2, ``reference.spec.stream_scan`` rule 4), searching
    from the latest back; the latest when none qualifies."""
    ids = metadata.list_snapshot_ids(file_io, table_root)
    newest_first = (metadata.read_snapshot(file_io, table_root, i) for i in reversed(ids))
    picked = select_compacted_start(
        newest_first, settings.full_compaction_delta_commits, settings.producer
    )
    if picked is not None:
        return picked.id
    return ids[-1] if ids else None


def compute_start(
    file_io: FileIO,
    table_root: str,
    settings: StreamSettings,
    *,
    created_on_empty_table: bool,
) -> Start | None:
    """Rule 2 (and rule 6's resume); ``None`` while there is no snapshot to start from."""
    latest = metadata.find_latest_snapshot_id(file_io, table_root)
    earliest = metadata.find_earliest_snapshot_id(file_io, table_root)
    if latest is None or earliest is None:
        return None
    mode = settings.startup_mode
    if mode in (StartupMode.LATEST_FULL, StartupMode.FULL):
        return Start(latest, latest + 1)
    if mode is StartupMode.LATEST:
        return Start(None, FIRST_SNAPSHOT_ID if created_on_empty_table else latest + 1)
    if mode is StartupMode.FROM_SNAPSHOT:
        if settings.snapshot_id is None:
            raise InvalidOptionError(
                "scan.mode", mode.value, "a stream starts from a snapshot id, not a tag"
            )
        return Start(None, max(settings.snapshot_id, earliest))
    if mode is StartupMode.FROM_SNAPSHOT_FULL:
        if settings.snapshot_id is None:
            raise InvalidOptionError("scan.mode", mode.value, "needs scan.snapshot-id")
        full = max(settings.snapshot_id, earliest)
        return Start(full, full + 1)
    if mode is StartupMode.FROM_TIMESTAMP:
        if settings.timestamp_millis is None:
            raise UnsupportedFeature(
                "a stream from 'scan.timestamp' text (use scan.timestamp-millis)"
            )
        before = find_snapshot_before_time(file_io, table_root, settings.timestamp_millis)
        return None if before is None else Start(None, before + 1)
    if mode is StartupMode.COMPACTED_FULL:
        picked = find_compacted_snapshot_id(file_io, table_root, settings)
        return None if picked is None else Start(picked, picked + 1)
    if mode is StartupMode.INCREMENTAL:
        raise InvalidOptionError("scan.mode", mode.value, "an incremental read is a batch read")
    raise UnsupportedFeature(f"streaming read with scan.mode '{mode.value}'")


def read_consumer_start(file_io: FileIO, table_root: str, settings: StreamSettings) -> Start | None:
    """Rule 6: resume at the consumer's next snapshot (never before the earliest snapshot)."""
    if settings.consumer_id is None or settings.ignore_consumer_progress:
        return None
    if settings.consumer_id not in metadata.list_consumer_ids(file_io, table_root):
        return None
    earliest = metadata.find_earliest_snapshot_id(file_io, table_root)
    if earliest is None:
        return None
    consumer = metadata.read_consumer(file_io, table_root, settings.consumer_id)
    return Start(None, max(consumer.next_snapshot, earliest))


# --------------------------------------------------------------------------------------------
# Reading one plan (rules 3 and 4)
# --------------------------------------------------------------------------------------------


def compute_full_level_filter(settings: StreamSettings) -> LevelFilter:
    """Rule 3: the levels a full read of a stream takes (``reference.spec.stream_scan``
    rule 2)."""
    return select_full_read_levels(settings.looks_up, settings.producer, settings.top_level)


def read_full_records(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    snapshot: Snapshot,
    level_filter: LevelFilter,
) -> list[KeyValue]:
    """Rule 3: a merged read of the snapshot's live files at the chosen levels."""
    schemas = load_schemas(file_io, table_root)
    entries = [
        entry
        for meta in list_snapshot_manifests(file_io, table_root, snapshot)
        for entry in read_manifest(file_io, table_root, meta.file_name)
    ]
    live = [e for e in compute_live_entries(entries).live if level_filter(e.file.level)]
    deletion_files = (
        read_deletion_files(file_io, table_root, snapshot, schema)
        if schema.core_options.deletion_vectors_enabled
        else {}
    )
    records = [
        record
        for split in compute_splits(table_root, schema, snapshot.id, live, deletion_files)
        for record in read_merged_split(file_io, split, schema, schemas, keep_retractions=False)
    ]
    return apply_record_defaults(records, compute_read_defaults(schema))


def compute_follow_up_mode(producer: ChangelogProducer) -> ScanMode:
    return ScanMode.DELTA if producer is ChangelogProducer.NONE else ScanMode.CHANGELOG


def read_entries_records(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    snapshot_id: int,
    entries: list[ManifestEntry],
) -> list[KeyValue]:
    """Every record of the entries' files, unmerged, bucket after bucket."""
    schemas = load_schemas(file_io, table_root)
    records = [
        record
        for split in compute_splits(table_root, schema, snapshot_id, entries)
        for record in read_raw_split(file_io, split, schema, schemas)
    ]
    return apply_record_defaults(records, compute_read_defaults(schema))


def as_deletion(record: KeyValue) -> KeyValue:
    """A row an overwrite removed, as ``-D`` (Java ``ReverseReader``: it must be an add)."""
    if not record.kind.is_add:
        raise UnsupportedFeature("an overwritten file holds a retraction; cannot reverse it")
    return replace(record, kind=RowKind.DELETE)


def read_overwrite_records(
    file_io: FileIO, table_root: str, schema: TableSchema, snapshot: Snapshot
) -> list[KeyValue]:
    """Rule 4's overwrite changes: per bucket, deleted files' rows as ``-D``, then added
    files' rows (Java ``SnapshotReader.readChanges`` + ``IncrementalChangelogReadProvider``)."""
    entries = read_list_entries(file_io, table_root, snapshot.delta_manifest_list)
    buckets = dict.fromkeys((e.partition, e.bucket) for e in entries)
    records: list[KeyValue] = []
    for bucket in buckets:
        mine = [e for e in entries if (e.partition, e.bucket) == bucket]
        deleted = [replace(e, kind=FileKind.ADD) for e in mine if e.kind is FileKind.DELETE]
        added = [e for e in mine if e.kind is FileKind.ADD]
        before = read_entries_records(file_io, table_root, schema, snapshot.id, deleted)
        records += [as_deletion(r) for r in before]
        records += read_entries_records(file_io, table_root, schema, snapshot.id, added)
    return records


def read_follow_up_plan(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    snapshot: Snapshot,
    settings: StreamSettings,
) -> StreamPlan | None:
    """Rule 4 for one snapshot; ``None`` when the snapshot is skipped."""
    next_id = snapshot.id + 1
    if snapshot.commit_kind is CommitKind.OVERWRITE and settings.read_overwrite:
        records = read_overwrite_records(file_io, table_root, schema, snapshot)
        return StreamPlan(PlanKind.OVERWRITE, snapshot.id, records, next_id)
    if not is_follow_up_snapshot(snapshot.commit_kind, settings.producer):
        return None
    mode = compute_follow_up_mode(settings.producer)
    entries = read_snapshot_change_entries(file_io, table_root, snapshot, mode)
    records = read_entries_records(file_io, table_root, schema, snapshot.id, entries)
    kind = PlanKind.DELTA if mode is ScanMode.DELTA else PlanKind.CHANGELOG
    return StreamPlan(kind, snapshot.id, records, next_id)


def find_next_snapshot(file_io: FileIO, table_root: str, snapshot_id: int) -> Snapshot | None:
    """Rule 5: the snapshot to read next, ``None`` while it does not exist yet (Java
    ``NextSnapshotFetcher``)."""
    if metadata.has_snapshot(file_io, table_root, snapshot_id):
        return metadata.read_snapshot(file_io, table_root, snapshot_id)
    earliest = metadata.find_earliest_snapshot_id(file_io, table_root)
    if earliest is not None and snapshot_id < earliest:
        raise SnapshotNotFoundError(
            f"snapshot {snapshot_id} has expired (the earliest is {earliest})", path=table_root
        )
    return None


def is_past_bound(snapshot: Snapshot, settings: StreamSettings) -> bool:
    """Rule 5 (Java ``BoundedChecker.watermark``)."""
    bound = settings.bounded_watermark
    return bound is not None and snapshot.watermark is not None and snapshot.watermark > bound


# --------------------------------------------------------------------------------------------
# The stream
# --------------------------------------------------------------------------------------------


class StreamReader:
    """One streaming read of a table (rules 1-6). It holds the read's position, so it is the
    one stateful object of the reference: ``plan()`` returns the next plan (Java
    ``StreamTableScan.plan``), ``checkpoint()`` the snapshot to read next, ``restore()`` sets
    it, ``notify_checkpoint_complete()`` records consumer progress.

        reader = StreamReader(file_io, root, {"consumer-id": "me"})
        for snapshot_id, changes in reader.iterate():
            ...
    """

    def __init__(self, file_io: FileIO, table_root: str, options: Mapping[str, str] | None = None):
        self.file_io = file_io
        self.table_root = table_root
        self.options = dict(options or {})
        schema = metadata.read_latest_schema(file_io, table_root)
        self.settings = compute_stream_settings(schema, self.options)
        self.created_on_empty_table = metadata.find_latest_snapshot_id(file_io, table_root) is None
        self.next_snapshot_id: int | None = None
        self.ended = False

    def checkpoint(self) -> int | None:
        return self.next_snapshot_id

    def restore(self, next_snapshot_id: int | None) -> None:
        self.next_snapshot_id = next_snapshot_id

    def notify_checkpoint_complete(self, next_snapshot: int | None) -> None:
        """Rule 6: record ``next_snapshot`` as the consumer's progress (if there is a consumer)."""
        if next_snapshot is not None and self.settings.consumer_id is not None:
            consumers.write_consumer(
                self.file_io, self.table_root, self.settings.consumer_id, next_snapshot
            )

    def plan(self) -> StreamPlan:
        """The next plan (rule 1)."""
        if self.ended:
            return StreamPlan(PlanKind.END, None, [], self.next_snapshot_id)
        if self.next_snapshot_id is None:
            return self.plan_first()
        return self.plan_next()

    def plan_first(self) -> StreamPlan:
        start = read_consumer_start(self.file_io, self.table_root, self.settings)
        if start is None:
            start = compute_start(
                self.file_io,
                self.table_root,
                self.settings,
                created_on_empty_table=self.created_on_empty_table,
            )
        if start is None:
            return StreamPlan(PlanKind.NOTHING, None, [], None)
        if start.full_snapshot_id is None:
            self.next_snapshot_id = start.next_snapshot_id
            previous = start.next_snapshot_id - 1
            if metadata.has_snapshot(self.file_io, self.table_root, previous):
                self.ended = is_past_bound(
                    metadata.read_snapshot(self.file_io, self.table_root, previous), self.settings
                )
            return StreamPlan(PlanKind.NOTHING, None, [], self.next_snapshot_id)
        return self.plan_full(start.full_snapshot_id)

    def plan_full(self, snapshot_id: int) -> StreamPlan:
        schema = metadata.read_latest_schema(self.file_io, self.table_root)
        snapshot = metadata.read_snapshot(self.file_io, self.table_root, snapshot_id)
        records = read_full_records(
            self.file_io,
            self.table_root,
            schema,
            snapshot,
            compute_full_level_filter(self.settings),
        )
        rereads = self.settings.deletion_vectors and (
            self.settings.producer is not ChangelogProducer.LOOKUP
        )
        self.next_snapshot_id = snapshot_id if rereads else snapshot_id + 1
        self.ended = is_past_bound(snapshot, self.settings)
        return StreamPlan(PlanKind.FULL, snapshot_id, records, self.next_snapshot_id)

    def plan_next(self) -> StreamPlan:
        schema = metadata.read_latest_schema(self.file_io, self.table_root)
        while True:
            assert self.next_snapshot_id is not None
            snapshot = find_next_snapshot(self.file_io, self.table_root, self.next_snapshot_id)
            if snapshot is None:
                return StreamPlan(PlanKind.NOTHING, None, [], self.next_snapshot_id)
            if is_past_bound(snapshot, self.settings):
                self.ended = True
                return StreamPlan(PlanKind.END, None, [], self.next_snapshot_id)
            plan = read_follow_up_plan(
                self.file_io, self.table_root, schema, snapshot, self.settings
            )
            self.next_snapshot_id += 1
            if plan is not None:
                return plan

    def iterate(
        self, *, max_empty_plans: int | None = 1, poll_interval_seconds: float = 0.0
    ) -> Iterator[tuple[int, list[ChangeRow]]]:
        """Plans that read a snapshot, as ``(snapshot id, changes)``, as they appear: after a
        plan that found nothing new it waits ``poll_interval_seconds`` and looks again, and it
        stops after ``max_empty_plans`` such plans in a row (``None``: never).
        Consumer progress is recorded as rule 6 says: before handing out a snapshot
        (at-least-once: that snapshot), after the caller asked for the next (exactly-once: the
        checkpoint)."""
        empty = 0
        while max_empty_plans is None or empty < max_empty_plans:
            position = self.checkpoint()
            plan = self.plan()
            if plan.kind is PlanKind.END:
                return
            if plan.snapshot_id is None:
                empty = 0 if self.checkpoint() != position else empty + 1
                if poll_interval_seconds > 0:
                    time.sleep(poll_interval_seconds)
                continue
            empty = 0
            if self.settings.consumer_mode is ConsumerMode.AT_LEAST_ONCE:
                self.notify_checkpoint_complete(plan.snapshot_id)
            yield plan.snapshot_id, plan.changes
            self.notify_checkpoint_complete(self.checkpoint())
