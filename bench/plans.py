"""The plan (setup, timed run, check) of every engine for writes, reads, point queries and
compactions, shared by ``test_workloads.py`` (W1-W3) and ``test_features.py`` (W4-W7)."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import pyarrow as pa

from bench import engines as e
from bench import features as f
from bench import workloads as w
from bench.harness import NATIVE_ENGINE, SPARK_ENGINES, Plan, Suite

_names = itertools.count()


def fresh_name(prefix: str) -> str:
    return f"{prefix}_{next(_names)}"


def remove_table(root: str, *_: Any) -> None:
    shutil.rmtree(root, ignore_errors=True)


def rust_checksum(result: Any, root: str) -> w.Checksum:
    return w.arrow_checksum(e.rust_read(root))


def pypaimon_checksum(result: Any, root: str) -> w.Checksum:
    return w.arrow_checksum(e.pypaimon_read(root))


def arrow_result_checksum(result: Any, *_: Any) -> w.Checksum:
    return w.arrow_checksum(result)


def returned_checksum(result: w.Checksum, *_: Any) -> w.Checksum:
    return result


def floor_directory_checksum(result: Any, directory: str) -> w.Checksum:
    return w.arrow_checksum(e.floor_read(e.list_parquet(directory)))


def keep_as(suite: Suite, key: str) -> Callable[[str], None]:
    """A teardown keeping the table a round wrote as ``suite.kept[key]`` (dropping the one
    kept before), for the readers of the same run."""

    def keep(root: str) -> None:
        previous = suite.kept.get(key)
        suite.kept[key] = root
        if previous is not None:
            remove_table(previous)

    return keep


def reference_rows(commits: Sequence[pa.Table]) -> list[list[tuple[Any, ...]]]:
    return [[tuple(r.values()) for r in data.to_pylist()] for data in commits]


@dataclass(frozen=True)
class TableWorkload:
    """A workload that writes a table in five commits and reads it back."""

    name: str
    read_operation: str
    create: Callable[[str, str], str]
    """``create(warehouse, name)``: make the empty table, return its root."""
    commits: Callable[[int, int], pa.Table]
    """``commits(rows, commit)``: one commit's rows as Arrow."""
    spark_write: Callable[[Any, str, int], None]
    expected: Callable[[int], w.Checksum]
    primary_key: bool
    changelog: Callable[[int], int] | None = None
    """``changelog(rows)``: the changelog records the writer must produce (W4), if any."""

    def all_commits(self, rows: int) -> list[pa.Table]:
        return [self.commits(rows, c) for c in range(w.COMMITS)]


W1 = TableWorkload(
    "W1",
    "merge-read",
    w.create_pk_table,
    w.commit_arrow,
    e.spark_write_pk,
    w.expected_checksum,
    primary_key=True,
)
W1_RUNS = replace(W1, name="W1-runs", create=w.create_pk_runs_table)
"""W1 written with ``write-only``: five overlapping sorted runs per bucket to merge."""
W2 = TableWorkload(
    "W2",
    "scan",
    w.create_append_table,
    w.append_commit_arrow,
    e.spark_write_append,
    w.expected_append_checksum,
    primary_key=False,
)
W4 = replace(W1, name="W4", create=f.create_lookup_table, changelog=f.expected_changelog_records)
"""W1 into a ``changelog-producer = lookup`` table: the write also produces the changelog."""
W5 = replace(W2, name="W5", read_operation="point-query", create=f.create_index_table)
"""W2 into an append table with a bloom-filter index on ``v`` and many small files."""
W6_PARTIAL = TableWorkload(
    "W6-partial",
    "merge-read",
    f.create_partial_table,
    f.partial_commit_arrow,
    partial(e.spark_write_commits, frames=f.partial_commit_spark_frame),
    f.expected_partial_checksum,
    primary_key=True,
)
W6_AGGREGATE = replace(
    W1,
    name="W6-aggregate",
    create=f.create_aggregate_table,
    expected=f.expected_aggregate_checksum,
)
W7 = replace(W1, name="W7", read_operation="read", create=f.create_dv_table)
"""W1 into a deletion-vector table: the read applies deletion vectors instead of merging."""


def shared_table(suite: Suite, workload: TableWorkload) -> str:
    """The table of ``workload`` every reader reads: the one a spark_impl write benchmark
    left, else one written now (untimed) by spark_impl at local[2], or without Spark by
    pypaimon (pypaimon-rust 0.4 writes primary-key files without the ``_KEY_`` columns,
    which the reference and Java 0.9 cannot read)."""
    if workload.name not in suite.kept:
        root = workload.create(suite.warehouse, fresh_name(f"{workload.name}_shared"))
        if suite.uses_spark():
            workload.spark_write(suite.sessions.get("local[2]"), root, suite.rows)
        else:
            e.pypaimon_write(root, workload.all_commits(suite.rows))
        suite.kept[workload.name] = root
    return suite.kept[workload.name]


