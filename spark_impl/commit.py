"""The driver-side committer of spark_impl: commit messages in, snapshots out.

Tasks write data and index files and return :class:`CommitMessage` records; only the driver
runs this module. It is spark_impl's own implementation of the two-phase commit Java 0.9's
``FileStoreCommitImpl`` performs (``reference/store/commit.py`` states the same rules for the
reference), and writes what Java 0.9 reads: manifests and lists with the 0.9 field set,
snapshot version 3 with 0.9's members, the LATEST / EARLIEST hints.

* *Parts.* The messages are flattened once, table-driven (:data:`MESSAGE_FILES`), into an
  APPEND part (new and deleted data files, their changelog, HASH index changes) and a COMPACT
  part (compaction before/after, its changelog, deletion-vector index changes). Each non-empty
  part becomes one snapshot, APPEND (or OVERWRITE) first.
* *File events.* A file's identity is (partition, bucket, level, name, extra files, embedded
  index, external path). Events are grouped by identity and each group folded on its own: an
  ADD makes the file present (a second ADD while present is reported), a DELETE removes a
  present file or, if absent, stays as a DELETE. Survivors keep the position at which they
  became present.
* *Conflicts.* A part that deletes files (or any COMPACT / OVERWRITE part) is checked against
  the live files of the partitions it touches: no duplicate ADD, no DELETE of a file that is
  not live, and for primary-key tables the level >= 1 files of each (partition, bucket, level)
  must have disjoint key ranges. A conflict fails the commit; it is not retried.
* *Manifests.* The previous base and delta lists are merged into the new base list: a full
  rewrite once the manifests after the leading big, delete-free ones reach
  ``manifest.full-compaction-threshold-size`` (only from the first base manifest that holds a
  deleted file on), otherwise groups reaching ``manifest.target-file-size`` are merged and a
  trailing group only with ``manifest.merge-min-count`` members. New manifests roll at the
  target size, measured every 1000 entries.
* *Index manifest.* The previous live index entries, minus deleted slots, plus added ones; a
  slot is (partition, bucket, type), or the file name for the deletion vectors of a
  bucket-unaware table. HASH entries are listed first.
* *Race.* Each snapshot is created with ``FileIO.create_exclusive``; losing the race deletes
  the attempt's meta files, waits (exponential from ``commit.min-retry-wait`` up to
  ``commit.max-retry-wait``, with jitter) and re-plans on the new latest snapshot, at most
  ``commit.max-retries`` times.
* *Overwrite.* Every live data and index file of the replaced partitions is deleted in the
  OVERWRITE snapshot: with ``dynamic-partition-overwrite`` on a partitioned table the
  partitions that receive files, else the partitions matching the static spec (``{}``: all).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import operator
import random
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cmp_to_key
from typing import Any, NamedTuple

from reference import layout
from reference.errors import (
    CommitConflictError,
    PaimonKitError,
    PartialCommitError,
    SnapshotNotFoundError,
    SpecViolation,
    StorageError,
    UnsupportedFeature,
)
from reference.io import FileIO
from reference.spec import manifest as mf
from reference.spec import snapshot as snap
from reference.spec import types as t
from reference.spec.binary_row import NullLayout, deserialize_binary_row, serialize_binary_row
from reference.spec.commit_message import BATCH_COMMIT_IDENTIFIER as BATCH_COMMIT_IDENTIFIER  # noqa: PLC0414
from reference.spec.commit_message import CommitMessage
from reference.spec.compare import compare_rows, compare_values
from reference.spec.data_file import DataFileMeta
from reference.spec.manifest import FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta
from reference.spec.rolling import ROLL_CHECK_INTERVAL
from reference.spec.schema import TableSchema
from reference.spec.snapshot import CommitKind, Snapshot
from reference.spec.stats import SimpleStats
from reference.spec.units import NANOS_PER_MILLI, NANOS_PER_SECOND
from spark_impl.metadata import (
    file_identity,
    find_earliest_snapshot_id,
    find_latest_snapshot_id,
    read_entries,
    read_index_entries,
    read_latest_schema,
    read_latest_snapshot,
    read_live_entries,
    read_manifest,
    read_manifest_list,
    read_snapshot,
    read_snapshot_manifests,
)
from spark_impl.plan import compute_bucket_dir

JITTER = 0.2
MAX_REPORTED = 10
KNOWN_INDEX_TYPES = frozenset({mf.HASH_INDEX_TYPE, mf.DELETION_VECTORS_INDEX_TYPE})
LOG = logging.getLogger(__name__)

# --------------------------------------------------------------------------------------------
# The latest state
# --------------------------------------------------------------------------------------------


def max_sequence_numbers(entries: Iterable[ManifestEntry]) -> dict[tuple[bytes, int], int]:
    """The largest max sequence number of the live files of each (partition, bucket)."""
    ordered = sorted(entries, key=lambda e: (e.partition, e.bucket))
    return {
        slot: max(e.file.max_sequence_number for e in group)
        for slot, group in itertools.groupby(ordered, key=lambda e: (e.partition, e.bucket))
    }


# --------------------------------------------------------------------------------------------
# File events
# --------------------------------------------------------------------------------------------


class Folded(NamedTuple):
    """Entries surviving a replay (in the order they became present) and the entries that
    added a file already present."""

    survivors: list[ManifestEntry]
    added_twice: list[ManifestEntry]


Placed = tuple[int, ManifestEntry]
"""An entry with the position in the replay at which its file became present."""


def _fold_one(events: Sequence[Placed]) -> tuple[Placed | None, list[ManifestEntry]]:
    """One file's events in order: the survivor (``None``: none) and the repeated ADDs."""
    state: Placed | None = None
    repeats = []
    for position, event in events:
        if event.kind is FileKind.ADD:
            if state is not None:
                repeats.append(event)
            state = (state[0] if state is not None else position, event)
        elif state is not None:
            state = None
        else:
            state = (position, event)
    return state, repeats


