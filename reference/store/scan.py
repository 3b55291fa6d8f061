"""Planning a read: from a snapshot to the live data files, grouped into splits.

Spec: ``docs/concepts/spec/snapshot.md`` and ``manifest.md``; the seeds' "Manifest files" and
"Data files" sections. Java: ``operation/AbstractFileStoreScan``, ``KeyValueFileStoreScan``,
``AppendOnlyFileStoreScan``, ``manifest/FileEntry.mergeEntries``,
``table/source/snapshot/SnapshotReaderImpl``, ``table/source/DataTableBatchScan``,
``index/IndexFileHandler``.

Rules:

1. A snapshot's files are the entries of the manifests of its base manifest list followed by
   those of its delta manifest list, replayed in order: ADD puts a file in the set, DELETE takes
   it out again. A file is identified by (partition, bucket, level, name, extra files, embedded
   index, external path). What remains is the snapshot's live file set.
2. Live files are grouped by (partition, bucket) into splits. A batch read of a primary-key
   table with deletion vectors or the first-row merge engine reads only files above level 0
   (level-0 files are not yet deduplicated against the rest; compaction will do it).
3. Deletion vectors come from the snapshot's index manifest: ``DELETION_VECTORS`` index files
   of the same partition and bucket, each holding ranges for named data files.
4. Pruning never changes a result, it only skips files that cannot hold a matching row:
   manifests by their partition statistics, entries by their partition value, files of
   primary-key tables by key statistics, files of append tables by value statistics and then
   by their embedded file index (``reference.store.file_index`` rule 6).
"""

# ruff: noqa: PLC0414 -- `import X as X` re-exports the replay of reference.spec.file_entry.

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reference import layout
from reference.errors import naming_file
from reference.io import FileIO
from reference.layout import compute_bucket_path as compute_bucket_path
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.data import Row
from reference.spec.data_file import DataFileMeta, compute_trimmed_primary_keys
from reference.spec.deletion_vector import DELETION_VECTORS_INDEX_TYPE as DELETION_VECTORS_INDEX
from reference.spec.file_entry import FileIdentifier as FileIdentifier
from reference.spec.file_entry import ReplayResult as ReplayResult
from reference.spec.file_entry import compute_file_identifier as compute_file_identifier
from reference.spec.file_entry import compute_live_entries as compute_live_entries
from reference.spec.manifest import (
    FileKind,
    IndexManifestEntry,
    ManifestEntry,
    ManifestFileMeta,
    decode_index_manifest,
    decode_manifest_entries,
    decode_manifest_list,
    detect_manifest_format,
)
from reference.spec.options import CoreOptions, MergeEngine
from reference.spec.predicate import (
    And,
    FieldStats,
    Leaf,
    Predicate,
    compute_fields,
    is_row_matching,
    is_stats_matching,
)
from reference.spec.row_tracking import compute_written_fields, is_data_evolution_enabled
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot
from reference.spec.stats import SimpleStats
from reference.store.file_index import is_planned_by_index

# --------------------------------------------------------------------------------------------
# Reading manifests
# --------------------------------------------------------------------------------------------


def read_manifest_list(file_io: FileIO, table_root: str, name: str) -> list[ManifestFileMeta]:
    path = layout.manifest_path(table_root, name)
    with naming_file(path):
        data = file_io.read_bytes(path)
        return decode_manifest_list(data, detect_manifest_format(data))


def read_manifest(file_io: FileIO, table_root: str, name: str) -> list[ManifestEntry]:
    path = layout.manifest_path(table_root, name)
    with naming_file(path):
        data = file_io.read_bytes(path)
        return decode_manifest_entries(data, detect_manifest_format(data))


def read_index_manifest(file_io: FileIO, table_root: str, name: str) -> list[IndexManifestEntry]:
    path = layout.manifest_path(table_root, name)
    with naming_file(path):
        data = file_io.read_bytes(path)
        return decode_index_manifest(data, detect_manifest_format(data))


def list_snapshot_manifests(
    file_io: FileIO, table_root: str, snapshot: Snapshot
) -> list[ManifestFileMeta]:
    """The manifests of a snapshot: base list then delta list, in order (rule 1)."""
    return [
        *read_manifest_list(file_io, table_root, snapshot.base_manifest_list),
        *read_manifest_list(file_io, table_root, snapshot.delta_manifest_list),
    ]


# --------------------------------------------------------------------------------------------
# Replaying entries
# --------------------------------------------------------------------------------------------

# The file identity and the replay (rule 1) live in reference.spec.file_entry, shared with
# spark_impl; they are re-exported here, where the reference's planning starts.


