"""Reading one data file into Arrow: its columns by name in canonical Paimon Arrow types
(:func:`read_data_file`), and moving them to a read schema by field id (:func:`evolve_columns`:
a field the file lacks is all null; a field whose type changed is cast, with Arrow where Arrow's
cast is exactly Java's, else value by value through ``reference.spec.casts``).

Below :mod:`spark_impl.read` and :mod:`spark_impl.data_evolution`, which both read files through
it."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.orc as pa_orc
import pyarrow.parquet as pq

from reference import layout
from reference.errors import naming_file
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.casts import cast_value
from reference.spec.file_format import (
    FileFormat,
    arrow_to_rows,
    check_data_file_fields,
    compute_arrow_type,
    conform_arrow_table,
    decode_blob_data_file,
    decode_data_file,
    parse_file_format,
    rows_to_arrow,
)
from reference.spec.orc_timestamps import apply_orc_timestamp_rule, read_range_of
from reference.spec.row_tracking import is_blob_file


def read_data_file(file_io: FileIO, path: str, fields: Sequence[t.DataField]) -> pa.Table:
    """Columns ``fields`` (by name) of one data file, in canonical Paimon Arrow types; a
    ``.blob`` file's one BLOB column through ``reference.spec.blob``."""
    with naming_file(path):
        if is_blob_file(path):
            return decode_blob_data_file(file_io.read_bytes(path), fields)
        fmt = parse_file_format(layout.data_file_format(path))
        check_data_file_fields(fields)
        source = file_io.open_input(path)
        try:
            if fmt is FileFormat.PARQUET:
                table = pq.ParquetFile(source).read(columns=[f.name for f in fields])
                return conform_arrow_table(table, fields)
            if fmt is FileFormat.ORC:
                table = pa_orc.ORCFile(source).read(columns=[f.name for f in fields])
                table = apply_orc_timestamp_rule(table, *read_range_of(source))
                return conform_arrow_table(table, fields)
            return decode_data_file(source, fmt, fields)
        finally:
            source.close()


_INTEGER_WIDTH = {
    t.TypeRoot.TINYINT: 8,
    t.TypeRoot.SMALLINT: 16,
    t.TypeRoot.INTEGER: 32,
    t.TypeRoot.BIGINT: 64,
}
_DOUBLE_EXACT_INTEGER_WIDTH = 32


def is_arrow_cast_exact(source: t.DataType, target: t.DataType) -> bool:
    """Casts where Arrow computes exactly what Java's cast rules do: integer widening, integer
    (up to INT) to DOUBLE, FLOAT to DOUBLE, and VARCHAR/CHAR to unbounded STRING."""
    if source.root in _INTEGER_WIDTH and target.root in _INTEGER_WIDTH:
        return _INTEGER_WIDTH[source.root] <= _INTEGER_WIDTH[target.root]
    if target.root is t.TypeRoot.DOUBLE:
        if source.root in _INTEGER_WIDTH:
            return _INTEGER_WIDTH[source.root] <= _DOUBLE_EXACT_INTEGER_WIDTH
        return source.root is t.TypeRoot.FLOAT
    if isinstance(target, t.VarCharType) and target.length == t.MAX_LENGTH:
        return isinstance(source, t.VarCharType)
    return False


def cast_column(column: pa.Array, source: t.DataType, target: t.DataType) -> pa.Array:
    """Cast a column whose field changed type (step 3)."""
    arrow_target = compute_arrow_type(target)
    if is_arrow_cast_exact(source, target):
        return column.cast(arrow_target)
    source_field = t.DataField(0, "value", source.copy(True))
    target_field = t.DataField(0, "value", target.copy(True))
    values = arrow_to_rows(pa.table({"value": column}), [source_field])
    cast = [(cast_value(row[0], source, target),) for row in values]
    return rows_to_arrow(cast, [target_field]).column(0).combine_chunks()


def evolve_columns(
    table: pa.Table, file_fields: Sequence[t.DataField], read_fields: Sequence[t.DataField]
) -> list[pa.Array]:
    """``table`` (columns named by ``file_fields``) as columns of ``read_fields``, by id."""
    by_id = {f.id: f for f in file_fields}
    columns = []
    for read_field in read_fields:
        file_field = by_id.get(read_field.id)
        if file_field is None:
            columns.append(pa.nulls(table.num_rows, type=compute_arrow_type(read_field.type)))
            continue
        column = table.column(file_field.name).combine_chunks()
        if file_field.type.copy(True) != read_field.type.copy(True):
            column = cast_column(column, file_field.type, read_field.type)
        columns.append(column)
    return columns
