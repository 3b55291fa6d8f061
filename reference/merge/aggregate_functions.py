"""Field aggregate functions: how one field of the accumulated row absorbs one input value.

Spec: ``docs/primary-key-table/merge-engine/aggregation`` (function list, supported types,
retraction) and the seeds' aggregation sections.
Java: ``org.apache.paimon.mergetree.compact.aggregate.Field*Agg`` and
``aggregate.factory.Field*AggFactory`` (main); ``FieldAggregator.createFieldAggregator`` (0.9.0).

An aggregator is a pure rule ``(accumulator, input) -> accumulator`` for one field, used by the
``aggregation`` engine for every value field and by ``partial-update`` for fields given a
function. Three entry points apply it:

* :func:`apply_agg` -- an input that adds (+I/+U), newer than the accumulated state;
* :func:`apply_agg_reversed` -- an input that adds but is *older* than the state (partial-update
  sequence groups): by default the input becomes the accumulator and the state the input;
* :func:`apply_retract` -- an input that retracts (-U/-D). Only ``sum``, ``product``,
  ``collect``, ``merge_map``, ``nested_update``, ``last_value``, ``last_non_null_value`` and the
  internal ``primary-key`` function retract; any other raises unless
  ``fields.<f>.ignore-retract`` is set, which turns every retraction into a no-op.

``first_value`` and ``first_non_null_value`` remember whether they have taken their value since
the merge began; that flag travels in :class:`AggState` beside the value (Java keeps it in the
aggregator object and clears it in ``reset``).

Null handling: unless stated otherwise a null input leaves the accumulator and a null accumulator
takes the input.

Results whose element order Java leaves to a ``HashMap``/``HashSet`` (``collect`` with
``distinct``, ``merge_map``, keyed ``nested_update``) are ordered the way that map iterates, so
arrays compare equal to Java's element for element (see ``reference.spec.java_hashing``).
Bitmap and sketch unions live in ``sketches``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from reference.errors import InvalidOptionError, SpecViolation
from reference.merge.java_semantics import (
    compare_java_strings,
    compute_decimal_from_unscaled,
    compute_decimal_product,
    compute_decimal_quotient,
    compute_decimal_sum,
    compute_ieee_division,
    compute_java_int_division,
    is_integer_in_range,
    is_java_blank,
    round_to_float32,
)
from reference.merge.sequence import compare_nullable, compare_values
from reference.merge.sketches import (
    compute_hll_union,
    compute_rbm32_union,
    compute_rbm64_union,
    compute_theta_union,
)
from reference.spec import types as t
from reference.spec.aggregate_kind import LEGACY_NAMES, AggregateKind
from reference.spec.binary_row import compute_binary_row_hash, encode_binary_row
from reference.spec.data import Value, decimal_unscaled
from reference.spec.file_index.java_order import compute_hash_map_order
from reference.spec.java_hashing import (
    compute_java_equality_key,
    compute_java_hash_map,
    compute_java_hash_set,
)
from reference.spec.java_numbers import INT_MAX as JAVA_INT_MAX
from reference.spec.java_numbers import INT_MIN as JAVA_INT_MIN
from reference.spec.options import NestedKeyNullStrategy

# --------------------------------------------------------------------------------------------
# Names and options
# --------------------------------------------------------------------------------------------


REMOVED_NAMES: Mapping[str, str] = {
    "count": "removed in Paimon 0.9 (it cannot retract correctly); use sum over 1/0 values",
}
"""Functions documented by older releases (and the seeds) that 0.9.0 and main reject."""

MAIN_ONLY_KINDS = frozenset(
    {AggregateKind.NESTED_PARTIAL_UPDATE, AggregateKind.MERGE_MAP_WITH_KEYTIME}
)
"""Functions Paimon 0.9.0 does not know (its factory rejects them)."""

FIELDS_PREFIX = "fields"
NOT_NULL_ERROR = "MERGE_NOT_NULL"
"""The error code of a merge that would put null into a NOT NULL field."""
AGGREGATE_FUNCTION_SUFFIX = "aggregate-function"
IGNORE_RETRACT_SUFFIX = "ignore-retract"
LIST_AGG_DELIMITER_SUFFIX = "list-agg-delimiter"
DISTINCT_SUFFIX = "distinct"
NESTED_KEY_SUFFIX = "nested-key"
NESTED_KEY_NULL_STRATEGY_SUFFIX = "nested-key-null-strategy"
NESTED_SEQUENCE_FIELD_SUFFIX = "nested-sequence-field"
COUNT_LIMIT_SUFFIX = "count-limit"
MERGE_MAP_TS_FIELD_SUFFIX = "ts-field"

DEFAULT_LIST_AGG_DELIMITER = ","

RETRACT_UNSUPPORTED_ERROR = "MERGE_RETRACT_UNSUPPORTED"
OVERFLOW_ERROR = "MERGE_OVERFLOW"
ARITHMETIC_ERROR = "MERGE_ARITHMETIC"
NESTED_KEY_NULL_ERROR = "MERGE_NESTED_KEY_NULL"


def field_option_key(field_name: str, suffix: str) -> str:
    """``fields.<field>.<suffix>``."""
    return f"{FIELDS_PREFIX}.{field_name}.{suffix}"


@dataclass(frozen=True)
class FieldAggregator:
    """The aggregate function of one field and its per-field settings.

    ``nested_key``/``nested_sequence`` are positions in the element row of an ``ARRAY<ROW>``;
    ``timestamp_field`` is the position of the ordering field in the ROW values of
    ``merge_map_with_keytime``.
    """

    kind: AggregateKind
    field_name: str
    data_type: t.DataType
    ignore_retract: bool = False
    delimiter: str = DEFAULT_LIST_AGG_DELIMITER
    distinct: bool = False
    nested_key: tuple[int, ...] = ()
    nested_key_null_strategy: NestedKeyNullStrategy = NestedKeyNullStrategy.MERGE
    nested_sequence: tuple[int, ...] = ()
    count_limit: int = JAVA_INT_MAX
    timestamp_field: int = -1


@dataclass(frozen=True)
class AggState:
    """One field's accumulator and whether a ``first_*`` function has taken its value."""

    value: Value = None
    initialized: bool = False


