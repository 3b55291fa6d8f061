"""spark_impl.local_read: a point query whose plan is tiny is read on the driver and answers the
reference's rows (the reference is the oracle; tables are written by the reference)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from reference.errors import InvalidOptionError
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import RowKind
from reference.spec.predicate import equal
from reference.table import Table
from spark_impl.options import LOCAL_READ_MAX_ROWS_OPTION

pytestmark = pytest.mark.spark

IO = LocalFileIO()
FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
)
HYBRID = {LOCAL_READ_MAX_ROWS_OPTION: "0"}


def make_indexed(root: str) -> None:
    """An append table of three files with a bloom filter on ``v`` embedded in the manifests."""
    options = {
        "bucket": "-1",
        "file-index.bloom-filter.columns": "v",
        "file-index.in-manifest-threshold": "64kb",
    }
    table = Table.create(IO, root, FIELDS, options=options)
    for start in (0, 100, 200):
        table.write_and_commit([(k, f"value-{k}") for k in range(start, start + 100)])


def make_merged(root: str) -> None:
    """A primary-key table of three level-0 runs: updates and a delete, merged when read."""
    table = Table.create(IO, root, FIELDS, primary_keys=["k"], options={"bucket": "1"})
    table.write_and_commit([(k, f"value-{k}") for k in range(50)])
    table.write_and_commit([(k, f"new-{k}") for k in range(0, 50, 3)])
    table.write_and_commit([(7, "value-7"), (9, None)], [RowKind.DELETE, RowKind.UPDATE_AFTER])


def make_deletions(root: str) -> None:
    """A primary-key table with deletion vectors: the second commit marks older rows deleted."""
    options = {"bucket": "1", "deletion-vectors.enabled": "true"}
    table = Table.create(IO, root, FIELDS, primary_keys=["k"], options=options)
    table.write_and_commit([(k, f"value-{k}") for k in range(80)])
    table.write_and_commit([(k, f"new-{k}") for k in range(0, 80, 5)])


MAKERS = {"indexed": make_indexed, "merged": make_merged, "deletions": make_deletions}
QUERIES = [("v", "value-12"), ("v", "new-15"), ("v", "value-7"), ("k", 9), ("v", "nothing")]


def reference_rows(root: str, column: str, value: Any) -> Counter[tuple[Any, ...]]:
    result = Table.open(IO, root).read(predicate=equal(column, value))
    return Counter(tuple(row) for _, row in result.rows)


def spark_rows(frame: Any) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(row) for row in frame.collect())


def is_local(frame: Any) -> bool:
    """Whether the DataFrame reads a local relation rather than files or Python tasks."""
    plan = frame._jdf.queryExecution().analyzed().toString()
    return "LocalRelation" in plan and not frame.inputFiles()


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_point_queries_answer_the_reference(spark: Any, tmp_path: Path, kind: str) -> None:
    """Each point query, a filter matching nothing included, answers the reference's rows
    through the local path; with the local path turned off the read is the hybrid one."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / kind)
    MAKERS[kind](root)
    for column, value in QUERIES:
        expected = reference_rows(root, column, value)
        local = spark_impl.read_table(spark, root, [(column, "=", value)])
        hybrid = spark_impl.read_table(spark, root, [(column, "=", value)], **HYBRID)
        assert is_local(local) and not is_local(hybrid)
        assert spark_rows(local) == expected, (column, value)


def test_local_frame_is_reusable_and_fixed_to_its_snapshot(spark: Any, tmp_path: Path) -> None:
    """A local DataFrame filtered twice and unioned with itself; a later commit adding a
    matching row is not seen by it, and is seen by a new read."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "t")
    make_indexed(root)
    frame = spark_impl.read_table(spark, root, [("v", "in", ["value-5", "value-150"])])
    assert is_local(frame)
    assert spark_rows(frame.where("k > 100")) == Counter({(150, "value-150"): 1})
    assert spark_rows(frame.where("k < 100")) == Counter({(5, "value-5"): 1})
    assert spark_rows(frame.union(frame)) == Counter({(5, "value-5"): 2, (150, "value-150"): 2})
    Table.open(IO, root).write_and_commit([(999, "value-5")])
    assert spark_rows(frame) == Counter({(5, "value-5"): 1, (150, "value-150"): 1})
    later = spark_impl.read_table(spark, root, [("v", "=", "value-5")])
    assert spark_rows(later) == Counter({(5, "value-5"): 1, (999, "value-5"): 1})


def test_threshold_boundary(spark: Any, tmp_path: Path) -> None:
    """The local path takes a plan of at most ``read.local.max-rows`` planned rows: one file of
    100 rows is read locally at 100, by the hybrid read at 99; both answer the same."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "t")
    table = Table.create(IO, root, FIELDS, options={"bucket": "-1"})
    table.write_and_commit([(k, f"value-{k}") for k in range(100)])
    query = [("k", "=", 42)]
    at = spark_impl.read_table(spark, root, query, **{LOCAL_READ_MAX_ROWS_OPTION: "100"})
    over = spark_impl.read_table(spark, root, query, **{LOCAL_READ_MAX_ROWS_OPTION: "99"})
    assert is_local(at) and not is_local(over)
    assert spark_rows(at) == spark_rows(over) == Counter({(42, "value-42"): 1})
    assert not is_local(spark_impl.read_table(spark, root))  # no filter: the hybrid read


def test_bad_threshold_is_refused(spark: Any, tmp_path: Path) -> None:
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, options={"bucket": "-1"}).write_and_commit([(1, "a")])
    with pytest.raises(InvalidOptionError, match=LOCAL_READ_MAX_ROWS_OPTION):
        spark_impl.read_table(spark, root, [("k", "=", 1)], **{LOCAL_READ_MAX_ROWS_OPTION: "-1"})


def test_narrowing_keeps_a_superset_of_the_answer() -> None:
    """Rule 3 without Spark: equality and IN on integer and VARCHAR columns narrow (a null never
    passes); a CHAR column, a range and a null literal leave the rows as they are."""
    import pyarrow as pa  # noqa: PLC0415

    from reference.spec.predicate import And, Leaf, PredicateOp  # noqa: PLC0415
    from reference.spec.schema import TableSchema  # noqa: PLC0415
    from spark_impl.local_read import narrow_rows  # noqa: PLC0415

    fields = (*FIELDS, t.DataField(2, "c", t.CharType(3)))
    schema = TableSchema(3, 0, fields, 2, (), (), {})
    k = pa.array([1, 2, 3, None], pa.int32())  # Spark's Arrow type of an INT column
    rows = pa.table({"k": k, "v": ["a", "b", None, "a"], "c": ["x  ", "y  ", "x", "z"]})
    equal_v = Leaf(PredicateOp.EQUAL, "v", ("a",))
    in_k = Leaf(PredicateOp.IN, "k", (1, 3))
    assert narrow_rows(rows, equal_v, schema).column("k").to_pylist() == [1, None]
    assert narrow_rows(rows, And((equal_v, in_k)), schema).column("k").to_pylist() == [1]
    beyond_int = Leaf(PredicateOp.IN, "k", (2**40, 3))  # matches no INT value, not an error
    assert narrow_rows(rows, beyond_int, schema).column("k").to_pylist() == [3]
    kept = [Leaf(PredicateOp.EQUAL, "c", ("x",)), Leaf(PredicateOp.LESS_THAN, "k", (2,))]
    kept.append(Leaf(PredicateOp.IN, "v", ("a", None)))
    assert narrow_rows(rows, And(tuple(kept)), schema).num_rows == rows.num_rows
