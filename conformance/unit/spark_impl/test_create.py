"""Creating tables from Spark (``spark_impl.create``), as a Paimon-on-Spark user tries it
(issue 19's rows "df.write ... save(new_path)", "CREATE TABLE ... USING paimon", "the only way
in"). The reference reads every table back (the oracle); its schema file is decoded by
``reference.spec.schema``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.spark_impl.conftest import ReferenceReader
from reference.errors import InvalidOptionError, TableAlreadyExistsError
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.schema import decode_schema
from reference.table import Table
from spark_impl.create import compute_table_options, is_table

pytestmark = pytest.mark.spark

ROWS = [(1, "a", "2024"), (2, "b", "2024"), (3, "c", "2025")]
DDL = "id INT, v STRING, dt STRING"


def schema_0(root: Path) -> Any:
    return decode_schema((root / "schema" / "schema-0").read_text())


def test_write_to_a_new_path_creates_the_table(
    spark: Any, tmp_path: Path, reference_reader: ReferenceReader
) -> None:
    """Row 1: Paimon's option names on the first write create the table from the DataFrame's
    schema; the reference reads the rows; later writes need no options."""
    root = tmp_path / "db.db" / "t"
    df = spark.createDataFrame(ROWS, DDL)
    (
        df.write.format("paimon")
        .option("primary-key", "id,dt")
        .option("partition", "dt")
        .option("bucket", "4")
        .option("merge-engine", "deduplicate")
        .mode("append")
        .save(str(root))
    )
    schema = schema_0(root)
    assert (schema.primary_keys, schema.partition_keys) == (("id", "dt"), ("dt",))
    assert schema.options == {"bucket": "4", "merge-engine": "deduplicate"}
    assert [(f.id, f.name, str(f.type)) for f in schema.fields] == [
        (0, "id", "INT NOT NULL"),
        (1, "v", "STRING"),
        (2, "dt", "STRING NOT NULL"),
    ]
    spark.createDataFrame([(1, "z", "2024")], DDL).write.format("paimon").mode("append").save(
        str(root)
    )
    assert reference_reader(root) == Counter([(1, "z", "2024"), (2, "b", "2024"), (3, "c", "2025")])


def test_the_issue_row_as_written_is_refused_before_creating(spark: Any, tmp_path: Path) -> None:
    """Row 1 verbatim: primary key ``id`` without the partition ``dt`` is a cross-partition
    update table, which needs ``bucket`` -1 (Java ``SchemaValidation.validateBucket`` in 0.9);
    the write is refused in one line naming the option and leaves no table behind."""
    root = tmp_path / "t"
    writer = (
        spark.createDataFrame(ROWS, DDL)
        .write.format("paimon")
        .option("primary-key", "id")
        .option("partition", "dt")
        .option("bucket", "4")
        .mode("append")
    )
    with pytest.raises(Exception, match="option 'bucket' = 4") as raised:
        writer.save(str(root))
    assert "Traceback" not in str(raised.value)
    assert not is_table(LocalFileIO(), str(root))


def test_a_write_cannot_change_or_misspell_options(spark: Any, tmp_path: Path) -> None:
    """An existing table refuses a different option value naming the option; a typo is
    refused with the nearest known keys (row "a typo bukket on write")."""
    root = str(tmp_path / "t")
    df = spark.createDataFrame(ROWS, DDL)
    df.write.format("paimon").option("bucket", "2").option("bucket-key", "id").mode("append").save(
        root
    )
    df.write.format("paimon").option("bucket", "2").mode("append").save(root)  # same value
    with pytest.raises(Exception, match=r"option 'bucket' = '8': the table at .* has '2'"):
        df.write.format("paimon").option("bucket", "8").mode("append").save(root)
    with pytest.raises(Exception, match=r"option 'bukket' = '2': unknown option; did you mean "):
        df.write.format("paimon").option("bukket", "2").mode("append").save(root)


def test_invalid_options_create_nothing(spark: Any, tmp_path: Path) -> None:
    """Options are validated as the reference validates them (``reference.spec.options``)."""
    root = tmp_path / "t"
    df = spark.createDataFrame(ROWS, DDL)
    with pytest.raises(Exception, match="option 'bucket' = '0'"):
        df.write.format("paimon").option("bucket", "0").mode("append").save(str(root))
    with pytest.raises(Exception, match="option 'merge-engine' = 'newest'"):
        writer = df.write.format("paimon").option("primary-key", "id").mode("append")
        writer.option("merge-engine", "newest").save(str(root))
    assert not is_table(LocalFileIO(), str(root))


def test_create_table_from_a_ddl_string_or_a_struct_type(
    spark: Any, tmp_path: Path, reference_reader: ReferenceReader
) -> None:
    """Row "the only way in": ``spark_impl.create_table``; the reference writes into the
    table it made and Spark reads that back."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "t")
    spark_impl.create_table(
        spark, root, DDL, primary_keys=["id", "dt"], partition_keys=["dt"], options={"bucket": "2"}
    )
    table = Table.open(LocalFileIO(), root)
    table.commit(table.write([(1, "a", "2024")]))
    assert reference_reader(root) == Counter([(1, "a", "2024")])
    assert spark.read.format("paimon").load(root).collect() == [(1, "a", "2024")]
    with pytest.raises(TableAlreadyExistsError):
        spark_impl.create_table(spark, root, DDL)
    nested = spark.createDataFrame([], "k INT, r STRUCT<a: INT, b: STRING>").schema
    other = str(tmp_path / "nested")
    schema = spark_impl.create_table(spark, other, nested, options={"file.format": "orc"})
    row = schema.fields[1].type
    assert isinstance(row, t.RowType)
    assert [f.id for f in row.fields] == [1, 2]  # before their row (Java ReassignFieldId)
    assert [f.id for f in schema.fields] == [0, 3]
    assert schema.highest_field_id == 3
    with pytest.raises(InvalidOptionError, match="'bukket'"):
        spark_impl.create_table(spark, str(tmp_path / "x"), DDL, options={"bukket": "1"})


