"""Batch reads through ``scan.fallback-branch``: partitions the table lacks come from a branch.

An independent implementation of ``reference.store.fallback`` (Java 0.9
``table/FallbackReadFileStoreTable``), over spark_impl's own planning (:mod:`spark_impl.plan`).

Rules (main is the branch read; F the branch its option names):

1. When main's latest schema sets ``scan.fallback-branch`` (not blank), a batch read plans
   main as usual and adds F's plan restricted to the partitions main's read snapshot has no
   live data file in (at any level; a filter does not change which partitions main has).
2. F is planned as a table of its own: F's snapshot, schema and options (merge engine,
   buckets, deletion vectors, ...), over the table's shared manifests and data files. Each of
   F's splits carries F's schemas, so executors read them as F's.
3. F must exist, have main's field types in order (top-level nullability ignored) and, when
   main has primary keys, the same primary keys; else ``InvalidOptionError`` naming the option.
4. Time travel: main's snapshot id maps to F's latest snapshot committed at or before it
   (F's snapshot 1 when none is), a tag or a timestamp applies to F as it is (a timestamp
   before F's first snapshot adds nothing); F without snapshots adds nothing.
5. Only batch reads fall back; streaming reads, writes and compaction plan main alone.

F is planned through :class:`BranchView`, a file IO that shows the branch's ``schema/``,
``snapshot/``, ``tag/``, ``changelog/`` and ``consumer/`` directories where the table's are
(``reference.layout``: manifests, index and data files are shared by every branch).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from reference import layout
from reference.errors import InvalidOptionError
from reference.io import FileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.fallback_branch import check_fallback_schema
from reference.spec.options import FALLBACK_BRANCH_OPTION
from reference.spec.predicate import Predicate
from reference.spec.schema import decode_schema
from reference.spec.snapshot import FIRST_SNAPSHOT_ID, Snapshot
from spark_impl.metadata import (
    find_latest_snapshot_id,
    read_manifest,
    read_manifest_list,
    read_snapshot,
    replay_entries,
)
from spark_impl.plan import (
    LATEST,
    ReadPlan,
    TimeTravel,
    find_snapshot_at,
    plan_read,
    resolve_read_schema,
)

Partition = tuple[Any, ...]


# --------------------------------------------------------------------------------------------
# A branch seen as a table
# --------------------------------------------------------------------------------------------


def compute_branch_directories(table_root: str, branch: str) -> list[tuple[str, str]]:
    """(table's directory, branch's directory) for each per-branch metadata directory."""
    rules = (
        layout.schema_dir,
        layout.snapshot_dir,
        layout.tag_dir,
        layout.changelog_dir,
        layout.consumer_dir,
    )
    return [(rule(table_root), rule(table_root, branch)) for rule in rules]


FILE_IO_OPERATIONS = frozenset(name for name in vars(FileIO) if not name.startswith("_"))
"""The operations of :class:`reference.io.FileIO`; each takes the path it acts on first."""


@dataclass(frozen=True)
class BranchView:
    """``file_io`` with the branch's metadata directories in place of the table's: every
    :class:`~reference.io.FileIO` operation is ``file_io``'s with its path mapped by
    :meth:`map` (the other arguments as given)."""

    file_io: FileIO
    directories: tuple[tuple[str, str], ...]

    @staticmethod
    def of(file_io: FileIO, table_root: str, branch: str) -> BranchView:
        return BranchView(file_io, tuple(compute_branch_directories(table_root, branch)))

    def map(self, path: str) -> str:
        for table_dir, branch_dir in self.directories:
            if path == table_dir or path.startswith(table_dir + layout.SEPARATOR):
                return branch_dir + path[len(table_dir) :]
        return path

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name not in FILE_IO_OPERATIONS:
            raise AttributeError(name)
        operation = getattr(self.file_io, name)

        def on_branch(path: str, *args: Any, **kwargs: Any) -> Any:
            return operation(self.map(path), *args, **kwargs)

        return on_branch


# --------------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------------


def read_fallback_branch(file_io: FileIO, table_root: str) -> str | None:
    """Rule 1: the branch main's latest schema names, or ``None``."""
    _, schema_json = resolve_read_schema(file_io, table_root, LATEST)
    name: str | None = decode_schema(schema_json).core_options.get(FALLBACK_BRANCH_OPTION)
    return None if name is None or layout.is_blank(name) else name


