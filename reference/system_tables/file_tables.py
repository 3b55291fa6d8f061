"""System tables over a snapshot's files: files, manifests, partitions, buckets, table_indexes.

Spec: ``docs/concepts/system-tables.md``; the seeds' sections 3.7.1.7, 3.7.1.11, 3.7.1.13,
3.7.1.14 and "Table Indexes Table". Java: ``table/system/{FilesTable, ManifestsTable,
PartitionsTable, BucketsTable, TableIndexesTable}``, ``manifest/PartitionEntry``,
``stats/SimpleStatsEvolution``.

Rows:

* ``files``: one per live data file of the selected snapshot (rule 5 of
  ``reference.system_tables.common``). ``partition`` is the partition as text (0.9: object text
  ``[v1, v2]``; main: cast text ``{v1, v2}``); ``file_path`` is the file name (0.9) or the full
  path (main); ``min_key``/``max_key`` are the trimmed primary key as object text (null for
  append tables); the three statistics columns map each field of the table's *current* schema
  (moved from the file's schema by field id, cast when its type changed) to object text, keys in
  Java string order; a field the file lacks has null bounds and ``row_count`` nulls (Paimon
  0.9 differs once a field's type changed: :func:`compute_evolved_stats_0_9`). Paimon 0.9
  lists what its batch scan reads: no level-0 files of primary-key tables with deletion vectors
  or the first-row engine; main lists every level and adds ``deleteRowCount``, ``file_source``,
  ``first_row_id`` and ``write_cols``.
* ``manifests``: the base, delta and changelog manifests of the selected snapshot. Paimon 0.9
  honours only ``scan.snapshot-id`` (an id that does not exist gives no rows); main honours
  every time-travel option and adds the partition bounds (cast text) and row-id range.
* ``partitions``: per partition, the sums over the snapshot's manifest entries (ADD counts,
  DELETE subtracts) of rows, bytes and files, and the latest file creation time among them;
  partitions with no file left are omitted. 0.9 reads the latest snapshot and prints the
  partition as object text; main prints ``key=value/...`` (cast text, null as the default
  partition name), sorts by it, and adds metastore columns (null here), ``total_buckets``,
  ``done`` (false) and ``deleted_record_count`` (deletion-vector cardinalities, 0 without).
* ``buckets`` (main only): the same per partition and bucket of the latest snapshot, partition
  as cast text, sorted by partition text and bucket.
* ``table_indexes`` (main only): the index manifest entries of the selected snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reference import layout
from reference.errors import UnsupportedFeature
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.casts import cast_value
from reference.spec.data import Row, Value
from reference.spec.data_file import DataFileMeta
from reference.spec.manifest import (
    FileKind,
    ManifestEntry,
    ManifestFileMeta,
)
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot
from reference.spec.system_table_columns import (
    BUCKETS_COLUMNS,
    FILES_0_9_COLUMNS,
    FILES_COLUMNS,
    MANIFESTS_0_9_COLUMNS,
    MANIFESTS_COLUMNS,
    PARTITIONS_0_9_COLUMNS,
    PARTITIONS_COLUMNS,
    TABLE_INDEXES_COLUMNS,
    column_names,
)
from reference.store import metadata
from reference.store.query import load_schemas
from reference.store.scan import (
    compute_bucket_path,
    compute_live_entries,
    compute_stats_fields,
    decode_field_stats,
    is_level_zero_skipped,
    list_snapshot_manifests,
    read_index_manifest,
    read_manifest,
    read_manifest_list,
)
from reference.system_tables.common import (
    SystemTableRows,
    SystemTableVersion,
    compute_fields,
    compute_local_timestamp,
    compute_rows,
    format_cast_row,
    format_cast_text,
    format_java_tree_map,
    format_object_row,
    format_object_text,
    is_time_travel,
    resolve_travel_snapshot,
    select_columns,
)

PARTITION_PATH_SEPARATOR = "/"


def compute_entry_partition(schema: TableSchema, partition_bytes: bytes) -> Row:
    return deserialize_binary_row(partition_bytes, [f.type for f in schema.partition_type.fields])


def format_partition(schema: TableSchema, partition: Row, version: SystemTableVersion) -> str:
    """``[v1, v2]`` (0.9, object text) or ``{v1, v2}`` (main, cast text)."""
    types = [f.type for f in schema.partition_type.fields]
    if version is SystemTableVersion.PAIMON_0_9:
        return format_object_row(partition, types)
    return format_cast_row(partition, types)


def read_snapshot_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot
) -> list[ManifestEntry]:
    """Every entry of the snapshot's base and delta manifests, ADD and DELETE."""
    return [
        entry
        for meta in list_snapshot_manifests(file_io, table_root, snapshot)
        for entry in read_manifest(file_io, table_root, meta.file_name)
    ]


