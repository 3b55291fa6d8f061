"""Choosing the engine from options, option validation, write-side rules, default values.

Oracles: the option rules of Java ``CoreOptions`` / ``SchemaValidation`` / ``RowKindFilter`` read
by hand, the seeds' sequence-field (004) and default-value (003) examples with their stated
outputs, and the per-engine modules' own tests for the merges themselves.
"""

from __future__ import annotations

import pytest

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
from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature
from reference.merge import engine as e
from reference.merge.sequence import SequenceAutoPadding, SortOrder
from reference.spec import default_values as dv
from reference.spec import types as t
from reference.spec.data import RowKind, Timestamp
from reference.spec.key_value import KeyValue

N = None
SCHEMA = int_row_type("k", "a", "b")


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------


def test_defaults() -> None:
    options = e.parse_merge_options({})
    assert options.merge_engine is e.MergeEngine.DEDUPLICATE
    assert not options.ignore_delete and options.sequence_fields == ()


def test_values_are_case_insensitive() -> None:
    options = e.parse_merge_options(
        {
            "merge-engine": "Partial-Update",
            "ignore-delete": "TRUE",
            "sequence.field": " a , b",
            "sequence.field.sort-order": "DESCENDING",
            "sequence.auto-padding": "row-kind-flag",
        }
    )
    assert options.merge_engine is e.MergeEngine.PARTIAL_UPDATE
    assert options.ignore_delete
    assert options.sequence_fields == ("a", "b")
    assert options.sequence_order is SortOrder.DESCENDING
    assert options.auto_padding == (SequenceAutoPadding.ROW_KIND_FLAG,)


@pytest.mark.parametrize(
    "options",
    [
        {"merge-engine": "dedup"},
        {"ignore-delete": "1"},
        {"first-row.ignore-delete": "yes"},
        {"ignore-update-before": ""},
        {"sequence.field.sort-order": "up"},
        {"sequence.auto-padding": "row-kind"},
        {"aggregation.remove-record-on-delete": "on"},
    ],
)
def test_malformed_values_name_the_option(options: dict[str, str]) -> None:
    with pytest.raises(InvalidOptionError) as error:
        e.parse_merge_options(options)
    assert error.value.option == next(iter(options))


def test_ignore_delete_key_wins_over_fallbacks() -> None:
    both = {"ignore-delete": "false", "partial-update.ignore-delete": "true"}
    assert not e.parse_ignore_delete(both)
    assert e.parse_ignore_delete({"partial-update.ignore-delete": "true"})


# --------------------------------------------------------------------------------------------
# Validation against the schema
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"sequence.field": "zz"}, "sequence.field"),
        ({"sequence.field": "a,a"}, "sequence.field"),
        (
            {"sequence.field": "a", "fields.a.aggregate-function": "max"},
            "fields.a.aggregate-function",
        ),
        ({"merge-engine": "first-row", "sequence.field": "a"}, "sequence.field"),
        ({"rowkind.field": "zz"}, "rowkind.field"),
        ({"rowkind.field": "a"}, "rowkind.field"),
        ({"fields.zz.aggregate-function": "sum"}, "fields.zz.aggregate-function"),
        ({"fields.a,zz.sequence-group": "b"}, "fields.a,zz.sequence-group"),
    ],
)
def test_invalid_combinations_name_the_option(options: dict[str, str], option: str) -> None:
    with pytest.raises(InvalidOptionError) as error:
        e.compute_merge_setup(options, SCHEMA, ["k"])
    assert error.value.option == option


def test_nested_path_into_a_row_field_is_rejected() -> None:
    schema = row_type(("k", KEY_INT), ("r", t.RowType((t.DataField(5, "x", INT),))))
    key = "fields.r.x.aggregate-function"
    with pytest.raises(InvalidOptionError) as error:
        e.compute_merge_setup({key: "sum"}, schema, ["k"])
    assert error.value.option == key


def test_snapshot_ordering_is_unsupported() -> None:
    with pytest.raises(UnsupportedFeature):
        e.compute_merge_setup({"sequence.snapshot-ordering": "true"}, SCHEMA, ["k"])


def test_setup_resolves_each_engine() -> None:
    assert e.compute_merge_setup({}, SCHEMA, ["k"]).engine is e.MergeEngine.DEDUPLICATE
    partial = e.compute_merge_setup({"merge-engine": "partial-update"}, SCHEMA, ["k"])
    assert partial.partial_update is not None and partial.aggregation is None
    aggregation = e.compute_merge_setup({"merge-engine": "aggregation"}, SCHEMA, ["k"])
    assert aggregation.aggregation is not None
    parsed = e.parse_merge_options({"merge-engine": "first-row"})
    assert e.compute_merge_setup(parsed, SCHEMA, ["k"]).engine is e.MergeEngine.FIRST_ROW


