"""Bitmap index v1/v2: Java-written bodies decode to the right rows, our encoder reproduces Java's
bytes, query answers match Java's and the data, and damage is detected."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path
from typing import Any

import fastavro
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pyroaring
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.unit.reference.spec.file_index.java_vectors import (
    block_size_option,
    decode_json_value,
    load_vectors,
    vector_id,
    vector_type,
    vector_values,
)
from reference.errors import PaimonFormatError, SpecViolation
from reference.spec import types as t
from reference.spec.data import Timestamp
from reference.spec.file_index import bitmap as bm
from reference.spec.file_index import container
from reference.spec.file_index.result import ResultKind
from reference.spec.file_index.roaring import row_ids_of

STRING = t.VarCharType(t.MAX_LENGTH)
VECTORS = load_vectors("bitmap")
V1_FILE = "paimon-cpp/file_index/bitmap-index-v1"


# --------------------------------------------------------------------------------------------
# The Java-written v1 body of 100,000 strings
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def v1_bytes(third_party: Path) -> bytes:
    return (third_party / V1_FILE).read_bytes()


@pytest.fixture(scope="module")
def v1_index(v1_bytes: bytes) -> bm.BitmapIndex:
    return bm.decode_bitmap_index(v1_bytes, STRING)


def _independent_v1_dictionary(data: bytes) -> dict[str, Any]:
    """Key -> row set, parsed here with struct and pyroaring only (not the codec under test).

    Multi-row bitmaps are cut at the next stored offset; the last one runs to the end.
    """
    version, rows, count, has_null = struct.unpack_from(">BiiB", data, 0)
    assert (version, has_null) == (1, 0)
    position = 10
    keys, offsets = [], []
    for _ in range(count):
        (length,) = struct.unpack_from(">i", data, position)
        keys.append(data[position + 4 : position + 4 + length].decode())
        (offset,) = struct.unpack_from(">i", data, position + 4 + length)
        offsets.append(offset)
        position += 8 + length
    body = data[position:]
    stored = sorted(o for o in offsets if o >= 0)
    ends = dict(zip(stored, [*stored[1:], len(body)], strict=True))
    dictionary = {}
    for key, offset in zip(keys, offsets, strict=True):
        if offset < 0:
            dictionary[key] = pyroaring.BitMap([-1 - offset])
        else:
            dictionary[key] = pyroaring.BitMap.deserialize(body[offset : ends[offset]])
    assert rows == 100_000
    return dictionary


def test_v1_equality_matches_the_readme(v1_index: bm.BitmapIndex) -> None:
    result = bm.query_equal(v1_index, "asdfghjkl123_2500", STRING)
    assert result.kind is ResultKind.ROWS
    assert list(result.rows) == [3127, 18654, 23615, 43768, 62555, 63261, 66284, 74708, 99268]


def test_v1_against_an_independent_parse(v1_bytes: bytes, v1_index: bm.BitmapIndex) -> None:
    dictionary = _independent_v1_dictionary(v1_bytes)
    # Structural check: every row id 0..99999 is in exactly one value's bitmap.
    assert sum(len(rows) for rows in dictionary.values()) == 100_000
    assert pyroaring.BitMap.union(*dictionary.values()) == pyroaring.BitMap(range(100_000))
    expected = dictionary["asdfghjkl123_5000"]
    assert len(expected) > 0
    assert bm.query_equal(v1_index, "asdfghjkl123_5000", STRING).rows == expected
    assert {e.key: e.rows for e in v1_index.entries} == dictionary
    assert len(bm.query_equal(v1_index, "asdfghjkl123_99999", STRING).rows) == 0
    not_5000 = bm.query_not_equal(v1_index, "asdfghjkl123_5000", STRING).rows
    assert len(not_5000) == 100_000 - len(expected)
    assert len(bm.query_is_null(v1_index).rows) == 0


def test_v1_reencodes_to_java_bytes(v1_bytes: bytes, v1_index: bm.BitmapIndex) -> None:
    assert bm.encode_bitmap_index(v1_index, STRING) == v1_bytes


def test_v1_rebuilt_from_rows_is_java_bytes(v1_bytes: bytes, v1_index: bm.BitmapIndex) -> None:
    """Rebuilding from the column (row order) replays Java's HashMap and lands on its bytes."""
    column: list[str | None] = [None] * v1_index.row_count
    for entry in v1_index.entries:
        for row in entry.rows:
            column[row] = entry.key
    rebuilt = bm.build_bitmap_index(column, STRING, version=bm.BitmapVersion.V1)
    assert bm.encode_bitmap_index(rebuilt, STRING) == v1_bytes


# --------------------------------------------------------------------------------------------
# Java vectors (0.9.0 v1, main v1/v2)
# --------------------------------------------------------------------------------------------


def _version(vector: dict[str, Any]) -> bm.BitmapVersion:
    return bm.BitmapVersion(vector["options"].get("version", bm.BitmapVersion.V2))


