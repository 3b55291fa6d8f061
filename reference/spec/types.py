"""Paimon data types and their JSON form in schema files.

Spec: ``docs/concepts/spec/schema.md`` (DataField) and the data-type page of the seeds.
Java: ``org.apache.paimon.types.*`` and ``org.apache.paimon.types.DataTypeJsonParser``.

Rules stated here:

* An atomic type is written as its SQL string, e.g. ``"INT NOT NULL"``, ``"VARCHAR(10)"``,
  ``"DECIMAL(10, 2)"``, ``"TIMESTAMP(3) WITH LOCAL TIME ZONE"``. ``VARCHAR(2147483647)`` is
  written ``STRING`` and ``VARBINARY(2147483647)`` is written ``BYTES``.
* A nested type is a JSON object whose ``type`` is ``ARRAY``, ``MULTISET``, ``MAP``, ``ROW`` or
  ``VECTOR``, followed by `` NOT NULL`` when not nullable, with ``element`` / ``key`` and
  ``value`` / ``fields`` / ``length`` members.
* A field is ``{"id", "name", "type"[, "description"][, "defaultValue"]}``; ids inside nested ROW
  types are table-wide field ids too.
* The parser is lenient the way Java's is: keywords are case-insensitive, ``INTEGER`` means INT,
  ``NUMERIC``/``DEC`` mean DECIMAL, ``DOUBLE PRECISION`` means DOUBLE, ``TIMESTAMP_LTZ(p)`` means a
  local-zoned timestamp, ``WITHOUT TIME ZONE`` is noise, and ``T ARRAY`` / ``T MULTISET`` are suffix
  forms of the nested types.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, ClassVar, TypeAlias

from reference.errors import PaimonFormatError, UnsupportedFeature

MAX_LENGTH = 2_147_483_647
"""Length of ``STRING`` / ``BYTES`` (Java ``Integer.MAX_VALUE``)."""

DECIMAL_MIN_PRECISION = 1
DECIMAL_MAX_PRECISION = 38
DECIMAL_DEFAULT_PRECISION = 10
DECIMAL_DEFAULT_SCALE = 0
DECIMAL_MAX_COMPACT_PRECISION = 18
"""A DECIMAL of at most this precision fits in a long (Java ``Decimal.MAX_COMPACT_PRECISION``)."""

TIME_DEFAULT_PRECISION = 0
TIMESTAMP_DEFAULT_PRECISION = 6
TIMESTAMP_MAX_PRECISION = 9
TIMESTAMP_MAX_COMPACT_PRECISION = 3
"""A timestamp of at most this precision is stored as epoch millis only (Java ``Timestamp``)."""

NOT_NULL_SUFFIX = " NOT NULL"


class TypeRoot(Enum):
    """The kind of a data type (Java ``DataTypeRoot``)."""

    CHAR = "CHAR"
    VARCHAR = "VARCHAR"
    BOOLEAN = "BOOLEAN"
    BINARY = "BINARY"
    VARBINARY = "VARBINARY"
    DECIMAL = "DECIMAL"
    TINYINT = "TINYINT"
    SMALLINT = "SMALLINT"
    INTEGER = "INTEGER"
    BIGINT = "BIGINT"
    FLOAT = "FLOAT"
    DOUBLE = "DOUBLE"
    DATE = "DATE"
    TIME_WITHOUT_TIME_ZONE = "TIME_WITHOUT_TIME_ZONE"
    TIMESTAMP_WITHOUT_TIME_ZONE = "TIMESTAMP_WITHOUT_TIME_ZONE"
    TIMESTAMP_WITH_LOCAL_TIME_ZONE = "TIMESTAMP_WITH_LOCAL_TIME_ZONE"
    VARIANT = "VARIANT"
    BLOB = "BLOB"
    ARRAY = "ARRAY"
    VECTOR = "VECTOR"
    MULTISET = "MULTISET"
    MAP = "MAP"
    ROW = "ROW"


# --------------------------------------------------------------------------------------------
# Type records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DataType:
    """Base of all types. ``nullable`` is part of the type, as in Java."""

    nullable: bool = field(default=True, kw_only=True)
    root: ClassVar[TypeRoot]

    def to_sql(self) -> str:
        """The SQL string Java's ``asSQLString`` prints."""
        return self._sql_body() + ("" if self.nullable else NOT_NULL_SUFFIX)

    def _sql_body(self) -> str:
        raise NotImplementedError

    def copy(self, nullable: bool) -> DataType:
        return replace(self, nullable=nullable)

    def __str__(self) -> str:
        return self.to_sql()


