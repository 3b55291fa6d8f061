"""Incremental reads: the changes a table went through between two snapshots, tags or times.

Spec: ``docs/flink/sql-query.mdx`` ("Batch Incremental"), ``docs/primary-key-table/
changelog-producer.md``; the seeds' changelog-producer sections. Java (0.9.0 unless said
otherwise): ``table/source/AbstractDataTableScan.createStartingScanner`` (case INCREMENTAL),
``table/source/snapshot/IncrementalStartingScanner``, ``IncrementalTagStartingScanner``,
``IncrementalTimeStampStartingScanner``, ``SnapshotReaderImpl.readIncrementalDiff``,
``table/source/splitread/IncrementalDiffSplitRead``, ``operation/MergeFileSplitRead``,
``mergetree/compact/IntervalPartition``, ``SortMergeReaderWithLoserTree``; main:
``IncrementalDeltaStartingScanner``, ``IncrementalDiffStartingScanner``.

Rules:

1. *Range.* ``incremental-between = "a,b"`` names two snapshot ids (``a`` exclusive, ``b``
   inclusive: the changes of snapshots ``a+1 .. b``) or two tags. ``a`` may be one below the
   earliest snapshot; ``b`` must not pass the latest; ``a > b`` is an error and ``a == b`` reads
   nothing. ``incremental-between-timestamp = "t1,t2"`` picks ``a`` = the latest snapshot
   committed at or before ``t1`` (one below the earliest when ``t1`` is before every snapshot)
   and ``b`` = the latest snapshot at or before ``t2`` (the latest snapshot when none is);
   nothing is read when ``t1`` is after the latest snapshot or ``t2`` before the earliest.
2. *Scan mode.* ``incremental-between-scan-mode``: ``delta`` reads the data files each APPEND
   snapshot added (COMPACT and OVERWRITE snapshots are skipped); ``changelog`` reads the
   changelog files of every snapshot but OVERWRITE ones; ``auto`` is ``delta`` for
   ``changelog-producer = none`` and ``changelog`` otherwise; ``diff`` (main only) compares the
   table states of ``a`` and ``b``. Between two *tags* the read is always a ``diff`` (main: unless
   ``incremental-between-tag-to-snapshot`` is true, then the tags' snapshot ids are used).
3. *Raw changes* (main's ``IncrementalDeltaStartingScanner``, whose splits are read without
   merging, and every streaming read): every record of every file read, in snapshot order, with
   its row kind. Rows of append tables are ``+I``.
4. *Merged changes* (Java 0.9's batch read and its ``audit_log``): the files of all snapshots in
   range are grouped by partition and bucket and read like one LSM bucket. The files are cut
   into *sections* of overlapping key ranges, each section into *sorted runs* of files with
   disjoint key ranges (``IntervalPartition``, runs in its priority queue's order). A section is
   merged in rounds: each round takes, for the smallest key at the head of any run, the head
   record of every run holding that key (at most one record per run), oldest first by
   ``sequence.field`` then sequence number (of two with equal order, the loser tree takes the
   one already waiting first), and merges them: one record passes unchanged, several are merged
   by the merge engine. A run that holds a key twice (a changelog file with ``-U`` and ``+U`` of
   one key) gives that key again in a later round, so a key can appear twice. A batch read then
   drops results that retract (``-U``, ``-D``); ``audit_log`` keeps them. A table with deletion
   vectors or the first-row engine reads only files above level 0 here too (0.9's batch scan
   filters levels for its incremental reads as for full ones): its delta and ``input``
   changelog files, all at level 0, read as nothing.
5. *Diff* (tags in 0.9, ``diff`` on main): per partition and bucket, the files both snapshots
   share are set aside. A bucket left with no *before* files reads its *after* files as in
   rule 4. Otherwise both sides are merged (rule 4, retractions dropped) into a before and an
   after state and compared as two runs: a key only after gives its after row (with its kind),
   a key in both gives the after row when the values differ, a key only before gives ``-D``
   only when retractions are kept. A batch read of a table with deletion vectors or the
   first-row engine uses files above level 0 only (as every batch scan does). Append tables
   give the rows of the after-only files.

Deletion vectors are not applied to delta and changelog files (new level-0 files and changelog
files never have one); they are applied in a diff.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cmp_to_key
from typing import TypeVar

from reference.errors import InvalidOptionError, SnapshotNotFoundError
from reference.io import FileIO
from reference.merge.engine import MergeSetup
from reference.merge.sequence import SequenceFields, compare_sequence
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.compare import compare_rows
from reference.spec.data import Row, RowKind
from reference.spec.data_file import DataFileMeta
from reference.spec.key_value import KeyValue
from reference.spec.manifest import FileKind, ManifestEntry
from reference.spec.options import (
    ChangelogProducer,
    IncrementalBetweenScanMode,
    option_value,
)
from reference.spec.schema import TableSchema
from reference.spec.snapshot import FIRST_SNAPSHOT_ID, CommitKind, Snapshot
from reference.store import metadata
from reference.store.query import load_schemas
from reference.store.read import (
    ChangeRow,
    apply_deletion_vector,
    apply_record_defaults,
    compute_data_file_path,
    compute_key_types,
    compute_read_defaults,
    compute_table_merge_setup,
    compute_value_mapper,
    read_deletion_vector,
    read_file_rows,
    read_key_values,
)
from reference.store.scan import (
    DataSplit,
    DeletionFile,
    compute_bucket_path,
    compute_live_entries,
    is_level_zero_skipped,
    list_snapshot_manifests,
    read_deletion_files,
    read_manifest,
    read_manifest_list,
)
from reference.store.write import merge_group

INCREMENTAL_BETWEEN = "incremental-between"
INCREMENTAL_BETWEEN_TIMESTAMP = "incremental-between-timestamp"
INCREMENTAL_BETWEEN_SCAN_MODE = "incremental-between-scan-mode"
INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT = "incremental-between-tag-to-snapshot"
RANGE_SEPARATOR = ","

T = TypeVar("T")


class ScanMode(Enum):
    """Which files an incremental read takes (rule 2, ``auto`` resolved)."""

    DELTA = "delta"
    CHANGELOG = "changelog"
    DIFF = "diff"


class ChangeView(Enum):
    """How the records read are turned into changes: rule 3 (``RAW``) or rule 4 (``MERGED``)."""

    RAW = "raw"
    MERGED = "merged"


# --------------------------------------------------------------------------------------------
# Parsing the options (rules 1 and 2)
# --------------------------------------------------------------------------------------------


def parse_range_text(option: str, text: str) -> tuple[str, str]:
    """``"a,b"`` into its two trimmed halves (Java ``CoreOptions.incrementalBetween``)."""
    parts = text.split(RANGE_SEPARATOR)
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
        raise InvalidOptionError(option, text, "expected two values separated by a comma")
    return parts[0].strip(), parts[1].strip()


def parse_snapshot_id_text(text: str) -> int | None:
    """A snapshot id written as a decimal Java ``long``, or ``None`` (then it names a tag)."""
    body = text[1:] if text[:1] in "+-" else text
    return int(text) if body.isdigit() and body.isascii() else None


def parse_timestamp_range(text: str) -> tuple[int, int]:
    """``incremental-between-timestamp``: two epoch-millisecond numbers."""
    start, end = parse_range_text(INCREMENTAL_BETWEEN_TIMESTAMP, text)
    first, second = parse_snapshot_id_text(start), parse_snapshot_id_text(end)
    if first is None or second is None:
        raise InvalidOptionError(
            INCREMENTAL_BETWEEN_TIMESTAMP, text, "expected two epoch-millisecond numbers"
        )
    return first, second


def resolve_scan_mode(mode: IncrementalBetweenScanMode, producer: ChangelogProducer) -> ScanMode:
    """Rule 2: ``auto`` reads changelog files unless the table writes none."""
    if mode is IncrementalBetweenScanMode.AUTO:
        return ScanMode.DELTA if producer is ChangelogProducer.NONE else ScanMode.CHANGELOG
    return ScanMode(mode.value)


# --------------------------------------------------------------------------------------------
# Resolving the range (rule 1)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChangeRange:
    """What an incremental read reads: the snapshots ``start_id + 1 .. end_id`` (delta and
    changelog), or for a diff the two table states ``before`` (``None``: an empty table) and
    ``after`` (``None``: nothing to read)."""

    mode: ScanMode
    start_id: int = 0
    end_id: int = 0
    before: Snapshot | None = None
    after: Snapshot | None = None

    @property
    def is_empty(self) -> bool:
        if self.mode is ScanMode.DIFF:
            return self.after is None
        return self.start_id >= self.end_id


def compute_id_range(
    file_io: FileIO, table_root: str, start_id: int, end_id: int, mode: ScanMode
) -> ChangeRange:
    """Rule 1 for snapshot ids: check the range against the snapshots present."""
    if start_id > end_id:
        raise InvalidOptionError(
            INCREMENTAL_BETWEEN, f"{start_id},{end_id}", "the start must not exceed the end"
        )
    earliest = metadata.find_earliest_snapshot_id(file_io, table_root)
    latest = metadata.find_latest_snapshot_id(file_io, table_root)
    if earliest is None or latest is None or start_id == end_id:
        return ChangeRange(mode)
    if start_id < earliest - 1 or end_id > latest:
        raise SnapshotNotFoundError(
            f"snapshot range ({start_id}, {end_id}] is outside the available snapshots "
            f"[{earliest}, {latest}]",
            path=table_root,
        )
    if mode is ScanMode.DIFF:
        before = metadata.read_snapshot(file_io, table_root, start_id)
        after = metadata.read_snapshot(file_io, table_root, end_id)
        return ChangeRange(mode, before=before, after=after)
    return ChangeRange(mode, start_id, end_id)


def compute_tag_range(
    file_io: FileIO, table_root: str, start_tag: str, end_tag: str
) -> ChangeRange:
    """Rule 2: a diff of the two tagged snapshots; the end must be the later one."""
    before = metadata.read_tag(file_io, table_root, start_tag).snapshot
    after = metadata.read_tag(file_io, table_root, end_tag).snapshot
    if after.id == before.id:
        return ChangeRange(ScanMode.DIFF)
    if after.id < before.id:
        raise InvalidOptionError(
            INCREMENTAL_BETWEEN,
            f"{start_tag},{end_tag}",
            f"tag '{end_tag}' (snapshot {after.id}) must not be earlier than tag '{start_tag}' "
            f"(snapshot {before.id})",
        )
    return ChangeRange(ScanMode.DIFF, before=before, after=after)


def compute_between_range(
    file_io: FileIO,
    table_root: str,
    start: str,
    end: str,
    mode: ScanMode,
    *,
    tag_to_snapshot: bool = False,
) -> ChangeRange:
    """Rules 1 and 2 for ``incremental-between``: two tags (main looks tags up first), else two
    snapshot ids."""
    tags = set(metadata.list_tag_names(file_io, table_root))
    if start in tags and end in tags:
        if not tag_to_snapshot:
            return compute_tag_range(file_io, table_root, start, end)
        first = metadata.read_tag(file_io, table_root, start).snapshot.id
        last = metadata.read_tag(file_io, table_root, end).snapshot.id
        return compute_id_range(file_io, table_root, first, last, mode)
    start_id, end_id = parse_snapshot_id_text(start), parse_snapshot_id_text(end)
    if start_id is None or end_id is None:
        raise InvalidOptionError(
            INCREMENTAL_BETWEEN, f"{start},{end}", "names neither two tags nor two snapshot ids"
        )
    return compute_id_range(file_io, table_root, start_id, end_id, mode)


def find_snapshot_id_at_or_before(snapshots: Sequence[Snapshot], time_millis: int) -> int | None:
    """The latest snapshot committed at or before ``time_millis`` (``None``: all are later)."""
    found = [s.id for s in snapshots if s.time_millis <= time_millis]
    return found[-1] if found else None


def compute_timestamp_range(
    file_io: FileIO, table_root: str, start_millis: int, end_millis: int, mode: ScanMode
) -> ChangeRange:
    """Rule 1 for ``incremental-between-timestamp``."""
    if start_millis > end_millis:
        raise InvalidOptionError(
            INCREMENTAL_BETWEEN_TIMESTAMP,
            f"{start_millis},{end_millis}",
            "the start must not exceed the end",
        )
    snapshots = [
        metadata.read_snapshot(file_io, table_root, snapshot_id)
        for snapshot_id in metadata.list_snapshot_ids(file_io, table_root)
    ]
    if not snapshots or start_millis > snapshots[-1].time_millis:
        return ChangeRange(mode)
    if end_millis < snapshots[0].time_millis:
        return ChangeRange(mode)
    start_id = find_snapshot_id_at_or_before(snapshots, start_millis)
    end_id = find_snapshot_id_at_or_before(snapshots, end_millis)
    last = snapshots[-1].id if end_id is None else end_id
    if mode is ScanMode.DIFF:
        return compute_timestamp_diff_range(snapshots, start_id, last)
    first = snapshots[0].id - 1 if start_id is None else start_id
    return compute_id_range(file_io, table_root, first, last, mode)


def compute_timestamp_diff_range(
    snapshots: Sequence[Snapshot], start_id: int | None, end_id: int
) -> ChangeRange:
    """Main's diff between times: before the earliest snapshot the start is an empty table when
    the earliest snapshot is the first one ever, else the earliest snapshot."""
    by_id = {snapshot.id: snapshot for snapshot in snapshots}
    after = by_id[end_id]
    if start_id is not None:
        return ChangeRange(ScanMode.DIFF, before=by_id[start_id], after=after)
    if snapshots[0].id == FIRST_SNAPSHOT_ID:
        return ChangeRange(ScanMode.DIFF, after=after)
    return ChangeRange(ScanMode.DIFF, before=snapshots[0], after=after)


def compute_change_range(
    file_io: FileIO, table_root: str, schema: TableSchema, options: Mapping[str, str]
) -> ChangeRange:
    """Rules 1 and 2 from the incremental options (merged over the table's own options)."""
    merged = {**schema.options, **options}
    producer: ChangelogProducer = option_value(merged, "changelog-producer")
    mode = resolve_scan_mode(option_value(merged, INCREMENTAL_BETWEEN_SCAN_MODE), producer)
    between = merged.get(INCREMENTAL_BETWEEN)
    if between is not None:
        start, end = parse_range_text(INCREMENTAL_BETWEEN, between)
        tag_to_snapshot = bool(option_value(merged, INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT))
        return compute_between_range(
            file_io, table_root, start, end, mode, tag_to_snapshot=tag_to_snapshot
        )
    timestamps = merged.get(INCREMENTAL_BETWEEN_TIMESTAMP)
    if timestamps is not None:
        start_millis, end_millis = parse_timestamp_range(timestamps)
        return compute_timestamp_range(file_io, table_root, start_millis, end_millis, mode)
    raise InvalidOptionError(
        INCREMENTAL_BETWEEN, None, "an incremental read needs incremental-between(-timestamp)"
    )


# --------------------------------------------------------------------------------------------
# Which files (rule 2)
# --------------------------------------------------------------------------------------------


def is_snapshot_scanned(snapshot: Snapshot, mode: ScanMode) -> bool:
    """Delta reads take APPEND snapshots only; changelog reads every snapshot but OVERWRITE."""
    if mode is ScanMode.DELTA:
        return snapshot.commit_kind is CommitKind.APPEND
    return snapshot.commit_kind is not CommitKind.OVERWRITE


def read_list_entries(file_io: FileIO, table_root: str, manifest_list: str) -> list[ManifestEntry]:
    return [
        entry
        for meta in read_manifest_list(file_io, table_root, manifest_list)
        for entry in read_manifest(file_io, table_root, meta.file_name)
    ]


def read_snapshot_change_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot, mode: ScanMode
) -> list[ManifestEntry]:
    """The files one snapshot contributes: the ADD entries of its delta manifest list (delta)
    or its changelog manifest list (changelog), in manifest order."""
    if not is_snapshot_scanned(snapshot, mode):
        return []
    if mode is ScanMode.DELTA:
        entries = read_list_entries(file_io, table_root, snapshot.delta_manifest_list)
    elif snapshot.changelog_manifest_list is None:
        return []
    else:
        entries = read_list_entries(file_io, table_root, snapshot.changelog_manifest_list)
    return [entry for entry in entries if entry.kind is FileKind.ADD]


