"""reference.spec.java_hashing: Java hash codes of values and hash-collection order.

Oracles: Paimon 0.9.0 run on the same values (the ``HashSet`` order below), and Java's
documented ``hashCode`` rules worked by hand.
"""

from __future__ import annotations

import math
from decimal import Decimal

from reference.spec import java_hashing as h
from reference.spec import types as t
from reference.spec.data import Timestamp


def test_hash_codes() -> None:
    # Hand-worked: Long.hashCode(2^32 + 1) = 1 ^ 1 = 0; BigInteger 2^32 has words [1, 0] ->
    # 31 * 1 + 0 = 31; BigDecimal(-1.5) = 31 * -15 + 1; Timestamp(1, 2) = 31 * 1 + 2.
    assert h.compute_java_hash(2**32 + 1, t.BigIntType()) == 0
    assert h.compute_big_integer_hash(2**32) == 31
    assert h.compute_big_integer_hash(-(2**32)) == -31
    assert h.compute_java_hash(Decimal("-1.5"), t.DecimalType(3, 1)) == 31 * -15 + 1
    assert h.compute_java_hash(Timestamp(1, 2), t.TimestampType(9)) == 33
    assert h.compute_java_hash(True, t.BooleanType()) == 1231
    assert h.compute_java_hash(None, t.IntType()) == 0
    assert h.compute_java_hash([1], t.ArrayType(t.IntType())) is None


def test_hash_set_order_matches_java() -> None:
    # Paimon 0.9.0 collect(distinct) over these INTs iterated 16 17 65536 3 100 -5.
    values = [100, 3, 17, 3, -5, 65536, 16]
    assert h.compute_java_hash_set(values, t.IntType()) == [16, 17, 65536, 3, 100, -5]


def test_hash_set_keeps_first_of_equal_values_and_unmodelled_order() -> None:
    floats = h.compute_java_hash_set([0.0, -0.0, math.nan, math.nan], t.DoubleType())
    assert len(floats) == 3  # 0.0 and -0.0 differ, NaN equals NaN
    rows = t.RowType((t.DataField(0, "a", t.IntType()),))
    assert h.compute_java_hash_set([(2,), (1,), (2,)], rows) == [(2,), (1,)]


def test_hash_map_replaces_values_in_place() -> None:
    # Hand-worked: in a 16-bucket table 17 and 1 both land in bucket 1, 17 first; putting 17
    # again replaces its value without moving it.
    result = h.compute_java_hash_map([(17, "a"), (1, "b"), (17, "c")], t.IntType())
    assert list(result.items()) == [(17, "c"), (1, "b")]