# --------------------------------------------------------------------------------------------
# files
# --------------------------------------------------------------------------------------------

FILES_0_9 = column_names(FILES_0_9_COLUMNS)


@dataclass(frozen=True)
class FieldTexts:
    """A file's statistics as text: null counts, lower and upper bounds."""

    null_counts: str
    lower: str
    upper: str


FieldStatsRow = tuple[t.DataField, Value, Value, Value]
"""A table field with its null count, lower and upper bound in one file."""


def compute_evolved_stats(
    meta: DataFileMeta, file_schema: TableSchema, schema: TableSchema
) -> list[FieldStatsRow]:
    """The file's statistics under the table's current fields (main's ``SimpleStatsEvolution``):
    by field id, cast when the type changed; a field the file lacks counts every row as null."""
    stats = decode_field_stats(meta.value_stats, compute_stats_fields(file_schema, meta))
    by_id = {f.id: f for f in file_schema.fields}
    rows: list[FieldStatsRow] = []
    for table_field in schema.fields:
        file_field = by_id.get(table_field.id)
        found = None if file_field is None else stats.get(file_field.name)
        if file_field is None or found is None:
            rows.append((table_field, meta.row_count if file_field is None else None, None, None))
            continue
        low = cast_value(found.min, file_field.type, table_field.type)
        high = cast_value(found.max, file_field.type, table_field.type)
        rows.append((table_field, found.null_count, low, high))
    return rows


def is_type_changed(file_schema: TableSchema, schema: TableSchema) -> bool:
    by_id = {f.id: f for f in file_schema.fields}
    return any(
        f.id in by_id and by_id[f.id].type.copy(True) != f.type.copy(True) for f in schema.fields
    )


def compute_evolved_stats_0_9(
    meta: DataFileMeta, file_schema: TableSchema, schema: TableSchema
) -> list[FieldStatsRow]:
    """Paimon 0.9: when a field's type changed since the file was written, its casting step
    reads the file's *unprojected* statistics row, so only the first ``len(file fields)``
    table fields are listed and field ``i`` takes the file's value at position ``i``. (Main
    fixed this.) Files whose fields moved are refused: 0.9 prints unrelated values for them."""
    evolved = compute_evolved_stats(meta, file_schema, schema)
    if not is_type_changed(file_schema, schema):
        return evolved
    file_fields = list(file_schema.fields)
    raw = decode_field_stats(meta.value_stats, file_fields)
    positions = {f.id: i for i, f in enumerate(file_fields)}
    rows: list[FieldStatsRow] = []
    for i, (table_field, count, _, _) in enumerate(evolved[: len(file_fields)]):
        position = positions.get(table_field.id)
        if position is None:
            rows.append((table_field, count, None, None))
            continue
        if position != i:
            raise UnsupportedFeature("Paimon 0.9 prints unrelated statistics for moved fields")
        found = raw[file_fields[i].name]
        source = file_fields[i].type
        low = cast_value(found.min, source, table_field.type)
        high = cast_value(found.max, source, table_field.type)
        rows.append((table_field, count, low, high))
    return rows


def compute_stats_texts(
    meta: DataFileMeta,
    file_schema: TableSchema,
    schema: TableSchema,
    version: SystemTableVersion,
) -> FieldTexts:
    """The statistics columns of ``files`` (module docstring): Java ``TreeMap`` texts."""
    rows = (
        compute_evolved_stats_0_9(meta, file_schema, schema)
        if version is SystemTableVersion.PAIMON_0_9
        else compute_evolved_stats(meta, file_schema, schema)
    )
    nulls = {f.name: "null" if count is None else str(count) for f, count, _, _ in rows}
    lower = {f.name: format_object_text(low, f.type) for f, _, low, _ in rows}
    upper = {f.name: format_object_text(high, f.type) for f, _, _, high in rows}
    return FieldTexts(
        format_java_tree_map(nulls), format_java_tree_map(lower), format_java_tree_map(upper)
    )


