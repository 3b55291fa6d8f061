"""The driver-side committer of spark_impl: commit messages in, snapshots out.

An independent implementation of the two-phase commit that ``reference/store/commit.py``
specifies (Java 0.9 ``FileStoreCommitImpl``), writing what Java 0.9 reads: manifests and
manifest lists with the 0.9 field set, snapshot version 3 in 0.9's layout, hints.

1. Messages become manifest entries: new / deleted data files (APPEND part), compaction before
   (DELETE) / after (ADD) (COMPACT part), changelog files of each part, index file changes (HASH
   with the data, DELETION_VECTORS with the compaction).
2. At most two snapshots: APPEND (or OVERWRITE) then COMPACT, each created with
   ``FileIO.create_exclusive`` on ``snapshot-<latest + 1>``; LATEST (and EARLIEST for snapshot 1)
   hints afterwards.
3. The base manifest list is the previous base + delta, merged (full compaction once the delta
   reaches ``manifest.full-compaction-threshold-size``, else minor compaction by
   ``manifest.target-file-size`` / ``manifest.merge-min-count``); the delta list holds this
   snapshot's entries; manifests roll at the target size (checked every 1000 entries).
4. The index manifest is the previous one with this snapshot's index changes (one file per
   partition, bucket and type; deletion vectors of bucket-unaware tables by file name).
5. Conflicts: a snapshot that deletes files is checked against the latest live files of the
   partitions it touches (deleted files must be live, no file added twice, level >= 1 key ranges
   of a primary-key bucket disjoint): a conflict fails the commit. Losing the race for a snapshot
   id deletes the attempt's meta files and retries (``commit.max-retries``, exponential wait).
6. Overwrite: every live file (and index file) of the replaced partitions is deleted, then the
   new files added; a partitioned table with ``dynamic-partition-overwrite`` replaces the
   partitions that receive files, otherwise those matching the static spec (``{}``: all).
"""

from __future__ import annotations

import contextlib
import itertools
import random
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from reference import layout
from reference.errors import (
    CommitConflictError,
    SpecViolation,
    StorageError,
    UnsupportedFeature,
    naming_file,
)
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import NullLayout, deserialize_binary_row, serialize_binary_row
from reference.spec.commit_message import CommitMessage
from reference.spec.compare import SortKey, compare_rows, compare_values
from reference.spec.data_file import DataFileMeta
from reference.spec.manifest import (
    DEFAULT_FIELD_SET,
    DELETION_VECTORS_INDEX_TYPE,
    HASH_INDEX_TYPE,
    FieldSet,
    FileKind,
    IndexManifestEntry,
    ManifestEntry,
    ManifestFileMeta,
    decode_index_manifest,
    detect_manifest_format,
    encode_index_manifest,
    encode_manifest_entries,
    encode_manifest_list,
    parse_manifest_format,
)
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import (
    CURRENT_SNAPSHOT_VERSION,
    FIRST_SNAPSHOT_ID,
    JAVA_0_9_NULL_MEMBERS,
    CommitKind,
    Snapshot,
    encode_hint,
    encode_snapshot,
)
from reference.spec.stats import SimpleStats
from spark_impl.plan import (
    find_latest_snapshot_id,
    latest_schema_id,
    read_manifest,
    read_manifest_list,
    read_schema_json,
    read_snapshot,
)

BATCH_COMMIT_IDENTIFIER = 2**63 - 1
ROLL_CHECK_INTERVAL = 1000
NANOS_PER_MILLI = 1_000_000
NANOS_PER_SECOND = 1_000_000_000
JITTER = 0.2
MAX_REPORTED = 10

FileId = tuple[Any, ...]

# --------------------------------------------------------------------------------------------
# Reading the latest state
# --------------------------------------------------------------------------------------------