# --------------------------------------------------------------------------------------------
# Statistics as predicate inputs
# --------------------------------------------------------------------------------------------


def decode_field_stats(stats: SimpleStats, fields: Sequence[t.DataField]) -> dict[str, FieldStats]:
    """Per-field statistics of ``fields`` from a SimpleStats whose rows cover exactly them."""
    if not fields:
        return {}
    types = [f.type for f in fields]
    minimums = deserialize_binary_row(stats.min_values, types)
    maximums = deserialize_binary_row(stats.max_values, types)
    return {
        f.name: FieldStats(minimums[i], maximums[i], stats.null_counts[i])
        for i, f in enumerate(fields)
    }


def compute_stats_fields(file_schema: TableSchema, meta: DataFileMeta) -> list[t.DataField]:
    """The fields a file's value statistics cover: ``_VALUE_STATS_COLS`` when recorded (1.x
    dense statistics), else the columns the file holds (its ``_WRITE_COLS``, row tracking
    columns included, see ``row_tracking.compute_written_fields``; all the schema's fields when
    absent). Java: ``operation/EvolutionStatsCache``."""
    fields = compute_written_fields(meta, file_schema.fields)
    if meta.value_stats_cols is None:
        return fields
    by_name = {f.name: f for f in fields}
    return [by_name[name] for name in meta.value_stats_cols]


def evolve_field_stats(
    file_stats: Mapping[str, FieldStats],
    file_fields: Sequence[t.DataField],
    read_fields: Sequence[t.DataField],
    row_count: int,
) -> dict[str, FieldStats]:
    """Statistics under the read schema's names, matched by field id. A field the file does not
    have is all null in it; a field whose type changed, or that the file has without statistics
    (not in ``_VALUE_STATS_COLS``), has unknown statistics (absent)."""
    by_id = {f.id: f for f in file_fields}
    evolved: dict[str, FieldStats] = {}
    for read_field in read_fields:
        file_field = by_id.get(read_field.id)
        if file_field is None:
            evolved[read_field.name] = FieldStats(None, None, row_count)
        elif file_field.type.copy(True) == read_field.type.copy(True) and (
            file_field.name in file_stats
        ):
            evolved[read_field.name] = file_stats[file_field.name]
    return evolved


# --------------------------------------------------------------------------------------------
# Pruning
# --------------------------------------------------------------------------------------------


def compute_predicate_on(predicate: Predicate | None, names: set[str]) -> Predicate | None:
    """The strongest part of ``predicate`` that refers only to ``names``: the whole predicate
    if it does, else the conjuncts of a top-level AND that do, else nothing."""
    if predicate is None:
        return None
    if compute_fields(predicate) <= names:
        return predicate
    if isinstance(predicate, And):
        kept = tuple(c for c in predicate.children if compute_fields(c) <= names)
        return And(kept) if kept else None
    return None


def is_manifest_matching(
    meta: ManifestFileMeta,
    partition_predicate: Predicate | None,
    partition_fields: Sequence[t.DataField],
) -> bool:
    """May a manifest hold entries of a matching partition? (its ``_PARTITION_STATS``)"""
    if partition_predicate is None or not partition_fields:
        return True
    stats = decode_field_stats(meta.partition_stats, partition_fields)
    row_count = meta.num_added_files + meta.num_deleted_files
    types = {f.name: f.type for f in partition_fields}
    return is_stats_matching(partition_predicate, row_count, stats, types)


def is_partition_matching(
    partition: Row, partition_predicate: Predicate | None, partition_fields: Sequence[t.DataField]
) -> bool:
    if partition_predicate is None:
        return True
    values = {f.name: partition[i] for i, f in enumerate(partition_fields)}
    return is_row_matching(partition_predicate, values, {f.name: f.type for f in partition_fields})


# --------------------------------------------------------------------------------------------
# Splits
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeletionFile:
    """Where the deletion vector of one data file is: an index file and a byte range."""

    path: str
    offset: int
    length: int
    cardinality: int | None


@dataclass(frozen=True)
class DataSplit:
    """The live files of one partition and bucket, to be read (and merged) together."""

    snapshot_id: int
    partition: Row
    partition_bytes: bytes
    bucket: int
    bucket_path: str
    files: tuple[DataFileMeta, ...]
    deletion_files: Mapping[str, DeletionFile]

    @property
    def row_count(self) -> int:
        return sum(f.row_count for f in self.files)


