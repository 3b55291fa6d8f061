"""JSON metadata files: the exact text Java Paimon writes, and a strict reader.

Spec: ``docs/concepts/spec/schema.md`` and ``snapshot.md`` show the format by example.
Java: ``org.apache.paimon.utils.JsonSerdeUtil.toJson`` (Jackson's ``ObjectMapper`` with
``writerWithDefaultPrettyPrinter()``), used for schema, snapshot, tag, consumer and changelog
files alike.

Jackson's default pretty printer lays a value out like this, and :func:`encode_json` does the same
so that re-encoding a Java-written file reproduces it byte for byte:

* An object with members opens with ``{``; each member sits on its own line, indented by two
  spaces per enclosing *object* (arrays add no indentation), as ``"key" : value``; members are
  separated by ``,``; the closing ``}`` is on its own line at the object's own indentation.
  An empty object is ``{ }``.
* An array stays on one line: ``[ a, b ]``; an empty array is ``[ ]``. Objects inside an array
  therefore read ``[ {`` ... ``}, {`` ... ``} ]``.
* No newline follows the last ``}``; the file has no trailing newline. Line breaks are ``\\n``.
* Strings are written as UTF-8 without escaping non-ASCII characters; only ``"``, ``\\``
  and control characters below U+0020 are escaped: ``\\b \\t \\n \\f \\r`` by their short forms,
  every other one as ``\\u00XX`` with upper-case hex digits.
* Integers are written in decimal; a fractional number keeps the exact text it was read with
  (it is held as :class:`decimal.Decimal`, which prints like Java's ``BigDecimal.toString``).

The reader is stricter than Jackson (which tolerates trailing tokens and duplicate members): the
text must be UTF-8, a single JSON value, with no duplicate member names and no ``NaN`` or
``Infinity``; anything else raises :class:`PaimonFormatError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, TypeAlias

from reference.errors import PaimonFormatError
from reference.spec.java_numbers import LONG_MAX, LONG_MIN

JsonValue: TypeAlias = Any
"""A decoded JSON value: ``None``, ``bool``, ``int``, ``Decimal``, ``str``, ``list`` or ``dict``."""

INDENT = "  "
"""One level of Jackson's ``DefaultIndenter``: two spaces per enclosing object."""

LINE_FEED = "\n"
MEMBER_SEPARATOR = " : "
"""Between a member's name and its value (Jackson's ``_spacesInObjectEntries``)."""

EMPTY_OBJECT = "{ }"
EMPTY_ARRAY = "[ ]"

SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
"""Characters Jackson escapes by a two-character sequence."""

FIRST_PRINTABLE = 0x20
"""Control characters below this code point are escaped as ``\\u00XX``."""


# --------------------------------------------------------------------------------------------
# Encode
# --------------------------------------------------------------------------------------------


def encode_json_string(text: str) -> str:
    """A JSON string literal escaped the way Jackson escapes it."""
    pieces = ['"']
    for char in text:
        if char in SHORT_ESCAPES:
            pieces.append(SHORT_ESCAPES[char])
        elif ord(char) < FIRST_PRINTABLE:
            pieces.append(f"\\u{ord(char):04X}")
        else:
            pieces.append(char)
    pieces.append('"')
    return "".join(pieces)


def encode_json_scalar(value: JsonValue) -> str:
    """The text of a JSON scalar; raise ``TypeError`` for a value JSON metadata never holds."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise TypeError(f"JSON cannot hold the number {value}")
        return str(value)
    if isinstance(value, str):
        return encode_json_string(value)
    raise TypeError(f"cannot encode {type(value).__name__} {value!r} as Paimon JSON")


def encode_json_value(value: JsonValue, depth: int) -> str:
    """Encode ``value`` found inside ``depth`` enclosing objects."""
    if isinstance(value, Mapping):
        return encode_json_object(value, depth)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return encode_json_array(value, depth)
    return encode_json_scalar(value)


def encode_json_object(members: Mapping[str, JsonValue], depth: int) -> str:
    """An object: one member per line, indented one level deeper than the object itself."""
    if not members:
        return EMPTY_OBJECT
    inner = LINE_FEED + INDENT * (depth + 1)
    lines = [
        inner + encode_json_string(name) + MEMBER_SEPARATOR + encode_json_value(value, depth + 1)
        for name, value in members.items()
    ]
    return "{" + ",".join(lines) + LINE_FEED + INDENT * depth + "}"


def encode_json_array(elements: Sequence[JsonValue], depth: int) -> str:
    """An array on one line; its elements stay at the depth of the array."""
    if not elements:
        return EMPTY_ARRAY
    return "[ " + ", ".join(encode_json_value(e, depth) for e in elements) + " ]"


def encode_json(value: JsonValue) -> str:
    """The text Java's ``JsonSerdeUtil.toJson`` writes for ``value`` (no trailing newline)."""
    return encode_json_value(value, 0)


