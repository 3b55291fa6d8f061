"""BLOB files (Paimon 1.x): the ``.blob`` files that hold a table's BLOB column values, and
which of them a row id group reads. Pure rules and codecs, no IO.

Spec: ``docs/docs/append-table/blob.md`` (PIP-35).
Java: ``format/blob/BlobFormatWriter`` (layout), ``format/blob/BlobFileMeta`` and
``format/blob/BlobFormatReader`` (reading), ``utils/DeltaVarintCompressor`` (the index),
``operation/DataEvolutionSplitRead`` (``splitFieldBunch``, ``BlobBunch``: which files a group
reads).

Rules:

1. A table with a BLOB column needs ``row-tracking.enabled`` and ``data-evolution.enabled``:
   the other columns go to the ordinary data files, each BLOB column to ``.blob`` files of its
   own (``_WRITE_COLS`` names the one column) whose ``_FIRST_ROW_ID`` / ``_ROW_COUNT`` cover a
   part of the row id range of the data files they belong to. A ``.blob`` file has no value
   statistics.
   Newer writers also store an ARRAY<BLOB> column in ``.blob`` files (a record per row holding
   the array's elements: Java ``ArrayBlobElementSerializer``); this kit refuses reading one
   with :class:`~reference.errors.UnsupportedFeature`.
2. A ``.blob`` file is a sequence of records followed by an index and a 5-byte footer. Every
   integer is little-endian. A record is the magic number ``1481511375`` (4 bytes), the value's
   bytes, the record's length (8 bytes: magic + value + 12) and the CRC-32 of the magic, the
   value and the length bytes (4 bytes). The index is the records' lengths, one per row, as
   delta + ZigZag + varint integers; the footer is the index's length (4 bytes) and the version
   ``1`` (1 byte). A length of ``-1`` is a null value (no record); ``-2`` is a placeholder
   (the value lives in an older file of the same rows: a partial BLOB update), which this kit
   refuses with :class:`~reference.errors.UnsupportedFeature`.
3. Row ``i`` of the file is the ``i``-th index entry; its value is the record at the sum of
   the earlier records' lengths, without the 4-byte magic and the 12-byte trailer.
4. The ``.blob`` files of one BLOB column in a row id group form a bunch, taken in order of
   first row id, the newest (largest max sequence number) first among files starting at the
   same row id. A file starting at the same row id as the previous one, or inside the rows
   already covered, must be older and is skipped; a gap between files is invalid. The files
   taken must cover exactly the group's rows; their rows are concatenated.
5. A BLOB column inside a Parquet, ORC or Avro data file holds no bytes but serialized blob
   descriptors or blob views (``blob-descriptor-field``, ``blob-view-field``: Java
   ``BlobDescriptor``, ``BlobViewStruct``) pointing at data elsewhere; this kit does not resolve
   them and refuses such a column with :class:`~reference.errors.UnsupportedFeature`.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from reference.errors import PaimonFormatError, SpecViolation, UnsupportedFeature
from reference.spec import types as t
from reference.spec.data_file import DataFileMeta
from reference.spec.row_tracking import compute_row_id_range, is_blob_file

BLOB_DESCRIPTOR_FIELD_OPTION = "blob-descriptor-field"
BLOB_VIEW_FIELD_OPTION = "blob-view-field"
"""Rule 5: the table options that keep BLOB columns inside the data files."""

MAGIC_NUMBER = 1481511375
"""The first 4 bytes of every record (Java ``BlobFormatWriter.MAGIC_NUMBER``)."""
VERSION = 1
"""The only ``.blob`` file version (Java ``BlobFormatWriter.VERSION``)."""
MAGIC_LENGTH = 4
RECORD_TRAILER_LENGTH = 12
"""The record length (8 bytes) and CRC-32 (4 bytes) after a value."""
FOOTER_LENGTH = 5
"""The index length (4 bytes) and the version (1 byte) closing the file."""
NULL_LENGTH = -1
"""The index entry of a null value (Java ``BlobFormatWriter.NULL_LENGTH``)."""
PLACEHOLDER_LENGTH = -2
"""The index entry of a value kept in an older file (Java ``PLACE_HOLDER_LENGTH``)."""

_MAGIC = struct.Struct("<I")
_TRAILER = struct.Struct("<qI")
_FOOTER = struct.Struct("<iB")
_VARINT_PAYLOAD = 0x7F
_VARINT_CONTINUE = 0x80
_VARINT_BITS = 7
_MAX_VARINT_SHIFT = 63


def is_blob_array(data_type: t.DataType) -> bool:
    """Whether ``data_type`` is ARRAY<BLOB>, the other type a ``.blob`` file may hold."""
    return isinstance(data_type, t.ArrayType) and data_type.element.root is t.TypeRoot.BLOB


def is_blob_file_type(data_type: t.DataType) -> bool:
    """Whether a ``.blob`` file may hold a column of ``data_type`` (rule 1)."""
    return data_type.root is t.TypeRoot.BLOB or is_blob_array(data_type)


def decode_delta_varints(data: bytes) -> list[int]:
    """Java ``DeltaVarintCompressor.decompress``: ZigZag varints, the first the value itself and
    each next one the difference to the value before it."""
    values: list[int] = []
    position = 0
    while position < len(data):
        result = shift = 0
        while True:
            if position >= len(data):
                raise PaimonFormatError("the .blob index ends inside a varint")
            byte = data[position]
            position += 1
            result |= (byte & _VARINT_PAYLOAD) << shift
            if not byte & _VARINT_CONTINUE:
                break
            shift += _VARINT_BITS
            if shift > _MAX_VARINT_SHIFT:
                raise PaimonFormatError("a varint of the .blob index is longer than 64 bits")
        delta = (result >> 1) ^ -(result & 1)
        values.append(delta if not values else values[-1] + delta)
    return values


def decode_blob_index(data: bytes) -> list[int]:
    """Rule 2: the record lengths (one per row) from the footer and index of a whole file."""
    if len(data) < FOOTER_LENGTH:
        raise PaimonFormatError(f"a .blob file of {len(data)} bytes has no footer")
    index_length, version = _FOOTER.unpack_from(data, len(data) - FOOTER_LENGTH)
    if version != VERSION:
        raise PaimonFormatError(f"unsupported .blob file version {version} (expected {VERSION})")
    index_start = len(data) - FOOTER_LENGTH - index_length
    if index_length < 0 or index_start < 0:
        raise PaimonFormatError(f"the .blob index length {index_length} exceeds the file")
    lengths = decode_delta_varints(data[index_start : len(data) - FOOTER_LENGTH])
    records = sum(length for length in lengths if length > 0)
    if records != index_start:
        raise PaimonFormatError(
            f"the .blob index's records take {records} bytes, the file holds {index_start}"
        )
    return lengths


def _decode_record(data: bytes, offset: int, length: int, row: int) -> bytes:
    """Rule 2: one record's value, its magic, length and CRC-32 checked."""
    if length < MAGIC_LENGTH + RECORD_TRAILER_LENGTH:
        raise PaimonFormatError(f"row {row}: a .blob record of {length} bytes is too short")
    (magic,) = _MAGIC.unpack_from(data, offset)
    if magic != MAGIC_NUMBER:
        raise PaimonFormatError(f"row {row}: bad .blob record magic {magic} at byte {offset}")
    end = offset + length - RECORD_TRAILER_LENGTH
    stored_length, stored_crc = _TRAILER.unpack_from(data, end)
    if stored_length != length:
        raise PaimonFormatError(
            f"row {row}: the .blob record says {stored_length} bytes, the index {length}"
        )
    crc = zlib.crc32(data[offset : end + 8])
    if crc != stored_crc:
        raise PaimonFormatError(f"row {row}: .blob record CRC-32 {stored_crc:#x}, data {crc:#x}")
    return data[offset + MAGIC_LENGTH : end]


