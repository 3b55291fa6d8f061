"""spark_impl's data-file indexes (``spark_impl.file_index``) against the reference's
(``reference.store.file_index``, the oracle): the containers it writes, where it puts them, the
files its planner and reader leave out, and the options it refuses.

Tables are bucket-unaware append tables with a bloom filter on ``v`` (one distinct value per
row) and a bitmap on ``tag`` (one value per write), embedded in the manifest (the default
threshold) or in ``.index`` files (threshold 1 byte). Each write makes one file whose ``v``
values are spread over the whole range, so statistics cannot prune a point query; only the
indexes can.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.spark_impl.write_helpers import reference_rows, spark_impl_write
from reference import layout
from reference.errors import InvalidOptionError, UnsupportedFeature
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, Timestamp
from reference.spec.data_file import DataFileMeta
from reference.spec.file_format import arrow_to_rows, rows_to_arrow
from reference.spec.file_index.container import decode_file_index
from reference.spec.file_index.result import is_remain
from reference.spec.predicate import (
    And,
    Leaf,
    Predicate,
    PredicateOp,
    equal,
    is_in,
    is_row_matching,
)
from reference.spec.schema import SetOption
from reference.store import file_index as ref
from reference.store.query import load_schemas, read_table
from reference.store.scan import plan_scan
from reference.table import Table
from spark_impl import append_compact, file_index
from spark_impl import commit as committer
from spark_impl.metadata import find_latest_snapshot_id, read_latest_snapshot, read_live_entries
from spark_impl.plan import plan_read
from spark_impl.read import count_scan_files, read_split
from spark_impl.read_files import read_data_file
from spark_impl.write import plan_write

IO = LocalFileIO()
STRING = t.VarCharType(t.MAX_LENGTH)
FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", STRING),
    t.DataField(2, "tag", STRING),
    t.DataField(3, "n", t.BigIntType()),
    t.DataField(4, "flag", t.BooleanType()),
)
INDEX_OPTIONS = {
    "bucket": "-1",
    "file-index.bloom-filter.columns": "v",
    "file-index.bloom-filter.v.items": "200",
    "file-index.bloom-filter.v.fpp": "0.01",
    "file-index.bitmap.columns": "tag",
}
THRESHOLDS = {
    "embedded": {},
    "index-file": {"file-index.in-manifest-threshold": "1 b"},
}
WRITES = 5
ROWS_PER_WRITE = 60
POINT = "value-123"
"""In write 3 only (``123 % 5``), between every file's min and max of ``v``."""


def batch(step: int) -> list[Row]:
    """Write ``step``: ``v`` = ``value-<5 i + step>``, ``tag`` = ``t<step>`` or null."""
    return [
        (
            5 * i + step,
            f"value-{5 * i + step}",
            None if i % 7 == 0 else f"t{step}",
            None if i % 11 == 0 else i * step,
            i % 2 == 0,
        )
        for i in range(ROWS_PER_WRITE)
    ]


def create(root: str, threshold: str) -> Table:
    options = {**INDEX_OPTIONS, **THRESHOLDS[threshold]}
    return Table.create(IO, root, list(FIELDS), options=options)


def live_metas(root: str) -> list[DataFileMeta]:
    """The live files in commit order."""
    entries = read_live_entries(IO, root, read_latest_snapshot(IO, root))
    return [entry.file for entry in entries]


def container_bytes(root: str, meta: DataFileMeta) -> bytes:
    """A file's index container: embedded, or its ``.index`` file in the bucket directory."""
    if meta.embedded_index is not None:
        assert not meta.extra_files
        return meta.embedded_index
    [name] = meta.extra_files
    return IO.read_bytes(layout.join(root, "bucket-0", name))


def expected_rows(keep: Any) -> Counter[Row]:
    return Counter(row for step in range(WRITES) for row in batch(step) if keep(row))


# --------------------------------------------------------------------------------------------
# (a) The bytes: spark_impl writes the containers the reference writes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("threshold", sorted(THRESHOLDS))
def test_written_indexes_equal_the_references(tmp_path: Path, threshold: str) -> None:
    ours, theirs = str(tmp_path / "spark"), str(tmp_path / "reference")
    create(ours, threshold)
    reference_table = create(theirs, threshold)
    for step in range(WRITES):
        spark_impl_write(IO, ours, batch(step))
        reference_table.write_and_commit(batch(step))
    mine, oracle = live_metas(ours), live_metas(theirs)
    assert len(mine) == len(oracle) == WRITES
    for meta, expected in zip(mine, oracle, strict=True):
        assert (meta.embedded_index is None) == (expected.embedded_index is None)
        assert len(meta.extra_files) == len(expected.extra_files)
        assert meta.extra_files == tuple(f"{meta.file_name}.index" for _ in meta.extra_files)
        assert container_bytes(ours, meta) == container_bytes(theirs, expected)
    embedded = [m.embedded_index is not None for m in mine]
    assert all(embedded) if threshold == "embedded" else not any(embedded)


