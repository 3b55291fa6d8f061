"""Hypothesis strategies shared by the suite: Paimon data types and internal values of each type.

Values follow the conventions of ``reference.spec.data`` (DATE = int days, TIME = int millis,
TIMESTAMP = ``Timestamp``, DECIMAL = ``Decimal`` at the type's scale, ARRAY = list, MAP and
MULTISET = dict, ROW = tuple).
"""

from __future__ import annotations

import struct
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from reference.spec import types as t
from reference.spec.data import Timestamp, decimal_from_unscaled
from reference.spec.units import MILLIS_PER_DAY, NANOS_PER_MILLI

# Dates and timestamps within years 0001..9999, the range every engine can represent.
MIN_DAYS = -719_162
MAX_DAYS = 2_932_896
MIN_MILLIS = MIN_DAYS * MILLIS_PER_DAY
MAX_MILLIS = (MAX_DAYS + 1) * MILLIS_PER_DAY - 1


def _float32(value: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def atomic_types(*, hashable_only: bool = False) -> st.SearchStrategy[t.DataType]:
    """Every atomic type with random parameters and nullability."""
    choices: list[st.SearchStrategy[t.DataType]] = [
        st.builds(t.BooleanType),
        st.builds(t.TinyIntType),
        st.builds(t.SmallIntType),
        st.builds(t.IntType),
        st.builds(t.BigIntType),
        st.builds(t.FloatType),
        st.builds(t.DoubleType),
        st.builds(t.DateType),
        st.builds(t.CharType, st.integers(1, 20)),
        st.builds(t.VarCharType, st.sampled_from([1, 10, 255, t.MAX_LENGTH])),
        st.builds(t.BinaryType, st.integers(1, 20)),
        st.builds(t.VarBinaryType, st.sampled_from([1, 10, t.MAX_LENGTH])),
        st.integers(1, t.DECIMAL_MAX_PRECISION).flatmap(
            lambda p: st.builds(t.DecimalType, st.just(p), st.integers(0, p))
        ),
        st.builds(t.TimeType, st.integers(0, 9)),
        st.builds(t.TimestampType, st.integers(0, 9)),
        st.builds(t.LocalZonedTimestampType, st.integers(0, 9)),
    ]
    del hashable_only
    return st.one_of(choices).flatmap(lambda dt: st.booleans().map(dt.copy))


def data_types(max_depth: int = 2) -> st.SearchStrategy[t.DataType]:
    """Atomic and nested types (ARRAY, MULTISET, MAP, ROW) up to ``max_depth`` levels."""
    if max_depth <= 0:
        return atomic_types()
    inner = data_types(max_depth - 1)
    nested: list[st.SearchStrategy[t.DataType]] = [
        st.builds(t.ArrayType, inner),
        st.builds(t.MultisetType, atomic_types()),
        st.builds(t.MapType, atomic_types(), inner),
        st.lists(inner, min_size=1, max_size=4).map(
            lambda types: t.RowType(
                tuple(t.DataField(i, f"f{i}", dt) for i, dt in enumerate(types))
            )
        ),
    ]
    return st.one_of(atomic_types(), *nested).flatmap(lambda dt: st.booleans().map(dt.copy))


def timestamps(precision: int) -> st.SearchStrategy[Timestamp]:
    """Timestamps representable at ``precision`` (0..9 fractional second digits)."""
    step = 10 ** (9 - precision)
    return st.integers(
        MIN_MILLIS * NANOS_PER_MILLI // step, MAX_MILLIS * NANOS_PER_MILLI // step
    ).map(lambda units: Timestamp.from_epoch_nanos(units * step))


def decimals(precision: int, scale: int) -> st.SearchStrategy[Decimal]:
    bound = 10**precision - 1
    return st.integers(-bound, bound).map(lambda u: decimal_from_unscaled(u, scale))


def _time_millis(precision: int) -> st.SearchStrategy[int]:
    step = 10 ** (3 - min(precision, 3))
    return st.integers(0, (MILLIS_PER_DAY - 1) // step).map(lambda u: u * step)


def non_null_values(data_type: t.DataType) -> st.SearchStrategy[Any]:
    """Non-null internal values of ``data_type`` (nested members may be null if nullable)."""
    if isinstance(data_type, t.BooleanType):
        return st.booleans()
    if isinstance(data_type, (t.TinyIntType, t.SmallIntType, t.IntType, t.BigIntType)):
        bits = t.IntegerBits[data_type.root]
        return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if isinstance(data_type, t.FloatType):
        return st.floats(width=32, allow_nan=False).map(_float32)
    if isinstance(data_type, t.DoubleType):
        return st.floats(allow_nan=False)
    if isinstance(data_type, t.DecimalType):
        return decimals(data_type.precision, data_type.scale)
    if isinstance(data_type, (t.CharType, t.VarCharType)):
        return st.text(max_size=min(data_type.length, 40))
    if isinstance(data_type, (t.BinaryType, t.VarBinaryType)):
        return st.binary(max_size=min(data_type.length, 40))
    if isinstance(data_type, t.DateType):
        return st.integers(MIN_DAYS, MAX_DAYS)
    if isinstance(data_type, t.TimeType):
        return _time_millis(data_type.precision)
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return timestamps(data_type.precision)
    if isinstance(data_type, t.ArrayType):
        return st.lists(values(data_type.element), max_size=5)
    if isinstance(data_type, t.MultisetType):
        return st.dictionaries(non_null_values(data_type.element), st.integers(1, 5), max_size=4)
    if isinstance(data_type, t.MapType):
        return st.dictionaries(non_null_values(data_type.key), values(data_type.value), max_size=4)
    if isinstance(data_type, t.RowType):
        return st.tuples(*(values(f.type) for f in data_type.fields))
    raise NotImplementedError(f"no value strategy for {data_type}")


def values(data_type: t.DataType) -> st.SearchStrategy[Any]:
    """Internal values of ``data_type``, including ``None`` when the type is nullable."""
    if data_type.nullable:
        return st.one_of(st.none(), non_null_values(data_type))
    return non_null_values(data_type)


def rows(row_type: t.RowType) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.tuples(*(values(f.type) for f in row_type.fields))


def row_types(max_fields: int = 8, max_depth: int = 1) -> st.SearchStrategy[t.RowType]:
    """Row types with distinct names ``f0..fn`` and ids ``0..n``."""
    return st.lists(data_types(max_depth), min_size=1, max_size=max_fields).map(
        lambda types: t.RowType(tuple(t.DataField(i, f"f{i}", dt) for i, dt in enumerate(types)))
    )
