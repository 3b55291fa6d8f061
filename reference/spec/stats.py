"""SimpleStats: the min values, max values and null counts of a set of columns.

Spec: ``docs/concepts/spec/manifest.md``, appendix "SimpleStats".
Java: ``org.apache.paimon.stats.SimpleStats``, ``org.apache.paimon.utils.SerializationUtils``.

Rules stated here:

* A SimpleStats is stored as a nested row of three fields, in this order:
  ``_MIN_VALUES BYTES NOT NULL``, ``_MAX_VALUES BYTES NOT NULL`` and
  ``_NULL_COUNTS ARRAY<BIGINT>`` (the array itself and each element are nullable in the type).
* ``_MIN_VALUES`` and ``_MAX_VALUES`` are *serialized* BinaryRows: a 4-byte big-endian field
  count followed by the BinaryRow bytes. This module keeps them as raw ``bytes``; decoding
  the row needs the column types and lives in ``reference.spec.binary_row``.
* ``_NULL_COUNTS`` holds one entry per column; an entry is null when the count is unknown
  (Java writes null when the stats mode of the column is ``none``). Java's reader calls
  ``size()`` on the array, so a null array is undecodable: we reject it.
* Stats over zero columns ("empty stats") are two serialized empty rows and an empty array.
  The serialized empty row is 12 zero bytes: arity 0, then an 8-byte null bit set.
* The same nested row appears as ``_KEY_STATS`` and ``_VALUE_STATS`` of a data file and as
  ``_PARTITION_STATS`` of a manifest file (Paimon has no separate partition-stats record).

The "row dict" helpers below give the plain-Python row shape shared by every container codec
in ``reference.spec.manifest``: a ``dict`` from field name to value, as fastavro yields for an
Avro record and as ``pyarrow.Table.to_pylist`` yields for an ORC or Parquet struct.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from reference.errors import PaimonFormatError
from reference.spec.types import (
    MAX_LENGTH,
    ArrayType,
    BigIntType,
    DataField,
    RowType,
    VarBinaryType,
)

RowDict: TypeAlias = dict[str, Any]
"""One record as a plain dict from field name to value (the shape fastavro and Arrow share)."""

SERIALIZED_ROW_ARITY_SIZE = 4
"""Bytes of the big-endian field count in front of a serialized BinaryRow."""

EMPTY_ROW_NULL_BITS_SIZE = 8
"""Bytes of the null bit set of a BinaryRow with no fields (one 8-byte word, all zero)."""

EMPTY_SERIALIZED_ROW = (0).to_bytes(SERIALIZED_ROW_ARITY_SIZE, "big") + bytes(
    EMPTY_ROW_NULL_BITS_SIZE
)
"""A serialized BinaryRow with zero fields (Java ``serializeBinaryRow(BinaryRow.EMPTY_ROW)``)."""

MIN_VALUES = "_MIN_VALUES"
MAX_VALUES = "_MAX_VALUES"
NULL_COUNTS = "_NULL_COUNTS"

SIMPLE_STATS_TYPE = RowType(
    (
        DataField(0, MIN_VALUES, VarBinaryType(MAX_LENGTH, nullable=False)),
        DataField(1, MAX_VALUES, VarBinaryType(MAX_LENGTH, nullable=False)),
        DataField(2, NULL_COUNTS, ArrayType(BigIntType())),
    ),
    nullable=False,
)
"""The nested row type of a SimpleStats (Java ``SimpleStats.SCHEMA``)."""


@dataclass(frozen=True)
class SimpleStats:
    """Min row, max row (both serialized BinaryRows) and per-column null counts."""

    min_values: bytes
    max_values: bytes
    null_counts: tuple[int | None, ...]


EMPTY_STATS = SimpleStats(EMPTY_SERIALIZED_ROW, EMPTY_SERIALIZED_ROW, ())
"""Stats over zero columns (Java ``SimpleStats.EMPTY_STATS``)."""


def is_empty_stats(stats: SimpleStats) -> bool:
    """True for stats over zero columns."""
    return stats == EMPTY_STATS


def encode_simple_stats_row(stats: SimpleStats) -> RowDict:
    """The row dict of ``stats`` (field order of :data:`SIMPLE_STATS_TYPE`)."""
    return {
        MIN_VALUES: stats.min_values,
        MAX_VALUES: stats.max_values,
        NULL_COUNTS: list(stats.null_counts),
    }


def decode_simple_stats_row(row: object, *, context: str = "stats") -> SimpleStats:
    """Read a SimpleStats from a row dict; ``context`` names the field in error messages.

    Raises :class:`PaimonFormatError` when the row is missing, lacks a field, or a value has
    the wrong type.
    """
    if not isinstance(row, Mapping):
        raise PaimonFormatError(f"{context}: expected a stats row, got {row!r}")
    min_values = _require_bytes(row, MIN_VALUES, context)
    max_values = _require_bytes(row, MAX_VALUES, context)
    counts = row.get(NULL_COUNTS)
    if not isinstance(counts, (list, tuple)):
        raise PaimonFormatError(f"{context}.{NULL_COUNTS}: expected an array, got {counts!r}")
    for count in counts:
        if count is not None and not _is_plain_int(count):
            raise PaimonFormatError(f"{context}.{NULL_COUNTS}: bad null count {count!r}")
    return SimpleStats(min_values, max_values, tuple(counts))


def _is_plain_int(value: object) -> bool:
    """True for an ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def _require_bytes(row: Mapping[str, Any], name: str, context: str) -> bytes:
    """The non-null bytes value of ``row[name]``, or a :class:`PaimonFormatError`."""
    value = row.get(name)
    if not isinstance(value, (bytes, bytearray)):
        raise PaimonFormatError(f"{context}.{name}: expected bytes, got {value!r}")
    return bytes(value)