def test_append_compaction_writes_the_index(tmp_path: Path) -> None:
    """Compacted files get the index of their rows (the reference builds it from the same
    rows), as a written file does."""
    root = str(tmp_path / "t")
    options = {**INDEX_OPTIONS, "compaction.max.file-num": "3"}
    Table.create(IO, root, list(FIELDS), options=options)
    for step in range(WRITES):
        spark_impl_write(IO, root, batch(step))
    before = reference_rows(IO, root)
    tasks = append_compaction_tasks(root)
    committer.commit(IO, root, [append_compact.run_task_message(IO, task) for task in tasks])
    assert reference_rows(IO, root) == before
    schema = Table(IO, root).schema()
    builder = ref.compute_file_index_builder(schema.options, schema.fields)
    assert builder is not None
    metas = live_metas(root)
    assert len(metas) < WRITES
    for meta in metas:
        path = layout.join(root, "bucket-0", meta.file_name)
        rows = arrow_to_rows(read_data_file(IO, path, FIELDS), FIELDS)
        assert container_bytes(root, meta) == builder(rows, FIELDS)


def append_compaction_tasks(root: str) -> list[Any]:
    tasks = append_compact.plan_append_tasks(IO, root, full=False)
    assert tasks, "the table has files to compact"
    return tasks


TYPED_COLUMNS: list[tuple[str, t.DataType, list[Any]]] = [
    ("bloom-filter", t.IntType(), [3, None, -7, 3, 2**31 - 1, -(2**31)]),
    ("bloom-filter", t.BigIntType(), [2**63 - 1, -(2**63), 0, None, 41]),
    ("bloom-filter", t.TinyIntType(), [-128, 127, 0, None]),
    ("bloom-filter", t.FloatType(), [1.5, -0.0, 0.0, math.nan, None, -2.25]),
    ("bloom-filter", t.DoubleType(), [1.5, -0.0, 0.0, math.nan, None, 1e300]),
    ("bloom-filter", t.DateType(), [0, 19000, -5, None]),
    ("bloom-filter", t.TimeType(3), [0, 86_399_999, None]),
    ("bloom-filter", t.TimestampType(3), [Timestamp(-1), Timestamp(1_700_000_000_123), None]),
    ("bloom-filter", t.TimestampType(6), [Timestamp(-1, 999_000), Timestamp(5, 1_000), None]),
    ("bloom-filter", t.TimestampType(9), [Timestamp(-1, 999_999), Timestamp(5, 1_001), None]),
    ("bloom-filter", t.VarBinaryType(20), [b"", b"\x00\xff", None, b"abc"]),
    ("bloom-filter", t.CharType(3), ["ab ", "é", None]),
    ("bitmap", STRING, [f"s{i % 37}" for i in range(300)] + [None, "", "é", "s5"]),
    ("bitmap", t.IntType(), [i * 7919 % 101 for i in range(500)] + [None, None]),
    ("bitmap", t.BigIntType(), [2**40, -1, None, 2**40, 5]),
    ("bitmap", t.FloatType(), [1.5, -0.0, 0.0, math.nan, None, 1.5, math.nan]),
    ("bitmap", t.DoubleType(), [1.5, -0.0, 0.0, math.nan, None, 1.5]),
    ("bitmap", t.BooleanType(), [True, False, None, True]),
    ("bitmap", t.SmallIntType(), [1, 1, 1, None]),
    ("bitmap", t.TimestampType(6), [Timestamp(1, 2000), Timestamp(1, 2000), None, Timestamp(0)]),
    ("bitmap", t.DateType(), [None, None]),
    ("bsi", t.BigIntType(), [5, -3, None, 0, 2**62, -(2**62), 5]),
    ("bsi", t.IntType(), [None, None]),
    ("bsi", t.DecimalType(10, 2), [Decimal("1.25"), Decimal("-3.50"), None, Decimal("0.00")]),
    ("bsi", t.TimestampType(3), [Timestamp(1_000), Timestamp(-2_000), None]),
    ("bsi", t.DateType(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 1024]),
]


_TABLE_NUMBERS = itertools.count()


