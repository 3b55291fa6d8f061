"""Data files: their metadata record, their names and directories, and their column layouts.

Spec: ``docs/concepts/spec/datafile.md`` (partitions, buckets, data and changelog files, the
primary-key file columns, thin mode) and ``manifest.md`` (the data file meta fields).
Java: ``org.apache.paimon.io.DataFileMeta``, ``org.apache.paimon.manifest.FileSource``,
``org.apache.paimon.utils.FileStorePathFactory``, ``org.apache.paimon.io.DataFilePathFactory``,
``org.apache.paimon.utils.PartitionPathUtils``, ``org.apache.paimon.fs.*ExternalPathProvider``,
``org.apache.paimon.KeyValue``, ``org.apache.paimon.table.SpecialFields``,
``org.apache.paimon.table.PrimaryKeyTableUtils``.

This module is names and records only: ``reference.layout`` joins the pieces into paths and
``reference.spec.manifest`` holds the on-disk schema of :class:`DataFileMeta`.

Facts worth knowing:

* A data file is named ``<prefix><uuid>-<n><extension>``: the prefix is ``data-`` (option
  ``data-file.prefix``) or ``changelog-`` (``changelog-file.prefix``), ``uuid`` is one random
  UUID per writer and ``n`` counts that writer's files from 0. The extension is ``.<format>``;
  with ``file.suffix.include.compression`` it is ``.<compression extension>.<format>``, and the
  text formats (csv, json) always put the compression last: ``.json.gz``.
* Meta files are ``manifest-<uuid>-<n>``, ``manifest-list-<uuid>-<n>``,
  ``index-manifest-<uuid>-<n>`` (all in ``manifest/``), ``index-<uuid>-<n>`` (in ``index/``) and
  ``stat-<uuid>-<n>`` (in ``statistics/``). A data file's own file-index file is its name plus
  ``.index``.
* Data lives in ``[<data-file.path-directory>/][<k1>=<v1>/<k2>=<v2>/]bucket-<n>/``; the postpone
  bucket (-2) is ``bucket-postpone``. A null or blank partition value is written as
  ``partition.default-name`` (``__DEFAULT_PARTITION__``), and names and values are escaped with
  ``%XX`` for control characters and ``"#%'*/:=?\\{}[]^`` and DEL.
* A primary-key data file holds ``_KEY_<k>`` for each trimmed primary key (partition keys
  removed), then ``_SEQUENCE_NUMBER BIGINT NOT NULL``, then ``_VALUE_KIND TINYINT NOT NULL``,
  then every table column. The spec page lists ``_VALUE_KIND`` before ``_SEQUENCE_NUMBER``,
  but every Java version writes ``_SEQUENCE_NUMBER`` first (``KeyValue.createKeyValueFields``,
  and the Java-written files agree); we follow the files. With ``data-file.thin-mode`` the
  ``_KEY_`` columns are left out (the key is read back from the value columns).
* Field ids (written into Parquet and ORC files since Paimon 1.0; 0.9 wrote none): a ``_KEY_``
  field has the id of its column plus ``KEY_FIELD_ID_START`` (``Integer.MAX_VALUE / 2``),
  ``_SEQUENCE_NUMBER`` has ``Integer.MAX_VALUE - 1`` and ``_VALUE_KIND`` ``Integer.MAX_VALUE - 2``.
  An append table's file has exactly the table columns.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum

from reference.errors import PaimonFormatError
from reference.spec.data import Timestamp
from reference.spec.java_numbers import INT_MAX as JAVA_INT_MAX
from reference.spec.stats import SimpleStats
from reference.spec.types import BigIntType, DataField, TinyIntType

# --------------------------------------------------------------------------------------------
# The data file meta record
# --------------------------------------------------------------------------------------------


class FileSource(Enum):
    """Why a data file was written (Java ``FileSource``): stored as a TINYINT."""

    APPEND = 0
    COMPACT = 1


@dataclass(frozen=True)
class DataFileMeta:
    """The metadata of one data or changelog file, as a manifest entry stores it.

    ``min_key``/``max_key`` and the stats rows are serialized BinaryRows kept as bytes (see
    ``reference.spec.stats``). ``creation_time`` is a local wall-clock time at millisecond
    precision (Java ``TIMESTAMP(3)``, taken from ``LocalDateTime.now()``). The fields after
    ``file_source`` appeared in later Paimon versions and are ``None`` when a file does not
    carry them; ``write_cols_sequences`` is the ``_WRITE_COLS_SEQUENCES`` column (Java calls it
    ``columnMaxSequenceNumbers``).
    """

    file_name: str
    file_size: int
    row_count: int
    min_key: bytes
    max_key: bytes
    key_stats: SimpleStats
    value_stats: SimpleStats
    min_sequence_number: int
    max_sequence_number: int
    schema_id: int
    level: int
    extra_files: tuple[str, ...]
    creation_time: Timestamp | None
    delete_row_count: int | None = None
    embedded_index: bytes | None = None
    file_source: FileSource | None = None
    value_stats_cols: tuple[str, ...] | None = None
    external_path: str | None = None
    first_row_id: int | None = None
    write_cols: tuple[str, ...] | None = None
    write_cols_sequences: tuple[int, ...] | None = None


def compute_add_row_count(meta: DataFileMeta) -> int | None:
    """Rows that add (``+I``/``+U``): ``row_count - delete_row_count``; None when unknown."""
    if meta.delete_row_count is None:
        return None
    return meta.row_count - meta.delete_row_count


def compute_upgraded_file(meta: DataFileMeta, level: int) -> DataFileMeta:
    """The same file moved to another LSM level (Java ``DataFileMeta.upgrade``)."""
    return replace(meta, level=level)


# --------------------------------------------------------------------------------------------
# Data file names
# --------------------------------------------------------------------------------------------

DATA_FILE_PREFIX = "data-"
CHANGELOG_FILE_PREFIX = "changelog-"
FILE_INDEX_SUFFIX = ".index"
"""Appended to a data file's name to name its file-index file."""

