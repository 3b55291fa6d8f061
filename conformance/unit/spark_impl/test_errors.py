"""What a Spark user reads when a write goes wrong (issue 19's row "errors"): one line naming
the table, the column and the cause, no Python traceback inside Spark's message
(``spark_impl.register`` turns on ``spark.sql.execution.pyspark.udf.hideTraceback.enabled``),
and nothing committed (the reference reads the table: the oracle)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from conformance.unit.spark_impl.conftest import ReferenceReader
from reference.errors import SpecViolation
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.schema import decode_schema
from reference.table import Table
from spark_impl.batch_source import explain_conversion_error
from spark_impl.datasource import HIDE_TRACEBACK_CONF

FIELDS = [t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType())]
TRACEBACK = "Traceback (most recent call last)"


@pytest.fixture
def table_root(tmp_path: Path) -> str:
    root = str(tmp_path / "db.db" / "t")
    table = Table.create(LocalFileIO(), root, FIELDS, primary_keys=["k"], options={"bucket": "1"})
    table.commit(table.write([(1, 10)]))
    return root


def test_a_column_error_names_the_column() -> None:
    schema = decode_schema(
        '{"version":3,"id":0,"fields":[{"id":0,"name":"k","type":"INT NOT NULL"},'
        '{"id":1,"name":"v","type":"INT"}],"highestFieldId":1,"partitionKeys":[],'
        '"primaryKeys":["k"],"options":{"bucket":"1"}}'
    )
    batch = pa.table({"k": pa.array([1], pa.int32()), "v": pa.array([2**40])})
    error = explain_conversion_error(batch, schema, {"path": "/w/t"}, ValueError("x"))
    assert isinstance(error, SpecViolation)
    assert str(error).startswith("/w/t: column 'v' (INT): Integer value 1099511627776 not in range")


@pytest.mark.spark
def test_a_wrong_value_type_is_one_line_naming_table_and_column(
    spark: Any, table_root: str, reference_reader: ReferenceReader
) -> None:
    """``string`` into ``INT`` (today: ``ArrowInvalid: Failed to parse string: 'abc' as a
    scalar of type int32`` in a task) is refused before any task runs."""
    assert spark.conf.get(HIDE_TRACEBACK_CONF) == "true"
    bad = spark.createDataFrame([(2, "abc")], "k INT, v STRING")
    with pytest.raises(Exception) as raised:
        bad.write.format("paimon").mode("append").save(table_root)
    message = str(raised.value)
    assert (
        f"{table_root}: column 'v': the DataFrame's string cannot be written to INT "
        "(cast it first, e.g. col('v').cast('int'))"
    ) in message
    assert TRACEBACK not in message
    assert message.count("cannot be written") == 1
    assert reference_reader(table_root) == Counter([(1, 10)])


@pytest.mark.spark
def test_a_value_out_of_range_fails_its_task_in_one_line(
    spark: Any, table_root: str, reference_reader: ReferenceReader
) -> None:
    """A ``bigint`` too large for ``INT`` fails in the task: the message names the table,
    the column and Arrow's reason, once per report, without a Python traceback."""
    bad = spark.createDataFrame([(2, 2**40)], "k INT, v BIGINT")
    with pytest.raises(Exception) as raised:
        bad.write.format("paimon").mode("append").save(table_root)
    message = str(raised.value)
    assert f"{table_root}: column 'v' (INT): Integer value 1099511627776 not in range" in message
    assert TRACEBACK not in message
    assert reference_reader(table_root) == Counter([(1, 10)])