def build_both(
    directory: Path,
    specs: list[tuple[str, str]],
    fields: list[t.DataField],
    rows: list[Row],
    **options: str,
) -> tuple[bytes, bytes | None]:
    """spark_impl's container (built from Arrow) and the reference's (built from rows) for
    the indexes ``specs`` ((index type, column)) of a table with ``options``."""
    table_options = {"bucket": "-1", **options}
    for index_type, column in specs:
        key = f"file-index.{index_type}.columns"
        table_options[key] = ",".join(filter(None, [table_options.get(key), column]))
    root = str(directory / f"t{next(_TABLE_NUMBERS)}")
    schema = Table.create(IO, root, fields, options=table_options).schema()
    plan = file_index.compute_file_index_plan(schema)
    assert plan is not None
    mine = file_index.build_file_index(plan, rows_to_arrow(rows, fields), fields)
    builder = ref.compute_file_index_builder(schema.options, schema.fields)
    assert builder is not None
    return mine, builder(rows, fields)


@pytest.mark.parametrize(
    ("index_type", "data_type", "values"),
    TYPED_COLUMNS,
    ids=[f"{i}-{d.to_sql()}-{n}" for n, (i, d, _) in enumerate(TYPED_COLUMNS)],
)
def test_index_bodies_equal_the_references(
    tmp_path: Path, index_type: str, data_type: t.DataType, values: list[Any]
) -> None:
    fields = [t.DataField(0, "c", data_type), t.DataField(1, "other", t.IntType())]
    rows = [(value, i) for i, value in enumerate(values)]
    extra = {"file-index.bloom-filter.c.items": "50"} if index_type == "bloom-filter" else {}
    mine, theirs = build_both(tmp_path, [(index_type, "c")], fields, rows, **extra)
    assert mine == theirs


def test_several_indexes_and_options_equal_the_references(tmp_path: Path) -> None:
    """Several columns, a column with two index types, bitmap v2 with small blocks."""
    fields = [
        t.DataField(0, "a", STRING),
        t.DataField(1, "b", t.IntType()),
        t.DataField(2, "c", t.BigIntType()),
    ]
    rows = [(f"x{i % 13}", i % 5, i * 3 - 100) for i in range(400)]
    mine, theirs = build_both(
        tmp_path,
        [("bloom-filter", "a"), ("bitmap", "a"), ("bitmap", "b"), ("bsi", "c")],
        fields,
        rows,
        **{
            "file-index.bloom-filter.a.fpp": "0.05",
            "file-index.bloom-filter.a.items": "1000",
            "file-index.bitmap.b.version": "2",
            "file-index.bitmap.a.index-block-size": "64 b",
            "file-index.bitmap.a.version": "2",
        },
    )
    assert mine == theirs


def test_bitmap_key_order_survives_hash_map_resizes(tmp_path: Path) -> None:
    """Hundreds of keys whose first rows are followed by repeats: Java's ``HashMap`` resizes
    at the call after it fills up, which the first-occurrence replay must reproduce."""
    fields = [t.DataField(0, "s", STRING)]
    for distinct in (12, 13, 24, 25, 96, 97, 385):
        values = [f"k{i}" for i in range(distinct)]
        for tail in ([], ["k0"], ["k0", "k1"]):
            rows = [(v,) for v in [*values, *tail]]
            mine, theirs = build_both(tmp_path, [("bitmap", "s")], fields, rows)
            assert mine == theirs, (distinct, tail)


# --------------------------------------------------------------------------------------------
# Evaluation: spark_impl answers as the reference does
# --------------------------------------------------------------------------------------------

QUERIES: list[Predicate] = [
    equal("v", POINT),
    equal("v", "absent"),
    is_in("v", ["absent", "value-7", "value-8"]),
    equal("tag", "t2"),
    Leaf(PredicateOp.NOT_EQUAL, "tag", ("t2",)),
    Leaf(PredicateOp.IS_NULL, "tag"),
    Leaf(PredicateOp.IS_NOT_NULL, "tag"),
    Leaf(PredicateOp.NOT_IN, "tag", ("t1", "t2")),
    And((equal("tag", "t3"), equal("v", POINT))),
    And((equal("tag", "t1"), equal("v", POINT))),
    Leaf(PredicateOp.GREATER_THAN, "k", (100,)),
    equal("k", 5),
]


@pytest.mark.parametrize("threshold", sorted(THRESHOLDS))
def test_answers_equal_the_references(tmp_path: Path, threshold: str) -> None:
    root = str(tmp_path / "t")
    table = create(root, threshold)
    for step in range(WRITES):
        spark_impl_write(IO, root, batch(step))
    schema = table.schema()
    for meta in live_metas(root):
        container = container_bytes(root, meta)
        types = {f.name: f.type for f in schema.fields}
        for predicate in QUERIES:
            mine = file_index.evaluate_container(container, predicate, schema, schema)
            theirs = ref.evaluate_predicate(decode_file_index(container), predicate, types)
            assert mine == theirs, (meta.file_name, predicate)


