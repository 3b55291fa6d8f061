"""Slow path of the merge: one key at a time, one value at a time (correctness over speed).

Used by :mod:`spark_impl.merge` where no exact vectorized form exists:

* partial-update with sequence groups, or with aggregate functions on grouped fields;
* aggregation with ``aggregation.remove-record-on-delete``;
* the aggregate functions ``collect``, ``merge_map``, ``rbm32`` and ``listagg`` with
  ``distinct``.

Rules (Paimon main, as the reference): records of one key are applied oldest first. An added
record aggregates (or overwrites) field by field, a retraction retracts; partial-update sequence
groups update their fields only from records whose group sequence is not older (nulls smallest),
and fold older records in "reversed" for fields with a function.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa

from reference.errors import SpecViolation, UnsupportedFeature
from reference.spec import types as t
from reference.spec.aggregate_kind import AggregateKind
from reference.spec.compare import compare_values
from reference.spec.data import decimal_from_unscaled, decimal_unscaled
from reference.spec.data_file import is_java_blank
from reference.spec.file_format import arrow_to_rows, rows_to_arrow
from reference.spec.file_index.roaring import decode_roaring32, encode_roaring32
from reference.spec.java_hashing import (
    compute_java_equality_key,
    compute_java_hash_map,
    compute_java_hash_set,
)
from reference.spec.java_numbers import LONG_MAX, LONG_MIN
from reference.spec.options import MergeEngine
from spark_impl.merge_common import (
    COMPACT_DECIMAL_PRECISION,
    DELETE,
    RETRACTABLE,
    FieldFunction,
    MergeConfig,
    Segments,
    SequenceGroup,
)


@dataclass
class Acc:
    """One field's accumulator; ``initialized`` is the first_* functions' flag."""

    value: Any = None
    initialized: bool = False


# --------------------------------------------------------------------------------------------
# Scalar aggregate functions
# --------------------------------------------------------------------------------------------


def _float32(value: float) -> float:
    return float(np.float32(value))


def _checked(value: int, data_type: t.DataType, fn: AggregateKind) -> int:
    bits = {
        t.TypeRoot.TINYINT: 8,
        t.TypeRoot.SMALLINT: 16,
        t.TypeRoot.INTEGER: 32,
        t.TypeRoot.BIGINT: 64,
    }[data_type.root]
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise SpecViolation(f"{fn.value} overflows {data_type}", code="MERGE_OVERFLOW")
    return value


def _decimal_fit(unscaled: int, data_type: t.DecimalType) -> Decimal | None:
    compact = data_type.precision <= COMPACT_DECIMAL_PRECISION
    if (compact and LONG_MIN <= unscaled <= LONG_MAX) or len(str(abs(unscaled))) <= (
        data_type.precision
    ):
        return decimal_from_unscaled(unscaled, data_type.scale)
    return None


def _sum(acc: Any, value: Any, data_type: t.DataType, sign: int) -> Any:
    if isinstance(data_type, t.DecimalType):
        total = decimal_unscaled(acc, data_type.scale) + sign * decimal_unscaled(
            value, data_type.scale
        )
        return _decimal_fit(total, data_type)
    if data_type.root is t.TypeRoot.FLOAT:
        return _float32(acc + sign * value)
    if data_type.root is t.TypeRoot.DOUBLE:
        return acc + sign * value
    return _checked(acc + sign * value, data_type, AggregateKind.SUM)


def _negate(value: Any, data_type: t.DataType) -> Any:
    if isinstance(data_type, t.DecimalType):
        return _decimal_fit(-decimal_unscaled(value, data_type.scale), data_type)
    if data_type.root in t.FLOATING_ROOTS:
        return -value
    return _checked(-value, data_type, AggregateKind.SUM)


def _product(acc: Any, value: Any, data_type: t.DataType) -> Any:
    if isinstance(data_type, t.DecimalType):
        raise UnsupportedFeature("DECIMAL product in spark_impl")
    if data_type.root is t.TypeRoot.FLOAT:
        return _float32(acc * value)
    if data_type.root is t.TypeRoot.DOUBLE:
        return acc * value
    return _checked(acc * value, data_type, AggregateKind.PRODUCT)


def _divide(acc: Any, value: Any, data_type: t.DataType) -> Any:
    if isinstance(data_type, t.DecimalType):
        raise UnsupportedFeature("DECIMAL product in spark_impl")
    if data_type.root in t.FLOATING_ROOTS:
        with np.errstate(all="ignore"):
            dtype = np.float32 if data_type.root is t.TypeRoot.FLOAT else np.float64
            return float(dtype(acc) / dtype(value))
    if value == 0:
        raise SpecViolation("product cannot retract: division by zero", code="MERGE_ARITHMETIC")
    quotient = abs(acc) // abs(value)
    return _checked(
        quotient if (acc < 0) == (value < 0) else -quotient, data_type, AggregateKind.PRODUCT
    )


def _listagg(acc: Any, value: Any, function: FieldFunction) -> Any:
    if is_java_blank(value):
        return acc
    if is_java_blank(acc):
        return value
    if not function.distinct:
        return acc + function.delimiter + value
    separator = function.delimiter or " "
    seen = set(acc.split(separator)) if acc else set()
    parts = [acc]
    for token in value.split(separator) if value else []:
        if is_java_blank(token) or token in seen:
            continue
        seen.add(token)
        parts.append(token)
    return function.delimiter.join(parts)


def _collect(acc: Any, value: Any, function: FieldFunction, data_type: t.DataType) -> Any:
    """Concatenate; with ``distinct``, nested and binary elements keep the accumulator and add
    unseen inputs (Java compares them with an equaliser), other elements come out in the
    order of the Java ``HashSet`` holding accumulator then inputs (``spec.java_hashing``)."""
    if acc is None and value is None:
        return None
    if not function.distinct:
        if acc is None or value is None:
            return value if acc is None else acc
        return list(acc) + list(value)
    assert isinstance(data_type, t.ArrayType)
    element = data_type.element
    if t.is_nested(element) or element.root in t.BINARY_ROOTS:
        kept = list(acc or [])
        seen = [compute_java_equality_key(v, element) for v in kept]
        for item in value or []:
            key = compute_java_equality_key(item, element)
            if key not in seen:
                seen.append(key)
                kept.append(item)
        return kept
    return compute_java_hash_set([*(acc or []), *(value or [])], element)


def _retract_collect(acc: Any, value: Any, data_type: t.DataType) -> Any:
    if acc is None or not value:
        return acc
    assert isinstance(data_type, t.ArrayType)
    pending = [compute_java_equality_key(v, data_type.element) for v in value]
    kept = []
    for element in acc:
        key = compute_java_equality_key(element, data_type.element)
        if key in pending:
            pending.remove(key)
        else:
            kept.append(element)
    return kept


def _merge_map(acc: dict[Any, Any], value: dict[Any, Any], data_type: t.DataType) -> Any:
    """Both maps in one Java ``HashMap``, the input put last (its value wins a shared key)."""
    assert isinstance(data_type, t.MapType)
    return compute_java_hash_map([*acc.items(), *value.items()], data_type.key)


def _retract_merge_map(acc: Any, value: Any, data_type: t.DataType) -> Any:
    """The accumulator without the retracted map's keys, as a new ``HashMap``."""
    if acc is None or not value:
        return acc
    assert isinstance(data_type, t.MapType)
    kept = [(key, item) for key, item in acc.items() if key not in value]
    return compute_java_hash_map(kept, data_type.key)


