"""Vectorized merge-on-read of a primary-key split.

Input: one Arrow table holding every record of a bucket in the read schema plus
``_SEQUENCE_NUMBER``, ``_VALUE_KIND`` and an input-order column. Output: one row per key.

1. ``sort_indices`` orders the records by (key, ``sequence.field`` values with nulls smallest in
   either direction, sequence number, retraction before addition, input order). FLOAT/DOUBLE
   sort through an integer image of their bits whose order is Java's ``Float.compare`` (-0.0
   before 0.0, NaN largest), so grouping and ordering match Java's comparators.
2. Key boundaries come from comparing neighbours; every engine then works on segment
   positions with numpy (``reduceat``) and Arrow ``take``; no Python loop runs per row:

   * deduplicate: the last record; dropped when it retracts (``ignore-delete`` first removes
     retractions);
   * first-row: the first added record (a retraction is an error unless ``ignore-delete``);
   * partial-update: per field the last non-null value of the added records, after the latest
     removing -D (``partial-update.remove-record-on-delete``) and starting from a first record
     that retracts (it initialises the row in Paimon main);
   * aggregation: per field a closed form (``last_value``, ``last_non_null_value``,
     ``first_value``, ``first_non_null_value``, ``min``, ``max``, ``bool_and``, ``bool_or``,
     integer ``sum``) or a fold over record rank, vectorized across keys (FLOAT/DOUBLE/DECIMAL
     ``sum``, integer and floating ``product``, ``listagg``).

3. Slow paths (per key, Python; :mod:`spark_impl.merge_slow`): partial-update with sequence
   groups or aggregate functions in groups, aggregation with
   ``aggregation.remove-record-on-delete``, and the functions ``collect``, ``merge_map``,
   ``rbm32`` and ``listagg`` with ``distinct``. Not supported at all (``UnsupportedFeature``):
   ``merge_map_with_keytime``, ``nested_update``, ``nested_partial_update``, ``rbm64``,
   ``theta_sketch``, ``hll_sketch``, DECIMAL ``product``,
   ``sequence.snapshot-ordering``.

Semantics follow Paimon main as the reference does (e.g. integer ``sum`` overflow is an error).
"""

# ruff: noqa: PLC0414 -- `import X as X` re-exports what callers of the merge read from
# spark_impl.merge_common (the merge configuration, key segments, row-kind bytes).

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature
from reference.spec import types as t
from reference.spec.aggregate_kind import LEGACY_NAMES, AggregateKind
from reference.spec.data import decimal_from_unscaled, decimal_unscaled
from reference.spec.data_file import SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, is_java_blank
from reference.spec.java_numbers import LONG_MAX, LONG_MIN
from reference.spec.options import MergeEngine
from reference.spec.schema import TableSchema
from spark_impl.merge_common import (
    COMPACT_DECIMAL_PRECISION,
    RETRACTABLE,
    UNSUPPORTED_FUNCTIONS,
    UPDATE_AFTER,
    FieldFunction,
    SequenceGroup,
)
from spark_impl.merge_common import (
    DELETE as DELETE,
)
from spark_impl.merge_common import (
    INSERT as INSERT,
)
from spark_impl.merge_common import (
    MergeConfig as MergeConfig,
)
from spark_impl.merge_common import (
    Segments as Segments,
)
from spark_impl.merge_common import (
    compute_segments as compute_segments,
)
from spark_impl.merge_slow import merge_slow

ORDER_COLUMN = "_INPUT_ORDER"
SEQUENCE_COLUMN = SEQUENCE_NUMBER_FIELD.name
KIND_COLUMN = VALUE_KIND_FIELD.name


SAFE_INT64_SUM = 2.0**62
"""Below this total magnitude an int64 cumulative sum cannot overflow."""
FLOAT32_NAN_BITS = 0x7FC00000
FLOAT64_NAN_BITS = 0x7FF8000000000000
FLOAT32_MAGNITUDE = 0x7FFFFFFF
FLOAT64_MAGNITUDE = 0x7FFFFFFFFFFFFFFF

# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


def parse_function(name: str, option: str) -> AggregateKind:
    if name in LEGACY_NAMES:
        return LEGACY_NAMES[name]
    for fn in AggregateKind:
        if fn.value == name and fn is not AggregateKind.PRIMARY_KEY:
            return fn
    raise InvalidOptionError(option, name, "unsupported aggregate function")


