"""Row-level changes: DELETE, UPDATE and MERGE INTO, as Spark's Paimon commands make them.

Spec: ``docs/append-table/*`` ("Row Level Operations": copy-on-write, or merge-on-write with
deletion vectors), ``docs/spark/sql-write``; the seeds' section 3.6.2 (append tables accept
DELETE, UPDATE and MERGE INTO). Java (0.9.0, ``paimon-spark-common``):
``commands/DeleteFromPaimonTableCommand``, ``UpdatePaimonTableCommand``,
``MergeIntoPaimonTable``, ``PaimonCommand``, ``PaimonSparkWriter.persistDeletionVectors``;
core: ``deletionvectors/append/*``, ``operation/FileStoreCommitImpl.truncateTable`` /
``dropPartitions``.

Rules:

1.  *Truncate.* DELETE without a condition makes one OVERWRITE snapshot deleting every live
    data and index file (even of an empty table).
2.  *Dropping partitions.* DELETE whose condition names partition keys only (unless
    ``delete.force-produce-changelog``) makes one OVERWRITE snapshot deleting every data and
    index file of the partitions holding live files that match; when none match, nothing is
    committed.
3.  *Candidates.* The live files a batch scan plans for the condition (partition, statistics
    and file-index pruning; MERGE: for its optional target-only condition). A file's *visible
    rows* are those its deletion vector keeps, with their positions, in the current schema.
4.  *Copy-on-write* (append tables without deletion vectors): a *touched* file is a candidate
    holding a row the command changes (MERGE: rule 9). Each touched file's rows, minus the
    deleted ones and with the updated ones replaced in place, are written again by the
    table's writer (bucket assignment, sequence numbers after the bucket's, no compaction)
    and the touched file is deleted, all in one APPEND snapshot.
5.  *Deletion vectors* (append tables with ``deletion-vectors.enabled``): the positions of
    changed rows join their files' deletion vectors (``reference.store.append_compact`` rules
    10-11) and updated or inserted rows are written as new files: an APPEND snapshot for the
    new files, then a COMPACT snapshot for the index files.
6.  *Primary-key tables.* DELETE writes each matching row as ``-D`` (deduplicate engine
    only; Java rewrites files for other engines), UPDATE each updated row as ``+U``, MERGE its
    inserts as ``+I``, updates as ``+U`` and deletes as ``-D``; all through the batch writer
    with its compaction. A primary-key column cannot be assigned.
7.  *UPDATE* gives each assigned column its function's value of the old row; the other
    columns keep theirs.
8.  *MERGE INTO* target USING source ON ``on(target, source)``: when a matched action exists
    and a target row matches several source rows, the statement fails. A matched pair takes
    the first matched action whose condition holds (update: the function's row; delete); a
    target row without a match the first not-matched-by-source action whose condition holds; a
    source row without a match the first not-matched action whose condition holds (insert).
    Rows no action takes stay as they are.
9.  *Touched files of a MERGE* (copy-on-write): files with a matched target row when a matched
    action exists, and files with an unmatched target row when a not-matched-by-source action
    exists (whether or not an action's condition then holds).
10. A command that changes nothing commits nothing.

Differences from Java: Spark's UPDATE and MERGE write through a writer that may also compact
a fixed-bucket append table (whose pick can then conflict with the deleted files); the
reference never compacts in copy-on-write. Spark orders written rows by its plan; here the
rewritten rows come in file order, then inserts in source order.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from reference.errors import PaimonKitError, SpecViolation, UnsupportedFeature
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.commit_message import BATCH_COMMIT_IDENTIFIER, CommitMessage, DataIncrement
from reference.spec.data import Row, RowKind, Value
from reference.spec.data_file import DataFileMeta
from reference.spec.manifest import DEFAULT_FIELD_SET
from reference.spec.options import MergeEngine
from reference.spec.predicate import Predicate, compute_fields, is_row_matching
from reference.spec.schema import TableSchema
from reference.spec.snapshot import CommitKind, Snapshot
from reference.store import commit as store_commit
from reference.store import metadata
from reference.store.append_compact import (
    RewriteContext,
    compute_vector_increment,
    create_context_index_writer,
    create_rewrite_context,
    read_visible_rows,
)
from reference.store.bucket_assign import compute_total_buckets
from reference.store.bucket_state import BucketState, create_job_context, read_bucket_state_map
from reference.store.compact import compact_after_write
from reference.store.query import read_table
from reference.store.scan import compute_bucket_path, plan_scan
from reference.store.write import FileNaming, read_live_entries, write_batch


class MergeConflictError(PaimonKitError):
    """A MERGE INTO whose target row matches more than one source row (rule 8)."""


# --------------------------------------------------------------------------------------------
# Statements
# --------------------------------------------------------------------------------------------

Assignments = Mapping[str, Callable[[Row], Value]]
"""UPDATE's ``SET column = f(old row)`` by column name."""