# --------------------------------------------------------------------------------------------
# Reading records of files
# --------------------------------------------------------------------------------------------


def compute_split_file_order(
    schema: TableSchema, files: Sequence[DataFileMeta]
) -> list[DataFileMeta]:
    """An append table's files in minimum-sequence-number order, so that a bucket is read in
    the order it was written (Java ``AppendOnlySplitGenerator`` with
    ``BucketedAppendCompactManager.fileComparator``); a primary-key table's as they come."""
    if schema.is_primary_key_table:
        return list(files)
    return sorted(files, key=lambda meta: meta.min_sequence_number)


def compute_splits(
    table_root: str,
    schema: TableSchema,
    snapshot_id: int,
    entries: Sequence[ManifestEntry],
    deletion_files: Mapping[tuple[bytes, int], Mapping[str, DeletionFile]] | None = None,
) -> list[DataSplit]:
    """Entries grouped by (partition, bucket) into splits, buckets in first-seen order."""
    partition_types = [f.type for f in schema.partition_type.fields]
    grouped: dict[tuple[bytes, int], list[DataFileMeta]] = {}
    for entry in entries:
        grouped.setdefault((entry.partition, entry.bucket), []).append(entry.file)
    splits = []
    for (partition_bytes, bucket), files in grouped.items():
        partition = deserialize_binary_row(partition_bytes, partition_types)
        found = (deletion_files or {}).get((partition_bytes, bucket), {})
        splits.append(
            DataSplit(
                snapshot_id=snapshot_id,
                partition=partition,
                partition_bytes=partition_bytes,
                bucket=bucket,
                bucket_path=compute_bucket_path(table_root, schema, partition, bucket),
                files=tuple(compute_split_file_order(schema, files)),
                deletion_files=found,
            )
        )
    return splits


