"""Schema files (``schema/schema-N``): the table schema record, its JSON, its rules and evolution.

Spec: ``docs/concepts/spec/schema.md``.
Java: ``org.apache.paimon.schema.TableSchema`` and ``SchemaSerializer`` (paimon-api),
``org.apache.paimon.schema.Schema`` (normalization when a table is created),
``org.apache.paimon.schema.SchemaValidation`` and ``SchemaManager`` (paimon-core). Which type
changes are allowed is :func:`reference.spec.casts.is_castable`.

A schema file is a JSON object with members, in this order: ``version``, ``id``, ``fields`` (see
``reference.spec.types``), ``highestFieldId``, ``partitionKeys``, ``primaryKeys``, ``options``
(string to string), ``comment`` (only when set) and ``timeMillis``.

Versions: 1 was written by Paimon <= 0.7 (files have no ``version`` member), 2 by 0.8, 3 since
0.9. Reading an old file fills in what its writer took for granted: version 1 lacks ``bucket``
means ``bucket = 1``; versions 1 and 2 lacking ``file.format`` mean ``file.format = orc``. A
missing ``timeMillis`` reads as 0. Re-encoding always writes the ``version`` member.

Rules (:func:`validate_schema`) follow the principle of ``reference.spec.options``: a schema is
rejected only for what both 0.9.0 and main reject, each rule with a stable ``code``. Evolution
(:func:`apply_schema_changes`) follows main, whose rules are a superset of 0.9.0's features
(nested column paths, renaming primary-key columns); where 0.9.0 was stricter or looser the
function's docstring says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType

from reference.errors import PaimonFormatError, SpecViolation, UnsupportedFeature
from reference.spec import types as t
from reference.spec.casts import is_castable
from reference.spec.data_file import KEY_FIELD_PREFIX
from reference.spec.file_format import FileFormat, compute_avro_schema
from reference.spec.java_numbers import INT_MAX, INT_MIN
from reference.spec.json_format import (
    JsonValue,
    as_integer,
    as_string,
    as_string_list,
    as_string_map,
    decode_json_object,
    encode_json,
    require_member,
)
from reference.spec.options import (
    BUCKET_DYNAMIC,
    BUCKET_POSTPONE,
    FIELDS_PREFIX,
    IMMUTABLE_OPTIONS,
    ChangelogProducer,
    CoreOptions,
    MergeEngine,
    parse_boolean,
    parse_name_list,
    split_java,
    validate_options,
)

# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------

SCHEMA_VERSION_PAIMON_07 = 1
SCHEMA_VERSION_PAIMON_08 = 2
FIRST_SCHEMA_ID = 0
"""The id of a table's first schema file, ``schema-0`` (Java ``SchemaManager``)."""
CURRENT_SCHEMA_VERSION = 3

LEGACY_DEFAULT_BUCKET = "1"
"""``bucket`` of a version-1 schema that does not set it."""

LEGACY_DEFAULT_FILE_FORMAT = "orc"
"""``file.format`` of a version-1 or version-2 schema that does not set it."""

SYSTEM_FIELD_ID_START = INT_MAX // 2
"""Field ids at or above this are reserved for system columns and ignored by highestFieldId."""

RESERVED_FIELD_NAMES = frozenset({"_SEQUENCE_NUMBER", "_VALUE_KIND"})
"""Column names both Java versions reserve (0.9.0 also reserves ``_VALUE_COUNT``; main also
``_LEVEL``, ``_ROW_ID`` and ``rowkind``)."""

DEFAULT_AGGREGATE_FUNCTION_NAME = "default-aggregate-function"

KEY_UNSUPPORTED_ROOTS = frozenset(
    {
        t.TypeRoot.ARRAY,
        t.TypeRoot.MAP,
        t.TypeRoot.ROW,
        t.TypeRoot.MULTISET,
        t.TypeRoot.VECTOR,
        t.TypeRoot.VARIANT,
    }
)
"""Types a primary-key or partition column may not have (Java
``SchemaValidation.PRIMARY_KEY_UNSUPPORTED_LOGICAL_TYPES``)."""

BUCKET_KEY_UNSUPPORTED_ROOTS = frozenset(
    {t.TypeRoot.ARRAY, t.TypeRoot.MULTISET, t.TypeRoot.MAP, t.TypeRoot.ROW}
)

PRIMARY_KEY_OPTION = "primary-key"
PARTITION_OPTION = "partition"
TABLE_TYPE_OPTION = "type"


# --------------------------------------------------------------------------------------------
# The record
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableSchema:
    """One schema file. Java: ``org.apache.paimon.schema.TableSchema``.

    ``options`` keeps the order of the file (Java does not, but the order is what re-encoding
    a file byte for byte needs).
    """

    version: int
    id: int
    fields: tuple[t.DataField, ...]
    highest_field_id: int
    partition_keys: tuple[str, ...]
    primary_keys: tuple[str, ...]
    options: Mapping[str, str]
    comment: str | None = None
    time_millis: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    @property
    def logical_row_type(self) -> t.RowType:
        return t.RowType(self.fields)

    @property
    def core_options(self) -> CoreOptions:
        return CoreOptions(self.options)

    @property
    def is_primary_key_table(self) -> bool:
        return bool(self.primary_keys)

    @property
    def trimmed_primary_keys(self) -> tuple[str, ...]:
        """Primary key minus partition columns: the ``_KEY_`` columns of data files.

        Raise ``SpecViolation`` when nothing is left (Java refuses such a table)."""
        trimmed = tuple(k for k in self.primary_keys if k not in self.partition_keys)
        if self.primary_keys and not trimmed:
            raise SpecViolation(
                f"primary key {list(self.primary_keys)} consists of partition columns only",
                code="SCHEMA_PRIMARY_KEY_ONLY_PARTITION",
            )
        return trimmed

    @property
    def original_bucket_keys(self) -> tuple[str, ...]:
        """The ``bucket-key`` option split as Java splits it (no trimming), or empty."""
        text = self.options.get("bucket-key")
        if text is None or not text.strip():
            return ()
        return tuple(split_java(text))

    @property
    def bucket_keys(self) -> tuple[str, ...]:
        """``bucket-key`` if set, else the trimmed primary key (empty for append tables)."""
        return self.original_bucket_keys or self.trimmed_primary_keys

    @property
    def num_buckets(self) -> int:
        return self.core_options.bucket

    @property
    def cross_partition_update(self) -> bool:
        """The primary key lacks some partition column, so a key may move between partitions."""
        if not self.primary_keys or not self.partition_keys:
            return False
        return not set(self.partition_keys) <= set(self.primary_keys)

    def project(self, names: Sequence[str]) -> t.RowType:
        """The row type of the named columns that exist, in the given order."""
        by_name = {f.name: f for f in self.fields}
        return t.RowType(tuple(by_name[n] for n in names if n in by_name))

    @property
    def partition_type(self) -> t.RowType:
        return self.project(self.partition_keys)

    @property
    def primary_keys_type(self) -> t.RowType:
        return self.project(self.primary_keys)

    @property
    def trimmed_primary_keys_type(self) -> t.RowType:
        """Type of the key columns of primary-key data files (before the ``_KEY_`` prefix)."""
        return self.project(self.trimmed_primary_keys)

    @property
    def bucket_key_type(self) -> t.RowType:
        return self.project(self.bucket_keys)


