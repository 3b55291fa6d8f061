"""spark_impl.read_filters: filter tuples -> the pruning predicate (rule 1) and typed errors,
without Spark's JVM (the answers against the reference: conformance/differential/
test_native_read.py::test_read_table_filters_answer_as_the_reference)."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

import pytest

from reference.errors import InvalidOptionError
from reference.spec import types as t
from reference.spec.predicate import And, Leaf, PredicateOp
from spark_impl.read_filters import check_filter, to_read_predicate

TYPES = {"k": t.IntType(nullable=False), "v": t.VarCharType(t.MAX_LENGTH)}


def test_each_operator_becomes_the_predicate_spark_would_push() -> None:
    items: list[tuple[str, str, Any]] = [
        ("k", "=", 3),
        ("k", "!=", 4),
        ("k", "<", 9),
        ("k", ">=", 1),
        ("v", "in", ["a", "b"]),
        ("v", "not in", ("c",)),
    ]
    assert to_read_predicate(items, TYPES) == And(
        (
            Leaf(PredicateOp.EQUAL, "k", (3,)),
            Leaf(PredicateOp.NOT_EQUAL, "k", (4,)),
            Leaf(PredicateOp.LESS_THAN, "k", (9,)),
            Leaf(PredicateOp.GREATER_OR_EQUAL, "k", (1,)),
            Leaf(PredicateOp.IN, "v", ("a", "b")),
            Leaf(PredicateOp.NOT_IN, "v", ("c",)),
        )
    )


def test_literal_values_pass_the_check() -> None:
    for value in (1, 2.5, "a", b"x", Decimal("1.5"), datetime.date(2024, 1, 1), None):
        assert check_filter(("k", "=", value), TYPES) == ("k", "=", value)


def test_a_literal_without_an_exact_paimon_value_prunes_nothing() -> None:
    assert to_read_predicate([("k", "=", "3")], TYPES) is None
    assert to_read_predicate([("k", "=", "3"), ("k", ">", 1)], TYPES) == Leaf(
        PredicateOp.GREATER_THAN, "k", (1,)
    )


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        (("nope", "=", 1), "no column 'nope'"),
        (("k", "~", 1), "operator '~'"),
        (("k", "in", 1), "takes a list"),
        (("k", "="), "expected (column, operator, value)"),
        (("k", "=", object()), "column 'k': a value of type object is not a SQL literal"),
        (("v", "in", ["a", ["b"]]), "column 'v': a value of type list is not a SQL literal"),
    ],
)
def test_bad_filters_are_named(item: Any, reason: str) -> None:
    with pytest.raises(InvalidOptionError, match="filters") as raised:
        check_filter(item, TYPES)
    assert reason in str(raised.value)