def format_key(key_bytes: bytes, file_schema: TableSchema) -> str | None:
    """A file's min or max key as object text; null without key columns."""
    key_type = file_schema.trimmed_primary_keys_type
    if not key_type.fields:
        return None
    types = [f.type for f in key_type.fields]
    return format_object_row(deserialize_binary_row(key_bytes, types), types)


def compute_file_values(
    entry: ManifestEntry,
    table_root: str,
    schema: TableSchema,
    file_schema: TableSchema,
    version: SystemTableVersion,
) -> dict[str, Value]:
    meta = entry.file
    partition = compute_entry_partition(schema, entry.partition)
    if version is SystemTableVersion.PAIMON_0_9:
        path = meta.file_name
    else:
        bucket_path = compute_bucket_path(table_root, schema, partition, entry.bucket)
        path = meta.external_path or f"{bucket_path}/{meta.file_name}"
    texts = compute_stats_texts(meta, file_schema, schema, version)
    return {
        "partition": format_partition(schema, partition, version),
        "bucket": entry.bucket,
        "file_path": path,
        "file_format": layout.data_file_format(meta.file_name),
        "schema_id": meta.schema_id,
        "level": meta.level,
        "record_count": meta.row_count,
        "file_size_in_bytes": meta.file_size,
        "min_key": format_key(meta.min_key, file_schema),
        "max_key": format_key(meta.max_key, file_schema),
        "null_value_counts": texts.null_counts,
        "min_value_stats": texts.lower,
        "max_value_stats": texts.upper,
        "min_sequence_number": meta.min_sequence_number,
        "max_sequence_number": meta.max_sequence_number,
        "creation_time": meta.creation_time,
        "deleteRowCount": meta.delete_row_count,
        "file_source": None if meta.file_source is None else meta.file_source.name,
        "first_row_id": meta.first_row_id,
        "write_cols": None if meta.write_cols is None else list(meta.write_cols),
    }


def read_files_table(
    file_io: FileIO, table_root: str, options: Mapping[str, str], version: SystemTableVersion
) -> SystemTableRows:
    fields = select_columns(FILES_COLUMNS, FILES_0_9, version)
    snapshot = resolve_travel_snapshot(file_io, table_root, options)
    if snapshot is None:
        return SystemTableRows(fields, [])
    schema = metadata.read_latest_schema(file_io, table_root)
    schemas = load_schemas(file_io, table_root)
    live = compute_live_entries(read_snapshot_entries(file_io, table_root, snapshot)).live
    if version is SystemTableVersion.PAIMON_0_9 and is_level_zero_skipped(schema):
        live = [entry for entry in live if entry.file.level > 0]
    values = [
        compute_file_values(e, table_root, schema, schemas[e.file.schema_id], version) for e in live
    ]
    return SystemTableRows(fields, compute_rows(fields, values))


# --------------------------------------------------------------------------------------------
# manifests
# --------------------------------------------------------------------------------------------

MANIFESTS_0_9 = column_names(MANIFESTS_0_9_COLUMNS)


def resolve_manifests_snapshot(
    file_io: FileIO, table_root: str, options: Mapping[str, str], version: SystemTableVersion
) -> Snapshot | None:
    """0.9 honours only ``scan.snapshot-id`` (a missing id: no snapshot); main all time travel."""
    if version is SystemTableVersion.MAIN:
        return resolve_travel_snapshot(file_io, table_root, options)
    text = options.get("scan.snapshot-id")
    if text is None:
        return metadata.read_latest_snapshot(file_io, table_root)
    snapshot_id = int(text)
    if not metadata.has_snapshot(file_io, table_root, snapshot_id):
        return None
    return metadata.read_snapshot(file_io, table_root, snapshot_id)


def compute_manifest_values(meta: ManifestFileMeta, schema: TableSchema) -> dict[str, Value]:
    types = [f.type for f in schema.partition_type.fields]
    lower = deserialize_binary_row(meta.partition_stats.min_values, types)
    upper = deserialize_binary_row(meta.partition_stats.max_values, types)
    return {
        "file_name": meta.file_name,
        "file_size": meta.file_size,
        "num_added_files": meta.num_added_files,
        "num_deleted_files": meta.num_deleted_files,
        "schema_id": meta.schema_id,
        "min_partition_stats": format_cast_row(lower, types),
        "max_partition_stats": format_cast_row(upper, types),
        "min_row_id": meta.min_row_id,
        "max_row_id": meta.max_row_id,
    }


