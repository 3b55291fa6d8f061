"""spark_impl reads maps whose keys Python cannot hash (issue 22 item 3) from the Java-0.9-written
tables of ``conformance/unit/reference/spec/test_map_keys.py`` (Parquet, ORC, Avro): the planner
and split reader give the rows written (as Java reads them back, checked there), and the
``paimon`` data source gives Spark maps with ARRAY / ROW / MAP keys, inspected through
``map_entries`` (PySpark cannot collect such a map into a Python ``dict``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.reference.spec.test_map_keys import (
    FIELDS,
    FORMATS,
    expected_rows,
    java_tables,
    written_columns,
)
from conformance.unit.spark_impl.test_read import plan_rows
from reference.io import LocalFileIO
from reference.spec import types as t
from spark_impl.plan import LATEST, plan_read

__all__ = ["java_tables"]

UNHASHABLE_KEYS = ("by_array", "by_row", "by_map", "bag_of_arrays")


@pytest.mark.java
@pytest.mark.parametrize("fmt", FORMATS)
def test_split_reader_reads_maps_with_any_key(java_tables: dict[str, Path], fmt: str) -> None:
    rows = plan_rows(plan_read(LocalFileIO(), str(java_tables[fmt]), LATEST))
    assert sorted(rows, key=lambda row: row[0]) == expected_rows(fmt)


def entries(value: Any) -> Any:
    """A value with every map as its list of ``(key, value)`` entries and Spark rows as tuples."""
    if isinstance(value, Mapping):
        return [(entries(k), entries(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return (
            type(value)(entries(v) for v in value)
            if isinstance(value, list)
            else tuple(entries(v) for v in value)
        )
    return value


@pytest.mark.java
@pytest.mark.spark
def test_data_source_gives_spark_maps_with_complex_keys(
    spark: Any, java_tables: dict[str, Path]
) -> None:
    for fmt in FORMATS:
        fields = [FIELDS[i] for i in written_columns(fmt)]
        names = [f.name for f in fields if f.name in UNHASHABLE_KEYS]
        frame = spark.read.format("paimon").load(str(java_tables[fmt]))
        for name in names:
            key_type = frame.schema[name].dataType.keyType.simpleString()
            assert key_type.startswith(("array", "struct", "map")), (fmt, name, key_type)
        got = frame.selectExpr("id", *(f"map_entries({n})" for n in names)).orderBy("id")
        positions = [0, *(i for i, f in enumerate(fields) if f.name in names)]
        expected = [tuple(entries(row[i]) for i in positions) for row in expected_rows(fmt)]
        assert [entries(tuple(row)) for row in got.collect()] == expected, fmt


def test_the_checked_columns_have_unhashable_key_types() -> None:
    for field in FIELDS:
        if field.name in UNHASHABLE_KEYS:
            key = field.type.element if isinstance(field.type, t.MultisetType) else field.type.key
            assert key.root in (t.TypeRoot.ARRAY, t.TypeRoot.ROW, t.TypeRoot.MAP)