OWN_TABLE_READERS = frozenset({"pypaimon"})
"""Readers that cannot read spark_impl's tables (pypaimon 2.1 requires the manifest field
``_VALUE_STATS_COLS``, which 0.9-format manifests lack); they read the table they wrote."""


def own_table_key(workload: str, engine: str) -> str:
    return f"{workload}-{engine}"


def reader_table(suite: Suite, workload: TableWorkload, engine: str) -> str:
    """The table ``engine`` reads: the shared one, or for :data:`OWN_TABLE_READERS` the one
    it wrote in this run's write benchmark (written now, untimed, when that did not run)."""
    if engine in OWN_TABLE_READERS:
        key = own_table_key(workload.name, engine)
        if key not in suite.kept:
            root = workload.create(suite.warehouse, fresh_name(f"{workload.name}_{engine}"))
            e.pypaimon_write(root, workload.all_commits(suite.rows))
            suite.kept[key] = root
        return suite.kept[key]
    return shared_table(suite, workload)


def write_plan(suite: Suite, engine: str, workload: TableWorkload) -> Plan:
    """Write the workload's five commits with ``engine`` into a fresh table; spark_impl's
    table is kept for the readers. The floor writes the same rows (with Paimon's system
    columns when the table has a primary key) as plain Parquet files."""
    plan = _write_plan(suite, engine, workload)
    if workload.changelog is None:
        return plan
    return with_changelog_check(plan, workload.changelog(suite.rows), engine == "floor")


def with_changelog_check(plan: Plan, expected_records: int, floor: bool) -> Plan:
    """``plan`` whose check also counts the changelog records of the written table (the sum
    of its snapshots' ``changelogRecordCount``) and fails unless there are
    ``expected_records``; the floor's changelog is plain files, checked by their rows."""

    def check(result: Any, target: str) -> w.Checksum:
        if floor:
            found = e.floor_read(e.list_parquet(f"{target}/{e.FLOOR_CHANGELOG}")).num_rows
        else:
            found = f.count_changelog_records(target)
        plan.facts["changelog_records"] = found
        if found != expected_records:
            raise AssertionError(f"changelog records: {found}, expected {expected_records}")
        return plan.check(result, target)

    return replace(plan, check=check)


def _write_plan(suite: Suite, engine: str, workload: TableWorkload) -> Plan:
    expected = workload.expected(suite.rows)
    keep_key = workload.name
    create = partial(workload.create, suite.warehouse)
    new_table = lambda: (create(fresh_name(f"{keep_key}_{engine}")),)  # noqa: E731
    if engine in SPARK_ENGINES:
        spark, rows, spark_write = suite.spark(engine), suite.rows, workload.spark_write
        run = lambda root: spark_write(spark, root, rows)  # noqa: E731
        return Plan(new_table, run, rust_checksum, expected, keep_as(suite, keep_key))
    if engine == NATIVE_ENGINE:
        return native_write_plan(suite, workload)
    data = workload.all_commits(suite.rows)
    if engine == "pypaimon-rust":
        run = lambda root: e.rust_write(root, data)  # noqa: E731
        return Plan(new_table, run, pypaimon_checksum, expected, remove_table)
    if engine == "pypaimon":
        run = lambda root: e.pypaimon_write(root, data)  # noqa: E731
        own = keep_as(suite, own_table_key(keep_key, engine))
        return Plan(new_table, run, rust_checksum, expected, own)
    if engine == "reference":
        python_rows = reference_rows(data)
        run = lambda root: e.reference_write(root, python_rows)  # noqa: E731
        return Plan(new_table, run, rust_checksum, expected, remove_table)
    physical = [e.with_system_columns(c, 0) for c in data] if workload.primary_key else data
    directory = lambda: (f"{suite.warehouse}/{fresh_name(f'floor_{keep_key}')}",)  # noqa: E731
    run = lambda target: e.floor_write(target, physical)  # noqa: E731
    if workload.changelog is not None:
        changes = [e.with_system_columns(c, 0) for c in f.changelog_commits_arrow(suite.rows)]
        run = lambda target: e.floor_write_with_changelog(target, physical, changes)  # noqa: E731
    floor_expected = w.arrow_checksum(pa.concat_tables(data))
    return Plan(directory, run, floor_directory_checksum, floor_expected, remove_table)


def native_write_plan(suite: Suite, workload: TableWorkload) -> Plan:
    """``spark-native``: the frames spark_impl writes, appended as plain Parquet by Spark into
    a directory (no buckets, no Paimon metadata); checked by reading the files back."""
    spark, rows = suite.spark(NATIVE_ENGINE), suite.rows
    frames = partial(e.spark_native_write, frames=workload_frames(workload))
    directory = lambda: (f"{suite.warehouse}/{fresh_name(f'native_{workload.name}')}",)  # noqa: E731
    run = lambda target: frames(spark, target, rows)  # noqa: E731
    expected = w.arrow_checksum(pa.concat_tables(workload.all_commits(rows)))
    return Plan(directory, run, floor_directory_checksum, expected, remove_table)