TEXT_FORMATS = frozenset({"csv", "json"})
"""Formats whose compression extension goes after the format extension."""

COMPRESSION_EXTENSIONS = {
    "none": None,
    "gzip": "gz",
    "bzip2": "bz2",
    "deflate": "deflate",
    "snappy": "snappy",
    "lz4": "lz4",
    "zstd": "zst",
}
"""File extension of each Hadoop compression name (Java ``HadoopCompressionType``)."""

_UUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_DATA_FILE_NAME = re.compile(
    rf"^(?P<prefix>.*?)(?P<uuid>{_UUID_PATTERN})-(?P<count>\d+)\.(?P<extension>[^/]+)$"
)


@dataclass(frozen=True)
class DataFileName:
    """The parts of a data or changelog file name.

    ``extension`` is everything after the counter without the leading dot (``"parquet"``,
    ``"zst.parquet"``, ``"json.gz"``); ``file_format`` is the format identifier in it.
    """

    prefix: str
    uuid: str
    count: int
    extension: str
    file_format: str


def compute_compression_extension(compression: str | None) -> str | None:
    """The extension a compression adds to file names (None for no compression).

    A name Java's ``HadoopCompressionType`` does not know is used as its own extension.
    """
    if compression is None or compression == "":
        return None
    return COMPRESSION_EXTENSIONS.get(compression.lower(), compression)


def compute_data_file_extension(
    file_format: str, compression: str | None = None, *, suffix_include_compression: bool = False
) -> str:
    """The extension (with its leading dot) of a new data file.

    Java: ``DataFilePathFactory.makeExtension``.
    """
    compression_extension = compute_compression_extension(compression)
    if compression_extension is not None and file_format.lower() in TEXT_FORMATS:
        return f".{file_format}.{compression_extension}"
    if compression_extension is not None and suffix_include_compression:
        return f".{compression_extension}.{file_format}"
    return f".{file_format}"


def compute_data_file_name(prefix: str, uuid: str, count: int, extension: str) -> str:
    """``<prefix><uuid>-<count><extension>``; ``extension`` includes its leading dot."""
    return f"{prefix}{uuid}-{count}{extension}"


def compute_format_identifier(file_name: str) -> str:
    """The file format a data file name says (Java ``DataFilePathFactory.formatIdentifier``).

    It is the last extension, or the one before it when the last is a compression extension.
    """
    head, dot, last = file_name.rpartition(".")
    if not dot:
        raise PaimonFormatError(f"{file_name!r} has no file extension")
    if last in COMPRESSION_EXTENSIONS.values():
        _, dot, before = head.rpartition(".")
        if not dot:
            raise PaimonFormatError(f"{file_name!r} has no format before its compression")
        return before
    return last


