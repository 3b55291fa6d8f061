"""The rows of each system table (Paimon 0.9's column sets), for :mod:`spark_impl.system_tables`.

Java: ``org.apache.paimon.table.system.{SnapshotsTable, SchemasTable, OptionsTable, TagsTable,
BranchesTable, ConsumersTable, AggregationFieldsTable, StatisticTable, ManifestsTable,
FilesTable, PartitionsTable, AuditLogTable, ReadOptimizedTable}`` of Paimon 0.9.0.

* ``snapshots``: one row per snapshot, ascending id.
* ``schemas``: one per schema; fields, keys and options as compact JSON (options in
  ``HashMap`` order). ``options``: the latest schema's options, ``HashMap`` order.
* ``tags``: one per tag by name: the tagged snapshot's id, schema, commit time and total record
  count, the tag's creation time and retention (``Duration.toString``).
* ``branches``: one per branch directory: the tag it was created from (its earliest snapshot
  carries exactly one tag, the branch's first), its earliest snapshot, the directory's time.
* ``consumers``: consumer id and next snapshot, ``HashMap`` order.
* ``aggregation_fields``: per field of the latest schema, the ``fields.<field>.*`` options'
  values and keys as Java lists, and the comment.
* ``statistics``: the statistics file of the selected snapshot, if any.
* ``manifests``: the base, delta and changelog manifests of ``scan.snapshot-id`` (0.9 honours
  only that option; an id that does not exist gives no rows) or the latest snapshot.
* ``files``: the live files of the selected snapshot (no level-0 files where batch reads skip
  them): partition as ``[v1, v2]`` object text, the file name, the trimmed key bounds, the
  value statistics of the current schema's fields by field id in ``TreeMap`` text.
* ``partitions``: per partition of the latest snapshot, the sums of its entries (ADD adds,
  DELETE subtracts) of rows, bytes and files, the latest file creation time; empty partitions
  left out.
* ``audit_log`` and ``ro``: see :mod:`spark_impl.system_table_reads`; ``buckets``, ``binlog``
  and ``table_indexes`` (main's, with main's columns): :mod:`spark_impl.system_table_main`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from reference import layout
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.branch_origin import select_branch_origin
from reference.spec.casts import (
    NULL_TEXT,
    cast_value,
    format_java_number,
)
from reference.spec.data import Timestamp
from reference.spec.data_file import DataFileMeta
from reference.spec.file_index.java_order import compute_hash_map_order, compute_java_string_hash
from reference.spec.json_format import decode_json_object, encode_json
from reference.spec.manifest import FileKind, ManifestEntry
from reference.spec.options import FIELD_OPTION_MIN_PARTS
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import Snapshot, decode_consumer, decode_tag
from reference.spec.system_table_columns import (
    AGGREGATION_COLUMNS,
    BRANCHES_COLUMNS,
    BUCKETS_COLUMNS,
    CONSUMERS_COLUMNS,
    FILES_0_9_COLUMNS,
    MANIFESTS_0_9_COLUMNS,
    OPTIONS_COLUMNS,
    PARTITIONS_0_9_COLUMNS,
    SCHEMAS_COLUMNS,
    SNAPSHOTS_0_9_COLUMNS,
    STATISTICS_COLUMNS,
    TABLE_INDEXES_COLUMNS,
    TAGS_COLUMNS,
)
from reference.spec.units import (
    format_java_duration,
)
from spark_impl import system_table_main as main
from spark_impl import system_table_reads as reads
from spark_impl.metadata import (
    find_earliest_snapshot_id,
    find_latest_snapshot_id,
    read_latest_schema,
    read_manifest_list,
    read_schema_json,
    read_snapshot,
    replay_entries,
)
from spark_impl.plan import decode_stats, is_level_zero_skipped, resolve_snapshot
from spark_impl.system_tables import (
    SystemTable,
    fixed_columns,
    parse_travel,
    to_local_datetime,
)

FIELD_OPTION_PREFIX = "fields."
Row = tuple[Any, ...]

# --------------------------------------------------------------------------------------------
# Shared: JSON, Java texts and orders, time travel
# --------------------------------------------------------------------------------------------


def encode_flat_json(value: Any) -> str:
    """Jackson's compact output (``JsonSerdeUtil.toFlatJson``)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def java_string_key(text: str) -> bytes:
    """Java ``String.compareTo`` order: UTF-16 code units."""
    return text.encode("utf-16-be")


def hash_map_keys(keys: Sequence[str]) -> list[str]:
    """The keys in the order a Java ``HashMap`` filled in this order iterates them."""
    calls = [(key, compute_java_string_hash(key)) for key in keys]
    return [str(key) for key in compute_hash_map_order(calls, compute_if_absent=False)]


