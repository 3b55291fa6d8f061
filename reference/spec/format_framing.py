"""The framing of Parquet, ORC and Avro files: magic bytes and the tail that locates the footer.

Paimon keeps data files and (per ``manifest.format``) manifest files in these three container
formats; a full decoder (pyarrow, fastavro) only runs after the framing is known to be sound,
so that a truncated or mislabelled file fails with a reason instead of an error deep inside a
third-party decoder. The rules checked here are the formats' own:

* Parquet: ``PAR1`` at the start and at the end; the 4 bytes before the trailing magic are the
  footer length (little-endian), and the footer must fit between the leading magic and the
  length. ``PARE`` at the end marks an encrypted footer.
* ORC: ``ORC`` at the start; the last byte is the length of the postscript that precedes it.
  The postscript is a small uncompressed protobuf message: field 1 is the footer length, field
  5 the metadata length, and field 8000 holds the ``ORC`` magic (always its last field). The
  postscript, footer and metadata must fit after the leading magic.
* Avro: an object container starts with ``Obj`` and the version byte 1.

Java: ``org.apache.parquet.hadoop.ParquetFileReader`` (footer), ``org.apache.orc.impl.
ReaderImpl`` (postscript), ``org.apache.avro.file.DataFileConstants`` (magic).
"""

from __future__ import annotations

from reference.errors import PaimonFormatError, UnsupportedFeature

PARQUET_MAGIC = b"PAR1"
PARQUET_ENCRYPTED_MAGIC = b"PARE"
PARQUET_FOOTER_LENGTH_SIZE = 4
PARQUET_TAIL_LENGTH = PARQUET_FOOTER_LENGTH_SIZE + len(PARQUET_MAGIC)
"""The footer length and the trailing magic."""
PARQUET_MIN_SIZE = len(PARQUET_MAGIC) + PARQUET_TAIL_LENGTH
PARQUET_FIELD_ID_KEY = b"PARQUET:field_id"
"""The Arrow field metadata key that pyarrow reads and writes as a Parquet field id."""

ORC_MAGIC = b"ORC"
ORC_MIN_SIZE = len(ORC_MAGIC) + 1
"""The leading magic and the final postscript-length byte."""
ORC_MAX_TAIL = 256
"""The postscript length is one byte, so the postscript and that byte fit in 256 bytes."""
ORC_POSTSCRIPT_FOOTER_LENGTH_FIELD = 1
ORC_POSTSCRIPT_METADATA_LENGTH_FIELD = 5
ORC_POSTSCRIPT_MAGIC_FIELD = 8000
ORC_POSTSCRIPT_MAGIC_SUFFIX = b"\x82\xf4\x03\x03ORC"
"""Field 8000, length-delimited (key varint ``82 f4 03``), of length 3 holding ``ORC``."""

AVRO_MAGIC = b"Obj\x01"

MAGIC_PROBE_LENGTH = 4
"""Bytes read from the start of a file to recognise its format."""

PROTOBUF_VARINT = 0
PROTOBUF_LENGTH_DELIMITED = 2
PROTOBUF_MAX_VARINT_SHIFT = 63
_WIRE_TYPE_MASK = 0x7
_FIELD_NUMBER_SHIFT = 3
_VARINT_PAYLOAD_MASK = 0x7F
_VARINT_CONTINUATION = 0x80


# --------------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------------


def check_parquet_framing(head: bytes, tail: bytes, size: int) -> None:
    """Raise unless ``head``/``tail`` (the first 4 and the last :data:`PARQUET_TAIL_LENGTH`
    bytes of a ``size``-byte file) frame a Parquet file whose footer fits."""
    if size < PARQUET_MIN_SIZE:
        raise PaimonFormatError(f"parquet file truncated: {size} bytes")
    if head[: len(PARQUET_MAGIC)] != PARQUET_MAGIC:
        raise PaimonFormatError(f"bad parquet magic {head[: len(PARQUET_MAGIC)]!r}")
    trailer = tail[-len(PARQUET_MAGIC) :]
    if trailer == PARQUET_ENCRYPTED_MAGIC:
        raise UnsupportedFeature("encrypted parquet footers are not supported")
    if trailer != PARQUET_MAGIC:
        raise PaimonFormatError(f"parquet file truncated: no trailing magic (ends {trailer!r})")
    footer_length = int.from_bytes(tail[-PARQUET_TAIL_LENGTH : -len(PARQUET_MAGIC)], "little")
    if footer_length > size - PARQUET_MIN_SIZE:
        raise PaimonFormatError(f"parquet footer length {footer_length} exceeds the file")


