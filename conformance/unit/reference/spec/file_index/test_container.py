"""File-index container: Java-written containers decode, re-encode byte for byte, and damage is
reported as a format error."""

from __future__ import annotations

from pathlib import Path

import fastavro
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.errors import PaimonFormatError, SpecViolation
from reference.spec.file_index import container as c
from reference.spec.file_index.byte_reader import ByteReader

# FileIndexFormat.Writer of Paimon 0.9.0 given (in this order) column "id" -> {bloom-filter:
# 010203, bitmap: 09}, column "n\u00e4me\u0000\U0001d11e" -> {bsi: null (no rows)}, column "z" ->
# {bitmap: empty, bsi: 0707}.
JAVA_CONTAINER = bytes.fromhex(
    "00054e4ed01a35ae000000010000008a000000030002696400000002000c626c6f6f6d2d66696c746572000000"
    "8a0000000300066269746d61700000008d00000001000d6ec3a46d65c080eda0b4edb49e00000001000362736"
    "9ffffffff0000000000017a0000000200066269746d61700000008e0000000000036273690000008e00000002"
    "00000000010203090707"
)
JAVA_CONTAINER_RECORD = c.FileIndex(
    (
        c.ColumnIndexes(
            "id", (c.ColumnIndex("bloom-filter", b"\x01\x02\x03"), c.ColumnIndex("bitmap", b"\x09"))
        ),
        c.ColumnIndexes("n\u00e4me\u0000\U0001d11e", (c.ColumnIndex("bsi", None),)),
        c.ColumnIndexes("z", (c.ColumnIndex("bitmap", b""), c.ColumnIndex("bsi", b"\x07\x07"))),
    )
)


def _manifest_files(table: Path) -> list[dict[str, object]]:
    files = []
    for path in sorted((table / "manifest").glob("manifest-*")):
        if path.name.startswith("manifest-list"):
            continue
        with path.open("rb") as handle:
            files.extend(record["_FILE"] for record in fastavro.reader(handle))
    return files


def test_java_container_decodes() -> None:
    assert c.decode_file_index(JAVA_CONTAINER) == JAVA_CONTAINER_RECORD
    assert c.encode_file_index(JAVA_CONTAINER_RECORD) == JAVA_CONTAINER


def test_modified_utf8_matches_java_write_utf() -> None:
    assert c.encode_modified_utf8("\u0000") == bytes.fromhex("0002c080")
    assert c.encode_modified_utf8("\U0001d11e") == bytes.fromhex("0006eda0b4edb49e")
    assert c.encode_modified_utf8("\u00e4") == bytes.fromhex("0002c3a4")


@given(st.text())
def test_modified_utf8_round_trip(text: str) -> None:
    encoded = c.encode_modified_utf8(text)
    assert c.decode_modified_utf8(ByteReader(encoded, what="utf"), "name") == text


def test_embedded_bitmap_container_of_a_java_table(third_party: Path) -> None:
    table = third_party / "paimon-cpp/parquet/append_with_bitmap.db/append_with_bitmap"
    files = _manifest_files(table)
    assert files
    for file in files:
        embedded = file["_EMBEDDED_FILE_INDEX"]
        assert isinstance(embedded, bytes)
        assert file["_EXTRA_FILES"] == []
        assert c.is_embedded_in_manifest(len(embedded), c.DEFAULT_IN_MANIFEST_THRESHOLD)
        decoded = c.decode_file_index(embedded)
        assert [col.column for col in decoded.columns] == ["f0", "f1", "f2"]
        assert all([i.index_type for i in col.indexes] == ["bitmap"] for col in decoded.columns)
        assert c.encode_file_index(decoded) == embedded
        bodies = {
            col.column: {i.index_type: i.body for i in col.indexes} for col in decoded.columns
        }
        assert c.encode_file_index(c.compute_java_file_index(bodies)) == embedded


def test_index_file_beside_a_java_data_file(third_party: Path) -> None:
    table = third_party / "paimon-cpp/parquet/append_with_bsi.db/append_with_bsi"
    (file,) = _manifest_files(table)
    index_name = c.compute_index_file_name(str(file["_FILE_NAME"]))
    assert file["_EXTRA_FILES"] == [index_name]
    assert file["_EMBEDDED_FILE_INDEX"] is None
    data = (table / "bucket-0" / index_name).read_bytes()
    assert not c.is_embedded_in_manifest(len(data), threshold=1)  # the table sets 1B
    decoded = c.decode_file_index(data)
    assert [col.column for col in decoded.columns] == ["f1", "f2", "f4"]
    assert c.encode_file_index(decoded) == data
    body = c.find_index_body(decoded, "f2", c.BSI)
    assert body is not None and body.body
    assert c.find_index_body(decoded, "f0", c.BSI) is None


names = st.text(min_size=0, max_size=12)
bodies = st.one_of(st.none(), st.binary(max_size=40))
file_indexes = st.dictionaries(
    names, st.dictionaries(names, bodies, min_size=1, max_size=3), max_size=4
).map(
    lambda columns: c.FileIndex(
        tuple(
            c.ColumnIndexes(name, tuple(c.ColumnIndex(k, v) for k, v in indexes.items()))
            for name, indexes in columns.items()
        )
    )
)


@given(file_indexes)
def test_round_trip(file_index: c.FileIndex) -> None:
    encoded = c.encode_file_index(file_index)
    assert c.decode_file_index(encoded) == file_index
    assert encoded[16:20] == len(file_index.columns).to_bytes(4, "big")


def test_every_truncation_is_a_format_error() -> None:
    head_length = int.from_bytes(JAVA_CONTAINER[12:16], "big")
    for cut in range(head_length):
        with pytest.raises(PaimonFormatError):
            c.decode_file_index(JAVA_CONTAINER[:cut])
    # Cutting into the bodies leaves a header pointing past the end.
    with pytest.raises(PaimonFormatError, match="outside"):
        c.decode_file_index(JAVA_CONTAINER[:-1])


def test_wrong_magic_and_version() -> None:
    with pytest.raises(PaimonFormatError, match="magic"):
        c.decode_file_index(JAVA_CONTAINER[:7] + b"\xff" + JAVA_CONTAINER[8:])
    bad_version = JAVA_CONTAINER[:8] + (2).to_bytes(4, "big") + JAVA_CONTAINER[12:]
    with pytest.raises(PaimonFormatError, match="version 2"):
        c.decode_file_index(bad_version)


def test_impossible_head_length() -> None:
    bad = JAVA_CONTAINER[:12] + (10**6).to_bytes(4, "big") + JAVA_CONTAINER[16:]
    with pytest.raises(PaimonFormatError, match="head length"):
        c.decode_file_index(bad)


def test_duplicate_column_is_a_spec_violation() -> None:
    twice = c.FileIndex((c.ColumnIndexes("a", (c.ColumnIndex("bitmap", b"1"),)),) * 2)
    with pytest.raises(SpecViolation):
        c.encode_file_index(twice)
