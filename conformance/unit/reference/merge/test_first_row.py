"""The first-row engine: the oldest added record wins; retractions are refused or ignored.

Oracles: the spec (seed 000 "第一行", docs first-row) and Java 0.9.0's ``FirstRowMergeFunction``
run on the same input (it throws ``IllegalArgumentException`` for a DELETE by default).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.unit.reference.merge.helpers import DEL, INS, UA, UB, int_row_type, merge_rows
from reference.errors import InvalidOptionError, SpecViolation
from reference.merge.first_row import (
    FIRST_ROW_FOLD,
    RETRACT_REJECTED_ERROR,
    merge_first_row,
)
from reference.merge.fold import FoldMergeFunction
from reference.spec.data import RowKind
from reference.spec.key_value import KeyValue

SCHEMA = int_row_type("k", "v")
FIRST_ROW = {"merge-engine": "first-row"}


def test_first_record_wins() -> None:
    # Seed 000: "keeps the first row of the same primary key".
    result = merge_rows(FIRST_ROW, SCHEMA, (1, 10), (1, 20), kinds=[INS, UA])
    assert result is not None and result.value == (1, 10) and result.sequence_number == 0


def test_retraction_is_refused_by_default() -> None:
    # Seed 000: "does not accept DELETE and UPDATE_BEFORE"; Java 0.9.0 throws on (+I, -D).
    with pytest.raises(SpecViolation) as error:
        merge_rows(FIRST_ROW, SCHEMA, (1, 1), (1, 1), kinds=[INS, DEL])
    assert error.value.code == RETRACT_REJECTED_ERROR
    assert "ignore-delete" in str(error.value)


@pytest.mark.parametrize("key", ["ignore-delete", "first-row.ignore-delete"])
def test_ignore_delete_skips_retractions(key: str) -> None:
    # Seed 000: "configure first-row.ignore-delete to ignore both kinds".
    options = {**FIRST_ROW, key: "true"}
    result = merge_rows(options, SCHEMA, (1, 5), (1, 6), (1, 7), kinds=[UB, DEL, INS])
    assert result is not None and result.value == (1, 7)


def test_sequence_field_is_rejected() -> None:
    # Seed 000: "sequence.field cannot be specified".
    with pytest.raises(InvalidOptionError) as error:
        merge_rows({**FIRST_ROW, "sequence.field": "v"}, SCHEMA, (1, 1))
    assert error.value.option == "sequence.field"


@given(st.lists(st.tuples(st.integers(), st.sampled_from(list(RowKind))), max_size=10))
def test_result_is_first_add_when_retractions_are_ignored(
    specs: list[tuple[int, RowKind]],
) -> None:
    kvs = [KeyValue((1,), n, kind, (1, v)) for n, (v, kind) in enumerate(specs)]
    adds = [kv for kv in kvs if kv.kind.is_add]
    assert merge_first_row(kvs, ignore_delete=True) == (adds[0] if adds else None)
    function = FoldMergeFunction(FIRST_ROW_FOLD, True)
    for kv in kvs:
        function.add(kv)
    assert function.result() == merge_first_row(kvs, ignore_delete=True)
