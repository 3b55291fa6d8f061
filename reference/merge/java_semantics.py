"""What Java does with values, where the merge engines depend on it.

Java: ``java.lang.Integer``/``Long``/``Float``/``Double``/``Boolean`` (``hashCode``, ``equals``,
float arithmetic), ``java.math.BigInteger``/``BigDecimal`` (``hashCode``, ``divide``),
``java.lang.String.compareTo``, ``Character.isWhitespace``, ``java.util.HashMap``/``HashSet``
(iteration order) and Paimon's ``data.Decimal`` (``fromBigDecimal``), ``data.Timestamp``
(``hashCode``), ``utils.DecimalUtils`` (``add``/``subtract``) and ``utils.StringUtils.isBlank``.

Aggregate functions are specified by what Paimon's Java code computes, so the reference has to
reproduce Java's arithmetic (float rounding, decimal precision, integer division) and, where
Java leaves an array's order to a ``HashSet`` or ``HashMap``, that collection's iteration
order. The rules:

* ``hashCode``: an int is itself; a long xors its halves; a float/double its IEEE bits
  (``compute_float_hash``); a string is Paimon's murmur hash of its UTF-8 bytes; a DECIMAL is
  ``31 * BigInteger.hashCode(unscaled) + scale``; a TIMESTAMP is
  ``31 * (folded millis) + nanos``. ``BigInteger.hashCode`` folds the magnitude's big-endian
  32-bit words with ``h = 31 * h + word`` and multiplies by the sign.
* ``equals`` of floats compares bits: NaN equals NaN and 0.0 differs from -0.0.
* A HashMap/HashSet iterates bucket by bucket (``java_order.compute_hash_map_order``).
* A DECIMAL(p, s) result is rounded HALF_UP to scale ``s`` and becomes null when it needs more
  than ``p`` digits; but a sum of two compact decimals (p <= 18) that fits a long is kept as is,
  even beyond ``p`` digits (``DecimalUtils.add`` skips the check on that fast path).
"""

from __future__ import annotations

import math
import struct
import unicodedata
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from reference.spec import types as t
from reference.spec.data import Timestamp, Value, decimal_from_unscaled, decimal_unscaled
from reference.spec.file_index.java_order import (
    compute_binary_string_hash,
    compute_boolean_hash,
    compute_double_hash,
    compute_float_hash,
    compute_hash_map_order,
    compute_long_hash,
    to_int32,
)

JAVA_INT_MAX = 2**31 - 1
JAVA_INT_MIN = -(2**31)
JAVA_LONG_MIN = -(2**63)
JAVA_LONG_MAX = 2**63 - 1

# --------------------------------------------------------------------------------------------
# Hash codes and collection order
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------------


def compute_decimal_digits(unscaled: int) -> int:
    return len(str(abs(unscaled)))


