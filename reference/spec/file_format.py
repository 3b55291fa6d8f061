"""Data files: how Paimon rows are laid out in Parquet, ORC and Avro files, and the codecs.

Spec: ``docs/concepts/spec/fileformat.md``.
Java: ``format/parquet/ParquetSchemaConverter``, ``format/parquet/writer/ParquetRowDataWriter``,
``format/parquet/reader/ParquetSplitReaderUtil`` (0.9) and ``ParquetVectorUpdaterFactory`` (main),
``format/orc/OrcTypeUtil`` (``OrcSplitReaderUtil.toOrcType`` in 0.9),
``format/avro/AvroSchemaConverter``, ``format/avro/AvroFileFormat``, ``table/SpecialFields``.

Three representations meet here:

* **Internal rows** (``reference.spec.data``): tuples of internal values.
* **Arrow tables** in one canonical form per Paimon type (:func:`compute_arrow_type`):

  =============================  ================================================
  Paimon type                    Arrow type
  =============================  ================================================
  BOOLEAN                        bool
  TINYINT/SMALLINT/INT/BIGINT    int8/int16/int32/int64
  FLOAT/DOUBLE                   float32/float64
  DECIMAL(p, s)                  decimal128(p, s)
  CHAR/VARCHAR/STRING            string
  BINARY/VARBINARY/BYTES         binary
  DATE                           date32
  TIME(p)                        time32[ms] (Paimon keeps TIME in millis)
  TIMESTAMP(p)                   timestamp[ms] (p <= 3), [us] (p <= 6), [ns] (p > 6)
  TIMESTAMP(p) WITH LOCAL TZ     the same unit with tz="UTC"
  ARRAY<T>                       list<element: T>
  MAP<K, V>                      map<key: K not null, value: V>
  MULTISET<T>                    map<key: T not null, value: int32 not null>
  ROW<...>                       struct<...>
  BLOB                           binary (read from ``.blob`` files only)
  =============================  ================================================

  Fields carry their Paimon field id as ``PARQUET:field_id``; list elements and map keys and
  values carry the derived ids of ``SpecialFields`` (base ``2^31 / 4`` plus/minus
  ``1024 * field id + depth``), which Paimon >= 1.0 writes into Parquet (0.9 wrote none).
  Timestamps of precision > 6 are held as Arrow nanoseconds, so only instants between
  1677-09-21 and 2262-04-11 are representable; others raise :class:`UnsupportedFeature`.
* **File bytes**, written the way Java writes them:

  - Parquet: the Arrow form above. DECIMAL is INT32 for p <= 9, INT64 for p <= 18 and a minimal
    FIXED_LEN_BYTE_ARRAY above; TIME is INT32 TIME(MILLIS); TIMESTAMP is INT64 MILLIS (p <= 3),
    INT64 MICROS (p <= 6) or INT96 (p > 6: Julian day + nanos of day, UTC); local-zoned
    timestamps set ``isAdjustedToUTC``; map keys are REQUIRED. Paimon 0.9 reads INT64 for
    p <= 6 and INT96 for p > 6 only, by position of the precision, ignoring the annotation.
    pyarrow can only switch INT96 on for every timestamp column of a file, so a file mixing
    p > 6 and p <= 6 timestamps stores the p <= 6 ones as plain INT64 millis/micros without
    the timestamp annotation, which both Paimon 0.9 and main read by precision.
  - ORC: the same, except TIME is an ORC int and local-zoned timestamps are ORC
    ``timestamp with local time zone``. pyarrow writes STRING for CHAR/VARCHAR (Java writes
    ``char(n)``/``varchar(n)``) and cannot store Paimon >= 1.0's ``paimon.id`` attributes.
    pyarrow reads every ORC timestamp as nanoseconds, so ORC timestamps outside 1677..2262
    cannot be read exactly (not detectable from Python). Java writes TIMESTAMP as wall clock
    of the JVM's zone, which the file records; pyarrow's ORC library compensates pre-1970
    fractions after converting that zone to UTC, which :mod:`reference.spec.orc_timestamps`
    puts right (Java and ORC compensate first).
  - Avro: Java's ``AvroSchemaConverter`` mapping (:func:`compute_avro_schema`); Java rejects
    TIME(p > 3) and TIMESTAMP(p > 6) in Avro, and so do we.

Compression (``file.compression``) defaults to zstd at level 1 (``file.compression.zstd-level``)
in Paimon 0.9 and main alike. For Avro Java uses the ``zstandard`` codec when the compression is
zstd and ``snappy`` for any other compression unless ``avro.codec`` says otherwise.
"""

from __future__ import annotations

import datetime
import io
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeAlias

import fastavro
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as pa_orc
import pyarrow.parquet as pq

from reference.errors import (
    InvalidOptionError,
    PaimonFormatError,
    PaimonKitError,
    SpecViolation,
    UnsupportedFeature,
)
from reference.spec import types as t
from reference.spec.avro_container import AVRO_CODEC_KEY, AVRO_CODECS
from reference.spec.blob import (
    BLOB_DESCRIPTOR_FIELD_OPTION,
    BLOB_VIEW_FIELD_OPTION,
    decode_blob_file,
    is_blob_array,
)
from reference.spec.data import (
    EPOCH_DATE,
    EPOCH_DATETIME,
    Row,
    Timestamp,
    Value,
    build_map,
    decimal_from_unscaled,
)
from reference.spec.data_file import (
    compute_array_element_field_id,
    compute_map_key_field_id,
    compute_map_value_field_id,
)
from reference.spec.format_framing import (
    MAGIC_PROBE_LENGTH,
    ORC_MAX_TAIL,
    PARQUET_FIELD_ID_KEY,
    PARQUET_TAIL_LENGTH,
    check_avro_framing,
    check_orc_framing,
    check_parquet_framing,
)
from reference.spec.orc_decoding import decode_orc_table
from reference.spec.orc_timestamps import apply_orc_timestamp_rule, read_range_of
from reference.spec.units import (
    MICROS_PER_DAY,
    MICROS_PER_MILLI,
    MILLIS_PER_SECOND,
    NANOS_PER_DAY,
    NANOS_PER_MICRO,
)


class FileFormat(Enum):
    """A data file format (``file.format``)."""

    PARQUET = "parquet"
    ORC = "orc"
    AVRO = "avro"


def parse_file_format(name: str) -> FileFormat:
    """The format called ``name`` (case-insensitive); other formats are unsupported."""
    try:
        return FileFormat(name.strip().lower())
    except ValueError:
        raise UnsupportedFeature(f"data file format '{name}' is not supported") from None


LIST_ELEMENT_NAME = "element"
MAP_KEY_NAME = "key"
MAP_VALUE_NAME = "value"

