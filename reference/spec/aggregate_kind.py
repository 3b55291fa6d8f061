"""The aggregate functions a field may name: the one list both engines and the option checks use.

Spec: ``docs/content/primary-key-table/merge-engine/aggregation.md``. Java: each
``FieldAggregatorFactory``'s ``NAME`` (``FieldSumAggFactory.NAME = "sum"`` ...), looked up by
``fields.<field>.aggregate-function`` and ``fields.default-aggregate-function``.
"""

from __future__ import annotations

from enum import Enum
from types import MappingProxyType


class AggregateKind(Enum):
    """The identifiers accepted by ``fields.<f>.aggregate-function`` (Java factory ``NAME``)."""

    SUM = "sum"
    PRODUCT = "product"
    MAX = "max"
    MIN = "min"
    LAST_VALUE = "last_value"
    LAST_NON_NULL_VALUE = "last_non_null_value"
    LISTAGG = "listagg"
    BOOL_AND = "bool_and"
    BOOL_OR = "bool_or"
    FIRST_VALUE = "first_value"
    FIRST_NON_NULL_VALUE = "first_non_null_value"
    RBM32 = "rbm32"
    RBM64 = "rbm64"
    NESTED_UPDATE = "nested_update"
    NESTED_PARTIAL_UPDATE = "nested_partial_update"
    COLLECT = "collect"
    MERGE_MAP = "merge_map"
    MERGE_MAP_WITH_KEYTIME = "merge_map_with_keytime"
    THETA_SKETCH = "theta_sketch"
    HLL_SKETCH = "hll_sketch"
    PRIMARY_KEY = "primary-key"
    """Internal: what primary-key fields use (the input value, also on retraction)."""


LEGACY_NAMES = MappingProxyType({"first_not_null_value": AggregateKind.FIRST_NON_NULL_VALUE})
"""Old spellings Java still accepts (0.9: ``FieldFirstNonNullValueAgg.LEGACY_NAME``), read-only."""

AGGREGATE_FUNCTION_NAMES = frozenset({kind.value for kind in AggregateKind} | set(LEGACY_NAMES))
"""Every name ``fields.<f>.aggregate-function`` accepts (case-sensitive)."""