def parse_data_file_name(name: str) -> DataFileName:
    """Split a data or changelog file name into its parts.

    The prefix is whatever precedes the UUID, so custom ``data-file.prefix`` values parse too.
    Raises :class:`PaimonFormatError` for anything else, including file-index files.
    """
    if is_file_index_file_name(name):
        raise PaimonFormatError(f"{name!r} is a file-index file, not a data file")
    match = _DATA_FILE_NAME.match(name)
    if match is None:
        raise PaimonFormatError(f"{name!r} is not a data file name (<prefix><uuid>-<n>.<ext>)")
    return DataFileName(
        prefix=match["prefix"],
        uuid=match["uuid"],
        count=int(match["count"]),
        extension=match["extension"],
        file_format=compute_format_identifier(name),
    )


def is_changelog_file_name(name: str, changelog_prefix: str = CHANGELOG_FILE_PREFIX) -> bool:
    return name.startswith(changelog_prefix)


def compute_file_index_file_name(data_file_name: str) -> str:
    """The name of the file-index file written beside a data file."""
    return data_file_name + FILE_INDEX_SUFFIX


def is_file_index_file_name(name: str) -> bool:
    return name.endswith(FILE_INDEX_SUFFIX)


# --------------------------------------------------------------------------------------------
# Meta file names (manifest/, index/, statistics/)
# --------------------------------------------------------------------------------------------


class MetaFileKind(Enum):
    """The kinds of ``<prefix><uuid>-<n>`` files outside the bucket directories."""

    MANIFEST = "manifest-"
    MANIFEST_LIST = "manifest-list-"
    INDEX_MANIFEST = "index-manifest-"
    INDEX = "index-"
    STATISTICS = "stat-"

    @property
    def prefix(self) -> str:
        return self.value


MANIFEST_DIR = "manifest"
INDEX_DIR = "index"
STATISTICS_DIR = "statistics"

META_FILE_DIRS = {
    MetaFileKind.MANIFEST: MANIFEST_DIR,
    MetaFileKind.MANIFEST_LIST: MANIFEST_DIR,
    MetaFileKind.INDEX_MANIFEST: MANIFEST_DIR,
    MetaFileKind.INDEX: INDEX_DIR,
    MetaFileKind.STATISTICS: STATISTICS_DIR,
}
"""The directory under the table root that holds each kind of meta file."""

_META_FILE_NAME = re.compile(rf"^(?P<uuid>{_UUID_PATTERN})-(?P<count>\d+)$")


@dataclass(frozen=True)
class MetaFileName:
    kind: MetaFileKind
    uuid: str
    count: int


def compute_meta_file_name(kind: MetaFileKind, uuid: str, count: int) -> str:
    """``<prefix><uuid>-<count>`` (Java ``FileStorePathFactory.newManifestFile`` and friends)."""
    return f"{kind.prefix}{uuid}-{count}"


def parse_meta_file_name(name: str) -> MetaFileName:
    """Split a manifest, manifest-list, index-manifest, index or statistics file name.

    Longer prefixes are tried first: ``manifest-list-`` before ``manifest-``, and
    ``index-manifest-`` before ``index-``.
    """
    for kind in sorted(MetaFileKind, key=lambda k: -len(k.prefix)):
        if name.startswith(kind.prefix):
            match = _META_FILE_NAME.match(name[len(kind.prefix) :])
            if match is not None:
                return MetaFileName(kind, match["uuid"], int(match["count"]))
    raise PaimonFormatError(f"{name!r} is not a meta file name (<prefix><uuid>-<n>)")


# --------------------------------------------------------------------------------------------
# Bucket and partition directories
# --------------------------------------------------------------------------------------------

BUCKET_DIR_PREFIX = "bucket-"
POSTPONE_BUCKET = -2
"""The bucket id of ``bucket = -2`` tables, whose files wait for a later compaction."""
POSTPONE_BUCKET_NAME = "postpone"
DEFAULT_PARTITION_NAME = "__DEFAULT_PARTITION__"
"""Default of ``partition.default-name``: the directory value of a null or blank partition."""

