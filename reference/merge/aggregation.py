"""The ``aggregation`` merge engine: every value field folds its records with a function.

Spec: ``docs/primary-key-table/merge-engine/aggregation`` and the seeds' "聚合" / "Aggregation"
sections. Java: ``org.apache.paimon.mergetree.compact.aggregate.AggregateMergeFunction`` (main;
differences from 0.9.0 in :data:`DIFFERENCES_FROM_0_9`).

Rules (main):

* Each field has a function: ``fields.<f>.aggregate-function``, else
  ``fields.default-aggregate-function``, else ``last_non_null_value``. Primary-key fields take
  the input value; ``sequence.field`` fields use ``last_value`` (a function may not be set on
  them).
* Records of one key are folded oldest first: an added record (+I/+U) aggregates each field, a
  retraction (-U/-D) retracts each field (an error for a function that cannot retract unless
  ``fields.<f>.ignore-retract`` is set).
* With ``aggregation.remove-record-on-delete`` a -D instead replaces the row by its own values
  and makes the result a DELETE (a later added record of the same merge aggregates onto it).
* The result has the key and sequence number of the newest record and kind INSERT, unless the
  newest record was such a removing -D.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from reference.errors import InvalidOptionError, SpecViolation
from reference.merge.aggregate_functions import (
    AGGREGATE_FUNCTION_SUFFIX,
    FIELDS_PREFIX,
    NOT_NULL_ERROR,
    AggState,
    FieldAggregator,
    apply_agg,
    apply_retract,
    compute_field_aggregator,
    field_option_key,
    primary_key_aggregator,
)
from reference.merge.fold import MergeFold, fold_records
from reference.spec import types as t
from reference.spec.aggregate_kind import AggregateKind
from reference.spec.data import Row, RowKind
from reference.spec.key_value import KeyValue

DEFAULT_AGGREGATE_FUNCTION_OPTION = f"{FIELDS_PREFIX}.default-aggregate-function"

DIFFERENCES_FROM_0_9: Mapping[str, str] = {
    "aggregation-remove-record-on-delete": "option added after 0.9.0",
    "aggregation-sequence-field-function": (
        "0.9.0 folds sequence.field fields with the default function (last_non_null_value "
        "unless configured); main uses last_value"
    ),
    "aggregation-integer-overflow": (
        "0.9.0 sum/product wrap around on integer overflow; main raises an error"
    ),
    "aggregation-product-retract-null": (
        "0.9.0 product retraction onto a null accumulator yields the input; main keeps null"
    ),
    "aggregation-type-checks": (
        "0.9.0 checks most input types only when a value arrives; main rejects them when the "
        "table is created (e.g. max on ARRAY, listagg on VARCHAR(n))"
    ),
    "aggregation-listagg-blank": (
        "main skips blank (whitespace only) inputs and supports 'fields.<f>.distinct'; 0.9.0 "
        "only skips nulls"
    ),
    "aggregation-collect-binary-distinct": (
        "0.9.0 compares distinct BINARY elements by identity, so it never de-duplicates them"
    ),
    "aggregation-nested-update": (
        "main drops null rows, de-duplicates the input by nested key even with a null "
        "accumulator, and adds count-limit, nested-sequence-field and nested-key-null-strategy"
    ),
    "aggregation-main-only-functions": "nested_partial_update and merge_map_with_keytime",
}


@dataclass(frozen=True)
class AggregationConfig:
    """One aggregator per field (in row order) and the NOT NULL flags."""

    aggregators: tuple[FieldAggregator, ...]
    nullables: tuple[bool, ...]
    remove_record_on_delete: bool = False


def compute_aggregation_function(
    data_field: t.DataField,
    options: Mapping[str, str],
    primary_keys: Sequence[str],
    sequence_fields: Sequence[str],
    remove_record_on_delete: bool,
) -> FieldAggregator:
    """The aggregator of one field (main ``getAggFuncName`` + ``FieldAggregatorFactory``)."""
    name = data_field.name
    option = field_option_key(name, AGGREGATE_FUNCTION_SUFFIX)
    if name in sequence_fields:
        if option in options:
            raise InvalidOptionError(
                option, options[option], f"'{name}' is a sequence.field and takes no function"
            )
        function, option = AggregateKind.LAST_VALUE.value, "sequence.field"
    elif name in primary_keys:
        return primary_key_aggregator(data_field)
    elif option in options:
        function = options[option]
    elif DEFAULT_AGGREGATE_FUNCTION_OPTION in options:
        option = DEFAULT_AGGREGATE_FUNCTION_OPTION
        function = options[option]
    else:
        function = AggregateKind.LAST_NON_NULL_VALUE.value
    return compute_field_aggregator(function, option, data_field, options, remove_record_on_delete)


def compute_aggregation_config(
    row_type: t.RowType,
    primary_keys: Sequence[str],
    options: Mapping[str, str],
    sequence_fields: Sequence[str] = (),
    remove_record_on_delete: bool = False,
) -> AggregationConfig:
    """Resolve and validate every field's function (``options`` is the raw table options)."""
    aggregators = tuple(
        compute_aggregation_function(
            f, options, primary_keys, sequence_fields, remove_record_on_delete
        )
        for f in row_type.fields
    )
    nullables = tuple(f.type.nullable for f in row_type.fields)
    return AggregationConfig(aggregators, nullables, remove_record_on_delete)


@dataclass(frozen=True)
class AggregationState:
    """The accumulated row of one key and the newest record seen."""

    fields: tuple[AggState, ...]
    latest: KeyValue | None = None
    delete_row: bool = False


def initial_aggregation_state(config: AggregationConfig) -> AggregationState:
    return AggregationState(tuple(AggState() for _ in config.aggregators))


def compute_removed_row(
    state: AggregationState, value: Row, config: AggregationConfig
) -> tuple[AggState, ...]:
    """The row a removing -D leaves: its own values (NOT NULL fields must be set)."""
    for index, item in enumerate(value):
        if item is None and not config.nullables[index]:
            raise SpecViolation(
                f"field {index} is NOT NULL but the record holds null", code=NOT_NULL_ERROR
            )
    return tuple(replace(s, value=item) for s, item in zip(state.fields, value, strict=True))


def apply_aggregation(
    state: AggregationState, kv: KeyValue, config: AggregationConfig
) -> AggregationState:
    """Fold one record (the next newer one) into the state."""
    if config.remove_record_on_delete and kv.kind is RowKind.DELETE:
        return AggregationState(compute_removed_row(state, kv.value, config), kv, True)
    apply = apply_retract if kv.kind.is_retract else apply_agg
    fields = tuple(
        apply(aggregator, field_state, item)
        for aggregator, field_state, item in zip(
            config.aggregators, state.fields, kv.value, strict=True
        )
    )
    return AggregationState(fields, kv, False)


def compute_aggregation_result(state: AggregationState) -> KeyValue | None:
    if state.latest is None:
        return None
    kind = RowKind.DELETE if state.delete_row else RowKind.INSERT
    values = tuple(s.value for s in state.fields)
    return KeyValue(state.latest.key, state.latest.sequence_number, kind, values)


AGGREGATION_FOLD = MergeFold(
    initial_aggregation_state, apply_aggregation, compute_aggregation_result
)


def merge_aggregation(records: Sequence[KeyValue], config: AggregationConfig) -> KeyValue | None:
    """Merge the records of one key, oldest first; ``None`` only for no records."""
    return fold_records(records, AGGREGATION_FOLD, config)
