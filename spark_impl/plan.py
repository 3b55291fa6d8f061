"""Driver-side planning of a batch read: snapshot, schema, live files, pruning, splits.

This is spark_impl's own planner, not a copy of ``reference.store.scan`` (see
docs/architecture.md, "The planning decision"): two planners with one shape would share their
bugs and the differential tests between them would prove little. It shares with the reference
only what the spec defines once: the file identity and ADD/DELETE replay
(``reference.spec.file_entry``), the bucket path and every other path rule
(``reference.layout``), predicate evaluation and the codecs (``reference.spec``). Metadata comes
through :mod:`spark_impl.metadata`, whose cache of decoded manifests serves repeated plans.
:func:`plan_read` is a pipeline of named steps: :func:`read_matching_entries` (manifests
pruned by partition statistics), the replay, :func:`choose_files` (:func:`is_pruned`, with the
partition filter decided once per partition, then :func:`is_pruned_by_index`) and
:func:`compute_file_ref`.

Steps of :func:`plan_read`:

1. Resolve the snapshot: the latest (``snapshot/LATEST`` hint trusted only when that snapshot
   exists and the next one does not, otherwise the directory listing), a snapshot id, a tag, or
   the latest snapshot committed at or before a timestamp (binary search between the earliest
   and the latest snapshot, as Java ``SnapshotManager.earlierOrEqualTimeMills``).
2. Choose the read schema: the latest schema, or for a time-travel read the schema the selected
   snapshot was committed with (Java ``AbstractFileStoreTable.tryTimeTravel``).
3. Replay the base then the delta manifest list: ADD puts a file in the live set, DELETE takes it
   out (identity: partition, bucket, level, name, extra files, embedded index, external path).
4. Prune: manifests by partition statistics, entries by partition value, files of primary-key
   tables by key statistics and files of append tables by value statistics, then by their
   embedded file index (:mod:`spark_impl.file_index` rule 6; ``.index`` files are consulted
   only when a file is read). Level-0 files are skipped for primary-key tables with deletion
   vectors or the first-row engine.
5. Group the live files by (partition, bucket) into :class:`Split` records, small and picklable,
   with the deletion-vector ranges of their files from the snapshot's index manifest and, for
   append tables, where each file's index is (embedded bytes or ``.index`` file name).

``spark_impl.read.count_scan_files`` counts what a filtered scan plans and reads (files their
``.index`` file rules out are planned but not read).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from reference import layout
from reference.errors import SnapshotNotFoundError, naming_file
from reference.io import FileIO
from reference.layout import compute_bucket_path
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.data_file import DataFileMeta
from reference.spec.deletion_vector import DELETION_VECTORS_INDEX_TYPE as DELETION_VECTORS_INDEX
from reference.spec.manifest import (
    FileKind,
    IndexFileMeta,
    ManifestEntry,
    ManifestFileMeta,
)
from reference.spec.options import MergeEngine
from reference.spec.predicate import (
    And,
    FieldStats,
    Predicate,
    compute_fields,
    is_row_matching,
    is_stats_matching,
)
from reference.spec.row_tracking import is_data_evolution_enabled
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import Snapshot, decode_tag
from reference.spec.stats import SimpleStats
from spark_impl import file_index
from spark_impl.metadata import (
    find_earliest_snapshot_id,
    find_latest_snapshot_id,
    latest_schema_id,
    read_index_entries,
    read_manifest_list,
    read_manifests,
    read_schema_json,
    read_snapshot,
    read_snapshot_file,
    replay_entries,
)

compute_bucket_dir = compute_bucket_path
"""The bucket directory rule; it lives in ``reference.layout`` (one path rule, two engines)."""


# --------------------------------------------------------------------------------------------
# Records shipped to executors
# --------------------------------------------------------------------------------------------


class DeletionFileRef(NamedTuple):
    """A data file's deletion vector: a byte range of a deletion-vectors index file."""

    path: str
    offset: int
    length: int