def read_manifests_table(
    file_io: FileIO, table_root: str, options: Mapping[str, str], version: SystemTableVersion
) -> SystemTableRows:
    fields = select_columns(MANIFESTS_COLUMNS, MANIFESTS_0_9, version)
    snapshot = resolve_manifests_snapshot(file_io, table_root, options, version)
    if snapshot is None:
        return SystemTableRows(fields, [])
    schema = metadata.read_latest_schema(file_io, table_root)
    metas = list_snapshot_manifests(file_io, table_root, snapshot)
    if snapshot.changelog_manifest_list is not None:
        metas += read_manifest_list(file_io, table_root, snapshot.changelog_manifest_list)
    return SystemTableRows(
        fields, compute_rows(fields, [compute_manifest_values(m, schema) for m in metas])
    )


# --------------------------------------------------------------------------------------------
# partitions and buckets
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileTotals:
    """Sums over manifest entries of one partition (or bucket). Java ``PartitionEntry``."""

    record_count: int
    file_size_in_bytes: int
    file_count: int
    last_file_creation_millis: int
    total_buckets: int


def compute_creation_millis(meta: DataFileMeta) -> int:
    """A file's local creation time as epoch millis (in UTC, see ``common`` rule 3)."""
    return 0 if meta.creation_time is None else meta.creation_time.millisecond


def compute_entry_totals(entry: ManifestEntry) -> FileTotals:
    sign = -1 if entry.kind is FileKind.DELETE else 1
    return FileTotals(
        sign * entry.file.row_count,
        sign * entry.file.file_size,
        sign,
        compute_creation_millis(entry.file),
        entry.total_buckets,
    )


def merge_totals(left: FileTotals, right: FileTotals) -> FileTotals:
    return FileTotals(
        left.record_count + right.record_count,
        left.file_size_in_bytes + right.file_size_in_bytes,
        left.file_count + right.file_count,
        max(left.last_file_creation_millis, right.last_file_creation_millis),
        right.total_buckets,
    )


def compute_totals(
    entries: Sequence[ManifestEntry], by_bucket: bool
) -> dict[tuple[bytes, int], FileTotals]:
    """Totals by (partition bytes, bucket or 0); groups with no file left are dropped."""
    totals: dict[tuple[bytes, int], FileTotals] = {}
    for entry in entries:
        key = (entry.partition, entry.bucket if by_bucket else 0)
        current = compute_entry_totals(entry)
        totals[key] = current if key not in totals else merge_totals(totals[key], current)
    return {key: value for key, value in totals.items() if value.file_count > 0}


PARTITIONS_0_9 = column_names(PARTITIONS_0_9_COLUMNS)


def format_partition_path(schema: TableSchema, partition: Row) -> str:
    """Main's ``key=value/...`` partition text (cast text, null as the default name)."""
    default_name = schema.core_options.partition_default_name
    parts = [
        f"{f.name}={default_name if value is None else format_cast_text(value, f.type)}"
        for f, value in zip(schema.partition_type.fields, partition, strict=True)
    ]
    return PARTITION_PATH_SEPARATOR.join(parts)


def compute_deleted_record_counts(
    file_io: FileIO, table_root: str, snapshot: Snapshot, schema: TableSchema
) -> dict[bytes, int | None]:
    """Deletion-vector cardinalities summed by partition (``None`` once one is unknown)."""
    if not schema.core_options.deletion_vectors_enabled or snapshot.index_manifest is None:
        return {}
    counts: dict[bytes, int | None] = {}
    for entry in read_index_manifest(file_io, table_root, snapshot.index_manifest):
        ranges = entry.index_file.dv_ranges or ()
        if entry.index_file.index_type != "DELETION_VECTORS" or not ranges:
            continue
        for dv in ranges:
            known = counts.get(entry.partition, 0)
            counts[entry.partition] = (
                None if known is None or dv.cardinality is None else known + dv.cardinality
            )
    return counts


