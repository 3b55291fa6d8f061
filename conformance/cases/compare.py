"""Expected result files and the canonical comparison of an engine's rows with them.

An expected file (``expected/<name>.json``)::

    {"columns": ["k", "v"], "types": ["INT NOT NULL", "STRING"],   (schema JSON type forms)
     "order": "key" | "multiset" | "ordered",
     "row_kinds": "ignore" | "exact" | "add-only",
     "rows": [["+I", 1, "a"], ...]}

Values use the JSON value encoding of ``conformance/java/values.py``, decoded with ``types``.

Canonical form (what "equal" means):

* decimals compare exactly by value (``1.50`` equals ``1.5``, never rounded);
* timestamps compare as nanoseconds since the epoch, truncated to the smaller of the column's
  precision and the engine's ``timestamp_precision`` (an engine that keeps microseconds is
  judged at microseconds, on both sides);
* floats compare exactly, every NaN equals every NaN, and ``-0.0`` equals ``0.0``;
* maps and multisets compare as sets of entries, arrays and rows element by element.

Order: ``ordered`` compares the sequences; ``key`` and ``multiset`` compare multisets of rows
(``key`` says the rows are identified by their primary key, so the engine's order is free).

Row kinds: ``exact`` compares the kinds; ``ignore`` drops them; ``add-only`` (batch reads)
requires every actual row to be +I or +U and treats those two as equal: Java's batch read keeps
the kind of the winning record, so the same row reads as +I or +U depending on the read path.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from conformance.engines.base import Change, Rows
from conformance.java.values import decode_value, encode_value
from reference.spec import types as t
from reference.spec.data import Row, RowKind, Timestamp, Value

ORDERS = ("key", "multiset", "ordered")
ROW_KIND_POLICIES = ("ignore", "exact", "add-only")
NANOS_PER_MILLI = 1_000_000
MAX_TIMESTAMP_PRECISION = 9
MAX_DIFF_ROWS = 8
ADD_KINDS = (RowKind.INSERT, RowKind.UPDATE_AFTER)


@dataclass(frozen=True)
class Expected:
    """A decoded expected file."""

    columns: tuple[str, ...]
    types: tuple[t.DataType, ...]
    order: str
    row_kinds: str
    rows: tuple[Change, ...]

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise ValueError(f"unknown order {self.order!r}")
        if self.row_kinds not in ROW_KIND_POLICIES:
            raise ValueError(f"unknown row_kinds policy {self.row_kinds!r}")
        if len(self.columns) != len(self.types):
            raise ValueError("columns and types differ in length")

    @property
    def row_type(self) -> t.RowType:
        return t.RowType(
            tuple(
                t.DataField(i, n, ty)
                for i, (n, ty) in enumerate(zip(self.columns, self.types, strict=True))
            )
        )


def decode_expected(document: dict[str, Any]) -> Expected:
    """An expected file's JSON object, decoded."""
    columns = tuple(document["columns"])
    types = tuple(t.parse_data_type(x) for x in document["types"])
    rows = []
    for encoded in document["rows"]:
        if len(encoded) != len(columns) + 1:
            raise ValueError(f"row {encoded!r} does not have a kind and {len(columns)} values")
        kind = RowKind.from_short_string(encoded[0])
        values = tuple(decode_value(v, ty) for v, ty in zip(encoded[1:], types, strict=True))
        rows.append((kind, values))
    return Expected(columns, types, document["order"], document["row_kinds"], tuple(rows))


def encode_expected(expected: Expected) -> dict[str, Any]:
    """The JSON object of an expected file."""
    return {
        "columns": list(expected.columns),
        "types": [t.type_to_json(ty) for ty in expected.types],
        "order": expected.order,
        "row_kinds": expected.row_kinds,
        "rows": [
            [
                kind.short_string,
                *(encode_value(v, ty) for v, ty in zip(row, expected.types, strict=True)),
            ]
            for kind, row in expected.rows
        ],
    }