@dataclass(frozen=True)
class DataFileRef:
    """What an executor needs to read one data file."""

    path: str
    schema_id: int
    level: int
    row_count: int
    min_sequence_number: int
    deletion: DeletionFileRef | None = None
    index: bytes | str | None = None
    """An append-table file's index: its embedded container, or its ``.index`` file's name."""
    first_row_id: int | None = None
    max_sequence_number: int = 0
    write_cols: tuple[str, ...] | None = None
    """Row tracking / data evolution (Paimon 1.x): the file's row ids and the columns it holds."""
    file_size: int = 0
    delete_row_count: int | None = None
    """The file's ``-U`` / ``-D`` records (``DataFileMeta.delete_row_count``; None: unknown)."""


@dataclass(frozen=True)
class Split:
    """The live files of one (partition, bucket): the unit of reading and merging."""

    partition: tuple[Any, ...]
    bucket: int
    files: tuple[DataFileRef, ...]

    @property
    def row_count(self) -> int:
        return sum(f.row_count for f in self.files)


@dataclass(frozen=True)
class TimeTravel:
    """At most one of these selects the snapshot (none: the latest)."""

    snapshot_id: int | None = None
    tag_name: str | None = None
    timestamp_millis: int | None = None

    def __post_init__(self) -> None:
        values = (self.snapshot_id, self.tag_name, self.timestamp_millis)
        chosen = [v for v in values if v is not None]
        if len(chosen) > 1:
            raise ValueError("choose at most one of snapshot-id, tag-name and timestamp-millis")

    @property
    def is_latest(self) -> bool:
        return self.snapshot_id is None and self.tag_name is None and self.timestamp_millis is None


LATEST = TimeTravel()
"""No time travel: the latest snapshot."""


@dataclass(frozen=True)
class ReadPlan:
    """A planned read: the read schema, the schemas files were written with (as JSON, so the
    plan pickles), the splits, and what pruning skipped."""

    table_root: str
    snapshot_id: int | None
    schema_json: str
    file_schema_jsons: Mapping[int, str]
    splits: tuple[Split, ...]
    skipped_manifests: int = 0
    skipped_files: int = 0
    predicate: Predicate | None = field(default=None, compare=False)
    skipped_by_index: int = 0
    """Files left out because their embedded index rules the predicate out."""

    @property
    def schema(self) -> TableSchema:
        return decode_schema(self.schema_json)

    @property
    def file_count(self) -> int:
        return sum(len(s.files) for s in self.splits)


# --------------------------------------------------------------------------------------------
# Snapshots and schemas
# --------------------------------------------------------------------------------------------


def find_snapshot_at(file_io: FileIO, table_root: str, time_millis: int) -> Snapshot | None:
    """The latest snapshot committed at or before ``time_millis`` (binary search)."""
    low = find_earliest_snapshot_id(file_io, table_root)
    high = find_latest_snapshot_id(file_io, table_root)
    if low is None or high is None:
        return None
    best: Snapshot | None = None
    while low <= high:
        middle = (low + high) // 2
        snapshot = read_snapshot(file_io, table_root, middle)
        if snapshot.time_millis <= time_millis:
            best, low = snapshot, middle + 1
        else:
            high = middle - 1
    return best


def resolve_snapshot(file_io: FileIO, table_root: str, travel: TimeTravel) -> Snapshot | None:
    """Step 1; ``None`` for a table without snapshots read at its latest state."""
    if travel.snapshot_id is not None:
        return read_snapshot(file_io, table_root, travel.snapshot_id)
    if travel.tag_name is not None:
        path = layout.tag_path(table_root, travel.tag_name)
        data = read_snapshot_file(file_io, path, f"tag '{travel.tag_name}' does not exist")
        with naming_file(path):
            return decode_tag(data).snapshot
    if travel.timestamp_millis is not None:
        found = find_snapshot_at(file_io, table_root, travel.timestamp_millis)
        if found is None:
            raise SnapshotNotFoundError(
                f"no snapshot at or before {travel.timestamp_millis}", path=table_root
            )
        return found
    latest = find_latest_snapshot_id(file_io, table_root)
    return None if latest is None else read_snapshot(file_io, table_root, latest)


def resolve_read_schema(
    file_io: FileIO, table_root: str, travel: TimeTravel
) -> tuple[Snapshot | None, str]:
    """Steps 1 and 2: the snapshot and the read schema's JSON text."""
    snapshot = resolve_snapshot(file_io, table_root, travel)
    if snapshot is not None and not travel.is_latest:
        schema_id = snapshot.schema_id
    else:
        schema_id = latest_schema_id(file_io, table_root)
    return snapshot, read_schema_json(file_io, table_root, schema_id)


