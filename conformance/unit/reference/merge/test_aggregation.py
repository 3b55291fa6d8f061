"""The aggregation engine: functions per field, retraction, remove-record-on-delete.

Oracles: the seeds' aggregation example (000/002/003) with its stated output; Paimon 0.9.0's
``AggregateMergeFunction`` run on the same records for retraction (sum, last_non_null_value,
last_value); Java main read by hand for remove-record-on-delete and sequence fields;
hypothesis for the sum rule.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.unit.reference.merge.helpers import (
    DEL,
    INS,
    KEY_INT,
    STRING,
    UA,
    UB,
    int_row_type,
    merge_rows,
    records,
    row_type,
)
from reference.errors import InvalidOptionError, SpecViolation
from reference.merge.aggregate_functions import RETRACT_UNSUPPORTED_ERROR
from reference.merge.aggregation import merge_aggregation
from reference.merge.engine import compute_merge_setup, create_merge_function
from reference.spec import types as t
from reference.spec.aggregate_kind import AggregateKind
from reference.spec.data import RowKind

AGG = {"merge-engine": "aggregation"}
N = None


def values(result: Any) -> tuple[Any, ...]:
    assert result is not None
    return tuple(result.value)


def test_seed_max_and_sum() -> None:
    # Seeds 000/002/003: price max, sales sum; <1, 23.0, 15> and <1, 30.2, 20> give
    # <1, 30.2, 35>.
    schema = row_type(
        ("product_id", t.BigIntType(nullable=False)),
        ("price", t.DoubleType()),
        ("sales", t.BigIntType()),
    )
    options = {
        **AGG,
        "fields.price.aggregate-function": "max",
        "fields.sales.aggregate-function": "sum",
    }
    assert values(merge_rows(options, schema, (1, 23.0, 15), (1, 30.2, 20))) == (1, 30.2, 35)


def test_default_function_is_last_non_null_value() -> None:
    # Seed 000: "fields without a function use last_non_null_value".
    schema = int_row_type("k", "a", "b")
    assert values(merge_rows(AGG, schema, (1, 1, 2), (1, N, 3), (1, 4, N))) == (1, 4, 3)


def test_default_aggregate_function_option() -> None:
    schema = int_row_type("k", "a", "b")
    options = {
        **AGG,
        "fields.default-aggregate-function": "sum",
        "fields.b.aggregate-function": "max",
    }
    assert values(merge_rows(options, schema, (1, 1, 2), (1, 2, 1), (1, 3, 0))) == (1, 6, 2)


def test_retraction_of_sum_last_value_and_last_non_null() -> None:
    # Java 0.9.0: (+I 1,5,x,p) (-U 1,2,x,N) (+U 1,4,N,q) -> (1, 7, N, q).
    schema = row_type(("k", KEY_INT), ("s", t.IntType()), ("l", STRING), ("v", STRING))
    options = {
        **AGG,
        "fields.s.aggregate-function": "sum",
        "fields.l.aggregate-function": "last_non_null_value",
        "fields.v.aggregate-function": "last_value",
    }
    rows = [(1, 5, "x", "p"), (1, 2, "x", N), (1, 4, N, "q")]
    result = merge_rows(options, schema, *rows, kinds=[INS, UB, UA])
    assert values(result) == (1, 7, N, "q")
    assert result is not None and result.kind is INS and result.sequence_number == 2


def test_retraction_of_a_function_without_retract_is_an_error() -> None:
    # Seed 000: "only sum and product support retraction"; others need ignore-retract.
    schema = int_row_type("k", "m")
    options = {**AGG, "fields.m.aggregate-function": "max"}
    with pytest.raises(SpecViolation) as error:
        merge_rows(options, schema, (1, 1), (1, 1), kinds=[INS, DEL])
    assert error.value.code == RETRACT_UNSUPPORTED_ERROR
    assert "fields.m.ignore-retract" in str(error.value)


def test_ignore_retract() -> None:
    # Seed 000: "'fields.${field_name}.ignore-retract' = 'true' lets a function ignore them".
    schema = int_row_type("k", "m", "s")
    options = {
        **AGG,
        "fields.m.aggregate-function": "max",
        "fields.m.ignore-retract": "true",
        "fields.s.aggregate-function": "sum",
    }
    result = merge_rows(options, schema, (1, 5, 5), (1, 9, 2), kinds=[INS, DEL])
    assert values(result) == (1, 5, 3)
    assert result is not None and result.kind is INS  # a retraction still yields an INSERT


def test_remove_record_on_delete() -> None:
    schema = int_row_type("k", "s")
    options = {
        **AGG,
        "fields.s.aggregate-function": "sum",
        "aggregation.remove-record-on-delete": "true",
    }
    removed = merge_rows(options, schema, (1, 5), (1, 2), kinds=[INS, DEL])
    assert removed is not None and removed.kind is DEL and values(removed) == (1, 2)
    retracted = merge_rows(options, schema, (1, 5), (1, 2), kinds=[INS, UB])
    assert retracted is not None and retracted.kind is INS and values(retracted) == (1, 3)
    revived = merge_rows(options, schema, (1, 5), (1, 2), (1, 4), kinds=[INS, DEL, INS])
    assert revived is not None and revived.kind is INS and values(revived) == (1, 6)


def test_remove_record_on_delete_conflicts_with_ignore_retract() -> None:
    options = {
        **AGG,
        "aggregation.remove-record-on-delete": "true",
        "fields.s.ignore-retract": "true",
    }
    with pytest.raises(InvalidOptionError) as error:
        compute_merge_setup(options, int_row_type("k", "s"), ["k"])
    assert error.value.option == "fields.s.ignore-retract"


def test_sequence_fields_take_the_last_value() -> None:
    schema = int_row_type("k", "s", "ts")
    options = {**AGG, "sequence.field": "ts", "fields.s.aggregate-function": "sum"}
    setup = compute_merge_setup(options, schema, ["k"])
    assert setup.aggregation is not None
    assert setup.aggregation.aggregators[2].kind is AggregateKind.LAST_VALUE
    # ordered by ts, null first: (1, 3, N), (1, 2, 1), (1, 5, 9); the sum is 10, ts ends at 9.
    result = merge_rows(options, schema, (1, 5, 9), (1, 2, 1), (1, 3, N))
    assert values(result) == (1, 10, 9)


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"fields.s.aggregate-function": "count"}, "fields.s.aggregate-function"),
        ({"fields.s.aggregate-function": "avg"}, "fields.s.aggregate-function"),
        ({"fields.s.aggregate-function": "bool_or"}, "fields.s.aggregate-function"),
        ({"fields.default-aggregate-function": "listagg"}, "fields.default-aggregate-function"),
        (
            {"sequence.field": "s", "fields.s.aggregate-function": "sum"},
            "fields.s.aggregate-function",
        ),
        ({"fields.s.ignore-retract": "maybe"}, "fields.s.ignore-retract"),
    ],
)
def test_invalid_options_name_the_option(options: dict[str, str], option: str) -> None:
    with pytest.raises(InvalidOptionError) as error:
        compute_merge_setup({**AGG, **options}, int_row_type("k", "s"), ["k"])
    assert error.value.option == option


_kinds = st.sampled_from([INS, UA, UB, DEL])


@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(-1000, 1000)), _kinds), max_size=12))
def test_sum_is_adds_minus_retractions(specs: list[tuple[int | None, RowKind]]) -> None:
    schema = int_row_type("k", "s")
    setup = compute_merge_setup({**AGG, "fields.s.aggregate-function": "sum"}, schema, ["k"])
    assert setup.aggregation is not None
    kvs = records(*[(1, v) for v, _ in specs], kinds=[kind for _, kind in specs])
    result = merge_aggregation(kvs, setup.aggregation)
    numbers = [(v if kind.is_add else -v) for v, kind in specs if v is not None]
    if not specs:
        assert result is None
    else:
        assert values(result)[1] == (sum(numbers) if numbers else None)
        function = create_merge_function(setup)
        for kv in kvs:
            function.add(kv)
        assert function.result() == result


def test_seed_collect_retraction_out_of_order() -> None:
    # Seed 002: with collect, an upstream sends +I['A', 'B'] and then -U['A']; if the table
    # receives the -U first it does nothing, and the later +I leaves ['A', 'B'] (not ['B']).
    schema = row_type(("k", KEY_INT), ("c", t.ArrayType(STRING)))
    options = {**AGG, "fields.c.aggregate-function": "collect"}
    in_order = merge_rows(options, schema, (1, ["A", "B"]), (1, ["A"]), kinds=[INS, UB])
    assert values(in_order) == (1, ["B"])
    reversed_arrival = merge_rows(options, schema, (1, ["A"]), (1, ["A", "B"]), kinds=[UB, INS])
    assert values(reversed_arrival) == (1, ["A", "B"])


def test_seed_merge_map_retraction_of_merged_result() -> None:
    # Seed 002: with merge_map, one upstream sends +I[1->A], another +I[1->B] then -D[1->B];
    # the two inserts merge to {1: B} and the -D retracts key 1 entirely: an empty map, not
    # {1: A}.
    schema = row_type(("k", KEY_INT), ("m", t.MapType(t.IntType(), STRING)))
    options = {**AGG, "fields.m.aggregate-function": "merge_map"}
    rows = [(1, {1: "A"}), (1, {1: "B"}), (1, {1: "B"})]
    assert values(merge_rows(options, schema, *rows, kinds=[INS, INS, DEL])) == (1, {})


def test_seed_nested_update_wide_table() -> None:
    # Seed 000: order_wide collects sub orders into ARRAY<ROW<sub_order_id, product_name,
    # price>> keyed by sub_order_id; the orders side contributes user_name and address with a
    # null array, each sub order contributes a one-element array.
    element = t.RowType(
        (
            t.DataField(10, "sub_order_id", t.BigIntType()),
            t.DataField(11, "product_name", STRING),
            t.DataField(12, "price", t.BigIntType()),
        )
    )
    schema = row_type(
        ("order_id", t.BigIntType(nullable=False)),
        ("user_name", STRING),
        ("address", STRING),
        ("sub_orders", t.ArrayType(element)),
    )
    options = {
        **AGG,
        "fields.sub_orders.aggregate-function": "nested_update",
        "fields.sub_orders.nested-key": "sub_order_id",
    }
    rows = [
        (7, N, N, [(1, "pen", 3)]),
        (7, "ann", "main st", N),
        (7, N, N, [(2, "ink", 5)]),
        (7, N, N, [(1, "pencil", 2)]),
    ]
    result = values(merge_rows(options, schema, *rows))
    assert result[:3] == (7, "ann", "main st")
    assert sorted(result[3]) == [(1, "pencil", 2), (2, "ink", 5)]