def _block_size(vector: dict[str, Any]) -> int:
    return block_size_option(vector) or bm.DEFAULT_INDEX_BLOCK_SIZE


@pytest.mark.parametrize("vector", VECTORS, ids=vector_id)
def test_java_vector_bytes(vector: dict[str, Any]) -> None:
    data_type = vector_type(vector)
    built = bm.build_bitmap_index(vector_values(vector), data_type, version=_version(vector))
    encoded = bm.encode_bitmap_index(built, data_type, index_block_size=_block_size(vector))
    if "bytes" in vector:
        assert encoded.hex() == vector["bytes"]
        decoded = bm.decode_bitmap_index(encoded, data_type)
        again = bm.encode_bitmap_index(decoded, data_type, index_block_size=_block_size(vector))
        assert again == encoded
    else:
        assert hashlib.sha256(encoded).hexdigest() == vector["sha256"]


QUERIES = {
    "equal": bm.query_equal,
    "not_equal": bm.query_not_equal,
}


@pytest.mark.parametrize("vector", [v for v in VECTORS if "queries" in v], ids=vector_id)
def test_java_vector_queries(vector: dict[str, Any]) -> None:
    data_type = vector_type(vector)
    index = bm.decode_bitmap_index(bytes.fromhex(vector["bytes"]), data_type)
    for query in vector["queries"]:
        if query["op"] == "is_null":
            result = bm.query_is_null(index)
        elif query["op"] == "is_not_null":
            result = bm.query_is_not_null(index)
        else:
            literal = decode_json_value(query["literal"], data_type)
            result = QUERIES[query["op"]](index, literal, data_type)
        assert list(result.rows) == query["result"], query


# --------------------------------------------------------------------------------------------
# Embedded v2 indexes of a Java-written table, checked against the Parquet data
# --------------------------------------------------------------------------------------------


def test_embedded_indexes_agree_with_the_data(third_party: Path) -> None:
    table = third_party / "paimon-cpp/parquet/append_with_bitmap.db/append_with_bitmap"
    types = {"f0": STRING, "f1": t.IntType(), "f2": t.IntType()}
    checked = 0
    for manifest in sorted((table / "manifest").glob("manifest-[!l]*")):
        with manifest.open("rb") as handle:
            for record in fastavro.reader(handle):
                file = record["_FILE"]
                data = pq.read_table(table / "bucket-0" / file["_FILE_NAME"])
                indexes = container.decode_file_index(file["_EMBEDDED_FILE_INDEX"])
                for column, data_type in types.items():
                    found = container.find_index_body(indexes, column, container.BITMAP)
                    assert found is not None and found.body is not None
                    index = bm.decode_bitmap_index(found.body, data_type)
                    assert index.version is bm.BitmapVersion.V2
                    assert index.row_count == data.num_rows == file["_ROW_COUNT"]
                    values = data.column(column)
                    for value in set(values.to_pylist()) - {None}:
                        mask = pc.fill_null(pc.equal(values, value), False).to_pylist()
                        expected = [row for row, hit in enumerate(mask) if hit]
                        assert list(bm.query_equal(index, value, data_type).rows) == expected
                    nulls = [row for row, v in enumerate(values.to_pylist()) if v is None]
                    assert list(bm.query_is_null(index).rows) == nulls
                    checked += 1
    assert checked == 6


# --------------------------------------------------------------------------------------------
# Round trips and query semantics on generated columns
# --------------------------------------------------------------------------------------------

COLUMNS: list[tuple[t.DataType, st.SearchStrategy[Any]]] = [
    (t.IntType(), st.integers(-3, 40)),
    (t.BigIntType(), st.sampled_from([0, -1, 2**63 - 1, -(2**63), 5])),
    (STRING, st.sampled_from(["", "a", "b", "h\u00e9llo", "\U0001d11e", "k" * 30])),
    (t.BooleanType(), st.booleans()),
    (t.SmallIntType(), st.integers(-(2**15), 2**15 - 1)),
    (t.TinyIntType(), st.integers(-128, 127)),
    (t.DoubleType(), st.sampled_from([0.0, -0.0, 1.5, float("nan"), float("inf")])),
    (t.FloatType(), st.sampled_from([0.0, -0.0, 1.5, float("nan"), -2.0])),
    (t.DateType(), st.integers(-5, 5)),
    (
        t.TimestampType(6),
        st.builds(Timestamp, st.integers(-3, 3), st.sampled_from([0, 1000, 999_999])),
    ),
    (t.LocalZonedTimestampType(3), st.builds(Timestamp, st.integers(-3, 3))),
]


@st.composite
def columns(draw: st.DrawFn) -> tuple[t.DataType, list[Any]]:
    data_type, values = draw(st.sampled_from(COLUMNS))
    return data_type, draw(st.lists(st.one_of(st.none(), values), max_size=60))


