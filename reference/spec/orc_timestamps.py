"""ORC TIMESTAMP columns: where the one-second compensation of pre-1970 values happens, and
how the kit puts right a reader that applies it after the time-zone conversion.

Spec: ORC v1 specification, "Timestamp" column encoding (``site/specification/ORCv1.md``): the
DATA stream holds signed seconds since 2015-01-01 00:00:00 *in the writer's time zone* (the
stripe footer's ``writerTimezone``), the SECONDARY stream the nanoseconds with their trailing
zeros encoded in the low three bits. A ``timestamp`` column (``TIMESTAMP``) is wall-clock time
of the writer's zone; a ``timestamp with local time zone`` (``TIMESTAMP_INSTANT``) is always
UTC and is not affected by anything here.

The rule (Java: ``org.apache.orc.impl.writer.TimestampTreeWriter.writeBatch`` and
``org.apache.orc.impl.TreeReaderFactory.TimestampTreeReader.readTimestamp``):

1. The writer stores the seconds of ``millis / 1000`` with Java's division, which truncates
   toward zero: an instant before 1970 with a fraction of at least a millisecond is stored one
   second *late* (``-0.999 s`` is stored as second ``0``, ``-1.5 s`` as ``-1``). The ORC C++
   writer does the same explicitly (``+1`` when seconds < 0 and nanos > 999,999).
2. The reader undoes it on the *writer's* seconds: with ``s`` the stored seconds plus the
   writer zone's 2015 epoch (an instant), ``if s < 0 and nanos > 999_999: s -= 1``; only then
   does it move the instant to the reader's zone keeping the writer's wall clock
   (``SerializationUtils.convertBetweenTimezones``). Java checks ``millis < 0`` before
   ``offset`` is added, which is the same test.

The ORC C++ library until ORC-2151 (``c++/src/ColumnReader.cc``,
``TimestampColumnReader::next``; fixed by apache/orc commit 7d302ebe6, April 2026) applied
step 2 to the seconds *after* the conversion to the reader's zone. pyarrow's ORC reader is that
library with the reader's zone GMT, so a file whose writer zone is not UTC reads one second off
wherever the writer's instant and the UTC wall clock are on different sides of 1970: Java
Paimon writes ``TIMESTAMP`` through ``Timestamp.toSQLTimestamp()`` (an instant in the JVM's
zone: ``format/orc/writer/FieldWriterFactory.visit(TimestampType)``) and ORC records the JVM's
zone, so a JVM east of UTC (Asia/Shanghai in paimon-cpp's test tables) makes ``00:00:00.001``
read ``00:00:01.001``, and one west of UTC makes ``1969-12-31 23:59:59.5`` read a second early.
At a daylight-saving transition before 1970 the late order can be off by the whole shift (the
case ORC-2151 reports). Files that pyarrow writes record GMT and are not affected.

:func:`apply_orc_timestamp_rule` takes pyarrow's answer and the file's bytes and returns what
step 2 in the right order gives: for each stripe whose writer zone is not UTC, each ``TIMESTAMP``
value with nanos > 999,999 is moved back to the wall clock pyarrow converted (undoing its late
compensation), to the writer's instant (the earlier one when the wall clock repeats), through the
compensation, and back to the wall clock. It does nothing when pyarrow's ORC library already
compensates first (:func:`is_compensation_after_conversion`, asked once with a probe file).

Limitation: a stripe footer without ``writerTimezone`` (writers before ORC 1.2) is read by the
C++ library in the process's own zone, which is not known here; such stripes are left as read.
"""

from __future__ import annotations

import functools
import io
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import cramjam
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as pa_orc

try:  # Python 3.14 ships Zstandard; before it, the backport (the one fastavro also uses)
    from compression import zstd  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover - which branch runs depends on the Python version
    from backports import zstd  # type: ignore[no-redef, unused-ignore]

from reference.errors import PaimonFormatError, UnsupportedFeature
from reference.spec.format_framing import decode_orc_postscript_lengths, decode_protobuf_varint
from reference.spec.units import NANOS_PER_SECOND

MAX_UNCOMPENSATED_NANOS = 999_999
"""Step 1 and 2 of the rule apply to fractions of more than this many nanoseconds (a whole
millisecond or more), because Java's writer derives the seconds from ``millis``."""
UTC_ZONES = frozenset({"UTC", "GMT", "Etc/UTC", "Etc/GMT", "Z"})
"""Writer zones with no offset at any time: nothing to correct (other zones are converted)."""

# --------------------------------------------------------------------------------------------
# The file's tail: postscript, footer and stripe footers (protobuf, ``orc_proto.proto``)
# --------------------------------------------------------------------------------------------