# --------------------------------------------------------------------------------------------
# Decode
# --------------------------------------------------------------------------------------------


def json_kind(value: JsonValue) -> str:
    """A short phrase naming the JSON kind of ``value`` for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, Decimal):
        return "a fractional number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _reject_constant(name: str) -> JsonValue:
    raise PaimonFormatError(f"invalid JSON: {name} is not a JSON number")


def _unique_members(pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
    members: dict[str, JsonValue] = {}
    for name, value in pairs:
        if name in members:
            raise PaimonFormatError(f"invalid JSON: duplicate member {name!r}")
        members[name] = value
    return members


def decode_json(data: bytes | str) -> JsonValue:
    """Parse one JSON document; fractional numbers become ``Decimal`` so their text survives."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise PaimonFormatError(f"JSON file is not UTF-8 ({error.reason})") from None
    else:
        text = data
    try:
        return json.loads(
            text,
            parse_float=Decimal,
            parse_constant=_reject_constant,
            object_pairs_hook=_unique_members,
        )
    except json.JSONDecodeError as error:
        raise PaimonFormatError(f"invalid JSON: {error.msg} at offset {error.pos}") from None
    except RecursionError:
        raise PaimonFormatError("invalid JSON: nested too deeply") from None
    except ValueError as error:  # e.g. an integer longer than Python converts (4300 digits)
        raise PaimonFormatError(f"invalid JSON: {error}") from None


def decode_json_object(data: bytes | str) -> dict[str, JsonValue]:
    """Parse a JSON document whose top level must be an object (every metadata file is one)."""
    value = decode_json(data)
    if not isinstance(value, dict):
        raise PaimonFormatError(f"expected a JSON object at the top level, got {json_kind(value)}")
    return value


# --------------------------------------------------------------------------------------------
# Typed member access (shared by the schema, snapshot, tag and consumer codecs)
# --------------------------------------------------------------------------------------------


def require_member(members: Mapping[str, JsonValue], name: str) -> JsonValue:
    """The value of a required member; missing or ``null`` is a format error."""
    value = members.get(name)
    if value is None:
        raise PaimonFormatError(f"member '{name}' is missing or null")
    return value


def as_integer(name: str, value: JsonValue, low: int = LONG_MIN, high: int = LONG_MAX) -> int:
    """``value`` as an integer within ``[low, high]`` (a Java ``long`` by default)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise PaimonFormatError(f"member '{name}' must be an integer, got {json_kind(value)}")
    if not low <= value <= high:
        raise PaimonFormatError(f"member '{name}' = {value} is out of range [{low}, {high}]")
    return value


def as_string(name: str, value: JsonValue) -> str:
    if not isinstance(value, str):
        raise PaimonFormatError(f"member '{name}' must be a string, got {json_kind(value)}")
    return value


def as_string_list(name: str, value: JsonValue) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise PaimonFormatError(f"member '{name}' must be an array, got {json_kind(value)}")
    return tuple(as_string(f"{name}[{i}]", item) for i, item in enumerate(value))


def as_string_map(name: str, value: JsonValue) -> dict[str, str]:
    if not isinstance(value, dict):
        raise PaimonFormatError(f"member '{name}' must be an object, got {json_kind(value)}")
    return {key: as_string(f"{name}.{key}", item) for key, item in value.items()}
