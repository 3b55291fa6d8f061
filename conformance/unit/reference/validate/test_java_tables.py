"""No false positives on tables Java Paimon 0.9 writes right now, with the features the
third-party tables lack: dynamic buckets (HASH index), deletion vectors with ORC data and ORC
manifests, changelog files, Avro data files, bloom-filter and bitmap file indexes, escaped and
null partition values, stats modes, schema evolution, tags and expired snapshots.

Every table must validate with no finding at all (``--deep --all-snapshots``).
"""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

import pytest

from conformance.java.harness import Change, JavaHarness
from conformance.java.pytest_fixtures import java_harness
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import RowKind, Timestamp
from reference.validate import ValidateOptions, validate_table

__all__ = ["java_harness"]

pytestmark = pytest.mark.java

F = t.DataField
STRING = t.VarCharType(t.MAX_LENGTH)
KEY = t.IntType(nullable=False)


def dynamic_bucket(java: JavaHarness, path: str, rng: random.Random) -> None:
    fields = [F(0, "k", KEY), F(1, "dt", STRING.copy(False)), F(2, "v", STRING)]
    options = {"bucket": "-1", "dynamic-bucket.target-row-num": "20", "file.format": "parquet"}
    java.create_table(
        path, fields, partition_keys=["dt"], primary_keys=["k", "dt"], options=options
    )
    for commit in range(3):
        rows = [(rng.randrange(80), rng.choice("ab"), f"v{commit}-{i}") for i in range(50)]
        java.write(path, rows, commit=True)
    java.write(path, [(RowKind.DELETE, (5, "a", None))], commit=True)
    java.compact(path, commit=True)


def deletion_vectors_orc(java: JavaHarness, path: str, rng: random.Random) -> None:
    fields = [
        F(0, "k", t.BigIntType(nullable=False)),
        F(1, "name", STRING),
        F(2, "price", t.DecimalType(10, 2)),
        F(3, "ts", t.TimestampType(3)),
    ]
    options = {
        "bucket": "2",
        "deletion-vectors.enabled": "true",
        "file.format": "orc",
        "manifest.format": "orc",
    }
    java.create_table(path, fields, primary_keys=["k"], options=options)
    for commit in range(4):
        rows = [
            (
                rng.randrange(40),
                "name-" + "x" * rng.randrange(30),
                Decimal(rng.randrange(10_000)) / 100,
                Timestamp(1_700_000_000_000 + rng.randrange(10**6), 0),
            )
            for _ in range(30)
        ]
        java.write(path, rows, commit=True)
        if commit == 1:
            java.create_tag(path, "early")
    java.compact(path, commit=True)
    java.write(path, [(RowKind.DELETE, (1, None, None, None))], commit=True)
    java.expire_snapshots(path, retain_max=3, retain_min=1)


def changelog_avro(java: JavaHarness, path: str, rng: random.Random) -> None:
    fields = [F(0, "k", KEY), F(1, "v", t.DoubleType())]
    options = {"bucket": "1", "changelog-producer": "input", "file.format": "avro"}
    java.create_table(path, fields, primary_keys=["k"], options=options)
    for _ in range(3):
        values = [float("nan"), -0.0, 0.0, 1.5, None]
        java.write(path, [(i, rng.choice(values)) for i in range(15)], commit=True)


def append_file_indexes(java: JavaHarness, path: str, rng: random.Random) -> None:
    fields = [F(0, "id", t.IntType()), F(1, "s", STRING), F(2, "b", t.VarBinaryType(100))]
    options = {
        "bucket": "3",
        "bucket-key": "id",
        "file-index.bloom-filter.columns": "s",
        "file-index.bitmap.columns": "id",
        "file.format": "parquet",
    }
    java.create_table(path, fields, options=options)
    for _ in range(2):
        rows = [
            (rng.randrange(1000), "str" * rng.randrange(10), bytes([rng.randrange(256)] * 5))
            for _ in range(40)
        ]
        java.write(path, rows, commit=True)


def partitions_and_stats(java: JavaHarness, path: str, rng: random.Random) -> None:
    fields = [F(0, "p", STRING), F(1, "d", t.DateType()), F(2, "x", t.IntType())]
    options = {"metadata.stats-mode": "full", "fields.x.stats-mode": "counts"}
    java.create_table(path, fields, partition_keys=["p", "d"], options=options)
    rows = [("a/b", 19000, 1), ("", 19001, 2), (None, None, 3), ("x=y%", 19000, None)]
    java.write(path, rows, commit=True)


def evolution_first_row(java: JavaHarness, path: str, rng: random.Random) -> None:
    fields = [F(0, "k", KEY), F(1, "v", STRING)]
    options = {"bucket": "2", "metadata.stats-mode": "none", "merge-engine": "first-row"}
    java.create_table(path, fields, primary_keys=["k"], options=options)
    java.write(path, [(i, "x" * i) for i in range(30)], commit=True)
    java.alter_table(path, [Change.add_column("w", t.BigIntType())])
    java.write(path, [(i, "y" * i, i * 10) for i in range(20, 50)], commit=True)
    java.compact(path, commit=True)


BUILDERS = {
    "dynamic-bucket": dynamic_bucket,
    "deletion-vectors-orc": deletion_vectors_orc,
    "changelog-avro": changelog_avro,
    "append-file-indexes": append_file_indexes,
    "partitions-and-stats": partitions_and_stats,
    "evolution-first-row": evolution_first_row,
}


SLOW_BUILDERS = {"deletion-vectors-orc"}
"""Builders whose Java run takes half a minute (compactions, expiration): the slow tier."""
NAMES = [
    pytest.param(name, marks=pytest.mark.slow) if name in SLOW_BUILDERS else name
    for name in sorted(BUILDERS)
]


@pytest.mark.parametrize("name", NAMES)
def test_java_written_table_is_clean(java_harness: JavaHarness, tmp_path: Path, name: str) -> None:
    path = str(tmp_path / name)
    BUILDERS[name](java_harness, path, random.Random(name))
    report = validate_table(LocalFileIO(), path, ValidateOptions(all_snapshots=True, deep=True))
    assert report.unreadable is None
    assert report.violations == (), "\n".join(
        f"{v.code} {v.file}: {v.reason}" for v in report.violations
    )
    assert report.checked["snapshots"] >= 1 and report.checked["rows read"] >= 1