def fold_events(entries: Iterable[ManifestEntry]) -> Folded:
    """Replay ``entries`` grouped by file identity."""
    by_file: dict[tuple[Any, ...], list[Placed]] = {}
    for position, entry in enumerate(entries):
        by_file.setdefault(file_identity(entry), []).append((position, entry))
    states, repeats = [], []
    for events in by_file.values():
        state, twice = _fold_one(events)
        repeats += twice
        if state is not None:
            states.append(state)
    states.sort(key=operator.itemgetter(0))
    return Folded([entry for _, entry in states], repeats)


def describe(entry: ManifestEntry) -> str:
    return f"{entry.file.file_name} (bucket {entry.bucket}, level {entry.file.level})"


# --------------------------------------------------------------------------------------------
# Parts of a commit
# --------------------------------------------------------------------------------------------


class Part(NamedTuple):
    """One snapshot's worth of changes."""

    kind: CommitKind
    table: tuple[ManifestEntry, ...] = ()
    changelog: tuple[ManifestEntry, ...] = ()
    indexes: tuple[IndexManifestEntry, ...] = ()


def has_changes(part: Part) -> bool:
    return any(part[1:])


MESSAGE_FILES: tuple[tuple[CommitKind, str, str, str, FileKind], ...] = (
    (CommitKind.APPEND, "table", "data", "new_files", FileKind.ADD),
    (CommitKind.APPEND, "table", "data", "deleted_files", FileKind.DELETE),
    (CommitKind.APPEND, "changelog", "data", "changelog_files", FileKind.ADD),
    (CommitKind.COMPACT, "table", "compaction", "compact_before", FileKind.DELETE),
    (CommitKind.COMPACT, "table", "compaction", "compact_after", FileKind.ADD),
    (CommitKind.COMPACT, "changelog", "compaction", "changelog_files", FileKind.ADD),
)
"""Where each message's data files go: (part, list, increment, field, entry kind)."""


def _index_part(index_type: str) -> CommitKind:
    """HASH index changes ride with the data, deletion vectors with the compaction."""
    if index_type not in KNOWN_INDEX_TYPES:
        raise UnsupportedFeature(f"index type {index_type!r}")
    return CommitKind.COMPACT if index_type == mf.DELETION_VECTORS_INDEX_TYPE else CommitKind.APPEND


def split_parts(messages: Sequence[CommitMessage]) -> tuple[Part, Part]:
    """The APPEND part and the COMPACT part of ``messages``."""
    lists: dict[tuple[CommitKind, str], list[Any]] = {
        (kind, name): []
        for kind in (CommitKind.APPEND, CommitKind.COMPACT)
        for name in ("table", "changelog", "index")
    }
    for message in messages:
        for kind, target, increment, attribute, file_kind in MESSAGE_FILES:
            metas: Sequence[DataFileMeta] = getattr(getattr(message, increment), attribute)
            lists[kind, target] += [
                ManifestEntry(
                    file_kind, message.partition, message.bucket, message.total_buckets, m
                )
                for m in metas
            ]
        index = message.index
        changed = [(FileKind.ADD, f) for f in index.new_index_files]
        changed += [(FileKind.DELETE, f) for f in index.deleted_index_files]
        for file_kind, index_file in changed:
            lists[_index_part(index_file.index_type), "index"].append(
                IndexManifestEntry(file_kind, message.partition, message.bucket, index_file)
            )
    append, compact = (
        Part(kind, *(tuple(lists[kind, name]) for name in ("table", "changelog", "index")))
        for kind in (CommitKind.APPEND, CommitKind.COMPACT)
    )
    return append, compact


# --------------------------------------------------------------------------------------------
# Conflicts
# --------------------------------------------------------------------------------------------


def overlapping_key_ranges(
    live: Sequence[ManifestEntry], key_types: Sequence[t.DataType]
) -> list[str]:
    """Neighbours (by min key) on one level >= 1 of a bucket whose key ranges meet."""
    upper = [e for e in live if e.file.level >= 1]
    bounds = {
        id(e): (
            deserialize_binary_row(e.file.min_key, key_types),
            deserialize_binary_row(e.file.max_key, key_types),
        )
        for e in upper
    }

    def slot(entry: ManifestEntry) -> tuple[bytes, int, int]:
        return entry.partition, entry.bucket, entry.file.level

    def by_slot_then_min(left: ManifestEntry, right: ManifestEntry) -> int:
        if slot(left) != slot(right):
            return -1 if slot(left) < slot(right) else 1
        return compare_rows(key_types, bounds[id(left)][0], bounds[id(right)][0])

    ordered = sorted(upper, key=cmp_to_key(by_slot_then_min))
    return [
        f"key ranges of {describe(a)} and {describe(b)} overlap"
        for a, b in itertools.pairwise(ordered)
        if slot(a) == slot(b) and compare_rows(key_types, bounds[id(a)][1], bounds[id(b)][0]) >= 0
    ]


def conflicts_of(live: Sequence[ManifestEntry], part: Part, schema: TableSchema) -> list[str]:
    """What is wrong with applying ``part`` to the ``live`` files."""
    touched = {e.partition for e in part.table}
    folded = fold_events([*(e for e in live if e.partition in touched), *part.table])
    problems = [f"{describe(e)} is added twice" for e in folded.added_twice]
    problems += [
        f"{describe(e)} is deleted but not live"
        for e in folded.survivors
        if e.kind is FileKind.DELETE
    ]
    if problems or not schema.is_primary_key_table:
        return problems
    key_types = [f.type for f in schema.trimmed_primary_keys_type.fields]
    return overlapping_key_ranges(folded.survivors, key_types)


