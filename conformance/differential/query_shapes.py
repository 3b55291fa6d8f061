"""The query-shape differential's pieces: its tables, its queries and their SQL answer.

**Tables** (:data:`TABLES`): five small tables drawn once from a fixed seed and written by the
reference (spark_impl is only the reader under test): an unpartitioned append table, an append
table partitioned by ``(dt STRING, hr INT)`` with a null ``hr`` partition,
a partitioned primary-key table with updates and deletes over several commits, a primary-key
table with deletion vectors (ORC files), and a partitioned partial-update table (Avro files).
Columns cover INT, BIGINT, STRING, DOUBLE, DATE, BOOLEAN and DECIMAL, nullable ones with nulls.

**Queries** (:class:`Query`): a filter (:data:`Filter`, a tree of comparisons ``= <> < <= > >=
<=>`` with literals present in the column, outside its values or NULL, ``IN`` lists (NULL
among them sometimes), ``IS [NOT] NULL``, ``AND`` / ``OR`` / ``NOT``, on partition, key and
value columns) or none, a projection (a non-empty column subset in any order) or a
``count()``, and the route to the table: the example's one DataFrame reused (``df``), a
temporary view reused (``view``, over that same DataFrame or over its own load of the path),
a fresh ``load(path)`` (``fresh``) or the table's ``.cache()``d DataFrame (``cached``).
Filters are rendered as a SQL string (:func:`to_sql`) or built as a Spark ``Column``
(:func:`to_column`).

**The answer** (:func:`evaluate`): SQL three-valued logic on the reference's full read
(a comparison with NULL is unknown, ``NOT`` unknown is unknown, ``x IN (.., NULL)`` is true
or unknown, only true keeps a row), evaluated with plain Python comparisons of the internal
values, independent of ``reference.spec.predicate``. :func:`to_reference_predicate` turns a
filter into the reference's predicate (``NOT`` pushed to the leaves, which is exact under the
reference's "unknown is false" rule because every leaf is negated to its SQL complement), so
the reference's own filtered read is checked against the SQL answer as well.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeAlias

from hypothesis import strategies as st

from reference.io import LocalFileIO
from reference.spec import predicate as p
from reference.spec import types as t
from reference.spec.data import Row, RowKind, Value, date_from_days
from reference.spec.schema import TableSchema
from reference.table import Table

SEED = 18
"""The tables are drawn once from this seed (issue 18)."""

# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------

STRING = t.VarCharType(t.MAX_LENGTH)
DEC_10_2 = t.DecimalType(10, 2)
DEC_12_3 = t.DecimalType(12, 3)


@dataclass(frozen=True)
class TableCase:
    """One table: its schema, options and the commits that build it (rows with kinds)."""

    name: str
    fields: tuple[t.DataField, ...]
    partition_keys: tuple[str, ...]
    primary_keys: tuple[str, ...]
    options: Mapping[str, str]
    commits: tuple[tuple[tuple[Row, ...], tuple[RowKind, ...]], ...]

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    @property
    def types(self) -> dict[str, t.DataType]:
        return {f.name: f.type for f in self.fields}

    def role(self, name: str) -> str:
        if name in self.partition_keys:
            return "partition"
        return "key" if name in self.primary_keys else "value"

    def written_values(self, name: str) -> list[Value]:
        """Every distinct non-null value written to column ``name`` (in a fixed order)."""
        index = self.names.index(name)
        seen = {row[index] for rows, _ in self.commits for row in rows} - {None}
        return sorted(seen, key=repr)


def _field(index: int, name: str, type_: t.DataType, nullable: bool = True) -> t.DataField:
    return t.DataField(index, name, type_.copy(nullable=nullable))


class _Values:
    """Small value domains (so equality filters hit), nulls in nullable columns."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def maybe_null(self, value: Value, nullable: bool = True, rate: float = 0.15) -> Value:
        return None if nullable and self.rng.random() < rate else value

    def int_(self) -> int:
        return self.rng.randint(-5, 20)

    def bigint(self) -> int:
        return self.rng.choice([-(2**40), -3, 0, 7, 2**33, 12_345_678_901]) + self.rng.randint(0, 2)

    def string(self) -> str:
        return self.rng.choice(["", "a", "ab", "b", "Zeta", "é", "日本", "a b", "m", "mm"])

    def double(self) -> float:
        return self.rng.choice([-2.5, 0.0, 0.1, 1.5, 3.25, 1e10, -1e-3, 7.0])

    def date(self) -> int:
        return self.rng.choice([-400, 0, 19_700, 19_701, 19_705, 19_730, 20_000])

    def boolean(self) -> bool:
        return self.rng.random() < 0.5

    def decimal(self, scale: int) -> Decimal:
        return Decimal(self.rng.choice([-12_345, -1, 0, 5, 100, 250, 99_999, 123_456])).scaleb(
            -scale
        )


