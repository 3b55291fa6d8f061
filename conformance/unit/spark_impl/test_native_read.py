"""spark_impl.native_read: which splits Spark's own reader takes (rules 2 and 3), without Spark.

The answers of the hybrid read against the reference are in
``conformance/differential/test_native_read.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from reference.spec import types as t
from reference.spec.schema import TableSchema
from spark_impl.native_read import (
    compute_deleted_words,
    is_evolution_native,
    is_file_native,
    is_raw_convertible,
    is_type_native,
)
from spark_impl.plan import DataFileRef, DeletionFileRef, Split

FIELDS = (t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType()))


def schema_of(options: dict[str, str], primary_keys: tuple[str, ...] = ("k",)) -> TableSchema:
    return TableSchema(
        version=3,
        id=0,
        fields=FIELDS,
        highest_field_id=1,
        partition_keys=(),
        primary_keys=primary_keys,
        options=options,
    )


def ref(level: int, name: str = "data-1.parquet", deletion: Any = None) -> DataFileRef:
    return DataFileRef(f"/t/bucket-0/{name}", 0, level, 10, 0, deletion)


def split(*levels: int) -> Split:
    return Split((), 0, tuple(ref(level) for level in levels))


@pytest.mark.parametrize(
    ("options", "primary_keys", "levels", "raw"),
    [
        ({}, (), (0, 0, 0), True),  # append: every split
        ({}, ("k",), (5,), True),  # one sorted run after a full compaction
        ({}, ("k",), (5, 5), True),
        ({}, ("k",), (3, 5), False),  # two runs overlap: merge
        ({}, ("k",), (0, 5), False),  # level 0
        ({"deletion-vectors.enabled": "true"}, ("k",), (3, 5), True),
        ({"merge-engine": "first-row"}, ("k",), (2, 5), True),
        ({"merge-engine": "partial-update"}, ("k",), (5,), False),  # retractions need a merge
        ({"merge-engine": "aggregation"}, ("k",), (5,), False),
    ],
)
def test_raw_convertible_splits(
    options: dict[str, str], primary_keys: tuple[str, ...], levels: tuple[int, ...], raw: bool
) -> None:
    assert is_raw_convertible(split(*levels), schema_of(options, primary_keys)) is raw


@pytest.mark.parametrize(
    ("data_type", "file_format", "native"),
    [
        (t.DecimalType(20, 2), "orc", True),
        (t.TimestampType(6), "parquet", True),
        (t.TimestampType(9), "parquet", False),  # Spark keeps microseconds
        (t.TimestampType(3), "orc", False),  # ORC's timestamp rule is Python's
        (t.ArrayType(t.IntType()), "parquet", False),
        (t.TimeType(3), "parquet", False),
    ],
)
def test_types_spark_reads_as_java(data_type: t.DataType, file_format: str, native: bool) -> None:
    assert is_type_native(data_type, file_format) is native


def test_evolution_casts_that_spark_computes_as_java() -> None:
    def pair(source: t.DataType, target: t.DataType) -> bool:
        return is_evolution_native(t.DataField(1, "a", source), t.DataField(1, "b", target))

    assert pair(t.IntType(), t.IntType())  # a rename
    assert pair(t.IntType(), t.BigIntType())
    assert pair(t.FloatType(), t.DoubleType())
    assert not pair(t.BigIntType(), t.IntType())
    assert not pair(t.BigIntType(), t.DoubleType())  # Java's rounding of large longs differs
    assert not pair(t.IntType(), t.VarCharType(t.MAX_LENGTH))


def test_files_spark_reads() -> None:
    schema = schema_of({}, ())
    deletion = DeletionFileRef("/t/index/dv-1", 1, 20)
    assert is_file_native(ref(0), schema, schema)
    assert is_file_native(ref(0, deletion=deletion), schema, schema)
    assert is_file_native(ref(0, "data-1.orc"), schema, schema)
    assert not is_file_native(ref(0, "data-1.orc", deletion), schema, schema)  # no row_index
    assert not is_file_native(ref(0, "data-1.avro"), schema, schema)
    remote = DataFileRef("s3://b/t/bucket-0/data-1.parquet", 0, 0, 10, 0)
    assert not is_file_native(remote, schema, schema)


def test_deleted_positions_as_64_bit_words() -> None:
    """Rule 5: position p is bit p % 64 of word p // 64 (two's complement for bit 63); the
    words cover every row of the file, deleted or not."""
    words = compute_deleted_words(np.array([0, 3, 64, 127, 129], dtype=np.int64), row_count=200)
    assert words.dtype == np.int64
    assert words.tolist() == [0b1001, 1 - 2**63, 0b10, 0]
    assert compute_deleted_words(np.zeros(0, dtype=np.int64), row_count=0).tolist() == []
    assert compute_deleted_words(np.array([70]), row_count=10).tolist() == [0, 1 << 6]