@dataclass(frozen=True)
class CharType(DataType):
    length: int = 1
    root: ClassVar[TypeRoot] = TypeRoot.CHAR

    def _sql_body(self) -> str:
        return f"CHAR({self.length})"


@dataclass(frozen=True)
class VarCharType(DataType):
    length: int = 1
    root: ClassVar[TypeRoot] = TypeRoot.VARCHAR

    def _sql_body(self) -> str:
        return "STRING" if self.length == MAX_LENGTH else f"VARCHAR({self.length})"


@dataclass(frozen=True)
class BooleanType(DataType):
    root: ClassVar[TypeRoot] = TypeRoot.BOOLEAN

    def _sql_body(self) -> str:
        return "BOOLEAN"


@dataclass(frozen=True)
class BinaryType(DataType):
    length: int = 1
    root: ClassVar[TypeRoot] = TypeRoot.BINARY

    def _sql_body(self) -> str:
        return f"BINARY({self.length})"


@dataclass(frozen=True)
class VarBinaryType(DataType):
    length: int = 1
    root: ClassVar[TypeRoot] = TypeRoot.VARBINARY

    def _sql_body(self) -> str:
        return "BYTES" if self.length == MAX_LENGTH else f"VARBINARY({self.length})"


@dataclass(frozen=True)
class DecimalType(DataType):
    precision: int = DECIMAL_DEFAULT_PRECISION
    scale: int = DECIMAL_DEFAULT_SCALE
    root: ClassVar[TypeRoot] = TypeRoot.DECIMAL

    def _sql_body(self) -> str:
        return f"DECIMAL({self.precision}, {self.scale})"


@dataclass(frozen=True)
class TinyIntType(DataType):
    root: ClassVar[TypeRoot] = TypeRoot.TINYINT

    def _sql_body(self) -> str:
        return "TINYINT"


@dataclass(frozen=True)
class SmallIntType(DataType):
    root: ClassVar[TypeRoot] = TypeRoot.SMALLINT

    def _sql_body(self) -> str:
        return "SMALLINT"


@dataclass(frozen=True)
class IntType(DataType):
    root: ClassVar[TypeRoot] = TypeRoot.INTEGER

    def _sql_body(self) -> str:
        return "INT"


@dataclass(frozen=True)
class BigIntType(DataType):
    root: ClassVar[TypeRoot] = TypeRoot.BIGINT

    def _sql_body(self) -> str:
        return "BIGINT"


@dataclass(frozen=True)
class FloatType(DataType):
    root: ClassVar[TypeRoot] = TypeRoot.FLOAT

    def _sql_body(self) -> str:
        return "FLOAT"


@dataclass(frozen=True)
class DoubleType(DataType):
    root: ClassVar[TypeRoot] = TypeRoot.DOUBLE

    def _sql_body(self) -> str:
        return "DOUBLE"


@dataclass(frozen=True)
class DateType(DataType):
    root: ClassVar[TypeRoot] = TypeRoot.DATE

    def _sql_body(self) -> str:
        return "DATE"


@dataclass(frozen=True)
class TimeType(DataType):
    precision: int = TIME_DEFAULT_PRECISION
    root: ClassVar[TypeRoot] = TypeRoot.TIME_WITHOUT_TIME_ZONE

    def _sql_body(self) -> str:
        return f"TIME({self.precision})"


@dataclass(frozen=True)
class TimestampType(DataType):
    precision: int = TIMESTAMP_DEFAULT_PRECISION
    root: ClassVar[TypeRoot] = TypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE

    def _sql_body(self) -> str:
        return f"TIMESTAMP({self.precision})"


