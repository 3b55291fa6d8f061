"""Index rules: deletion vectors (a Java-written index file), HASH row counts, file indexes."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from reference.spec import types as t
from reference.spec.binary_row import SERIALIZED_EMPTY_ROW
from reference.spec.data_file import DataFileMeta
from reference.spec.file_index import bitmap, bloom_filter, bsi
from reference.spec.manifest import (
    DeletionVectorMeta,
    FileKind,
    IndexFileMeta,
    IndexManifestEntry,
    ManifestEntry,
)
from reference.spec.stats import EMPTY_STATS
from reference.validate.index_checks import (
    ColumnIndexBody,
    IndexMemo,
    check_vectors_against_files,
    compute_live_index_entries,
    decode_hashes,
    decode_vectors,
    find_index_disagreements,
)
from reference.validate.manifest_checks import LiveFile

# dvindex-32 (README): version byte, then vectors of 24 and 22 bytes deleting {2, 3} and {1};
# each is a size int, the bytes, a CRC int, and a 32-bit range's length is the size.
FIRST = DeletionVectorMeta("data-a.parquet", 1, 24)
SECOND = DeletionVectorMeta("data-b.parquet", 1 + 4 + 24 + 4, 22)
FIRST_CHECKSUM_AT = 1 + 4 + 24


def dv_entry(
    *ranges: DeletionVectorMeta, rows: int | None = None, bucket: int = 0
) -> IndexManifestEntry:
    index_file = IndexFileMeta(
        "DELETION_VECTORS", "index-x-0", 47, len(ranges) if rows is None else rows, tuple(ranges)
    )
    return IndexManifestEntry(FileKind.ADD, SERIALIZED_EMPTY_ROW, bucket, index_file)


@pytest.fixture(scope="module")
def dv_file(third_party: Path) -> bytes:
    return (third_party / "paimon-java" / "dvindex-32").read_bytes()


def test_java_vectors_decode(dv_file: bytes) -> None:
    vectors, problems = decode_vectors(dv_file, dv_entry(FIRST, SECOND))
    assert problems == []
    assert sorted(vectors["data-a.parquet"].positions) == [2, 3]
    assert sorted(vectors["data-b.parquet"].positions) == [1]


def test_vector_problems(dv_file: bytes) -> None:
    wrong_cardinality = DeletionVectorMeta(FIRST.data_file_name, FIRST.offset, FIRST.length, 3)
    wrong_length = DeletionVectorMeta(SECOND.data_file_name, SECOND.offset, 99)
    _, problems = decode_vectors(dv_file, dv_entry(wrong_cardinality, wrong_length, rows=5))
    assert sorted(rule.code for rule, _ in problems) == [
        "DV_CARDINALITY_MISMATCH",
        "DV_UNREADABLE",
        "INDEX_ROW_COUNT_MISMATCH",
    ]
    garbled = bytearray(dv_file)
    garbled[FIRST_CHECKSUM_AT] ^= 0xFF
    _, problems = decode_vectors(bytes(garbled), dv_entry(FIRST, SECOND))
    assert [rule.code for rule, _ in problems] == ["DV_UNREADABLE"]


def data_file(name: str, rows: int) -> LiveFile:
    meta = DataFileMeta(name, 1, rows, b"", b"", EMPTY_STATS, EMPTY_STATS, 0, 0, 0, 1, (), None)
    return LiveFile(ManifestEntry(FileKind.ADD, SERIALIZED_EMPTY_ROW, 0, 1, meta), (), name, 1)


def test_vectors_against_live_files(dv_file: bytes) -> None:
    memo = IndexMemo()
    entry = dv_entry(FIRST, SECOND)
    memo.vectors["index-x-0"] = decode_vectors(dv_file, entry)[0]
    files = [data_file("data-a.parquet", 4), data_file("data-b.parquet", 2)]
    assert check_vectors_against_files("/t", [entry], files, memo, 1) == []
    short = [data_file("data-a.parquet", 3)]
    found = check_vectors_against_files("/t", [entry, dv_entry(FIRST)], short, memo, 1)
    assert sorted(v.code for v in found) == [
        "DV_DANGLING",
        "DV_DUPLICATE",
        "DV_POSITION_OUT_OF_RANGE",
        "DV_POSITION_OUT_OF_RANGE",
    ]


def test_index_replay() -> None:
    added = dv_entry(FIRST)
    deleted = IndexManifestEntry(FileKind.DELETE, added.partition, 0, added.index_file)
    assert compute_live_index_entries([added, deleted]) == []
    assert compute_live_index_entries([added]) == [added]


def test_hash_index_row_count() -> None:
    data = struct.pack(">3i", 7, -1, 42)
    entry = IndexManifestEntry(
        FileKind.ADD, SERIALIZED_EMPTY_ROW, 0, IndexFileMeta("HASH", "index-h-0", 12, 3)
    )
    assert decode_hashes(data, entry) == (frozenset({7, -1, 42}), [])
    wrong = IndexManifestEntry(entry.kind, entry.partition, 0, IndexFileMeta("HASH", "i", 12, 2))
    assert decode_hashes(data, wrong)[1] != []


INT = t.IntType()


def test_file_indexes_agree_or_not() -> None:
    values = [3, None, 5, 3]
    bloom = ColumnIndexBody(
        "c", "bloom-filter", bloom_filter.build_bloom_filter(values, INT, items=10)
    )
    bits = ColumnIndexBody("c", "bitmap", bitmap.build_bitmap_index(values, INT))
    slices = ColumnIndexBody("c", "bsi", bsi.build_bsi_index(values, INT))
    for body in (bloom, bits, slices):
        assert find_index_disagreements(body, values, INT) == []
    assert find_index_disagreements(bits, [3, None, 5, 5], INT) != []
    assert find_index_disagreements(bits, [3, 3, 5, 3], INT) != []
    assert find_index_disagreements(slices, [3, None, 6, 3], INT) != []
    assert find_index_disagreements(slices, [3, None, 5], INT) != []