def is_checked(part: Part) -> bool:
    """Only an APPEND part that deletes nothing skips the conflict check."""
    deletes = any(e.kind is FileKind.DELETE for e in part.table)
    return deletes or part.kind is not CommitKind.APPEND


def ensure_no_conflict(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    latest: Snapshot | None,
    part: Part,
    *,
    pending: Sequence[ManifestEntry] = (),
) -> None:
    """Raise :class:`CommitConflictError` (not retryable) when ``part`` conflicts with the
    latest snapshot (plus the ``pending`` entries of an earlier part of the same commit)."""
    if not is_checked(part):
        return
    base = fold_events([*read_live_entries(file_io, table_root, latest), *pending]).survivors
    problems = conflicts_of(base, part, schema)
    if not problems:
        return
    against = "an empty table" if latest is None else f"snapshot {latest.id}"
    listed = "; ".join(problems[:MAX_REPORTED])
    raise CommitConflictError(
        f"{part.kind.value} commit conflicts with {against}: {listed}",
        path=table_root,
        retryable=False,
    )


# --------------------------------------------------------------------------------------------
# Meta files of one attempt
# --------------------------------------------------------------------------------------------


@dataclass
class Attempt:
    """The meta files one commit attempt writes (one uuid, a counter per kind), remembered so
    that a lost race can delete them."""

    file_io: FileIO
    table_root: str
    schema: TableSchema
    token: str = field(default_factory=lambda: str(uuid.uuid4()))
    counters: dict[str, Iterator[int]] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)

    def setting(self, key: str) -> Any:
        return self.schema.core_options.get(key)

    def codec(self) -> tuple[Any, dict[str, Any]]:
        options = self.schema.core_options
        fmt = mf.parse_manifest_format(options.manifest_format)
        return fmt, {"field_set": mf.DEFAULT_FIELD_SET, "compression": options.manifest_compression}

    def store(self, namer: Callable[[str, int], str], data: bytes) -> str:
        number = next(self.counters.setdefault(namer.__name__, itertools.count()))
        name = namer(self.token, number)
        self.names.append(name)
        self.file_io.write_bytes(layout.manifest_path(self.table_root, name), data)
        return name

    def discard(self) -> None:
        for name in self.names:
            with contextlib.suppress(StorageError):
                self.file_io.delete(layout.manifest_path(self.table_root, name))


def encode_entries(attempt: Attempt, entries: Sequence[ManifestEntry]) -> bytes:
    fmt, settings = attempt.codec()
    return mf.encode_manifest_entries(entries, fmt, **settings)


def _extreme(values: Sequence[Any], data_type: t.DataType, largest: bool) -> Any:
    present = [v for v in values if v is not None]
    if not present:
        return None
    key = cmp_to_key(lambda a, b: compare_values(data_type, a, b))
    return max(present, key=key) if largest else min(present, key=key)


def partition_stats(partitions: Sequence[bytes], fields: Sequence[t.DataField]) -> SimpleStats:
    """Min, max and null count of each partition field over the entries (0.9 row layout)."""
    types = [f.type for f in fields]
    decoded = {p: deserialize_binary_row(p, types) for p in set(partitions)}
    columns = list(zip(*(decoded[p] for p in partitions), strict=True)) or [()] * len(types)
    lows = [_extreme(c, dt, largest=False) for c, dt in zip(columns, types, strict=True)]
    highs = [_extreme(c, dt, largest=True) for c, dt in zip(columns, types, strict=True)]
    nulls = tuple(sum(v is None for v in c) for c in columns)
    zero_slot = NullLayout.ZERO_SLOT
    return SimpleStats(
        serialize_binary_row(lows, types, null_layout=zero_slot),
        serialize_binary_row(highs, types, null_layout=zero_slot),
        nulls,
    )


def store_manifest(attempt: Attempt, entries: Sequence[ManifestEntry]) -> ManifestFileMeta:
    data = encode_entries(attempt, entries)
    name = attempt.store(layout.manifest_file_name, data)
    kinds = [e.kind for e in entries]
    partitions = [e.partition for e in entries]
    fields = attempt.schema.partition_type.fields
    schema_id = max((e.file.schema_id for e in entries), default=attempt.schema.id)
    added = kinds.count(FileKind.ADD)
    stats = partition_stats(partitions, fields)
    return ManifestFileMeta(name, len(data), added, len(kinds) - added, stats, schema_id)


def store_rolled(attempt: Attempt, entries: Sequence[ManifestEntry]) -> list[ManifestFileMeta]:
    """``entries`` as manifests, a new one started once the encoded size, measured at every
    1000th entry, reaches ``manifest.target-file-size``."""
    target: int = attempt.setting("manifest.target-file-size")
    stored: list[ManifestFileMeta] = []
    start = 0
    for stop in range(ROLL_CHECK_INTERVAL, len(entries) + 1, ROLL_CHECK_INTERVAL):
        if len(encode_entries(attempt, entries[start:stop])) >= target:
            stored.append(store_manifest(attempt, entries[start:stop]))
            start = stop
    if start < len(entries):
        stored.append(store_manifest(attempt, entries[start:]))
    return stored


