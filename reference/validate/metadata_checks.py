"""Checks of a table's JSON metadata: schemas, snapshots, hints, tags, branches and consumers.

Spec: ``docs/concepts/spec/schema.md``, ``snapshot.md``. Java: ``schema/SchemaManager``,
``utils/SnapshotManager``, ``utils/HintFileUtils``, ``utils/TagManager``,
``utils/BranchManager``, ``consumer/ConsumerManager``, ``operation/FileStoreCommitImpl``.

Rules checked here:

1. Schema ids are contiguous from 0. Java gives a new schema the latest id plus one, creates
   schema 0 with the table, and deletes schemas only from the top (a failed Hive alter, a schema
   rollback, a branch fast-forward that then copies the branch's schemas back), so a hole means a
   schema file was lost. Each schema file parses, holds the id of its name, and passes the
   schema rules (``reference.spec.schema.validate_schema``).
2. Snapshot ids are contiguous between the earliest and the latest (expiration removes the
   oldest ones only). Each snapshot parses, holds the id of its name and names an existing
   schema.
3. ``EARLIEST`` and ``LATEST`` name the earliest and latest snapshot. They are hints: readers
   that find them wrong list the directory instead, so a wrong hint is a warning.
4. ``totalRecordCount`` of snapshot ``n`` is that of ``n - 1`` plus ``deltaRecordCount`` of
   ``n`` (Java adds the previous total to the delta, compactions included).
5. A tag holds a copy of a snapshot: it names a snapshot id that existed (at most the latest)
   and, while that snapshot file exists, equals it. A branch starts with copied schemas.
6. A consumer's next snapshot is at most the latest + 1 (it has read everything); below the
   earliest means expiration overtook it (a warning).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Generic, TypeVar

from reference import layout
from reference.errors import FileMissingError, SnapshotNotFoundError, TableNotFoundError
from reference.io import FileIO
from reference.spec.schema import TableSchema, validate_schema
from reference.spec.snapshot import Snapshot, Tag, decode_hint
from reference.store import metadata
from reference.validate import report as r
from reference.validate.guard import run_check, run_read, violation_from_error

MAX_LISTED_IDS = 10
T = TypeVar("T")


def snapshot_violation(
    rule: r.Rule, table_root: str, snapshot_id: int, branch: str, reason: str
) -> r.Violation:
    """A finding on the file of snapshot ``snapshot_id`` of ``branch``."""
    file = r.relative_file(table_root, layout.snapshot_path(table_root, snapshot_id, branch))
    return r.violation(rule, file, reason, snapshot_id)


def compute_missing_ids(ids: Sequence[int], first: int) -> list[int]:
    """The ids in ``[first, max(ids)]`` that ``ids`` lacks."""
    if not ids:
        return []
    present = set(ids)
    return [i for i in range(first, max(ids) + 1) if i not in present]


def describe_ids(ids: Sequence[int]) -> str:
    """``3, 4, 7`` (at most :data:`MAX_LISTED_IDS`, then ``… (12 in all)``)."""
    text = ", ".join(str(i) for i in ids[:MAX_LISTED_IDS])
    return text if len(ids) <= MAX_LISTED_IDS else f"{text}, … ({len(ids)} in all)"


# --------------------------------------------------------------------------------------------
# Schemas (rule 1)
# --------------------------------------------------------------------------------------------


def _read_schema(
    file_io: FileIO, table_root: str, schema_id: int, branch: str
) -> tuple[TableSchema | None, list[r.Violation]]:
    path = layout.schema_path(table_root, schema_id, branch)
    file = r.relative_file(table_root, path)
    try:
        return metadata.read_schema(file_io, table_root, schema_id, branch), []
    except TableNotFoundError as error:
        return None, [r.violation(r.Rule.SCHEMA_ID_MISMATCH, file, error.reason)]
    except Exception as error:
        return None, [violation_from_error(error, r.Rule.SCHEMA_UNREADABLE, file)]


def _check_schema_rules(schema: TableSchema, file: str) -> list[r.Violation]:
    def check() -> list[r.Violation]:
        validate_schema(schema)
        return []

    return run_check(check, r.Rule.SCHEMA_INVALID, file)


def read_schemas(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> tuple[dict[int, TableSchema], list[r.Violation]]:
    """Every schema that parses, by id, and the findings of rule 1."""
    directory = r.relative_file(table_root, layout.schema_dir(table_root, branch))
    ids = metadata.list_schema_ids(file_io, table_root, branch)
    if not ids:
        return {}, [r.violation(r.Rule.SCHEMA_MISSING, directory, "no schema-<id> file")]
    found: list[r.Violation] = []
    missing = compute_missing_ids(ids, 0)
    if missing:
        found.append(
            r.violation(
                r.Rule.SCHEMA_ID_GAP, directory, f"schema ids missing: {describe_ids(missing)}"
            )
        )
    schemas: dict[int, TableSchema] = {}
    for schema_id in ids:
        schema, problems = _read_schema(file_io, table_root, schema_id, branch)
        found.extend(problems)
        if schema is not None:
            schemas[schema_id] = schema
            file = r.relative_file(table_root, layout.schema_path(table_root, schema_id, branch))
            found.extend(_check_schema_rules(schema, file))
    return schemas, found


# --------------------------------------------------------------------------------------------
# Snapshots (rule 2)
# --------------------------------------------------------------------------------------------


def _read_snapshot(
    file_io: FileIO, table_root: str, snapshot_id: int, branch: str
) -> tuple[Snapshot | None, list[r.Violation]]:
    file = r.relative_file(table_root, layout.snapshot_path(table_root, snapshot_id, branch))
    try:
        return metadata.read_snapshot(file_io, table_root, snapshot_id, branch), []
    except SnapshotNotFoundError as error:
        rule = (
            r.Rule.SNAPSHOT_ID_MISMATCH
            if "holds id" in error.reason
            else r.Rule.SNAPSHOT_UNREADABLE
        )
        return None, [r.violation(rule, file, error.reason, snapshot_id)]
    except Exception as error:
        return None, [violation_from_error(error, r.Rule.SNAPSHOT_UNREADABLE, file, snapshot_id)]


def read_snapshots(
    file_io: FileIO,
    table_root: str,
    schemas: Mapping[int, TableSchema],
    branch: str = layout.MAIN_BRANCH,
) -> tuple[list[int], dict[int, Snapshot], list[r.Violation]]:
    """The listed snapshot ids, the snapshots that parse, and the findings of rule 2."""
    directory = r.relative_file(table_root, layout.snapshot_dir(table_root, branch))
    ids = metadata.list_snapshot_ids(file_io, table_root, branch)
    found: list[r.Violation] = []
    missing = compute_missing_ids(ids, ids[0]) if ids else []
    if missing:
        found.append(
            r.violation(
                r.Rule.SNAPSHOT_ID_GAP,
                directory,
                f"snapshots {ids[0]}..{ids[-1]} lack ids {describe_ids(missing)}",
            )
        )
    snapshots: dict[int, Snapshot] = {}
    for snapshot_id in ids:
        snapshot, problems = _read_snapshot(file_io, table_root, snapshot_id, branch)
        found.extend(problems)
        if snapshot is None:
            continue
        snapshots[snapshot_id] = snapshot
        if snapshot.schema_id not in schemas:
            reason = f"schemaId {snapshot.schema_id} has no schema file"
            found.append(
                snapshot_violation(
                    r.Rule.SNAPSHOT_SCHEMA_MISSING, table_root, snapshot_id, branch, reason
                )
            )
    return ids, snapshots, found


# --------------------------------------------------------------------------------------------
# Hints (rule 3)
# --------------------------------------------------------------------------------------------


def _check_hint(
    file_io: FileIO, table_root: str, branch: str, hint: layout.HintFile, expected: int | None
) -> list[r.Violation]:
    path = layout.hint_path(layout.snapshot_dir(table_root, branch), hint)
    file = r.relative_file(table_root, path)
    try:
        data = file_io.read_bytes(path)
    except FileMissingError:
        return []
    value = decode_hint(data)
    if value is None:
        return [r.violation(r.Rule.HINT_WRONG, file, f"{hint.value} does not hold a snapshot id")]
    if expected is None:
        return [r.violation(r.Rule.HINT_WRONG, file, f"{hint.value} says {value}, there is none")]
    if value != expected:
        return [
            r.violation(
                r.Rule.HINT_WRONG, file, f"{hint.value} says {value}, the snapshot is {expected}"
            )
        ]
    return []


def check_hints(
    file_io: FileIO, table_root: str, snapshot_ids: Sequence[int], branch: str = layout.MAIN_BRANCH
) -> list[r.Violation]:
    """Rule 3 (warnings): hints against the listed snapshot ids."""
    earliest = min(snapshot_ids) if snapshot_ids else None
    latest = max(snapshot_ids) if snapshot_ids else None
    return [
        *_check_hint(file_io, table_root, branch, layout.HintFile.EARLIEST, earliest),
        *_check_hint(file_io, table_root, branch, layout.HintFile.LATEST, latest),
    ]


# --------------------------------------------------------------------------------------------
# Record counts (rule 4)
# --------------------------------------------------------------------------------------------


def check_record_count_chain(
    table_root: str, snapshots: Mapping[int, Snapshot], branch: str = layout.MAIN_BRANCH
) -> list[r.Violation]:
    """Rule 4 for each pair of consecutive snapshots that both carry counts."""
    found: list[r.Violation] = []
    for snapshot_id in sorted(snapshots):
        current = snapshots[snapshot_id]
        previous = snapshots.get(snapshot_id - 1)
        if (
            previous is None
            or previous.total_record_count is None
            or current.total_record_count is None
            or current.delta_record_count is None
        ):
            continue
        expected = previous.total_record_count + current.delta_record_count
        if current.total_record_count != expected:
            reason = (
                f"totalRecordCount {current.total_record_count} != previous total "
                f"{previous.total_record_count} + deltaRecordCount {current.delta_record_count}"
            )
            found.append(
                snapshot_violation(
                    r.Rule.SNAPSHOT_TOTAL_RECORD_COUNT, table_root, snapshot_id, branch, reason
                )
            )
    return found


# --------------------------------------------------------------------------------------------
# Tags, branches, consumers (rules 5 and 6)
# --------------------------------------------------------------------------------------------


def is_same_snapshot(left: Snapshot, right: Snapshot) -> bool:
    """Whether a tag's snapshot and a snapshot file describe the same commit."""
    return (
        left.id == right.id
        and left.schema_id == right.schema_id
        and left.base_manifest_list == right.base_manifest_list
        and left.delta_manifest_list == right.delta_manifest_list
        and left.changelog_manifest_list == right.changelog_manifest_list
        and left.index_manifest == right.index_manifest
        and left.time_millis == right.time_millis
    )


