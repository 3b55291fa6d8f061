"""Workloads for differential tests: a table and the steps written into it.

A :class:`Workload` is a :class:`TableSpec` (columns, keys, options) and a sequence of steps:
:class:`Write` (one batch of rows with their row kinds, committed once, optionally an overwrite)
and :class:`Compact` (a compaction of every bucket, committed once). The same workload is applied
to each engine by ``run_reference`` / ``run_java`` and the results are compared by ``compare``.

:data:`DIFFERENTIAL_COMBINATIONS` (:data:`COMBINATIONS` and :data:`EXTENDED_COMBINATIONS`)
names the engine option combinations the differential suite covers (merge engines and their
options, sequence / row-kind fields, changelog producers, deletion vectors);
each says which row kinds its histories may hold (an engine that rejects a kind, such as
partial-update without a retraction rule, would make every history an error) and whether the
changelog of the two engines can be compared.

:data:`TABLE_KINDS` names the table layouts of the table matrix (append / primary-key, bucket
modes, merge engines, deletion vectors, changelog producers), all partitioned;
:data:`MATRIX_TABLE_KINDS` adds each unpartitioned (:data:`UNPARTITIONED_TABLE_KINDS`).

The strategies (:func:`histories`, :func:`workloads`) draw values from small per-type domains so
that keys collide and merges happen in every history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from hypothesis import strategies as st

from reference.spec import types as t
from reference.spec.data import Row, RowKind, Value

INS, UB, UA, DEL = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE
ALL_KINDS = (INS, UB, UA, DEL)
ADD_KINDS = (INS, UA)
FILE_FORMATS = ("parquet", "orc", "avro")

Change = tuple[RowKind, Row]

# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableSpec:
    """What a table is created with."""

    fields: tuple[t.DataField, ...]
    primary_keys: tuple[str, ...] = ()
    partition_keys: tuple[str, ...] = ()
    options: Mapping[str, str] = field(default_factory=dict)

    @property
    def row_type(self) -> t.RowType:
        return t.RowType(self.fields)

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def with_options(self, **options: str) -> TableSpec:
        return replace(self, options={**self.options, **options})

    def option(self, key: str, default: str = "") -> str:
        return self.options.get(key, default)


@dataclass(frozen=True)
class Write:
    """One batch of changes, committed once. ``overwrite`` is ``None`` for an append, ``{}`` to
    overwrite the whole table, or ``{partition column: value}`` for one partition."""

    changes: tuple[Change, ...]
    overwrite: Mapping[str, Value] | None = None


@dataclass(frozen=True)
class Compact:
    """Compact every bucket of the latest snapshot (fully when ``full``), committed once."""

    full: bool


Step = Write | Compact


@dataclass(frozen=True)
class Workload:
    spec: TableSpec
    steps: tuple[Step, ...]


# --------------------------------------------------------------------------------------------
# Columns and their value domains
# --------------------------------------------------------------------------------------------

INT = t.IntType()
KEY_INT = t.IntType(nullable=False)
STRING = t.VarCharType(length=t.MAX_LENGTH)
BOOLEAN = t.BooleanType()
INT_ARRAY = t.ArrayType(t.IntType())
INT_STRING_MAP = t.MapType(t.IntType(nullable=False), STRING)

KEY_DOMAIN: tuple[Value, ...] = (0, 1, 2, 3, 4, 5)
PARTITION_DOMAIN: tuple[Value, ...] = (0, 1)
DOMAINS: Mapping[str, tuple[Value, ...]] = {
    "INT": (None, 0, 1, 2, 3, -1),
    "STRING": (None, "a", "b", "cc", ""),
    "BOOLEAN": (None, True, False),
    "ARRAY": (None, [], [1], [1, 2], [2, 2]),
    "MAP": (None, {}, {1: "a"}, {1: "b", 2: "c"}),
}
"""Values per type root: a few, so that keys collide and equal values repeat."""
NON_ZERO_DOMAIN: tuple[Value, ...] = (1, -1, 2, -2, 3)
"""For ``product``: a retraction divides, and Java's integer division by zero throws; no null
(a retraction meeting a null product: expected_differences.md, "product retraction")."""
NON_BLANK_DOMAIN: tuple[Value, ...] = (None, "a", "b", "cc")
"""For ``listagg``: 0.9 joins blank strings, main skips them (expected_differences.md,
"listagg blank")."""
SEQUENCE_DOMAIN: tuple[Value, ...] = (0, 1, 2, 3, 4)


def type_root(data_type: t.DataType) -> str:
    """The domain name of a column type."""
    if isinstance(data_type, t.ArrayType):
        return "ARRAY"
    if isinstance(data_type, t.MapType):
        return "MAP"
    if isinstance(data_type, t.VarCharType):
        return "STRING"
    if isinstance(data_type, t.BooleanType):
        return "BOOLEAN"
    return "INT"


def columns(*specs: tuple[str, t.DataType]) -> tuple[t.DataField, ...]:
    return tuple(t.DataField(i, name, dtype) for i, (name, dtype) in enumerate(specs))


# --------------------------------------------------------------------------------------------
# Known differences from Java 0.9 (names of conformance/expected_differences.md entries)
# --------------------------------------------------------------------------------------------

BATCH_READ_ROW_KINDS = "Batch read row kinds"
PARTIAL_UPDATE_RETRACTION_FIRST = "partial-update merges that start with a retraction (0.9 vs main)"
REMOVE_RECORD_ON_DELETE = "`partial-update.remove-record-on-delete` (0.9 vs main)"
AGGREGATE_NULL_RETRACTION = "Aggregate retraction meeting a null (0.9 vs main)"
LISTAGG_BLANK = "`listagg` blank values (0.9 vs main)"
FULL_COMPACTION_DELTA_COMMITS = (
    "`full-compaction.delta-commits` / `changelog-producer = full-compaction`"
)
SEQUENCE_FIELD_DELETES = "`sequence.field` with deletes"
NESTED_UPDATE_NULL_ACCUMULATOR = "`nested_update` from a null accumulator (0.9 vs main)"
JAVA_PARQUET_NESTED_ROWS = "Java 0.9 Parquet reader and ARRAY<ROW>"


# --------------------------------------------------------------------------------------------
# Engine option combinations (the differential suite)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Combination:
    """An engine option combination and what its histories may hold.

    ``kinds``: the row kinds written. ``domains``: per-column value domains overriding the type
    defaults. ``compactions``: whether explicit compaction steps are drawn. ``changelog``:
    whether the two engines' changelogs (``audit_log`` with ``incremental-between``) are
    compared with each other (each engine's changelog is always read by both readers).
    ``java_compacts_after_write``: the Java side fully compacts after each write (Java 0.9's
    writers ignore ``full-compaction.delta-commits``; expected_differences.md).

    ``adds_first``: in every write, each key's first record is an add (a drawn retraction there
    is written as ``+I``), so no merge starts with a retraction (expected_differences.md,
    "partial-update / aggregation merges that start with a retraction"). ``deletes_last``:
    a ``-D`` is its key's only record in its write and the key is never written again
    (expected_differences.md, "partial-update.remove-record-on-delete").

    ``differences``: the names of the conformance/expected_differences.md entries (the text of
    a bullet before its first ``": "``) that justify the combination's restrictions (row kinds
    left out, value domains narrowed, ``adds_first``, ``deletes_last``, the Java side's
    compaction after each write); the differential test checks each restriction is named.
    """

    name: str
    spec: TableSpec
    kinds: tuple[RowKind, ...] = ALL_KINDS
    domains: Mapping[str, tuple[Value, ...]] = field(default_factory=dict)
    compactions: bool = True
    changelog: bool = True
    adds_first: bool = False
    deletes_last: bool = False
    differences: tuple[str, ...] = ()

    @property
    def java_compacts_after_write(self) -> bool:
        return self.spec.option("changelog-producer") == "full-compaction"

    @property
    def rowkind_field(self) -> str | None:
        return self.spec.options.get("rowkind.field")

    def domain(self, data_field: t.DataField) -> tuple[Value, ...]:
        if data_field.name in self.domains:
            return self.domains[data_field.name]
        if data_field.name in self.spec.primary_keys:
            if data_field.name in self.spec.partition_keys:
                return PARTITION_DOMAIN
            return KEY_DOMAIN
        return DOMAINS[type_root(data_field.type)]


DEDUP_FIELDS = columns(("p", KEY_INT), ("k", KEY_INT), ("v", INT), ("s", STRING))
DEDUP = TableSpec(DEDUP_FIELDS, ("p", "k"), ("p",), {"bucket": "2"})
"""Deduplicate over a partitioned table with two buckets (bucketing and partitions too)."""
SIMPLE_FIELDS = columns(("k", KEY_INT), ("v", INT), ("s", STRING))
SIMPLE = TableSpec(SIMPLE_FIELDS, ("k",), (), {"bucket": "1"})

PARTIAL_UPDATE = SIMPLE.with_options(**{"merge-engine": "partial-update"})
SEQUENCE_GROUPS = TableSpec(
    columns(("k", KEY_INT), ("a", INT), ("b", STRING), ("g1", INT), ("c", INT), ("g2", INT)),
    ("k",),
    (),
    {
        "bucket": "1",
        "merge-engine": "partial-update",
        "fields.g1.sequence-group": "a,b",
        "fields.g2.sequence-group": "c",
        "fields.c.aggregate-function": "sum",
    },
)
AGGREGATION_RETRACT = TableSpec(
    columns(
        ("k", KEY_INT),
        ("s", INT),
        ("pr", INT),
        ("lv", STRING),
        ("ln", STRING),
        ("co", INT_ARRAY),
        ("mm", INT_STRING_MAP),
    ),
    ("k",),
    (),
    {
        "bucket": "1",
        "merge-engine": "aggregation",
        "fields.s.aggregate-function": "sum",
        "fields.pr.aggregate-function": "product",
        "fields.lv.aggregate-function": "last_value",
        "fields.ln.aggregate-function": "last_non_null_value",
        "fields.co.aggregate-function": "collect",
        "fields.mm.aggregate-function": "merge_map",
    },
)
"""Every column a function that can retract (-U / -D take the value back)."""
AGGREGATION_IGNORE_RETRACT = TableSpec(
    columns(
        ("k", KEY_INT),
        ("mx", INT),
        ("mn", INT),
        ("la", STRING),
        ("bo", BOOLEAN),
        ("ba", BOOLEAN),
        ("fv", INT),
        ("fn", STRING),
        ("cd", INT_ARRAY),
    ),
    ("k",),
    (),
    {
        "bucket": "1",
        "merge-engine": "aggregation",
        "fields.mx.aggregate-function": "max",
        "fields.mn.aggregate-function": "min",
        "fields.la.aggregate-function": "listagg",
        "fields.bo.aggregate-function": "bool_or",
        "fields.ba.aggregate-function": "bool_and",
        "fields.fv.aggregate-function": "first_value",
        "fields.fn.aggregate-function": "first_non_null_value",
        "fields.cd.aggregate-function": "collect",
        "fields.cd.distinct": "true",
        **{
            f"fields.{name}.ignore-retract": "true"
            for name in ("mx", "mn", "la", "bo", "ba", "fv", "fn", "cd")
        },
    },
)
"""Functions that cannot retract, each told to ignore retractions."""
FIRST_ROW = SIMPLE.with_options(**{"merge-engine": "first-row"})
SEQUENCE_FIELD = TableSpec(
    columns(("k", KEY_INT), ("v", INT), ("seq", INT)),
    ("k",),
    (),
    {"bucket": "1", "sequence.field": "seq"},
)
ROWKIND_FIELD = TableSpec(
    columns(("k", KEY_INT), ("v", INT), ("op", STRING)),
    ("k",),
    (),
    {"bucket": "1", "rowkind.field": "op"},
)
DV = {"deletion-vectors.enabled": "true"}
VARBINARY = t.VarBinaryType(length=t.MAX_LENGTH)
NESTED_ELEMENT = t.RowType(
    (t.DataField(10, "id", t.IntType(nullable=False)), t.DataField(11, "x", t.IntType()))
)
NESTED_ARRAY = t.ArrayType(NESTED_ELEMENT)
DEFAULT_VALUE = {"fields.v.default-value": "7", "fields.s.default-value": "dflt"}
"""0.9's ``fields.<f>.default-value``: nulls of read rows filled."""
SEQUENCE_FIELDS = TableSpec(
    columns(("k", KEY_INT), ("v", INT), ("s1", INT), ("s2", INT)),
    ("k",),
    (),
    {"bucket": "1", "sequence.field": "s1,s2"},
)
"""``sequence.field`` of two fields, compared in order."""
MULTI_FIELD_SEQUENCE_GROUPS = TableSpec(
    columns(
        ("k", KEY_INT),
        ("a", INT),
        ("b", STRING),
        ("g1", INT),
        ("g2", INT),
        ("c", INT),
        ("g3", INT),
    ),
    ("k",),
    (),
    {
        "bucket": "1",
        "merge-engine": "partial-update",
        "fields.g1,g2.sequence-group": "a,b",
        "fields.g3.sequence-group": "c",
        "fields.c.aggregate-function": "last_non_null_value",
    },
)
"""A sequence group ordered by two fields (``fields.g1,g2.sequence-group``)."""
AGGREGATION_SKETCHES = TableSpec(
    columns(
        ("k", KEY_INT),
        ("rb", VARBINARY),
        ("th", VARBINARY),
        ("hl", VARBINARY),
        ("nu", NESTED_ARRAY),
    ),
    ("k",),
    (),
    {
        "bucket": "1",
        "file.format": "orc",
        "merge-engine": "aggregation",
        "fields.rb.aggregate-function": "rbm32",
        "fields.th.aggregate-function": "theta_sketch",
        "fields.hl.aggregate-function": "hll_sketch",
        "fields.nu.aggregate-function": "nested_update",
        "fields.nu.nested-key": "id",
        **{f"fields.{name}.ignore-retract": "true" for name in ("rb", "th", "hl")},
    },
)
"""Binary unions (rbm32, theta and HLL sketches, none retracts) and ``nested_update`` keyed by
``id`` (retracts by key), in ORC (expected_differences.md, "Java 0.9 Parquet reader and
ARRAY<ROW>"). rbm64 is left out: the reference cannot write Java's 64-bit bitmap layout
(``reference.merge.sketches``)."""


