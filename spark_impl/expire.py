"""Snapshot expiration for spark_impl: which snapshots go, which files only they use.

Rules (``reference/store/expire.py`` and ``usage.py`` specify them; Java ``ExpireSnapshotsImpl``):

1. Snapshots ``[begin, end)`` expire: ``end`` keeps the newest ``snapshot.num-retained.min``,
   stops at the smallest consumer ``nextSnapshot`` and at ``earliest + snapshot.expire.limit``;
   from ``latest - snapshot.num-retained.max + 1`` on, the first snapshot committed at or after
   ``now - snapshot.time-retained`` stays with everything after it. Ids already missing below
   ``end`` move ``begin`` up.
2. A snapshot uses its manifest lists and manifests, its live data files (with extra files), the
   changelog files of its changelog manifests, its index manifest and index files, and its
   statistics file; a tag the same without changelog. Files used by an expired snapshot and by
   no remaining snapshot or tag are deleted: data files first (a Spark job), then snapshot by
   snapshot its meta files and its snapshot file, then the EARLIEST hint.

Only the main branch of a table without branches, and without decoupled changelog retention
(``changelog.*`` options above the snapshot ones), is handled here.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from reference import layout
from reference.errors import FileMissingError, StorageError, UnsupportedFeature, naming_file
from reference.io import FileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.manifest import FileKind
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot, decode_consumer, decode_tag, encode_hint
from reference.spec.units import NANOS_PER_MILLI
from spark_impl.metadata import (
    find_earliest_snapshot_id,
    find_latest_snapshot_id,
    list_ids,
    read_index_entries,
    read_latest_schema,
    read_live_entries,
    read_manifest,
    read_manifest_list,
    read_snapshot,
)
from spark_impl.plan import compute_bucket_dir

_Decoded = TypeVar("_Decoded")


@dataclass(frozen=True)
class ExpireLimits:
    """The limits of one expiration (Java ``ExpireConfig``); each unset one comes from the
    table's options (``snapshot.num-retained.max`` / ``.min``, ``snapshot.time-retained``,
    ``snapshot.expire.limit``); ``now_millis`` unset is the clock's time."""

    retain_max: int | None = None
    retain_min: int | None = None
    time_retained_millis: int | None = None
    max_deletes: int | None = None
    now_millis: int | None = None


@dataclass(frozen=True)
class ExpirationPlan:
    snapshot_ids: tuple[int, ...]
    end: int
    data_paths: tuple[str, ...]
    meta_paths: tuple[tuple[str, ...], ...]
    """Per expired snapshot (ascending), its exclusive meta files."""


def delete_quietly(file_io: FileIO, path: str) -> int:
    with contextlib.suppress(StorageError):
        return int(file_io.delete(path))
    return 0


def _decode_listed(
    file_io: FileIO,
    directory: str,
    is_named: Callable[[str], object],
    decode: Callable[[bytes], _Decoded],
) -> list[_Decoded]:
    """Every file of ``directory`` whose name ``is_named`` parses (not ``None``), decoded."""
    if not file_io.exists(directory):
        return []
    paths = [
        layout.join(directory, name)
        for name in file_io.list_dir(directory)
        if is_named(name) is not None
    ]
    decoded = []
    for path in paths:
        with naming_file(path):
            decoded.append(decode(file_io.read_bytes(path)))
    return decoded


def _min_consumer_next(file_io: FileIO, table_root: str) -> int | None:
    directory = layout.consumer_dir(table_root)
    consumers = _decode_listed(file_io, directory, layout.parse_consumer_id, decode_consumer)
    return min((c.next_snapshot for c in consumers), default=None)


def _tag_snapshots(file_io: FileIO, table_root: str) -> list[Snapshot]:
    directory = layout.tag_dir(table_root)
    return [
        tag.snapshot
        for tag in _decode_listed(file_io, directory, layout.parse_tag_name, decode_tag)
    ]