def _combine(function: FieldFunction, data_type: t.DataType, acc: Any, value: Any) -> Any:
    """``agg(accumulator, value)`` of the stateless functions."""
    fn = function.fn
    if fn in (AggregateKind.PRIMARY_KEY, AggregateKind.LAST_VALUE):
        return value
    if fn is AggregateKind.LAST_NON_NULL_VALUE:
        return acc if value is None else value
    if fn is AggregateKind.LISTAGG:
        return _listagg(acc, value, function)
    if fn is AggregateKind.COLLECT:
        return _collect(acc, value, function, data_type)
    if acc is None or value is None:
        return value if acc is None else acc
    if fn is AggregateKind.SUM:
        return _sum(acc, value, data_type, 1)
    if fn is AggregateKind.PRODUCT:
        return _product(acc, value, data_type)
    if fn is AggregateKind.MAX:
        return value if compare_values(data_type, acc, value) < 0 else acc
    if fn is AggregateKind.MIN:
        return acc if compare_values(data_type, acc, value) < 0 else value
    if fn is AggregateKind.BOOL_AND:
        return bool(acc and value)
    if fn is AggregateKind.BOOL_OR:
        return bool(acc or value)
    if fn is AggregateKind.RBM32:
        return encode_roaring32(decode_roaring32(acc) | decode_roaring32(value))
    if fn is AggregateKind.MERGE_MAP:
        return _merge_map(acc, value, data_type)
    raise UnsupportedFeature(f"aggregate function '{fn.value}' in spark_impl")


