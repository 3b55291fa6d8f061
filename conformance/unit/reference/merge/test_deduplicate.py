"""The deduplicate engine: the newest record wins.

Oracles: the spec's rule (seed 000 "去重", docs merge-engine overview) and Java's
``DeduplicateMergeFunction`` read by hand; properties checked with hypothesis.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.unit.reference.merge.helpers import DEL, INS, UA, UB, int_row_type, merge_rows
from reference.merge.deduplicate import DEDUPLICATE_FOLD, merge_deduplicate
from reference.merge.fold import FoldMergeFunction
from reference.spec.data import RowKind
from reference.spec.key_value import KeyValue

SCHEMA = int_row_type("k", "v")


def test_latest_record_wins() -> None:
    # Seed 000: "Paimon keeps only the newest record and drops the others of the same key."
    result = merge_rows({}, SCHEMA, (1, 10), (1, 20), (1, 30))
    assert result is not None
    assert (result.value, result.sequence_number, result.kind) == ((1, 30), 2, INS)


def test_latest_delete_deletes_the_key() -> None:
    # Seed 000: "if the newest record is a DELETE, all records of the key are deleted".
    result = merge_rows({}, SCHEMA, (1, 10), (1, 10), kinds=[INS, DEL])
    assert result is not None and result.kind is DEL


def test_ignore_delete_skips_retractions() -> None:
    # Seed 002: "the DELETE can be ignored by configuring ignore-delete".
    result = merge_rows({"ignore-delete": "true"}, SCHEMA, (1, 10), (1, 11), kinds=[INS, DEL])
    assert result is not None and result.value == (1, 10) and result.kind is INS
    assert merge_rows({"ignore-delete": "true"}, SCHEMA, (1, 1), (1, 2), kinds=[UB, DEL]) is None


def test_legacy_ignore_delete_key() -> None:
    result = merge_rows(
        {"deduplicate.ignore-delete": "TRUE"}, SCHEMA, (1, 1), (1, 2), kinds=[INS, UB]
    )
    assert result is not None and result.value == (1, 1)


def test_no_records() -> None:
    assert merge_deduplicate([]) is None


_kinds = st.sampled_from(list(RowKind))


@given(st.lists(st.tuples(st.integers(), _kinds), min_size=1, max_size=10), st.booleans())
def test_result_is_last_kept_record(specs: list[tuple[int, RowKind]], ignore_delete: bool) -> None:
    kvs = [KeyValue((1,), n, kind, (1, v)) for n, (v, kind) in enumerate(specs)]
    kept = [kv for kv in kvs if not (ignore_delete and kv.kind.is_retract)]
    assert merge_deduplicate(kvs, ignore_delete) == (kept[-1] if kept else None)
    function = FoldMergeFunction(DEDUPLICATE_FOLD, ignore_delete)
    function.add(KeyValue((9,), 99, UA, (9, 9)))
    function.reset()
    for kv in kvs:
        function.add(kv)
    assert function.result() == merge_deduplicate(kvs, ignore_delete)