def _producer(spec: TableSpec, producer: str) -> TableSpec:
    return spec.with_options(**{"changelog-producer": producer})


AGGREGATION_DOMAINS: Mapping[str, tuple[Value, ...]] = {
    "pr": NON_ZERO_DOMAIN,
    "la": NON_BLANK_DOMAIN,
    # 0.9's collect / merge_map throw on a null retraction (expected_differences.md)
    "co": tuple(v for v in DOMAINS["ARRAY"] if v is not None),
    "mm": tuple(v for v in DOMAINS["MAP"] if v is not None),
}
SKETCH_DOMAINS: Mapping[str, tuple[Value, ...]] = {
    # portable 32-bit roaring bitmaps of {}, {1}, {1, 2}, {3, 70000}
    "rb": (
        None,
        bytes.fromhex("3a30000000000000"),
        bytes.fromhex("3a3000000100000000000000100000000100"),
        bytes.fromhex("3a30000001000000000001001000000001000200"),
        bytes.fromhex("3a300000020000000000000001000000180000001a00000003007011"),
    ),
    # compact theta sketches (default seed) of the longs {1}, {1, 2}, {2, 3, 4}
    "th": (
        None,
        bytes.fromhex("01030300001acc9315f97dcbbd86a105"),
        bytes.fromhex("02030300001acc93020000000000000015f97dcbbd86a105c397fc1281709d1e"),
        bytes.fromhex(
            "02030300001acc93030000000000000040de2ee1c9db3d08c397fc1281709d1eba40b3c1da06695d"
        ),
    ),
    # compact HLL_4 sketches (lg_k 12) of the longs {1}, {1, 2}, {2, 3, 4}
    "hl": (
        None,
        bytes.fromhex("0201070c030801002bf2fb06"),
        bytes.fromhex("0201070c030802002bf2fb06862ff90d"),
        bytes.fromhex("0201070c03080300862ff90d7581660781bc5d06"),
    ),
    # rows of unique ids, already in Java's HashMap order of their keys
    "nu": (None, [], [(1, 1)], [(2, 3), (1, 2)], [(3, 4), (2, None)]),
}
"""Serialized bitmaps and sketches (made with pyroaring and Apache DataSketches for Python;
Java reads both), and nested rows whose ``id`` keys collide (expected_differences.md,
"`nested_update` from a null accumulator")."""
AGGREGATION_DIFFERENCES = (AGGREGATE_NULL_RETRACTION,)
NO_PARTIAL_PICKS = {"num-sorted-run.compaction-trigger": "100"}
"""Universal compaction never picks a subset of the runs (only full compactions merge)."""
COMBINATIONS: tuple[Combination, ...] = (
    Combination("deduplicate", DEDUP),
    Combination("deduplicate-ignore-delete", DEDUP.with_options(**{"ignore-delete": "true"})),
    Combination("deduplicate-dv", DEDUP.with_options(**DV)),
    Combination("partial-update", PARTIAL_UPDATE, ADD_KINDS),
    Combination(
        "partial-update-ignore-delete", PARTIAL_UPDATE.with_options(**{"ignore-delete": "true"})
    ),
    Combination(
        "partial-update-remove-record-on-delete",
        PARTIAL_UPDATE.with_options(
            **{"partial-update.remove-record-on-delete": "true"}, **NO_PARTIAL_PICKS
        ),
        (INS, UA, DEL),
        deletes_last=True,
        differences=(REMOVE_RECORD_ON_DELETE,),
    ),
    Combination(
        "partial-update-sequence-groups",
        SEQUENCE_GROUPS,
        adds_first=True,
        differences=(PARTIAL_UPDATE_RETRACTION_FIRST,),
    ),
    Combination("partial-update-dv", PARTIAL_UPDATE.with_options(**DV), ADD_KINDS),
    Combination(
        "aggregation-retract",
        AGGREGATION_RETRACT,
        domains=AGGREGATION_DOMAINS,
        adds_first=True,
        differences=AGGREGATION_DIFFERENCES,
    ),
    Combination(
        "aggregation-ignore-retract",
        AGGREGATION_IGNORE_RETRACT,
        domains=AGGREGATION_DOMAINS,
        differences=(LISTAGG_BLANK,),
    ),
    Combination(
        "aggregation-dv",
        AGGREGATION_RETRACT.with_options(**DV),
        domains=AGGREGATION_DOMAINS,
        adds_first=True,
        differences=AGGREGATION_DIFFERENCES,
    ),
    Combination("first-row", FIRST_ROW, (INS,)),
    Combination("first-row-ignore-delete", FIRST_ROW.with_options(**{"ignore-delete": "true"})),
    # no deletes with a sequence field: expected_differences.md ("`sequence.field` with deletes")
    Combination(
        "sequence-field",
        SEQUENCE_FIELD,
        ADD_KINDS,
        {"seq": SEQUENCE_DOMAIN},
        differences=(SEQUENCE_FIELD_DELETES,),
    ),
    Combination("rowkind-field", ROWKIND_FIELD),
    Combination("changelog-input", _producer(DEDUP, "input")),
    Combination("changelog-lookup", _producer(SIMPLE, "lookup")),
    Combination("changelog-lookup-dv", _producer(SIMPLE, "lookup").with_options(**DV)),
    Combination(
        "changelog-full-compaction",
        _producer(SIMPLE, "full-compaction"),
        differences=(FULL_COMPACTION_DELTA_COMMITS,),
    ),
    Combination(
        "changelog-lookup-aggregation",
        _producer(AGGREGATION_RETRACT, "lookup"),
        domains=AGGREGATION_DOMAINS,
        adds_first=True,
        differences=AGGREGATION_DIFFERENCES,
    ),
    Combination(
        "changelog-lookup-partial-update-sequence-groups",
        _producer(SEQUENCE_GROUPS, "lookup"),
        adds_first=True,
        differences=(PARTIAL_UPDATE_RETRACTION_FIRST,),
    ),
    Combination("changelog-lookup-first-row", _producer(FIRST_ROW, "lookup"), (INS,)),
    Combination(
        "changelog-full-compaction-aggregation",
        _producer(AGGREGATION_RETRACT, "full-compaction"),
        domains=AGGREGATION_DOMAINS,
        adds_first=True,
        differences=(*AGGREGATION_DIFFERENCES, FULL_COMPACTION_DELTA_COMMITS),
    ),
)
EXTENDED_COMBINATIONS: tuple[Combination, ...] = (
    Combination("deduplicate-default-value", DEDUP.with_options(**DEFAULT_VALUE)),
    Combination(
        "partial-update-default-value", PARTIAL_UPDATE.with_options(**DEFAULT_VALUE), ADD_KINDS
    ),
    Combination(
        "sequence-fields",
        SEQUENCE_FIELDS,
        ADD_KINDS,
        {"s1": (None, 0, 1, 2), "s2": (None, 0, 1)},
        differences=(SEQUENCE_FIELD_DELETES,),
    ),
    Combination(
        "partial-update-multi-field-sequence-groups",
        MULTI_FIELD_SEQUENCE_GROUPS,
        domains={"g1": (None, 0, 1), "g2": (None, 0, 1), "g3": (None, 0, 1)},
        adds_first=True,
        differences=(PARTIAL_UPDATE_RETRACTION_FIRST,),
    ),
    Combination(
        "aggregation-sketches",
        AGGREGATION_SKETCHES,
        domains=SKETCH_DOMAINS,
        differences=(
            NESTED_UPDATE_NULL_ACCUMULATOR,
            JAVA_PARQUET_NESTED_ROWS,
        ),
    ),
    Combination(
        "changelog-lookup-row-deduplicate",
        _producer(SIMPLE, "lookup").with_options(**{"changelog-producer.row-deduplicate": "true"}),
    ),
    Combination(
        "changelog-full-compaction-row-deduplicate",
        _producer(SIMPLE, "full-compaction").with_options(
            **{"changelog-producer.row-deduplicate": "true"}
        ),
        differences=(FULL_COMPACTION_DELTA_COMMITS,),
    ),
)
"""Combinations added after the first differential pass (default values, two sequence fields,
a two-field sequence group, binary sketches and nested_update, row-deduplicate). Kept apart
from ``COMBINATIONS`` so that suites drawing from it (``spark_workloads``) opt in explicitly."""
DIFFERENTIAL_COMBINATIONS = COMBINATIONS + EXTENDED_COMBINATIONS
"""Every combination the Java differential (``test_reference_vs_java``) runs."""
COMBINATIONS_BY_NAME = {combination.name: combination for combination in DIFFERENTIAL_COMBINATIONS}


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------


