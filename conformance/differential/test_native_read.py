"""Differential: ``spark_impl.read_table`` (the hybrid read: Spark's own Parquet/ORC reader for
splits that need no merge) against the reference and ``spark.read.format("paimon")``.

Each table kind is written by the reference (so the engine under test is never its own oracle)
and read three ways: the reference, the paimon data source (every split through Python), and
``read_table``. The test also states which way the splits went, so that a table kind meant to
exercise the native path cannot silently fall back to Python. Filters are applied to one reused
``read_table`` DataFrame one after the other (a pushed filter of one query must not leak into
the next) and compared with the reference's rows filtered in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from conformance.differential.compare import as_inserts, describe_difference
from conformance.differential.workloads import Change
from conformance.engines.base import arrow_to_changes
from conformance.unit.reference.store.commit_helpers import Record, message, pk_file
from reference import layout
from reference.errors import SpecViolation
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import RowKind, Timestamp
from reference.spec.deletion_vector import (
    DELETION_VECTORS_INDEX_TYPE,
    build_deletion_vector,
    encode_deletion_vector_file,
)
from reference.spec.manifest import DeletionVectorMeta, IndexFileMeta
from reference.spec.predicate import Leaf, PredicateOp
from reference.spec.schema import AddColumn, RenameColumn, UpdateColumnType
from reference.table import Table
from spark_impl.options import LOCAL_READ_MAX_ROWS_OPTION

pytestmark = pytest.mark.spark

IO = LocalFileIO()
KV_FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(2, "dt", t.VarCharType(t.MAX_LENGTH, nullable=False)),
)
TYPED_FIELDS = (
    t.DataField(0, "k", t.BigIntType(nullable=False)),
    t.DataField(1, "d", t.DecimalType(12, 3)),
    t.DataField(2, "ts", t.TimestampType(3)),
    t.DataField(3, "ts6", t.TimestampType(6)),
    t.DataField(4, "day", t.DateType()),
    t.DataField(5, "f", t.DoubleType()),
    t.DataField(6, "b", t.VarBinaryType(t.MAX_LENGTH)),
    t.DataField(7, "small", t.SmallIntType()),
)


def kv_rows(round_: int, count: int = 40) -> list[tuple[Any, ...]]:
    return [(i % 23, f"r{round_}-{i}" if i % 7 else None, "ab"[i % 2]) for i in range(count)]


def kv_kinds(round_: int, count: int = 40) -> list[RowKind]:
    choices = [RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.INSERT, RowKind.DELETE]
    return [choices[(i + round_) % len(choices)] for i in range(count)]


def make_kv(root: str, primary_keys: Sequence[str], options: dict[str, str], full: bool) -> None:
    table = Table.create(
        IO, root, KV_FIELDS, partition_keys=["dt"], primary_keys=primary_keys, options=options
    )
    retracting = primary_keys and options.get("merge-engine") != "first-row"
    for round_ in range(3):
        kinds = kv_kinds(round_) if retracting else None
        table.write_and_commit(kv_rows(round_), kinds)
    if full:
        table.compact(full=True)


def make_typed(root: str) -> None:
    table = Table.create(IO, root, TYPED_FIELDS, options={"bucket": "-1"})
    for round_ in range(2):
        rows = [
            (
                i + 100 * round_,
                None if i % 5 == 0 else Decimal(i * 1001) / 1000,
                Timestamp(1_700_000_000_123 + i, 0),
                Timestamp(-86_400_000 + i, 456_000),
                19_000 + i if i % 3 else None,
                i / 3,
                bytes([i % 256, 7]),
                i - 10,
            )
            for i in range(30)
        ]
        table.write_and_commit(rows)


def make_evolved(root: str) -> None:
    """An append table whose files were written with three schemas: a column added, a column
    renamed, an INT widened to BIGINT."""
    fields = (
        t.DataField(0, "k", t.IntType(nullable=False)),
        t.DataField(1, "n", t.IntType()),
        t.DataField(2, "dt", t.VarCharType(t.MAX_LENGTH)),
    )
    table = Table.create(IO, root, fields, partition_keys=["dt"], options={"bucket": "-1"})
    table.write_and_commit([(i, i * 3, "ab"[i % 2]) for i in range(20)])
    table.alter([AddColumn(("extra",), t.VarCharType(t.MAX_LENGTH))])
    table.write_and_commit([(i, -i, "ab"[i % 2], f"x{i}") for i in range(20, 30)])
    table.alter([RenameColumn(("n",), "m"), UpdateColumnType(("m",), t.BigIntType())])
    table.write_and_commit([(i, 2**40 + i, "b", None) for i in range(30, 35)])


def make_append_deletions(root: str) -> None:
    """An append table with deletion vectors: a DELETE marks rows in index files."""
    make_kv(root, [], {"bucket": "-1", "deletion-vectors.enabled": "true"}, False)
    Table.open(IO, root).delete(Leaf(PredicateOp.LESS_THAN, "k", (5,)))


def make_pk_deletions(root: str) -> None:
    """A primary-key table with deletion vectors over files of more than 64 rows: updates
    delete positions on both sides of 64-row word boundaries, the first and the last row
    (rule 5's bitmaps are tested per 64-bit word)."""
    fields = (t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType()))
    options = {"bucket": "2", "deletion-vectors.enabled": "true"}
    table = Table.create(IO, root, fields, primary_keys=["k"], options=options)
    table.write_and_commit([(k, k) for k in range(600)])
    edges = (0, 1, 63, 64, 65, 127, 128, 129, 255, 256, 598, 599)
    table.write_and_commit([(k, -k) for k in edges])
    table.write_and_commit([(k, 10 * k) for k in range(0, 600, 7)])


