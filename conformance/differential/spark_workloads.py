"""Workloads of the reference-vs-spark_impl differential: the table layouts Spark covers.

Built on :mod:`conformance.differential.workloads` (its records, its engine option
combinations and their history rules), widened along the axes a Spark write path has of its
own: the key and partition column types (bucket hashing, partition paths), extra value columns
of several types (file formats, statistics, Arrow/Spark conversions), partitioning, the bucket
mode (fixed with 1-3 buckets, dynamic, unaware append, fixed append with a bucket key), the
file format, deletion vectors on and off, whole-table (or, with ``dynamic-partition-overwrite``,
per-partition) overwrites, and which Spark write route a step takes (``write_table``, which
shuffles by bucket, or a plain ``df.write.format("paimon")``, which compacts on the driver).

A :class:`SparkWorkload` is a :class:`workloads.Workload` plus the write route of each step and
a label saying how it was drawn (the combination and layout), so a failure names its shape.

Value domains stay tiny (a handful of values per column) so keys collide and every merge path
runs. Floating values are exact in binary (no rounding between engines); timestamps are whole
milliseconds (Spark keeps microseconds, Paimon ``TIMESTAMP(3)`` milliseconds).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import Enum

from hypothesis import strategies as st

from conformance.differential.workloads import (
    COMBINATIONS,
    DOMAINS,
    INS,
    Combination,
    Compact,
    Step,
    TableSpec,
    Workload,
    Write,
    apply_rules,
    changes,
)
from reference.spec import types as t
from reference.spec.data import Timestamp, Value

# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


class WriteRoute(Enum):
    """How spark_impl receives one write step."""

    PREPARED = "write_table"
    """``spark_impl.write_table``: bucket / assigner column, shuffle by (partition, bucket)."""
    PLAIN = "df.write"
    """``df.write.format("paimon")``: the task buckets itself, the driver compacts."""


@dataclass(frozen=True)
class SparkWorkload:
    """A workload, the Spark write route of each step (``None`` for compactions) and how it
    was drawn."""

    label: str
    workload: Workload
    routes: tuple[WriteRoute | None, ...]

    @property
    def spec(self) -> TableSpec:
        return self.workload.spec

    @property
    def steps(self) -> tuple[Step, ...]:
        return self.workload.steps


# --------------------------------------------------------------------------------------------
# Column types and their domains
# --------------------------------------------------------------------------------------------

EPOCH_DAY_2022 = (datetime.date(2022, 1, 1) - datetime.date(1970, 1, 1)).days
MILLIS_2023 = 1_700_000_000_000

KEY_TYPES: Mapping[str, tuple[t.DataType, tuple[Value, ...]]] = {
    "INT": (t.IntType(nullable=False), (0, 1, 2, 3, 4, 5)),
    "BIGINT": (t.BigIntType(nullable=False), (0, 1, -1, 2**33, 2**40 + 7, -(2**35))),
    "STRING": (t.VarCharType(t.MAX_LENGTH, nullable=False), ("a", "b", "cc", "", "ddd", "é")),
    "DATE": (t.DateType(nullable=False), tuple(EPOCH_DAY_2022 + d for d in (0, 1, 2, 40, -3))),
    "DECIMAL": (
        t.DecimalType(10, 2, nullable=False),
        (Decimal("0.00"), Decimal("1.25"), Decimal("-3.10"), Decimal("12345.67")),
    ),
}
"""Primary-key (and bucket-key) column types: each hashes differently into buckets."""

PARTITION_TYPES: Mapping[str, tuple[t.DataType, tuple[Value, ...]]] = {
    "INT": (t.IntType(nullable=False), (0, 1)),
    "STRING": (t.VarCharType(t.MAX_LENGTH, nullable=False), ("x", "y z")),
    "DATE": (t.DateType(nullable=False), (EPOCH_DAY_2022, EPOCH_DAY_2022 + 31)),
}
"""Partition column types: each renders its directory name differently."""

EXTRA_TYPES: Mapping[str, tuple[t.DataType, tuple[Value, ...]]] = {
    "BIGINT": (t.BigIntType(), (None, 0, 7, -(2**40))),
    "DOUBLE": (t.DoubleType(), (None, 0.0, 1.5, -2.25)),
    "DECIMAL": (t.DecimalType(10, 2), (None, Decimal("0.00"), Decimal("9.99"), Decimal("-1.50"))),
    "DATE": (t.DateType(), (None, EPOCH_DAY_2022, EPOCH_DAY_2022 + 400)),
    "TIMESTAMP": (
        t.TimestampType(3),
        (None, Timestamp(MILLIS_2023), Timestamp(MILLIS_2023 + 1), Timestamp(0)),
    ),
    "BOOLEAN": (t.BooleanType(), DOMAINS["BOOLEAN"]),
    "STRING": (t.VarCharType(t.MAX_LENGTH), DOMAINS["STRING"]),
}
"""Extra value columns appended to a combination's own: every file format and statistics
path sees them; their merge function is the engine's default."""