def _field_function(schema: TableSchema, name: str, function: str, option: str) -> FieldFunction:
    options = schema.core_options
    fn = parse_function(function, option)
    if fn in UNSUPPORTED_FUNCTIONS:
        raise UnsupportedFeature(f"spark_impl cannot merge aggregate function '{fn.value}'")
    return FieldFunction(
        fn,
        ignore_retract=options.field_ignore_retract(name),
        delimiter=options.field_list_agg_delimiter(name),
        distinct=options.field_distinct(name),
    )


def _aggregation_functions(schema: TableSchema) -> tuple[FieldFunction | None, ...]:
    options = schema.core_options
    sequence = set(options.sequence_fields)
    default = options.fields_default_aggregate_function
    functions: list[FieldFunction | None] = []
    for data_field in schema.fields:
        name = data_field.name
        own = options.field_aggregate_function(name)
        if name in sequence:
            functions.append(FieldFunction(AggregateKind.LAST_VALUE))
        elif name in schema.primary_keys:
            functions.append(FieldFunction(AggregateKind.PRIMARY_KEY))
        elif own is not None:
            functions.append(_field_function(schema, name, own, f"fields.{name}"))
        elif default is not None:
            functions.append(_field_function(schema, name, default, "default"))
        else:
            functions.append(FieldFunction(AggregateKind.LAST_NON_NULL_VALUE))
    return tuple(functions)


def _sequence_groups(schema: TableSchema) -> tuple[SequenceGroup, ...]:
    names = schema.field_names
    removing = set(
        filter(
            None,
            schema.options.get("partial-update.remove-record-on-sequence-group", "").split(","),
        )
    )
    return tuple(
        SequenceGroup(
            tuple(names.index(n) for n in sequence),
            tuple(names.index(n) for n in protected),
            any(n in removing for n in sequence),
        )
        for sequence, protected in sorted(schema.core_options.sequence_groups.items())
    )


def _partial_update_functions(
    schema: TableSchema, groups: tuple[SequenceGroup, ...]
) -> tuple[FieldFunction | None, ...]:
    options = schema.core_options
    sequence = {i for g in groups for i in g.sequence}
    default = options.fields_default_aggregate_function
    functions: list[FieldFunction | None] = []
    for index, data_field in enumerate(schema.fields):
        name = data_field.name
        own = options.field_aggregate_function(name)
        if index in sequence:
            functions.append(None)
        elif name in schema.primary_keys:
            functions.append(FieldFunction(AggregateKind.PRIMARY_KEY))
        elif own is not None:
            functions.append(_field_function(schema, name, own, f"fields.{name}"))
        elif default is not None:
            functions.append(_field_function(schema, name, default, "default"))
        else:
            functions.append(None)
    return tuple(functions)


def compute_merge_config(schema: TableSchema) -> MergeConfig:
    """Resolve the merge options of a primary-key table (read side only)."""
    options = schema.core_options
    if schema.options.get("sequence.snapshot-ordering", "false").lower() == "true":
        raise UnsupportedFeature("'sequence.snapshot-ordering'")
    engine = options.merge_engine
    keys = tuple(k for k in schema.primary_keys if k not in schema.partition_keys)
    base = MergeConfig(
        engine=engine,
        fields=tuple(schema.fields),
        key_names=keys,
        ignore_delete=options.ignore_delete,
        sequence_fields=tuple(options.sequence_fields),
        sequence_ascending=options.sequence_field_sort_order.value == "ascending",
    )
    if engine is MergeEngine.PARTIAL_UPDATE:
        groups = _sequence_groups(schema)
        return replace(
            base,
            remove_record_on_delete=options.partial_update_remove_record_on_delete,
            groups=groups,
            functions=_partial_update_functions(schema, groups),
        )
    if engine is MergeEngine.AGGREGATE:
        return replace(
            base,
            remove_record_on_delete=options.aggregation_remove_record_on_delete,
            functions=_aggregation_functions(schema),
        )
    return base


# --------------------------------------------------------------------------------------------
# Sorting and segments
# --------------------------------------------------------------------------------------------