def read_append_records(
    file_io: FileIO,
    split: DataSplit,
    meta: DataFileMeta,
    schema: TableSchema,
    file_schema: TableSchema,
) -> list[KeyValue]:
    """An append file's rows as ``+I`` records (sequence number: the file's first plus the
    row's position)."""
    rows = read_file_rows(file_io, compute_data_file_path(split, meta), file_schema.fields)
    deletion_file = split.deletion_files.get(meta.file_name)
    vector = None if deletion_file is None else read_deletion_vector(file_io, deletion_file)
    kept = set(map(id, apply_deletion_vector(rows, vector)))
    mapper = compute_value_mapper(file_schema.fields, schema.fields)
    return [
        KeyValue((), meta.min_sequence_number + position, RowKind.INSERT, mapper(row), meta.level)
        for position, row in enumerate(rows)
        if id(row) in kept
    ]


def read_file_records(
    file_io: FileIO,
    split: DataSplit,
    meta: DataFileMeta,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
) -> list[KeyValue]:
    """Every record of one data or changelog file, in file order, in ``schema``'s fields."""
    if schema.is_primary_key_table:
        return read_key_values(file_io, split, meta, schema, schemas[meta.schema_id])
    return read_append_records(file_io, split, meta, schema, schemas[meta.schema_id])