PARTITION_COLUMN = "p"
KEY_COLUMN = "k"
FILE_FORMATS = ("parquet", "orc", "avro")
DV_OPTION = "deletion-vectors.enabled"
PRODUCER_OPTION = "changelog-producer"
MERGE_ENGINE_OPTION = "merge-engine"


def retype(
    fields: Sequence[t.DataField], name: str, data_type: t.DataType
) -> tuple[t.DataField, ...]:
    return tuple(replace(f, type=data_type) if f.name == name else f for f in fields)


def append_fields(
    fields: Sequence[t.DataField], extra: Sequence[tuple[str, t.DataType]]
) -> tuple[t.DataField, ...]:
    """``fields`` then ``extra``, with ids continuing after the largest one."""
    start = max((f.id for f in fields), default=-1) + 1
    added = (t.DataField(start + i, name, dtype) for i, (name, dtype) in enumerate(extra))
    return (*fields, *added)


def prepend_partition(
    fields: Sequence[t.DataField], data_type: t.DataType
) -> tuple[t.DataField, ...]:
    """A partition column first, the others' ids shifted after it."""
    shifted = tuple(replace(f, id=f.id + 1) for f in fields)
    return (t.DataField(0, PARTITION_COLUMN, data_type), *shifted)


# --------------------------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------------------------


SPARK_GAP_FUNCTIONS = (
    "merge_map_with_keytime",
    "rbm64",
    "nested_update",
    "nested_partial_update",
    "theta_sketch",
    "hll_sketch",
)
"""Aggregate functions spark_impl refuses to merge (``UnsupportedFeature``)."""


def is_gap_column(spec: TableSpec, name: str) -> bool:
    """A column whose merge spark_impl refuses: a gap aggregate function."""
    return spec.option(f"fields.{name}.aggregate-function") in SPARK_GAP_FUNCTIONS


def without_columns(spec: TableSpec, names: set[str]) -> TableSpec:
    """``spec`` without the columns ``names`` and their ``fields.<name>.*`` options."""
    if not names:
        return spec
    options = {
        k: v
        for k, v in spec.options.items()
        if not any(k.startswith(f"fields.{n}.") for n in names)
    }
    fields = tuple(f for f in spec.fields if f.name not in names)
    return TableSpec(fields, spec.primary_keys, spec.partition_keys, options)


def without_gap_columns(spec: TableSpec) -> TableSpec:
    """``spec`` without its gap columns, the rest of the layout kept."""
    return without_columns(spec, {f.name for f in spec.fields if is_gap_column(spec, f.name)})


def is_compacted_after_write(spec: TableSpec) -> bool:
    """A ``full-compaction`` producer table: the reference full-compacts each write in its
    commit, spark_impl's differential runner after it (``run_spark.SparkRunner``). No
    overwrites are drawn for it: the reference's overwrite commit drops its compaction's
    changelog (as Java's), a separate compaction after spark_impl's overwrite keeps it."""
    return spec.option(PRODUCER_OPTION, "none") == "full-compaction"


def supported_combinations() -> list[Combination]:
    """Every combination of ``workloads.COMBINATIONS`` (each changelog producer included);
    gap columns are taken out per layout (:func:`without_gap_columns`)."""
    return list(COMBINATIONS)


def sequence_group_fields(spec: TableSpec) -> list[str]:
    """The sequence fields of partial-update groups (``fields.<f>[,<f>].sequence-group``)."""
    prefix, suffix = "fields.", ".sequence-group"
    found = [k[len(prefix) : -len(suffix)] for k in spec.options if k.endswith(suffix)]
    return [name for names in found for name in names.split(",")]


NON_NULL_SEQUENCE_DOMAIN: tuple[Value, ...] = (0, 1, 2, 3, -1)
"""Sequence-group fields never null: spark_impl's reader merges a key's lone record, and a null
group sequence then drops the group's values where Java returns the record as written
(regression case ``spark-read-merges-lone-record``)."""


