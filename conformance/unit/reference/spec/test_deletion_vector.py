"""Deletion vectors: Java-written index files decode (checksums verified), our encoder writes
Java's bytes for both bitmap kinds, and damage is reported as a format error."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import fastavro
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.errors import PaimonFormatError, SpecViolation
from reference.spec import deletion_vector as dv

DVINDEX_32 = "paimon-java/dvindex-32"
# From the third-party README: vectors of serialized size 24 and 22 deleting {2, 3} and {1};
# after the version byte they sit back to back, each framed by a 4-byte size and 4-byte CRC.
DVINDEX_32_RANGES = (
    dv.DeletionVectorRange("first", 1, 24),
    dv.DeletionVectorRange("second", 1 + 4 + 24 + 4, 22),
)

# Bitmap64DeletionVector framing around OptimizedRoaringBitmap64.serialize (Paimon main), bytes
# printed by Java for these positions.
JAVA_BITMAP64 = [
    (
        [1, 5, 8589934599],
        "00000046d1d339640300000000000000000000003a300000010000000000010010000000010005000100"
        "00003a30000000000000020000003a3000000100000000000000100000000700776cb551",
    ),
    ([], "0000000cd1d339640000000000000000bf18480c"),
    (
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100000, 70000, 4294967296],
        "0000003dd1d339640200000000000000000000003b3001000100000a0001000100010000000a007011a086"
        "010000003a30000001000000000000001000000000002c1ad3f9",
    ),
]


def test_dvindex_32_decodes_with_checksums(third_party: Path) -> None:
    data = (third_party / DVINDEX_32).read_bytes()
    vectors = dv.decode_deletion_vector_file(data, DVINDEX_32_RANGES)
    assert list(vectors["first"].positions) == [2, 3]
    assert list(vectors["second"].positions) == [1]
    assert all(v.kind is dv.BitmapKind.BITMAP32 for v in vectors.values())
    walked = dv.decode_all_deletion_vectors(data)
    assert [(r.offset, r.length, r.cardinality) for r, _ in walked] == [(1, 24, 2), (33, 22, 1)]


def test_dvindex_32_reencodes_to_java_bytes(third_party: Path) -> None:
    data = (third_party / DVINDEX_32).read_bytes()
    vectors = {"first": dv.build_deletion_vector([2, 3]), "second": dv.build_deletion_vector([1])}
    encoded, ranges = dv.encode_deletion_vector_file(vectors)
    assert encoded == data
    assert [(r.offset, r.length) for r in ranges] == [(1, 24), (33, 22)]


def test_dvindex_32_bad_checksum(third_party: Path) -> None:
    data = bytearray((third_party / DVINDEX_32).read_bytes())
    data[1 + 4 + 24] ^= 0x01  # first byte of the first checksum
    with pytest.raises(PaimonFormatError, match="checksum"):
        dv.decode_deletion_vector_file(bytes(data), DVINDEX_32_RANGES)


def _index_manifest_ranges(table: Path) -> dict[str, list[dv.DeletionVectorRange]]:
    """Index file name -> ranges, read from the Avro index manifests with fastavro directly."""
    found: dict[str, list[dv.DeletionVectorRange]] = {}
    for path in sorted((table / "manifest").glob("index-manifest-*")):
        with path.open("rb") as handle:
            for entry in fastavro.reader(handle):
                assert entry["_INDEX_TYPE"] == dv.DELETION_VECTORS_INDEX_TYPE
                ranges = [
                    dv.DeletionVectorRange(r["f0"], r["f1"], r["f2"], r.get("_CARDINALITY"))
                    for r in entry["_DELETIONS_VECTORS_RANGES"] or []
                ]
                assert entry["_ROW_COUNT"] == len(ranges)
                found[entry["_FILE_NAME"]] = ranges
    return found


# Positions read by hand from the hex dumps of the index files (array containers holding one
# uint16 each: 0x0000 and 0x0004).
DV_TABLES: list[tuple[str, dict[str, dict[str, list[int]]]]] = [
    (
        "paimon-cpp/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv",
        {
            "index-16bec1d6-fa31-49bd-a240-deadcfff6003-0": {
                "data-f19db350-7c55-4686-8839-78d15aa17fc1-0.parquet": [0]
            },
            "index-16bec1d6-fa31-49bd-a240-deadcfff6003-1": {
                "data-d18e5571-abce-4309-ad4a-37f0bc93679f-0.parquet": [4]
            },
        },
    ),
    (
        "paimon-cpp/parquet/pk_09.db/pk_09",
        {
            "index-ff7801ad-df90-49b2-9619-586eab9c68e3-0": {
                "data-0f3a001e-ce2f-4f01-bb47-08d9901cb76c-1.parquet": [0],
                "data-0f3a001e-ce2f-4f01-bb47-08d9901cb76c-0.parquet": [0],
            },
            "index-ff7801ad-df90-49b2-9619-586eab9c68e3-1": {
                "data-6d416200-c9db-49ff-bc27-79837bf1aaab-0.parquet": [4]
            },
            "index-ff7801ad-df90-49b2-9619-586eab9c68e3-2": {},
        },
    ),
]


@pytest.mark.parametrize(("table", "expected"), DV_TABLES, ids=[t for t, _ in DV_TABLES])
def test_java_table_dv_files(
    third_party: Path, table: str, expected: dict[str, dict[str, list[int]]]
) -> None:
    root = third_party / table
    manifests = _index_manifest_ranges(root)
    assert set(manifests) == set(expected)
    for index_name, ranges in manifests.items():
        data = (root / "index" / index_name).read_bytes()
        vectors = dv.decode_deletion_vector_file(data, ranges)
        assert {name: list(v.positions) for name, v in vectors.items()} == expected[index_name]
        for name, vector in vectors.items():
            data_file = next(root.glob(f"*/bucket-*/{name}"))
            assert max(vector.positions) < pq.ParquetFile(data_file).metadata.num_rows
        ordered = {r.data_file_name: vectors[r.data_file_name] for r in ranges}
        encoded, new_ranges = dv.encode_deletion_vector_file(ordered)
        assert encoded == data
        assert [(r.offset, r.length) for r in new_ranges] == [(r.offset, r.length) for r in ranges]


def test_matches_a_java_0_9_index_file_with_every_container_kind() -> None:
    """DeletionVectorsIndexFile.write of Paimon 0.9.0 for these four vectors wrote a 13328-byte
    file with this SHA-256 and these ranges (array, run and bitset containers)."""
    vectors = {
        "data-a.parquet": dv.build_deletion_vector([0]),
        "data-b.parquet": dv.build_deletion_vector([*range(100_000), 200_000]),
        "data-c.parquet": dv.build_deletion_vector([*range(0, 20_000, 3), 2**31 - 1]),
        "data-d.parquet": dv.build_deletion_vector(range(5, 5000, 2)),
    }
    encoded, ranges = dv.encode_deletion_vector_file(vectors)
    assert len(encoded) == 13328
    assert hashlib.sha256(encoded).hexdigest() == (
        "ddf3de44e2abd743d7f16b2d3531b1c8356ff49fab93720389d3bae6bd9f20af"
    )
    assert [(r.offset, r.length) for r in ranges] == [(1, 22), (31, 35), (74, 8222), (8304, 5016)]
    assert dv.decode_deletion_vector_file(encoded, ranges) == vectors


@pytest.mark.parametrize(("positions", "expected"), JAVA_BITMAP64)
def test_bitmap64_matches_java(positions: list[int], expected: str) -> None:
    vector = dv.build_deletion_vector(positions, dv.BitmapKind.BITMAP64)
    encoded = dv.encode_deletion_vector(vector)
    assert encoded.hex() == expected
    decoded = dv.decode_deletion_vector(encoded, 0, len(encoded))
    assert decoded.kind is dv.BitmapKind.BITMAP64
    assert list(decoded.positions) == sorted(positions)


def test_bitmap64_accepts_sparse_keys() -> None:
    # Iceberg-style writers list only non-empty keys; the layout allows gaps.
    empty = bytes.fromhex("3a30000000000000")
    one = bytes.fromhex("3a300000010000000000000010000000" + "0700")
    data = struct.pack("<i", dv.BITMAP64_MAGIC) + struct.pack("<q", 1) + struct.pack("<i", 3) + one
    assert list(dv.decode_vector_data(data).positions) == [(3 << 32) | 7]
    descending = struct.pack("<i", dv.BITMAP64_MAGIC) + struct.pack("<q", 2)
    descending += struct.pack("<i", 2) + empty + struct.pack("<i", 1) + empty
    with pytest.raises(PaimonFormatError, match="key"):
        dv.decode_vector_data(descending)


positions_32 = st.sets(
    st.one_of(st.integers(0, 5000), st.integers(0, 2**31 - 1)), max_size=80
) | st.builds(lambda a, n: set(range(a, a + n)), st.integers(0, 10**6), st.integers(0, 10_000))
# Java writes one (possibly empty) bitmap per high key up to the largest, so keep keys small.
positions_64 = st.sets(st.integers(0, (64 << 32) | 0xFFFFFFFF), max_size=40)


@given(st.dictionaries(st.text(min_size=1, max_size=10), positions_32, max_size=4))
def test_round_trip_32(files: dict[str, set[int]]) -> None:
    vectors = {name: dv.build_deletion_vector(p) for name, p in files.items()}
    encoded, ranges = dv.encode_deletion_vector_file(vectors)
    assert dv.decode_deletion_vector_file(encoded, ranges) == vectors
    assert [r.cardinality for r in ranges] == [len(p) for p in files.values()]


@given(positions_64, st.sets(st.integers(0, 300), max_size=10))
def test_round_trip_64(positions: set[int], more: set[int]) -> None:
    vectors = {
        "a": dv.build_deletion_vector(positions | more, dv.BitmapKind.BITMAP64),
        "b": dv.build_deletion_vector(more),
    }
    encoded, ranges = dv.encode_deletion_vector_file(vectors)
    decoded = dv.decode_deletion_vector_file(encoded, ranges)
    assert set(decoded["a"].positions) == positions | more
    assert decoded == vectors


def _one_vector_file(vector: dv.DeletionVector) -> tuple[bytes, dv.DeletionVectorRange]:
    encoded, (dv_range,) = dv.encode_deletion_vector_file({"f": vector})
    return encoded, dv_range


@pytest.mark.parametrize("kind", list(dv.BitmapKind))
def test_every_truncation_is_a_format_error(kind: dv.BitmapKind) -> None:
    encoded, dv_range = _one_vector_file(dv.build_deletion_vector([1, 2, 70_000], kind))
    for cut in range(len(encoded)):
        with pytest.raises(PaimonFormatError):
            dv.decode_deletion_vector_file(encoded[:cut], [dv_range])


@pytest.mark.parametrize("kind", list(dv.BitmapKind))
def test_every_flipped_byte_is_detected(kind: dv.BitmapKind) -> None:
    encoded, dv_range = _one_vector_file(dv.build_deletion_vector([1, 2, 70_000], kind))
    for position in range(len(encoded)):
        damaged = bytearray(encoded)
        damaged[position] ^= 0x40
        with pytest.raises(PaimonFormatError):
            dv.decode_deletion_vector_file(bytes(damaged), [dv_range])


def _with_valid_crc(data: bytes) -> bytes:
    return struct.pack(">i", len(data)) + data + struct.pack(">i", dv.compute_crc32(data))


def test_unknown_magic_with_valid_checksum() -> None:
    with pytest.raises(PaimonFormatError, match="magic"):
        dv.decode_deletion_vector(_with_valid_crc(b"\x01\x02\x03\x04" + b"\x00" * 8), 0)


def test_range_length_must_agree() -> None:
    encoded, dv_range = _one_vector_file(dv.build_deletion_vector([5]))
    with pytest.raises(PaimonFormatError, match="range says"):
        dv.decode_deletion_vector_file(
            encoded, [dv.DeletionVectorRange("f", 1, dv_range.length + 8)]
        )


def test_cardinality_must_agree() -> None:
    encoded, dv_range = _one_vector_file(dv.build_deletion_vector([5, 6]))
    wrong = dv.DeletionVectorRange("f", dv_range.offset, dv_range.length, 3)
    with pytest.raises(SpecViolation):
        dv.decode_deletion_vector_file(encoded, [wrong])


@pytest.mark.parametrize("first_byte", [b"", b"\x00", b"\x02"])
def test_file_version(first_byte: bytes) -> None:
    with pytest.raises(PaimonFormatError):
        dv.decode_deletion_vector_file(first_byte, [])


def test_32_bit_positions_are_bounded() -> None:
    with pytest.raises(SpecViolation):
        dv.build_deletion_vector([2**31])
    assert dv.is_deleted(dv.build_deletion_vector([2**31 - 1]), 2**31 - 1)
