"""The file-index container: every index of one data file, per column and index type.

Spec: ``docs/concepts/spec/fileindex.mdx`` ("Index File").
Java: ``org.apache.paimon.fileindex.FileIndexFormat`` (``Writer``, ``Reader``) and
``org.apache.paimon.io.DataFileIndexWriter`` (where the bytes go).

Layout (all integers big-endian)::

    magic            int64   1493475289347502
    version          int32   1
    head length      int32   bytes from the start of the container to the first body
    column count     int32
    per column:      name (modified UTF-8, uint16 length first), index count int32,
                     per index: type name (modified UTF-8), start int32, length int32
    redundant length int32   0, followed by that many bytes (room for later versions)
    bodies           the index bodies, back to back, in header order

``start`` is an absolute position in the container (so the first body starts at ``head
length``). ``start = -1`` with length 0 marks an index whose writer saw no row at all; a reader
answers every predicate on it with "skip".

Where the bytes live: if the container is at most ``file-index.in-manifest-threshold`` bytes
(default 500 B) it is stored in the data file's manifest entry (``_EMBEDDED_FILE_INDEX``),
otherwise in a file named ``<data file name>.index`` next to the data file and listed in the
entry's ``_EXTRA_FILES``. Both hold the same bytes.

Java writes the columns (and the index types of a column) in ``HashMap`` order of their names;
:func:`compute_java_file_index` reproduces that order for a byte-identical encoding.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from reference.errors import PaimonFormatError, SpecViolation
from reference.spec import types as t
from reference.spec.data import Timestamp
from reference.spec.file_index.byte_reader import ByteReader, pack_int32, pack_int64
from reference.spec.file_index.java_order import compute_hash_map_order, compute_java_string_hash

FILE_INDEX_MAGIC = 1493475289347502
FILE_INDEX_VERSION_1 = 1
EMPTY_INDEX_START = -1
"""Header start of an index whose writer saw no row (its length is 0)."""
REDUNDANT_LENGTH = 0
PREAMBLE_BYTES = 8 + 4 + 4
"""Magic, version and head length: the part of the head not counted in the head's own body."""
MAX_UTF_BYTES = 0xFFFF
"""``DataOutput.writeUTF`` stores the encoded length in an unsigned 16-bit prefix."""

INDEX_FILE_SUFFIX = ".index"
DEFAULT_IN_MANIFEST_THRESHOLD = 500
"""``file-index.in-manifest-threshold`` default, in bytes."""

BLOOM_FILTER = "bloom-filter"
BITMAP = "bitmap"
BSI = "bsi"
RANGE_BITMAP = "range-bitmap"


@dataclass(frozen=True)
class ColumnIndex:
    """One index body: ``body`` is None for an index whose writer saw no row."""

    index_type: str
    body: bytes | None


@dataclass(frozen=True)
class ColumnIndexes:
    """The indexes of one column, in header order."""

    column: str
    indexes: tuple[ColumnIndex, ...]


@dataclass(frozen=True)
class FileIndex:
    """A decoded container: columns in header order."""

    columns: tuple[ColumnIndexes, ...]


def compute_timestamp_long(value: Timestamp, precision: int) -> int:
    """How every index type sees a TIMESTAMP: epoch millis for precision <= 3, else epoch
    micros (``Timestamp.getMillisecond`` / ``Timestamp.toMicros``, floor for negatives)."""
    if precision <= t.TIMESTAMP_MAX_COMPACT_PRECISION:
        return value.millisecond
    return value.to_epoch_micros()


# --------------------------------------------------------------------------------------------
# Modified UTF-8 (java.io.DataOutput.writeUTF)
# --------------------------------------------------------------------------------------------


def encode_modified_utf8(text: str) -> bytes:
    """``writeUTF``: a uint16 byte length, then each UTF-16 code unit in 1-3 bytes.

    Unit 0 takes two bytes (``C0 80``) and supplementary characters are written as their two
    surrogates of three bytes each; otherwise it is UTF-8.
    """
    units = text.encode("utf-16-be", "surrogatepass")
    encoded = bytearray()
    for index in range(0, len(units), 2):
        unit = int.from_bytes(units[index : index + 2], "big")
        if 0x0001 <= unit <= 0x007F:
            encoded.append(unit)
        elif unit <= 0x07FF:
            encoded += bytes((0xC0 | unit >> 6, 0x80 | unit & 0x3F))
        else:
            encoded += bytes((0xE0 | unit >> 12, 0x80 | unit >> 6 & 0x3F, 0x80 | unit & 0x3F))
    if len(encoded) > MAX_UTF_BYTES:
        raise SpecViolation(f"name of {len(encoded)} bytes does not fit writeUTF", code="UTF")
    return len(encoded).to_bytes(2, "big") + bytes(encoded)


