"""Manifest lists, data manifests and index manifests: records, schemas and file codecs.

Spec: ``docs/concepts/spec/manifest.md`` (manifest list, data manifest, index manifest,
SimpleStats), ``tableindex.md`` (index types), ``fileformat.md`` (Avro / ORC / Parquet types).
Java: ``org.apache.paimon.manifest.ManifestFileMeta(Serializer)``,
``ManifestEntry(Serializer)``, ``IndexManifestEntry(Serializer)``, ``FileKind``,
``org.apache.paimon.io.DataFileMeta(Serializer)``, ``org.apache.paimon.index.IndexFileMeta``,
``DeletionVectorMeta``, ``GlobalIndexMeta``, ``org.apache.paimon.utils.VersionedObjectSerializer``
(0.9) / ``ManifestSchemaUtils`` (main), and the writers ``org.apache.paimon.format.avro.
AvroSchemaConverter``, ``format.orc.OrcTypeUtil``, ``format.parquet.ParquetSchemaConverter``.

The three files are tables of records in the table's ``manifest.format`` (Avro by default,
else ORC or Parquet), compressed with ``manifest.compression`` (zstd by default, level 1).

Rules stated here:

* Every record starts with ``_VERSION INT NOT NULL``, a format identifier that never changes
  when nullable fields are added: 2 for manifest entries and manifest-list entries, 1 for
  index manifest entries. Java rejects any other value (1 is an older, incompatible layout).
* The fields that follow have grown over releases (see :class:`FieldSet`). Readers in every
  Java version map file fields to their own read schema *by name*: a field the file lacks reads
  as null, a field the reader does not know is skipped (0.9's Avro ``RowReader`` skips it, the
  newer readers do the same). So a file may carry any subset of the known nullable fields and
  we decode by field presence.
* Avro: the writer schema is produced by ``AvroSchemaConverter``: the top record is
  ``org.apache.paimon.avro.generated.record``; a nested row is a record named
  ``<parent record name>_<field name>`` (``record__FILE``, ``record__FILE__KEY_STATS``) and an
  array's element row takes the array field's record name; a nullable type is the union
  ``["null", T]`` with ``"default": null`` on the field; TINYINT/SMALLINT/INT are ``int``,
  BIGINT ``long``, STRING ``string``, BYTES ``bytes``, TIMESTAMP(3) a ``long`` with logical type
  ``timestamp-millis``. Java's reader assumes the null branch is branch 0 of every union.
  Blocks are cut once 64000 uncompressed bytes are buffered (Avro's default sync interval).
* Since 0.9.0 ("let manifest schema not be nullable") the records are NOT NULL. Files from
  earlier 0.9 snapshots have a nullable top record (``["null", record]``) and nullable nested
  rows; they decode the same way.
* ORC: the same row type as an ORC struct (TINYINT is ``tinyint``, TIMESTAMP ``timestamp``, a
  wall-clock time). Parquet: 3-level lists (``<name>/list/element``), TINYINT as INT32 with
  ``INT(8, signed)``, TIMESTAMP(3) as INT64 ``TIMESTAMP(MILLIS, isAdjustedToUTC=false)``,
  NOT NULL fields ``required``; since Paimon 1.0 each field carries its Paimon field id.
* Binary-row-valued fields (``_PARTITION``, ``_MIN_KEY``, ``_MAX_KEY`` and the stats rows) are
  serialized BinaryRows kept as raw ``bytes`` here (``reference.spec.binary_row`` decodes them).

Compatibility of what we write (the writer default, :data:`DEFAULT_FIELD_SET`): we write the
0.9.0 field set unless told otherwise; in Avro the bytes equal what Java 0.9.0 writes for the
same records and sync marker. Java 0.9 accepts it (it is its own schema) and every newer Java
reads it (the newer fields read as null, which is what they mean for such files). Java 0.9
also reads files with newer field sets in all three formats (it maps fields by name and skips
the unknown ones), but it drops their values silently, so an encoder asked for a field set
that cannot hold a non-null value of a record raises instead of dropping the value.

Limits of the ORC and Parquet decoders: pyarrow does the decoding. We check the file's
structure first (magic, tail lengths), so truncated and mislabelled files fail with a reason;
but pyarrow's C++ ORC reader can abort the process on bytes corrupted *inside* a compressed
stream, which no Python code can catch.
"""

# ruff: noqa: PLC0414 -- `import X as X` re-exports the index types an IndexFileMeta names.

from __future__ import annotations

import datetime
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.orc as pa_orc
import pyarrow.parquet as pa_parquet