def make_retracts_on_levels(root: str) -> None:
    """A primary-key table whose only run per partition is one file above level 0 holding
    ``-D`` / ``-U`` records, as Java's compaction leaves a level-0 file it upgrades to a level
    below the top: ``a`` with delete_row_count 2, ``b`` the same records with the count unknown
    (None, as older writers leave it), ``c`` inserts only (0). The native read must drop the
    retract records of ``a`` and ``b`` (the retract rule)."""
    fields = (*KV_FIELDS[:2], t.DataField(2, "dt", t.VarCharType(t.MAX_LENGTH, nullable=False)))
    table = Table.create(
        IO, root, fields, partition_keys=["dt"], primary_keys=["k", "dt"], options={"bucket": "1"}
    )
    kinds = [RowKind.INSERT, RowKind.DELETE, RowKind.UPDATE_AFTER, RowKind.UPDATE_BEFORE]
    messages = []
    for dt, level in [("a", 3), ("b", 5), ("c", 5)]:
        records = [
            Record((k, f"{dt}{k}", dt), k, kinds[k % 4] if dt != "c" else RowKind.INSERT)
            for k in range(8)
        ]
        meta = pk_file(table, records, level=level, partition=(dt,))
        if dt == "b":
            meta = replace(meta, delete_row_count=None)
        messages.append(message(table, partition=(dt,), new=[meta]))
    table.commit(messages)


def make_vector_edges(root: str) -> None:
    """An append table with deletion vectors over four files of 100 rows: one whose vector
    deletes every row, one deleting three rows (63, 64 and 50 of its positions), one whose
    vector deletes none (an index file written here: no writer writes an empty vector, a
    reader must accept one), one without a vector."""
    fields = (t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType()))
    options = {"bucket": "-1", "deletion-vectors.enabled": "true"}
    table = Table.create(IO, root, fields, options=options)
    bucket = Path(root, "bucket-0")
    names = []
    for start in (0, 100, 200, 300):
        before = set(bucket.glob("*.parquet")) if bucket.exists() else set()
        table.write_and_commit([(k, -k) for k in range(start, start + 100)])
        names.extend(p.name for p in set(bucket.glob("*.parquet")) - before)
    table.delete(Leaf(PredicateOp.LESS_THAN, "k", (100,)))
    table.delete(Leaf(PredicateOp.IN, "k", (150, 163, 164)))
    data, ranges = encode_deletion_vector_file({names[2]: build_deletion_vector([])})
    name = "index-empty-vector-0"
    IO.write_bytes(layout.index_file_path(root, name), data)
    metas = tuple(DeletionVectorMeta(r.data_file_name, r.offset, r.length) for r in ranges)
    index = IndexFileMeta(DELETION_VECTORS_INDEX_TYPE, name, len(data), len(metas), metas)
    table.commit([message(table, new_index=[index])])