def _append_flat(v: _Values) -> TableCase:
    fields = (
        _field(0, "id", t.IntType()),
        _field(1, "big", t.BigIntType()),
        _field(2, "s", STRING),
        _field(3, "x", t.DoubleType()),
        _field(4, "d", t.DateType()),
        _field(5, "b", t.BooleanType()),
        _field(6, "dec", DEC_10_2),
    )

    def row() -> Row:
        drawn = (v.int_(), v.bigint(), v.string(), v.double(), v.date(), v.boolean(), v.decimal(2))
        return tuple(v.maybe_null(x) for x in drawn)

    commits = tuple((tuple(row() for _ in range(14)), (RowKind.INSERT,) * 14) for _ in range(3))
    return TableCase("append_flat", fields, (), (), {"bucket": "-1"}, commits)


def _append_partitioned(v: _Values) -> TableCase:
    fields = (
        _field(0, "dt", STRING, nullable=False),
        _field(1, "hr", t.IntType()),
        _field(2, "id", t.IntType()),
        _field(3, "s", STRING),
        _field(4, "x", t.DoubleType()),
        _field(5, "dec", DEC_10_2),
    )

    def row() -> Row:
        return (
            v.rng.choice(["2024-01-01", "2024-01-02"]),
            v.rng.choice([0, 13, None]),
            v.maybe_null(v.int_()),
            v.maybe_null(v.string()),
            v.maybe_null(v.double()),
            v.maybe_null(v.decimal(2)),
        )

    commits = tuple((tuple(row() for _ in range(16)), (RowKind.INSERT,) * 16) for _ in range(3))
    options = {"bucket": "-1", "file.format": "parquet"}
    return TableCase("append_partitioned", fields, ("dt", "hr"), (), options, commits)