# --------------------------------------------------------------------------------------------
# ORC
# --------------------------------------------------------------------------------------------


def decode_protobuf_varint(data: bytes, position: int) -> tuple[int, int]:
    """A protobuf base-128 varint at ``position``: (value, position after it)."""
    value = shift = 0
    while True:
        if position >= len(data) or shift > PROTOBUF_MAX_VARINT_SHIFT:
            raise PaimonFormatError("orc postscript: truncated varint")
        byte = data[position]
        value |= (byte & _VARINT_PAYLOAD_MASK) << shift
        position += 1
        shift += 7
        if not byte & _VARINT_CONTINUATION:
            return value, position


def decode_orc_postscript_lengths(postscript: bytes) -> tuple[int, int]:
    """``(footer length, metadata length)`` of an ORC postscript. Only varint and
    length-delimited fields occur in a postscript."""
    if not postscript.endswith(ORC_POSTSCRIPT_MAGIC_SUFFIX):
        raise PaimonFormatError("orc postscript does not end with the ORC magic")
    lengths = {ORC_POSTSCRIPT_FOOTER_LENGTH_FIELD: 0, ORC_POSTSCRIPT_METADATA_LENGTH_FIELD: 0}
    position = 0
    while position < len(postscript):
        key, position = decode_protobuf_varint(postscript, position)
        field_number, wire_type = key >> _FIELD_NUMBER_SHIFT, key & _WIRE_TYPE_MASK
        value, position = decode_protobuf_varint(postscript, position)
        if wire_type == PROTOBUF_LENGTH_DELIMITED:
            position += value
        elif wire_type != PROTOBUF_VARINT:
            raise PaimonFormatError(f"orc postscript: unexpected wire type {wire_type}")
        if field_number in lengths and wire_type == PROTOBUF_VARINT:
            lengths[field_number] = value
    if position != len(postscript):
        raise PaimonFormatError("orc postscript: a field runs past its end")
    return (
        lengths[ORC_POSTSCRIPT_FOOTER_LENGTH_FIELD],
        lengths[ORC_POSTSCRIPT_METADATA_LENGTH_FIELD],
    )


def check_orc_framing(head: bytes, tail: bytes, size: int) -> None:
    """Raise unless ``head`` and ``tail`` (the last up to :data:`ORC_MAX_TAIL` bytes of a
    ``size``-byte file) frame an ORC file whose postscript, footer and metadata fit."""
    if size < ORC_MIN_SIZE:
        raise PaimonFormatError(f"orc file truncated: {size} bytes")
    if head[: len(ORC_MAGIC)] != ORC_MAGIC:
        raise PaimonFormatError(f"bad orc magic {head[: len(ORC_MAGIC)]!r}")
    postscript_length = tail[-1]
    if postscript_length == 0 or postscript_length + 1 > min(size, len(tail)):
        raise PaimonFormatError(f"orc postscript length {postscript_length} does not fit")
    postscript = tail[-1 - postscript_length : -1]
    footer_length, metadata_length = decode_orc_postscript_lengths(postscript)
    needed = len(ORC_MAGIC) + metadata_length + footer_length + postscript_length + 1
    if needed > size:
        raise PaimonFormatError(f"orc file truncated: its tail needs {needed} of {size} bytes")


# --------------------------------------------------------------------------------------------
# Avro
# --------------------------------------------------------------------------------------------


def check_avro_framing(head: bytes) -> None:
    """Raise unless ``head`` starts with the Avro object container magic."""
    if head[: len(AVRO_MAGIC)] != AVRO_MAGIC:
        raise PaimonFormatError(f"bad avro magic {head[: len(AVRO_MAGIC)]!r}")
