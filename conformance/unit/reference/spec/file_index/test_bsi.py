"""BSI index: Java's bytes and query answers, agreement with a Java-written table's data, round
trips with brute-force query checks, and damage detection."""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.unit.reference.spec.file_index.java_vectors import (
    decode_json_value,
    load_vectors,
    vector_id,
    vector_type,
    vector_values,
)
from reference.errors import PaimonFormatError, SpecViolation
from reference.spec import types as t
from reference.spec.data import Timestamp
from reference.spec.file_index import bsi, container
from reference.spec.file_index.result import IndexResult
from reference.spec.file_index.roaring import row_ids_of

VECTORS = load_vectors("bsi")

COMPARISONS: dict[str, tuple[Callable[..., IndexResult], Callable[[int, int], bool]]] = {
    "equal": (bsi.query_equal, operator.eq),
    "not_equal": (bsi.query_not_equal, operator.ne),
    "less_than": (bsi.query_less_than, operator.lt),
    "less_or_equal": (bsi.query_less_or_equal, operator.le),
    "greater_than": (bsi.query_greater_than, operator.gt),
    "greater_or_equal": (bsi.query_greater_or_equal, operator.ge),
}


@pytest.mark.parametrize("vector", VECTORS, ids=vector_id)
def test_java_vector_bytes(vector: dict[str, Any]) -> None:
    encoded = bsi.encode_bsi_index(bsi.build_bsi_index(vector_values(vector), vector_type(vector)))
    if "bytes" in vector:
        assert encoded.hex() == vector["bytes"]
        assert bsi.encode_bsi_index(bsi.decode_bsi_index(encoded)) == encoded
    else:
        assert len(encoded) == vector["byte_length"]
        assert hashlib.sha256(encoded).hexdigest() == vector["sha256"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "queries" in v], ids=vector_id)
def test_java_vector_queries(vector: dict[str, Any]) -> None:
    data_type = vector_type(vector)
    if "bytes" in vector:
        index = bsi.decode_bsi_index(bytes.fromhex(vector["bytes"]))
    else:
        index = bsi.build_bsi_index(vector_values(vector), data_type)
    for query in vector["queries"]:
        if query["op"] == "is_null":
            result = bsi.query_is_null(index)
        elif query["op"] == "is_not_null":
            result = bsi.query_is_not_null(index)
        else:
            literal = decode_json_value(query["literal"], data_type)
            result = COMPARISONS[query["op"]][0](index, literal, data_type)
        assert list(result.rows) == query["result"], query


# --------------------------------------------------------------------------------------------
# The .index file of a Java-written table, against its Parquet data
# --------------------------------------------------------------------------------------------