# --------------------------------------------------------------------------------------------
# Arithmetic errors (Java ArithmeticException)
# --------------------------------------------------------------------------------------------


def _overflow(aggregator: FieldAggregator, expression: str) -> SpecViolation:
    return SpecViolation(
        f"{aggregator.kind.value} of field '{aggregator.field_name}' overflows "
        f"{aggregator.data_type}: {expression}",
        code=OVERFLOW_ERROR,
    )


def compute_checked_integer(aggregator: FieldAggregator, result: int, expression: str) -> int:
    """An integer result, or the overflow error Java's ``Math.*Exact`` raises (main)."""
    if not is_integer_in_range(result, aggregator.data_type):
        raise _overflow(aggregator, expression)
    return result


def _arithmetic_error(aggregator: FieldAggregator, error: ArithmeticError) -> SpecViolation:
    return SpecViolation(
        f"{aggregator.kind.value} of field '{aggregator.field_name}' cannot retract: {error}",
        code=ARITHMETIC_ERROR,
    )


def _float_result(data_type: t.DataType, value: float) -> float:
    return round_to_float32(value) if data_type.root is t.TypeRoot.FLOAT else value


# --------------------------------------------------------------------------------------------
# The functions, one rule each (accumulator, input) -> accumulator
# --------------------------------------------------------------------------------------------


def _either(accumulator: Value, value: Value) -> Value:
    """The shared null rule: a null input keeps the accumulator, a null accumulator takes it."""
    return value if accumulator is None else accumulator