def format_tree_map(entries: Mapping[str, str]) -> str:
    """``TreeMap<String, ?>.toString``."""
    keys = sorted(entries, key=java_string_key)
    return "{" + ", ".join(f"{key}={entries[key]}" for key in keys) + "}"


def format_object_text(value: Any, data_type: t.DataType) -> str:
    """Java ``String.valueOf`` of an internal value (module rule 3): a number as
    ``reference.spec.casts.format_java_number`` prints it, a TIMESTAMP as a ``LocalDateTime``."""
    if value is None:
        return NULL_TEXT
    if data_type.root in t.NUMERIC_ROOTS:
        return format_java_number(value, data_type)
    if data_type.root is t.TypeRoot.BOOLEAN:
        return "true" if value else "false"
    if isinstance(value, Timestamp):
        return layout.compute_local_date_time_string(value)
    if isinstance(value, bytes):
        return "[B@?"
    if isinstance(value, (int, str)):
        return str(value)
    return "<nested>"


def format_object_row(values: Sequence[Any], types: Sequence[t.DataType]) -> str:
    """``Arrays.toString`` of values as objects (0.9's partition and key text)."""
    texts = [format_object_text(v, ty) for v, ty in zip(values, types, strict=True)]
    return "[" + ", ".join(texts) + "]"


def list_snapshots(file_io: FileIO, root: str) -> list[Snapshot]:
    earliest = find_earliest_snapshot_id(file_io, root)
    latest = find_latest_snapshot_id(file_io, root)
    if earliest is None or latest is None:
        return []
    return [read_snapshot(file_io, root, i) for i in range(earliest, latest + 1)]


def list_names(file_io: FileIO, directory: str, parse: Any) -> list[str]:
    if not file_io.exists(directory):
        return []
    names = (parse(name) for name in file_io.list_dir(directory))
    return sorted(name for name in names if name is not None)


# --------------------------------------------------------------------------------------------
# Metadata tables
# --------------------------------------------------------------------------------------------


def snapshots_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    """One row per snapshot, ascending id (Java ``SnapshotsTable``)."""
    return [
        (
            s.id,
            s.schema_id,
            s.commit_user,
            s.commit_identifier,
            s.commit_kind.value,
            to_local_datetime(s.time_millis),
            s.base_manifest_list,
            s.delta_manifest_list,
            s.changelog_manifest_list,
            s.total_record_count,
            s.delta_record_count,
            s.changelog_record_count,
            s.watermark,
        )
        for s in list_snapshots(file_io, root)
    ]


def schemas_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    """One row per schema; JSON columns compact, options in ``HashMap`` order (Java
    ``SchemasTable``)."""
    ids = list_names(file_io, layout.schema_dir(root), layout.parse_schema_id)
    rows: list[Row] = []
    for schema_id in sorted(int(i) for i in ids):
        schema = decode_schema(read_schema_json(file_io, root, schema_id))
        ordered = {key: schema.options[key] for key in hash_map_keys(list(schema.options))}
        rows.append(
            (
                schema.id,
                encode_flat_json([t.field_to_json(f) for f in schema.fields]),
                encode_flat_json(list(schema.partition_keys)),
                encode_flat_json(list(schema.primary_keys)),
                encode_flat_json(ordered),
                schema.comment,
                to_local_datetime(schema.time_millis),
            )
        )
    return rows


def options_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    schema_options = read_latest_schema(file_io, root).options
    return [(key, schema_options[key]) for key in hash_map_keys(list(schema_options))]


def tags_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    """One row per tag, by name (Java ``TagsTable``)."""
    rows: list[Row] = []
    for name in list_names(file_io, layout.tag_dir(root), layout.parse_tag_name):
        tag = decode_tag(file_io.read_bytes(layout.tag_path(root, name)))
        created = tag.create_time
        retained = tag.time_retained_nanos
        rows.append(
            (
                name,
                tag.snapshot.id,
                tag.snapshot.schema_id,
                to_local_datetime(tag.snapshot.time_millis),
                tag.snapshot.total_record_count,
                None if created is None else created.to_datetime(),
                None if retained is None else format_java_duration(retained),
            )
        )
    return rows


def branch_origin(file_io: FileIO, branch_root: str) -> tuple[str | None, int | None]:
    """``created_from_tag`` and ``created_from_snapshot`` of the branch at ``branch_root``
    (``reference.spec.branch_origin``; a branch without a schema has neither)."""
    if not list_names(file_io, layout.schema_dir(branch_root), layout.parse_schema_id):
        return None, None
    tags = {
        name: decode_tag(file_io.read_bytes(layout.tag_path(branch_root, name))).snapshot.id
        for name in list_names(file_io, layout.tag_dir(branch_root), layout.parse_tag_name)
    }
    return select_branch_origin(find_earliest_snapshot_id(file_io, branch_root), tags)