def store_list(attempt: Attempt, metas: Sequence[ManifestFileMeta]) -> str:
    """A manifest list in the 0.9 field set (no bucket, level or row-id ranges)."""
    stripped = [
        replace(m, min_bucket=None, max_bucket=None, min_level=None, max_level=None) for m in metas
    ]
    stripped = [replace(m, min_row_id=None, max_row_id=None) for m in stripped]
    fmt, settings = attempt.codec()
    return attempt.store(
        layout.manifest_list_file_name, mf.encode_manifest_list(stripped, fmt, **settings)
    )


def _merged_entries(attempt: Attempt, metas: Sequence[ManifestFileMeta]) -> list[ManifestEntry]:
    folded = fold_events(read_entries(attempt.file_io, attempt.table_root, metas))
    if folded.added_twice:
        listed = "; ".join(f"{describe(e)} is added twice" for e in folded.added_twice)
        raise SpecViolation(f"cannot merge manifests: {listed}", code="MANIFEST_DUPLICATE_ADD")
    return folded.survivors


def rewrite_all(
    attempt: Attempt, metas: Sequence[ManifestFileMeta]
) -> list[ManifestFileMeta] | None:
    """The full manifest compaction, or ``None`` below its threshold."""
    target: int = attempt.setting("manifest.target-file-size")
    threshold: int = attempt.setting("manifest.full-compaction-threshold-size")
    settled = list(
        itertools.takewhile(lambda m: m.num_deleted_files == 0 and m.file_size >= target, metas)
    )
    rest = metas[len(settled) :]
    if sum(m.file_size for m in rest) < threshold:
        return None
    delta = _merged_entries(attempt, rest)
    removed = {file_identity(e) for e in delta if e.kind is FileKind.DELETE}
    read = [read_manifest(attempt.file_io, attempt.table_root, m.file_name) for m in settled]
    hit = [any(file_identity(e) in removed for e in entries) for entries in read]
    first_hit = hit.index(True) if True in hit else len(settled)
    carried = [
        e for entries in read[first_hit:] for e in entries if file_identity(e) not in removed
    ]
    carried += [e for e in delta if e.kind is FileKind.ADD]
    return settled[:first_hit] + store_rolled(attempt, carried)


def merge_groups(attempt: Attempt, metas: Sequence[ManifestFileMeta]) -> list[ManifestFileMeta]:
    """The minor manifest compaction: consecutive groups reaching the target size are merged,
    the trailing group only when it has ``manifest.merge-min-count`` manifests."""
    target: int = attempt.setting("manifest.target-file-size")
    min_count: int = attempt.setting("manifest.merge-min-count")
    groups: list[tuple[list[ManifestFileMeta], bool]] = [([], False)]
    total = 0
    for meta in metas:
        groups[-1][0].append(meta)
        total += meta.file_size
        if total >= target:
            groups[-1] = (groups[-1][0], True)
            groups.append(([], False))
            total = 0
    tail = groups[-1][0]
    groups[-1] = (tail, len(tail) >= min_count)
    result: list[ManifestFileMeta] = []
    for group, merged in groups:
        rewrite = merged and len(group) > 1
        result += store_rolled(attempt, _merged_entries(attempt, group)) if rewrite else group
    return result


def next_base(attempt: Attempt, metas: Sequence[ManifestFileMeta]) -> list[ManifestFileMeta]:
    full = rewrite_all(attempt, metas)
    return merge_groups(attempt, metas) if full is None else full


def next_index(
    previous: Sequence[IndexManifestEntry], changes: Sequence[IndexManifestEntry], unaware: bool
) -> list[IndexManifestEntry]:
    """The live index entries after ``changes`` (HASH entries first)."""

    def slot(entry: IndexManifestEntry) -> tuple[Any, ...]:
        index_file = entry.index_file
        if unaware and index_file.index_type == mf.DELETION_VECTORS_INDEX_TYPE:
            return (index_file.file_name,)
        return entry.partition, entry.bucket, index_file.index_type

    live = {slot(e): e for e in previous}
    for gone in [slot(e) for e in changes if e.kind is FileKind.DELETE]:
        live.pop(gone, None)
    live.update((slot(e), e) for e in changes if e.kind is FileKind.ADD)
    return sorted(live.values(), key=lambda e: e.index_file.index_type != mf.HASH_INDEX_TYPE)


# --------------------------------------------------------------------------------------------
# One snapshot
# --------------------------------------------------------------------------------------------


def _row_delta(entries: Iterable[ManifestEntry]) -> int:
    signs = {FileKind.ADD: 1, FileKind.DELETE: -1}
    return sum(signs[e.kind] * e.file.row_count for e in entries)


def build_snapshot(
    attempt: Attempt, latest: Snapshot | None, part: Part, user: str, identifier: int
) -> Snapshot:
    """Write the attempt's manifests and lists and return the snapshot naming them."""
    io, root, schema = attempt.file_io, attempt.table_root, attempt.schema
    previous = [] if latest is None else read_snapshot_manifests(io, root, latest)
    members: dict[str, Any] = {
        "base_manifest_list": store_list(attempt, next_base(attempt, previous)),
        "delta_manifest_list": store_list(attempt, store_rolled(attempt, part.table)),
        "changelog_manifest_list": None,
        "index_manifest": None if latest is None else latest.index_manifest,
    }
    if part.changelog:
        members["changelog_manifest_list"] = store_list(
            attempt, store_rolled(attempt, part.changelog)
        )
    if part.indexes:
        unaware = schema.num_buckets == -1 and not schema.is_primary_key_table
        entries = next_index(read_index_entries(io, root, latest), part.indexes, unaware)
        fmt, settings = attempt.codec()
        data = mf.encode_index_manifest(entries, fmt, **settings)
        members["index_manifest"] = attempt.store(layout.index_manifest_file_name, data)
    delta = _row_delta(part.table)
    before = 0
    if latest is not None and latest.total_record_count is not None:
        before = latest.total_record_count
    elif latest is not None:
        before = sum(e.file.row_count for e in read_live_entries(io, root, latest))
    inherited = latest is not None and latest.schema_id == schema.id
    members.update(
        {
            "version": snap.CURRENT_SNAPSHOT_VERSION,
            "id": snap.FIRST_SNAPSHOT_ID if latest is None else latest.id + 1,
            "schema_id": schema.id,
            "commit_user": user,
            "commit_identifier": identifier,
            "commit_kind": part.kind,
            "time_millis": time.time_ns() // NANOS_PER_MILLI,
            "log_offsets": {} if latest is None else dict(latest.log_offsets or {}),
            "total_record_count": before + delta,
            "delta_record_count": delta,
            "changelog_record_count": sum(e.file.row_count for e in part.changelog),
            "watermark": None if latest is None else latest.watermark,
            "statistics": latest.statistics if inherited and latest is not None else None,
            "null_members": snap.JAVA_0_9_NULL_MEMBERS,
        }
    )
    return Snapshot(**members)