def orderable(column: pa.Array) -> pa.Array:
    """A column whose Arrow order is Java's order of the values (floats through their bits)."""
    if pa.types.is_floating(column.type):
        is_single = pa.types.is_float32(column.type)
        float_type = np.float32 if is_single else np.float64
        int_type = np.int32 if is_single else np.int64
        nan_bits = FLOAT32_NAN_BITS if is_single else FLOAT64_NAN_BITS
        magnitude = FLOAT32_MAGNITUDE if is_single else FLOAT64_MAGNITUDE
        values = column.fill_null(0).to_numpy(zero_copy_only=False).astype(float_type)
        bits = values.view(int_type).copy()
        bits[np.isnan(values)] = nan_bits
        bits = np.where(bits < 0, bits ^ int_type(magnitude), bits)
        return pa.array(bits, mask=column.is_null().to_numpy(zero_copy_only=False))
    if is_nested_arrow_type(column.type):
        raise UnsupportedFeature(f"ordering by a column of type {column.type}")
    return column


def is_nested_arrow_type(arrow_type: pa.DataType) -> bool:
    return bool(
        pa.types.is_list(arrow_type)
        or pa.types.is_map(arrow_type)
        or pa.types.is_struct(arrow_type)
    )


def kinds_of(table: pa.Table) -> np.ndarray:
    return np.asarray(table.column(KIND_COLUMN).to_numpy(), dtype=np.int8)


def is_add_kind(kinds: np.ndarray) -> np.ndarray:
    return np.asarray((kinds == INSERT) | (kinds == UPDATE_AFTER), dtype=bool)


def sort_records(table: pa.Table, config: MergeConfig) -> pa.Table:
    """Step 1: records in (key, sequence fields, sequence number, kind, input order) order."""
    columns: dict[str, pa.Array] = {}
    keys: list[tuple[str, str]] = []
    for index, name in enumerate(config.key_names):
        columns[f"k{index}"] = orderable(table.column(name).combine_chunks())
        keys.append((f"k{index}", "ascending"))
    direction = "ascending" if config.sequence_ascending else "descending"
    for index, name in enumerate(config.sequence_fields):
        column = table.column(name).combine_chunks()
        columns[f"sv{index}"] = column.is_valid()
        columns[f"s{index}"] = orderable(column)
        keys += [(f"sv{index}", "ascending"), (f"s{index}", direction)]
    columns["seq"] = table.column(SEQUENCE_COLUMN)
    columns["add"] = pa.array(is_add_kind(kinds_of(table)))
    columns["order"] = table.column(ORDER_COLUMN)
    keys += [("seq", "ascending"), ("add", "ascending"), ("order", "ascending")]
    indices = pc.sort_indices(pa.table(columns), sort_keys=keys)
    return table.take(indices)


def compute_segment_starts(table: pa.Table, key_names: tuple[str, ...]) -> np.ndarray:
    """Step 2: the first position of every key in a key-sorted table."""
    n = table.num_rows
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    boundary = np.zeros(n, dtype=bool)
    boundary[0] = True
    for name in key_names:
        column = orderable(table.column(name).combine_chunks())
        differs = pc.not_equal(column.slice(1), column.slice(0, n - 1)).fill_null(True)
        boundary[1:] |= differs.to_numpy(zero_copy_only=False)
    return np.flatnonzero(boundary)


def last_where(mask: np.ndarray, segments: Segments) -> np.ndarray:
    """Per segment the last position where ``mask`` holds, or -1."""
    if segments.count == 0:
        return np.zeros(0, dtype=np.int64)
    positions = np.where(mask, np.arange(len(mask)), -1)
    return np.asarray(np.maximum.reduceat(positions, segments.starts))


def first_where(mask: np.ndarray, segments: Segments) -> np.ndarray:
    """Per segment the first position where ``mask`` holds, or -1."""
    if segments.count == 0:
        return np.zeros(0, dtype=np.int64)
    n = len(mask)
    positions = np.where(mask, np.arange(n), n)
    first = np.asarray(np.minimum.reduceat(positions, segments.starts))
    return np.where(first == n, -1, first)


def any_where(mask: np.ndarray, segments: Segments) -> np.ndarray:
    if segments.count == 0:
        return np.zeros(0, dtype=bool)
    return np.asarray(np.logical_or.reduceat(mask, segments.starts))


def take_or_null(column: pa.Array, positions: np.ndarray) -> pa.Array:
    """``column[positions]`` with a null where the position is -1."""
    return column.take(pa.array(positions, type=pa.int64(), mask=positions < 0))


def valid_mask(column: pa.Array) -> np.ndarray:
    return np.asarray(column.is_valid().to_numpy(zero_copy_only=False))


# --------------------------------------------------------------------------------------------
# Engines
# --------------------------------------------------------------------------------------------