MILLIS_MAX_PRECISION = 3
MICROS_MAX_PRECISION = 6
AVRO_TIME_MAX_PRECISION = 3
UINT64_RANGE = 2**64
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

AVRO_RECORD_NAME = "org.apache.paimon.avro.generated.record"
AVRO_MAP_LOGICAL_TYPE = "map"
AVRO_NULL = "null"

DEFAULT_FILE_COMPRESSION = "zstd"
DEFAULT_ZSTD_LEVEL = 1
FILE_COMPRESSION_KEY = "file.compression"
ZSTD_LEVEL_KEY = "file.compression.zstd-level"
PARQUET_ZSTD_LEVEL_KEY = "parquet.compression.codec.zstd.level"
"""parquet-mr's zstd level: a table option Java 0.9's ``ParquetFileFormat`` hands to parquet-mr
in place of :data:`ZSTD_LEVEL_KEY` when the table sets it."""

UTC = "UTC"
EPOCH_DATETIME_UTC = EPOCH_DATETIME.replace(tzinfo=datetime.timezone.utc)
ONE_MICROSECOND = datetime.timedelta(microseconds=1)

MULTISET_COUNT_TYPE = t.IntType(nullable=False)
"""The value type of a MULTISET's map in Parquet and ORC (Java ``new IntType(false)``)."""
AVRO_MULTISET_COUNT_TYPE = t.IntType()
"""Java's Avro converter gives the count a *nullable* int."""

UNSUPPORTED_ROOTS = frozenset({t.TypeRoot.VARIANT, t.TypeRoot.VECTOR})
FILE_FORMAT_UNSUPPORTED_ROOTS = UNSUPPORTED_ROOTS | {t.TypeRoot.BLOB}
"""Types no Parquet, ORC or Avro data file holds: BLOB values live in ``.blob`` files
(:mod:`reference.spec.blob`, Java ``BlobFileFormat``), read by :func:`decode_blob_data_file`."""


# --------------------------------------------------------------------------------------------
# Paimon type -> canonical Arrow type
# --------------------------------------------------------------------------------------------


class TimeUnit(Enum):
    """The Arrow (and Parquet INT64) unit a timestamp of some precision is stored in."""

    MILLIS = "ms"
    MICROS = "us"
    NANOS = "ns"


def compute_timestamp_unit(precision: int) -> TimeUnit:
    if precision <= MILLIS_MAX_PRECISION:
        return TimeUnit.MILLIS
    if precision <= MICROS_MAX_PRECISION:
        return TimeUnit.MICROS
    return TimeUnit.NANOS


def _check_supported(
    data_type: t.DataType, roots: frozenset[t.TypeRoot] = UNSUPPORTED_ROOTS
) -> None:
    if data_type.root in roots:
        raise UnsupportedFeature(f"{data_type} columns in data files are not supported yet")


def _check_file_format_type(data_type: t.DataType) -> None:
    """Refuse a type, nested ones included, that a Parquet/ORC/Avro file cannot hold."""
    _check_supported(data_type, FILE_FORMAT_UNSUPPORTED_ROOTS)
    if isinstance(data_type, (t.ArrayType, t.MultisetType)):
        _check_file_format_type(data_type.element)
    elif isinstance(data_type, t.MapType):
        _check_file_format_type(data_type.key)
        _check_file_format_type(data_type.value)
    elif isinstance(data_type, t.RowType):
        for data_field in data_type.fields:
            _check_file_format_type(data_field.type)


def _holds_blob(data_type: t.DataType) -> bool:
    if data_type.root is t.TypeRoot.BLOB:
        return True
    if isinstance(data_type, (t.ArrayType, t.MultisetType)):
        return _holds_blob(data_type.element)
    if isinstance(data_type, t.MapType):
        return _holds_blob(data_type.key) or _holds_blob(data_type.value)
    if isinstance(data_type, t.RowType):
        return any(_holds_blob(f.type) for f in data_type.fields)
    return False


def check_data_file_fields(fields: Sequence[t.DataField]) -> None:
    """Refuse reading a column that a Parquet/ORC/Avro file holds but this kit cannot decode:
    a BLOB column there is a blob descriptor or view, not the bytes
    (:mod:`reference.spec.blob` rule 5), so it is an :class:`UnsupportedFeature`."""
    for data_field in fields:
        if _holds_blob(data_field.type):
            raise UnsupportedFeature(
                f"BLOB column '{data_field.name}' stored inside a data file (blob descriptors "
                f"or views, '{BLOB_DESCRIPTOR_FIELD_OPTION}' / '{BLOB_VIEW_FIELD_OPTION}')"
            )
        _check_file_format_type(data_field.type)


def _field_metadata(field_id: int) -> dict[bytes, bytes]:
    return {PARQUET_FIELD_ID_KEY: str(field_id).encode()}


def _arrow_field(
    name: str, data_type: t.DataType, field_id: int, depth: int, own_id: int
) -> pa.Field:
    """An Arrow field whose nested parts derive their ids from ``field_id`` at ``depth``."""
    arrow_type = _arrow_type(data_type, field_id, depth)
    return pa.field(name, arrow_type, data_type.nullable, metadata=_field_metadata(own_id))


def _arrow_type(data_type: t.DataType, field_id: int, depth: int) -> pa.DataType:
    _check_supported(data_type)
    if isinstance(data_type, t.ArrayType):
        element_id = compute_array_element_field_id(field_id, depth + 1)
        element = _arrow_field(
            LIST_ELEMENT_NAME, data_type.element, field_id, depth + 1, element_id
        )
        return pa.list_(element)
    if isinstance(data_type, (t.MapType, t.MultisetType)):
        key_type, value_type = map_key_value_types(data_type)
        key = _arrow_field(
            MAP_KEY_NAME,
            key_type.copy(False),
            field_id,
            depth + 1,
            compute_map_key_field_id(field_id, depth + 1),
        )
        value = _arrow_field(
            MAP_VALUE_NAME,
            value_type,
            field_id,
            depth + 1,
            compute_map_value_field_id(field_id, depth + 1),
        )
        return pa.map_(key, value)
    if isinstance(data_type, t.RowType):
        return pa.struct([compute_arrow_field(f) for f in data_type.fields])
    return compute_atomic_arrow_type(data_type)


