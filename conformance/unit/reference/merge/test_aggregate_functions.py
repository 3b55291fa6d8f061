"""Field aggregate functions, one by one.

Oracles: Paimon 0.9.0's aggregators run on the same inputs (the ``JAVA_*`` constants: sketch and
bitmap bytes, ``HashSet``/``HashMap`` element orders, decimal results), the documented rules
(seeds 000/002, docs aggregation page) and Java main's rules worked by hand where main differs
from 0.9.0 (overflow errors, blank listagg inputs, nested_update options).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest

from reference.errors import (
    InvalidOptionError,
    SpecViolation,
)
from reference.merge import aggregate_functions as af
from reference.merge.aggregate_functions import AggState
from reference.spec import types as t
from reference.spec.aggregate_kind import AggregateKind as K
from reference.spec.data import Timestamp

STRING = t.VarCharType(t.MAX_LENGTH)
BYTES = t.VarBinaryType(t.MAX_LENGTH)


def agg(kind: K, data_type: t.DataType, **settings: Any) -> af.FieldAggregator:
    return af.FieldAggregator(kind, "f", data_type, **settings)


def fold(aggregator: af.FieldAggregator, *inputs: Any) -> Any:
    state = AggState()
    for value in inputs:
        state = af.apply_agg(aggregator, state, value)
    return state.value


# --------------------------------------------------------------------------------------------
# sum and product
# --------------------------------------------------------------------------------------------


def test_sum_skips_nulls() -> None:
    assert fold(agg(K.SUM, t.IntType()), None, 1, None, 2) == 3
    assert fold(agg(K.SUM, t.IntType()), None, None) is None


def test_sum_overflow_is_an_error() -> None:
    # main: Math.addExact and range checks for TINYINT/SMALLINT (0.9.0 wraps around).
    with pytest.raises(SpecViolation) as error:
        fold(agg(K.SUM, t.TinyIntType()), 100, 28)
    assert error.value.code == af.OVERFLOW_ERROR
    assert fold(agg(K.SUM, t.TinyIntType()), 100, 27) == 127
    with pytest.raises(SpecViolation):
        fold(agg(K.SUM, t.BigIntType()), 2**63 - 1, 1)


def test_sum_of_floats_rounds_to_float32() -> None:
    assert fold(agg(K.SUM, t.FloatType()), 0.10000000149011612, 0.20000000298023224) == (
        0.30000001192092896
    )
    assert fold(agg(K.SUM, t.DoubleType()), 0.1, 0.2) == 0.1 + 0.2


def test_sum_of_decimals_like_java() -> None:
    # Java 0.9.0: DECIMAL(2, 0) 99 + 99 = 198 (a compact decimal keeps a sum that fits a long);
    # DECIMAL(20, 0) 99999999999999999999 + 1 = null (too many digits).
    assert fold(agg(K.SUM, t.DecimalType(2, 0)), Decimal(99), Decimal(99)) == Decimal(198)
    big = Decimal("99999999999999999999")
    assert fold(agg(K.SUM, t.DecimalType(20, 0)), big, Decimal(1)) is None
    assert fold(agg(K.SUM, t.DecimalType(5, 2)), Decimal("1.25"), Decimal("-3.50")) == Decimal(
        "-2.25"
    )


def test_sum_retraction() -> None:
    aggregator = agg(K.SUM, t.IntType())
    assert af.apply_retract(aggregator, AggState(10), 3).value == 7
    assert af.apply_retract(aggregator, AggState(None), 3).value == -3  # negated input
    assert af.apply_retract(aggregator, AggState(10), None).value == 10
    with pytest.raises(SpecViolation):  # -(-128) does not fit TINYINT
        af.apply_retract(agg(K.SUM, t.TinyIntType()), AggState(None), -128)
    dec = agg(K.SUM, t.DecimalType(4, 1))
    assert af.apply_retract(dec, AggState(None), Decimal("1.5")).value == Decimal("-1.5")


def test_product() -> None:
    assert fold(agg(K.PRODUCT, t.IntType()), 3, None, -4) == -12
    with pytest.raises(SpecViolation):
        fold(agg(K.PRODUCT, t.SmallIntType()), 300, 300)


def test_product_of_decimals_rounds_half_up() -> None:
    # Java 0.9.0: DECIMAL(10, 2) 1.25 * 3.33 = 4.1625 -> 4.16; retracting 8.00 from 1.25 gives
    # 0.15625 -> 0.16.
    aggregator = agg(K.PRODUCT, t.DecimalType(10, 2))
    assert fold(aggregator, Decimal("1.25"), Decimal("3.33")) == Decimal("4.16")
    retracted = af.apply_retract(aggregator, AggState(Decimal("1.25")), Decimal("8.00"))
    assert retracted.value == Decimal("0.16")
    assert fold(agg(K.PRODUCT, t.DecimalType(3, 1)), Decimal("99.9"), Decimal("99.9")) is None


def test_product_retraction_divides() -> None:
    ints = agg(K.PRODUCT, t.IntType())
    assert af.apply_retract(ints, AggState(-7), 2).value == -3  # Java truncates toward zero
    assert af.apply_retract(ints, AggState(None), 2).value is None  # main keeps the null
    with pytest.raises(SpecViolation) as error:
        af.apply_retract(ints, AggState(7), 0)
    assert error.value.code == af.ARITHMETIC_ERROR
    doubles = agg(K.PRODUCT, t.DoubleType())
    assert af.apply_retract(doubles, AggState(1.0), 0.0).value == math.inf
    assert math.isnan(af.apply_retract(doubles, AggState(0.0), 0.0).value)
    with pytest.raises(SpecViolation):  # 1 / 3 has no exact decimal expansion
        af.apply_retract(
            agg(K.PRODUCT, t.DecimalType(5, 2)), AggState(Decimal("1.00")), Decimal("3.00")
        )


# --------------------------------------------------------------------------------------------
# Comparing, first and last
# --------------------------------------------------------------------------------------------


def test_max_and_min() -> None:
    assert fold(agg(K.MAX, t.DoubleType()), 23.0, None, 30.2, 1.0) == 30.2
    assert fold(agg(K.MIN, STRING), "b", "ab", None) == "ab"
    assert fold(agg(K.MAX, t.TimestampType(9)), Timestamp(1, 5), Timestamp(1, 7)) == Timestamp(1, 7)
    # a tie keeps the accumulator for max and takes the input for min (bit-visible for -0.0).
    assert math.copysign(1, fold(agg(K.MIN, t.DoubleType()), 0.0, 0.0)) == 1
    assert math.copysign(1, fold(agg(K.MIN, t.DoubleType()), 0.0, -0.0)) == -1


def test_last_values() -> None:
    assert fold(agg(K.LAST_VALUE, t.IntType()), 1, None) is None
    assert fold(agg(K.LAST_NON_NULL_VALUE, t.IntType()), 1, None) == 1
    lnn = agg(K.LAST_NON_NULL_VALUE, t.IntType())
    assert af.apply_retract(lnn, AggState(5), 3).value is None
    assert af.apply_retract(lnn, AggState(5), None).value == 5
    assert af.apply_retract(agg(K.LAST_VALUE, t.IntType()), AggState(5), None).value is None


def test_first_values() -> None:
    assert fold(agg(K.FIRST_VALUE, t.IntType()), None, 1, 2) is None
    assert fold(agg(K.FIRST_NON_NULL_VALUE, t.IntType()), None, 1, 2) == 1


def test_first_value_reversed_like_java() -> None:
    # Java 0.9.0 (same in main): aggReversed(null, 5) = null, aggReversed(null, 3) = 3,
    # agg(3, 9) = 3 on one aggregator.
    aggregator = agg(K.FIRST_VALUE, t.IntType())
    x = af.apply_agg_reversed(aggregator, AggState(), 5)
    y = af.apply_agg_reversed(aggregator, x, 3)
    z = af.apply_agg(aggregator, y, 9)
    assert (x.value, y.value, z.value) == (None, 3, 3)
    non_null = agg(K.FIRST_NON_NULL_VALUE, t.IntType())
    state = af.apply_agg_reversed(non_null, AggState(7), 4)  # the stored 7 is taken first
    assert state == AggState(7, True)
    assert af.apply_agg_reversed(non_null, state, 2) == AggState(2, True)


# --------------------------------------------------------------------------------------------
# Strings and booleans
# --------------------------------------------------------------------------------------------


def test_listagg() -> None:
    # Java 0.9.0: listagg("a", "b") = "a,b" with the default delimiter.
    assert fold(agg(K.LISTAGG, STRING), "a", None, "b") == "a,b"
    assert fold(agg(K.LISTAGG, STRING, delimiter="|"), "a", "b") == "a|b"
    # main: blank inputs are skipped and a blank accumulator is replaced.
    assert fold(agg(K.LISTAGG, STRING), " ", "a", "", "\t", "b") == "a,b"


def test_listagg_distinct() -> None:
    aggregator = agg(K.LISTAGG, STRING, distinct=True)
    assert fold(aggregator, "a,b", "b,c,,a, ", "d") == "a,b,c,d"
    assert fold(aggregator, "a", "a") == "a"
    assert af.compute_listagg_tokens("a,", ",") == ["a", ""]
    assert af.compute_listagg_tokens("", ",") == []
    assert af.compute_listagg_tokens("a b", "") == ["a", "b"]


def test_booleans() -> None:
    assert fold(agg(K.BOOL_AND, t.BooleanType()), True, None, False) is False
    assert fold(agg(K.BOOL_OR, t.BooleanType()), False, None, True) is True
    assert fold(agg(K.BOOL_OR, t.BooleanType()), None) is None


# --------------------------------------------------------------------------------------------
# collect and merge_map (Java element orders)
# --------------------------------------------------------------------------------------------


def test_collect_without_distinct_appends() -> None:
    aggregator = agg(K.COLLECT, t.ArrayType(t.IntType()))
    assert fold(aggregator, [1, 2], None, [2, 1]) == [1, 2, 2, 1]


@pytest.mark.parametrize(
    ("element", "first", "second", "java"),
    [
        # Each expected list is what Paimon 0.9.0's collect (distinct) returned.
        (t.IntType(), [100, 3, 17, 3, -5, 65536, 16], None, [16, 17, 65536, 3, 100, -5]),
        (
            t.IntType(),
            [16, 17, 65536, 3, 100, -5],
            [33, 1, 100, 49],
            [16, 17, 65536, 33, 1, 49, 3, 100, -5],
        ),
        (
            STRING,
            ["apple", "cherry", "banana"],
            ["date", "elderberry", "fig"],
            ["apple", "date", "elderberry", "cherry", "fig", "banana"],
        ),
        (t.BigIntType(), [5000000000, -1, 7], [1 << 40, 7, 3], [-1, 1 << 40, 3, 5000000000, 7]),
        (
            t.DoubleType(),
            [1.5, -0.0, 0.0, 2.25],
            [1e10, 1.5, 3.0],
            [-0.0, 0.0, 2.25, 1.5, 3.0, 1e10],
        ),
        (
            t.DecimalType(10, 2),
            [Decimal("123.45"), Decimal("-0.01")],
            [Decimal("999.99"), Decimal("123.45"), Decimal("0.00")],
            [Decimal("0.00"), Decimal("123.45"), Decimal("-0.01"), Decimal("999.99")],
        ),
        (
            t.TimestampType(6),
            [Timestamp(1700000000000, 5000), Timestamp(0)],
            [Timestamp(-1), Timestamp(1700000000000, 5000), Timestamp(123456789012)],
            [Timestamp(0), Timestamp(-1), Timestamp(123456789012), Timestamp(1700000000000, 5000)],
        ),
    ],
)
def test_collect_distinct_follows_java_hash_set_order(
    element: t.DataType, first: list[Any], second: list[Any] | None, java: list[Any]
) -> None:
    aggregator = agg(K.COLLECT, t.ArrayType(element), distinct=True)
    result = (
        af.agg_collect(aggregator, first, second)
        if second
        else af.agg_collect(aggregator, None, first)
    )
    assert result == java
    assert [math.copysign(1, v) if isinstance(v, float) else 1 for v in result] == [
        math.copysign(1, v) if isinstance(v, float) else 1 for v in java
    ]


def test_collect_distinct_rows_keep_first_seen_order() -> None:
    element = t.RowType((t.DataField(0, "a", t.IntType()),))
    aggregator = agg(K.COLLECT, t.ArrayType(element), distinct=True)
    assert af.agg_collect(aggregator, [(2,), (1,)], [(1,), (3,), (2,), (3,)]) == [(2,), (1,), (3,)]
    binary = agg(K.COLLECT, t.ArrayType(BYTES), distinct=True)
    assert af.agg_collect(binary, [b"b"], [b"a", b"b"]) == [b"b", b"a"]


def test_collect_retraction_cancels_one_occurrence_each() -> None:
    aggregator = agg(K.COLLECT, t.ArrayType(t.IntType()))
    assert af.apply_retract(aggregator, AggState([1, 2, 1, 3]), [1, 3, 4]).value == [2, 1]
    assert af.apply_retract(aggregator, AggState(None), [1]).value is None
    assert af.apply_retract(aggregator, AggState([1]), []).value == [1]


def test_merge_map_follows_java_hash_map_order() -> None:
    # Java 0.9.0: {zeta: 1, alpha: 2, mid: 3} merged with {beta: 4, alpha: 5} iterates
    # zeta=1 alpha=5 mid=3 beta=4.
    aggregator = agg(K.MERGE_MAP, t.MapType(STRING, t.IntType()))
    result = af.agg_merge_map(
        aggregator, {"zeta": 1, "alpha": 2, "mid": 3}, {"beta": 4, "alpha": 5}
    )
    assert list(result.items()) == [("zeta", 1), ("alpha", 5), ("mid", 3), ("beta", 4)]


def test_merge_map_retraction_removes_keys() -> None:
    aggregator = agg(K.MERGE_MAP, t.MapType(t.IntType(), STRING))
    assert af.apply_retract(aggregator, AggState({1: "A", 2: "B"}), {2: "X"}).value == {1: "A"}
    assert af.apply_retract(aggregator, AggState(None), {2: "X"}).value is None


def test_merge_map_with_keytime() -> None:
    value = t.RowType((t.DataField(0, "v", STRING), t.DataField(1, "ts", STRING)))
    aggregator = agg(K.MERGE_MAP_WITH_KEYTIME, t.MapType(t.IntType(), value), timestamp_field=1)
    acc = {1: ("a", "2024-01-02"), 2: ("b", "2024-01-01"), 3: ("c", None)}
    new = {
        1: ("x", "2024-01-01"),
        2: ("y", "2024-01-03"),
        3: ("z", "2020"),
        4: None,
        5: ("n", None),
    }
    assert af.agg_merge_map_with_keytime(aggregator, acc, new) == {
        1: ("a", "2024-01-02"),
        2: ("y", "2024-01-03"),
        3: ("z", "2020"),
    }


# --------------------------------------------------------------------------------------------
# nested_update and nested_partial_update
# --------------------------------------------------------------------------------------------

NESTED = t.RowType(
    (
        t.DataField(0, "id", t.BigIntType()),
        t.DataField(1, "name", STRING),
        t.DataField(2, "price", t.BigIntType()),
    )
)


def nested(**settings: Any) -> af.FieldAggregator:
    return agg(K.NESTED_UPDATE, t.ArrayType(NESTED), **settings)


def test_nested_update_by_key_follows_java_order() -> None:
    # Java 0.9.0 with nested-key id returned 30/c/30 100/z/1 2/B/21 17/q/5 1/a/10.
    acc = [(1, "a", 10), (2, "b", 20), (30, "c", 30)]
    new = [(2, "B", 21), (17, "q", 5), (100, "z", 1)]
    assert af.agg_nested_update(nested(nested_key=(0,)), acc, new) == [
        (30, "c", 30),
        (100, "z", 1),
        (2, "B", 21),
        (17, "q", 5),
        (1, "a", 10),
    ]


def test_nested_update_without_key_appends_up_to_the_limit() -> None:
    assert af.agg_nested_update(nested(), [(1, "a", 1)], [(1, "a", 1), None]) == [
        (1, "a", 1),
        (1, "a", 1),
    ]
    limited = nested(count_limit=2)
    assert af.agg_nested_update(limited, None, [(1, "a", 1), (2, "b", 2), (3, "c", 3)]) == [
        (1, "a", 1),
        (2, "b", 2),
    ]
    assert af.agg_nested_update(limited, [(1, "a", 1), (2, "b", 2)], [(3, "c", 3)]) == [
        (1, "a", 1),
        (2, "b", 2),
    ]


def test_nested_update_sequence_and_null_keys() -> None:
    by_price = nested(nested_key=(0,), nested_sequence=(2,))
    assert af.agg_nested_update(by_price, [(1, "new", 5)], [(1, "old", 4)]) == [(1, "new", 5)]
    assert af.agg_nested_update(by_price, [(1, "old", 4)], [(1, "new", 5)]) == [(1, "new", 5)]
    ignore = nested(nested_key=(0,), nested_key_null_strategy=af.NestedKeyNullStrategy.IGNORE)
    assert af.agg_nested_update(ignore, None, [(None, "x", 1)]) == []
    error = nested(nested_key=(0,), nested_key_null_strategy=af.NestedKeyNullStrategy.ERROR)
    with pytest.raises(SpecViolation) as raised:
        af.agg_nested_update(error, None, [(None, "x", 1)])
    assert raised.value.code == af.NESTED_KEY_NULL_ERROR


def test_nested_update_retraction() -> None:
    keyed = nested(nested_key=(0,))
    acc = [(1, "a", 10), (2, "b", 20)]
    assert af.apply_retract(keyed, AggState(acc), [(1, "zzz", 0)]).value == [(2, "b", 20)]
    plain = nested()
    assert af.apply_retract(plain, AggState([*acc, (1, "a", 10)]), [(1, "a", 10)]).value == [
        (2, "b", 20),
    ]


def test_nested_partial_update_merges_rows_of_a_key() -> None:
    aggregator = agg(K.NESTED_PARTIAL_UPDATE, t.ArrayType(NESTED), nested_key=(0,))
    result = af.agg_nested_partial_update(
        aggregator, [(1, "a", None)], [(1, None, 10), (2, "b", 1)]
    )
    assert sorted(result) == [(1, "a", 10), (2, "b", 1)]


# --------------------------------------------------------------------------------------------
# Retraction support and options
# --------------------------------------------------------------------------------------------

RETRACTING = {
    K.SUM,
    K.PRODUCT,
    K.COLLECT,
    K.MERGE_MAP,
    K.NESTED_UPDATE,
    K.LAST_VALUE,
    K.LAST_NON_NULL_VALUE,
    K.PRIMARY_KEY,
}


def test_documented_retracting_functions() -> None:
    # Seed 002: "only sum, product, count, collect, merge_map, nested_update, last_value and
    # last_non_null_value support retraction" (count no longer exists).
    assert set(af.RETRACT_RULES) == RETRACTING


def test_non_retracting_function_raises_unless_ignored() -> None:
    with pytest.raises(SpecViolation) as error:
        af.apply_retract(agg(K.MAX, t.IntType()), AggState(1), 1)
    assert error.value.code == af.RETRACT_UNSUPPORTED_ERROR
    ignoring = agg(K.MAX, t.IntType(), ignore_retract=True)
    assert af.apply_retract(ignoring, AggState(1), 5) == AggState(1)


def field(name: str, data_type: t.DataType) -> t.DataField:
    return t.DataField(0, name, data_type)


@pytest.mark.parametrize(
    ("function", "data_type"),
    [
        ("sum", STRING),
        ("product", t.BooleanType()),
        ("max", t.ArrayType(t.IntType())),
        ("min", t.MapType(t.IntType(), t.IntType())),
        ("listagg", t.VarCharType(10)),
        ("listagg", t.CharType(3)),
        ("bool_and", t.IntType()),
        ("collect", t.IntType()),
        ("merge_map", t.ArrayType(t.IntType())),
        ("nested_update", t.ArrayType(t.IntType())),
        ("rbm32", t.BinaryType(4)),
        ("theta_sketch", STRING),
        ("count", t.IntType()),
        ("first_not_null", t.IntType()),
    ],
)
def test_unsupported_types_and_names_are_option_errors(
    function: str, data_type: t.DataType
) -> None:
    with pytest.raises(InvalidOptionError) as error:
        af.compute_field_aggregator(
            function, "fields.f.aggregate-function", field("f", data_type), {}
        )
    assert error.value.option == "fields.f.aggregate-function"


def test_legacy_name_and_settings() -> None:
    legacy = af.compute_field_aggregator("first_not_null_value", "o", field("f", t.IntType()), {})
    assert legacy.kind is K.FIRST_NON_NULL_VALUE
    options = {
        "fields.f.list-agg-delimiter": ";",
        "fields.f.distinct": "True",
        "fields.f.ignore-retract": "FALSE",
    }
    listagg = af.compute_field_aggregator("listagg", "o", field("f", STRING), options)
    assert (listagg.delimiter, listagg.distinct, listagg.ignore_retract) == (";", True, False)


def test_nested_settings() -> None:
    options = {
        "fields.f.nested-key": "id, name",
        "fields.f.nested-sequence-field": "price",
        "fields.f.nested-key-null-strategy": "IGNORE",
        "fields.f.count-limit": "10",
    }
    result = af.compute_field_aggregator(
        "nested_update", "o", field("f", t.ArrayType(NESTED)), options
    )
    assert (result.nested_key, result.nested_sequence, result.count_limit) == ((0, 1), (2,), 10)
    assert result.nested_key_null_strategy is af.NestedKeyNullStrategy.IGNORE
    for bad in (
        {"fields.f.nested-key": "nope"},
        {"fields.f.nested-sequence-field": "price"},
        {"fields.f.nested-key-null-strategy": "merge"},
        {"fields.f.nested-key": "id", "fields.f.count-limit": "many"},
    ):
        with pytest.raises(InvalidOptionError):
            af.compute_field_aggregator("nested_update", "o", field("f", t.ArrayType(NESTED)), bad)
    with pytest.raises(InvalidOptionError):
        af.compute_field_aggregator(
            "nested_partial_update", "o", field("f", t.ArrayType(NESTED)), {}
        )


@pytest.mark.parametrize("kind", [K.RBM32, K.RBM64, K.THETA_SKETCH, K.HLL_SKETCH])
def test_bitmaps_and_sketches_keep_the_non_null_side(kind: K) -> None:
    # The unions themselves are tested against Java's bytes in test_sketches.
    aggregator = agg(kind, t.VarBinaryType(t.MAX_LENGTH))
    assert fold(aggregator, None, b"x", None) == b"x"
    assert fold(aggregator, None, None) is None
    with pytest.raises(SpecViolation):
        af.apply_retract(aggregator, AggState(b"x"), b"x")