# --------------------------------------------------------------------------------------------
# Manifests
# --------------------------------------------------------------------------------------------


def read_deletion_ranges(
    file_io: FileIO, table_root: str, snapshot: Snapshot, schema: TableSchema
) -> dict[tuple[bytes, int, str], DeletionFileRef]:
    """Deletion-vector ranges by (partition bytes, bucket, data file name); the index files are
    where ``layout.index_file_location`` puts them (``index-file-in-data-file-dir``)."""
    entries = read_index_entries(file_io, table_root, snapshot)
    live: dict[tuple[bytes, int, str], Any] = {}
    for entry in entries:
        key = (entry.partition, entry.bucket, entry.index_file.file_name)
        if entry.kind is FileKind.ADD:
            live[key] = entry
        else:
            live.pop(key, None)
    ranges: dict[tuple[bytes, int, str], DeletionFileRef] = {}
    for entry in live.values():
        index_file = entry.index_file
        if index_file.index_type != DELETION_VECTORS_INDEX or not index_file.dv_ranges:
            continue
        path = compute_index_file_path(
            table_root, schema, entry.partition, entry.bucket, index_file
        )
        for dv in index_file.dv_ranges:
            key = (entry.partition, entry.bucket, dv.data_file_name)
            ranges[key] = DeletionFileRef(path, dv.offset, dv.length)
    return ranges


# --------------------------------------------------------------------------------------------
# Pruning
# --------------------------------------------------------------------------------------------


def restrict_predicate(predicate: Predicate | None, names: set[str]) -> Predicate | None:
    """The part of ``predicate`` (whole, or top-level AND conjuncts) that uses only ``names``."""
    if predicate is None:
        return None
    if compute_fields(predicate) <= names:
        return predicate
    if isinstance(predicate, And):
        kept = tuple(c for c in predicate.children if compute_fields(c) <= names)
        return And(kept) if kept else None
    return None


def decode_stats(stats: SimpleStats, fields: Sequence[t.DataField]) -> dict[int, FieldStats]:
    """Per-field statistics by field id, for a stats row covering exactly ``fields``."""
    if not fields or len(stats.null_counts) != len(fields):
        return {}
    types = [f.type for f in fields]
    low = deserialize_binary_row(stats.min_values, types)
    high = deserialize_binary_row(stats.max_values, types)
    return {f.id: FieldStats(low[i], high[i], stats.null_counts[i]) for i, f in enumerate(fields)}


def evolve_stats(
    by_id: Mapping[int, FieldStats],
    file_fields: Sequence[t.DataField],
    read_fields: Sequence[t.DataField],
    row_count: int,
) -> dict[str, FieldStats]:
    """Statistics under read names: a field absent from the file is all null; a field whose
    type changed has no usable statistics."""
    file_by_id = {f.id: f for f in file_fields}
    result: dict[str, FieldStats] = {}
    for read_field in read_fields:
        file_field = file_by_id.get(read_field.id)
        if file_field is None:
            result[read_field.name] = FieldStats(None, None, row_count)
        elif read_field.id in by_id and file_field.type.copy(True) == read_field.type.copy(True):
            result[read_field.name] = by_id[read_field.id]
    return result


def _trimmed_key_fields(schema: TableSchema) -> list[t.DataField]:
    by_name = {f.name: f for f in schema.fields}
    return [by_name[k] for k in schema.primary_keys if k not in schema.partition_keys]


