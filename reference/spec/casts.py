"""Casts between Paimon types: which ones exist, and what each does to a value, as Java does it.

When a column's type changes (``ALTER TABLE ... MODIFY COLUMN``), data files written before the
change still hold values of the old type; a reader converts each one to the new type. This module
states both halves of that rule:

* **Which changes are allowed** (:func:`is_castable`): the type-level rule of
  ``DataTypeCasts.supportsCast`` (implicit = lossless widening, explicit = SQL ``CAST``) and the
  existence of a value executor (``CastExecutors.resolve(source, target) != null``).
* **What a value becomes** (:func:`cast_value`): the executor Java's reader applies
  (``SchemaEvolutionUtil.createCastExecutor``): nothing for equal types; ROW values re-mapped by
  field id, ARRAY elements and MAP values cast one by one; every other pair through the rule of
  :data:`CAST_RULES`, the table of Java's ``*CastRule`` classes (``(source roots/families, target
  roots/families) -> function``).

Java: ``org.apache.paimon.types.DataTypeCasts``, ``org.apache.paimon.casting.CastExecutors`` and the
``*CastRule`` classes, ``org.apache.paimon.schema.SchemaEvolutionUtil``, ``CastFieldGetter`` /
``CastedRow``; helpers in ``BinaryStringUtils``, ``DateTimeUtils``, ``DecimalUtils`` and
``Decimal.fromBigDecimal``; number text is ``Float.toString`` / ``Double.toString`` /
``Float.parseFloat`` / ``Double.parseDouble`` / ``new BigDecimal(String)`` of the JDK.

Values use the internal conventions of :mod:`reference.spec.data`; ``None`` stays ``None``.

Facts worth knowing (main; see "0.9.0" below for the release):

* Integer narrowing wraps (``(int)`` of a long); floating to integer truncates toward zero and
  saturates at the bounds of ``int`` / ``long`` (NaN becomes 0); TINYINT and SMALLINT first
  saturate to ``int`` and then wrap. Integer to FLOAT rounds the exact integer once.
* DECIMAL results round HALF_UP to the target scale; a result with more digits than the target
  precision becomes **null** (no error). FLOAT/DOUBLE to DECIMAL goes through
  ``Double.toString`` of the value (a FLOAT widened to double first: ``0.1f`` is
  ``0.10000000149011612``); NaN and infinities fail. DECIMAL to integer truncates toward zero and
  wraps to 64 bits, then narrows.
* Numbers become text as Java prints them: integers plainly, DECIMAL with ``toPlainString`` (all
  scale digits, never an exponent), FLOAT/DOUBLE with ``Float.toString`` / ``Double.toString``
  (``1.0E10``, ``1.0E-5``, ``100.0``, ``NaN``, ``Infinity``). The digits are those of the JDK 8-18
  algorithm (``FloatingDecimal``), which Paimon deployments and the 0.9.0 oracle run on: it is not
  always the shortest decimal (a FLOAT holding 219360192 prints ``2.19360192E8``). JDK 19+ prints
  the shortest form instead.
* Text to CHAR(n)/VARCHAR(n) is cut to n code points; CHAR(n) is padded with spaces. BINARY(n) is
  padded with zero bytes or cut; VARBINARY(n) is cut. BINARY to text decodes UTF-8 (invalid
  sequences become U+FFFD) and keeps the whole text, whatever the target length; so do ARRAY, MAP
  and ROW to text.
* Text to a number, BOOLEAN, DATE, TIME or TIMESTAMP that Java cannot parse raises
  :class:`SpecViolation` with code ``CAST_INVALID_VALUE`` (Java throws, it does not return null).
  Text to TINYINT..BIGINT accepts an optional sign, ASCII digits and an ignored ``.digits`` tail,
  nothing else (no spaces); text to FLOAT/DOUBLE is Java's literal grammar (spaces trimmed,
  ``1e3``, ``0x1p3``, ``NaN``, ``Infinity``, a trailing ``f``/``d``).
* Timestamps: lowering the precision truncates the fraction (toward zero for precisions 0-2 on
  negative instants, as Java's ``DateTimeUtils.truncate`` does); TIMESTAMP to DATE / TIME floors.
  TIMESTAMP to BIGINT/INT is seconds since the epoch, truncated toward zero. INT/BIGINT to
  TIMESTAMP reads seconds since the epoch; the other numbers have a rule but no executor, so
  ``ALTER TABLE`` refuses them (:func:`has_cast_rule` is false).
* Java's ``int`` day arithmetic (wrapping past year 5,800,000) is reproduced where it shows.
* The session time zone of ``TIMESTAMP WITH LOCAL TIME ZONE`` conversions is **UTC** (Java uses
  the JVM default zone): with UTC every LTZ conversion keeps the instant unchanged.

0.9.0 (checked by ``fixtures/vectors/casts/java-0.9.json``) differs from main, which this module
follows: 0.9.0 tests a BIGINT for ``!= 0`` on its low 32 bits when casting to BOOLEAN; divides
instead of flooring in TIMESTAMP to DATE / TIME (wrong before 1970); its timestamp truncation
skips some values whose fraction has leading zeros; text to DATE/TIME does not take a ``-`` sign
as a number of days/millis; text to TIMESTAMP accepts no ``T`` separator and no number of
seconds/millis/micros/nanos since the epoch; it has no ARRAY/MAP/ROW to text rule; and its reader
cannot evolve a column of a nested type at all.
"""

from __future__ import annotations

import math
import re
import struct
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from fractions import Fraction

from reference.errors import SpecViolation, UnsupportedFeature
from reference.spec import types as t
from reference.spec.data import (
    Timestamp,
    Value,
    build_map,
    decimal_from_unscaled,
    decimal_unscaled,
)
from reference.spec.java_numbers import LONG_BITS, LONG_MAX
from reference.spec.units import (
    MILLIS_PER_DAY,
    MILLIS_PER_HOUR,
    MILLIS_PER_MINUTE,
    MILLIS_PER_SECOND,
    NANOS_PER_MILLI,
    NANOS_PER_SECOND,
)

# --------------------------------------------------------------------------------------------
# Type families and the type-level cast rules of ALTER TABLE
# --------------------------------------------------------------------------------------------


class TypeFamily(Enum):
    """Java ``DataTypeFamily``: groups of type roots the cast rules speak about."""

    PREDEFINED = "PREDEFINED"
    CONSTRUCTED = "CONSTRUCTED"
    CHARACTER_STRING = "CHARACTER_STRING"
    BINARY_STRING = "BINARY_STRING"
    NUMERIC = "NUMERIC"
    INTEGER_NUMERIC = "INTEGER_NUMERIC"
    EXACT_NUMERIC = "EXACT_NUMERIC"
    APPROXIMATE_NUMERIC = "APPROXIMATE_NUMERIC"
    DATETIME = "DATETIME"
    TIME = "TIME"
    TIMESTAMP = "TIMESTAMP"
    COLLECTION = "COLLECTION"
    EXTENSION = "EXTENSION"


R = t.TypeRoot
Fam = TypeFamily
_PREDEFINED_INTEGER = (Fam.PREDEFINED, Fam.NUMERIC, Fam.INTEGER_NUMERIC, Fam.EXACT_NUMERIC)
_PREDEFINED_APPROXIMATE = (Fam.PREDEFINED, Fam.NUMERIC, Fam.APPROXIMATE_NUMERIC)

TYPE_FAMILIES: Mapping[t.TypeRoot, frozenset[TypeFamily]] = {
    R.CHAR: frozenset({Fam.PREDEFINED, Fam.CHARACTER_STRING}),
    R.VARCHAR: frozenset({Fam.PREDEFINED, Fam.CHARACTER_STRING}),
    R.BOOLEAN: frozenset({Fam.PREDEFINED}),
    R.BINARY: frozenset({Fam.PREDEFINED, Fam.BINARY_STRING}),
    R.VARBINARY: frozenset({Fam.PREDEFINED, Fam.BINARY_STRING}),
    R.DECIMAL: frozenset({Fam.PREDEFINED, Fam.NUMERIC, Fam.EXACT_NUMERIC}),
    R.TINYINT: frozenset(_PREDEFINED_INTEGER),
    R.SMALLINT: frozenset(_PREDEFINED_INTEGER),
    R.INTEGER: frozenset(_PREDEFINED_INTEGER),
    R.BIGINT: frozenset(_PREDEFINED_INTEGER),
    R.FLOAT: frozenset(_PREDEFINED_APPROXIMATE),
    R.DOUBLE: frozenset(_PREDEFINED_APPROXIMATE),
    R.DATE: frozenset({Fam.PREDEFINED, Fam.DATETIME}),
    R.TIME_WITHOUT_TIME_ZONE: frozenset({Fam.PREDEFINED, Fam.DATETIME, Fam.TIME}),
    R.TIMESTAMP_WITHOUT_TIME_ZONE: frozenset({Fam.PREDEFINED, Fam.DATETIME, Fam.TIMESTAMP}),
    R.TIMESTAMP_WITH_LOCAL_TIME_ZONE: frozenset(
        {Fam.PREDEFINED, Fam.DATETIME, Fam.TIMESTAMP, Fam.EXTENSION}
    ),
    R.VARIANT: frozenset({Fam.PREDEFINED}),
    R.BLOB: frozenset({Fam.PREDEFINED}),
    R.ARRAY: frozenset({Fam.CONSTRUCTED, Fam.COLLECTION}),
    R.VECTOR: frozenset({Fam.CONSTRUCTED, Fam.COLLECTION}),
    R.MULTISET: frozenset({Fam.CONSTRUCTED, Fam.COLLECTION}),
    R.MAP: frozenset({Fam.CONSTRUCTED, Fam.EXTENSION}),
    R.ROW: frozenset({Fam.CONSTRUCTED}),
}


def roots_of(*families: TypeFamily) -> frozenset[t.TypeRoot]:
    """Every type root belonging to any of ``families``."""
    return frozenset(root for root, fams in TYPE_FAMILIES.items() if fams & set(families))


_TIMESTAMPS = frozenset({R.TIMESTAMP_WITHOUT_TIME_ZONE, R.TIMESTAMP_WITH_LOCAL_TIME_ZONE})
_NUMBER_SOURCES_EXPLICIT = roots_of(Fam.NUMERIC, Fam.CHARACTER_STRING) | {R.BOOLEAN} | _TIMESTAMPS

IMPLICIT_CASTS: Mapping[t.TypeRoot, frozenset[t.TypeRoot]] = {
    R.VARCHAR: roots_of(Fam.CHARACTER_STRING),
    R.VARBINARY: roots_of(Fam.BINARY_STRING),
    R.DECIMAL: roots_of(Fam.NUMERIC),
    R.SMALLINT: frozenset({R.TINYINT, R.SMALLINT}),
    R.INTEGER: frozenset({R.TINYINT, R.SMALLINT, R.INTEGER}),
    R.BIGINT: frozenset({R.TINYINT, R.SMALLINT, R.INTEGER, R.BIGINT}),
    R.FLOAT: frozenset({R.TINYINT, R.SMALLINT, R.INTEGER, R.BIGINT, R.FLOAT, R.DECIMAL}),
    R.DOUBLE: roots_of(Fam.NUMERIC),
    R.DATE: frozenset({R.DATE, R.TIMESTAMP_WITHOUT_TIME_ZONE}),
    R.TIME_WITHOUT_TIME_ZONE: frozenset({R.TIME_WITHOUT_TIME_ZONE, R.TIMESTAMP_WITHOUT_TIME_ZONE}),
    R.TIMESTAMP_WITHOUT_TIME_ZONE: _TIMESTAMPS,
    R.TIMESTAMP_WITH_LOCAL_TIME_ZONE: _TIMESTAMPS,
}
"""Target root -> source roots castable without loss (besides the identity, which every root
allows). Java: ``DataTypeCasts`` ``implicitFrom``."""

