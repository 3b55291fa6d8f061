"""A bounds-checked cursor over a byte string, for the big-endian layouts of Java's ``DataInput``.

Every index codec in this package (and the deletion-vector and hash-index codecs) reads fixed-width
big-endian fields one after another. Reading past the end must fail with a reason that names the
field, never with a raw ``struct.error``; this cursor does that in one place.

Java: ``java.io.DataInputStream`` (``readInt``, ``readLong``, ``readBoolean``, ...).
"""

from __future__ import annotations

import struct

from reference.errors import PaimonFormatError

_INT8 = struct.Struct(">b")
_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_FLOAT32 = struct.Struct(">f")
_FLOAT64 = struct.Struct(">d")


class ByteReader:
    """Reads consecutive big-endian fields of ``data`` starting at ``offset``.

    ``what`` names the structure being decoded; it prefixes every error message.
    """

    def __init__(self, data: bytes, offset: int = 0, *, what: str) -> None:
        if not 0 <= offset <= len(data):
            raise PaimonFormatError(f"{what}: offset {offset} outside {len(data)} bytes")
        self.data = data
        self.position = offset
        self.what = what

    def remaining(self) -> int:
        return len(self.data) - self.position

    def take(self, size: int, field: str) -> bytes:
        """The next ``size`` bytes; fails if fewer remain or ``size`` is negative."""
        if size < 0:
            raise PaimonFormatError(f"{self.what}: negative length {size} for {field}")
        if size > self.remaining():
            raise PaimonFormatError(
                f"{self.what}: truncated at byte {self.position} reading {field} "
                f"({size} bytes needed, {self.remaining()} left)"
            )
        chunk = self.data[self.position : self.position + size]
        self.position += size
        return chunk

    def int8(self, field: str) -> int:
        return int(_INT8.unpack(self.take(1, field))[0])

    def uint8(self, field: str) -> int:
        return self.take(1, field)[0]

    def boolean(self, field: str) -> bool:
        """A Java ``writeBoolean`` byte: 0 is false, anything else is true (as Java reads it)."""
        return self.uint8(field) != 0

    def int16(self, field: str) -> int:
        return int(_INT16.unpack(self.take(2, field))[0])

    def int32(self, field: str) -> int:
        return int(_INT32.unpack(self.take(4, field))[0])

    def int64(self, field: str) -> int:
        return int(_INT64.unpack(self.take(8, field))[0])

    def float32(self, field: str) -> float:
        return float(_FLOAT32.unpack(self.take(4, field))[0])

    def float64(self, field: str) -> float:
        return float(_FLOAT64.unpack(self.take(8, field))[0])


def pack_int8(value: int) -> bytes:
    return _INT8.pack(value)


def pack_int16(value: int) -> bytes:
    return _INT16.pack(value)


def pack_int32(value: int) -> bytes:
    return _INT32.pack(value)


def pack_int64(value: int) -> bytes:
    return _INT64.pack(value)


def pack_float32(value: float) -> bytes:
    return _FLOAT32.pack(value)


def pack_float64(value: float) -> bytes:
    return _FLOAT64.pack(value)


def pack_boolean(value: bool) -> bytes:
    return b"\x01" if value else b"\x00"
