"""Comparing what two engines or two readers return: rows with kinds, as multisets.

Rows are compared as multisets of ``(RowKind, row)`` (order is not part of a batch read's
contract, and Java returns buckets in its own order). Values are made hashable and ordered by
:func:`canonical_value` (lists become tuples, maps sorted item tuples), so two maps with the
same entries in another order are equal. A difference is described with the rows only one side
has, so a failing test says what differs, not just that something does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from conformance.differential.workloads import Change
from reference.spec.data import RowKind, Value

CanonicalChange = tuple[str, tuple[Any, ...]]
MAX_SHOWN = 12


def canonical_value(value: Value) -> Any:
    """A hashable, order-free stand-in for ``value``: lists to tuples, maps to sorted items."""
    if isinstance(value, list):
        return ("list", tuple(canonical_value(v) for v in value))
    if isinstance(value, dict):
        items = [(canonical_value(k), canonical_value(v)) for k, v in value.items()]
        return ("map", tuple(sorted(items, key=repr)))
    if isinstance(value, tuple):
        return ("row", tuple(canonical_value(v) for v in value))
    return value


def canonical_change(change: Change) -> CanonicalChange:
    kind, row = change
    return kind.short_string, tuple(canonical_value(v) for v in row)


def canonical(changes: Iterable[Change]) -> Counter[CanonicalChange]:
    return Counter(canonical_change(c) for c in changes)


def _shown(counter: Counter[CanonicalChange]) -> str:
    lines = [
        f"    {kind} {row}" + (f" x{count}" if count > 1 else "")
        for (kind, row), count in sorted(counter.items(), key=repr)
    ]
    if len(lines) > MAX_SHOWN:
        lines = [*lines[:MAX_SHOWN], f"    ... {len(lines) - MAX_SHOWN} more"]
    return "\n".join(lines)


def describe_difference(
    left_name: str, left: Iterable[Change], right_name: str, right: Iterable[Change]
) -> str | None:
    """``None`` when both hold the same changes, else what each side has that the other lacks."""
    a, b = canonical(left), canonical(right)
    if a == b:
        return None
    only_left, only_right = a - b, b - a
    parts = []
    if only_left:
        parts.append(f"  only in {left_name}:\n{_shown(only_left)}")
    if only_right:
        parts.append(f"  only in {right_name}:\n{_shown(only_right)}")
    return "\n".join(parts)


def first_difference(readings: Sequence[tuple[str, list[Change]]]) -> str | None:
    """Compare every reading with the first; the first difference found (``None``: all same)."""
    base_name, base = readings[0]
    for name, rows in readings[1:]:
        difference = describe_difference(base_name, base, name, rows)
        if difference is not None:
            return difference
    return None


Normalizer = Callable[[list[Change]], list[Change]]


def identity(changes: list[Change]) -> list[Change]:
    return changes


def as_inserts(changes: list[Change]) -> list[Change]:
    """Batch-read rows with ``+U`` made ``+I``: Java 0.9 keeps the kind of the winning record on
    some read paths only (expected_differences.md, "batch read row kinds")."""
    return [
        (RowKind.INSERT if kind is RowKind.UPDATE_AFTER else kind, row) for kind, row in changes
    ]