@dataclass(frozen=True)
class NamedFiles(Generic[T]):
    """One kind of named metadata file of a branch (tags, consumers): how to list the names,
    where a name's file is, how to read it, and the rule a file that does not parse breaks."""

    list_names: Callable[[FileIO, str, str], Sequence[str]]
    path_of: Callable[[str, str, str], str]
    read: Callable[[FileIO, str, str, str], T]
    unreadable: r.Rule


TAG_FILES = NamedFiles(
    metadata.list_tag_names, layout.tag_path, metadata.read_tag, r.Rule.TAG_UNREADABLE
)
CONSUMER_FILES = NamedFiles(
    metadata.list_consumer_ids,
    layout.consumer_path,
    metadata.read_consumer,
    r.Rule.CONSUMER_UNREADABLE,
)


def read_named_files(
    file_io: FileIO, table_root: str, branch: str, kind: NamedFiles[T]
) -> tuple[list[tuple[str, str, T]], list[r.Violation]]:
    """``(name, file, value)`` of each file of ``kind`` that parses (``file`` relative to the
    table root), and a finding for each that does not."""
    parsed: list[tuple[str, str, T]] = []
    found: list[r.Violation] = []
    for name in kind.list_names(file_io, table_root, branch):
        file = r.relative_file(table_root, kind.path_of(table_root, name, branch))
        read = partial(kind.read, file_io, table_root, name, branch)
        value, problems = run_read(read, kind.unreadable, file)
        found.extend(problems)
        if value is not None:
            parsed.append((name, file, value))
    return parsed, found