def _retract_error(engine: str, option: str) -> SpecViolation:
    return SpecViolation(
        f"{engine} cannot accept a retraction (-U/-D) record; configure {option}",
        code="MERGE_DELETE_REJECTED",
    )


def merge_deduplicate(table: pa.Table, segments: Segments, is_add: np.ndarray) -> pa.Table:
    kept = segments.ends[is_add[segments.ends]]
    return table.take(pa.array(kept))


def merge_first_row(table: pa.Table, segments: Segments) -> pa.Table:
    return table.take(pa.array(segments.starts))


def merge_partial_update(
    table: pa.Table, segments: Segments, kinds: np.ndarray, config: MergeConfig
) -> pa.Table:
    """Partial-update without sequence groups (see the module docstring)."""
    is_add = is_add_kind(kinds)
    is_retract = ~is_add
    if is_retract.any() and not (config.ignore_delete or config.remove_record_on_delete):
        raise _retract_error(
            "partial-update", "'ignore-delete' or 'partial-update.remove-record-on-delete'"
        )
    positions = np.arange(table.num_rows)
    base = segments.starts
    last_delete = np.full(segments.count, -1)
    if config.remove_record_on_delete and not config.ignore_delete:
        last_delete = last_where(kinds == DELETE, segments)
        base = np.where(last_delete >= 0, last_delete, segments.starts)
    row_base = base[segments.group_of]
    # The base record (a first retraction, or the latest removing -D) initialises every field.
    included = (is_add | (positions == row_base)) & (positions >= row_base)
    keep = any_where(is_add, segments) & (last_delete != segments.ends)
    _check_not_null(table, is_add, config)
    columns = []
    for data_field in config.fields:
        column = table.column(data_field.name).combine_chunks()
        last = last_where(included & valid_mask(column), segments)
        columns.append(take_or_null(column, last[keep]))
    return pa.Table.from_arrays(columns, names=[f.name for f in config.fields])


def _check_not_null(table: pa.Table, is_add: np.ndarray, config: MergeConfig) -> None:
    for data_field in config.fields:
        if data_field.type.nullable:
            continue
        column = table.column(data_field.name).combine_chunks()
        if (is_add & ~valid_mask(column)).any():
            raise SpecViolation(
                f"field '{data_field.name}' is NOT NULL but a record holds null",
                code="MERGE_NOT_NULL",
            )


# --------------------------------------------------------------------------------------------
# Aggregation, vectorized
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldInput:
    """One field's records in merge order, with the row kinds and key segments."""

    column: pa.Array
    data_type: t.DataType
    is_add: np.ndarray
    segments: Segments
    function: FieldFunction

    @property
    def valid(self) -> np.ndarray:
        return valid_mask(self.column)

    def check_retractions(self) -> np.ndarray:
        """The records that take part: retractions are skipped with ``ignore-retract`` and an
        error for a function that cannot retract."""
        if self.function.ignore_retract:
            return self.is_add
        if self.function.fn not in RETRACTABLE and not self.is_add.all():
            raise SpecViolation(
                f"aggregate function '{self.function.fn.value}' does not support retraction; "
                "set 'fields.<field>.ignore-retract' = 'true' to ignore retraction messages",
                code="MERGE_RETRACT_UNSUPPORTED",
            )
        return np.ones(len(self.is_add), dtype=bool)


def agg_last_value(field: FieldInput) -> pa.Array:
    used = field.check_retractions()
    last = last_where(used, field.segments)
    last = np.where((last >= 0) & field.is_add[np.maximum(last, 0)], last, -1)
    return take_or_null(field.column, last)


def agg_last_non_null_value(field: FieldInput) -> pa.Array:
    used = field.check_retractions()
    last = last_where(used & field.valid, field.segments)
    last = np.where((last >= 0) & field.is_add[np.maximum(last, 0)], last, -1)
    return take_or_null(field.column, last)


def agg_first_value(field: FieldInput) -> pa.Array:
    field.check_retractions()
    return take_or_null(field.column, first_where(field.is_add, field.segments))


def agg_first_non_null_value(field: FieldInput) -> pa.Array:
    field.check_retractions()
    return take_or_null(field.column, first_where(field.is_add & field.valid, field.segments))


