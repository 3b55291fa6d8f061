"""The system tables Paimon main has and 0.9 lacks, with main's columns: ``buckets``,
``binlog`` and ``table_indexes`` (for :mod:`spark_impl.system_tables`).

Java (main): ``table/system/{BucketsTable, BinlogTable, TableIndexesTable}``.

* ``buckets``: per partition and bucket of the latest snapshot, the sums of its entries (ADD
  adds, DELETE subtracts) of rows, bytes and files and the latest file creation time; empty
  buckets left out; partition as main's cast text ``{v1, v2}``; sorted by partition text and
  bucket.
* ``binlog``: ``rowkind``, then every field as an array: a batch read of the selected snapshot
  as ``audit_log`` reads it, each value as ``[value]`` (the incremental form, which packs
  ``-U``/``+U`` pairs, is not implemented: refused).
* ``table_indexes``: the index manifest entries of the selected snapshot: partition (cast
  text), bucket, index type, file name, size, row count and deletion-vector ranges; the
  global-index columns of 1.x tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.casts import NULL_TEXT, cast_value
from reference.spec.manifest import (
    FileKind,
    ManifestEntry,
)
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot
from reference.spec.system_table_columns import DV_META_TYPE, STRING
from spark_impl import system_table_reads as reads
from spark_impl.metadata import (
    find_latest_snapshot_id,
    read_index_entries,
    read_latest_schema,
    read_manifest,
    read_manifest_list,
    read_snapshot,
)
from spark_impl.plan import resolve_snapshot
from spark_impl.system_tables import (
    Columns,
    parse_travel,
    to_local_datetime,
)

Row = tuple[Any, ...]


def format_cast_row(values: Sequence[Any], types: Sequence[t.DataType]) -> str:
    """Main's ``CAST(row AS STRING)``: ``{a, b}``, null as ``null`` (``RowToStringCastRule``)."""
    texts = [
        NULL_TEXT if v is None else str(cast_value(v, ty, STRING))
        for v, ty in zip(values, types, strict=True)
    ]
    return "{" + ", ".join(texts) + "}"


def partition_text(schema: TableSchema, partition: bytes) -> str:
    types = [f.type for f in schema.partition_type.fields]
    return format_cast_row(deserialize_binary_row(partition, types), types)


def buckets_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    """Sums per (partition, bucket) of the latest snapshot (Java ``PartitionEntry``)."""
    latest = find_latest_snapshot_id(file_io, root)
    if latest is None:
        return []
    schema = read_latest_schema(file_io, root)
    totals: dict[tuple[bytes, int], list[int]] = {}
    for entry in snapshot_entries(file_io, root, read_snapshot(file_io, root, latest)):
        sign = -1 if entry.kind is FileKind.DELETE else 1
        created = entry.file.creation_time
        millis = 0 if created is None else created.millisecond
        total = totals.setdefault((entry.partition, entry.bucket), [0, 0, 0, millis])
        total[0] += sign * entry.file.row_count
        total[1] += sign * entry.file.file_size
        total[2] += sign
        total[3] = max(total[3], millis)
    rows = [
        (partition_text(schema, part), bucket, n, size, count, to_local_datetime(millis))
        for (part, bucket), (n, size, count, millis) in totals.items()
        if count > 0
    ]
    return sorted(rows, key=lambda row: (str(row[0]), int(row[1])))


def binlog_columns_of(file_io: FileIO, root: str, options: Mapping[str, str]) -> Columns:
    reads.refuse_incremental(options)
    schema = reads.rows_schema(file_io, root, options)
    arrays = [(f.name, t.ArrayType(f.type.copy(True))) for f in schema.fields]
    return [(reads.ROW_KIND_NAME, reads.ROW_KIND_TYPE), *arrays]


def binlog_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> pa.Table:
    """``audit_log``'s rows with each field value as a one-element array."""
    audit = reads.audit_log_rows(file_io, root, options)
    columns = [audit.column(0)]
    for column in audit.columns[1:]:
        flat = column.combine_chunks()
        offsets = pa.array(range(len(flat) + 1), type=pa.int32())
        columns.append(pa.ListArray.from_arrays(offsets, flat))
    return pa.Table.from_arrays(columns, names=audit.column_names)


def dv_range_values(ranges: Any) -> list[dict[str, Any]] | None:
    if ranges is None:
        return None
    names = [f.name for f in DV_META_TYPE.fields]
    return [
        dict(zip(names, (r.data_file_name, r.offset, r.length, r.cardinality), strict=True))
        for r in ranges
    ]


def table_indexes_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> list[Row]:
    """The index manifest entries of the selected snapshot (Java ``TableIndexesTable``)."""
    snapshot = resolve_snapshot(file_io, root, parse_travel(options))
    if snapshot is None or snapshot.index_manifest is None:
        return []
    schema = read_latest_schema(file_io, root)
    names = {f.id: f.name for f in schema.fields}
    rows: list[Row] = []
    for entry in read_index_entries(file_io, root, snapshot):
        index = entry.index_file
        glob = index.global_index
        ids = [] if glob is None else [glob.index_field_id, *(glob.extra_field_ids or ())]
        found = [names[i] for i in ids if i in names]
        rows.append(
            (
                partition_text(schema, entry.partition),
                entry.bucket,
                index.index_type,
                index.file_name,
                index.file_size,
                index.row_count,
                dv_range_values(index.dv_ranges),
                None if glob is None else glob.row_range_start,
                None if glob is None else glob.row_range_end,
                None if glob is None else glob.index_field_id,
                ",".join(found) if glob is not None and len(found) == len(ids) else None,
            )
        )
    return rows


def snapshot_entries(file_io: FileIO, root: str, snapshot: Snapshot) -> list[ManifestEntry]:
    """Every entry (ADD and DELETE) of the snapshot's base and delta manifests."""
    return [
        entry
        for name in (snapshot.base_manifest_list, snapshot.delta_manifest_list)
        for meta in read_manifest_list(file_io, root, name)
        for entry in read_manifest(file_io, root, meta.file_name)
    ]
