"""32-bit roaring bitmaps in the portable serialization, as Paimon writes them.

Paimon stores sets of row positions (deletion vectors, bitmap index entries, bit slices) as
``org.roaringbitmap.RoaringBitmap`` in the *portable* format of the RoaringFormatSpec. The bytes
inside a roaring bitmap are little-endian even where the surrounding Paimon structure is
big-endian. Before serializing, Paimon always converts containers to run containers where that is
smaller (``runOptimize``), so an encoder that wants Java's bytes must do the same.

The portable format is self-delimiting: its size follows from its header. Several Paimon layouts
rely on that (the last bitmap of a v1 bitmap index and every bitmap of a BSI index have no stored
length), so :func:`compute_roaring32_size` computes it from the header alone.

Java: ``org.apache.paimon.utils.RoaringBitmap32`` (``serialize`` = ``runOptimize`` + portable
serialization).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any, TypeAlias

import pyroaring

from reference.errors import PaimonFormatError

RowIds: TypeAlias = Any
"""A ``pyroaring.FrozenBitMap`` of row positions (pyroaring ships no type stubs)."""

COOKIE_NO_RUN_CONTAINERS = 12346
"""First 4 bytes (little-endian) of a bitmap without run containers; the count follows."""
COOKIE_WITH_RUN_CONTAINERS = 12347
"""Low 16 bits of the first 4 bytes when run containers exist; the high 16 bits are count - 1."""
NO_OFFSET_THRESHOLD = 4
"""A bitmap with run containers stores a container offset table only from this many containers."""
MAX_ARRAY_CARDINALITY = 4096
"""Containers with more values are stored as 8 KiB bit sets, otherwise as sorted uint16 arrays."""
BITSET_CONTAINER_BYTES = 8192
MAX_CONTAINERS = 1 << 16

_UINT16 = struct.Struct("<H")
_UINT32 = struct.Struct("<I")

EMPTY_ROW_IDS: RowIds = pyroaring.FrozenBitMap()


def _field(data: bytes, offset: int, layout: struct.Struct, name: str) -> int:
    if offset + layout.size > len(data):
        raise PaimonFormatError(f"roaring bitmap truncated reading {name} at byte {offset}")
    return int(layout.unpack_from(data, offset)[0])


def compute_roaring32_size(data: bytes, offset: int = 0) -> int:
    """The byte length of the portable roaring bitmap that starts at ``data[offset]``.

    Header: a cookie; for each container its key and cardinality - 1 (uint16 each); a bit set
    of run containers (only with the run cookie); container offsets (uint32 each, absent only
    when run containers exist and there are fewer than :data:`NO_OFFSET_THRESHOLD` containers).
    Then the containers: a run container is a uint16 run count and (start, length - 1) uint16
    pairs; an array container is ``cardinality`` uint16 values; a bit set is 8 KiB.
    """
    cookie = _field(data, offset, _UINT32, "cookie")
    position = offset + 4
    if cookie & 0xFFFF == COOKIE_WITH_RUN_CONTAINERS:
        count = (cookie >> 16) + 1
        run_flags = data[position : position + (count + 7) // 8]
        if len(run_flags) < (count + 7) // 8:
            raise PaimonFormatError("roaring bitmap truncated in its run-container flags")
        position += len(run_flags)
        has_offsets = count >= NO_OFFSET_THRESHOLD
    elif cookie == COOKIE_NO_RUN_CONTAINERS:
        count = _field(data, position, _UINT32, "container count")
        position += 4
        run_flags = bytes((count + 7) // 8)
        has_offsets = True
    else:
        raise PaimonFormatError(f"not a portable roaring bitmap (cookie {cookie:#010x})")
    if count > MAX_CONTAINERS:
        raise PaimonFormatError(f"roaring bitmap claims {count} containers")
    cardinalities = [
        _field(data, position + 4 * index + 2, _UINT16, "container cardinality") + 1
        for index in range(count)
    ]
    position += 4 * count + (4 * count if has_offsets else 0)
    for index, cardinality in enumerate(cardinalities):
        if run_flags[index // 8] >> (index % 8) & 1:
            runs = _field(data, position, _UINT16, "run count")
            position += 2 + 4 * runs
        elif cardinality > MAX_ARRAY_CARDINALITY:
            position += BITSET_CONTAINER_BYTES
        else:
            position += 2 * cardinality
    if position > len(data):
        raise PaimonFormatError(
            f"roaring bitmap truncated: needs {position - offset} bytes, "
            f"{len(data) - offset} available"
        )
    return position - offset


def decode_roaring32(data: bytes) -> RowIds:
    """The bitmap serialized in exactly ``data`` (no bytes before or after it)."""
    size = compute_roaring32_size(data)
    if size != len(data):
        raise PaimonFormatError(f"roaring bitmap is {size} bytes but {len(data)} were given")
    return _deserialize(data)


def decode_roaring32_at(data: bytes, offset: int) -> tuple[RowIds, int]:
    """The bitmap that starts at ``data[offset]`` and the offset just past it."""
    size = compute_roaring32_size(data, offset)
    return _deserialize(data[offset : offset + size]), offset + size


def _deserialize(data: bytes) -> RowIds:
    try:
        return pyroaring.FrozenBitMap.deserialize(data)
    except ValueError as error:
        raise PaimonFormatError(f"invalid roaring bitmap ({error})") from error


def encode_roaring32(row_ids: Iterable[int]) -> bytes:
    """The portable serialization after run optimization, as ``RoaringBitmap32.serialize``."""
    bitmap = pyroaring.BitMap(row_ids)
    bitmap.run_optimize()
    return bytes(bitmap.serialize())


def row_ids_of(values: Iterable[int]) -> RowIds:
    """An immutable row-id set."""
    return pyroaring.FrozenBitMap(values)


def compute_range(start: int, stop: int) -> RowIds:
    """The row ids ``start <= id < stop`` (``RoaringBitmap32.flip`` helper)."""
    return pyroaring.FrozenBitMap(range(start, stop)) if start < stop else EMPTY_ROW_IDS


MAX_ROW_POSITION = 2**31 - 1
"""Row sets are 32-bit roaring bitmaps: larger files are never narrowed by an index."""