POSTSCRIPT_COMPRESSION_FIELD = 2
POSTSCRIPT_BLOCK_SIZE_FIELD = 3
DEFAULT_BLOCK_SIZE = 256 * 1024
"""``compressionBlockSize`` when the postscript has none: no chunk decompresses to more."""
FOOTER_STRIPES_FIELD = 3
STRIPE_OFFSET_FIELD = 1
STRIPE_INDEX_LENGTH_FIELD = 2
STRIPE_DATA_LENGTH_FIELD = 3
STRIPE_FOOTER_LENGTH_FIELD = 4
STRIPE_ROW_COUNT_FIELD = 5
STRIPE_FOOTER_WRITER_TIMEZONE_FIELD = 3
CHUNK_HEADER_LENGTH = 3
"""A compressed stream is chunks, each after a 3-byte little-endian header
``(length << 1) | is_original``."""
WIRE_VARINT = 0
WIRE_FIXED64 = 1
WIRE_LENGTH_DELIMITED = 2
WIRE_FIXED32 = 5
FIXED_WIDTHS = {WIRE_FIXED64: 8, WIRE_FIXED32: 4}


class OrcCompression(IntEnum):
    """``CompressionKind`` of the postscript."""

    NONE = 0
    ZLIB = 1
    SNAPPY = 2
    LZO = 3
    LZ4 = 4
    ZSTD = 5


ReadRange = Callable[[int, int], bytes]
"""``read_range(offset, length)``: that many bytes of the file from that offset."""


@dataclass(frozen=True)
class StripeZone:
    """The rows of one stripe and the zone its writer recorded (``None``: not recorded)."""

    row_count: int
    writer_timezone: str | None


def decode_protobuf_fields(message: bytes) -> list[tuple[int, int | bytes]]:
    """The ``(field number, value)`` pairs of a protobuf message: varints as ints, everything
    else as its bytes."""
    fields: list[tuple[int, int | bytes]] = []
    position = 0
    while position < len(message):
        key, position = decode_protobuf_varint(message, position)
        number, wire_type = key >> 3, key & 7
        value: int | bytes
        if wire_type == WIRE_VARINT:
            value, position = decode_protobuf_varint(message, position)
        elif wire_type == WIRE_LENGTH_DELIMITED:
            length, position = decode_protobuf_varint(message, position)
            value = message[position : position + length]
            position += length
        elif wire_type in FIXED_WIDTHS:
            value = message[position : position + FIXED_WIDTHS[wire_type]]
            position += FIXED_WIDTHS[wire_type]
        else:
            raise PaimonFormatError(f"orc metadata: unexpected protobuf wire type {wire_type}")
        if position > len(message):
            raise PaimonFormatError("orc metadata: a protobuf field runs past its message")
        fields.append((number, value))
    return fields


def _decompress_chunk(chunk: bytes, compression: OrcCompression, block_size: int) -> bytes:
    if compression is OrcCompression.ZLIB:
        return zlib.decompress(chunk, -zlib.MAX_WBITS)
    if compression is OrcCompression.SNAPPY:
        return bytes(cramjam.snappy.decompress_raw(chunk))
    if compression is OrcCompression.LZ4:  # a raw block: its size is not stored
        out = bytearray(block_size)
        written = cramjam.lz4.decompress_block_into(chunk, out, output_len=block_size)
        return bytes(out[:written])
    if compression is OrcCompression.ZSTD:
        return bytes(zstd.decompress(chunk))
    raise UnsupportedFeature(f"orc files compressed with {compression.name}")


def decompress_orc_stream(
    data: bytes, compression: OrcCompression, block_size: int = DEFAULT_BLOCK_SIZE
) -> bytes:
    """The bytes of a (metadata) stream: as stored without compression, else its chunks."""
    if compression is OrcCompression.NONE:
        return data
    out = bytearray()
    position = 0
    while position < len(data):
        header = int.from_bytes(data[position : position + CHUNK_HEADER_LENGTH], "little")
        position += CHUNK_HEADER_LENGTH
        length, is_original = header >> 1, header & 1
        chunk = data[position : position + length]
        if len(chunk) != length:
            raise PaimonFormatError("orc metadata: a compressed chunk runs past its stream")
        position += length
        out += chunk if is_original else _decompress_chunk(chunk, compression, block_size)
    return bytes(out)


def _varint_field(fields: Sequence[tuple[int, int | bytes]], number: int) -> int:
    values = [v for n, v in fields if n == number and isinstance(v, int)]
    return values[-1] if values else 0


