"""Vectorized bucket hashing against Java 0.9's vectors and the reference's per-row codec."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.java.values import decode_value
from reference.spec import types as t
from reference.spec.bucket import compute_bucket, compute_bucket_key_fields, compute_key_hash
from reference.spec.data import Timestamp
from reference.spec.file_format import rows_to_arrow
from spark_impl.bucketing import compute_buckets, compute_key_hashes, is_vectorized_type

VECTORS = Path(__file__).resolve().parents[3] / "fixtures" / "vectors" / "bucket" / "java-0.9.json"


def _cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]
    return cases


def _columns(rows: list[tuple[Any, ...]], types: list[t.DataType]) -> list[pa.Array]:
    fields = [t.DataField(i, f"c{i}", data_type) for i, data_type in enumerate(types)]
    table = rows_to_arrow(rows, fields)
    return [table.column(i).combine_chunks() for i in range(len(types))]


@pytest.mark.parametrize("case", _cases(), ids=lambda case: case["name"])
def test_java_bucket_key_hashes_and_buckets(case: dict[str, Any]) -> None:
    """Every Java-written vector: the key hash and the bucket for each bucket count."""
    fields = [t.parse_data_field(f) for f in case["fields"]]
    by_name = {f.name: f for f in fields}
    names = compute_bucket_key_fields(
        [f.name for f in fields], case["partition_keys"], case["primary_keys"], case["options"]
    )
    types = [by_name[n].type for n in names]
    rows = []
    for row in case["rows"]:
        values = {
            f.name: decode_value(v, f.type) for f, v in zip(fields, row["values"], strict=True)
        }
        rows.append(tuple(values[n] for n in names))
    hashes = compute_key_hashes(_columns(rows, types), types)
    assert hashes.tolist() == [row["bucket_key_hash"] for row in case["rows"]]
    for count in case["rows"][0]["buckets"]:
        expected = [row["buckets"][count] for row in case["rows"]]
        assert compute_buckets(hashes, int(count)).tolist() == expected, count


VECTORIZED_TYPES = [
    t.VarBinaryType(30),
    t.BinaryType(4),
    t.VarCharType(100),
    t.CharType(5),
    t.LocalZonedTimestampType(3),
    t.TimestampType(3),
    t.DecimalType(18, 4),
    t.TimeType(0),
    t.DateType(),
    t.DoubleType(),
    t.FloatType(),
    t.BigIntType(),
    t.IntType(),
    t.SmallIntType(),
    t.TinyIntType(),
    t.BooleanType(),
]
FALLBACK_TYPES = [t.DecimalType(30, 2), t.TimestampType(6), t.ArrayType(t.IntType())]


def _random_value(rng: random.Random, data_type: t.DataType) -> Any:
    if rng.random() < 0.15:
        return None
    root = data_type.root
    if root is t.TypeRoot.BOOLEAN:
        return rng.random() < 0.5
    if root in t.INTEGER_ROOTS:
        bits = {t.TypeRoot.TINYINT: 8, t.TypeRoot.SMALLINT: 16, t.TypeRoot.INTEGER: 32}.get(
            root, 64
        )
        return rng.randint(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if root in t.FLOATING_ROOTS:
        return rng.choice([0.0, -0.0, float("nan"), float("inf"), 1.5, rng.uniform(-1e9, 1e9)])
    if root is t.TypeRoot.DATE:
        return rng.randint(-100_000, 100_000)
    if root is t.TypeRoot.TIME_WITHOUT_TIME_ZONE:
        return rng.randint(0, 86_399_999)
    if isinstance(data_type, t.DecimalType):
        return Decimal(rng.randint(-(10**15), 10**15)).scaleb(-data_type.scale)
    if root in t.TIMESTAMP_ROOTS:
        nanos = 0 if t.timestamp_precision(data_type) <= 3 else rng.randint(0, 999) * 1000
        return Timestamp(rng.randint(-(10**13), 10**13), nanos)
    if root in t.CHARACTER_ROOTS:
        return "".join(rng.choice("aé日\U0001f600 z") for _ in range(rng.randint(0, 20)))
    if root in t.BINARY_ROOTS:
        return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 20)))
    return [rng.randint(0, 9), None]


@pytest.mark.parametrize("seed", range(4))
def test_random_keys_hash_as_the_reference_codec(seed: int) -> None:
    rng = random.Random(seed)
    types = rng.sample(VECTORIZED_TYPES, rng.randint(1, 4))
    if seed == 3:
        types.append(rng.choice(FALLBACK_TYPES))
    rows = [tuple(_random_value(rng, dt) for dt in types) for _ in range(300)]
    got = compute_key_hashes(_columns(rows, types), types)
    assert got.tolist() == [compute_key_hash(row, types) for row in rows]
    assert all(is_vectorized_type(dt) for dt in VECTORIZED_TYPES)
    assert not any(is_vectorized_type(dt) for dt in FALLBACK_TYPES)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.text(max_size=30)),
            st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_string_and_long_keys(rows: list[tuple[Any, ...]]) -> None:
    types: list[t.DataType] = [t.VarCharType(t.MAX_LENGTH), t.BigIntType()]
    got = compute_key_hashes(_columns(rows, types), types)
    assert got.tolist() == [compute_key_hash(row, types) for row in rows]


@given(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1), st.integers(1, 2000))
def test_buckets_use_java_remainder(hashes: list[int], count: int) -> None:
    got = compute_buckets(np.array(hashes, dtype=np.int32), count).tolist()
    assert got == [compute_bucket(h, count) for h in hashes]
