"""The ``paimon`` source's options (``spark_impl.options``): Paimon's read options and Spark's
``versionAsOf`` / ``timestampAsOf`` select the snapshot, unknown keys are refused with the
nearest known ones, and a loaded DataFrame keeps answering one snapshot (issue 19's row "read
options scan.snapshot-id, versionAsOf ...; a typo bukket on write: all silently ignored").
Tables are written by the reference, whose reads are the oracle."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.spark_impl.conftest import ReferenceReader
from reference.errors import InvalidOptionError, UnsupportedFeature
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.table import Table
from spark_impl.options import (
    TravelChoice,
    check_option_names,
    nearest_keys,
    parse_timestamp_as_of,
    resolve_time_travel,
)

FIELDS = [
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
]


# --------------------------------------------------------------------------------------------
# The rules (no Spark)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "choice"),
    [
        ({}, TravelChoice()),
        ({"scan.snapshot-id": "2"}, TravelChoice(snapshot_id=2)),
        ({"snapshot-id": "2"}, TravelChoice(snapshot_id=2)),
        ({"versionasof": "2"}, TravelChoice(snapshot_id=2)),
        ({"versionasof": "release"}, TravelChoice(tag_name="release")),
        ({"scan.version": "release"}, TravelChoice(tag_name="release")),
        ({"scan.tag-name": "release"}, TravelChoice(tag_name="release")),
        ({"scan.timestamp-millis": "1700000000000"}, TravelChoice(timestamp_millis=1700000000000)),
        ({"timestampasof": "1700000000000"}, TravelChoice(timestamp_millis=1700000000000)),
        ({"timestampasof": "2023-11-14 22:13:20"}, TravelChoice(timestamp_millis=1700000000000)),
        ({"scan.mode": "from-snapshot", "scan.snapshot-id": "3"}, TravelChoice(snapshot_id=3)),
        ({"scan.mode": "latest"}, TravelChoice()),
        ({"scan.mode": "latest-full"}, TravelChoice()),
    ],
)
def test_time_travel_options(options: dict[str, str], choice: TravelChoice) -> None:
    assert resolve_time_travel(options) == choice


def test_time_travel_refusals() -> None:
    with pytest.raises(InvalidOptionError, match=r"choose one time-travel option"):
        resolve_time_travel({"scan.snapshot-id": "1", "versionasof": "2"})
    with pytest.raises(InvalidOptionError, match=r"'scan.mode' = 'from-snapshot': needs exactly"):
        resolve_time_travel({"scan.mode": "from-snapshot"})
    with pytest.raises(InvalidOptionError, match=r"'scan.snapshot-id' = 'x': expected an integer"):
        resolve_time_travel({"scan.snapshot-id": "x"})
    with pytest.raises(UnsupportedFeature, match=r"'incremental-between' = '1,2'"):
        resolve_time_travel({"incremental-between": "1,2"})
    with pytest.raises(UnsupportedFeature, match=r"'scan.mode' = 'compacted-full'"):
        resolve_time_travel({"scan.mode": "compacted-full"})
    with pytest.raises(InvalidOptionError, match=r"'timestampasof'"):
        parse_timestamp_as_of("yesterday")


def test_unknown_keys_name_the_nearest_known() -> None:
    with pytest.raises(InvalidOptionError) as raised:
        check_option_names({"bukket": "4"})
    assert str(raised.value) == (
        "option 'bukket' = '4': unknown option; did you mean 'bucket', 'bucket-key'?"
    )
    assert nearest_keys("scan.snaphot-id")[0] == "scan.snapshot-id"
    assert nearest_keys("versionsof")[0] == "versionasof"
    check_option_names(
        {
            "path": "/t",
            "fields.v.aggregate-function": "sum",  # a key pattern
            "s3.endpoint": "http://127.0.0.1:9000",
            "fs.s3a.access.key": "k",
            "consumer-id": "c",
            "checkpointlocation": "/c",
        }
    )
    with pytest.raises(InvalidOptionError, match="'bucket' = 'four'"):
        check_option_names({"bucket": "four"})  # a known key's value is checked too


# --------------------------------------------------------------------------------------------
# From Spark
# --------------------------------------------------------------------------------------------


@pytest.fixture
def three_snapshots(tmp_path: Path) -> tuple[str, list[int]]:
    """A primary-key table with snapshots 1-3 (``k = 1`` updated each time) and tag
    ``first`` on snapshot 1; returns the root and the snapshots' commit times."""
    root = str(tmp_path / "t")
    table = Table.create(LocalFileIO(), root, FIELDS, primary_keys=["k"], options={"bucket": "1"})
    times = []
    for n in range(3):
        (snapshot,) = table.commit(table.write([(1, f"v{n}"), (n + 10, "x")]))
        times.append(snapshot.time_millis)
    table.create_tag("first", 1)
    return root, times


def rows(df: Any) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(r) for r in df.collect())


@pytest.mark.spark
def test_read_options_select_the_snapshot(
    spark: Any, three_snapshots: tuple[str, list[int]], reference_reader: ReferenceReader
) -> None:
    """Each spelling reads the snapshot the reference reads for it."""
    root, times = three_snapshots
    expected = {s: reference_reader(root, snapshot_id=s) for s in (1, 2, 3)}
    assert expected[1] != expected[2] != expected[3]
    cases = {
        ("scan.snapshot-id", "2"): 2,
        ("versionAsOf", "2"): 2,
        ("versionAsOf", "first"): 1,
        ("scan.tag-name", "first"): 1,
        ("scan.timestamp-millis", str(times[1])): 2,
        ("timestampAsOf", str(times[0])): 1,
        ("scan.mode", "latest"): 3,
    }
    for (key, value), snapshot in cases.items():
        loaded = spark.read.format("paimon").option(key, value).load(root)
        assert rows(loaded) == expected[snapshot], key
    with pytest.raises(Exception, match=r"'scan.snaphot-id' = '2': unknown option; did you mean"):
        spark.read.format("paimon").option("scan.snaphot-id", "2").load(root)
    with pytest.raises(Exception, match=r"'incremental-between' = '1,2'"):
        spark.read.format("paimon").option("incremental-between", "1,2").load(root).collect()


@pytest.mark.spark
def test_a_loaded_dataframe_answers_one_snapshot(
    spark: Any, three_snapshots: tuple[str, list[int]], reference_reader: ReferenceReader
) -> None:
    """A load pins the latest snapshot: the DataFrame (and a view over it, filtered or not)
    keeps answering it after new commits; a new load sees them."""
    root, _ = three_snapshots
    loaded = spark.read.format("paimon").load(root)
    loaded.createOrReplaceTempView("pinned_view")
    before = reference_reader(root, snapshot_id=3)
    table = Table.open(LocalFileIO(), root)
    table.commit(table.write([(1, "later"), (99, "later")]))
    assert rows(loaded) == before
    assert rows(loaded.filter("k >= 0")) == before
    assert rows(spark.sql("SELECT * FROM pinned_view")) == before
    assert rows(spark.read.format("paimon").load(root)) == reference_reader(root)


@pytest.mark.spark
def test_stream_reads_refuse_unknown_options(
    spark: Any, three_snapshots: tuple[str, list[int]]
) -> None:
    root, _ = three_snapshots
    stream = spark.readStream.format("paimon").option("read.row-kind", "true")
    with pytest.raises(Exception, match=r"'consumer-idd' = 'c': unknown option"):
        stream.option("consumer-idd", "c").load(root).writeStream.format("memory").queryName(
            "refused_stream"
        ).start().awaitTermination(5)
