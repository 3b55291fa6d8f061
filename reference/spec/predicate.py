"""Filter predicates and their two tests: on a row, and on a file's (or partition's) statistics.

Java: ``org.apache.paimon.predicate`` (``LeafPredicate``, ``CompoundPredicate``, ``Equal`` …
``StartsWith``).

Rules (SQL three-valued logic collapsed to "row kept or not"):

* a comparison with a null field or a null literal is false; ``IS NULL``/``IS NOT NULL`` test
  nullness; ``IN`` ignores null literals; ``NOT IN`` with a null literal is false;
* the statistics test answers "may any row match?" from ``row_count``, ``min``, ``max`` and
  ``null_count`` of the field: unknown statistics (``null_count`` unknown or some non-null rows,
  but no min/max) always may match; a column of only nulls matches only ``IS NULL``; otherwise
  ``=`` needs ``min <= literal <= max``, ``<`` needs ``min < literal``, and so on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, TypeAlias

from reference.spec import types as t
from reference.spec.compare import compare_bytes, compare_values


class PredicateOp(Enum):
    """A leaf function (Java's ``LeafFunction`` subclasses, by their JSON name)."""

    EQUAL = "EQUAL"
    NOT_EQUAL = "NOT_EQUAL"
    LESS_THAN = "LESS_THAN"
    LESS_OR_EQUAL = "LESS_OR_EQUAL"
    GREATER_THAN = "GREATER_THAN"
    GREATER_OR_EQUAL = "GREATER_OR_EQUAL"
    IS_NULL = "IS_NULL"
    IS_NOT_NULL = "IS_NOT_NULL"
    IN = "IN"
    NOT_IN = "NOT_IN"
    STARTS_WITH = "STARTS_WITH"


UNARY_OPS = frozenset({PredicateOp.IS_NULL, PredicateOp.IS_NOT_NULL})
MULTI_LITERAL_OPS = frozenset({PredicateOp.IN, PredicateOp.NOT_IN})


@dataclass(frozen=True)
class Leaf:
    """``field <op> literals``; ``literals`` hold internal values of the field's type."""

    op: PredicateOp
    field: str
    literals: tuple[Any, ...] = ()


@dataclass(frozen=True)
class And:
    children: tuple[Predicate, ...]


@dataclass(frozen=True)
class Or:
    children: tuple[Predicate, ...]


Predicate: TypeAlias = "Leaf | And | Or"


@dataclass(frozen=True)
class FieldStats:
    """What a file's statistics say of one field; ``None`` means unknown."""

    min: Any
    max: Any
    null_count: int | None


def equal(field: str, literal: Any) -> Leaf:
    return Leaf(PredicateOp.EQUAL, field, (literal,))


def is_in(field: str, literals: Sequence[Any]) -> Leaf:
    return Leaf(PredicateOp.IN, field, tuple(literals))


def compute_fields(predicate: Predicate) -> set[str]:
    """The field names a predicate refers to."""
    if isinstance(predicate, Leaf):
        return {predicate.field}
    return set().union(*(compute_fields(child) for child in predicate.children))


def compute_conjuncts(predicate: Predicate) -> list[Predicate]:
    """The top-level conjuncts of ``predicate`` (a non-``And`` predicate is its own one)."""
    if isinstance(predicate, And):
        return [c for child in predicate.children for c in compute_conjuncts(child)]
    return [predicate]


def compute_predicate_without_fields(
    predicate: Predicate | None, fields: frozenset[str]
) -> Predicate | None:
    """``predicate`` without the conjuncts that refer to any of ``fields`` (``None`` when
    nothing is left): a weaker filter, safe wherever it only prunes.

    Java: ``PredicateBuilder.splitAnd`` as ``DefaultValueAssigner.handlePredicate`` uses it.
    """
    if predicate is None or not fields:
        return predicate
    kept = [c for c in compute_conjuncts(predicate) if not compute_fields(c) & fields]
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else And(tuple(kept))


# --------------------------------------------------------------------------------------------
# Test on one row
# --------------------------------------------------------------------------------------------


def _starts_with(value: str, prefix: str) -> bool:
    return value.encode("utf-8").startswith(prefix.encode("utf-8"))


def is_value_matching(leaf: Leaf, data_type: t.DataType, value: Any) -> bool:
    """Whether one field value satisfies a leaf (Java ``LeafFunction.test(type, field, …)``)."""
    op = leaf.op
    if op is PredicateOp.IS_NULL:
        return value is None
    if op is PredicateOp.IS_NOT_NULL:
        return value is not None
    if value is None:
        return False
    if op is PredicateOp.IN:
        return any(
            x is not None and compare_values(data_type, x, value) == 0 for x in leaf.literals
        )
    if op is PredicateOp.NOT_IN:
        return all(
            x is not None and compare_values(data_type, x, value) != 0 for x in leaf.literals
        )
    literal = leaf.literals[0]
    if literal is None:
        return False
    if op is PredicateOp.STARTS_WITH:
        return _starts_with(value, literal)
    order = compare_values(data_type, value, literal)
    return {
        PredicateOp.EQUAL: order == 0,
        PredicateOp.NOT_EQUAL: order != 0,
        PredicateOp.LESS_THAN: order < 0,
        PredicateOp.LESS_OR_EQUAL: order <= 0,
        PredicateOp.GREATER_THAN: order > 0,
        PredicateOp.GREATER_OR_EQUAL: order >= 0,
    }[op]


def is_row_matching(
    predicate: Predicate, row: Mapping[str, Any], types: Mapping[str, t.DataType]
) -> bool:
    """Whether a row (field name -> value) satisfies the predicate."""
    if isinstance(predicate, And):
        return all(is_row_matching(child, row, types) for child in predicate.children)
    if isinstance(predicate, Or):
        return any(is_row_matching(child, row, types) for child in predicate.children)
    return is_value_matching(predicate, types[predicate.field], row[predicate.field])


# --------------------------------------------------------------------------------------------
# Test on statistics
# --------------------------------------------------------------------------------------------


def _may_match_bounds(leaf: Leaf, data_type: t.DataType, stats: FieldStats) -> bool:
    def cmp(a: Any, b: Any) -> int:
        return compare_values(data_type, a, b)

    low, high, op = stats.min, stats.max, leaf.op
    if op is PredicateOp.IN:
        return any(x is not None and cmp(x, low) >= 0 and cmp(x, high) <= 0 for x in leaf.literals)
    if op is PredicateOp.NOT_IN:
        return all(
            x is not None and not (cmp(x, low) == 0 and cmp(x, high) == 0) for x in leaf.literals
        )
    literal = leaf.literals[0]
    if literal is None:
        return False
    if op is PredicateOp.STARTS_WITH:
        prefix = literal.encode("utf-8")
        low_b, high_b = low.encode("utf-8"), high.encode("utf-8")
        return (low_b.startswith(prefix) or compare_bytes(low_b, prefix) <= 0) and (
            high_b.startswith(prefix) or compare_bytes(high_b, prefix) >= 0
        )
    return {
        PredicateOp.EQUAL: cmp(literal, low) >= 0 and cmp(literal, high) <= 0,
        PredicateOp.NOT_EQUAL: cmp(literal, low) != 0 or cmp(literal, high) != 0,
        PredicateOp.LESS_THAN: cmp(low, literal) < 0,
        PredicateOp.LESS_OR_EQUAL: cmp(low, literal) <= 0,
        PredicateOp.GREATER_THAN: cmp(high, literal) > 0,
        PredicateOp.GREATER_OR_EQUAL: cmp(high, literal) >= 0,
    }[op]


def is_leaf_stats_matching(
    leaf: Leaf, data_type: t.DataType, row_count: int, stats: FieldStats
) -> bool:
    """May any of ``row_count`` rows with these statistics satisfy ``leaf``? (Java
    ``LeafPredicate.test(rowCount, min, max, nullCounts)``)."""
    null_count = stats.null_count
    all_null = null_count is not None and null_count == row_count
    if leaf.op is PredicateOp.IS_NULL:
        return null_count is None or null_count > 0
    if leaf.op is PredicateOp.IS_NOT_NULL:
        return null_count is None or null_count < row_count
    if not all_null and (stats.min is None or stats.max is None):
        return True
    if all_null:
        return False
    return _may_match_bounds(leaf, data_type, stats)


def is_stats_matching(
    predicate: Predicate,
    row_count: int,
    stats: Mapping[str, FieldStats],
    types: Mapping[str, t.DataType],
) -> bool:
    """May any row of a file (or partition) satisfy the predicate? Fields without statistics
    (absent from ``stats``) may always match."""
    if isinstance(predicate, And):
        return all(is_stats_matching(c, row_count, stats, types) for c in predicate.children)
    if isinstance(predicate, Or):
        return any(is_stats_matching(c, row_count, stats, types) for c in predicate.children)
    if predicate.field not in stats:
        return True
    return is_leaf_stats_matching(
        predicate, types[predicate.field], row_count, stats[predicate.field]
    )


# --------------------------------------------------------------------------------------------
# Moving a predicate to a file's schema
# --------------------------------------------------------------------------------------------


def compute_file_field_names(
    read_fields: Sequence[t.DataField], file_fields: Sequence[t.DataField]
) -> dict[str, str]:
    """Read-schema name -> file name, for the fields the file has with the same type."""
    by_id = {f.id: f for f in file_fields}
    names = {}
    for read_field in read_fields:
        file_field = by_id.get(read_field.id)
        if file_field is not None and file_field.type.copy(True) == read_field.type.copy(True):
            names[read_field.name] = file_field.name
    return names


def rename_predicate(predicate: Predicate, names: Mapping[str, str]) -> Predicate | None:
    """``predicate`` over the renamed fields; None if it names a field ``names`` lacks."""
    if isinstance(predicate, Leaf):
        name = names.get(predicate.field)
        return None if name is None else replace(predicate, field=name)
    children = [rename_predicate(child, names) for child in predicate.children]
    kept = [child for child in children if child is not None]
    if len(kept) != len(children):
        return None
    return And(tuple(kept)) if isinstance(predicate, And) else Or(tuple(kept))


def compute_file_predicate(
    predicate: Predicate | None,
    read_fields: Sequence[t.DataField],
    file_fields: Sequence[t.DataField],
) -> Predicate | None:
    """The conjuncts of ``predicate`` that can be asked of a file of ``file_fields``: moved to
    the file's names by field id; a top-level conjunct naming a field the file lacks, or whose
    type changed, is dropped (Java ``SchemaEvolutionUtil.devolveFilters`` minus its literal
    casts: dropping a conjunct only costs pruning)."""
    if predicate is None:
        return None
    names = compute_file_field_names(read_fields, file_fields)
    conjuncts = predicate.children if isinstance(predicate, And) else (predicate,)
    moved = [m for m in (rename_predicate(c, names) for c in conjuncts) if m is not None]
    if not moved:
        return None
    return moved[0] if len(moved) == 1 else And(tuple(moved))
