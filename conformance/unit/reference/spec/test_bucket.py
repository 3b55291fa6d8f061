"""Buckets: Java's bucket assignment reproduced bit for bit.

Oracles: the 5000 bucket-key rows of paimon-cpp with the bucket Java's
``FixedBucketRowKeyExtractor`` gave each (12345 buckets); the ``bucket-N`` directories Java wrote
rows into; published Murmur3 values; and hand-worked Java ``%`` arithmetic.
"""

from __future__ import annotations

import json
import random
import re
import struct
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature
from reference.spec import bucket as b
from reference.spec import types as t
from reference.spec.data import Timestamp, decimal_from_unscaled

RECORDS_FILE = "paimon-cpp/record_for_bucket_id.data"
RECORDS_NUM_BUCKETS = 12345
RECORDS_EXPECTED_ROWS = 5000

# Column types of the bucket-key rows, as the third-party README lists them.
RECORD_TYPES: list[t.DataType] = [
    t.BooleanType(),
    t.TinyIntType(),
    t.SmallIntType(),
    t.IntType(),
    t.BigIntType(),
    t.FloatType(),
    t.DoubleType(),
    t.DateType(),
    t.TimestampType(9),
    t.DecimalType(30, 20),
    t.VarCharType(t.MAX_LENGTH),
    t.VarBinaryType(t.MAX_LENGTH),
]


def _float32(value: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def _record_values(record: list[Any]) -> list[Any]:
    """The JSON columns as internal values (README: FLOAT is float32, TIMESTAMP epoch nanos,
    DECIMAL a string, BYTES the UTF-8 of a string)."""
    (boolean, tiny, small, integer, big, real, double, days, nanos, decimal, text, data) = record
    return [
        boolean,
        tiny,
        small,
        integer,
        big,
        _float32(real),
        double,
        days,
        Timestamp.from_epoch_nanos(nanos),
        Decimal(decimal),
        text,
        data.encode("utf-8"),
    ]


def _read_records(path: Path) -> list[list[Any]]:
    """The file is JSON arrays each followed by ``,`` and a newline."""
    text = path.read_text(encoding="utf-8").strip().removesuffix(",")
    records: list[list[Any]] = json.loads("[" + text + "]")
    return records


def test_all_java_bucket_key_rows_get_the_java_bucket(third_party: Path) -> None:
    records = _read_records(third_party / RECORDS_FILE)
    assert len(records) == RECORDS_EXPECTED_ROWS
    mismatches = []
    for index, record in enumerate(records):
        values, expected = _record_values(record[:12]), record[12]
        actual = b.compute_fixed_bucket(values, RECORD_TYPES, RECORDS_NUM_BUCKETS)
        if actual != expected:
            mismatches.append((index, expected, actual))
    assert mismatches == []


@pytest.mark.parametrize("table", ["append_09", "pk_09", "pk_table_scan_and_read_dv"])
def test_rows_sit_in_the_bucket_directory_java_chose(third_party: Path, table: str) -> None:
    """These tables have ``bucket = 2`` and ``bucket-key = f2`` (an INT)."""
    root = third_party / "paimon-cpp" / "parquet" / f"{table}.db" / table
    schema = json.loads((root / "schema" / "schema-0").read_text())
    options = schema["options"]
    key_fields = b.compute_bucket_key_fields(
        [f["name"] for f in schema["fields"]],
        schema["partitionKeys"],
        schema["primaryKeys"],
        options,
    )
    assert key_fields == ("f2",)
    files = sorted(root.glob("*/bucket-*/*.parquet"))
    assert files
    for data_file in files:
        match = re.fullmatch(r"bucket-(\d+)", data_file.parent.name)
        assert match is not None
        for value in pq.ParquetFile(data_file).read().column("f2").to_pylist():
            bucket = b.compute_fixed_bucket([value], [t.IntType()], int(options["bucket"]))
            assert bucket == int(match.group(1)), (data_file, value)


# --------------------------------------------------------------------------------------------
# Bucket function arithmetic
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hash_code", "num_buckets", "expected"),
    [
        (0, 7, 0),
        (17, 5, 2),
        # Java: -7 % 5 == -2, abs -> 2 (a floor modulo would give 3).
        (-7, 5, 2),
        (-1, 12345, 1),
        # Integer.MIN_VALUE % 12345 == -(2147483648 - 173955 * 12345) == -9173 -> 9173.
        (-(2**31), 12345, 9173),
        (2**31 - 1, 12345, 9172),
        (123, 1, 0),
    ],
)
def test_compute_bucket_uses_java_remainder(
    hash_code: int, num_buckets: int, expected: int
) -> None:
    assert b.compute_bucket(hash_code, num_buckets) == expected