EXPLICIT_CASTS: Mapping[t.TypeRoot, frozenset[t.TypeRoot]] = {
    R.CHAR: roots_of(Fam.PREDEFINED, Fam.CONSTRUCTED),
    R.VARCHAR: roots_of(Fam.PREDEFINED, Fam.CONSTRUCTED),
    R.BOOLEAN: roots_of(Fam.CHARACTER_STRING, Fam.INTEGER_NUMERIC),
    R.BINARY: roots_of(Fam.CHARACTER_STRING) | {R.VARBINARY},
    R.VARBINARY: roots_of(Fam.CHARACTER_STRING) | {R.BINARY},
    R.DECIMAL: roots_of(Fam.CHARACTER_STRING) | {R.BOOLEAN} | _TIMESTAMPS,
    R.TINYINT: _NUMBER_SOURCES_EXPLICIT,
    R.SMALLINT: _NUMBER_SOURCES_EXPLICIT,
    R.INTEGER: _NUMBER_SOURCES_EXPLICIT,
    R.BIGINT: _NUMBER_SOURCES_EXPLICIT,
    R.FLOAT: _NUMBER_SOURCES_EXPLICIT,
    R.DOUBLE: roots_of(Fam.CHARACTER_STRING) | {R.BOOLEAN} | _TIMESTAMPS,
    R.DATE: roots_of(Fam.TIMESTAMP, Fam.CHARACTER_STRING),
    R.TIME_WITHOUT_TIME_ZONE: roots_of(Fam.TIME, Fam.TIMESTAMP, Fam.CHARACTER_STRING),
    R.TIMESTAMP_WITHOUT_TIME_ZONE: roots_of(Fam.DATETIME, Fam.CHARACTER_STRING, Fam.NUMERIC),
    R.TIMESTAMP_WITH_LOCAL_TIME_ZONE: roots_of(Fam.DATETIME, Fam.CHARACTER_STRING, Fam.NUMERIC),
}
"""Target root -> further source roots castable with ``CAST`` (``DataTypeCasts``
``explicitFrom``)."""


def is_supported_cast(source: t.DataType, target: t.DataType, allow_explicit: bool) -> bool:
    """Java ``DataTypeCasts.supportsCast``: nullability, then equal types, then the root rules."""
    if source.nullable and not target.nullable and not allow_explicit:
        return False
    if source.copy(True) == target.copy(True):
        return True
    if source.root == target.root or source.root in IMPLICIT_CASTS.get(target.root, frozenset()):
        return True
    return allow_explicit and source.root in EXPLICIT_CASTS.get(target.root, frozenset())


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

CAST_INVALID_VALUE = "CAST_INVALID_VALUE"
"""Violation code: Java's executor throws for this value (unparsable text, NaN to DECIMAL...)."""

CAST_NOT_SUPPORTED = "CAST_NOT_SUPPORTED"
"""Violation code: Java has no executor for the pair, so its reader cannot read the column."""


def _invalid(value: object, target: t.DataType, reason: str) -> SpecViolation:
    return SpecViolation(f"cannot cast {value!r} to {target}: {reason}", code=CAST_INVALID_VALUE)


# --------------------------------------------------------------------------------------------
# Java integer arithmetic
# --------------------------------------------------------------------------------------------

INT_BITS = 32
INTEGER_BITS: Mapping[t.TypeRoot, int] = t.IntegerBits


def wrap_integer(value: int, bits: int) -> int:
    """Java's narrowing of an integer to ``bits`` bits: keep the low bits, two's complement."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def java_divide(dividend: int, divisor: int) -> int:
    """Java's ``/`` on integers: the quotient truncated toward zero."""
    quotient = abs(dividend) // abs(divisor)
    return quotient if (dividend < 0) == (divisor < 0) else -quotient


def java_remainder(dividend: int, divisor: int) -> int:
    """Java's ``%`` on integers: the remainder takes the sign of the dividend."""
    return dividend - divisor * java_divide(dividend, divisor)


def compute_integer_from_floating(value: float, bits: int) -> int:
    """Java's cast of a float or double to an integer type of ``bits`` bits.

    NaN is 0; otherwise truncate toward zero and saturate at the bounds of ``long`` (64 bits) or
    ``int`` (every narrower type), then wrap to ``bits`` (JLS 5.1.3: ``(byte) d`` is
    ``(byte) (int) d``)."""
    wide = LONG_BITS if bits == LONG_BITS else INT_BITS
    low, high = -(1 << (wide - 1)), (1 << (wide - 1)) - 1
    if math.isnan(value):
        return 0
    if math.isinf(value):
        saturated = high if value > 0 else low
    else:
        saturated = min(max(math.trunc(value), low), high)
    return wrap_integer(saturated, bits)


# --------------------------------------------------------------------------------------------
# Binary floating point: rounding exact values to float / double
# --------------------------------------------------------------------------------------------

FLOAT_SIGNIFICAND_BITS = 24
FLOAT_MIN_QUANTUM_EXPONENT = -149
"""The smallest float is ``2**-149`` (subnormal); every float is a multiple of it."""
FLOAT_MAX = math.ldexp(2**FLOAT_SIGNIFICAND_BITS - 1, 128 - FLOAT_SIGNIFICAND_BITS)
DOUBLE_SIGNIFICAND_BITS = 53
DOUBLE_MIN_QUANTUM_EXPONENT = -1074


def _floor_log2(magnitude: Fraction) -> int:
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    return exponent


def _round_binary(exact: Fraction, significand_bits: int, min_quantum: int) -> float:
    """``exact`` rounded once, half to even, to a binary format; ``inf`` past its largest value."""
    if exact == 0:
        return 0.0
    magnitude = abs(exact)
    quantum = max(_floor_log2(magnitude) - significand_bits + 1, min_quantum)
    significand = round(magnitude / Fraction(2) ** quantum)
    try:
        result = math.ldexp(significand, quantum)
    except OverflowError:
        result = math.inf
    return -result if exact < 0 else result


def round_to_float(value: Fraction | int | float) -> float:
    """The float (binary32) nearest to ``value``, ties to even: Java's ``(float)`` of a double,
    long or int, and the last step of ``Float.parseFloat``. NaN, infinities and -0.0 carry over."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value) or value == 0):
        return value
    rounded = _round_binary(Fraction(value), FLOAT_SIGNIFICAND_BITS, FLOAT_MIN_QUANTUM_EXPONENT)
    if abs(rounded) > FLOAT_MAX:
        return math.copysign(math.inf, rounded)
    return rounded


def round_to_double(value: Fraction | int) -> float:
    """The double nearest to ``value``, ties to even (``inf`` past the largest double)."""
    return _round_binary(Fraction(value), DOUBLE_SIGNIFICAND_BITS, DOUBLE_MIN_QUANTUM_EXPONENT)


# --------------------------------------------------------------------------------------------
# Floating point to text: Float.toString / Double.toString (JDK 8-18 FloatingDecimal)
# --------------------------------------------------------------------------------------------

DOUBLE_EXPONENT_SHIFT = 52
"""Java ``EXP_SHIFT``: the significand of a double, hidden bit at bit 52."""
DOUBLE_EXPONENT_BIAS = 1023
FLOAT_EXPONENT_SHIFT = 23
FLOAT_EXPONENT_BIAS = 127
SMALL_BINARY_EXPONENT_MIN = -21
SMALL_BINARY_EXPONENT_MAX = 62
LONG_FIVE_POWERS = 27
"""Powers of five (``5**0 .. 5**26``) that Java keeps as longs."""
PLAIN_NOTATION_MIN_EXPONENT = -3
PLAIN_NOTATION_MAX_EXPONENT = 8
"""Decimal exponents (value = 0.d1d2... * 10**e) printed without ``E``: -3 < e < 8."""


def _five_power_bits(power: int) -> int:
    """Java ``N_5_BITS``: bits of ``5**power`` (0 for power 0), ``3 * power`` past the table."""
    if power >= LONG_FIVE_POWERS:
        return 3 * power
    return 0 if power == 0 else (5**power).bit_length()


def _insignificant_digits_for_power_of_two(power: int) -> int:
    """Digits of ``2**power`` minus one, for ``1 < power < 64`` (else 0)."""
    return len(str(1 << power)) - 1 if 1 < power < LONG_BITS else 0


def _estimate_decimal_exponent(fraction_bits: int, binary_exponent: int) -> int:
    """Java's estimate of ``floor(log10(value))`` in double arithmetic (may be one too high)."""
    mantissa = 1.0 + (fraction_bits & ((1 << DOUBLE_EXPONENT_SHIFT) - 1)) / 2.0**52
    estimate = (mantissa - 1.5) * 0.289529654 + 0.176091259 + binary_exponent * 0.301029995663981
    return math.floor(estimate)


def _long_digits(value: int, insignificant: int) -> tuple[str, int]:
    """The exact-integer path: drop ``insignificant`` low digits (rounding half up), strip trailing
    zeros. Returns the digits and the exponent ``e`` of ``0.digits * 10**e``."""
    exponent = 0
    if insignificant:
        power = 10**insignificant
        value, residue = divmod(value, power)
        exponent = insignificant
        if residue >= power >> 1:
            value += 1
    text = str(value)
    return text.rstrip("0"), exponent + len(text)


@dataclass
class _DigitState:
    """Scratch state of Java's digit loop (local to :func:`_generate_digits`)."""

    digits: list[int]
    decimal_exponent: int
    low: bool = False
    high: bool = False
    low_digit_difference: int = 0


def _generate_digits(
    fraction: int,
    *,
    b5: int,
    b2: int,
    s5: int,
    s2: int,
    m5: int,
    m2: int,
    dec_exp: int,
    width: int,
) -> _DigitState:
    """Java's digit loop of ``dtoa``. ``width`` is 32 or 64 when Java runs it in ``int`` or
    ``long`` arithmetic (whose overflows are reproduced) and 0 for its big-integer variant, where
    the stop test ``B + M >= 10S`` is not strict."""

    def fix(value: int) -> int:
        return wrap_integer(value, width) if width else value

    b = fix(fix(fraction * 5**b5) << b2)
    s = fix(5**s5 << s2)
    m = fix(5**m5 << m2)
    tens = fix(s * 10)

    def compare(b: int, m: int) -> tuple[bool, bool]:
        return b < m, (fix(b + m) > tens if width else b + m >= tens)

    state = _DigitState([], dec_exp)
    quotient, b, m = b // s, fix(10 * (b % s)), fix(m * 10)
    state.low, state.high = compare(b, m)
    if quotient == 0 and not state.high:
        state.decimal_exponent -= 1
    else:
        state.digits.append(quotient)
    if not PLAIN_NOTATION_MIN_EXPONENT <= state.decimal_exponent < PLAIN_NOTATION_MAX_EXPONENT:
        state.low = state.high = False
    while not state.low and not state.high:
        quotient, b, m = b // s, fix(10 * (b % s)), fix(m * 10)
        overflowed = width != 0 and m <= 0
        state.low, state.high = (True, True) if overflowed else compare(b, m)
        state.digits.append(quotient)
    if width:
        state.low_digit_difference = fix(fix(b << 1) - tens)
    elif state.low and state.high:
        state.low_digit_difference = (2 * b > tens) - (2 * b < tens)
    return state