@st.composite
def changes(draw: st.DrawFn, combination: Combination) -> Change:
    """One row and its kind. With ``rowkind.field`` the kind is written into that column and
    the row itself is an insert (the field decides)."""
    kind = draw(st.sampled_from(combination.kinds))
    values: list[Value] = []
    for data_field in combination.spec.fields:
        if data_field.name == combination.rowkind_field:
            values.append(kind.short_string)
        else:
            values.append(draw(st.sampled_from(combination.domain(data_field))))
    return (INS if combination.rowkind_field else kind), tuple(values)


def compute_key(combination: Combination, row: Row) -> Row:
    names = combination.spec.field_names
    return tuple(row[names.index(key)] for key in combination.spec.primary_keys)


def apply_adds_first(combination: Combination, write: Write) -> Write:
    """``adds_first``: a key's first record in the write made an insert if it retracts."""
    seen: set[Row] = set()
    changes: list[Change] = []
    for kind, row in write.changes:
        key = compute_key(combination, row)
        first = key not in seen
        seen.add(key)
        changes.append((INS if first and kind.is_retract else kind, row))
    return replace(write, changes=tuple(changes))


def apply_deletes_last(combination: Combination, steps: Sequence[Step]) -> tuple[Step, ...]:
    """``deletes_last``: drop what would write a deleted key again or share its write with its
    ``-D``; writes left empty are dropped."""
    deleted: set[Row] = set()
    kept: list[Step] = []
    for step in steps:
        if not isinstance(step, Write):
            kept.append(step)
            continue
        deleting = {
            compute_key(combination, row) for kind, row in step.changes if kind is DEL
        } - deleted
        changes: list[Change] = []
        for kind, row in step.changes:
            key = compute_key(combination, row)
            if key in deleted or (key in deleting and kind is not DEL):
                continue
            if key in deleting and any(compute_key(combination, r) == key for _, r in changes):
                continue
            changes.append((kind, row))
        deleted |= deleting
        if changes:
            kept.append(replace(step, changes=tuple(changes)))
    return tuple(kept)