def compute_atomic_arrow_type(data_type: t.DataType) -> pa.DataType:
    """The canonical Arrow type of a non-nested Paimon type (see the module table)."""
    simple: dict[t.TypeRoot, pa.DataType] = {
        t.TypeRoot.BOOLEAN: pa.bool_(),
        t.TypeRoot.TINYINT: pa.int8(),
        t.TypeRoot.SMALLINT: pa.int16(),
        t.TypeRoot.INTEGER: pa.int32(),
        t.TypeRoot.BIGINT: pa.int64(),
        t.TypeRoot.FLOAT: pa.float32(),
        t.TypeRoot.DOUBLE: pa.float64(),
        t.TypeRoot.CHAR: pa.string(),
        t.TypeRoot.VARCHAR: pa.string(),
        t.TypeRoot.BINARY: pa.binary(),
        t.TypeRoot.VARBINARY: pa.binary(),
        t.TypeRoot.BLOB: pa.binary(),
        t.TypeRoot.DATE: pa.date32(),
        t.TypeRoot.TIME_WITHOUT_TIME_ZONE: pa.time32("ms"),
    }
    if data_type.root in simple:
        return simple[data_type.root]
    if isinstance(data_type, t.DecimalType):
        return pa.decimal128(data_type.precision, data_type.scale)
    if isinstance(data_type, t.TimestampType):
        return pa.timestamp(compute_timestamp_unit(data_type.precision).value)
    if isinstance(data_type, t.LocalZonedTimestampType):
        return pa.timestamp(compute_timestamp_unit(data_type.precision).value, tz=UTC)
    raise UnsupportedFeature(f"{data_type} columns in data files are not supported yet")


def map_key_value_types(data_type: t.DataType) -> tuple[t.DataType, t.DataType]:
    """Key and value types of a MAP, or of the map a MULTISET is stored as."""
    if isinstance(data_type, t.MapType):
        return data_type.key, data_type.value
    if isinstance(data_type, t.MultisetType):
        return data_type.element, MULTISET_COUNT_TYPE
    raise TypeError(f"{data_type} is not a MAP or MULTISET")


def compute_arrow_type(data_type: t.DataType, field_id: int = 0) -> pa.DataType:
    """The canonical Arrow type of ``data_type`` (nested ids derived from ``field_id``)."""
    return _arrow_type(data_type, field_id, 0)


def compute_arrow_field(data_field: t.DataField) -> pa.Field:
    """The Arrow field of a column: its name, canonical type, nullability and field id."""
    return _arrow_field(data_field.name, data_field.type, data_field.id, 0, data_field.id)


def compute_arrow_schema(fields: Sequence[t.DataField]) -> pa.Schema:
    return pa.schema([compute_arrow_field(f) for f in fields])


def _rebuild_arrow_type(
    arrow_type: pa.DataType, leaf: Callable[[pa.DataType], pa.DataType]
) -> pa.DataType:
    """``arrow_type`` with every non-nested type replaced by ``leaf(type)``; field names,
    nullability and metadata are kept."""

    def rebuild_field(field: pa.Field) -> pa.Field:
        return field.with_type(_rebuild_arrow_type(field.type, leaf))

    if pa.types.is_list(arrow_type):
        return pa.list_(rebuild_field(arrow_type.value_field))
    if pa.types.is_map(arrow_type):
        return pa.map_(rebuild_field(arrow_type.key_field), rebuild_field(arrow_type.item_field))
    if pa.types.is_struct(arrow_type):
        return pa.struct([rebuild_field(arrow_type.field(i)) for i in range(arrow_type.num_fields)])
    return leaf(arrow_type)


def _integer_leaf(arrow_type: pa.DataType) -> pa.DataType:
    """The integer Arrow type that holds a temporal type's raw value."""
    if pa.types.is_timestamp(arrow_type):
        return pa.int64()
    if pa.types.is_date32(arrow_type) or pa.types.is_time32(arrow_type):
        return pa.int32()
    return arrow_type


def compute_integer_arrow_type(arrow_type: pa.DataType) -> pa.DataType:
    """``arrow_type`` with timestamps as int64 and dates and times as int32 (at any depth):
    the form whose Python values are the exact integers Paimon keeps."""
    return _rebuild_arrow_type(arrow_type, _integer_leaf)


# --------------------------------------------------------------------------------------------
# Internal values <-> Arrow
# --------------------------------------------------------------------------------------------


def _timestamp_to_units(value: Timestamp, unit: TimeUnit) -> int:
    """Epoch count of ``unit`` (truncating finer digits, as Java's writers do)."""
    if unit is TimeUnit.MILLIS:
        return value.millisecond
    if unit is TimeUnit.MICROS:
        return value.to_epoch_micros()
    nanos = value.to_epoch_nanos()
    if not INT64_MIN <= nanos <= INT64_MAX:
        raise UnsupportedFeature(
            f"timestamp {value} is outside the range of Arrow nanoseconds (years 1677..2262)"
        )
    return nanos


def _timestamp_from_units(units: int, unit: TimeUnit) -> Timestamp:
    if unit is TimeUnit.MILLIS:
        return Timestamp(units)
    if unit is TimeUnit.MICROS:
        return Timestamp.from_epoch_micros(units)
    return Timestamp.from_epoch_nanos(units)


def _to_arrow_value(value: Value, data_type: t.DataType) -> Any:
    """An internal value in the Python form ``pyarrow.array`` takes for the canonical type."""
    if value is None:
        return None
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return _timestamp_to_units(value, compute_timestamp_unit(data_type.precision))
    if isinstance(data_type, t.ArrayType):
        return [_to_arrow_value(v, data_type.element) for v in value]
    if isinstance(data_type, (t.MapType, t.MultisetType)):
        key_type, value_type = map_key_value_types(data_type)
        return [
            (_to_arrow_value(k, key_type), _to_arrow_value(v, value_type)) for k, v in value.items()
        ]
    if isinstance(data_type, t.RowType):
        if len(value) != len(data_type.fields):
            raise SpecViolation(
                f"a {data_type} value needs {len(data_type.fields)} fields, got {len(value)}",
                code="INVALID_VALUE",
            )
        return {
            f.name: _to_arrow_value(v, f.type) for f, v in zip(data_type.fields, value, strict=True)
        }
    return value


def _from_arrow_value(value: Any, data_type: t.DataType) -> Value:
    """The internal value of a Python value read from the integer form of a canonical column."""
    if value is None:
        return None
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return _timestamp_from_units(value, compute_timestamp_unit(data_type.precision))
    if isinstance(data_type, t.ArrayType):
        return [_from_arrow_value(v, data_type.element) for v in value]
    if isinstance(data_type, (t.MapType, t.MultisetType)):
        key_type, value_type = map_key_value_types(data_type)
        return build_map(
            (_from_arrow_value(k, key_type), _from_arrow_value(v, value_type)) for k, v in value
        )
    if isinstance(data_type, t.RowType):
        return tuple(_from_arrow_value(value[f.name], f.type) for f in data_type.fields)
    return value


