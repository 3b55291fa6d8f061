"""What the vectorized merge (:mod:`spark_impl.merge`) and its per-key slow paths
(:mod:`spark_impl.merge_slow`) share: the merge configuration resolved from a table's schema,
the key segments of a sorted table, and the row-kind bytes.

Both merge modules import this one, and :mod:`spark_impl.merge` imports
:mod:`spark_impl.merge_slow`; nothing imports back, so the three form no cycle (Java keeps the
same split: ``MergeFunctionFactory`` settings apart from the ``MergeFunction`` that uses them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reference.spec import types as t
from reference.spec.aggregate_kind import AggregateKind
from reference.spec.data import RowKind
from reference.spec.options import MergeEngine

INSERT = RowKind.INSERT.byte_value
UPDATE_AFTER = RowKind.UPDATE_AFTER.byte_value
DELETE = RowKind.DELETE.byte_value

COMPACT_DECIMAL_PRECISION = 18
"""A DECIMAL of at most this precision is compact: its unscaled value fits a long (Java
``Decimal.isCompact``)."""

# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------

RETRACTABLE = frozenset(
    {
        AggregateKind.SUM,
        AggregateKind.PRODUCT,
        AggregateKind.LAST_VALUE,
        AggregateKind.LAST_NON_NULL_VALUE,
        AggregateKind.COLLECT,
        AggregateKind.MERGE_MAP,
        AggregateKind.NESTED_UPDATE,
        AggregateKind.PRIMARY_KEY,
    }
)
UNSUPPORTED_FUNCTIONS = frozenset(
    {
        AggregateKind.RBM64,
        AggregateKind.NESTED_UPDATE,
        AggregateKind.NESTED_PARTIAL_UPDATE,
        AggregateKind.MERGE_MAP_WITH_KEYTIME,
        AggregateKind.THETA_SKETCH,
        AggregateKind.HLL_SKETCH,
    }
)
SLOW_FUNCTIONS = frozenset({AggregateKind.COLLECT, AggregateKind.MERGE_MAP, AggregateKind.RBM32})


@dataclass(frozen=True)
class FieldFunction:
    """One field's aggregate function and its settings."""

    fn: AggregateKind
    ignore_retract: bool = False
    delimiter: str = ","
    distinct: bool = False


@dataclass(frozen=True)
class SequenceGroup:
    """``fields.<s...>.sequence-group = <protected...>`` as field positions."""

    sequence: tuple[int, ...]
    protected: tuple[int, ...]
    removes_record: bool = False

    @property
    def members(self) -> frozenset[int]:
        return frozenset(self.sequence) | frozenset(self.protected)


@dataclass(frozen=True)
class MergeConfig:
    """What merging one key needs, resolved from the table schema."""

    engine: MergeEngine
    fields: tuple[t.DataField, ...]
    key_names: tuple[str, ...]
    ignore_delete: bool = False
    sequence_fields: tuple[str, ...] = ()
    sequence_ascending: bool = True
    remove_record_on_delete: bool = False
    functions: tuple[FieldFunction | None, ...] = ()
    groups: tuple[SequenceGroup, ...] = ()

    @property
    def needs_slow_path(self) -> bool:
        if self.engine is MergeEngine.PARTIAL_UPDATE:
            return bool(self.groups) or any(
                f is not None
                and f.fn not in (AggregateKind.LAST_NON_NULL_VALUE, AggregateKind.PRIMARY_KEY)
                for f in self.functions
            )
        if self.engine is MergeEngine.AGGREGATE:
            return self.remove_record_on_delete or any(
                f is not None
                and (f.fn in SLOW_FUNCTIONS or (f.fn is AggregateKind.LISTAGG and f.distinct))
                for f in self.functions
            )
        return False


# --------------------------------------------------------------------------------------------
# Key segments of a sorted table
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Segments:
    """Key segments of a sorted table: starts, ends (inclusive), group of each row."""

    starts: np.ndarray
    ends: np.ndarray
    group_of: np.ndarray

    @property
    def count(self) -> int:
        return len(self.starts)

    @property
    def sizes(self) -> np.ndarray:
        return np.asarray(self.ends - self.starts + 1)


def compute_segments(starts: np.ndarray, n: int) -> Segments:
    ends = np.append(starts[1:], n) - 1
    group_of = np.repeat(np.arange(len(starts)), ends - starts + 1)
    return Segments(starts, ends, group_of)