def apply_rules(combination: Combination, steps: Sequence[Step]) -> tuple[Step, ...]:
    """The combination's history rules (``adds_first``, ``deletes_last``)."""
    if combination.adds_first:
        steps = [apply_adds_first(combination, s) if isinstance(s, Write) else s for s in steps]
    if combination.deletes_last:
        return apply_deletes_last(combination, steps)
    return tuple(steps)


def writes(combination: Combination, max_rows: int = 6) -> st.SearchStrategy[Write]:
    rows = st.lists(changes(combination), min_size=1, max_size=max_rows)
    return rows.map(lambda drawn: Write(tuple(drawn)))


def steps(combination: Combination, max_rows: int = 6) -> st.SearchStrategy[Step]:
    """A write three times in four, else a (full or universal) compaction."""
    write = writes(combination, max_rows)
    if not combination.compactions:
        return write
    return st.one_of(write, write, write, st.builds(Compact, full=st.booleans()))


def histories(
    combination: Combination, max_steps: int = 5, max_rows: int = 6
) -> st.SearchStrategy[tuple[Step, ...]]:
    """A write, then up to ``max_steps - 1`` more steps."""
    rest = st.lists(steps(combination, max_rows), max_size=max_steps - 1)
    return st.tuples(writes(combination, max_rows), rest).map(
        lambda drawn: apply_rules(combination, (drawn[0], *drawn[1]))
    )


