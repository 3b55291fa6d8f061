"""The Avro object container of Paimon's metadata files, and the Avro schema of their rows.

Manifest lists, data manifests and index manifests are Avro object container files unless
``manifest.format`` says otherwise. The container (Avro 1.x spec, "Object Container Files"):

* the magic ``Obj`` followed by version byte 1;
* a metadata map of (string key, bytes value) pairs as Avro blocks: ``avro.schema`` holds the
  writer schema as JSON, ``avro.codec`` the block codec (absent means ``null``);
* a 16-byte sync marker;
* data blocks, each the record count and the byte size of the (compressed) payload as zig-zag
  varints, the payload, and the sync marker again. Java starts a new block once
  :data:`AVRO_SYNC_INTERVAL` uncompressed bytes are buffered.

Codecs: ``deflate`` is raw deflate (no zlib header); ``snappy`` appends the big-endian CRC-32 of
the uncompressed payload; ``zstandard``, ``bzip2`` and ``xz`` are the plain streams.

The writer schema of a metadata row follows Java's ``AvroSchemaConverter``: the top record is
``org.apache.paimon.avro.generated.record``; a nested row is a record named after its parent
and field (``record__FILE``, ``record__FILE__KEY_STATS``) and an array's element row takes the
array field's record name; a nullable type is the union ``["null", T]`` with a null default;
TIMESTAMP(3) is a ``long`` with logical type ``timestamp-millis``.

Java: ``org.apache.paimon.format.avro.AvroSchemaConverter``, ``org.apache.avro.file.
DataFileWriter`` / ``DataFileStream`` (used by Paimon's Avro bulk writer and reader).
"""

from __future__ import annotations

import bz2
import hashlib
import io
import json
import lzma
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cramjam
import fastavro

try:  # Python 3.14 ships Zstandard; before it, the backport (the one fastavro also uses)
    from compression import zstd  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover - which branch runs depends on the Python version
    from backports import zstd  # type: ignore[no-redef, unused-ignore]

from reference.errors import PaimonFormatError, UnsupportedFeature
from reference.spec.format_framing import AVRO_MAGIC
from reference.spec.stats import RowDict
from reference.spec.types import (
    ArrayType,
    BigIntType,
    BooleanType,
    DataType,
    DoubleType,
    FloatType,
    IntType,
    RowType,
    SmallIntType,
    TimestampType,
    TinyIntType,
    VarBinaryType,
    VarCharType,
)

AVRO_NAMESPACE = "org.apache.paimon.avro.generated"
AVRO_TOP_RECORD_NAME = "record"
AVRO_SYNC_SIZE = 16
AVRO_SYNC_INTERVAL = 64_000
"""Uncompressed bytes after which a block is written (Java ``DEFAULT_SYNC_INTERVAL``)."""
AVRO_SCHEMA_KEY = "avro.schema"
AVRO_CODEC_KEY = "avro.codec"
AVRO_MAX_VARINT_BYTES = 10
TIMESTAMP_MILLIS_PRECISION = 3

AVRO_CODECS = frozenset({"null", "deflate", "snappy", "zstandard", "bzip2", "xz"})
_DEFLATE_DEFAULT_LEVEL = -1
_RAW_DEFLATE_WINDOW_BITS = -15
_SNAPPY_CRC_SIZE = 4


