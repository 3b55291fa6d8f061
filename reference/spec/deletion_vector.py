"""Deletion vectors: which row positions of each data file are deleted, kept in index files.

Spec: ``docs/concepts/spec/tableindex.md`` ("Deletion Vectors").
Java: ``org.apache.paimon.deletionvectors.DeletionVectorsIndexFile``, ``DeletionFileWriter``,
``DeletionVector`` (``read``), ``BitmapDeletionVector``, ``Bitmap64DeletionVector``,
``org.apache.paimon.utils.OptimizedRoaringBitmap64`` and
``org.apache.paimon.index.DeletionVectorMeta``.

A deletion-vector index file (index type ``DELETION_VECTORS``) is one version byte (1) followed
by one serialized vector per data file. The index manifest locates each vector by a range
(data file name, offset, length, cardinality). A vector is::

    size      int32 big-endian    bytes of the vector data that follows
    data      magic + bitmap
    checksum  int32 big-endian    CRC-32 of the data

The magic tells the two bitmap kinds apart:

* 32-bit (the default): magic 1581511376 as a big-endian int32, then a portable 32-bit roaring
  bitmap (run-optimized before writing). The range's length is the size field (data only).
* 64-bit (``deletion-vectors.bitmap64 = true``, Paimon 1.2+; Iceberg's layout): magic 1681511377
  as a *little-endian* int32, then, little-endian, an int64 count of 32-bit bitmaps and for each
  an int32 key (the high 32 bits of the positions) and a portable roaring bitmap of the low 32
  bits. Java writes one bitmap for every key from 0 to the highest (empty ones included). The
  range's length covers the whole vector: size field, data and checksum.

Paimon 0.9.0 reads only the 32-bit kind and verifies the checksum; main skips the checksum on
read. This module always verifies it. Index manifests store the cardinality since 1.0.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import pyroaring

from reference.errors import PaimonFormatError, SpecViolation
from reference.spec.file_index.byte_reader import ByteReader, pack_int32
from reference.spec.file_index.roaring import (
    compute_roaring32_size,
    decode_roaring32,
    encode_roaring32,
)

DELETION_VECTORS_INDEX_TYPE = "DELETION_VECTORS"
DV_FILE_VERSION_1 = 1
VERSION_BYTES = 1
BITMAP32_MAGIC = 1581511376
BITMAP64_MAGIC = 1681511377
SIZE_BYTES = 4
MAGIC_BYTES = 4
CHECKSUM_BYTES = 4
BITMAP64_COUNT_BYTES = 8
BITMAP64_KEY_BYTES = 4
MAX_POSITION_32 = 2**31 - 1
"""32-bit vectors hold positions up to ``Integer.MAX_VALUE`` (``RoaringBitmap32.MAX_VALUE``)."""
MAX_BITMAP64_KEY = 2**31 - 2
"""Largest high half of a 64-bit position (``OptimizedRoaringBitmap64``)."""
MAX_POSITION_64 = (MAX_BITMAP64_KEY << 32) | 0x80000000
"""``OptimizedRoaringBitmap64.MAX_VALUE``. Java (and this encoder) writes one bitmap per high
key below the largest, so positions far beyond 2^32 make large vectors."""

_LE_INT32 = struct.Struct("<i")
_LE_INT64 = struct.Struct("<q")


class BitmapKind(Enum):
    BITMAP32 = "bitmap32"
    BITMAP64 = "bitmap64"


@dataclass(frozen=True)
class DeletionVector:
    """Deleted row positions of one data file (a ``FrozenBitMap`` or ``FrozenBitMap64``)."""

    kind: BitmapKind
    positions: Any


@dataclass(frozen=True)
class DeletionVectorRange:
    """Where a data file's vector sits in an index file (Java ``DeletionVectorMeta``)."""

    data_file_name: str
    offset: int
    length: int
    cardinality: int | None = None