def _check_nulls(column: pa.Array | pa.ChunkedArray, data_field: t.DataField) -> None:
    if not data_field.type.nullable and column.null_count:
        raise SpecViolation(
            f"column '{data_field.name}' is {data_field.type} but holds {column.null_count} nulls",
            code="NULL_IN_NOT_NULL_COLUMN",
        )


def _empty_table(num_rows: int) -> pa.Table:
    """A table with ``num_rows`` rows and no columns (a projection of nothing)."""
    return pa.table({"_": pa.nulls(num_rows)}).drop_columns(["_"])


def rows_to_arrow(rows: Sequence[Row], fields: Sequence[t.DataField]) -> pa.Table:
    """Internal rows as a canonical Arrow table; values must fit their types exactly
    (timestamps are truncated to the unit of their precision, as Java's writers do)."""
    if not fields:
        return _empty_table(len(rows))
    for row in rows:
        if len(row) != len(fields):
            raise SpecViolation(
                f"a row of {len(row)} values for {len(fields)} fields", code="INVALID_VALUE"
            )
    schema = compute_arrow_schema(fields)
    columns = []
    for index, data_field in enumerate(fields):
        values = [_to_arrow_value(row[index], data_field.type) for row in rows]
        try:
            column = pa.array(values, type=schema.field(index).type)
        except (pa.ArrowException, OverflowError, TypeError, ValueError) as error:
            raise SpecViolation(
                f"values of column '{data_field.name}' do not fit {data_field.type}: {error}",
                code="INVALID_VALUE",
            ) from error
        _check_nulls(column, data_field)
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=schema)


def conform_arrow_table(table: pa.Table, fields: Sequence[t.DataField]) -> pa.Table:
    """``table``'s columns named by ``fields``, in that order, cast to their canonical Arrow
    types. A missing column is a :class:`SpecViolation`, as is a column whose values cannot be
    cast without loss (e.g. microseconds into a TIMESTAMP(3) column)."""
    if not fields:
        return _empty_table(table.num_rows)
    schema = compute_arrow_schema(fields)
    columns = []
    for index, data_field in enumerate(fields):
        if data_field.name not in table.column_names:
            raise SpecViolation(
                f"the data has no column '{data_field.name}' (has {table.column_names})",
                code="DATA_FILE_COLUMN_MISSING",
            )
        column = table.column(data_field.name)
        target = schema.field(index).type
        if not column.type.equals(target):
            column = _conform_column(column, target, data_field)
        _check_nulls(column, data_field)
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=schema)


def _relaxed_leaf_field(field: pa.Field) -> pa.Field:
    return field.with_nullable(True).with_type(compute_relaxed_arrow_type(field.type))


def compute_relaxed_arrow_type(arrow_type: pa.DataType) -> pa.DataType:
    """``arrow_type`` with every nested field nullable (map keys stay required, as Arrow
    demands): what a file that does not record nested nullability (ORC) reads back as."""
    if pa.types.is_list(arrow_type):
        return pa.list_(_relaxed_leaf_field(arrow_type.value_field))
    if pa.types.is_map(arrow_type):
        key = arrow_type.key_field.with_type(compute_relaxed_arrow_type(arrow_type.key_type))
        return pa.map_(key, _relaxed_leaf_field(arrow_type.item_field))
    if pa.types.is_struct(arrow_type):
        fields = [_relaxed_leaf_field(arrow_type.field(i)) for i in range(arrow_type.num_fields)]
        return pa.struct(fields)
    return arrow_type


def _check_nested_nulls(array: pa.Array, target: pa.DataType, column: str) -> None:
    """Refuse nulls inside ``array`` where ``target`` declares a nested field NOT NULL (a null
    under a null parent does not count)."""
    if pa.types.is_struct(target):
        flattened = array.flatten()
        for index in range(target.num_fields):
            field = target.field(index)
            if not field.nullable:
                raw_nulls = pc.and_(array.field(index).is_null(), array.is_valid())
                if pc.any(raw_nulls).as_py():
                    raise SpecViolation(
                        f"column '{column}' has nulls in NOT NULL field '{field.name}'",
                        code="NULL_IN_NOT_NULL_COLUMN",
                    )
            _check_nested_nulls(flattened[index], field.type, column)
    elif pa.types.is_map(target):
        items = array.items
        if not target.item_field.nullable and items.null_count:
            raise SpecViolation(
                f"column '{column}' has null values in a map of NOT NULL values",
                code="NULL_IN_NOT_NULL_COLUMN",
            )
        _check_nested_nulls(array.keys, target.key_type, column)
        _check_nested_nulls(items, target.item_type, column)
    elif pa.types.is_list(target):
        values = array.flatten()
        if not target.value_field.nullable and values.null_count:
            raise SpecViolation(
                f"column '{column}' has null elements in a NOT NULL array",
                code="NULL_IN_NOT_NULL_COLUMN",
            )
        _check_nested_nulls(values, target.value_type, column)


def _conform_column(
    column: pa.ChunkedArray, target: pa.DataType, data_field: t.DataField
) -> pa.ChunkedArray:
    """Cast a decoded column to its canonical type. Arrow refuses to cast a nullable nested
    field to a required one, so cast to the all-nullable form, check the nulls, then view."""
    relaxed = compute_relaxed_arrow_type(target)
    try:
        cast = column.cast(relaxed)
    except (pa.ArrowException, ValueError) as error:
        raise SpecViolation(
            f"column '{data_field.name}' of Arrow type {column.type} cannot be read as "
            f"{data_field.type}: {error}",
            code="DATA_FILE_COLUMN_TYPE",
        ) from error
    if relaxed.equals(target):
        return cast
    chunks = []
    for chunk in cast.chunks:
        _check_nested_nulls(chunk, target, data_field.name)
        try:
            chunks.append(chunk.view(target))
        except pa.ArrowInvalid:
            # Nulls below a null parent block the view: rebuild from the exact integer form.
            integers = chunk.cast(compute_integer_arrow_type(relaxed)).to_pylist()
            chunks.append(pa.array(integers, type=target))
    return pa.chunked_array(chunks, type=target)


def arrow_to_rows(table: pa.Table, fields: Sequence[t.DataField]) -> list[Row]:
    """The internal rows of ``table``'s columns named by ``fields`` (exact: temporal values go
    through their integer form, never through ``datetime``)."""
    conformed = conform_arrow_table(table, fields)
    columns = []
    for data_field, column in zip(fields, conformed.columns, strict=True):
        integers = column.cast(compute_integer_arrow_type(column.type)).to_pylist()
        columns.append([_from_arrow_value(v, data_field.type) for v in integers])
    if not columns:
        return [() for _ in range(table.num_rows)]
    return [tuple(values) for values in zip(*columns, strict=True)]