def read_raw_split(
    file_io: FileIO, split: DataSplit, schema: TableSchema, schemas: Mapping[int, TableSchema]
) -> list[KeyValue]:
    """Rule 3: the records of the split's files, file after file (Java's no-merge reader)."""
    return [
        record
        for meta in split.files
        for record in read_file_records(file_io, split, meta, schema, schemas)
    ]


# --------------------------------------------------------------------------------------------
# Sections and sorted runs (rule 4, Java IntervalPartition)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyBounds:
    """A file with its decoded min and max key."""

    meta: DataFileMeta
    min_key: Row
    max_key: Row


def compute_key_bounds(
    files: Sequence[DataFileMeta], key_types: Sequence[t.DataType]
) -> list[KeyBounds]:
    """Files with decoded bounds, ordered by min key then max key (a stable sort)."""
    bounds = [
        KeyBounds(
            f,
            deserialize_binary_row(f.min_key, key_types),
            deserialize_binary_row(f.max_key, key_types),
        )
        for f in files
    ]

    def compare(left: KeyBounds, right: KeyBounds) -> int:
        return compare_rows(key_types, left.min_key, right.min_key) or compare_rows(
            key_types, left.max_key, right.max_key
        )

    return sorted(bounds, key=cmp_to_key(compare))


Compare = Callable[[T, T], int]