def publish_hints(file_io: FileIO, table_root: str, snapshot_id: int) -> None:
    """LATEST, and EARLIEST for the first snapshot (best effort: readers fall back to listing)."""
    first = snapshot_id == snap.FIRST_SNAPSHOT_ID
    hints = (
        (layout.HintFile.LATEST, layout.HintFile.EARLIEST) if first else (layout.HintFile.LATEST,)
    )
    directory = layout.snapshot_dir(table_root)
    for hint in hints:
        with contextlib.suppress(StorageError):
            file_io.write_bytes(layout.hint_path(directory, hint), snap.encode_hint(snapshot_id))


PartFor = Callable[[Snapshot | None], Part]
"""A part as a function of the latest snapshot (an overwrite deletes what is live then)."""


def retry_wait(options: Any, attempt_number: int) -> float:
    """Seconds before the next attempt: exponential, capped, with up to 20% jitter."""
    low: int = options.get("commit.min-retry-wait")
    high: int = options.get("commit.max-retry-wait")
    wait = min(low * 2.0**attempt_number, float(high)) / NANOS_PER_SECOND
    return wait + random.uniform(0.0, wait * JITTER)


def create_snapshot_file(
    file_io: FileIO, table_root: str, snapshot: Snapshot, uncertain: dict[str, int]
) -> bool:
    """Create the snapshot file: True if this call created it, False if another commit had
    the name. When the call fails the outcome is unknown (the store may have created the file
    before the failure reached us): the attempt is remembered in ``uncertain`` (by its delta
    manifest list, unique to the attempt) and its meta files are kept, so that the snapshot
    is whole if it did land; :func:`find_own_snapshot` settles it before the next attempt."""
    payload = snap.encode_snapshot(snapshot).encode("utf-8")
    path = layout.snapshot_path(table_root, snapshot.id)
    try:
        return file_io.create_exclusive(path, payload)
    except StorageError as error:
        LOG.warning("creating %s failed, its outcome is unknown: %s", path, error)
        uncertain[snapshot.delta_manifest_list] = snapshot.id
        return False


def find_own_snapshot(
    file_io: FileIO, table_root: str, uncertain: Mapping[str, int], latest: Snapshot | None
) -> Snapshot | None:
    """The snapshot one of the ``uncertain`` attempts created after all, if any (Java's
    ``filterCommitted`` before a retry, narrowed to this commit's own attempts)."""
    if not uncertain or latest is None:
        return None
    for snapshot_id in range(min(uncertain.values()), latest.id + 1):
        try:
            candidate = read_snapshot(file_io, table_root, snapshot_id)
        except SnapshotNotFoundError:
            continue
        if uncertain.get(candidate.delta_manifest_list) == candidate.id:
            return candidate
    return None


def publish(
    file_io: FileIO,
    table_root: str,
    part_for: PartFor,
    *,
    user: str,
    identifier: int,
    max_retries: int | None,
) -> Snapshot:
    """Create the next snapshot for ``part_for``; re-plan and retry on a lost race or on a
    snapshot write whose outcome is unknown (never creating a second snapshot for it)."""
    attempt_number = 0
    uncertain: dict[str, int] = {}
    while True:
        latest = read_latest_snapshot(file_io, table_root)
        own = find_own_snapshot(file_io, table_root, uncertain, latest)
        if own is not None:
            publish_hints(file_io, table_root, own.id)
            return own
        schema = read_latest_schema(file_io, table_root)
        part = part_for(latest)
        ensure_no_conflict(file_io, table_root, schema, latest, part)
        attempt = Attempt(file_io, table_root, schema)
        try:
            snapshot = build_snapshot(attempt, latest, part, user, identifier)
        except BaseException:
            attempt.discard()
            raise
        if create_snapshot_file(file_io, table_root, snapshot, uncertain):
            publish_hints(file_io, table_root, snapshot.id)
            return snapshot
        if snapshot.delta_manifest_list not in uncertain:
            attempt.discard()
        options = schema.core_options
        allowed = options.get("commit.max-retries") if max_retries is None else max_retries
        if attempt_number >= allowed:
            own = find_own_snapshot(
                file_io, table_root, uncertain, read_latest_snapshot(file_io, table_root)
            )
            if own is not None:
                publish_hints(file_io, table_root, own.id)
                return own
            unknown = " (the outcome of some attempts is unknown)" if uncertain else ""
            raise CommitConflictError(
                f"gave up: other commits kept creating the next snapshot first{unknown}",
                path=table_root,
                retryable=True,
            )
        time.sleep(retry_wait(options, attempt_number))
        attempt_number += 1