def _first(fn: AggregateKind, acc: Acc, accumulator: Any, value: Any) -> None:
    if acc.initialized or (fn is AggregateKind.FIRST_NON_NULL_VALUE and value is None):
        acc.value = accumulator
    else:
        acc.value, acc.initialized = value, True


def apply_add(function: FieldFunction, data_type: t.DataType, acc: Acc, value: Any) -> None:
    if function.fn in (AggregateKind.FIRST_VALUE, AggregateKind.FIRST_NON_NULL_VALUE):
        _first(function.fn, acc, acc.value, value)
    else:
        acc.value = _combine(function, data_type, acc.value, value)


def apply_add_reversed(
    function: FieldFunction, data_type: t.DataType, acc: Acc, value: Any
) -> None:
    """An added record older than the state: the sides swap (``collect`` keeps them)."""
    if function.fn is AggregateKind.COLLECT and not function.ignore_retract:
        apply_add(function, data_type, acc, value)
    elif function.fn in (AggregateKind.FIRST_VALUE, AggregateKind.FIRST_NON_NULL_VALUE):
        _first(function.fn, acc, value, acc.value)
    else:
        acc.value = _combine(function, data_type, value, acc.value)


def apply_retract(function: FieldFunction, data_type: t.DataType, acc: Acc, value: Any) -> None:
    fn = function.fn
    if function.ignore_retract:
        return
    if fn not in RETRACTABLE:
        raise SpecViolation(
            f"aggregate function '{fn.value}' does not support retraction",
            code="MERGE_RETRACT_UNSUPPORTED",
        )
    if fn is AggregateKind.PRIMARY_KEY:
        acc.value = value
    elif fn is AggregateKind.LAST_VALUE:
        acc.value = None
    elif fn is AggregateKind.LAST_NON_NULL_VALUE:
        acc.value = acc.value if value is None else None
    elif fn is AggregateKind.SUM:
        if acc.value is None:
            acc.value = None if value is None else _negate(value, data_type)
        elif value is not None:
            acc.value = _sum(acc.value, value, data_type, -1)
    elif fn is AggregateKind.PRODUCT:
        if acc.value is not None and value is not None:
            acc.value = _divide(acc.value, value, data_type)
    elif fn is AggregateKind.COLLECT:
        acc.value = _retract_collect(acc.value, value, data_type)
    elif fn is AggregateKind.MERGE_MAP:
        acc.value = _retract_merge_map(acc.value, value, data_type)
    else:
        raise UnsupportedFeature(f"retracting '{fn.value}' in spark_impl")


# --------------------------------------------------------------------------------------------
# Per-key merges
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    kind: int
    value: tuple[Any, ...]

    @property
    def is_add(self) -> bool:
        return self.kind in (0, 2)


def _initialized(values: Sequence[Any], accs: list[Acc], fields: Sequence[t.DataField]) -> None:
    for index, item in enumerate(values):
        if item is None and not fields[index].type.nullable:
            raise SpecViolation(
                f"field '{fields[index].name}' is NOT NULL but a record holds null",
                code="MERGE_NOT_NULL",
            )
        accs[index].value = item


def _group_verdict(
    group: SequenceGroup, value: Sequence[Any], row: Sequence[Any], fields: Sequence[t.DataField]
) -> bool | None:
    if all(value[i] is None for i in group.sequence):
        return None
    for index in group.sequence:
        result = compare_values(fields[index].type, value[index], row[index])
        if result:
            return result > 0
    return True


def _group_of(config: MergeConfig, index: int) -> int | None:
    for position, group in enumerate(config.groups):
        if index in group.members:
            return position
    return None