def heap_push(heap: list[T], item: T, compare: Compare[T]) -> None:
    """``java.util.PriorityQueue.offer``: append, then sift up while smaller than the parent."""
    position = len(heap)
    heap.append(item)
    while position > 0:
        parent = (position - 1) // 2
        if compare(item, heap[parent]) >= 0:
            break
        heap[position] = heap[parent]
        position = parent
    heap[position] = item


def heap_poll(heap: list[T], compare: Compare[T]) -> T:
    """``java.util.PriorityQueue.poll``: take the head, move the last item down from the top."""
    head, last = heap[0], heap.pop()
    if not heap:
        return head
    position, half = 0, len(heap) // 2
    while position < half:
        child = 2 * position + 1
        if child + 1 < len(heap) and compare(heap[child], heap[child + 1]) > 0:
            child += 1
        if compare(last, heap[child]) <= 0:
            break
        heap[position] = heap[child]
        position = child
    heap[position] = last
    return head


def compute_sorted_runs(
    section: Sequence[KeyBounds], key_types: Sequence[t.DataType]
) -> list[list[KeyBounds]]:
    """Split one section into runs of files with disjoint key ranges: each file joins the run
    whose last file ends first when it starts after that end, else opens a new run. The runs
    come out in the order of Java's priority queue (it decides who wins ties when merging)."""

    def by_end(left: list[KeyBounds], right: list[KeyBounds]) -> int:
        return compare_rows(key_types, left[-1].max_key, right[-1].max_key)

    heap: list[list[KeyBounds]] = [[section[0]]]
    for bounds in section[1:]:
        first_ending = heap_poll(heap, by_end)
        if compare_rows(key_types, bounds.min_key, first_ending[-1].max_key) > 0:
            first_ending.append(bounds)
        else:
            heap_push(heap, [bounds], by_end)
        heap_push(heap, first_ending, by_end)
    return heap


def compute_sections(
    files: Sequence[DataFileMeta], key_types: Sequence[t.DataType]
) -> list[list[list[DataFileMeta]]]:
    """Rule 4: sections of overlapping key ranges (in key order), each as sorted runs."""
    sections: list[list[KeyBounds]] = []
    bound: Row | None = None
    for bounds in compute_key_bounds(files, key_types):
        if not sections or (
            bound is not None and compare_rows(key_types, bounds.min_key, bound) > 0
        ):
            sections.append([])
            bound = None
        sections[-1].append(bounds)
        if bound is None or compare_rows(key_types, bounds.max_key, bound) > 0:
            bound = bounds.max_key
    return [
        [[b.meta for b in run] for run in compute_sorted_runs(section, key_types)]
        for section in sections
    ]


# --------------------------------------------------------------------------------------------
# Merge rounds (rule 4, Java's loser tree)
# --------------------------------------------------------------------------------------------


class LeafState(Enum):
    """Where a run's head stands in the loser tree (Java ``LoserTree.State``)."""

    LOSER_WITH_NEW_KEY = ("loser-new", False)
    LOSER_WITH_SAME_KEY = ("loser-same", False)
    LOSER_POPPED = ("loser-popped", False)
    WINNER_WITH_NEW_KEY = ("winner-new", True)
    WINNER_WITH_SAME_KEY = ("winner-same", True)
    WINNER_POPPED = ("winner-popped", True)

    def __init__(self, label: str, is_winner: bool) -> None:
        self.label = label
        self.is_winner = is_winner


NO_INDEX = -1


@dataclass
class Leaf:
    """A run being read by the loser tree: its head record and tree state (mutable: this is
    the algorithm's working memory, not a spec record)."""

    records: Sequence[KeyValue]
    next_position: int = 0
    head: KeyValue | None = None
    first_same_key_index: int = NO_INDEX
    state: LeafState = LeafState.WINNER_WITH_NEW_KEY

    def advance(self) -> None:
        self.first_same_key_index = NO_INDEX
        self.state = LeafState.WINNER_WITH_NEW_KEY
        position = self.next_position
        self.head = self.records[position] if position < len(self.records) else None
        self.next_position = position + 1

    def pop(self) -> KeyValue | None:
        self.state = LeafState.WINNER_POPPED
        return self.head

    def remember_same_key(self, index: int) -> None:
        if self.first_same_key_index == NO_INDEX:
            self.first_same_key_index = index