@dataclass(frozen=True)
class LocalZonedTimestampType(DataType):
    precision: int = TIMESTAMP_DEFAULT_PRECISION
    root: ClassVar[TypeRoot] = TypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE

    def _sql_body(self) -> str:
        return f"TIMESTAMP({self.precision}) WITH LOCAL TIME ZONE"


@dataclass(frozen=True)
class VariantType(DataType):
    root: ClassVar[TypeRoot] = TypeRoot.VARIANT

    def _sql_body(self) -> str:
        return "VARIANT"


@dataclass(frozen=True)
class BlobType(DataType):
    root: ClassVar[TypeRoot] = TypeRoot.BLOB

    def _sql_body(self) -> str:
        return "BLOB"


@dataclass(frozen=True)
class ArrayType(DataType):
    element: DataType = field(default_factory=IntType)
    root: ClassVar[TypeRoot] = TypeRoot.ARRAY

    def _sql_body(self) -> str:
        return f"ARRAY<{self.element.to_sql()}>"


@dataclass(frozen=True)
class VectorType(DataType):
    element: DataType = field(default_factory=FloatType)
    length: int = 1
    root: ClassVar[TypeRoot] = TypeRoot.VECTOR

    def _sql_body(self) -> str:
        return f"VECTOR<{self.element.to_sql()}, {self.length}>"


@dataclass(frozen=True)
class MultisetType(DataType):
    element: DataType = field(default_factory=IntType)
    root: ClassVar[TypeRoot] = TypeRoot.MULTISET

    def _sql_body(self) -> str:
        return f"MULTISET<{self.element.to_sql()}>"


@dataclass(frozen=True)
class MapType(DataType):
    key: DataType = field(default_factory=IntType)
    value: DataType = field(default_factory=IntType)
    root: ClassVar[TypeRoot] = TypeRoot.MAP

    def _sql_body(self) -> str:
        return f"MAP<{self.key.to_sql()}, {self.value.to_sql()}>"


@dataclass(frozen=True)
class DataField:
    """A column: a table-wide ``id`` (stable across renames), a name and a type.

    Java: ``org.apache.paimon.types.DataField``.
    """

    id: int
    name: str
    type: DataType
    description: str | None = None
    default_value: str | None = None

    def to_sql(self) -> str:
        text = f"{_escape_identifier(self.name)} {self.type.to_sql()}"
        if self.description:
            text += " COMMENT '" + self.description.replace("'", "''") + "'"
        if self.default_value is not None:
            text += f" DEFAULT {self.default_value}"
        return text


@dataclass(frozen=True)
class RowType(DataType):
    fields: tuple[DataField, ...] = ()
    root: ClassVar[TypeRoot] = TypeRoot.ROW

    def _sql_body(self) -> str:
        return "ROW<" + ", ".join(f.to_sql() for f in self.fields) + ">"

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def field_by_name(self, name: str) -> DataField:
        for candidate in self.fields:
            if candidate.name == name:
                return candidate
        raise KeyError(name)

    def field_index(self, name: str) -> int:
        for index, candidate in enumerate(self.fields):
            if candidate.name == name:
                return index
        raise KeyError(name)

    def project(self, names: list[str]) -> RowType:
        """The row type of the named fields, in the given order."""
        return RowType(tuple(self.field_by_name(n) for n in names), nullable=self.nullable)