def compute_index_file_path(table_root: str, schema: TableSchema, entry: IndexManifestEntry) -> str:
    """Where the index file of an index manifest entry is (``layout.index_file_location``): in
    its partition and bucket's data directory when the table sets
    ``index-file-in-data-file-dir``, else under ``<root>/index/``; its external path wins."""
    index_file = entry.index_file
    bucket_directory = None
    if schema.core_options.index_file_in_data_file_dir and not index_file.external_path:
        partition_types = [f.type for f in schema.partition_type.fields]
        partition = deserialize_binary_row(entry.partition, partition_types)
        bucket_directory = compute_bucket_path(table_root, schema, partition, entry.bucket)
    return layout.index_file_location(
        table_root,
        index_file.file_name,
        external_path=index_file.external_path,
        bucket_directory=bucket_directory,
    )


def read_deletion_files(
    file_io: FileIO, table_root: str, snapshot: Snapshot, schema: TableSchema
) -> dict[tuple[bytes, int], dict[str, DeletionFile]]:
    """Deletion-vector ranges of a snapshot, by (partition bytes, bucket) then data file name
    (``schema`` places the index files, see :func:`compute_index_file_path`)."""
    if snapshot.index_manifest is None:
        return {}
    live: dict[tuple[bytes, int, str], IndexManifestEntry] = {}
    for entry in read_index_manifest(file_io, table_root, snapshot.index_manifest):
        key = (entry.partition, entry.bucket, entry.index_file.file_name)
        if entry.kind is FileKind.ADD:
            live[key] = entry
        else:
            live.pop(key, None)
    found: dict[tuple[bytes, int], dict[str, DeletionFile]] = {}
    for entry in live.values():
        index_file = entry.index_file
        if index_file.index_type != DELETION_VECTORS_INDEX or not index_file.dv_ranges:
            continue
        path = compute_index_file_path(table_root, schema, entry)
        by_file = found.setdefault((entry.partition, entry.bucket), {})
        for dv in index_file.dv_ranges:
            by_file[dv.data_file_name] = DeletionFile(path, dv.offset, dv.length, dv.cardinality)
    return found


def is_level_zero_skipped(schema: TableSchema) -> bool:
    """Rule 2: batch reads of PK tables with deletion vectors or first-row skip level 0."""
    options: CoreOptions = schema.core_options
    return schema.is_primary_key_table and (
        options.deletion_vectors_enabled or options.merge_engine is MergeEngine.FIRST_ROW
    )


def is_file_matching(
    meta: DataFileMeta,
    predicate: Predicate | None,
    schema: TableSchema,
    file_schema: TableSchema,
) -> bool:
    """May this data file hold a row matching ``predicate`` (rule 4)? Primary-key tables are
    pruned only by their key statistics, because a file's values may be superseded by another
    file; append tables by their value statistics, except with ``data-evolution.enabled``
    (a file's columns may be superseded by a file of the same row ids: nothing is pruned)."""
    if predicate is None or is_data_evolution_enabled(schema.options):
        return True
    if schema.is_primary_key_table:
        keys = set(compute_trimmed_primary_keys(schema.primary_keys, schema.partition_keys))
        key_predicate = compute_predicate_on(predicate, keys)
        if key_predicate is None:
            return True
        read_fields = [schema.logical_row_type.field_by_name(k) for k in sorted(keys)]
        file_keys = compute_trimmed_primary_keys(
            file_schema.primary_keys, file_schema.partition_keys
        )
        file_fields = [file_schema.logical_row_type.field_by_name(k) for k in file_keys]
        stats = decode_field_stats(meta.key_stats, file_fields)
        evolved = evolve_field_stats(stats, file_fields, read_fields, meta.row_count)
        types = {f.name: f.type for f in read_fields}
        return is_stats_matching(key_predicate, meta.row_count, evolved, types)
    stats = decode_field_stats(meta.value_stats, compute_stats_fields(file_schema, meta))
    evolved = evolve_field_stats(stats, file_schema.fields, schema.fields, meta.row_count)
    types = {f.name: f.type for f in schema.fields}
    return is_stats_matching(predicate, meta.row_count, evolved, types)


@dataclass(frozen=True)
class ScanPlan:
    """The splits of one snapshot and how much pruning skipped (for tests and ``inspect``):
    ``skipped_files`` by level, partition or statistics, ``skipped_by_index`` (other files) by
    their embedded file index."""

    snapshot_id: int
    splits: list[DataSplit]
    skipped_manifests: int
    skipped_files: int
    skipped_by_index: int = 0