from reference.errors import (
    InvalidOptionError,
    PaimonFormatError,
    SpecViolation,
    UnsupportedFeature,
)
from reference.spec.avro_container import (
    TIMESTAMP_MILLIS_PRECISION,
    compute_avro_codec,
    compute_avro_field_paths,
    compute_avro_schema_json,
    decode_avro_container,
    encode_avro_container,
)
from reference.spec.data import EPOCH_DATETIME, Timestamp
from reference.spec.data_file import (
    DataFileMeta,
    FileSource,
    MetaFileKind,
    compute_array_element_field_id,
)
from reference.spec.deletion_vector import (
    DELETION_VECTORS_INDEX_TYPE as DELETION_VECTORS_INDEX_TYPE,
)
from reference.spec.file_format import DEFAULT_ZSTD_LEVEL, FileFormat
from reference.spec.format_framing import (
    AVRO_MAGIC,
    MAGIC_PROBE_LENGTH,
    ORC_MAGIC,
    ORC_MAX_TAIL,
    PARQUET_FIELD_ID_KEY,
    PARQUET_MAGIC,
    PARQUET_TAIL_LENGTH,
    check_orc_framing,
    check_parquet_framing,
)
from reference.spec.hash_index import HASH_INDEX_TYPE as HASH_INDEX_TYPE
from reference.spec.orc_decoding import decode_orc_table
from reference.spec.stats import (
    SIMPLE_STATS_TYPE,
    RowDict,
    SimpleStats,
    decode_simple_stats_row,
    encode_simple_stats_row,
)
from reference.spec.types import (
    MAX_LENGTH,
    ArrayType,
    BigIntType,
    BooleanType,
    DataField,
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

# --------------------------------------------------------------------------------------------
# Formats, field sets, kinds
# --------------------------------------------------------------------------------------------


ManifestFormat = FileFormat
"""The file format of manifest files (option ``manifest.format``): any data file format."""


def detect_manifest_format(data: bytes) -> ManifestFormat:
    """The format of a manifest file from its leading magic bytes (Avro ``Obj\\x01``, Parquet
    ``PAR1``, ORC ``ORC``), so a reader needs no option to open any table's manifests."""
    for magic, fmt in (
        (AVRO_MAGIC, ManifestFormat.AVRO),
        (PARQUET_MAGIC, ManifestFormat.PARQUET),
        (ORC_MAGIC, ManifestFormat.ORC),
    ):
        if data.startswith(magic):
            return fmt
    raise PaimonFormatError(f"not a manifest file: unknown magic {data[:4]!r}")


def parse_manifest_format(text: str) -> ManifestFormat:
    """The :class:`ManifestFormat` named by a ``manifest.format`` option value."""
    for candidate in ManifestFormat:
        if candidate.value == text.strip().lower():
            return candidate
    raise InvalidOptionError("manifest.format", text, "must be one of avro, orc, parquet")


class FieldSet(Enum):
    """Which fields a writer emits: the set of a Paimon release.

    ===========  ==============================================================================
    set          fields added (on top of the previous set)
    ===========  ==============================================================================
    0.9          the base set: DataFileMeta up to ``_FILE_SOURCE``, 6 manifest-list fields,
                 index manifest up to ``_DELETIONS_VECTORS_RANGES`` with ``f0, f1, f2``
    1.0          ``_VALUE_STATS_COLS``, ``_EXTERNAL_PATH``; ``_CARDINALITY`` in DV ranges
    1.1          manifest list ``_MIN_BUCKET``, ``_MAX_BUCKET``, ``_MIN_LEVEL``, ``_MAX_LEVEL``
    1.3          ``_FIRST_ROW_ID``, ``_WRITE_COLS``; index manifest ``_EXTERNAL_PATH``
    1.4          manifest list ``_MIN_ROW_ID``, ``_MAX_ROW_ID``; index ``_GLOBAL_INDEX``
    2.0          ``_GLOBAL_INDEX._SOURCE_META``
    main         ``_WRITE_COLS_SEQUENCES`` (unreleased in the checkout we read)
    ===========  ==============================================================================

    (1.2 writes the 1.1 set.) Releases are ordered; a set includes all earlier ones.
    """

    PAIMON_0_9 = "0.9"
    PAIMON_1_0 = "1.0"
    PAIMON_1_1 = "1.1"
    PAIMON_1_3 = "1.3"
    PAIMON_1_4 = "1.4"
    PAIMON_2_0 = "2.0"
    PAIMON_MAIN = "main"

    @property
    def rank(self) -> int:
        return list(FieldSet).index(self)


DEFAULT_FIELD_SET = FieldSet.PAIMON_0_9
"""What encoders write unless told otherwise: readable by Java 0.9 and by every newer Java."""

LATEST_FIELD_SET = FieldSet.PAIMON_MAIN


def is_field_in_set(since: FieldSet, field_set: FieldSet) -> bool:
    """True when a field introduced in ``since`` is written by ``field_set``."""
    return field_set.rank >= since.rank


def compute_file_field_set(meta: DataFileMeta) -> FieldSet:
    """The oldest field set that holds every non-null field of ``meta``: a file that a newer
    writer described (e.g. with ``_VALUE_STATS_COLS``) keeps its description when an older-set
    writer re-commits it (a compaction deleting it, an overwrite)."""
    if meta.write_cols_sequences is not None:
        return FieldSet.PAIMON_MAIN
    if meta.first_row_id is not None or meta.write_cols is not None:
        return FieldSet.PAIMON_1_3
    if meta.value_stats_cols is not None or meta.external_path is not None:
        return FieldSet.PAIMON_1_0
    return FieldSet.PAIMON_0_9


def compute_entries_field_set(entries: Sequence[ManifestEntry], floor: FieldSet) -> FieldSet:
    """The field set to encode ``entries`` with: ``floor``, or newer where a file needs it."""
    needed = [compute_file_field_set(entry.file) for entry in entries]
    return max([floor, *needed], key=lambda field_set: field_set.rank)


class FileKind(Enum):
    """Whether a manifest entry adds or deletes its file (Java ``FileKind``; a TINYINT)."""

    ADD = 0
    DELETE = 1


DEFAULT_MANIFEST_COMPRESSION = "zstd"

MANIFEST_ENTRY_FORMAT_IDENTIFIER = 2
MANIFEST_FILE_META_FORMAT_IDENTIFIER = 2
INDEX_MANIFEST_ENTRY_FORMAT_IDENTIFIER = 1


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ManifestFileMeta:
    """One entry of a manifest list: a manifest file and a summary of its entries.

    ``partition_stats`` spans the partitions of the manifest's entries. The bucket, level and
    row-id ranges are None in files written before they existed.
    """

    file_name: str
    file_size: int
    num_added_files: int
    num_deleted_files: int
    partition_stats: SimpleStats
    schema_id: int
    min_bucket: int | None = None
    max_bucket: int | None = None
    min_level: int | None = None
    max_level: int | None = None
    min_row_id: int | None = None
    max_row_id: int | None = None


@dataclass(frozen=True)
class ManifestEntry:
    """One entry of a data manifest: a data or changelog file added or deleted.

    ``partition`` is the serialized partition BinaryRow; ``total_buckets`` is the table's
    bucket count when the file was written (-1 for dynamic / unaware bucket tables).
    """

    kind: FileKind
    partition: bytes
    bucket: int
    total_buckets: int
    file: DataFileMeta


@dataclass(frozen=True)
class DeletionVectorMeta:
    """Where one data file's deletion vector sits in a deletion-vectors index file.

    On disk: ``f0`` = data file name, ``f1`` = offset, ``f2`` = length, ``_CARDINALITY`` =
    number of deleted rows (None in 0.9 files). Java: ``index.DeletionVectorMeta``.
    """

    data_file_name: str
    offset: int
    length: int
    cardinality: int | None = None


@dataclass(frozen=True)
class GlobalIndexMeta:
    """The row range and column of a global index file (Java ``index.GlobalIndexMeta``)."""

    row_range_start: int
    row_range_end: int
    index_field_id: int
    extra_field_ids: tuple[int, ...] | None = None
    index_meta: bytes | None = None
    source_meta: bytes | None = None


@dataclass(frozen=True)
class IndexFileMeta:
    """An index file: its type (``HASH``, ``DELETION_VECTORS``, ...), name, size and rows.

    ``dv_ranges`` is set for deletion-vectors files only. Java: ``index.IndexFileMeta``.
    """

    index_type: str
    file_name: str
    file_size: int
    row_count: int
    dv_ranges: tuple[DeletionVectorMeta, ...] | None = None
    external_path: str | None = None
    global_index: GlobalIndexMeta | None = None


@dataclass(frozen=True)
class IndexManifestEntry:
    """One entry of an index manifest: an index file of one partition and bucket."""

    kind: FileKind
    partition: bytes
    bucket: int
    index_file: IndexFileMeta


# --------------------------------------------------------------------------------------------
# Row types per field set
# --------------------------------------------------------------------------------------------

VERSION_FIELD = DataField(-1, "_VERSION", IntType(nullable=False))
"""The format identifier in front of every manifest record (field id -1)."""

_STRING = VarCharType(MAX_LENGTH, nullable=False)
_NULLABLE_STRING = VarCharType(MAX_LENGTH)
_BYTES = VarBinaryType(MAX_LENGTH, nullable=False)
_NULLABLE_BYTES = VarBinaryType(MAX_LENGTH)
_BIGINT = BigIntType(nullable=False)
_INT = IntType(nullable=False)
_TINYINT = TinyIntType(nullable=False)
_STRINGS = ArrayType(_STRING, nullable=False)
_V09 = FieldSet.PAIMON_0_9
_V10 = FieldSet.PAIMON_1_0
_V11 = FieldSet.PAIMON_1_1
_V13 = FieldSet.PAIMON_1_3
_V14 = FieldSet.PAIMON_1_4
_V20 = FieldSet.PAIMON_2_0
_MAIN = FieldSet.PAIMON_MAIN


def _row_type(
    field_set: FieldSet, candidates: Sequence[tuple[FieldSet, DataField]], *, nullable: bool
) -> RowType:
    """The row of the candidate fields that ``field_set`` writes, in candidate order."""
    fields = tuple(field for since, field in candidates if is_field_in_set(since, field_set))
    return RowType(fields, nullable=nullable)


def _record_type(
    fields: Sequence[WireField], field_set: FieldSet, *, nullable: bool, version: bool = False
) -> RowType:
    """The row type a field table gives under ``field_set`` (``_VERSION`` first when asked)."""
    candidates = [(f.since, f.data_field(field_set)) for f in fields]
    if version:
        candidates.insert(0, (_V09, VERSION_FIELD))
    return _row_type(field_set, candidates, nullable=nullable)


def compute_data_file_meta_type(field_set: FieldSet) -> RowType:
    """The ``_FILE`` row of a manifest entry (Java ``DataFileMeta.SCHEMA``)."""
    return _record_type(DATA_FILE_META_FIELDS, field_set, nullable=False)


def compute_manifest_entry_type(field_set: FieldSet) -> RowType:
    """The record of a data manifest (Java ``ManifestEntry.MANIFEST_ROW_TYPE``)."""
    return _record_type(MANIFEST_ENTRY_FIELDS, field_set, nullable=False, version=True)


def compute_manifest_file_meta_type(field_set: FieldSet) -> RowType:
    """The record of a manifest list (Java ``ManifestFileMeta.SCHEMA`` plus ``_VERSION``)."""
    return _record_type(MANIFEST_FILE_META_FIELDS, field_set, nullable=False, version=True)


def compute_deletion_vector_meta_type(field_set: FieldSet) -> RowType:
    """The element row of ``_DELETIONS_VECTORS_RANGES`` (Java ``DeletionVectorMeta.SCHEMA``)."""
    return _record_type(DELETION_VECTOR_META_FIELDS, field_set, nullable=True)


def compute_global_index_meta_type(field_set: FieldSet) -> RowType:
    """The ``_GLOBAL_INDEX`` row of an index manifest entry (Java ``GlobalIndexMeta.SCHEMA``)."""
    return _record_type(GLOBAL_INDEX_META_FIELDS, field_set, nullable=True)


def compute_index_manifest_entry_type(field_set: FieldSet) -> RowType:
    """The record of an index manifest (Java ``IndexManifestEntry.MANIFEST_ROW_TYPE``)."""
    return _record_type(INDEX_MANIFEST_ENTRY_FIELDS, field_set, nullable=False, version=True)


_RECORD_TYPES: dict[MetaFileKind, Callable[[FieldSet], RowType]] = {
    MetaFileKind.MANIFEST_LIST: compute_manifest_file_meta_type,
    MetaFileKind.MANIFEST: compute_manifest_entry_type,
    MetaFileKind.INDEX_MANIFEST: compute_index_manifest_entry_type,
}


# --------------------------------------------------------------------------------------------
# Row dicts: values of one record as plain Python
# --------------------------------------------------------------------------------------------

_EPOCH_UTC = EPOCH_DATETIME.replace(tzinfo=datetime.timezone.utc)
_ONE_MILLI = datetime.timedelta(milliseconds=1)
_T = TypeVar("_T")


def _fail(context: str, name: str, reason: str) -> PaimonFormatError:
    return PaimonFormatError(f"{context}.{name}: {reason}")


def _required(row: Mapping[str, Any], name: str, context: str) -> Any:
    if name not in row:
        raise _fail(context, name, "required field is missing")
    if row[name] is None:
        raise _fail(context, name, "required field is null")
    return row[name]


def _typed(value: Any, expected: type[_T] | tuple[type, ...], name: str, context: str) -> Any:
    if not isinstance(value, expected) or isinstance(value, bool):
        raise _fail(context, name, f"unexpected value {value!r}")
    return value


def _required_int(row: Mapping[str, Any], name: str, context: str) -> int:
    return int(_typed(_required(row, name, context), int, name, context))


def _required_str(row: Mapping[str, Any], name: str, context: str) -> str:
    return str(_typed(_required(row, name, context), str, name, context))


def _required_bytes(row: Mapping[str, Any], name: str, context: str) -> bytes:
    return bytes(_typed(_required(row, name, context), (bytes, bytearray), name, context))


def _optional_int(row: Mapping[str, Any], name: str, context: str) -> int | None:
    value = row.get(name)
    return None if value is None else int(_typed(value, int, name, context))


def _optional_str(row: Mapping[str, Any], name: str, context: str) -> str | None:
    value = row.get(name)
    return None if value is None else str(_typed(value, str, name, context))


def _optional_bytes(row: Mapping[str, Any], name: str, context: str) -> bytes | None:
    value = row.get(name)
    return None if value is None else bytes(_typed(value, (bytes, bytearray), name, context))


def _items(value: Any, item_type: type, name: str, context: str) -> tuple[Any, ...]:
    items = _typed(value, (list, tuple), name, context)
    for item in items:
        _typed(item, item_type, name, context)
    return tuple(items)


def _optional_items(
    row: Mapping[str, Any], name: str, item_type: type, context: str
) -> tuple[Any, ...] | None:
    value = row.get(name)
    return None if value is None else _items(value, item_type, name, context)


def _required_row(row: Mapping[str, Any], name: str, context: str) -> Mapping[str, Any]:
    return dict(_typed(_required(row, name, context), Mapping, name, context))


def _check_format_identifier(row: Mapping[str, Any], expected: int, context: str) -> None:
    version = _required_int(row, VERSION_FIELD.name, context)
    if version != expected:
        raise _fail(
            context,
            VERSION_FIELD.name,
            f"unsupported format identifier {version}, expected {expected}",
        )


def _decode_file_kind(row: Mapping[str, Any], name: str, context: str) -> FileKind:
    value = _required_int(row, name, context)
    for kind in FileKind:
        if kind.value == value:
            return kind
    raise _fail(context, name, f"unknown file kind {value}")


def _decode_file_source(row: Mapping[str, Any], name: str, context: str) -> FileSource | None:
    value = _optional_int(row, name, context)
    if value is None:
        return None
    for source in FileSource:
        if source.value == value:
            return source
    raise _fail(context, name, f"unknown file source {value}")


def decode_timestamp_millis(value: object) -> Timestamp:
    """A TIMESTAMP(3) read by fastavro or Arrow: epoch millis, or a (wall-clock) datetime.

    An aware datetime (fastavro's ``timestamp-millis``) is taken in UTC; a naive one (Arrow)
    as is; both mean the wall-clock time the writer stored.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return Timestamp(value)
    if not isinstance(value, datetime.datetime):
        raise PaimonFormatError(f"expected a timestamp, got {value!r}")
    naive = value if value.tzinfo is None else value.astimezone(datetime.timezone.utc)
    since_epoch = naive.replace(tzinfo=datetime.timezone.utc) - _EPOCH_UTC
    millis = since_epoch // _ONE_MILLI
    nanos = (naive.microsecond % 1000) * 1000 + int(getattr(naive, "nanosecond", 0))
    return Timestamp(int(millis), nanos)


def _optional_timestamp(row: Mapping[str, Any], name: str, context: str) -> Timestamp | None:
    value = row.get(name)
    if value is None:
        return None
    try:
        return decode_timestamp_millis(value)
    except PaimonFormatError as error:
        raise _fail(context, name, error.reason) from None


def _project(full: RowDict, row_type: RowType, context: str) -> RowDict:
    """Keep the fields of ``row_type``; a dropped field must be null (never lose a value)."""
    names = set(row_type.field_names)
    for name, value in full.items():
        if name not in names and value is not None:
            raise UnsupportedFeature(
                f"{context}.{name} is set but the requested field set does not have it; "
                "encode with a newer FieldSet"
            )
    return {name: full[name] for name in row_type.field_names}


# --------------------------------------------------------------------------------------------
# Field tables: each wire name written once; the record types, encoders and decoders read them
# --------------------------------------------------------------------------------------------

Encode = Callable[[Any, FieldSet], Any]
Decode = Callable[[Mapping[str, Any], str, str], Any]


@dataclass(frozen=True)
class WireField:
    """One field of a manifest record: its wire name, id and type (a function of the field set
    for nested rows), the field set that added it, the record attribute it holds (dotted for a
    record inlined in another, ``index_file.file_name``), and how its value is written and read.
    """

    since: FieldSet
    field_id: int
    name: str
    type: DataType | Callable[[FieldSet], DataType]
    attr: str
    encode: Encode
    decode: Decode

    def data_field(self, field_set: FieldSet) -> DataField:
        data_type = self.type if isinstance(self.type, DataType) else self.type(field_set)
        return DataField(self.field_id, self.name, data_type)


def _as_is(value: Any, field_set: FieldSet) -> Any:
    return value


def _list_or_none(values: tuple[Any, ...] | None, field_set: FieldSet | None = None) -> Any:
    return None if values is None else list(values)


def _enum_value(value: FileKind | FileSource | None, field_set: FieldSet) -> int | None:
    return None if value is None else value.value


def _stats_row(value: SimpleStats, field_set: FieldSet) -> Any:
    return encode_simple_stats_row(value)


def _millis(value: Timestamp | None, field_set: FieldSet) -> int | None:
    """TIMESTAMP(3) is written as epoch millis: nanos within the milli are dropped, as Java's
    TIMESTAMP(3) writers do."""
    return None if value is None else value.millisecond


def _read_stats(row: Mapping[str, Any], name: str, context: str) -> SimpleStats:
    return decode_simple_stats_row(_required(row, name, context), context=f"{context}.{name}")


def _read_strings(row: Mapping[str, Any], name: str, context: str) -> tuple[Any, ...]:
    return _items(_required(row, name, context), str, name, context)


def _read_optional_strings(row: Mapping[str, Any], name: str, context: str) -> Any:
    return _optional_items(row, name, str, context)


def _read_optional_ints(row: Mapping[str, Any], name: str, context: str) -> Any:
    return _optional_items(row, name, int, context)


def _read_file(row: Mapping[str, Any], name: str, context: str) -> DataFileMeta:
    return decode_data_file_meta_row(_required(row, name, context))


def _write_file(value: DataFileMeta, field_set: FieldSet) -> RowDict:
    return encode_data_file_meta_row(value, field_set)


def _write_ranges(value: tuple[DeletionVectorMeta, ...] | None, field_set: FieldSet) -> Any:
    if value is None:
        return None
    return [encode_deletion_vector_meta_row(meta, field_set) for meta in value]


def _read_ranges(row: Mapping[str, Any], name: str, context: str) -> Any:
    ranges = row.get(name)
    if ranges is None:
        return None
    items = _typed(ranges, (list, tuple), name, context)
    return tuple(decode_deletion_vector_meta_row(item) for item in items)


def _write_global_index(value: GlobalIndexMeta | None, field_set: FieldSet) -> Any:
    return None if value is None else encode_global_index_meta_row(value, field_set)


def _read_global_index(row: Mapping[str, Any], name: str, context: str) -> Any:
    value = row.get(name)
    return None if value is None else decode_global_index_meta_row(value)


def _ranges_type(field_set: FieldSet) -> DataType:
    return ArrayType(compute_deletion_vector_meta_type(field_set))


_SCALAR_DECODERS: dict[tuple[type[DataType], bool], Decode] = {
    (IntType, False): _required_int,
    (IntType, True): _optional_int,
    (BigIntType, False): _required_int,
    (BigIntType, True): _optional_int,
    (VarCharType, False): _required_str,
    (VarCharType, True): _optional_str,
    (VarBinaryType, False): _required_bytes,
    (VarBinaryType, True): _optional_bytes,
}
"""How a scalar field is read, by its type: a NOT NULL field is required, a nullable one may
be null or missing (older files)."""


def _scalar(since: FieldSet, field_id: int, name: str, data_type: DataType, attr: str) -> WireField:
    """A field written as is and read by its type (:data:`_SCALAR_DECODERS`), so the table
    cannot give a field a type and a reader that disagree."""
    decode = _SCALAR_DECODERS[(type(data_type), data_type.nullable)]
    return WireField(since, field_id, name, data_type, attr, _as_is, decode)


_W = WireField
_S = _scalar

# The nested records first (each declared before the records that embed it), then the two
# manifest entries with the head they share, then the manifest list's record.
DATA_FILE_META_FIELDS: tuple[WireField, ...] = (
    _S(_V09, 0, "_FILE_NAME", _STRING, "file_name"),
    _S(_V09, 1, "_FILE_SIZE", _BIGINT, "file_size"),
    _S(_V09, 2, "_ROW_COUNT", _BIGINT, "row_count"),
    _S(_V09, 3, "_MIN_KEY", _BYTES, "min_key"),
    _S(_V09, 4, "_MAX_KEY", _BYTES, "max_key"),
    _W(_V09, 5, "_KEY_STATS", SIMPLE_STATS_TYPE, "key_stats", _stats_row, _read_stats),
    _W(_V09, 6, "_VALUE_STATS", SIMPLE_STATS_TYPE, "value_stats", _stats_row, _read_stats),
    _S(_V09, 7, "_MIN_SEQUENCE_NUMBER", _BIGINT, "min_sequence_number"),
    _S(_V09, 8, "_MAX_SEQUENCE_NUMBER", _BIGINT, "max_sequence_number"),
    _S(_V09, 9, "_SCHEMA_ID", _BIGINT, "schema_id"),
    _S(_V09, 10, "_LEVEL", _INT, "level"),
    _W(_V09, 11, "_EXTRA_FILES", _STRINGS, "extra_files", _list_or_none, _read_strings),
    _W(_V09, 12, "_CREATION_TIME", TimestampType(3), "creation_time", _millis, _optional_timestamp),
    _S(_V09, 13, "_DELETE_ROW_COUNT", BigIntType(), "delete_row_count"),
    _S(_V09, 14, "_EMBEDDED_FILE_INDEX", _NULLABLE_BYTES, "embedded_index"),
    _W(_V09, 15, "_FILE_SOURCE", TinyIntType(), "file_source", _enum_value, _decode_file_source),
    _W(_V10, 16, "_VALUE_STATS_COLS", ArrayType(_STRING), "value_stats_cols", _list_or_none, _read_optional_strings),  # noqa: E501 (a table row)
    _S(_V10, 17, "_EXTERNAL_PATH", _NULLABLE_STRING, "external_path"),
    _S(_V13, 18, "_FIRST_ROW_ID", BigIntType(), "first_row_id"),
    _W(_V13, 19, "_WRITE_COLS", ArrayType(_STRING), "write_cols", _list_or_none, _read_optional_strings),  # noqa: E501 (a table row)
    _W(_MAIN, 20, "_WRITE_COLS_SEQUENCES", ArrayType(_BIGINT), "write_cols_sequences", _list_or_none, _read_optional_ints),  # noqa: E501 (a table row)
)  # fmt: skip
"""Java ``DataFileMeta.SCHEMA``, the ``_FILE`` row of a manifest entry."""

DELETION_VECTOR_META_FIELDS: tuple[WireField, ...] = (
    _S(_V09, 0, "f0", _STRING, "data_file_name"),
    _S(_V09, 1, "f1", _INT, "offset"),
    _S(_V09, 2, "f2", _INT, "length"),
    _S(_V10, 3, "_CARDINALITY", BigIntType(), "cardinality"),
)  # fmt: skip
"""Java ``DeletionVectorMeta.SCHEMA``."""

GLOBAL_INDEX_META_FIELDS: tuple[WireField, ...] = (
    _S(_V14, 0, "_ROW_RANGE_START", _BIGINT, "row_range_start"),
    _S(_V14, 1, "_ROW_RANGE_END", _BIGINT, "row_range_end"),
    _S(_V14, 2, "_INDEX_FIELD_ID", _INT, "index_field_id"),
    _W(_V14, 3, "_EXTRA_FIELD_IDS", ArrayType(_INT), "extra_field_ids", _list_or_none, _read_optional_ints),  # noqa: E501 (a table row)
    _S(_V14, 4, "_INDEX_META", _NULLABLE_BYTES, "index_meta"),
    _S(_V20, 5, "_SOURCE_META", _NULLABLE_BYTES, "source_meta"),
)  # fmt: skip
"""Java ``GlobalIndexMeta.SCHEMA``."""

_ENTRY_HEAD_FIELDS: tuple[WireField, ...] = (
    _W(_V09, 0, "_KIND", _TINYINT, "kind", _enum_value, _decode_file_kind),
    _S(_V09, 1, "_PARTITION", _BYTES, "partition"),
    _S(_V09, 2, "_BUCKET", _INT, "bucket"),
)  # fmt: skip
"""What a data and an index manifest entry both start with (after ``_VERSION``): the file's
kind, its partition and its bucket (Java ``ManifestEntry`` and ``IndexManifestEntry``)."""

MANIFEST_ENTRY_FIELDS: tuple[WireField, ...] = (
    *_ENTRY_HEAD_FIELDS,
    _S(_V09, 3, "_TOTAL_BUCKETS", _INT, "total_buckets"),
    _W(_V09, 4, "_FILE", compute_data_file_meta_type, "file", _write_file, _read_file),
)  # fmt: skip
"""Java ``ManifestEntry.MANIFEST_ROW_TYPE`` after ``_VERSION``."""

INDEX_MANIFEST_ENTRY_FIELDS: tuple[WireField, ...] = (
    *_ENTRY_HEAD_FIELDS,
    _S(_V09, 3, "_INDEX_TYPE", _STRING, "index_file.index_type"),
    _S(_V09, 4, "_FILE_NAME", _STRING, "index_file.file_name"),
    _S(_V09, 5, "_FILE_SIZE", _BIGINT, "index_file.file_size"),
    _S(_V09, 6, "_ROW_COUNT", _BIGINT, "index_file.row_count"),
    _W(_V09, 7, "_DELETIONS_VECTORS_RANGES", _ranges_type, "index_file.dv_ranges", _write_ranges, _read_ranges),  # noqa: E501 (a table row)
    _S(_V13, 8, "_EXTERNAL_PATH", _NULLABLE_STRING, "index_file.external_path"),
    _W(_V14, 9, "_GLOBAL_INDEX", compute_global_index_meta_type, "index_file.global_index", _write_global_index, _read_global_index),  # noqa: E501 (a table row)
)  # fmt: skip
"""Java ``IndexManifestEntry.MANIFEST_ROW_TYPE`` after ``_VERSION``: the index file's fields
are inlined in the entry."""

MANIFEST_FILE_META_FIELDS: tuple[WireField, ...] = (
    _S(_V09, 0, "_FILE_NAME", _STRING, "file_name"),
    _S(_V09, 1, "_FILE_SIZE", _BIGINT, "file_size"),
    _S(_V09, 2, "_NUM_ADDED_FILES", _BIGINT, "num_added_files"),
    _S(_V09, 3, "_NUM_DELETED_FILES", _BIGINT, "num_deleted_files"),
    _W(_V09, 4, "_PARTITION_STATS", SIMPLE_STATS_TYPE, "partition_stats", _stats_row, _read_stats),
    _S(_V09, 5, "_SCHEMA_ID", _BIGINT, "schema_id"),
    _S(_V11, 6, "_MIN_BUCKET", IntType(), "min_bucket"),
    _S(_V11, 7, "_MAX_BUCKET", IntType(), "max_bucket"),
    _S(_V11, 8, "_MIN_LEVEL", IntType(), "min_level"),
    _S(_V11, 9, "_MAX_LEVEL", IntType(), "max_level"),
    _S(_V14, 10, "_MIN_ROW_ID", BigIntType(), "min_row_id"),
    _S(_V14, 11, "_MAX_ROW_ID", BigIntType(), "max_row_id"),
)  # fmt: skip
"""Java ``ManifestFileMeta.SCHEMA`` after ``_VERSION``."""


def _attribute(record: Any, path: str) -> Any:
    for name in path.split("."):
        record = getattr(record, name)
    return record


def encode_fields(record: Any, fields: Sequence[WireField], field_set: FieldSet) -> RowDict:
    """The row dict of ``record``: each table field's value as written (every field set's
    fields; :func:`_project` then keeps those of the wanted set)."""
    return {f.name: f.encode(_attribute(record, f.attr), field_set) for f in fields}


def decode_fields(row: Mapping[str, Any], fields: Sequence[WireField], context: str) -> RowDict:
    """Attribute -> value of each table field read from ``row`` (dotted attributes as is)."""
    return {f.attr: f.decode(row, f.name, context) for f in fields}


def _row_of(row: object, context: str) -> Mapping[str, Any]:
    if not isinstance(row, Mapping):
        raise PaimonFormatError(f"{context}: expected a row, got {row!r}")
    return row


# --------------------------------------------------------------------------------------------
# Encoding and decoding one record
# --------------------------------------------------------------------------------------------


def encode_data_file_meta_row(meta: DataFileMeta, field_set: FieldSet) -> RowDict:
    """The ``_FILE`` row dict of ``meta`` with the fields of ``field_set``."""
    full = encode_fields(meta, DATA_FILE_META_FIELDS, field_set)
    return _project(full, compute_data_file_meta_type(field_set), "_FILE")


def decode_data_file_meta_row(row: object, context: str = "_FILE") -> DataFileMeta:
    """A :class:`DataFileMeta` from a ``_FILE`` row dict of any field set."""
    return DataFileMeta(**decode_fields(_row_of(row, context), DATA_FILE_META_FIELDS, context))


def encode_manifest_entry_row(entry: ManifestEntry, field_set: FieldSet) -> RowDict:
    """The data-manifest row dict of ``entry``."""
    full = {
        VERSION_FIELD.name: MANIFEST_ENTRY_FORMAT_IDENTIFIER,
        **encode_fields(entry, MANIFEST_ENTRY_FIELDS, field_set),
    }
    return _project(full, compute_manifest_entry_type(field_set), "manifest entry")


def decode_manifest_entry_row(row: Mapping[str, Any]) -> ManifestEntry:
    """A :class:`ManifestEntry` from a data-manifest row dict of any field set."""
    context = "manifest entry"
    _check_format_identifier(row, MANIFEST_ENTRY_FORMAT_IDENTIFIER, context)
    return ManifestEntry(**decode_fields(row, MANIFEST_ENTRY_FIELDS, context))


def encode_manifest_file_meta_row(meta: ManifestFileMeta, field_set: FieldSet) -> RowDict:
    """The manifest-list row dict of ``meta``."""
    full = {
        VERSION_FIELD.name: MANIFEST_FILE_META_FORMAT_IDENTIFIER,
        **encode_fields(meta, MANIFEST_FILE_META_FIELDS, field_set),
    }
    return _project(full, compute_manifest_file_meta_type(field_set), "manifest file meta")


def decode_manifest_file_meta_row(row: Mapping[str, Any]) -> ManifestFileMeta:
    """A :class:`ManifestFileMeta` from a manifest-list row dict of any field set."""
    context = "manifest file meta"
    _check_format_identifier(row, MANIFEST_FILE_META_FORMAT_IDENTIFIER, context)
    return ManifestFileMeta(**decode_fields(row, MANIFEST_FILE_META_FIELDS, context))


def encode_deletion_vector_meta_row(meta: DeletionVectorMeta, field_set: FieldSet) -> RowDict:
    full = encode_fields(meta, DELETION_VECTOR_META_FIELDS, field_set)
    return _project(full, compute_deletion_vector_meta_type(field_set), "deletion vector meta")


def decode_deletion_vector_meta_row(row: object) -> DeletionVectorMeta:
    context = "_DELETIONS_VECTORS_RANGES"
    fields = decode_fields(_row_of(row, context), DELETION_VECTOR_META_FIELDS, context)
    return DeletionVectorMeta(**fields)


def encode_global_index_meta_row(meta: GlobalIndexMeta, field_set: FieldSet) -> RowDict:
    full = encode_fields(meta, GLOBAL_INDEX_META_FIELDS, field_set)
    return _project(full, compute_global_index_meta_type(field_set), "_GLOBAL_INDEX")


def decode_global_index_meta_row(row: object) -> GlobalIndexMeta:
    context = "_GLOBAL_INDEX"
    fields = decode_fields(_row_of(row, context), GLOBAL_INDEX_META_FIELDS, context)
    return GlobalIndexMeta(**fields)


def encode_index_manifest_entry_row(entry: IndexManifestEntry, field_set: FieldSet) -> RowDict:
    """The index-manifest row dict of ``entry`` (the index file's fields are inlined)."""
    full = {
        VERSION_FIELD.name: INDEX_MANIFEST_ENTRY_FORMAT_IDENTIFIER,
        **encode_fields(entry, INDEX_MANIFEST_ENTRY_FIELDS, field_set),
    }
    return _project(full, compute_index_manifest_entry_type(field_set), "index manifest entry")


def decode_index_manifest_entry_row(row: Mapping[str, Any]) -> IndexManifestEntry:
    """An :class:`IndexManifestEntry` from an index-manifest row dict of any field set."""
    context = "index manifest entry"
    _check_format_identifier(row, INDEX_MANIFEST_ENTRY_FORMAT_IDENTIFIER, context)
    values = decode_fields(row, INDEX_MANIFEST_ENTRY_FIELDS, context)
    prefix = "index_file."
    index_file = {k[len(prefix) :]: v for k, v in values.items() if k.startswith(prefix)}
    entry = {k: v for k, v in values.items() if not k.startswith(prefix)}
    return IndexManifestEntry(**entry, index_file=IndexFileMeta(**index_file))


# --------------------------------------------------------------------------------------------
# Checking a row dict against its row type before writing
# --------------------------------------------------------------------------------------------

INVALID_RECORD_CODE = "MANIFEST_RECORD"
"""The :class:`SpecViolation` code of a record that does not fit its schema."""

_INT_BITS = {TinyIntType: 8, SmallIntType: 16, IntType: 32, BigIntType: 64}


def check_row(row: Mapping[str, Any], row_type: RowType, context: str) -> None:
    """Raise :class:`SpecViolation` unless ``row`` fits ``row_type`` exactly.

    Every field present, nulls only where nullable, integers within their type's range.
    Writers call it so a bad record fails with a reason instead of a library error.
    """
    if set(row) != set(row_type.field_names):
        raise _invalid(f"{context}: fields {sorted(row)} do not match {row_type.field_names}")
    for data_field in row_type.fields:
        _check_value(row[data_field.name], data_field.type, f"{context}.{data_field.name}")


def _check_value(value: Any, data_type: DataType, context: str) -> None:
    if value is None:
        if not data_type.nullable:
            raise _invalid(f"{context}: null in a NOT NULL field")
        return
    if isinstance(data_type, RowType):
        if not isinstance(value, Mapping):
            raise _invalid(f"{context}: expected a row, got {value!r}")
        check_row(value, data_type, context)
    elif isinstance(data_type, ArrayType):
        if not isinstance(value, (list, tuple)):
            raise _invalid(f"{context}: expected an array, got {value!r}")
        for item in value:
            _check_value(item, data_type.element, context)
    elif type(data_type) in _INT_BITS:
        bits = _INT_BITS[type(data_type)]
        if not isinstance(value, int) or isinstance(value, bool):
            raise _invalid(f"{context}: expected an integer, got {value!r}")
        if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            raise _invalid(f"{context}: {value} is out of range for {data_type}")
    elif isinstance(data_type, VarCharType) and not isinstance(value, str):
        raise _invalid(f"{context}: expected a string, got {value!r}")
    elif isinstance(data_type, VarBinaryType) and not isinstance(value, (bytes, bytearray)):
        raise _invalid(f"{context}: expected bytes, got {value!r}")
    elif isinstance(data_type, TimestampType):
        _check_value(value, BigIntType(), context)


def _invalid(reason: str) -> SpecViolation:
    return SpecViolation(reason, code=INVALID_RECORD_CODE)


# --------------------------------------------------------------------------------------------
# ORC and Parquet through Arrow
# --------------------------------------------------------------------------------------------

PARQUET_LIST_ELEMENT_NAME = "element"
FIELD_IDS_SINCE = FieldSet.PAIMON_1_0
"""Java writes Paimon field ids into Parquet manifests since 1.0."""

_ORC_COMPRESSIONS = {
    "none": "UNCOMPRESSED",
    "": "UNCOMPRESSED",
    "uncompressed": "UNCOMPRESSED",
    "zlib": "ZLIB",
    "snappy": "SNAPPY",
    "lz4": "LZ4",
    "zstd": "ZSTD",
}
_PARQUET_COMPRESSIONS = {
    "none": "none",
    "": "none",
    "uncompressed": "none",
    "snappy": "snappy",
    "gzip": "gzip",
    "lz4": "lz4",
    "brotli": "brotli",
    "zstd": "zstd",
}


def _id_metadata(field_id: int | None) -> dict[bytes, bytes] | None:
    if field_id is None or field_id < 0:  # Arrow cannot store Java's id -1 of _VERSION
        return None
    return {PARQUET_FIELD_ID_KEY: str(field_id).encode()}


def _arrow_type(data_type: DataType, field_id: int | None, depth: int) -> pa.DataType:
    if isinstance(data_type, RowType):
        return pa.struct([_arrow_field(f, field_id is not None) for f in data_type.fields])
    if isinstance(data_type, ArrayType):
        element_id = (
            None if field_id is None else compute_array_element_field_id(field_id, depth + 1)
        )
        element = pa.field(
            PARQUET_LIST_ELEMENT_NAME,
            _arrow_type(data_type.element, field_id, depth + 1),
            nullable=data_type.element.nullable,
            metadata=_id_metadata(element_id),
        )
        return pa.list_(element)
    simple: dict[type, pa.DataType] = {
        TinyIntType: pa.int8(),
        SmallIntType: pa.int16(),
        IntType: pa.int32(),
        BigIntType: pa.int64(),
        BooleanType: pa.bool_(),
        FloatType: pa.float32(),
        DoubleType: pa.float64(),
        VarCharType: pa.string(),
        VarBinaryType: pa.binary(),
    }
    if type(data_type) in simple:
        return simple[type(data_type)]
    if isinstance(data_type, TimestampType) and data_type.precision <= TIMESTAMP_MILLIS_PRECISION:
        return pa.timestamp("ms")
    raise UnsupportedFeature(f"no manifest Arrow mapping for {data_type}")


def _arrow_field(data_field: DataField, with_ids: bool) -> pa.Field:
    field_id = data_field.id if with_ids else None
    return pa.field(
        data_field.name,
        _arrow_type(data_field.type, field_id, 0),
        nullable=data_field.type.nullable,
        metadata=_id_metadata(field_id),
    )


def compute_arrow_schema(row_type: RowType, *, with_field_ids: bool = False) -> pa.Schema:
    """The Arrow schema that writes ``row_type`` the way Java's ORC/Parquet writers do."""
    return pa.schema([_arrow_field(f, with_field_ids) for f in row_type.fields])


def _arrow_field_paths(data_type: pa.DataType, prefix: str = "") -> set[str]:
    paths: set[str] = set()
    if pa.types.is_struct(data_type):
        for index in range(data_type.num_fields):
            child = data_type.field(index)
            paths |= {prefix + child.name} | _arrow_field_paths(
                child.type, prefix + child.name + "."
            )
    elif pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        paths |= _arrow_field_paths(data_type.value_type, prefix)
    return paths


def _encode_arrow(
    rows: Sequence[RowDict],
    row_type: RowType,
    fmt: ManifestFormat,
    *,
    field_set: FieldSet,
    compression: str,
    zstd_level: int,
) -> bytes:
    with_ids = fmt is ManifestFormat.PARQUET and is_field_in_set(FIELD_IDS_SINCE, field_set)
    table = pa.Table.from_pylist(
        list(rows), schema=compute_arrow_schema(row_type, with_field_ids=with_ids)
    )
    sink = pa.BufferOutputStream()
    name = compression.strip().lower()
    if fmt is ManifestFormat.ORC:
        if name not in _ORC_COMPRESSIONS:
            raise UnsupportedFeature(f"no ORC compression for {compression!r}")
        pa_orc.write_table(table, sink, compression=_ORC_COMPRESSIONS[name])
    else:
        if name not in _PARQUET_COMPRESSIONS:
            raise UnsupportedFeature(f"no Parquet compression for {compression!r}")
        level = zstd_level if name == "zstd" else None
        pa_parquet.write_table(
            table, sink, compression=_PARQUET_COMPRESSIONS[name], compression_level=level
        )
    return bytes(sink.getvalue().to_pybytes())


def check_parquet_structure(data: bytes) -> None:
    """The framing of a whole Parquet manifest file (:mod:`reference.spec.format_framing`)."""
    check_parquet_framing(data[:MAGIC_PROBE_LENGTH], data[-PARQUET_TAIL_LENGTH:], len(data))


def check_orc_structure(data: bytes) -> None:
    """The framing of a whole ORC manifest file (:mod:`reference.spec.format_framing`)."""
    check_orc_framing(data[:MAGIC_PROBE_LENGTH], data[-ORC_MAX_TAIL:], len(data))


def _decode_arrow(data: bytes, fmt: ManifestFormat) -> tuple[set[str], list[RowDict]]:
    if fmt is ManifestFormat.ORC:
        check_orc_structure(data)
    else:
        check_parquet_structure(data)
    try:
        if fmt is ManifestFormat.ORC:
            table = decode_orc_table(data)
        else:
            table = pa_parquet.read_table(io.BytesIO(data))
        rows = table.to_pylist()
        # Field names too come from the bytes (and may not be UTF-8).
        paths = _arrow_field_paths(pa.struct(list(table.schema)))
    except PaimonFormatError:
        raise
    except Exception as error:
        raise PaimonFormatError(
            f"{fmt.value}: undecodable file ({type(error).__name__}: {error})"
        ) from None
    return paths, rows


# --------------------------------------------------------------------------------------------
# Whole files
# --------------------------------------------------------------------------------------------


def _decode_rows(data: bytes, fmt: ManifestFormat) -> tuple[set[str], list[RowDict]]:
    """The field paths of the file's schema and its records as row dicts."""
    if fmt is not ManifestFormat.AVRO:
        return _decode_arrow(data, fmt)
    header, records = decode_avro_container(data)
    for record in records:
        if not isinstance(record, dict):
            raise PaimonFormatError(f"Avro: a manifest record is {record!r}, not a row")
    return compute_avro_field_paths(json.loads(header.schema_json)), records


def _encode_rows(
    rows: list[RowDict],
    row_type: RowType,
    fmt: ManifestFormat,
    *,
    field_set: FieldSet,
    compression: str,
    zstd_level: int,
    avro_sync_marker: bytes | None,
) -> bytes:
    for row in rows:
        check_row(row, row_type, "record")
    if fmt is ManifestFormat.AVRO:
        return encode_avro_container(
            rows,
            compute_avro_schema_json(row_type),
            compute_avro_codec(compression),
            zstd_level=zstd_level,
            sync_marker=avro_sync_marker,
        )
    return _encode_arrow(
        rows, row_type, fmt, field_set=field_set, compression=compression, zstd_level=zstd_level
    )


def _field_paths(data_type: DataType, prefix: str = "") -> set[str]:
    if isinstance(data_type, ArrayType):
        return _field_paths(data_type.element, prefix)
    if not isinstance(data_type, RowType):
        return set()
    paths: set[str] = set()
    for data_field in data_type.fields:
        name = prefix + data_field.name
        paths |= {name} | _field_paths(data_field.type, name + ".")
    return paths


def detect_field_set(data: bytes, fmt: ManifestFormat, kind: MetaFileKind) -> FieldSet:
    """The oldest :class:`FieldSet` whose schema has every field the file has.

    ``kind`` is ``MANIFEST_LIST``, ``MANIFEST`` or ``INDEX_MANIFEST``. Files written by
    unreleased snapshots (a subset of a release's fields) map to the next release. Raises
    :class:`UnsupportedFeature` for a file with fields no known set has.
    """
    if kind not in _RECORD_TYPES:
        raise ValueError(f"{kind} is not a manifest kind")
    paths, _ = _decode_rows(data, fmt)
    for field_set in FieldSet:
        if paths <= _field_paths(_RECORD_TYPES[kind](field_set)):
            return field_set
    unknown = paths - _field_paths(_RECORD_TYPES[kind](LATEST_FIELD_SET))
    raise UnsupportedFeature(f"fields {sorted(unknown)} are newer than any known field set")


def decode_manifest_list(data: bytes, fmt: ManifestFormat) -> list[ManifestFileMeta]:
    """The entries of a manifest list file."""
    _, rows = _decode_rows(data, fmt)
    return [decode_manifest_file_meta_row(row) for row in rows]


def decode_manifest_entries(data: bytes, fmt: ManifestFormat) -> list[ManifestEntry]:
    """The entries of a data manifest file."""
    _, rows = _decode_rows(data, fmt)
    return [decode_manifest_entry_row(row) for row in rows]


def decode_index_manifest(data: bytes, fmt: ManifestFormat) -> list[IndexManifestEntry]:
    """The entries of an index manifest file."""
    _, rows = _decode_rows(data, fmt)
    return [decode_index_manifest_entry_row(row) for row in rows]


def encode_manifest_list(
    metas: Sequence[ManifestFileMeta],
    fmt: ManifestFormat,
    *,
    field_set: FieldSet = DEFAULT_FIELD_SET,
    compression: str = DEFAULT_MANIFEST_COMPRESSION,
    zstd_level: int = DEFAULT_ZSTD_LEVEL,
    avro_sync_marker: bytes | None = None,
) -> bytes:
    """A manifest list file of ``metas`` with the fields of ``field_set``."""
    rows = [encode_manifest_file_meta_row(meta, field_set) for meta in metas]
    return _encode_rows(
        rows,
        compute_manifest_file_meta_type(field_set),
        fmt,
        field_set=field_set,
        compression=compression,
        zstd_level=zstd_level,
        avro_sync_marker=avro_sync_marker,
    )


def encode_manifest_entries(
    entries: Sequence[ManifestEntry],
    fmt: ManifestFormat,
    *,
    field_set: FieldSet = DEFAULT_FIELD_SET,
    compression: str = DEFAULT_MANIFEST_COMPRESSION,
    zstd_level: int = DEFAULT_ZSTD_LEVEL,
    avro_sync_marker: bytes | None = None,
) -> bytes:
    """A data manifest file of ``entries`` with the fields of ``field_set``."""
    rows = [encode_manifest_entry_row(entry, field_set) for entry in entries]
    return _encode_rows(
        rows,
        compute_manifest_entry_type(field_set),
        fmt,
        field_set=field_set,
        compression=compression,
        zstd_level=zstd_level,
        avro_sync_marker=avro_sync_marker,
    )


def encode_index_manifest(
    entries: Sequence[IndexManifestEntry],
    fmt: ManifestFormat,
    *,
    field_set: FieldSet = DEFAULT_FIELD_SET,
    compression: str = DEFAULT_MANIFEST_COMPRESSION,
    zstd_level: int = DEFAULT_ZSTD_LEVEL,
    avro_sync_marker: bytes | None = None,
) -> bytes:
    """An index manifest file of ``entries`` with the fields of ``field_set``."""
    rows = [encode_index_manifest_entry_row(entry, field_set) for entry in entries]
    return _encode_rows(
        rows,
        compute_index_manifest_entry_type(field_set),
        fmt,
        field_set=field_set,
        compression=compression,
        zstd_level=zstd_level,
        avro_sync_marker=avro_sync_marker,
    )


def compute_record_count_delta(entries: Sequence[ManifestEntry]) -> int:
    """Rows added minus rows deleted by ``entries`` (Java ``ManifestEntry.recordCountAdd`` -
    ``recordCountDelete``), used for a snapshot's record counts."""
    return sum(
        entry.file.row_count if entry.kind is FileKind.ADD else -entry.file.row_count
        for entry in entries
    )