# --------------------------------------------------------------------------------------------
# Overwrite and the commit
# --------------------------------------------------------------------------------------------


def static_spec_matcher(
    spec: Mapping[str, Any], fields: Sequence[t.DataField]
) -> Callable[[bytes], bool]:
    """Whether a partition row has the spec's value in every field the spec names."""
    named = [(i, f.type, spec[f.name]) for i, f in enumerate(fields) if f.name in spec]
    types = [f.type for f in fields]

    def matches(partition: bytes) -> bool:
        if not named:
            return True
        row = deserialize_binary_row(partition, types)
        return all(compare_values(dt, row[i], wanted) == 0 for i, dt, wanted in named)

    return matches


class Overwrite(NamedTuple):
    """What an overwrite replaces: the static partition spec (``{}``: every partition), unless
    the overwrite is dynamic (``dynamic``: the write option, ``None``: the table's option)."""

    spec: Mapping[str, Any]
    dynamic: bool | None = None
    partitions: frozenset[bytes] | None = None
    """Set: exactly these partitions (serialized) are replaced (DELETE dropping partitions)."""


def overwrite_part(io: FileIO, root: str, append: Part, request: Overwrite) -> PartFor | None:
    """The OVERWRITE part as a function of the latest snapshot (``None``: nothing to do)."""
    file_io, table_root, spec = io, root, request.spec
    schema = read_latest_schema(file_io, table_root)
    dynamic_option = schema.core_options.get("dynamic-partition-overwrite")
    chosen = dynamic_option if request.dynamic is None else request.dynamic
    dynamic = bool(schema.partition_keys) and bool(chosen) and request.partitions is None
    if dynamic and not append.table:
        return None
    if request.partitions is not None:
        replaced: Callable[[bytes], bool] = request.partitions.__contains__
    elif dynamic:
        receiving = frozenset(e.partition for e in append.table)
        replaced = receiving.__contains__
    else:
        unknown = sorted(set(spec).difference(schema.partition_keys))
        if unknown:
            raise SpecViolation(
                f"overwrite spec names {unknown}, which are not partition keys",
                code="OVERWRITE_UNKNOWN_PARTITION_KEY",
            )
        replaced = static_spec_matcher(spec, schema.partition_type.fields)
        outside = next((e for e in append.table if not replaced(e.partition)), None)
        if outside is not None:
            raise SpecViolation(
                f"overwriting {dict(spec)} but {outside.file.file_name} is elsewhere",
                code="OVERWRITE_OUTSIDE_PARTITION",
            )

    def part_for(latest: Snapshot | None) -> Part:
        dropped = [
            replace(e, kind=FileKind.DELETE)
            for e in read_live_entries(file_io, table_root, latest)
            if replaced(e.partition)
        ]
        dropped_index = [
            replace(e, kind=FileKind.DELETE)
            for e in read_index_entries(file_io, table_root, latest)
            if replaced(e.partition)
        ]
        table = (*dropped, *append.table)
        return Part(CommitKind.OVERWRITE, table, (), (*dropped_index, *append.indexes))

    return part_for


def find_committed(
    file_io: FileIO, table_root: str, user: str, identifier: int
) -> tuple[Snapshot, ...] | None:
    """The snapshots ``user`` committed with ``identifier``, or ``None`` when that identifier
    is not committed yet (Java ``FileStoreCommitImpl.filterCommitted``: committed when the
    user's latest snapshot has an identifier at least as large). Scans from the latest
    snapshot down to the user's last snapshot with a smaller identifier."""
    latest = find_latest_snapshot_id(file_io, table_root)
    earliest = find_earliest_snapshot_id(file_io, table_root)
    if latest is None or earliest is None:
        return None
    found: list[Snapshot] = []
    newest_of_user: int | None = None
    for snapshot_id in range(latest, earliest - 1, -1):
        try:
            snapshot = read_snapshot(file_io, table_root, snapshot_id)
        except SnapshotNotFoundError:
            break  # expired while we looked: older ones are gone too
        if snapshot.commit_user != user:
            continue
        newest_of_user = snapshot.commit_identifier if newest_of_user is None else newest_of_user
        if snapshot.commit_identifier < identifier:
            break
        if snapshot.commit_identifier == identifier:
            found.append(snapshot)
    if newest_of_user is None or newest_of_user < identifier:
        return None
    return tuple(reversed(found))


class CommitOutcome(NamedTuple):
    """What one commit did, for callers that must tell their user exactly what landed."""

    snapshots: tuple[Snapshot, ...]
    """The snapshots this call created (APPEND or OVERWRITE first, then COMPACT)."""
    earlier: tuple[Snapshot, ...] | None = None
    """Not ``None``: the user had committed this identifier already (a retry of the same job);
    this call committed nothing and these are the snapshots found of the earlier run."""
    dropped: PaimonKitError | None = None
    """Not ``None``: the compaction was dropped for this reason (``optional_compaction``)."""


def plan_steps(
    file_io: FileIO,
    root: str,
    messages: Sequence[CommitMessage],
    overwrite: Overwrite | None,
) -> tuple[list[PartFor], Part]:
    """The first snapshot's part (APPEND or OVERWRITE; none when it has no changes) and the
    COMPACT part of ``messages``."""
    append, compact = split_parts(messages)
    if overwrite is not None:
        first = overwrite_part(file_io, root, append, overwrite)
        return ([first] if first is not None else []), compact._replace(changelog=())
    return ([lambda _latest: append] if has_changes(append) else []), compact