def test_compute_bucket_rejects_non_positive_bucket_counts() -> None:
    with pytest.raises(InvalidOptionError):
        b.compute_bucket(1, 0)
    with pytest.raises(InvalidOptionError):
        b.compute_bucket(1, b.DYNAMIC_BUCKET)


def test_mod_bucket_function_is_floor_mod() -> None:
    assert b.compute_fixed_bucket([-3], [t.IntType()], 5, b.BucketFunctionType.MOD) == 2
    assert b.compute_fixed_bucket([17], [t.BigIntType()], 5, b.BucketFunctionType.MOD) == 2
    assert b.compute_fixed_bucket([None], [t.IntType()], 5, b.BucketFunctionType.MOD) == 0
    with pytest.raises(InvalidOptionError):
        b.compute_fixed_bucket(["x"], [t.VarCharType(3)], 5, b.BucketFunctionType.MOD)
    with pytest.raises(UnsupportedFeature):
        b.compute_fixed_bucket([1], [t.IntType()], 5, b.BucketFunctionType.HIVE)


def test_bucket_function_option_parses_case_insensitively() -> None:
    assert b.parse_bucket_function_type("MOD") is b.BucketFunctionType.MOD
    with pytest.raises(InvalidOptionError):
        b.parse_bucket_function_type("range")


def test_key_hash_is_the_word_murmur_of_the_key_row() -> None:
    """A one-INT key row is 16 bytes: header word 0, then the int in the low half of its slot.
    Hashing those four 32-bit words (0, 0, 5, 0) with Murmur3 seed 42 is done here by hand."""

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF

    h = 42
    for word in (0, 0, 5, 0):
        k = rotl((word * 0xCC9E2D51) & 0xFFFFFFFF, 15) * 0x1B873593 & 0xFFFFFFFF
        h = (rotl(h ^ k, 13) * 5 + 0xE6546B64) & 0xFFFFFFFF
    h ^= 16
    h ^= h >> 16
    h = h * 0x85EBCA6B & 0xFFFFFFFF
    h ^= h >> 13
    h = h * 0xC2B2AE35 & 0xFFFFFFFF
    h ^= h >> 16
    expected = h - (1 << 32) if h >= 1 << 31 else h
    assert b.compute_bucket_key_hash([5], [t.IntType()]) == expected
    assert b.compute_dynamic_bucket_key_hash([5], [t.IntType(nullable=False)]) == expected


# --------------------------------------------------------------------------------------------
# Which fields form the bucket key
# --------------------------------------------------------------------------------------------

FIELDS = ["dt", "id", "name", "v"]


@pytest.mark.parametrize(
    ("partition_keys", "primary_keys", "options", "expected"),
    [
        # No bucket-key: the primary key minus the partition fields, in primary key order.
        (["dt"], ["id", "dt", "name"], {}, ("id", "name")),
        ([], ["name", "id"], {}, ("name", "id")),
        # Blank bucket-key counts as absent.
        (["dt"], ["dt", "id"], {"bucket-key": "  "}, ("id",)),
        # bucket-key wins, in the option's order.
        (["dt"], ["dt", "id", "name"], {"bucket-key": "name,id"}, ("name", "id")),
        ([], [], {"bucket-key": "v"}, ("v",)),
        # Append table without bucket-key: no bucket key.
        (["dt"], [], {}, ()),
    ],
)
def test_bucket_key_fields(
    partition_keys: list[str],
    primary_keys: list[str],
    options: dict[str, str],
    expected: tuple[str, ...],
) -> None:
    assert b.compute_bucket_key_fields(FIELDS, partition_keys, primary_keys, options) == expected