# --------------------------------------------------------------------------------------------
# (b) A point query through Spark: exact rows, fewer files
# --------------------------------------------------------------------------------------------


def spark_rows(frame: Any) -> Counter[Row]:
    return Counter(tuple(row) for row in frame.collect())


@pytest.mark.spark
@pytest.mark.parametrize("threshold", sorted(THRESHOLDS))
def test_point_query_reads_fewer_files(spark: Any, tmp_path: Path, threshold: str) -> None:
    root = str(tmp_path / "t")
    create(root, threshold)
    schema = "k INT, v STRING, tag STRING, n BIGINT, flag BOOLEAN"
    for step in range(WRITES):
        frame = spark.createDataFrame(batch(step), schema).coalesce(1)
        frame.write.format("paimon").mode("append").save(root)
    assert len(live_metas(root)) == WRITES
    frame = spark.read.format("paimon").load(root)
    assert spark_rows(frame.filter(f"v = '{POINT}'")) == expected_rows(lambda r: r[1] == POINT)
    assert spark_rows(frame.filter("tag = 't2'")) == expected_rows(lambda r: r[2] == "t2")
    assert spark_rows(frame.filter("v IN ('value-3', 'nope')")) == expected_rows(
        lambda r: r[1] == "value-3"
    )
    unfiltered = count_scan_files(IO, root, None)
    counts = count_scan_files(IO, root, equal("v", POINT))
    print(f"{threshold}: point query v = '{POINT}': {counts} (without a filter: {unfiltered})")
    assert unfiltered.planned == unfiltered.read == WRITES
    assert counts.skipped_by_stats == 0
    assert counts.read == 1
    if threshold == "embedded":
        assert counts.planned == 1 and counts.skipped_by_index_at_plan == WRITES - 1
    else:
        assert counts.planned == WRITES and counts.skipped_by_index_at_read == WRITES - 1
    tags = count_scan_files(IO, root, equal("tag", "t2"))
    assert tags.read == 1