def branches_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    rows: list[Row] = []
    for name in list_names(file_io, layout.branch_dir(root), layout.parse_branch_name):
        branch_root = layout.branch_path(root, name)
        tag, snapshot_id = branch_origin(file_io, branch_root)
        created = file_io.modification_time_millis(branch_root)
        rows.append((name, tag, snapshot_id, to_local_datetime(created)))
    return rows


def consumers_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    ids = list_names(file_io, layout.consumer_dir(root), layout.parse_consumer_id)
    found = {
        i: decode_consumer(file_io.read_bytes(layout.consumer_path(root, i))).next_snapshot
        for i in ids
    }
    return [(i, found[i]) for i in hash_map_keys(ids)]


def aggregation_fields_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    """One row per field of the latest schema with its ``fields.<name>.*`` options (Java
    ``AggregationFieldsTable``)."""
    schema = read_latest_schema(file_io, root)
    by_field: dict[str, list[tuple[str, str]]] = {}
    for key in hash_map_keys(list(schema.options)):
        parts = key.split(".")
        if len(parts) >= FIELD_OPTION_MIN_PARTS and key.startswith(FIELD_OPTION_PREFIX):
            by_field.setdefault(parts[1], []).append((key, schema.options[key]))
    rows: list[Row] = []
    for field in schema.fields:
        found = by_field.get(field.name, [])
        values = "[" + ", ".join(value for _, value in found) + "]"
        keys = "[" + ", ".join(key for key, _ in found) + "]"
        rows.append((field.name, str(field.type), values, keys, field.description))
    return rows


def statistics_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    """The statistics file of the selected snapshot, if any (Java ``StatisticTable``)."""
    snapshot = resolve_snapshot(file_io, root, parse_travel(options))
    if snapshot is None or snapshot.statistics is None:
        return []
    members = decode_json_object(
        file_io.read_bytes(layout.statistics_path(root, snapshot.statistics))
    )
    return [
        (
            members.get("snapshotId"),
            members.get("schemaId"),
            members.get("mergedRecordCount"),
            members.get("mergedRecordSize"),
            encode_json(members.get("colStats", {})),
        )
    ]


# --------------------------------------------------------------------------------------------
# File tables
# --------------------------------------------------------------------------------------------


def manifests_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    """0.9 honours ``scan.snapshot-id`` only; an id that does not exist gives no rows."""
    text = options.get("scan.snapshot-id", options.get("snapshot-id"))
    if text is None:
        latest = find_latest_snapshot_id(file_io, root)
        snapshot = None if latest is None else read_snapshot(file_io, root, latest)
    else:
        snapshot_id = parse_travel({"scan.snapshot-id": text}).snapshot_id
        exists = file_io.exists(layout.snapshot_path(root, int(snapshot_id or 0)))
        snapshot = read_snapshot(file_io, root, int(snapshot_id or 0)) if exists else None
    if snapshot is None:
        return []
    lists = [snapshot.base_manifest_list, snapshot.delta_manifest_list]
    if snapshot.changelog_manifest_list is not None:
        lists.append(snapshot.changelog_manifest_list)
    return [
        (m.file_name, m.file_size, m.num_added_files, m.num_deleted_files, m.schema_id)
        for name in lists
        for m in read_manifest_list(file_io, root, name)
    ]


def stats_fields(meta: DataFileMeta, file_schema: TableSchema) -> list[t.DataField]:
    """The fields a file's value statistics cover (``_VALUE_STATS_COLS`` or all)."""
    if meta.value_stats_cols is None:
        return list(file_schema.fields)
    by_name = {f.name: f for f in file_schema.fields}
    return [by_name[name] for name in meta.value_stats_cols]


def stats_texts(
    meta: DataFileMeta, file_schema: TableSchema, schema: TableSchema
) -> tuple[str, str, str]:
    """Null counts, lower and upper bounds of the current fields, by field id (cast when the
    type changed; a field the file lacks: every row null, no bounds), as ``TreeMap`` text."""
    by_id = decode_stats(meta.value_stats, stats_fields(meta, file_schema))
    file_by_id = {f.id: f for f in file_schema.fields}
    nulls: dict[str, str] = {}
    lower: dict[str, str] = {}
    upper: dict[str, str] = {}
    for field in schema.fields:
        file_field = file_by_id.get(field.id)
        found = by_id.get(field.id)
        low = high = None
        count: int | None = meta.row_count if file_field is None else None
        if file_field is not None and found is not None:
            count = found.null_count
            low = cast_value(found.min, file_field.type, field.type)
            high = cast_value(found.max, file_field.type, field.type)
        nulls[field.name] = NULL_TEXT if count is None else str(count)
        lower[field.name] = format_object_text(low, field.type)
        upper[field.name] = format_object_text(high, field.type)
    return format_tree_map(nulls), format_tree_map(lower), format_tree_map(upper)