# --------------------------------------------------------------------------------------------
# Avro schema and values (Java AvroSchemaConverter)
# --------------------------------------------------------------------------------------------


def is_avro_string_map(data_type: t.DataType) -> bool:
    """Java writes a MAP/MULTISET with CHAR/VARCHAR keys as an Avro ``map``; any other key type
    as an ``array`` of ``{key, value}`` records with logical type ``map``."""
    key_type, _ = map_key_value_types(data_type)
    return isinstance(key_type, (t.CharType, t.VarCharType))


def _avro_map_value_type(data_type: t.DataType) -> t.DataType:
    if isinstance(data_type, t.MultisetType):
        return AVRO_MULTISET_COUNT_TYPE
    return map_key_value_types(data_type)[1]


def _avro_nullable(schema: Any, nullable: bool) -> Any:
    return [AVRO_NULL, schema] if nullable else schema


def _avro_timestamp(data_type: t.DataType, local: bool) -> dict[str, str]:
    precision = t.timestamp_precision(data_type)
    if precision > MICROS_MAX_PRECISION:
        raise UnsupportedFeature(
            f"Avro data files cannot hold {data_type} (Java supports precision <= 6)"
        )
    unit = "millis" if precision <= MILLIS_MAX_PRECISION else "micros"
    logical = f"local-timestamp-{unit}" if local else f"timestamp-{unit}"
    return {"type": "long", "logicalType": logical}


def _avro_record_field(name: str, data_type: t.DataType, row_name: str) -> dict[str, Any]:
    field: dict[str, Any] = {"name": name, "type": _avro_type(data_type, row_name)}
    if data_type.nullable:
        field["default"] = None
    return field


def _avro_type(data_type: t.DataType, row_name: str) -> Any:
    """Java ``AvroSchemaConverter.convertToSchema``: nested records are named
    ``<parent record name>_<field name>``; nullable types are ``["null", T]``."""
    _check_supported(data_type, FILE_FORMAT_UNSUPPORTED_ROOTS)
    nullable = data_type.nullable
    if isinstance(data_type, t.ArrayType):
        items = _avro_type(data_type.element, row_name)
        return _avro_nullable({"type": "array", "items": items}, nullable)
    if isinstance(data_type, (t.MapType, t.MultisetType)):
        key_type, _ = map_key_value_types(data_type)
        value_type = _avro_map_value_type(data_type)
        if is_avro_string_map(data_type):
            values = _avro_type(value_type, row_name)
            return _avro_nullable({"type": "map", "values": values}, nullable)
        entry = {
            "type": "record",
            "name": row_name,
            "fields": [
                {"name": MAP_KEY_NAME, "type": _avro_type(key_type, row_name + "_key")},
                _avro_record_field(MAP_VALUE_NAME, value_type, row_name + "_value"),
            ],
        }
        array = {"type": "array", "items": entry, "logicalType": AVRO_MAP_LOGICAL_TYPE}
        return _avro_nullable(array, nullable)
    if isinstance(data_type, t.RowType):
        record = {
            "type": "record",
            "name": row_name,
            "fields": [
                _avro_record_field(f.name, f.type, f"{row_name}_{f.name}") for f in data_type.fields
            ],
        }
        return _avro_nullable(record, nullable)
    return _avro_nullable(_avro_atomic_type(data_type), nullable)


def _avro_atomic_type(data_type: t.DataType) -> Any:
    simple: dict[t.TypeRoot, Any] = {
        t.TypeRoot.BOOLEAN: "boolean",
        t.TypeRoot.TINYINT: "int",
        t.TypeRoot.SMALLINT: "int",
        t.TypeRoot.INTEGER: "int",
        t.TypeRoot.BIGINT: "long",
        t.TypeRoot.FLOAT: "float",
        t.TypeRoot.DOUBLE: "double",
        t.TypeRoot.CHAR: "string",
        t.TypeRoot.VARCHAR: "string",
        t.TypeRoot.BINARY: "bytes",
        t.TypeRoot.VARBINARY: "bytes",
        t.TypeRoot.DATE: {"type": "int", "logicalType": "date"},
    }
    if data_type.root in simple:
        return simple[data_type.root]
    if isinstance(data_type, t.DecimalType):
        return {
            "type": "bytes",
            "logicalType": "decimal",
            "precision": data_type.precision,
            "scale": data_type.scale,
        }
    if isinstance(data_type, t.TimeType):
        if data_type.precision > AVRO_TIME_MAX_PRECISION:
            raise UnsupportedFeature(
                f"Avro data files cannot hold {data_type} (Java supports precision <= 3)"
            )
        return {"type": "int", "logicalType": "time-millis"}
    if isinstance(data_type, t.TimestampType):
        return _avro_timestamp(data_type, local=False)
    if isinstance(data_type, t.LocalZonedTimestampType):
        return _avro_timestamp(data_type, local=True)
    raise UnsupportedFeature(f"{data_type} columns in Avro data files are not supported")


def compute_avro_schema(fields: Sequence[t.DataField]) -> dict[str, Any]:
    """The Avro schema Java writes for a data file with these columns (top-level record
    ``org.apache.paimon.avro.generated.record``, not nullable)."""
    schema: dict[str, Any] = _avro_type(t.RowType(tuple(fields), nullable=False), AVRO_RECORD_NAME)
    return schema


def _to_avro_value(value: Value, data_type: t.DataType) -> Any:
    """An internal value in the Python form fastavro writes for Java's Avro schema."""
    if value is None:
        return None
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return _timestamp_to_units(value, compute_timestamp_unit(data_type.precision))
    if isinstance(data_type, t.ArrayType):
        return [_to_avro_value(v, data_type.element) for v in value]
    if isinstance(data_type, (t.MapType, t.MultisetType)):
        key_type, _ = map_key_value_types(data_type)
        value_type = _avro_map_value_type(data_type)
        if is_avro_string_map(data_type):
            return {k: _to_avro_value(v, value_type) for k, v in value.items()}
        return [
            {
                MAP_KEY_NAME: _to_avro_value(k, key_type),
                MAP_VALUE_NAME: _to_avro_value(v, value_type),
            }
            for k, v in value.items()
        ]
    if isinstance(data_type, t.RowType):
        return {
            f.name: _to_avro_value(v, f.type) for f, v in zip(data_type.fields, value, strict=True)
        }
    return value


def _avro_instant_micros(value: Any) -> int:
    """Micros since the epoch of a fastavro timestamp (aware or naive ``datetime``) or int."""
    if isinstance(value, datetime.datetime):
        epoch = EPOCH_DATETIME_UTC if value.tzinfo is not None else EPOCH_DATETIME
        return (value - epoch) // ONE_MICROSECOND
    raise PaimonFormatError(f"expected an Avro timestamp, got {value!r}")