@dataclass(frozen=True)
class MatchedAction:
    """``WHEN MATCHED [AND condition(target, source)] THEN UPDATE`` with ``update(target,
    source)`` giving the new row, or ``THEN DELETE`` when ``update`` is None."""

    condition: Callable[[Row, Row], bool] | None = None
    update: Callable[[Row, Row], Row] | None = None


@dataclass(frozen=True)
class NotMatchedAction:
    """``WHEN NOT MATCHED [AND condition(source)] THEN INSERT insert(source)``."""

    insert: Callable[[Row], Row]
    condition: Callable[[Row], bool] | None = None


@dataclass(frozen=True)
class NotMatchedBySourceAction:
    """``WHEN NOT MATCHED BY SOURCE [AND condition(target)] THEN UPDATE`` with
    ``update(target)``, or ``THEN DELETE`` when ``update`` is None."""

    condition: Callable[[Row], bool] | None = None
    update: Callable[[Row], Row] | None = None


@dataclass(frozen=True)
class MergeStatement:
    """A MERGE INTO: the source rows, the ON condition and the three action lists."""

    source: tuple[Row, ...]
    on: Callable[[Row, Row], bool]
    matched: tuple[MatchedAction, ...] = ()
    not_matched: tuple[NotMatchedAction, ...] = ()
    not_matched_by_source: tuple[NotMatchedBySourceAction, ...] = ()
    target_condition: Predicate | None = None


def compute_upsert_statement(source: Sequence[Row], key_index: int) -> MergeStatement:
    """``MERGE INTO t USING source s ON t.k = s.k WHEN MATCHED THEN UPDATE SET * WHEN NOT
    MATCHED THEN INSERT *``, ``k`` the column at ``key_index`` (source rows in the table's
    column order)."""
    return MergeStatement(
        source=tuple(source),
        on=lambda target, row: target[key_index] == row[key_index],
        matched=(MatchedAction(update=lambda target, row: row),),
        not_matched=(NotMatchedAction(insert=lambda row: row),),
    )


class Change(Enum):
    """What a command does to one target row."""

    UPDATE = "update"
    DELETE = "delete"


@dataclass(frozen=True)
class RowChange:
    """A changed target row: deleted, or replaced by ``row``."""

    change: Change
    row: Row


@dataclass(frozen=True)
class MergeResult:
    """Rule 8 over a list of target rows: the change of each (None: unchanged), whether it
    matched a source row, and the rows to insert."""

    changes: tuple[RowChange | None, ...]
    matched: tuple[bool, ...]
    inserts: tuple[Row, ...]


# --------------------------------------------------------------------------------------------
# Row rules (rules 7 and 8)
# --------------------------------------------------------------------------------------------


def compute_types(schema: TableSchema) -> dict[str, t.DataType]:
    return {f.name: f.type for f in schema.fields}


def is_matching(predicate: Predicate | None, row: Row, schema: TableSchema) -> bool:
    if predicate is None:
        return True
    values = dict(zip(schema.field_names, row, strict=True))
    return is_row_matching(predicate, values, compute_types(schema))


def apply_assignments(row: Row, assignments: Assignments, schema: TableSchema) -> Row:
    """Rule 7."""
    unknown = sorted(set(assignments) - set(schema.field_names))
    if unknown:
        raise SpecViolation(f"UPDATE assigns unknown columns {unknown}", code="DML_UNKNOWN_COLUMN")
    return tuple(
        assignments[name](row) if name in assignments else value
        for name, value in zip(schema.field_names, row, strict=True)
    )


def compute_update_change(
    row: Row, predicate: Predicate | None, assignments: Assignments, schema: TableSchema
) -> RowChange | None:
    if not is_matching(predicate, row, schema):
        return None
    return RowChange(Change.UPDATE, apply_assignments(row, assignments, schema))


def compute_delete_change(
    row: Row, predicate: Predicate | None, schema: TableSchema
) -> RowChange | None:
    return RowChange(Change.DELETE, row) if is_matching(predicate, row, schema) else None