def is_dv_toggleable(spec: TableSpec) -> bool:
    """Deletion vectors go with every merge engine but first-row, and with the ``none`` and
    ``lookup`` producers (Java 0.9 refuses ``input`` / ``full-compaction`` with them)."""
    return spec.option(MERGE_ENGINE_OPTION, "deduplicate") != "first-row" and spec.option(
        PRODUCER_OPTION, "none"
    ) in ("none", "lookup")


def is_dynamic_allowed(spec: TableSpec) -> bool:
    """Dynamic bucket mode for primary keys that hold every partition key (no
    cross-partition index), without sequence groups, and without ``ignore-delete`` (spark_impl
    drops the ignored retractions before assigning buckets: regression case
    ``spark-dynamic-bucket-assigns-after-ignore-delete``)."""
    return not any(k.endswith(".sequence-group") for k in spec.options) and (
        spec.option("ignore-delete") != "true"
    )


@st.composite
def pk_combinations(draw: st.DrawFn) -> tuple[str, Combination, bool]:
    """A combination of ``workloads.COMBINATIONS`` given a layout: key type, partitioning,
    bucket mode, file format, deletion vectors, extra columns; and whether overwrites may be
    drawn."""
    base = draw(st.sampled_from(supported_combinations()))
    spec = without_gap_columns(base.spec)
    domains: dict[str, tuple[Value, ...]] = dict(base.domains)
    domains.update({name: NON_NULL_SEQUENCE_DOMAIN for name in sequence_group_fields(spec)})
    labels = [base.name]

    key_type_name = draw(st.sampled_from(sorted(KEY_TYPES)))
    key_type, key_domain = KEY_TYPES[key_type_name]
    fields = retype(spec.fields, KEY_COLUMN, key_type)
    domains[KEY_COLUMN] = key_domain
    labels.append(f"k:{key_type_name}")

    partitioned = PARTITION_COLUMN in spec.partition_keys or draw(st.booleans())
    partition_keys: tuple[str, ...] = ()
    if partitioned:
        partition_name = draw(st.sampled_from(sorted(PARTITION_TYPES)))
        partition_type, partition_domain = PARTITION_TYPES[partition_name]
        if PARTITION_COLUMN in spec.field_names:
            fields = retype(fields, PARTITION_COLUMN, partition_type)
        else:
            fields = prepend_partition(fields, partition_type)
        partition_keys = (PARTITION_COLUMN,)
        domains[PARTITION_COLUMN] = partition_domain
        labels.append(f"p:{partition_name}")
    primary_keys = (*partition_keys, *(k for k in spec.primary_keys if k not in partition_keys))

    extra_names = draw(st.lists(st.sampled_from(sorted(EXTRA_TYPES)), max_size=2, unique=True))
    extra = [(f"x_{name.lower()}", EXTRA_TYPES[name][0]) for name in extra_names]
    fields = append_fields(fields, extra)
    domains.update({f"x_{name.lower()}": EXTRA_TYPES[name][1] for name in extra_names})
    labels.extend(f"+{name}" for name in extra_names)

    options = dict(spec.options)
    bucket = draw(
        st.sampled_from(["1", "2", "3", "-1"] if is_dynamic_allowed(spec) else ["1", "2", "3"])
    )
    options["bucket"] = bucket
    if bucket == "-1":
        options["dynamic-bucket.target-row-num"] = str(draw(st.integers(2, 4)))
    labels.append(f"bucket:{bucket}")
    if is_dv_toggleable(spec):
        dv = draw(st.booleans())
        options.pop(DV_OPTION, None)
        if dv:
            options[DV_OPTION] = "true"
        labels.append("dv" if dv else "no-dv")
    file_format = draw(st.sampled_from(FILE_FORMATS))
    options["file.format"] = file_format
    labels.append(file_format)
    static_overwrite: bool = draw(st.booleans())
    if partition_keys and static_overwrite:
        options["dynamic-partition-overwrite"] = "false"
        labels.append("static-overwrite")

    table = TableSpec(fields, primary_keys, partition_keys, options)
    combination = replace(base, spec=table, domains=domains)
    overwrites = base.deletes_last is False and not is_compacted_after_write(spec)
    return " ".join(labels), combination, overwrites


