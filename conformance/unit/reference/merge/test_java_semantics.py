"""Java value semantics the aggregates rely on: arithmetic and strings.

Oracles: Paimon 0.9.0 run on the same values (the ``HashSet`` order and decimal results below),
and Java's documented ``hashCode`` / ``BigDecimal`` / ``Character`` rules worked by hand.
"""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from reference.merge import java_semantics as j
from reference.spec import types as t


def test_decimal_arithmetic() -> None:
    # Paimon 0.9.0: DECIMAL(2, 0) 99 + 99 = 198; DECIMAL(10, 2) 1.25 * 3.33 = 4.16 and
    # 1.25 / 8.00 = 0.16.
    assert j.compute_decimal_sum(Decimal(99), Decimal(99), t.DecimalType(2, 0)) == 198
    assert j.compute_decimal_sum(Decimal(99), Decimal(99), t.DecimalType(19, 0)) == 198
    assert j.compute_decimal_sum(Decimal(99), Decimal(1), t.DecimalType(19, 17)) is None
    dt = t.DecimalType(10, 2)
    assert j.compute_decimal_product(Decimal("1.25"), Decimal("3.33"), dt) == Decimal("4.16")
    assert j.compute_decimal_quotient(Decimal("1.25"), Decimal("8.00"), dt) == Decimal("0.16")
    assert j.compute_decimal_product(Decimal("-0.05"), Decimal("0.10"), dt) == Decimal("-0.01")
    for divisor in (Decimal("3.00"), Decimal("0.00")):
        with pytest.raises(ArithmeticError):
            j.compute_decimal_quotient(Decimal("1.00"), divisor, dt)


def test_round_half_up() -> None:
    assert [j.compute_round_half_up(n, 10) for n in (15, 14, -15, -14)] == [2, 1, -2, -1]


def test_integer_and_float_division() -> None:
    assert j.compute_java_int_division(-7, 2) == -3
    assert j.compute_java_int_division(7, -2) == -3
    with pytest.raises(ArithmeticError):
        j.compute_java_int_division(1, 0)
    assert j.compute_ieee_division(-1.0, 0.0) == -math.inf
    assert j.compute_ieee_division(1.0, -0.0) == -math.inf
    assert math.isnan(j.compute_ieee_division(0.0, 0.0))
    assert j.is_integer_in_range(127, t.TinyIntType())
    assert not j.is_integer_in_range(128, t.TinyIntType())


def test_strings() -> None:
    # String.compareTo works on UTF-16 units: U+FFFF sorts after U+10000 (a surrogate pair).
    assert j.compare_java_strings("\uffff", "\U00010000") == 1
    assert j.compare_java_strings("a", "b") == -1
    assert j.is_java_blank(None)
    assert j.is_java_blank(" \t\n\u2003")
    assert not j.is_java_blank("\u00a0")  # a non-breaking space is not whitespace in Java
    assert not j.is_java_blank(" x ")


def test_float32_rounding() -> None:
    assert j.round_to_float32(0.1) == 0.10000000149011612
    assert j.round_to_float32(3.5e38) == math.inf
    assert j.round_to_float32(-3.5e38) == -math.inf
    assert math.isnan(j.round_to_float32(math.nan))
