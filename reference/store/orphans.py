"""Orphan files: files in a table's directories that nothing uses any more.

Failed commits leave manifests and data files behind; interrupted expirations leave files of
snapshots already gone; deleted branches leave the data they wrote. Cleaning removes them.

Spec: ``docs/maintenance/manage-snapshots.mdx`` ("Remove Orphan Files").
Java (0.9.0): ``operation/OrphanFilesClean``, ``SnapshotManager.tryGetNonSnapshotFiles``.

Rules:

1. Candidates are the files in ``manifest/``, ``index/`` and ``statistics/``, the files in the
   bucket directories (``[<data-file.path-directory>/]<k>=<v>/.../bucket-<n>/``), and in the
   ``snapshot/`` and ``changelog/`` directories of every branch the files that are neither a
   snapshot (changelog) file nor a hint (e.g. the temporary files of an unfinished create).
2. A candidate is kept when its name is used: by any snapshot, tag or long-lived changelog of
   any branch (``reference.store.usage`` rules 1-3), or named by any entry of any manifest
   those list, live or not (Java is this cautious too). Names are compared, not paths, as
   Java does; every name Paimon writes holds a random UUID.
3. A candidate is kept unless it was last written before ``now - older_than`` (default one
   day), so files of a commit in progress are safe.
4. Nothing is deleted when a branch has no schema, or when a holder whose own file still
   exists cannot be read completely (the table is damaged; deleting could lose data). A
   holder that vanished while being read (concurrent expiration) is skipped.
5. A dry run returns the orphans without deleting them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterable

from reference import layout
from reference.errors import FileMissingError, SpecViolation
from reference.io import FileIO
from reference.spec.units import MILLIS_PER_SECOND
from reference.store import metadata, usage
from reference.store.branches import list_all_branches
from reference.store.expire import current_millis

DEFAULT_OLDER_THAN = dt.timedelta(days=1)


def compute_name(path: str) -> str:
    return path.rstrip(layout.SEPARATOR).rpartition(layout.SEPARATOR)[2]


def list_files(file_io: FileIO, directory: str) -> list[str]:
    """Paths of the files directly in ``directory`` (subdirectories excluded)."""
    return [
        path
        for path in file_io.list_files_recursive(directory)
        if layout.SEPARATOR not in path[len(directory.rstrip(layout.SEPARATOR)) + 1 :]
    ]


def list_bucket_directories(file_io: FileIO, directory: str, depth: int) -> list[str]:
    """The ``bucket-*`` directories under ``depth`` levels of ``k=v`` partition directories."""
    names = file_io.list_dir(directory)
    if depth == 0:
        return [
            layout.join(directory, name)
            for name in names
            if layout.parse_bucket_dir_name(name) is not None
        ]
    return [
        bucket
        for name in names
        if "=" in name
        for bucket in list_bucket_directories(file_io, layout.join(directory, name), depth - 1)
    ]


def is_versioned_or_hint(name: str, prefix: str) -> bool:
    hints = {hint.value for hint in layout.HintFile}
    return name in hints or layout.parse_versioned_name(name, prefix) is not None


def list_candidates(file_io: FileIO, table_root: str, branches: Iterable[str]) -> list[str]:
    """Rule 1."""
    schema = metadata.read_latest_schema(file_io, table_root)
    data_root = layout.join(table_root, schema.core_options.data_file_path_directory or "")
    directories = [
        layout.manifest_dir(table_root),
        layout.index_dir(table_root),
        layout.statistics_dir(table_root),
        *list_bucket_directories(file_io, data_root, len(schema.partition_keys)),
    ]
    candidates = [path for directory in directories for path in list_files(file_io, directory)]
    for branch in branches:
        for directory, prefix in (
            (layout.snapshot_dir(table_root, branch), layout.SNAPSHOT_PREFIX),
            (layout.changelog_dir(table_root, branch), layout.CHANGELOG_PREFIX),
        ):
            candidates += [
                path
                for path in list_files(file_io, directory)
                if not is_versioned_or_hint(compute_name(path), prefix)
            ]
    return candidates


def read_mentioned_names(cache: usage.MetaCache, holder: usage.Holder) -> set[str]:
    """Rule 2: the names of every file any manifest of ``holder`` mentions."""
    snapshot = holder.snapshot
    lists = [snapshot.base_manifest_list, snapshot.delta_manifest_list]
    if snapshot.changelog_manifest_list is not None:
        lists.append(snapshot.changelog_manifest_list)
    names: set[str] = set()
    for list_name in lists:
        if holder.kind is usage.HolderKind.CHANGELOG and not usage.is_manifest_list_existing(
            cache, list_name
        ):
            continue
        with usage.tolerating_missing(list_name == snapshot.changelog_manifest_list):
            for meta in cache.manifest_list(list_name):
                for entry in cache.manifest(meta.file_name):
                    names.add(entry.file.file_name)
                    names.update(entry.file.extra_files)
    return names


def holder_file_exists(file_io: FileIO, table_root: str, holder: usage.Holder) -> bool:
    if holder.kind is usage.HolderKind.SNAPSHOT:
        return metadata.has_snapshot(file_io, table_root, int(holder.name), holder.branch)
    if holder.kind is usage.HolderKind.CHANGELOG:
        path = layout.changelog_path(table_root, int(holder.name), holder.branch)
    else:
        path = layout.tag_path(table_root, holder.name, holder.branch)
    return file_io.exists(path)


def read_used_names(file_io: FileIO, table_root: str) -> set[str]:
    """Rules 2 and 4."""
    cache = usage.MetaCache(file_io, table_root)
    names: set[str] = set()
    for holder in usage.read_all_holders(file_io, table_root):
        try:
            used = usage.read_holder_usage(cache, holder, tolerate_missing=False)
            mentioned = read_mentioned_names(cache, holder)
        except FileMissingError:
            if holder_file_exists(file_io, table_root, holder):
                raise
            continue
        names |= {compute_name(path) for path in used.all} | mentioned
    return names


def require_schemas(file_io: FileIO, table_root: str, branches: Iterable[str]) -> None:
    """Rule 4."""
    missing = [b for b in branches if not metadata.list_schema_ids(file_io, table_root, b)]
    if missing:
        raise SpecViolation(
            f"branches {missing} have no schema: not cleaning orphans", code="ORPHANS"
        )


def is_old_enough(file_io: FileIO, path: str, cutoff_millis: int) -> bool:
    """Rule 3 (a file that vanished meanwhile is not an orphan to delete)."""
    with contextlib.suppress(FileMissingError):
        return file_io.modification_time_millis(path) < cutoff_millis
    return False


def find_orphans(
    file_io: FileIO,
    table_root: str,
    *,
    older_than: dt.timedelta = DEFAULT_OLDER_THAN,
    now_millis: int | None = None,
) -> list[str]:
    """Rules 1-4: the orphan files, sorted by path."""
    branches = list_all_branches(file_io, table_root)
    require_schemas(file_io, table_root, branches)
    now = current_millis() if now_millis is None else now_millis
    cutoff = now - int(older_than.total_seconds() * MILLIS_PER_SECOND)
    candidates = [
        path
        for path in list_candidates(file_io, table_root, branches)
        if is_old_enough(file_io, path, cutoff)
    ]
    used = read_used_names(file_io, table_root)
    return sorted(path for path in candidates if compute_name(path) not in used)


def remove_orphan_files(
    file_io: FileIO,
    table_root: str,
    *,
    older_than: dt.timedelta = DEFAULT_OLDER_THAN,
    dry_run: bool = False,
    now_millis: int | None = None,
) -> list[str]:
    """Rules 1-5: delete the orphans (unless ``dry_run``) and return them."""
    orphans = find_orphans(file_io, table_root, older_than=older_than, now_millis=now_millis)
    if not dry_run:
        usage.delete_quietly(file_io, orphans)
    return orphans