def is_file_matching(
    meta: DataFileMeta,
    predicate: Predicate | None,
    schema: TableSchema,
    file_schema: TableSchema,
) -> bool:
    """Step 4 for one file: primary-key tables by key statistics only (a value may be
    superseded by another file), append tables by value statistics."""
    if predicate is None:
        return True
    types = {f.name: f.type for f in schema.fields}
    if schema.primary_keys:
        read_keys = _trimmed_key_fields(schema)
        key_predicate = restrict_predicate(predicate, {f.name for f in read_keys})
        if key_predicate is None:
            return True
        file_keys = _trimmed_key_fields(file_schema)
        by_id = decode_stats(meta.key_stats, file_keys)
        evolved = evolve_stats(by_id, file_keys, read_keys, meta.row_count)
        return is_stats_matching(key_predicate, meta.row_count, evolved, types)
    if meta.value_stats_cols is None:
        stats_fields = list(file_schema.fields)
    else:
        file_by_name = {f.name: f for f in file_schema.fields}
        stats_fields = [file_by_name[name] for name in meta.value_stats_cols]
    by_id = decode_stats(meta.value_stats, stats_fields)
    evolved = evolve_stats(by_id, file_schema.fields, schema.fields, meta.row_count)
    return is_stats_matching(predicate, meta.row_count, evolved, types)


def is_manifest_matching(
    manifest: ManifestFileMeta,
    partition_predicate: Predicate | None,
    partition_fields: Sequence[t.DataField],
) -> bool:
    if partition_predicate is None or not partition_fields:
        return True
    by_id = decode_stats(manifest.partition_stats, partition_fields)
    stats = {f.name: by_id[f.id] for f in partition_fields if f.id in by_id}
    types = {f.name: f.type for f in partition_fields}
    row_count = manifest.num_added_files + manifest.num_deleted_files
    return is_stats_matching(partition_predicate, row_count, stats, types)


def is_level_zero_skipped(schema: TableSchema) -> bool:
    options = schema.core_options
    return bool(schema.primary_keys) and (
        options.deletion_vectors_enabled or options.merge_engine is MergeEngine.FIRST_ROW
    )


# --------------------------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------------------------


def compute_index_file_path(
    table_root: str,
    schema: TableSchema,
    partition: bytes,
    bucket: int,
    index_file: IndexFileMeta,
) -> str:
    """Where an index file of one partition and bucket is: in that bucket's data directory when
    the table sets ``index-file-in-data-file-dir``, else under ``<root>/index``; an external path
    wins (``layout.index_file_location``)."""
    bucket_dir = None
    if schema.core_options.index_file_in_data_file_dir:
        values = deserialize_binary_row(partition, [f.type for f in schema.partition_type.fields])
        bucket_dir = compute_bucket_dir(table_root, schema, values, bucket)
    return layout.index_file_location(
        table_root,
        index_file.file_name,
        external_path=index_file.external_path,
        bucket_directory=bucket_dir,
    )


class _SchemaCache:
    def __init__(self, file_io: FileIO, table_root: str) -> None:
        self.file_io, self.table_root = file_io, table_root
        self.jsons: dict[int, str] = {}
        self.schemas: dict[int, TableSchema] = {}

    def get(self, schema_id: int) -> TableSchema:
        if schema_id not in self.schemas:
            text = read_schema_json(self.file_io, self.table_root, schema_id)
            self.jsons[schema_id] = text
            self.schemas[schema_id] = decode_schema(text)
        return self.schemas[schema_id]

    def json(self, schema_id: int) -> str:
        self.get(schema_id)
        return self.jsons[schema_id]


@dataclass(frozen=True)
class _Reading:
    """What every step of one plan needs: the table, the read schema and the filters."""

    file_io: FileIO
    table_root: str
    schema: TableSchema
    predicate: Predicate | None
    partition_predicate: Predicate | None
    schemas: _SchemaCache

    @property
    def partition_fields(self) -> list[t.DataField]:
        return list(self.schema.partition_type.fields)


@dataclass
class _Chosen:
    """Step 4's outcome: the kept files by (partition, bucket) and what was pruned."""

    partitions: dict[bytes, tuple[Any, ...]] = field(default_factory=dict)
    partition_kept: dict[bytes, bool] = field(default_factory=dict)
    grouped: dict[tuple[bytes, int], list[DataFileRef]] = field(default_factory=dict)
    bucket_dirs: dict[tuple[bytes, int], str] = field(default_factory=dict)
    skipped_files: int = 0
    skipped_by_index: int = 0


