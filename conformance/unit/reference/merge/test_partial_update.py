"""The partial-update engine: non-null updates, sequence groups, aggregates, deletes.

Oracles: every partial-update example of the seeds (000, 002, 003) and of the docs with its
stated output; Paimon 0.9.0's ``PartialUpdateMergeFunction`` run on the same records for the
retraction cases (where main and 0.9.0 agree on the values); Java main read by hand for what
0.9.0 does differently (``DIFFERENCES_FROM_0_9``); hypothesis for the non-null rule.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.unit.reference.merge.helpers import (
    DEL,
    INS,
    INT,
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
from reference.merge import partial_update as pu
from reference.merge.engine import compute_merge_setup, create_merge_function
from reference.spec import types as t

PU = {"merge-engine": "partial-update"}
N = None


def values(result: Any) -> tuple[Any, ...]:
    assert result is not None
    return tuple(result.value)


# --------------------------------------------------------------------------------------------
# The seeds' examples
# --------------------------------------------------------------------------------------------


def test_seed_non_null_fields_overwrite() -> None:
    # Seeds 000/002/003: records <1, 23.0, 10, NULL>, <1, NULL, NULL, 'This is a book'>,
    # <1, 25.2, NULL, NULL> with the first column as key end as <1, 25.2, 10, 'This is a book'>.
    schema = row_type(("k", KEY_INT), ("a", t.DoubleType()), ("b", INT), ("c", STRING))
    rows = [(1, 23.0, 10, N), (1, N, N, "This is a book"), (1, 25.2, N, N)]
    assert values(merge_rows(PU, schema, *rows)) == (1, 25.2, 10, "This is a book")


GROUPS = int_row_type("k", "a", "b", "g_1", "c", "d", "g_2")
GROUP_OPTIONS = {**PU, "fields.g_1.sequence-group": "a,b", "fields.g_2.sequence-group": "c,d"}


def test_seed_sequence_groups() -> None:
    # Seeds 000/002/003: after (1,1,1,1,1,1,1) and (1,2,2,2,2,2,NULL) -- g_2 is null, so c and
    # d stay -- the table shows 1,2,2,2,1,1,1; after (1,3,3,1,3,3,3) -- g_1 is smaller, so a
    # and b stay -- it shows 1,2,2,2,3,3,3.
    first, second, third = (1, 1, 1, 1, 1, 1, 1), (1, 2, 2, 2, 2, 2, N), (1, 3, 3, 1, 3, 3, 3)
    assert values(merge_rows(GROUP_OPTIONS, GROUPS, first, second)) == (1, 2, 2, 2, 1, 1, 1)
    assert values(merge_rows(GROUP_OPTIONS, GROUPS, first, second, third)) == (1, 2, 2, 2, 3, 3, 3)


def test_seed_multi_field_sequence_group() -> None:
    # Seed 002: with 'fields.g_2,g_3.sequence-group' = 'c,d', (1,2,2,2,2,2,1,NULL) does not
    # advance (g_2, g_3) = (1, 1), giving 1,2,2,2,1,1,1,1; then (1,3,3,1,3,3,3,1) -- g_1 smaller,
    # (g_2, g_3) larger -- gives 1,2,2,2,3,3,3,1.
    schema = int_row_type("k", "a", "b", "g_1", "c", "d", "g_2", "g_3")
    options = {**PU, "fields.g_1.sequence-group": "a,b", "fields.g_2,g_3.sequence-group": "c,d"}
    rows = [(1, 1, 1, 1, 1, 1, 1, 1), (1, 2, 2, 2, 2, 2, 1, N)]
    assert values(merge_rows(options, schema, *rows)) == (1, 2, 2, 2, 1, 1, 1, 1)
    rows.append((1, 3, 3, 1, 3, 3, 3, 1))
    assert values(merge_rows(options, schema, *rows)) == (1, 2, 2, 2, 3, 3, 3, 1)


AGG_SCHEMA = int_row_type("k", "a", "b", "c", "d")
AGG_ROWS = [(1, 1, 1, N, N), (1, N, N, 1, 1), (1, 2, 2, N, N), (1, N, N, 2, 2)]


def test_seed_aggregation_in_sequence_groups() -> None:
    # Seeds 000/002/003: b = first_value in group a, d = sum in group c; the four inserts give
    # 1, 2, 1, 2, 3.
    options = {
        **PU,
        "fields.a.sequence-group": "b",
        "fields.b.aggregate-function": "first_value",
        "fields.c.sequence-group": "d",
        "fields.d.aggregate-function": "sum",
    }
    assert values(merge_rows(options, AGG_SCHEMA, *AGG_ROWS)) == (1, 2, 1, 2, 3)


def test_docs_default_aggregate_function() -> None:
    # Docs (partial-update): the default function last_non_null_value with d = sum gives
    # 1, 2, 2, 2, 3 for the same four inserts.
    options = {
        **PU,
        "fields.a.sequence-group": "b",
        "fields.c.sequence-group": "d",
        "fields.default-aggregate-function": "last_non_null_value",
        "fields.d.aggregate-function": "sum",
    }
    assert values(merge_rows(options, AGG_SCHEMA, *AGG_ROWS)) == (1, 2, 2, 2, 3)


def test_docs_aggregate_with_older_multi_field_sequence() -> None:
    # Docs (partial-update, main): a = sum in group (g_1, g_3), c in group g_2. After
    # (1,1,1,1,'1',1,1) and (1,2,2,2,'2',NULL,2) the table shows 1,3,2,2,"1",1,2; then
    # (1,3,3,2,'3',3,1) is older for (g_1, g_3) = (2, 1) < (2, 2) but still sums: 1,6,3,2,"3",3,2.
    schema = row_type(
        ("k", KEY_INT),
        ("a", INT),
        ("b", INT),
        ("g_1", INT),
        ("c", STRING),
        ("g_2", INT),
        ("g_3", INT),
    )
    options = {
        **PU,
        "fields.a.aggregate-function": "sum",
        "fields.g_1,g_3.sequence-group": "a",
        "fields.g_2.sequence-group": "c",
    }
    rows = [(1, 1, 1, 1, "1", 1, 1), (1, 2, 2, 2, "2", N, 2)]
    assert values(merge_rows(options, schema, *rows)) == (1, 3, 2, 2, "1", 1, 2)
    rows.append((1, 3, 3, 2, "3", 3, 1))
    assert values(merge_rows(options, schema, *rows)) == (1, 6, 3, 2, "3", 3, 2)


# --------------------------------------------------------------------------------------------
# Retractions (values checked against Paimon 0.9.0 on the same records)
# --------------------------------------------------------------------------------------------


def test_retraction_clears_a_newer_group_only() -> None:
    # Java 0.9.0: (+I 1,1,1,1,1,1,1) (-U 1,1,1,2,N,N,N) (+I 1,5,N,1,7,7,2) -> (1,N,N,2,7,7,2).
    rows = [(1, 1, 1, 1, 1, 1, 1), (1, 1, 1, 2, N, N, N), (1, 5, N, 1, 7, 7, 2)]
    result = merge_rows(GROUP_OPTIONS, GROUPS, *rows, kinds=[INS, UB, INS])
    assert values(result) == (1, N, N, 2, 7, 7, 2)
    assert result is not None and result.kind is INS and result.sequence_number == 2


SUM_GROUP = {**PU, "fields.a.sequence-group": "b", "fields.b.aggregate-function": "sum"}


def test_retraction_retracts_group_aggregates() -> None:
    # Java 0.9.0: a newer -D retracts the sum (15 - 4) and advances a: (1, 3, 11); an older -D
    # retracts the sum without touching a: (1, 1, 9).
    schema = int_row_type("k", "a", "b")
    newer = merge_rows(SUM_GROUP, schema, (1, 1, 10), (1, 2, 5), (1, 3, 4), kinds=[INS, INS, DEL])
    assert values(newer) == (1, 3, 11)
    older = merge_rows(SUM_GROUP, schema, (1, 1, 10), (1, 0, 1), kinds=[INS, DEL])
    assert values(older) == (1, 1, 9)
    # main: a retraction's sequence number is the result's (0.9.0 gives 1 and 0 here).
    assert newer is not None and older is not None
    assert (newer.sequence_number, older.sequence_number) == (2, 1)


def test_older_record_folds_first_value_reversed() -> None:
    # Java 0.9.0: first_value in group a; (1,2,20), then the older (1,1,10), then (1,3,30)
    # give (1, 3, 10): the older record's value becomes the first one.
    options = {**PU, "fields.a.sequence-group": "b", "fields.b.aggregate-function": "first_value"}
    schema = int_row_type("k", "a", "b")
    assert values(merge_rows(options, schema, (1, 2, 20), (1, 1, 10), (1, 3, 30))) == (1, 3, 10)


def test_delete_without_configuration_is_an_error() -> None:
    # Seed 000: "by default partial-update cannot accept delete records" (Java throws).
    schema = int_row_type("k", "a")
    with pytest.raises(SpecViolation) as error:
        merge_rows(PU, schema, (1, 1), (1, 1), kinds=[INS, DEL])
    assert error.value.code == pu.DELETE_REJECTED_ERROR
    for option in ("ignore-delete", "partial-update.remove-record-on-delete", "sequence"):
        assert option in str(error.value)


@pytest.mark.parametrize("key", ["ignore-delete", "partial-update.ignore-delete"])
def test_ignore_delete(key: str) -> None:
    # Seed 000: "configure 'partial-update.ignore-delete' to ignore delete records".
    schema = int_row_type("k", "a", "b")
    result = merge_rows(
        {**PU, key: "true"}, schema, (1, 1, N), (1, 5, 5), (1, N, 2), kinds=[INS, DEL, INS]
    )
    assert values(result) == (1, 1, 2)
    assert result is not None and result.kind is INS and result.sequence_number == 2


def test_ignored_first_retraction_initialises_the_row() -> None:
    # main: a skipped -D seeds the row (Java 0.9.0 gives (1, N, 9) here).
    schema = int_row_type("k", "a", "b")
    options = {**PU, "ignore-delete": "true"}
    assert values(merge_rows(options, schema, (1, 7, 8), (1, N, 9), kinds=[DEL, INS])) == (1, 7, 9)
    only_deletes = merge_rows(options, schema, (1, 7, 8), kinds=[DEL])
    assert only_deletes is not None and only_deletes.kind is DEL  # no add seen


def test_remove_record_on_delete() -> None:
    # Docs: "'partial-update.remove-record-on-delete' removes the whole row on a delete".
    schema = int_row_type("k", "a", "b")
    options = {**PU, "partial-update.remove-record-on-delete": "true"}
    removed = merge_rows(options, schema, (1, 1, 1), (1, 1, 1), kinds=[INS, DEL])
    assert removed is not None and removed.kind is DEL
    kept = merge_rows(options, schema, (1, 1, 1), (1, 5, 5), kinds=[INS, UB])
    assert kept is not None and kept.kind is INS and values(kept) == (1, 1, 1)
    revived = merge_rows(options, schema, (1, 1, 1), (1, 4, 4), (1, N, 2), kinds=[INS, DEL, INS])
    assert revived is not None and revived.kind is INS and values(revived) == (1, 4, 2)


def test_remove_record_on_sequence_group() -> None:
    schema = int_row_type("k", "a", "g_1", "b", "g_2")
    options = {
        **PU,
        "fields.g_1.sequence-group": "a",
        "fields.g_2.sequence-group": "b",
        "partial-update.remove-record-on-sequence-group": "g_2",
    }
    rows = [(1, 1, 1, 1, 1), (1, N, N, 5, 2)]
    removed = merge_rows(options, schema, *rows, kinds=[INS, DEL])
    assert removed is not None and removed.kind is DEL and values(removed) == (1, N, N, 5, 2)
    not_removed = merge_rows(options, schema, (1, 1, 1, 1, 1), (1, 7, 2, N, N), kinds=[INS, DEL])
    assert not_removed is not None and not_removed.kind is INS
    assert values(not_removed) == (1, N, 2, 1, 1)


def test_not_null_field_rejects_null_without_groups() -> None:
    schema = row_type(("k", KEY_INT), ("a", t.IntType(nullable=False)))
    with pytest.raises(SpecViolation) as error:
        merge_rows(PU, schema, (1, 1), (1, N))
    assert error.value.code == pu.NOT_NULL_ERROR


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------

_SCHEMA = int_row_type("k", "a", "b", "g", "h")


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"fields.x.sequence-group": "a"}, "fields.x.sequence-group"),
        ({"fields.g.sequence-group": "a,zz"}, "fields.g.sequence-group"),
        ({"fields.g.sequence-group": "k"}, "fields.g.sequence-group"),
        (
            {"fields.g.sequence-group": "a", "fields.h.sequence-group": "a"},
            "fields.h.sequence-group",
        ),
        ({"fields.a.aggregate-function": "sum"}, "fields.a.aggregate-function"),
        ({"fields.default-aggregate-function": "max"}, "fields.default-aggregate-function"),
        (
            {"fields.g.sequence-group": "a", "fields.a.aggregate-function": "bool_and"},
            "fields.a.aggregate-function",
        ),
        (
            {"ignore-delete": "true", "partial-update.remove-record-on-delete": "true"},
            "partial-update.remove-record-on-delete",
        ),
        (
            {"fields.g.sequence-group": "a", "partial-update.remove-record-on-delete": "true"},
            "partial-update.remove-record-on-delete",
        ),
        (
            {
                "fields.g.sequence-group": "a",
                "partial-update.remove-record-on-sequence-group": "h",
            },
            "partial-update.remove-record-on-sequence-group",
        ),
        (
            {
                "fields.g.sequence-group": "a",
                "ignore-delete": "true",
                "partial-update.remove-record-on-sequence-group": "g",
            },
            "partial-update.remove-record-on-sequence-group",
        ),
        (
            {"partial-update.remove-record-on-delete": "yes"},
            "partial-update.remove-record-on-delete",
        ),
    ],
)
def test_invalid_options_name_the_option(options: dict[str, str], option: str) -> None:
    with pytest.raises(InvalidOptionError) as error:
        compute_merge_setup({**PU, **options}, _SCHEMA, ["k"])
    assert error.value.option == option


def test_last_non_null_value_needs_no_group() -> None:
    options = {**PU, "fields.a.aggregate-function": "last_non_null_value"}
    result = merge_rows(options, _SCHEMA, (1, 1, 1, N, N), (1, N, 2, N, N))
    assert values(result) == (1, 1, 2, N, N)


def test_malformed_sequence_group_key() -> None:
    with pytest.raises(InvalidOptionError):
        pu.parse_sequence_group_key("fields.sequence-group")
    assert pu.parse_sequence_group_key("fields.a,b.sequence-group") == ["a", "b"]


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

_cells = st.one_of(st.none(), st.integers(-5, 5))


@given(st.lists(st.tuples(_cells, _cells, _cells), min_size=1, max_size=8))
def test_without_groups_each_field_is_its_last_non_null(rows: list[tuple[Any, ...]]) -> None:
    schema = int_row_type("k", "a", "b", "c")
    full = [(1, *row) for row in rows]
    expected = [1]
    for column in range(3):
        present = [row[column] for row in rows if row[column] is not None]
        expected.append(present[-1] if present else None)
    assert values(merge_rows(PU, schema, *full)) == tuple(expected)


@given(st.lists(st.tuples(_cells, _cells, st.integers(0, 3)), min_size=1, max_size=8))
def test_incremental_form_matches(rows: list[tuple[Any, ...]]) -> None:
    schema = int_row_type("k", "a", "b", "g")
    options = {**PU, "fields.g.sequence-group": "a,b", "fields.b.aggregate-function": "sum"}
    setup = compute_merge_setup(options, schema, ["k"])
    kvs = records(
        *[(1, *row) for row in rows], kinds=[INS if n % 3 else UA for n in range(len(rows))]
    )
    function = create_merge_function(setup)
    for kv in kvs:
        function.add(kv)
    assert setup.partial_update is not None
    assert function.result() == pu.merge_partial_update(kvs, setup.partial_update)