def _extreme(field: FieldInput, smallest: bool) -> pa.Array:
    field.check_retractions()
    rows = np.flatnonzero(field.is_add & field.valid)
    groups = field.segments.group_of[rows]
    order = pc.sort_indices(
        pa.table({"g": groups, "v": orderable(field.column.take(pa.array(rows)))}),
        sort_keys=[("g", "ascending"), ("v", "ascending" if smallest else "descending")],
    ).to_numpy()
    rows, groups = rows[order], groups[order]
    chosen = np.full(field.segments.count, -1)
    leaders = np.ones(len(groups), dtype=bool)
    leaders[1:] = groups[1:] != groups[:-1]
    chosen[groups[leaders]] = rows[leaders]
    return take_or_null(field.column, chosen)


def agg_min(field: FieldInput) -> pa.Array:
    return _extreme(field, smallest=True)


def agg_max(field: FieldInput) -> pa.Array:
    return _extreme(field, smallest=False)


def _bool_fold(field: FieldInput, every: bool) -> pa.Array:
    field.check_retractions()
    taking = field.is_add & field.valid
    values = field.column.fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
    has = any_where(taking, field.segments)
    if every:
        result = ~any_where(taking & ~values, field.segments)
    else:
        result = any_where(taking & values, field.segments)
    return pa.array(result, mask=~has)


def agg_bool_and(field: FieldInput) -> pa.Array:
    return _bool_fold(field, every=True)


def agg_bool_or(field: FieldInput) -> pa.Array:
    return _bool_fold(field, every=False)


def _integer_bounds(data_type: t.DataType) -> tuple[int, int]:
    bits = {
        t.TypeRoot.TINYINT: 8,
        t.TypeRoot.SMALLINT: 16,
        t.TypeRoot.INTEGER: 32,
        t.TypeRoot.BIGINT: 64,
    }[data_type.root]
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def _overflow(field: FieldInput) -> SpecViolation:
    return SpecViolation(
        f"{field.function.fn.value} overflows {field.data_type}", code="MERGE_OVERFLOW"
    )


def _integer_sum(field: FieldInput) -> pa.Array:
    """Closed form: the signed sum, every prefix checked against the type's range (Java
    ``Math.addExact`` per step, as Paimon main)."""
    used = field.check_retractions()
    taking = used & field.valid
    signs = np.where(field.is_add, 1, -1)
    values = field.column.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    magnitude = float(np.abs(values.astype(np.float64))[taking].sum()) if taking.any() else 0.0
    if magnitude < SAFE_INT64_SUM:
        terms: np.ndarray = np.where(taking, signs * values, 0)
    else:
        terms = np.where(taking, signs.astype(object) * values.astype(object), 0)
    cumulative = np.cumsum(terms)
    before = np.concatenate([[0], cumulative])[field.segments.starts]
    prefix = cumulative - before[field.segments.group_of]
    low, high = _integer_bounds(field.data_type)
    checked = prefix[taking]
    if checked.size and (checked.min() < low or checked.max() > high):
        raise _overflow(field)
    has = any_where(taking, field.segments)
    totals = prefix[field.segments.ends].astype(np.int64)
    return pa.array(totals, mask=~has).cast(field.column.type)


RankStep = Callable[[np.ndarray, np.ndarray], None]


def fold_by_rank(segments: Segments, step: RankStep) -> None:
    """Call ``step(groups, rows)`` for rank 0, 1, ... of every segment: a sequential fold per
    key, vectorized across keys (cost grows with the largest number of records of one key)."""
    sizes = segments.sizes
    for rank in range(int(sizes.max()) if len(sizes) else 0):
        groups = np.flatnonzero(sizes > rank)
        step(groups, segments.starts[groups] + rank)


def _floating_fold(field: FieldInput, combine: str) -> pa.Array:
    used = field.check_retractions()
    taking = used & field.valid
    dtype = np.float32 if pa.types.is_float32(field.column.type) else np.float64
    values = field.column.fill_null(0).to_numpy(zero_copy_only=False).astype(dtype)
    acc = np.zeros(field.segments.count, dtype=dtype)
    has = np.zeros(field.segments.count, dtype=bool)

    def step(groups: np.ndarray, rows: np.ndarray) -> None:
        take = taking[rows]
        adds = field.is_add[rows]
        value = values[rows]
        current = acc[groups]
        with np.errstate(all="ignore"):
            if combine == "sum":
                merged = np.where(adds, current + value, current - value)
                first = np.where(adds, value, -value)
            else:
                merged = np.where(adds, current * value, current / value)
                first = np.where(adds, value, current)
        fresh = take & ~has[groups]
        # product: a retraction onto a null accumulator keeps it null (main)
        acc[groups] = np.where(take & has[groups], merged, np.where(fresh, first, current))
        gained = fresh if combine == "sum" else fresh & adds
        has[groups] |= gained

    fold_by_rank(field.segments, step)
    return pa.array(acc, mask=~has).cast(field.column.type)


