"""Portable roaring bitmaps: sizes from headers, exact decoding, Java's run-optimized bytes."""

from __future__ import annotations

import pyroaring
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.errors import PaimonFormatError
from reference.spec.file_index import roaring

# Bytes of org.roaringbitmap.RoaringBitmap 1.3.0 after runOptimize() + serialize(), as produced
# by running Java on these inputs (the same steps as Paimon's RoaringBitmap32.serialize).
JAVA_RUN_OPTIMIZED = [
    ([1, 2, 3], "3a300000010000000000020010000000010002000300"),
    ([2, 3], "3a30000001000000000001001000000002000300"),
    ([1, 2, 3, 4, 5], "3b3000000100000400010001000400"),
    ([1, 2, 3, 5, 6, 7], "3b300000010000050002000100020005000200"),
    (
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17],
        "3b30000001000010000200000008000a000700",
    ),
]

row_sets = st.one_of(
    st.sets(st.integers(0, 2**32 - 1), max_size=50),
    st.sets(st.integers(0, 70_000), max_size=300),
    st.builds(
        lambda start, width, extra: set(range(start, start + width)) | extra,
        st.integers(0, 200_000),
        st.integers(0, 9_000),
        st.sets(st.integers(0, 300_000), max_size=20),
    ),
)


@pytest.mark.parametrize(("rows", "expected"), JAVA_RUN_OPTIMIZED)
def test_encoding_matches_java_run_optimize(rows: list[int], expected: str) -> None:
    assert roaring.encode_roaring32(rows).hex() == expected
    assert list(roaring.decode_roaring32(bytes.fromhex(expected))) == rows


def test_bitset_container_is_java_sized() -> None:
    rows = list(range(5000)) + list(range(5000, 20000, 2))
    # Java's serializedSizeInBytes() after runOptimize() for this set is 8208.
    assert len(roaring.encode_roaring32(rows)) == 8208


@given(row_sets)
def test_size_from_header_matches_the_serialization(rows: set[int]) -> None:
    for optimize in (False, True):
        bitmap = pyroaring.BitMap(rows)
        if optimize:
            bitmap.run_optimize()
        data = bitmap.serialize()
        assert roaring.compute_roaring32_size(b"xx" + data + b"tail", 2) == len(data)


@given(row_sets)
def test_round_trip(rows: set[int]) -> None:
    encoded = roaring.encode_roaring32(rows)
    assert set(roaring.decode_roaring32(encoded)) == rows
    decoded, end = roaring.decode_roaring32_at(encoded + b"\x00\x01", 0)
    assert set(decoded) == rows
    assert end == len(encoded)


def test_empty_bitmap_is_eight_bytes() -> None:
    assert roaring.encode_roaring32([]).hex() == "3a30000000000000"


@given(row_sets.filter(bool), st.data())
def test_truncation_is_a_format_error(rows: set[int], data: st.DataObject) -> None:
    encoded = roaring.encode_roaring32(rows)
    cut = data.draw(st.integers(0, len(encoded) - 1))
    with pytest.raises(PaimonFormatError):
        roaring.decode_roaring32(encoded[:cut])


def test_trailing_bytes_are_rejected_by_exact_decoding() -> None:
    with pytest.raises(PaimonFormatError, match="bytes but"):
        roaring.decode_roaring32(roaring.encode_roaring32([1]) + b"\x00")


def test_unknown_cookie_is_a_format_error() -> None:
    with pytest.raises(PaimonFormatError, match="cookie"):
        roaring.decode_roaring32(bytes.fromhex("3c30000001000000"))