def apply_matched(target: Row, source: Row, actions: Sequence[MatchedAction]) -> RowChange | None:
    for action in actions:
        if action.condition is None or action.condition(target, source):
            if action.update is None:
                return RowChange(Change.DELETE, target)
            return RowChange(Change.UPDATE, tuple(action.update(target, source)))
    return None


def apply_not_matched_by_source(
    target: Row, actions: Sequence[NotMatchedBySourceAction]
) -> RowChange | None:
    for action in actions:
        if action.condition is None or action.condition(target):
            if action.update is None:
                return RowChange(Change.DELETE, target)
            return RowChange(Change.UPDATE, tuple(action.update(target)))
    return None


def compute_insert(source: Row, actions: Sequence[NotMatchedAction]) -> Row | None:
    for action in actions:
        if action.condition is None or action.condition(source):
            return tuple(action.insert(source))
    return None


def compute_merge(targets: Sequence[Row], statement: MergeStatement) -> MergeResult:
    """Rule 8 (a nested-loop full outer join)."""
    changes: list[RowChange | None] = []
    matched: list[bool] = []
    source_matched = [False] * len(statement.source)
    for target in targets:
        hits = [i for i, source in enumerate(statement.source) if statement.on(target, source)]
        if len(hits) > 1 and statement.matched:
            raise MergeConflictError(
                f"target row {target} matches {len(hits)} source rows; MERGE INTO needs at most one"
            )
        for i in hits:
            source_matched[i] = True
        matched.append(bool(hits))
        if hits:
            changes.append(apply_matched(target, statement.source[hits[0]], statement.matched))
        else:
            changes.append(apply_not_matched_by_source(target, statement.not_matched_by_source))
    inserts = [
        compute_insert(source, statement.not_matched)
        for source, hit in zip(statement.source, source_matched, strict=True)
        if not hit
    ]
    return MergeResult(tuple(changes), tuple(matched), tuple(r for r in inserts if r is not None))


def is_file_touched_by_merge(matched: Sequence[bool], statement: MergeStatement) -> bool:
    """Rule 9 for the rows of one file."""
    return (bool(statement.matched) and any(matched)) or (
        bool(statement.not_matched_by_source) and not all(matched)
    )


# --------------------------------------------------------------------------------------------
# Candidates (rule 3)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileRows:
    """A candidate file, its bucket and its visible rows with their positions."""

    bucket: BucketState
    meta: DataFileMeta
    rows: tuple[tuple[int, Row], ...]


def read_candidates(
    ctx: RewriteContext, snapshot: Snapshot | None, predicate: Predicate | None
) -> list[FileRows]:
    """Rule 3, in scan order."""
    if snapshot is None:
        return []
    plan = plan_scan(
        ctx.job.file_io,
        ctx.job.table_root,
        snapshot,
        ctx.job.schema,
        ctx.job.schemas,
        predicate=predicate,
    )
    buckets = read_bucket_state_map(ctx.job.file_io, ctx.job.table_root, ctx.job.schema, snapshot)
    found = []
    for split in plan.splits:
        bucket = buckets[(split.partition_bytes, split.bucket)]
        directory = compute_bucket_path(
            ctx.job.table_root, ctx.job.schema, bucket.partition, bucket.bucket
        )
        vectors = bucket.vectors
        for meta in split.files:
            deleted = vectors.get(meta.file_name, frozenset())
            rows = read_visible_rows(ctx, directory, meta, deleted)
            found.append(FileRows(bucket, meta, tuple(rows)))
    return found


# --------------------------------------------------------------------------------------------
# Committing append-table changes (rules 4, 5, 10)
# --------------------------------------------------------------------------------------------

FileChanges = Sequence[tuple[FileRows, Sequence[RowChange | None]]]
"""Each candidate with the change of each of its visible rows (None: unchanged)."""


def write_new_rows(
    ctx: RewriteContext, snapshot: Snapshot | None, rows: Sequence[Row]
) -> list[CommitMessage]:
    """Rows written by the table's writer, in a fresh naming (its own uuid)."""
    if not rows:
        return []
    naming = FileNaming(creation_time=ctx.job.creation_time)
    return write_batch(
        ctx.job.file_io, ctx.job.table_root, ctx.job.schema, snapshot, rows, naming=naming
    )