def workload_frames(workload: TableWorkload) -> Callable[[Any, int, int], Any]:
    """The Spark frames of a workload's commits (what its ``spark_write`` writes)."""
    frames = getattr(workload.spark_write, "keywords", {}).get("frames")
    if frames is not None:
        return frames  # type: ignore[no-any-return]
    return w.commit_spark_frame if workload.primary_key else w.append_commit_spark_frame


def read_plan(suite: Suite, engine: str, root: str, expected: w.Checksum) -> Plan:
    """Read the table at ``root`` to Arrow (spark_impl: aggregate the checksum on the
    executors); the floor reads the snapshot's live data files unmerged."""
    same_table = lambda: (root,)  # noqa: E731
    if engine in SPARK_ENGINES:
        spark = suite.spark(engine)
        run = lambda table: e.spark_read(spark, table)  # noqa: E731
        return Plan(same_table, run, returned_checksum, expected)
    if engine == NATIVE_ENGINE:
        spark, paths = suite.spark(engine), e.live_data_files(root)
        run = lambda table: e.spark_native_read(spark, paths)  # noqa: E731
        unmerged = w.arrow_checksum(e.floor_read(paths))
        return Plan(same_table, run, returned_checksum, unmerged)
    if engine == "reference":
        return Plan(same_table, e.reference_read, returned_checksum, expected)
    if engine in {"pypaimon-rust", "pypaimon"}:
        run = e.rust_read if engine == "pypaimon-rust" else e.pypaimon_read
        return Plan(same_table, run, arrow_result_checksum, expected)
    paths = e.live_data_files(root)
    run = lambda table: e.floor_read(paths)  # noqa: E731
    return Plan(same_table, run, arrow_result_checksum, w.arrow_checksum(e.floor_read(paths)))


def compact_plan(suite: Suite, engine: str, root: str, expected: w.Checksum) -> Plan:
    """Fully compact a fresh copy of the table at ``root`` (with ``write-only`` switched off
    in the copy: Java refuses to compact a write-only table); the facts record the live data
    files before and after (equal counts would mean the compaction did nothing)."""
    facts: dict[str, Any] = {}

    def copy() -> tuple[str]:
        target = w.table_root(suite.warehouse, fresh_name(f"w3_{engine}"))
        shutil.copytree(root, target)
        e.allow_compaction(target)
        facts["files_before"] = len(e.live_data_files(target))
        return (target,)

    def count_and_remove(target: str) -> None:
        facts["files_after"] = len(e.live_data_files(target))
        remove_table(target)

    if engine in SPARK_ENGINES:
        spark = suite.spark(engine)
        run = lambda table: e.spark_compact(spark, table)  # noqa: E731
    elif engine == "java":
        java = suite.java()
        run = lambda table: e.java_compact(java, table)  # noqa: E731
    else:
        run = e.reference_compact
    return Plan(copy, run, rust_checksum, expected, count_and_remove, facts)


def sum_checksums(checksums: Sequence[w.Checksum]) -> w.Checksum:
    return w.Checksum(
        sum(c.count for c in checksums),
        sum(c.key_sum for c in checksums),
        float(sum(c.x_sum for c in checksums)),
        sum(c.v_length for c in checksums),
    )


def point_query_plan(suite: Suite, engine: str, root: str) -> Plan:
    """Run :func:`bench.features.point_query_values` as one query each (``v = value``) and
    sum the checksums of their rows; the facts record the table's live files and how many
    of them the reference plans for one query (the index's pruning, independently of the
    engine under test), and for spark_impl the files it plans and reads. The floor scans the
    live files with pyarrow's filter (Parquet statistics only: no Paimon index)."""
    values = f.point_query_values(suite.rows)
    expected = f.expected_point_checksum(suite.rows)
    same_table = lambda: (root,)  # noqa: E731
    paths = e.live_data_files(root)
    facts: dict[str, Any] = {
        "files": len(paths),
        "files_planned_by_reference": e.reference_planned_files(root, f.INDEX_COLUMN, values[0]),
    }
    if engine in SPARK_ENGINES:
        facts.update(e.spark_scan_files(root, f.INDEX_COLUMN, values[0]))

    def each(query: Callable[[str, str], w.Checksum]) -> Callable[[str], w.Checksum]:
        return lambda table: sum_checksums([query(table, value) for value in values])

    if engine in SPARK_ENGINES:
        spark = suite.spark(engine)
        run = each(partial(e.spark_point_query, spark))
    elif engine == "reference":
        run = each(e.reference_point_query)
    elif engine == "pypaimon-rust":
        run = each(e.rust_point_query)
    elif engine == "pypaimon":
        run = each(e.pypaimon_point_query)
    else:
        run = each(lambda _root, value: e.floor_point_query(paths, value))
    return Plan(same_table, run, returned_checksum, expected, facts=facts)