def _exact_fold(
    field: FieldInput,
    values: list[Any],
    combine: Callable[[Any, Any, bool], Any],
    start: Callable[[Any, bool], Any],
) -> tuple[list[Any], np.ndarray]:
    """A fold over Python objects (integers, unscaled decimals, strings), vectorized across
    keys by rank; ``None`` results mean null."""
    used = field.check_retractions()
    taking = used & field.valid
    acc: list[Any] = [None] * field.segments.count

    def step(groups: np.ndarray, rows: np.ndarray) -> None:
        for group, row in zip(groups.tolist(), rows.tolist(), strict=True):
            if not taking[row]:
                continue
            current = acc[group]
            adds = bool(field.is_add[row])
            acc[group] = (
                start(values[row], adds) if current is None else combine(current, values[row], adds)
            )

    fold_by_rank(field.segments, step)
    return acc, np.array([a is None for a in acc], dtype=bool)


def _decimal_sum(field: FieldInput) -> pa.Array:
    data_type = field.data_type
    assert isinstance(data_type, t.DecimalType)
    scale, precision = data_type.scale, data_type.precision
    compact = precision <= COMPACT_DECIMAL_PRECISION
    values = [None if v is None else decimal_unscaled(v, scale) for v in field.column.to_pylist()]

    def fit(unscaled: int) -> int | None:
        if compact and LONG_MIN <= unscaled <= LONG_MAX:
            return unscaled
        return None if len(str(abs(unscaled))) > precision else unscaled

    def combine(acc: int, value: int, adds: bool) -> int | None:
        return fit(acc + value if adds else acc - value)

    def start(value: int, adds: bool) -> int | None:
        return value if adds else fit(-value)

    acc, _ = _exact_fold(field, values, combine, start)
    if any(a is not None and len(str(abs(a))) > precision for a in acc):
        raise UnsupportedFeature(f"a DECIMAL sum beyond the precision of {data_type}")
    decimals = [None if a is None else decimal_from_unscaled(a, scale) for a in acc]
    return pa.array(decimals, type=field.column.type)


def _integer_product(field: FieldInput) -> pa.Array:
    low, high = _integer_bounds(field.data_type)

    def checked(result: int) -> int:
        if not low <= result <= high:
            raise _overflow(field)
        return result

    def combine(acc: int, value: int, adds: bool) -> int:
        if adds:
            return checked(acc * value)
        if value == 0:
            raise SpecViolation("product cannot retract: division by zero", code="MERGE_ARITHMETIC")
        quotient = abs(acc) // abs(value)
        return checked(quotient if (acc < 0) == (value < 0) else -quotient)

    def start(value: int, adds: bool) -> int | None:
        return value if adds else None

    acc, nulls = _exact_fold(field, field.column.to_pylist(), combine, start)
    return pa.array([0 if a is None else a for a in acc], mask=nulls).cast(field.column.type)


def agg_sum(field: FieldInput) -> pa.Array:
    if field.data_type.root in t.FLOATING_ROOTS:
        return _floating_fold(field, "sum")
    if isinstance(field.data_type, t.DecimalType):
        return _decimal_sum(field)
    return _integer_sum(field)


def agg_product(field: FieldInput) -> pa.Array:
    if field.data_type.root in t.FLOATING_ROOTS:
        return _floating_fold(field, "product")
    if isinstance(field.data_type, t.DecimalType):
        raise UnsupportedFeature("DECIMAL product in spark_impl")
    return _integer_product(field)


def agg_listagg(field: FieldInput) -> pa.Array:
    delimiter = field.function.delimiter

    def combine(acc: str, value: str, adds: bool) -> str:
        if is_java_blank(value):
            return acc
        if is_java_blank(acc):
            return value
        return acc + delimiter + value

    def start(value: str, adds: bool) -> str | None:
        return None if is_java_blank(value) else value

    acc, _ = _exact_fold(field, field.column.to_pylist(), combine, start)
    return pa.array(acc, type=field.column.type)


def agg_primary_key(field: FieldInput) -> pa.Array:
    return field.column.take(pa.array(field.segments.ends))