def compute_deleted_file_messages(
    ctx: RewriteContext, touched: Sequence[FileRows]
) -> list[CommitMessage]:
    """The touched files as deleted data files, one message per bucket."""
    grouped: dict[tuple[bytes, int], list[DataFileMeta]] = {}
    for file in touched:
        grouped.setdefault((file.bucket.partition_bytes, file.bucket.bucket), []).append(file.meta)
    total = compute_total_buckets(ctx.job.schema)
    return [
        CommitMessage(partition, bucket, total, DataIncrement(deleted_files=tuple(files)))
        for (partition, bucket), files in grouped.items()
    ]


def compute_rewritten_rows(file: FileRows, changes: Sequence[RowChange | None]) -> list[Row]:
    """Rule 4: a touched file's rows after the changes, in file order."""
    rows = []
    for (_, row), change in zip(file.rows, changes, strict=True):
        if change is None:
            rows.append(row)
        elif change.change is Change.UPDATE:
            rows.append(change.row)
    return rows


def compute_copy_on_write_messages(
    ctx: RewriteContext,
    snapshot: Snapshot | None,
    files: FileChanges,
    touched: Sequence[bool],
    inserts: Sequence[Row],
) -> list[CommitMessage]:
    """Rule 4."""
    rewritten = [file for (file, _), hit in zip(files, touched, strict=True) if hit]
    rows = [
        row
        for (file, changes), hit in zip(files, touched, strict=True)
        if hit
        for row in compute_rewritten_rows(file, changes)
    ]
    written = write_new_rows(ctx, snapshot, [*rows, *inserts])
    return written + compute_deleted_file_messages(ctx, rewritten)


def compute_changed_vectors(
    files: FileChanges,
) -> dict[tuple[bytes, int], dict[str, frozenset[int]]]:
    """Rule 5: each changed file's new vector (old positions plus changed rows), by bucket."""
    changed: dict[tuple[bytes, int], dict[str, frozenset[int]]] = {}
    for file, changes in files:
        positions = {pos for (pos, _), c in zip(file.rows, changes, strict=True) if c is not None}
        if not positions:
            continue
        old = file.bucket.vectors.get(file.meta.file_name, frozenset())
        key = (file.bucket.partition_bytes, file.bucket.bucket)
        changed.setdefault(key, {})[file.meta.file_name] = old | positions
    return changed


def compute_vector_messages(ctx: RewriteContext, files: FileChanges) -> list[CommitMessage]:
    """Rule 5's index files, one message per bucket."""
    buckets = {(f.bucket.partition_bytes, f.bucket.bucket): f.bucket for f, _ in files}
    writer = create_context_index_writer(ctx)
    total = compute_total_buckets(ctx.job.schema)
    messages = []
    for key, vectors in compute_changed_vectors(files).items():
        bucket = buckets[key]
        index = compute_vector_increment(ctx.options, bucket, dict(vectors), writer)
        messages.append(CommitMessage(bucket.partition_bytes, bucket.bucket, total, index=index))
    return messages


def compute_deletion_vector_messages(
    ctx: RewriteContext, snapshot: Snapshot | None, files: FileChanges, inserts: Sequence[Row]
) -> list[CommitMessage]:
    """Rule 5."""
    updated = [
        change.row
        for _, changes in files
        for change in changes
        if change is not None and change.change is Change.UPDATE
    ]
    return write_new_rows(ctx, snapshot, [*updated, *inserts]) + compute_vector_messages(ctx, files)


def commit_messages(
    file_io: FileIO, table_root: str, messages: Sequence[CommitMessage], commit_user: str | None
) -> list[Snapshot]:
    """A batch commit; nothing when there is nothing (rule 10)."""
    if not messages:
        return []
    return store_commit.commit_batch(file_io, table_root, messages, commit_user=commit_user)


def apply_append_changes(
    ctx: RewriteContext,
    snapshot: Snapshot | None,
    files: FileChanges,
    *,
    touched: Sequence[bool],
    inserts: Sequence[Row] = (),
    commit_user: str | None = None,
) -> list[Snapshot]:
    """Rule 4 or 5, then commit."""
    if ctx.options.deletion_vectors:
        messages = compute_deletion_vector_messages(ctx, snapshot, files, inserts)
    else:
        messages = compute_copy_on_write_messages(ctx, snapshot, files, touched, inserts)
    return commit_messages(ctx.job.file_io, ctx.job.table_root, messages, commit_user)


def compute_touched(files: FileChanges) -> list[bool]:
    """A file is touched when one of its rows changes (DELETE and UPDATE)."""
    return [any(change is not None for change in changes) for _, changes in files]