def check_compaction(
    file_io: FileIO, root: str, steps: Sequence[PartFor], compact: Part
) -> CommitConflictError | None:
    """The up-front check of the COMPACT part against the latest snapshot plus the first
    part: its conflict, so that nothing is published when the compaction cannot follow."""
    latest = read_latest_snapshot(file_io, root)
    schema = read_latest_schema(file_io, root)
    pending = steps[0](latest).table if steps else ()
    try:
        ensure_no_conflict(file_io, root, schema, latest, compact, pending=pending)
    except CommitConflictError as error:
        return error
    return None


def as_conflict(error: Exception, root: str) -> CommitConflictError:
    if isinstance(error, CommitConflictError):
        return error
    reason = f"the COMPACT snapshot was not committed: {type(error).__name__}: {error}"
    return CommitConflictError(reason, path=root, retryable=True)


def commit_write(
    file_io: FileIO,
    table_root: str,
    messages: Sequence[CommitMessage],
    *,
    overwrite: Overwrite | None = None,
    commit_user: str | None = None,
    commit_identifier: int = BATCH_COMMIT_IDENTIFIER,
    max_retries: int | None = None,
    optional_compaction: bool = False,
) -> CommitOutcome:
    """Commit ``messages`` as at most two snapshots (APPEND or OVERWRITE, then COMPACT) and
    say exactly what landed.

    * A ``commit_user`` and a ``commit_identifier`` other than the batch one, given by the
      caller, make the commit idempotent: when that user has committed that identifier
      already (the same job run again after an unknown outcome), nothing is committed and
      :attr:`CommitOutcome.earlier` names what landed then. Without one, a fresh user is
      drawn and only this call's own attempts are checked (:func:`publish`).
    * The compaction is the part that can lose: its conflicts are checked before anything is
      published, and again when it is published after the first snapshot. With
      ``optional_compaction`` a losing compaction is dropped (:attr:`CommitOutcome.dropped`;
      its output files are then referenced by no snapshot); without it, a conflict before
      anything landed raises :class:`CommitConflictError`, and one after the first snapshot
      landed raises :class:`PartialCommitError` naming the landed snapshot.
    """
    root = table_root.rstrip("/")
    if commit_user is not None and commit_identifier != BATCH_COMMIT_IDENTIFIER:
        earlier = find_committed(file_io, root, commit_user, commit_identifier)
        if earlier is not None:
            return CommitOutcome((), earlier)
    user = commit_user or str(uuid.uuid4())
    steps, compact = plan_steps(file_io, root, messages, overwrite)
    dropped: PaimonKitError | None = None
    if has_changes(compact):
        dropped = check_compaction(file_io, root, steps, compact)
        if dropped is not None and not (optional_compaction and steps):
            raise dropped
        steps += [] if dropped is not None else [lambda _latest: compact]
    published, lost = publish_steps(
        file_io,
        root,
        steps,
        user=user,
        identifier=commit_identifier,
        max_retries=max_retries,
        optional_compaction=optional_compaction,
    )
    return CommitOutcome(tuple(published), None, lost if lost is not None else dropped)


def publish_steps(
    file_io: FileIO,
    root: str,
    steps: Sequence[PartFor],
    *,
    user: str,
    identifier: int,
    max_retries: int | None,
    optional_compaction: bool,
) -> tuple[list[Snapshot], PaimonKitError | None]:
    """Publish ``steps`` in order; the snapshots that landed and, with
    ``optional_compaction``, the error of a later step that lost (the data step landed).
    A failure of the first step is raised as it is; one after it landed raises
    :class:`PartialCommitError` unless the compaction is optional."""
    published: list[Snapshot] = []
    for step in steps:
        try:
            published.append(
                publish(
                    file_io, root, step, user=user, identifier=identifier, max_retries=max_retries
                )
            )
        except PaimonKitError as error:
            if not published:
                raise
            if optional_compaction:
                return published, error
            landed = tuple(s.id for s in published)
            raise PartialCommitError(
                f"snapshot {landed[0]} ({published[0].commit_kind.value}) landed, the "
                f"compaction after it failed: {error}",
                landed=landed,
                cause=as_conflict(error, root),
            ) from error
    return published, None


def commit_compaction(
    file_io: FileIO,
    table_root: str,
    messages: Sequence[CommitMessage],
    *,
    commit_user: str,
    commit_identifier: int,
    max_retries: int | None = None,
) -> Snapshot | None:
    """Commit compaction-only ``messages`` as one COMPACT snapshot under the commit user and
    identifier of the write whose compaction they redo (that write's APPEND or OVERWRITE
    snapshot landed under them, so :func:`find_committed` is not asked). A conflict with the
    latest snapshot raises :class:`CommitConflictError`; ``None``: nothing to commit."""
    root = table_root.rstrip("/")
    append, compact = split_parts(messages)
    if has_changes(append):
        raise SpecViolation(
            "a compaction commit carries new or deleted data files",
            path=root,
            code="COMPACTION_WITH_DATA",
        )
    if not has_changes(compact):
        return None
    return publish(
        file_io,
        root,
        lambda _latest: compact,
        user=commit_user,
        identifier=commit_identifier,
        max_retries=max_retries,
    )