def file_id(entry: ManifestEntry) -> FileId:
    """What makes two entries name the same file (Java ``FileEntry.Identifier``)."""
    meta = entry.file
    return (
        entry.partition,
        entry.bucket,
        meta.level,
        meta.file_name,
        meta.extra_files,
        meta.embedded_index,
        meta.external_path,
    )


def merge_entries(entries: Iterable[ManifestEntry]) -> tuple[list[ManifestEntry], list[str]]:
    """Apply entries in order: a DELETE cancels an earlier ADD (else it is kept); an ADD of a
    present file is a problem. Returns the surviving entries and the problems."""
    merged: dict[FileId, ManifestEntry] = {}
    problems: list[str] = []
    for entry in entries:
        key = file_id(entry)
        if entry.kind is FileKind.ADD:
            if key in merged:
                problems.append(f"{describe(entry)} is added twice")
            merged[key] = entry
        elif key in merged:
            del merged[key]
        else:
            merged[key] = entry
    return list(merged.values()), problems


def describe(entry: ManifestEntry) -> str:
    return f"{entry.file.file_name} (bucket {entry.bucket}, level {entry.file.level})"


def read_latest_schema(file_io: FileIO, table_root: str) -> TableSchema:
    return decode_schema(
        read_schema_json(file_io, table_root, latest_schema_id(file_io, table_root))
    )


def read_latest_snapshot(file_io: FileIO, table_root: str) -> Snapshot | None:
    latest = find_latest_snapshot_id(file_io, table_root)
    return None if latest is None else read_snapshot(file_io, table_root, latest)


def snapshot_manifests(
    file_io: FileIO, table_root: str, snapshot: Snapshot
) -> list[ManifestFileMeta]:
    return [
        *read_manifest_list(file_io, table_root, snapshot.base_manifest_list),
        *read_manifest_list(file_io, table_root, snapshot.delta_manifest_list),
    ]


def read_live_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot | None
) -> list[ManifestEntry]:
    """The live data-file entries of a snapshot (ADD entries not deleted later)."""
    if snapshot is None:
        return []
    entries = [
        entry
        for meta in snapshot_manifests(file_io, table_root, snapshot)
        for entry in read_manifest(file_io, table_root, meta.file_name)
    ]
    merged, _ = merge_entries(entries)
    return [e for e in merged if e.kind is FileKind.ADD]


def read_index_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot | None
) -> list[IndexManifestEntry]:
    if snapshot is None or snapshot.index_manifest is None:
        return []
    path = layout.manifest_path(table_root, snapshot.index_manifest)
    with naming_file(path):
        data = file_io.read_bytes(path)

        return decode_index_manifest(data, detect_manifest_format(data))


def max_sequence_numbers(entries: Iterable[ManifestEntry]) -> dict[tuple[bytes, int], int]:
    """The largest max sequence number of the live files of each (partition, bucket)."""
    found: dict[tuple[bytes, int], int] = {}
    for entry in entries:
        key = (entry.partition, entry.bucket)
        found[key] = max(found.get(key, -1), entry.file.max_sequence_number)
    return found


# --------------------------------------------------------------------------------------------
# Changes (rule 1)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Changes:
    kind: CommitKind
    table: tuple[ManifestEntry, ...] = ()
    changelog: tuple[ManifestEntry, ...] = ()
    index: tuple[IndexManifestEntry, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.table or self.changelog or self.index)


def _entries(
    kind: FileKind, message: CommitMessage, files: Iterable[DataFileMeta]
) -> list[ManifestEntry]:
    return [
        ManifestEntry(kind, message.partition, message.bucket, message.total_buckets, meta)
        for meta in files
    ]


def _index_entries(message: CommitMessage, compaction: bool) -> list[IndexManifestEntry]:
    entries = []
    for kind, files in (
        (FileKind.ADD, message.index.new_index_files),
        (FileKind.DELETE, message.index.deleted_index_files),
    ):
        for index_file in files:
            if index_file.index_type not in (HASH_INDEX_TYPE, DELETION_VECTORS_INDEX_TYPE):
                raise UnsupportedFeature(f"index type {index_file.index_type!r}")
            if (index_file.index_type == DELETION_VECTORS_INDEX_TYPE) == compaction:
                entries.append(
                    IndexManifestEntry(kind, message.partition, message.bucket, index_file)
                )
    return entries


