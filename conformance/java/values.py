"""Internal values to and from the Java harness's JSON encoding, driven by the column type.

The internal side follows ``reference.spec.data``; the JSON side is the harness's encoding
(``conformance/java/ValueCodec.java``), exact in both directions:

=========================  =====================================  ============================
type                       internal (Python)                      JSON
=========================  =====================================  ============================
null                       ``None``                               ``null``
BOOLEAN                    ``bool``                               ``true`` / ``false``
TINYINT .. BIGINT          ``int``                                integer
FLOAT, DOUBLE              ``float``                              number, or ``"NaN"``,
                                                                  ``"Infinity"``, ``"-Infinity"``
DECIMAL(p, s)              ``Decimal``                            plain string, ``s`` digits
CHAR, VARCHAR              ``str``                                string
BINARY, VARBINARY          ``bytes``                              base64 string
DATE                       ``int`` days since 1970-01-01          integer
TIME(p)                    ``int`` millis of the day              integer
TIMESTAMP(p) [LTZ]         ``Timestamp``                          ``{"millisecond", "nano"}``
ARRAY<T>                   ``list``                               array
MAP<K, V>                  ``dict``                               array of ``[key, value]``
MULTISET<T>                ``dict`` element -> count              array of ``[element, count]``
ROW<...>                   ``tuple``                              array of field values
=========================  =====================================  ============================

A FLOAT travels as the double of the same value, so it is exact both ways.
"""

from __future__ import annotations

import base64
import math
from decimal import Decimal
from typing import Any

from reference.errors import UnsupportedFeature
from reference.spec import types as t
from reference.spec.data import PairMap, Row, RowKind, Timestamp, Value, build_map

NAN = "NaN"
POSITIVE_INFINITY = "Infinity"
NEGATIVE_INFINITY = "-Infinity"
NON_FINITE = {NAN: math.nan, POSITIVE_INFINITY: math.inf, NEGATIVE_INFINITY: -math.inf}
MILLISECOND = "millisecond"
NANO = "nano"

INTEGER_TYPES = (t.TinyIntType, t.SmallIntType, t.IntType, t.BigIntType, t.DateType, t.TimeType)
STRING_TYPES = (t.CharType, t.VarCharType)
BINARY_TYPES = (t.BinaryType, t.VarBinaryType)
FLOATING_TYPES = (t.FloatType, t.DoubleType)
TIMESTAMP_TYPES = (t.TimestampType, t.LocalZonedTimestampType)
MULTISET_COUNT_TYPE = t.IntType(nullable=False)

JsonValue = Any
"""A value as ``json.loads`` returns it."""


def _unsupported(data_type: t.DataType) -> UnsupportedFeature:
    return UnsupportedFeature(f"the Java 0.9 harness has no value encoding for {data_type}")


# --------------------------------------------------------------------------------------------
# internal -> JSON
# --------------------------------------------------------------------------------------------


def encode_floating(value: float) -> JsonValue:
    if math.isnan(value):
        return NAN
    if math.isinf(value):
        return POSITIVE_INFINITY if value > 0 else NEGATIVE_INFINITY
    return float(value)


def encode_decimal(value: Decimal) -> str:
    """Plain notation (never an exponent); Java rescales it exactly or rejects it."""
    return format(value, "f")


def encode_timestamp(value: Timestamp) -> dict[str, int]:
    return {MILLISECOND: value.millisecond, NANO: value.nano_of_millisecond}