def _avro_type(data_type: DataType, record_name: str) -> Any:
    """The Avro schema of ``data_type`` as Java's ``AvroSchemaConverter`` writes it."""
    body: Any
    if isinstance(data_type, RowType):
        fields = []
        for data_field in data_type.fields:
            entry: dict[str, Any] = {
                "name": data_field.name,
                "type": _avro_type(data_field.type, f"{record_name}_{data_field.name}"),
            }
            if data_field.type.nullable:
                entry["default"] = None
            fields.append(entry)
        body = {"type": "record", "name": record_name, "fields": fields}
    elif isinstance(data_type, ArrayType):
        body = {"type": "array", "items": _avro_type(data_type.element, record_name)}
    elif isinstance(data_type, (TinyIntType, SmallIntType, IntType)):
        body = "int"
    elif isinstance(data_type, BigIntType):
        body = "long"
    elif isinstance(data_type, BooleanType):
        body = "boolean"
    elif isinstance(data_type, FloatType):
        body = "float"
    elif isinstance(data_type, DoubleType):
        body = "double"
    elif isinstance(data_type, VarCharType):
        body = "string"
    elif isinstance(data_type, VarBinaryType):
        body = "bytes"
    elif isinstance(data_type, TimestampType) and data_type.precision <= TIMESTAMP_MILLIS_PRECISION:
        body = {"type": "long", "logicalType": "timestamp-millis"}
    else:
        raise UnsupportedFeature(f"no manifest Avro mapping for {data_type}")
    return ["null", body] if data_type.nullable else body


def compute_avro_schema(row_type: RowType) -> dict[str, Any]:
    """The writer schema of a manifest file, as a JSON object in Java's member order."""
    schema = _avro_type(row_type.copy(False), AVRO_TOP_RECORD_NAME)
    return {
        "type": "record",
        "name": AVRO_TOP_RECORD_NAME,
        "namespace": AVRO_NAMESPACE,
        "fields": schema["fields"],
    }


def compute_avro_schema_json(row_type: RowType) -> str:
    """The ``avro.schema`` text Java writes: compact JSON, members in Avro's order."""
    return json.dumps(compute_avro_schema(row_type), separators=(",", ":"))


def encode_avro_long(value: int) -> bytes:
    """Avro's zig-zag variable-length encoding of a long."""
    unsigned = (value << 1) ^ (value >> 63)
    out = bytearray()
    while unsigned > 0x7F:
        out.append((unsigned & 0x7F) | 0x80)
        unsigned >>= 7
    out.append(unsigned)
    return bytes(out)


def decode_avro_long(data: bytes, position: int) -> tuple[int, int]:
    """Read one zig-zag varint long at ``position``; returns (value, next position)."""
    unsigned = 0
    for index in range(AVRO_MAX_VARINT_BYTES):
        if position + index >= len(data):
            raise PaimonFormatError(f"Avro: truncated varint at byte {position}")
        byte = data[position + index]
        unsigned |= (byte & 0x7F) << (7 * index)
        if not byte & 0x80:
            return (unsigned >> 1) ^ -(unsigned & 1), position + index + 1
    raise PaimonFormatError(f"Avro: varint longer than {AVRO_MAX_VARINT_BYTES} bytes")


def _decode_avro_bytes(data: bytes, position: int, what: str) -> tuple[bytes, int]:
    length, position = decode_avro_long(data, position)
    if length < 0 or position + length > len(data):
        raise PaimonFormatError(f"Avro: {what} of length {length} runs past the end")
    return data[position : position + length], position + length


def compute_avro_codec(compression: str) -> str:
    """The Avro codec Java uses for a ``manifest.compression`` value.

    ``zstd`` becomes ``zstandard``; any other value is taken as an Avro codec name (Java main
    ``CodecFactory.fromString``; Java 0.9 used ``snappy`` for every non-zstd value). ``none``
    is accepted as ``null``.
    """
    name = compression.strip().lower()
    codec = {"zstd": "zstandard", "none": "null", "": "null"}.get(name, name)
    if codec not in AVRO_CODECS:
        raise UnsupportedFeature(f"no Avro codec for manifest compression {compression!r}")
    return codec


def _avro_compress(codec: str, data: bytes, zstd_level: int) -> bytes:
    if codec == "null":
        return data
    if codec == "deflate":
        compressor = zlib.compressobj(
            _DEFLATE_DEFAULT_LEVEL, zlib.DEFLATED, _RAW_DEFLATE_WINDOW_BITS
        )
        return compressor.compress(data) + compressor.flush()
    if codec == "zstandard":
        # Java streams the block through a ZstdOutputStream: no content size in the frame.
        stream = zstd.ZstdCompressor(level=zstd_level)
        return bytes(stream.compress(data) + stream.flush())
    if codec == "snappy":
        crc = zlib.crc32(data).to_bytes(_SNAPPY_CRC_SIZE, "big")
        return bytes(cramjam.snappy.compress_raw(data)) + crc
    if codec == "bzip2":
        return bz2.compress(data)
    if codec == "xz":
        return lzma.compress(data, format=lzma.FORMAT_XZ)
    raise UnsupportedFeature(f"unsupported Avro codec {codec!r}")


