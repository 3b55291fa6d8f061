"""spark_impl's one home for reading a table's metadata: schema files, snapshot files and their
hints, manifest lists, data manifests and the index manifest, and the replay of manifest
entries into a snapshot's live files. Every other spark_impl module (planning, writing,
committing, compaction, expiration, DML, streaming, the jobs) reads metadata through here.

The paths are ``reference.layout``'s and the codecs ``reference.spec``'s; the rules are Java's
``SnapshotManager`` (latest/earliest by hint, checked against the next/previous snapshot,
else by listing), ``SchemaManager`` (the newest ``schema-N``), ``ManifestList`` /
``ManifestFile`` / ``IndexManifestFile`` and ``FileEntry.mergeEntries`` (an entry's identity
is Java ``FileEntry.Identifier``: partition, bucket, level, file name, extra files, embedded
index, external path; a DELETE cancels the ADD with the same identity).

Manifest files, manifest lists and index manifests are immutable once written (every name
holds a fresh UUID; Java never rewrites one), so their decoded entries are kept in a bounded,
process-wide cache keyed by (file IO identity, path): repeated planning, writes, commits and
compactions of the same table decode each manifest once. This is what keeps spark_impl's
planning latency flat across repeated reads of a table (issue 20). Snapshot, hint and schema
files are not cached: hints move, and the latest snapshot or schema is found by listing."""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from reference import layout
from reference.errors import (
    FileMissingError,
    SnapshotNotFoundError,
    TableNotFoundError,
    naming_file,
)
from reference.io import FileIO
from reference.spec import manifest as manifest_spec
from reference.spec.file_entry import compute_file_identifier, compute_live_entries
from reference.spec.manifest import IndexManifestEntry, ManifestEntry, ManifestFileMeta
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import Snapshot, decode_snapshot

MANIFEST_CACHE_FILES = 512
"""How many decoded manifest files (data manifests, manifest lists, index manifests) the
process keeps, least recently used dropped first."""

MANIFEST_READ_THREADS = 8
"""How many manifest files one plan reads at once (IO-bound on object stores)."""

_Decoded = TypeVar("_Decoded")

# --------------------------------------------------------------------------------------------
# The manifest cache
# --------------------------------------------------------------------------------------------