def collect_changes(messages: Sequence[CommitMessage]) -> tuple[Changes, Changes]:
    """The APPEND part and the COMPACT part of a commit."""
    table: list[ManifestEntry] = []
    changelog: list[ManifestEntry] = []
    index: list[IndexManifestEntry] = []
    c_table: list[ManifestEntry] = []
    c_changelog: list[ManifestEntry] = []
    c_index: list[IndexManifestEntry] = []
    for message in messages:
        table += _entries(FileKind.ADD, message, message.data.new_files)
        table += _entries(FileKind.DELETE, message, message.data.deleted_files)
        changelog += _entries(FileKind.ADD, message, message.data.changelog_files)
        index += _index_entries(message, compaction=False)
        c_table += _entries(FileKind.DELETE, message, message.compaction.compact_before)
        c_table += _entries(FileKind.ADD, message, message.compaction.compact_after)
        c_changelog += _entries(FileKind.ADD, message, message.compaction.changelog_files)
        c_index += _index_entries(message, compaction=True)
    return (
        Changes(CommitKind.APPEND, tuple(table), tuple(changelog), tuple(index)),
        Changes(CommitKind.COMPACT, tuple(c_table), tuple(c_changelog), tuple(c_index)),
    )


# --------------------------------------------------------------------------------------------
# Conflicts (rule 5)
# --------------------------------------------------------------------------------------------


def key_range_conflicts(
    live: Sequence[ManifestEntry], key_types: Sequence[t.DataType]
) -> list[str]:
    runs: dict[tuple[bytes, int, int], list[tuple[Any, Any, ManifestEntry]]] = {}
    for entry in live:
        if entry.file.level >= 1:
            runs.setdefault((entry.partition, entry.bucket, entry.file.level), []).append(
                (
                    deserialize_binary_row(entry.file.min_key, key_types),
                    deserialize_binary_row(entry.file.max_key, key_types),
                    entry,
                )
            )
    problems = []
    for run in runs.values():
        ordered = sorted(run, key=lambda bounds: SortKey(bounds[0], key_types))
        for (_, left_max, left), (right_min, _, right) in itertools.pairwise(ordered):
            if compare_rows(key_types, left_max, right_min) >= 0:
                problems.append(f"key ranges of {describe(left)} and {describe(right)} overlap")
    return problems


def find_conflicts(
    base: Sequence[ManifestEntry], changes: Sequence[ManifestEntry], schema: TableSchema
) -> list[str]:
    touched = {entry.partition for entry in changes}
    relevant = [entry for entry in base if entry.partition in touched]
    merged, problems = merge_entries([*relevant, *changes])
    problems += [
        f"{describe(e)} is deleted but not live" for e in merged if e.kind is FileKind.DELETE
    ]
    if problems or not schema.is_primary_key_table:
        return problems
    key_types = [f.type for f in schema.trimmed_primary_keys_type.fields]
    return key_range_conflicts(merged, key_types)


def needs_conflict_check(changes: Changes) -> bool:
    return changes.kind is not CommitKind.APPEND or any(
        entry.kind is FileKind.DELETE for entry in changes.table
    )


def check_conflicts(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    latest: Snapshot | None,
    changes: Changes,
    *,
    pending: Sequence[ManifestEntry] = (),
) -> None:
    if not needs_conflict_check(changes):
        return
    live = read_live_entries(file_io, table_root, latest)
    base, _ = merge_entries([*live, *pending])
    problems = find_conflicts(base, changes.table, schema)
    if problems:
        against = f"snapshot {latest.id}" if latest is not None else "an empty table"
        raise CommitConflictError(
            f"{changes.kind.value} commit conflicts with {against}: "
            + "; ".join(problems[:MAX_REPORTED]),
            path=table_root,
            retryable=False,
        )


