"""Every disagreement the reference-vs-spark_impl differential found, as a small fixed workload.

Each :class:`Regression` is a workload (data, no randomness), the check that disagreed, and, while
the disagreement stands, which side is wrong and why (``wrong``: the test is a strict xfail with
that reason; when the side is fixed the xfail turns into a failure and the entry is updated to
``wrong=None``, so the case stays as a plain regression test).

Sides are judged against the spec and Java Paimon 0.9.0 (``/work/paimon-src``, tag
``release-0.9.0``). A "gap" is spark_impl refusing with ``UnsupportedFeature`` a table the
reference (and Java) writes: not a wrong answer, but a disagreement all the same; the generator
leaves open gaps out (``spark_workloads.without_gap_columns``) so the random suite measures the
rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal as D

from conformance.differential.run_spark import Check
from conformance.differential.spark_workloads import SparkWorkload, WriteRoute
from conformance.differential.workloads import (
    DEL,
    INS,
    SEQUENCE_GROUPS,
    UA,
    Compact,
    Step,
    TableSpec,
    Workload,
    Write,
    columns,
)
from reference.spec import types as t

PREPARED, PLAIN = WriteRoute.PREPARED, WriteRoute.PLAIN

KEY_VALUE = columns(
    ("k", t.IntType(nullable=False)), ("v", t.IntType()), ("s", t.VarCharType(t.MAX_LENGTH))
)
PK_ONE_BUCKET = TableSpec(KEY_VALUE, ("k",), (), {"bucket": "1"})
APPEND_UNAWARE = TableSpec(KEY_VALUE, (), (), {"bucket": "-1"})
COLLECT_DISTINCT = TableSpec(
    columns(("k", t.IntType(nullable=False)), ("c", t.ArrayType(t.IntType()))),
    ("k",),
    (),
    {
        "bucket": "1",
        "merge-engine": "aggregation",
        "fields.c.aggregate-function": "collect",
        "fields.c.distinct": "true",
    },
)

COLLECT_DV = TableSpec(
    columns(
        ("p", t.VarCharType(t.MAX_LENGTH, nullable=False)),
        ("k", t.DecimalType(10, 2, nullable=False)),
        ("s", t.IntType()),
        ("co", t.ArrayType(t.IntType())),
    ),
    ("p", "k"),
    ("p",),
    {
        "bucket": "1",
        "merge-engine": "aggregation",
        "fields.co.aggregate-function": "collect",
        "deletion-vectors.enabled": "true",
        "file.format": "orc",
    },
)
MERGE_MAP = TableSpec(
    columns(
        ("k", t.IntType(nullable=False)),
        ("m", t.MapType(t.IntType(nullable=False), t.VarCharType(t.MAX_LENGTH))),
    ),
    ("k",),
    (),
    {"bucket": "1", "merge-engine": "aggregation", "fields.m.aggregate-function": "merge_map"},
)


@dataclass(frozen=True)
class Regression:
    name: str
    check: Check
    workload: SparkWorkload
    wrong: str | None
    """Which side is wrong and why, while it is (``None``: both agree now)."""


def workload(name: str, spec: TableSpec, *steps: tuple[Step, WriteRoute | None]) -> SparkWorkload:
    return SparkWorkload(
        name, Workload(spec, tuple(s for s, _ in steps)), tuple(r for _, r in steps)
    )


def inserts(*rows: tuple[object, ...], overwrite: bool = False) -> Write:
    return Write(tuple((INS, row) for row in rows), overwrite={} if overwrite else None)


def producer_gap(producer: str, second: Step) -> Regression:
    """spark_impl refused a changelog producer (a write, then ``second``); fixed:
    ``spark_impl.changelog`` produces the lookup and full-compaction changelogs."""
    spec = PK_ONE_BUCKET.with_options(**{"changelog-producer": producer})
    steps = (
        (inserts((1, 1, "a")), PREPARED),
        (second, None if isinstance(second, Compact) else PREPARED),
    )
    return Regression(
        f"spark-gap-{producer}-producer",
        Check.REFUSAL,
        workload(f"{producer} changelog", spec, *steps),
        None,
    )


REGRESSIONS: tuple[Regression, ...] = (
    Regression(
        "reference-overwrite-restores-sequence-numbers",
        Check.STRUCTURE,
        workload(
            "overwrite after a write",
            PK_ONE_BUCKET,
            (inserts((1, 1, "a")), PLAIN),
            (inserts((1, 2, "b"), overwrite=True), PLAIN),
        ),
        None,  # fixed: store.write rule 11, an overwrite ignores the base snapshot's files
    ),
    Regression(
        "reference-dynamic-overwrite-keeps-hash-index",
        Check.STRUCTURE,
        workload(
            "a dynamic-bucket table overwritten",
            PK_ONE_BUCKET.with_options(bucket="-1", **{"dynamic-bucket.target-row-num": "2"}),
            (inserts((1, 1, "a"), (2, 2, "b")), PREPARED),
            (inserts((3, 3, "c"), (4, 4, "d"), overwrite=True), PREPARED),
        ),
        None,  # fixed: store.write rule 11, an overwrite assigns with an empty HASH index
    ),
    Regression(
        "spark-dynamic-bucket-assigns-after-ignore-delete",
        Check.STRUCTURE,
        workload(
            "a key with only an ignored delete, then two new keys",
            PK_ONE_BUCKET.with_options(
                bucket="-1", **{"dynamic-bucket.target-row-num": "2", "ignore-delete": "true"}
            ),
            (Write(((DEL, (1, 1, "a")), (INS, (2, 2, "b")), (INS, (3, 3, "c")))), PREPARED),
        ),
        None,  # fixed: spark_impl.write.route_dynamic assigns before the row rules drop
    ),
    Regression(
        "spark-lookup-compaction-keeps-lone-record-kind",
        Check.STRUCTURE,
        workload(
            "partial-update with deletion vectors: a +U alone merged by a lookup compaction",
            PK_ONE_BUCKET.with_options(
                **{"merge-engine": "partial-update", "deletion-vectors.enabled": "true"}
            ),
            (inserts((1, 0, None)), PLAIN),
            (Write(((UA, (5, 0, None)),)), PLAIN),
            (Compact(full=True), None),
        ),
        None,  # fixed: spark_impl.compact.run_lookup_step merges lone records too
    ),
    Regression(
        "spark-read-merges-lone-record",
        Check.ROWS,
        workload(
            "a lone record whose sequence group's field is null",
            SEQUENCE_GROUPS,
            (inserts((2, -1, "a", None, 3, 0)), PLAIN),
        ),
        None,  # fixed: spark_impl.merge.merge_with_lone_records reads a lone record as written
    ),
    Regression(
        "spark-lookup-compaction-list-column",
        Check.REFUSAL,
        workload(
            "aggregation with deletion vectors and an ARRAY column: write, overwrite, write",
            COLLECT_DV,
            (
                inserts(
                    ("y z", D("1.25"), 0, []),
                    ("x", D("1.25"), 1, []),
                    ("y z", D("0.00"), 0, [2, 2]),
                ),
                PREPARED,
            ),
            (
                inserts(
                    ("y z", D("-3.10"), 2, [1]),
                    ("y z", D("1.25"), -1, []),
                    ("x", D("1.25"), -1, [2, 2]),
                    overwrite=True,
                ),
                PLAIN,
            ),
            (
                inserts(
                    ("y z", D("1.25"), None, [2, 2]),
                    ("x", D("0.00"), 1, [1, 2]),
                    ("x", D("-3.10"), 3, [2, 2]),
                ),
                PREPARED,
            ),
        ),
        None,  # fixed: spark_impl.compact.lookup_records joins the key columns only
    ),
    producer_gap("lookup", Write(((UA, (1, 2, "b")),))),
    producer_gap("full-compaction", Compact(full=True)),
    Regression(
        "spark-gap-append-compaction",
        Check.REFUSAL,
        workload(
            "append compaction",
            APPEND_UNAWARE.with_options(**{"compaction.max.file-num": "2"}),
            (inserts((1, 1, "a")), PLAIN),
            (inserts((2, 2, "b")), PLAIN),
            (Compact(full=True), None),
        ),
        None,  # fixed: spark_impl.append_compact
    ),
    Regression(
        "spark-gap-collect-distinct",
        Check.REFUSAL,
        workload(
            "collect distinct merged",
            COLLECT_DISTINCT,
            (Write(((INS, (1, [1, 2])), (INS, (1, [2, 3])))), PLAIN),
        ),
        None,  # fixed: spark_impl.merge_slow._collect keeps Java's HashSet order
    ),
    Regression(
        "spark-gap-merge-map",
        Check.REFUSAL,
        workload(
            "merge_map merged",
            MERGE_MAP,
            (Write(((INS, (1, {1: "a"})), (INS, (1, {2: "b"})))), PLAIN),
        ),
        None,  # fixed: spark_impl.merge_slow merges merge_map in Java HashMap order
    ),
)
REGRESSIONS_BY_NAME = {regression.name: regression for regression in REGRESSIONS}