def _from_avro_timestamp(value: Any, precision: int) -> Timestamp:
    unit = compute_timestamp_unit(precision)
    if isinstance(value, int):
        return _timestamp_from_units(value, unit)
    return Timestamp.from_epoch_micros(_avro_instant_micros(value))


def _from_avro_value(value: Any, data_type: t.DataType) -> Value:
    """The internal value of what fastavro decoded (it applies Avro logical types)."""
    if value is None:
        return None
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return _from_avro_timestamp(value, data_type.precision)
    if isinstance(data_type, t.DateType) and isinstance(value, datetime.date):
        return (value - EPOCH_DATE).days
    if isinstance(data_type, t.TimeType) and isinstance(value, datetime.time):
        seconds = (value.hour * 60 + value.minute) * 60 + value.second
        return seconds * MILLIS_PER_SECOND + value.microsecond // MICROS_PER_MILLI
    if isinstance(data_type, t.DecimalType) and isinstance(value, bytes):
        return decimal_from_unscaled(int.from_bytes(value, "big", signed=True), data_type.scale)
    if isinstance(data_type, t.ArrayType):
        return [_from_avro_value(v, data_type.element) for v in value]
    if isinstance(data_type, (t.MapType, t.MultisetType)):
        key_type, _ = map_key_value_types(data_type)
        value_type = _avro_map_value_type(data_type)
        entries = (
            value.items()
            if isinstance(value, dict)
            else ((e[MAP_KEY_NAME], e[MAP_VALUE_NAME]) for e in value)
        )
        return build_map(
            (_from_avro_value(k, key_type), _from_avro_value(v, value_type)) for k, v in entries
        )
    if isinstance(data_type, t.RowType):
        return tuple(_from_avro_value(value[f.name], f.type) for f in data_type.fields)
    return value


# --------------------------------------------------------------------------------------------
# Write options
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FormatWriteOptions:
    """The table options that shape a data file's bytes."""

    compression: str = DEFAULT_FILE_COMPRESSION
    zstd_level: int = DEFAULT_ZSTD_LEVEL
    avro_codec: str | None = None


def parse_format_write_options(options: Mapping[str, str]) -> FormatWriteOptions:
    """Read ``file.compression``, ``file.compression.zstd-level`` and ``avro.codec``."""
    level_text = options.get(ZSTD_LEVEL_KEY, str(DEFAULT_ZSTD_LEVEL))
    try:
        level = int(level_text)
    except ValueError:
        raise InvalidOptionError(ZSTD_LEVEL_KEY, level_text, "must be an integer") from None
    return FormatWriteOptions(
        compression=options.get(FILE_COMPRESSION_KEY, DEFAULT_FILE_COMPRESSION).strip().lower(),
        zstd_level=level,
        avro_codec=options.get(AVRO_CODEC_KEY),
    )


PARQUET_CODECS = {
    "zstd": "zstd",
    "snappy": "snappy",
    "gzip": "gzip",
    "brotli": "brotli",
    "uncompressed": "none",
}
"""``file.compression`` -> pyarrow codec for Parquet (Java ``CompressionCodecName`` names)."""
ORC_CODECS = {
    "zstd": "zstd",
    "snappy": "snappy",
    "zlib": "zlib",
    "lz4": "lz4",
    "none": "uncompressed",
}
AVRO_ZSTD_CODEC = "zstandard"
AVRO_DEFAULT_CODEC = "snappy"


def _codec(codecs: Mapping[str, str], compression: str, fmt: FileFormat) -> str:
    if compression not in codecs:
        raise InvalidOptionError(
            FILE_COMPRESSION_KEY, compression, f"{fmt.value} supports {sorted(codecs)}"
        )
    return codecs[compression]


def compute_avro_codec(options: FormatWriteOptions) -> str:
    """Java ``AvroFileFormat.createCodecFactory``: ``avro.codec`` if set, else ``zstandard``
    for zstd compression and ``snappy`` for anything else."""
    codec = options.avro_codec or (
        AVRO_ZSTD_CODEC if options.compression == DEFAULT_FILE_COMPRESSION else AVRO_DEFAULT_CODEC
    )
    if codec not in AVRO_CODECS:
        raise InvalidOptionError(AVRO_CODEC_KEY, codec, f"must be one of {sorted(AVRO_CODECS)}")
    return codec


# --------------------------------------------------------------------------------------------
# Encode
# --------------------------------------------------------------------------------------------


def _has_timestamp(data_type: t.DataType, predicate: Callable[[int], bool]) -> bool:
    """Whether a timestamp whose precision satisfies ``predicate`` occurs in ``data_type``."""
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return predicate(data_type.precision)
    if isinstance(data_type, (t.ArrayType, t.MultisetType)):
        return _has_timestamp(data_type.element, predicate)
    if isinstance(data_type, t.MapType):
        return _has_timestamp(data_type.key, predicate) or _has_timestamp(
            data_type.value, predicate
        )
    if isinstance(data_type, t.RowType):
        return any(_has_timestamp(f.type, predicate) for f in data_type.fields)
    return False


def _needs_int96(fields: Sequence[t.DataField]) -> bool:
    return any(_has_timestamp(f.type, lambda p: p > MICROS_MAX_PRECISION) for f in fields)


def _parquet_int96_leaf(arrow_type: pa.DataType) -> pa.DataType:
    """In an INT96 file, millis and micros timestamps are stored as their plain INT64."""
    if pa.types.is_timestamp(arrow_type) and arrow_type.unit != TimeUnit.NANOS.value:
        return pa.int64()
    return arrow_type


def _encode_parquet(
    table: pa.Table, fields: Sequence[t.DataField], codec: str, level: int
) -> bytes:
    int96 = _needs_int96(fields)
    if int96:
        table = table.cast(
            pa.schema(
                [
                    f.with_type(_rebuild_arrow_type(f.type, _parquet_int96_leaf))
                    for f in table.schema
                ]
            )
        )
    sink = pa.BufferOutputStream()
    pq.write_table(
        table,
        sink,
        compression=codec,
        compression_level=level if codec == "zstd" else None,
        use_deprecated_int96_timestamps=int96,
        store_schema=False,
        store_decimal_as_integer=True,
        use_compliant_nested_type=True,
    )
    return bytes(sink.getvalue().to_pybytes())


def _orc_leaf(arrow_type: pa.DataType) -> pa.DataType:
    """ORC has no time type: Java writes TIME as an ORC int of millis."""
    return pa.int32() if pa.types.is_time32(arrow_type) else arrow_type