# --------------------------------------------------------------------------------------------
# Meta files (rules 3 and 4)
# --------------------------------------------------------------------------------------------


@dataclass
class MetaWriter:
    """Writes one commit's manifests, lists and index manifests (one uuid, counters) and
    remembers their names, so that a lost attempt can delete them."""

    file_io: FileIO
    table_root: str
    schema: TableSchema
    field_set: FieldSet = DEFAULT_FIELD_SET
    writer_uuid: str = field(default_factory=lambda: str(uuid.uuid4()))
    counters: dict[str, itertools.count[int]] = field(default_factory=dict)
    written: list[str] = field(default_factory=list)

    def _name(self, make: Callable[[str, int], str], kind: str) -> str:
        counter = self.counters.setdefault(kind, itertools.count())
        name = make(self.writer_uuid, next(counter))
        self.written.append(name)
        return name

    def _write(self, name: str, data: bytes) -> None:
        self.file_io.write_bytes(layout.manifest_path(self.table_root, name), data)

    @property
    def _format_args(self) -> dict[str, Any]:
        options = self.schema.core_options
        return {"field_set": self.field_set, "compression": options.manifest_compression}

    @property
    def _format(self) -> Any:
        return parse_manifest_format(self.schema.core_options.manifest_format)

    def encode_manifest(self, entries: Sequence[ManifestEntry]) -> bytes:
        return encode_manifest_entries(entries, self._format, **self._format_args)

    def write_manifest(self, entries: Sequence[ManifestEntry]) -> ManifestFileMeta:
        data = self.encode_manifest(entries)
        name = self._name(layout.manifest_file_name, "manifest")
        self._write(name, data)
        return manifest_file_meta(name, len(data), entries, self.schema)

    def write_manifest_list(self, metas: Sequence[ManifestFileMeta]) -> str:
        data = encode_manifest_list(
            [
                replace(
                    m,
                    min_bucket=None,
                    max_bucket=None,
                    min_level=None,
                    max_level=None,
                    min_row_id=None,
                    max_row_id=None,
                )
                for m in metas
            ],
            self._format,
            **self._format_args,
        )
        name = self._name(layout.manifest_list_file_name, "list")
        self._write(name, data)
        return name

    def write_index_manifest(self, entries: Sequence[IndexManifestEntry]) -> str:
        data = encode_index_manifest(entries, self._format, **self._format_args)
        name = self._name(layout.index_manifest_file_name, "index")
        self._write(name, data)
        return name

    def delete_written(self, since: int) -> None:
        for name in self.written[since:]:
            with contextlib.suppress(StorageError):
                self.file_io.delete(layout.manifest_path(self.table_root, name))

    def option(self, key: str) -> Any:
        return self.schema.core_options.get(key)


def partition_stats(partitions: Sequence[bytes], fields: Sequence[t.DataField]) -> SimpleStats:
    """Min, max and null count of each partition field over the entries' partitions."""
    types = [f.type for f in fields]
    distinct = {p: deserialize_binary_row(p, types) for p in set(partitions)}
    counts: dict[bytes, int] = {}
    for p in partitions:
        counts[p] = counts.get(p, 0) + 1
    lows: list[Any] = []
    highs: list[Any] = []
    nulls: list[int] = []
    for index, data_type in enumerate(types):
        present = [row[index] for row in distinct.values() if row[index] is not None]
        low = high = None
        for value in present:
            if low is None or compare_values(data_type, value, low) < 0:
                low = value
            if high is None or compare_values(data_type, value, high) > 0:
                high = value
        lows.append(low)
        highs.append(high)
        nulls.append(sum(counts[p] for p, row in distinct.items() if row[index] is None))
    return SimpleStats(
        serialize_binary_row(lows, types, null_layout=NullLayout.ZERO_SLOT),
        serialize_binary_row(highs, types, null_layout=NullLayout.ZERO_SLOT),
        tuple(nulls),
    )