@pytest.mark.spark
def test_index_read_disabled_reads_every_file(spark: Any, tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    table = create(root, "index-file")
    for step in range(WRITES):
        spark_impl_write(IO, root, batch(step))
    table.alter([SetOption("file-index.read.enabled", "false")])
    counts = count_scan_files(IO, root, equal("v", POINT))
    assert counts.read == counts.planned == WRITES
    frame = spark.read.format("paimon").load(root).filter(f"v = '{POINT}'")
    assert spark_rows(frame) == expected_rows(lambda r: r[1] == POINT)


# --------------------------------------------------------------------------------------------
# (c) spark_impl prunes with the indexes of a table the reference wrote
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("threshold", sorted(THRESHOLDS))
def test_prunes_a_reference_written_table(tmp_path: Path, threshold: str) -> None:
    root = str(tmp_path / "t")
    table = create(root, threshold)
    for step in range(WRITES):
        table.write_and_commit(batch(step))
    schemas = load_schemas(IO, root)
    schema = table.schema()
    snapshot = table.latest_snapshot()
    assert snapshot is not None
    for predicate in QUERIES:
        oracle = plan_scan(IO, root, snapshot, schema, schemas, predicate=predicate)
        mine = plan_read(IO, root, predicate=predicate)
        assert mine.skipped_by_index == oracle.skipped_by_index, predicate
        assert mine.file_count == sum(len(s.files) for s in oracle.splits), predicate
        read_by_reference = sum(
            is_remain(
                ref.evaluate_file_at_read(
                    IO,
                    layout.join(root, "bucket-0", meta.file_name),
                    meta,
                    predicate,
                    schema=schema,
                    file_schema=schema,
                    vector=None,
                )
            )
            for split in oracle.splits
            for meta in split.files
        )
        assert count_scan_files(IO, root, predicate).read == read_by_reference, predicate
        rows: Counter[Row] = Counter()
        schemas_ = {i: schema for i in mine.file_schema_jsons}
        for split in mine.splits:
            part = read_split(IO, split, mine.schema, schemas_, predicate=predicate)
            kept = [r for r in arrow_to_rows(part, FIELDS) if matches(predicate, r)]
            rows.update(kept)
        expected = Counter(row for _, row in read_table(IO, root, predicate=predicate).rows)
        assert rows == expected, predicate
    counts = count_scan_files(IO, root, equal("v", POINT))
    assert counts.read == 1


def matches(predicate: Predicate, row: Row) -> bool:
    values = {f.name: row[i] for i, f in enumerate(FIELDS)}
    return is_row_matching(predicate, values, {f.name: f.type for f in FIELDS})


# --------------------------------------------------------------------------------------------
# (d) Wrong options: typed errors naming the option, when the write is planned
# --------------------------------------------------------------------------------------------

BAD_OPTIONS = {
    "unknown-column": ({"file-index.bloom-filter.columns": "v,nope"}, InvalidOptionError),
    "bloom-on-boolean": ({"file-index.bloom-filter.columns": "flag"}, InvalidOptionError),
    "bsi-on-string": ({"file-index.bsi.columns": "v"}, InvalidOptionError),
    "bad-fpp": (
        {"file-index.bloom-filter.columns": "v", "file-index.bloom-filter.v.fpp": "1.5"},
        InvalidOptionError,
    ),
    "zero-items": (
        {"file-index.bloom-filter.columns": "v", "file-index.bloom-filter.v.items": "0"},
        InvalidOptionError,
    ),
    "option-of-unlisted-column": (
        {"file-index.bitmap.columns": "tag", "file-index.bitmap.v.version": "1"},
        InvalidOptionError,
    ),
    "bitmap-version-3": (
        {"file-index.bitmap.columns": "tag", "file-index.bitmap.tag.version": "3"},
        InvalidOptionError,
    ),
    "empty-column-name": ({"file-index.bitmap.columns": "tag,,v"}, InvalidOptionError),
    "unknown-index-type": ({"file-index.zonemap.columns": "v"}, UnsupportedFeature),
}


@pytest.mark.parametrize("case", sorted(BAD_OPTIONS))
def test_wrong_options_are_refused_when_the_write_is_planned(tmp_path: Path, case: str) -> None:
    options, error_type = BAD_OPTIONS[case]
    root = str(tmp_path / "t")
    table = Table.create(IO, root, list(FIELDS), options={"bucket": "-1", **options})
    with pytest.raises(error_type) as oracle:
        schema = table.schema()
        ref.compute_file_index_builder(schema.options, schema.fields)
    with pytest.raises(error_type) as raised:
        plan_write(IO, root, {}, overwrite=False)
    if isinstance(raised.value, InvalidOptionError):
        assert isinstance(oracle.value, InvalidOptionError)
        assert raised.value.option == oracle.value.option
        assert raised.value.option in str(raised.value)
    assert find_latest_snapshot_id(IO, root) is None


def test_primary_key_tables_get_no_index(tmp_path: Path) -> None:
    """Paimon 0.9.0 writes no index for primary-key files (and checks no index option)."""
    root = str(tmp_path / "t")
    options = {"bucket": "1", "file-index.bloom-filter.columns": "v"}
    Table.create(IO, root, list(FIELDS), primary_keys=["k"], options=options)
    spark_impl_write(IO, root, batch(0))
    for meta in live_metas(root):
        assert meta.embedded_index is None and meta.extra_files == ()


@pytest.mark.spark
def test_a_spark_write_with_wrong_options_fails_on_the_driver(spark: Any, tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    Table.create(
        IO, root, list(FIELDS), options={"bucket": "-1", "file-index.bloom-filter.columns": "x"}
    )
    frame = spark.createDataFrame(batch(0), "k INT, v STRING, tag STRING, n BIGINT, flag BOOLEAN")
    with pytest.raises(Exception, match=r"file-index\.bloom-filter\.columns"):
        frame.write.format("paimon").mode("append").save(root)
    assert find_latest_snapshot_id(IO, root) is None


# --------------------------------------------------------------------------------------------
# Java 0.9 reads a spark_impl table with indexes, and builds the same containers
# --------------------------------------------------------------------------------------------


@pytest.mark.java
@pytest.mark.parametrize("threshold", sorted(THRESHOLDS))
def test_java_reads_a_spark_impl_table_with_indexes(
    java_harness: Any, tmp_path: Path, threshold: str
) -> None:
    root = str(tmp_path / "t")
    table = create(root, threshold)
    for step in range(WRITES):
        spark_impl_write(IO, root, batch(step))
    java = java_harness.read(root)
    assert Counter(java.values()) == reference_rows(IO, root) == expected_rows(lambda r: True)
    options = table.schema().options
    for meta in live_metas(root):
        path = layout.join(root, "bucket-0", meta.file_name)
        rows = arrow_to_rows(read_data_file(IO, path, FIELDS), FIELDS)
        java_bytes, _ = java_harness.vector_file_index_container(FIELDS, rows, options)
        assert container_bytes(root, meta) == java_bytes, meta.file_name