def commit(
    file_io: FileIO,
    table_root: str,
    messages: Sequence[CommitMessage],
    *,
    overwrite: Mapping[str, Any] | None = None,
    dynamic_overwrite: bool | None = None,
    overwrite_partitions: frozenset[bytes] | None = None,
    commit_user: str | None = None,
    commit_identifier: int = BATCH_COMMIT_IDENTIFIER,
    max_retries: int | None = None,
) -> list[Snapshot]:
    """Commit ``messages`` as at most two snapshots (APPEND or OVERWRITE, then COMPACT); see
    :func:`commit_write` (compaction required: a compaction failing after the first snapshot
    landed raises :class:`PartialCommitError`; an identifier committed earlier returns the
    snapshots of that earlier commit).

    ``overwrite`` is ``None`` for a normal commit, else the static partition spec (``{}``: the
    whole table; ignored by a dynamic partition overwrite). ``dynamic_overwrite`` overrides the
    table's ``dynamic-partition-overwrite`` (a write option); ``overwrite_partitions``, with
    ``overwrite``, names the partitions replaced instead."""
    request = (
        None if overwrite is None else Overwrite(overwrite, dynamic_overwrite, overwrite_partitions)
    )
    outcome = commit_write(
        file_io,
        table_root,
        messages,
        overwrite=request,
        commit_user=commit_user,
        commit_identifier=commit_identifier,
        max_retries=max_retries,
    )
    return list(outcome.snapshots if outcome.earlier is None else outcome.earlier)


def message_file_paths(
    table_root: str,
    messages: Sequence[CommitMessage],
    bucket_dirs: Callable[[CommitMessage], str],
) -> list[str]:
    """The files ``messages`` made (data, changelog, compaction output, index files). Files
    of the base snapshot that a compaction read or only moved to another level are not."""
    paths: list[str] = []
    for message in messages:
        written = {m.file_name for m in message.data.new_files}
        untouched = {m.file_name for m in message.compaction.compact_before} - written
        made = itertools.chain(
            message.data.new_files,
            message.data.changelog_files,
            message.compaction.compact_after,
            message.compaction.changelog_files,
        )
        directory = bucket_dirs(message)
        paths += [
            layout.data_file_path(directory, m.file_name, m.external_path)
            for m in made
            if m.file_name not in untouched
        ]
        paths += [
            layout.index_file_path(table_root, f.file_name) for f in message.index.new_index_files
        ]
    return paths


def _names_of_snapshot(
    file_io: FileIO, table_root: str, snapshot: Snapshot, seen: set[str], names: set[str]
) -> None:
    """Add to ``names`` every data and index file ``snapshot`` references (its base, delta
    and changelog manifests and its index manifest); ``seen``: manifests read already."""
    lists = (
        snapshot.base_manifest_list,
        snapshot.delta_manifest_list,
        snapshot.changelog_manifest_list,
    )
    for list_name in (name for name in lists if name is not None):
        for meta in read_manifest_list(file_io, table_root, list_name):
            if meta.file_name not in seen:
                seen.add(meta.file_name)
                entries = read_manifest(file_io, table_root, meta.file_name)
                names.update(e.file.file_name for e in entries)
                names.update(extra for e in entries for extra in e.file.extra_files)
    names.update(e.index_file.file_name for e in read_index_entries(file_io, table_root, snapshot))


def read_referenced_names(file_io: FileIO, table_root: str, since: int | None) -> set[str]:
    """The names of the files referenced by any snapshot newer than ``since`` (``None``:
    every snapshot). A file a write made can only be referenced by a snapshot committed after
    the write began, so ``since`` is the latest snapshot id when it began."""
    latest = find_latest_snapshot_id(file_io, table_root)
    earliest = find_earliest_snapshot_id(file_io, table_root)
    if latest is None or earliest is None:
        return set()
    first = earliest if since is None else max(earliest, since + 1)
    seen: set[str] = set()
    names: set[str] = set()
    for snapshot_id in range(first, latest + 1):
        try:
            snapshot = read_snapshot(file_io, table_root, snapshot_id)
        except SnapshotNotFoundError:
            continue  # expired meanwhile: its live files are in the newer snapshots
        _names_of_snapshot(file_io, table_root, snapshot, seen, names)
    return names


def delete_unreferenced(
    file_io: FileIO, table_root: str, paths: Sequence[str], *, since: int | None = None
) -> list[str]:
    """Delete those of ``paths`` that no published snapshot references and return them.

    Checked against the snapshots on the store, never against what the writer believes
    landed: Spark calls ``abort`` after a ``commit`` that raised, and a commit can raise after
    one of its snapshots landed. When the snapshots cannot be read, nothing is deleted (the
    orphan-file cleaner removes the files later)."""
    if not paths:
        return []
    root = table_root.rstrip("/")
    try:
        referenced = read_referenced_names(file_io, root, since)
    except PaimonKitError as error:
        LOG.warning(
            "keeping %d written files of %s: snapshots unreadable: %s", len(paths), root, error
        )
        return []
    doomed = [path for path in paths if path.rpartition("/")[2] not in referenced]
    for path in doomed:
        with contextlib.suppress(StorageError):
            file_io.delete(path)
    return doomed


def delete_message_files(
    file_io: FileIO,
    table_root: str,
    messages: Sequence[CommitMessage],
    bucket_dirs: Callable[[CommitMessage], str],
    *,
    since: int | None = None,
) -> list[str]:
    """Best-effort removal of the files ``messages`` made that no snapshot newer than
    ``since`` references (abort, a dropped compaction, a job already committed)."""
    paths = message_file_paths(table_root, messages, bucket_dirs)
    return delete_unreferenced(file_io, table_root, paths, since=since)


def delete_written_files(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    messages: Sequence[CommitMessage],
    *,
    since: int | None,
) -> list[str]:
    """:func:`delete_message_files` with each message's bucket directory laid out by
    ``schema`` (its partition decoded with the schema's partition types)."""
    types = [f.type for f in schema.partition_type.fields]

    def directory(message: CommitMessage) -> str:
        partition = deserialize_binary_row(message.partition, types)
        return compute_bucket_dir(table_root, schema, partition, message.bucket)

    return delete_message_files(file_io, table_root, messages, directory, since=since)
