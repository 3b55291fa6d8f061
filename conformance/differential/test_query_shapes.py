"""Differential over query shapes: spark_impl's ``paimon`` reader against the SQL answer
computed from the reference's read, for random filters and projections (issue 18).

Five tables (``query_shapes.TABLES``: append unpartitioned, append partitioned with a null
partition, primary-key partitioned with updates and deletes, primary-key with deletion
vectors, partial-update) are written once per module by the reference. Each hypothesis example
picks one and runs 2-3 queries (2-6 in the slow run) in sequence on the SAME objects: the
example's DataFrame reused, a temporary view (over that DataFrame or its own load) reused, a
fresh ``load(path)``, and the table's ``.cache()``d DataFrame (one per table for the module).
So a query whose answer depends on an earlier query of the same DataFrame or view (a pushed
filter that outlives its query, as the plan Spark keeps on the relation did before b3f867b)
disagrees.

Each query's answer (rows as a multiset, or ``count()``) is compared with the SQL answer:
``query_shapes.evaluate`` (three-valued logic, plain Python comparisons) over the reference's
full read, projected. The reference's own filter rule (``apply_filter_and_projection`` with the
filter as a reference predicate) must give the same answer; the reference's full filtered read
(with its partition/statistics pruning) is checked against the SQL answer by
``test_reference_predicate_read_is_the_sql_answer`` (no Spark).

* default: ``DEFAULT_EXAMPLES`` examples (``derandomize``), the first disagreement fails it;
* ``-m slow``: ``SLOW_EXAMPLES`` examples with longer query sequences.

The summary (examples, queries per route, non-empty answers) is printed at the end (``-s``).
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from conformance.differential.query_shapes import (
    TABLES,
    Answer,
    Example,
    Query,
    TableRows,
    examples,
    quote,
    to_column,
    to_reference_predicate,
    to_sql,
    write_table,
)
from conformance.differential.run_spark import INFRA_MARKERS
from conformance.engines.base import from_arrow_column
from reference.spec.data import RowKind
from reference.store.read import apply_filter_and_projection

DEFAULT_EXAMPLES = int(os.environ.get("PAIMON_KIT_QUERY_SHAPES_EXAMPLES", "300"))
"""At least 300 in CI; the variable lowers it for a quick local run."""
SLOW_EXAMPLES = int(os.environ.get("PAIMON_KIT_QUERY_SHAPES_SLOW_EXAMPLES", "3000"))
REFERENCE_READ_EXAMPLES = 60
"""The reference's filtered reads cost ~0.1 s each: fewer examples for that check."""

HEALTH = list(HealthCheck)
DEFAULT_SETTINGS = settings(
    max_examples=DEFAULT_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate, Phase.shrink),
    suppress_health_check=HEALTH,
)
SLOW_SETTINGS = settings(DEFAULT_SETTINGS, max_examples=SLOW_EXAMPLES)
REFERENCE_SETTINGS = settings(DEFAULT_SETTINGS, max_examples=REFERENCE_READ_EXAMPLES)

VIEW_NAMES = (f"paimon_query_shapes_{i}" for i in itertools.count())


@dataclass
class Summary:
    examples: int = 0
    queries: Counter[str] = field(default_factory=Counter)
    non_empty: int = 0

    def add(self, example: Example, answers: list[Answer]) -> None:
        self.examples += 1
        self.queries.update(q.route for q in example.queries)
        self.non_empty += sum(1 for a in answers if (a if isinstance(a, int) else a.total()))

    def line(self) -> str:
        routes = ", ".join(f"{r} {n}" for r, n in sorted(self.queries.items()))
        total = sum(self.queries.values())
        return (
            f"{self.examples} examples, {total} queries ({routes}), "
            f"{self.non_empty} with a non-empty answer"
        )


SUMMARIES: dict[str, Summary] = {}


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, TableRows]:
    """Every table written by the reference, with its full reference read."""
    root = tmp_path_factory.mktemp("query_shapes")
    return {case.name: TableRows.read(case, write_table(case, root / case.name)) for case in TABLES}


@pytest.fixture(scope="module")
def cached_frames(spark: Any) -> Iterator[CachedFrames]:
    frames = CachedFrames(spark)
    yield frames
    frames.close()


@pytest.fixture(scope="module", autouse=True)
def _print_summary() -> Iterator[None]:
    yield
    for name, summary in SUMMARIES.items():
        print(f"\n{name}: {summary.line()}")


# --------------------------------------------------------------------------------------------
# Running an example on Spark
# --------------------------------------------------------------------------------------------


class CachedFrames:
    """One ``.cache()``d DataFrame per table for the whole module (materializing a cache per
    example would cost as much as the example's queries); unpersisted at the end."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.frames: dict[str, Any] = {}

    def get(self, path: str) -> Any:
        if path not in self.frames:
            self.frames[path] = self.spark.read.format("paimon").load(path).cache()
        return self.frames[path]

    def close(self) -> None:
        for frame in self.frames.values():
            frame.unpersist()


class Frames:
    """The objects one example's queries share: one DataFrame and a temporary view (over
    that DataFrame or over its own load of the path); and the table's cached DataFrame."""

    def __init__(self, spark: Any, path: str, view_over_df: bool, cache: CachedFrames) -> None:
        self.spark, self.path, self.cache = spark, path, cache
        self.df = self.load()
        self.view = next(VIEW_NAMES)
        (self.df if view_over_df else self.load()).createOrReplaceTempView(self.view)

    def load(self) -> Any:
        return self.spark.read.format("paimon").load(self.path)

    def frame(self, route: str) -> Any:
        if route == "df":
            return self.df
        return self.load() if route == "fresh" else self.cache.get(self.path)

    def close(self) -> None:
        self.spark.catalog.dropTempView(self.view)