def read_tags(
    file_io: FileIO,
    table_root: str,
    snapshot_ids: Sequence[int],
    snapshots: Mapping[int, Snapshot],
    branch: str = layout.MAIN_BRANCH,
) -> tuple[dict[str, Tag], list[r.Violation]]:
    """Every tag that parses, and the findings of rule 5 that need no manifest."""
    latest = max(snapshot_ids) if snapshot_ids else 0
    tags: dict[str, Tag] = {}
    parsed, found = read_named_files(file_io, table_root, branch, TAG_FILES)
    for name, file, tag in parsed:
        tags[name] = tag
        tagged = tag.snapshot
        if tagged.id > latest:
            found.append(
                r.violation(
                    r.Rule.TAG_DANGLING,
                    file,
                    f"tag '{name}' names snapshot {tagged.id}, beyond the latest ({latest})",
                )
            )
        elif tagged.id in snapshots and not is_same_snapshot(tagged, snapshots[tagged.id]):
            found.append(
                r.violation(
                    r.Rule.TAG_SNAPSHOT_MISMATCH,
                    file,
                    f"tag '{name}' differs from snapshot-{tagged.id} (manifest lists, schema "
                    "or commit time)",
                )
            )
    return tags, found


def check_consumers(
    file_io: FileIO,
    table_root: str,
    snapshot_ids: Sequence[int],
    branch: str = layout.MAIN_BRANCH,
) -> list[r.Violation]:
    """Rule 6."""
    earliest = min(snapshot_ids) if snapshot_ids else 1
    latest = max(snapshot_ids) if snapshot_ids else 0
    parsed, found = read_named_files(file_io, table_root, branch, CONSUMER_FILES)
    for consumer_id, file, consumer in parsed:
        if consumer.next_snapshot > latest + 1:
            found.append(
                r.violation(
                    r.Rule.CONSUMER_AHEAD,
                    file,
                    f"consumer '{consumer_id}' expects snapshot {consumer.next_snapshot}, "
                    f"the latest is {latest}",
                )
            )
        elif consumer.next_snapshot < earliest:
            found.append(
                r.violation(
                    r.Rule.CONSUMER_EXPIRED,
                    file,
                    f"consumer '{consumer_id}' expects snapshot {consumer.next_snapshot}, "
                    f"the earliest left is {earliest}",
                )
            )
    return found