def encode_value(value: Value, data_type: t.DataType) -> JsonValue:
    """The JSON form of one internal value of ``data_type``."""
    if value is None:
        return None
    if isinstance(data_type, t.BooleanType):
        return bool(value)
    if isinstance(data_type, INTEGER_TYPES):
        return int(value)
    if isinstance(data_type, FLOATING_TYPES):
        return encode_floating(value)
    if isinstance(data_type, t.DecimalType):
        return encode_decimal(value)
    if isinstance(data_type, STRING_TYPES):
        return str(value)
    if isinstance(data_type, BINARY_TYPES):
        return base64.b64encode(value).decode("ascii")
    if isinstance(data_type, TIMESTAMP_TYPES):
        return encode_timestamp(value)
    if isinstance(data_type, t.ArrayType):
        return [encode_value(item, data_type.element) for item in value]
    if isinstance(data_type, t.MapType):
        return [
            [encode_value(k, data_type.key), encode_value(v, data_type.value)]
            for k, v in value.items()
        ]
    if isinstance(data_type, t.MultisetType):
        return [[encode_value(k, data_type.element), int(n)] for k, n in value.items()]
    if isinstance(data_type, t.RowType):
        return encode_row(value, data_type)
    raise _unsupported(data_type)


def encode_row(row: Row, row_type: t.RowType) -> list[JsonValue]:
    if len(row) != len(row_type.fields):
        raise ValueError(f"row has {len(row)} values, type has {len(row_type.fields)} fields")
    return [encode_value(v, f.type) for v, f in zip(row, row_type.fields, strict=True)]


def encode_change(kind: RowKind, row: Row, row_type: t.RowType) -> dict[str, JsonValue]:
    """One row of a ``write`` request."""
    return {"kind": kind.short_string, "values": encode_row(row, row_type)}


# --------------------------------------------------------------------------------------------
# JSON -> internal
# --------------------------------------------------------------------------------------------


def decode_floating(value: JsonValue) -> float:
    if isinstance(value, str):
        if value not in NON_FINITE:
            raise ValueError(f"not a floating-point value: {value!r}")
        return NON_FINITE[value]
    return float(value)


def decode_timestamp(value: JsonValue) -> Timestamp:
    return Timestamp(int(value[MILLISECOND]), int(value.get(NANO, 0)))


def _decode_pairs(
    value: JsonValue, key_type: t.DataType, value_type: t.DataType
) -> dict[Value, Value] | PairMap:
    return build_map((decode_value(k, key_type), decode_value(v, value_type)) for k, v in value)


def decode_value(value: JsonValue, data_type: t.DataType) -> Value:
    """The internal value of ``data_type`` encoded as ``value``."""
    if value is None:
        return None
    if isinstance(data_type, t.BooleanType):
        return bool(value)
    if isinstance(data_type, INTEGER_TYPES):
        return int(value)
    if isinstance(data_type, FLOATING_TYPES):
        return decode_floating(value)
    if isinstance(data_type, t.DecimalType):
        return Decimal(value)
    if isinstance(data_type, STRING_TYPES):
        return str(value)
    if isinstance(data_type, BINARY_TYPES):
        return base64.b64decode(value)
    if isinstance(data_type, TIMESTAMP_TYPES):
        return decode_timestamp(value)
    if isinstance(data_type, t.ArrayType):
        return [decode_value(item, data_type.element) for item in value]
    if isinstance(data_type, t.MapType):
        return _decode_pairs(value, data_type.key, data_type.value)
    if isinstance(data_type, t.MultisetType):
        return _decode_pairs(value, data_type.element, MULTISET_COUNT_TYPE)
    if isinstance(data_type, t.RowType):
        return decode_row(value, data_type)
    raise _unsupported(data_type)


def decode_row(values: list[JsonValue], row_type: t.RowType) -> Row:
    if len(values) != len(row_type.fields):
        raise ValueError(f"{len(values)} values for {len(row_type.fields)} fields")
    return tuple(decode_value(v, f.type) for v, f in zip(values, row_type.fields, strict=True))


def decode_change(change: dict[str, JsonValue], row_type: t.RowType) -> tuple[RowKind, Row]:
    """One ``{"kind", "values"}`` row of a response."""
    return RowKind.from_short_string(change["kind"]), decode_row(change["values"], row_type)