def test_sql_create_table_says_the_way_round(
    spark: Any, tmp_path: Path, reference_reader: ReferenceReader
) -> None:
    """Row "CREATE TABLE ... USING paimon": PySpark 4.3 hands a Python data source no OPTIONS
    or LOCATION from SQL, so CTAS (and SELECT on a catalog table) fail with the way round
    instead of creating nothing; ``saveAsTable`` with the path option reaches the source."""
    root = tmp_path / "sql"
    with pytest.raises(Exception, match="no table path reached the paimon source"):
        spark.sql(
            f"CREATE TABLE ctas_t USING paimon OPTIONS (path '{root}', 'primary-key' 'id') "
            "AS SELECT 1 AS id"
        )
    spark.sql(f"CREATE TABLE IF NOT EXISTS plain_t (id INT) USING paimon LOCATION '{root}'")
    with pytest.raises(Exception, match="no table path reached the paimon source"):
        spark.sql("SELECT * FROM plain_t").collect()
    spark.sql("DROP TABLE IF EXISTS plain_t")
    saved = tmp_path / "saved"
    spark.createDataFrame(ROWS, DDL).write.format("paimon").option("path", str(saved)).option(
        "primary-key", "id,dt"
    ).option("bucket", "1").saveAsTable("saved_t")
    spark.sql("DROP TABLE IF EXISTS saved_t")
    assert schema_0(saved).primary_keys == ("id", "dt")
    assert reference_reader(saved) == Counter(ROWS)


def test_only_table_options_go_into_the_schema() -> None:
    options = {"path": "/x", "s3.endpoint": "http://127.0.0.1:1", "commit.user": "u", "bucket": "2"}
    assert compute_table_options(options) == {"bucket": "2"}