@dataclass
class LoserTree:
    """Java's ``LoserTree`` over sorted runs. ``compare_keys`` orders keys; ``compare_order``
    orders two records of one key oldest first. Of two records of one key with the same order
    the one already waiting in the tree is taken first (Java keeps the parent on a tie)."""

    leaves: list[Leaf]
    compare_keys: Compare[Row]
    compare_order: Compare[KeyValue]
    tree: list[int] = field(default_factory=list)

    def is_first_winner(self, parent: KeyValue | None, child: KeyValue | None) -> int:
        """Java's first comparator: > 0 when ``parent``'s key is smaller (it wins)."""
        if parent is None:
            return -1
        if child is None:
            return 1
        return self.compare_keys(child.key, parent.key)

    def is_second_winner(self, parent: KeyValue | None, child: KeyValue | None) -> int:
        """Java's second comparator: > 0 when ``parent`` is older (it wins)."""
        if parent is None:
            return -1
        if child is None:
            return 1
        return -self.compare_order(parent, child)

    def initialize(self) -> None:
        self.tree = [NO_INDEX] * len(self.leaves)
        for index in reversed(range(len(self.leaves))):
            self.leaves[index].advance()
            self.adjust(index)

    def adjust(self, winner: int) -> None:
        parent = (winner + len(self.leaves)) // 2
        while parent > 0 and winner >= 0:
            node = self.leaves[winner]
            if self.tree[parent] == NO_INDEX:
                node.state = LeafState.LOSER_WITH_NEW_KEY
            elif node.state is LeafState.WINNER_WITH_NEW_KEY:
                self.adjust_new_key(parent, self.leaves[self.tree[parent]], node)
            elif node.state is LeafState.WINNER_WITH_SAME_KEY:
                self.adjust_same_key(parent, self.leaves[self.tree[parent]], node)
            elif node.first_same_key_index == NO_INDEX:
                parent = NO_INDEX  # popped, and no other head holds its key: stop here
            else:
                parent = node.first_same_key_index
                node.state = LeafState.LOSER_POPPED
                self.leaves[self.tree[parent]].state = LeafState.WINNER_WITH_SAME_KEY
            if not node.state.is_winner:
                winner, self.tree[parent] = self.tree[parent], winner
            parent = int(parent / 2)
        self.tree[0] = winner

    def adjust_same_key(self, index: int, parent: Leaf, node: Leaf) -> None:
        if parent.state is LeafState.LOSER_WITH_SAME_KEY:
            if self.is_second_winner(parent.head, node.head) > 0:
                parent.state = LeafState.WINNER_WITH_SAME_KEY
                node.state = LeafState.LOSER_WITH_SAME_KEY
                parent.remember_same_key(index)
            else:
                node.remember_same_key(index)
        elif parent.state not in (LeafState.LOSER_WITH_NEW_KEY, LeafState.LOSER_POPPED):
            raise AssertionError(f"loser tree: parent in state {parent.state.label}")

    def adjust_new_key(self, index: int, parent: Leaf, node: Leaf) -> None:
        if parent.state is LeafState.LOSER_WITH_NEW_KEY:
            first = self.is_first_winner(parent.head, node.head)
            if first == 0:
                if self.is_second_winner(parent.head, node.head) < 0:
                    parent.state = LeafState.LOSER_WITH_SAME_KEY
                    node.remember_same_key(index)
                else:
                    node.state = LeafState.LOSER_WITH_SAME_KEY
                    parent.state = LeafState.WINNER_WITH_NEW_KEY
                    parent.remember_same_key(index)
            elif first > 0:
                parent.state = LeafState.WINNER_WITH_NEW_KEY
                node.state = LeafState.LOSER_WITH_NEW_KEY
        elif parent.state is LeafState.LOSER_POPPED:
            parent.state = LeafState.WINNER_POPPED
            parent.first_same_key_index = NO_INDEX
            node.state = LeafState.LOSER_WITH_NEW_KEY
        else:
            raise AssertionError(f"loser tree: parent in state {parent.state.label}")

    def adjust_for_next_round(self) -> None:
        winner = self.leaves[self.tree[0]]
        while winner.state is LeafState.WINNER_POPPED:
            winner.advance()
            self.adjust(self.tree[0])
            winner = self.leaves[self.tree[0]]

    def pop_winner(self) -> KeyValue | None:
        winner = self.leaves[self.tree[0]]
        if winner.state is LeafState.WINNER_POPPED:
            return None
        record = winner.pop()
        self.adjust(self.tree[0])
        return record

    def peek_winner(self) -> KeyValue | None:
        winner = self.leaves[self.tree[0]]
        return None if winner.state is LeafState.WINNER_POPPED else winner.head


def compare_merge_order_0_9(left: KeyValue, right: KeyValue, sequence: SequenceFields) -> int:
    """Java 0.9's merge order of two records of one key: sequence fields, then sequence number
    (main also puts a retraction before an add of the same sequence number)."""
    return compare_sequence(left.value, right.value, sequence) or (
        (left.sequence_number > right.sequence_number)
        - (left.sequence_number < right.sequence_number)
    )


def compute_merge_rounds(
    runs: Sequence[Sequence[KeyValue]], key_types: Sequence[t.DataType], setup: MergeSetup
) -> list[list[KeyValue]]:
    """Rule 4's rounds: per round, the head record of every run whose head holds the smallest
    key, in the order Java's loser tree hands them to the merge function (oldest first; see
    :class:`LoserTree` for ties)."""
    if not runs:
        return []
    tree = LoserTree(
        [Leaf(run) for run in runs],
        lambda left, right: compare_rows(key_types, left, right),
        lambda left, right: compare_merge_order_0_9(left, right, setup.sequence),
    )
    tree.initialize()
    rounds: list[list[KeyValue]] = []
    while True:
        tree.adjust_for_next_round()
        first = tree.pop_winner()
        if first is None:
            return rounds
        group = [first]
        while tree.peek_winner() is not None:
            record = tree.pop_winner()
            assert record is not None
            group.append(record)
        rounds.append(group)