def decode_blob_file(data: bytes) -> list[bytes | None]:
    """Rules 2-3: the values of a whole ``.blob`` file, one per row (None for a null)."""
    values: list[bytes | None] = []
    offset = 0
    for row, length in enumerate(decode_blob_index(data)):
        if length == NULL_LENGTH:
            values.append(None)
        elif length == PLACEHOLDER_LENGTH:
            raise UnsupportedFeature(
                "BLOB placeholder entries (a partial BLOB update over older .blob files)"
            )
        elif length < 0:
            raise PaimonFormatError(f"row {row}: invalid .blob index length {length}")
        else:
            values.append(_decode_record(data, offset, length, row))
            offset += length
    return values


@dataclass(frozen=True)
class BlobFileSpan:
    """What rule 4 needs of one ``.blob`` file's metadata."""

    name: str
    first_row_id: int
    row_count: int
    max_sequence_number: int


def select_blob_bunch(
    spans: Sequence[BlobFileSpan], first_row_id: int, row_count: int
) -> list[int]:
    """Rule 4: the positions (into ``spans``, the ``.blob`` files of one column in a row id
    group) of the files to read, in row order, covering ``row_count`` rows from
    ``first_row_id``. Java ``DataEvolutionSplitRead.BlobBunch.add``."""
    order = sorted(
        range(len(spans)), key=lambda i: (spans[i].first_row_id, -spans[i].max_sequence_number)
    )
    taken: list[int] = []
    next_row_id = first_row_id
    for index in order:
        span = spans[index]
        if taken and span.first_row_id < next_row_id:
            newest = spans[taken[-1]].max_sequence_number
            if span.max_sequence_number >= newest:
                raise SpecViolation(
                    f"{span.name}: a .blob file over rows already covered is not older "
                    f"(max sequence number {span.max_sequence_number} >= {newest})",
                    code="FILE_META_INVALID",
                )
            continue
        if span.first_row_id != next_row_id:
            raise SpecViolation(
                f"{span.name}: .blob files must continue at row id {next_row_id}, this one "
                f"starts at {span.first_row_id}",
                code="FILE_META_INVALID",
            )
        taken.append(index)
        next_row_id = span.first_row_id + span.row_count
    covered = next_row_id - first_row_id
    if covered != row_count:
        raise SpecViolation(
            f".blob files {[spans[i].name for i in taken]} cover {covered} rows, their data "
            f"files {row_count}",
            code="FILE_META_INVALID",
        )
    return taken


def select_group_blob_files(
    group: Sequence[DataFileMeta], column_file: DataFileMeta
) -> list[DataFileMeta]:
    """Rule 4 over a row id group as ``row_tracking.compute_row_id_groups`` orders it (data
    files first): the ``.blob`` files of ``column_file``'s column, in row order."""
    first_row_id, last_row_id = compute_row_id_range(group[0])
    column = [
        meta
        for meta in group
        if is_blob_file(meta.file_name) and meta.write_cols == column_file.write_cols
    ]
    spans = [
        BlobFileSpan(
            meta.file_name,
            compute_row_id_range(meta)[0],
            meta.row_count,
            meta.max_sequence_number,
        )
        for meta in column
    ]
    positions = select_blob_bunch(spans, first_row_id, last_row_id - first_row_id + 1)
    return [column[i] for i in positions]