# --------------------------------------------------------------------------------------------
# Overwrites (rules 1 and 2)
# --------------------------------------------------------------------------------------------


def commit_overwrite(
    file_io: FileIO,
    table_root: str,
    scope: store_commit.OverwriteScope,
    commit_user: str | None,
) -> list[Snapshot]:
    """One OVERWRITE snapshot deleting what ``scope`` covers and adding nothing."""
    schema = metadata.read_latest_schema(file_io, table_root)
    nothing = store_commit.SnapshotChanges(CommitKind.APPEND)
    snapshot = store_commit.commit_snapshot(
        file_io,
        table_root,
        store_commit.provide_overwrite_changes(file_io, table_root, scope, nothing),
        commit_user=commit_user or str(uuid.uuid4()),
        commit_identifier=BATCH_COMMIT_IDENTIFIER,
        namer=store_commit.MetaFileNamer(),
        field_set=DEFAULT_FIELD_SET,
        policy=store_commit.compute_retry_policy(schema.core_options),
    )
    return [snapshot]


def is_partition_only(predicate: Predicate, schema: TableSchema) -> bool:
    """Rule 2's condition."""
    keys = set(schema.partition_keys)
    force_changelog = bool(schema.core_options.get("delete.force-produce-changelog"))
    return bool(keys) and compute_fields(predicate) <= keys and not force_changelog


def compute_matching_partitions(
    file_io: FileIO, table_root: str, schema: TableSchema, predicate: Predicate
) -> frozenset[bytes]:
    """The partitions (serialized) of live files whose values match ``predicate``."""
    snapshot = metadata.read_latest_snapshot(file_io, table_root)
    fields = schema.partition_type.fields
    types = {f.name: f.type for f in fields}
    found = set()
    for entry in read_live_entries(file_io, table_root, snapshot):
        values = deserialize_binary_row(entry.partition, [f.type for f in fields])
        named = dict(zip([f.name for f in fields], values, strict=True))
        if is_row_matching(predicate, named, types):
            found.add(entry.partition)
    return frozenset(found)


def drop_partitions(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    predicate: Predicate,
    commit_user: str | None,
) -> list[Snapshot]:
    """Rule 2."""
    partitions = compute_matching_partitions(file_io, table_root, schema, predicate)
    if not partitions:
        return []
    scope = store_commit.OverwriteScope(partitions=partitions)
    return commit_overwrite(file_io, table_root, scope, commit_user)


# --------------------------------------------------------------------------------------------
# Primary-key tables (rule 6)
# --------------------------------------------------------------------------------------------


def read_current_rows(
    file_io: FileIO, table_root: str, predicate: Predicate | None = None
) -> list[Row]:
    return [row for _, row in read_table(file_io, table_root, predicate=predicate).rows]


def write_changes(
    file_io: FileIO,
    table_root: str,
    changes: Sequence[tuple[RowKind, Row]],
    commit_user: str | None,
) -> list[Snapshot]:
    """Rule 6: the changes through the batch writer and its compaction."""
    if not changes:
        return []
    schema = metadata.read_latest_schema(file_io, table_root)
    snapshot = metadata.read_latest_snapshot(file_io, table_root)
    rows = [row for _, row in changes]
    kinds = [kind for kind, _ in changes]
    messages = write_batch(file_io, table_root, schema, snapshot, rows, kinds)
    messages = compact_after_write(file_io, table_root, messages)
    return commit_messages(file_io, table_root, messages, commit_user)


def check_no_key_assignment(assignments: Assignments, schema: TableSchema) -> None:
    assigned = sorted(set(assignments) & set(schema.primary_keys))
    if assigned:
        raise SpecViolation(
            f"UPDATE cannot assign primary-key columns {assigned}", code="DML_UPDATE_KEY"
        )


def compute_primary_key_changes(
    targets: Sequence[Row], changes: Sequence[RowChange | None]
) -> list[tuple[RowKind, Row]]:
    found = []
    for target, change in zip(targets, changes, strict=True):
        if change is None:
            continue
        if change.change is Change.DELETE:
            found.append((RowKind.DELETE, target))
        else:
            found.append((RowKind.UPDATE_AFTER, change.row))
    return found


# --------------------------------------------------------------------------------------------
# The commands
# --------------------------------------------------------------------------------------------