_PATH_CHARS_TO_ESCAPE = frozenset(chr(c) for c in range(0x20)) | frozenset("\"#%'*/:=?\\\x7f{}[]^")
"""Characters ``PartitionPathUtils.escapePathName`` writes as ``%XX``."""

_JAVA_NON_WHITESPACE_SPACES = frozenset("\u00a0\u2007\u202f")
_JAVA_WHITESPACE_CONTROLS = frozenset("\t\n\u000b\f\r\u001c\u001d\u001e\u001f")


def compute_bucket_dir_name(bucket: int) -> str:
    """``bucket-<n>``, or ``bucket-postpone`` for the postpone bucket."""
    name = POSTPONE_BUCKET_NAME if bucket == POSTPONE_BUCKET else str(bucket)
    return BUCKET_DIR_PREFIX + name


def parse_bucket_dir_name(name: str) -> int:
    """The bucket id of a ``bucket-<n>`` directory name."""
    if not name.startswith(BUCKET_DIR_PREFIX):
        raise PaimonFormatError(f"{name!r} is not a bucket directory name")
    text = name[len(BUCKET_DIR_PREFIX) :]
    if text == POSTPONE_BUCKET_NAME:
        return POSTPONE_BUCKET
    if re.fullmatch(r"-?\d+", text) is None:
        raise PaimonFormatError(f"{name!r} is not a bucket directory name")
    return int(text)


def escape_path_name(text: str) -> str:
    """Escape one partition name or value for a path (``%XX``, upper-case hex)."""
    if text == "":
        raise ValueError("a partition path component cannot be empty")
    return "".join(f"%{ord(c):02X}" if c in _PATH_CHARS_TO_ESCAPE else c for c in text)


def unescape_path_name(text: str) -> str:
    """Undo :func:`escape_path_name`; a ``%`` not followed by two hex digits stays as is."""
    out: list[str] = []
    position = 0
    while position < len(text):
        code = text[position + 1 : position + 3]
        if text[position] == "%" and len(code) == 2 and re.fullmatch("[0-9a-fA-F]{2}", code):
            out.append(chr(int(code, 16)))
            position += 3
        else:
            out.append(text[position])
            position += 1
    return "".join(out)


def is_java_blank(text: str | None) -> bool:
    """Java ``StringUtils.isNullOrWhitespaceOnly``: None, empty, or only Java whitespace."""
    return text is None or all(_is_java_whitespace(c) for c in text)


def _is_java_whitespace(char: str) -> bool:
    """Java ``Character.isWhitespace`` (no-break spaces are not whitespace there)."""
    if char in _JAVA_WHITESPACE_CONTROLS:
        return True
    is_separator = unicodedata.category(char) in ("Zs", "Zl", "Zp")
    return is_separator and char not in _JAVA_NON_WHITESPACE_SPACES


def compute_partition_path(
    spec: Sequence[tuple[str, str | None]], default_name: str = DEFAULT_PARTITION_NAME
) -> str:
    """``k1=v1/k2=v2`` for partition values already rendered as strings, in key order.

    A None or blank value becomes ``default_name``. Returns ``""`` for an unpartitioned
    table. (Rendering typed values as strings is the caller's job: with
    ``partition.legacy-name`` Java uses the internal value's ``toString``, else a cast to
    STRING.) Java: ``InternalRowPartitionComputer.generatePartValues`` and
    ``PartitionPathUtils.generatePartitionPath``.
    """
    segments = []
    for key, value in spec:
        shown = default_name if is_java_blank(value) else value
        assert shown is not None
        segments.append(f"{escape_path_name(key)}={escape_path_name(shown)}")
    return "/".join(segments)


def parse_partition_path(
    path: str, default_name: str = DEFAULT_PARTITION_NAME
) -> list[tuple[str, str | None]]:
    """The ``(key, value)`` pairs of the ``k=v`` segments of a path, unescaped, in order.

    Segments without ``=`` (the table root, ``bucket-0`` ...) are skipped; ``default_name``
    becomes None. Java: ``PartitionPathUtils.extractPartitionSpecFromPath``.
    """
    pairs: list[tuple[str, str | None]] = []
    for segment in path.split("/"):
        match = re.fullmatch(r"([^/]+)=([^/]+)", segment)
        if match is None:
            continue
        value = unescape_path_name(match[2])
        pairs.append((unescape_path_name(match[1]), None if value == default_name else value))
    return pairs