def read_matching_entries(reading: _Reading, snapshot: Snapshot) -> tuple[list[ManifestEntry], int]:
    """Step 3's input: the entries of the snapshot's manifests whose partition statistics may
    match (base list, then delta list), and how many manifests were skipped."""
    file_io, root = reading.file_io, reading.table_root
    manifests = [
        *read_manifest_list(file_io, root, snapshot.base_manifest_list),
        *read_manifest_list(file_io, root, snapshot.delta_manifest_list),
    ]
    kept = [
        m
        for m in manifests
        if is_manifest_matching(m, reading.partition_predicate, reading.partition_fields)
    ]
    names = [m.file_name for m in kept]
    entries = [e for found in read_manifests(file_io, root, names) for e in found]
    return entries, len(manifests) - len(kept)


def is_pruned(
    reading: _Reading, chosen: _Chosen, partition_bytes: bytes, meta: DataFileMeta
) -> bool:
    """Step 4 by partition and statistics: level-0 files of tables whose batch reads skip
    them, partitions the filter excludes (decided once per partition), files whose
    statistics exclude it (none for data-evolution tables: a file's columns may be
    superseded by later files)."""
    schema = reading.schema
    if is_level_zero_skipped(schema) and meta.level == 0:
        return True
    if partition_bytes not in chosen.partition_kept:
        chosen.partition_kept[partition_bytes] = _is_partition_matching(
            chosen.partitions[partition_bytes],
            reading.partition_predicate,
            reading.partition_fields,
        )
    if not chosen.partition_kept[partition_bytes]:
        return True
    if is_data_evolution_enabled(schema.options):
        return False
    file_schema = reading.schemas.get(meta.schema_id)
    return not is_file_matching(meta, reading.predicate, schema, file_schema)


def is_pruned_by_index(reading: _Reading, meta: DataFileMeta) -> bool:
    """Step 4 by the file's index (not for data-evolution tables)."""
    if is_data_evolution_enabled(reading.schema.options):
        return False
    file_schema = reading.schemas.get(meta.schema_id)
    return not file_index.is_planned_by_index(
        meta.embedded_index, reading.predicate, reading.schema, file_schema
    )


def choose_files(
    reading: _Reading,
    live: Sequence[ManifestEntry],
    deletion_ranges: Mapping[tuple[bytes, int, str], DeletionFileRef],
) -> _Chosen:
    """Step 4 over the live files, then each kept file's reference in its bucket."""
    chosen = _Chosen()
    partition_types = [f.type for f in reading.partition_fields]
    for entry in live:
        if entry.partition not in chosen.partitions:
            values = deserialize_binary_row(entry.partition, partition_types)
            chosen.partitions[entry.partition] = tuple(values)
        partition = chosen.partitions[entry.partition]
        if is_pruned(reading, chosen, entry.partition, entry.file):
            chosen.skipped_files += 1
        elif is_pruned_by_index(reading, entry.file):
            chosen.skipped_by_index += 1
        else:
            group = (entry.partition, entry.bucket)
            if group not in chosen.bucket_dirs:
                chosen.bucket_dirs[group] = compute_bucket_dir(
                    reading.table_root, reading.schema, partition, entry.bucket
                )
            deletion = deletion_ranges.get((*group, entry.file.file_name))
            ref = compute_file_ref(reading, chosen.bucket_dirs[group], entry.file, deletion)
            chosen.grouped.setdefault(group, []).append(ref)
    return chosen


def compute_file_ref(
    reading: _Reading, bucket_dir: str, meta: DataFileMeta, deletion: DeletionFileRef | None
) -> DataFileRef:
    """Step 5 for one file: what a task needs to read it."""
    return DataFileRef(
        path=layout.data_file_path(bucket_dir, meta.file_name, meta.external_path),
        schema_id=meta.schema_id,
        level=meta.level,
        row_count=meta.row_count,
        min_sequence_number=meta.min_sequence_number,
        deletion=deletion,
        index=None if not is_index_read(reading) else compute_index_source(meta),
        first_row_id=meta.first_row_id,
        max_sequence_number=meta.max_sequence_number,
        write_cols=meta.write_cols,
        file_size=meta.file_size,
        delete_row_count=meta.delete_row_count,
    )