def manifest_file_meta(
    name: str, size: int, entries: Sequence[ManifestEntry], schema: TableSchema
) -> ManifestFileMeta:
    return ManifestFileMeta(
        file_name=name,
        file_size=size,
        num_added_files=sum(e.kind is FileKind.ADD for e in entries),
        num_deleted_files=sum(e.kind is FileKind.DELETE for e in entries),
        partition_stats=partition_stats(
            [e.partition for e in entries], schema.partition_type.fields
        ),
        schema_id=max((e.file.schema_id for e in entries), default=schema.id),
    )


def write_manifests(writer: MetaWriter, entries: Sequence[ManifestEntry]) -> list[ManifestFileMeta]:
    """Entries into manifests rolled at ``manifest.target-file-size``."""
    target: int = writer.option("manifest.target-file-size")
    metas: list[ManifestFileMeta] = []
    current: list[ManifestEntry] = []
    for position, entry in enumerate(entries, start=1):
        current.append(entry)
        if position % ROLL_CHECK_INTERVAL == 0 and len(writer.encode_manifest(current)) >= target:
            metas.append(writer.write_manifest(current))
            current = []
    if current:
        metas.append(writer.write_manifest(current))
    return metas


def _read_merged(writer: MetaWriter, metas: Sequence[ManifestFileMeta]) -> list[ManifestEntry]:
    entries = [
        e for m in metas for e in read_manifest(writer.file_io, writer.table_root, m.file_name)
    ]
    merged, problems = merge_entries(entries)
    if problems:
        raise SpecViolation(
            "cannot merge manifests: " + "; ".join(problems), code="MANIFEST_DUPLICATE_ADD"
        )
    return merged


def minor_compaction(
    writer: MetaWriter, metas: Sequence[ManifestFileMeta]
) -> list[ManifestFileMeta]:
    target: int = writer.option("manifest.target-file-size")
    min_count: int = writer.option("manifest.merge-min-count")
    result: list[ManifestFileMeta] = []
    candidates: list[ManifestFileMeta] = []

    def flush(group: list[ManifestFileMeta]) -> list[ManifestFileMeta]:
        if len(group) == 1:
            return group
        return write_manifests(writer, _read_merged(writer, group))

    for meta in metas:
        candidates.append(meta)
        if sum(c.file_size for c in candidates) >= target:
            result += flush(candidates)
            candidates = []
    result += flush(candidates) if len(candidates) >= min_count else candidates
    return result


def full_compaction(
    writer: MetaWriter, metas: Sequence[ManifestFileMeta]
) -> list[ManifestFileMeta] | None:
    target: int = writer.option("manifest.target-file-size")
    threshold: int = writer.option("manifest.full-compaction-threshold-size")
    base_count = 0
    while base_count < len(metas) and (
        metas[base_count].num_deleted_files == 0 and metas[base_count].file_size >= target
    ):
        base_count += 1
    base, delta = metas[:base_count], metas[base_count:]
    if sum(m.file_size for m in delta) < threshold:
        return None
    delta_entries = _read_merged(writer, delta)
    deleted = {file_id(e) for e in delta_entries if e.kind is FileKind.DELETE}
    kept: list[ManifestFileMeta] = []
    survivors: list[ManifestEntry] = []
    rewriting = False
    for meta in base:
        entries = read_manifest(writer.file_io, writer.table_root, meta.file_name)
        rewriting = rewriting or any(file_id(e) in deleted for e in entries)
        if rewriting:
            survivors += [e for e in entries if file_id(e) not in deleted]
        else:
            kept.append(meta)
    survivors += [e for e in delta_entries if e.kind is FileKind.ADD]
    return kept + write_manifests(writer, survivors)