def merge_round(group: Sequence[KeyValue], setup: MergeSetup) -> KeyValue | None:
    """One record passes unchanged; several are merged in the order given (Java
    ``ReducerMergeFunctionWrapper``)."""
    return merge_group(group, setup)


def read_merged_split(
    file_io: FileIO,
    split: DataSplit,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    *,
    keep_retractions: bool,
) -> list[KeyValue]:
    """Rule 4 for one split of a primary-key table (Java ``MergeFileSplitRead
    .createMergeReader``); append tables read raw."""
    if not schema.is_primary_key_table:
        return read_raw_split(file_io, split, schema, schemas)
    key_types = compute_key_types(schema)
    setup = compute_table_merge_setup(schema)
    results: list[KeyValue] = []
    for section in compute_sections(split.files, key_types):
        runs = [
            [r for meta in run for r in read_file_records(file_io, split, meta, schema, schemas)]
            for run in section
        ]
        for group in compute_merge_rounds(runs, key_types, setup):
            merged = merge_round(group, setup)
            if merged is not None and (keep_retractions or merged.kind.is_add):
                results.append(merged)
    return results


# --------------------------------------------------------------------------------------------
# Diff (rule 5)
# --------------------------------------------------------------------------------------------


def read_state_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot | None, schema: TableSchema
) -> list[ManifestEntry]:
    """The live files a batch scan of ``snapshot`` reads (level 0 skipped where batch reads
    skip it); nothing for no snapshot."""
    if snapshot is None:
        return []
    entries = [
        entry
        for meta in list_snapshot_manifests(file_io, table_root, snapshot)
        for entry in read_manifest(file_io, table_root, meta.file_name)
    ]
    live = compute_live_entries(entries).live
    if is_level_zero_skipped(schema):
        return [entry for entry in live if entry.file.level > 0]
    return live


BEFORE_LEVEL = -(2**31)
"""Level marking a record of the before state (Java ``IncrementalDiffSplitRead``)."""
AFTER_LEVEL = 2**31 - 1
"""Level marking a record of the after state."""


def compute_diff_record(group: Sequence[KeyValue], *, keep_retractions: bool) -> KeyValue | None:
    """Rule 5 for the records of one key, each marked with :data:`BEFORE_LEVEL` or
    :data:`AFTER_LEVEL`, oldest first (Java ``IncrementalDiffSplitRead.DiffMerger``)."""
    if len(group) == 1:
        only = group[0]
        if only.level == AFTER_LEVEL:
            return only
        return replace(only, kind=RowKind.DELETE) if keep_retractions else None
    older, latest = group
    if latest.level == AFTER_LEVEL and latest.value != older.value:
        return latest
    return None


def compute_diff(
    before: Sequence[KeyValue],
    after: Sequence[KeyValue],
    key_types: Sequence[t.DataType],
    setup: MergeSetup,
    *,
    keep_retractions: bool,
) -> list[KeyValue]:
    """Rule 5 over two merged states (each in key order, a key at most once), merged as two
    runs of a loser tree."""
    runs = [
        [replace(r, level=BEFORE_LEVEL) for r in before],
        [replace(r, level=AFTER_LEVEL) for r in after],
    ]
    results = []
    for group in compute_merge_rounds(runs, key_types, setup):
        record = compute_diff_record(group, keep_retractions=keep_retractions)
        if record is not None:
            results.append(record)
    return results


def compute_file_key(entry: ManifestEntry) -> tuple[bytes, int, str, int]:
    return (entry.partition, entry.bucket, entry.file.file_name, entry.file.level)


def compute_unshared_entries(
    before: Sequence[ManifestEntry], after: Sequence[ManifestEntry]
) -> tuple[list[ManifestEntry], list[ManifestEntry]]:
    """Rule 5: each side's entries minus the files both sides hold."""
    shared = {compute_file_key(e) for e in before} & {compute_file_key(e) for e in after}
    return (
        [e for e in before if compute_file_key(e) not in shared],
        [e for e in after if compute_file_key(e) not in shared],
    )


def compute_state_splits(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    snapshot: Snapshot | None,
    entries: Sequence[ManifestEntry],
) -> dict[tuple[bytes, int], DataSplit]:
    """One side's files by (partition, bucket), with that snapshot's deletion vectors."""
    if snapshot is None:
        return {}
    with_vectors = schema.core_options.deletion_vectors_enabled
    vectors = read_deletion_files(file_io, table_root, snapshot, schema) if with_vectors else {}
    splits = compute_splits(table_root, schema, snapshot.id, entries, vectors)
    return {(split.partition_bytes, split.bucket): split for split in splits}


def read_bucket_diff(
    file_io: FileIO,
    old: DataSplit | None,
    new: DataSplit | None,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    *,
    keep_retractions: bool,
) -> list[KeyValue]:
    """Rule 5 for one bucket's unshared files (Java picks the plain merge reader when there
    are no before files)."""
    if old is None:
        assert new is not None
        return read_merged_split(file_io, new, schema, schemas, keep_retractions=keep_retractions)
    before = read_merged_split(file_io, old, schema, schemas, keep_retractions=False)
    after = (
        []
        if new is None
        else read_merged_split(file_io, new, schema, schemas, keep_retractions=False)
    )
    key_types = compute_key_types(schema)
    setup = compute_table_merge_setup(schema)
    return compute_diff(before, after, key_types, setup, keep_retractions=keep_retractions)