# --------------------------------------------------------------------------------------------
# JSON codec
# --------------------------------------------------------------------------------------------


def compute_compatible_options(version: int, options: Mapping[str, str]) -> dict[str, str]:
    """The options an old schema file meant: defaults its writer assumed are made explicit."""
    result = dict(options)
    if version <= SCHEMA_VERSION_PAIMON_07 and "bucket" not in result:
        result["bucket"] = LEGACY_DEFAULT_BUCKET
    if version <= SCHEMA_VERSION_PAIMON_08 and "file.format" not in result:
        result["file.format"] = LEGACY_DEFAULT_FILE_FORMAT
    return result


def iter_field_ids(data_type: t.DataType) -> list[int]:
    """Every field id inside ``data_type`` (nested ROW fields included), in visiting order."""
    if isinstance(data_type, t.RowType):
        ids: list[int] = []
        for data_field in data_type.fields:
            ids.append(data_field.id)
            ids.extend(iter_field_ids(data_field.type))
        return ids
    if isinstance(data_type, (t.ArrayType, t.MultisetType, t.VectorType)):
        return iter_field_ids(data_type.element)
    if isinstance(data_type, t.MapType):
        return iter_field_ids(data_type.key) + iter_field_ids(data_type.value)
    return []


def _decode_version(members: Mapping[str, JsonValue]) -> int:
    if "version" not in members:
        return SCHEMA_VERSION_PAIMON_07
    version = as_integer("version", members["version"], INT_MIN, INT_MAX)
    if version < SCHEMA_VERSION_PAIMON_07:
        raise PaimonFormatError(f"schema version {version} does not exist")
    if version > CURRENT_SCHEMA_VERSION:
        raise UnsupportedFeature(f"schema version {version} is newer than this reader knows")
    return version


def _decode_fields(value: JsonValue) -> tuple[t.DataField, ...]:
    if not isinstance(value, list):
        raise PaimonFormatError("member 'fields' must be an array")
    fields = tuple(t.parse_data_field(item) for item in value)
    for field_id in iter_field_ids(t.RowType(fields)):
        as_integer("fields[].id", field_id, INT_MIN, INT_MAX)
    return fields


def _decode_comment(members: Mapping[str, JsonValue]) -> str | None:
    value = members.get("comment")
    return None if value is None else as_string("comment", value)


def decode_schema(data: bytes | str) -> TableSchema:
    """Decode a schema file. Raise :class:`PaimonFormatError` for malformed JSON or members."""
    members = decode_json_object(data)
    version = _decode_version(members)
    options = as_string_map("options", require_member(members, "options"))
    time_millis = members.get("timeMillis")
    return TableSchema(
        version=version,
        id=as_integer("id", require_member(members, "id"), 0),
        fields=_decode_fields(require_member(members, "fields")),
        highest_field_id=as_integer(
            "highestFieldId", require_member(members, "highestFieldId"), INT_MIN, INT_MAX
        ),
        partition_keys=as_string_list("partitionKeys", require_member(members, "partitionKeys")),
        primary_keys=as_string_list("primaryKeys", require_member(members, "primaryKeys")),
        options=compute_compatible_options(version, options),
        comment=_decode_comment(members),
        time_millis=0 if time_millis is None else as_integer("timeMillis", time_millis),
    )


def schema_to_json(schema: TableSchema) -> dict[str, JsonValue]:
    """The members Java's ``SchemaSerializer`` writes, in its order."""
    members: dict[str, JsonValue] = {
        "version": schema.version,
        "id": schema.id,
        "fields": [t.field_to_json(f) for f in schema.fields],
        "highestFieldId": schema.highest_field_id,
        "partitionKeys": list(schema.partition_keys),
        "primaryKeys": list(schema.primary_keys),
        "options": dict(schema.options),
    }
    if schema.comment is not None:
        members["comment"] = schema.comment
    members["timeMillis"] = schema.time_millis
    return members


def encode_schema(schema: TableSchema) -> str:
    """The text of the schema file Java would write for ``schema``."""
    return encode_json(schema_to_json(schema))


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _violation(code: str, reason: str) -> SpecViolation:
    return SpecViolation(reason, code=code)