def _escape_identifier(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


# --------------------------------------------------------------------------------------------
# Families (used by codecs, stats and merge functions)
# --------------------------------------------------------------------------------------------

INTEGER_ROOTS = frozenset({TypeRoot.TINYINT, TypeRoot.SMALLINT, TypeRoot.INTEGER, TypeRoot.BIGINT})
FLOATING_ROOTS = frozenset({TypeRoot.FLOAT, TypeRoot.DOUBLE})
NUMERIC_ROOTS = INTEGER_ROOTS | FLOATING_ROOTS | {TypeRoot.DECIMAL}
CHARACTER_ROOTS = frozenset({TypeRoot.CHAR, TypeRoot.VARCHAR})
BINARY_ROOTS = frozenset({TypeRoot.BINARY, TypeRoot.VARBINARY})
TIMESTAMP_ROOTS = frozenset(
    {TypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE, TypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE}
)
NESTED_ROOTS = frozenset(
    {TypeRoot.ARRAY, TypeRoot.VECTOR, TypeRoot.MULTISET, TypeRoot.MAP, TypeRoot.ROW}
)

IntegerBits = {
    TypeRoot.TINYINT: 8,
    TypeRoot.SMALLINT: 16,
    TypeRoot.INTEGER: 32,
    TypeRoot.BIGINT: 64,
}
"""Width of each integer type; values outside ``[-2**(b-1), 2**(b-1))`` are invalid."""


def is_nested(data_type: DataType) -> bool:
    return data_type.root in NESTED_ROOTS


def timestamp_precision(data_type: DataType) -> int:
    """The precision of a TIMESTAMP or TIMESTAMP WITH LOCAL TIME ZONE type."""
    if isinstance(data_type, (TimestampType, LocalZonedTimestampType)):
        return data_type.precision
    raise TypeError(f"{data_type} is not a timestamp type")


# --------------------------------------------------------------------------------------------
# JSON: serialize
# --------------------------------------------------------------------------------------------

TypeJson: TypeAlias = "str | dict[str, Any]"


def type_to_json(data_type: DataType) -> TypeJson:
    """The JSON value Java writes for a type (``DataType.serializeJson``)."""
    suffix = "" if data_type.nullable else NOT_NULL_SUFFIX
    if isinstance(data_type, ArrayType):
        return {"type": "ARRAY" + suffix, "element": type_to_json(data_type.element)}
    if isinstance(data_type, MultisetType):
        return {"type": "MULTISET" + suffix, "element": type_to_json(data_type.element)}
    if isinstance(data_type, VectorType):
        return {
            "type": "VECTOR" + suffix,
            "element": type_to_json(data_type.element),
            "length": data_type.length,
        }
    if isinstance(data_type, MapType):
        return {
            "type": "MAP" + suffix,
            "key": type_to_json(data_type.key),
            "value": type_to_json(data_type.value),
        }
    if isinstance(data_type, RowType):
        return {"type": "ROW" + suffix, "fields": [field_to_json(f) for f in data_type.fields]}
    return data_type.to_sql()


def field_to_json(data_field: DataField) -> dict[str, Any]:
    """The JSON object Java writes for a field, members in Java's order."""
    out: dict[str, Any] = {
        "id": data_field.id,
        "name": data_field.name,
        "type": type_to_json(data_field.type),
    }
    if data_field.description is not None:
        out["description"] = data_field.description
    if data_field.default_value is not None:
        out["defaultValue"] = data_field.default_value
    return out


# --------------------------------------------------------------------------------------------
# JSON: parse
# --------------------------------------------------------------------------------------------


def parse_data_type(value: object) -> DataType:
    """Parse the JSON value of a type; raise :class:`PaimonFormatError` on anything malformed."""
    if isinstance(value, str):
        return parse_sql_type(value)
    if isinstance(value, Mapping):
        return _parse_nested_type(value)
    raise PaimonFormatError(f"a data type must be a string or an object, got {value!r}")


def parse_data_field(value: object) -> DataField:
    """Parse one ``{"id", "name", "type", ...}`` field object."""
    if not isinstance(value, Mapping):
        raise PaimonFormatError(f"a field must be an object, got {value!r}")
    for member in ("id", "name", "type"):
        if member not in value:
            raise PaimonFormatError(f"field {dict(value)!r} has no '{member}'")
    field_id, name = value["id"], value["name"]
    if not isinstance(field_id, int) or isinstance(field_id, bool):
        raise PaimonFormatError(f"field id must be an integer, got {field_id!r}")
    if not isinstance(name, str):
        raise PaimonFormatError(f"field name must be a string, got {name!r}")
    description = value.get("description")
    default_value = value.get("defaultValue")
    return DataField(
        id=field_id,
        name=name,
        type=parse_data_type(value["type"]),
        description=None if description is None else str(description),
        default_value=None if default_value is None else str(default_value),
    )


def _parse_nested_type(value: Mapping[str, Any]) -> DataType:
    kind = value.get("type")
    if not isinstance(kind, str):
        raise PaimonFormatError(f"nested type object has no string 'type': {dict(value)!r}")
    nullable = "NOT NULL" not in kind.upper()
    head = kind.strip().upper()
    try:
        if head.startswith("ARRAY"):
            return ArrayType(parse_data_type(value["element"]), nullable=nullable)
        if head.startswith("VECTOR"):
            return VectorType(
                parse_data_type(value["element"]), int(value["length"]), nullable=nullable
            )
        if head.startswith("MULTISET"):
            return MultisetType(parse_data_type(value["element"]), nullable=nullable)
        if head.startswith("MAP"):
            return MapType(
                parse_data_type(value["key"]), parse_data_type(value["value"]), nullable=nullable
            )
        if head.startswith("ROW"):
            fields = value["fields"]
            if not isinstance(fields, list):
                raise PaimonFormatError(f"ROW 'fields' must be a list, got {fields!r}")
            return RowType(tuple(parse_data_field(f) for f in fields), nullable=nullable)
    except KeyError as missing:
        raise PaimonFormatError(f"nested type {kind!r} has no {missing}") from None
    raise UnsupportedFeature(f"unknown nested data type {kind!r}")


_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|([(),<>]))")


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    position = 0
    stripped = text.rstrip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None:
            raise PaimonFormatError(f"cannot parse data type {text!r} at position {position}")
        tokens.append(match.group(0).strip().upper())
        position = match.end()
    return tokens