def read_orc_stripe_zones(read_range: ReadRange, size: int) -> tuple[StripeZone, ...]:
    """Each stripe's row count and writer zone, from the footer and the stripe footers."""
    (postscript_length,) = read_range(size - 1, 1)
    postscript = read_range(size - 1 - postscript_length, postscript_length)
    footer_length, _ = decode_orc_postscript_lengths(postscript)
    postscript_fields = decode_protobuf_fields(postscript)
    compression = OrcCompression(_varint_field(postscript_fields, POSTSCRIPT_COMPRESSION_FIELD))
    block_size = _varint_field(postscript_fields, POSTSCRIPT_BLOCK_SIZE_FIELD) or DEFAULT_BLOCK_SIZE
    footer_offset = size - 1 - postscript_length - footer_length
    footer = decompress_orc_stream(
        read_range(footer_offset, footer_length), compression, block_size
    )
    zones = []
    for number, stripe in decode_protobuf_fields(footer):
        if number != FOOTER_STRIPES_FIELD or not isinstance(stripe, bytes):
            continue
        info = decode_protobuf_fields(stripe)
        stripe_footer_offset = (
            _varint_field(info, STRIPE_OFFSET_FIELD)
            + _varint_field(info, STRIPE_INDEX_LENGTH_FIELD)
            + _varint_field(info, STRIPE_DATA_LENGTH_FIELD)
        )
        stripe_footer_length = _varint_field(info, STRIPE_FOOTER_LENGTH_FIELD)
        stripe_footer = decompress_orc_stream(
            read_range(stripe_footer_offset, stripe_footer_length), compression, block_size
        )
        names = [
            v.decode()
            for n, v in decode_protobuf_fields(stripe_footer)
            if n == STRIPE_FOOTER_WRITER_TIMEZONE_FIELD and isinstance(v, bytes)
        ]
        zones.append(
            StripeZone(_varint_field(info, STRIPE_ROW_COUNT_FIELD), names[-1] if names else None)
        )
    return tuple(zones)


# --------------------------------------------------------------------------------------------
# The rule
# --------------------------------------------------------------------------------------------


def _seconds_array(seconds: np.ndarray, zone: str | None = None) -> pa.Array:
    return pa.array(seconds, pa.timestamp("s", tz=zone))


def compute_compensated_first(values: pa.Array, writer_timezone: str) -> pa.Array:
    """``TIMESTAMP`` values (Arrow ``timestamp[ns]``, wall clock) as a reader compensating
    after the conversion gave them, turned into what the rule gives (module docstring)."""
    valid = values.is_valid()
    nanos_since_epoch = values.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
    seconds, nanos = np.divmod(nanos_since_epoch, NANOS_PER_SECOND)
    candidates = valid.to_numpy(zero_copy_only=False) & (nanos > MAX_UNCOMPENSATED_NANOS)
    if not candidates.any():
        return values
    # The late reader converted the writer's instant to its wall clock, then subtracted a
    # second if that wall clock was negative: undo the subtraction.
    wall_clock = seconds[candidates] + (seconds[candidates] < 0)
    instant = pc.assume_timezone(
        _seconds_array(wall_clock), writer_timezone, ambiguous="earliest", nonexistent="earliest"
    )
    instant_seconds = instant.cast(pa.int64()).to_numpy()
    compensated = instant_seconds - (instant_seconds < 0)
    corrected_wall_clock = pc.local_timestamp(_seconds_array(compensated, writer_timezone))
    seconds[candidates] = corrected_wall_clock.cast(pa.int64()).to_numpy()
    corrected = seconds * NANOS_PER_SECOND + nanos
    return pa.array(corrected, pa.int64(), mask=~valid.to_numpy(zero_copy_only=False)).cast(
        values.type
    )


# A ``timestamp`` column (1.001 s, as pyarrow writes it) whose stripe footer is then made to say
# the writer was in PRC (UTC+8 in 1970, a name as long as "GMT"): the writer's instant is
# -28799 s, its wall clock +1 s. Compensating first gives 0.001 s, compensating late 1.001 s.
PROBE_WRITTEN_NANOS = 1_001_000_000
PROBE_WRITTEN_ZONE = b"\x1a\x03GMT"
PROBE_PATCHED_ZONE = b"\x1a\x03PRC"