def _duplicates(names: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    repeated: list[str] = []
    for name in names:
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    return repeated


def _iter_rows(row: t.RowType) -> list[t.RowType]:
    """``row`` and every ROW type nested anywhere inside it."""
    rows = [row]

    def visit(data_type: t.DataType) -> None:
        if isinstance(data_type, t.RowType):
            rows.extend(_iter_rows(data_type))
        elif isinstance(data_type, (t.ArrayType, t.MultisetType, t.VectorType)):
            visit(data_type.element)
        elif isinstance(data_type, t.MapType):
            visit(data_type.key)
            visit(data_type.value)

    for data_field in row.fields:
        visit(data_field.type)
    return rows


def validate_fields(schema: TableSchema) -> None:
    """Names unique within each row, ids unique table-wide, ``highestFieldId`` covering every
    user id, and no reserved column names."""
    for row in _iter_rows(schema.logical_row_type):
        repeated = _duplicates(row.field_names)
        if repeated:
            raise _violation("SCHEMA_DUPLICATE_FIELD_NAME", f"duplicate field names {repeated}")
    ids = iter_field_ids(schema.logical_row_type)
    repeated_ids = sorted({i for i in ids if ids.count(i) > 1})
    if repeated_ids:
        raise _violation("SCHEMA_DUPLICATE_FIELD_ID", f"duplicate field ids {repeated_ids}")
    user_ids = [i for i in ids if i < SYSTEM_FIELD_ID_START]
    if user_ids and max(user_ids) > schema.highest_field_id:
        raise _violation(
            "SCHEMA_HIGHEST_FIELD_ID",
            f"highestFieldId {schema.highest_field_id} is below field id {max(user_ids)}",
        )
    for name in schema.field_names:
        if name in RESERVED_FIELD_NAMES or name.startswith(KEY_FIELD_PREFIX):
            raise _violation("SCHEMA_RESERVED_FIELD_NAME", f"field name {name!r} is reserved")


def validate_keys(schema: TableSchema) -> None:
    """Partition and primary keys name distinct existing columns of supported types; primary-key
    columns are NOT NULL (unless ``primary-key.nullable``) and not all partition columns.

    Java makes key columns NOT NULL when it creates a table rather than rejecting them, so it
    never writes a nullable key column; this rule rejects files that have one."""
    types_by_name = {f.name: f.type for f in schema.fields}
    for kind, keys in (("partition", schema.partition_keys), ("primary", schema.primary_keys)):
        label = "PARTITION_KEY" if kind == "partition" else "PRIMARY_KEY"
        repeated = _duplicates(keys)
        if repeated:
            raise _violation(f"SCHEMA_DUPLICATE_{label}", f"{kind} key repeats {repeated}")
        unknown = [k for k in keys if k not in types_by_name]
        if unknown:
            raise _violation(f"SCHEMA_UNKNOWN_{label}", f"{kind} key names no column: {unknown}")
        for key in keys:
            if types_by_name[key].root in KEY_UNSUPPORTED_ROOTS:
                raise _violation(
                    "SCHEMA_UNSUPPORTED_KEY_TYPE",
                    f"{kind} key column {key!r} has type {types_by_name[key]}",
                )
    nullable_allowed = parse_boolean(schema.options.get("primary-key.nullable", "false"))
    for key in schema.primary_keys:
        if types_by_name[key].nullable and not nullable_allowed:
            raise _violation(
                "SCHEMA_NULLABLE_PRIMARY_KEY", f"primary key column {key!r} must be NOT NULL"
            )
    if schema.primary_keys and set(schema.primary_keys) <= set(schema.partition_keys):
        raise _violation(
            "SCHEMA_PRIMARY_KEY_ONLY_PARTITION",
            f"primary key {list(schema.primary_keys)} consists of partition columns only",
        )


def validate_bucket(schema: TableSchema) -> None:
    """Bucket keys and bucket mode agree with the keys (Java ``validateBucket`` and
    ``TableSchema.originalBucketKeys``)."""
    names = set(schema.field_names)
    original = schema.original_bucket_keys
    unknown = [k for k in original if k not in names]
    if unknown:
        raise _violation("SCHEMA_UNKNOWN_BUCKET_KEY", f"bucket-key names no column: {unknown}")
    in_partition = [k for k in original if k in schema.partition_keys]
    if in_partition:
        raise _violation(
            "SCHEMA_BUCKET_KEY_IN_PARTITION", f"bucket keys {in_partition} are partition keys"
        )
    outside_key = [k for k in original if schema.primary_keys and k not in schema.primary_keys]
    if outside_key:
        raise _violation(
            "SCHEMA_BUCKET_KEY_NOT_IN_PRIMARY_KEY",
            f"bucket keys {outside_key} are not in the primary key",
        )
    bucket = schema.num_buckets
    if bucket == BUCKET_DYNAMIC:
        if "bucket-key" in schema.options:
            raise _violation(
                "SCHEMA_BUCKET_KEY_WITH_DYNAMIC_BUCKET", "bucket-key needs a fixed bucket number"
            )
        if (
            not schema.primary_keys
            and schema.core_options.full_compaction_delta_commits is not None
        ):
            raise _violation(
                "SCHEMA_APPEND_FULL_COMPACTION",
                "append tables without fixed buckets cannot use full-compaction.delta-commits",
            )
        return
    if bucket == BUCKET_POSTPONE and not schema.primary_keys:
        raise _violation(
            "SCHEMA_POSTPONE_BUCKET_WITHOUT_PRIMARY_KEY", "bucket -2 needs a primary key"
        )
    legacy_single_bucket = bucket == 1 and schema.version == SCHEMA_VERSION_PAIMON_07
    if not schema.primary_keys and not schema.bucket_keys and not legacy_single_bucket:
        raise _violation(
            "SCHEMA_APPEND_BUCKET_WITHOUT_BUCKET_KEY",
            "an append table with fixed buckets needs a bucket-key",
        )
    types_by_name = {f.name: f.type for f in schema.fields}
    nested = [
        k for k in schema.bucket_keys if types_by_name[k].root in BUCKET_KEY_UNSUPPORTED_ROOTS
    ]
    if nested:
        raise _violation("SCHEMA_NESTED_BUCKET_KEY", f"bucket keys {nested} have nested types")


def validate_sequence_field(schema: TableSchema) -> None:
    """``sequence.field`` columns exist once each, carry no aggregate function, and are not used
    with first-row or cross-partition updates."""
    options = schema.core_options
    sequence = options.sequence_fields
    if not sequence:
        return
    for name in sequence:
        if name not in schema.field_names:
            raise _violation(
                "SCHEMA_UNKNOWN_SEQUENCE_FIELD", f"sequence field {name!r} is not a column"
            )
        if options.field_aggregate_function(name) is not None:
            raise _violation(
                "SCHEMA_AGGREGATED_SEQUENCE_FIELD",
                f"sequence field {name!r} has an aggregate function",
            )
    repeated = _duplicates(sequence)
    if repeated:
        raise _violation("SCHEMA_DUPLICATE_SEQUENCE_FIELD", f"sequence fields repeat {repeated}")
    if options.merge_engine is MergeEngine.FIRST_ROW:
        raise _violation("SCHEMA_SEQUENCE_FIELD_FIRST_ROW", "first-row cannot use sequence.field")
    if schema.cross_partition_update:
        raise _violation(
            "SCHEMA_SEQUENCE_FIELD_CROSS_PARTITION",
            "sequence.field cannot be used when the primary key lacks partition columns",
        )


def validate_field_options(schema: TableSchema) -> None:
    """Every ``fields.<names>.<suffix>`` key names existing columns (or the default aggregate)."""
    names = set(schema.field_names)
    for key in schema.options:
        if not key.startswith(FIELDS_PREFIX):
            continue
        segment = key.split(".")[1]
        for name in segment.split(","):
            if name != DEFAULT_AGGREGATE_FUNCTION_NAME and name not in names:
                raise _violation(
                    "SCHEMA_UNKNOWN_OPTION_FIELD", f"option {key!r} names no column {name!r}"
                )


def validate_sequence_groups(schema: TableSchema) -> None:
    """Partial-update sequence groups: columns exist, each column is in one group, and the
    sequence columns of groups have no aggregate function."""
    options = schema.core_options
    if options.merge_engine is not MergeEngine.PARTIAL_UPDATE:
        return
    names = set(schema.field_names)
    owner: dict[str, tuple[str, ...]] = {}
    for sequence_fields, guarded in options.sequence_groups.items():
        for name in (*sequence_fields, *guarded):
            if name not in names:
                raise _violation(
                    "SCHEMA_SEQUENCE_GROUP", f"sequence group names no column {name!r}"
                )
        for name in guarded:
            if name in owner:
                raise _violation(
                    "SCHEMA_SEQUENCE_GROUP", f"column {name!r} is in more than one sequence group"
                )
            owner[name] = sequence_fields
    aggregated = sorted(
        {s for group in owner.values() for s in group if options.field_aggregate_function(s)}
    )
    if aggregated:
        raise _violation(
            "SCHEMA_SEQUENCE_GROUP", f"sequence group fields {aggregated} have aggregate functions"
        )


def validate_table_kind_options(schema: TableSchema) -> None:
    """Options that only make sense with a primary key, and ``rowkind.field``."""
    options = schema.core_options
    if not schema.primary_keys and options.changelog_producer is not ChangelogProducer.NONE:
        raise _violation(
            "SCHEMA_CHANGELOG_WITHOUT_PRIMARY_KEY", "changelog-producer needs a primary key"
        )
    if not schema.primary_keys and parse_boolean(
        schema.options.get("streaming-read-overwrite", "false")
    ):
        raise _violation(
            "SCHEMA_STREAMING_OVERWRITE_WITHOUT_PRIMARY_KEY",
            "streaming-read-overwrite needs a primary key",
        )
    rowkind = options.rowkind_field
    if rowkind is not None and rowkind not in schema.field_names:
        raise _violation(
            "SCHEMA_UNKNOWN_ROWKIND_FIELD", f"rowkind.field {rowkind!r} is not a column"
        )


def validate_file_format_types(schema: TableSchema) -> None:
    """The table's ``file.format`` can hold every column type (Java
    ``SchemaValidation.validateTableSchema`` -> ``FileFormat.validateDataFields``): for Avro,
    the type mapping of :func:`reference.spec.file_format.compute_avro_schema` must exist
    (e.g. no TIMESTAMP above microseconds, no TIME above milliseconds)."""
    if schema.core_options.file_format != FileFormat.AVRO.value:
        return
    for data_field in schema.fields:
        try:
            compute_avro_schema([data_field])
        except UnsupportedFeature as error:
            raise _violation("SCHEMA_FORMAT_TYPE", f"column {data_field.name!r}: {error}") from None


def validate_schema(schema: TableSchema) -> None:
    """Check every rule a table schema must satisfy (Java ``Schema`` normalization checks,
    ``TableSchema``'s constructor and ``SchemaValidation.validateTableSchema``).

    Option values are checked first (:func:`reference.spec.options.validate_options`, raising
    ``InvalidOptionError``); every other rule raises :class:`SpecViolation` with its ``code``.
    """
    validate_options(schema.options)
    validate_fields(schema)
    validate_keys(schema)
    validate_bucket(schema)
    validate_field_options(schema)
    validate_sequence_field(schema)
    validate_sequence_groups(schema)
    validate_table_kind_options(schema)
    validate_file_format_types(schema)


# --------------------------------------------------------------------------------------------
# Creating a schema
# --------------------------------------------------------------------------------------------


def compute_keys_from_options(
    options: Mapping[str, str], keys: Sequence[str], option: str
) -> tuple[dict[str, str], tuple[str, ...]]:
    """Move a ``primary-key`` / ``partition`` option into the key list (Java ``Schema``)."""
    remaining = dict(options)
    if option not in remaining:
        return remaining, tuple(keys)
    if keys:
        raise _violation(
            "SCHEMA_KEYS_DEFINED_TWICE", f"'{option}' is set both as an option and in the DDL"
        )
    text = remaining.pop(option)
    return remaining, tuple(k for k in parse_name_list(text) if k)


def compute_normalized_fields(
    fields: Sequence[t.DataField], primary_keys: Sequence[str], options: Mapping[str, str]
) -> tuple[t.DataField, ...]:
    """Primary-key columns get the nullability ``primary-key.nullable`` asks for."""
    nullable = parse_boolean(options.get("primary-key.nullable", "false"))
    return tuple(
        replace(f, type=f.type.copy(nullable))
        if f.name in primary_keys and f.type.nullable != nullable
        else f
        for f in fields
    )


def compute_table_schema(
    schema_id: int,
    fields: Sequence[t.DataField],
    *,
    partition_keys: Sequence[str],
    primary_keys: Sequence[str],
    options: Mapping[str, str],
    comment: str | None,
    time_millis: int,
) -> TableSchema:
    """A current-version schema from user input, normalized and validated as Java's
    ``Schema`` + ``TableSchema.create`` + ``SchemaValidation`` do."""
    remaining, partitions = compute_keys_from_options(options, partition_keys, PARTITION_OPTION)
    remaining, keys = compute_keys_from_options(remaining, primary_keys, PRIMARY_KEY_OPTION)
    normalized = compute_normalized_fields(fields, keys, remaining)
    ids = [i for i in iter_field_ids(t.RowType(normalized)) if i < SYSTEM_FIELD_ID_START]
    schema = TableSchema(
        version=CURRENT_SCHEMA_VERSION,
        id=schema_id,
        fields=normalized,
        highest_field_id=max(ids, default=-1),
        partition_keys=partitions,
        primary_keys=keys,
        options=remaining,
        comment=comment,
        time_millis=time_millis,
    )
    validate_schema(schema)
    return schema


# --------------------------------------------------------------------------------------------
# Schema changes (Java ``org.apache.paimon.schema.SchemaChange``)
# --------------------------------------------------------------------------------------------


class MoveKind(Enum):
    FIRST = "FIRST"
    AFTER = "AFTER"
    BEFORE = "BEFORE"
    LAST = "LAST"


@dataclass(frozen=True)
class Move:
    """Where a column goes: first, last, or after/before ``reference`` (same nesting level)."""

    field_name: str
    kind: MoveKind
    reference: str | None = None


@dataclass(frozen=True)
class SetOption:
    key: str
    value: str


@dataclass(frozen=True)
class RemoveOption:
    key: str


@dataclass(frozen=True)
class UpdateComment:
    comment: str | None


@dataclass(frozen=True)
class AddColumn:
    """Add a column; ``path`` ends with the new name and may lead into a nested ROW (through
    ARRAY elements and MAP values, one path step each)."""

    path: tuple[str, ...]
    data_type: t.DataType
    description: str | None = None
    move: Move | None = None


@dataclass(frozen=True)
class RenameColumn:
    path: tuple[str, ...]
    new_name: str


@dataclass(frozen=True)
class DropColumn:
    path: tuple[str, ...]


@dataclass(frozen=True)
class UpdateColumnType:
    """Change a column's type; a path step past an ARRAY or MAP column addresses its element or
    value type (``("tags", "element")``)."""

    path: tuple[str, ...]
    new_type: t.DataType
    keep_nullability: bool = False


@dataclass(frozen=True)
class UpdateColumnNullability:
    path: tuple[str, ...]
    nullable: bool


@dataclass(frozen=True)
class UpdateColumnComment:
    path: tuple[str, ...]
    description: str | None


@dataclass(frozen=True)
class UpdateColumnDefaultValue:
    """Main only. The value is stored as given (Java also checks it casts to the type)."""

    path: tuple[str, ...]
    default_value: str | None


@dataclass(frozen=True)
class UpdateColumnPosition:
    move: Move


@dataclass(frozen=True)
class DropPrimaryKey:
    """Main only; allowed only while the table has no snapshot."""


SchemaChange = (
    SetOption
    | RemoveOption
    | UpdateComment
    | AddColumn
    | RenameColumn
    | DropColumn
    | UpdateColumnType
    | UpdateColumnNullability
    | UpdateColumnComment
    | UpdateColumnDefaultValue
    | UpdateColumnPosition
    | DropPrimaryKey
)


# --------------------------------------------------------------------------------------------
# Evolution: nested column paths
# --------------------------------------------------------------------------------------------

Fields = tuple[t.DataField, ...]


def _index_of(fields: Fields, name: str, path: Sequence[str]) -> int:
    for index, candidate in enumerate(fields):
        if candidate.name == name:
            return index
    raise _violation("EVOLUTION_COLUMN_NOT_FOUND", f"column {'.'.join(path)!r} does not exist")


def apply_to_nested_fields(
    fields: Fields, parent: Sequence[str], update: Callable[[Fields], Fields]
) -> Fields:
    """Replace the field list of the ROW that ``parent`` leads to by ``update(fields)``.

    An empty ``parent`` means the top-level columns. Each step names a column of the current
    row; an ARRAY or MAP column consumes one more step (its element / value) before its ROW.
    """
    if not parent:
        return update(fields)
    index = _index_of(fields, parent[0], parent)
    column = fields[index]
    new_type = _apply_to_row_inside(column.type, parent[1:], update, parent)
    return (*fields[:index], replace(column, type=new_type), *fields[index + 1 :])


def _apply_to_row_inside(
    data_type: t.DataType,
    rest: Sequence[str],
    update: Callable[[Fields], Fields],
    path: Sequence[str],
) -> t.DataType:
    if isinstance(data_type, t.RowType):
        return replace(data_type, fields=apply_to_nested_fields(data_type.fields, rest, update))
    if isinstance(data_type, t.ArrayType) and rest:
        return replace(
            data_type, element=_apply_to_row_inside(data_type.element, rest[1:], update, path)
        )
    if isinstance(data_type, t.MapType) and rest:
        return replace(
            data_type, value=_apply_to_row_inside(data_type.value, rest[1:], update, path)
        )
    raise _violation("EVOLUTION_COLUMN_NOT_FOUND", f"column {'.'.join(path)!r} is not a nested row")


def apply_to_column_type(
    fields: Fields, path: Sequence[str], update: Callable[[t.DataType], t.DataType]
) -> Fields:
    """Replace the type ``path`` addresses (a column, or the element / value type inside an
    ARRAY / MAP column when the path continues past it) by ``update(type)``."""
    index = _index_of(fields, path[0], path)
    column = fields[index]
    new_type = _apply_to_type_inside(column.type, path[1:], update, path)
    return (*fields[:index], replace(column, type=new_type), *fields[index + 1 :])


def _apply_to_type_inside(
    data_type: t.DataType,
    rest: Sequence[str],
    update: Callable[[t.DataType], t.DataType],
    path: Sequence[str],
) -> t.DataType:
    if not rest:
        return update(data_type)
    if isinstance(data_type, t.RowType):
        return replace(data_type, fields=apply_to_column_type(data_type.fields, rest, update))
    if isinstance(data_type, t.ArrayType):
        return replace(
            data_type, element=_apply_to_type_inside(data_type.element, rest[1:], update, path)
        )
    if isinstance(data_type, t.MapType):
        return replace(
            data_type, value=_apply_to_type_inside(data_type.value, rest[1:], update, path)
        )
    raise _violation("EVOLUTION_COLUMN_NOT_FOUND", f"column {'.'.join(path)!r} does not exist")


def apply_to_field(
    fields: Fields, path: Sequence[str], update: Callable[[t.DataField], t.DataField]
) -> Fields:
    """Replace the field ``path`` names (its last step, inside the row its parent leads to)."""

    def rewrite(siblings: Fields) -> Fields:
        index = _index_of(siblings, path[-1], path)
        return (*siblings[:index], update(siblings[index]), *siblings[index + 1 :])

    return apply_to_nested_fields(fields, path[:-1], rewrite)


# --------------------------------------------------------------------------------------------
# Evolution: field ids and moves
# --------------------------------------------------------------------------------------------


def compute_reassigned_ids(data_type: t.DataType, next_id: int) -> tuple[t.DataType, int]:
    """Give every ROW field inside ``data_type`` a fresh id from ``next_id`` on.

    Java ``ReassignFieldId``: a row's fields are numbered in order, but a field's nested type is
    numbered *before* the field itself. Returns the new type and the next unused id.
    """
    if isinstance(data_type, t.RowType):
        new_fields: list[t.DataField] = []
        for data_field in data_type.fields:
            nested, next_id = compute_reassigned_ids(data_field.type, next_id)
            new_fields.append(replace(data_field, id=next_id, type=nested))
            next_id += 1
        return replace(data_type, fields=tuple(new_fields)), next_id
    if isinstance(data_type, (t.ArrayType, t.MultisetType, t.VectorType)):
        element, next_id = compute_reassigned_ids(data_type.element, next_id)
        return replace(data_type, element=element), next_id
    if isinstance(data_type, t.MapType):
        key, next_id = compute_reassigned_ids(data_type.key, next_id)
        value, next_id = compute_reassigned_ids(data_type.value, next_id)
        return replace(data_type, key=key, value=value), next_id
    return data_type, next_id


def compute_insert_position(
    siblings: Fields, move: Move | None, before_partition: Sequence[str]
) -> int:
    """Index where an added column goes: per ``move``; else before the first of
    ``before_partition`` present (``add-column-before-partition``); else at the end."""
    names = [f.name for f in siblings]
    if move is None:
        for index, name in enumerate(names):
            if name in before_partition:
                return index
        return len(names)
    if move.kind is MoveKind.FIRST:
        return 0
    if move.kind is MoveKind.LAST:
        return len(names)
    if move.reference not in names:
        raise _violation("EVOLUTION_COLUMN_NOT_FOUND", f"column {move.reference!r} does not exist")
    reference = names.index(move.reference)
    return reference + 1 if move.kind is MoveKind.AFTER else reference


def apply_move(fields: Fields, move: Move) -> Fields:
    """Move a top-level column (Java ``SchemaManager.applyMove``)."""
    names = [f.name for f in fields]
    if move.field_name not in names:
        raise _violation("EVOLUTION_COLUMN_NOT_FOUND", f"column {move.field_name!r} does not exist")
    source = names.index(move.field_name)
    if move.kind in (MoveKind.FIRST, MoveKind.LAST):
        target = 0 if move.kind is MoveKind.FIRST else len(fields) - 1
    else:
        if move.reference not in names:
            raise _violation(
                "EVOLUTION_COLUMN_NOT_FOUND", f"column {move.reference!r} does not exist"
            )
        reference = names.index(move.reference)
        target = reference
        if move.kind is MoveKind.AFTER and source > reference:
            target += 1
        if move.kind is MoveKind.BEFORE and source < reference:
            target -= 1
        target = min(target, len(fields) - 1)
    if target == source:
        raise _violation(
            "EVOLUTION_MOVE_ITSELF", f"column {move.field_name!r} cannot move onto itself"
        )
    remaining = fields[:source] + fields[source + 1 :]
    return (*remaining[:target], fields[source], *remaining[target:])


# --------------------------------------------------------------------------------------------
# Evolution: option rules
# --------------------------------------------------------------------------------------------


def is_unchanged_option(schema: TableSchema, key: str, new_value: str) -> bool:
    """A ``SET`` that changes nothing: the same text; the table ``type`` in another case;
    ``primary-key`` / ``partition`` restating the current keys."""
    old_value = schema.options.get(key)
    if old_value == new_value:
        return True
    if key == TABLE_TYPE_OPTION:
        return new_value.lower() == (old_value or "table").lower()
    if old_value is not None:
        return False
    restated = tuple(k for k in parse_name_list(new_value) if k)
    if key == PRIMARY_KEY_OPTION:
        return restated == schema.primary_keys
    if key == PARTITION_OPTION:
        return restated == schema.partition_keys
    return False


def validate_option_change(
    options: Mapping[str, str], key: str, old_value: str | None, new_value: str | None
) -> None:
    """Rules for changing an option of a table that has snapshots (``new_value`` ``None``
    means a reset). Java ``SchemaManager.checkAlterTableOption`` / ``checkResetTableOption``."""
    if key in IMMUTABLE_OPTIONS:
        raise _violation("EVOLUTION_IMMUTABLE_OPTION", f"option {key!r} cannot be changed")
    if key == "bucket":
        if new_value is None:
            raise _violation("EVOLUTION_BUCKET_CHANGE", "bucket cannot be reset")
        old_bucket = int(old_value) if old_value is not None else BUCKET_DYNAMIC
        if old_bucket == BUCKET_DYNAMIC or int(new_value) == BUCKET_DYNAMIC:
            raise _violation("EVOLUTION_BUCKET_CHANGE", "bucket cannot change from or to -1")
    if key == "deletion-vectors.enabled" and not parse_boolean(
        options.get("deletion-vectors.modifiable", "false")
    ):
        old = parse_boolean(old_value or "false")
        new = parse_boolean(new_value or "false")
        if old != new:
            raise _violation(
                "EVOLUTION_DELETION_VECTORS_CHANGE",
                "deletion vectors cannot be switched unless deletion-vectors.modifiable is set",
            )
    one_way = key in ("ignore-delete", "ignore-update-before") and new_value is not None
    if one_way and parse_boolean(old_value or "false") and not parse_boolean(new_value or "true"):
        raise _violation("EVOLUTION_ONE_WAY_OPTION", f"{key} cannot go from true to false")


def compute_renamed_options(
    options: Mapping[str, str], renames: Mapping[str, str]
) -> dict[str, str]:
    """Options after top-level column renames: names inside ``bucket-key`` and
    ``sequence.field`` values and inside ``fields.<names>.*`` keys (and the values of
    ``sequence-group`` / ``nested-key``) follow the rename. Keys keep their position."""
    if not renames:
        return dict(options)

    def rename_list(text: str) -> str:
        return ",".join(renames.get(name, name) for name in split_java(text))

    result: dict[str, str] = {}
    for key, value in options.items():
        new_key, new_value = key, value
        if key in ("bucket-key", "sequence.field") and value.strip():
            new_value = rename_list(value)
        if key.startswith(FIELDS_PREFIX) and key.count(".") >= 2:
            middle, _, suffix = key[len(FIELDS_PREFIX) :].partition(".")
            if suffix in ("sequence-group", "nested-key"):
                new_key = f"{FIELDS_PREFIX}{rename_list(middle)}.{suffix}"
                new_value = rename_list(value)
            elif middle in renames:
                new_key = f"{FIELDS_PREFIX}{renames[middle]}.{suffix}"
        result[new_key] = new_value
    return result


# --------------------------------------------------------------------------------------------
# Evolution: applying changes
# --------------------------------------------------------------------------------------------


@dataclass
class _Draft:
    """The schema being built while changes are applied (local to :func:`apply_schema_changes`)."""

    fields: Fields
    options: dict[str, str]
    comment: str | None
    primary_keys: tuple[str, ...]
    highest_field_id: int
    renames: dict[str, str] = field(default_factory=dict)


def _assert_absent(siblings: Fields, name: str) -> None:
    if any(f.name == name for f in siblings):
        raise _violation("EVOLUTION_COLUMN_EXISTS", f"column {name!r} already exists")


def _apply_set_option(
    old: TableSchema, draft: _Draft, change: SetOption, has_snapshots: bool
) -> None:
    if is_unchanged_option(old, change.key, change.value):
        return
    if change.key == TABLE_TYPE_OPTION:
        raise _violation("EVOLUTION_IMMUTABLE_OPTION", "the table type cannot be changed")
    if has_snapshots:
        old_value = old.options.get(change.key)
        validate_option_change(old.options, change.key, old_value, change.value)
    draft.options[change.key] = change.value


def _apply_remove_option(
    old: TableSchema, draft: _Draft, change: RemoveOption, has_snapshots: bool
) -> None:
    if change.key == TABLE_TYPE_OPTION:
        raise _violation("EVOLUTION_IMMUTABLE_OPTION", "the table type cannot be changed")
    if has_snapshots:
        validate_option_change(old.options, change.key, old.options.get(change.key), None)
    draft.options.pop(change.key, None)


def _apply_add_column(old: TableSchema, draft: _Draft, change: AddColumn) -> None:
    if not change.data_type.nullable:
        raise _violation(
            "EVOLUTION_ADD_NOT_NULL", f"added column {change.path[-1]!r} must be nullable"
        )
    column_id = draft.highest_field_id + 1
    data_type, next_id = compute_reassigned_ids(change.data_type, column_id + 1)
    draft.highest_field_id = next_id - 1
    column = t.DataField(column_id, change.path[-1], data_type, change.description)
    before_partition: Sequence[str] = ()
    if len(change.path) == 1 and parse_boolean(
        old.options.get("add-column-before-partition", "false")
    ):
        before_partition = old.partition_keys

    def insert(siblings: Fields) -> Fields:
        _assert_absent(siblings, column.name)
        position = compute_insert_position(siblings, change.move, before_partition)
        return (*siblings[:position], column, *siblings[position:])

    draft.fields = apply_to_nested_fields(draft.fields, change.path[:-1], insert)


def _apply_rename_column(old: TableSchema, draft: _Draft, change: RenameColumn) -> None:
    if len(change.path) == 1 and change.path[0] in old.partition_keys:
        raise _violation(
            "EVOLUTION_RENAME_PARTITION_KEY",
            f"partition column {change.path[0]!r} cannot be renamed",
        )

    def rename(siblings: Fields) -> Fields:
        index = _index_of(siblings, change.path[-1], change.path)
        _assert_absent(siblings, change.new_name)
        renamed = replace(siblings[index], name=change.new_name)
        return (*siblings[:index], renamed, *siblings[index + 1 :])

    draft.fields = apply_to_nested_fields(draft.fields, change.path[:-1], rename)
    if len(change.path) == 1:
        draft.renames[change.path[0]] = change.new_name


def _apply_drop_column(old: TableSchema, draft: _Draft, change: DropColumn) -> None:
    name = change.path[0]
    if len(change.path) == 1 and (name in old.partition_keys or name in old.primary_keys):
        raise _violation("EVOLUTION_DROP_KEY", f"key column {name!r} cannot be dropped")

    def drop(siblings: Fields) -> Fields:
        index = _index_of(siblings, change.path[-1], change.path)
        remaining = siblings[:index] + siblings[index + 1 :]
        if not remaining:
            raise _violation("EVOLUTION_DROP_ALL_FIELDS", "cannot drop every field of a row")
        return remaining

    draft.fields = apply_to_nested_fields(draft.fields, change.path[:-1], drop)


def _check_nullability_change(
    options: Mapping[str, str], path: Sequence[str], was_nullable: bool, nullable: bool
) -> None:
    forbidden = parse_boolean(options.get("alter-column-null-to-not-null.disabled", "true"))
    if forbidden and was_nullable and not nullable:
        raise _violation(
            "EVOLUTION_NULL_TO_NOT_NULL",
            f"column {'.'.join(path)!r} cannot become NOT NULL "
            "(set alter-column-null-to-not-null.disabled = false to allow it)",
        )


def _apply_update_column_type(old: TableSchema, draft: _Draft, change: UpdateColumnType) -> None:
    if len(change.path) == 1 and change.path[0] in old.partition_keys:
        raise _violation(
            "EVOLUTION_UPDATE_KEY_TYPE", f"partition column {change.path[0]!r} cannot change type"
        )
    if len(change.path) == 1 and change.path[0] in old.primary_keys:
        raise _violation(
            "EVOLUTION_UPDATE_KEY_TYPE", f"primary key column {change.path[0]!r} cannot change type"
        )
    allow_explicit = not parse_boolean(old.options.get("disable-explicit-type-casting", "false"))

    def retype(source: t.DataType) -> t.DataType:
        target = change.new_type
        if change.keep_nullability:
            target = target.copy(source.nullable)
        else:
            _check_nullability_change(old.options, change.path, source.nullable, target.nullable)
        if not is_castable(source, target, allow_explicit):
            raise _violation(
                "EVOLUTION_INCOMPATIBLE_TYPE",
                f"column {'.'.join(change.path)!r} cannot change from {source} to {target}",
            )
        return target

    draft.fields = apply_to_column_type(draft.fields, change.path, retype)


def _apply_update_nullability(
    old: TableSchema, draft: _Draft, change: UpdateColumnNullability
) -> None:
    if change.nullable and len(change.path) == 1 and change.path[0] in old.primary_keys:
        raise _violation("EVOLUTION_NULLABLE_PRIMARY_KEY", "primary key columns stay NOT NULL")

    def renull(source: t.DataType) -> t.DataType:
        _check_nullability_change(old.options, change.path, source.nullable, change.nullable)
        return source.copy(change.nullable)

    draft.fields = apply_to_column_type(draft.fields, change.path, renull)


def _apply_change(
    old: TableSchema, draft: _Draft, change: SchemaChange, has_snapshots: bool
) -> None:
    if isinstance(change, SetOption):
        _apply_set_option(old, draft, change, has_snapshots)
    elif isinstance(change, RemoveOption):
        _apply_remove_option(old, draft, change, has_snapshots)
    elif isinstance(change, UpdateComment):
        draft.comment = change.comment
    elif isinstance(change, AddColumn):
        _apply_add_column(old, draft, change)
    elif isinstance(change, RenameColumn):
        _apply_rename_column(old, draft, change)
    elif isinstance(change, DropColumn):
        _apply_drop_column(old, draft, change)
    elif isinstance(change, UpdateColumnType):
        _apply_update_column_type(old, draft, change)
    elif isinstance(change, UpdateColumnNullability):
        _apply_update_nullability(old, draft, change)
    elif isinstance(change, UpdateColumnComment):
        draft.fields = apply_to_field(
            draft.fields, change.path, lambda f: replace(f, description=change.description)
        )
    elif isinstance(change, UpdateColumnDefaultValue):
        draft.fields = apply_to_field(
            draft.fields, change.path, lambda f: replace(f, default_value=change.default_value)
        )
    elif isinstance(change, UpdateColumnPosition):
        draft.fields = apply_move(draft.fields, change.move)
    elif isinstance(change, DropPrimaryKey):
        if has_snapshots:
            raise _violation(
                "EVOLUTION_DROP_PRIMARY_KEY",
                "the primary key of a non-empty table cannot be dropped",
            )
        draft.primary_keys = ()


def apply_schema_changes(
    old: TableSchema,
    changes: Sequence[SchemaChange],
    *,
    has_snapshots: bool,
    time_millis: int,
) -> TableSchema:
    """The next schema after ``changes`` (Java ``SchemaManager.generateTableSchema``, main).

    Changes apply in order to a draft; then column renames carry over to the primary key and to
    options naming columns, the draft is normalized like a new table (``primary-key`` /
    ``partition`` options become keys, primary-key columns NOT NULL) and validated. The result
    has id ``old.id + 1``, the current version, and new columns numbered from
    ``highestFieldId + 1``. Violations raise :class:`SpecViolation` with an ``EVOLUTION_*`` or
    ``SCHEMA_*`` code.

    Differences from 0.9.0, which this follows main on: 0.9.0 could neither rename nor drop a
    primary-key column (main renames), could change a primary-key column's type (main cannot),
    and let a nullable column become NOT NULL (main forbids it unless
    ``alter-column-null-to-not-null.disabled`` is false); 0.9.0 did not rename columns inside
    options.
    """
    draft = _Draft(
        fields=old.fields,
        options=dict(old.options),
        comment=old.comment,
        primary_keys=old.primary_keys,
        highest_field_id=old.highest_field_id,
    )
    for change in changes:
        _apply_change(old, draft, change, has_snapshots)
    primary_keys = tuple(draft.renames.get(k, k) for k in draft.primary_keys)
    options = compute_renamed_options(draft.options, draft.renames)
    options, partition_keys = compute_keys_from_options(
        options, old.partition_keys, PARTITION_OPTION
    )
    options, primary_keys = compute_keys_from_options(options, primary_keys, PRIMARY_KEY_OPTION)
    new_schema = TableSchema(
        version=CURRENT_SCHEMA_VERSION,
        id=old.id + 1,
        fields=compute_normalized_fields(draft.fields, primary_keys, options),
        highest_field_id=draft.highest_field_id,
        partition_keys=partition_keys,
        primary_keys=primary_keys,
        options=options,
        comment=draft.comment,
        time_millis=time_millis,
    )
    validate_schema(new_schema)
    return new_schema