def _encode_orc(table: pa.Table, codec: str) -> bytes:
    table = table.cast(
        pa.schema([f.with_type(_rebuild_arrow_type(f.type, _orc_leaf)) for f in table.schema])
    )
    sink = pa.BufferOutputStream()
    pa_orc.write_table(table, sink, compression=codec, file_version="0.12")
    return bytes(sink.getvalue().to_pybytes())


def _encode_avro(table: pa.Table, fields: Sequence[t.DataField], codec: str, level: int) -> bytes:
    schema = fastavro.parse_schema(compute_avro_schema(fields))
    records = [
        {f.name: _to_avro_value(v, f.type) for f, v in zip(fields, row, strict=True)}
        for row in arrow_to_rows(table, fields)
    ]
    sink = io.BytesIO()
    level_argument = level if codec == AVRO_ZSTD_CODEC else None
    fastavro.writer(sink, schema, records, codec=codec, codec_compression_level=level_argument)
    return sink.getvalue()


def encode_data_file(
    table: pa.Table,
    fmt: FileFormat,
    fields: Sequence[t.DataField],
    options: FormatWriteOptions | None = None,
) -> bytes:
    """The bytes of a data file holding ``table``'s columns ``fields`` (the file's row type:
    for a primary-key table the ``_KEY_*``, ``_SEQUENCE_NUMBER`` and ``_VALUE_KIND`` columns
    too), in the physical form Java writes (see the module notes)."""
    options = options or FormatWriteOptions()
    for data_field in fields:
        _check_file_format_type(data_field.type)
    table = conform_arrow_table(table, fields)
    if fmt is FileFormat.PARQUET:
        codec = _codec(PARQUET_CODECS, options.compression, fmt)
        return _encode_parquet(table, fields, codec, options.zstd_level)
    if fmt is FileFormat.ORC:
        return _encode_orc(table, _codec(ORC_CODECS, options.compression, fmt))
    return _encode_avro(table, fields, compute_avro_codec(options), options.zstd_level)


# --------------------------------------------------------------------------------------------
# Decode
# --------------------------------------------------------------------------------------------

DataSource: TypeAlias = Any
"""A whole file's ``bytes`` (or ``pyarrow.Buffer``), or a seekable ``pyarrow.NativeFile`` such as
``FileIO.open_input`` returns (``Any`` because pyarrow has no type stubs)."""


def _head_and_tail(source: DataSource, tail_length: int) -> tuple[bytes, bytes, int]:
    """The first :data:`MAGIC_PROBE_LENGTH` bytes, the last ``tail_length`` bytes and the size."""
    if isinstance(source, pa.NativeFile):
        size = source.size()
        source.seek(0)
        head = source.read(MAGIC_PROBE_LENGTH)
        source.seek(max(size - tail_length, 0))
        tail = source.read(tail_length)
        source.seek(0)
        return bytes(head), bytes(tail), int(size)
    data = bytes(source)
    return data[:MAGIC_PROBE_LENGTH], data[-tail_length:], len(data)


def check_data_file_magic(source: DataSource, fmt: FileFormat) -> None:
    """Raise :class:`PaimonFormatError` unless ``source`` starts (and for Parquet ends) with
    its format's magic bytes and is long enough to hold a footer."""
    tail_length = ORC_MAX_TAIL if fmt is FileFormat.ORC else PARQUET_TAIL_LENGTH
    head, tail, size = _head_and_tail(source, tail_length)
    if fmt is FileFormat.PARQUET:
        check_parquet_framing(head, tail, size)
    elif fmt is FileFormat.ORC:
        check_orc_framing(head, tail, size)
    else:
        check_avro_framing(head)


def _input(source: DataSource) -> Any:
    if isinstance(source, pa.NativeFile):
        source.seek(0)
        return source
    return pa.BufferReader(source)


def _source_bytes(source: DataSource) -> bytes:
    return bytes(_input(source).read()) if isinstance(source, pa.NativeFile) else bytes(source)


def _missing_columns(available: Sequence[str], fields: Sequence[t.DataField]) -> None:
    missing = [f.name for f in fields if f.name not in available]
    if missing:
        raise SpecViolation(
            f"the data file has no column(s) {missing} (has {list(available)})",
            code="DATA_FILE_COLUMN_MISSING",
        )


def _timestamp_leaves(array: pa.Array) -> list[pa.Array]:
    """Every timestamp array inside ``array`` (itself, or its nested children)."""
    if pa.types.is_timestamp(array.type):
        return [array]
    if pa.types.is_struct(array.type):
        return [leaf for child in array.flatten() for leaf in _timestamp_leaves(child)]
    if pa.types.is_map(array.type):
        return _timestamp_leaves(array.keys) + _timestamp_leaves(array.items)
    if pa.types.is_list(array.type):
        return _timestamp_leaves(array.flatten())
    return []


