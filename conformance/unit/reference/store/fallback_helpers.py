"""Tables with a fallback branch (``scan.fallback-branch``), written by Java 0.9 or by the
reference, and the rows a batch read of them must return (shared by the reference and the
spark_impl tests).

The scenario is the one of Java 0.9's ``BranchSqlITCase.testFallbackBranchBatchRead``, with a
later main write for time travel: main is an append table partitioned by ``pt``; branch ``pk``
is an empty branch made a primary-key table (``pt, k``, 2 buckets) before its first write, and
main's ``scan.fallback-branch`` names it.

    main  s1: pt=1 apple, banana                    pk  s1: pt=1 cat, dog
                                                    pk  s2: pt=2 tiger, wolf
    main  s2: pt=3 pear                             pk  s3: pt=2 lion (replaces tiger)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance.java.harness import BranchTable, Change, JavaHarness
from conformance.unit.reference.store.test_branches import write_on_branch
from reference import layout
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row
from reference.spec.schema import SchemaChange, SetOption, apply_schema_changes, encode_schema
from reference.store import metadata
from reference.table import Table

BRANCH = "pk"
FIELDS = (
    t.DataField(0, "pt", t.IntType(nullable=False)),
    t.DataField(1, "k", t.IntType(nullable=False)),
    t.DataField(2, "v", t.VarCharType(t.MAX_LENGTH)),
)
PK_CHANGES: tuple[SchemaChange, ...] = (
    SetOption("primary-key", "pt, k"),
    SetOption("bucket", "2"),
)
FALLBACK_OPTION = SetOption("scan.fallback-branch", BRANCH)

MAIN_FIRST: list[Row] = [(1, 10, "apple"), (1, 20, "banana")]
MAIN_LATER: list[Row] = [(3, 10, "pear")]
BRANCH_WRITES: tuple[list[Row], ...] = (
    [(1, 20, "cat"), (1, 30, "dog")],
    [(2, 10, "tiger"), (2, 20, "wolf")],
    [(2, 10, "lion")],
)

EXPECTED_LATEST = sorted([*MAIN_FIRST, *MAIN_LATER, (2, 10, "lion"), (2, 20, "wolf")])
"""main's partitions 1 and 3, the branch's partition 2 (its partition 1 is main's)."""
EXPECTED_AT_MAIN_SECOND = sorted([*MAIN_FIRST, *MAIN_LATER, (2, 10, "tiger"), (2, 20, "wolf")])
"""At main's second snapshot: the branch as of that time (its second snapshot)."""
EXPECTED_AT_MAIN_FIRST = sorted(MAIN_FIRST)
"""At main's first snapshot, older than every branch snapshot: the branch's snapshot 1, whose
only partition main has."""
EXPECTED_BRANCH = sorted([(1, 20, "cat"), (1, 30, "dog"), (2, 10, "lion"), (2, 20, "wolf")])

CLOCK_STEP_SECONDS = 0.01
"""Pause between commits of different branches, so their commit times differ."""


@dataclass(frozen=True)
class FallbackTable:
    root: Path
    main_snapshots: tuple[int, int]
    """main's latest snapshot after its first and after its second write."""


def write_java_table(java: JavaHarness, root: Path) -> FallbackTable:
    """The scenario through Java 0.9's API (harness ``create_branch`` and branch requests)."""
    branch = BranchTable(root, BRANCH)
    java.create_table(root, FIELDS, partition_keys=["pt"], options={"bucket": "-1"})
    first = java.write(root, MAIN_FIRST, commit=True)["snapshot_id"]
    java.create_branch(root, BRANCH)
    java.alter_table(branch, [Change.set_option(c.key, c.value) for c in PK_CHANGES])
    java.alter_table(root, [Change.set_option(FALLBACK_OPTION.key, FALLBACK_OPTION.value)])
    for rows in BRANCH_WRITES[:2]:
        java.write(branch, rows, commit=True)
    time.sleep(CLOCK_STEP_SECONDS)
    second = java.write(root, MAIN_LATER, commit=True)["snapshot_id"]
    time.sleep(CLOCK_STEP_SECONDS)
    java.write(branch, BRANCH_WRITES[2], commit=True)
    return FallbackTable(root, (first, second))


def alter_branch(table: Table, branch: str, changes: Sequence[SchemaChange]) -> None:
    """Write the branch's next schema (the reference's ``alter_table`` works on main only)."""
    old = metadata.read_latest_schema(table.file_io, table.root, branch)
    new = apply_schema_changes(
        old, changes, has_snapshots=False, time_millis=time.time_ns() // 1_000_000
    )
    path = layout.schema_path(table.root, new.id, branch)
    assert table.file_io.create_exclusive(path, encode_schema(new).encode("utf-8"))


def write_reference_table(root: Path) -> FallbackTable:
    """The same scenario through the reference."""
    table = Table.create(
        LocalFileIO(), str(root), FIELDS, partition_keys=["pt"], options={"bucket": "-1"}
    )
    first = table.write_and_commit(MAIN_FIRST)[-1].id
    table.create_branch(BRANCH)
    alter_branch(table, BRANCH, PK_CHANGES)
    table.alter([FALLBACK_OPTION])
    for rows in BRANCH_WRITES[:2]:
        write_on_branch(table, BRANCH, rows)
    time.sleep(CLOCK_STEP_SECONDS)
    second = table.write_and_commit(MAIN_LATER)[-1].id
    time.sleep(CLOCK_STEP_SECONDS)
    write_on_branch(table, BRANCH, BRANCH_WRITES[2])
    return FallbackTable(root, (first, second))