def workloads(
    combination: Combination, max_steps: int = 5, max_rows: int = 6
) -> st.SearchStrategy[Workload]:
    return histories(combination, max_steps, max_rows).map(
        lambda drawn: Workload(combination.spec, drawn)
    )


# --------------------------------------------------------------------------------------------
# Table kinds (the table matrix)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableKind:
    """A table layout of the matrix: its spec (without ``file.format``), the row kinds its
    histories may hold and whether a partition overwrite is valid for it."""

    name: str
    spec: TableSpec
    kinds: tuple[RowKind, ...]
    overwrite: bool = True

    def for_format(self, file_format: str) -> TableSpec:
        return self.spec.with_options(**{"file.format": file_format})


MATRIX_FIELDS = columns(("p", KEY_INT), ("k", KEY_INT), ("v", INT), ("s", STRING))
APPEND_UNAWARE = TableSpec(MATRIX_FIELDS, (), ("p",), {"bucket": "-1"})
APPEND_FIXED = TableSpec(MATRIX_FIELDS, (), ("p",), {"bucket": "2", "bucket-key": "k"})
PK_FIXED = TableSpec(MATRIX_FIELDS, ("p", "k"), ("p",), {"bucket": "2"})
PK_DYNAMIC = TableSpec(
    MATRIX_FIELDS, ("p", "k"), ("p",), {"bucket": "-1", "dynamic-bucket.target-row-num": "3"}
)
PK_CROSS_PARTITION = TableSpec(MATRIX_FIELDS, ("k",), ("p",), {"bucket": "-1"})

