"""Paimon types as Spark types, and Paimon's canonical Arrow columns as the Arrow Spark expects.

==============================  ==============================================================
Paimon                          Spark
==============================  ==============================================================
BOOLEAN                         BooleanType
TINYINT / SMALLINT / INT        ByteType / ShortType / IntegerType
BIGINT                          LongType
FLOAT / DOUBLE                  FloatType / DoubleType
DECIMAL(p, s)                   DecimalType(p, s)
CHAR / VARCHAR / STRING         StringType
BINARY / VARBINARY / BYTES      BinaryType
DATE                            DateType
TIME(p)                         TimeType(6) (Paimon keeps milliseconds)
TIMESTAMP(p)                    TimestampNTZType
TIMESTAMP(p) WITH LOCAL TZ      TimestampType
ARRAY<T>                        ArrayType
MAP<K, V>                       MapType
MULTISET<T>                     MapType(T, IntegerType, valueContainsNull=False)
ROW<...>                        StructType
BLOB                            BinaryType (read only: the bytes of the ``.blob`` file record)
==============================  ==============================================================

Spark timestamps are microseconds: a Paimon timestamp of precision 7..9 is truncated to the
microsecond at or before it (floor, so instants before 1970 round down as Java's
``Timestamp.toMicros`` does). VARIANT and VECTOR are not supported; BLOB columns are read (Java
``SparkTypeUtils`` maps BLOB to BinaryType) but a Spark BinaryType is written as BYTES.
NOT NULL fields become non-nullable Spark fields.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import types as st
from pyspark.sql.pandas.types import to_arrow_schema

from reference.errors import UnsupportedFeature
from reference.spec import types as t
from reference.spec.units import NANOS_PER_MICRO

SPARK_TIME_PRECISION = 6

_ATOMIC: dict[t.TypeRoot, Any] = {
    t.TypeRoot.BOOLEAN: st.BooleanType,
    t.TypeRoot.TINYINT: st.ByteType,
    t.TypeRoot.SMALLINT: st.ShortType,
    t.TypeRoot.INTEGER: st.IntegerType,
    t.TypeRoot.BIGINT: st.LongType,
    t.TypeRoot.FLOAT: st.FloatType,
    t.TypeRoot.DOUBLE: st.DoubleType,
    t.TypeRoot.CHAR: st.StringType,
    t.TypeRoot.VARCHAR: st.StringType,
    t.TypeRoot.BINARY: st.BinaryType,
    t.TypeRoot.VARBINARY: st.BinaryType,
    t.TypeRoot.BLOB: st.BinaryType,
    t.TypeRoot.DATE: st.DateType,
    t.TypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE: st.TimestampNTZType,
    t.TypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE: st.TimestampType,
}


def to_spark_type(data_type: t.DataType) -> st.DataType:
    """The Spark type of a Paimon type (table above)."""
    if data_type.root in _ATOMIC:
        spark_type: st.DataType = _ATOMIC[data_type.root]()
        return spark_type
    if isinstance(data_type, t.DecimalType):
        return st.DecimalType(data_type.precision, data_type.scale)
    if data_type.root is t.TypeRoot.TIME_WITHOUT_TIME_ZONE:
        return st.TimeType(SPARK_TIME_PRECISION)
    if isinstance(data_type, t.ArrayType):
        return st.ArrayType(to_spark_type(data_type.element), data_type.element.nullable)
    if isinstance(data_type, t.MultisetType):
        return st.MapType(to_spark_type(data_type.element), st.IntegerType(), False)
    if isinstance(data_type, t.MapType):
        return st.MapType(
            to_spark_type(data_type.key), to_spark_type(data_type.value), data_type.value.nullable
        )
    if isinstance(data_type, t.RowType):
        return to_spark_schema(data_type.fields)
    raise UnsupportedFeature(f"Paimon type {data_type} has no Spark type here")


def to_spark_schema(fields: Any) -> st.StructType:
    return st.StructType(
        [st.StructField(f.name, to_spark_type(f.type), f.type.nullable) for f in fields]
    )


def to_spark_arrow_schema(schema: st.StructType) -> pa.Schema:
    """The Arrow schema Spark checks the batches of a Python data source against."""
    return to_arrow_schema(schema, timezone="UTC")


def _floor_to_micros(column: pa.Array, target: pa.DataType) -> pa.Array:
    nanos = column.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
    valid = column.is_valid().to_numpy(zero_copy_only=False)
    micros = np.floor_divide(nanos.astype(np.int64), NANOS_PER_MICRO)
    return pa.array(micros, mask=~valid).cast(target)


def _time_to_spark(column: pa.Array, target: pa.DataType) -> pa.Array:
    millis = column.cast(pa.int32()).cast(pa.int64())
    return pc.multiply(millis, 1_000_000).cast(target)


def conform_column(column: pa.Array, target: pa.DataType) -> pa.Array:
    """A canonical Paimon column as the Arrow type Spark wants (see the module rules)."""
    if column.type.equals(target):
        return column
    if pa.types.is_timestamp(column.type) and column.type.unit == "ns":
        return _floor_to_micros(column, target)
    if pa.types.is_time32(column.type) and pa.types.is_time64(target):
        return _time_to_spark(column, target)
    return column.cast(target, safe=False)


def to_spark_batch(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` (canonical Paimon Arrow, columns in schema order) in Spark's Arrow types."""
    columns = [
        conform_column(table.column(i).combine_chunks(), schema.field(i).type)
        for i in range(len(schema))
    ]
    return pa.Table.from_arrays(columns, schema=schema)


