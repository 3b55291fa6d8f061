"""spark_impl's DELETE and UPDATE (``spark_impl.dml``) against the reference's
(``reference.store.dml``): the same table changed by both gives the same snapshots (kinds),
files (sizes, sequences, statistics), deletion vectors and rows.

Tables are built by the reference (three writes), copied, and changed by each engine with the
same command: Spark gets it as SQL, the reference as a predicate and Python functions.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.spark_impl.write_helpers import INT_FIELDS, reference_rows, table_structure
from reference.errors import SpecViolation
from reference.io import LocalFileIO
from reference.spec.data import Row, RowKind
from reference.spec.predicate import And, Leaf, Predicate, PredicateOp
from reference.store.dml import (
    MatchedAction,
    MergeStatement,
    NotMatchedAction,
    NotMatchedBySourceAction,
    compute_upsert_statement,
)
from reference.table import Table
from spark_impl import dml
from spark_impl.metadata import read_index_entries, read_latest_snapshot

IO = LocalFileIO()
FIELDS = list(INT_FIELDS)
LAYOUTS: dict[str, dict[str, str]] = {
    "unaware-copy-on-write": {"bucket": "-1"},
    "unaware-vectors": {"bucket": "-1", "deletion-vectors.enabled": "true"},
    "bucketed-copy-on-write": {"bucket": "2", "bucket-key": "k", "write-only": "true"},
    "bucketed-vectors": {
        "bucket": "2",
        "bucket-key": "k",
        "deletion-vectors.enabled": "true",
        "write-only": "true",
    },
}


@dataclass(frozen=True)
class Command:
    """One DML statement for both engines."""

    sql_condition: str | None
    predicate: Predicate | None
    sql_set: dict[str, str] | None = None
    python_set: dict[str, Callable[[Row], Any]] | None = None


def lt(name: str, value: int) -> Leaf:
    return Leaf(PredicateOp.LESS_THAN, name, (value,))


def eq(name: str, value: object) -> Leaf:
    return Leaf(PredicateOp.EQUAL, name, (value,))


COMMANDS = {
    "delete-some": Command("k < 40", lt("k", 40)),
    "delete-none": Command("k < -1", lt("k", -1)),
    "delete-partition": Command("dt = 'a'", eq("dt", "a")),
    "delete-mixed": Command("dt = 'b' AND v = 3", And((eq("dt", "b"), eq("v", 3)))),
    "update-some": Command(
        "k < 60",
        lt("k", 60),
        {"v": "v + 100"},
        {"v": lambda row: None if row[1] is None else row[1] + 100},
    ),
    "update-all": Command(None, None, {"v": "k"}, {"v": lambda row: row[0]}),
}


def build(root: str, options: dict[str, str], seed: str) -> None:
    table = Table.create(IO, root, FIELDS, partition_keys=["dt"], options=options)
    rng = random.Random(seed)
    for _ in range(3):
        rows = [(rng.randint(0, 99), rng.randint(0, 9), rng.choice("ab")) for _ in range(60)]
        table.write_and_commit(rows)


def apply_reference(root: str, command: Command) -> None:
    table = Table(IO, root)
    if command.python_set is None:
        table.delete(command.predicate)
    else:
        table.update(command.predicate, command.python_set)


def apply_spark(spark: Any, root: str, command: Command) -> None:
    if command.sql_set is None:
        dml.delete(spark, root, command.sql_condition)
    else:
        dml.update(spark, root, command.sql_condition, command.sql_set)


def commit_kinds(root: str) -> list[str]:
    latest = read_latest_snapshot(IO, root)
    if latest is None:
        return []
    from spark_impl.metadata import read_snapshot  # noqa: PLC0415

    return [read_snapshot(IO, root, i).commit_kind.value for i in range(1, latest.id + 1)]


def assert_same_change(
    tmp_path: Path,
    layout: str,
    change_ours: Callable[[str], object],
    change_theirs: Callable[[str], object],
) -> None:
    """One table of ``layout``, copied; each engine changes its copy; the copies agree on
    snapshot kinds, files and vectors, and rows."""
    ours, theirs = tmp_path / "spark", tmp_path / "reference"
    build(str(ours), LAYOUTS[layout], layout)
    shutil.copytree(ours, theirs)
    change_ours(str(ours))
    change_theirs(str(theirs))
    assert commit_kinds(str(ours)) == commit_kinds(str(theirs))
    assert table_structure(IO, str(ours)) == table_structure(IO, str(theirs))
    assert reference_rows(IO, str(ours)) == reference_rows(IO, str(theirs))


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_append_table_dml_matches_the_reference(
    spark: Any, tmp_path: Path, layout: str, command: str
) -> None:
    assert_same_change(
        tmp_path,
        layout,
        lambda root: apply_spark(spark, root, COMMANDS[command]),
        lambda root: apply_reference(root, COMMANDS[command]),
    )


def test_a_delete_without_condition_truncates(spark: Any, tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    build(root, LAYOUTS["unaware-vectors"], "truncate")
    dml.delete(spark, root, "v = 1")
    [snapshot] = dml.delete(spark, root)
    assert snapshot.commit_kind.value == "OVERWRITE"
    assert reference_rows(IO, root) == {}
    assert read_index_entries(IO, root, snapshot) == []


def test_primary_key_tables_write_retractions(spark: Any, tmp_path: Path) -> None:
    ours, theirs = tmp_path / "spark", tmp_path / "reference"
    Table.create(IO, str(ours), FIELDS, primary_keys=["k"], options={"bucket": "1"})
    Table(IO, str(ours)).write_and_commit(
        [(k, k % 3, "a") for k in range(20)], [RowKind.INSERT] * 20
    )
    shutil.copytree(ours, theirs)
    dml.delete(spark, str(ours), "v = 0")
    dml.update(spark, str(ours), "k > 15", {"v": "v * 10"})
    Table(IO, str(theirs)).delete(eq("v", 0))
    Table(IO, str(theirs)).update(
        Leaf(PredicateOp.GREATER_THAN, "k", (15,)), {"v": lambda row: row[1] * 10}
    )
    assert reference_rows(IO, str(ours)) == reference_rows(IO, str(theirs))
    with pytest.raises(SpecViolation, match="primary-key"):
        dml.update(spark, str(ours), None, {"k": "k + 1"})


@pytest.mark.java
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_java_reads_after_spark_dml_and_compaction(
    spark: Any, java_harness: Any, tmp_path: Path, layout: str
) -> None:
    """Java 0.9 reads every snapshot spark_impl's DELETE, UPDATE and append compaction made."""
    from collections import Counter  # noqa: PLC0415

    from spark_impl import jobs  # noqa: PLC0415

    root = str(tmp_path / "t")
    options = {**LAYOUTS[layout], "compaction.max.file-num": "2", "write-only": "true"}
    build(root, options, layout)
    dml.delete(spark, root, "k < 30")
    dml.update(spark, root, "dt = 'a' AND k > 70", {"v": "v + 1000"})
    jobs.compact(spark, root, full=True)
    latest = read_latest_snapshot(IO, root)
    assert latest is not None
    for snapshot_id in range(4, latest.id + 1):
        java = java_harness.read(root, snapshot_id=snapshot_id)
        assert Counter(java.values()) == reference_rows(IO, root, snapshot_id=snapshot_id)


