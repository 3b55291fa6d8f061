"""``spark.read.format("paimon")`` end to end: every paimon-cpp table at every snapshot
against the reference reader, time-travel options, filter pushdown, and a table on S3."""

from __future__ import annotations

import datetime
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.objectstore.pytest_fixtures import S3Store
from conformance.unit.spark_impl.conftest import (
    ReferenceReader,
    snapshot_ids,
    table_roots,
)
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Timestamp, date_from_days
from reference.spec.predicate import And
from reference.spec.schema import decode_schema
from spark_impl.batch_source import to_predicate
from spark_impl.plan import TimeTravel, plan_read, resolve_read_schema

pytestmark = pytest.mark.spark

EPOCH = datetime.datetime(1970, 1, 1)


def spark_value(value: Any, data_type: t.DataType) -> Any:
    """What Spark's ``collect`` returns for an internal value (timestamps floored to micros)."""
    if value is None:
        return None
    if isinstance(value, Timestamp):
        micros = value.millisecond * 1000 + value.nano_of_millisecond // 1000
        moment = EPOCH + datetime.timedelta(microseconds=micros)
        if data_type.root is t.TypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE:
            return moment.replace(tzinfo=datetime.timezone.utc)
        return moment
    if data_type.root is t.TypeRoot.DATE:
        return date_from_days(value)
    if data_type.root in t.BINARY_ROOTS:
        return bytes(value)
    return value


def expected_rows(
    reference_reader: ReferenceReader, root: Path, **travel: Any
) -> Counter[tuple[Any, ...]]:
    rows = reference_reader(root, **travel)
    _, schema_json = resolve_read_schema(LocalFileIO(), str(root), TimeTravel(**travel))
    fields = decode_schema(schema_json).fields
    return Counter(
        {
            tuple(spark_value(v, f.type) for v, f in zip(row, fields, strict=True)): n
            for row, n in rows.items()
        }
    )


def spark_rows(spark: Any, root: str, **options: str) -> Counter[tuple[Any, ...]]:
    reader = spark.read.format("paimon")
    for key, value in options.items():
        reader = reader.option(key, value)
    rows = reader.load(root).collect()
    return Counter(tuple(bytes(v) if isinstance(v, bytearray) else v for v in row) for row in rows)


def table(third_party: Path, name: str) -> Path:
    return third_party / "paimon-cpp" / "parquet" / f"{name}.db" / name


@pytest.mark.slow
def test_every_table_at_every_snapshot(
    spark: Any, third_party: Path, reference_reader: ReferenceReader
) -> None:
    for root in table_roots(third_party):
        for snapshot_id in snapshot_ids(root):
            expected = expected_rows(reference_reader, root, snapshot_id=snapshot_id)
            got = spark_rows(spark, str(root), **{"snapshot-id": str(snapshot_id)})
            assert got == expected, (root.name, snapshot_id)


TIME_TRAVEL_CASES = [
    ("append_table_with_alter_table", 1),  # an older schema
    ("append_09", 2),  # ORC manifests
    ("pk_09", 1),  # nothing readable yet (level 0 only, deletion vectors)
    ("pk_09", 4),
    ("pk_table_scan_and_read_dv", 4),  # deletion vectors
    ("pk_table_partial_update", 1),
    ("pk_table_with_mor", 2),  # sequence fields
]
"""The default tier's time-travel reads through Spark (every snapshot is read without Spark by
``test_read`` and through Spark by the slow tier)."""


@pytest.mark.parametrize(("name", "snapshot_id"), TIME_TRAVEL_CASES)
def test_time_travel(
    spark: Any,
    third_party: Path,
    reference_reader: ReferenceReader,
    name: str,
    snapshot_id: int,
) -> None:
    root = table(third_party, name)
    expected = expected_rows(reference_reader, root, snapshot_id=snapshot_id)
    assert spark_rows(spark, str(root), **{"snapshot-id": str(snapshot_id)}) == expected


def test_every_table_latest(
    spark: Any, third_party: Path, reference_reader: ReferenceReader
) -> None:
    for root in table_roots(third_party):
        assert spark_rows(spark, str(root)) == expected_rows(reference_reader, root), root.name


def test_type_changing_evolution(
    spark: Any, third_party: Path, reference_reader: ReferenceReader
) -> None:
    root = table(third_party, "pk_table_with_mor")
    assert spark_rows(spark, str(root)) == expected_rows(reference_reader, root)


def test_schema_follows_time_travel(spark: Any, third_party: Path) -> None:
    root = str(table(third_party, "append_table_with_alter_table"))
    old = spark.read.format("paimon").option("snapshot-id", "1").load(root)
    latest = spark.read.format("paimon").load(root)
    assert old.columns != latest.columns
    assert latest.schema["key0"].nullable is True


