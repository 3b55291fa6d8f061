"""What holds a table's files: the snapshots, long-lived changelogs and tags of every branch.

The procedures of :mod:`spark_impl.procedures` (tags, rollback, branches, orphan files) read
these holders and the files each uses. Rules (Java 0.9: ``utils/SnapshotManager``,
``utils/TagManager``, ``utils/BranchManager``, ``operation/FileDeletionBase``):

1. A branch other than ``main`` lives in ``branch/branch-<name>/`` with its own ``schema/``,
   ``snapshot/``, ``changelog/`` and ``tag/`` directories; manifests, index files and data files
   are shared under the table root (``reference.layout``).
2. A holder is a snapshot file, a changelog file (a snapshot kept past expiration for its
   changelog) or a tag file of some branch; each names one snapshot.
3. A snapshot or changelog uses its manifest lists, manifests, live data files (with extra
   files), changelog files, index manifest, index files and statistics file; a tag the same
   without the changelog (``spark_impl.expire.snapshot_usage``). A file may be deleted only
   when no remaining holder of any branch uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from reference import layout
from reference.errors import FileMissingError, TableNotFoundError, naming_file
from reference.io import FileIO
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import Snapshot, Tag, decode_snapshot, decode_tag
from spark_impl.expire import Usage, snapshot_usage


@dataclass(frozen=True)
class Holder:
    """Rule 2: one snapshot, changelog or tag file of a branch."""

    kind: str
    """The directory of its file: ``layout.SNAPSHOT_DIR``, ``CHANGELOG_DIR`` or ``TAG_DIR``."""
    branch: str
    name: str
    """The snapshot id (snapshots, changelogs) or the tag name."""
    snapshot: Snapshot
    path: str


def list_versions(file_io: FileIO, directory: str, parse: Callable[[str], int | None]) -> list[int]:
    """The ids of the versioned files of ``directory`` (hints and temporary files aside)."""
    ids = (parse(name) for name in file_io.list_dir(directory))
    return sorted(i for i in ids if i is not None)


def list_snapshot_ids(file_io: FileIO, table_root: str, branch: str) -> list[int]:
    return list_versions(file_io, layout.snapshot_dir(table_root, branch), layout.parse_snapshot_id)


def list_schema_ids(file_io: FileIO, table_root: str, branch: str) -> list[int]:
    return list_versions(file_io, layout.schema_dir(table_root, branch), layout.parse_schema_id)


def read_branch_schema(file_io: FileIO, table_root: str, branch: str) -> TableSchema:
    """The latest schema of ``branch`` (``TableNotFoundError`` naming the branch when none)."""
    ids = list_schema_ids(file_io, table_root, branch)
    if not ids:
        raise TableNotFoundError(f"branch '{branch}' has no schema", path=table_root)
    path = layout.schema_path(table_root, ids[-1], branch)
    with naming_file(path):
        return decode_schema(file_io.read_bytes(path))


def read_branch_snapshot(
    file_io: FileIO, table_root: str, snapshot_id: int, branch: str
) -> Snapshot:
    path = layout.snapshot_path(table_root, snapshot_id, branch)
    with naming_file(path):
        return decode_snapshot(file_io.read_bytes(path))


def list_tag_names(file_io: FileIO, table_root: str, branch: str) -> list[str]:
    names = (layout.parse_tag_name(n) for n in file_io.list_dir(layout.tag_dir(table_root, branch)))
    return sorted(n for n in names if n is not None)


def read_tag(file_io: FileIO, table_root: str, name: str, branch: str) -> Tag:
    """A tag file (``FileMissingError`` naming it when the tag does not exist)."""
    path = layout.tag_path(table_root, name, branch)
    with naming_file(path):
        return decode_tag(file_io.read_bytes(path))


def list_branches(file_io: FileIO, table_root: str) -> list[str]:
    """``main`` followed by the other branches (rule 1), sorted."""
    names = (layout.parse_branch_name(n) for n in file_io.list_dir(layout.branch_dir(table_root)))
    return [layout.MAIN_BRANCH, *sorted(n for n in names if n is not None)]


def read_branch_holders(file_io: FileIO, table_root: str, branch: str) -> list[Holder]:
    """Rule 2 for one branch: snapshots, changelogs, then tags."""
    holders = []
    for snapshot_id in list_snapshot_ids(file_io, table_root, branch):
        path = layout.snapshot_path(table_root, snapshot_id, branch)
        snapshot = read_branch_snapshot(file_io, table_root, snapshot_id, branch)
        holders.append(Holder(layout.SNAPSHOT_DIR, branch, str(snapshot_id), snapshot, path))
    changelog_dir = layout.changelog_dir(table_root, branch)
    for changelog_id in list_versions(file_io, changelog_dir, layout.parse_changelog_id):
        path = layout.changelog_path(table_root, changelog_id, branch)
        with naming_file(path):
            snapshot = decode_snapshot(file_io.read_bytes(path))
        holders.append(Holder(layout.CHANGELOG_DIR, branch, str(changelog_id), snapshot, path))
    for name in list_tag_names(file_io, table_root, branch):
        tag = read_tag(file_io, table_root, name, branch)
        path = layout.tag_path(table_root, name, branch)
        holders.append(Holder(layout.TAG_DIR, branch, name, tag.snapshot, path))
    return holders


def read_all_holders(file_io: FileIO, table_root: str) -> list[Holder]:
    """Rule 2 for every branch."""
    branches = list_branches(file_io, table_root)
    return [h for b in branches for h in read_branch_holders(file_io, table_root, b)]


def holder_usage(file_io: FileIO, table_root: str, schema: TableSchema, holder: Holder) -> Usage:
    """Rule 3 for one holder."""
    changelog = holder.kind != layout.TAG_DIR
    return snapshot_usage(file_io, table_root, schema, holder.snapshot, changelog)


def union_usage(
    file_io: FileIO, table_root: str, schema: TableSchema, holders: Iterable[Holder]
) -> Usage:
    """The files any of ``holders`` uses; a holder whose files are already gone (an earlier
    interrupted deletion) adds nothing."""
    data: set[str] = set()
    meta: set[str] = set()
    for holder in holders:
        try:
            usage = holder_usage(file_io, table_root, schema, holder)
        except FileMissingError:
            continue
        data |= usage.data
        meta |= usage.meta
    return Usage(frozenset(data), frozenset(meta))


def delete_unused(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    removed: Sequence[Holder],
    kept: Sequence[Holder],
) -> list[str]:
    """Rule 3: delete the holder files of ``removed`` (in order), then the data files and then
    the meta files only they used; returns every deleted path."""
    gone = union_usage(file_io, table_root, schema, removed)
    keep = union_usage(file_io, table_root, schema, kept)
    deleted = [h.path for h in removed if file_io.delete(h.path)]
    for path in sorted(gone.data - keep.data) + sorted(gone.meta - keep.meta):
        if file_io.delete(path):
            deleted.append(path)
    return deleted