APPEND_COMPACTION = {"compaction.min.file-num": "2", "compaction.max.file-num": "2"}
"""Append compaction picks any two small files (the defaults wait for 5 or 50 files, more than
a matrix history writes)."""

TABLE_KINDS: tuple[TableKind, ...] = (
    TableKind("append-unaware", APPEND_UNAWARE.with_options(**APPEND_COMPACTION), (INS,)),
    TableKind("append-fixed-bucket-key", APPEND_FIXED.with_options(**APPEND_COMPACTION), (INS,)),
    TableKind("pk-fixed", PK_FIXED, ALL_KINDS),
    TableKind("pk-dynamic", PK_DYNAMIC, ALL_KINDS),
    # an overwrite of a cross-partition table would have to drop the global index's keys of
    # the partition; Java's harness cannot write such tables to compare, so none is drawn
    TableKind("pk-cross-partition", PK_CROSS_PARTITION, (INS, UA, DEL), overwrite=False),
    TableKind(
        "pk-partial-update",
        PK_FIXED.with_options(
            **{"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"}
        ),
        (INS, UA, DEL),
    ),
    TableKind(
        "pk-aggregation",
        PK_FIXED.with_options(
            **{
                "merge-engine": "aggregation",
                "fields.v.aggregate-function": "sum",
                "fields.s.aggregate-function": "listagg",
                "fields.s.ignore-retract": "true",
            }
        ),
        ALL_KINDS,
    ),
    TableKind("pk-first-row", PK_FIXED.with_options(**{"merge-engine": "first-row"}), (INS,)),
    TableKind("pk-dv", PK_FIXED.with_options(**DV), ALL_KINDS),
    TableKind("pk-changelog-input", _producer(PK_FIXED, "input"), ALL_KINDS),
    TableKind("pk-changelog-lookup", _producer(PK_FIXED, "lookup"), ALL_KINDS),
    TableKind("pk-changelog-full-compaction", _producer(PK_FIXED, "full-compaction"), ALL_KINDS),
)