def _as_longs(column: pa.ChunkedArray, data_type: t.DataType) -> list[int | None]:
    """The column as BSI longs, computed from the Parquet values (ns timestamps -> micros)."""
    if isinstance(data_type, t.TimestampType):
        nanos = column.cast(pa.int64()).to_pylist()
        return [None if n is None else n // 1000 for n in nanos]
    return column.to_pylist()


def test_index_file_agrees_with_the_data(third_party: Path) -> None:
    table = third_party / "paimon-cpp/parquet/append_with_bsi.db/append_with_bsi"
    (manifest,) = sorted((table / "manifest").glob("manifest-[!l]*"))
    with manifest.open("rb") as handle:
        (record,) = list(fastavro.reader(handle))
    data_name = record["_FILE"]["_FILE_NAME"]
    data = pq.read_table(table / "bucket-0" / data_name)
    indexes = container.decode_file_index((table / "bucket-0" / f"{data_name}.index").read_bytes())
    types = {"f1": t.IntType(), "f2": t.IntType(), "f4": t.TimestampType(9)}
    for column, data_type in types.items():
        found = container.find_index_body(indexes, column, container.BSI)
        assert found is not None and found.body is not None
        index = bsi.decode_bsi_index(found.body)
        assert index.row_count == data.num_rows
        longs = _as_longs(data.column(column), data_type)
        nulls = [row for row, v in enumerate(longs) if v is None]
        assert list(bsi.query_is_null(index).rows) == nulls
        probes = sorted({v for v in longs if v is not None} | {0, -1, 10**18})
        for probe in probes:
            literal: Any = probe
            if isinstance(data_type, t.TimestampType):
                literal = Timestamp.from_epoch_micros(probe)
            for name, (query, compare) in COMPARISONS.items():
                expected = [r for r, v in enumerate(longs) if v is not None and compare(v, probe)]
                assert list(query(index, literal, data_type).rows) == expected, (column, name)


# --------------------------------------------------------------------------------------------
# Generated columns: round trip and brute-force query semantics
# --------------------------------------------------------------------------------------------

longs = st.one_of(
    st.integers(-20, 20),
    st.sampled_from([2**63 - 1, -(2**63) + 1, 2**31, -(2**31)]),
    st.integers(-(2**63) + 1, 2**63 - 1),
)


@settings(max_examples=120)
@given(st.lists(st.one_of(st.none(), longs), max_size=50), longs)
def test_round_trip_and_queries(values: list[int | None], probe: int) -> None:
    data_type = t.BigIntType()
    encoded = bsi.encode_bsi_index(bsi.build_bsi_index(values, data_type))
    index = bsi.decode_bsi_index(encoded)
    assert bsi.encode_bsi_index(index) == encoded
    for probe_value in {probe, *(v for v in values[:3] if v is not None)}:
        for query, compare in COMPARISONS.values():
            expected = {
                r for r, v in enumerate(values) if v is not None and compare(v, probe_value)
            }
            assert set(query(index, probe_value, data_type).rows) == expected
    nulls = {r for r, v in enumerate(values) if v is None}
    assert set(bsi.query_is_null(index).rows) == nulls
    assert set(bsi.query_is_not_null(index).rows) == set(range(len(values))) - nulls
    chosen = [*[v for v in values if v is not None][:2], probe]
    expected_in = {r for r, v in enumerate(values) if v is not None and v in chosen}
    assert set(bsi.query_in(index, chosen, data_type).rows) == expected_in
    expected_not_in = {r for r, v in enumerate(values) if v is not None and v not in chosen}
    assert set(bsi.query_not_in(index, chosen, data_type).rows) == expected_not_in
    low, high = sorted((probe, chosen[0]))
    between = {r for r, v in enumerate(values) if v is not None and low <= v <= high}
    assert set(bsi.query_between(index, low, high, data_type).rows) == between


def test_java_writes_min_zero_and_max_magnitude() -> None:
    index = bsi.build_bsi_index([5, -3, None, 9, -12], t.IntType())
    assert index.positive is not None and index.negative is not None
    assert (index.positive.min, index.positive.max, len(index.positive.slices)) == (0, 9, 4)
    assert (index.negative.min, index.negative.max, len(index.negative.slices)) == (0, 12, 4)
    assert list(index.negative.existence) == [1, 4]


def test_nonzero_min_is_honoured() -> None:
    # A writer may offset magnitudes by min: rows hold min + bits.
    positive = bsi.SliceSet(10, 13, row_ids_of([0, 1]), (row_ids_of([1]), row_ids_of([1])))
    index = bsi.BsiIndex(2, positive, None)
    decoded = bsi.decode_bsi_index(bsi.encode_bsi_index(index))
    assert bsi.compute_bsi_values(decoded) == {0: 10, 1: 13}
    assert list(bsi.query_equal(decoded, 13, t.IntType()).rows) == [1]


def test_decimal_and_timestamp_longs() -> None:
    assert bsi.compute_bsi_long(Decimal("-3.50"), t.DecimalType(10, 2)) == -350
    assert bsi.compute_bsi_long(Timestamp(-1, 999_999), t.TimestampType(6)) == -1
    assert bsi.compute_bsi_long(Timestamp(-1, 999_999), t.TimestampType(3)) == -1
    assert bsi.compute_bsi_long(Timestamp(1, 999_999), t.TimestampType(9)) == 1999


# --------------------------------------------------------------------------------------------
# Damage and invalid input
# --------------------------------------------------------------------------------------------

SMALL = bsi.encode_bsi_index(bsi.build_bsi_index([3, None, -2, 7], t.IntType()))


def test_every_truncation_is_a_format_error() -> None:
    for cut in range(len(SMALL)):
        with pytest.raises(PaimonFormatError):
            bsi.decode_bsi_index(SMALL[:cut])


@pytest.mark.parametrize("version", [0, 2])
def test_unknown_versions(version: int) -> None:
    with pytest.raises(PaimonFormatError, match="version"):
        bsi.decode_bsi_index(bytes([version]) + SMALL[1:])
    with pytest.raises(PaimonFormatError, match="slice set version"):
        bsi.decode_bsi_index(SMALL[:6] + bytes([version]) + SMALL[7:])


def test_row_in_both_signs_is_a_violation() -> None:
    same_row = bsi.encode_slice_set(bsi.SliceSet(0, 0, row_ids_of([0]), ()))
    data = bytes([1]) + (1).to_bytes(4, "big") + b"\x01" + same_row + b"\x01" + same_row
    with pytest.raises(SpecViolation, match="both"):
        bsi.decode_bsi_index(data)


def test_long_min_cannot_be_written() -> None:
    with pytest.raises(SpecViolation, match="MIN_VALUE"):
        bsi.build_bsi_index([-(2**63)], t.BigIntType())


@pytest.mark.parametrize("data_type", [t.VarCharType(10), t.DoubleType()])
def test_unsupported_types(data_type: t.DataType) -> None:
    with pytest.raises(SpecViolation):
        bsi.build_bsi_index([None], data_type)