def _avro_decompress(codec: str, data: bytes) -> bytes:
    if codec == "null":
        return data
    if codec == "deflate":
        return zlib.decompress(data, _RAW_DEFLATE_WINDOW_BITS)
    if codec == "zstandard":
        return bytes(zstd.decompress(data))
    if codec == "snappy":
        payload, crc = data[:-_SNAPPY_CRC_SIZE], data[-_SNAPPY_CRC_SIZE:]
        raw = bytes(cramjam.snappy.decompress_raw(payload))
        if zlib.crc32(raw).to_bytes(_SNAPPY_CRC_SIZE, "big") != crc:
            raise PaimonFormatError("Avro: snappy block checksum mismatch")
        return raw
    if codec == "bzip2":
        return bz2.decompress(data)
    if codec == "xz":
        return lzma.decompress(data)
    raise UnsupportedFeature(f"unsupported Avro codec {codec!r}")


def _encode_avro_metadata(metadata: Sequence[tuple[str, bytes]]) -> bytes:
    out = encode_avro_long(len(metadata))
    for key, value in metadata:
        raw_key = key.encode("utf-8")
        out += encode_avro_long(len(raw_key)) + raw_key + encode_avro_long(len(value)) + value
    return out + encode_avro_long(0)


def _split_avro_blocks(datums: Sequence[bytes]) -> list[tuple[int, bytes]]:
    """Group encoded records into blocks the way Java's ``DataFileWriter`` does."""
    blocks: list[tuple[int, bytes]] = []
    buffer = bytearray()
    count = 0
    for datum in datums:
        buffer += datum
        count += 1
        if len(buffer) >= AVRO_SYNC_INTERVAL:
            blocks.append((count, bytes(buffer)))
            buffer, count = bytearray(), 0
    if count:
        blocks.append((count, bytes(buffer)))
    return blocks


def encode_avro_container(
    rows: Sequence[RowDict],
    schema_json: str,
    codec: str,
    *,
    zstd_level: int,
    sync_marker: bytes | None = None,
) -> bytes:
    """An Avro object container file of ``rows`` (Avro 1.x spec, "Object Container Files").

    The header metadata is ``avro.schema`` then ``avro.codec`` (the order Java's files have).
    Without ``sync_marker`` a deterministic one is derived from the content (Java picks a
    random one), so the function is pure.
    """
    if sync_marker is not None and len(sync_marker) != AVRO_SYNC_SIZE:
        raise ValueError(f"an Avro sync marker has {AVRO_SYNC_SIZE} bytes")
    parsed = fastavro.parse_schema(json.loads(schema_json))
    datums = []
    for row in rows:
        buffer = io.BytesIO()
        fastavro.schemaless_writer(buffer, parsed, row)
        datums.append(buffer.getvalue())
    if sync_marker is None:
        digest = hashlib.blake2b(digest_size=AVRO_SYNC_SIZE)
        digest.update(schema_json.encode("utf-8"))
        for datum in datums:
            digest.update(datum)
        sync_marker = digest.digest()
    metadata = [(AVRO_SCHEMA_KEY, schema_json.encode("utf-8")), (AVRO_CODEC_KEY, codec.encode())]
    out = bytearray(AVRO_MAGIC + _encode_avro_metadata(metadata) + sync_marker)
    for count, block in _split_avro_blocks(datums):
        payload = _avro_compress(codec, block, zstd_level)
        out += encode_avro_long(count) + encode_avro_long(len(payload)) + payload + sync_marker
    return bytes(out)


