"""Choosing the merge engine of a primary-key table from its options, and running it.

Spec: ``docs/primary-key-table/merge-engine/*``, ``docs/primary-key-table/sequence-rowkind`` and
the seeds' merge-engine pages. Java: ``org.apache.paimon.table.PrimaryKeyTableUtils``
(``createMergeFunctionFactory``), ``schema.SchemaValidation`` (the option checks mirrored in
:func:`compute_merge_setup`), ``CoreOptions`` (keys and defaults), ``utils.RowKindFilter``,
``table.sink.RowKindGenerator`` (default values: ``reference.spec.default_values``).

How a reader or writer uses this module:

1. ``setup = compute_merge_setup(options, row_type, primary_keys)`` -- parse and validate the
   options once (:class:`~reference.errors.InvalidOptionError` names the offending option).
2. On write, an input row's kind is :func:`compute_record_kind` (``rowkind.field``) and the row
   is kept only if :func:`is_kept_on_write` (``ignore-delete``, ``ignore-update-before``).
3. The records of one key are put in merge order by :func:`order_records` and merged by
   :func:`merge` (or incrementally by :func:`create_merge_function`). The result keeps its row
   kind: compaction into a non-final level keeps a retracting result, a read drops it
   (:func:`is_visible`).

Where Paimon 0.9.0 (the Java oracle) and main differ, the reference follows main and the
difference is listed in :data:`DIFFERENCES_FROM_0_9` (ids usable in test markers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Protocol

from reference.errors import InvalidOptionError, UnsupportedFeature
from reference.merge import aggregation, partial_update
from reference.merge.aggregate_functions import (
    AGGREGATE_FUNCTION_SUFFIX,
    FIELDS_PREFIX,
    field_option_key,
    parse_java_boolean,
)
from reference.merge.aggregation import (
    AGGREGATION_FOLD,
    AggregationConfig,
    compute_aggregation_config,
    merge_aggregation,
)
from reference.merge.deduplicate import DEDUPLICATE_FOLD, merge_deduplicate
from reference.merge.first_row import FIRST_ROW_FOLD, merge_first_row
from reference.merge.fold import FoldMergeFunction
from reference.merge.partial_update import (
    PARTIAL_UPDATE_FOLD,
    PartialUpdateConfig,
    compute_partial_update_config,
    merge_partial_update,
    split_java,
)
from reference.merge.sequence import (
    NO_SEQUENCE_FIELDS,
    SequenceAutoPadding,
    SequenceFields,
    compute_row_kind,
    compute_sequence_fields,
    is_rowkind_field_type,
    parse_auto_padding,
)
from reference.merge.sequence import order_records as order_by_sequence
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.spec.key_value import KeyValue
from reference.spec.options import IGNORE_DELETE_OPTION as IGNORE_DELETE
from reference.spec.options import MergeEngine, SortOrder

# --------------------------------------------------------------------------------------------
# Option keys (Java CoreOptions)
# --------------------------------------------------------------------------------------------

MERGE_ENGINE = "merge-engine"
IGNORE_DELETE_FALLBACK_KEYS = (
    "first-row.ignore-delete",
    "deduplicate.ignore-delete",
    "partial-update.ignore-delete",
)
"""Older keys of ``ignore-delete``, consulted in this order when it is absent."""
IGNORE_UPDATE_BEFORE = "ignore-update-before"
SEQUENCE_FIELD = "sequence.field"
SEQUENCE_FIELD_SORT_ORDER = "sequence.field.sort-order"
SEQUENCE_SNAPSHOT_ORDERING = "sequence.snapshot-ordering"
SEQUENCE_AUTO_PADDING = "sequence.auto-padding"
"""Legacy (Paimon 0.5 - 0.7): parsed and validated, applied by no merge (see ``sequence``)."""
ROWKIND_FIELD = "rowkind.field"
PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE = partial_update.REMOVE_RECORD_ON_DELETE
PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP = partial_update.REMOVE_RECORD_ON_SEQUENCE_GROUP
AGGREGATION_REMOVE_RECORD_ON_DELETE = "aggregation.remove-record-on-delete"
FIELDS_DEFAULT_AGGREGATE_FUNCTION = aggregation.DEFAULT_AGGREGATE_FUNCTION_OPTION
DEFAULT_AGGREGATE_FUNCTION_SEGMENT = "default-aggregate-function"
DIFFERENCES_FROM_0_9: Mapping[str, str] = {
    **partial_update.DIFFERENCES_FROM_0_9,
    **aggregation.DIFFERENCES_FROM_0_9,
    "ignore-update-before": "option added after 0.9.0 (drops -U records on write)",
    "sequence-field-sort-order": "option added after 0.9.0",
    "default-values": (
        "0.9.0 fills nulls of the merged, read rows from 'fields.<f>.default-value'; main drops "
        "that option and fills nulls of written rows (before the merge) from the schema's "
        "column default"
    ),
    "sequence-auto-padding": "removed in 0.8; 0.9.0 and main ignore the option",
}
"""Every known behaviour difference between Paimon 0.9.0 and main, by id."""


# --------------------------------------------------------------------------------------------
# Parsing options
# --------------------------------------------------------------------------------------------


def _parse_enum(option: str, text: str, enum_type: type[Enum]) -> Enum:
    """Java ``OptionsUtils.convertToEnum``: the value string, case-insensitive."""
    for member in enum_type:
        if str(member.value).upper() == text.upper():
            return member
    expected = ", ".join(str(member.value) for member in enum_type)
    raise InvalidOptionError(option, text, f"expected one of: {expected}")


def _parse_boolean(options: Mapping[str, str], key: str) -> bool:
    return parse_java_boolean(key, options[key]) if key in options else False


def parse_ignore_delete(options: Mapping[str, str]) -> bool:
    """``ignore-delete``, falling back to its older keys in order."""
    for key in (IGNORE_DELETE, *IGNORE_DELETE_FALLBACK_KEYS):
        if key in options:
            return parse_java_boolean(key, options[key])
    return False


def parse_name_list(text: str | None) -> tuple[str, ...]:
    """A comma separated list of field names, each trimmed (``CoreOptions.sequenceField``)."""
    return () if text is None else tuple(name.strip() for name in text.split(","))


@dataclass(frozen=True)
class MergeOptions:
    """The table options that decide how records of one key merge.

    ``field_options`` keeps every ``fields.*`` option as given (per-field functions, their
    settings and sequence groups are resolved against the schema by :func:`compute_merge_setup`).
    """

    merge_engine: MergeEngine = MergeEngine.DEDUPLICATE
    ignore_delete: bool = False
    ignore_update_before: bool = False
    sequence_fields: tuple[str, ...] = ()
    sequence_order: SortOrder = SortOrder.ASCENDING
    snapshot_ordering: bool = False
    rowkind_field: str | None = None
    auto_padding: tuple[SequenceAutoPadding, ...] = ()
    partial_update_remove_record_on_delete: bool = False
    partial_update_remove_record_on_sequence_group: tuple[str, ...] = ()
    aggregation_remove_record_on_delete: bool = False
    field_options: Mapping[str, str] = field(default_factory=dict)


def parse_merge_options(options: Mapping[str, str]) -> MergeOptions:
    """Read the merge-related options from raw table options (unknown keys are ignored)."""
    engine = MergeEngine.DEDUPLICATE
    if MERGE_ENGINE in options:
        engine = MergeEngine(_parse_enum(MERGE_ENGINE, options[MERGE_ENGINE], MergeEngine).value)
    order = SortOrder.ASCENDING
    if SEQUENCE_FIELD_SORT_ORDER in options:
        text = options[SEQUENCE_FIELD_SORT_ORDER]
        order = SortOrder(_parse_enum(SEQUENCE_FIELD_SORT_ORDER, text, SortOrder).value)
    padding: tuple[SequenceAutoPadding, ...] = ()
    if SEQUENCE_AUTO_PADDING in options:
        try:
            padding = parse_auto_padding(options[SEQUENCE_AUTO_PADDING])
        except ValueError as error:
            raise InvalidOptionError(
                SEQUENCE_AUTO_PADDING, options[SEQUENCE_AUTO_PADDING], str(error)
            ) from None
    return MergeOptions(
        merge_engine=engine,
        ignore_delete=parse_ignore_delete(options),
        ignore_update_before=_parse_boolean(options, IGNORE_UPDATE_BEFORE),
        sequence_fields=parse_name_list(options.get(SEQUENCE_FIELD)),
        sequence_order=order,
        snapshot_ordering=_parse_boolean(options, SEQUENCE_SNAPSHOT_ORDERING),
        rowkind_field=options.get(ROWKIND_FIELD),
        auto_padding=padding,
        partial_update_remove_record_on_delete=_parse_boolean(
            options, PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE
        ),
        partial_update_remove_record_on_sequence_group=tuple(
            split_java(options[PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP])
            if PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP in options
            else ()
        ),
        aggregation_remove_record_on_delete=_parse_boolean(
            options, AGGREGATION_REMOVE_RECORD_ON_DELETE
        ),
        field_options={k: v for k, v in options.items() if k.startswith(FIELDS_PREFIX)},
    )


# --------------------------------------------------------------------------------------------
# Validating against the schema and resolving
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MergeSetup:
    """Options resolved against a schema: all a reader or writer needs to merge one key."""

    options: MergeOptions
    sequence: SequenceFields = NO_SEQUENCE_FIELDS
    rowkind_index: int | None = None
    partial_update: PartialUpdateConfig | None = None
    aggregation: AggregationConfig | None = None

    @property
    def engine(self) -> MergeEngine:
        return self.options.merge_engine


def validate_fields_prefix(options: MergeOptions, row_type: t.RowType) -> None:
    """Every ``fields.<names>.…`` option must name existing fields (Java
    ``validateFieldsPrefix``); a dotted path into a ROW field is rejected."""
    for key in options.field_options:
        segments = key.split(".")
        if len(segments) < 2:
            continue
        names = split_java(segments[1])
        for name in names:
            if name != DEFAULT_AGGREGATE_FUNCTION_SEGMENT and name not in row_type.field_names:
                raise InvalidOptionError(key, options.field_options[key], f"no field '{name}'")
        is_path = len(segments) > 3 and len(names) == 1 and names[0] in row_type.field_names
        if is_path and isinstance(row_type.field_by_name(names[0]).type, t.RowType):
            raise InvalidOptionError(
                key, options.field_options[key], "nested-field paths into a ROW field"
            )


_UNORDERED_ROOTS = frozenset({t.TypeRoot.VARIANT, t.TypeRoot.BLOB})


def validate_sequence_fields(options: MergeOptions, row_type: t.RowType) -> None:
    """``sequence.field``: existing, distinct, orderable fields without a function; not with
    the first-row engine (Java ``validateSequenceField``)."""
    names = options.sequence_fields
    if not names:
        return
    text = ",".join(names)
    for name in names:
        if name not in row_type.field_names:
            raise InvalidOptionError(SEQUENCE_FIELD, text, f"field '{name}' is not in the schema")
        if names.count(name) > 1:
            raise InvalidOptionError(SEQUENCE_FIELD, text, f"field '{name}' is repeated")
        if row_type.field_by_name(name).type.root in _UNORDERED_ROOTS:
            raise InvalidOptionError(SEQUENCE_FIELD, text, f"field '{name}' cannot order")
        function_key = field_option_key(name, AGGREGATE_FUNCTION_SUFFIX)
        if function_key in options.field_options:
            raise InvalidOptionError(
                function_key, options.field_options[function_key], "a sequence field takes none"
            )
    if options.merge_engine is MergeEngine.FIRST_ROW:
        raise InvalidOptionError(SEQUENCE_FIELD, text, "not supported by the first-row engine")


def compute_rowkind_index(options: MergeOptions, row_type: t.RowType) -> int | None:
    """Position of ``rowkind.field``, which must exist and be a string field."""
    name = options.rowkind_field
    if name is None:
        return None
    if name not in row_type.field_names:
        raise InvalidOptionError(ROWKIND_FIELD, name, "field is not in the schema")
    if not is_rowkind_field_type(row_type.field_by_name(name).type):
        raise InvalidOptionError(ROWKIND_FIELD, name, "the row kind field must be a string")
    return row_type.field_index(name)


def compute_merge_setup(
    options: Mapping[str, str] | MergeOptions,
    row_type: t.RowType,
    primary_keys: Sequence[str],
) -> MergeSetup:
    """Parse (if raw) and validate the options against the table's row type and keys."""
    parsed = options if isinstance(options, MergeOptions) else parse_merge_options(options)
    if parsed.snapshot_ordering:
        raise UnsupportedFeature("'sequence.snapshot-ordering' (ordering by snapshot id)")
    validate_fields_prefix(parsed, row_type)
    validate_sequence_fields(parsed, row_type)
    setup = MergeSetup(
        parsed,
        compute_sequence_fields(row_type, parsed.sequence_fields, parsed.sequence_order),
        compute_rowkind_index(parsed, row_type),
    )
    if parsed.merge_engine is MergeEngine.PARTIAL_UPDATE:
        config = compute_partial_update_config(
            row_type,
            primary_keys,
            {**parsed.field_options, **_partial_update_flags(parsed)},
            ignore_delete=parsed.ignore_delete,
            remove_record_on_delete=parsed.partial_update_remove_record_on_delete,
            remove_record_on_sequence_group=parsed.partial_update_remove_record_on_sequence_group,
            aggregation_remove_record_on_delete=parsed.aggregation_remove_record_on_delete,
        )
        return replace(setup, partial_update=config)
    if parsed.merge_engine is MergeEngine.AGGREGATE:
        aggregation_config = compute_aggregation_config(
            row_type,
            primary_keys,
            parsed.field_options,
            parsed.sequence_fields,
            parsed.aggregation_remove_record_on_delete,
        )
        return replace(setup, aggregation=aggregation_config)
    return setup