# --------------------------------------------------------------------------------------------
# MERGE INTO
# --------------------------------------------------------------------------------------------

SOURCE = ((5, 50, "a"), (6, 60, "b"), (70, 71, "a"), (200, 2, "a"), (201, 3, "b"))


def reference_merge(full: bool) -> MergeStatement:
    return MergeStatement(
        source=SOURCE,
        on=lambda target, source: target[0] == source[0],
        matched=(
            MatchedAction(
                condition=lambda target, source: source[1] > 55,
                update=lambda target, source: (target[0], source[1], target[2]),
            ),
            MatchedAction(),
        )
        if full
        else (),
        not_matched=(NotMatchedAction(insert=lambda source: source),),
        not_matched_by_source=(NotMatchedBySourceAction(condition=lambda target: target[1] == 9),)
        if full
        else (),
    )


def spark_merge(spark: Any, root: str, full: bool) -> None:
    source = spark.createDataFrame(list(SOURCE), "k INT, v INT, dt STRING")
    dml.merge(
        spark,
        root,
        source,
        "target.k = source.k",
        matched=[dml.WhenMatched("source.v > 55", {"v": "source.v"}), dml.WhenMatched()]
        if full
        else [],
        not_matched=[dml.WhenNotMatched({"k": "source.k", "v": "source.v", "dt": "source.dt"})],
        not_matched_by_source=[dml.WhenNotMatchedBySource("target.v = 9")] if full else [],
    )


@pytest.mark.parametrize("full", [True, False], ids=["all-actions", "insert-only"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_merge_into_matches_the_reference(
    spark: Any, tmp_path: Path, layout: str, full: bool
) -> None:
    assert_same_change(
        tmp_path,
        layout,
        lambda root: spark_merge(spark, root, full),
        lambda root: Table(IO, root).merge_into(reference_merge(full)),
    )


def test_merge_refuses_a_target_row_matching_two_source_rows(spark: Any, tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    build(root, LAYOUTS["unaware-vectors"], "conflict")
    source = spark.createDataFrame([(1, 1, "a"), (1, 2, "a")], "k INT, v INT, dt STRING")
    k_of_a_row = next(iter(reference_rows(IO, root)))[0]
    source = source.selectExpr(f"{k_of_a_row} AS k", "v", "dt")
    with pytest.raises(SpecViolation, match="more than one source row"):
        dml.merge(spark, root, source, "target.k = source.k", matched=[dml.WhenMatched()])


def test_merge_upserts_a_primary_key_table(spark: Any, tmp_path: Path) -> None:
    ours, theirs = tmp_path / "spark", tmp_path / "reference"
    Table.create(IO, str(ours), FIELDS, primary_keys=["k"], options={"bucket": "1"})
    Table(IO, str(ours)).write_and_commit([(k, k, "a") for k in range(10)])
    shutil.copytree(ours, theirs)
    source = spark.createDataFrame([(3, 30, "b"), (12, 120, "b")], "k INT, v INT, dt STRING")
    dml.merge(
        spark,
        str(ours),
        source,
        "target.k = source.k",
        matched=[dml.WhenMatched(update={"v": "source.v", "dt": "source.dt"})],
        not_matched=[dml.WhenNotMatched({"k": "source.k", "v": "source.v", "dt": "source.dt"})],
    )
    Table(IO, str(theirs)).merge_into(
        compute_upsert_statement(((3, 30, "b"), (12, 120, "b")), key_index=0)
    )
    assert reference_rows(IO, str(ours)) == reference_rows(IO, str(theirs))
