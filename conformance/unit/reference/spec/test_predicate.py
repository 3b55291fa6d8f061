"""Predicates: row tests by hand, and the soundness of the statistics test — a file whose
statistics say "no row can match" never holds a matching row."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.spec import types as t
from reference.spec.compare import compare_values
from reference.spec.predicate import (
    And,
    FieldStats,
    Leaf,
    Or,
    PredicateOp,
    is_row_matching,
    is_stats_matching,
)

TYPES = {"a": t.IntType(), "s": t.VarCharType(20)}


@pytest.mark.parametrize(
    ("predicate", "row", "expected"),
    [
        (Leaf(PredicateOp.EQUAL, "a", (3,)), {"a": 3}, True),
        (Leaf(PredicateOp.EQUAL, "a", (3,)), {"a": None}, False),
        (Leaf(PredicateOp.NOT_EQUAL, "a", (3,)), {"a": None}, False),
        (Leaf(PredicateOp.IS_NULL, "a"), {"a": None}, True),
        (Leaf(PredicateOp.IN, "a", (None, 3)), {"a": 3}, True),
        (Leaf(PredicateOp.NOT_IN, "a", (None, 4)), {"a": 3}, False),
        (Leaf(PredicateOp.NOT_IN, "a", (4,)), {"a": 3}, True),
        (Leaf(PredicateOp.LESS_THAN, "a", (None,)), {"a": 3}, False),
        (Leaf(PredicateOp.STARTS_WITH, "s", ("ab",)), {"s": "abc"}, True),
        (
            Or((Leaf(PredicateOp.IS_NULL, "a"), Leaf(PredicateOp.GREATER_THAN, "a", (1,)))),
            {"a": 2},
            True,
        ),
        (
            And((Leaf(PredicateOp.IS_NOT_NULL, "a"), Leaf(PredicateOp.LESS_OR_EQUAL, "a", (1,)))),
            {"a": 2},
            False,
        ),
    ],
)
def test_row(predicate: Any, row: dict[str, Any], expected: bool) -> None:
    assert is_row_matching(predicate, row, TYPES) is expected


def _stats(values: list[int | None]) -> FieldStats:
    present = [v for v in values if v is not None]
    return FieldStats(
        min(present) if present else None,
        max(present) if present else None,
        len(values) - len(present),
    )


leaves = st.one_of(
    st.builds(
        Leaf,
        st.sampled_from([op for op in PredicateOp if op not in {PredicateOp.STARTS_WITH}]),
        st.just("a"),
        st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=1, max_size=3).map(tuple),
    )
)
predicates = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3).map(lambda c: And(tuple(c))),
        st.lists(inner, min_size=1, max_size=3).map(lambda c: Or(tuple(c))),
    ),
    max_leaves=5,
)


@given(predicates, st.lists(st.one_of(st.none(), st.integers(-6, 6)), min_size=1, max_size=8))
def test_stats_test_is_sound(predicate: Any, values: list[int | None]) -> None:
    any_row = any(is_row_matching(predicate, {"a": v}, TYPES) for v in values)
    if any_row:
        assert is_stats_matching(predicate, len(values), {"a": _stats(values)}, TYPES)


def test_unknown_stats_may_match() -> None:
    leaf = Leaf(PredicateOp.EQUAL, "a", (1,))
    assert is_stats_matching(leaf, 3, {"a": FieldStats(None, None, None)}, TYPES)
    assert is_stats_matching(leaf, 3, {}, TYPES)
    assert not is_stats_matching(leaf, 3, {"a": FieldStats(None, None, 3)}, TYPES)
    assert compare_values(t.IntType(), 1, 1) == 0