def _same_key(left: Any, right: Any, data_type: t.DataType) -> bool:
    return bool(
        bm.compute_key_identity(bm.compute_bitmap_key(left, data_type), data_type)
        == bm.compute_key_identity(bm.compute_bitmap_key(right, data_type), data_type)
    )


@settings(max_examples=150)
@given(columns(), st.sampled_from(list(bm.BitmapVersion)), st.sampled_from([48, 100, 16384]))
def test_round_trip_and_queries(
    column: tuple[t.DataType, list[Any]], version: bm.BitmapVersion, block_size: int
) -> None:
    data_type, values = column
    index = bm.build_bitmap_index(values, data_type, version=version)
    encoded = bm.encode_bitmap_index(index, data_type, index_block_size=block_size)
    decoded = bm.decode_bitmap_index(encoded, data_type)
    assert bm.encode_bitmap_index(decoded, data_type, index_block_size=block_size) == encoded
    assert decoded.row_count == len(values)
    everything = set(range(len(values)))
    for probe in {*(v for v in values if v is not None)}:
        expected = {
            r for r, v in enumerate(values) if v is not None and _same_key(v, probe, data_type)
        }
        assert set(bm.query_equal(decoded, probe, data_type).rows) == expected
        assert set(bm.query_not_equal(decoded, probe, data_type).rows) == everything - expected
    nulls = {r for r, v in enumerate(values) if v is None}
    assert set(bm.query_is_null(decoded).rows) == nulls
    assert set(bm.query_is_not_null(decoded).rows) == everything - nulls
    present = [v for v in values if v is not None][:2]
    expected_in = {
        r
        for r, v in enumerate(values)
        if v is not None and any(_same_key(v, p, data_type) for p in present)
    }
    assert set(bm.query_in(decoded, present, data_type).rows) == expected_in


# --------------------------------------------------------------------------------------------
# Damage
# --------------------------------------------------------------------------------------------

SMALL_V1 = bm.encode_bitmap_index(
    bm.build_bitmap_index([1, None, 2, 1, None, 3], t.IntType(), version=bm.BitmapVersion.V1),
    t.IntType(),
)
SMALL_V2 = bm.encode_bitmap_index(
    bm.build_bitmap_index(["a", None, "b", "a", None, "a"], STRING), STRING
)


@pytest.mark.parametrize(("data", "data_type"), [(SMALL_V1, t.IntType()), (SMALL_V2, STRING)])
def test_every_truncation_is_a_format_error(data: bytes, data_type: t.DataType) -> None:
    for cut in range(len(data)):
        with pytest.raises((PaimonFormatError, SpecViolation)):
            bm.decode_bitmap_index(data[:cut], data_type)


@pytest.mark.parametrize("version", [0, 3, 255])
def test_unknown_version(version: int) -> None:
    with pytest.raises(PaimonFormatError, match="version"):
        bm.decode_bitmap_index(bytes([version]) + SMALL_V1[1:], t.IntType())


def test_v2_value_count_must_match_blocks() -> None:
    wrong = SMALL_V2[:5] + struct.pack(">i", 3) + SMALL_V2[9:]
    with pytest.raises(PaimonFormatError, match="hold 2 of 3"):
        bm.decode_bitmap_index(wrong, STRING)


def test_garbled_bitmap_cookie() -> None:
    cookie = SMALL_V1.index(bytes.fromhex("3a30"))
    garbled = SMALL_V1[:cookie] + b"\x00\x00" + SMALL_V1[cookie + 2 :]
    with pytest.raises(PaimonFormatError, match="cookie"):
        bm.decode_bitmap_index(garbled, t.IntType())


def test_duplicate_and_overlapping_entries_are_violations() -> None:
    entries = bm.build_bitmap_index([1, 2], t.IntType()).entries
    twice = bm.BitmapIndex(bm.BitmapVersion.V1, 2, row_ids_of([]), (entries[0], entries[0]))
    with pytest.raises(SpecViolation, match="twice"):
        bm.encode_bitmap_index(twice, t.IntType())
    overlapping = bm.BitmapIndex(
        bm.BitmapVersion.V1, 2, row_ids_of([]), (entries[0], bm.BitmapEntry(2, row_ids_of([0])))
    )
    with pytest.raises(SpecViolation, match="appear twice"):
        bm.encode_bitmap_index(overlapping, t.IntType())
    beyond = bm.BitmapIndex(bm.BitmapVersion.V1, 1, row_ids_of([]), entries)
    with pytest.raises(SpecViolation, match="beyond"):
        bm.encode_bitmap_index(beyond, t.IntType())


def test_unsupported_type() -> None:
    with pytest.raises(SpecViolation):
        bm.build_bitmap_index([b"x"], t.VarBinaryType(t.MAX_LENGTH))


def test_entry_larger_than_a_block() -> None:
    index = bm.build_bitmap_index(["x" * 100], STRING)
    with pytest.raises(SpecViolation, match="index-block-size"):
        bm.encode_bitmap_index(index, STRING, index_block_size=64)