def read_partitions_table(
    file_io: FileIO, table_root: str, options: Mapping[str, str], version: SystemTableVersion
) -> SystemTableRows:
    fields = select_columns(PARTITIONS_COLUMNS, PARTITIONS_0_9, version)
    is_0_9 = version is SystemTableVersion.PAIMON_0_9
    snapshot = (
        metadata.read_latest_snapshot(file_io, table_root)
        if is_0_9 or not is_time_travel(options)
        else resolve_travel_snapshot(file_io, table_root, options)
    )
    if snapshot is None:
        return SystemTableRows(fields, [])
    schema = metadata.read_latest_schema(file_io, table_root)
    totals = compute_totals(read_snapshot_entries(file_io, table_root, snapshot), False)
    deleted = compute_deleted_record_counts(file_io, table_root, snapshot, schema)
    values = []
    for (partition_bytes, _), total in totals.items():
        partition = compute_entry_partition(schema, partition_bytes)
        text = (
            format_partition(schema, partition, version)
            if is_0_9
            else format_partition_path(schema, partition)
        )
        values.append(
            {
                "partition": text,
                "record_count": total.record_count,
                "file_size_in_bytes": total.file_size_in_bytes,
                "file_count": total.file_count,
                "last_update_time": compute_local_timestamp(total.last_file_creation_millis),
                "total_buckets": total.total_buckets,
                "done": False,
                "deleted_record_count": deleted.get(partition_bytes, 0),
            }
        )
    if not is_0_9:
        values.sort(key=lambda row: str(row["partition"]))
    return SystemTableRows(fields, compute_rows(fields, values))


BUCKETS_FIELDS = compute_fields(BUCKETS_COLUMNS)


def read_buckets_table(
    file_io: FileIO, table_root: str, version: SystemTableVersion
) -> SystemTableRows:
    if version is SystemTableVersion.PAIMON_0_9:
        raise UnsupportedFeature("Paimon 0.9 has no 'buckets' system table")
    snapshot = metadata.read_latest_snapshot(file_io, table_root)
    if snapshot is None:
        return SystemTableRows(BUCKETS_FIELDS, [])
    schema = metadata.read_latest_schema(file_io, table_root)
    totals = compute_totals(read_snapshot_entries(file_io, table_root, snapshot), True)
    rows: list[Row] = []
    for (partition_bytes, bucket), total in totals.items():
        partition = compute_entry_partition(schema, partition_bytes)
        rows.append(
            (
                format_partition(schema, partition, version),
                bucket,
                total.record_count,
                total.file_size_in_bytes,
                total.file_count,
                compute_local_timestamp(total.last_file_creation_millis),
            )
        )
    rows.sort(key=lambda row: (str(row[0]), int(row[1])))
    return SystemTableRows(BUCKETS_FIELDS, rows)


# --------------------------------------------------------------------------------------------
# table_indexes
# --------------------------------------------------------------------------------------------

TABLE_INDEXES_FIELDS = compute_fields(TABLE_INDEXES_COLUMNS)


def read_table_indexes_table(
    file_io: FileIO, table_root: str, options: Mapping[str, str], version: SystemTableVersion
) -> SystemTableRows:
    if version is SystemTableVersion.PAIMON_0_9:
        raise UnsupportedFeature("Paimon 0.9 has no 'table_indexes' system table")
    snapshot = resolve_travel_snapshot(file_io, table_root, options)
    if snapshot is None or snapshot.index_manifest is None:
        return SystemTableRows(TABLE_INDEXES_FIELDS, [])
    schema = metadata.read_latest_schema(file_io, table_root)
    names = {f.id: f.name for f in schema.fields}
    rows: list[Row] = []
    for entry in read_index_manifest(file_io, table_root, snapshot.index_manifest):
        index = entry.index_file
        ranges = index.dv_ranges
        glob = index.global_index
        field_ids = [] if glob is None else [glob.index_field_id, *(glob.extra_field_ids or ())]
        field_names = [names[i] for i in field_ids if i in names]
        rows.append(
            (
                format_partition(schema, compute_entry_partition(schema, entry.partition), version),
                entry.bucket,
                index.index_type,
                index.file_name,
                index.file_size,
                index.row_count,
                None
                if ranges is None
                else [(r.data_file_name, r.offset, r.length, r.cardinality) for r in ranges],
                None if glob is None else glob.row_range_start,
                None if glob is None else glob.row_range_end,
                None if glob is None else glob.index_field_id,
                ",".join(field_names) if len(field_names) == len(field_ids) and glob else None,
            )
        )
    return SystemTableRows(TABLE_INDEXES_FIELDS, rows)