@functools.cache
def is_compensation_after_conversion() -> bool:
    """Whether pyarrow's ORC library applies the pre-1970 compensation after converting to the
    reader's zone (every ORC C++ release before ORC-2151), asked once with a probe file."""
    sink = io.BytesIO()
    probe = pa.table({"ts": pa.array([PROBE_WRITTEN_NANOS], pa.timestamp("ns"))})
    pa_orc.write_table(probe, sink, compression="uncompressed")
    written = sink.getvalue()
    if written.count(PROBE_WRITTEN_ZONE) != 1:
        raise AssertionError("pyarrow's ORC writer no longer records the zone GMT")
    patched = written.replace(PROBE_WRITTEN_ZONE, PROBE_PATCHED_ZONE)
    read = pa_orc.ORCFile(io.BytesIO(patched)).read().column(0).cast(pa.int64())[0].as_py()
    return bool(read == PROBE_WRITTEN_NANOS)


def _is_wall_clock_timestamp(data_type: pa.DataType) -> bool:
    """pyarrow reads ORC ``timestamp`` as zoneless and ``timestamp with local time zone`` as
    UTC timestamps."""
    return pa.types.is_timestamp(data_type) and data_type.tz is None


def _has_wall_clock_timestamp(data_type: pa.DataType) -> bool:
    if _is_wall_clock_timestamp(data_type):
        return True
    if pa.types.is_struct(data_type):
        return any(_has_wall_clock_timestamp(f.type) for f in data_type)
    if pa.types.is_map(data_type):
        return _has_wall_clock_timestamp(data_type.key_type) or _has_wall_clock_timestamp(
            data_type.item_type
        )
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        return _has_wall_clock_timestamp(data_type.value_type)
    return False


def _null_mask(array: pa.Array) -> pa.Array | None:
    return array.is_null() if array.null_count else None


def _apply_to_array(array: pa.Array, fix: Callable[[pa.Array], pa.Array]) -> pa.Array:
    """``array`` with ``fix`` applied to every wall-clock timestamp inside it."""
    data_type = array.type
    if not _has_wall_clock_timestamp(data_type):
        return array
    if _is_wall_clock_timestamp(data_type):
        return fix(array)
    if pa.types.is_struct(data_type):
        children = [_apply_to_array(array.field(i), fix) for i in range(data_type.num_fields)]
        return pa.StructArray.from_arrays(children, fields=list(data_type), mask=_null_mask(array))
    if array.offset:  # a slice: its offsets and its flattened children disagree, copy it
        array = pa.concat_arrays([array])
    if pa.types.is_map(data_type):
        keys = _apply_to_array(array.keys, fix)
        items = _apply_to_array(array.items, fix)
        return pa.MapArray.from_arrays(
            array.offsets, keys, items, type=data_type, mask=_null_mask(array)
        )
    values = _apply_to_array(array.values, fix)
    return type(array).from_arrays(array.offsets, values, type=data_type, mask=_null_mask(array))


def _apply_to_table(table: pa.Table, fix: Callable[[pa.Array], pa.Array]) -> pa.Table:
    columns = []
    for column in table.columns:
        chunks = [_apply_to_array(chunk, fix) for chunk in column.chunks]
        columns.append(pa.chunked_array(chunks, type=column.type))
    return pa.Table.from_arrays(columns, schema=table.schema)


def apply_orc_timestamp_rule(table: pa.Table, read_range: ReadRange, size: int) -> pa.Table:
    """pyarrow's decoding ``table`` of an ORC file (all its rows, in file order) with its
    ``TIMESTAMP`` values compensated before the conversion (module docstring)."""
    if not any(_has_wall_clock_timestamp(f.type) for f in table.schema):
        return table
    if not is_compensation_after_conversion():
        return table
    try:
        zones = read_orc_stripe_zones(read_range, size)
    except (ValueError, IndexError, zlib.error, cramjam.DecompressionError) as error:
        raise PaimonFormatError(f"orc stripe footers are undecodable ({error})") from error
    if sum(z.row_count for z in zones) != table.num_rows:
        raise PaimonFormatError("orc stripes do not add up to the file's rows")
    pieces = []
    offset = 0
    for zone in zones:
        piece = table.slice(offset, zone.row_count)
        offset += zone.row_count
        name = zone.writer_timezone
        if name is not None and name not in UTC_ZONES:
            fix = functools.partial(compute_compensated_first, writer_timezone=name)
            piece = _apply_to_table(piece, fix)
        pieces.append(piece)
    return pa.concat_tables(pieces) if pieces else table


def read_range_of(data: Any) -> tuple[ReadRange, int]:
    """A :data:`ReadRange` and the size of a whole file's bytes or a seekable
    ``pyarrow.NativeFile``."""
    if isinstance(data, pa.NativeFile):
        return (lambda offset, length: bytes(data.read_at(length, offset))), int(data.size())
    whole = bytes(data)
    return (lambda offset, length: whole[offset : offset + length]), len(whole)
