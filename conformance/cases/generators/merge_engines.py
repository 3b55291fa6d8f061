"""Cases of the primary-key merge rules: deduplicate, partial-update (with sequence groups),
aggregation (one case per function), first-row, the sequence field and the row-kind field."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from conformance.cases.generators import (
    ONE_BUCKET,
    CaseSpec,
    Hand,
    JsonValue,
    before,
    cols,
    compact,
    delete,
    expect_error,
    family,
    ins,
    inserts,
    keyed_case,
    read,
    upd,
    write,
)

DOC_MERGE = "docs/docs/primary-key-table/merge-engine/index.md"
DOC_PARTIAL = "docs/docs/primary-key-table/merge-engine/partial-update.md"
DOC_AGG = "docs/docs/primary-key-table/merge-engine/aggregation.mdx"
DOC_FIRST_ROW = "docs/docs/primary-key-table/merge-engine/first-row.md"
DOC_SEQUENCE = "docs/docs/primary-key-table/sequence-rowkind.mdx"


def pk_case(  # noqa: PLR0917 (a case reads as id, text, refs, columns, steps, options)
    case_id: str,
    description: str,
    refs: Sequence[str],
    columns: Sequence[str],
    steps: Sequence[Mapping[str, Any]],
    options: Mapping[str, str] | None = None,
    *,
    primary_keys: Sequence[str] = ("k",),
) -> CaseSpec:
    """A primary-key table in one bucket (plus ``options``, given positionally)."""
    return keyed_case(
        case_id, description, refs, columns, steps, primary_keys=primary_keys, options=options
    )


KV = ("k INT NOT NULL", "v STRING")


# --------------------------------------------------------------------------------------------
# deduplicate
# --------------------------------------------------------------------------------------------


@family
def deduplicate() -> Iterator[CaseSpec]:
    refs = [DOC_MERGE, "Java: DeduplicateMergeFunction"]
    yield pk_case(
        "merge-engine/dedup_latest_wins",
        "the last written record of a key replaces earlier ones across commits",
        refs,
        KV,
        [
            inserts((1, "a"), (2, "b"), (3, "c")),
            inserts((2, "B"), (4, "d")),
            read(Hand([ins(1, "a"), ins(2, "B"), ins(3, "c"), ins(4, "d")])),
        ],
    )
    yield pk_case(
        "merge-engine/dedup_same_batch",
        "within one batch the last record of a key wins",
        refs,
        KV,
        [
            inserts((1, "a"), (1, "b"), (2, "x"), (1, "c")),
            read(Hand([ins(1, "c"), ins(2, "x")])),
        ],
    )
    yield pk_case(
        "merge-engine/dedup_delete",
        "a -D record removes the key; a later insert brings it back",
        refs,
        KV,
        [
            inserts((1, "a"), (2, "b"), (3, "c")),
            write([delete(2, "b")]),
            read(Hand([ins(1, "a"), ins(3, "c")])),
            inserts((2, "again")),
            read(Hand([ins(1, "a"), ins(2, "again"), ins(3, "c")])),
        ],
    )
    yield pk_case(
        "merge-engine/dedup_update_pair",
        "an update pair (-U old, +U new) leaves the new value",
        refs,
        KV,
        [
            inserts((1, "a"), (2, "b")),
            write([before(1, "a"), upd(1, "a2")]),
            read(Hand([ins(1, "a2"), ins(2, "b")])),
        ],
    )
    yield pk_case(
        "merge-engine/dedup_delete_unknown_key",
        "deleting a key that was never written changes nothing",
        refs,
        KV,
        [
            inserts((1, "a")),
            write([delete(9, "zzz")]),
            read(Hand([ins(1, "a")])),
        ],
    )
    yield pk_case(
        "merge-engine/dedup_ignore_delete",
        "with ignore-delete, -D and -U records are dropped on write",
        [*refs, "CoreOptions.IGNORE_DELETE"],
        KV,
        [
            inserts((1, "a"), (2, "b")),
            write([delete(1, "a"), before(2, "b")]),
            read(),
        ],
        {"ignore-delete": "true"},
    )
    yield pk_case(
        "merge-engine/dedup_after_full_compaction",
        "a full compaction keeps the merged result and drops deleted keys",
        [*refs, "docs/docs/primary-key-table/compaction.md"],
        KV,
        [
            inserts((1, "a"), (2, "b"), (3, "c")),
            write([upd(1, "a2"), delete(3, "c")]),
            inserts((4, "d")),
            compact(),
            read(Hand([ins(1, "a2"), ins(2, "b"), ins(4, "d")])),
        ],
    )
    yield pk_case(
        "merge-engine/dedup_composite_key",
        "a two-column primary key identifies rows by both columns",
        refs,
        ("a INT NOT NULL", "b STRING NOT NULL", "v BIGINT"),
        [
            inserts((1, "x", 10), (1, "y", 20), (2, "x", 30)),
            inserts((1, "y", 21)),
            read(Hand([ins(1, "x", 10), ins(1, "y", 21), ins(2, "x", 30)])),
        ],
        primary_keys=("a", "b"),
    )
    yield pk_case(
        "merge-engine/dedup_many_buckets",
        "keys spread over four fixed buckets merge within their bucket",
        [*refs, "docs/docs/primary-key-table/data-distribution.md"],
        ("k BIGINT NOT NULL", "v INT"),
        [
            inserts(*[(i, i) for i in range(40)]),
            inserts(*[(i, -i) for i in range(0, 40, 3)]),
            write([delete(i, None) for i in range(1, 40, 7)]),
            read(),
        ],
        {"bucket": "4"},
    )
    yield pk_case(
        "merge-engine/dedup_null_values",
        "null value columns are stored and replaced like any value",
        refs,
        ("k INT NOT NULL", "v STRING", "w DOUBLE"),
        [
            inserts((1, None, 1.5), (2, "b", None)),
            inserts((1, "a", None)),
            read(Hand([ins(1, "a", None), ins(2, "b", None)])),
        ],
    )


# --------------------------------------------------------------------------------------------
# partial-update
# --------------------------------------------------------------------------------------------


@family
def partial_update() -> Iterator[CaseSpec]:
    refs = [DOC_PARTIAL, "Java: PartialUpdateMergeFunction"]
    options = {"merge-engine": "partial-update"}
    yield pk_case(
        "merge-engine/partial_update_docs_example",
        "the documented example: non-null fields of later records fill in the row",
        refs,
        ("k INT NOT NULL", "a DOUBLE", "b BIGINT", "c STRING"),
        [
            inserts((1, 23.0, 10, None)),
            inserts((1, None, None, "This is a book")),
            inserts((1, 25.2, None, None)),
            read(Hand([ins(1, 25.2, 10, "This is a book")])),
        ],
        options,
    )
    yield pk_case(
        "merge-engine/partial_update_default_value_seed",
        "the seeds' example: a field no record set reads as its 'fields.<f>.default-value' (0.9)",
        [*refs, "seed 003 partial-update", "Java 0.9: operation.DefaultValueAssigner"],
        ("k INT NOT NULL", "a INT", "b INT", "c INT"),
        [
            inserts((1, 1, None, None)),
            inserts((1, None, None, 1)),
            read(Hand([ins(1, 1, 0, 1)])),
        ],
        {**options, "fields.b.default-value": "0"},
    )
    yield pk_case(
        "merge-engine/partial_update_same_batch",
        "partial updates of one key inside one batch combine",
        refs,
        ("k INT NOT NULL", "a INT", "b STRING"),
        [
            write([ins(1, 1, None), ins(1, None, "x"), ins(2, 5, None), ins(1, 2, None)]),
            read(Hand([ins(1, 2, "x"), ins(2, 5, None)])),
        ],
        options,
    )
    yield pk_case(
        "merge-engine/partial_update_after_compaction",
        "compaction keeps partially updated rows merged",
        refs,
        ("k INT NOT NULL", "a INT", "b STRING", "c BOOLEAN"),
        [
            inserts((1, 1, None, None), (2, None, "b", None)),
            inserts((1, None, "one", True), (3, 3, None, False)),
            compact(),
            inserts((2, 2, None, None)),
            read(),
        ],
        options,
    )
    yield pk_case(
        "merge-engine/partial_update_ignore_delete",
        "with ignore-delete a partial-update table drops -D records",
        [*refs, "CoreOptions.IGNORE_DELETE"],
        ("k INT NOT NULL", "a INT", "b STRING"),
        [
            inserts((1, 1, "x")),
            write([delete(1, 1, "x")]),
            read(Hand([ins(1, 1, "x")])),
        ],
        {**options, "ignore-delete": "true"},
    )
    yield pk_case(
        "merge-engine/partial_update_remove_record_on_delete",
        "partial-update.remove-record-on-delete: a -D removes the whole row",
        [*refs, "CoreOptions.PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE"],
        ("k INT NOT NULL", "a INT", "b STRING"),
        [
            inserts((1, 1, "x"), (2, 2, "y")),
            write([delete(1, None, None)]),
            read(Hand([ins(2, 2, "y")])),
        ],
        {**options, "partial-update.remove-record-on-delete": "true"},
    )
    group_columns = ("k INT NOT NULL", "a STRING", "b STRING", "g1 INT", "c STRING", "g2 INT")
    group_options = {
        **options,
        "fields.g1.sequence-group": "a,b",
        "fields.g2.sequence-group": "c",
    }
    yield pk_case(
        "merge-engine/partial_update_sequence_groups",
        "each sequence group updates only from records with a newer group sequence",
        [*refs, "sequence-group"],
        group_columns,
        [
            inserts((1, "a1", "b1", 1, "c1", 1)),
            inserts((1, "a0", "b0", 0, "c2", 2)),
            inserts((1, "a3", None, 3, None, None)),
            read(Hand([ins(1, "a3", None, 3, "c2", 2)])),
        ],
        group_options,
    )
    yield pk_case(
        "merge-engine/partial_update_sequence_group_retract",
        "a -D record with a newer group sequence clears that group's fields only",
        [*refs, "sequence-group"],
        group_columns,
        [
            inserts((1, "a1", "b1", 1, "c1", 1)),
            write([delete(1, "a1", "b1", 2, None, None)]),
            read(),
        ],
        group_options,
    )
    yield pk_case(
        "merge-engine/partial_update_sequence_group_aggregation",
        "a field of a sequence group may aggregate (sum) instead of taking the latest",
        [*refs, DOC_AGG, "sequence-group"],
        ("k INT NOT NULL", "total BIGINT", "g1 INT", "name STRING", "g2 INT"),
        [
            inserts((1, 10, 1, "x", 1)),
            inserts((1, 5, 2, None, None)),
            inserts((1, 7, 0, "y", 3)),
            read(),
        ],
        {
            **options,
            "fields.g1.sequence-group": "total",
            "fields.g2.sequence-group": "name",
            "fields.total.aggregate-function": "sum",
        },
    )
    yield pk_case(
        "merge-engine/partial_update_delete_rejected",
        "without ignore-delete or sequence groups merging a -D record is an error",
        refs,
        ("k INT NOT NULL", "a INT"),
        [
            inserts((1, 1)),
            write([delete(1, 1)]),
            expect_error(read()),
        ],
        options,
    )


# --------------------------------------------------------------------------------------------
# aggregation
# --------------------------------------------------------------------------------------------

AggregateCase = tuple[str, str, Sequence[Sequence[JsonValue]], Mapping[str, str]]
"""(function, value type, batches of values of one key, extra options)."""

AGGREGATE_CASES: Sequence[AggregateCase] = (
    ("sum", "BIGINT", [[1, 2], [None, 10]], {}),
    ("sum", "DECIMAL(10, 2)", [["1.25", "2.50"], ["-0.75"]], {}),
    ("sum", "DOUBLE", [[1.5, 2.25], [None]], {}),
    ("product", "INT", [[2, 3], [4]], {}),
    ("max", "INT", [[3, 9], [5, None]], {}),
    ("max", "STRING", [["pear", "apple"], ["zoo"]], {}),
    ("min", "DATE", [[19000, 18000], [18500]], {}),
    (
        "min",
        "TIMESTAMP(6)",
        [[{"millisecond": 5000, "nano": 1000}], [{"millisecond": 4000, "nano": 0}]],
        {},
    ),
    ("last_value", "STRING", [["a", "b"], [None]], {}),
    ("last_non_null_value", "STRING", [["a", "b"], [None]], {}),
    ("first_value", "INT", [[None, 2], [3]], {}),
    ("first_non_null_value", "INT", [[None, 2], [3]], {}),
    ("listagg", "STRING", [["a", "b"], [None, "c"]], {}),
    ("listagg", "STRING", [["x", "y"], ["z"]], {"list-agg-delimiter": "|"}),
    ("bool_and", "BOOLEAN", [[True, True], [False]], {}),
    ("bool_or", "BOOLEAN", [[False, None], [True]], {}),
    ("collect", "ARRAY<INT>", [[[1, 2], [2]], [[3]]], {}),
    ("collect", "ARRAY<INT>", [[[1, 2], [2]], [[3, 1]]], {"distinct": "true"}),
    ("merge_map", "MAP<STRING, INT>", [[[["a", 1]], [["b", 2]]], [[["a", 3]]]], {}),
)


def _aggregate_id(function: str, value_type: str, extra: Mapping[str, str]) -> str:
    type_word = value_type.split("(", maxsplit=1)[0].split("<", maxsplit=1)[0].lower()
    suffix = "_" + "_".join(k.replace("-", "_") for k in extra) if extra else ""
    return f"merge-engine/agg_{function}_{type_word}{suffix}"


@family
def aggregation() -> Iterator[CaseSpec]:
    refs = [DOC_AGG, "Java: AggregateMergeFunction", "Java: FieldAggregatorFactory"]
    for function, value_type, batches, extra in AGGREGATE_CASES:
        options = {
            "merge-engine": "aggregation",
            "fields.v.aggregate-function": function,
            **{f"fields.v.{k}": v for k, v in extra.items()},
        }
        steps: list[Mapping[str, Any]] = []
        for index, batch in enumerate(batches):
            steps.append(inserts(*[(1, value) for value in batch], (2 + index, batch[0])))
        steps.append(read())
        yield pk_case(
            _aggregate_id(function, value_type, extra),
            f"{function} over {value_type} values of one key, within and across commits",
            [*refs, f"aggregate function {function}"],
            ("k INT NOT NULL", f"v {value_type}"),
            steps,
            options,
        )
    yield pk_case(
        "merge-engine/agg_compaction",
        "a full compaction stores the aggregated values (several functions)",
        [*refs, "docs/docs/primary-key-table/compaction.md"],
        ("k INT NOT NULL", "s BIGINT", "mx STRING", "l STRING", "b BOOLEAN"),
        [
            inserts((1, 1, "a", "x", True), (2, 5, "z", None, False)),
            inserts((1, 2, "b", "y", False)),
            compact(),
            inserts((1, 3, None, "w", True), (2, 1, "c", "v", None)),
            read(),
            compact(),
            read(),
        ],
        {
            "merge-engine": "aggregation",
            "fields.s.aggregate-function": "sum",
            "fields.mx.aggregate-function": "max",
            "fields.l.aggregate-function": "listagg",
            "fields.b.aggregate-function": "bool_or",
        },
    )
    yield CaseSpec(
        id="merge-engine/agg_merge_map_with_keytime",
        area="merge-engine",
        description="merge_map_with_keytime (main only): per map key the row with the larger "
        "time string wins, a null row removes the key",
        spec_refs=[*refs, "main: MergeMapWithKeyTimeAgg"],
        fields=cols("k INT NOT NULL", "m MAP<STRING, ROW<v INT, ts STRING>>"),
        primary_keys=("k",),
        options={
            **ONE_BUCKET,
            "merge-engine": "aggregation",
            "fields.m.aggregate-function": "merge_map_with_keytime",
        },
        steps=[
            inserts((1, [["a", [1, "2024-01-02"]], ["b", [2, "2024-01-01"]]])),
            inserts((1, [["a", [9, "2024-01-01"]], ["b", [3, "2024-01-03"]], ["c", [4, "x"]]])),
            inserts((1, [["c", None]])),
            read(),
        ],
        java=False,
        expected_by_reference=True,
    )
    yield pk_case(
        "merge-engine/agg_docs_example",
        "the documented example: max(price), sum(sales)",
        refs,
        ("product_id BIGINT NOT NULL", "price DOUBLE", "sales BIGINT"),
        [
            inserts((1, 23.0, 15)),
            inserts((1, 30.2, 20)),
            read(Hand([ins(1, 30.2, 35)])),
        ],
        {
            "merge-engine": "aggregation",
            "fields.price.aggregate-function": "max",
            "fields.sales.aggregate-function": "sum",
        },
        primary_keys=("product_id",),
    )
    yield pk_case(
        "merge-engine/agg_sum_retract",
        "sum retracts -U and -D values",
        [*refs, "retraction"],
        ("k INT NOT NULL", "v BIGINT"),
        [
            inserts((1, 10), (2, 5)),
            write([before(1, 4), upd(1, 1), delete(2, 5)]),
            read(),
        ],
        {"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"},
    )
    yield pk_case(
        "merge-engine/agg_ignore_retract",
        "ignore-retract makes a function skip -U/-D values",
        [*refs, "fields.<f>.ignore-retract"],
        ("k INT NOT NULL", "v INT"),
        [
            inserts((1, 10)),
            write([before(1, 10), upd(1, 3)]),
            read(),
        ],
        {
            "merge-engine": "aggregation",
            "fields.v.aggregate-function": "max",
            "fields.v.ignore-retract": "true",
        },
    )
    yield pk_case(
        "merge-engine/agg_default_function",
        "fields.default-aggregate-function applies to columns without their own function",
        [*refs, "fields.default-aggregate-function"],
        ("k INT NOT NULL", "a INT", "b INT"),
        [
            inserts((1, 1, 1)),
            inserts((1, 2, 5)),
            read(Hand([ins(1, 3, 5)])),
        ],
        {
            "merge-engine": "aggregation",
            "fields.default-aggregate-function": "sum",
            "fields.b.aggregate-function": "max",
        },
    )
    yield pk_case(
        "merge-engine/agg_last_non_null_default",
        "a column without an aggregate function keeps its last non-null value",
        refs,
        ("k INT NOT NULL", "a INT", "b STRING"),
        [
            inserts((1, 1, "x")),
            inserts((1, 2, None)),
            read(Hand([ins(1, 3, "x")])),
        ],
        {"merge-engine": "aggregation", "fields.a.aggregate-function": "sum"},
    )


# --------------------------------------------------------------------------------------------
# first-row
# --------------------------------------------------------------------------------------------


@family
def first_row() -> Iterator[CaseSpec]:
    refs = [DOC_FIRST_ROW, "Java: FirstRowMergeFunction"]
    options = {"merge-engine": "first-row"}
    yield pk_case(
        "merge-engine/first_row_across_commits",
        "the first record of a key is kept; later ones are ignored",
        refs,
        KV,
        [
            inserts((1, "first"), (2, "b")),
            inserts((1, "second"), (3, "c")),
            read(Hand([ins(1, "first"), ins(2, "b"), ins(3, "c")])),
        ],
        options,
    )
    yield pk_case(
        "merge-engine/first_row_same_batch",
        "within one batch the first record of a key wins",
        refs,
        KV,
        [
            inserts((1, "a"), (1, "b"), (2, "c"), (2, "d")),
            read(Hand([ins(1, "a"), ins(2, "c")])),
        ],
        options,
    )
    yield pk_case(
        "merge-engine/first_row_ignore_delete",
        "with ignore-delete a first-row table drops -D records",
        [*refs, "CoreOptions.IGNORE_DELETE"],
        KV,
        [
            inserts((1, "a")),
            write([delete(1, "a")]),
            inserts((1, "z")),
            read(Hand([ins(1, "a")])),
        ],
        {**options, "ignore-delete": "true"},
    )


# --------------------------------------------------------------------------------------------
# sequence field and row-kind field
# --------------------------------------------------------------------------------------------


@family
def sequence_field() -> Iterator[CaseSpec]:
    refs = [DOC_SEQUENCE, "Java: UserDefinedSeqComparator"]
    columns = ("k INT NOT NULL", "v STRING", "ts BIGINT")
    yield pk_case(
        "sequence-field/out_of_order_commits",
        "the record with the larger sequence field wins whatever the commit order",
        refs,
        columns,
        [
            inserts((1, "new", 20), (2, "b", 5)),
            inserts((1, "old", 10), (2, "b2", 6)),
            read(Hand([ins(1, "new", 20), ins(2, "b2", 6)])),
        ],
        {"sequence.field": "ts"},
    )
    yield pk_case(
        "sequence-field/out_of_order_same_batch",
        "inside one batch the larger sequence field wins",
        refs,
        columns,
        [
            inserts((1, "x", 3), (1, "y", 1), (1, "z", 2)),
            read(Hand([ins(1, "x", 3)])),
        ],
        {"sequence.field": "ts"},
    )
    yield pk_case(
        "sequence-field/ties_keep_input_order",
        "equal sequence fields fall back to the input order",
        refs,
        columns,
        [
            inserts((1, "first", 7)),
            inserts((1, "second", 7)),
            read(),
        ],
        {"sequence.field": "ts"},
    )
    yield pk_case(
        "sequence-field/late_delete_ignored",
        "a -D with a smaller sequence field than the stored row does not delete it",
        refs,
        columns,
        [
            inserts((1, "a", 10), (2, "b", 10)),
            write([delete(1, "a", 5), delete(2, "b", 11)]),
            read(),
        ],
        {"sequence.field": "ts"},
    )
    yield pk_case(
        "sequence-field/two_fields",
        "a sequence field list compares field by field",
        refs,
        ("k INT NOT NULL", "v STRING", "s1 INT", "s2 INT"),
        [
            inserts((1, "a", 1, 5)),
            inserts((1, "b", 1, 3)),
            inserts((1, "c", 0, 9)),
            read(),
        ],
        {"sequence.field": "s1,s2"},
    )
    yield pk_case(
        "sequence-field/timestamp_field",
        "a TIMESTAMP sequence field orders records by time",
        refs,
        ("k INT NOT NULL", "v STRING", "ts TIMESTAMP(3)"),
        [
            inserts((1, "late", {"millisecond": 2000, "nano": 0})),
            inserts((1, "early", {"millisecond": 1000, "nano": 0})),
            read(),
        ],
        {"sequence.field": "ts"},
    )
    yield pk_case(
        "sequence-field/partial_update",
        "partial-update merges records in sequence-field order",
        [*refs, DOC_PARTIAL],
        ("k INT NOT NULL", "a STRING", "b STRING", "ts INT"),
        [
            inserts((1, "a2", None, 2)),
            inserts((1, "a1", "b1", 1)),
            read(),
        ],
        {"sequence.field": "ts", "merge-engine": "partial-update"},
    )


@family
def rowkind_field() -> Iterator[CaseSpec]:
    refs = [DOC_SEQUENCE, "CoreOptions.ROWKIND_FIELD"]
    columns = ("k INT NOT NULL", "v STRING", "op STRING")
    yield pk_case(
        "rowkind-field/delete_by_column",
        "rowkind.field: a row whose kind column says -D deletes the key",
        refs,
        columns,
        [
            inserts((1, "a", "+I"), (2, "b", "+I")),
            inserts((1, "a", "-D")),
            read(Hand([ins(2, "b", "+I")])),
        ],
        {"rowkind.field": "op"},
    )
    yield pk_case(
        "rowkind-field/update_by_column",
        "rowkind.field: -U/+U in the kind column update the row",
        refs,
        columns,
        [
            inserts((1, "a", "+I")),
            inserts((1, "a", "-U"), (1, "a2", "+U")),
            read(),
        ],
        {"rowkind.field": "op"},
    )
    yield pk_case(
        "rowkind-field/aggregation_retract",
        "rowkind.field drives retraction of an aggregation table",
        [*refs, DOC_AGG],
        ("k INT NOT NULL", "v BIGINT", "op STRING"),
        [
            inserts((1, 10, "+I"), (1, 5, "+I")),
            inserts((1, 3, "-D")),
            read(),
        ],
        {
            "rowkind.field": "op",
            "merge-engine": "aggregation",
            "fields.v.aggregate-function": "sum",
            "fields.op.aggregate-function": "last_value",
        },
    )