def _round_up(digits: list[int], exponent: int) -> tuple[list[int], int]:
    """Add one to the last digit; a carry out of the first digit makes it ``1`` (keeping the
    count of digits) and raises the exponent."""
    digits = list(digits)
    index = len(digits) - 1
    while index > 0 and digits[index] == 9:
        digits[index] = 0
        index -= 1
    if digits[index] == 9:
        digits[index] = 1
        return digits, exponent + 1
    digits[index] += 1
    return digits, exponent


def _java_dtoa(binary_exponent: int, fraction_bits: int, significant_bits: int) -> tuple[str, int]:
    """Decimal digits of ``fraction_bits * 2**(binary_exponent - 52)`` the way the JDK 8-18
    ``FloatingDecimal.BinaryToASCIIBuffer.dtoa`` finds them. ``fraction_bits`` has its top bit
    at bit 52; ``significant_bits`` is 53 for doubles, 24 for floats, fewer for subnormals.
    Returns the digits and the exponent ``e`` of ``0.digits * 10**e``."""
    tail_zeros = (fraction_bits & -fraction_bits).bit_length() - 1
    fraction_width = DOUBLE_EXPONENT_SHIFT + 1 - tail_zeros
    tiny_bits = max(0, fraction_width - binary_exponent - 1)
    if SMALL_BINARY_EXPONENT_MIN <= binary_exponent <= SMALL_BINARY_EXPONENT_MAX and tiny_bits == 0:
        insignificant = 0
        if binary_exponent > significant_bits:
            insignificant = _insignificant_digits_for_power_of_two(
                binary_exponent - significant_bits - 1
            )
        shift = binary_exponent - DOUBLE_EXPONENT_SHIFT
        value = fraction_bits << shift if shift >= 0 else fraction_bits >> -shift
        return _long_digits(value, insignificant)
    dec_exp = _estimate_decimal_exponent(fraction_bits, binary_exponent)
    b5 = max(0, -dec_exp)
    b2 = b5 + tiny_bits + binary_exponent
    s5 = max(0, dec_exp)
    s2 = s5 + tiny_bits
    m5, m2 = b5, b2 - significant_bits
    fraction = fraction_bits >> tail_zeros
    b2 -= fraction_width - 1
    common = min(b2, s2)
    b2, s2, m2 = b2 - common, s2 - common, m2 - common
    if fraction_width == 1:
        m2 -= 1
    if m2 < 0:
        b2, s2, m2 = b2 - m2, s2 - m2, 0
    b_bits = fraction_width + b2 + _five_power_bits(b5)
    ten_s_bits = s2 + 1 + _five_power_bits(s5 + 1)
    width = 0
    if b_bits < LONG_BITS and ten_s_bits < LONG_BITS:
        width = INT_BITS if b_bits < INT_BITS and ten_s_bits < INT_BITS else LONG_BITS
    state = _generate_digits(
        fraction, b5=b5, b2=b2, s5=s5, s2=s2, m5=m5, m2=m2, dec_exp=dec_exp, width=width
    )
    digits, exponent = state.digits, state.decimal_exponent + 1
    if state.high and (
        not state.low
        or state.low_digit_difference > 0
        or (state.low_digit_difference == 0 and digits[-1] % 2 == 1)
    ):
        digits, exponent = _round_up(digits, exponent)
    return "".join(map(str, digits)), exponent


def _layout_java_digits(negative: bool, digits: str, exponent: int) -> str:
    """Java's ``getChars``: plain for ``0.001 <= |x| < 10**7``, else ``d.dddE[-]n``; at least one
    digit after the point either way."""
    sign = "-" if negative else ""
    if 0 < exponent < PLAIN_NOTATION_MAX_EXPONENT:
        whole, rest = digits[:exponent], digits[exponent:]
        whole += "0" * (exponent - len(whole))
        return f"{sign}{whole}.{rest or '0'}"
    if PLAIN_NOTATION_MIN_EXPONENT < exponent <= 0:
        return f"{sign}0.{'0' * -exponent}{digits}"
    power = exponent - 1
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{power}"