def plan_read(
    file_io: FileIO,
    table_root: str,
    travel: TimeTravel = LATEST,
    *,
    predicate: Predicate | None = None,
    resolved: tuple[Snapshot | None, str] | None = None,
) -> ReadPlan:
    """Steps 1-5: the splits a batch read must read (``predicate`` only prunes); ``resolved``:
    steps 1 and 2 already done by the caller (:func:`resolve_read_schema`), so that the
    snapshot a filter was checked against is the one planned and is not resolved twice."""
    table_root = table_root.rstrip("/")
    if resolved is None:
        resolved = resolve_read_schema(file_io, table_root, travel or TimeTravel())
    snapshot, schema_json = resolved
    schema = decode_schema(schema_json)
    if snapshot is None:
        return ReadPlan(table_root, None, schema_json, {}, ())
    reading = _Reading(
        file_io,
        table_root,
        schema,
        predicate,
        restrict_predicate(predicate, set(schema.partition_keys)),
        _SchemaCache(file_io, table_root),
    )
    entries, skipped_manifests = read_matching_entries(reading, snapshot)
    deletion_ranges = (
        read_deletion_ranges(file_io, table_root, snapshot, schema)
        if schema.core_options.deletion_vectors_enabled
        else {}
    )
    chosen = choose_files(reading, replay_entries(entries), deletion_ranges)
    splits = tuple(
        Split(chosen.partitions[partition_bytes], bucket, tuple(files))
        for (partition_bytes, bucket), files in chosen.grouped.items()
    )
    used = sorted({f.schema_id for s in splits for f in s.files})
    return ReadPlan(
        table_root=table_root,
        snapshot_id=snapshot.id,
        schema_json=schema_json,
        file_schema_jsons={i: reading.schemas.json(i) for i in used},
        splits=splits,
        skipped_manifests=skipped_manifests,
        skipped_files=chosen.skipped_files,
        predicate=predicate,
        skipped_by_index=chosen.skipped_by_index,
    )


def is_index_read(reading: _Reading) -> bool:
    """Whether a task consults a file's index: for an append table read with a predicate
    (without one every row is read, so the plan ships no index bytes to the tasks)."""
    return reading.predicate is not None and not reading.schema.primary_keys


def pack_files(
    files: Sequence[DataFileRef], target_size: int, open_file_cost: int
) -> list[tuple[DataFileRef, ...]]:
    """Java ``BinPacking.packForOrdered``: files in order, each weighing its size but at least
    ``open_file_cost``; a bin is closed when the next file would take it over
    ``target_size`` (a bin holds at least one file)."""
    bins: list[tuple[DataFileRef, ...]] = []
    current: list[DataFileRef] = []
    weight = 0
    for ref in files:
        file_weight = max(ref.file_size, open_file_cost)
        if current and weight + file_weight > target_size:
            bins.append(tuple(current))
            current, weight = [], 0
        current.append(ref)
        weight += file_weight
    if current:
        bins.append(tuple(current))
    return bins


def compute_read_splits(plan: ReadPlan) -> list[Split]:
    """The splits a batch read hands to its tasks: an append table's bucket split packed into
    splits of about ``source.split.target-size`` (each file counting at least
    ``source.split.open-file-cost``), in minimum-sequence-number order, as Java
    ``AppendOnlySplitGenerator.splitForBatch`` does, so that a bucket of many small files is
    read by several tasks; primary-key and data-evolution splits stay whole (their files are
    merged together)."""
    schema = plan.schema
    if schema.primary_keys or is_data_evolution_enabled(schema.options):
        return list(plan.splits)
    target = int(schema.core_options.get("source.split.target-size"))
    open_cost = int(schema.core_options.get("source.split.open-file-cost"))
    return [
        Split(split.partition, split.bucket, files)
        for split in plan.splits
        for files in pack_files(
            sorted(split.files, key=lambda f: f.min_sequence_number), target, open_cost
        )
    ]


def compute_index_source(meta: DataFileMeta) -> bytes | str | None:
    """Where a file's index is: its embedded container, else its ``.index`` file's name."""
    if meta.embedded_index is not None:
        return meta.embedded_index
    return file_index.find_index_file_name(meta.extra_files)


def _is_partition_matching(
    partition: Sequence[Any],
    partition_predicate: Predicate | None,
    partition_fields: Sequence[t.DataField],
) -> bool:
    if partition_predicate is None:
        return True
    values = {f.name: partition[i] for i, f in enumerate(partition_fields)}
    types = {f.name: f.type for f in partition_fields}
    return is_row_matching(partition_predicate, values, types)