@dataclass(frozen=True)
class AvroHeader:
    """The header of an Avro object container file."""

    metadata: dict[str, bytes]
    sync_marker: bytes
    body_offset: int

    @property
    def schema_json(self) -> str:
        return self.metadata[AVRO_SCHEMA_KEY].decode("utf-8")

    @property
    def codec(self) -> str:
        return self.metadata.get(AVRO_CODEC_KEY, b"null").decode("utf-8", errors="replace")


def decode_avro_header(data: bytes) -> AvroHeader:
    """Read magic, metadata map and sync marker; checks each and says what is wrong."""
    if data[: len(AVRO_MAGIC)] != AVRO_MAGIC:
        raise PaimonFormatError(f"not an Avro file (magic {data[:4]!r}, expected {AVRO_MAGIC!r})")
    position = len(AVRO_MAGIC)
    metadata: dict[str, bytes] = {}
    while True:
        count, position = decode_avro_long(data, position)
        if count == 0:
            break
        if count < 0:
            _, position = decode_avro_long(data, position)
            count = -count
        for _ in range(count):
            key, position = _decode_avro_bytes(data, position, "metadata key")
            value, position = _decode_avro_bytes(data, position, "metadata value")
            metadata[key.decode("utf-8", errors="replace")] = value
    if AVRO_SCHEMA_KEY not in metadata:
        raise PaimonFormatError("Avro: header has no avro.schema")
    if position + AVRO_SYNC_SIZE > len(data):
        raise PaimonFormatError("Avro: truncated header (no sync marker)")
    sync_marker = data[position : position + AVRO_SYNC_SIZE]
    return AvroHeader(metadata, sync_marker, position + AVRO_SYNC_SIZE)


def decode_avro_container(data: bytes) -> tuple[AvroHeader, list[Any]]:
    """The header and the records (fastavro values) of an Avro object container file."""
    header = decode_avro_header(data)
    try:
        schema = fastavro.parse_schema(json.loads(header.schema_json))
    except Exception as error:
        raise PaimonFormatError(f"Avro: unreadable writer schema ({error})") from None
    records: list[Any] = []
    position = header.body_offset
    while position < len(data):
        count, position = decode_avro_long(data, position)
        payload, position = _decode_avro_bytes(data, position, "block")
        if data[position : position + AVRO_SYNC_SIZE] != header.sync_marker:
            raise PaimonFormatError(f"Avro: sync marker mismatch after block at byte {position}")
        position += AVRO_SYNC_SIZE
        records.extend(_decode_avro_block(header.codec, payload, count, schema))
    return header, records


def _decode_avro_block(codec: str, payload: bytes, count: int, schema: Any) -> list[Any]:
    if codec not in AVRO_CODECS:
        raise PaimonFormatError(f"Avro: unknown codec {codec!r}")
    if count < 0:
        raise PaimonFormatError(f"Avro: negative record count {count}")
    try:
        raw = io.BytesIO(_avro_decompress(codec, payload))
        records = [fastavro.schemaless_reader(raw, schema, None) for _ in range(count)]
    except (PaimonFormatError, UnsupportedFeature):
        raise
    except Exception as error:
        raise PaimonFormatError(
            f"Avro: undecodable block ({type(error).__name__}: {error})"
        ) from None
    if raw.read(1):
        raise PaimonFormatError("Avro: block has bytes after its last record")
    return records


def compute_avro_field_paths(schema: Any, prefix: str = "") -> set[str]:
    """Dotted names of all record fields inside a parsed-JSON Avro schema."""
    if isinstance(schema, list):
        return set().union(*(compute_avro_field_paths(branch, prefix) for branch in schema))
    if not isinstance(schema, Mapping):
        return set()
    if schema.get("type") == "array":
        return compute_avro_field_paths(schema.get("items"), prefix)
    paths: set[str] = set()
    for member in schema.get("fields", []) if schema.get("type") == "record" else []:
        name = prefix + str(member.get("name"))
        paths |= {name} | compute_avro_field_paths(member.get("type"), name + ".")
    return paths