def merge_partial_update_key(
    records: Sequence[Record], config: MergeConfig
) -> tuple[Any, ...] | None:
    """One key of partial-update (any configuration); ``None`` when the key is gone."""
    fields = config.fields
    accs = [Acc() for _ in fields]
    meet_insert = not_null_filled = delete_row = False
    group_of = [_group_of(config, i) for i in range(len(fields))]
    for record in records:
        delete_row = False
        value = record.value
        row = [acc.value for acc in accs]
        verdicts = [_group_verdict(g, value, row, fields) for g in config.groups]
        if not record.is_add:
            if not not_null_filled:
                _initialized(value, accs, fields)
                not_null_filled = True
            if config.ignore_delete:
                continue
            if config.groups:
                delete_row = _retract_in_groups(record, accs, verdicts, group_of, config)
                continue
            if not config.remove_record_on_delete:
                raise SpecViolation(
                    "partial-update cannot accept a retraction", code="MERGE_DELETE_REJECTED"
                )
            if record.kind == DELETE:
                _initialized(value, accs, fields)
                delete_row = True
            continue
        for index, item in enumerate(value):
            group, function = group_of[index], config.functions[index]
            data_type = fields[index].type
            if group is None:
                if function is not None:
                    apply_add(function, data_type, accs[index], item)
                elif item is not None:
                    accs[index].value = item
                elif not config.groups and not data_type.nullable:
                    raise SpecViolation("NOT NULL field holds null", code="MERGE_NOT_NULL")
            elif verdicts[group] is True:
                if function is None:
                    accs[index].value = item
                else:
                    apply_add(function, data_type, accs[index], item)
            elif verdicts[group] is False and function is not None:
                apply_add_reversed(function, data_type, accs[index], item)
        meet_insert = not_null_filled = True
    if delete_row or not meet_insert:
        return None
    return tuple(acc.value for acc in accs)


def _retract_in_groups(
    record: Record,
    accs: list[Acc],
    verdicts: Sequence[bool | None],
    group_of: Sequence[int | None],
    config: MergeConfig,
) -> bool:
    """A retraction under sequence groups; True when it removes the whole row."""
    for index, item in enumerate(record.value):
        group = group_of[index]
        if group is None or verdicts[group] is None:
            continue
        newer, function = verdicts[group], config.functions[index]
        if newer and index in config.groups[group].sequence:
            if record.kind == DELETE and config.groups[group].removes_record:
                _initialized(record.value, accs, config.fields)
                return True
            accs[index].value = item
        elif newer and function is None:
            accs[index].value = None
        elif function is not None:
            apply_retract(function, config.fields[index].type, accs[index], item)
    return False


def merge_aggregation_key(records: Sequence[Record], config: MergeConfig) -> tuple[Any, ...] | None:
    fields = config.fields
    accs = [Acc() for _ in fields]
    delete_row = False
    for record in records:
        if config.remove_record_on_delete and record.kind == DELETE:
            _initialized(record.value, accs, fields)
            delete_row = True
            continue
        delete_row = False
        for index, item in enumerate(record.value):
            function = config.functions[index]
            assert function is not None
            if record.is_add:
                apply_add(function, fields[index].type, accs[index], item)
            else:
                apply_retract(function, fields[index].type, accs[index], item)
    if delete_row or not records:
        return None
    return tuple(acc.value for acc in accs)


def merge_slow(
    table: pa.Table, segments: Segments, kinds: np.ndarray, config: MergeConfig
) -> pa.Table:
    """Merge every key of a sorted table one by one (see the module docstring)."""
    fields = list(config.fields)
    rows = arrow_to_rows(table.select([f.name for f in fields]), fields)
    kind_list = kinds.tolist()
    merge_key = (
        merge_partial_update_key
        if config.engine is MergeEngine.PARTIAL_UPDATE
        else merge_aggregation_key
    )
    merged = []
    for start, end in zip(segments.starts.tolist(), segments.ends.tolist(), strict=True):
        records = [Record(kind_list[i], rows[i]) for i in range(start, end + 1)]
        result = merge_key(records, config)
        if result is not None:
            merged.append(result)
    return rows_to_arrow(merged, fields)