@st.composite
def append_combinations(draw: st.DrawFn) -> tuple[str, Combination, bool]:
    """Append tables: unaware (``bucket = -1``) or fixed buckets over a bucket key, inserts
    only, partitioned or not, extra columns."""
    key_type_name = draw(st.sampled_from(sorted(KEY_TYPES)))
    key_type, key_domain = KEY_TYPES[key_type_name]
    fields: tuple[t.DataField, ...] = (
        t.DataField(0, KEY_COLUMN, key_type),
        t.DataField(1, "v", t.IntType()),
    )
    domains: dict[str, tuple[Value, ...]] = {KEY_COLUMN: key_domain, "v": DOMAINS["INT"]}
    labels = ["append", f"k:{key_type_name}"]
    partition_keys: tuple[str, ...] = ()
    if draw(st.booleans()):
        partition_name = draw(st.sampled_from(sorted(PARTITION_TYPES)))
        partition_type, domains[PARTITION_COLUMN] = PARTITION_TYPES[partition_name]
        fields = prepend_partition(fields, partition_type)
        partition_keys = (PARTITION_COLUMN,)
        labels.append(f"p:{partition_name}")
    extra_names = draw(st.lists(st.sampled_from(sorted(EXTRA_TYPES)), max_size=2, unique=True))
    fields = append_fields(fields, [(f"x_{n.lower()}", EXTRA_TYPES[n][0]) for n in extra_names])
    domains.update({f"x_{n.lower()}": EXTRA_TYPES[n][1] for n in extra_names})
    labels.extend(f"+{name}" for name in extra_names)
    bucket = draw(st.sampled_from(["-1", "1", "2"]))
    options = {"bucket": bucket, "file.format": draw(st.sampled_from(FILE_FORMATS))}
    if bucket != "-1":
        options["bucket-key"] = KEY_COLUMN
    labels.extend([f"bucket:{bucket}", options["file.format"]])
    max_files = draw(st.sampled_from([None, "2", "3"]))
    if max_files is not None:  # small enough for a few writes to compact
        options["compaction.max.file-num"] = max_files
        labels.append(f"max-files:{max_files}")
    spec = TableSpec(fields, (), partition_keys, options)
    combination = Combination(" ".join(labels), spec, (INS,), domains)
    return " ".join(labels), combination, True


# --------------------------------------------------------------------------------------------
# Histories
# --------------------------------------------------------------------------------------------


def overwrite_writes(combination: Combination, max_rows: int) -> st.SearchStrategy[Write]:
    """An overwrite: inserts only (a retraction has nothing to retract in what it replaces)."""
    inserts = replace(combination, kinds=(INS,))
    rows = st.lists(changes(inserts), min_size=1, max_size=max_rows)
    return rows.map(lambda drawn: Write(tuple(drawn), overwrite={}))


def spark_steps(
    combination: Combination, overwrites: bool, max_rows: int
) -> st.SearchStrategy[Step]:
    """Mostly writes; compactions (full or universal) and overwrites now and then."""
    rows = st.lists(changes(combination), min_size=1, max_size=max_rows)
    write = rows.map(lambda drawn: Write(tuple(drawn)))
    options: list[st.SearchStrategy[Step]] = [write, write, write]
    if combination.compactions:
        options.append(st.builds(Compact, full=st.booleans()))
    if overwrites:
        options.append(overwrite_writes(combination, max_rows))
    return st.one_of(*options)


@st.composite
def spark_workloads(draw: st.DrawFn, max_steps: int = 4, max_rows: int = 5) -> SparkWorkload:
    """A layout (primary-key combination three times in four, else an append table), a first
    write, up to ``max_steps - 1`` further steps, and a write route per write."""
    label, combination, overwrites = draw(
        st.one_of(pk_combinations(), pk_combinations(), pk_combinations(), append_combinations())
    )
    first = draw(st.lists(changes(combination), min_size=1, max_size=max_rows))
    rest = draw(st.lists(spark_steps(combination, overwrites, max_rows), max_size=max_steps - 1))
    steps = apply_rules(combination, (Write(tuple(first)), *rest))
    routes = tuple(
        draw(st.sampled_from(routes_for(combination.spec))) if isinstance(s, Write) else None
        for s in steps
    )
    return SparkWorkload(label, Workload(combination.spec, steps), routes)


def routes_for(spec: TableSpec) -> tuple[WriteRoute, ...]:
    """Dynamic-bucket tables need the prepared route (the assigner column); the rest take
    either."""
    if spec.primary_keys and spec.option("bucket") == "-1":
        return (WriteRoute.PREPARED,)
    return (WriteRoute.PREPARED, WriteRoute.PLAIN)
