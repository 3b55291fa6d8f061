"""Which files the snapshots, tags and long-lived changelogs of a table use.

Every maintenance operation (expiring snapshots or changelogs, deleting a tag, rolling back,
cleaning orphans) removes some *holders* (snapshots, tags, changelogs) and may then delete the
files that only they used. This module says what a holder uses and computes that difference.

Spec: ``docs/concepts/spec/snapshot.md``, ``manifest.md``, ``tableindex.md``;
``docs/maintenance/manage-snapshots.mdx``. Java: ``operation/FileDeletionBase``,
``operation/SnapshotDeletion``, ``operation/TagDeletion``, ``operation/ChangelogDeletion``,
``operation/OrphanFilesClean`` (``getUsedFiles``).

Rules:

1. A snapshot uses its manifest lists (base, delta and, when set, changelog), every manifest
   they list, the data files live in it (base then delta entries replayed, see
   ``reference.store.scan`` rule 1) with their extra files, the changelog files its changelog
   manifests add, its index manifest and the index files in it, and its statistics file.
2. A tag uses what its snapshot uses except the changelog: neither the changelog manifest list,
   nor its manifests, nor the changelog files. A batch read of a tag reads no changelog, and
   Java's expiration deletes the changelog of an expired snapshot even when it is tagged.
3. A long-lived changelog (``changelog/changelog-<id>``, written when changelog retention is
   decoupled from snapshot retention) uses those of its manifest lists that still exist and
   their manifests, and the files added by its changelog manifests, or, when it has no
   changelog manifest list (``changelog-producer = none``), the files added by its delta
   manifests. Index files and statistics are not part of a changelog.
4. A file may be deleted only when a removed holder uses it and no remaining holder does. The
   remaining holders are every snapshot, tag and long-lived changelog of *every* branch (main
   and ``branch/branch-*``), because branches share manifests and data files. (Java only
   consults the holders of the branch being maintained; see the modules that use this one.)
5. Data files are named by their path: the bucket directory of their partition and bucket
   (rendered with the branch's latest schema) plus the file name, or their external path.
   Meta files are named by their path under ``manifest/``, ``index/`` and ``statistics/``.
6. Reading a remaining holder must succeed (a file we could not account for is never deleted);
   a removed holder whose manifests are already gone (an earlier run stopped half-way)
   contributes only what can still be read. A changelog manifest list that is gone is
   tolerated everywhere: a snapshot restored from a tag may name one that expired, and the
   files it listed were deleted with it.
7. Deleting: first the exclusive data and changelog files, then holder by holder its exclusive
   meta files; each holder's own file (snapshot, tag or changelog file) goes after its meta
   files (expiration: a crash leaves it to find them again) or before everything
   (tag deletion, rollback: it becomes unreadable first). A file that fails to delete is
   left as an orphan; a holder file that fails to delete stops the operation.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum

from reference import layout
from reference.errors import FileMissingError, SnapshotNotFoundError, StorageError
from reference.io import FileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.manifest import FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot, decode_snapshot
from reference.store import metadata
from reference.store.branches import list_all_branches
from reference.store.scan import (
    compute_bucket_path,
    compute_index_file_path,
    compute_live_entries,
    read_index_manifest,
    read_manifest,
    read_manifest_list,
)

# --------------------------------------------------------------------------------------------
# Holders
# --------------------------------------------------------------------------------------------


class HolderKind(Enum):
    """What keeps files alive."""

    SNAPSHOT = "snapshot"
    TAG = "tag"
    CHANGELOG = "changelog"


@dataclass(frozen=True)
class Holder:
    """A snapshot, tag or long-lived changelog of one branch; ``name`` is the tag name or the
    id as text; ``snapshot`` is the record it holds (for a tag, the tagged snapshot)."""

    kind: HolderKind
    branch: str
    name: str
    snapshot: Snapshot

    @property
    def key(self) -> tuple[HolderKind, str, str]:
        return self.kind, self.branch, self.name


def read_changelog(
    file_io: FileIO, table_root: str, changelog_id: int, branch: str = layout.MAIN_BRANCH
) -> Snapshot:
    """Decode ``changelog/changelog-<id>`` (the same JSON as a snapshot file)."""
    path = layout.changelog_path(table_root, changelog_id, branch)
    try:
        data = file_io.read_bytes(path)
    except FileMissingError:
        raise SnapshotNotFoundError(f"changelog {changelog_id} does not exist", path=path) from None
    return decode_snapshot(data)


def list_changelog_ids(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> list[int]:
    directory = layout.changelog_dir(table_root, branch)
    if not file_io.exists(directory):
        return []
    ids = (layout.parse_changelog_id(name) for name in file_io.list_dir(directory))
    return sorted(i for i in ids if i is not None)


def read_branch_holders(file_io: FileIO, table_root: str, branch: str) -> list[Holder]:
    """Every snapshot, tag and long-lived changelog of ``branch``; one that disappears while
    being listed (a concurrent expiration) is skipped."""
    holders: list[Holder] = []
    for snapshot_id in metadata.list_snapshot_ids(file_io, table_root, branch):
        with contextlib.suppress(SnapshotNotFoundError):
            snapshot = metadata.read_snapshot(file_io, table_root, snapshot_id, branch)
            holders.append(Holder(HolderKind.SNAPSHOT, branch, str(snapshot_id), snapshot))
    for tag_name in metadata.list_tag_names(file_io, table_root, branch):
        with contextlib.suppress(SnapshotNotFoundError):
            tag = metadata.read_tag(file_io, table_root, tag_name, branch)
            holders.append(Holder(HolderKind.TAG, branch, tag_name, tag.snapshot))
    for changelog_id in list_changelog_ids(file_io, table_root, branch):
        with contextlib.suppress(SnapshotNotFoundError):
            changelog = read_changelog(file_io, table_root, changelog_id, branch)
            holders.append(Holder(HolderKind.CHANGELOG, branch, str(changelog_id), changelog))
    return holders


def read_all_holders(file_io: FileIO, table_root: str) -> list[Holder]:
    """Rule 4: the holders of every branch."""
    return [
        holder
        for branch in list_all_branches(file_io, table_root)
        for holder in read_branch_holders(file_io, table_root, branch)
    ]


def compute_remaining(holders: Iterable[Holder], removed: Iterable[Holder]) -> list[Holder]:
    gone = {holder.key for holder in removed}
    return [holder for holder in holders if holder.key not in gone]


# --------------------------------------------------------------------------------------------
# Reading meta files once
# --------------------------------------------------------------------------------------------


@dataclass
class MetaCache:
    """Decoded manifest lists, manifests, index manifests and branch schemas of one table,
    each read once (meta files never change once written)."""

    file_io: FileIO
    table_root: str
    manifest_lists: dict[str, list[ManifestFileMeta]] = field(default_factory=dict)
    manifests: dict[str, list[ManifestEntry]] = field(default_factory=dict)
    index_manifests: dict[str, list[IndexManifestEntry]] = field(default_factory=dict)
    schemas: dict[str, TableSchema] = field(default_factory=dict)

    def manifest_list(self, name: str) -> list[ManifestFileMeta]:
        if name not in self.manifest_lists:
            self.manifest_lists[name] = read_manifest_list(self.file_io, self.table_root, name)
        return self.manifest_lists[name]

    def manifest(self, name: str) -> list[ManifestEntry]:
        if name not in self.manifests:
            self.manifests[name] = read_manifest(self.file_io, self.table_root, name)
        return self.manifests[name]

    def index_manifest(self, name: str) -> list[IndexManifestEntry]:
        if name not in self.index_manifests:
            self.index_manifests[name] = read_index_manifest(self.file_io, self.table_root, name)
        return self.index_manifests[name]

    def schema(self, branch: str) -> TableSchema:
        if branch not in self.schemas:
            schema = metadata.read_latest_schema(self.file_io, self.table_root, branch)
            self.schemas[branch] = schema
        return self.schemas[branch]


# --------------------------------------------------------------------------------------------
# What one holder uses (rules 1-3, 5)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileUsage:
    """Paths of the files a holder uses: data files (with their extra files), changelog files,
    and meta files (manifest lists, manifests, index manifest, index files, statistics)."""

    data: frozenset[str] = frozenset()
    changelog: frozenset[str] = frozenset()
    meta: frozenset[str] = frozenset()

    def __or__(self, other: FileUsage) -> FileUsage:
        return FileUsage(
            self.data | other.data, self.changelog | other.changelog, self.meta | other.meta
        )

    def __sub__(self, other: FileUsage) -> FileUsage:
        """Files used here and not in ``other`` (a changelog file still used as a data file,
        or the reverse, stays)."""
        kept = other.data | other.changelog
        return FileUsage(self.data - kept, self.changelog - kept, self.meta - other.meta)

    @property
    def all(self) -> frozenset[str]:
        return self.data | self.changelog | self.meta


EMPTY_USAGE = FileUsage()


def compute_entry_paths(
    table_root: str, schema: TableSchema, entries: Iterable[ManifestEntry]
) -> set[str]:
    """Rule 5: the paths of the entries' files and of their extra files."""
    partition_types = [f.type for f in schema.partition_type.fields]
    paths: set[str] = set()
    for entry in entries:
        partition = deserialize_binary_row(entry.partition, partition_types)
        directory = compute_bucket_path(table_root, schema, partition, entry.bucket)
        meta = entry.file
        paths.add(layout.data_file_path(directory, meta.file_name, meta.external_path))
        paths.update(layout.join(directory, extra) for extra in meta.extra_files)
    return paths