def unpartitioned(kind: TableKind) -> TableKind:
    """``kind`` without partition keys: ``p`` is an ordinary column (part of the primary key of
    primary-key kinds) and an overwrite replaces the whole table."""
    return replace(
        kind, name=f"{kind.name}-unpartitioned", spec=replace(kind.spec, partition_keys=())
    )


UNPARTITIONED_TABLE_KINDS: tuple[TableKind, ...] = tuple(
    unpartitioned(kind) for kind in TABLE_KINDS if kind.name != "pk-cross-partition"
)
"""Every kind of ``TABLE_KINDS`` unpartitioned (a cross-partition table needs partitions)."""
MATRIX_TABLE_KINDS = TABLE_KINDS + UNPARTITIONED_TABLE_KINDS
TABLE_KINDS_BY_NAME = {kind.name: kind for kind in MATRIX_TABLE_KINDS}


def matrix_overwrite(kind: TableKind) -> Mapping[str, Value]:
    """What the matrix histories overwrite: partition ``p = 1``, or the whole unpartitioned
    table."""
    return {"p": 1} if kind.spec.partition_keys else {}


def matrix_history(kind: TableKind) -> tuple[Step, ...]:
    """The fixed history of the default matrix: inserts over both partitions, updates, deletes
    (where the kind takes them), a full compaction, a partition overwrite (where valid), more
    inserts, a universal compaction."""
    kinds = set(kind.kinds)

    def rows(pairs: Sequence[tuple[int, int]], value: int, row_kind: RowKind = INS) -> Write:
        return Write(tuple((row_kind, (p, k, value + k, f"s{value + k}")) for p, k in pairs))

    first = rows([(0, k) for k in range(4)] + [(1, k) for k in range(4, 7)], 10)
    update_kind = UA if UA in kinds else INS
    second = rows([(0, 1), (0, 2), (1, 5), (0, 7), (0, 4)], 20, update_kind)
    history: list[Step] = [first, second]
    if DEL in kinds:
        deletes = rows([(0, 2), (1, 6)], 20, DEL)
        if UB in kinds:
            deletes = Write((*deletes.changes, (UB, (0, 1, 21, "s21"))))
        history.append(deletes)
    history.append(Compact(full=True))
    if kind.overwrite:
        history.append(
            Write(
                tuple((INS, (1, k, 30 + k, None)) for k in (4, 8)), overwrite=matrix_overwrite(kind)
            )
        )
    history.append(rows([(0, 3), (0, 9), (1, 9)], 40, update_kind))
    history.append(Compact(full=False))
    return tuple(history)