def merge_manifests(
    writer: MetaWriter, metas: Sequence[ManifestFileMeta]
) -> list[ManifestFileMeta]:
    full = full_compaction(writer, metas)
    return full if full is not None else minor_compaction(writer, metas)


def next_index_entries(
    previous: Sequence[IndexManifestEntry],
    changes: Sequence[IndexManifestEntry],
    bucket_unaware: bool,
) -> list[IndexManifestEntry]:
    """Rule 4: hash index files by bucket, deletion vectors by bucket (by file name for
    bucket-unaware tables)."""

    def by_bucket(
        old: list[IndexManifestEntry], new: list[IndexManifestEntry]
    ) -> list[IndexManifestEntry]:
        live = {(e.partition, e.bucket, e.index_file.index_type): e for e in old}
        for e in new:
            if e.kind is FileKind.DELETE:
                live.pop((e.partition, e.bucket, e.index_file.index_type), None)
        for e in new:
            if e.kind is FileKind.ADD:
                live[e.partition, e.bucket, e.index_file.index_type] = e
        return list(live.values())

    def by_name(
        old: list[IndexManifestEntry], new: list[IndexManifestEntry]
    ) -> list[IndexManifestEntry]:
        live = {e.index_file.file_name: e for e in old}
        for e in new:
            if e.kind is FileKind.ADD:
                live[e.index_file.file_name] = e
            else:
                live.pop(e.index_file.file_name, None)
        return list(live.values())

    def of(entries: Sequence[IndexManifestEntry], kind: str) -> list[IndexManifestEntry]:
        return [e for e in entries if e.index_file.index_type == kind]

    hashes = by_bucket(of(previous, HASH_INDEX_TYPE), of(changes, HASH_INDEX_TYPE))
    combine = by_name if bucket_unaware else by_bucket
    vectors = combine(
        of(previous, DELETION_VECTORS_INDEX_TYPE), of(changes, DELETION_VECTORS_INDEX_TYPE)
    )
    return hashes + vectors


# --------------------------------------------------------------------------------------------
# One snapshot (rules 2-4)
# --------------------------------------------------------------------------------------------


def record_delta(entries: Iterable[ManifestEntry]) -> int:
    return sum(e.file.row_count if e.kind is FileKind.ADD else -e.file.row_count for e in entries)


def prepare_snapshot(
    writer: MetaWriter,
    latest: Snapshot | None,
    changes: Changes,
    commit_user: str,
    commit_identifier: int,
) -> Snapshot:
    file_io, root, schema = writer.file_io, writer.table_root, writer.schema
    previous = snapshot_manifests(file_io, root, latest) if latest is not None else []
    base_list = writer.write_manifest_list(merge_manifests(writer, previous))
    delta_list = writer.write_manifest_list(write_manifests(writer, changes.table))
    changelog_list = (
        writer.write_manifest_list(write_manifests(writer, changes.changelog))
        if changes.changelog
        else None
    )
    index_manifest = latest.index_manifest if latest is not None else None
    if changes.index:
        unaware = not schema.is_primary_key_table and schema.num_buckets == -1
        entries = next_index_entries(
            read_index_entries(file_io, root, latest), changes.index, unaware
        )
        index_manifest = writer.write_index_manifest(entries)
    delta = record_delta(changes.table)
    total_before = 0
    if latest is not None:
        total_before = (
            latest.total_record_count
            if latest.total_record_count is not None
            else sum(e.file.row_count for e in read_live_entries(file_io, root, latest))
        )
    return Snapshot(
        version=CURRENT_SNAPSHOT_VERSION,
        id=FIRST_SNAPSHOT_ID if latest is None else latest.id + 1,
        schema_id=schema.id,
        base_manifest_list=base_list,
        delta_manifest_list=delta_list,
        changelog_manifest_list=changelog_list,
        index_manifest=index_manifest,
        commit_user=commit_user,
        commit_identifier=commit_identifier,
        commit_kind=changes.kind,
        time_millis=time.time_ns() // NANOS_PER_MILLI,
        log_offsets=dict(latest.log_offsets or {}) if latest is not None else {},
        total_record_count=total_before + delta,
        delta_record_count=delta,
        changelog_record_count=sum(e.file.row_count for e in changes.changelog),
        watermark=latest.watermark if latest is not None else None,
        statistics=latest.statistics
        if latest is not None and latest.schema_id == schema.id
        else None,
        null_members=JAVA_0_9_NULL_MEMBERS,
    )