def load_expected(path: Path) -> Expected:
    return decode_expected(json.loads(path.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------------------------
# Canonical values
# --------------------------------------------------------------------------------------------


def canonical_timestamp(value: Timestamp, type_precision: int, engine_precision: int) -> int:
    """Nanoseconds since the epoch, truncated (toward minus infinity) to the judged precision."""
    nanos = value.millisecond * NANOS_PER_MILLI + value.nano_of_millisecond
    unit: int = 10 ** (MAX_TIMESTAMP_PRECISION - min(type_precision, engine_precision))
    return nanos // unit * unit


def canonical_float(value: float) -> Any:
    if math.isnan(value):
        return "NaN"
    return float(value) + 0.0  # -0.0 + 0.0 is 0.0


def canonical_decimal(value: Decimal) -> str:
    return format(value.normalize(), "f") if value != 0 else "0"


def canonical_value(value: Value, data_type: t.DataType, engine_precision: int = 9) -> Any:
    """A hashable form of ``value`` under which equal values (as this module defines) are equal.

    A value of the wrong Python kind is kept as ``("unexpected", repr)`` so it never matches.
    """
    if value is None:
        return None
    try:
        return _canonical(value, data_type, engine_precision)
    except (TypeError, ValueError, AttributeError, ArithmeticError):
        return ("unexpected", type(value).__name__, repr(value))


def _canonical(value: Value, data_type: t.DataType, precision: int) -> Any:
    if isinstance(data_type, (t.FloatType, t.DoubleType)):
        return canonical_float(float(value))
    if isinstance(data_type, t.DecimalType):
        if not isinstance(value, Decimal):
            raise TypeError("not a Decimal")
        return canonical_decimal(value)
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        if not isinstance(value, Timestamp):
            raise TypeError("not a Timestamp")
        return canonical_timestamp(value, data_type.precision, precision)
    if isinstance(data_type, t.ArrayType):
        return tuple(canonical_value(v, data_type.element, precision) for v in value)
    if isinstance(data_type, t.MapType):
        return frozenset(
            (
                canonical_value(k, data_type.key, precision),
                canonical_value(v, data_type.value, precision),
            )
            for k, v in value.items()
        )
    if isinstance(data_type, t.MultisetType):
        return frozenset(
            (canonical_value(k, data_type.element, precision), int(n)) for k, n in value.items()
        )
    if isinstance(data_type, t.RowType):
        if len(value) != len(data_type.fields):
            raise ValueError("row arity")
        return tuple(
            canonical_value(v, f.type, precision)
            for v, f in zip(value, data_type.fields, strict=True)
        )
    if isinstance(data_type, t.BooleanType):
        if not isinstance(value, bool):
            raise TypeError("not a bool")
        return value
    if isinstance(data_type, (t.BinaryType, t.VarBinaryType)):
        return ("bytes", bytes(value))
    if isinstance(data_type, (t.CharType, t.VarCharType)):
        if not isinstance(value, str):
            raise TypeError("not a str")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("not an int")
    return value


def canonical_row(row: Row, types: Sequence[t.DataType], engine_precision: int) -> tuple[Any, ...]:
    return tuple(canonical_value(v, ty, engine_precision) for v, ty in zip(row, types, strict=True))


def _display(value: Value, data_type: t.DataType) -> str:
    try:
        return json.dumps(encode_value(value, data_type), allow_nan=False)
    except (TypeError, ValueError, AttributeError, ArithmeticError):
        return repr(value)


def display_change(change: Change, types: Sequence[t.DataType]) -> str:
    kind, row = change
    if len(row) != len(types):
        return f"{kind.short_string} {row!r}"
    values = ", ".join(_display(v, ty) for v, ty in zip(row, types, strict=True))
    return f"{kind.short_string} [{values}]"


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mismatch:
    """Why the actual rows differ from the expected ones (``None`` from :func:`compare_rows`
    means they agree)."""

    reason: str
    missing: tuple[str, ...] = ()
    unexpected: tuple[str, ...] = ()

    def describe(self) -> str:
        lines = [self.reason]
        lines += [f"  missing:    {row}" for row in self.missing[:MAX_DIFF_ROWS]]
        lines += [f"  unexpected: {row}" for row in self.unexpected[:MAX_DIFF_ROWS]]
        hidden = max(len(self.missing) - MAX_DIFF_ROWS, 0)
        hidden += max(len(self.unexpected) - MAX_DIFF_ROWS, 0)
        if hidden:
            lines.append(f"  ... and {hidden} more")
        return "\n".join(lines)


def _kind_key(kind: RowKind, policy: str) -> str | None:
    if policy == "ignore":
        return None
    if policy == "add-only" and kind in ADD_KINDS:
        return "+"
    return kind.short_string


def _keyed(
    changes: Sequence[Change], expected: Expected, engine_precision: int
) -> list[tuple[str | None, tuple[Any, ...]]]:
    return [
        (_kind_key(kind, expected.row_kinds), canonical_row(row, expected.types, engine_precision))
        for kind, row in changes
    ]


def compare_rows(expected: Expected, actual: Rows, engine_precision: int = 9) -> Mismatch | None:
    """Compare an engine's rows with the expected file (see the module docstring)."""
    names = tuple(actual.column_names)
    if names != expected.columns:
        return Mismatch(f"columns differ: expected {list(expected.columns)}, got {list(names)}")
    arity = len(expected.columns)
    bad_arity = [row for _, row in actual.rows if len(row) != arity]
    if bad_arity:
        return Mismatch(f"a row has {len(bad_arity[0])} values for {arity} columns")
    if expected.row_kinds == "add-only":
        retractions = [c for c in actual.rows if c[0] not in ADD_KINDS]
        if retractions:
            return Mismatch(
                "a batch read returned retractions",
                unexpected=tuple(display_change(c, expected.types) for c in retractions),
            )
    want = _keyed(expected.rows, expected, engine_precision)
    got = _keyed(actual.rows, expected, engine_precision)
    if expected.order == "ordered":
        if want == got:
            return None
        return _ordered_mismatch(expected, actual, want, got)
    want_count, got_count = Counter(want), Counter(got)
    if want_count == got_count:
        return None
    missing_keys = want_count - got_count
    extra_keys = got_count - want_count
    missing = _pick(expected.rows, want, missing_keys, expected.types)
    unexpected = _pick(actual.rows, got, extra_keys, expected.types)
    reason = f"rows differ: expected {len(want)}, got {len(got)}"
    return Mismatch(reason, tuple(missing), tuple(unexpected))


def _pick(
    changes: Sequence[Change],
    keys: Sequence[tuple[str | None, tuple[Any, ...]]],
    wanted: Counter[tuple[str | None, tuple[Any, ...]]],
    types: Sequence[t.DataType],
) -> list[str]:
    left = Counter(wanted)
    picked = []
    for change, key in zip(changes, keys, strict=True):
        if left[key] > 0:
            left[key] -= 1
            picked.append(display_change(change, types))
    return picked


def _ordered_mismatch(
    expected: Expected,
    actual: Rows,
    want: Sequence[Any],
    got: Sequence[Any],
) -> Mismatch:
    for index, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            return Mismatch(
                f"rows differ at position {index}",
                (display_change(expected.rows[index], expected.types),),
                (display_change(actual.rows[index], expected.types),),
            )
    return Mismatch(f"row counts differ: expected {len(want)}, got {len(got)}")