def _partial_update_flags(options: MergeOptions) -> dict[str, str]:
    """The non-``fields.*`` option the partial-update checks quote in their messages."""
    groups = options.partial_update_remove_record_on_sequence_group
    if not groups:
        return {}
    return {PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP: ",".join(groups)}


# --------------------------------------------------------------------------------------------
# Write-side rules
# --------------------------------------------------------------------------------------------


def compute_record_kind(value: Row, input_kind: RowKind, setup: MergeSetup) -> RowKind:
    """The kind a written row gets: its ``rowkind.field`` value, else its own kind."""
    return compute_row_kind(value, setup.rowkind_index, input_kind)


def is_kept_on_write(kind: RowKind, options: MergeOptions) -> bool:
    """Whether a written row reaches the table: ``ignore-delete`` drops -U and -D,
    ``ignore-update-before`` drops -U (Java ``RowKindFilter``)."""
    if kind is RowKind.DELETE:
        return not options.ignore_delete
    if kind is RowKind.UPDATE_BEFORE:
        return not (options.ignore_delete or options.ignore_update_before)
    return True


# --------------------------------------------------------------------------------------------
# Merging
# --------------------------------------------------------------------------------------------


class MergeFunction(Protocol):
    """The incremental form the LSM reader and writer drive: ``reset`` before each key, ``add``
    its records oldest first, then ``result`` (Java ``MergeFunction``)."""

    def reset(self) -> None: ...

    def add(self, kv: KeyValue) -> None: ...

    def result(self) -> KeyValue | None: ...