def delete_rows(
    file_io: FileIO,
    table_root: str,
    predicate: Predicate | None,
    *,
    commit_user: str | None = None,
    naming: FileNaming | None = None,
) -> list[Snapshot]:
    """``DELETE FROM table [WHERE predicate]`` (rules 1-6, 10); returns the new snapshots."""
    schema = metadata.read_latest_schema(file_io, table_root)
    if predicate is None:
        return commit_overwrite(file_io, table_root, store_commit.OverwriteScope(), commit_user)
    if is_partition_only(predicate, schema):
        return drop_partitions(file_io, table_root, schema, predicate, commit_user)
    if schema.is_primary_key_table:
        if schema.core_options.merge_engine is not MergeEngine.DEDUPLICATE:
            raise UnsupportedFeature("DELETE on a primary-key table needs the deduplicate engine")
        targets = read_current_rows(file_io, table_root, predicate)
        return write_changes(
            file_io, table_root, [(RowKind.DELETE, r) for r in targets], commit_user
        )
    ctx = create_rewrite_context(create_job_context(file_io, table_root, schema, naming))
    snapshot = metadata.read_latest_snapshot(file_io, table_root)
    files = [
        (file, [compute_delete_change(row, predicate, schema) for _, row in file.rows])
        for file in read_candidates(ctx, snapshot, predicate)
    ]
    return apply_append_changes(
        ctx, snapshot, files, touched=compute_touched(files), commit_user=commit_user
    )


def update_rows(
    file_io: FileIO,
    table_root: str,
    predicate: Predicate | None,
    assignments: Assignments,
    *,
    commit_user: str | None = None,
    naming: FileNaming | None = None,
) -> list[Snapshot]:
    """``UPDATE table SET ... [WHERE predicate]`` (rules 3-7, 10)."""
    schema = metadata.read_latest_schema(file_io, table_root)
    if schema.is_primary_key_table:
        check_no_key_assignment(assignments, schema)
        targets = read_current_rows(file_io, table_root, predicate)
        changes = [
            (RowKind.UPDATE_AFTER, apply_assignments(r, assignments, schema)) for r in targets
        ]
        return write_changes(file_io, table_root, changes, commit_user)
    ctx = create_rewrite_context(create_job_context(file_io, table_root, schema, naming))
    snapshot = metadata.read_latest_snapshot(file_io, table_root)
    files = [
        (file, [compute_update_change(row, predicate, assignments, schema) for _, row in file.rows])
        for file in read_candidates(ctx, snapshot, predicate)
    ]
    return apply_append_changes(
        ctx, snapshot, files, touched=compute_touched(files), commit_user=commit_user
    )


def split_merge_result(
    files: Sequence[FileRows], result: MergeResult
) -> tuple[list[tuple[FileRows, list[RowChange | None]]], list[list[bool]]]:
    """Per file: the changes of its rows and whether each matched."""
    changes: list[tuple[FileRows, list[RowChange | None]]] = []
    matched: list[list[bool]] = []
    start = 0
    for file in files:
        end = start + len(file.rows)
        changes.append((file, list(result.changes[start:end])))
        matched.append(list(result.matched[start:end]))
        start = end
    return changes, matched


def merge_into(
    file_io: FileIO,
    table_root: str,
    statement: MergeStatement,
    *,
    commit_user: str | None = None,
    naming: FileNaming | None = None,
) -> list[Snapshot]:
    """``MERGE INTO table USING source ON ... WHEN ...`` (rules 3-6, 8-10)."""
    schema = metadata.read_latest_schema(file_io, table_root)
    if schema.is_primary_key_table:
        targets = read_current_rows(file_io, table_root, statement.target_condition)
        result = compute_merge(targets, statement)
        changes = compute_primary_key_changes(targets, result.changes)
        changes += [(RowKind.INSERT, row) for row in result.inserts]
        return write_changes(file_io, table_root, changes, commit_user)
    ctx = create_rewrite_context(create_job_context(file_io, table_root, schema, naming))
    snapshot = metadata.read_latest_snapshot(file_io, table_root)
    candidates = read_candidates(ctx, snapshot, statement.target_condition)
    targets = [row for file in candidates for _, row in file.rows]
    result = compute_merge(targets, statement)
    files, matched = split_merge_result(candidates, result)
    touched = [is_file_touched_by_merge(m, statement) for m in matched]
    return apply_append_changes(
        ctx, snapshot, files, touched=touched, inserts=result.inserts, commit_user=commit_user
    )