def compute_index_paths(
    table_root: str, schema: TableSchema, entries: Iterable[IndexManifestEntry]
) -> set[str]:
    """Where the index files are (in the bucket directories with
    ``index-file-in-data-file-dir``, see ``scan.compute_index_file_path``)."""
    return {compute_index_file_path(table_root, schema, entry) for entry in entries}


def manifest_path(table_root: str, name: str) -> str:
    return layout.manifest_path(table_root, name)


@contextlib.contextmanager
def tolerating_missing(tolerate: bool) -> Iterator[None]:
    """Rule 6: skip what is already gone when ``tolerate`` is set."""
    try:
        yield
    except FileMissingError:
        if not tolerate:
            raise


def read_list_usage(
    cache: MetaCache, list_name: str, tolerate_missing: bool
) -> tuple[set[str], list[ManifestEntry]]:
    """The meta paths of a manifest list and its manifests, and the manifests' entries."""
    paths = {manifest_path(cache.table_root, list_name)}
    entries: list[ManifestEntry] = []
    with tolerating_missing(tolerate_missing):
        for meta in cache.manifest_list(list_name):
            paths.add(manifest_path(cache.table_root, meta.file_name))
            with tolerating_missing(tolerate_missing):
                entries += cache.manifest(meta.file_name)
    return paths, entries