TABLES: dict[str, tuple[Callable[[str], None], str]] = {
    "append-partitioned": (
        lambda r: make_kv(r, [], {"bucket": "2", "bucket-key": "k"}, False),
        "native",
    ),
    "append-orc": (
        lambda r: make_kv(r, [], {"bucket": "-1", "file.format": "orc"}, False),
        "native",
    ),
    "pk-full-compaction": (lambda r: make_kv(r, ["k", "dt"], {"bucket": "2"}, True), "native"),
    "pk-merge": (
        lambda r: make_kv(r, ["k", "dt"], {"bucket": "2", "write-only": "true"}, False),
        "merge",
    ),
    "pk-deletion-vectors": (
        lambda r: make_kv(
            r, ["k", "dt"], {"bucket": "2", "deletion-vectors.enabled": "true"}, False
        ),
        "native",
    ),
    "first-row": (
        lambda r: make_kv(r, ["k", "dt"], {"bucket": "1", "merge-engine": "first-row"}, False),
        "native",
    ),
    "partial-update": (
        lambda r: make_kv(
            r,
            ["k", "dt"],
            {
                "bucket": "1",
                "merge-engine": "partial-update",
                "partial-update.ignore-delete": "true",
            },
            True,
        ),
        "merge",
    ),
    "append-deletion-vectors": (make_append_deletions, "native"),
    "pk-deletion-vectors-wide": (make_pk_deletions, "native"),
    "pk-retracts-on-levels": (make_retracts_on_levels, "native"),
    "append-vector-edges": (make_vector_edges, "native"),
    "schema-evolved": (make_evolved, "native"),
    "typed": (make_typed, "native"),
}


def spark_changes(df: Any, fields: Sequence[t.DataField]) -> list[Change]:
    return as_inserts(arrow_to_changes(df.toArrow(), fields))


def reference_changes(root: str) -> list[Change]:
    return as_inserts([(kind, tuple(row)) for kind, row in Table.open(IO, root).read().rows])


DELETING_KINDS = frozenset(
    {"append-deletion-vectors", "pk-deletion-vectors-wide", "append-vector-edges"}
)


@pytest.mark.parametrize("kind", sorted(TABLES))
def test_read_table_answers_as_the_reference(spark: Any, tmp_path: Path, kind: str) -> None:
    import spark_impl  # noqa: PLC0415
    from spark_impl.native_read import sort_splits  # noqa: PLC0415
    from spark_impl.plan import plan_read  # noqa: PLC0415

    spark_impl.register(spark)
    root = str(tmp_path / kind)
    make, expected_way = TABLES[kind]
    make(root)
    fields = Table.open(IO, root).schema().fields
    ways = sort_splits(plan_read(IO, root))
    took = "native" if ways.native else "merge"
    assert took == expected_way and (expected_way == "native" or not ways.native), ways
    if kind in DELETING_KINDS:  # their deletion vectors are applied in the JVM
        assert any(f.deletion for split in ways.native for f in split.files)
    expected = reference_changes(root)
    for name, df in [
        ("read_table", spark_impl.read_table(spark, root)),
        ("paimon data source", spark.read.format("paimon").load(root)),
    ]:
        difference = describe_difference("reference", expected, name, spark_changes(df, fields))
        assert difference is None, difference