# --------------------------------------------------------------------------------------------
# Merging through the entry point
# --------------------------------------------------------------------------------------------


def test_seed_sequence_field_orders_out_of_order_input() -> None:
    # Seeds 003/004: with 'sequence.field' = 'dt' the record with the largest dt is merged last
    # whatever the input order.
    schema = row_type(
        ("pk", t.BigIntType(nullable=False)),
        ("v1", t.DoubleType()),
        ("v2", t.BigIntType()),
        ("dt", t.TimestampType(6)),
    )
    rows = [(1, 2.0, 2, Timestamp(2000)), (1, 1.0, 1, Timestamp(1000))]
    result = merge_rows({"sequence.field": "dt"}, schema, *rows)
    assert result is not None and result.value == (1, 2.0, 2, Timestamp(2000))
    plain = merge_rows({}, schema, *rows)
    assert plain is not None and plain.value == (1, 1.0, 1, Timestamp(1000))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"merge-engine": "first-row", "ignore-delete": "true"},
        {"merge-engine": "partial-update", "ignore-delete": "true"},
        {"merge-engine": "aggregation", "fields.b.aggregate-function": "sum"},
    ],
)
def test_incremental_function_matches_merge(options: dict[str, str]) -> None:
    setup = e.compute_merge_setup(options, SCHEMA, ["k"])
    kvs = records((1, 1, 1), (1, N, 2), (1, 3, N), (1, 4, 4), kinds=[INS, UB, UA, DEL])
    kvs = e.order_records(kvs, setup)
    function = e.create_merge_function(setup)
    function.add(KeyValue((2,), 9, INS, (2, 2, 2)))
    function.reset()
    for kv in kvs:
        function.add(kv)
    assert function.result() == e.merge(kvs, setup)
    assert e.merge([], setup) is None


def test_visibility() -> None:
    assert e.is_visible(KeyValue((1,), 0, UA, (1,)))
    assert not e.is_visible(KeyValue((1,), 0, DEL, (1,)))
    assert not e.is_visible(None)


# --------------------------------------------------------------------------------------------
# Write-side rules
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "kept"),
    [
        ({}, {INS, UB, UA, DEL}),
        ({"ignore-delete": "true"}, {INS, UA}),
        ({"ignore-update-before": "true"}, {INS, UA, DEL}),
    ],
)
def test_write_filter(options: dict[str, str], kept: set[RowKind]) -> None:
    parsed = e.parse_merge_options(options)
    assert {kind for kind in RowKind if e.is_kept_on_write(kind, parsed)} == kept


def test_rowkind_field_decides_the_written_kind() -> None:
    schema = row_type(("k", KEY_INT), ("op", STRING))
    setup = e.compute_merge_setup({"rowkind.field": "op"}, schema, ["k"])
    assert e.compute_record_kind((1, "-U"), INS, setup) is UB
    with pytest.raises(SpecViolation):
        e.compute_record_kind((1, None), INS, setup)
    plain = e.compute_merge_setup({}, schema, ["k"])
    assert e.compute_record_kind((1, "-U"), INS, plain) is INS


# --------------------------------------------------------------------------------------------
# Default values
# --------------------------------------------------------------------------------------------

DEFAULT_SCHEMA = int_row_type("k", "a", "b", "c")
DEFAULT_ROWS = [(1, 1, N, N), (1, N, N, 1)]


def test_seed_default_value_of_partial_update() -> None:
    # Seed 003: without a default the rows (1,1,NULL,NULL), (1,NULL,NULL,1) read as 1, 1, null,
    # 1; with 'fields.b.default-value' = '0' they read as 1, 1, 0, 1.
    options = {"merge-engine": "partial-update", "fields.b.default-value": "0"}
    merged = merge_rows(options, DEFAULT_SCHEMA, *DEFAULT_ROWS)
    assert merged is not None and merged.value == (1, 1, N, 1)
    defaults = dv.compute_default_values(options, DEFAULT_SCHEMA)
    assert defaults == (N, N, 0, N)
    assert dv.apply_default_values(merged.value, defaults) == (1, 1, 0, 1)  # 0.9.0: after merge
    written = [dv.apply_default_values(row, defaults) for row in DEFAULT_ROWS]  # main: on write
    main_style = merge_rows({"merge-engine": "partial-update"}, DEFAULT_SCHEMA, *written)
    assert main_style is not None and main_style.value == (1, 1, 0, 1)


def test_differences_are_listed() -> None:
    assert {"default-values", "partial-update-result-kind", "aggregation-integer-overflow"} <= set(
        e.DIFFERENCES_FROM_0_9
    )