def _primary_key_history(
    v: _Values,
    keys: Sequence[tuple[Value, ...]],
    values: Callable[[], tuple[Value, ...]],
    *,
    deletes: bool,
    commits: int = 4,
) -> tuple[tuple[tuple[Row, ...], tuple[RowKind, ...]], ...]:
    """Inserts of every key, then commits updating some keys and (``deletes``) deleting some,
    a deleted key written again sometimes."""
    history = [(tuple(k + values() for k in keys), (RowKind.INSERT,) * len(keys))]
    for _ in range(commits - 1):
        rows: list[Row] = []
        kinds: list[RowKind] = []
        for key in v.rng.sample(list(keys), len(keys) // 2):
            kind = RowKind.DELETE if deletes and v.rng.random() < 0.35 else RowKind.INSERT
            rows.append(key + values())
            kinds.append(kind)
        history.append((tuple(rows), tuple(kinds)))
    return tuple(history)


def _primary_key_partitioned(v: _Values) -> TableCase:
    fields = (
        _field(0, "dt", STRING, nullable=False),
        _field(1, "k", t.IntType(), nullable=False),
        _field(2, "v", t.BigIntType()),
        _field(3, "s", STRING),
        _field(4, "d", t.DateType()),
        _field(5, "b", t.BooleanType()),
    )
    keys = [(dt, k) for dt in ("2024-01-01", "2024-01-02", "2024-01-03") for k in range(8)]

    def values() -> tuple[Value, ...]:
        return (
            v.maybe_null(v.bigint()),
            v.maybe_null(v.string()),
            v.maybe_null(v.date()),
            v.maybe_null(v.boolean()),
        )

    commits = _primary_key_history(v, keys, values, deletes=True)
    return TableCase("pk_partitioned", fields, ("dt",), ("dt", "k"), {"bucket": "1"}, commits)


def _primary_key_deletion_vectors(v: _Values) -> TableCase:
    fields = (
        _field(0, "k", t.BigIntType(), nullable=False),
        _field(1, "name", STRING),
        _field(2, "amount", DEC_12_3),
        _field(3, "x", t.DoubleType()),
        _field(4, "d", t.DateType()),
        _field(5, "flag", t.BooleanType()),
    )
    keys = [(k * 7 - 20,) for k in range(20)]

    def values() -> tuple[Value, ...]:
        return (
            v.maybe_null(v.string()),
            v.maybe_null(v.decimal(3)),
            v.maybe_null(v.double()),
            v.maybe_null(v.date()),
            v.maybe_null(v.boolean()),
        )

    commits = _primary_key_history(v, keys, values, deletes=True)
    options = {"bucket": "2", "deletion-vectors.enabled": "true", "file.format": "orc"}
    return TableCase("pk_deletion_vectors", fields, (), ("k",), options, commits)


def _primary_key_partial_update(v: _Values) -> TableCase:
    fields = (
        _field(0, "region", STRING, nullable=False),
        _field(1, "k", t.IntType(), nullable=False),
        _field(2, "a", t.IntType()),
        _field(3, "s", STRING),
        _field(4, "x", t.DoubleType()),
        _field(5, "dec", DEC_10_2),
    )
    keys = [(region, k) for region in ("eu", "us") for k in range(9)]

    def values() -> tuple[Value, ...]:
        # partial update: a null leaves the column's earlier value in place
        return (
            v.maybe_null(v.int_(), rate=0.4),
            v.maybe_null(v.string(), rate=0.4),
            v.maybe_null(v.double(), rate=0.4),
            v.maybe_null(v.decimal(2), rate=0.4),
        )

    commits = _primary_key_history(v, keys, values, deletes=False, commits=3)
    options = {"bucket": "1", "merge-engine": "partial-update", "file.format": "avro"}
    return TableCase("pk_partial_update", fields, ("region",), ("region", "k"), options, commits)


def make_table_cases(seed: int = SEED) -> tuple[TableCase, ...]:
    values = _Values(random.Random(seed))
    return (
        _append_flat(values),
        _append_partitioned(values),
        _primary_key_partitioned(values),
        _primary_key_deletion_vectors(values),
        _primary_key_partial_update(values),
    )


TABLES: tuple[TableCase, ...] = make_table_cases()
TABLES_BY_NAME = {case.name: case for case in TABLES}


def write_table(case: TableCase, root: Path) -> Table:
    """Create ``case`` at ``root`` and commit its history with the reference writer."""
    table = Table.create(
        LocalFileIO(),
        str(root),
        case.fields,
        partition_keys=case.partition_keys,
        primary_keys=case.primary_keys,
        options=case.options,
    )
    for rows, kinds in case.commits:
        table.write_and_commit(list(rows), list(kinds))
    return table


# --------------------------------------------------------------------------------------------
# Filters
# --------------------------------------------------------------------------------------------

COMPARISONS = ("=", "<>", "<", "<=", ">", ">=", "<=>")


@dataclass(frozen=True)
class Compare:
    op: str
    column: str
    literal: Value


@dataclass(frozen=True)
class InList:
    column: str
    literals: tuple[Value, ...]


@dataclass(frozen=True)
class NullTest:
    column: str
    is_null: bool


@dataclass(frozen=True)
class Not:
    child: Filter


@dataclass(frozen=True)
class AndF:
    left: Filter
    right: Filter


@dataclass(frozen=True)
class OrF:
    left: Filter
    right: Filter


Filter: TypeAlias = "Compare | InList | NullTest | Not | AndF | OrF"
Truth: TypeAlias = "bool | None"
"""SQL's three truth values: True, False, None (unknown)."""


def _compare(op: str, value: Value, literal: Value) -> Truth:
    if op == "<=>":
        if value is None or literal is None:
            return value is None and literal is None
        return bool(value == literal)
    if value is None or literal is None:
        return None
    return bool(
        {
            "=": value == literal,
            "<>": value != literal,
            "<": value < literal,
            "<=": value <= literal,
            ">": value > literal,
            ">=": value >= literal,
        }[op]
    )


def _and(a: Truth, b: Truth) -> Truth:
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def _or(a: Truth, b: Truth) -> Truth:
    if a is True or b is True:
        return True
    return None if a is None or b is None else False


def evaluate(f: Filter, row: Mapping[str, Value]) -> Truth:
    """SQL three-valued logic on one row (internal values; Python comparisons, which order
    strings by code point as UTF-8 bytes do, dates as day numbers, decimals exactly)."""
    if isinstance(f, Compare):
        return _compare(f.op, row[f.column], f.literal)
    if isinstance(f, InList):
        value = row[f.column]
        if value is None:
            return None
        if any(x is not None and x == value for x in f.literals):
            return True
        return None if None in f.literals else False
    if isinstance(f, NullTest):
        return (row[f.column] is None) == f.is_null
    if isinstance(f, Not):
        inner = evaluate(f.child, row)
        return None if inner is None else not inner
    if isinstance(f, AndF):
        return _and(evaluate(f.left, row), evaluate(f.right, row))
    return _or(evaluate(f.left, row), evaluate(f.right, row))


NEGATED_OP = {
    "=": p.PredicateOp.NOT_EQUAL,
    "<>": p.PredicateOp.EQUAL,
    "<": p.PredicateOp.GREATER_OR_EQUAL,
    "<=": p.PredicateOp.GREATER_THAN,
    ">": p.PredicateOp.LESS_OR_EQUAL,
    ">=": p.PredicateOp.LESS_THAN,
}
POSITIVE_OP = {
    "=": p.PredicateOp.EQUAL,
    "<>": p.PredicateOp.NOT_EQUAL,
    "<": p.PredicateOp.LESS_THAN,
    "<=": p.PredicateOp.LESS_OR_EQUAL,
    ">": p.PredicateOp.GREATER_THAN,
    ">=": p.PredicateOp.GREATER_OR_EQUAL,
}


def to_reference_predicate(f: Filter, negated: bool = False) -> p.Predicate:
    """The reference's predicate keeping the rows ``f`` evaluates to true (``negated``: the
    rows ``NOT f`` evaluates to true). ``NOT`` goes to the leaves by De Morgan; each leaf is
    replaced by its SQL complement, which is unknown exactly where the leaf is, so "unknown
    is false" stays exact."""
    if isinstance(f, Compare):
        if f.op == "<=>":
            if f.literal is None:
                op = p.PredicateOp.IS_NOT_NULL if negated else p.PredicateOp.IS_NULL
                return p.Leaf(op, f.column)
            if not negated:
                return p.Leaf(p.PredicateOp.EQUAL, f.column, (f.literal,))
            return p.Or(
                (
                    p.Leaf(p.PredicateOp.IS_NULL, f.column),
                    p.Leaf(p.PredicateOp.NOT_EQUAL, f.column, (f.literal,)),
                )
            )
        op = (NEGATED_OP if negated else POSITIVE_OP)[f.op]
        return p.Leaf(op, f.column, (f.literal,))
    if isinstance(f, InList):
        op = p.PredicateOp.NOT_IN if negated else p.PredicateOp.IN
        return p.Leaf(op, f.column, f.literals)
    if isinstance(f, NullTest):
        is_null = f.is_null != negated
        return p.Leaf(p.PredicateOp.IS_NULL if is_null else p.PredicateOp.IS_NOT_NULL, f.column)
    if isinstance(f, Not):
        return to_reference_predicate(f.child, not negated)
    children = (to_reference_predicate(f.left, negated), to_reference_predicate(f.right, negated))
    conjunction = isinstance(f, AndF) != negated
    return p.And(children) if conjunction else p.Or(children)


# -- rendering for Spark ----------------------------------------------------------------------


def spark_type(data_type: t.DataType) -> str:
    if isinstance(data_type, t.DecimalType):
        return f"DECIMAL({data_type.precision},{data_type.scale})"
    return {
        t.IntType: "INT",
        t.BigIntType: "BIGINT",
        t.VarCharType: "STRING",
        t.DoubleType: "DOUBLE",
        t.DateType: "DATE",
        t.BooleanType: "BOOLEAN",
    }[type(data_type)]


def sql_literal(value: Value, data_type: t.DataType) -> str:
    """A Spark SQL literal of exactly ``value`` (typed as the column where that matters)."""
    if value is None:
        return "NULL"
    if isinstance(data_type, t.BooleanType):
        return "true" if value else "false"
    if isinstance(data_type, (t.IntType, t.BigIntType)):
        return f"({value})" if value < 0 else str(value)
    if isinstance(data_type, t.VarCharType):
        escaped = str(value).replace("\\", "\\\\").replace("'", "\\'")
        return f"'{escaped}'"
    if isinstance(data_type, t.DateType):
        return f"DATE '{date_from_days(value).isoformat()}'"
    text = repr(value) if isinstance(value, float) else str(value)
    return f"CAST('{text}' AS {spark_type(data_type)})"


def quote(name: str) -> str:
    return f"`{name}`"


def to_sql(f: Filter, types: Mapping[str, t.DataType]) -> str:
    if isinstance(f, Compare):
        return f"{quote(f.column)} {f.op} {sql_literal(f.literal, types[f.column])}"
    if isinstance(f, InList):
        items = ", ".join(sql_literal(x, types[f.column]) for x in f.literals)
        return f"{quote(f.column)} IN ({items})"
    if isinstance(f, NullTest):
        return f"{quote(f.column)} IS {'' if f.is_null else 'NOT '}NULL"
    if isinstance(f, Not):
        return f"NOT ({to_sql(f.child, types)})"
    word = "AND" if isinstance(f, AndF) else "OR"
    return f"({to_sql(f.left, types)}) {word} ({to_sql(f.right, types)})"


def python_literal(value: Value, data_type: t.DataType) -> Any:
    """``value`` as the Python object PySpark's ``lit`` takes."""
    if value is not None and isinstance(data_type, t.DateType):
        return date_from_days(value)
    return value


def to_column(f: Filter, types: Mapping[str, t.DataType]) -> Any:
    """``f`` as a PySpark ``Column`` (literals cast to the column's type)."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    def lit(value: Value, column: str) -> Any:
        return F.lit(python_literal(value, types[column])).cast(spark_type(types[column]))

    if isinstance(f, Compare):
        col, literal = F.col(f.column), lit(f.literal, f.column)
        if f.op == "<=>":
            return col.eqNullSafe(literal)
        return {
            "=": col == literal,
            "<>": col != literal,
            "<": col < literal,
            "<=": col <= literal,
            ">": col > literal,
            ">=": col >= literal,
        }[f.op]
    if isinstance(f, InList):
        return F.col(f.column).isin(*(lit(x, f.column) for x in f.literals))
    if isinstance(f, NullTest):
        return F.col(f.column).isNull() if f.is_null else F.col(f.column).isNotNull()
    if isinstance(f, Not):
        return ~to_column(f.child, types)
    left, right = to_column(f.left, types), to_column(f.right, types)
    return (left & right) if isinstance(f, AndF) else (left | right)


# --------------------------------------------------------------------------------------------
# Literals outside the written values, per type
# --------------------------------------------------------------------------------------------


def outside_values(case: TableCase, name: str) -> list[Value]:
    """Literals of the column's type around and beyond its written values."""
    data_type = case.types[name]
    present = case.written_values(name)
    if isinstance(data_type, t.BooleanType):
        return [True, False]
    if isinstance(data_type, t.IntType):
        return [-(2**31), 2**31 - 1, min(present) - 1, max(present) + 1, 4]
    if isinstance(data_type, t.BigIntType):
        return [-(2**63), 2**63 - 1, min(present) - 1, max(present) + 1, 2**31]
    if isinstance(data_type, t.VarCharType):
        return ["", "0", "A", "aa", "zzz", "日", "éz", "a a"]
    if isinstance(data_type, t.DoubleType):
        return [-1e300, 1e300, -0.5, 0.05, 2.0, min(present) - 1, max(present) * 2]
    if isinstance(data_type, t.DateType):
        return [-719_162, 2_932_896, -1, 1, 19_702, min(present) - 1, max(present) + 1]
    if isinstance(data_type, t.DecimalType):
        scale, digits = data_type.scale, data_type.precision
        biggest = Decimal(10**digits - 1).scaleb(-scale)
        step = Decimal(1).scaleb(-scale)
        return [-biggest, biggest, min(present) - step, max(present) + step, Decimal(0)]
    raise TypeError(f"no outside values for {data_type}")


# --------------------------------------------------------------------------------------------
# Queries and their strategies
# --------------------------------------------------------------------------------------------

ROUTES = ("df", "view", "fresh", "cached")
"""How a query reaches the table (see the module docstring)."""


@dataclass(frozen=True)
class Query:
    filter: Filter | None
    projection: tuple[str, ...]
    count: bool
    route: str
    as_column: bool
    """For the DataFrame routes: the filter built as a ``Column`` (else a SQL string)."""

    def describe(self, types: Mapping[str, t.DataType]) -> str:
        what = "count(*)" if self.count else ", ".join(quote(c) for c in self.projection)
        where = "" if self.filter is None else f" WHERE {to_sql(self.filter, types)}"
        style = " [Column]" if self.as_column and self.route != "view" else ""
        return f"{self.route:6} SELECT {what}{where}{style}"


@dataclass(frozen=True)
class Example:
    """One table and the queries run in sequence on its DataFrames and view."""

    table: str
    view_over_df: bool
    queries: tuple[Query, ...]

    def describe(self) -> str:
        types = TABLES_BY_NAME[self.table].types
        view = "the df" if self.view_over_df else "its own load"
        lines = [f"table {self.table} (view over {view}):"]
        lines += [f"  {i}. {q.describe(types)}" for i, q in enumerate(self.queries)]
        return "\n".join(lines)


STRATEGIES: dict[tuple[str, ...], st.SearchStrategy[Any]] = {}
"""The strategies built per table (and column), built once: hypothesis validates a strategy
(printing its ``repr``, which holds the table) at every first draw, which cost more than
running the queries when each example built its own."""


def cached_strategy(
    key: tuple[str, ...], build: Callable[[], st.SearchStrategy[Any]]
) -> st.SearchStrategy[Any]:
    if key not in STRATEGIES:
        STRATEGIES[key] = build()
    return STRATEGIES[key]


def literals(case: TableCase, name: str) -> st.SearchStrategy[Value]:
    """Mostly values the column holds, some outside them, now and then NULL."""
    return cached_strategy(("literals", case.name, name), lambda: _literals(case, name))


def _literals(case: TableCase, name: str) -> st.SearchStrategy[Value]:
    present = case.written_values(name)
    outside = outside_values(case, name)
    return st.integers(0, 9).flatmap(
        lambda n: (
            st.none()
            if n == 0
            else st.sampled_from(outside)
            if n <= 3
            else st.sampled_from(present)
        )
    )


def columns(case: TableCase) -> st.SearchStrategy[str]:
    """Any column, partition columns (the pruning ones) drawn more often."""
    everything = st.sampled_from(case.names)
    if not case.partition_keys:
        return everything
    return st.one_of(st.sampled_from(case.partition_keys), everything)


@st.composite
def leaves(draw: st.DrawFn, case: TableCase) -> Filter:
    name = draw(columns(case))
    kind = draw(st.sampled_from(("compare", "compare", "in", "null")))
    if kind == "compare":
        return Compare(draw(st.sampled_from(COMPARISONS)), name, draw(literals(case, name)))
    if kind == "in":
        items = draw(st.lists(literals(case, name), min_size=1, max_size=4))
        return InList(name, tuple(items))
    return NullTest(name, draw(st.booleans()))


def filters(case: TableCase, copy: int = 0) -> st.SearchStrategy[Filter]:
    """Filter trees of up to four leaves over the table's columns. ``copy`` names another
    object of the same strategy: ``st.one_of`` draws each distinct object once, so two weigh
    twice."""
    return cached_strategy(("filters", case.name, str(copy)), lambda: _filters(case))


def _filters(case: TableCase) -> st.SearchStrategy[Filter]:
    def extend(children: st.SearchStrategy[Filter]) -> st.SearchStrategy[Filter]:
        return st.one_of(
            st.builds(Not, children),
            st.builds(AndF, children, children),
            st.builds(OrF, children, children),
        )

    return st.recursive(leaves(case), extend, max_leaves=4)


@st.composite
def queries(draw: st.DrawFn, case: TableCase, route: str) -> Query:
    """One query; ``route`` most of the time (so queries reuse the same object), any
    route otherwise. A third of the queries have no filter."""
    chosen = draw(st.one_of(st.none(), filters(case), filters(case, copy=1)))
    projection = draw(st.lists(st.sampled_from(case.names), min_size=1, unique=True))
    return Query(
        filter=chosen,
        projection=tuple(projection),
        count=draw(st.integers(0, 4)) == 0,
        route=route if draw(st.integers(0, 2)) > 0 else draw(st.sampled_from(ROUTES)),
        as_column=draw(st.booleans()),
    )


@st.composite
def examples(draw: st.DrawFn, min_queries: int = 2, max_queries: int = 3) -> Example:
    case = draw(st.sampled_from(TABLES))
    route = draw(st.sampled_from(ROUTES))
    drawn = draw(st.lists(queries(case, route), min_size=min_queries, max_size=max_queries))
    return Example(case.name, draw(st.booleans()), tuple(drawn))


# --------------------------------------------------------------------------------------------
# The expected answer
# --------------------------------------------------------------------------------------------

Answer: TypeAlias = "Counter[tuple[Value, ...]] | int"


class TableRows:
    """A table's reference read (no filter), as rows by column name. (A plain class: its
    ``repr`` stays short in hypothesis' falsifying examples.)"""

    def __init__(
        self, case: TableCase, table: Table, schema: TableSchema, rows: list[dict[str, Value]]
    ) -> None:
        self.case, self.table, self.schema, self.rows = case, table, schema, rows

    @staticmethod
    def read(case: TableCase, table: Table) -> TableRows:
        result = table.read()
        names = result.field_names
        rows = [dict(zip(names, row, strict=True)) for _, row in result.rows]
        return TableRows(case, table, result.schema, rows)

    def __repr__(self) -> str:
        return f"<{self.case.name}: {len(self.rows)} rows at {self.table.root}>"

    def expected(self, query: Query) -> Answer:
        """The SQL answer: rows the filter makes true, projected (or counted)."""
        kept = [r for r in self.rows if query.filter is None or evaluate(query.filter, r) is True]
        if query.count:
            return len(kept)
        return Counter(tuple(r[c] for c in query.projection) for r in kept)

    def reference_answer(self, query: Query) -> Answer:
        """The reference's own read with the filter as its predicate and the projection."""
        predicate = None if query.filter is None else to_reference_predicate(query.filter)
        if query.count:
            return len(self.table.read(predicate=predicate).rows)
        result = self.table.read(predicate=predicate, projection=list(query.projection))
        return Counter(row for _, row in result.rows)