def spark_answer(frames: Frames, query: Query, rows: TableRows) -> Answer:
    """What spark_impl answers to ``query`` through its route."""
    types = rows.case.types
    if query.route == "view":
        what = "count(*)" if query.count else ", ".join(quote(c) for c in query.projection)
        where = "" if query.filter is None else f" WHERE {to_sql(query.filter, types)}"
        frame = frames.spark.sql(f"SELECT {what} FROM {frames.view}{where}")
        if query.count:
            return int(frame.collect()[0][0])
    else:
        frame = frames.frame(query.route)
        if query.filter is not None:
            condition = query.filter
            frame = frame.filter(
                to_column(condition, types) if query.as_column else to_sql(condition, types)
            )
        if query.count:
            return int(frame.count())
        frame = frame.select(*query.projection)
    arrow = frame.toArrow()
    columns = [
        from_arrow_column(arrow.column(i), types[name]) for i, name in enumerate(query.projection)
    ]
    return Counter(zip(*columns, strict=True))


def with_one_retry(run: Any) -> Any:
    """Spark under heavy load sometimes fails to start a Python worker: retry that once."""
    try:
        return run()
    except Exception as error:
        if not any(marker in str(error) for marker in INFRA_MARKERS):
            raise
        return run()


def reference_rule_answer(rows: TableRows, query: Query) -> Answer:
    """The reference's filter and projection rule (``store.read`` rule 5) on its full read,
    with the filter as a reference predicate."""
    predicate = None if query.filter is None else to_reference_predicate(query.filter)
    changes = [(RowKind.INSERT, tuple(r[n] for n in rows.case.names)) for r in rows.rows]
    projection = None if query.count else list(query.projection)
    kept = apply_filter_and_projection(changes, rows.schema, predicate, projection)
    return len(kept) if query.count else Counter(row for _, row in kept)


def describe_answer(answer: Answer) -> str:
    if isinstance(answer, int):
        return f"count {answer}"
    lines = [
        f"      {row}" + (f" x{n}" if n > 1 else "") for row, n in sorted(answer.items(), key=repr)
    ]
    return f"{answer.total()} rows" + ("\n" + "\n".join(lines[:15]) if lines else "")


def run_example(
    spark: Any, tables: dict[str, TableRows], cache: CachedFrames, example: Example
) -> list[Answer]:
    """Run the example's queries in order; fail at the first answer that is not the SQL one."""
    rows = tables[example.table]
    frames = Frames(spark, rows.table.root, example.view_over_df, cache)
    answers: list[Answer] = []
    try:
        for index, query in enumerate(example.queries):
            expected = rows.expected(query)
            by_rule = reference_rule_answer(rows, query)
            assert by_rule == expected, (
                f"query {index}: the reference's predicate rule disagrees with SQL semantics\n"
                f"{example.describe()}\n  SQL: {describe_answer(expected)}\n"
                f"  reference rule: {describe_answer(by_rule)}"
            )
            got = with_one_retry(lambda query=query: spark_answer(frames, query, rows))
            assert got == expected, (
                f"query {index}: spark_impl disagrees with the SQL answer\n"
                f"{example.describe()}\n  expected: {describe_answer(expected)}\n"
                f"  spark_impl: {describe_answer(got)}"
            )
            answers.append(got)
    finally:
        frames.close()
    return answers


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


@pytest.mark.spark
@DEFAULT_SETTINGS
@given(example=examples())
def test_spark_answers_every_query_shape(
    spark: Any, tables: dict[str, TableRows], cached_frames: CachedFrames, example: Example
) -> None:
    answers = run_example(spark, tables, cached_frames, example)
    SUMMARIES.setdefault("query shapes (default)", Summary()).add(example, answers)


@pytest.mark.spark
def test_default_run_covered_enough_examples() -> None:
    """The default run above ran its ``DEFAULT_EXAMPLES`` (none filtered away)."""
    summary = SUMMARIES.get("query shapes (default)")
    if summary is None:
        pytest.skip("the default query-shape differential did not run in this session")
    assert summary.examples >= DEFAULT_EXAMPLES


@pytest.mark.spark
@pytest.mark.slow
def test_spark_answers_every_query_shape_long_run(
    spark: Any, tables: dict[str, TableRows], cached_frames: CachedFrames
) -> None:
    summary = SUMMARIES.setdefault("query shapes (long run)", Summary())

    @SLOW_SETTINGS
    @given(example=examples(max_queries=6))
    def run_one(example: Example) -> None:
        summary.add(example, run_example(spark, tables, cached_frames, example))

    run_one()


@REFERENCE_SETTINGS
@given(example=examples())
def test_reference_predicate_read_is_the_sql_answer(
    tables: dict[str, TableRows], example: Example
) -> None:
    """The reference's filtered read (partition, statistics and index pruning, then its row
    filter) with the filter as its predicate gives the SQL answer: the oracle's predicate path
    is checked too, not only its full read."""
    rows = tables[example.table]
    for index, query in enumerate(example.queries):
        expected, got = rows.expected(query), rows.reference_answer(query)
        assert got == expected, (
            f"query {index}: the reference's filtered read disagrees with SQL semantics\n"
            f"{example.describe()}\n  SQL: {describe_answer(expected)}\n"
            f"  reference: {describe_answer(got)}"
        )