def build_deletion_vector(
    positions: Iterable[int], kind: BitmapKind = BitmapKind.BITMAP32
) -> DeletionVector:
    """A vector deleting ``positions``; 32-bit vectors reject positions above 2^31 - 1."""
    bitmap = pyroaring.FrozenBitMap64(positions)
    if kind is BitmapKind.BITMAP64:
        if bitmap and bitmap.max() > MAX_POSITION_64:
            raise SpecViolation(f"position {bitmap.max()} is too large", code="DV_POSITION")
        return DeletionVector(kind, bitmap)
    if bitmap and bitmap.max() > MAX_POSITION_32:
        raise SpecViolation(
            f"position {bitmap.max()} does not fit a 32-bit deletion vector", code="DV_POSITION"
        )
    return DeletionVector(kind, pyroaring.FrozenBitMap(bitmap))


def is_deleted(vector: DeletionVector, position: int) -> bool:
    return position in vector.positions


# --------------------------------------------------------------------------------------------
# One vector
# --------------------------------------------------------------------------------------------


def compute_crc32(data: bytes) -> int:
    """CRC-32 (zlib polynomial) as Java's ``(int) CRC32.getValue()``."""
    return int(struct.unpack(">i", struct.pack(">I", zlib.crc32(data)))[0])


def encode_bitmap64(positions: Any) -> bytes:
    """Count, then per key 0..highest: key and the portable bitmap of the low halves."""
    high_keys = [position >> 32 for position in positions]
    count = max(high_keys) + 1 if high_keys else 0
    low_halves: list[list[int]] = [[] for _ in range(count)]
    for position in positions:
        low_halves[position >> 32].append(position & 0xFFFFFFFF)
    encoded = bytearray(_LE_INT64.pack(count))
    for key, lows in enumerate(low_halves):
        encoded += _LE_INT32.pack(key) + encode_roaring32(lows)
    return bytes(encoded)


def decode_bitmap64(data: bytes) -> Any:
    """The inverse of :func:`encode_bitmap64`; keys may skip empty bitmaps but must ascend."""
    if len(data) < BITMAP64_COUNT_BYTES:
        raise PaimonFormatError("64-bit deletion vector truncated in its bitmap count")
    (count,) = _LE_INT64.unpack_from(data, 0)
    if not 0 <= count <= len(data):
        raise PaimonFormatError(f"64-bit deletion vector claims {count} bitmaps")
    position = BITMAP64_COUNT_BYTES
    last_key = -1
    positions = pyroaring.BitMap64()
    for _ in range(count):
        if position + BITMAP64_KEY_BYTES > len(data):
            raise PaimonFormatError("64-bit deletion vector truncated in a bitmap key")
        (key,) = _LE_INT32.unpack_from(data, position)
        if not last_key < key <= MAX_BITMAP64_KEY:
            raise PaimonFormatError(f"64-bit deletion vector key {key} after {last_key}")
        position += BITMAP64_KEY_BYTES
        size = compute_roaring32_size(data, position)
        lows = decode_roaring32(data[position : position + size])
        positions.update((key << 32) | low for low in lows)
        position += size
        last_key = key
    if position != len(data):
        raise PaimonFormatError(f"64-bit deletion vector has {len(data) - position} extra bytes")
    return pyroaring.FrozenBitMap64(positions)


def encode_vector_data(vector: DeletionVector) -> bytes:
    """Magic and bitmap: the bytes the size field counts and the checksum covers."""
    if vector.kind is BitmapKind.BITMAP64:
        return _LE_INT32.pack(BITMAP64_MAGIC) + encode_bitmap64(vector.positions)
    return pack_int32(BITMAP32_MAGIC) + encode_roaring32(vector.positions)


def encode_deletion_vector(vector: DeletionVector) -> bytes:
    """Size, data, checksum."""
    data = encode_vector_data(vector)
    return pack_int32(len(data)) + data + pack_int32(compute_crc32(data))


def compute_range_length(vector_bytes: bytes, kind: BitmapKind) -> int:
    """The ``length`` an index manifest records for an encoded vector of ``kind``."""
    if kind is BitmapKind.BITMAP64:
        return len(vector_bytes)
    return len(vector_bytes) - SIZE_BYTES - CHECKSUM_BYTES