def matrix_combination(kind: TableKind) -> Combination:
    """The history rules of a matrix kind, as a :class:`Combination`: Java 0.9 reads what the
    reference (which follows main) merged, so the kinds whose merges differ between 0.9 and
    main avoid the same inputs as the differential combinations (``adds_first`` for
    aggregation, a listagg column without blank strings, ``deletes_last`` with
    ``partial-update.remove-record-on-delete``)."""
    engine = kind.spec.option("merge-engine", "deduplicate")
    if engine == "aggregation":
        return Combination(
            kind.name,
            kind.spec,
            kind.kinds,
            {"s": NON_BLANK_DOMAIN},
            adds_first=True,
            differences=(AGGREGATE_NULL_RETRACTION, LISTAGG_BLANK),
        )
    if kind.spec.option("partial-update.remove-record-on-delete") == "true":
        return Combination(
            kind.name,
            kind.spec,
            kind.kinds,
            deletes_last=True,
            differences=(REMOVE_RECORD_ON_DELETE,),
        )
    return Combination(kind.name, kind.spec, kind.kinds)


@st.composite
def matrix_histories(draw: st.DrawFn, kind: TableKind, max_steps: int = 10) -> tuple[Step, ...]:
    """Random matrix histories (the slow tier): writes of the kind's row kinds over both
    partitions, compactions, and partition overwrites where valid, under the kind's history
    rules (:func:`matrix_combination`)."""
    combination = matrix_combination(kind)
    row = st.tuples(
        st.sampled_from(kind.kinds),
        st.tuples(
            st.sampled_from(PARTITION_DOMAIN),
            st.sampled_from(KEY_DOMAIN),
            st.sampled_from(DOMAINS["INT"]),
            st.sampled_from(combination.domain(kind.spec.fields[3])),
        ),
    )
    batch = st.lists(row, min_size=1, max_size=8).map(tuple)
    step_options: list[st.SearchStrategy[Step]] = [
        batch.map(Write),
        batch.map(Write),
        st.builds(Compact, full=st.booleans()),
    ]
    if kind.overwrite:
        inserts = st.lists(
            st.tuples(st.sampled_from(KEY_DOMAIN), st.sampled_from(DOMAINS["INT"])), max_size=4
        )
        step_options.append(
            inserts.map(
                lambda drawn: Write(
                    tuple((INS, (1, k, v, "o")) for k, v in drawn),
                    overwrite=matrix_overwrite(kind),
                )
            )
        )
    first = draw(batch.map(Write))
    rest = draw(st.lists(st.one_of(*step_options), min_size=2, max_size=max_steps - 1))
    return apply_rules(combination, (first, *rest))