def test_timestamp_columns_are_ntz_micros(spark: Any, third_party: Path) -> None:
    frame = spark.read.format("paimon").load(str(table(third_party, "append_with_bsi")))
    assert frame.schema["f4"].dataType.typeName() == "timestamp_ntz"


def test_tag_and_timestamp_options(
    spark: Any, third_party: Path, tmp_path: Path, reference_reader: ReferenceReader
) -> None:
    root = tmp_path / "pk_09"
    shutil.copytree(table(third_party, "pk_09"), root)
    (root / "tag").mkdir()
    shutil.copy(root / "snapshot" / "snapshot-4", root / "tag" / "tag-t4")
    expected = expected_rows(reference_reader, root, snapshot_id=4)
    assert spark_rows(spark, str(root), **{"tag-name": "t4"}) == expected
    snapshot = (root / "snapshot" / "snapshot-4").read_text()
    millis = snapshot.split('"timeMillis"')[1].split(",")[0].strip(" :")
    assert spark_rows(spark, str(root), **{"timestamp-millis": millis}) == expected


def files_planned(root: Path, spark_filters: list[Any]) -> int:
    """The files ``plan_read`` plans with the filters translated as the source translates them
    (callers that plan themselves may prune; the ``paimon`` source's own plan never does, see
    ``test_scan_planning.py``)."""
    file_io = LocalFileIO()
    _, schema_json = resolve_read_schema(file_io, str(root), TimeTravel())
    types = {f.name: f.type for f in decode_schema(schema_json).fields}
    predicates = tuple(p for p in (to_predicate(f, types) for f in spark_filters) if p)
    predicate = And(predicates) if predicates else None
    return sum(len(s.files) for s in plan_read(file_io, str(root), predicate=predicate).splits)


def test_translated_filters_prune_a_plan_made_with_them(third_party: Path) -> None:
    from pyspark.sql.datasource import EqualTo, GreaterThan, StringContains  # noqa: PLC0415

    root = table(third_party, "pk_09")
    filters = [EqualTo(("f1",), 20), StringContains(("f0",), "A")]
    assert files_planned(root, filters) < files_planned(root, [])
    append_root = table(third_party, "append_09")
    assert files_planned(append_root, [GreaterThan(("f2",), 100)]) < files_planned(append_root, [])


def test_filter_translation() -> None:
    from pyspark.sql import datasource as ds  # noqa: PLC0415

    types = {"i": t.IntType(), "s": t.VarCharType(10), "d": t.DateType(), "ts": t.TimestampType(6)}
    assert to_predicate(ds.EqualTo(("i",), 3), types) is not None
    assert to_predicate(ds.Not(ds.In(("i",), (1, 2))), types) is not None
    assert to_predicate(ds.StringStartsWith(("s",), "ab"), types) is not None
    assert to_predicate(ds.EqualTo(("i",), "3"), types) is None
    assert to_predicate(ds.EqualTo(("x",), 3), types) is None
    assert to_predicate(ds.EqualTo(("a", "b"), 3), types) is None
    leaf = to_predicate(ds.LessThan(("d",), datetime.date(1970, 1, 2)), types)
    assert leaf is not None and leaf.literals == (1,)  # type: ignore[union-attr]
    moment = to_predicate(ds.EqualTo(("ts",), datetime.datetime(1970, 1, 1, 0, 0, 0, 1500)), types)
    assert moment is not None and moment.literals == (Timestamp(1, 500_000),)  # type: ignore[union-attr]


def test_filtered_query_is_correct(
    spark: Any, third_party: Path, reference_reader: ReferenceReader
) -> None:
    root = table(third_party, "pk_09")
    frame = spark.read.format("paimon").load(str(root)).filter("f1 = 20 and f2 >= 0")
    expected = Counter(
        row
        for row in expected_rows(reference_reader, root).elements()
        if row[1] == 20 and row[2] >= 0
    )
    assert Counter(tuple(r) for r in frame.collect()) == expected


@pytest.mark.s3
def test_table_on_s3(
    spark: Any,
    third_party: Path,
    s3_store: S3Store,
    reference_reader: ReferenceReader,
) -> None:
    source = table(third_party, "pk_table_scan_and_read_dv")
    client = s3_store.client()
    prefix = "warehouse/db.db/dv_table"
    for path in source.rglob("*"):
        if path.is_file():
            key = f"{prefix}/{path.relative_to(source).as_posix()}"
            client.put_object(Bucket=s3_store.bucket, Key=key, Body=path.read_bytes())
    uri = f"{s3_store.uri}/{prefix}"
    expected = expected_rows(reference_reader, source)
    assert spark_rows(spark, uri, **s3_store.options) == expected
    old = expected_rows(reference_reader, source, snapshot_id=3)
    assert spark_rows(spark, uri, **{**s3_store.options, "snapshot-id": "3"}) == old
