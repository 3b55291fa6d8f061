"""The ``partial-update`` merge engine: build a row from the non-null fields of many updates.

Spec: ``docs/primary-key-table/merge-engine/partial-update`` and the seeds' "Partial Update",
"Sequence Group" and "Aggregation For Partial Update" sections (default values, which the seeds
show with partial-update, are applied outside the merge: see ``engine``).
Java: ``org.apache.paimon.mergetree.compact.PartialUpdateMergeFunction`` (main; differences from
0.9.0 are listed in :data:`DIFFERENCES_FROM_0_9`).

Rules (main):

* Records of one key are applied oldest first. Without sequence groups an added record (+I/+U)
  overwrites each field it holds a non-null value for; a null never overwrites. A null for a
  NOT NULL field is an error.
* A retraction (-U/-D) is an error unless one of these is configured: ``ignore-delete``
  (retractions are skipped), ``partial-update.remove-record-on-delete`` (a -D replaces the row by
  its own values and marks it deleted; a -U is skipped), or sequence groups.
* Sequence groups (``fields.<s1>,<s2>.sequence-group = <f1>,<f2>``): the listed fields are
  updated only by a record whose sequence fields ``(s1, s2)`` are not older than the stored ones
  (compared in order, null smallest). Such a record sets the sequence fields and every protected
  field, nulls included. A record whose sequence fields are all null leaves the group alone.
  Fields outside every group follow the non-null rule. A retraction with a newer-or-equal
  sequence sets the sequence fields and clears the protected fields (or retracts their
  aggregate); an older retraction only retracts aggregates.
  ``partial-update.remove-record-on-sequence-group = s`` makes a newer -D of the group ordered by
  ``s`` delete the whole row instead.
* Aggregate functions (``fields.<f>.aggregate-function`` or ``fields.default-aggregate-function``)
  apply to fields protected by a group: a newer record aggregates, an older record aggregates
  "reversed" (it is folded in as if it came first). ``last_non_null_value`` is also allowed
  outside groups, where it changes nothing. Primary-key fields take the input value.
* The result has the newest record's sequence number; it is a DELETE when the last record was a
  removing -D, or when no added record was seen; otherwise an INSERT. The first record, even a
  skipped retraction, initialises the row.
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
    apply_agg_reversed,
    apply_retract,
    compute_field_aggregator,
    field_option_key,
    primary_key_aggregator,
)
from reference.merge.fold import MergeFold, fold_records
from reference.merge.sequence import SequenceFields, compare_sequence
from reference.spec import types as t
from reference.spec.aggregate_kind import AggregateKind
from reference.spec.data import Row, RowKind
from reference.spec.key_value import KeyValue
from reference.spec.options import IGNORE_DELETE_OPTION as IGNORE_DELETE

SEQUENCE_GROUP_SUFFIX = "sequence-group"
FIELDS_SEPARATOR = ","
REMOVE_RECORD_ON_DELETE = "partial-update.remove-record-on-delete"
REMOVE_RECORD_ON_SEQUENCE_GROUP = "partial-update.remove-record-on-sequence-group"

DELETE_REJECTED_ERROR = "MERGE_DELETE_REJECTED"

DIFFERENCES_FROM_0_9: Mapping[str, str] = {
    "partial-update-result-kind": (
        "0.9.0 always returns an INSERT; main returns a DELETE when the row was removed by a -D "
        "or no added record was seen (e.g. only ignored retractions)"
    ),
    "partial-update-remove-record-on-delete": (
        "0.9.0 drops the row (the merge yields nothing) and then fails on a later +I of the "
        "same merge; main keeps the -D's values as the row, kind DELETE, and applies later adds"
    ),
    "partial-update-not-null-check": (
        "main rejects a null for a NOT NULL field without sequence groups; 0.9.0 skips it"
    ),
    "partial-update-aggregators": (
        "0.9.0 requires a sequence group as soon as any field has a function (even a default "
        "last_non_null_value), and gives sequence fields and primary keys the default function "
        "too; main allows last_non_null_value without groups and never aggregates sequence fields"
    ),
    "partial-update-remove-record-on-sequence-group": "option added after 0.9.0",
    "partial-update-retract-sequence-number": (
        "main gives the result the sequence number of the newest record, retractions included; "
        "0.9.0 only counts added records"
    ),
    "partial-update-first-record-retraction": (
        "main initialises the row from the first record even when it is a skipped retraction "
        "(ignore-delete), so its values survive where later records hold nulls; 0.9.0 skips it"
    ),
    "partial-update-sequence-field-aggregate": (
        "0.9.0 rejects 'fields.<sequence field>.aggregate-function'; main ignores it"
    ),
}


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SequenceGroup:
    """One ``fields.<sequence fields>.sequence-group = <protected fields>`` option."""

    sequence: SequenceFields
    protected_fields: tuple[int, ...]
    removes_record: bool = False
    """A newer -D of this group deletes the whole row (remove-record-on-sequence-group)."""

    @property
    def fields(self) -> frozenset[int]:
        return frozenset(self.sequence.indexes) | frozenset(self.protected_fields)


@dataclass(frozen=True)
class PartialUpdateConfig:
    """Everything the partial-update merge needs, resolved against the row type."""

    nullables: tuple[bool, ...]
    ignore_delete: bool = False
    remove_record_on_delete: bool = False
    groups: tuple[SequenceGroup, ...] = ()
    aggregators: tuple[FieldAggregator | None, ...] = ()

    def group_of(self, index: int) -> int | None:
        """Position in :attr:`groups` of the group ``index`` belongs to, if any."""
        for position, group in enumerate(self.groups):
            if index in group.fields:
                return position
        return None


def is_sequence_group_option(key: str) -> bool:
    """A key Java treats as a sequence-group option: ``fields...sequence-group``."""
    return key.startswith(FIELDS_PREFIX) and key.endswith(SEQUENCE_GROUP_SUFFIX)


def split_java(text: str) -> list[str]:
    """``String.split(",")``: no trimming, trailing empty parts dropped."""
    parts = text.split(FIELDS_SEPARATOR)
    while len(parts) > 1 and not parts[-1]:
        parts.pop()
    return parts


def parse_sequence_group_key(key: str) -> list[str]:
    """The ordering field names of ``fields.<s1>,<s2>.sequence-group``."""
    prefix, suffix = FIELDS_PREFIX + ".", "." + SEQUENCE_GROUP_SUFFIX
    if not (key.startswith(prefix) and key.endswith(suffix)) or len(key) <= len(prefix + suffix):
        raise InvalidOptionError(key, None, "expected 'fields.<field>[,<field>].sequence-group'")
    return split_java(key[len(prefix) : -len(suffix)])


def _require_field(row_type: t.RowType, name: str, option: str, value: object) -> int:
    if name not in row_type.field_names:
        raise InvalidOptionError(option, value, f"field '{name}' is not in the table schema")
    return row_type.field_index(name)


_UNORDERED_ROOTS = frozenset({t.TypeRoot.VARIANT, t.TypeRoot.BLOB})


def compute_sequence_group(
    key: str,
    value: str,
    row_type: t.RowType,
    primary_keys: Sequence[str],
    remove_record_on: frozenset[str],
) -> SequenceGroup:
    """Resolve one sequence-group option; primary keys may not take part in a group."""
    sequence_names = parse_sequence_group_key(key)
    indexes = tuple(_require_field(row_type, n, key, value) for n in sequence_names)
    protected = tuple(_require_field(row_type, n, key, value) for n in split_java(value))
    for index in indexes + protected:
        if row_type.fields[index].name in primary_keys:
            raise InvalidOptionError(
                key, value, f"primary key '{row_type.fields[index].name}' cannot be in a group"
            )
    for index in indexes:
        if row_type.fields[index].type.root in _UNORDERED_ROOTS:
            raise InvalidOptionError(key, value, f"{row_type.fields[index].type} cannot order")
    types = tuple(row_type.fields[i].type for i in indexes)
    removes = any(name in remove_record_on for name in sequence_names)
    return SequenceGroup(SequenceFields(indexes, types), protected, removes)


def _check_disjoint(groups: Sequence[tuple[str, SequenceGroup]], row_type: t.RowType) -> None:
    """A field may belong to one group only (Java's outcome otherwise depends on map order)."""
    owner: dict[int, str] = {}
    for key, group in groups:
        for index in sorted(group.fields):
            if index in owner and owner[index] != key:
                raise InvalidOptionError(
                    key,
                    None,
                    f"field '{row_type.fields[index].name}' is defined repeatedly by multiple "
                    f"groups ({owner[index]})",
                )
            owner[index] = key


def compute_partial_update_aggregator(
    data_field: t.DataField,
    options: Mapping[str, str],
    primary_keys: Sequence[str],
    *,
    sequence_fields: frozenset[str],
    protected_fields: frozenset[str],
    remove_record_on_delete: bool,
) -> FieldAggregator | None:
    """The function of one field (main ``getAggFuncName``): none for sequence fields, the
    input value for primary keys, else the field's or the default function -- which must be
    ``last_non_null_value`` unless a sequence group protects the field."""
    name = data_field.name
    if name in sequence_fields:
        return None
    if name in primary_keys:
        return primary_key_aggregator(data_field)
    option = field_option_key(name, AGGREGATE_FUNCTION_SUFFIX)
    if option not in options:
        option = f"{FIELDS_PREFIX}.default-aggregate-function"
    function = options.get(option)
    if function is None:
        return None
    if function != AggregateKind.LAST_NON_NULL_VALUE.value and name not in protected_fields:
        raise InvalidOptionError(
            option, function, f"field '{name}' needs a sequence group to use an aggregate function"
        )
    return compute_field_aggregator(function, option, data_field, options, remove_record_on_delete)


def compute_partial_update_config(
    row_type: t.RowType,
    primary_keys: Sequence[str],
    options: Mapping[str, str],
    *,
    ignore_delete: bool = False,
    remove_record_on_delete: bool = False,
    remove_record_on_sequence_group: Sequence[str] = (),
    aggregation_remove_record_on_delete: bool = False,
) -> PartialUpdateConfig:
    """Resolve and validate the partial-update options (``options`` is the raw table options)."""
    remove_on = frozenset(remove_record_on_sequence_group)
    named_groups = [
        (key, compute_sequence_group(key, value, row_type, primary_keys, remove_on))
        for key, value in sorted(options.items())
        if is_sequence_group_option(key)
    ]
    _check_disjoint(named_groups, row_type)
    groups = tuple(group for _, group in named_groups)
    sequence_names = frozenset(row_type.fields[i].name for g in groups for i in g.sequence.indexes)
    protected_names = frozenset(row_type.fields[i].name for g in groups for i in g.protected_fields)
    _check_partial_update_conflicts(
        options,
        groups,
        sequence_names=sequence_names,
        ignore_delete=ignore_delete,
        remove_record_on_delete=remove_record_on_delete,
        remove_on=remove_on,
    )
    aggregators = tuple(
        compute_partial_update_aggregator(
            f,
            options,
            primary_keys,
            sequence_fields=sequence_names,
            protected_fields=protected_names,
            remove_record_on_delete=aggregation_remove_record_on_delete,
        )
        for f in row_type.fields
    )
    return PartialUpdateConfig(
        nullables=tuple(f.type.nullable for f in row_type.fields),
        ignore_delete=ignore_delete,
        remove_record_on_delete=remove_record_on_delete,
        groups=groups,
        aggregators=aggregators,
    )


def _check_partial_update_conflicts(
    options: Mapping[str, str],
    groups: Sequence[SequenceGroup],
    *,
    sequence_names: frozenset[str],
    ignore_delete: bool,
    remove_record_on_delete: bool,
    remove_on: frozenset[str],
) -> None:
    if remove_record_on_delete and ignore_delete:
        raise InvalidOptionError(REMOVE_RECORD_ON_DELETE, True, f"conflicts with '{IGNORE_DELETE}'")
    if remove_on and ignore_delete:
        raise InvalidOptionError(
            REMOVE_RECORD_ON_SEQUENCE_GROUP,
            options.get(REMOVE_RECORD_ON_SEQUENCE_GROUP),
            f"conflicts with '{IGNORE_DELETE}'",
        )
    if remove_record_on_delete and groups:
        raise InvalidOptionError(REMOVE_RECORD_ON_DELETE, True, "conflicts with sequence groups")
    if not remove_on <= sequence_names:
        raise InvalidOptionError(
            REMOVE_RECORD_ON_SEQUENCE_GROUP,
            options.get(REMOVE_RECORD_ON_SEQUENCE_GROUP),
            "every field must be a sequence-group ordering field",
        )


# --------------------------------------------------------------------------------------------
# The merge
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PartialUpdateState:
    """The row being built for one key and the flags that decide the result kind."""

    fields: tuple[AggState, ...]
    key: Row | None = None
    sequence_number: int = 0
    meet_insert: bool = False
    not_null_filled: bool = False
    delete_row: bool = False


def initial_partial_update_state(config: PartialUpdateConfig) -> PartialUpdateState:
    return PartialUpdateState(fields=tuple(AggState() for _ in config.nullables))


def _not_null_error(index: int) -> SpecViolation:
    return SpecViolation(
        f"field {index} is NOT NULL but the record holds null", code=NOT_NULL_ERROR
    )


def compute_initialized_fields(
    fields: tuple[AggState, ...], value: Row, config: PartialUpdateConfig
) -> tuple[AggState, ...]:
    """Every field takes the record's value (Java ``initRow``); ``first_*`` flags stay."""
    for index, item in enumerate(value):
        if item is None and not config.nullables[index]:
            raise _not_null_error(index)
    return tuple(replace(state, value=item) for state, item in zip(fields, value, strict=True))


def compute_non_null_update(
    fields: tuple[AggState, ...], value: Row, config: PartialUpdateConfig
) -> tuple[AggState, ...]:
    """Overwrite the fields the record holds non-null values for."""
    updated = []
    for index, (state, item) in enumerate(zip(fields, value, strict=True)):
        if item is None and not config.nullables[index]:
            raise _not_null_error(index)
        updated.append(state if item is None else replace(state, value=item))
    return tuple(updated)


def compute_group_verdict(group: SequenceGroup, value: Row, row: Row) -> bool | None:
    """``None`` when the record's sequence fields are all null (the group is skipped), else
    whether the record is not older than the stored row for this group."""
    if all(value[index] is None for index in group.sequence.indexes):
        return None
    return compare_sequence(value, row, group.sequence) >= 0


def compute_group_update(
    fields: tuple[AggState, ...], value: Row, config: PartialUpdateConfig
) -> tuple[AggState, ...]:
    """Apply an added record field by field under sequence groups."""
    row = tuple(state.value for state in fields)
    verdicts = [compute_group_verdict(group, value, row) for group in config.groups]
    updated = list(fields)
    for index, item in enumerate(value):
        group, aggregator = config.group_of(index), config.aggregators[index]
        if group is None:
            if aggregator is not None:
                updated[index] = apply_agg(aggregator, fields[index], item)
            elif item is not None:
                updated[index] = replace(fields[index], value=item)
        elif verdicts[group] is True:
            if aggregator is None:
                updated[index] = replace(fields[index], value=item)
            else:
                updated[index] = apply_agg(aggregator, fields[index], item)
        elif verdicts[group] is False and aggregator is not None:
            updated[index] = apply_agg_reversed(aggregator, fields[index], item)
    return tuple(updated)


def apply_group_retraction(
    state: PartialUpdateState, kv: KeyValue, config: PartialUpdateConfig
) -> PartialUpdateState:
    """Apply a retraction field by field under sequence groups (Java
    ``retractWithSequenceGroup``), stopping at a group that removes the whole row."""
    row = tuple(s.value for s in state.fields)
    verdicts = [compute_group_verdict(group, kv.value, row) for group in config.groups]
    updated = list(state.fields)
    for index, item in enumerate(kv.value):
        group, aggregator = config.group_of(index), config.aggregators[index]
        newer = None if group is None else verdicts[group]
        if group is None or newer is None:
            continue
        if newer and index in config.groups[group].sequence.indexes:
            if kv.kind is RowKind.DELETE and config.groups[group].removes_record:
                fields = compute_initialized_fields(state.fields, kv.value, config)
                return replace(state, fields=fields, delete_row=True)
            updated[index] = replace(updated[index], value=item)
        elif newer and aggregator is None:
            updated[index] = replace(updated[index], value=None)
        elif aggregator is not None:
            updated[index] = apply_retract(aggregator, updated[index], item)
    return replace(state, fields=tuple(updated))


def _delete_rejected() -> SpecViolation:
    return SpecViolation(
        "partial-update cannot accept a retraction (-U/-D) by default; configure "
        "'ignore-delete', 'partial-update.remove-record-on-delete', or sequence groups "
        "(optionally with 'partial-update.remove-record-on-sequence-group')",
        code=DELETE_REJECTED_ERROR,
    )


def apply_retraction(
    state: PartialUpdateState, kv: KeyValue, config: PartialUpdateConfig
) -> PartialUpdateState:
    if not state.not_null_filled:
        fields = compute_initialized_fields(state.fields, kv.value, config)
        state = replace(state, fields=fields, not_null_filled=True)
    if config.ignore_delete:
        return state
    state = replace(state, sequence_number=kv.sequence_number)
    if config.groups:
        return apply_group_retraction(state, kv, config)
    if not config.remove_record_on_delete:
        raise _delete_rejected()
    if kv.kind is not RowKind.DELETE:
        return state
    fields = compute_initialized_fields(state.fields, kv.value, config)
    return replace(state, fields=fields, delete_row=True)


def apply_partial_update(
    state: PartialUpdateState, kv: KeyValue, config: PartialUpdateConfig
) -> PartialUpdateState:
    """Fold one record (the next newer one) into the state."""
    state = replace(state, key=kv.key, delete_row=False)
    if kv.kind.is_retract:
        return apply_retraction(state, kv, config)
    if config.groups:
        fields = compute_group_update(state.fields, kv.value, config)
    else:
        fields = compute_non_null_update(state.fields, kv.value, config)
    return replace(
        state,
        fields=fields,
        sequence_number=kv.sequence_number,
        meet_insert=True,
        not_null_filled=True,
    )


def compute_partial_update_result(state: PartialUpdateState) -> KeyValue | None:
    if state.key is None:
        return None
    kind = RowKind.DELETE if state.delete_row or not state.meet_insert else RowKind.INSERT
    values = tuple(s.value for s in state.fields)
    return KeyValue(state.key, state.sequence_number, kind, values)


PARTIAL_UPDATE_FOLD = MergeFold(
    initial_partial_update_state, apply_partial_update, compute_partial_update_result
)


def merge_partial_update(
    records: Sequence[KeyValue], config: PartialUpdateConfig
) -> KeyValue | None:
    """Merge the records of one key, oldest first; ``None`` only for no records."""
    return fold_records(records, PARTIAL_UPDATE_FOLD, config)