def write_hints(file_io: FileIO, table_root: str, snapshot_id: int) -> None:
    directory = layout.snapshot_dir(table_root)
    hints = [layout.HintFile.LATEST]
    if snapshot_id == FIRST_SNAPSHOT_ID:
        hints.append(layout.HintFile.EARLIEST)
    for hint in hints:
        with contextlib.suppress(StorageError):
            file_io.write_bytes(layout.hint_path(directory, hint), encode_hint(snapshot_id))


ChangesFor = Callable[[TableSchema, Snapshot | None], Changes]


def commit_one(
    file_io: FileIO,
    table_root: str,
    changes_for: ChangesFor,
    *,
    commit_user: str,
    commit_identifier: int,
    max_retries: int | None,
) -> Snapshot:
    """Rules 2 and 5: create the next snapshot, retrying when another committer wins."""
    for attempt in itertools.count():
        latest = read_latest_snapshot(file_io, table_root)
        schema = read_latest_schema(file_io, table_root)
        changes = changes_for(schema, latest)
        check_conflicts(file_io, table_root, schema, latest, changes)
        writer = MetaWriter(file_io, table_root, schema)
        try:
            snapshot = prepare_snapshot(writer, latest, changes, commit_user, commit_identifier)
        except BaseException:
            writer.delete_written(0)
            raise
        path = layout.snapshot_path(table_root, snapshot.id)
        if file_io.create_exclusive(path, encode_snapshot(snapshot).encode("utf-8")):
            write_hints(file_io, table_root, snapshot.id)
            return snapshot
        writer.delete_written(0)
        options = schema.core_options
        retries: int = options.get("commit.max-retries") if max_retries is None else max_retries
        if attempt >= retries:
            break
        min_wait: int = options.get("commit.min-retry-wait")
        max_wait: int = options.get("commit.max-retry-wait")
        wait = min(min_wait / NANOS_PER_SECOND * 2.0**attempt, max_wait / NANOS_PER_SECOND)
        time.sleep(wait + random.uniform(0.0, wait * JITTER))
    raise CommitConflictError(
        "gave up: other commits kept creating the next snapshot first",
        path=table_root,
        retryable=True,
    )


# --------------------------------------------------------------------------------------------
# Overwrite (rule 6) and the commit
# --------------------------------------------------------------------------------------------


def _partition_matches(
    partition: bytes, spec: Mapping[str, Any], fields: Sequence[t.DataField]
) -> bool:
    if not spec:
        return True
    values = deserialize_binary_row(partition, [f.type for f in fields])
    return all(
        compare_values(f.type, value, spec[f.name]) == 0
        for f, value in zip(fields, values, strict=True)
        if f.name in spec
    )


