"""What Java does with values, where the merge engines depend on it: arithmetic and strings
(hash codes and hash-collection order: ``reference.spec.java_hashing``).

Java: ``java.lang.Float``/``Double`` (float arithmetic), ``java.math.BigDecimal``
(``divide``), ``java.lang.String.compareTo``, ``Character.isWhitespace``, Paimon's
``data.Decimal`` (``fromBigDecimal``), ``utils.DecimalUtils`` (``add``/``subtract``) and
``utils.StringUtils.isBlank``.

Aggregate functions are specified by what Paimon's Java code computes, so the reference has to
reproduce Java's arithmetic (float rounding, decimal precision, integer division). The rules:

* A DECIMAL(p, s) result is rounded HALF_UP to scale ``s`` and becomes null when it needs more
  than ``p`` digits; but a sum of two compact decimals (p <= 18) that fits a long is kept as is,
  even beyond ``p`` digits (``DecimalUtils.add`` skips the check on that fast path).
"""

from __future__ import annotations

import math
import struct
import unicodedata
from decimal import Decimal

from reference.spec import types as t
from reference.spec.data import decimal_from_unscaled, decimal_unscaled
from reference.spec.java_numbers import LONG_MAX as JAVA_LONG_MAX
from reference.spec.java_numbers import LONG_MIN as JAVA_LONG_MIN

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
