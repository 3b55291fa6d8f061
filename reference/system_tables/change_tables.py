"""System tables over a table's rows: audit_log, binlog and ro (read-optimized).

Spec: ``docs/concepts/system-tables.md``; the seeds' sections 3.7.1.4-3.7.1.6; ``docs/flink/
sql-query.mdx`` (``audit_log`` with ``incremental-between``). Java: ``table/system/
{AuditLogTable, BinlogTable, ReadOptimizedTable}``, ``utils/PackChangelogReader``.

Rows:

* ``audit_log``: a ``rowkind`` column (``+I``, ``-U``, ``+U``, ``-D``) before the table's
  fields (main: then ``_SEQUENCE_NUMBER`` when ``table-read.sequence-number.enabled``). Without
  incremental options it is a batch read of the selected snapshot that keeps retracting merge
  results: every key's merged record, ``-D`` included. With ``incremental-between(-timestamp)``
  it is the incremental read with retractions kept: Java 0.9 merges the range's files
  (``reference.store.incremental`` rule 4), main returns every record unmerged (rule 3).
* ``binlog`` (main only): ``rowkind`` (and ``_SEQUENCE_NUMBER``), then every field as an array.
  Unmerged incremental changes are packed: a ``-U`` and the record after it become one row of
  the later record's kind holding ``[before, after]``; every other row holds ``[value]``.
* ``ro``: primary-key tables read only their top-level files (``num-levels - 1``, what the
  latest full compaction wrote), merged; append tables read as usual.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reference.errors import UnsupportedFeature
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.spec.key_value import KeyValue
from reference.spec.options import option_value
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot
from reference.store import metadata
from reference.store.incremental import (
    INCREMENTAL_BETWEEN,
    INCREMENTAL_BETWEEN_TIMESTAMP,
    ChangeView,
    compute_splits,
    read_changes,
    read_merged_split,
)
from reference.store.query import load_schemas
from reference.store.read import apply_record_defaults, compute_read_defaults
from reference.store.scan import (
    compute_live_entries,
    is_level_zero_skipped,
    list_snapshot_manifests,
    read_deletion_files,
    read_manifest,
)
from reference.system_tables.common import (
    SystemTableRows,
    SystemTableVersion,
    is_time_travel,
    resolve_travel_snapshot,
    string_type,
)

ROW_KIND_FIELD = t.DataField(2**31 - 1 - 4, "rowkind", string_type())
"""Java ``SpecialFields.ROW_KIND`` (0.9 numbers it 0; only the name and type are compared)."""
SEQUENCE_NUMBER_FIELD = t.DataField(2**31 - 1 - 1, "_SEQUENCE_NUMBER", t.BigIntType(nullable=False))
SEQUENCE_NUMBER_OPTION = "table-read.sequence-number.enabled"


def is_incremental(options: Mapping[str, str]) -> bool:
    return INCREMENTAL_BETWEEN in options or INCREMENTAL_BETWEEN_TIMESTAMP in options


def read_snapshot_records(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    snapshot: Snapshot,
    *,
    keep_retractions: bool,
    top_level_only: bool = False,
) -> list[KeyValue]:
    """A batch read of ``snapshot`` in ``schema``, merged, level 0 skipped where batch reads
    skip it, retractions kept or dropped (Java ``MergeFileSplitRead`` with ``keepDelete``)."""
    schemas = load_schemas(file_io, table_root)
    entries = [
        entry
        for meta in list_snapshot_manifests(file_io, table_root, snapshot)
        for entry in read_manifest(file_io, table_root, meta.file_name)
    ]
    live = compute_live_entries(entries).live
    if is_level_zero_skipped(schema):
        live = [entry for entry in live if entry.file.level > 0]
    if top_level_only and schema.is_primary_key_table:
        top = schema.core_options.num_levels - 1
        live = [entry for entry in live if entry.file.level == top]
    deletion_files = (
        read_deletion_files(file_io, table_root, snapshot, schema)
        if schema.core_options.deletion_vectors_enabled
        else {}
    )
    records = [
        record
        for split in compute_splits(table_root, schema, snapshot.id, live, deletion_files)
        for record in read_merged_split(
            file_io, split, schema, schemas, keep_retractions=keep_retractions
        )
    ]
    return apply_record_defaults(records, compute_read_defaults(schema))


def compute_read_schema(
    file_io: FileIO, table_root: str, snapshot: Snapshot, options: Mapping[str, str]
) -> TableSchema:
    """A time-travel read uses the snapshot's schema, a latest read the latest schema."""
    if is_time_travel(options):
        return metadata.read_schema(file_io, table_root, snapshot.schema_id)
    return metadata.read_latest_schema(file_io, table_root)


