"""Bloom-filter index: Java's hashes, sizing and bytes; no false negatives; damage detected."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.unit.reference.spec.file_index.java_vectors import (
    decode_json_value,
    load_vectors,
    vector_id,
    vector_type,
    vector_values,
)
from reference.errors import InvalidOptionError, PaimonFormatError, SpecViolation
from reference.spec import types as t
from reference.spec.file_index import bloom_filter as bf
from reference.spec.file_index.result import REMAIN, SKIP

VECTORS = load_vectors("bloom_filter")


def _options(vector: dict[str, Any]) -> dict[str, Any]:
    return {key: vector["options"][key] for key in ("items", "fpp") if key in vector["options"]}


@pytest.mark.parametrize("vector", VECTORS, ids=vector_id)
def test_java_vector_bytes(vector: dict[str, Any]) -> None:
    data_type = vector_type(vector)
    built = bf.encode_bloom_filter(
        bf.build_bloom_filter(vector_values(vector), data_type, **_options(vector))
    )
    if "bytes" in vector:
        assert built.hex() == vector["bytes"]
        assert bf.encode_bloom_filter(bf.decode_bloom_filter(built)) == built
    else:
        assert len(built) == vector["byte_length"]
        assert hashlib.sha256(built).hexdigest() == vector["sha256"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "hashes" in v], ids=vector_id)
def test_java_vector_hashes(vector: dict[str, Any]) -> None:
    data_type = vector_type(vector)
    hashes = [bf.compute_fast_hash(v, data_type) for v in vector_values(vector) if v is not None]
    assert hashes == vector["hashes"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "queries" in v], ids=vector_id)
def test_java_vector_queries(vector: dict[str, Any]) -> None:
    data_type = vector_type(vector)
    bloom = bf.build_bloom_filter(vector_values(vector), data_type, **_options(vector))
    for query in vector["queries"]:
        literal = decode_json_value(query["literal"], data_type)
        expected = REMAIN if query["result"] == "REMAIN" else SKIP
        assert bf.query_equal(bloom, literal, data_type) == expected, query


def test_xxhash64_spec_vector() -> None:
    # XXH64 of the empty input with seed 0 is 0xEF46DB3751D8E999 (xxHash specification).
    assert bf.compute_xxhash64(b"") == 0xEF46DB3751D8E999 - 2**64


def test_default_sizing() -> None:
    # -1e6 * ln(0.1) / ln(2)^2 = 4792529.3 -> 4792529 -> rounded up past a byte: 4792536 bits;
    # k = round(4792536 / 1e6 * ln 2) = round(3.32) = 3.
    assert bf.compute_num_bits(bf.DEFAULT_ITEMS, bf.DEFAULT_FPP) == 4792536
    assert bf.compute_num_hash_functions(4792536, bf.DEFAULT_ITEMS) == 3


def test_probe_positions_by_hand() -> None:
    # low = 5, high = 2: probes 5 + 2i for i = 1..3.
    assert bf.compute_bit_positions((2 << 32) | 5, 3, 1000) == [7, 9, 11]
    # low = high = -1: -1 - i is negative, so it is bit-inverted to i.
    assert bf.compute_bit_positions(-1, 3, 1000) == [1, 2, 3]
    # Overflow wraps in 32 bits: low = 2^31 - 1, high = 1 -> -2^31 -> inverted to 2^31 - 1.
    assert bf.compute_bit_positions((1 << 32) | 0x7FFFFFFF, 1, 10) == [(2**31 - 1) % 10]


def test_bit_layout_is_lsb_first() -> None:
    bloom = bf.BloomFilter(1, bytes([0b0000_0100, 0b1000_0000]))
    assert bf.is_bit_set(bloom.bits, 2)
    assert bf.is_bit_set(bloom.bits, 15)
    assert not bf.is_bit_set(bloom.bits, 3)


@given(st.lists(st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)), max_size=60))
def test_no_false_negatives_for_ints(values: list[int | None]) -> None:
    bloom = bf.build_bloom_filter(values, t.IntType(), items=30, fpp=0.05)
    assert all(bf.might_contain(bloom, v, t.IntType()) for v in values)
    decoded = bf.decode_bloom_filter(bf.encode_bloom_filter(bloom))
    assert decoded == bloom


@given(st.lists(st.text(max_size=8), max_size=40), st.integers(1, 500))
def test_no_false_negatives_for_strings(values: list[str], items: int) -> None:
    string = t.VarCharType(t.MAX_LENGTH)
    bloom = bf.build_bloom_filter(values, string, items=items, fpp=0.01)
    assert all(bf.query_equal(bloom, v, string) == REMAIN for v in values)
    assert bf.query_in(bloom, values, string) == (REMAIN if values else SKIP)


def test_null_literal_never_skips() -> None:
    bloom = bf.build_bloom_filter([1], t.IntType(), items=10, fpp=0.1)
    assert bf.might_contain(bloom, None, t.IntType())


@pytest.mark.parametrize("data_type", [t.BooleanType(), t.DecimalType(10, 2), t.ArrayType()])
def test_unsupported_types(data_type: t.DataType) -> None:
    with pytest.raises(SpecViolation):
        bf.build_bloom_filter([], data_type)


@pytest.mark.parametrize(("items", "fpp"), [(0, 0.1), (10, 0.0), (10, 1.0), (2**31 - 1, 1e-9)])
def test_invalid_options(items: int, fpp: float) -> None:
    with pytest.raises(InvalidOptionError):
        bf.compute_num_bits(items, fpp)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00\x00\x00", b"\x00\x00\x00\x03", b"\x00\x00\x00\x00\xff", b"\xff\xff\xff\xff\x01"],
)
def test_damaged_bodies(data: bytes) -> None:
    with pytest.raises(PaimonFormatError):
        bf.decode_bloom_filter(data)