def compute_round_half_up(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded to an integer, halves away from zero (HALF_UP)."""
    sign = -1 if (numerator < 0) != (denominator < 0) else 1
    quotient, remainder = divmod(abs(numerator), abs(denominator))
    if 2 * remainder >= abs(denominator):
        quotient += 1
    return sign * quotient


def compute_decimal_from_unscaled(unscaled: int, data_type: t.DecimalType) -> Decimal | None:
    """``Decimal.fromBigDecimal``: null when the value needs more digits than the precision."""
    if compute_decimal_digits(unscaled) > data_type.precision:
        return None
    return decimal_from_unscaled(unscaled, data_type.scale)


def compute_decimal_sum(left: Decimal, right: Decimal, data_type: t.DecimalType) -> Decimal | None:
    """``DecimalUtils.add``: a compact precision (<= 18) keeps any sum that fits a long, even
    one with more digits than the precision; otherwise too many digits give null."""
    unscaled = decimal_unscaled(left, data_type.scale) + decimal_unscaled(right, data_type.scale)
    is_compact = data_type.precision <= t.DECIMAL_MAX_COMPACT_PRECISION
    if is_compact and JAVA_LONG_MIN <= unscaled <= JAVA_LONG_MAX:
        return decimal_from_unscaled(unscaled, data_type.scale)
    return compute_decimal_from_unscaled(unscaled, data_type)


def compute_decimal_product(
    left: Decimal, right: Decimal, data_type: t.DecimalType
) -> Decimal | None:
    """The exact product rounded HALF_UP to the scale; null when it overflows the precision."""
    scale_factor = 10**data_type.scale
    exact = decimal_unscaled(left, data_type.scale) * decimal_unscaled(right, data_type.scale)
    return compute_decimal_from_unscaled(compute_round_half_up(exact, scale_factor), data_type)


def _has_terminating_expansion(numerator: int, denominator: int) -> bool:
    reduced = abs(denominator) // math.gcd(numerator, denominator)
    for prime in (2, 5):
        while reduced % prime == 0:
            reduced //= prime
    return reduced == 1


def compute_decimal_quotient(
    left: Decimal, right: Decimal, data_type: t.DecimalType
) -> Decimal | None:
    """``BigDecimal.divide`` rounded HALF_UP to the scale; null when it overflows the precision.

    Raises ``ArithmeticError`` (Java ``ArithmeticException``) when the divisor is zero or the
    exact quotient has no finite decimal expansion.
    """
    numerator = decimal_unscaled(left, data_type.scale)
    denominator = decimal_unscaled(right, data_type.scale)
    if denominator == 0 or not _has_terminating_expansion(numerator, denominator):
        raise ArithmeticError(f"{left} / {right} has no exact decimal result")
    scaled = compute_round_half_up(numerator * 10**data_type.scale, denominator)
    return compute_decimal_from_unscaled(scaled, data_type)


def compute_java_int_division(left: int, right: int) -> int:
    """Java integer division: truncates toward zero; raises ``ArithmeticError`` for zero."""
    if right == 0:
        raise ArithmeticError(f"{left} / by zero")
    quotient = abs(left) // abs(right)
    return quotient if (left < 0) == (right < 0) else -quotient


def compute_ieee_division(left: float, right: float) -> float:
    """IEEE 754 division (Python raises where Java returns infinity or NaN)."""
    if right != 0.0:
        return left / right
    if left == 0.0 or math.isnan(left):
        return math.nan
    negative = (math.copysign(1.0, left) < 0) != (math.copysign(1.0, right) < 0)
    return -math.inf if negative else math.inf


def is_integer_in_range(result: int, data_type: t.DataType) -> bool:
    """Whether an exact integer result fits the field's integer type (``Math.*Exact``)."""
    bits: int = t.IntegerBits[data_type.root]
    return -(1 << (bits - 1)) <= result < 1 << (bits - 1)


# --------------------------------------------------------------------------------------------
# Strings and floats
# --------------------------------------------------------------------------------------------


def compare_java_strings(left: str, right: str) -> int:
    """``String.compareTo``: UTF-16 code units."""
    left_units = left.encode("utf-16-be", "surrogatepass")
    right_units = right.encode("utf-16-be", "surrogatepass")
    return (left_units > right_units) - (left_units < right_units)


_JAVA_EXTRA_WHITESPACE = frozenset("\t\n\u000b\f\r\u001c\u001d\u001e\u001f")
_JAVA_NON_BREAKING_SPACES = frozenset("\u00a0\u2007\u202f")


def is_java_whitespace(char: str) -> bool:
    """``Character.isWhitespace``: space separators except non-breaking ones, and controls."""
    if char in _JAVA_EXTRA_WHITESPACE:
        return True
    return (
        unicodedata.category(char) in ("Zs", "Zl", "Zp") and char not in _JAVA_NON_BREAKING_SPACES
    )


def is_java_blank(text: str | None) -> bool:
    """``StringUtils.isBlank``: null, empty or only whitespace."""
    return text is None or all(is_java_whitespace(char) for char in text)


def round_to_float32(value: float) -> float:
    """Round a double to the nearest float, as Java float arithmetic does (overflow to inf)."""
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)
