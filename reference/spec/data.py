"""Internal values: how the reference holds one value of each Paimon type, and row kinds.

Java: ``org.apache.paimon.data`` (``InternalRow``, ``Timestamp``, ``Decimal``) and
``org.apache.paimon.types.RowKind``.

The reference holds values the way Java's ``InternalRow`` does, so that codecs are exact:

============================  =========================================================
type                          Python value
============================  =========================================================
BOOLEAN                       ``bool``
TINYINT, SMALLINT, INT,       ``int`` (range of the type)
BIGINT
FLOAT, DOUBLE                 ``float`` (FLOAT values are float32-representable)
DECIMAL(p, s)                 ``decimal.Decimal`` with exactly ``s`` fractional digits
CHAR, VARCHAR, STRING         ``str``
BINARY, VARBINARY, BYTES      ``bytes``
DATE                          ``int``: days since 1970-01-01
TIME(p)                       ``int``: milliseconds of the day (Java keeps TIME in millis)
TIMESTAMP(p), TIMESTAMP(p)    :class:`Timestamp`: epoch millis + nanos within the milli;
WITH LOCAL TIME ZONE          local-zoned values are UTC instants
ARRAY<T>, VECTOR<T, n>        ``list`` of values
MULTISET<T>                   ``dict`` element -> count (:class:`PairMap`, see below)
MAP<K, V>                     ``dict`` key -> value (:class:`PairMap`, see below)
ROW<...>                      ``tuple`` of field values
VARIANT                       :class:`Variant`
BLOB                          ``bytes``
null of any type              ``None``
============================  =========================================================

A row is a ``tuple`` of such values in field order.

Paimon allows any type as a MAP key or MULTISET element (Java ``MapType`` puts no restriction
on the key type; ``GenericMap`` and ``BinaryMap`` hold keys of any type). A key Python cannot
hash (an ARRAY, MAP or MULTISET, or a ROW holding one) cannot key a ``dict``, so such a map is
a :class:`PairMap`: a read-only mapping over its ``(key, value)`` entries that compares keys
by equality. :func:`build_map` makes the ``dict`` when it can and the :class:`PairMap`
otherwise; the two compare equal when they hold the same entries, in any order.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import Any, TypeAlias

from reference.spec.units import MICROS_PER_MILLI, NANOS_PER_MILLI

EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH_DATETIME = datetime.datetime(1970, 1, 1)

Value: TypeAlias = Any
"""One internal value (see the table above); ``Any`` because the type lives in the schema."""

Row: TypeAlias = tuple[Any, ...]


@dataclass(frozen=True, order=True)
class Timestamp:
    """A timestamp as Java holds it: ``millisecond`` since the epoch and the nanos within it.

    Ordering is by ``(millisecond, nano_of_millisecond)``, which is Java's ``compareTo``.
    Java: ``org.apache.paimon.data.Timestamp``.
    """

    millisecond: int
    nano_of_millisecond: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.nano_of_millisecond < NANOS_PER_MILLI:
            raise ValueError(f"nano_of_millisecond out of range: {self.nano_of_millisecond}")

    @staticmethod
    def from_epoch_nanos(nanos: int) -> Timestamp:
        millis, nano_of_milli = divmod(nanos, NANOS_PER_MILLI)
        return Timestamp(millis, nano_of_milli)

    @staticmethod
    def from_epoch_micros(micros: int) -> Timestamp:
        millis, micro_of_milli = divmod(micros, MICROS_PER_MILLI)
        return Timestamp(millis, micro_of_milli * MICROS_PER_MILLI)

    def to_epoch_nanos(self) -> int:
        return self.millisecond * NANOS_PER_MILLI + self.nano_of_millisecond

    def to_epoch_micros(self) -> int:
        """Micros since the epoch, truncating sub-micro nanos (floor, as Java's ``toMicros``)."""
        return self.to_epoch_nanos() // MICROS_PER_MILLI

    def to_datetime(self) -> datetime.datetime:
        """A naive ``datetime`` (microsecond precision; extra nanos are dropped)."""
        return EPOCH_DATETIME + datetime.timedelta(microseconds=self.to_epoch_micros())

    def __str__(self) -> str:
        text = self.to_datetime().isoformat(sep=" ")
        nanos = self.nano_of_millisecond % MICROS_PER_MILLI
        return text + (f"{nanos:03d}" if nanos else "")


@dataclass(frozen=True)
class Variant:
    """A VARIANT value: the encoded value bytes and its metadata dictionary bytes."""

    value: bytes
    metadata: bytes


class PairMap(Mapping[Any, Any]):
    """A MAP or MULTISET value whose keys are not hashable in Python (see the module text).

    The entries keep the order they were read in; an entry whose key equals an earlier one's
    replaces that entry's value in place, as a ``dict`` built from the same entries would. Two
    maps are equal when they hold equal entries, whatever their order (``dict`` equality).
    Java: ``org.apache.paimon.data.GenericMap`` (a ``Map<Object, Object>`` over any key).
    """

    __slots__ = ("_entries",)

    def __init__(self, entries: Iterable[tuple[Any, Any]] = ()) -> None:
        merged: list[list[Any]] = []
        for key, value in entries:
            for entry in merged:
                if entry[0] == key:
                    entry[1] = value
                    break
            else:
                merged.append([key, value])
        self._entries: tuple[tuple[Any, Any], ...] = tuple((k, v) for k, v in merged)

    def __getitem__(self, key: Any) -> Any:
        for entry_key, value in self._entries:
            if entry_key == key:
                return value
        raise KeyError(key)

    def __iter__(self) -> Iterator[Any]:
        return (key for key, _ in self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def entries(self) -> tuple[tuple[Any, Any], ...]:
        """The ``(key, value)`` entries in order (what ``items()`` yields, without lookups)."""
        return self._entries

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        if len(other) != len(self._entries):
            return False
        unmatched = list(self._entries)
        for pair in other.items():
            if pair not in unmatched:
                return False
            unmatched.remove(pair)
        return True

    __hash__ = None  # type: ignore[assignment]  # mutable-looking values: unhashable like dict

    def __repr__(self) -> str:
        return f"PairMap({list(self._entries)!r})"


def build_map(entries: Iterable[tuple[Any, Any]]) -> dict[Any, Any] | PairMap:
    """A MAP or MULTISET value from its ``(key, value)`` entries: a ``dict`` when every key is
    hashable, else a :class:`PairMap` (a later equal key replaces an earlier one either way)."""
    pairs = list(entries)
    try:
        return dict(pairs)
    except TypeError:
        return PairMap(pairs)


class RowKind(Enum):
    """The change a row carries (Java ``org.apache.paimon.types.RowKind``).

    ``short_string`` is the ``+I``/``-U``/``+U``/``-D`` form used in changelogs and system
    tables; ``byte_value`` is what the ``_VALUE_KIND`` column of a primary-key data file stores.
    """

    INSERT = ("+I", 0)
    UPDATE_BEFORE = ("-U", 1)
    UPDATE_AFTER = ("+U", 2)
    DELETE = ("-D", 3)

    def __init__(self, short_string: str, byte_value: int) -> None:
        self.short_string = short_string
        self.byte_value = byte_value

    @property
    def is_add(self) -> bool:
        """+I and +U add a row; -U and -D retract one."""
        return self in (RowKind.INSERT, RowKind.UPDATE_AFTER)

    @property
    def is_retract(self) -> bool:
        return not self.is_add

    @staticmethod
    def from_byte(value: int) -> RowKind:
        for kind in RowKind:
            if kind.byte_value == value:
                return kind
        raise ValueError(f"unknown row kind byte {value}")

    @staticmethod
    def from_short_string(text: str) -> RowKind:
        for kind in RowKind:
            if kind.short_string == text:
                return kind
        raise ValueError(f"unknown row kind {text!r}")


def date_from_days(days: int) -> datetime.date:
    return EPOCH_DATE + datetime.timedelta(days=days)


def days_from_date(value: datetime.date) -> int:
    return (value - EPOCH_DATE).days


def decimal_unscaled(value: Decimal, scale: int) -> int:
    """The unscaled integer of ``value`` at ``scale``; exact, never rounded by a context.

    Raises ``ValueError`` if ``value`` has more than ``scale`` significant fractional digits.
    """
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError(f"{value} is not a finite decimal")
    magnitude: int = int("".join(map(str, digits)) or "0")
    shift = exponent + scale
    if shift >= 0:
        magnitude *= 10**shift
    else:
        magnitude, remainder = divmod(magnitude, 10**-shift)
        if remainder:
            raise ValueError(f"{value} has more than {scale} fractional digits")
    return -magnitude if sign else magnitude


def decimal_from_unscaled(unscaled: int, scale: int) -> Decimal:
    """``unscaled * 10**-scale`` as a Decimal with exactly ``scale`` fractional digits."""
    digits = tuple(int(d) for d in str(abs(unscaled)))
    return Decimal((1 if unscaled < 0 else 0, digits, -scale))
