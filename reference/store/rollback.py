"""Rollback: making an earlier snapshot (or a tag) the latest again.

Spec: ``docs/maintenance/manage-snapshots.mdx`` ("Rollback to Snapshot"),
``manage-tags.mdx`` ("Rollback to Tag"). Java (0.9.0): ``table/RollbackHelper``,
``AbstractFileStoreTable.rollbackTo``.

Rules:

1. Rolling a branch back to snapshot ``S`` needs ``S`` to exist. It removes every snapshot,
   long-lived changelog and tag of the branch with an id above ``S``, then the files only they
   used (``reference.store.usage`` rule 4), then points the LATEST hint at ``S``.
2. Order: first the removed snapshot files (newest first, so a crash leaves a contiguous
   range of snapshots), then the removed changelog and tag files, then their data and
   changelog files, then their meta files; last the hint.
3. Rolling back to tag ``T`` does the same for the tagged snapshot's id. When that snapshot
   has expired (so every snapshot is removed), the tagged snapshot is written back as
   ``snapshot/snapshot-<id>`` and both hints point at it. Java writes the tag file's text
   there (a snapshot reader ignores the two tag members); we write the snapshot's JSON.
4. The next commit on the branch creates snapshot ``S + 1`` again.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference import layout
from reference.errors import SnapshotNotFoundError
from reference.io import FileIO
from reference.spec.snapshot import Snapshot, encode_snapshot
from reference.store import metadata, usage
from reference.store.expire import write_hint


def compute_own_path(table_root: str, holder: usage.Holder) -> str:
    if holder.kind is usage.HolderKind.SNAPSHOT:
        return layout.snapshot_path(table_root, int(holder.name), holder.branch)
    if holder.kind is usage.HolderKind.CHANGELOG:
        return layout.changelog_path(table_root, int(holder.name), holder.branch)
    return layout.tag_path(table_root, holder.name, holder.branch)


def compute_removed(
    holders: Sequence[usage.Holder], branch: str, snapshot_id: int
) -> list[usage.Holder]:
    """Rules 1 and 2: the branch's holders above ``snapshot_id``, snapshots newest first, then
    changelogs newest first, then tags."""
    above = [h for h in holders if h.branch == branch and h.snapshot.id > snapshot_id]
    order = [usage.HolderKind.SNAPSHOT, usage.HolderKind.CHANGELOG, usage.HolderKind.TAG]
    return sorted(above, key=lambda h: (order.index(h.kind), -h.snapshot.id, h.name))


def roll_back_above(file_io: FileIO, table_root: str, branch: str, snapshot_id: int) -> list[str]:
    holders = usage.read_branch_holders(file_io, table_root, branch)
    removed = compute_removed(holders, branch, snapshot_id)
    pairs = [(holder, compute_own_path(table_root, holder)) for holder in removed]
    return usage.delete_holders(file_io, table_root, pairs, own_file_first=True)


def rollback_to_snapshot(
    file_io: FileIO, table_root: str, snapshot_id: int, *, branch: str = layout.MAIN_BRANCH
) -> list[str]:
    """Rules 1 and 2; returns the deleted paths."""
    if not metadata.has_snapshot(file_io, table_root, snapshot_id, branch):
        raise SnapshotNotFoundError(f"snapshot {snapshot_id} does not exist", path=table_root)
    deleted = roll_back_above(file_io, table_root, branch, snapshot_id)
    directory = layout.snapshot_dir(table_root, branch)
    write_hint(file_io, directory, layout.HintFile.LATEST, snapshot_id)
    return deleted


def restore_snapshot(file_io: FileIO, table_root: str, branch: str, snapshot: Snapshot) -> None:
    """Rule 3: write an expired tagged snapshot back."""
    path = layout.snapshot_path(table_root, snapshot.id, branch)
    file_io.write_bytes(path, encode_snapshot(snapshot).encode("utf-8"))
    directory = layout.snapshot_dir(table_root, branch)
    write_hint(file_io, directory, layout.HintFile.EARLIEST, snapshot.id)


def rollback_to_tag(
    file_io: FileIO, table_root: str, tag_name: str, *, branch: str = layout.MAIN_BRANCH
) -> list[str]:
    """Rule 3; returns the deleted paths."""
    snapshot = metadata.read_tag(file_io, table_root, tag_name, branch).snapshot
    deleted = roll_back_above(file_io, table_root, branch, snapshot.id)
    if not metadata.has_snapshot(file_io, table_root, snapshot.id, branch):
        restore_snapshot(file_io, table_root, branch, snapshot)
    directory = layout.snapshot_dir(table_root, branch)
    write_hint(file_io, directory, layout.HintFile.LATEST, snapshot.id)
    return deleted