def decode_modified_utf8(reader: ByteReader, field: str) -> str:
    """``readUTF``: the inverse of :func:`encode_modified_utf8`."""
    length = int.from_bytes(reader.take(2, f"{field} length"), "big")
    data = reader.take(length, field)
    units = bytearray()
    index = 0
    while index < len(data):
        lead = data[index]
        if lead < 0x80:
            unit, width = lead, 1
        elif lead >> 5 == 0b110:
            unit, width = (lead & 0x1F) << 6 | _continuation(data, index + 1, field), 2
        elif lead >> 4 == 0b1110:
            high = _continuation(data, index + 1, field)
            unit, width = (lead & 0x0F) << 12 | high << 6 | _continuation(data, index + 2, field), 3
        else:
            raise PaimonFormatError(f"malformed modified UTF-8 in {field} at byte {index}")
        units += unit.to_bytes(2, "big")
        index += width
    return bytes(units).decode("utf-16-be", "surrogatepass")


def _continuation(data: bytes, index: int, field: str) -> int:
    if index >= len(data) or data[index] >> 6 != 0b10:
        raise PaimonFormatError(f"malformed modified UTF-8 in {field} at byte {index}")
    return data[index] & 0x3F


# --------------------------------------------------------------------------------------------
# Container
# --------------------------------------------------------------------------------------------


def compute_head_length(file_index: FileIndex) -> int:
    """Bytes before the first body: fixed fields plus the encoded names."""
    fixed = PREAMBLE_BYTES + 4 + 4
    per_column = sum(4 + len(encode_modified_utf8(c.column)) for c in file_index.columns)
    per_index = sum(
        8 + len(encode_modified_utf8(index.index_type))
        for column in file_index.columns
        for index in column.indexes
    )
    return fixed + per_column + per_index


def encode_file_index(file_index: FileIndex) -> bytes:
    """The container bytes, bodies laid out back to back in header order."""
    validate_file_index(file_index)
    head_length = compute_head_length(file_index)
    head = bytearray()
    head += pack_int64(FILE_INDEX_MAGIC)
    head += pack_int32(FILE_INDEX_VERSION_1)
    head += pack_int32(head_length)
    head += pack_int32(len(file_index.columns))
    bodies = bytearray()
    for column in file_index.columns:
        head += encode_modified_utf8(column.column)
        head += pack_int32(len(column.indexes))
        for index in column.indexes:
            head += encode_modified_utf8(index.index_type)
            if index.body is None:
                head += pack_int32(EMPTY_INDEX_START) + pack_int32(0)
            else:
                head += pack_int32(head_length + len(bodies)) + pack_int32(len(index.body))
                bodies += index.body
    head += pack_int32(REDUNDANT_LENGTH)
    return bytes(head + bodies)


def decode_file_index(data: bytes) -> FileIndex:
    """The container in ``data`` (the embedded bytes, or a whole ``.index`` file)."""
    reader = ByteReader(data, what="file index")
    magic = reader.int64("magic")
    if magic != FILE_INDEX_MAGIC:
        raise PaimonFormatError(f"not a file index (magic {magic}, expected {FILE_INDEX_MAGIC})")
    version = reader.int32("version")
    if version != FILE_INDEX_VERSION_1:
        raise PaimonFormatError(f"unsupported file index version {version}")
    head_length = reader.int32("head length")
    if not PREAMBLE_BYTES < head_length <= len(data):
        raise PaimonFormatError(f"head length {head_length} outside the {len(data)}-byte index")
    head = ByteReader(data[:head_length], PREAMBLE_BYTES, what="file index head")
    columns = tuple(
        _decode_column(head, data) for _ in range(_count(head, "column count", head_length))
    )
    redundant = head.int32("redundant length")
    head.take(redundant, "redundant bytes")
    file_index = FileIndex(columns)
    validate_file_index(file_index)
    return file_index