_FROM_SPARK_ATOMIC: dict[type, t.DataType] = {
    st.BooleanType: t.BooleanType(),
    st.ByteType: t.TinyIntType(),
    st.ShortType: t.SmallIntType(),
    st.IntegerType: t.IntType(),
    st.LongType: t.BigIntType(),
    st.FloatType: t.FloatType(),
    st.DoubleType: t.DoubleType(),
    st.StringType: t.VarCharType(t.MAX_LENGTH),
    st.BinaryType: t.VarBinaryType(t.MAX_LENGTH),
    st.DateType: t.DateType(),
    st.TimestampNTZType: t.TimestampType(precision=SPARK_TIME_PRECISION),
    st.TimestampType: t.LocalZonedTimestampType(precision=SPARK_TIME_PRECISION),
}


def to_paimon_type(spark_type: st.DataType, nullable: bool = True) -> t.DataType:
    """The Paimon type of a Spark type (the table above read right to left; strings become
    STRING, binaries BYTES, timestamps precision 6; Java ``SparkTypeUtils.toPaimonType``)."""
    found = _FROM_SPARK_ATOMIC.get(type(spark_type))
    if found is not None:
        return found.copy(nullable)
    if isinstance(spark_type, st.DecimalType):
        return t.DecimalType(spark_type.precision, spark_type.scale, nullable=nullable)
    if isinstance(spark_type, st.ArrayType):
        element = to_paimon_type(spark_type.elementType, spark_type.containsNull)
        return t.ArrayType(element, nullable=nullable)
    if isinstance(spark_type, st.MapType):
        key = to_paimon_type(spark_type.keyType, False)
        value = to_paimon_type(spark_type.valueType, spark_type.valueContainsNull)
        return t.MapType(key, value, nullable=nullable)
    if isinstance(spark_type, st.StructType):
        return t.RowType(tuple(to_paimon_fields(spark_type)), nullable=nullable)
    raise UnsupportedFeature(f"Spark type {spark_type.simpleString()} has no Paimon type here")


def to_paimon_fields(schema: st.StructType) -> list[t.DataField]:
    """A Spark schema as Paimon fields numbered from 0."""
    return [
        t.DataField(i, f.name, to_paimon_type(f.dataType, f.nullable))
        for i, f in enumerate(schema.fields)
    ]