def test_retract_rule_and_vector_edges_stated_rows(spark: Any, tmp_path: Path) -> None:
    """The hand-made kinds' rows as stated: retract records dropped whatever the file's
    delete_row_count says (4, None), kept files whole (0); of the four vector files, the rows
    left by each vector, and the file whose vector deletes every row not read at all."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "retracts")
    make_retracts_on_levels(root)
    got = sorted(tuple(row) for row in spark_impl.read_table(spark, root).collect())
    kept = [(k, f"{dt}{k}", dt) for dt in "ab" for k in (0, 2, 4, 6)]
    assert got == sorted([*kept, *[(k, f"c{k}", "c") for k in range(8)]])
    root = str(tmp_path / "edges")
    make_vector_edges(root)
    df = spark_impl.read_table(spark, root)
    assert sorted(row.k for row in df.collect()) == [
        k for k in range(100, 400) if k not in (150, 163, 164)
    ]
    assert len(df.inputFiles()) == 3


def test_vector_of_one_row_and_a_file_longer_than_its_meta(spark: Any, tmp_path: Path) -> None:
    """Rule 5 with stated rows: a vector deleting one row (the file's last, then also its
    first) keeps the others; once the file is replaced by a longer one (its first 30 rows
    appended again), read_table refuses it, naming the file, rather than keeping or dropping
    the rows its bitmap does not cover."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "t")
    fields = (t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType()))
    options = {"bucket": "-1", "deletion-vectors.enabled": "true"}
    table = Table.create(IO, root, fields, options=options)
    table.write_and_commit([(k, -k) for k in range(100)])
    table.delete(Leaf(PredicateOp.EQUAL, "k", (99,)))
    assert sorted(row.k for row in spark_impl.read_table(spark, root).collect()) == [*range(99)]
    table.delete(Leaf(PredicateOp.EQUAL, "k", (0,)))
    assert sorted(row.k for row in spark_impl.read_table(spark, root).collect()) == [*range(1, 99)]
    (data,) = Path(root, "bucket-0").glob("*.parquet")
    rows = pq.read_table(data)
    pq.write_table(pa.concat_tables([rows, rows.slice(0, 30)]), data)
    with pytest.raises(SpecViolation, match="130 rows, its data file meta says 100") as error:
        spark_impl.read_table(spark, root)
    assert error.value.code == "FILE_META_INVALID"
    assert str(error.value.path).endswith(data.name)


FILTERS: list[tuple[str, Callable[[tuple[Any, ...]], bool]]] = [
    ("dt = 'a'", lambda row: row[2] == "a"),
    ("k > 10", lambda row: row[0] > 10),
    ("v IS NULL", lambda row: row[1] is None),
    ("dt = 'b' AND k < 5", lambda row: row[2] == "b" and row[0] < 5),
    ("k = 3 OR v LIKE 'r2%'", lambda row: row[0] == 3 or (row[1] or "").startswith("r2")),
]


@pytest.mark.parametrize("kind", ["append-partitioned", "pk-deletion-vectors"])
def test_filters_on_a_reused_frame_do_not_leak(spark: Any, tmp_path: Path, kind: str) -> None:
    """One read_table DataFrame (and a temp view of it) queried with one filter after another:
    each answer is the reference's rows that pass that filter, so no pushed filter leaks."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / kind)
    TABLES[kind][0](root)
    expected = [row for _, row in reference_changes(root)]
    df = spark_impl.read_table(spark, root)
    view = f"native_{kind.replace('-', '_')}"
    df.createOrReplaceTempView(view)
    for index, (condition, keep) in enumerate(FILTERS * 2):
        query = (
            df.where(condition)
            if index % 2
            else spark.sql(f"SELECT * FROM {view} WHERE {condition}")
        )
        wanted = as_inserts([(RowKind.INSERT, row) for row in expected if keep(row)])
        difference = describe_difference(
            "reference", wanted, condition, spark_changes(query, KV_FIELDS)
        )
        assert difference is None, difference
    assert df.count() == len(expected)


def test_time_travel_and_projection(spark: Any, tmp_path: Path) -> None:
    """``snapshot-id`` reads an earlier snapshot; a projection reads only its columns."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "travel")
    make_kv(root, [], {"bucket": "-1"}, False)
    first = Table.open(IO, root).read(travel=_travel(1)).rows
    df = spark_impl.read_table(spark, root, **{"snapshot-id": "1"})
    assert sorted(r.k for r in df.select("k").collect()) == sorted(row[0] for _, row in first)