class ManifestCache:
    """A bounded LRU of decoded immutable metadata files, keyed by (file IO identity, path);
    thread-safe (Spark's Python workers and the driver may plan concurrently)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[Hashable, str], tuple[Any, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_decode(
        self, key: tuple[Hashable, str], decode: Callable[[], Sequence[_Decoded]]
    ) -> list[_Decoded]:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return list(found)
        decoded = tuple(decode())
        with self._lock:
            self._entries[key] = decoded
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return list(decoded)

    def contains(self, key: tuple[Hashable, str]) -> bool:
        with self._lock:
            return key in self._entries

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


MANIFEST_CACHE = ManifestCache(MANIFEST_CACHE_FILES)


def file_io_identity(file_io: FileIO) -> Hashable:
    """Which storage ``file_io`` reads: every local file IO reads the same files; an S3 file IO
    is its (hashable) configuration; any other file IO (wrappers, views) is itself."""
    config = getattr(file_io, "config", None)
    if config is not None:
        try:
            hash(config)
        except TypeError:
            return (type(file_io).__name__, id(file_io))
        return (type(file_io).__name__, config)
    if type(file_io).__name__ == "LocalFileIO":
        return "LocalFileIO"
    return (type(file_io).__name__, id(file_io))


def _read_manifest_file(
    file_io: FileIO,
    table_root: str,
    name: str,
    decode: Callable[[bytes, Any], Sequence[_Decoded]],
) -> list[_Decoded]:
    path = layout.manifest_path(table_root, name)

    def read() -> Sequence[_Decoded]:
        with naming_file(path):
            data = file_io.read_bytes(path)
            return decode(data, manifest_spec.detect_manifest_format(data))

    return MANIFEST_CACHE.get_or_decode((file_io_identity(file_io), path), read)


# --------------------------------------------------------------------------------------------
# Snapshots and schemas
# --------------------------------------------------------------------------------------------


def list_ids(file_io: FileIO, directory: str, prefix: str) -> list[int]:
    """The ids of the ``<prefix><id>`` files in ``directory``, ascending."""
    if not file_io.exists(directory):
        return []
    ids = (layout.parse_versioned_name(name, prefix) for name in file_io.list_dir(directory))
    return sorted(i for i in ids if i is not None)


def _snapshot_exists(file_io: FileIO, table_root: str, snapshot_id: int) -> bool:
    return file_io.exists(layout.snapshot_path(table_root, snapshot_id))


def find_latest_snapshot_id(file_io: FileIO, table_root: str) -> int | None:
    """The newest snapshot id: the LATEST hint when that snapshot exists and the next does
    not, else the largest listed (``None``: no snapshot), Java ``SnapshotManager``."""
    directory = layout.snapshot_dir(table_root)
    hint = layout.read_hint(file_io, directory, layout.HintFile.LATEST)
    if (
        hint is not None
        and _snapshot_exists(file_io, table_root, hint)
        and not _snapshot_exists(file_io, table_root, hint + 1)
    ):
        return hint
    ids = list_ids(file_io, directory, layout.SNAPSHOT_PREFIX)
    return ids[-1] if ids else None


def find_earliest_snapshot_id(file_io: FileIO, table_root: str) -> int | None:
    """The oldest snapshot id: the EARLIEST hint when that snapshot exists and the previous
    does not, else the smallest listed (``None``: no snapshot)."""
    directory = layout.snapshot_dir(table_root)
    hint = layout.read_hint(file_io, directory, layout.HintFile.EARLIEST)
    if (
        hint is not None
        and _snapshot_exists(file_io, table_root, hint)
        and not _snapshot_exists(file_io, table_root, hint - 1)
    ):
        return hint
    ids = list_ids(file_io, directory, layout.SNAPSHOT_PREFIX)
    return ids[0] if ids else None


def read_snapshot_file(file_io: FileIO, path: str, missing: str) -> bytes:
    """The bytes of a snapshot or tag file a read selected; :class:`SnapshotNotFoundError`
    (``missing``: why) when it is gone (Java ``SnapshotManager.snapshot`` /
    ``TagManager.taggedSnapshot`` fail the same way)."""
    try:
        return file_io.read_bytes(path)
    except FileMissingError:
        raise SnapshotNotFoundError(missing, path=path) from None


def read_snapshot(file_io: FileIO, table_root: str, snapshot_id: int) -> Snapshot:
    """Snapshot ``snapshot_id`` (:class:`SnapshotNotFoundError` when its file is gone)."""
    path = layout.snapshot_path(table_root, snapshot_id)
    data = read_snapshot_file(file_io, path, f"snapshot {snapshot_id} does not exist")
    with naming_file(path):
        return decode_snapshot(data)


def read_schema_json(file_io: FileIO, table_root: str, schema_id: int) -> str:
    """The JSON text of ``schema-<schema_id>``."""
    path = layout.schema_path(table_root, schema_id)
    with naming_file(path):
        return file_io.read_bytes(path).decode("utf-8")


def latest_schema_id(file_io: FileIO, table_root: str) -> int:
    """The newest schema id (:class:`TableNotFoundError`: no schema file, not a table)."""
    ids = list_ids(file_io, layout.schema_dir(table_root), layout.SCHEMA_PREFIX)
    if not ids:
        raise TableNotFoundError("no schema files: not a Paimon table", path=table_root)
    return ids[-1]


def read_latest_schema(file_io: FileIO, table_root: str) -> TableSchema:
    """The newest schema, decoded."""
    newest = latest_schema_id(file_io, table_root)
    return decode_schema(read_schema_json(file_io, table_root, newest))


def read_latest_snapshot(file_io: FileIO, table_root: str) -> Snapshot | None:
    """The newest snapshot (``None``: the table has none)."""
    newest = find_latest_snapshot_id(file_io, table_root)
    return read_snapshot(file_io, table_root, newest) if newest is not None else None


# --------------------------------------------------------------------------------------------
# Manifests
# --------------------------------------------------------------------------------------------


def read_manifest_list(file_io: FileIO, table_root: str, name: str) -> list[ManifestFileMeta]:
    """The manifest files a manifest list names (cached)."""
    return _read_manifest_file(file_io, table_root, name, manifest_spec.decode_manifest_list)


def read_manifest(file_io: FileIO, table_root: str, name: str) -> list[ManifestEntry]:
    """The entries of one data manifest (cached)."""
    return _read_manifest_file(file_io, table_root, name, manifest_spec.decode_manifest_entries)


file_identity = compute_file_identifier
"""Java ``FileEntry.Identifier`` (the rule lives in ``reference.spec.file_entry``)."""


def replay_entries(entries: Sequence[ManifestEntry]) -> list[ManifestEntry]:
    """Step 3: the live ADD entries, in first-added order (``reference.spec.file_entry`` rule 2)."""
    return compute_live_entries(entries).live


def read_snapshot_manifests(
    file_io: FileIO, table_root: str, snapshot: Snapshot
) -> list[ManifestFileMeta]:
    """The manifest files of ``snapshot``: its base list's, then its delta list's."""
    lists = (snapshot.base_manifest_list, snapshot.delta_manifest_list)
    return [meta for name in lists for meta in read_manifest_list(file_io, table_root, name)]


def read_manifests(
    file_io: FileIO, table_root: str, names: Sequence[str]
) -> list[list[ManifestEntry]]:
    """The entries of each data manifest ``names`` names, in order (cached); the ones not in
    the cache are read and decoded by up to :data:`MANIFEST_READ_THREADS` threads at once, as
    Java ``FileStoreScan`` reads manifests in parallel (``scan.manifest.parallelism``)."""
    identity = file_io_identity(file_io)
    missing = {
        name
        for name in names
        if not MANIFEST_CACHE.contains((identity, layout.manifest_path(table_root, name)))
    }
    if len(missing) > 1:
        threads = min(MANIFEST_READ_THREADS, len(missing))
        with ThreadPoolExecutor(threads, thread_name_prefix="paimon-manifest") as pool:
            list(pool.map(lambda name: read_manifest(file_io, table_root, name), missing))
    return [read_manifest(file_io, table_root, name) for name in names]


def read_entries(
    file_io: FileIO, table_root: str, metas: Iterable[ManifestFileMeta]
) -> list[ManifestEntry]:
    """The entries of the manifest files ``metas``, in order."""
    names = [m.file_name for m in metas]
    return list(itertools.chain.from_iterable(read_manifests(file_io, table_root, names)))


def read_live_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot | None
) -> list[ManifestEntry]:
    """The live data files of ``snapshot`` (the read path's manifest replay)."""
    if snapshot is None:
        return []
    metas = read_snapshot_manifests(file_io, table_root, snapshot)
    return replay_entries(read_entries(file_io, table_root, metas))


def read_index_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot | None
) -> list[IndexManifestEntry]:
    """The live index files of ``snapshot`` (its index manifest, cached)."""
    name = None if snapshot is None else snapshot.index_manifest
    if name is None:
        return []
    return _read_manifest_file(file_io, table_root, name, manifest_spec.decode_index_manifest)