def _special_text(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return None


def format_java_double(value: float) -> str:
    """Java ``Double.toString`` (JDK 8-18 digits)."""
    special = _special_text(value)
    if special is not None:
        return special
    (bits,) = struct.unpack("<Q", struct.pack("<d", value))
    biased = (bits >> DOUBLE_EXPONENT_SHIFT) & 0x7FF
    fraction = bits & ((1 << DOUBLE_EXPONENT_SHIFT) - 1)
    if biased == 0:
        shift = (DOUBLE_EXPONENT_SHIFT + 1) - fraction.bit_length()
        fraction, exponent, significant = fraction << shift, 1 - shift, fraction.bit_length()
    else:
        fraction |= 1 << DOUBLE_EXPONENT_SHIFT
        exponent, significant = biased, DOUBLE_EXPONENT_SHIFT + 1
    digits, decimal_exponent = _java_dtoa(exponent - DOUBLE_EXPONENT_BIAS, fraction, significant)
    return _layout_java_digits(value < 0, digits, decimal_exponent)


def format_java_float(value: float) -> str:
    """Java ``Float.toString`` of a float-representable ``value`` (JDK 8-18 digits)."""
    special = _special_text(value)
    if special is not None:
        return special
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    biased = (bits >> FLOAT_EXPONENT_SHIFT) & 0xFF
    fraction = bits & ((1 << FLOAT_EXPONENT_SHIFT) - 1)
    if biased == 0:
        shift = (FLOAT_EXPONENT_SHIFT + 1) - fraction.bit_length()
        fraction, exponent, significant = fraction << shift, 1 - shift, fraction.bit_length()
    else:
        fraction |= 1 << FLOAT_EXPONENT_SHIFT
        exponent, significant = biased, FLOAT_EXPONENT_SHIFT + 1
    digits, decimal_exponent = _java_dtoa(
        exponent - FLOAT_EXPONENT_BIAS,
        fraction << (DOUBLE_EXPONENT_SHIFT - FLOAT_EXPONENT_SHIFT),
        significant,
    )
    return _layout_java_digits(value < 0, digits, decimal_exponent)


# --------------------------------------------------------------------------------------------
# Text to numbers: Java's parsers
# --------------------------------------------------------------------------------------------

_JAVA_FLOAT_DECIMAL = re.compile(
    r"(?P<sign>[+-]?)(?P<digits>[0-9]+\.?[0-9]*|\.[0-9]+)"
    r"(?:[eE](?P<exp_sign>[+-]?)(?P<exponent>[0-9]+))?[fFdD]?"
)
_JAVA_FLOAT_HEX = re.compile(
    r"(?P<sign>[+-]?)0[xX](?P<digits>[0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)"
    r"[pP](?P<exp_sign>[+-]?)(?P<exponent>[0-9]+)[fFdD]?"
)
_JAVA_FLOAT_SPECIAL = re.compile(r"(?P<sign>[+-]?)(?P<word>NaN|Infinity)")
FLOAT_EXPONENT_CLAMP = 400
"""Decimal exponents beyond ±(this + digits) give 0 or infinity in either format; Java clamps
them the same way, so the exact value need not be built."""


def java_trim(text: str) -> str:
    """Java ``String.trim``: strip characters up to U+0020 from both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def _clamped_power(digits: int, exponent: int) -> Fraction:
    limit = FLOAT_EXPONENT_CLAMP + digits
    exponent = max(-limit, min(limit, exponent))
    return Fraction(10) ** exponent


def parse_java_floating(text: str, is_float: bool) -> float:
    """Java ``Float.parseFloat`` / ``Double.parseDouble``: trimmed text in Java's literal grammar
    (decimal or hexadecimal, optional ``f``/``d`` suffix, ``NaN``, ``Infinity``), rounded once
    to the format. Raise ``ValueError`` for anything else."""
    trimmed = java_trim(text)
    special = _JAVA_FLOAT_SPECIAL.fullmatch(trimmed)
    if special:
        if special["word"] == "NaN":
            return math.nan
        return -math.inf if special["sign"] == "-" else math.inf
    decimal = _JAVA_FLOAT_DECIMAL.fullmatch(trimmed)
    hexadecimal = _JAVA_FLOAT_HEX.fullmatch(trimmed)
    if decimal:
        whole, _, fraction = decimal["digits"].partition(".")
        exponent = int(decimal["exponent"] or "0") * (-1 if decimal["exp_sign"] == "-" else 1)
        digits = whole + fraction
        exact = int(digits) * _clamped_power(len(digits), exponent - len(fraction))
        sign = decimal["sign"]
    elif hexadecimal:
        whole, _, fraction = hexadecimal["digits"].partition(".")
        exponent = int(hexadecimal["exponent"]) * (-1 if hexadecimal["exp_sign"] == "-" else 1)
        exponent = max(-2000, min(2000, exponent - 4 * len(fraction)))
        exact = int(whole + fraction, 16) * Fraction(2) ** exponent
        sign = hexadecimal["sign"]
    else:
        raise ValueError(f"not a Java floating-point literal: {text!r}")
    rounded = round_to_float(exact) if is_float else round_to_double(exact)
    return -rounded if sign == "-" else rounded


def parse_java_integer(text: str, bits: int) -> int:
    """``BinaryStringUtils.toLong`` / ``toInt`` / ``toShort`` / ``toByte``: an optional sign,
    ASCII digits and an optional ``.`` followed by digits that are dropped (truncation); no
    spaces. ``"."``, ``"-.5"`` are 0. TINYINT and SMALLINT parse as INT first, then must fit.
    Raise ``ValueError`` on anything else or on overflow."""
    data = text.encode("utf-8")
    body = data[1:] if data[:1] in (b"-", b"+") else data
    if not data or not body:
        raise ValueError("empty input or a lone sign")
    whole, _, fraction = body.partition(b".")
    if any(part and not part.isdigit() for part in (whole, fraction)):
        raise ValueError("invalid character")
    value = int(whole or b"0")
    if data[:1] == b"-":
        value = -value
    parse_bits = LONG_BITS if bits == LONG_BITS else INT_BITS
    if wrap_integer(value, parse_bits) != value or wrap_integer(value, bits) != value:
        raise ValueError("overflow")
    return value


_BIG_DECIMAL_EXPONENT_DIGITS = 10


def _java_digit(character: str) -> int | None:
    """``Character.digit(c, 10)`` for one UTF-16 unit: decimal digits of the BMP."""
    if ord(character) > 0xFFFF:
        return None
    return unicodedata.decimal(character, None)


def parse_java_big_decimal(text: str) -> tuple[int, int]:
    """``new BigDecimal(String)``: ``[+-] digits [. digits] [(e|E) [+-] digits]`` with at least
    one digit, digits being any decimal digit of the BMP, no spaces. Returns the unscaled value and
    the scale. Raise ``ValueError`` on anything else or a scale outside ``int``."""
    body = text[1:] if text[:1] in ("-", "+") else text
    mantissa, exponent_text = body, ""
    for index, character in enumerate(body):
        if character in "eE":
            mantissa, exponent_text = body[:index], body[index + 1 :]
            if not exponent_text:
                raise ValueError("no exponent digits")
            break
    whole, _, fraction = mantissa.partition(".")
    digits = [_java_digit(c) for c in whole + fraction]
    if not digits or None in digits or "." in fraction:
        raise ValueError(f"not a BigDecimal: {text!r}")
    exponent = _parse_big_decimal_exponent(exponent_text) if exponent_text else 0
    scale = len(fraction) - exponent
    if wrap_integer(scale, INT_BITS) != scale:
        raise ValueError("scale out of range")
    unscaled = int("".join(str(d) for d in digits))
    return (-unscaled if text[:1] == "-" else unscaled), scale


def _parse_big_decimal_exponent(text: str) -> int:
    negative = text[:1] == "-"
    body = text[1:] if text[:1] in ("-", "+") else text
    if not body:
        raise ValueError("no exponent digits")
    digits = [_java_digit(c) for c in body]
    if None in digits:
        raise ValueError("exponent is not a number")
    while len(digits) > _BIG_DECIMAL_EXPONENT_DIGITS and digits[0] == 0:
        digits.pop(0)
    if len(digits) > _BIG_DECIMAL_EXPONENT_DIGITS:
        raise ValueError("too many exponent digits")
    value = int("".join(str(d) for d in digits))
    value = -value if negative else value
    if wrap_integer(value, INT_BITS) != value:
        raise ValueError("exponent overflow")
    return value


# --------------------------------------------------------------------------------------------
# DECIMAL
# --------------------------------------------------------------------------------------------


def _digit_count(value: int) -> int:
    """``BigDecimal.precision()`` of an unscaled value (0 has one digit)."""
    return len(str(abs(value)))


def compute_decimal(unscaled: int, scale: int, target: t.DecimalType) -> Decimal | None:
    """Java ``Decimal.fromBigDecimal``: ``unscaled * 10**-scale`` rounded HALF_UP to the target
    scale; ``None`` (SQL null) when the result has more digits than the target precision."""
    shift = target.scale - scale
    if shift >= 0:
        if unscaled and _digit_count(unscaled) + shift > target.precision:
            return None
        rescaled = unscaled * 10**shift
    elif -shift > _digit_count(unscaled) + 1:
        rescaled = 0
    else:
        power = 10**-shift
        quotient, remainder = divmod(abs(unscaled), power)
        quotient += 1 if 2 * remainder >= power else 0
        rescaled = -quotient if unscaled < 0 else quotient
    if _digit_count(rescaled) > target.precision:
        return None
    return decimal_from_unscaled(rescaled, target.scale)


def decimal_to_plain_string(value: Decimal, scale: int) -> str:
    """Java ``BigDecimal.toPlainString`` of a DECIMAL value: every scale digit, no exponent."""
    unscaled = decimal_unscaled(value, scale)
    digits = str(abs(unscaled)).rjust(scale + 1, "0")
    sign = "-" if unscaled < 0 else ""
    if scale == 0:
        return sign + digits
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"


def compute_decimal_to_double(value: Decimal, source: t.DecimalType) -> float:
    """Java ``DecimalUtils.doubleValue``: a compact DECIMAL (precision <= 18) divides the unscaled
    long by ``10**scale`` in double arithmetic (two roundings); a wider one rounds exactly."""
    unscaled = decimal_unscaled(value, source.scale)
    if source.precision <= t.DECIMAL_MAX_COMPACT_PRECISION:
        return float(unscaled) / float(10**source.scale)
    return round_to_double(Fraction(unscaled, 10**source.scale))


# --------------------------------------------------------------------------------------------
# CHAR / VARCHAR / BINARY / VARBINARY lengths
# --------------------------------------------------------------------------------------------


def _type_length(data_type: t.DataType) -> int:
    if isinstance(data_type, (t.CharType, t.VarCharType, t.BinaryType, t.VarBinaryType)):
        return data_type.length
    raise TypeError(f"{data_type} has no length")


def compute_character_string(text: str, target: t.DataType) -> str:
    """``BinaryStringUtils.toCharacterString``: cut to the target length in code points; CHAR is
    also padded with spaces to its length."""
    length = _type_length(target)
    if len(text) > length:
        return text[:length]
    if target.root is R.CHAR:
        return text.ljust(length)
    return text


def compute_binary_string(data: bytes, target: t.DataType) -> bytes:
    """``BinaryStringUtils.toBinaryString``: BINARY(n) is padded with zero bytes or cut to n;
    VARBINARY(n) is only cut."""
    length = _type_length(target)
    if target.root is R.BINARY:
        return data[:length].ljust(length, b"\x00")
    return data[:length]


REPLACEMENT_CHARACTER = "\ufffd"
_Following = tuple[int | None, ...]
"""The (up to) three bytes after a lead byte, ``None`` past the end."""


def _is_continuation(byte: int | None) -> bool:
    return byte is not None and byte >> 6 == 0b10


def _java_utf8_unit(data: bytes, position: int) -> tuple[str, int | None]:
    """One step of the JDK's replacing UTF-8 decoder (``String(bytes, UTF_8)``): the text for
    the sequence at ``position`` and where the next one starts (``None``: decoding stops, the
    rest of the input is dropped)."""
    lead = data[position]
    following: _Following = (*data[position + 1 : position + 4], None, None, None)[:3]
    b2 = following[0]
    if lead < 0x80:
        return chr(lead), position + 1
    if 0xC2 <= lead <= 0xDF:
        if b2 is None:
            return REPLACEMENT_CHARACTER, None
        if not _is_continuation(b2):
            return REPLACEMENT_CHARACTER, position + 1
        return data[position : position + 2].decode("utf-8"), position + 2
    if 0xE0 <= lead <= 0xEF:
        return _java_utf8_three(data, position, following)
    if 0xF0 <= lead <= 0xF7:
        return _java_utf8_four(data, position, following)
    return REPLACEMENT_CHARACTER, position + 1


def _java_utf8_three(data: bytes, position: int, following: _Following) -> tuple[str, int | None]:
    lead, (b2, b3, _) = data[position], following
    overlong = lead == 0xE0 and b2 is not None and 0x80 <= b2 <= 0x9F
    if b2 is not None and b3 is not None:
        if overlong or not _is_continuation(b2) or not _is_continuation(b3):
            return REPLACEMENT_CHARACTER, position + (
                1 if overlong or not _is_continuation(b2) else 2
            )
        if lead == 0xED and b2 >= 0xA0:
            return REPLACEMENT_CHARACTER, position + 3
        return data[position : position + 3].decode("utf-8"), position + 3
    if b2 is not None and (overlong or not _is_continuation(b2)):
        return REPLACEMENT_CHARACTER, position + 1
    return REPLACEMENT_CHARACTER, None


def _is_bad_four_byte_start(lead: int, b2: int) -> bool:
    return (
        lead > 0xF4
        or (lead == 0xF0 and not 0x90 <= b2 <= 0xBF)
        or (lead == 0xF4 and b2 >> 4 != 0x8)
        or not _is_continuation(b2)
    )


def _java_utf8_four(data: bytes, position: int, following: _Following) -> tuple[str, int | None]:
    lead, (b2, b3, b4) = data[position], following
    if b2 is not None and b3 is not None and b4 is not None:
        if _is_bad_four_byte_start(lead, b2):
            return REPLACEMENT_CHARACTER, position + 1
        if not _is_continuation(b3):
            return REPLACEMENT_CHARACTER, position + 2
        if not _is_continuation(b4):
            return REPLACEMENT_CHARACTER, position + 3
        return data[position : position + 4].decode("utf-8"), position + 4
    if lead > 0xF4 or (b2 is not None and _is_bad_four_byte_start(lead, b2)):
        return REPLACEMENT_CHARACTER, position + 1
    if b3 is not None and not _is_continuation(b3):
        return REPLACEMENT_CHARACTER, position + 2
    return REPLACEMENT_CHARACTER, None


def decode_java_utf8(data: bytes) -> str:
    """``BinaryString.toString``: valid UTF-8 decodes as usual; otherwise Java's replacing
    decoder runs, which differs from Python's ``replace`` in how many bytes one U+FFFD covers
    (an encoded surrogate is one sequence; a truncated sequence at the end ends the text)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    pieces: list[str] = []
    position: int | None = 0
    while position is not None and position < len(data):
        text, position = _java_utf8_unit(data, position)
        pieces.append(text)
    return "".join(pieces)


# --------------------------------------------------------------------------------------------
# Dates and times: Java's calendar arithmetic and text forms (DateTimeUtils)
# --------------------------------------------------------------------------------------------

NULL_TEXT = "null"
"""Java's ``String.valueOf(null)``: how a null value prints where Java prints objects (the
system tables' text columns)."""
EPOCH_JULIAN = 2_440_588
"""Julian day number of 1970-01-01."""
MAX_YEAR = 999_999_999
"""``java.time`` years run from -999,999,999 to 999,999,999."""
LAST_PARSED_YEAR = 9999
_THIRTY_ONE_DAY_MONTHS = frozenset({1, 3, 5, 7, 8, 10, 12})
_THIRTY_DAY_MONTHS = frozenset({4, 6, 9, 11})


def _wrap_int(value: int) -> int:
    return wrap_integer(value, INT_BITS)


def _is_leap_year(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _month_length(year: int, month: int) -> int:
    if month == 2:
        return 29 if _is_leap_year(year) else 28
    return 30 if month in _THIRTY_DAY_MONTHS else 31


def compute_civil_from_days(days: int) -> tuple[int, int, int]:
    """Proleptic Gregorian (year, month, day) of a day count since 1970-01-01 (any size)."""
    shifted = days + 719_468
    era = shifted // 146_097
    day_of_era = shifted - era * 146_097
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    return year_of_era + era * 400 + (1 if month <= 2 else 0), month, day


def compute_days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (Java ``LocalDate.toEpochDay``)."""
    year -= 1 if month <= 2 else 0
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def compute_julian_to_civil(julian: int) -> tuple[int, int, int]:
    """Java ``DateTimeUtils.julianToString`` / ``julianToLocalDate`` arithmetic: (year, month,
    day) of a Julian day number, in ``int`` arithmetic that truncates toward zero (so it is only
    the true calendar for non-negative Julian days)."""
    shifted = _wrap_int(julian + 32_044)
    cycles, day_of_cycle = java_divide(shifted, 146_097), java_remainder(shifted, 146_097)
    centuries = java_divide((java_divide(day_of_cycle, 36_524) + 1) * 3, 4)
    day_of_century = day_of_cycle - centuries * 36_524
    quads, day_of_quad = java_divide(day_of_century, 1461), java_remainder(day_of_century, 1461)
    years = java_divide((java_divide(day_of_quad, 365) + 1) * 3, 4)
    day_of_year = day_of_quad - years * 365
    year_count = cycles * 400 + centuries * 100 + quads * 4 + years
    month_index = java_divide(day_of_year * 5 + 308, 153) - 2
    day = day_of_year - java_divide((month_index + 4) * 153, 5) + 122
    year = year_count - 4800 + java_divide(month_index + 2, 12)
    return year, java_remainder(month_index + 2, 12) + 1, day + 1


def compute_java_unix_date(year: int, month: int, day: int) -> int:
    """``DateTimeUtils.ymdToUnixDate``: the day count of a date through the Julian day number,
    in ``int`` arithmetic (wrapping for years past about 5,800,000)."""
    shift = java_divide(14 - month, 12)
    years = year + 4800 - shift
    months = month + 12 * shift - 3
    julian = (
        day
        + java_divide(153 * months + 2, 5)
        + 365 * years
        + java_divide(years, 4)
        - java_divide(years, 100)
        + java_divide(years, 400)
        - 32_045
    )
    return _wrap_int(julian - EPOCH_JULIAN)


def _digits(value: int, count: int) -> str:
    """Java ``int4`` / ``int2``: the last ``count`` decimal digits of ``value``, computed with
    truncating division, so a negative value yields characters below ``'0'``."""
    return "".join(
        chr(ord("0") + java_remainder(java_divide(value, 10**power), 10))
        for power in range(count - 1, -1, -1)
    )


def format_java_date(days: int) -> str:
    """``DateTimeUtils.formatDate``: ``yyyy-MM-dd`` of a DATE value."""
    year, month, day = compute_julian_to_civil(_wrap_int(days + EPOCH_JULIAN))
    return f"{_digits(year, 4)}-{_digits(month, 2)}-{_digits(day, 2)}"


def format_java_time(millis: int, precision: int) -> str:
    """``DateTimeUtils.formatTimestampMillis``: ``HH:mm:ss`` of a TIME value (negative values
    count back from midnight) and, for a precision above 0, a fraction of at least one digit that
    stops after the last non-zero millisecond digit."""
    while millis < 0:
        millis += MILLIS_PER_DAY
    hour, rest = divmod(millis, MILLIS_PER_HOUR)
    minute, rest = divmod(rest, MILLIS_PER_MINUTE)
    second, milli = divmod(rest, MILLIS_PER_SECOND)
    text = f"{_digits(hour, 2)}:{_digits(minute, 2)}:{_digits(second, 2)}"
    if precision <= 0:
        return text
    fraction = ""
    for _ in range(precision):
        fraction += str(milli // 100)
        milli = milli % 100 * 10
        if milli == 0:
            break
    return f"{text}.{fraction}"


@dataclass(frozen=True)
class LocalDateTime:
    """A wall-clock date and time (Java ``java.time.LocalDateTime``), any year."""

    year: int
    month: int
    day: int
    hour: int = 0
    minute: int = 0
    second: int = 0
    nano: int = 0


def compute_local_date_time(value: Timestamp) -> LocalDateTime:
    """Java ``Timestamp.toLocalDateTime``: the UTC wall clock of an instant (the day count is
    taken modulo ``int`` as Java does, which only matters past year 5,800,000)."""
    day = _wrap_int(java_divide(value.millisecond, MILLIS_PER_DAY))
    milli_of_day = _wrap_int(java_remainder(value.millisecond, MILLIS_PER_DAY))
    if milli_of_day < 0:
        day, milli_of_day = _wrap_int(day - 1), milli_of_day + MILLIS_PER_DAY
    year, month, day_of_month = compute_civil_from_days(day)
    hour, rest = divmod(milli_of_day, MILLIS_PER_HOUR)
    minute, rest = divmod(rest, MILLIS_PER_MINUTE)
    second, milli = divmod(rest, MILLIS_PER_SECOND)
    nano = milli * NANOS_PER_MILLI + value.nano_of_millisecond
    return LocalDateTime(year, month, day_of_month, hour, minute, second, nano)


def compute_timestamp(local: LocalDateTime) -> Timestamp:
    """Java ``Timestamp.fromLocalDateTime`` (the millisecond count wraps at 64 bits)."""
    nano_of_day = (
        local.hour * 3600 + local.minute * 60 + local.second
    ) * NANOS_PER_SECOND + local.nano
    days = compute_days_from_civil(local.year, local.month, local.day)
    millis = wrap_integer(days * MILLIS_PER_DAY + nano_of_day // NANOS_PER_MILLI, LONG_BITS)
    return Timestamp(millis, nano_of_day % NANOS_PER_MILLI)


def format_java_timestamp(value: Timestamp, precision: int) -> str:
    """``DateTimeUtils.formatTimestamp``: ``yyyy-MM-dd HH:mm:ss`` and the nanosecond fraction
    with trailing zeros removed down to ``precision`` digits (a fraction is never cut)."""
    local = compute_local_date_time(value)
    fraction = f"{local.nano:09d}"
    while len(fraction) > precision and fraction.endswith("0"):
        fraction = fraction[:-1]
    text = (
        f"{_digits(local.year, 4)}-{_digits(local.month, 2)}-{_digits(local.day, 2)} "
        f"{_digits(local.hour, 2)}:{_digits(local.minute, 2)}:{_digits(local.second, 2)}"
    )
    return f"{text}.{fraction}" if fraction else text


def compute_truncated_timestamp(value: Timestamp, precision: int) -> Timestamp:
    """``DateTimeUtils.truncate`` (main): keep ``precision`` fractional digits. Precisions 0-2
    zero the last digits of the millisecond count with truncating division (so a negative instant
    moves toward 1970), precisions 4-8 those of the nanos within the millisecond."""
    significant = f"{compute_local_date_time(value).nano:09d}".rstrip("0")
    if len(significant) <= precision:
        return value
    if precision <= 3:
        power = 10 ** (3 - precision)
        return Timestamp(java_divide(value.millisecond, power) * power)
    power = 10 ** (9 - precision)
    return Timestamp(value.millisecond, value.nano_of_millisecond // power * power)


# --------------------------------------------------------------------------------------------
# Text to DATE and TIME (DateTimeUtils.parseDate / parseTime, BinaryStringUtils.toDate / toTime)
# --------------------------------------------------------------------------------------------


def _is_ascii_integer(text: str) -> bool:
    return bool(text) and all("0" <= c <= "9" for c in text)


def _java_parse_int(text: str) -> int:
    """``Integer.parseInt`` of ASCII digits: fails past ``int``."""
    value = int(text)
    if _wrap_int(value) != value:
        raise ValueError(f"{text!r} overflows int")
    return value


def _java_substring(text: str, begin: int, end: int | None = None) -> str:
    end = len(text) if end is None else end
    if begin > end:
        raise ValueError("substring range is reversed")
    return text[begin:end]


def _field_or_none(text: str) -> int | None:
    trimmed = java_trim(text)
    return _java_parse_int(trimmed) if _is_ascii_integer(trimmed) else None


def _is_valid_parsed_date(year: int, month: int, day: int) -> bool:
    """``DateTimeUtils.isIllegalDate`` (which, despite its name, says the date is valid)."""
    if not (0 <= year <= LAST_PARSED_YEAR and 1 <= month <= 12 and 1 <= day <= 31):
        return False
    if month == 2 and day > 28 and not (_is_leap_year(year) and day == 29):
        return False
    return day != 31 or month in _THIRTY_ONE_DAY_MONTHS


def parse_java_date(text: str) -> int | None:
    """``DateTimeUtils.parseDate``: ``y[-m[-d]]`` (each part trimmed ASCII digits, year 0-9999),
    anything after the first space ignored. ``None`` when Java returns null."""
    space = text.find(" ")
    if space > 0:
        text = text[:space]
    first = text.find("-")
    parts = [text] if first < 0 else [text[:first]]
    if first >= 0:
        second = text.find("-", first + 1)
        parts += (
            [text[first + 1 :]] if second < 0 else [text[first + 1 : second], text[second + 1 :]]
        )
    numbers = [_field_or_none(part) for part in parts]
    if None in numbers:
        return None
    year, month, day = ([n for n in numbers if n is not None] + [1, 1])[:3]
    if not _is_valid_parsed_date(year, month, day):
        return None
    return compute_days_from_civil(year, month, day)


def _parse_java_fraction_millis(text: str) -> int:
    """``DateTimeUtils.parseFraction``: three digits of milliseconds (a non-digit counts as 0),
    plus one when the next character is ``'5'`` or above."""
    result, multiplier = 0, 100
    for index, character in enumerate(text):
        result += multiplier * (ord(character) - ord("0") if "0" <= character <= "9" else 0)
        if multiplier < 10:
            if index + 1 < len(text) and text[index + 1] >= "5":
                result += 1
            break
        multiplier //= 10
    return result


def parse_java_time(text: str) -> int | None:
    """``DateTimeUtils.parseTime``: ``h[:m[:s[.fff]]]`` with an optional ``+h[:m]`` / ``-h[:m]``
    zone suffix that is added (``+``) or subtracted (``-``). ``None`` when Java returns null."""
    end = len(text)
    sign, zone = -1, text.find("-")
    if zone < 0:
        sign, zone = 1, text.find("+")
    zone_hour = zone_minute = 0
    if zone >= 0:
        end = zone
        colon = text.find(":", zone)
        zone_parts = (
            [text[zone + 1 :]] if colon < 0 else [text[zone + 1 : colon], text[colon + 1 :]]
        )
        zone_numbers = [_field_or_none(part) for part in zone_parts]
        if None in zone_numbers:
            return None
        zone_hour, zone_minute = ([n for n in zone_numbers if n is not None] + [0])[:2]
    parts, milli = _split_java_time(text, end)
    numbers = [_field_or_none(part) for part in parts]
    if None in numbers or milli is None:
        return None
    hour, minute, second = ([n for n in numbers if n is not None] + [0, 0])[:3]
    hour += sign * zone_hour
    minute += sign * zone_minute
    return _wrap_int(
        hour * MILLIS_PER_HOUR + minute * MILLIS_PER_MINUTE + second * MILLIS_PER_SECOND + milli
    )


def _split_java_time(text: str, end: int) -> tuple[list[str], int | None]:
    """The hour, minute and second texts of ``parseTime`` and its milliseconds (``None`` when a
    part before the fraction is not a number, which Java checks first)."""
    first = text.find(":")
    if first < 0:
        return [_java_substring(text, 0, end)], 0
    second = text.find(":", first + 1)
    if second < 0:
        return [text[:first], _java_substring(text, first + 1, end)], 0
    dot = text.find(".", second)
    if dot < 0:
        return [text[:first], text[first + 1 : second], _java_substring(text, second + 1, end)], 0
    parts = [text[:first], text[first + 1 : second], text[second + 1 : dot]]
    if any(_field_or_none(part) is None for part in parts):
        return parts, None
    return parts, _parse_java_fraction_millis(java_trim(_java_substring(text, dot + 1, end)))


def is_java_numeric(text: str) -> bool:
    """``StringUtils.isNumeric`` (main): non-empty, an optional leading ``-``, then only decimal
    digits (any script of the BMP)."""
    body = text[1:] if text.startswith("-") else text
    return bool(body) and all(_java_digit(c) is not None for c in body)


# --------------------------------------------------------------------------------------------
# Text to TIMESTAMP: the java.time formatter of DateTimeUtils, interpreted
# --------------------------------------------------------------------------------------------


class _Field(Enum):
    """The ``ChronoField`` s the timestamp pattern fills, with their valid ranges."""

    YEAR_OF_ERA = ("YearOfEra", 1, MAX_YEAR + 1)
    YEAR = ("Year", -MAX_YEAR, MAX_YEAR)
    MONTH_OF_YEAR = ("MonthOfYear", 1, 12)
    DAY_OF_MONTH = ("DayOfMonth", 1, 31)
    HOUR_OF_DAY = ("HourOfDay", 0, 23)
    MINUTE_OF_HOUR = ("MinuteOfHour", 0, 59)
    SECOND_OF_MINUTE = ("SecondOfMinute", 0, 59)
    NANO_OF_SECOND = ("NanoOfSecond", 0, NANOS_PER_SECOND - 1)

    def is_valid(self, value: int) -> bool:
        _, low, high = self.value
        return bool(low <= value <= high)


class _SignStyle(Enum):
    """How a number may be signed when parsed strictly (Java ``SignStyle``)."""

    NORMAL = "NORMAL"  # '-' allowed, '+' not
    NOT_NEGATIVE = "NOT_NEGATIVE"  # no sign
    EXCEEDS_PAD = "EXCEEDS_PAD"  # '+' required exactly when more than min_width digits


@dataclass(frozen=True)
class _Number:
    field: _Field
    min_width: int
    max_width: int
    sign: _SignStyle


@dataclass(frozen=True)
class _Literal:
    character: str


@dataclass(frozen=True)
class _Fraction:
    """``.`` and 0-9 digits of NANO_OF_SECOND; absent altogether is fine."""


@dataclass(frozen=True)
class _Optional:
    elements: tuple[_Element, ...]


_Element = _Number | _Literal | _Fraction | _Optional


def _one_or_two_digits(field_: _Field) -> tuple[_Element, ...]:
    """The pattern ``[FF][F]``: two digits, or else a number of any width."""
    return (
        _Optional((_Number(field_, 2, 2, _SignStyle.NOT_NEGATIVE),)),
        _Optional((_Number(field_, 1, 19, _SignStyle.NORMAL),)),
    )


def _time_fields(separator: str) -> tuple[_Element, ...]:
    return (
        _Literal(separator),
        *_one_or_two_digits(_Field.HOUR_OF_DAY),
        _Literal(":"),
        *_one_or_two_digits(_Field.MINUTE_OF_HOUR),
    )


def _seconds() -> tuple[_Element, ...]:
    return (_Literal(":"), *_one_or_two_digits(_Field.SECOND_OF_MINUTE), _Fraction())


TIMESTAMP_PATTERN: tuple[_Element, ...] = (
    _Number(_Field.YEAR_OF_ERA, 4, 19, _SignStyle.EXCEEDS_PAD),
    _Literal("-"),
    *_one_or_two_digits(_Field.MONTH_OF_YEAR),
    _Literal("-"),
    *_one_or_two_digits(_Field.DAY_OF_MONTH),
    _Optional((*_time_fields(" "), *_seconds())),
    _Optional((*_time_fields("T"), _Optional(_seconds()))),
)
"""``DateTimeUtils.DEFAULT_TIMESTAMP_FORMATTER`` (main): ``yyyy-[MM][M]-[dd][d]``, then
optionally `` [HH][H]:[mm][m]:[ss][s][.fffffffff]``, then optionally
``T[HH][H]:[mm][m][:[ss][s][.fffffffff]]`` (0.9.0 has no ``T`` part)."""

_Fields = dict[_Field, int]


def _store(fields: _Fields, field_: _Field, value: int, end: int) -> int | None:
    """Record a parsed value; a second, different value for a field fails the parse."""
    if fields.get(field_, value) != value:
        return None
    fields[field_] = value
    return end


def _parse_number(element: _Number, text: str, position: int, fields: _Fields) -> int | None:
    if position >= len(text):
        return None
    sign = text[position]
    negative, positive = sign == "-", sign == "+"
    if positive and element.sign is not _SignStyle.EXCEEDS_PAD:
        return None
    if negative and element.sign is _SignStyle.NOT_NEGATIVE:
        return None
    start = position + (1 if negative or positive else 0)
    end = start
    while end < min(start + element.max_width, len(text)) and "0" <= text[end] <= "9":
        end += 1
    if end - start < element.min_width:
        return None
    value = int(text[start:end])
    if negative and value == 0:
        return None
    exceeds_pad = end - start > element.min_width
    if element.sign is _SignStyle.EXCEEDS_PAD and not negative and positive != exceeds_pad:
        return None
    value = -value if negative else value
    if not -LONG_MAX - 1 <= value <= LONG_MAX:
        value, end = java_divide(value, 10), end - 1
    return _store(fields, element.field, value, end)


def _parse_fraction(text: str, position: int, fields: _Fields) -> int | None:
    if position >= len(text) or text[position] != ".":
        return position
    end = position + 1
    while end < min(position + 10, len(text)) and "0" <= text[end] <= "9":
        end += 1
    digits = text[position + 1 : end]
    return _store(fields, _Field.NANO_OF_SECOND, int(digits.ljust(9, "0")), end)


def _parse_elements(
    elements: Sequence[_Element], text: str, position: int, fields: _Fields
) -> int | None:
    """Java's strict, case-sensitive parse of a pattern from ``position``; ``None`` on failure.
    A failing optional section leaves no trace."""
    for element in elements:
        next_position: int | None
        if isinstance(element, _Literal):
            matches = text[position : position + 1] == element.character
            next_position = position + 1 if matches else None
        elif isinstance(element, _Number):
            next_position = _parse_number(element, text, position, fields)
        elif isinstance(element, _Fraction):
            next_position = _parse_fraction(text, position, fields)
        else:
            saved = dict(fields)
            next_position = _parse_elements(element.elements, text, position, fields)
            if next_position is None:
                fields.clear()
                fields.update(saved)
                next_position = position
        if next_position is None:
            return None
        position = next_position
    return position


def _resolve_date(fields: _Fields) -> tuple[int, int, int] | None:
    """``IsoChronology`` SMART resolution: a year of era of 1..1,000,000,000 becomes the year;
    with a month and a day the date is built, clamping the day to the month's length."""
    year = fields.pop(_Field.YEAR_OF_ERA)
    if not _Field.YEAR_OF_ERA.is_valid(year):
        raise ValueError("year of era out of range")
    fields[_Field.YEAR] = year
    if _Field.MONTH_OF_YEAR not in fields or _Field.DAY_OF_MONTH not in fields:
        return None
    year, month, day = (
        _field_value(fields, f, 0) for f in (_Field.YEAR, _Field.MONTH_OF_YEAR, _Field.DAY_OF_MONTH)
    )
    for field_ in (_Field.YEAR, _Field.MONTH_OF_YEAR, _Field.DAY_OF_MONTH):
        del fields[field_]
    return year, month, min(day, _month_length(year, month))


_TIME_FIELDS = (
    _Field.HOUR_OF_DAY,
    _Field.MINUTE_OF_HOUR,
    _Field.SECOND_OF_MINUTE,
    _Field.NANO_OF_SECOND,
)


def _resolve_time(fields: _Fields) -> tuple[tuple[int, ...], int] | None:
    """``Parsed.resolveTimeLenient`` (SMART): with an hour, missing smaller fields default to 0
    unless that would skip one (minute missing but a second or fraction present, or second
    missing but a fraction present); ``24:00:00`` is midnight of the next day. Returns (hour,
    minute, second, nano) and the days to add, or ``None`` when left unresolved."""
    hour, minute, second, nano = (fields.get(f) for f in _TIME_FIELDS)
    if hour is None:
        return None
    if (minute is None and (second is not None or nano is not None)) or (
        minute is not None and second is None and nano is not None
    ):
        return None
    values = (hour, minute or 0, second or 0, nano or 0)
    for field_ in _TIME_FIELDS:
        fields.pop(field_, None)
    if values == (24, 0, 0, 0):
        return (0, 0, 0, 0), 1
    if not all(f.is_valid(v) for f, v in zip(_TIME_FIELDS, values, strict=True)):
        raise ValueError("time field out of range")
    return values, 0


def _field_value(fields: _Fields, field_: _Field, default: int) -> int:
    """``TemporalAccessor.get`` of a parsed field: range-checked, or the default when absent."""
    if field_ not in fields:
        return default
    if not field_.is_valid(fields[field_]):
        raise ValueError(f"{field_.name} out of range")
    return fields[field_]


def parse_java_local_date_time(text: str) -> LocalDateTime:
    """Parse with :data:`TIMESTAMP_PATTERN` and resolve as ``DateTimeFormatter.parse`` (SMART)
    and ``DateTimeUtils.fromTemporalAccessor`` do: fields never given default to 1970-01-01
    00:00:00. Raise ``ValueError`` where Java throws."""
    fields: _Fields = {}
    if _parse_elements(TIMESTAMP_PATTERN, text, 0, fields) != len(text):
        raise ValueError(f"text {text!r} does not match yyyy-MM-dd[ HH:mm:ss[.fffffffff]]")
    date = _resolve_date(fields)
    time = _resolve_time(fields)
    unresolved_time = tuple(_field_value(fields, f, 0) for f in _TIME_FIELDS)
    if date is not None and time is not None and time[1]:
        date = compute_civil_from_days(compute_days_from_civil(*date) + time[1])
    year, month, day = date or (
        _field_value(fields, _Field.YEAR, 1970),
        _field_value(fields, _Field.MONTH_OF_YEAR, 1),
        _field_value(fields, _Field.DAY_OF_MONTH, 1),
    )
    hour, minute, second, nano = time[0] if time is not None else unresolved_time
    if day > _month_length(year, month):
        raise ValueError("day out of range for the month")
    return LocalDateTime(year, month, day, hour, minute, second, nano)


TIMESTAMP_EPOCH_UNITS: Mapping[int, int] = {0: 1_000_000_000, 3: 1_000_000, 6: 1_000, 9: 1}
"""Target precision -> nanoseconds per unit of a number given as text to a TIMESTAMP (main):
seconds for TIMESTAMP(0), millis for (3), micros for (6), nanos for (9)."""


def parse_java_timestamp(text: str, target: t.DataType) -> Timestamp:
    """``BinaryStringUtils.toTimestamp`` (main). For TIMESTAMP, an integer (``isNumeric``) is a
    count since the epoch in the unit of the target precision (only 0, 3, 6 and 9 are allowed);
    anything else, and every LTZ text, is a date-time whose fraction is floored to the target
    precision."""
    precision = t.timestamp_precision(target)
    if target.root is R.TIMESTAMP_WITHOUT_TIME_ZONE and is_java_numeric(text):
        count = parse_java_integer(text, LONG_BITS)
        if precision not in TIMESTAMP_EPOCH_UNITS:
            raise ValueError(f"a number cannot become a TIMESTAMP({precision})")
        nanos_per_unit = TIMESTAMP_EPOCH_UNITS[precision]
        if nanos_per_unit >= NANOS_PER_MILLI:
            return Timestamp(wrap_integer(count * (nanos_per_unit // NANOS_PER_MILLI), LONG_BITS))
        units_per_milli = NANOS_PER_MILLI // nanos_per_unit
        millis = java_divide(count, units_per_milli)
        nanos = java_remainder(count, units_per_milli) * nanos_per_unit
        if nanos < 0:
            millis, nanos = millis - 1, nanos + NANOS_PER_MILLI
        return Timestamp(millis, nanos)
    local = parse_java_local_date_time(text)
    unit = 10 ** (t.TIMESTAMP_MAX_PRECISION - precision)
    floored = LocalDateTime(
        local.year,
        local.month,
        local.day,
        local.hour,
        local.minute,
        local.second,
        local.nano // unit * unit,
    )
    return compute_timestamp(floored)


def parse_java_date_value(text: str) -> int:
    """``BinaryStringUtils.toDate`` (main): an integer (``isNumeric``) is a day count, anything
    else goes through :func:`parse_java_date`. Raise ``ValueError`` where Java throws."""
    if is_java_numeric(text):
        return parse_java_integer(text, INT_BITS)
    days = parse_java_date(text)
    if days is None:
        raise ValueError(f"{text!r} is not a date")
    return days


def parse_java_time_value(text: str) -> int:
    """``BinaryStringUtils.toTime`` (main): an integer is a millisecond of the day, anything else
    goes through :func:`parse_java_time`."""
    if is_java_numeric(text):
        return parse_java_integer(text, INT_BITS)
    millis = parse_java_time(text)
    if millis is None:
        raise ValueError(f"{text!r} is not a time")
    return millis


# --------------------------------------------------------------------------------------------
# The cast functions, one per Java rule (value is never None here)
# --------------------------------------------------------------------------------------------

CastFunction = Callable[[Value, t.DataType, t.DataType], Value]
_LTZ = R.TIMESTAMP_WITH_LOCAL_TIME_ZONE
STRING_TYPE = t.VarCharType(t.MAX_LENGTH)
"""The exact type some rules target (``VarCharType.STRING_TYPE``, nullable)."""


def _decimal_type(data_type: t.DataType) -> t.DecimalType:
    if not isinstance(data_type, t.DecimalType):
        raise TypeError(f"{data_type} is not a DECIMAL type")
    return data_type


def _precision_of(data_type: t.DataType) -> int:
    """``DataTypeChecks.getPrecision`` of a TIME or timestamp type."""
    if isinstance(data_type, t.TimeType):
        return data_type.precision
    return t.timestamp_precision(data_type)


def cast_decimal_to_decimal(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``DecimalToDecimalCastRule``: round HALF_UP to the target scale, null on overflow."""
    scale = _decimal_type(source).scale
    return compute_decimal(decimal_unscaled(value, scale), scale, _decimal_type(target))


def cast_numeric_primitive_to_decimal(
    value: Value, source: t.DataType, target: t.DataType
) -> Value:
    """``NumericPrimitiveToDecimalCastRule``: an integer exactly; a FLOAT/DOUBLE through the text
    of ``Double.toString`` (``BigDecimal.valueOf``), which fails for NaN and infinities."""
    if source.root in t.INTEGER_ROOTS:
        return compute_decimal(value, 0, _decimal_type(target))
    text = format_java_double(value)
    try:
        unscaled, scale = parse_java_big_decimal(text)
    except ValueError as error:
        raise _invalid(value, target, "BigDecimal.valueOf rejects it") from error
    return compute_decimal(unscaled, scale, _decimal_type(target))


def cast_decimal_to_numeric_primitive(
    value: Value, source: t.DataType, target: t.DataType
) -> Value:
    """``DecimalToNumericPrimitiveCastRule``: integers truncate toward zero, keep the low 64
    bits, then narrow; DOUBLE is :func:`compute_decimal_to_double`, FLOAT rounds that double."""
    decimal_source = _decimal_type(source)
    if target.root in t.INTEGER_ROOTS:
        whole = java_divide(decimal_unscaled(value, decimal_source.scale), 10**decimal_source.scale)
        return wrap_integer(wrap_integer(whole, LONG_BITS), INTEGER_BITS[target.root])
    as_double = compute_decimal_to_double(value, decimal_source)
    return round_to_float(as_double) if target.root is R.FLOAT else as_double


def cast_numeric_primitive(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``NumericPrimitiveCastRule``: Java's primitive conversions (``Number.intValue()`` ...)."""
    if target.root in t.INTEGER_ROOTS:
        bits = INTEGER_BITS[target.root]
        if source.root in t.FLOATING_ROOTS:
            return compute_integer_from_floating(value, bits)
        return wrap_integer(value, bits)
    if target.root is R.FLOAT:
        return round_to_float(value)
    return float(value) if source.root in t.FLOATING_ROOTS else round_to_double(value)


def cast_numeric_to_timestamp(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``NumericPrimitiveToTimestamp``: INT and BIGINT are seconds since the epoch (the
    millisecond count wraps at 64 bits)."""
    return Timestamp(wrap_integer(value * MILLIS_PER_SECOND, LONG_BITS))


def is_numeric_to_timestamp_executable(source: t.DataType, target: t.DataType) -> bool:
    """Java builds the executor of ``NumericPrimitiveToTimestamp`` only for INT and BIGINT."""
    return source.root in (R.INTEGER, R.BIGINT)


def cast_boolean_to_numeric(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``BooleanToNumericCastRule``: true is 1, false is 0, in the target type."""
    number = 1 if value else 0
    if target.root is R.DECIMAL:
        return compute_decimal(number, 0, _decimal_type(target))
    return float(number) if target.root in t.FLOATING_ROOTS else number


def cast_numeric_to_boolean(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``NumericToBooleanCastRule``: non-zero is true (0.9.0 tests only the low 32 bits)."""
    return value != 0


def format_java_number(value: Value, source: t.DataType) -> str:
    """``toString()`` of a number as Java holds it (``Decimal`` prints plainly)."""
    if source.root is R.FLOAT:
        return format_java_float(value)
    if source.root is R.DOUBLE:
        return format_java_double(value)
    if source.root is R.DECIMAL:
        return decimal_to_plain_string(value, _decimal_type(source).scale)
    return str(value)


def cast_numeric_to_string(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``NumericToStringCastRule``: Java's text of the number, fitted to the target length."""
    return compute_character_string(format_java_number(value, source), target)


def cast_boolean_to_string(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``BooleanToStringCastRule``: ``true`` / ``false``, fitted to the target length."""
    return compute_character_string("true" if value else "false", target)


def cast_timestamp_to_string(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``TimestampToStringCastRule`` (target exactly STRING): see
    :func:`format_java_timestamp`, with the precision of the source."""
    return format_java_timestamp(value, _precision_of(source))


def cast_time_to_string(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``TimeToStringCastRule`` (target exactly STRING): see :func:`format_java_time`."""
    return format_java_time(value, _precision_of(source))


def cast_date_to_string(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``DateToStringCastRule`` (target exactly STRING): see :func:`format_java_date`."""
    return format_java_date(value)


def cast_string_to_string(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``StringToStringCastRule``: cut to the target length; CHAR also pads with spaces."""
    return compute_character_string(value, target)


def _element_text(value: Value, data_type: t.DataType) -> str:
    """An element inside ARRAY/MAP/ROW text: ``null``, or its cast to STRING."""
    if value is None:
        return "null"
    return str(cast_with_rule(value, data_type, STRING_TYPE))


def cast_array_to_string(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``ArrayToStringCastRule``: ``[e1, e2]``, elements cast to STRING; never cut or padded."""
    if not isinstance(source, t.ArrayType):
        raise TypeError(f"{source} is not an ARRAY type")
    return "[" + ", ".join(_element_text(e, source.element) for e in value) + "]"


def cast_map_to_string(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``MapToStringCastRule``: ``{k1 -> v1, k2 -> v2}`` in entry order; never cut or padded."""
    if not isinstance(source, t.MapType):
        raise TypeError(f"{source} is not a MAP type")
    entries = (
        f"{_element_text(k, source.key)} -> {_element_text(v, source.value)}"
        for k, v in value.items()
    )
    return "{" + ", ".join(entries) + "}"


def cast_row_to_string(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``RowToStringCastRule``: ``{f1, f2}``, field values cast to STRING; never cut or padded."""
    if not isinstance(source, t.RowType):
        raise TypeError(f"{source} is not a ROW type")
    fields = (_element_text(v, f.type) for v, f in zip(value, source.fields, strict=True))
    return "{" + ", ".join(fields) + "}"


TRUE_WORDS = frozenset({"t", "true", "y", "yes", "1"})
FALSE_WORDS = frozenset({"f", "false", "n", "no", "0"})


def cast_string_to_boolean(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``StringToBooleanCastRule``: ``t true y yes 1`` / ``f false n no 0`` in any case."""
    word = value.lower()
    if word in TRUE_WORDS or word in FALSE_WORDS:
        return word in TRUE_WORDS
    raise _invalid(value, target, "not a boolean word")


def cast_string_to_decimal(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``StringToDecimalCastRule``: ``new BigDecimal(text)``, then HALF_UP, null on overflow."""
    try:
        unscaled, scale = parse_java_big_decimal(value)
    except ValueError as error:
        raise _invalid(value, target, str(error)) from error
    return compute_decimal(unscaled, scale, _decimal_type(target))


def cast_string_to_numeric_primitive(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``StringToNumericPrimitiveCastRule``: :func:`parse_java_integer` or
    :func:`parse_java_floating`."""
    try:
        if target.root in t.INTEGER_ROOTS:
            return parse_java_integer(value, INTEGER_BITS[target.root])
        return parse_java_floating(value, target.root is R.FLOAT)
    except ValueError as error:
        raise _invalid(value, target, str(error)) from error


def cast_string_to_date(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``StringToDateCastRule``: :func:`parse_java_date_value`."""
    try:
        return parse_java_date_value(value)
    except ValueError as error:
        raise _invalid(value, target, str(error)) from error


def cast_string_to_time(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``StringToTimeCastRule``: :func:`parse_java_time_value`."""
    try:
        return parse_java_time_value(value)
    except ValueError as error:
        raise _invalid(value, target, str(error)) from error


def cast_string_to_timestamp(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``StringToTimestampCastRule``: :func:`parse_java_timestamp`."""
    try:
        return parse_java_timestamp(value, target)
    except ValueError as error:
        raise _invalid(value, target, str(error)) from error


def cast_string_to_binary(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``StringToBinaryCastRule``: the UTF-8 bytes, fitted to the target length."""
    return compute_binary_string(value.encode("utf-8"), target)


def cast_string_to_nested(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``StringToArrayCastRule`` / ``StringToMapCastRule`` / ``StringToRowCastRule`` (main only,
    used for default values; ``ALTER TABLE`` never allows them)."""
    raise UnsupportedFeature(f"casting text to {target} is not implemented")


def cast_timestamp_to_timestamp(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``TimestampToTimestampCastRule``: the instant is kept (session zone UTC; TIMESTAMP to LTZ
    goes through the wall clock, :func:`compute_local_date_time`); a lower target precision
    truncates (:func:`compute_truncated_timestamp`)."""
    if source.root is R.TIMESTAMP_WITHOUT_TIME_ZONE and target.root is _LTZ:
        value = compute_timestamp(compute_local_date_time(value))
    if _precision_of(source) <= _precision_of(target):
        return value
    return compute_truncated_timestamp(value, _precision_of(target))


def cast_timestamp_to_date(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``TimestampToDateCastRule``: the day, floored (0.9.0 truncates TIMESTAMP toward zero).
    An LTZ value goes through its date and Java's ``int`` Julian-day arithmetic, which only
    differs past year 5,800,000."""
    days = value.millisecond // MILLIS_PER_DAY
    if source.root is _LTZ:
        return compute_java_unix_date(*compute_civil_from_days(days))
    return _wrap_int(days)


def cast_timestamp_to_time(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``TimestampToTimeCastRule``: the millisecond of the day, floored (0.9.0: remainder)."""
    return value.millisecond % MILLIS_PER_DAY


def cast_date_to_timestamp(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``DateToTimestampCastRule``: midnight of the day. For LTZ Java goes through its Julian-day
    calendar (:func:`compute_julian_to_civil`) and ``LocalDate.of``, which fails for days that
    arithmetic cannot represent."""
    if target.root is R.TIMESTAMP_WITHOUT_TIME_ZONE:
        return Timestamp(value * MILLIS_PER_DAY)
    year, month, day = compute_julian_to_civil(_wrap_int(value + EPOCH_JULIAN))
    if abs(year) > MAX_YEAR or not 1 <= month <= 12 or not 1 <= day <= _month_length(year, month):
        raise _invalid(value, target, "Java's calendar arithmetic yields no valid date")
    return Timestamp(compute_days_from_civil(year, month, day) * MILLIS_PER_DAY)


def cast_time_to_timestamp(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``TimeToTimestampCastRule``: the millisecond of the day on 1970-01-01."""
    return Timestamp(value)


def cast_timestamp_to_numeric(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``TimestampToNumericPrimitiveCastRule``: seconds since the epoch truncated toward zero,
    narrowed to INT by wrapping (an LTZ value goes through its wall clock first)."""
    if source.root is _LTZ:
        value = compute_timestamp(compute_local_date_time(value))
    seconds = java_divide(value.millisecond, MILLIS_PER_SECOND)
    return wrap_integer(seconds, INTEGER_BITS[target.root])


def cast_binary_to_binary(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``BinaryToBinaryCastRule``: BINARY pads/cuts to its length, VARBINARY cuts."""
    return compute_binary_string(value, target)


def cast_binary_to_string(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``BinaryToStringCastRule``: the bytes read as UTF-8; the target length is ignored."""
    return decode_java_utf8(value)


# --------------------------------------------------------------------------------------------
# The rule table (CastExecutors)
# --------------------------------------------------------------------------------------------


def _always(source: t.DataType, target: t.DataType) -> bool:
    return True


@dataclass(frozen=True)
class CastRule:
    """One Java ``*CastRule``: the source and target roots/families it is registered for, and
    what it does. ``target_types`` are exact types (only ``STRING``); ``is_executable`` says
    for which pairs Java actually builds an executor (``create`` does not return null)."""

    java_class: str
    source_roots: frozenset[t.TypeRoot]
    source_families: frozenset[TypeFamily]
    target_roots: frozenset[t.TypeRoot]
    target_families: frozenset[TypeFamily]
    cast: CastFunction
    target_types: tuple[t.DataType, ...] = ()
    is_executable: Callable[[t.DataType, t.DataType], bool] = field(default=_always)


def _rule(
    java_class: str,
    sources: Sequence[t.TypeRoot | TypeFamily],
    targets: Sequence[t.TypeRoot | TypeFamily | t.DataType],
    cast: CastFunction,
    is_executable: Callable[[t.DataType, t.DataType], bool] = _always,
) -> CastRule:
    return CastRule(
        java_class=java_class,
        source_roots=frozenset(s for s in sources if isinstance(s, t.TypeRoot)),
        source_families=frozenset(s for s in sources if isinstance(s, TypeFamily)),
        target_roots=frozenset(x for x in targets if isinstance(x, t.TypeRoot)),
        target_families=frozenset(x for x in targets if isinstance(x, TypeFamily)),
        cast=cast,
        target_types=tuple(x for x in targets if isinstance(x, t.DataType)),
        is_executable=is_executable,
    )


_INTEGER = Fam.INTEGER_NUMERIC
_APPROXIMATE = Fam.APPROXIMATE_NUMERIC
_CHARACTER = Fam.CHARACTER_STRING
_TS = R.TIMESTAMP_WITHOUT_TIME_ZONE
_TIME = R.TIME_WITHOUT_TIME_ZONE

CAST_RULES: tuple[CastRule, ...] = (
    # numbers
    _rule("DecimalToDecimalCastRule", [R.DECIMAL], [R.DECIMAL], cast_decimal_to_decimal),
    _rule(
        "NumericPrimitiveToDecimalCastRule",
        [_INTEGER, _APPROXIMATE],
        [R.DECIMAL],
        cast_numeric_primitive_to_decimal,
    ),
    _rule(
        "DecimalToNumericPrimitiveCastRule",
        [R.DECIMAL],
        [_INTEGER, _APPROXIMATE],
        cast_decimal_to_numeric_primitive,
    ),
    _rule(
        "NumericPrimitiveCastRule",
        [_INTEGER, _APPROXIMATE],
        [_INTEGER, _APPROXIMATE],
        cast_numeric_primitive,
    ),
    _rule(
        "NumericPrimitiveToTimestamp",
        [Fam.NUMERIC],
        [_TS, _LTZ],
        cast_numeric_to_timestamp,
        is_numeric_to_timestamp_executable,
    ),
    # BOOLEAN <-> numbers
    _rule("BooleanToNumericCastRule", [R.BOOLEAN], [Fam.NUMERIC], cast_boolean_to_numeric),
    _rule("NumericToBooleanCastRule", [_INTEGER], [R.BOOLEAN], cast_numeric_to_boolean),
    # to text
    _rule("NumericToStringCastRule", [Fam.NUMERIC], [_CHARACTER], cast_numeric_to_string),
    _rule("BooleanToStringCastRule", [R.BOOLEAN], [_CHARACTER], cast_boolean_to_string),
    _rule("TimestampToStringCastRule", [Fam.TIMESTAMP], [STRING_TYPE], cast_timestamp_to_string),
    _rule("TimeToStringCastRule", [_TIME], [STRING_TYPE], cast_time_to_string),
    _rule("DateToStringCastRule", [R.DATE], [STRING_TYPE], cast_date_to_string),
    _rule("StringToStringCastRule", [_CHARACTER], [_CHARACTER], cast_string_to_string),
    _rule("ArrayToStringCastRule", [R.ARRAY], [_CHARACTER], cast_array_to_string),
    _rule("MapToStringCastRule", [R.MAP], [_CHARACTER], cast_map_to_string),
    _rule("RowToStringCastRule", [R.ROW], [_CHARACTER], cast_row_to_string),
    # from text
    _rule("StringToBooleanCastRule", [_CHARACTER], [R.BOOLEAN], cast_string_to_boolean),
    _rule("StringToDecimalCastRule", [_CHARACTER], [R.DECIMAL], cast_string_to_decimal),
    _rule(
        "StringToNumericPrimitiveCastRule",
        [_CHARACTER],
        [_INTEGER, _APPROXIMATE],
        cast_string_to_numeric_primitive,
    ),
    _rule("StringToDateCastRule", [_CHARACTER], [R.DATE], cast_string_to_date),
    _rule("StringToTimeCastRule", [_CHARACTER], [_TIME], cast_string_to_time),
    _rule("StringToTimestampCastRule", [_CHARACTER], [Fam.TIMESTAMP], cast_string_to_timestamp),
    _rule("StringToBinaryCastRule", [_CHARACTER], [Fam.BINARY_STRING], cast_string_to_binary),
    _rule("StringToArrayCastRule", [_CHARACTER], [R.ARRAY], cast_string_to_nested),
    _rule("StringToMapCastRule", [_CHARACTER], [R.MAP], cast_string_to_nested),
    _rule("StringToRowCastRule", [_CHARACTER], [R.ROW], cast_string_to_nested),
    # dates, times, timestamps
    _rule("TimestampToTimestampCastRule", [_TS, _LTZ], [_TS, _LTZ], cast_timestamp_to_timestamp),
    _rule("TimestampToDateCastRule", [_TS, _LTZ], [R.DATE], cast_timestamp_to_date),
    _rule("TimestampToTimeCastRule", [_TS, _LTZ], [_TIME], cast_timestamp_to_time),
    _rule("DateToTimestampCastRule", [R.DATE], [_TS, _LTZ], cast_date_to_timestamp),
    _rule("TimeToTimestampCastRule", [_TIME], [_TS, _LTZ], cast_time_to_timestamp),
    _rule(
        "TimestampToNumericPrimitiveCastRule",
        [_TS, _LTZ],
        [R.BIGINT, R.INTEGER],
        cast_timestamp_to_numeric,
    ),
    # binary
    _rule(
        "BinaryToBinaryCastRule", [Fam.BINARY_STRING], [Fam.BINARY_STRING], cast_binary_to_binary
    ),
    _rule("BinaryToStringCastRule", [Fam.BINARY_STRING], [_CHARACTER], cast_binary_to_string),
)
"""Java ``CastExecutors``' rules of main, in registration order: (source roots/families,
target roots/families) -> function. 0.9.0 lacks the ARRAY/MAP/ROW <-> text rules."""

_TargetKey = t.TypeRoot | TypeFamily | t.DataType
_SourceKey = t.TypeRoot | TypeFamily


def _build_registry() -> dict[_TargetKey, dict[_SourceKey, CastRule]]:
    """Java ``CastExecutors.addRule``: target key -> source key -> rule (a later rule replaces an
    earlier one registered under the same keys)."""
    registry: dict[_TargetKey, dict[_SourceKey, CastRule]] = {}
    for rule in CAST_RULES:
        targets: list[_TargetKey] = [*rule.target_types, *rule.target_roots, *rule.target_families]
        for target_key in targets:
            by_source = registry.setdefault(target_key, {})
            sources: list[_SourceKey] = [*rule.source_roots, *rule.source_families]
            for source_key in sources:
                by_source[source_key] = rule
    return registry


_REGISTRY = _build_registry()


def _families_in_order(root: t.TypeRoot) -> list[TypeFamily]:
    return [family for family in TypeFamily if family in TYPE_FAMILIES[root]]


def resolve_cast_rule(source: t.DataType, target: t.DataType) -> CastRule | None:
    """Java ``CastExecutors.internalResolve``: look the target up as an exact type, then by root,
    then by its families in declaration order; within each, the source by root, then families.
    The first rule found wins."""
    target_keys: list[_TargetKey] = [target, target.root, *_families_in_order(target.root)]
    source_keys: list[_SourceKey] = [source.root, *_families_in_order(source.root)]
    for target_key in target_keys:
        by_source = _REGISTRY.get(target_key, {})
        for source_key in source_keys:
            if source_key in by_source:
                return by_source[source_key]
    return None


def has_cast_rule(source: t.DataType, target: t.DataType) -> bool:
    """Java ``CastExecutors.resolve(source, target) != null``: a rule exists and builds an
    executor for the pair."""
    rule = resolve_cast_rule(source, target)
    return rule is not None and rule.is_executable(source, target)


def is_castable(source: t.DataType, target: t.DataType, allow_explicit: bool) -> bool:
    """Whether ``ALTER COLUMN ... TYPE`` may change ``source`` into ``target`` (Java
    ``SchemaManager``: ``supportsCast`` and an executor)."""
    return is_supported_cast(source, target, allow_explicit) and has_cast_rule(source, target)


def cast_with_rule(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """``CastExecutors.resolve(source, target).cast(value)``: the rule alone, no identity
    shortcut and no nested mapping. ``None`` stays ``None``. Raise :class:`SpecViolation`
    (``CAST_NOT_SUPPORTED``) when Java has no executor for the pair, and (``CAST_INVALID_VALUE``)
    when the executor throws for this value."""
    if value is None:
        return None
    rule = resolve_cast_rule(source, target)
    if rule is None or not rule.is_executable(source, target):
        raise SpecViolation(f"Java has no cast from {source} to {target}", code=CAST_NOT_SUPPORTED)
    return rule.cast(value, source, target)


# --------------------------------------------------------------------------------------------
# Schema evolution on read (SchemaEvolutionUtil)
# --------------------------------------------------------------------------------------------


def compute_index_mapping(
    target_fields: Sequence[t.DataField], source_fields: Sequence[t.DataField]
) -> tuple[int | None, ...]:
    """Java ``SchemaEvolutionUtil.createIndexMapping``: for each target field, the position of
    the source field with the same id, or ``None`` when the data has no such field (it reads as
    null)."""
    position_by_id = {f.id: i for i, f in enumerate(source_fields)}
    return tuple(position_by_id.get(f.id) for f in target_fields)


def cast_row_by_field_id(
    row: Sequence[Value], source: t.RowType, target: t.RowType
) -> tuple[Value, ...]:
    """A row written with ``source`` fields read as ``target`` fields: fields are matched by id
    (renames and reorders are free), missing ones are null, and each value is converted with
    :func:`cast_value`. Java: ``createIndexCastMapping`` / ``ProjectedRow`` / ``CastedRow``."""
    mapping = compute_index_mapping(target.fields, source.fields)
    return tuple(
        None
        if index is None
        else cast_value(row[index], source.fields[index].type, target_field.type)
        for index, target_field in zip(mapping, target.fields, strict=True)
    )


def cast_value(value: Value, source: t.DataType, target: t.DataType) -> Value:
    """A value of a column written as ``source`` read as ``target`` (Java
    ``SchemaEvolutionUtil.createCastExecutor``, main): equal types (nullability aside) keep the
    value; ROW -> ROW maps fields by id; ARRAY -> ARRAY casts each element; MAP -> MAP casts
    each value (the key types must be equal); every other pair uses its rule
    (:func:`cast_with_rule`). ``None`` stays ``None``.

    0.9.0 could not read a column whose nested type changed."""
    if value is None:
        return None
    if source.copy(True) == target.copy(True):
        return value
    if isinstance(source, t.RowType) and isinstance(target, t.RowType):
        return cast_row_by_field_id(value, source, target)
    if isinstance(source, t.ArrayType) and isinstance(target, t.ArrayType):
        return [cast_value(e, source.element, target.element) for e in value]
    if isinstance(source, t.MapType) and isinstance(target, t.MapType):
        if source.key != target.key:
            raise SpecViolation(
                f"cannot read MAP keys of {source.key} as {target.key}", code=CAST_NOT_SUPPORTED
            )
        return build_map((k, cast_value(v, source.value, target.value)) for k, v in value.items())
    return cast_with_rule(value, source, target)
