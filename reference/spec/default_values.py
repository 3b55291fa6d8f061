"""Default values of columns (``fields.<f>.default-value``), as Paimon 0.9.0 keeps them.

Spec: ``docs/primary-key-table/merge-engine/partial-update.md`` ("Default Value") and the
seeds' default-value example. Java (0.9.0): ``operation.DefaultValueAssigner``,
``casting.DefaultValueRow``, ``CoreOptions.DEFAULT_VALUE_SUFFIX``.

Rules:

1. A column's default is the text of the table option ``fields.<column>.default-value``.
2. The text is turned into a value by the cast from ``STRING`` to the column's type
   (:mod:`reference.spec.casts`, Java ``CastExecutors.resolve(STRING, type)``): no trimming,
   the cast's own rules (e.g. booleans ``t/true/y/yes/1`` and ``f/false/n/no/0`` in any case).
   A type without such a cast cannot have a default; a text the cast refuses is an invalid
   option.
3. A read row whose column is null takes the column's default (0.9.0 applies it to the rows a
   read returns, after merging; main fills defaults in on write instead).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature
from reference.spec import casts
from reference.spec import types as t
from reference.spec.data import Row, Value

DEFAULT_VALUE_SUFFIX = "default-value"
DEFAULT_TEXT_TYPE = t.VarCharType(t.MAX_LENGTH)
"""The type of a default value's text (rule 2's cast source)."""


def compute_default_value_key(column: str) -> str:
    """Rule 1's option key."""
    return f"fields.{column}.{DEFAULT_VALUE_SUFFIX}"


def cast_default_value(text: str, data_type: t.DataType) -> Value:
    """Rule 2; :class:`SpecViolation` when the cast refuses the text."""
    if not casts.has_cast_rule(DEFAULT_TEXT_TYPE, data_type):
        raise UnsupportedFeature(f"default values of type {data_type} are not supported")
    return casts.cast_value(text, DEFAULT_TEXT_TYPE, data_type)


def compute_default_values(options: Mapping[str, str], row_type: t.RowType) -> tuple[Value, ...]:
    """The default of each field of ``row_type`` from the table ``options`` (``None`` where it
    has none); :class:`InvalidOptionError` naming the option for a text that does not cast."""
    defaults: list[Value] = []
    for data_field in row_type.fields:
        key = compute_default_value_key(data_field.name)
        text = options.get(key)
        try:
            defaults.append(None if text is None else cast_default_value(text, data_field.type))
        except SpecViolation as error:
            raise InvalidOptionError(key, text, str(error)) from None
    return tuple(defaults)


def apply_default_values(row: Row, defaults: Sequence[Value]) -> Row:
    """Rule 3: each null field that has a default takes it (Java ``DefaultValueRow``)."""
    return tuple(
        default if item is None else item for item, default in zip(row, defaults, strict=True)
    )