def read_index_usage(
    cache: MetaCache, snapshot: Snapshot, schema: TableSchema, tolerate_missing: bool
) -> set[str]:
    if snapshot.index_manifest is None:
        return set()
    paths = {manifest_path(cache.table_root, snapshot.index_manifest)}
    with tolerating_missing(tolerate_missing):
        paths |= compute_index_paths(
            cache.table_root, schema, cache.index_manifest(snapshot.index_manifest)
        )
    return paths


def compute_added(entries: Sequence[ManifestEntry]) -> list[ManifestEntry]:
    return [entry for entry in entries if entry.kind is FileKind.ADD]


def read_snapshot_usage(
    cache: MetaCache,
    branch: str,
    snapshot: Snapshot,
    *,
    with_changelog: bool,
    tolerate_missing: bool = False,
) -> FileUsage:
    """Rules 1 and 2 (``with_changelog`` False for a tag)."""
    schema = cache.schema(branch)
    base_meta, base = read_list_usage(cache, snapshot.base_manifest_list, tolerate_missing)
    delta_meta, delta = read_list_usage(cache, snapshot.delta_manifest_list, tolerate_missing)
    meta = base_meta | delta_meta | read_index_usage(cache, snapshot, schema, tolerate_missing)
    if snapshot.statistics is not None:
        meta.add(layout.statistics_path(cache.table_root, snapshot.statistics))
    live = compute_live_entries([*base, *delta]).live
    changelog: set[str] = set()
    if with_changelog and snapshot.changelog_manifest_list is not None:
        changelog_meta, entries = read_list_usage(
            cache, snapshot.changelog_manifest_list, tolerate_missing=True
        )
        meta |= changelog_meta
        changelog = compute_entry_paths(cache.table_root, schema, compute_added(entries))
    data = compute_entry_paths(cache.table_root, schema, live)
    return FileUsage(frozenset(data), frozenset(changelog), frozenset(meta))