def read_audit_records(
    file_io: FileIO, table_root: str, options: Mapping[str, str], version: SystemTableVersion
) -> tuple[TableSchema, list[KeyValue], bool]:
    """The records of ``audit_log`` / ``binlog``, and whether they are unmerged changes."""
    if is_incremental(options):
        view = ChangeView.MERGED if version is SystemTableVersion.PAIMON_0_9 else ChangeView.RAW
        result = read_changes(file_io, table_root, options, view=view, keep_retractions=True)
        return result.schema, result.records, view is ChangeView.RAW
    snapshot = resolve_travel_snapshot(file_io, table_root, options)
    if snapshot is None:
        return metadata.read_latest_schema(file_io, table_root), [], False
    schema = compute_read_schema(file_io, table_root, snapshot, options)
    records = read_snapshot_records(file_io, table_root, schema, snapshot, keep_retractions=True)
    return schema, records, False


def is_sequence_number_shown(
    schema: TableSchema, options: Mapping[str, str], version: SystemTableVersion
) -> bool:
    if version is SystemTableVersion.PAIMON_0_9:
        return False
    return bool(option_value({**schema.options, **options}, SEQUENCE_NUMBER_OPTION))


def compute_special_fields(show_sequence: bool) -> list[t.DataField]:
    return [ROW_KIND_FIELD, SEQUENCE_NUMBER_FIELD] if show_sequence else [ROW_KIND_FIELD]


def compute_special_values(record: KeyValue, kind: RowKind, show_sequence: bool) -> Row:
    return (kind.short_string, record.sequence_number) if show_sequence else (kind.short_string,)


def read_audit_log_table(
    file_io: FileIO, table_root: str, options: Mapping[str, str], version: SystemTableVersion
) -> SystemTableRows:
    schema, records, _ = read_audit_records(file_io, table_root, options, version)
    show_sequence = is_sequence_number_shown(schema, options, version)
    fields = (*compute_special_fields(show_sequence), *schema.fields)
    rows = [
        (*compute_special_values(record, record.kind, show_sequence), *record.value)
        for record in records
    ]
    return SystemTableRows(tuple(fields), rows)


def pack_changes(records: Sequence[KeyValue]) -> list[tuple[KeyValue, list[Row]]]:
    """``PackChangelogReader``: a ``-U`` joins the record after it (which gives the kind)."""
    packed: list[tuple[KeyValue, list[Row]]] = []
    position = 0
    while position < len(records):
        record = records[position]
        if record.kind is RowKind.UPDATE_BEFORE and position + 1 < len(records):
            after = records[position + 1]
            packed.append((after, [record.value, after.value]))
            position += 2
        else:
            packed.append((record, [record.value]))
            position += 1
    return packed


def read_binlog_table(
    file_io: FileIO, table_root: str, options: Mapping[str, str], version: SystemTableVersion
) -> SystemTableRows:
    if version is SystemTableVersion.PAIMON_0_9:
        raise UnsupportedFeature("Paimon 0.9 has no 'binlog' system table")
    schema, records, unmerged = read_audit_records(file_io, table_root, options, version)
    show_sequence = is_sequence_number_shown(schema, options, version)
    array_fields = [
        t.DataField(f.id, f.name, t.ArrayType(f.type.copy(True)), f.description)
        for f in schema.fields
    ]
    fields = (*compute_special_fields(show_sequence), *array_fields)
    packed = pack_changes(records) if unmerged else [(r, [r.value]) for r in records]
    rows: list[Row] = []
    for record, values in packed:
        columns = tuple([value[i] for value in values] for i in range(len(schema.fields)))
        rows.append((*compute_special_values(record, record.kind, show_sequence), *columns))
    return SystemTableRows(tuple(fields), rows)


def read_ro_table(file_io: FileIO, table_root: str, options: Mapping[str, str]) -> SystemTableRows:
    snapshot = resolve_travel_snapshot(file_io, table_root, options)
    if snapshot is None:
        schema = metadata.read_latest_schema(file_io, table_root)
        return SystemTableRows(tuple(schema.fields), [])
    schema = compute_read_schema(file_io, table_root, snapshot, options)
    records = read_snapshot_records(
        file_io, table_root, schema, snapshot, keep_retractions=False, top_level_only=True
    )
    return SystemTableRows(tuple(schema.fields), [record.value for record in records])