VECTORIZED: dict[AggregateKind, Callable[[FieldInput], pa.Array]] = {
    AggregateKind.PRIMARY_KEY: agg_primary_key,
    AggregateKind.LAST_VALUE: agg_last_value,
    AggregateKind.LAST_NON_NULL_VALUE: agg_last_non_null_value,
    AggregateKind.FIRST_VALUE: agg_first_value,
    AggregateKind.FIRST_NON_NULL_VALUE: agg_first_non_null_value,
    AggregateKind.MIN: agg_min,
    AggregateKind.MAX: agg_max,
    AggregateKind.BOOL_AND: agg_bool_and,
    AggregateKind.BOOL_OR: agg_bool_or,
    AggregateKind.SUM: agg_sum,
    AggregateKind.PRODUCT: agg_product,
    AggregateKind.LISTAGG: agg_listagg,
}


def merge_aggregation(
    table: pa.Table, segments: Segments, kinds: np.ndarray, config: MergeConfig
) -> pa.Table:
    is_add = is_add_kind(kinds)
    columns = []
    for data_field, function in zip(config.fields, config.functions, strict=True):
        assert function is not None
        column = table.column(data_field.name).combine_chunks()
        field_input = FieldInput(column, data_field.type, is_add, segments, function)
        columns.append(VECTORIZED[function.fn](field_input))
    return pa.Table.from_arrays(columns, names=[f.name for f in config.fields])


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def merge_records(table: pa.Table, config: MergeConfig) -> pa.Table:
    """One row per key of ``table`` (records of one bucket, see the module docstring)."""
    names = [f.name for f in config.fields]
    if table.num_rows == 0:
        return table.select(names)
    kinds = kinds_of(table)
    retracts = ~is_add_kind(kinds)
    if config.engine is MergeEngine.FIRST_ROW and retracts.any():
        if not config.ignore_delete:
            raise _retract_error("first-row", "'ignore-delete'")
        table = table.filter(pa.array(~retracts))
    elif config.engine is MergeEngine.DEDUPLICATE and config.ignore_delete and retracts.any():
        table = table.filter(pa.array(~retracts))
    if table.num_rows == 0:
        return table.select(names)
    ordered = sort_records(table, config)
    segments = compute_segments(compute_segment_starts(ordered, config.key_names), len(ordered))
    kinds = kinds_of(ordered)
    if config.engine in (MergeEngine.PARTIAL_UPDATE, MergeEngine.AGGREGATE):
        lone = segments.sizes == 1
        if lone.any():
            return merge_with_lone_records(ordered, segments, kinds, lone, config)
    return merge_sorted(ordered, segments, kinds, config)


def merge_with_lone_records(
    ordered: pa.Table, segments: Segments, kinds: np.ndarray, lone: np.ndarray, config: MergeConfig
) -> pa.Table:
    """A key's only record is read as written, not merged (Java 0.9 reads through
    ``ReducerMergeFunctionWrapper``): its values as they are, and nothing when it is a
    retraction. The other keys are merged."""
    names = [f.name for f in config.fields]
    row_is_lone = lone[segments.group_of]
    kept_lone = ordered.filter(pa.array(row_is_lone & is_add_kind(kinds))).select(names)
    rest = ordered.filter(pa.array(~row_is_lone))
    if rest.num_rows == 0:
        return kept_lone
    rest_segments = compute_segments(compute_segment_starts(rest, config.key_names), len(rest))
    merged = merge_sorted(rest, rest_segments, kinds_of(rest), config)
    return pa.concat_tables([merged, kept_lone.cast(merged.schema)])


def merge_sorted(
    ordered: pa.Table, segments: Segments, kinds: np.ndarray, config: MergeConfig
) -> pa.Table:
    """Merge the key segments of a sorted table with the table's engine."""
    names = [f.name for f in config.fields]
    if config.needs_slow_path:
        return merge_slow(ordered, segments, kinds, config)
    if config.engine is MergeEngine.DEDUPLICATE:
        return merge_deduplicate(ordered, segments, is_add_kind(kinds)).select(names)
    if config.engine is MergeEngine.FIRST_ROW:
        return merge_first_row(ordered, segments).select(names)
    if config.engine is MergeEngine.PARTIAL_UPDATE:
        return merge_partial_update(ordered, segments, kinds, config)
    return merge_aggregation(ordered, segments, kinds, config)
