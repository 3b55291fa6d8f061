"""Branches: a second line of snapshots over the same data files.

Spec: ``docs/maintenance/manage-branches.mdx``; the layout in ``reference.layout``.
Java: ``utils/BranchManager`` (0.9.0), ``utils/FileSystemBranchManager`` (main).

Rules:

1. A branch lives in ``<root>/branch/branch-<name>/`` with its own ``schema/``, ``snapshot/``,
   ``tag/`` and ``consumer/`` directories; manifests, index files and data files stay under
   the table root and are shared with every other branch. A branch exists once its directory
   does.
2. A branch name is not ``main``, not blank and not made of digits only.
3. An empty branch starts with copies of main's schema files up to the latest one and no
   snapshot. A branch created from a tag starts with a copy of the tag file in its ``tag/``,
   the tagged snapshot as ``snapshot/snapshot-<id>`` (written from the tag when that snapshot
   has expired on main, as main does; 0.9.0 copies the snapshot file and fails then) and
   main's schema files up to the tagged snapshot's schema (main copies them all so that files
   written with older schemas can be read; 0.9.0 copies only the snapshot's schema file).
4. Reads, writes and commits on a branch use the branch's schema and snapshot directories
   (``branch=`` of ``reference.store.metadata``, ``commit`` and ``query``). Commits on a branch
   number their snapshots on from the branch's latest one.
5. Deleting a branch deletes its directory only; data it alone wrote becomes orphaned (removed
   by ``reference.store.orphans``), as in Java.
6. Fast-forward makes main equal to a branch: main's snapshots and tags with an id at or above
   the branch's earliest snapshot, and main's schemas with an id at or above that snapshot's
   schema, are deleted (and main's LATEST hint), then the branch's snapshot, schema and tag
   files are copied into main's directories.
"""

from __future__ import annotations

from reference import layout
from reference.errors import SnapshotNotFoundError, SpecViolation, TableNotFoundError
from reference.io import FileIO
from reference.spec.snapshot import encode_snapshot
from reference.store import metadata

HIDDEN_PREFIX = "."


def list_branches(file_io: FileIO, table_root: str) -> list[str]:
    """Names of the branches other than main, sorted."""
    directory = layout.branch_dir(table_root)
    if not file_io.exists(directory):
        return []
    names = (layout.parse_branch_name(name) for name in file_io.list_dir(directory))
    return sorted(name for name in names if name is not None)


def list_all_branches(file_io: FileIO, table_root: str) -> list[str]:
    """``main`` followed by every other branch."""
    return [layout.MAIN_BRANCH, *list_branches(file_io, table_root)]


def is_branch_existing(file_io: FileIO, table_root: str, branch: str) -> bool:
    if branch == layout.MAIN_BRANCH:
        return True
    return file_io.exists(layout.branch_path(table_root, branch))


def validate_branch_name(name: str) -> None:
    """Rule 2."""
    if name == layout.MAIN_BRANCH:
        raise SpecViolation("'main' is the default branch and cannot be created", code="BRANCH")
    if layout.is_blank(name):
        raise SpecViolation(f"branch name {name!r} is blank", code="BRANCH")
    if name.isascii() and name.isdigit():
        raise SpecViolation(f"branch name {name!r} is only digits", code="BRANCH")


def require_branch(file_io: FileIO, table_root: str, branch: str) -> None:
    if not is_branch_existing(file_io, table_root, branch):
        raise TableNotFoundError(f"branch '{branch}' does not exist", path=table_root)


def copy_file(file_io: FileIO, source: str, target: str) -> None:
    file_io.write_bytes(target, file_io.read_bytes(source))


def copy_schemas(file_io: FileIO, table_root: str, branch: str, up_to: int) -> None:
    """Copy main's schema files with ids up to ``up_to`` into the branch (rule 3)."""
    for schema_id in metadata.list_schema_ids(file_io, table_root):
        if schema_id <= up_to:
            copy_file(
                file_io,
                layout.schema_path(table_root, schema_id),
                layout.schema_path(table_root, schema_id, branch),
            )


def create_branch(
    file_io: FileIO, table_root: str, name: str, *, from_tag: str | None = None
) -> None:
    """Rules 1-3: create branch ``name``, empty or from the tag ``from_tag`` of main."""
    validate_branch_name(name)
    if is_branch_existing(file_io, table_root, name):
        raise SpecViolation(f"branch '{name}' already exists", code="BRANCH")
    if from_tag is None:
        copy_schemas(file_io, table_root, name, metadata.read_latest_schema(file_io, table_root).id)
        return
    snapshot = metadata.read_tag(file_io, table_root, from_tag).snapshot
    copy_file(
        file_io, layout.tag_path(table_root, from_tag), layout.tag_path(table_root, from_tag, name)
    )
    target = layout.snapshot_path(table_root, snapshot.id, name)
    if metadata.has_snapshot(file_io, table_root, snapshot.id):
        copy_file(file_io, layout.snapshot_path(table_root, snapshot.id), target)
    else:
        file_io.write_bytes(target, encode_snapshot(snapshot).encode())
    copy_schemas(file_io, table_root, name, snapshot.schema_id)


def delete_branch(file_io: FileIO, table_root: str, name: str) -> None:
    """Rule 5."""
    validate_branch_name(name)
    require_branch(file_io, table_root, name)
    file_io.delete_dir(layout.branch_path(table_root, name))


def fast_forward(file_io: FileIO, table_root: str, name: str) -> None:
    """Rule 6: make main's snapshots, schemas and tags those of branch ``name``."""
    validate_branch_name(name)
    require_branch(file_io, table_root, name)
    earliest = metadata.find_earliest_snapshot_id(file_io, table_root, name)
    if earliest is None:
        raise SnapshotNotFoundError(f"branch '{name}' has no snapshot to fast-forward to")
    first_schema = metadata.read_snapshot(file_io, table_root, earliest, name).schema_id
    snapshot_dir = layout.snapshot_dir(table_root)
    file_io.delete(layout.hint_path(snapshot_dir, layout.HintFile.LATEST))
    for snapshot_id in metadata.list_snapshot_ids(file_io, table_root):
        if snapshot_id >= earliest:
            file_io.delete(layout.snapshot_path(table_root, snapshot_id))
    for schema_id in metadata.list_schema_ids(file_io, table_root):
        if schema_id >= first_schema:
            file_io.delete(layout.schema_path(table_root, schema_id))
    for tag_name in metadata.list_tag_names(file_io, table_root):
        if metadata.read_tag(file_io, table_root, tag_name).snapshot.id >= earliest:
            file_io.delete(layout.tag_path(table_root, tag_name))
    for directory in (layout.SNAPSHOT_DIR, layout.SCHEMA_DIR, layout.TAG_DIR):
        copy_directory(
            file_io,
            layout.join(layout.branch_path(table_root, name), directory),
            layout.join(table_root, directory),
        )


def copy_directory(file_io: FileIO, source: str, target: str) -> None:
    """Copy the files directly in ``source`` into ``target`` (overwriting); hidden names
    (temporary files of unfinished writes) are skipped."""
    for file_name in file_io.list_dir(source):
        if not file_name.startswith(HIDDEN_PREFIX):
            copy_file(file_io, layout.join(source, file_name), layout.join(target, file_name))