@dataclass
class FileSelection:
    """The live files a scan keeps, grouped by (partition bytes, bucket), with the decoded
    partition of each partition and the counts of files pruned by statistics and by index."""

    grouped: dict[tuple[bytes, int], list[DataFileMeta]] = field(default_factory=dict)
    partitions: dict[bytes, Row] = field(default_factory=dict)
    skipped_files: int = 0
    skipped_by_index: int = 0


def read_matching_entries(
    file_io: FileIO,
    table_root: str,
    snapshot: Snapshot,
    schema: TableSchema,
    predicate: Predicate | None,
) -> tuple[list[ManifestEntry], int]:
    """Rules 1-2: the entries of the manifests whose partition stats may match the predicate's
    partition part, in manifest order, and how many manifests were skipped."""
    partition_fields = list(schema.partition_type.fields)
    partition_predicate = compute_predicate_on(predicate, set(schema.partition_keys))
    entries: list[ManifestEntry] = []
    skipped = 0
    for manifest in list_snapshot_manifests(file_io, table_root, snapshot):
        if not is_manifest_matching(manifest, partition_predicate, partition_fields):
            skipped += 1
            continue
        entries.extend(read_manifest(file_io, table_root, manifest.file_name))
    return entries, skipped


def select_live_files(
    live: Sequence[ManifestEntry],
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    predicate: Predicate | None,
) -> FileSelection:
    """Rule 3: keep each live file whose level is read, whose partition and statistics may
    match the predicate, and (without data evolution) whose file index does not rule it out."""
    partition_fields = list(schema.partition_type.fields)
    partition_types = [f.type for f in partition_fields]
    partition_predicate = compute_predicate_on(predicate, set(schema.partition_keys))
    skip_level_zero = is_level_zero_skipped(schema)
    by_index = not is_data_evolution_enabled(schema.options)
    selection = FileSelection()
    for entry in live:
        if entry.partition not in selection.partitions:
            decoded = deserialize_binary_row(entry.partition, partition_types)
            selection.partitions[entry.partition] = decoded
        meta, file_schema = entry.file, schemas[entry.file.schema_id]
        if (
            (skip_level_zero and meta.level == 0)
            or not is_partition_matching(
                selection.partitions[entry.partition], partition_predicate, partition_fields
            )
            or not is_file_matching(meta, predicate, schema, file_schema)
        ):
            selection.skipped_files += 1
        elif by_index and not is_planned_by_index(meta, predicate, schema, file_schema):
            selection.skipped_by_index += 1
        else:
            selection.grouped.setdefault((entry.partition, entry.bucket), []).append(meta)
    return selection


def compute_splits(
    file_io: FileIO,
    table_root: str,
    snapshot: Snapshot,
    schema: TableSchema,
    selection: FileSelection,
) -> list[DataSplit]:
    """Rule 4: one split per partition and bucket, with its directory and deletion files."""
    deletion_files = (
        read_deletion_files(file_io, table_root, snapshot, schema)
        if schema.core_options.deletion_vectors_enabled
        else {}
    )
    return [
        DataSplit(
            snapshot_id=snapshot.id,
            partition=selection.partitions[partition_bytes],
            partition_bytes=partition_bytes,
            bucket=bucket,
            bucket_path=compute_bucket_path(
                table_root, schema, selection.partitions[partition_bytes], bucket
            ),
            files=tuple(files),
            deletion_files=deletion_files.get((partition_bytes, bucket), {}),
        )
        for (partition_bytes, bucket), files in selection.grouped.items()
    ]


def plan_scan(
    file_io: FileIO,
    table_root: str,
    snapshot: Snapshot,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    *,
    predicate: Predicate | None = None,
) -> ScanPlan:
    """Rules 1-4: the splits a batch read of ``snapshot`` under ``schema`` must read.

    ``schemas`` maps every schema id a data file may name to its schema (for statistics).
    """
    entries, skipped_manifests = read_matching_entries(
        file_io, table_root, snapshot, schema, predicate
    )
    selection = select_live_files(compute_live_entries(entries).live, schema, schemas, predicate)
    splits = compute_splits(file_io, table_root, snapshot, schema, selection)
    return ScanPlan(
        snapshot.id, splits, skipped_manifests, selection.skipped_files, selection.skipped_by_index
    )


def compute_leaf_predicates(predicate: Predicate | None) -> list[Leaf]:
    """The leaves of a predicate (used by file-index pruning)."""
    if predicate is None:
        return []
    if isinstance(predicate, Leaf):
        return [predicate]
    return [leaf for child in predicate.children for leaf in compute_leaf_predicates(child)]