def order_records(records: Sequence[KeyValue], setup: MergeSetup) -> list[KeyValue]:
    """The records of one key in merge order (``sequence.field``, then sequence number)."""
    return order_by_sequence(records, setup.sequence)


def merge(records: Sequence[KeyValue], setup: MergeSetup) -> KeyValue | None:
    """Merge the records of one key, given oldest first (see :func:`order_records`).

    ``None`` means nothing is left (no records, or every record was skipped); a result of a
    retracting kind means the key is deleted.
    """
    if setup.partial_update is not None:
        return merge_partial_update(records, setup.partial_update)
    if setup.aggregation is not None:
        return merge_aggregation(records, setup.aggregation)
    if setup.engine is MergeEngine.FIRST_ROW:
        return merge_first_row(records, setup.options.ignore_delete)
    return merge_deduplicate(records, setup.options.ignore_delete)


def create_merge_function(setup: MergeSetup) -> MergeFunction:
    """A fresh incremental merge function for the engine of ``setup``."""
    if setup.partial_update is not None:
        return FoldMergeFunction(PARTIAL_UPDATE_FOLD, setup.partial_update)
    if setup.aggregation is not None:
        return FoldMergeFunction(AGGREGATION_FOLD, setup.aggregation)
    if setup.engine is MergeEngine.FIRST_ROW:
        return FoldMergeFunction(FIRST_ROW_FOLD, setup.options.ignore_delete)
    return FoldMergeFunction(DEDUPLICATE_FOLD, setup.options.ignore_delete)


def is_visible(result: KeyValue | None) -> bool:
    """Whether a merge result is a row a read returns (an add, not a deletion)."""
    return result is not None and result.kind.is_add
