"""Dynamic-bucket hash index: the key hashes already assigned to one bucket.

Spec: ``docs/concepts/spec/tableindex.md`` ("Dynamic Bucket Index").
Java: ``org.apache.paimon.index.HashIndexFile``, ``org.apache.paimon.utils.IntFileUtils``.

A table with ``bucket = -1`` (dynamic buckets) keeps, per partition and bucket, an index file of
type ``HASH`` listing the hash code of every primary key stored in that bucket, so a writer can
send an update to the bucket that already holds its key. The file is nothing but those hashes,
each a big-endian int32, back to back; the index manifest's row count is their number. The hash
is the primary key's ``BinaryRow.hashCode`` (see ``reference.spec.bucket``).

Java's reader stops silently at a trailing partial int; a length that is not a multiple of four
means a damaged file, so this decoder rejects it.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from reference.errors import PaimonFormatError, SpecViolation

HASH_INDEX_TYPE = "HASH"
HASH_BYTES = 4
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def decode_hash_index(data: bytes) -> tuple[int, ...]:
    """The hashes in file order."""
    if len(data) % HASH_BYTES:
        raise PaimonFormatError(f"hash index of {len(data)} bytes is not a whole number of ints")
    return tuple(hash_code for (hash_code,) in struct.iter_unpack(">i", data))


def encode_hash_index(hashes: Iterable[int]) -> bytes:
    """The file bytes for ``hashes`` (signed 32-bit ints), in the given order."""
    values = list(hashes)
    for value in values:
        if not INT32_MIN <= value <= INT32_MAX:
            raise SpecViolation(f"hash {value} is not a 32-bit int", code="HASH_RANGE")
    return struct.pack(f">{len(values)}i", *values)