def compute_int96_candidates(wrapped_nanos: int, micros: int) -> list[int]:
    """The epoch nanoseconds an INT96 value may hold, given pyarrow's two lossy reads of it.

    An INT96 is (Julian day, nanos of day). pyarrow adds the nanos of day as an *unsigned*
    64-bit number: read as nanoseconds the sum wraps modulo 2^64 (``wrapped_nanos``); read as
    microseconds it does not wrap, but a negative nanos of day (which Java writes for instants
    before 1970) counts as 2^64 more (``micros``). Each candidate is a day and a signed nanos of
    day (less than a day either way) that explain both reads. The reads cannot tell a value
    from the same value plus 2^64 ns (about 584 years), so up to two candidates come back.
    """
    candidates: list[int] = []
    for wrap in (0, UINT64_RANGE):
        approximate_day = (micros - wrap // NANOS_PER_MICRO) // MICROS_PER_DAY
        for day in (approximate_day - 1, approximate_day, approximate_day + 1):
            unsigned_nanos = (wrapped_nanos - day * NANOS_PER_DAY) % UINT64_RANGE
            nanos_of_day = unsigned_nanos - wrap
            explains_micros = day * MICROS_PER_DAY + unsigned_nanos // NANOS_PER_MICRO == micros
            if explains_micros and -NANOS_PER_DAY < nanos_of_day < NANOS_PER_DAY:
                candidates.append(day * NANOS_PER_DAY + nanos_of_day)
    return sorted(set(candidates))


def _check_int96_range(nanos_column: pa.ChunkedArray, micros_column: pa.ChunkedArray) -> None:
    """Refuse INT96 values that Arrow nanoseconds cannot hold (pyarrow would wrap silently).

    A value is accepted when one explanation of pyarrow's reads is the nanosecond read itself
    (in range). Limitation: instants within 584 years beyond either end of the range (about
    1093..1677 written with Java's negative nanos of day, and 2262..2846) are indistinguishable
    from in-range ones.
    """
    nanos_leaves = _timestamp_leaves(nanos_column.combine_chunks())
    micros_leaves = _timestamp_leaves(micros_column.combine_chunks())
    for nanos, micros in zip(nanos_leaves, micros_leaves, strict=True):
        wrapped_values = nanos.cast(pa.int64()).to_pylist()
        micros_values = micros.cast(pa.int64()).to_pylist()
        for wrapped, micro in zip(wrapped_values, micros_values, strict=True):
            if wrapped is None:
                continue
            candidates = compute_int96_candidates(wrapped, micro)
            if not candidates:
                raise PaimonFormatError(f"undecodable INT96 timestamp ({wrapped}, {micro})")
            if wrapped not in candidates:
                raise UnsupportedFeature(
                    f"INT96 timestamp {Timestamp.from_epoch_nanos(candidates[0])} is outside the "
                    "range of Arrow nanoseconds (years 1677..2262)"
                )


def _decode_parquet(source: DataSource, fields: Sequence[t.DataField]) -> pa.Table:
    parquet_file = pq.ParquetFile(_input(source))
    _missing_columns(parquet_file.schema_arrow.names, fields)
    names = [f.name for f in fields]
    table = parquet_file.read(columns=names)
    wide = [f.name for f in fields if _has_timestamp(f.type, lambda p: p > MICROS_MAX_PRECISION)]
    if wide:
        micros_file = pq.ParquetFile(_input(source), coerce_int96_timestamp_unit="us")
        micros_table = micros_file.read(columns=wide)
        for name in wide:
            _check_int96_range(table.column(name), micros_table.column(name))
    return table if names else _empty_table(parquet_file.metadata.num_rows)


def _decode_orc(source: DataSource, fields: Sequence[t.DataField]) -> pa.Table:
    """pyarrow's decoding, with TIMESTAMP values compensated before the writer zone's
    conversion (:mod:`reference.spec.orc_timestamps`)."""
    data = _source_bytes(source)
    table = decode_orc_table(data)
    _missing_columns(table.column_names, fields)
    if not fields:
        return _empty_table(table.num_rows)
    selected = table.select([f.name for f in fields])
    return apply_orc_timestamp_rule(selected, *read_range_of(data))


def compute_avro_record_schema(writer_schema: Any) -> dict[str, Any]:
    """The record schema of an Avro data file: the schema itself, or the record branch of
    ``["null", record]`` (Java 0.9 writes the top-level row as a nullable union)."""
    if (
        isinstance(writer_schema, list)
        and len(writer_schema) == 2
        and writer_schema[0] == AVRO_NULL
    ):
        writer_schema = writer_schema[1]
    if not isinstance(writer_schema, dict) or writer_schema.get("type") != "record":
        raise PaimonFormatError("an Avro data file must hold records")
    return writer_schema


def _decode_avro(source: DataSource, fields: Sequence[t.DataField]) -> pa.Table:
    reader = fastavro.reader(io.BytesIO(_source_bytes(source)))
    writer_schema = compute_avro_record_schema(reader.writer_schema)
    _missing_columns([f["name"] for f in writer_schema["fields"]], fields)
    rows = [_avro_record_to_row(record, fields) for record in reader]
    return rows_to_arrow(rows, fields)


def _avro_record_to_row(record: object, fields: Sequence[t.DataField]) -> Row:
    if not isinstance(record, dict):
        raise PaimonFormatError(f"an Avro data file record must be a record, got {record!r}")
    return tuple(_from_avro_value(record[f.name], f.type) for f in fields)


DECODER_ERRORS: tuple[type[BaseException], ...] = (
    pa.ArrowException,
    OSError,
    ValueError,
    EOFError,
    KeyError,
    IndexError,
    TypeError,
    OverflowError,
    struct.error,
)
DECODER_MODULES = (
    "pyarrow",
    "fastavro",
    "backports.zstd",
    "compression.zstd",
    "cramjam",
    "snappy",
    "lz4",
)


def is_decoder_error(error: BaseException) -> bool:
    """Whether ``error`` is what a decoder raises on garbled bytes (not a bug of ours)."""
    module = type(error).__module__ or ""
    return isinstance(error, DECODER_ERRORS) or module.startswith(DECODER_MODULES)


def decode_blob_data_file(data: bytes, fields: Sequence[t.DataField]) -> pa.Table:
    """The column of a whole ``.blob`` file (:mod:`reference.spec.blob`) as a canonical Arrow
    table: ``fields`` is the one BLOB column the file's ``_WRITE_COLS`` names, or nothing (the
    row count only). Bad bytes raise :class:`PaimonFormatError`. Java ``BlobFormatReader``."""
    if fields and is_blob_array(fields[0].type):
        raise UnsupportedFeature(f"ARRAY<BLOB> column '{fields[0].name}' in .blob files")
    values = decode_blob_file(data)
    if not fields:
        return _empty_table(len(values))
    if len(fields) != 1 or fields[0].type.root is not t.TypeRoot.BLOB:
        raise SpecViolation(
            f"a .blob file holds one BLOB column, not {[str(f.type) for f in fields]}",
            code="DATA_FILE_COLUMN_TYPE",
        )
    column = pa.array(values, type=pa.binary())
    return conform_arrow_table(pa.table({fields[0].name: column}), fields)


def decode_data_file(
    source: DataSource, fmt: FileFormat, fields: Sequence[t.DataField]
) -> pa.Table:
    """The columns ``fields`` of a data file as a canonical Arrow table (projection by name).

    Bad bytes raise :class:`PaimonFormatError` (truncated, bad magic, undecodable pages, or
    decoded columns that are not valid Arrow data, such as strings that are not UTF-8); a
    column that is missing or of an incompatible type raises :class:`SpecViolation`.

    ORC bytes go to the current ORC decoder (:mod:`reference.spec.orc_decoding`): in process
    by default, where pyarrow's C++ reader can crash on a garbled file; inside
    ``reference.isolation.isolating_orc_decoding`` a crash is a :class:`PaimonFormatError`.
    """
    check_data_file_fields(fields)
    check_data_file_magic(source, fmt)
    try:
        if fmt is FileFormat.PARQUET:
            table = _decode_parquet(source, fields)
        elif fmt is FileFormat.ORC:
            table = _decode_orc(source, fields)
        else:
            table = _decode_avro(source, fields)
        # The C++ readers do not check what they hand over (e.g. that strings are UTF-8).
        table.validate(full=True)
    except PaimonKitError:
        raise
    except Exception as error:
        if not is_decoder_error(error):
            raise
        raise PaimonFormatError(
            f"cannot decode {fmt.value} data file ({type(error).__name__}: {error})"
        ) from error
    return conform_arrow_table(table, fields)