def compute_relative_bucket_path(
    partition_path: str, bucket: int, data_file_path_directory: str | None = None
) -> str:
    """``[<dir>/][<partition path>/]bucket-<n>`` relative to the table (or external) root."""
    parts = [data_file_path_directory, partition_path or None, compute_bucket_dir_name(bucket)]
    return "/".join(part for part in parts if part)


# --------------------------------------------------------------------------------------------
# External data paths (data-file.external-paths)
# --------------------------------------------------------------------------------------------

ENTROPY_HASH_BITS = 20
ENTROPY_DIR_LENGTH = 4
ENTROPY_DIR_DEPTH = 3

_MURMUR3_C1 = 0xCC9E2D51
_MURMUR3_C2 = 0x1B873593
_UINT32 = 0xFFFFFFFF


def _rotate_left_32(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (32 - bits))) & _UINT32


def _murmur3_mix_block(block: int) -> int:
    block = (block * _MURMUR3_C1) & _UINT32
    block = _rotate_left_32(block, 15)
    return (block * _MURMUR3_C2) & _UINT32


def compute_murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 x86 32-bit of ``data`` as an unsigned int (Guava ``Hashing.murmur3_32``)."""
    state = seed & _UINT32
    whole = len(data) - len(data) % 4
    for start in range(0, whole, 4):
        state ^= _murmur3_mix_block(int.from_bytes(data[start : start + 4], "little"))
        state = (_rotate_left_32(state, 13) * 5 + 0xE6546B64) & _UINT32
    if len(data) > whole:
        state ^= _murmur3_mix_block(int.from_bytes(data[whole:], "little"))
    state ^= len(data)
    state ^= state >> 16
    state = (state * 0x85EBCA6B) & _UINT32
    state ^= state >> 13
    state = (state * 0xC2B2AE35) & _UINT32
    return state ^ (state >> 16)


def compute_entropy_dirs(file_name: str) -> str:
    """The hash directories the ``entropy-inject`` strategy puts in front of a file name.

    The low 20 bits of the murmur3 hash of the UTF-8 name, as a binary string, split into
    ``4/4/4/8`` digits. Java: ``EntropyInjectExternalPathProvider.computeHash`` (Guava's old
    ``murmur3_32`` equals the standard one for names without surrogate pairs).
    """
    hash_value = compute_murmur3_32(file_name.encode("utf-8")) & ((1 << ENTROPY_HASH_BITS) - 1)
    bits = format(hash_value, f"0{ENTROPY_HASH_BITS}b")
    cut = ENTROPY_DIR_DEPTH * ENTROPY_DIR_LENGTH
    dirs = [bits[i : i + ENTROPY_DIR_LENGTH] for i in range(0, cut, ENTROPY_DIR_LENGTH)]
    return "/".join([*dirs, bits[cut:]])


def compute_external_data_path(
    external_root: str, relative_bucket_path: str, file_name: str, *, entropy: bool = False
) -> str:
    """The full path of a data file written under an external root.

    ``<root>/<relative bucket path>/<name>`` for the round-robin, weighted and specific-fs
    strategies; ``entropy`` puts :func:`compute_entropy_dirs` before the name. Which root a
    writer picks is runtime state (round robin from a random start) and stays with the caller.
    """
    parts = [external_root.rstrip("/"), relative_bucket_path]
    if entropy:
        parts.append(compute_entropy_dirs(file_name))
    return "/".join([*parts, file_name])


# --------------------------------------------------------------------------------------------
# Column layouts of data files
# --------------------------------------------------------------------------------------------

SYSTEM_FIELD_ID_START = JAVA_INT_MAX // 2
KEY_FIELD_ID_START = SYSTEM_FIELD_ID_START
"""Added to a column's id to get the id of its ``_KEY_`` copy (Java ``SpecialFields``)."""
KEY_FIELD_PREFIX = "_KEY_"

SEQUENCE_NUMBER_FIELD = DataField(JAVA_INT_MAX - 1, "_SEQUENCE_NUMBER", BigIntType(nullable=False))
VALUE_KIND_FIELD = DataField(JAVA_INT_MAX - 2, "_VALUE_KIND", TinyIntType(nullable=False))
"""Holds the ``RowKind`` byte of the record (``reference.spec.data.RowKind.byte_value``)."""

