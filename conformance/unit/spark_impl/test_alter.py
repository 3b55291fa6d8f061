"""Schema evolution through ``spark_impl.alter_table``: after each change, spark_impl's read
(planner and split reader, and once through Spark) and the reference's read agree, new
columns get new field ids, and the changes Java's ``SchemaManager`` refuses are refused."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.spark_impl.write_helpers import INT_FIELDS, reference_rows, spark_impl_write
from reference.errors import SpecViolation
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.file_format import arrow_to_rows
from reference.spec.schema import decode_schema
from reference.table import Table
from spark_impl import alter_table
from spark_impl.alter import is_widening
from spark_impl.plan import TimeTravel, plan_read
from spark_impl.read import read_split

IO = LocalFileIO()


def spark_impl_rows(root: str) -> Counter[tuple[Any, ...]]:
    """spark_impl's rows of the latest snapshot, read without Spark."""
    plan = plan_read(IO, root, TimeTravel())
    file_schemas = {i: decode_schema(text) for i, text in plan.file_schema_jsons.items()}
    rows: list[tuple[Any, ...]] = []
    for split in plan.splits:
        table = read_split(IO, split, plan.schema, file_schemas)
        rows += arrow_to_rows(table, list(plan.schema.fields))
    return Counter(rows)


def make_table(tmp_path: Path) -> str:
    root = str(tmp_path / "t")
    Table.create(
        IO,
        root,
        list(INT_FIELDS),
        partition_keys=["dt"],
        primary_keys=["k", "dt"],
        options={"bucket": "1"},
    )
    spark_impl_write(IO, root, [(i, i * 10, "ab"[i % 2]) for i in range(6)])
    return root


def assert_reads_agree(root: str) -> None:
    assert spark_impl_rows(root) == reference_rows(IO, root)


@pytest.mark.parametrize(
    ("old", "new", "widening"),
    [
        ("INT", "BIGINT", True),
        ("INT", "STRING", True),
        ("INT", "DECIMAL(10, 0)", True),
        ("INT", "DECIMAL(9, 0)", False),
        ("SMALLINT", "FLOAT", True),
        ("FLOAT", "DOUBLE", True),
        ("DOUBLE", "FLOAT", False),
        ("DECIMAL(10, 2)", "DECIMAL(12, 4)", True),
        ("DECIMAL(10, 2)", "DECIMAL(10, 4)", False),
        ("VARCHAR(5)", "VARCHAR(10)", True),
        ("VARCHAR(10)", "VARCHAR(5)", False),
        ("DATE", "TIMESTAMP(3)", True),
        ("TIMESTAMP(6)", "TIMESTAMP(3)", False),
        ("BYTES", "STRING", False),
    ],
)
def test_is_widening(old: str, new: str, widening: bool) -> None:
    assert is_widening(t.parse_sql_type(old), t.parse_sql_type(new)) is widening


def test_add_rename_widen_move_drop(tmp_path: Path) -> None:
    root = make_table(tmp_path)
    schema = alter_table(None, root, add_columns={"c": "BIGINT"})
    assert [(f.id, f.name) for f in schema.fields] == [(0, "k"), (1, "v"), (2, "dt"), (3, "c")]
    assert schema.highest_field_id == 3
    spark_impl_write(IO, root, [(1, 11, "b", 7), (6, 60, "a", None)])
    assert_reads_agree(root)
    assert reference_rows(IO, root)[(0, 0, "a", None)] == 1

    schema = alter_table(None, root, rename_columns={"v": "value"}, widen_columns={"v": "BIGINT"})
    assert [(f.id, f.name, str(f.type)) for f in schema.fields][1] == (1, "value", "BIGINT")
    spark_impl_write(IO, root, [(2, 2**40, "a", 1)])
    assert_reads_agree(root)

    schema = alter_table(None, root, move_columns={"c": "FIRST"})
    assert [f.name for f in schema.fields] == ["c", "k", "value", "dt"]
    assert_reads_agree(root)

    schema = alter_table(None, root, drop_columns=["c"])
    assert [f.name for f in schema.fields] == ["k", "value", "dt"]
    assert schema.highest_field_id == 3
    schema = alter_table(None, root, add_columns={"c": "STRING"})
    assert schema.fields[-1].id == 4
    assert_reads_agree(root)
    assert reference_rows(IO, root)[(1, 11, "b", None)] == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"drop_columns": ["dt"]}, "dt"),
        ({"drop_columns": ["k"]}, "k"),
        ({"widen_columns": {"v": "SMALLINT"}}, "cannot narrow"),
        ({"widen_columns": {"v": "FLOAT"}}, "cannot narrow"),
        ({"widen_columns": {"dt": "INT"}}, "cannot narrow"),
        ({"add_columns": {"v": "INT"}}, "v"),
        ({"rename_columns": {"nosuch": "x"}}, "nosuch"),
        ({"set_options": {"primary-key": "v"}}, "primary-key"),
        ({"move_columns": {"v": "AFTER"}}, "position"),
    ],
)
def test_refused_changes_name_the_column(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    root = make_table(tmp_path)
    with pytest.raises(SpecViolation, match=message):
        alter_table(None, root, **change)
    assert sorted(p.name for p in (Path(root) / "schema").iterdir()) == ["schema-0"]


@pytest.mark.spark
def test_spark_reads_after_alter(spark: Any, tmp_path: Path) -> None:
    root = make_table(tmp_path)
    alter_table(spark, root, add_columns={"c": "BIGINT"}, rename_columns={"v": "value"})
    spark_impl_write(IO, root, [(9, 90, "b", 5)])
    df = spark.read.format("paimon").load(root)
    assert df.columns == ["k", "value", "dt", "c"]
    assert Counter(tuple(r) for r in df.collect()) == reference_rows(IO, root)


@pytest.mark.java
def test_java_reads_after_each_change(java_harness: Any, tmp_path: Path) -> None:
    root = make_table(tmp_path)
    steps: list[dict[str, Any]] = [
        {"add_columns": {"c": "BIGINT"}},
        {"rename_columns": {"v": "value"}, "widen_columns": {"v": "BIGINT"}},
        {"move_columns": {"c": "FIRST"}},
        {"drop_columns": ["c"]},
    ]
    for number, step in enumerate(steps):
        schema = alter_table(None, root, **step)
        row = {"k": 100 + number, "v": number, "value": number, "dt": "a", "c": number}
        spark_impl_write(IO, root, [tuple(row[f.name] for f in schema.fields)])
        assert Counter(java_harness.read(root).values()) == reference_rows(IO, root), step