def overwrite_changes_for(
    file_io: FileIO, table_root: str, append: Changes, spec: Mapping[str, Any]
) -> ChangesFor | None:
    """The OVERWRITE snapshot as a function of the latest state (None: nothing to do)."""
    schema = read_latest_schema(file_io, table_root)
    fields = list(schema.partition_type.fields)
    dynamic = bool(schema.partition_keys) and bool(
        schema.core_options.get("dynamic-partition-overwrite")
    )
    if dynamic:
        if not append.table:
            return None
        replaced = {e.partition for e in append.table}

        def is_replaced(partition: bytes) -> bool:
            return partition in replaced

    else:
        unknown = sorted(set(spec) - set(schema.partition_keys))
        if unknown:
            raise SpecViolation(
                f"overwrite spec names {unknown}, which are not partition keys",
                code="OVERWRITE_UNKNOWN_PARTITION_KEY",
            )

        def is_replaced(partition: bytes) -> bool:
            return _partition_matches(partition, spec, fields)

        for entry in append.table:
            if not is_replaced(entry.partition):
                raise SpecViolation(
                    f"overwriting {dict(spec)} but {entry.file.file_name} is elsewhere",
                    code="OVERWRITE_OUTSIDE_PARTITION",
                )

    def changes_for(_schema: TableSchema, latest: Snapshot | None) -> Changes:
        live = read_live_entries(file_io, table_root, latest)
        index = read_index_entries(file_io, table_root, latest)
        deleted = [replace(e, kind=FileKind.DELETE) for e in live if is_replaced(e.partition)]
        deleted_index = [
            replace(e, kind=FileKind.DELETE) for e in index if is_replaced(e.partition)
        ]
        return Changes(
            CommitKind.OVERWRITE,
            (*deleted, *append.table),
            (),
            (*deleted_index, *append.index),
        )

    return changes_for


def commit(
    file_io: FileIO,
    table_root: str,
    messages: Sequence[CommitMessage],
    *,
    commit_user: str | None = None,
    commit_identifier: int = BATCH_COMMIT_IDENTIFIER,
    overwrite: Mapping[str, Any] | None = None,
    max_retries: int | None = None,
) -> list[Snapshot]:
    """Commit ``messages`` as at most two snapshots (APPEND or OVERWRITE, then COMPACT).

    ``overwrite`` is ``None`` for a normal commit, else the static partition spec (``{}``: the
    whole table; ignored by a dynamic partition overwrite)."""
    table_root = table_root.rstrip("/")
    user = commit_user or str(uuid.uuid4())
    append, compact = collect_changes(messages)
    if overwrite is not None:
        compact = replace(compact, changelog=())
        first = overwrite_changes_for(file_io, table_root, append, overwrite)
    elif append.is_empty:
        first = None
    else:

        def first(_schema: TableSchema, _latest: Snapshot | None) -> Changes:
            return append

    steps: list[ChangesFor] = [] if first is None else [first]
    if not compact.is_empty:
        latest = read_latest_snapshot(file_io, table_root)
        schema = read_latest_schema(file_io, table_root)
        pending = first(schema, latest).table if first is not None else ()
        check_conflicts(file_io, table_root, schema, latest, compact, pending=pending)

        def second(_schema: TableSchema, _latest: Snapshot | None) -> Changes:
            return compact

        steps.append(second)
    return [
        commit_one(
            file_io,
            table_root,
            step,
            commit_user=user,
            commit_identifier=commit_identifier,
            max_retries=max_retries,
        )
        for step in steps
    ]


def delete_message_files(
    file_io: FileIO,
    table_root: str,
    messages: Sequence[CommitMessage],
    bucket_dirs: Callable[[CommitMessage], str],
) -> None:
    """Best-effort removal of the files of messages that will not be committed (abort). Files
    of the base snapshot that a compaction read or only moved to another level are kept."""
    for message in messages:
        directory = bucket_dirs(message)
        written = {meta.file_name for meta in message.data.new_files}
        based = {meta.file_name for meta in message.compaction.compact_before} - written
        files = [
            *message.data.new_files,
            *message.data.changelog_files,
            *message.compaction.compact_after,
            *message.compaction.changelog_files,
        ]
        for meta in files:
            if meta.file_name in based:
                continue
            with contextlib.suppress(StorageError):
                file_io.delete(layout.data_file_path(directory, meta.file_name, meta.external_path))
        for index_file in message.index.new_index_files:
            with contextlib.suppress(StorageError):
                file_io.delete(layout.index_file_path(table_root, index_file.file_name))
