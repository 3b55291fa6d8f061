"""Filters that belong to one DataFrame: ``read_table(spark, path, filters=[...])``.

``filters`` is a conjunction of ``(column, operator, value)`` tuples, the form of pyarrow's and
pandas' ``read_parquet(filters=...)``: operators ``=`` (or ``==``), ``!=``, ``<``, ``<=``, ``>``,
``>=``, ``in`` and ``not in`` (with a list, tuple or set of values).

Rules:

1. The filters prune the plan the way Java's scan prunes with a pushed predicate
   (``FileStoreScan.withFilter``: partitions, manifest and file statistics, file indexes; for a
   primary-key table by key statistics only, :func:`spark_impl.plan.is_file_matching`). Each tuple
   becomes the Spark data source filter Spark itself would push for it and goes through the
   same conversion (:func:`spark_impl.batch_source.to_predicate`); a tuple with no exact Paimon
   literal prunes nothing.
2. Spark applies the same filters to the rows read, so pruning decides only which files are
   read, never the answer.
3. Unlike a filter Spark pushes into ``format("paimon")`` (Spark 4.3 reuses a source's planned
   partitions for a later scan of the same DataFrame or view, so that reader prunes nothing:
   :meth:`spark_impl.batch_source.PaimonReader.pushFilters`), these filters are part of this
   DataFrame's definition: a later query on it, or another DataFrame of the same table, is not
   affected.
"""

from __future__ import annotations

import datetime
import functools
import operator
from collections.abc import Callable, Collection, Mapping, Sequence
from decimal import Decimal
from typing import Any

from reference.errors import InvalidOptionError
from reference.spec import types as t
from reference.spec.predicate import And, Predicate
from spark_impl.batch_source import to_predicate

FilterTuple = tuple[str, str, Any]

SOURCE_FILTERS = {
    "=": "EqualTo",
    "==": "EqualTo",
    "<": "LessThan",
    "<=": "LessThanOrEqual",
    ">": "GreaterThan",
    ">=": "GreaterThanOrEqual",
    "in": "In",
}
"""Each operator's ``pyspark.sql.datasource`` filter class."""
NEGATIONS = {"!=": "=", "not in": "in"}
"""Operators written as ``Not`` of another, as Spark pushes them."""
COMPARE: Mapping[str, Callable[[Any, Any], Any]] = {
    "=": operator.eq,
    "==": operator.eq,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
FILTERS_ARGUMENT = "filters"
FILTER_TUPLE_LENGTH = 3
"""(column, operator, value)."""
LITERAL_TYPES = (bool, int, float, str, bytes, Decimal, datetime.date, type(None))
"""Python values Spark turns into a SQL literal (``datetime.datetime`` is a ``date``)."""


def check_filter(item: object, columns: Collection[str]) -> FilterTuple:
    """The tuple, or an :class:`InvalidOptionError` naming it and the reason."""
    if not isinstance(item, tuple) or len(item) != FILTER_TUPLE_LENGTH:
        raise InvalidOptionError(FILTERS_ARGUMENT, repr(item), "expected (column, operator, value)")
    name, op, value = item
    if name not in columns:
        raise InvalidOptionError(FILTERS_ARGUMENT, repr(item), f"no column {name!r}")
    if op not in SOURCE_FILTERS and op not in NEGATIONS:
        known = ", ".join([*SOURCE_FILTERS, *NEGATIONS])
        raise InvalidOptionError(FILTERS_ARGUMENT, repr(item), f"operator {op!r} is not {known}")
    is_list = NEGATIONS.get(op, op) == "in"
    if is_list and not isinstance(value, (list, tuple, set, frozenset)):
        raise InvalidOptionError(FILTERS_ARGUMENT, repr(item), f"'{op}' takes a list of values")
    for literal in value if is_list else (value,):
        if not isinstance(literal, LITERAL_TYPES):
            kind = type(literal).__name__
            raise InvalidOptionError(
                FILTERS_ARGUMENT,
                repr(item),
                f"column {name!r}: a value of type {kind} is not a SQL literal",
            )
    return name, op, value


def to_source_filter(item: FilterTuple) -> Any:
    """Rule 1: the ``pyspark.sql.datasource`` filter Spark would push for the tuple."""
    from pyspark.sql import datasource  # noqa: PLC0415 (pyspark is optional)

    name, op, value = item
    base = NEGATIONS.get(op, op)
    made = getattr(datasource, SOURCE_FILTERS[base])(
        (name,), tuple(value) if base == "in" else value
    )
    return datasource.Not(made) if op in NEGATIONS else made


def to_read_predicate(
    items: Sequence[FilterTuple], types: Mapping[str, t.DataType]
) -> Predicate | None:
    """Rule 1: the conjunction of the tuples that convert exactly (the others prune nothing)."""
    leaves = [p for p in (to_predicate(to_source_filter(i), types) for i in items) if p]
    if not leaves:
        return None
    return leaves[0] if len(leaves) == 1 else And(tuple(leaves))


def to_condition(items: Sequence[FilterTuple]) -> Any:
    """Rule 2: the tuples as one Spark condition (SQL semantics: a null compares to nothing)."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    conditions = []
    for name, op, value in items:
        column, base = F.col(f"`{name}`"), NEGATIONS.get(op, op)
        condition = (
            column.isin(list(value)) if base == "in" else COMPARE[base](column, F.lit(value))
        )
        conditions.append(~condition if op in NEGATIONS else condition)
    return functools.reduce(operator.and_, conditions)
