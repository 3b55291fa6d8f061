"""Bitmap file index (versions 1 and 2): for each distinct value, the rows that hold it.

Spec: ``docs/concepts/spec/fileindex.mdx`` ("Index: Bitmap").
Java: ``org.apache.paimon.fileindex.bitmap.BitmapFileIndex``, ``BitmapFileIndexMeta`` (v1),
``BitmapFileIndexMetaV2`` (v2), ``BitmapTypeVisitor``.

The body of one column (all integers big-endian; bitmaps are portable 32-bit roaring)::

    version          uint8   1 or 2
    row count        int32
    value count      int32   distinct non-null values
    has nulls        uint8
    null offset      int32   only with nulls
    null length      int32   only with nulls, only in v2: serialized size of the null bitmap
    v1: per value:   key, offset
    v2: block count  int32
        per block:   first key of the block, block offset (counted from the first block)
        blocks size  int32   total bytes of the blocks (the bitmaps start right after them)
        per block:   entry count int32, then per entry: key, offset, length (-1 for one row)
    bitmaps          the null bitmap first (when it has 2+ rows), then the values' bitmaps

Offsets of bitmaps count from the first bitmap byte. A bitmap holding a single row is not
stored: its offset is ``-1 - row``. A v1 bitmap has no stored length (the roaring format is
self-delimiting). v2 sorts the entries by value and cuts them into blocks of at most
``index-block-size`` bytes (default 16 KiB) so a reader can binary-search one block.

Keys are written per type: strings as an int32 length and the UTF-8 bytes; TINYINT as 1 byte,
SMALLINT 2, INT/DATE/TIME 4, BIGINT 8, FLOAT/DOUBLE as IEEE bits (4/8), BOOLEAN 1 byte; a
TIMESTAMP key is a BIGINT: epoch millis for precision <= 3, else epoch micros.

Java writes the values in ``HashMap`` order of their keys (see ``java_order``); this module
reproduces that order so that its bytes equal Java's. Paimon 0.9.0 and 1.0 always write v1
(0.9.0 cannot write BOOLEAN keys); since 1.1 the default is v2 unless
``file-index.bitmap.<column>.version`` is 1.

Query answers are row sets, exactly Java's: ``<>`` and ``NOT IN`` are the complement of the
matching rows over ``[0, row count)``, so they include the null rows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from reference.errors import PaimonFormatError, SpecViolation, UnsupportedFeature
from reference.spec import types as t
from reference.spec.data import Value
from reference.spec.file_index.byte_reader import (
    ByteReader,
    pack_boolean,
    pack_float32,
    pack_float64,
    pack_int8,
    pack_int16,
    pack_int32,
    pack_int64,
)
from reference.spec.file_index.container import compute_timestamp_long
from reference.spec.file_index.java_order import (
    compute_double_bits,
    compute_float_bits,
    compute_hash_map_order,
    compute_long_hash,
)
from reference.spec.file_index.result import IndexResult, rows_result
from reference.spec.file_index.roaring import (
    EMPTY_ROW_IDS,
    RowIds,
    compute_range,
    decode_roaring32,
    decode_roaring32_at,
    encode_roaring32,
    row_ids_of,
)
from reference.spec.java_hashing import compute_java_hash


class BitmapVersion(IntEnum):
    V1 = 1
    V2 = 2


DEFAULT_VERSION = BitmapVersion.V2
"""Default of ``file-index.bitmap.<column>.version`` since 1.1 (0.9.0 and 1.0 write v1)."""
DEFAULT_INDEX_BLOCK_SIZE = 16 * 1024
"""``file-index.bitmap.<column>.index-block-size`` default: 16 KiB."""
NO_LENGTH = -1
"""v2 entry length of a single-row bitmap (which is not stored)."""
BLOCK_ENTRY_COUNT_BYTES = 4
BLOCK_ENTRY_FIXED_BYTES = 8
"""Offset and length of one v2 block entry, besides its key."""

KEY_WIDTHS = {
    t.TypeRoot.BOOLEAN: 1,
    t.TypeRoot.TINYINT: 1,
    t.TypeRoot.SMALLINT: 2,
    t.TypeRoot.INTEGER: 4,
    t.TypeRoot.DATE: 4,
    t.TypeRoot.TIME_WITHOUT_TIME_ZONE: 4,
    t.TypeRoot.FLOAT: 4,
    t.TypeRoot.BIGINT: 8,
    t.TypeRoot.DOUBLE: 8,
    t.TypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE: 8,
    t.TypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE: 8,
}
"""Fixed key widths; CHAR/VARCHAR keys are an int32 length plus the UTF-8 bytes."""


@dataclass(frozen=True)
class BitmapEntry:
    """One distinct value (its key, see :func:`compute_bitmap_key`) and the rows holding it."""

    key: Value
    rows: RowIds


@dataclass(frozen=True)
class BitmapIndex:
    """A decoded bitmap index body.

    ``entries`` are in write order, which fixes where each bitmap sits in the body. A v2 body
    does not record the write order of single-row values (they occupy no body bytes); decoding
    puts them last.
    """

    version: BitmapVersion
    row_count: int
    null_rows: RowIds
    entries: tuple[BitmapEntry, ...]


# --------------------------------------------------------------------------------------------
# Keys: mapping, identity, Java hash code, order, bytes
# --------------------------------------------------------------------------------------------


def check_bitmap_type(data_type: t.DataType) -> None:
    """Bitmap indexes exist for strings, booleans, integers, floats, dates, times, timestamps."""
    if data_type.root not in KEY_WIDTHS and data_type.root not in t.CHARACTER_ROOTS:
        raise SpecViolation(
            f"bitmap index does not support {data_type.to_sql()}", code="FILE_INDEX_TYPE"
        )


def compute_bitmap_key(value: Value, data_type: t.DataType) -> Value:
    """The key a value is indexed under: timestamps become epoch millis or micros."""
    if value is None or data_type.root not in t.TIMESTAMP_ROOTS:
        return value
    return compute_timestamp_long(value, t.timestamp_precision(data_type))


def compute_key_identity(key: Value, data_type: t.DataType) -> Any:
    """What Java's ``equals`` compares: floats by their bits (so -0.0 and 0.0 differ, and all
    NaNs are one value), everything else by value."""
    if data_type.root is t.TypeRoot.FLOAT:
        return ("float", compute_float_bits(key))
    if data_type.root is t.TypeRoot.DOUBLE:
        return ("double", compute_double_bits(key))
    return key


def compute_key_java_hash(key: Value, data_type: t.DataType) -> int:
    """The ``hashCode`` of the boxed key Java puts in its ``HashMap``: a timestamp key is a
    ``Long`` (:func:`compute_bitmap_key`); any other key is the column's value
    (``reference.spec.java_hashing`` rule 1)."""
    if data_type.root in t.TIMESTAMP_ROOTS:
        return compute_long_hash(int(key))
    hash_code = compute_java_hash(key, data_type)
    if hash_code is None:
        raise UnsupportedFeature(f"bitmap index keys of type {data_type}")
    return hash_code


def compute_key_sort_key(key: Value, data_type: t.DataType) -> Any:
    """Java's comparator for v2 ordering: strings by unsigned UTF-8 bytes, false < true,
    floats by ``Float.compare`` (-0.0 < 0.0, NaN last), numbers naturally."""
    root = data_type.root
    if root in t.CHARACTER_ROOTS:
        return str(key).encode("utf-8")
    if root in t.FLOATING_ROOTS:
        if math.isnan(key):
            return (1, 0.0, 0)
        return (0, key, compute_key_identity(key, data_type)[1])
    return key


def encode_bitmap_key(key: Value, data_type: t.DataType) -> bytes:
    root = data_type.root
    if root in t.CHARACTER_ROOTS:
        utf8 = str(key).encode("utf-8")
        return pack_int32(len(utf8)) + utf8
    if root is t.TypeRoot.BOOLEAN:
        return pack_boolean(bool(key))
    if root in t.FLOATING_ROOTS:
        return pack_float32(key) if root is t.TypeRoot.FLOAT else pack_float64(key)
    packers = {1: pack_int8, 2: pack_int16, 4: pack_int32, 8: pack_int64}
    return packers[KEY_WIDTHS[root]](int(key))


def decode_bitmap_key(reader: ByteReader, data_type: t.DataType) -> Value:
    root = data_type.root
    if root in t.CHARACTER_ROOTS:
        utf8 = reader.take(reader.int32("key length"), "string key")
        try:
            return utf8.decode("utf-8")
        except UnicodeDecodeError as error:
            raise PaimonFormatError(f"bitmap index key is not UTF-8 ({error})") from error
    if root is t.TypeRoot.BOOLEAN:
        return reader.boolean("boolean key")
    if root is t.TypeRoot.FLOAT:
        return reader.float32("float key")
    if root is t.TypeRoot.DOUBLE:
        return reader.float64("double key")
    readers = {1: reader.int8, 2: reader.int16, 4: reader.int32, 8: reader.int64}
    return readers[KEY_WIDTHS[root]]("key")


# --------------------------------------------------------------------------------------------
# Building and validating
# --------------------------------------------------------------------------------------------


def build_bitmap_index(
    values: Iterable[Value],
    data_type: t.DataType,
    *,
    version: BitmapVersion = DEFAULT_VERSION,
) -> BitmapIndex:
    """The index Java writes for one column's values (row ``i`` is the i-th value).

    Java's writer calls ``HashMap.computeIfAbsent`` once per non-null row; replaying those
    calls orders the distinct values as Java writes them, so the encoding is byte-identical.
    """
    check_bitmap_type(data_type)
    null_rows: list[int] = []
    keys: dict[Any, Value] = {}
    rows: dict[Any, list[int]] = {}
    calls: list[tuple[Any, int]] = []
    row_count = 0
    for row, value in enumerate(values):
        row_count = row + 1
        if value is None:
            null_rows.append(row)
            continue
        key = compute_bitmap_key(value, data_type)
        identity = compute_key_identity(key, data_type)
        if identity not in keys:
            keys[identity] = key
            rows[identity] = []
        rows[identity].append(row)
        calls.append((identity, compute_key_java_hash(key, data_type)))
    ordered = compute_hash_map_order(calls, compute_if_absent=True)
    entries = tuple(BitmapEntry(keys[i], row_ids_of(rows[i])) for i in ordered)
    return BitmapIndex(version, row_count, row_ids_of(null_rows), entries)


def validate_bitmap_index(index: BitmapIndex, data_type: t.DataType) -> None:
    """Keys are distinct, every bitmap is non-empty, and each row is in at most one bitmap
    below the row count."""
    identities = {compute_key_identity(entry.key, data_type) for entry in index.entries}
    if len(identities) != len(index.entries):
        raise SpecViolation("bitmap index lists a value twice", code="BITMAP_DUP")
    seen = row_ids_of(index.null_rows)
    for entry in index.entries:
        if not entry.rows:
            raise SpecViolation(f"bitmap of {entry.key!r} is empty", code="BITMAP_EMPTY")
        if seen & entry.rows:
            raise SpecViolation(f"rows of {entry.key!r} appear twice", code="BITMAP_OVERLAP")
        seen = seen | entry.rows
    if seen and seen.max() >= index.row_count:
        raise SpecViolation(
            f"row {seen.max()} beyond the row count {index.row_count}", code="BITMAP_ROW"
        )


# --------------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BodyLayout:
    """Where each bitmap goes: the null bitmap's offset and serialized length, each entry's
    offset and length (``NO_LENGTH`` for a single row), and the bitmap bytes themselves."""

    null_offset: int
    null_length: int
    offsets: tuple[int, ...]
    lengths: tuple[int, ...]
    body: bytes


def _single_row_offset(rows: RowIds) -> int:
    return -1 - int(rows.min())


def compute_body_layout(index: BitmapIndex) -> BodyLayout:
    """Null bitmap first (if it has 2+ rows), then each multi-row bitmap in entry order."""
    null_bytes = encode_roaring32(index.null_rows)
    body = bytearray(null_bytes if len(index.null_rows) > 1 else b"")
    null_offset = _single_row_offset(index.null_rows) if len(index.null_rows) == 1 else 0
    offsets: list[int] = []
    lengths: list[int] = []
    for entry in index.entries:
        if len(entry.rows) == 1:
            offsets.append(_single_row_offset(entry.rows))
            lengths.append(NO_LENGTH)
        else:
            serialized = encode_roaring32(entry.rows)
            offsets.append(len(body))
            lengths.append(len(serialized))
            body += serialized
    return BodyLayout(null_offset, len(null_bytes), tuple(offsets), tuple(lengths), bytes(body))


def encode_bitmap_index(
    index: BitmapIndex,
    data_type: t.DataType,
    *,
    index_block_size: int = DEFAULT_INDEX_BLOCK_SIZE,
) -> bytes:
    """The body bytes of ``index`` in its version; ``index_block_size`` only matters for v2."""
    check_bitmap_type(data_type)
    validate_bitmap_index(index, data_type)
    layout = compute_body_layout(index)
    head = bytearray(pack_int8(index.version))
    head += pack_int32(index.row_count) + pack_int32(len(index.entries))
    head += pack_boolean(bool(index.null_rows))
    if index.null_rows:
        head += pack_int32(layout.null_offset)
        if index.version is BitmapVersion.V2:
            head += pack_int32(layout.null_length)
    if index.version is BitmapVersion.V1:
        for entry, offset in zip(index.entries, layout.offsets, strict=True):
            head += encode_bitmap_key(entry.key, data_type) + pack_int32(offset)
    else:
        head += _encode_v2_dictionary(index, data_type, layout, index_block_size)
    return bytes(head) + layout.body


def _encode_v2_dictionary(
    index: BitmapIndex, data_type: t.DataType, layout: BodyLayout, block_size: int
) -> bytes:
    """Block directory, blocks size, then the blocks of the sorted entries."""
    ordered = sorted(
        zip(index.entries, layout.offsets, layout.lengths, strict=True),
        key=lambda item: compute_key_sort_key(item[0].key, data_type),
    )
    blocks = compute_index_blocks(
        [encode_bitmap_key(entry.key, data_type) for entry, _, _ in ordered], block_size
    )
    directory = bytearray(pack_int32(len(blocks)))
    encoded_blocks = bytearray()
    for first, stop in blocks:
        directory += encode_bitmap_key(ordered[first][0].key, data_type)
        directory += pack_int32(len(encoded_blocks))
        encoded_blocks += pack_int32(stop - first)
        for entry, offset, length in ordered[first:stop]:
            encoded_blocks += encode_bitmap_key(entry.key, data_type)
            encoded_blocks += pack_int32(offset) + pack_int32(length)
    directory += pack_int32(len(encoded_blocks))
    return bytes(directory + encoded_blocks)


def compute_index_blocks(sorted_keys: Sequence[bytes], block_size: int) -> list[tuple[int, int]]:
    """Cut the sorted entries into blocks greedily: a block (4 bytes of entry count, then
    key + 8 bytes per entry) takes entries while it stays within ``block_size`` bytes."""
    blocks: list[tuple[int, int]] = []
    start, used = 0, BLOCK_ENTRY_COUNT_BYTES
    for position, key in enumerate(sorted_keys):
        size = len(key) + BLOCK_ENTRY_FIXED_BYTES
        if BLOCK_ENTRY_COUNT_BYTES + size > block_size:
            raise SpecViolation(
                f"a bitmap index entry of {size} bytes exceeds index-block-size {block_size}",
                code="BITMAP_BLOCK",
            )
        if used + size > block_size:
            blocks.append((start, position))
            start, used = position, BLOCK_ENTRY_COUNT_BYTES
        used += size
    if sorted_keys:
        blocks.append((start, len(sorted_keys)))
    return blocks


# --------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------


def _decode_rows(data: bytes, body_start: int, offset: int, length: int) -> RowIds:
    """A bitmap at ``offset`` from the body start; negative offsets encode a single row."""
    if offset < 0:
        return row_ids_of([-1 - offset])
    start = body_start + offset
    if start > len(data):
        raise PaimonFormatError(f"bitmap offset {offset} beyond the {len(data)}-byte index")
    if length == NO_LENGTH:
        return decode_roaring32_at(data, start)[0]
    if length < 0 or start + length > len(data):
        raise PaimonFormatError(f"bitmap [{offset}, +{length}) beyond the index")
    return decode_roaring32(data[start : start + length])


def _count(reader: ByteReader, field: str) -> int:
    count = reader.int32(field)
    if count < 0 or count > len(reader.data):
        raise PaimonFormatError(f"bitmap index {field} {count} is impossible")
    return count


def decode_bitmap_index(data: bytes, data_type: t.DataType) -> BitmapIndex:
    """A bitmap index body of either version for a column of ``data_type``."""
    check_bitmap_type(data_type)
    reader = ByteReader(data, what="bitmap index")
    version_byte = reader.uint8("version")
    if version_byte not in (BitmapVersion.V1, BitmapVersion.V2):
        raise PaimonFormatError(f"unsupported bitmap index version {version_byte}")
    version = BitmapVersion(version_byte)
    row_count = reader.int32("row count")
    if row_count < 0:
        raise PaimonFormatError(f"bitmap index row count {row_count}")
    value_count = _count(reader, "value count")
    has_nulls = reader.boolean("has nulls")
    null_offset = reader.int32("null offset") if has_nulls else 0
    null_length = NO_LENGTH
    if has_nulls and version is BitmapVersion.V2:
        null_length = reader.int32("null length")
    if version is BitmapVersion.V1:
        dictionary = [
            (decode_bitmap_key(reader, data_type), reader.int32("offset"), NO_LENGTH)
            for _ in range(value_count)
        ]
    else:
        dictionary = _decode_v2_dictionary(reader, data_type, value_count)
    body_start = reader.position
    null_rows = (
        _decode_rows(data, body_start, null_offset, null_length) if has_nulls else EMPTY_ROW_IDS
    )
    entries = tuple(
        BitmapEntry(key, _decode_rows(data, body_start, offset, length))
        for key, offset, length in _write_order(dictionary, version)
    )
    index = BitmapIndex(version, row_count, null_rows, entries)
    validate_bitmap_index(index, data_type)
    return index


def _decode_v2_dictionary(
    reader: ByteReader, data_type: t.DataType, value_count: int
) -> list[tuple[Value, int, int]]:
    """Reads the block directory and all blocks; leaves ``reader`` at the first bitmap."""
    block_count = _count(reader, "block count")
    block_offsets = []
    for _ in range(block_count):
        decode_bitmap_key(reader, data_type)
        block_offsets.append(reader.int32("block offset"))
    blocks_bytes = reader.take(reader.int32("blocks size"), "index blocks")
    entries: list[tuple[Value, int, int]] = []
    for offset in block_offsets:
        block = ByteReader(blocks_bytes, offset, what="bitmap index block")
        for _ in range(_count(block, "block entry count")):
            key = decode_bitmap_key(block, data_type)
            entries.append((key, block.int32("entry offset"), block.int32("entry length")))
    if len(entries) != value_count:
        raise PaimonFormatError(f"bitmap index blocks hold {len(entries)} of {value_count} values")
    return entries


def _write_order(
    dictionary: list[tuple[Value, int, int]], version: BitmapVersion
) -> list[tuple[Value, int, int]]:
    """v1 lists values in write order; v2 sorts them, so restore body order from offsets."""
    if version is BitmapVersion.V1:
        return dictionary
    stored = sorted((item for item in dictionary if item[1] >= 0), key=lambda item: item[1])
    return stored + [item for item in dictionary if item[1] < 0]


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------


def find_rows(index: BitmapIndex, value: Value, data_type: t.DataType) -> RowIds:
    """Rows holding ``value`` (the null rows for None); empty when the value is absent."""
    if value is None:
        return index.null_rows
    identity = compute_key_identity(compute_bitmap_key(value, data_type), data_type)
    for entry in index.entries:
        if compute_key_identity(entry.key, data_type) == identity:
            return entry.rows
    return EMPTY_ROW_IDS


def query_in(index: BitmapIndex, values: Iterable[Value], data_type: t.DataType) -> IndexResult:
    rows = EMPTY_ROW_IDS
    for value in values:
        rows = rows | find_rows(index, value, data_type)
    return rows_result(rows)


def query_equal(index: BitmapIndex, value: Value, data_type: t.DataType) -> IndexResult:
    return query_in(index, [value], data_type)


def query_not_in(index: BitmapIndex, values: Iterable[Value], data_type: t.DataType) -> IndexResult:
    """All rows except those matching a value (null rows included, as Java answers)."""
    matching = query_in(index, values, data_type).rows
    return rows_result(compute_range(0, index.row_count) - matching)


def query_not_equal(index: BitmapIndex, value: Value, data_type: t.DataType) -> IndexResult:
    return query_not_in(index, [value], data_type)


def query_is_null(index: BitmapIndex) -> IndexResult:
    return rows_result(index.null_rows)


def query_is_not_null(index: BitmapIndex) -> IndexResult:
    return rows_result(compute_range(0, index.row_count) - index.null_rows)