@dataclass(frozen=True)
class Usage:
    data: frozenset[str]
    meta: frozenset[str]


def snapshot_usage(
    file_io: FileIO, table_root: str, schema: TableSchema, snapshot: Snapshot, changelog: bool
) -> Usage:
    """Rule 2: the files a snapshot (or, without ``changelog``, a tag) uses, as paths."""
    meta: set[str] = set()
    data: set[str] = set()
    lists = [snapshot.base_manifest_list, snapshot.delta_manifest_list]
    if changelog and snapshot.changelog_manifest_list is not None:
        lists.append(snapshot.changelog_manifest_list)
    partition_types = [f.type for f in schema.partition_type.fields]
    directories: dict[tuple[bytes, int], str] = {}

    def path_of(partition: bytes, bucket: int, name: str, external: str | None) -> str:
        if (partition, bucket) not in directories:
            values = deserialize_binary_row(partition, partition_types)
            directories[partition, bucket] = compute_bucket_dir(table_root, schema, values, bucket)
        return layout.data_file_path(directories[partition, bucket], name, external)

    for name in lists:
        meta.add(layout.manifest_path(table_root, name))
        for manifest in read_manifest_list(file_io, table_root, name):
            meta.add(layout.manifest_path(table_root, manifest.file_name))
    for entry in read_live_entries(file_io, table_root, snapshot):
        file = entry.file
        data.add(path_of(entry.partition, entry.bucket, file.file_name, file.external_path))
        for extra in file.extra_files:
            data.add(path_of(entry.partition, entry.bucket, extra, None))
    if changelog and snapshot.changelog_manifest_list is not None:
        for manifest in read_manifest_list(file_io, table_root, snapshot.changelog_manifest_list):
            for entry in read_manifest(file_io, table_root, manifest.file_name):
                if entry.kind is FileKind.ADD:
                    data.add(path_of(entry.partition, entry.bucket, entry.file.file_name, None))
    if snapshot.index_manifest is not None:
        meta.add(layout.manifest_path(table_root, snapshot.index_manifest))
        for index in read_index_entries(file_io, table_root, snapshot):
            index_file = index.index_file
            meta.add(
                index_file.external_path or layout.index_file_path(table_root, index_file.file_name)
            )
    if snapshot.statistics is not None:
        meta.add(layout.statistics_path(table_root, snapshot.statistics))
    return Usage(frozenset(data), frozenset(meta))


def _union(usages: Iterable[Usage]) -> Usage:
    data: set[str] = set()
    meta: set[str] = set()
    for usage in usages:
        data |= usage.data
        meta |= usage.meta
    return Usage(frozenset(data), frozenset(meta))


def _check_supported(file_io: FileIO, table_root: str, schema: TableSchema) -> None:
    if file_io.exists(layout.branch_dir(table_root)) and file_io.list_dir(
        layout.branch_dir(table_root)
    ):
        raise UnsupportedFeature("spark_impl expiration of a table with branches")
    core = schema.core_options
    if (
        core.changelog_num_retained_max > core.snapshot_num_retained_max
        or core.changelog_num_retained_min > core.snapshot_num_retained_min
        or core.changelog_time_retained > core.snapshot_time_retained
    ):
        raise UnsupportedFeature("spark_impl expiration with decoupled changelog retention")


def compute_end(
    file_io: FileIO,
    table_root: str,
    earliest: int,
    latest: int,
    *,
    retain_max: int,
    retain_min: int,
    max_deletes: int,
    older_than: int,
) -> int:
    """Rule 1's exclusive end."""
    end = latest - retain_min + 1
    consumer = _min_consumer_next(file_io, table_root)
    if consumer is not None:
        end = min(end, consumer)
    end = min(end, earliest + max_deletes)
    existing = set(list_ids(file_io, layout.snapshot_dir(table_root), layout.SNAPSHOT_PREFIX))
    for candidate in range(max(latest - retain_max + 1, earliest), end):
        if (
            candidate in existing
            and older_than <= read_snapshot(file_io, table_root, candidate).time_millis
        ):
            return candidate
    return end