SYSTEM_FIELD_NAMES = frozenset({SEQUENCE_NUMBER_FIELD.name, VALUE_KIND_FIELD.name})

STRUCTURED_TYPE_FIELD_ID_BASE = JAVA_INT_MAX // 4
STRUCTURED_TYPE_FIELD_DEPTH_LIMIT = 1 << 10
"""Nested parts of a column (list elements, map keys and values) have no id in the schema;
Java derives one from the column's id and the nesting depth (``SpecialFields``), and writes it
into Parquet files as the field id of the nested part."""


def compute_array_element_field_id(field_id: int, depth: int) -> int:
    """Id of a list element ``depth`` levels below the column ``field_id``."""
    return STRUCTURED_TYPE_FIELD_ID_BASE + field_id * STRUCTURED_TYPE_FIELD_DEPTH_LIMIT + depth


def compute_map_key_field_id(field_id: int, depth: int) -> int:
    """Id of a map key ``depth`` levels below the column ``field_id``."""
    return STRUCTURED_TYPE_FIELD_ID_BASE - field_id * STRUCTURED_TYPE_FIELD_DEPTH_LIMIT - depth


def compute_map_value_field_id(field_id: int, depth: int) -> int:
    """Id of a map value ``depth`` levels below the column ``field_id``."""
    return compute_array_element_field_id(field_id, depth)


def compute_trimmed_primary_keys(
    primary_keys: Sequence[str], partition_keys: Sequence[str]
) -> list[str]:
    """The primary keys minus the partition keys, in primary-key order.

    These are the key columns of a primary-key data file (Java ``TableSchema.trimmedPrimaryKeys``).
    """
    trimmed = [key for key in primary_keys if key not in partition_keys]
    if primary_keys and not trimmed:
        raise PaimonFormatError(f"primary keys {list(primary_keys)} must not all be partition keys")
    return trimmed


def compute_key_fields(
    value_fields: Sequence[DataField], trimmed_primary_keys: Sequence[str]
) -> list[DataField]:
    """The ``_KEY_<k>`` fields: each key column renamed and its id moved by KEY_FIELD_ID_START.

    Java: ``PrimaryKeyTableUtils.addKeyNamePrefix``.
    """
    by_name = {data_field.name: data_field for data_field in value_fields}
    missing = [key for key in trimmed_primary_keys if key not in by_name]
    if missing:
        raise PaimonFormatError(f"primary keys {missing} are not table columns")
    return [
        replace(by_name[key], id=by_name[key].id + KEY_FIELD_ID_START, name=KEY_FIELD_PREFIX + key)
        for key in trimmed_primary_keys
    ]


def is_thin_mode_supported(
    key_fields: Sequence[DataField], value_fields: Sequence[DataField]
) -> bool:
    """True when every key field is a ``_KEY_`` copy of a value column (so it can be dropped).

    Java: ``KeyValueFileWriterFactory.supportsThinMode``.
    """
    value_ids = {data_field.id for data_field in value_fields}
    return all(
        key.name.startswith(KEY_FIELD_PREFIX) and key.id - KEY_FIELD_ID_START in value_ids
        for key in key_fields
    )


def compute_key_value_fields(
    key_fields: Sequence[DataField], value_fields: Sequence[DataField], thin: bool
) -> list[DataField]:
    """The columns of a primary-key data file, in file order.

    ``[_KEY_ fields] + _SEQUENCE_NUMBER + _VALUE_KIND + value fields``. ``thin`` is the
    ``data-file.thin-mode`` option: the key fields are left out when it is set *and*
    :func:`is_thin_mode_supported` (Java silently keeps them otherwise, and so do we).
    Java: ``KeyValue.createKeyValueFields``.
    """
    drop_keys = thin and is_thin_mode_supported(key_fields, value_fields)
    keys = [] if drop_keys else list(key_fields)
    return [*keys, SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, *value_fields]


def compute_append_fields(value_fields: Sequence[DataField]) -> list[DataField]:
    """The columns of an append-table data file: the table columns, unchanged."""
    return list(value_fields)


def is_system_field_name(name: str) -> bool:
    """True for ``_KEY_*``, ``_SEQUENCE_NUMBER`` and ``_VALUE_KIND``."""
    return name.startswith(KEY_FIELD_PREFIX) or name in SYSTEM_FIELD_NAMES