@pytest.mark.parametrize(
    ("partition_keys", "primary_keys", "bucket_key"),
    [
        ([], [], "missing"),
        (["dt"], [], "dt"),
        ([], ["id"], "name"),
        # Java splits on "," without trimming, so " id" is not a field.
        ([], ["id", "name"], "name, id"),
    ],
)
def test_invalid_bucket_keys(
    partition_keys: list[str], primary_keys: list[str], bucket_key: str
) -> None:
    with pytest.raises(InvalidOptionError):
        b.compute_bucket_key_fields(
            FIELDS, partition_keys, primary_keys, {"bucket-key": bucket_key}
        )


def test_primary_key_of_only_partition_fields_is_invalid() -> None:
    with pytest.raises(SpecViolation):
        b.compute_trimmed_primary_keys(["dt"], ["dt"])


# --------------------------------------------------------------------------------------------
# Java 0.9 differential (the harness writes, the bucket directories answer)
# --------------------------------------------------------------------------------------------

JAVA_NUM_BUCKETS = 7
JAVA_ROWS = 240

JAVA_KEY_FIELDS = (
    t.DataField(0, "k_decimal", t.DecimalType(38, 10)),
    t.DataField(1, "k_ts", t.TimestampType(9)),
    t.DataField(2, "k_text", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(3, "k_double", t.DoubleType()),
    t.DataField(4, "k_ltz", t.LocalZonedTimestampType(3)),
    t.DataField(5, "k_small_decimal", t.DecimalType(10, 2)),
)


def _random_key_value(rng: random.Random, data_type: t.DataType) -> Any:
    """A value of ``data_type`` or null; timestamps stay after the epoch because Paimon 0.9's
    Parquet INT96 reader rejects earlier TIMESTAMP(9) values when it spills its write buffer."""
    if rng.random() < 0.25:
        return None
    if isinstance(data_type, t.DecimalType):
        bound = 10**data_type.precision - 1
        return decimal_from_unscaled(rng.randint(-bound, bound), data_type.scale)
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        nanos = rng.randint(0, 10**18)
        step = 10 ** (9 - data_type.precision)
        return Timestamp.from_epoch_nanos(nanos - nanos % step)
    if isinstance(data_type, t.VarCharType):
        return "".join(rng.choice("ab€😀x") for _ in range(rng.randint(0, 12)))
    return rng.choice([rng.uniform(-1e9, 1e9), -0.0, 0.0, float("inf")])


@pytest.mark.java
def test_java_assigns_nullable_wide_keys_to_the_computed_bucket(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Null non-compact DECIMAL / TIMESTAMP keys, multi-byte strings, -0.0 and infinities."""
    java = request.getfixturevalue("java_harness")
    rng = random.Random(20240901)
    fields = (*JAVA_KEY_FIELDS, t.DataField(6, "p", t.IntType()))
    key_types = [f.type for f in JAVA_KEY_FIELDS]
    rows = [
        (*(_random_key_value(rng, dt) for dt in key_types), rng.randint(0, 2))
        for _ in range(JAVA_ROWS)
    ]
    table = tmp_path / "bucketed"
    java.create_table(
        table,
        fields,
        partition_keys=["p"],
        options={
            "bucket": str(JAVA_NUM_BUCKETS),
            "bucket-key": ",".join(f.name for f in JAVA_KEY_FIELDS),
            "file.format": "parquet",
        },
    )
    java.write(table, rows, commit=True)
    expected = Counter(
        (row[-1], b.compute_fixed_bucket(list(row[:-1]), key_types, JAVA_NUM_BUCKETS))
        for row in rows
    )
    actual: Counter[tuple[int, int]] = Counter()
    for data_file in table.glob("p=*/bucket-*/*.parquet"):
        partition = int(data_file.parent.parent.name.removeprefix("p="))
        bucket = int(data_file.parent.name.removeprefix("bucket-"))
        actual[(partition, bucket)] += pq.ParquetFile(data_file).metadata.num_rows
    assert actual == expected