def decode_vector_data(data: bytes) -> DeletionVector:
    """Magic and bitmap, as counted by the size field."""
    if len(data) < MAGIC_BYTES:
        raise PaimonFormatError(f"deletion vector of {len(data)} bytes has no magic")
    if struct.unpack_from(">i", data)[0] == BITMAP32_MAGIC:
        positions = decode_roaring32(data[MAGIC_BYTES:])
        if positions and positions.max() > MAX_POSITION_32:
            raise SpecViolation(
                f"32-bit deletion vector holds position {positions.max()}", code="DV_POSITION"
            )
        return DeletionVector(BitmapKind.BITMAP32, positions)
    if _LE_INT32.unpack_from(data)[0] == BITMAP64_MAGIC:
        return DeletionVector(BitmapKind.BITMAP64, decode_bitmap64(data[MAGIC_BYTES:]))
    raise PaimonFormatError(f"bad deletion vector magic {data[:MAGIC_BYTES].hex()}")


def decode_deletion_vector(data: bytes, offset: int, length: int | None = None) -> DeletionVector:
    """The vector starting at ``data[offset]``; ``length`` is the range length, if known.

    Checks, in order: the size field fits the data, the checksum matches, the magic is known,
    the bitmap parses to exactly the size, and the range length agrees with the size.
    """
    reader = ByteReader(data, offset, what="deletion vector")
    size = reader.int32("size")
    vector_data = reader.take(size, "vector data")
    checksum = reader.int32("checksum")
    if checksum != compute_crc32(vector_data):
        raise PaimonFormatError(
            f"deletion vector checksum {checksum:#x} != {compute_crc32(vector_data):#x} "
            f"(at offset {offset})"
        )
    vector = decode_vector_data(vector_data)
    expected = compute_range_length(data[offset : reader.position], vector.kind)
    if length is not None and length != expected:
        raise PaimonFormatError(
            f"deletion vector at {offset} has length {expected}, the range says {length}"
        )
    return vector


# --------------------------------------------------------------------------------------------
# Index file
# --------------------------------------------------------------------------------------------


def check_file_version(data: bytes) -> None:
    if not data:
        raise PaimonFormatError("empty deletion vector index file")
    if data[0] != DV_FILE_VERSION_1:
        raise PaimonFormatError(f"unsupported deletion vector file version {data[0]}")


def decode_deletion_vector_file(
    data: bytes, ranges: Sequence[DeletionVectorRange]
) -> dict[str, DeletionVector]:
    """Data file name -> vector for each range; a stated cardinality must match."""
    check_file_version(data)
    vectors: dict[str, DeletionVector] = {}
    for dv_range in ranges:
        if dv_range.offset < VERSION_BYTES:
            raise PaimonFormatError(f"deletion vector range offset {dv_range.offset}")
        vector = decode_deletion_vector(data, dv_range.offset, dv_range.length)
        cardinality = len(vector.positions)
        if dv_range.cardinality is not None and dv_range.cardinality != cardinality:
            raise SpecViolation(
                f"deletion vector of {dv_range.data_file_name} deletes {cardinality} rows, "
                f"the index manifest says {dv_range.cardinality}",
                code="DV_CARDINALITY",
            )
        vectors[dv_range.data_file_name] = vector
    return vectors


def decode_all_deletion_vectors(data: bytes) -> list[tuple[DeletionVectorRange, DeletionVector]]:
    """Every vector of an index file in order, with the range it occupies (names unknown: '')."""
    check_file_version(data)
    found: list[tuple[DeletionVectorRange, DeletionVector]] = []
    offset = VERSION_BYTES
    while offset < len(data):
        size = ByteReader(data, offset, what="deletion vector").int32("size")
        vector = decode_deletion_vector(data, offset)
        end = offset + SIZE_BYTES + size + CHECKSUM_BYTES
        length = compute_range_length(data[offset:end], vector.kind)
        found.append((DeletionVectorRange("", offset, length, len(vector.positions)), vector))
        offset = end
    return found


def encode_deletion_vector_file(
    vectors: Mapping[str, DeletionVector],
) -> tuple[bytes, tuple[DeletionVectorRange, ...]]:
    """The index file for ``vectors`` (in mapping order) and the ranges to record for them."""
    encoded = bytearray([DV_FILE_VERSION_1])
    ranges = []
    for data_file_name, vector in vectors.items():
        vector_bytes = encode_deletion_vector(vector)
        length = compute_range_length(vector_bytes, vector.kind)
        ranges.append(
            DeletionVectorRange(data_file_name, len(encoded), length, len(vector.positions))
        )
        encoded += vector_bytes
    return bytes(encoded), tuple(ranges)
