"""Filters of the case format: JSON in and out, and the rule that says which rows a filter keeps.

JSON form (literals in the value encoding of ``conformance/java/values.py``, typed by the
column the leaf names)::

    {"op": "EQUAL", "field": "k", "literals": [3]}
    {"and": [<filter>, ...]}      {"or": [<filter>, ...]}

The rule (SQL three-valued logic collapsed to "kept or not", as Paimon's predicates do):
a comparison involving a null field or a null literal keeps nothing; ``IS_NULL`` and
``IS_NOT_NULL`` test nullness; ``IN`` keeps a row equal to any non-null literal; ``NOT_IN``
keeps a non-null row different from every literal, and nothing if a literal is null;
``STARTS_WITH`` compares UTF-8 bytes. Values compare by their natural order (UTF-8 strings by
code point, which is their byte order; bytes unsigned; timestamps by millisecond then nano).

This evaluator is the conformance kit's own, written from the rule above, so adapters that
cannot push a filter down (the Java harness reads without one) filter with it instead of with
the implementation under test.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.engines.base import FILTER_OPS, Filter, FilterAnd, FilterLeaf, FilterOr
from conformance.java.values import decode_value, encode_value
from reference.spec import types as t
from reference.spec.data import Row, Timestamp, Value

UNARY_OPS = ("IS_NULL", "IS_NOT_NULL")
MULTI_OPS = ("IN", "NOT_IN")


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------


def _field_type(fields: Sequence[t.DataField], name: str) -> t.DataType:
    for candidate in fields:
        if candidate.name == name:
            return candidate.type
    raise ValueError(f"filter names an unknown column {name!r}")


def decode_filter(value: Mapping[str, Any], fields: Sequence[t.DataField]) -> Filter:
    """The filter of its JSON form; literals decoded with the named column's type."""
    if "and" in value:
        return FilterAnd(tuple(decode_filter(child, fields) for child in value["and"]))
    if "or" in value:
        return FilterOr(tuple(decode_filter(child, fields) for child in value["or"]))
    op, name = value["op"], value["field"]
    if op not in FILTER_OPS:
        raise ValueError(f"unknown filter operator {op!r}")
    data_type = _field_type(fields, name)
    literals = tuple(decode_value(v, data_type) for v in value.get("literals", []))
    return FilterLeaf(op, name, literals)


def encode_filter(value: Filter, fields: Sequence[t.DataField]) -> dict[str, Any]:
    """The JSON form of a filter."""
    if isinstance(value, FilterAnd):
        return {"and": [encode_filter(child, fields) for child in value.children]}
    if isinstance(value, FilterOr):
        return {"or": [encode_filter(child, fields) for child in value.children]}
    data_type = _field_type(fields, value.field)
    encoded: dict[str, Any] = {"op": value.op, "field": value.field}
    if value.op not in UNARY_OPS:
        encoded["literals"] = [encode_value(v, data_type) for v in value.literals]
    return encoded


def filter_fields(value: Filter) -> set[str]:
    """The columns a filter reads."""
    if isinstance(value, FilterLeaf):
        return {value.field}
    return set().union(*(filter_fields(child) for child in value.children))


# --------------------------------------------------------------------------------------------
# The rule
# --------------------------------------------------------------------------------------------


def _sort_key(value: Value) -> Any:
    if isinstance(value, Timestamp):
        return (value.millisecond, value.nano_of_millisecond)
    if isinstance(value, float) and math.isnan(value):
        return math.inf
    return value


def compare(left: Value, right: Value) -> int:
    """-1, 0 or 1 for two non-null values of one type."""
    a, b = _sort_key(left), _sort_key(right)
    return int(a > b) - int(a < b)


def is_leaf_kept(leaf: FilterLeaf, value: Value) -> bool:
    """Whether a row whose column holds ``value`` passes ``leaf``."""
    if leaf.op == "IS_NULL":
        return value is None
    if leaf.op == "IS_NOT_NULL":
        return value is not None
    if value is None:
        return False
    if leaf.op == "IN":
        return any(x is not None and compare(value, x) == 0 for x in leaf.literals)
    if leaf.op == "NOT_IN":
        if any(x is None for x in leaf.literals):
            return False
        return all(compare(value, x) != 0 for x in leaf.literals)
    literal = leaf.literals[0]
    if literal is None:
        return False
    if leaf.op == "STARTS_WITH":
        return str(value).encode("utf-8").startswith(str(literal).encode("utf-8"))
    order = compare(value, literal)
    return {
        "EQUAL": order == 0,
        "NOT_EQUAL": order != 0,
        "LESS_THAN": order < 0,
        "LESS_OR_EQUAL": order <= 0,
        "GREATER_THAN": order > 0,
        "GREATER_OR_EQUAL": order >= 0,
    }[leaf.op]


def is_row_kept(value: Filter, row: Row, names: Sequence[str]) -> bool:
    """Whether ``row`` (columns ``names``) passes the filter."""
    if isinstance(value, FilterAnd):
        return all(is_row_kept(child, row, names) for child in value.children)
    if isinstance(value, FilterOr):
        return any(is_row_kept(child, row, names) for child in value.children)
    return is_leaf_kept(value, row[list(names).index(value.field)])