def _travel(snapshot_id: int) -> Any:
    from reference.store.query import TimeTravel  # noqa: PLC0415

    return TimeTravel(snapshot_id=snapshot_id)


GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "cases" / "golden"
GOLDEN_TABLES = sorted(p.parent.name for p in GOLDEN.glob("*/table") if (p / "snapshot").is_dir())
QUICK_GOLDEN = frozenset({"deletion_vectors", "first_row", "schema_evolution", "pk_dedup_orc"})


@pytest.mark.parametrize(
    "name",
    [
        name if name in QUICK_GOLDEN else pytest.param(name, marks=pytest.mark.slow)
        for name in GOLDEN_TABLES
    ],
)
def test_read_table_on_java_tables(spark: Any, name: str) -> None:
    """The tables Java Paimon 0.9 wrote (``fixtures/cases/golden``), every snapshot: read_table
    answers as the reference (Java's deletion vectors, levels and file encodings)."""
    import spark_impl  # noqa: PLC0415

    root = str(GOLDEN / name / "table")
    snapshots = sorted(int(p.name.split("-")[1]) for p in Path(root, "snapshot").glob("snapshot-*"))
    for snapshot_id in snapshots:
        table = Table.open(IO, root)
        rows = table.read(travel=_travel(snapshot_id))
        expected = as_inserts([(kind, tuple(row)) for kind, row in rows.rows])
        fields = rows.schema.fields
        df = spark_impl.read_table(spark, root, **{"snapshot-id": str(snapshot_id)})
        difference = describe_difference(
            "reference", expected, "read_table", spark_changes(df, fields)
        )
        assert difference is None, f"snapshot {snapshot_id}\n{difference}"


FILTER_TUPLES: list[tuple[list[tuple[str, str, Any]], Callable[[int], bool]]] = [
    ([("k", "=", 3)], lambda k: k == 3),
    ([("k", ">", 10), ("k", "<=", 20)], lambda k: 10 < k <= 20),
    ([("k", "in", [1, 7, 30, 64, 598])], lambda k: k in {1, 7, 30, 64, 598}),
    ([("k", "not in", (2, 3)), ("k", "!=", 4)], lambda k: k not in {2, 3, 4}),
]


@pytest.mark.parametrize(
    "kind", ["append-partitioned", "pk-merge", "pk-deletion-vectors-wide", "schema-evolved"]
)
def test_read_table_filters_answer_as_the_reference(spark: Any, tmp_path: Path, kind: str) -> None:
    """``read_table(filters=...)``: the plan is pruned by the filters and Spark applies them;
    each answer is the reference's rows that pass, and the unfiltered DataFrame of the same
    table read afterwards still has every row (the filters belong to their DataFrame)."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / kind)
    TABLES[kind][0](root)
    fields = Table.open(IO, root).schema().fields
    expected = reference_changes(root)
    for filters, keep in FILTER_TUPLES:
        wanted = [(kind_, row) for kind_, row in expected if keep(row[0])]
        got = spark_changes(spark_impl.read_table(spark, root, filters), fields)
        difference = describe_difference("reference", wanted, str(filters), got)
        assert difference is None, difference
    assert spark_impl.read_table(spark, root).count() == len(expected)


def test_read_table_filters_prune_files(spark: Any, tmp_path: Path) -> None:
    """Three commits of disjoint key ranges: a point filter reads one file (statistics)."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "ranges")
    table = Table.create(IO, root, KV_FIELDS, options={"bucket": "-1"})
    for start in (0, 100, 200):
        table.write_and_commit([(k, f"v{k}", "a") for k in range(start, start + 50)])
    hybrid = {LOCAL_READ_MAX_ROWS_OPTION: "0"}  # the hybrid read (not spark_impl.local_read)
    df = spark_impl.read_table(spark, root, [("k", "=", 120)], **hybrid)
    assert [tuple(r) for r in df.collect()] == [(120, "v120", "a")]
    assert len(df.inputFiles()) == 1
    assert len(spark_impl.read_table(spark, root).inputFiles()) == 3
