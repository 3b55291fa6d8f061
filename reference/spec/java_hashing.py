"""Java's ``hashCode`` and ``equals`` of Paimon's internal values, and the iteration order of
the ``HashSet`` / ``HashMap`` built from them, where that order reaches a table's rows.

Spec: the aggregation merge engine pages (``collect`` with ``distinct``, ``merge_map``,
``nested_update``) leave the order of their result to a Java hash collection. Java:
``java.lang.Integer``/``Long``/``Float``/``Double``/``Boolean`` (``hashCode``, ``equals``),
``java.math.BigInteger``/``BigDecimal`` (``hashCode``), Paimon's ``data.BinaryString``,
``data.Decimal`` and ``data.Timestamp`` (``hashCode``), ``java.util.HashMap``/``HashSet``.

Rules:

1. ``hashCode``: an int-like value (TINYINT, SMALLINT, INT, DATE, TIME) is itself; a long xors
   its halves; a float/double hashes its IEEE bits; a string is Paimon's murmur hash of its
   UTF-8 bytes; a DECIMAL is ``31 * BigInteger.hashCode(unscaled) + scale``, where
   ``BigInteger.hashCode`` folds the magnitude's big-endian 32-bit words with
   ``h = 31 * h + word`` and multiplies by the sign; a TIMESTAMP is
   ``31 * (millis folded like a long) + nanos``; null is 0. Other types are not modelled.
2. ``equals`` of floats compares bits: NaN equals NaN and 0.0 differs from -0.0; other values
   compare by value.
3. A ``HashSet`` keeps the first of equal values; a ``HashMap`` replaces the value of an equal
   key in place. Both iterate bucket by bucket
   (``reference.spec.file_index.java_order.compute_hash_map_order``). When a value's hash is not
   modelled, first-seen order is kept.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from reference.spec import types as t
from reference.spec.data import Timestamp, Value, decimal_unscaled
from reference.spec.file_index.java_order import (
    compute_binary_string_hash,
    compute_boolean_hash,
    compute_double_hash,
    compute_float_hash,
    compute_hash_map_order,
    compute_long_hash,
    to_int32,
)

_INT_HASH_ROOTS = frozenset(
    {
        t.TypeRoot.TINYINT,
        t.TypeRoot.SMALLINT,
        t.TypeRoot.INTEGER,
        t.TypeRoot.DATE,
        t.TypeRoot.TIME_WITHOUT_TIME_ZONE,
    }
)
_INT32_WORD = 32


def compute_big_integer_hash(value: int) -> int:
    """``BigInteger.hashCode``: ``31 * h + word`` over the magnitude's big-endian int words."""
    magnitude = abs(value)
    words = []
    while magnitude:
        words.append(magnitude & 0xFFFFFFFF)
        magnitude >>= _INT32_WORD
    result = 0
    for word in reversed(words):
        result = to_int32(31 * result + word)
    return to_int32(result * (1 if value >= 0 else -1))


def compute_decimal_hash(value: Decimal, scale: int) -> int:
    """Paimon ``Decimal.hashCode``: ``BigDecimal.hashCode`` = 31 * unscaled hash + scale."""
    return to_int32(31 * compute_big_integer_hash(decimal_unscaled(value, scale)) + scale)


def compute_timestamp_hash(value: Timestamp) -> int:
    """Paimon ``Timestamp.hashCode``: the millis folded like a long, times 31, plus the nanos."""
    millis = value.millisecond & 0xFFFFFFFFFFFFFFFF
    folded = to_int32(millis ^ (millis >> _INT32_WORD))
    return to_int32(31 * folded + value.nano_of_millisecond)


def compute_java_hash(value: Value, data_type: t.DataType) -> int | None:
    """``hashCode()`` of the object Java holds for ``value`` (null hashes to 0 in a HashMap).

    ``None`` when the hash of that type is not modelled here (nested values, binaries, variants);
    callers then keep first-seen order.
    """
    root = data_type.root
    if value is None:
        return 0
    if root is t.TypeRoot.BOOLEAN:
        return compute_boolean_hash(bool(value))
    if root in _INT_HASH_ROOTS:
        return int(value)
    if root is t.TypeRoot.BIGINT:
        return compute_long_hash(int(value))
    if root is t.TypeRoot.FLOAT:
        return compute_float_hash(value)
    if root is t.TypeRoot.DOUBLE:
        return compute_double_hash(value)
    if root in t.CHARACTER_ROOTS:
        return compute_binary_string_hash(value.encode("utf-8", "surrogatepass"))
    if isinstance(data_type, t.DecimalType):
        return compute_decimal_hash(value, data_type.scale)
    if root in t.TIMESTAMP_ROOTS:
        return compute_timestamp_hash(value)
    return None


def compute_java_equality_key(value: Value, data_type: t.DataType) -> Any:
    """A Python key equal for two values exactly when Java's ``equals`` is true.

    Floats compare by bit pattern (``Float.equals``: NaN equals NaN, 0.0 differs from -0.0);
    everything else by value.
    """
    if value is None:
        return None
    if data_type.root is t.TypeRoot.FLOAT:
        return ("float-bits", compute_float_hash(value))
    if data_type.root is t.TypeRoot.DOUBLE:
        return ("double-bits", struct.pack(">d", math.nan if math.isnan(value) else value))
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(value.items())
    return value


def compute_java_hash_set(values: Iterable[Value], data_type: t.DataType) -> list[Value]:
    """The distinct ``values`` in the order a ``HashSet`` filled in this order iterates them.

    The first of equal values stays (``HashSet.add`` keeps the existing element). Types whose
    hash is not modelled keep first-seen order.
    """
    firsts: dict[Any, Value] = {}
    calls: list[tuple[Any, int]] = []
    modelled = True
    for value in values:
        key = compute_java_equality_key(value, data_type)
        firsts.setdefault(key, value)
        hash_code = compute_java_hash(value, data_type)
        modelled = modelled and hash_code is not None
        calls.append((key, hash_code or 0))
    if not modelled:
        return list(firsts.values())
    return [firsts[key] for key in compute_hash_map_order(calls, compute_if_absent=False)]


def compute_java_hash_map(
    entries: Iterable[tuple[Value, Value]], key_type: t.DataType
) -> dict[Value, Value]:
    """A dict of ``entries`` (later values replace earlier ones) ordered as a ``HashMap``."""
    result: dict[Value, Value] = {}
    calls: list[tuple[Any, int]] = []
    modelled = True
    for key, value in entries:
        result[key] = value
        hash_code = compute_java_hash(key, key_type)
        modelled = modelled and hash_code is not None
        calls.append((key, hash_code or 0))
    if not modelled:
        return result
    return {key: result[key] for key in compute_hash_map_order(calls, compute_if_absent=False)}
