"""System tables over a table's JSON metadata: snapshots, schemas, options, tags, branches,
consumers, aggregation_fields and statistics.

Spec: ``docs/concepts/system-tables.md``; the seeds' sections 3.7.1.1-3.7.1.3, 3.7.1.8-3.7.1.10,
3.7.1.12 and 3.7.1.15. Java: ``table/system/{SnapshotsTable, SchemasTable, OptionsTable,
TagsTable, BranchesTable, ConsumersTable, AggregationFieldsTable, StatisticTable}``.

Rows:

* ``snapshots``: one per snapshot, ascending ids; ``commit_time`` is the commit's local time.
  Main adds ``next_row_id``, ``operation``, ``writer_version``.
* ``schemas``: one per schema; ``fields``, ``partition_keys``, ``primary_keys`` and ``options``
  as compact JSON (options in ``HashMap`` order), ``update_time`` from the schema's time.
* ``options``: the latest schema's options, ``HashMap`` order.
* ``tags``: one per tag, by name: the tagged snapshot's id, schema, commit time and total record
  count, the tag's creation time and retention (``Duration.toString``, e.g. ``PT1H``).
* ``branches``: one per ``branch/branch-<name>`` directory with its modification time. Paimon
  0.9 also has ``created_from_tag`` and ``created_from_snapshot`` (the branch's earliest
  snapshot, and the tag on it when the branch's first tag is on that snapshot).
* ``consumers``: one per consumer file: id and next snapshot.
* ``aggregation_fields``: one per field of the latest schema: its type, the values and the keys
  of the ``fields.<field>.<...>`` options (``HashMap`` order of the options), its comment.
* ``statistics``: the ``statistics`` file of the selected snapshot, if any.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from reference import layout
from reference.io import FileIO, LocalFileIO, local_os_path
from reference.merge.aggregate_functions import FIELDS_PREFIX
from reference.spec import types as t
from reference.spec.branch_origin import select_branch_origin
from reference.spec.data import Row, Value
from reference.spec.json_format import decode_json_object, encode_json
from reference.spec.options import FIELD_OPTION_MIN_PARTS
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot, Tag
from reference.spec.system_table_columns import (
    AGGREGATION_COLUMNS,
    BRANCHES_COLUMNS,
    BRANCHES_MAIN,
    CONSUMERS_COLUMNS,
    OPTIONS_COLUMNS,
    SCHEMAS_COLUMNS,
    SNAPSHOTS_0_9_COLUMNS,
    SNAPSHOTS_COLUMNS,
    STATISTICS_COLUMNS,
    TAGS_COLUMNS,
    column_names,
)
from reference.spec.units import NANOS_PER_MILLI, format_java_duration
from reference.store import consumers, metadata
from reference.system_tables.common import (
    SystemTableRows,
    SystemTableVersion,
    compute_fields,
    compute_hash_map_keys,
    compute_local_timestamp,
    compute_rows,
    compute_timestamp_of_local,
    encode_flat_json,
    format_java_list,
    order_as_hash_map,
    resolve_travel_snapshot,
    select_columns,
)

# --------------------------------------------------------------------------------------------
# snapshots
# --------------------------------------------------------------------------------------------

SNAPSHOTS_0_9 = column_names(SNAPSHOTS_0_9_COLUMNS)


def compute_snapshot_values(snapshot: Snapshot) -> dict[str, Value]:
    return {
        "snapshot_id": snapshot.id,
        "schema_id": snapshot.schema_id,
        "commit_user": snapshot.commit_user,
        "commit_identifier": snapshot.commit_identifier,
        "commit_kind": snapshot.commit_kind.value,
        "commit_time": compute_local_timestamp(snapshot.time_millis),
        "base_manifest_list": snapshot.base_manifest_list,
        "delta_manifest_list": snapshot.delta_manifest_list,
        "changelog_manifest_list": snapshot.changelog_manifest_list,
        "total_record_count": snapshot.total_record_count,
        "delta_record_count": snapshot.delta_record_count,
        "changelog_record_count": snapshot.changelog_record_count,
        "watermark": snapshot.watermark,
        "next_row_id": snapshot.next_row_id,
        "operation": None if snapshot.operation is None else snapshot.operation.value,
        "writer_version": snapshot.writer_version,
    }


def read_snapshots_table(
    file_io: FileIO, table_root: str, version: SystemTableVersion
) -> SystemTableRows:
    fields = select_columns(SNAPSHOTS_COLUMNS, SNAPSHOTS_0_9, version)
    snapshots = [
        metadata.read_snapshot(file_io, table_root, snapshot_id)
        for snapshot_id in metadata.list_snapshot_ids(file_io, table_root)
    ]
    return SystemTableRows(
        fields, compute_rows(fields, [compute_snapshot_values(s) for s in snapshots])
    )


# --------------------------------------------------------------------------------------------
# schemas and options
# --------------------------------------------------------------------------------------------

SCHEMAS_FIELDS = compute_fields(SCHEMAS_COLUMNS)


def compute_schema_row(schema: TableSchema) -> Row:
    return (
        schema.id,
        encode_flat_json([t.field_to_json(f) for f in schema.fields]),
        encode_flat_json(list(schema.partition_keys)),
        encode_flat_json(list(schema.primary_keys)),
        encode_flat_json(order_as_hash_map(schema.options)),
        schema.comment,
        compute_local_timestamp(schema.time_millis),
    )


def read_schemas_table(file_io: FileIO, table_root: str) -> SystemTableRows:
    schemas = [
        metadata.read_schema(file_io, table_root, schema_id)
        for schema_id in metadata.list_schema_ids(file_io, table_root)
    ]
    return SystemTableRows(SCHEMAS_FIELDS, [compute_schema_row(s) for s in schemas])


OPTIONS_FIELDS = compute_fields(OPTIONS_COLUMNS)


def compute_option_rows(options: Mapping[str, str]) -> list[Row]:
    return [(key, value) for key, value in order_as_hash_map(options).items()]


def read_options_table(file_io: FileIO, table_root: str) -> SystemTableRows:
    schema = metadata.read_latest_schema(file_io, table_root)
    return SystemTableRows(OPTIONS_FIELDS, compute_option_rows(schema.options))


# --------------------------------------------------------------------------------------------
# tags
# --------------------------------------------------------------------------------------------

TAGS_FIELDS = compute_fields(TAGS_COLUMNS)


def compute_tag_row(name: str, tag: Tag) -> Row:
    snapshot = tag.snapshot
    retained = tag.time_retained_nanos
    return (
        name,
        snapshot.id,
        snapshot.schema_id,
        compute_local_timestamp(snapshot.time_millis),
        snapshot.total_record_count,
        None if tag.create_time is None else compute_timestamp_of_local(tag.create_time),
        None if retained is None else format_java_duration(retained),
    )


def read_tags_table(file_io: FileIO, table_root: str) -> SystemTableRows:
    names = metadata.list_tag_names(file_io, table_root)
    rows = [compute_tag_row(name, metadata.read_tag(file_io, table_root, name)) for name in names]
    return SystemTableRows(TAGS_FIELDS, rows)


# --------------------------------------------------------------------------------------------
# branches
# --------------------------------------------------------------------------------------------


def read_modification_millis(file_io: FileIO, path: str) -> int:
    """A file's or directory's modification time in epoch millis (0 when the store has none:
    object stores keep no directory times)."""
    if isinstance(file_io, LocalFileIO):
        return os.stat(local_os_path(path)).st_mtime_ns // NANOS_PER_MILLI
    filesystem = getattr(file_io, "filesystem", None)
    info = (
        None if filesystem is None else filesystem.get_file_info(path.rsplit("://", maxsplit=1)[-1])
    )
    mtime = None if info is None else info.mtime_ns
    return 0 if mtime is None else int(mtime) // NANOS_PER_MILLI


def list_branch_names(file_io: FileIO, table_root: str) -> list[str]:
    directory = layout.branch_dir(table_root)
    if not file_io.exists(directory):
        return []
    names = (layout.parse_branch_name(name) for name in file_io.list_dir(directory))
    return sorted(name for name in names if name is not None)


def compute_branch_origin(
    file_io: FileIO, table_root: str, branch: str
) -> tuple[str | None, int | None]:
    """0.9's ``created_from_tag`` and ``created_from_snapshot`` of a branch
    (``reference.spec.branch_origin``; a branch without a schema has neither)."""
    if not metadata.list_schema_ids(file_io, table_root, branch):
        return None, None
    tags = {
        name: metadata.read_tag(file_io, table_root, name, branch).snapshot.id
        for name in metadata.list_tag_names(file_io, table_root, branch)
    }
    earliest = metadata.find_earliest_snapshot_id(file_io, table_root, branch)
    return select_branch_origin(earliest, tags)


def read_branches_table(
    file_io: FileIO, table_root: str, version: SystemTableVersion
) -> SystemTableRows:
    columns = (
        [c for c in BRANCHES_COLUMNS if c[0] in BRANCHES_MAIN]
        if version is SystemTableVersion.MAIN
        else list(BRANCHES_COLUMNS)
    )
    fields = compute_fields(columns)
    values = []
    for name in list_branch_names(file_io, table_root):
        tag, snapshot_id = compute_branch_origin(file_io, table_root, name)
        created = read_modification_millis(file_io, layout.branch_path(table_root, name))
        values.append(
            {
                "branch_name": name,
                "created_from_tag": tag,
                "created_from_snapshot": snapshot_id,
                "create_time": compute_local_timestamp(created),
            }
        )
    return SystemTableRows(fields, compute_rows(fields, values))


# --------------------------------------------------------------------------------------------
# consumers
# --------------------------------------------------------------------------------------------

CONSUMERS_FIELDS = compute_fields(CONSUMERS_COLUMNS)


def read_consumers_table(file_io: FileIO, table_root: str) -> SystemTableRows:
    found = consumers.read_consumers(file_io, table_root)
    rows: list[Row] = [
        (consumer_id, found[consumer_id]) for consumer_id in compute_hash_map_keys(list(found))
    ]
    return SystemTableRows(CONSUMERS_FIELDS, rows)


# --------------------------------------------------------------------------------------------
# aggregation_fields
# --------------------------------------------------------------------------------------------

AGGREGATION_FIELDS = compute_fields(AGGREGATION_COLUMNS)


def compute_field_options(options: Mapping[str, str]) -> dict[str, list[tuple[str, str]]]:
    """``fields.<name>.<rest>`` options by ``<name>``, in ``HashMap`` order of the options."""
    found: dict[str, list[tuple[str, str]]] = {}
    for key, value in order_as_hash_map(options).items():
        parts = key.split(".")
        if len(parts) >= FIELD_OPTION_MIN_PARTS and parts[0] == FIELDS_PREFIX:
            found.setdefault(parts[1], []).append((key, value))
    return found


def compute_aggregation_rows(schema: TableSchema) -> list[Row]:
    by_field = compute_field_options(schema.options)
    rows: list[Row] = []
    for data_field in schema.fields:
        options = by_field.get(data_field.name, [])
        rows.append(
            (
                data_field.name,
                str(data_field.type),
                format_java_list([value for _, value in options]),
                format_java_list([key for key, _ in options]),
                data_field.description,
            )
        )
    return rows


def read_aggregation_fields_table(file_io: FileIO, table_root: str) -> SystemTableRows:
    schema = metadata.read_latest_schema(file_io, table_root)
    return SystemTableRows(AGGREGATION_FIELDS, compute_aggregation_rows(schema))


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------

STATISTICS_FIELDS = compute_fields(STATISTICS_COLUMNS)


def read_statistics_table(
    file_io: FileIO, table_root: str, options: Mapping[str, str]
) -> SystemTableRows:
    """The statistics file of the selected snapshot (``colstat`` re-printed as Jackson's
    pretty JSON, members in file order)."""
    snapshot = resolve_travel_snapshot(file_io, table_root, options)
    if snapshot is None or snapshot.statistics is None:
        return SystemTableRows(STATISTICS_FIELDS, [])
    path = layout.statistics_path(table_root, snapshot.statistics)
    members = decode_json_object(file_io.read_bytes(path))
    row: Sequence[Value] = (
        members.get("snapshotId"),
        members.get("schemaId"),
        members.get("mergedRecordCount"),
        members.get("mergedRecordSize"),
        encode_json(members.get("colStats", {})),
    )
    return SystemTableRows(STATISTICS_FIELDS, [tuple(row)])