def plan_expiration(
    file_io: FileIO, table_root: str, limits: ExpireLimits
) -> ExpirationPlan | None:
    """Rules 1 and 2 (driver side) within ``limits``; ``None`` when nothing expires."""
    table_root = table_root.rstrip("/")
    schema = read_latest_schema(file_io, table_root)
    _check_supported(file_io, table_root, schema)
    core = schema.core_options
    latest = find_latest_snapshot_id(file_io, table_root)
    earliest = find_earliest_snapshot_id(file_io, table_root)
    if latest is None or earliest is None:
        return None
    now = time.time_ns() // NANOS_PER_MILLI if limits.now_millis is None else limits.now_millis
    retained = (
        core.snapshot_time_retained // NANOS_PER_MILLI
        if limits.time_retained_millis is None
        else limits.time_retained_millis
    )
    end = compute_end(
        file_io,
        table_root,
        earliest,
        latest,
        retain_max=limits.retain_max or core.snapshot_num_retained_max,
        retain_min=limits.retain_min or core.snapshot_num_retained_min,
        max_deletes=limits.max_deletes or core.snapshot_expire_limit,
        older_than=now - retained,
    )
    if end <= earliest:
        return None
    existing = set(list_ids(file_io, layout.snapshot_dir(table_root), layout.SNAPSHOT_PREFIX))
    begin = find_expiration_begin(existing, earliest, end)
    kept = [read_snapshot(file_io, table_root, i) for i in sorted(existing) if i >= end]
    keep = _union(
        [snapshot_usage(file_io, table_root, schema, s, True) for s in kept]
        + [
            snapshot_usage(file_io, table_root, schema, s, False)
            for s in _tag_snapshots(file_io, table_root)
        ]
    )
    usages = [
        expiring_usage(file_io, table_root, schema, read_snapshot(file_io, table_root, i))
        for i in range(begin, end)
    ]
    data = _union(usages).data - keep.data
    metas: list[tuple[str, ...]] = []
    claimed: set[str] = set()
    for usage in usages:
        own = sorted(usage.meta - keep.meta - claimed)
        claimed.update(own)
        metas.append(tuple(own))
    return ExpirationPlan(tuple(range(begin, end)), end, tuple(sorted(data)), tuple(metas))


def find_expiration_begin(existing: set[int], earliest: int, end: int) -> int:
    """The first snapshot to expire: after the newest gap below ``end`` (an earlier
    expiration that stopped midway left those), else ``earliest`` (Java
    ``ExpireSnapshotsImpl`` walks back the same way)."""
    for candidate in range(end - 1, earliest - 1, -1):
        if candidate not in existing:
            return candidate + 1
    return earliest


def expiring_usage(
    file_io: FileIO, table_root: str, schema: TableSchema, snapshot: Snapshot
) -> Usage:
    """The files an expiring snapshot uses (none when its manifests are gone already)."""
    try:
        return snapshot_usage(file_io, table_root, schema, snapshot, True)
    except FileMissingError:
        return Usage(frozenset(), frozenset())


def finish_expiration(file_io: FileIO, table_root: str, plan: ExpirationPlan) -> None:
    """Rule 2's metadata part, after the data files are gone."""
    table_root = table_root.rstrip("/")
    for snapshot_id, paths in zip(plan.snapshot_ids, plan.meta_paths, strict=True):
        for path in paths:
            delete_quietly(file_io, path)
        file_io.delete(layout.snapshot_path(table_root, snapshot_id))
    hint = layout.hint_path(layout.snapshot_dir(table_root), layout.HintFile.EARLIEST)
    with contextlib.suppress(StorageError):
        file_io.write_bytes(hint, encode_hint(plan.end))
