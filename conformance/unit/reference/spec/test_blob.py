"""``reference.spec.blob``: the ``.blob`` file layout of Java ``BlobFormatWriter`` (decoded from
files Java Paimon 1.x wrote, and from bytes laid out here by the documented rules) and the choice
of a column's ``.blob`` files in a row id group (Java ``DataEvolutionSplitRead.BlobBunch``)."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reference.errors import PaimonFormatError, SpecViolation, UnsupportedFeature
from reference.spec import types as t
from reference.spec.blob import (
    BlobFileSpan,
    decode_blob_file,
    decode_blob_index,
    decode_delta_varints,
    select_blob_bunch,
)
from reference.spec.file_format import FileFormat, decode_blob_data_file, decode_data_file

BLOB_TABLE = ("paimon-cpp", "db_with_blob.db", "table_with_blob")


def zigzag_varint(value: int) -> bytes:
    """One index integer: ZigZag, then 7 bits a byte, low bits first."""
    encoded = (value << 1) ^ (value >> 63)
    encoded &= (1 << 64) - 1
    out = bytearray()
    while encoded >= 0x80:
        out.append(encoded & 0x7F | 0x80)
        encoded >>= 7
    out.append(encoded)
    return bytes(out)


def blob_file(values: list[bytes | None], *, placeholder_at: int | None = None) -> bytes:
    """A ``.blob`` file laid out as the module's rule 2 states, independently of the decoder."""
    records, lengths = bytearray(), []
    for position, value in enumerate(values):
        if position == placeholder_at:
            lengths.append(-2)
            continue
        if value is None:
            lengths.append(-1)
            continue
        body = struct.pack("<I", 1481511375) + value
        length = len(body) + 12
        body += struct.pack("<q", length)
        records += body + struct.pack("<I", zlib.crc32(body))
        lengths.append(length)
    deltas = [b - a for a, b in zip([0, *lengths], lengths, strict=False)]
    index = b"".join(zigzag_varint(d) for d in deltas)
    return bytes(records) + index + struct.pack("<iB", len(index), 1)


def test_delta_varints_as_java_writes_them() -> None:
    # 100 -> zigzag 200 -> c8 01; +5 -> zigzag 10 -> 0a; -2 -> zigzag 3 -> 03
    assert decode_delta_varints(bytes.fromhex("c8010a03")) == [100, 105, 103]
    assert decode_delta_varints(b"") == []
    assert decode_delta_varints(zigzag_varint(-1) + zigzag_varint(-1)) == [-1, -2]
    with pytest.raises(PaimonFormatError, match="inside a varint"):
        decode_delta_varints(b"\x80")


def test_values_nulls_and_empty_values() -> None:
    values = [b"first", None, b"", b"\x00" * 300, None]
    data = blob_file(values)
    assert decode_blob_index(data)[1] == -1
    assert decode_blob_file(data) == values
    assert decode_blob_file(blob_file([])) == []


def test_placeholders_are_refused() -> None:
    with pytest.raises(UnsupportedFeature, match="placeholder"):
        decode_blob_file(blob_file([b"a", b"b"], placeholder_at=1))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d[:-1] + b"\x02", "version 2"),
        (lambda d: b"\x00" + d[1:], "magic"),
        (lambda d: d[:6] + bytes([d[6] ^ 1]) + d[7:], "CRC-32"),
        (lambda d: d[:3], "no footer"),
        (lambda d: d[:-5] + struct.pack("<iB", 10_000, 1), "exceeds the file"),
        (lambda d: b"x" + d, "records take"),
    ],
    ids=["version", "magic", "crc", "short", "index-length", "records"],
)
def test_damaged_files_are_format_errors(damage: object, message: str) -> None:
    data = blob_file([b"hello", b"world"])
    with pytest.raises(PaimonFormatError, match=message):
        decode_blob_file(damage(data))  # type: ignore[operator]


def test_java_written_files_hold_the_readme_values(third_party: Path) -> None:
    """Each ``.blob`` file of the paimon-cpp table holds the ``.bin`` files its README lists."""
    root = third_party.joinpath(*BLOB_TABLE)
    readme = (root / "README").read_text()
    listed = re.findall(r"(data-\S+\.blob)((?:\s+blob_\d+_\w+\.bin)+)", readme)
    assert len(listed) == 4
    for blob_name, bins in listed:
        expected = [(root / name).read_bytes() for name in bins.split()]
        assert decode_blob_file((root / "bucket-0" / blob_name).read_bytes()) == expected


def spans(*files: tuple[int, int, int]) -> list[BlobFileSpan]:
    return [BlobFileSpan(f"f{i}", first, count, seq) for i, (first, count, seq) in enumerate(files)]


def test_bunch_concatenates_consecutive_files() -> None:
    files = spans((5, 4, 1), (0, 3, 1), (9, 1, 1), (3, 2, 1))
    assert select_blob_bunch(files, 0, 10) == [1, 3, 0, 2]


def test_bunch_takes_the_newest_file_and_skips_older_ones_it_covers() -> None:
    files = spans((0, 10, 1), (0, 10, 3), (0, 4, 2), (10, 5, 1))
    assert select_blob_bunch(files, 0, 15) == [1, 3]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (spans((0, 3, 1), (4, 6, 1)), "continue at row id 3"),
        (spans((0, 3, 1)), "cover 3 rows"),
        (spans((0, 5, 1), (3, 7, 2)), "not older"),
        (spans((1, 10, 1)), "continue at row id 0"),
    ],
    ids=["gap", "short", "newer-overlap", "late-start"],
)
def test_bunch_refuses_files_that_do_not_cover_the_group(
    files: list[BlobFileSpan], message: str
) -> None:
    with pytest.raises(SpecViolation, match=message):
        select_blob_bunch(files, 0, 10)


def test_a_blob_column_inside_a_data_file_is_refused_naming_the_options() -> None:
    """Rule 5: a Parquet BLOB column holds descriptors or views, never read as the bytes."""
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"f5": pa.array([b"descriptor"], pa.binary())}), sink)
    field = t.DataField(5, "f5", t.BlobType())
    with pytest.raises(UnsupportedFeature, match=r"blob-descriptor-field.*blob-view-field"):
        decode_data_file(sink.getvalue().to_pybytes(), FileFormat.PARQUET, [field])


def test_an_array_of_blobs_in_a_blob_file_is_refused() -> None:
    field = t.DataField(5, "f5", t.ArrayType(t.BlobType()))
    with pytest.raises(UnsupportedFeature, match="ARRAY<BLOB>"):
        decode_blob_data_file(blob_file([b"x"]), [field])
