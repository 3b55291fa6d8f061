"""Hand-made data files, file metas and commit messages for the commit and table tests.

The data files are written with ``reference.spec.file_format.encode_data_file``; their metas
(key range, statistics, sequence numbers) are computed here from the rows by the spec's rules
(Java's value order for min/max, null counts per column), independently of the writer.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from reference import layout
from reference.io import FileIO, LocalFileIO
from reference.spec import types as t
from reference.spec.binary_row import NullLayout, serialize_binary_row
from reference.spec.commit_message import (
    CommitMessage,
    CompactIncrement,
    DataIncrement,
    IndexIncrement,
)
from reference.spec.compare import compare_values
from reference.spec.data import Row, RowKind, Timestamp, Value
from reference.spec.data_file import (
    SEQUENCE_NUMBER_FIELD,
    VALUE_KIND_FIELD,
    DataFileMeta,
    FileSource,
    compute_key_fields,
)
from reference.spec.file_format import FileFormat, encode_data_file, rows_to_arrow
from reference.spec.manifest import IndexFileMeta
from reference.spec.schema import TableSchema
from reference.spec.stats import EMPTY_STATS, SimpleStats
from reference.store import metadata
from reference.store.scan import compute_bucket_path
from reference.table import Table

INT = t.IntType()
KEY_INT = t.IntType(nullable=False)
STRING = t.VarCharType(t.MAX_LENGTH)
PARQUET = {"file.format": "parquet"}
CREATION_TIME = Timestamp(1_700_000_000_000)
SERIALIZED_EMPTY_KEY = serialize_binary_row((), ())

PK_FIELDS = (t.DataField(0, "k", KEY_INT), t.DataField(1, "v", STRING))
APPEND_FIELDS = (t.DataField(0, "id", INT), t.DataField(1, "v", STRING))
PARTITIONED_FIELDS = (
    t.DataField(0, "dt", STRING),
    t.DataField(1, "id", INT),
    t.DataField(2, "v", STRING),
)


def create_table(
    root: str,
    fields: Sequence[t.DataField],
    *,
    partition_keys: Sequence[str] = (),
    primary_keys: Sequence[str] = (),
    options: dict[str, str] | None = None,
    file_io: FileIO | None = None,
) -> Table:
    return Table.create(
        file_io or LocalFileIO(),
        root,
        fields,
        partition_keys=partition_keys,
        primary_keys=primary_keys,
        options={**PARQUET, **(options or {})},
    )


def pk_table(root: str, **options: str) -> Table:
    """``k INT NOT NULL PRIMARY KEY, v STRING``, one bucket, Parquet files."""
    return create_table(root, PK_FIELDS, primary_keys=["k"], options={"bucket": "1", **options})


def append_table(root: str, *, file_io: FileIO | None = None, **options: str) -> Table:
    """``id INT, v STRING``, no primary key, bucket-unaware."""
    return create_table(root, APPEND_FIELDS, options={"bucket": "-1", **options}, file_io=file_io)


def partitioned_table(root: str, **options: str) -> Table:
    """``dt STRING, id INT, v STRING`` partitioned by ``dt``, bucket-unaware."""
    return create_table(
        root, PARTITIONED_FIELDS, partition_keys=["dt"], options={"bucket": "-1", **options}
    )


# --------------------------------------------------------------------------------------------
# Statistics by hand
# --------------------------------------------------------------------------------------------


def extreme(values: Sequence[Value], data_type: t.DataType, sign: int) -> Value:
    present = [v for v in values if v is not None]
    best: Value = present[0] if present else None
    for value in present[1:]:
        if compare_values(data_type, value, best) * sign > 0:
            best = value
    return best


def stats_of(rows: Sequence[Row], fields: Sequence[t.DataField]) -> SimpleStats:
    """Min, max and null count of each column (0.9's null layout for stats rows)."""
    if not fields:
        return EMPTY_STATS
    types = [f.type for f in fields]
    columns = [[row[i] for row in rows] for i in range(len(fields))]
    return SimpleStats(
        serialize_binary_row(
            [extreme(c, dt, -1) for c, dt in zip(columns, types, strict=True)],
            types,
            null_layout=NullLayout.ZERO_SLOT,
        ),
        serialize_binary_row(
            [extreme(c, dt, 1) for c, dt in zip(columns, types, strict=True)],
            types,
            null_layout=NullLayout.ZERO_SLOT,
        ),
        tuple(sum(v is None for v in c) for c in columns),
    )


# --------------------------------------------------------------------------------------------
# Data files
# --------------------------------------------------------------------------------------------


def partition_bytes(schema: TableSchema, partition: Row) -> bytes:
    return serialize_binary_row(partition, [f.type for f in schema.partition_type.fields])


def write_rows(
    table: Table, partition: Row, bucket: int, fields: Sequence[t.DataField], rows: Sequence[Row]
) -> tuple[str, int]:
    """Write a Parquet data file of ``rows`` into the bucket's directory: (name, size)."""
    schema = table.schema()
    name = f"data-{uuid.uuid4()}-0.parquet"
    data = encode_data_file(rows_to_arrow(rows, fields), FileFormat.PARQUET, fields)
    directory = compute_bucket_path(table.root, schema, partition, bucket)
    table.file_io.write_bytes(layout.join(directory, name), data)
    return name, len(data)


def append_file(
    table: Table, rows: Sequence[Row], *, partition: Row = (), bucket: int = 0
) -> DataFileMeta:
    """An append-table data file of ``rows`` and its meta."""
    schema = table.schema()
    name, size = write_rows(table, partition, bucket, schema.fields, rows)
    return DataFileMeta(
        file_name=name,
        file_size=size,
        row_count=len(rows),
        min_key=SERIALIZED_EMPTY_KEY,
        max_key=SERIALIZED_EMPTY_KEY,
        key_stats=EMPTY_STATS,
        value_stats=stats_of(rows, schema.fields),
        min_sequence_number=0,
        max_sequence_number=max(len(rows) - 1, 0),
        schema_id=schema.id,
        level=0,
        extra_files=(),
        creation_time=CREATION_TIME,
        delete_row_count=0,
        embedded_index=None,
        file_source=FileSource.APPEND,
    )


@dataclass(frozen=True)
class Record:
    """One key-value record of a primary-key file."""

    row: Row
    sequence: int
    kind: RowKind = RowKind.INSERT


def pk_file(
    table: Table,
    records: Sequence[Record],
    *,
    level: int = 0,
    partition: Row = (),
    bucket: int = 0,
    source: FileSource = FileSource.APPEND,
) -> DataFileMeta:
    """A primary-key data file of ``records`` (sorted by key here) and its meta."""
    schema = table.schema()
    key_names = schema.trimmed_primary_keys
    key_fields = compute_key_fields(schema.fields, key_names)
    positions = [schema.field_names.index(k) for k in key_names]
    key_types = [f.type for f in schema.trimmed_primary_keys_type.fields]
    ordered = sorted(records, key=lambda r: (tuple(r.row[p] for p in positions), r.sequence))
    keys = [tuple(r.row[p] for p in positions) for r in ordered]
    fields = [*key_fields, SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, *schema.fields]
    file_rows = [
        (*key, r.sequence, r.kind.byte_value, *r.row) for key, r in zip(keys, ordered, strict=True)
    ]
    name, size = write_rows(table, partition, bucket, fields, file_rows)
    return DataFileMeta(
        file_name=name,
        file_size=size,
        row_count=len(records),
        min_key=serialize_binary_row(keys[0], key_types),
        max_key=serialize_binary_row(keys[-1], key_types),
        key_stats=stats_of(keys, schema.trimmed_primary_keys_type.fields),
        value_stats=stats_of([r.row for r in ordered], schema.fields),
        min_sequence_number=min(r.sequence for r in records),
        max_sequence_number=max(r.sequence for r in records),
        schema_id=schema.id,
        level=level,
        extra_files=(),
        creation_time=CREATION_TIME,
        delete_row_count=sum(r.kind.is_retract for r in records),
        embedded_index=None,
        file_source=source,
    )


def inserts(rows: Sequence[Row], first_sequence: int = 0) -> list[Record]:
    return [Record(row, first_sequence + i) for i, row in enumerate(rows)]


# --------------------------------------------------------------------------------------------
# Commit messages
# --------------------------------------------------------------------------------------------


def message(
    table: Table,
    *,
    partition: Row = (),
    bucket: int = 0,
    new: Sequence[DataFileMeta] = (),
    deleted: Sequence[DataFileMeta] = (),
    changelog: Sequence[DataFileMeta] = (),
    before: Sequence[DataFileMeta] = (),
    after: Sequence[DataFileMeta] = (),
    compact_changelog: Sequence[DataFileMeta] = (),
    new_index: Sequence[IndexFileMeta] = (),
    deleted_index: Sequence[IndexFileMeta] = (),
) -> CommitMessage:
    schema = table.schema()
    return CommitMessage(
        partition=partition_bytes(schema, partition),
        bucket=bucket,
        total_buckets=schema.num_buckets,
        data=DataIncrement(tuple(new), tuple(deleted), tuple(changelog)),
        compaction=CompactIncrement(tuple(before), tuple(after), tuple(compact_changelog)),
        index=IndexIncrement(tuple(new_index), tuple(deleted_index)),
    )


def snapshot_ids(table: Table) -> list[int]:
    return metadata.list_snapshot_ids(table.file_io, table.root)


def rows_of(table: Table) -> list[tuple[RowKind, Row]]:
    """The table's rows (latest snapshot), in a fixed order."""
    return sorted(table.read().rows, key=lambda change: repr(change[1]))


def values_of(table: Table) -> list[Row]:
    return sorted((row for _, row in table.read().rows), key=repr)