def read_diff(
    file_io: FileIO,
    table_root: str,
    change_range: ChangeRange,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    *,
    keep_retractions: bool,
) -> list[KeyValue]:
    """Rule 5: the changes from ``change_range.before`` (or an empty table) to ``after``."""
    before, after = change_range.before, change_range.after
    before_entries, after_entries = compute_unshared_entries(
        read_state_entries(file_io, table_root, before, schema),
        read_state_entries(file_io, table_root, after, schema),
    )
    news = compute_state_splits(file_io, table_root, schema, after, after_entries)
    if not schema.is_primary_key_table:
        return [r for s in news.values() for r in read_raw_split(file_io, s, schema, schemas)]
    olds = compute_state_splits(file_io, table_root, schema, before, before_entries)
    results: list[KeyValue] = []
    for bucket in dict.fromkeys([*olds, *news]):
        results += read_bucket_diff(
            file_io,
            olds.get(bucket),
            news.get(bucket),
            schema,
            schemas,
            keep_retractions=keep_retractions,
        )
    return results


# --------------------------------------------------------------------------------------------
# The incremental read
# --------------------------------------------------------------------------------------------


def read_range_entries(
    file_io: FileIO, table_root: str, change_range: ChangeRange
) -> list[ManifestEntry]:
    """The files of snapshots ``start_id + 1 .. end_id`` (rule 2), snapshot after snapshot."""
    entries: list[ManifestEntry] = []
    for snapshot_id in range(change_range.start_id + 1, change_range.end_id + 1):
        snapshot = metadata.read_snapshot(file_io, table_root, snapshot_id)
        entries += read_snapshot_change_entries(file_io, table_root, snapshot, change_range.mode)
    return entries


def read_range_records(
    file_io: FileIO,
    table_root: str,
    change_range: ChangeRange,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    *,
    view: ChangeView,
    keep_retractions: bool,
) -> list[KeyValue]:
    """Rules 3-5: the change records of a resolved range."""
    if change_range.is_empty:
        return []
    if change_range.mode is ScanMode.DIFF:
        return read_diff(
            file_io, table_root, change_range, schema, schemas, keep_retractions=keep_retractions
        )
    if view is ChangeView.RAW:
        records: list[KeyValue] = []
        for snapshot_id in range(change_range.start_id + 1, change_range.end_id + 1):
            snapshot = metadata.read_snapshot(file_io, table_root, snapshot_id)
            entries = read_snapshot_change_entries(file_io, table_root, snapshot, change_range.mode)
            for split in compute_splits(table_root, schema, snapshot_id, entries):
                records += read_raw_split(file_io, split, schema, schemas)
        return records
    entries = read_range_entries(file_io, table_root, change_range)
    if is_level_zero_skipped(schema):
        entries = [entry for entry in entries if entry.file.level > 0]
    splits = compute_splits(table_root, schema, change_range.end_id, entries)
    return [
        record
        for split in splits
        for record in read_merged_split(
            file_io, split, schema, schemas, keep_retractions=keep_retractions
        )
    ]


@dataclass(frozen=True)
class IncrementalResult:
    """The changes of an incremental read, with the range and schema that produced them.
    ``records`` keep sequence numbers (``audit_log``'s ``_SEQUENCE_NUMBER``)."""

    schema: TableSchema
    change_range: ChangeRange
    records: list[KeyValue]

    @property
    def changes(self) -> list[ChangeRow]:
        return [(record.kind, record.value) for record in self.records]


def read_changes(
    file_io: FileIO,
    table_root: str,
    options: Mapping[str, str],
    *,
    view: ChangeView = ChangeView.RAW,
    keep_retractions: bool = True,
) -> IncrementalResult:
    """Rules 1-5: the changes selected by ``options`` (``incremental-between``,
    ``incremental-between-timestamp``, ``incremental-between-scan-mode``,
    ``incremental-between-tag-to-snapshot``), in the table's latest schema.

    ``view=RAW, keep_retractions=True`` is main's Java API (and every streaming read);
    ``view=MERGED, keep_retractions=False`` is Java 0.9's batch read (what Flink SQL returns);
    ``view=MERGED, keep_retractions=True`` is Java 0.9's ``audit_log``. A raw view without
    retractions is main's Flink batch SQL, which drops ``-D`` (and ``-U``) records.
    """
    schema = metadata.read_latest_schema(file_io, table_root)
    schemas = load_schemas(file_io, table_root)
    change_range = compute_change_range(file_io, table_root, schema, options)
    records = read_range_records(
        file_io,
        table_root,
        change_range,
        schema,
        schemas,
        view=view,
        keep_retractions=keep_retractions,
    )
    if not keep_retractions:
        records = [record for record in records if record.kind.is_add]
    records = apply_record_defaults(records, compute_read_defaults(schema))
    return IncrementalResult(schema, change_range, records)