class _SqlTypeParser:
    """A recursive-descent parser over the tokens of an atomic SQL type string."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.position = 0

    def fail(self, reason: str) -> PaimonFormatError:
        return PaimonFormatError(f"cannot parse data type {self.text!r}: {reason}")

    def peek(self, offset: int = 0) -> str | None:
        index = self.position + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None:
            raise self.fail("unexpected end")
        if expected is not None and token != expected:
            raise self.fail(f"expected {expected!r}, got {token!r}")
        self.position += 1
        return token

    def take_int(self) -> int:
        token = self.take()
        if not token.isdigit():
            raise self.fail(f"expected an integer, got {token!r}")
        return int(token)

    def parse(self) -> DataType:
        data_type = self.parse_with_nullability()
        if self.peek() is not None:
            raise self.fail(f"unexpected token {self.peek()!r}")
        return data_type

    def parse_with_nullability(self) -> DataType:
        data_type = self.parse_by_keyword().copy(self.parse_nullability())
        if self.peek() == "ARRAY":
            self.take()
            return ArrayType(data_type, nullable=self.parse_nullability())
        if self.peek() == "MULTISET":
            self.take()
            return MultisetType(data_type, nullable=self.parse_nullability())
        return data_type

    def parse_nullability(self) -> bool:
        if self.peek() == "NOT" and self.peek(1) == "NULL":
            self.position += 2
            return False
        if self.peek() == "NULL":
            self.position += 1
        return True

    def optional_parameters(self) -> list[int]:
        if self.peek() != "(":
            return []
        self.take("(")
        values = [self.take_int()]
        while self.peek() == ",":
            self.take(",")
            values.append(self.take_int())
        self.take(")")
        return values

    def optional_length(self, default: int) -> int:
        values = self.optional_parameters()
        if len(values) > 1:
            raise self.fail("a length takes one parameter")
        return values[0] if values else default

    def skip_without_time_zone(self) -> None:
        if self.peek() == "WITHOUT":
            for word in ("WITHOUT", "TIME", "ZONE"):
                self.take(word)

    def parse_by_keyword(self) -> DataType:
        keyword = self.take()
        simple: dict[str, DataType] = {
            "STRING": VarCharType(MAX_LENGTH),
            "BYTES": VarBinaryType(MAX_LENGTH),
            "BOOLEAN": BooleanType(),
            "TINYINT": TinyIntType(),
            "SMALLINT": SmallIntType(),
            "INT": IntType(),
            "INTEGER": IntType(),
            "BIGINT": BigIntType(),
            "FLOAT": FloatType(),
            "DATE": DateType(),
            "VARIANT": VariantType(),
            "BLOB": BlobType(),
        }
        if keyword in simple:
            return simple[keyword]
        if keyword == "CHAR":
            return CharType(self.optional_length(1))
        if keyword == "VARCHAR":
            return VarCharType(self.optional_length(1))
        if keyword == "BINARY":
            return BinaryType(self.optional_length(1))
        if keyword == "VARBINARY":
            return VarBinaryType(self.optional_length(1))
        if keyword in ("DECIMAL", "NUMERIC", "DEC"):
            return self.parse_decimal()
        if keyword == "DOUBLE":
            if self.peek() == "PRECISION":
                self.take()
            return DoubleType()
        if keyword == "TIME":
            precision = self.optional_length(TIME_DEFAULT_PRECISION)
            self.skip_without_time_zone()
            return TimeType(precision)
        if keyword == "TIMESTAMP":
            return self.parse_timestamp()
        if keyword == "TIMESTAMP_LTZ":
            return LocalZonedTimestampType(self.optional_length(TIMESTAMP_DEFAULT_PRECISION))
        if keyword in ("GEOMETRY", "GEOGRAPHY", "RAW", "INTERVAL"):
            raise UnsupportedFeature(f"data type {self.text!r} is not supported")
        raise self.fail(f"unknown type keyword {keyword!r}")

    def parse_decimal(self) -> DecimalType:
        values = self.optional_parameters()
        if len(values) > 2:
            raise self.fail("DECIMAL takes at most two parameters")
        precision = values[0] if values else DECIMAL_DEFAULT_PRECISION
        scale = values[1] if len(values) == 2 else DECIMAL_DEFAULT_SCALE
        return DecimalType(precision, scale)

    def parse_timestamp(self) -> DataType:
        precision = self.optional_length(TIMESTAMP_DEFAULT_PRECISION)
        if self.peek() == "WITHOUT":
            self.skip_without_time_zone()
        elif self.peek() == "WITH":
            for word in ("WITH", "LOCAL", "TIME", "ZONE"):
                self.take(word)
            return LocalZonedTimestampType(precision)
        return TimestampType(precision)


def parse_sql_type(text: str) -> DataType:
    """Parse an atomic type string such as ``"DECIMAL(10, 2) NOT NULL"`` and validate it."""
    data_type = _SqlTypeParser(text).parse()
    check_type_parameters(data_type, text)
    return data_type


def check_type_parameters(data_type: DataType, text: str) -> None:
    """Reject lengths and precisions outside the ranges the Java type constructors allow."""

    def fail(reason: str) -> PaimonFormatError:
        return PaimonFormatError(f"invalid data type {text!r}: {reason}")

    if isinstance(data_type, (CharType, VarCharType, BinaryType, VarBinaryType)):
        if not 1 <= data_type.length <= MAX_LENGTH:
            raise fail(f"length must be between 1 and {MAX_LENGTH}")
    elif isinstance(data_type, DecimalType):
        if not DECIMAL_MIN_PRECISION <= data_type.precision <= DECIMAL_MAX_PRECISION:
            raise fail(f"precision must be between 1 and {DECIMAL_MAX_PRECISION}")
        if not 0 <= data_type.scale <= data_type.precision:
            raise fail("scale must be between 0 and the precision")
    elif isinstance(data_type, (TimeType, TimestampType, LocalZonedTimestampType)) and not (
        0 <= data_type.precision <= TIMESTAMP_MAX_PRECISION
    ):
        raise fail(f"precision must be between 0 and {TIMESTAMP_MAX_PRECISION}")


# --------------------------------------------------------------------------------------------
# Convenience
# --------------------------------------------------------------------------------------------


def row_type_of(fields: list[DataField] | tuple[DataField, ...]) -> RowType:
    return RowType(tuple(fields))


def highest_field_id(data_type: DataType) -> int:
    """The largest field id used anywhere inside ``data_type`` (-1 when none)."""
    best = -1
    if isinstance(data_type, RowType):
        for data_field in data_type.fields:
            best = max(best, data_field.id, highest_field_id(data_field.type))
    elif isinstance(data_type, (ArrayType, MultisetType, VectorType)):
        best = highest_field_id(data_type.element)
    elif isinstance(data_type, MapType):
        best = max(highest_field_id(data_type.key), highest_field_id(data_type.value))
    return best
