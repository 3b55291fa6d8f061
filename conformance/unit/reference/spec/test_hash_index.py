"""Dynamic-bucket hash index: a plain list of big-endian int32 hashes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.errors import PaimonFormatError, SpecViolation
from reference.spec import hash_index as hi


def test_layout_by_hand() -> None:
    data = bytes.fromhex("00000001ffffffff800000007fffffff")
    assert hi.decode_hash_index(data) == (1, -1, -(2**31), 2**31 - 1)
    assert hi.encode_hash_index([1, -1, -(2**31), 2**31 - 1]) == data


def test_empty_file_has_no_hashes() -> None:
    assert hi.decode_hash_index(b"") == ()
    assert hi.encode_hash_index([]) == b""


@given(st.lists(st.integers(-(2**31), 2**31 - 1)))
def test_round_trip(hashes: list[int]) -> None:
    encoded = hi.encode_hash_index(hashes)
    assert len(encoded) == hi.HASH_BYTES * len(hashes)
    assert hi.decode_hash_index(encoded) == tuple(hashes)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_partial_int_is_a_format_error(size: int) -> None:
    with pytest.raises(PaimonFormatError, match="whole number"):
        hi.decode_hash_index(bytes(size))


@pytest.mark.parametrize("value", [2**31, -(2**31) - 1])
def test_hash_out_of_int_range(value: int) -> None:
    with pytest.raises(SpecViolation):
        hi.encode_hash_index([value])