def compute_fallback_travel(
    file_io: FileIO, table_root: str, travel: TimeTravel, view: BranchView
) -> TimeTravel | None:
    """Rule 4: how F is read for a read of main selected by ``travel``; ``None`` when F adds
    nothing."""
    if find_latest_snapshot_id(view, table_root) is None:
        return None
    if travel.snapshot_id is not None:
        millis = read_snapshot(file_io, table_root, travel.snapshot_id).time_millis
        found = find_snapshot_at(view, table_root, millis)
        return TimeTravel(snapshot_id=FIRST_SNAPSHOT_ID if found is None else found.id)
    if travel.timestamp_millis is not None:
        found = find_snapshot_at(view, table_root, travel.timestamp_millis)
        return None if found is None else TimeTravel(snapshot_id=found.id)
    return travel


def list_partitions(file_io: FileIO, table_root: str, main: ReadPlan) -> set[Partition]:
    """Rule 1: the partitions in which main's read snapshot holds a live data file."""
    if main.snapshot_id is None:
        return set()
    snapshot: Snapshot = read_snapshot(file_io, table_root, main.snapshot_id)
    types = [f.type for f in main.schema.partition_type.fields]
    manifests = [
        *read_manifest_list(file_io, table_root, snapshot.base_manifest_list),
        *read_manifest_list(file_io, table_root, snapshot.delta_manifest_list),
    ]
    entries = [e for m in manifests for e in read_manifest(file_io, table_root, m.file_name)]
    encoded = {entry.partition for entry in replay_entries(entries)}
    return {tuple(deserialize_binary_row(partition, types)) for partition in encoded}


def plan_fallback(
    file_io: FileIO,
    table_root: str,
    travel: TimeTravel,
    main: ReadPlan,
    *,
    predicate: Predicate | None = None,
) -> ReadPlan | None:
    """Rules 1-4: F's part of a batch read whose main part is ``main`` (``None`` without the
    option or when F adds nothing); its splits are F's, its schemas F's."""
    branch = read_fallback_branch(file_io, table_root)
    if branch is None:
        return None
    view = BranchView.of(file_io, table_root, branch)
    if not file_io.exists(layout.schema_dir(table_root, branch)):
        raise InvalidOptionError(
            FALLBACK_BRANCH_OPTION, branch, f"branch '{branch}' does not exist (no schema file)"
        )
    fallback_travel = compute_fallback_travel(file_io, table_root, travel, view)
    _, schema_json = resolve_read_schema(view, table_root, fallback_travel or LATEST)
    fallback_schema = decode_schema(schema_json)
    check_fallback_schema(main.schema, fallback_schema, branch)
    if fallback_travel is None:
        return None
    same_names = fallback_schema.field_names == main.schema.field_names
    plan = plan_read(view, table_root, fallback_travel, predicate=predicate if same_names else None)
    present = list_partitions(file_io, table_root, main)
    splits = tuple(s for s in plan.splits if tuple(s.partition) not in present)
    used = {f.schema_id for s in splits for f in s.files}
    return replace(
        plan,
        splits=splits,
        file_schema_jsons={i: j for i, j in plan.file_schema_jsons.items() if i in used},
    )


def plan_with_fallback(
    file_io: FileIO, table_root: str, travel: TimeTravel, main: ReadPlan
) -> tuple[ReadPlan, ...]:
    """The plans of a batch read whose main plan is ``main``: ``main`` alone, or followed by
    F's plan (the hook of the paimon source's planning)."""
    added = plan_fallback(file_io, table_root.rstrip("/"), travel, main)
    return (main,) if added is None else (main, added)
