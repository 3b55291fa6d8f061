"""Histories of changes, written by the reference or by Java 0.9, for the incremental, streaming
and system-table tests.

One history per changelog producer: three commits (inserts; an update and a delete; inserts
and an update), a full compaction after each commit for the full-compaction producer (the
lookup producer compacts as part of each commit, in both writers), tags ``t1`` after the first
commit and ``t2`` at the end.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from conformance.java.harness import JavaHarness
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.table import Table

INSERT, BEFORE, AFTER, DELETE = (
    RowKind.INSERT,
    RowKind.UPDATE_BEFORE,
    RowKind.UPDATE_AFTER,
    RowKind.DELETE,
)
PRODUCERS = ("none", "input", "lookup", "full-compaction")
KEY_VALUE = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
)
Change = tuple[RowKind, Row]

HISTORY: tuple[tuple[Change, ...], ...] = (
    ((INSERT, (1, "a")), (INSERT, (2, "b")), (INSERT, (4, "d"))),
    ((BEFORE, (1, "a")), (AFTER, (1, "a2")), (DELETE, (2, "b"))),
    ((INSERT, (3, "c")), (INSERT, (1, "a3")), (INSERT, (5, "e"))),
)


def table_options(producer: str, buckets: int = 2, **extra: str) -> dict[str, str]:
    return {"bucket": str(buckets), "changelog-producer": producer, **extra}


def write_reference_history(
    root: Path,
    producer: str,
    history: Sequence[Sequence[Change]] = HISTORY,
    *,
    buckets: int = 2,
    tags: bool = True,
) -> Table:
    """The history written by the reference (batch commits)."""
    table = Table.create(
        LocalFileIO(),
        str(root),
        KEY_VALUE,
        primary_keys=["k"],
        options=table_options(producer, buckets),
    )
    for number, changes in enumerate(history):
        table.write_and_commit([row for _, row in changes], [kind for kind, _ in changes])
        if producer == "full-compaction":
            table.compact(full=True)
        if tags and number == 0:
            table.create_tag("t1")
    if tags:
        table.create_tag("t2")
    return table


def write_java_history(
    java: JavaHarness,
    root: Path,
    producer: str,
    history: Sequence[Sequence[Change]] = HISTORY,
    *,
    buckets: int = 2,
    tags: bool = True,
) -> None:
    """The same history written by Java 0.9 (batch commits)."""
    java.create_table(root, KEY_VALUE, primary_keys=["k"], options=table_options(producer, buckets))
    for number, changes in enumerate(history):
        java.write(root, list(changes), commit=True)
        if producer == "full-compaction":
            java.compact(root, full=True, commit=True)
        if tags and number == 0:
            java.create_tag(root, "t1")
    if tags:
        java.create_tag(root, "t2")


def random_history(seed: int, commits: int = 4, keys: int = 12) -> list[list[Change]]:
    """Random commits of upserts and deletes of existing keys (each commit touches a key at
    most once, so the result does not depend on the order inside a commit)."""
    rng = random.Random(seed)
    present: dict[int, str] = {}
    history: list[list[Change]] = []
    for commit in range(commits):
        changes: list[Change] = []
        for key in rng.sample(range(keys), rng.randint(2, keys // 2)):
            if key in present and rng.random() < 0.3:
                changes.append((DELETE, (key, present.pop(key))))
            else:
                present[key] = f"v{commit}-{key}"
                changes.append((INSERT, (key, present[key])))
        history.append(changes)
    return history


def sorted_changes(changes: Iterable[Any]) -> list[Any]:
    """Changes in a fixed order (readers' orders depend on buckets and files)."""
    return sorted(changes, key=repr)


def as_short(changes: Iterable[Change]) -> list[tuple[str, Row]]:
    return [(kind.short_string, row) for kind, row in changes]