def is_manifest_list_existing(cache: MetaCache, name: str) -> bool:
    return name in cache.manifest_lists or cache.file_io.exists(
        manifest_path(cache.table_root, name)
    )


def read_changelog_usage(
    cache: MetaCache, branch: str, changelog: Snapshot, *, tolerate_missing: bool = False
) -> FileUsage:
    """Rule 3."""
    schema = cache.schema(branch)
    meta: set[str] = set()
    added: list[ManifestEntry] = []
    delta_entries: list[ManifestEntry] = []
    for list_name in (changelog.base_manifest_list, changelog.delta_manifest_list):
        if is_manifest_list_existing(cache, list_name):
            list_meta, entries = read_list_usage(cache, list_name, tolerate_missing)
            meta |= list_meta
            if list_name == changelog.delta_manifest_list:
                delta_entries = entries
    if changelog.changelog_manifest_list is not None:
        list_meta, entries = read_list_usage(
            cache, changelog.changelog_manifest_list, tolerate_missing=True
        )
        meta |= list_meta
        added = compute_added(entries)
    else:
        added = compute_added(delta_entries)
    files = frozenset(compute_entry_paths(cache.table_root, schema, added))
    return FileUsage(frozenset(), files, frozenset(meta))


def read_holder_usage(cache: MetaCache, holder: Holder, *, tolerate_missing: bool) -> FileUsage:
    if holder.kind is HolderKind.CHANGELOG:
        return read_changelog_usage(
            cache, holder.branch, holder.snapshot, tolerate_missing=tolerate_missing
        )
    return read_snapshot_usage(
        cache,
        holder.branch,
        holder.snapshot,
        with_changelog=holder.kind is HolderKind.SNAPSHOT,
        tolerate_missing=tolerate_missing,
    )


def read_usage(cache: MetaCache, holders: Iterable[Holder], *, tolerate_missing: bool) -> FileUsage:
    usage = EMPTY_USAGE
    for holder in holders:
        usage = usage | read_holder_usage(cache, holder, tolerate_missing=tolerate_missing)
    return usage


# --------------------------------------------------------------------------------------------
# Deleting (rule 4)
# --------------------------------------------------------------------------------------------


def delete_quietly(file_io: FileIO, paths: Iterable[str]) -> list[str]:
    """Delete each path, in sorted order; return those that existed and were deleted. A store
    error on one file leaves it behind (an orphan for ``reference.store.orphans``)."""
    deleted: list[str] = []
    for path in sorted(paths):
        with contextlib.suppress(StorageError):
            if file_io.delete(path):
                deleted.append(path)
    return deleted


def delete_own_file(file_io: FileIO, path: str) -> list[str]:
    """A holder's own file; unlike the files it uses, a failure here stops the operation (so
    that the holders still present are always a contiguous range)."""
    return [path] if file_io.delete(path) else []


def delete_holders(
    file_io: FileIO,
    table_root: str,
    removed: Sequence[tuple[Holder, str]],
    *,
    own_file_first: bool = False,
) -> list[str]:
    """Rule 4: delete what only ``removed`` (holders with the path of their own file,
    in deletion order) use: data and changelog files, then each holder's meta files followed
    by the holder's own file. With ``own_file_first`` the holders' own files go first instead
    (tag deletion and rollback make them unreadable before touching what they use). Returns
    the deleted paths in deletion order."""
    holders = [holder for holder, _ in removed]
    remaining = compute_remaining(read_all_holders(file_io, table_root), holders)
    cache = MetaCache(file_io, table_root)
    kept = read_usage(cache, remaining, tolerate_missing=False)
    per_holder = [
        read_holder_usage(cache, holder, tolerate_missing=True) - kept for holder in holders
    ]
    deleted: list[str] = []
    if own_file_first:
        for _, own_path in removed:
            deleted += delete_own_file(file_io, own_path)
    files: set[str] = set()
    for holder_usage in per_holder:
        files |= holder_usage.data | holder_usage.changelog
    deleted += delete_quietly(file_io, files)
    done: set[str] = set()
    for (_, own_path), holder_usage in zip(removed, per_holder, strict=True):
        deleted += delete_quietly(file_io, holder_usage.meta - done)
        done |= holder_usage.meta
        if not own_file_first:
            deleted += delete_own_file(file_io, own_path)
    return deleted