def format_key(key: bytes, file_schema: TableSchema) -> str | None:
    types = [f.type for f in file_schema.trimmed_primary_keys_type.fields]
    return format_object_row(deserialize_binary_row(key, types), types) if types else None


def file_row(entry: ManifestEntry, schema: TableSchema, file_schema: TableSchema) -> Row:
    """One live data file as a ``files`` row (Java ``FilesTable``, Paimon 0.9 columns)."""
    meta = entry.file
    types = [f.type for f in schema.partition_type.fields]
    partition = deserialize_binary_row(entry.partition, types)
    nulls, lower, upper = stats_texts(meta, file_schema, schema)
    created = meta.creation_time
    return (
        format_object_row(partition, types),
        entry.bucket,
        meta.file_name,
        layout.data_file_format(meta.file_name),
        meta.schema_id,
        meta.level,
        meta.row_count,
        meta.file_size,
        format_key(meta.min_key, file_schema),
        format_key(meta.max_key, file_schema),
        nulls,
        lower,
        upper,
        meta.min_sequence_number,
        meta.max_sequence_number,
        None if created is None else created.to_datetime(),
    )


def files_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    """The live files of the selected snapshot; no level-0 files where batch reads skip them
    (Java ``FilesTable``)."""
    snapshot = resolve_snapshot(file_io, root, parse_travel(options))
    if snapshot is None:
        return []
    schema = read_latest_schema(file_io, root)
    live = replay_entries(main.snapshot_entries(file_io, root, snapshot))
    if is_level_zero_skipped(schema):
        live = [entry for entry in live if entry.file.level > 0]
    schemas = {
        i: decode_schema(read_schema_json(file_io, root, i))
        for i in {e.file.schema_id for e in live}
    }
    return [file_row(e, schema, schemas[e.file.schema_id]) for e in live]


def partitions_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    """Sums over the latest snapshot's entries (Java ``PartitionEntry``), per partition."""
    latest = find_latest_snapshot_id(file_io, root)
    if latest is None:
        return []
    schema = read_latest_schema(file_io, root)
    types = [f.type for f in schema.partition_type.fields]
    totals: dict[bytes, list[int]] = {}
    for entry in main.snapshot_entries(file_io, root, read_snapshot(file_io, root, latest)):
        sign = -1 if entry.kind is FileKind.DELETE else 1
        created = entry.file.creation_time
        millis = 0 if created is None else created.millisecond
        total = totals.setdefault(entry.partition, [0, 0, 0, millis])
        total[0] += sign * entry.file.row_count
        total[1] += sign * entry.file.file_size
        total[2] += sign
        total[3] = max(total[3], millis)
    return [
        (
            format_object_row(deserialize_binary_row(partition, types), types),
            rows,
            size,
            count,
            to_local_datetime(millis),
        )
        for partition, (rows, size, count, millis) in totals.items()
        if count > 0
    ]


SYSTEM_TABLES: dict[str, SystemTable] = {
    "manifests": SystemTable(fixed_columns(MANIFESTS_0_9_COLUMNS), manifests_rows),
    "snapshots": SystemTable(fixed_columns(SNAPSHOTS_0_9_COLUMNS), snapshots_rows),
    "options": SystemTable(fixed_columns(OPTIONS_COLUMNS), options_rows),
    "schemas": SystemTable(fixed_columns(SCHEMAS_COLUMNS), schemas_rows),
    "partitions": SystemTable(fixed_columns(PARTITIONS_0_9_COLUMNS), partitions_rows),
    "audit_log": SystemTable(reads.audit_log_columns_of, reads.audit_log_rows),
    "files": SystemTable(fixed_columns(FILES_0_9_COLUMNS), files_rows),
    "tags": SystemTable(fixed_columns(TAGS_COLUMNS), tags_rows),
    "branches": SystemTable(fixed_columns(BRANCHES_COLUMNS), branches_rows),
    "consumers": SystemTable(fixed_columns(CONSUMERS_COLUMNS), consumers_rows),
    "ro": SystemTable(reads.ro_columns_of, reads.ro_rows),
    "aggregation_fields": SystemTable(fixed_columns(AGGREGATION_COLUMNS), aggregation_fields_rows),
    "statistics": SystemTable(fixed_columns(STATISTICS_COLUMNS), statistics_rows),
    "buckets": SystemTable(fixed_columns(BUCKETS_COLUMNS), main.buckets_rows),
    "binlog": SystemTable(main.binlog_columns_of, main.binlog_rows),
    "table_indexes": SystemTable(fixed_columns(TABLE_INDEXES_COLUMNS), main.table_indexes_rows),
}
"""Paimon 0.9.0's data system tables (``SystemTableLoader`` order), then main's ``buckets``,
``binlog`` and ``table_indexes`` (:mod:`spark_impl.system_table_main`): columns and rows."""