def agg_sum(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    if accumulator is None or value is None:
        return _either(accumulator, value)
    data_type = aggregator.data_type
    if isinstance(data_type, t.DecimalType):
        return compute_decimal_sum(accumulator, value, data_type)
    if data_type.root in t.FLOATING_ROOTS:
        return _float_result(data_type, accumulator + value)
    return compute_checked_integer(aggregator, accumulator + value, f"{accumulator} + {value}")


def compute_negation(aggregator: FieldAggregator, value: Value) -> Value:
    """``-value`` in the field's type (null stays null)."""
    data_type = aggregator.data_type
    if value is None:
        return None
    if isinstance(data_type, t.DecimalType):
        return compute_decimal_from_unscaled(-decimal_unscaled(value, data_type.scale), data_type)
    if data_type.root in t.FLOATING_ROOTS:
        return -value
    return compute_checked_integer(aggregator, -value, f"-{value}")


def retract_sum(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    if accumulator is None:
        return compute_negation(aggregator, value)
    if value is None:
        return accumulator
    data_type = aggregator.data_type
    if isinstance(data_type, t.DecimalType):
        return compute_decimal_sum(accumulator, -value, data_type)
    if data_type.root in t.FLOATING_ROOTS:
        return _float_result(data_type, accumulator - value)
    return compute_checked_integer(aggregator, accumulator - value, f"{accumulator} - {value}")


def agg_product(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    if accumulator is None or value is None:
        return _either(accumulator, value)
    data_type = aggregator.data_type
    if isinstance(data_type, t.DecimalType):
        return compute_decimal_product(accumulator, value, data_type)
    if data_type.root in t.FLOATING_ROOTS:
        return _float_result(data_type, accumulator * value)
    return compute_checked_integer(aggregator, accumulator * value, f"{accumulator} * {value}")


def retract_product(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    """Divide by the retracted factor; a null on either side keeps the accumulator (main)."""
    if accumulator is None or value is None:
        return accumulator
    data_type = aggregator.data_type
    if data_type.root in t.FLOATING_ROOTS:
        return _float_result(data_type, compute_ieee_division(accumulator, value))
    try:
        if isinstance(data_type, t.DecimalType):
            return compute_decimal_quotient(accumulator, value, data_type)
        quotient = compute_java_int_division(accumulator, value)
    except ArithmeticError as error:
        raise _arithmetic_error(aggregator, error) from None
    return compute_checked_integer(aggregator, quotient, f"{accumulator} / {value}")


def agg_max(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    if accumulator is None or value is None:
        return _either(accumulator, value)
    return value if compare_values(accumulator, value, aggregator.data_type) < 0 else accumulator


def agg_min(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    """The smaller value; on a tie the input wins (Java keeps the accumulator only if smaller)."""
    if accumulator is None or value is None:
        return _either(accumulator, value)
    return accumulator if compare_values(accumulator, value, aggregator.data_type) < 0 else value


def agg_last_value(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    return value


def retract_last_value(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    return None


def agg_last_non_null_value(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    return accumulator if value is None else value


def retract_last_non_null_value(
    aggregator: FieldAggregator, accumulator: Value, value: Value
) -> Value:
    """Retracting a non-null value clears the field; a null retraction changes nothing."""
    return accumulator if value is None else None


def agg_primary_key(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    return value


def compute_listagg_tokens(text: str, delimiter: str) -> list[str]:
    """``BinaryStringUtils.splitByWholeSeparatorPreserveAllTokens``: empty text has no token;
    an empty delimiter splits on a space."""
    if not text:
        return []
    return text.split(delimiter or " ")


def agg_listagg(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    """Join with the delimiter; blank inputs are skipped, a blank accumulator is replaced.

    With ``distinct`` the input is split at the delimiter and only its non-blank tokens not
    already among the accumulator's tokens are appended.
    """
    if is_java_blank(value):
        return accumulator
    if is_java_blank(accumulator):
        return value
    if not aggregator.distinct:
        return accumulator + aggregator.delimiter + value
    seen = set(compute_listagg_tokens(accumulator, aggregator.delimiter))
    parts = [accumulator]
    for token in compute_listagg_tokens(value, aggregator.delimiter):
        if is_java_blank(token) or token in seen:
            continue
        seen.add(token)
        parts.append(token)
    return aggregator.delimiter.join(parts)


def agg_bool_and(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    if accumulator is None or value is None:
        return _either(accumulator, value)
    return bool(accumulator and value)


def agg_bool_or(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    if accumulator is None or value is None:
        return _either(accumulator, value)
    return bool(accumulator or value)


def _element_type(aggregator: FieldAggregator) -> t.DataType:
    data_type = aggregator.data_type
    assert isinstance(data_type, (t.ArrayType, t.MapType))
    return data_type.element if isinstance(data_type, t.ArrayType) else data_type.key


def is_value_compared_element(element_type: t.DataType) -> bool:
    """Elements ``collect`` de-duplicates by a field-wise comparison instead of a hash set:
    nested types and binaries (Java: ``FieldCollectAgg.needsEqualiser``)."""
    return t.is_nested(element_type) or element_type.root in t.BINARY_ROOTS


def agg_collect(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    """Append the input's elements; with ``distinct`` keep each element once.

    Without ``distinct`` a null side returns the other unchanged. With ``distinct`` the result
    is always de-duplicated: nested and binary elements keep first-seen order, others take the
    iteration order of Java's ``HashSet``.
    """
    if accumulator is None and value is None:
        return None
    if not aggregator.distinct and (accumulator is None or value is None):
        return _either(accumulator, value)
    elements = list(accumulator or []) + list(value or [])
    if not aggregator.distinct:
        return elements
    element_type = _element_type(aggregator)
    if is_value_compared_element(element_type):
        return _first_distinct(list(accumulator or []), list(value or []), element_type)
    return compute_java_hash_set(elements, element_type)


def _first_distinct(kept: list[Value], added: list[Value], element_type: t.DataType) -> list[Value]:
    """Java keeps the accumulator as is (it is distinct already) and appends unseen inputs."""
    keys = [compute_java_equality_key(element, element_type) for element in kept]
    for element in added:
        key = compute_java_equality_key(element, element_type)
        if key not in keys:
            keys.append(key)
            kept.append(element)
    return kept


def retract_collect(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    """Each retracted element cancels one equal element of the accumulator (first match)."""
    if accumulator is None:
        return None
    if not value:
        return accumulator
    element_type = _element_type(aggregator)
    pending = [compute_java_equality_key(element, element_type) for element in value]
    kept = []
    for element in accumulator:
        key = compute_java_equality_key(element, element_type)
        if key in pending:
            pending.remove(key)
        else:
            kept.append(element)
    return kept


def _map_types(aggregator: FieldAggregator) -> t.MapType:
    data_type = aggregator.data_type
    assert isinstance(data_type, t.MapType)
    return data_type


def agg_merge_map(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    """Union of the maps; the input's value wins for a key in both."""
    if accumulator is None or value is None:
        return _either(accumulator, value)
    entries = [*accumulator.items(), *value.items()]
    return compute_java_hash_map(entries, _map_types(aggregator).key)


def retract_merge_map(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    """Remove the retracted map's keys (whatever their values)."""
    if accumulator is None:
        return None
    if not value:
        return accumulator
    kept = [(key, item) for key, item in accumulator.items() if key not in value]
    return compute_java_hash_map(kept, _map_types(aggregator).key)


def agg_merge_map_with_keytime(
    aggregator: FieldAggregator, accumulator: Value, value: Value
) -> Value:
    """Merge maps of ROW values keyed by time (main only).

    For each input entry: a null row removes the key; a row with a null time is skipped;
    otherwise it replaces the current row when that is absent, has a null time, or has a time
    string smaller than the input's (``String.compareTo``).
    """
    if accumulator is None or value is None:
        return _either(accumulator, value)
    ts = aggregator.timestamp_field
    result = dict(accumulator)
    for key, row in value.items():
        current = result.get(key)
        if row is None:
            result.pop(key, None)
        elif row[ts] is not None and (
            current is None or current[ts] is None or compare_java_strings(row[ts], current[ts]) > 0
        ):
            result[key] = row
    return result


def _nested_row_type(aggregator: FieldAggregator) -> t.RowType:
    data_type = aggregator.data_type
    assert isinstance(data_type, t.ArrayType) and isinstance(data_type.element, t.RowType)
    return data_type.element


def compute_nested_key(aggregator: FieldAggregator, row: tuple[Value, ...]) -> bytes | None:
    """The nested key of an element row as Java's projected BinaryRow bytes, or ``None`` when
    a key field is null and the strategy says to drop the row."""
    element = _nested_row_type(aggregator)
    values = [row[index] for index in aggregator.nested_key]
    if any(item is None for item in values):
        if aggregator.nested_key_null_strategy is NestedKeyNullStrategy.IGNORE:
            return None
        if aggregator.nested_key_null_strategy is NestedKeyNullStrategy.ERROR:
            raise SpecViolation(
                f"nested key of field '{aggregator.field_name}' contains null values",
                code=NESTED_KEY_NULL_ERROR,
            )
    types = [element.fields[index].type for index in aggregator.nested_key]
    return encode_binary_row(values, types)


def _is_newer_nested(
    aggregator: FieldAggregator, row: tuple[Value, ...], existing: tuple[Value, ...]
) -> bool:
    element = _nested_row_type(aggregator)
    for index in aggregator.nested_sequence:
        result = compare_nullable(row[index], existing[index], element.fields[index].type)
        if result:
            return result > 0
    return True


def _ordered_by_key_hash(
    rows: dict[bytes, Value], keys_in_put_order: list[bytes], compute_if_absent: bool = False
) -> list[Value]:
    calls = [(key, compute_binary_row_hash(key)) for key in keys_in_put_order]
    return [
        rows[key]
        for key in compute_hash_map_order(calls, compute_if_absent=compute_if_absent)
        if key in rows
    ]


def _put_nested_rows(
    aggregator: FieldAggregator,
    rows: dict[bytes, Value],
    put_order: list[bytes],
    elements: Sequence[Value],
    limit_new_keys: bool,
) -> None:
    for row in elements:
        if row is None:
            continue
        key = compute_nested_key(aggregator, row)
        if key is None:
            continue
        if key in rows:
            if not aggregator.nested_sequence or _is_newer_nested(aggregator, row, rows[key]):
                rows[key] = row
        elif not limit_new_keys or len(rows) < aggregator.count_limit:
            rows[key] = row
            put_order.append(key)


def agg_nested_update(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    """Merge nested tables (``ARRAY<ROW>``), by nested key when one is configured.

    Without a key the input's non-null rows are appended, up to ``count-limit`` rows in all.
    With a key a row replaces the accumulated row of the same key (if ``nested-sequence-field``
    is set, only when its sequence is not smaller); new keys stop at ``count-limit``. Null rows
    are dropped.
    """
    if value is None:
        return accumulator
    limit = max(aggregator.count_limit, 0)
    if not aggregator.nested_key:
        if accumulator is None:
            return [row for row in value if row is not None][:limit]
        if len(accumulator) >= limit:
            return accumulator
        added = [row for row in value if row is not None][: limit - len(accumulator)]
        return [row for row in accumulator if row is not None] + added
    rows: dict[bytes, Value] = {}
    put_order: list[bytes] = []
    _put_nested_rows(aggregator, rows, put_order, accumulator or [], limit_new_keys=False)
    _put_nested_rows(aggregator, rows, put_order, value, limit_new_keys=True)
    return _ordered_by_key_hash(rows, put_order)


def retract_nested_update(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    """Without a key remove every row equal to a retracted row; with a key remove its key."""
    if accumulator is None or value is None:
        return accumulator
    if not aggregator.nested_key:
        retracted = [row for row in value if row is not None]
        return [row for row in accumulator if row is not None and row not in retracted]
    rows: dict[bytes, Value] = {}
    put_order: list[bytes] = []
    for row in accumulator:
        key = None if row is None else compute_nested_key(aggregator, row)
        if key is not None:
            if key not in rows:
                put_order.append(key)
            rows[key] = row
    for row in value:
        key = None if row is None else compute_nested_key(aggregator, row)
        if key is not None:
            rows.pop(key, None)
    return _ordered_by_key_hash(rows, put_order)


def agg_nested_partial_update(
    aggregator: FieldAggregator, accumulator: Value, value: Value
) -> Value:
    """Partially update nested rows by key: rows of one key merge their non-null fields (main)."""
    if value is None:
        return accumulator
    width = len(_nested_row_type(aggregator).fields)
    merged: dict[bytes, list[Value]] = {}
    calls: list[bytes] = []
    for row in [*(accumulator or []), *value]:
        if row is None:
            continue
        key = compute_nested_key(aggregator, row)
        if key is None:
            continue
        calls.append(key)
        target = merged.setdefault(key, [None] * width)
        for index, item in enumerate(row):
            if item is not None:
                target[index] = item
    rows = {key: tuple(fields) for key, fields in merged.items()}
    return _ordered_by_key_hash(rows, calls, compute_if_absent=True)


def agg_rbm32(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    if accumulator is None or value is None:
        return _either(accumulator, value)
    return compute_rbm32_union(accumulator, value)


def agg_rbm64(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    if accumulator is None or value is None:
        return _either(accumulator, value)
    return compute_rbm64_union(accumulator, value)


def agg_theta_sketch(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    if accumulator is None or value is None:
        return _either(accumulator, value)
    return compute_theta_union(accumulator, value)


def agg_hll_sketch(aggregator: FieldAggregator, accumulator: Value, value: Value) -> Value:
    if accumulator is None or value is None:
        return _either(accumulator, value)
    return compute_hll_union(accumulator, value)


AggRule = Callable[[FieldAggregator, Value, Value], Value]

AGG_RULES: Mapping[AggregateKind, AggRule] = {
    AggregateKind.SUM: agg_sum,
    AggregateKind.PRODUCT: agg_product,
    AggregateKind.MAX: agg_max,
    AggregateKind.MIN: agg_min,
    AggregateKind.LAST_VALUE: agg_last_value,
    AggregateKind.LAST_NON_NULL_VALUE: agg_last_non_null_value,
    AggregateKind.LISTAGG: agg_listagg,
    AggregateKind.BOOL_AND: agg_bool_and,
    AggregateKind.BOOL_OR: agg_bool_or,
    AggregateKind.RBM32: agg_rbm32,
    AggregateKind.RBM64: agg_rbm64,
    AggregateKind.NESTED_UPDATE: agg_nested_update,
    AggregateKind.NESTED_PARTIAL_UPDATE: agg_nested_partial_update,
    AggregateKind.COLLECT: agg_collect,
    AggregateKind.MERGE_MAP: agg_merge_map,
    AggregateKind.MERGE_MAP_WITH_KEYTIME: agg_merge_map_with_keytime,
    AggregateKind.THETA_SKETCH: agg_theta_sketch,
    AggregateKind.HLL_SKETCH: agg_hll_sketch,
    AggregateKind.PRIMARY_KEY: agg_primary_key,
}
"""Stateless rules; ``first_value`` and ``first_non_null_value`` live in :func:`apply_agg`."""

RETRACT_RULES: Mapping[AggregateKind, AggRule] = {
    AggregateKind.SUM: retract_sum,
    AggregateKind.PRODUCT: retract_product,
    AggregateKind.LAST_VALUE: retract_last_value,
    AggregateKind.LAST_NON_NULL_VALUE: retract_last_non_null_value,
    AggregateKind.COLLECT: retract_collect,
    AggregateKind.MERGE_MAP: retract_merge_map,
    AggregateKind.NESTED_UPDATE: retract_nested_update,
    AggregateKind.PRIMARY_KEY: agg_primary_key,
}
"""The functions that can retract (Java overrides ``FieldAggregator.retract``)."""


# --------------------------------------------------------------------------------------------
# Applying an aggregator to a field state
# --------------------------------------------------------------------------------------------


def _apply_first(
    kind: AggregateKind, state: AggState, accumulator: Value, value: Value
) -> AggState:
    """Java's ``first_value``/``first_non_null_value`` ``agg(accumulator, value)``."""
    if state.initialized or (kind is AggregateKind.FIRST_NON_NULL_VALUE and value is None):
        return AggState(accumulator, state.initialized)
    return AggState(value, True)


def apply_agg(aggregator: FieldAggregator, state: AggState, value: Value) -> AggState:
    """Absorb an added input that is newer than the state."""
    if aggregator.kind in (AggregateKind.FIRST_VALUE, AggregateKind.FIRST_NON_NULL_VALUE):
        return _apply_first(aggregator.kind, state, state.value, value)
    return replace(state, value=AGG_RULES[aggregator.kind](aggregator, state.value, value))


def apply_agg_reversed(aggregator: FieldAggregator, state: AggState, value: Value) -> AggState:
    """Absorb an added input that is *older* than the state: Java's ``aggReversed``, which
    calls ``agg`` with the two sides swapped -- except ``collect`` (not wrapped by
    ``ignore-retract``), which keeps its sides."""
    if aggregator.kind is AggregateKind.COLLECT and not aggregator.ignore_retract:
        return apply_agg(aggregator, state, value)
    if aggregator.kind in (AggregateKind.FIRST_VALUE, AggregateKind.FIRST_NON_NULL_VALUE):
        return _apply_first(aggregator.kind, state, value, state.value)
    return replace(state, value=AGG_RULES[aggregator.kind](aggregator, value, state.value))


def apply_retract(aggregator: FieldAggregator, state: AggState, value: Value) -> AggState:
    """Take back a retracted (-U/-D) input; an error for functions that cannot retract."""
    if aggregator.ignore_retract:
        return state
    rule = RETRACT_RULES.get(aggregator.kind)
    if rule is None:
        raise SpecViolation(
            f"aggregate function '{aggregator.kind.value}' of field '{aggregator.field_name}' "
            f"does not support retraction; set "
            f"'{field_option_key(aggregator.field_name, IGNORE_RETRACT_SUFFIX)}' = 'true' to "
            "ignore retraction messages",
            code=RETRACT_UNSUPPORTED_ERROR,
        )
    return replace(state, value=rule(aggregator, state.value, value))


# --------------------------------------------------------------------------------------------
# Building an aggregator from options (with the type rules of main's factories)
# --------------------------------------------------------------------------------------------

_COMPARABLE_EXCLUDED = frozenset(
    {
        t.TypeRoot.MAP,
        t.TypeRoot.MULTISET,
        t.TypeRoot.ROW,
        t.TypeRoot.ARRAY,
        t.TypeRoot.VECTOR,
        t.TypeRoot.VARIANT,
        t.TypeRoot.BLOB,
    }
)


def _is_array_of_rows(data_type: t.DataType) -> bool:
    return isinstance(data_type, t.ArrayType) and isinstance(data_type.element, t.RowType)


def _is_string_type(data_type: t.DataType) -> bool:
    return isinstance(data_type, t.VarCharType) and data_type.length == t.MAX_LENGTH


def _is_keytime_map(data_type: t.DataType) -> bool:
    return (
        isinstance(data_type, t.MapType)
        and isinstance(data_type.value, t.RowType)
        and len(data_type.value.fields) >= 2
    )


TYPE_RULES: Mapping[AggregateKind, tuple[Callable[[t.DataType], bool], str]] = {
    AggregateKind.SUM: (lambda d: d.root in t.NUMERIC_ROOTS, "a numeric type"),
    AggregateKind.PRODUCT: (lambda d: d.root in t.NUMERIC_ROOTS, "a numeric type"),
    AggregateKind.MAX: (lambda d: d.root not in _COMPARABLE_EXCLUDED, "a comparable type"),
    AggregateKind.MIN: (lambda d: d.root not in _COMPARABLE_EXCLUDED, "a comparable type"),
    AggregateKind.LISTAGG: (_is_string_type, "STRING (unbounded VARCHAR)"),
    AggregateKind.BOOL_AND: (lambda d: d.root is t.TypeRoot.BOOLEAN, "BOOLEAN"),
    AggregateKind.BOOL_OR: (lambda d: d.root is t.TypeRoot.BOOLEAN, "BOOLEAN"),
    AggregateKind.RBM32: (lambda d: d.root is t.TypeRoot.VARBINARY, "VARBINARY"),
    AggregateKind.RBM64: (lambda d: d.root is t.TypeRoot.VARBINARY, "VARBINARY"),
    AggregateKind.THETA_SKETCH: (lambda d: d.root is t.TypeRoot.VARBINARY, "VARBINARY"),
    AggregateKind.HLL_SKETCH: (lambda d: d.root is t.TypeRoot.VARBINARY, "VARBINARY"),
    AggregateKind.COLLECT: (lambda d: d.root is t.TypeRoot.ARRAY, "ARRAY"),
    AggregateKind.MERGE_MAP: (lambda d: d.root is t.TypeRoot.MAP, "MAP"),
    AggregateKind.MERGE_MAP_WITH_KEYTIME: (_is_keytime_map, "MAP<K, ROW> with at least 2 fields"),
    AggregateKind.NESTED_UPDATE: (_is_array_of_rows, "ARRAY<ROW>"),
    AggregateKind.NESTED_PARTIAL_UPDATE: (_is_array_of_rows, "ARRAY<ROW>"),
}
"""What each function accepts; functions absent here take any type."""


def parse_aggregate_kind(name: str, option: str) -> AggregateKind:
    """The function an option names; unknown or removed names are an option error."""
    if name in REMOVED_NAMES:
        raise InvalidOptionError(option, name, f"aggregate function {REMOVED_NAMES[name]}")
    if name in LEGACY_NAMES:
        return LEGACY_NAMES[name]
    for kind in AggregateKind:
        if kind.value == name:
            return kind
    raise InvalidOptionError(option, name, "unsupported aggregate function (or misspelled)")


def parse_java_boolean(option: str, text: str) -> bool:
    """A boolean option: ``true``/``false`` in any case, nothing else (Java ``OptionsUtils``)."""
    if text.upper() == "TRUE":
        return True
    if text.upper() == "FALSE":
        return False
    raise InvalidOptionError(option, text, "expected true or false (case insensitive)")


def _boolean_option(options: Mapping[str, str], key: str) -> bool:
    return parse_java_boolean(key, options[key]) if key in options else False


def _name_list(text: str) -> list[str]:
    return [name.strip() for name in text.split(",")]


def _nested_positions(options: Mapping[str, str], key: str, element: t.RowType) -> tuple[int, ...]:
    if key not in options:
        return ()
    positions = []
    for name in _name_list(options[key]):
        if name not in element.field_names:
            raise InvalidOptionError(key, options[key], f"'{name}' is not a field of {element}")
        positions.append(element.field_index(name))
    return tuple(positions)


def _parse_count_limit(options: Mapping[str, str], key: str) -> int:
    if key not in options:
        return JAVA_INT_MAX
    try:
        limit = int(options[key].strip())
    except ValueError:
        raise InvalidOptionError(key, options[key], "expected an integer") from None
    if not JAVA_INT_MIN <= limit <= JAVA_INT_MAX:
        raise InvalidOptionError(key, options[key], "does not fit an int")
    return limit


def _nested_settings(aggregator: FieldAggregator, options: Mapping[str, str]) -> FieldAggregator:
    name = aggregator.field_name
    element = _nested_row_type(aggregator)
    key_option = field_option_key(name, NESTED_KEY_SUFFIX)
    strategy_option = field_option_key(name, NESTED_KEY_NULL_STRATEGY_SUFFIX)
    sequence_option = field_option_key(name, NESTED_SEQUENCE_FIELD_SUFFIX)
    nested_key = _nested_positions(options, key_option, element)
    strategy = NestedKeyNullStrategy.MERGE
    if strategy_option in options:
        text = options[strategy_option]
        matches = [s for s in NestedKeyNullStrategy if s.value == text.strip().lower()]
        if not matches:
            raise InvalidOptionError(strategy_option, text, "expected merge, ignore or error")
        strategy = matches[0]
        if not nested_key:
            raise InvalidOptionError(strategy_option, text, f"requires '{key_option}'")
    sequence = _nested_positions(options, sequence_option, element)
    if sequence and not nested_key:
        raise InvalidOptionError(
            sequence_option, options[sequence_option], f"requires '{key_option}'"
        )
    if aggregator.kind is AggregateKind.NESTED_PARTIAL_UPDATE and not nested_key:
        raise InvalidOptionError(key_option, None, "nested_partial_update needs a nested key")
    return replace(
        aggregator,
        nested_key=nested_key,
        nested_key_null_strategy=strategy,
        nested_sequence=sequence,
        count_limit=_parse_count_limit(options, field_option_key(name, COUNT_LIMIT_SUFFIX)),
    )


def _keytime_settings(aggregator: FieldAggregator, options: Mapping[str, str]) -> FieldAggregator:
    map_type = _map_types(aggregator)
    assert isinstance(map_type.value, t.RowType)
    row = map_type.value
    key = field_option_key(aggregator.field_name, MERGE_MAP_TS_FIELD_SUFFIX)
    position = len(row.fields) - 1
    if key in options:
        if options[key] not in row.field_names:
            raise InvalidOptionError(key, options[key], f"not a field of {row}")
        position = row.field_index(options[key])
    if row.fields[position].type.root not in t.CHARACTER_ROOTS:
        raise InvalidOptionError(key, options.get(key), "the time field must be a string")
    return replace(aggregator, timestamp_field=position)


def compute_field_aggregator(
    function: str,
    option: str,
    field: t.DataField,
    options: Mapping[str, str],
    remove_record_on_delete: bool = False,
) -> FieldAggregator:
    """Build and validate the aggregator ``option`` (= ``function``) assigns to ``field``.

    Raises :class:`InvalidOptionError` naming the offending option for an unknown function, a
    type the function does not accept, malformed per-field settings, or ``ignore-retract``
    together with ``aggregation.remove-record-on-delete``.
    """
    kind = parse_aggregate_kind(function, option)
    rule = TYPE_RULES.get(kind)
    if rule is not None and not rule[0](field.type):
        raise InvalidOptionError(
            option,
            function,
            f"field '{field.name}' is {field.type}, but {function} needs {rule[1]}",
        )
    ignore_option = field_option_key(field.name, IGNORE_RETRACT_SUFFIX)
    ignore_retract = _boolean_option(options, ignore_option)
    if ignore_retract and remove_record_on_delete:
        raise InvalidOptionError(
            ignore_option,
            options[ignore_option],
            "conflicts with 'aggregation.remove-record-on-delete'",
        )
    aggregator = FieldAggregator(
        kind,
        field.name,
        field.type,
        ignore_retract=ignore_retract,
        delimiter=options.get(
            field_option_key(field.name, LIST_AGG_DELIMITER_SUFFIX), DEFAULT_LIST_AGG_DELIMITER
        ),
        distinct=_boolean_option(options, field_option_key(field.name, DISTINCT_SUFFIX)),
    )
    if kind in (AggregateKind.NESTED_UPDATE, AggregateKind.NESTED_PARTIAL_UPDATE):
        return _nested_settings(aggregator, options)
    if kind is AggregateKind.MERGE_MAP_WITH_KEYTIME:
        return _keytime_settings(aggregator, options)
    return aggregator


def primary_key_aggregator(field: t.DataField) -> FieldAggregator:
    """What a primary-key field aggregates with: always the input value."""
    return FieldAggregator(AggregateKind.PRIMARY_KEY, field.name, field.type)
