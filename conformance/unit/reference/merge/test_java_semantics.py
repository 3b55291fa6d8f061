"""Java value semantics the aggregates rely on: hash codes, collection order, arithmetic.

Oracles: Paimon 0.9.0 run on the same values (the ``HashSet`` order and decimal results below),
and Java's documented ``hashCode`` / ``BigDecimal`` / ``Character`` rules worked by hand.
"""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from reference.merge import java_semantics as j
from reference.spec import types as t
from reference.spec.data import Timestamp


def test_hash_codes() -> None:
    # Hand-worked: Long.hashCode(2^32 + 1) = 1 ^ 1 = 0; BigInteger 2^32 has words [1, 0] ->
    # 31 * 1 + 0 = 31; BigDecimal(-1.5) = 31 * -15 + 1; Timestamp(1, 2) = 31 * 1 + 2.
    assert j.compute_java_hash(2**32 + 1, t.BigIntType()) == 0
    assert j.compute_big_integer_hash(2**32) == 31
    assert j.compute_big_integer_hash(-(2**32)) == -31
    assert j.compute_java_hash(Decimal("-1.5"), t.DecimalType(3, 1)) == 31 * -15 + 1
    assert j.compute_java_hash(Timestamp(1, 2), t.TimestampType(9)) == 33
    assert j.compute_java_hash(True, t.BooleanType()) == 1231
    assert j.compute_java_hash(None, t.IntType()) == 0
    assert j.compute_java_hash([1], t.ArrayType(t.IntType())) is None


def test_hash_set_order_matches_java() -> None:
    # Paimon 0.9.0 collect(distinct) over these INTs iterated 16 17 65536 3 100 -5.
    values = [100, 3, 17, 3, -5, 65536, 16]
    assert j.compute_java_hash_set(values, t.IntType()) == [16, 17, 65536, 3, 100, -5]


def test_hash_set_keeps_first_of_equal_values_and_unmodelled_order() -> None:
    floats = j.compute_java_hash_set([0.0, -0.0, math.nan, math.nan], t.DoubleType())
    assert len(floats) == 3  # 0.0 and -0.0 differ, NaN equals NaN
    rows = t.RowType((t.DataField(0, "a", t.IntType()),))
    assert j.compute_java_hash_set([(2,), (1,), (2,)], rows) == [(2,), (1,)]


def test_hash_map_replaces_values_in_place() -> None:
    # Hand-worked: in a 16-bucket table 17 and 1 both land in bucket 1, 17 first; putting 17
    # again replaces its value without moving it.
    result = j.compute_java_hash_map([(17, "a"), (1, "b"), (17, "c")], t.IntType())
    assert list(result.items()) == [(17, "c"), (1, "b")]


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