def _count(reader: ByteReader, field: str, limit: int) -> int:
    count = reader.int32(field)
    if not 0 <= count <= limit:
        raise PaimonFormatError(f"file index {field} {count} is impossible")
    return count


def _decode_column(head: ByteReader, data: bytes) -> ColumnIndexes:
    column = decode_modified_utf8(head, "column name")
    count = _count(head, "index count", len(data))
    return ColumnIndexes(column, tuple(_decode_index(head, data) for _ in range(count)))


def _decode_index(head: ByteReader, data: bytes) -> ColumnIndex:
    index_type = decode_modified_utf8(head, "index type")
    start = head.int32("index start")
    length = head.int32("index length")
    if start == EMPTY_INDEX_START:
        return ColumnIndex(index_type, None)
    if start < 0 or length < 0 or start + length > len(data):
        raise PaimonFormatError(
            f"{index_type} index body [{start}, +{length}) outside the {len(data)}-byte index"
        )
    return ColumnIndex(index_type, data[start : start + length])


def validate_file_index(file_index: FileIndex) -> None:
    """Column names are unique, and so are the index types within a column."""
    names = [column.column for column in file_index.columns]
    if len(set(names)) != len(names):
        raise SpecViolation(f"file index lists a column twice: {names}", code="FILE_INDEX_DUP")
    for column in file_index.columns:
        types = [index.index_type for index in column.indexes]
        if len(set(types)) != len(types):
            raise SpecViolation(
                f"file index lists an index type twice for column {column.column!r}: {types}",
                code="FILE_INDEX_DUP",
            )


def find_index_body(file_index: FileIndex, column: str, index_type: str) -> ColumnIndex | None:
    """The index of ``index_type`` on ``column``, or None when the container has none."""
    for candidate in file_index.columns:
        if candidate.column == column:
            for index in candidate.indexes:
                if index.index_type == index_type:
                    return index
    return None


def compute_java_file_index(bodies: Mapping[str, Mapping[str, bytes | None]]) -> FileIndex:
    """A container listing ``bodies`` (column -> index type -> body) in Java's write order.

    ``DataFileIndexWriter`` keeps its writers in ``HashMap``s (index type -> column -> writer)
    and regroups the bodies per column with ``computeIfAbsent`` (column) and ``put`` (index
    type), so the header order follows those maps. The iteration order of ``bodies`` stands
    for the order in which the table options list the indexes.
    """
    type_calls = [
        (index_type, compute_java_string_hash(index_type))
        for indexes in bodies.values()
        for index_type in indexes
    ]
    index_types = compute_hash_map_order(type_calls, compute_if_absent=True)
    visits: list[tuple[str, str]] = []
    for index_type in index_types:
        columns = [column for column, indexes in bodies.items() if index_type in indexes]
        for column in compute_hash_map_order(_string_calls(columns), compute_if_absent=False):
            visits.append((str(column), str(index_type)))
    column_order = compute_hash_map_order(
        _string_calls([column for column, _ in visits]), compute_if_absent=True
    )
    return FileIndex(
        tuple(
            ColumnIndexes(
                str(column),
                _java_index_order(
                    column, [index_type for c, index_type in visits if c == column], bodies
                ),
            )
            for column in column_order
        )
    )


def _string_calls(names: Sequence[str]) -> list[tuple[Hashable, int]]:
    return [(name, compute_java_string_hash(name)) for name in names]


def _java_index_order(
    column: Hashable, index_types: Sequence[str], bodies: Mapping[str, Mapping[str, bytes | None]]
) -> tuple[ColumnIndex, ...]:
    ordered = compute_hash_map_order(_string_calls(index_types), compute_if_absent=False)
    return tuple(ColumnIndex(str(name), bodies[str(column)][str(name)]) for name in ordered)


def compute_index_file_name(data_file_name: str) -> str:
    """The name of the container file written beside a data file."""
    return data_file_name + INDEX_FILE_SUFFIX


def is_embedded_in_manifest(container_size: int, threshold: int) -> bool:
    """Whether a container of this size goes into the manifest instead of a ``.index`` file."""
    return container_size <= threshold
