"""Committing: turning the commit messages of writers into new snapshots (two-phase commit).

Spec: ``docs/concepts/spec/snapshot.md``, ``manifest.md``, ``tableindex.md``; the seeds'
"Concurrency control" and "Snapshot" sections. Java (0.9.0 unless said otherwise):
``operation/FileStoreCommitImpl``, ``operation/commit/ConflictDetection`` (main),
``operation/ManifestFileMerger``, ``manifest/ManifestFile``, ``manifest/ManifestList``,
``manifest/IndexManifestFileHandler``, ``manifest/FileEntry.mergeEntries``,
``utils/SnapshotManager`` (hints, ``latestSnapshotOfUser``), ``utils/RetryWaiter`` (main).

Rules:

1.  Two phases. Writers write data, changelog and index files and describe them in commit
    messages; the committer writes the metadata (manifests, manifest lists, index manifest) and
    then creates ``snapshot-<latest + 1>`` with :meth:`FileIO.create_exclusive`. Nothing is
    visible before that call succeeds, and a snapshot file is never overwritten.
2.  Entries. Each message gives manifest entries of its partition and bucket: new files are ADD
    and deleted files DELETE (data), ``compact_before`` DELETE and ``compact_after`` ADD
    (compaction); changelog files are ADD entries of a separate changelog manifest list.
3.  At most two snapshots per commit: an APPEND snapshot holding the data entries, the data
    changelog and the HASH index changes, then a COMPACT snapshot holding the compaction
    entries, the compaction changelog and the DELETION_VECTORS index changes. A part with no
    changes makes no snapshot, so a commit of nothing makes none. Each snapshot is atomic,
    the pair is not: when the COMPACT snapshot fails, the APPEND snapshot stays committed
    (rule 14).
4.  Manifest lists. A snapshot's base list is the previous snapshot's base and delta manifests
    (merged, rule 5); its delta list holds the manifests of its own entries; its changelog list
    (null without changelog) the manifests of its changelog entries. Manifests are written in
    ``manifest.format`` with ``manifest.compression`` and roll over to a new file once an entry
    count that is a multiple of 1000 reaches ``manifest.target-file-size``.
5.  Manifest merging. Full compaction first: the leading manifests without DELETE entries that
    reach the target size are the base, the rest the delta; when the delta's total size
    reaches ``manifest.full-compaction-threshold-size``, every base manifest from the first one
    holding a file the delta deletes onward is rewritten without the deleted files, followed by
    the delta's surviving ADD entries. Otherwise minor compaction: consecutive manifests are
    merged once their sizes sum to the target size, and the remaining tail only when it counts
    at least ``manifest.merge-min-count`` manifests. Merging cancels an ADD and a later DELETE
    of the same file.
6.  Index manifest. The previous snapshot's index entries (all ADD) minus this snapshot's
    deleted index files plus its new ones; a new file replaces the old one of the same
    partition, bucket and index type (deletion vectors of bucket-unaware tables: of the same
    file name). Without index changes the snapshot keeps the previous index manifest.
7.  Record counts. ``deltaRecordCount`` adds the row count of each ADD entry and subtracts that
    of each DELETE entry; ``totalRecordCount`` is the previous total plus the delta;
    ``changelogRecordCount`` sums the changelog files' row counts (0 without changelog).
8.  Snapshot file. Version 3 in Java 0.9's layout (``changelogManifestList`` written even when
    null, ``logOffsets`` inherited, usually ``{ }``), the latest schema id, the watermark of the
    previous snapshot, the commit user, identifier and kind, the commit time in millis.
9.  Hints. Only after the snapshot exists, ``snapshot/LATEST`` is overwritten with its id (and
    ``snapshot/EARLIEST`` written for snapshot 1). Hints are advisory: failing to write one does
    not fail the commit.
10. Conflicts. A snapshot that deletes files (compaction, overwrite, deleted data files) is
    checked against the latest snapshot's live files of the partitions it changes: every file it
    deletes must still be live, no file may be added twice, and in a primary-key table the
    level >= 1 files of one bucket and level must keep disjoint key ranges. A snapshot of new
    files only never conflicts. The compaction part is checked once more before the first
    snapshot of the commit, so a commit whose compaction already conflicts changes nothing. A
    file conflict raises ``CommitConflictError(retryable=False)``.
11. Retries. When another committer created the snapshot id first (or the snapshot the attempt
    builds on was expired meanwhile, so that the id may be free again), the metadata written for
    the attempt is deleted and the snapshot is prepared again on the new latest snapshot (checking
    conflicts again), at most ``commit.max-retries`` times, waiting
    ``min(commit.min-retry-wait * 2^n, commit.max-retry-wait)`` plus up to 20 % jitter before
    retry ``n``; then ``CommitConflictError(retryable=True)``.
12. Recovery. A commit is skipped when the commit user's latest snapshot has an identifier at
    least as large as the commit's (the commit, or a later one, was already made). A batch
    commit (identifier ``Long.MAX_VALUE``) is never a retry and is not checked (Java's batch
    commit does not filter either).
13. Overwrite. An overwrite commit makes an OVERWRITE snapshot instead of the APPEND one: it
    deletes every live file (and index file) of the replaced partitions and adds the new files.
    A partitioned table with ``dynamic-partition-overwrite`` (default true) replaces exactly the
    partitions that receive new files (nothing at all when there are none); otherwise the
    partitions whose values equal the given spec are replaced (an empty spec: the whole table)
    and every new file must belong to them. Changelog files are not committed by an overwrite.
14. Partial commits. When a snapshot of a commit fails after an earlier one landed (the
    COMPACT after the APPEND: another committer's snapshot took the files it compacts, or the
    store failed), the commit raises :class:`PartialCommitError` naming the landed snapshot
    ids and the part that failed. Nothing a landed snapshot uses is deleted: a failed attempt
    deletes only the meta files it wrote itself (rules 1 and 11), and the files the failed
    part's messages wrote stay as orphans. A store failure leaves open whether the failing
    snapshot was created, so the commit's snapshots (its commit user and identifier, after
    the latest snapshot it started from) are read back: when every part landed the commit
    succeeded, when none did the store error is raised as it is. The landed part must not be
    written again: committed under a commit user and identifier, a retry is skipped by rule
    12, as Java's ``filterCommitted`` skips it (a batch commit has no identifier to retry
    with: the caller learns the landed ids from the error). A later compaction redoes the
    dropped one.

Differences from Java: 0.9 commits a data-only APPEND snapshot of files that delete without a
conflict check (main checks them, as we do) and does not check a compaction before the first
snapshot of the commit (rule 10; so 0.9 may leave the APPEND snapshot of a commit whose
COMPACT part conflicts). Java takes the static overwrite spec as strings and casts them to the
partition types; here the spec holds internal values (``reference.spec.data``). Statistics of the
previous snapshot are inherited while the schema id is unchanged (Java compares the schema id
recorded in the statistics file). Main's extra checks (total buckets of a partition, deletion
vectors of bucket-unaware tables, row ids) are not made. Java does not check before creating a
snapshot that the snapshot it builds on still exists (rule 11); it relies on
``snapshot.time-retained`` outlasting every commit.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

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
from reference.spec import types as t
from reference.spec.binary_row import NullLayout, deserialize_binary_row, serialize_binary_row
from reference.spec.commit_message import BATCH_COMMIT_IDENTIFIER, CommitMessage
from reference.spec.compare import SortKey, compare_rows, compare_values
from reference.spec.data import Row, Value
from reference.spec.data_file import DataFileMeta
from reference.spec.manifest import (
    DEFAULT_FIELD_SET,
    DELETION_VECTORS_INDEX_TYPE,
    HASH_INDEX_TYPE,
    FieldSet,
    FileKind,
    IndexFileMeta,
    IndexManifestEntry,
    ManifestEntry,
    ManifestFileMeta,
    compute_entries_field_set,
    compute_record_count_delta,
    encode_index_manifest,
    encode_manifest_entries,
    encode_manifest_list,
    is_field_in_set,
    parse_manifest_format,
)
from reference.spec.options import BUCKET_DYNAMIC, CoreOptions
from reference.spec.rolling import ROLL_CHECK_INTERVAL as ROLLING_CHECK_INTERVAL
from reference.spec.schema import TableSchema
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
from reference.spec.units import NANOS_PER_MILLI, NANOS_PER_SECOND
from reference.store import metadata
from reference.store.scan import (
    FileIdentifier,
    compute_file_identifier,
    compute_live_entries,
    list_snapshot_manifests,
    read_index_manifest,
    read_manifest,
)

RETRY_JITTER_FRACTION = 0.2
MAX_REPORTED_CONFLICTS = 10


# --------------------------------------------------------------------------------------------
# Changes: from commit messages to manifest entries (rules 2 and 3)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SnapshotChanges:
    """What one snapshot records: data-file entries, changelog entries and index entries."""

    kind: CommitKind
    table_entries: tuple[ManifestEntry, ...] = ()
    changelog_entries: tuple[ManifestEntry, ...] = ()
    index_entries: tuple[IndexManifestEntry, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.table_entries or self.changelog_entries or self.index_entries)


def compute_entries(
    kind: FileKind, message: CommitMessage, files: Iterable[DataFileMeta]
) -> list[ManifestEntry]:
    """Entries of ``kind`` for files of the message's partition and bucket."""
    return [
        ManifestEntry(kind, message.partition, message.bucket, message.total_buckets, meta)
        for meta in files
    ]


def is_compaction_index(index_file: IndexFileMeta) -> bool:
    """Deletion vectors change with compaction (COMPACT snapshot); a hash index changes with
    the data (APPEND snapshot). Java 0.9 ``collectChanges``."""
    if index_file.index_type == DELETION_VECTORS_INDEX_TYPE:
        return True
    if index_file.index_type == HASH_INDEX_TYPE:
        return False
    raise UnsupportedFeature(f"cannot commit an index file of type {index_file.index_type!r}")


def compute_index_changes(message: CommitMessage, *, compaction: bool) -> list[IndexManifestEntry]:
    """The message's index entries that belong to the compaction (or the data) snapshot."""
    added = [(FileKind.ADD, f) for f in message.index.new_index_files]
    deleted = [(FileKind.DELETE, f) for f in message.index.deleted_index_files]
    return [
        IndexManifestEntry(kind, message.partition, message.bucket, index_file)
        for kind, index_file in (*added, *deleted)
        if is_compaction_index(index_file) == compaction
    ]


def compute_append_changes(messages: Sequence[CommitMessage]) -> SnapshotChanges:
    """The APPEND part of a commit (rule 3)."""
    table: list[ManifestEntry] = []
    changelog: list[ManifestEntry] = []
    index: list[IndexManifestEntry] = []
    for message in messages:
        table += compute_entries(FileKind.ADD, message, message.data.new_files)
        table += compute_entries(FileKind.DELETE, message, message.data.deleted_files)
        changelog += compute_entries(FileKind.ADD, message, message.data.changelog_files)
        index += compute_index_changes(message, compaction=False)
    return SnapshotChanges(CommitKind.APPEND, tuple(table), tuple(changelog), tuple(index))


def compute_compact_changes(messages: Sequence[CommitMessage]) -> SnapshotChanges:
    """The COMPACT part of a commit (rule 3)."""
    table: list[ManifestEntry] = []
    changelog: list[ManifestEntry] = []
    index: list[IndexManifestEntry] = []
    for message in messages:
        table += compute_entries(FileKind.DELETE, message, message.compaction.compact_before)
        table += compute_entries(FileKind.ADD, message, message.compaction.compact_after)
        changelog += compute_entries(FileKind.ADD, message, message.compaction.changelog_files)
        index += compute_index_changes(message, compaction=True)
    return SnapshotChanges(CommitKind.COMPACT, tuple(table), tuple(changelog), tuple(index))


# --------------------------------------------------------------------------------------------
# Merging entries and detecting conflicts (rule 10)
# --------------------------------------------------------------------------------------------


def describe_entry(entry: ManifestEntry) -> str:
    return f"{entry.file.file_name} (bucket {entry.bucket}, level {entry.file.level})"


def compute_merged_entries(
    entries: Iterable[ManifestEntry],
) -> tuple[list[ManifestEntry], list[str]]:
    """Merge entries in order (Java ``FileEntry.mergeEntries``): an entry for a file already
    present cancels it when it is a DELETE (an ADD is then a problem: a file added twice); a
    DELETE for a file not present is kept (its ADD must be in an earlier manifest).

    Returns the merged entries in first-seen order and the problems found."""
    merged: dict[FileIdentifier, ManifestEntry] = {}
    problems: list[str] = []
    for entry in entries:
        identifier = compute_file_identifier(entry)
        if entry.kind is FileKind.ADD:
            if identifier in merged:
                problems.append(f"{describe_entry(entry)} is added twice")
            merged[identifier] = entry
        elif identifier in merged:
            del merged[identifier]
        else:
            merged[identifier] = entry
    return list(merged.values()), problems


def compute_file_conflicts(
    base: Sequence[ManifestEntry], changes: Sequence[ManifestEntry]
) -> list[str]:
    """Files the changes delete that are not live in ``base``, and files added twice."""
    merged, problems = compute_merged_entries([*base, *changes])
    missing = [e for e in merged if e.kind is FileKind.DELETE]
    return problems + [f"{describe_entry(e)} is deleted but not live" for e in missing]


def compute_key_range_conflicts(
    live: Sequence[ManifestEntry], key_types: Sequence[t.DataType]
) -> list[str]:
    """Overlapping key ranges among the level >= 1 files of one partition, bucket and level
    (each such level is one sorted run). ``key_types`` are the trimmed primary key's types."""
    runs: dict[tuple[bytes, int, int], list[tuple[Row, Row, ManifestEntry]]] = {}
    for entry in live:
        if entry.file.level >= 1:
            bounds = (
                deserialize_binary_row(entry.file.min_key, key_types),
                deserialize_binary_row(entry.file.max_key, key_types),
                entry,
            )
            runs.setdefault((entry.partition, entry.bucket, entry.file.level), []).append(bounds)
    problems: list[str] = []
    for run in runs.values():
        ordered = sorted(run, key=lambda bounds: SortKey(bounds[0], key_types))
        for (_, left_max, left), (right_min, _, right) in itertools.pairwise(ordered):
            if compare_rows(key_types, left_max, right_min) >= 0:
                problems.append(
                    f"key ranges of {describe_entry(left)} and {describe_entry(right)} overlap"
                )
    return problems


def compute_conflicts(
    base: Sequence[ManifestEntry],
    changes: Sequence[ManifestEntry],
    key_types: Sequence[t.DataType] | None,
) -> list[str]:
    """Rule 10: why ``changes`` cannot be applied on top of the live entries ``base`` (empty
    when they can). ``key_types`` is None for tables without a primary key."""
    changed = {entry.partition for entry in changes}
    relevant = [entry for entry in base if entry.partition in changed]
    problems = compute_file_conflicts(relevant, changes)
    if problems or key_types is None:
        return problems
    merged, _ = compute_merged_entries([*relevant, *changes])
    return compute_key_range_conflicts(merged, key_types)


def is_conflict_check_needed(changes: SnapshotChanges) -> bool:
    """Rule 10: only a snapshot that deletes or compacts files can conflict."""
    return changes.kind is not CommitKind.APPEND or any(
        entry.kind is FileKind.DELETE for entry in changes.table_entries
    )


def compute_key_types(schema: TableSchema) -> list[t.DataType] | None:
    """Types of the data files' key columns, or None for an append table."""
    if not schema.is_primary_key_table:
        return None
    return [f.type for f in schema.trimmed_primary_keys_type.fields]


# --------------------------------------------------------------------------------------------
# Overwrite (rule 13)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OverwriteScope:
    """The partitions an overwrite replaces: exactly ``partitions`` (serialized partition rows,
    dynamic overwrite) when set, else those whose values equal ``spec`` (static overwrite; an
    empty spec is every partition)."""

    partitions: frozenset[bytes] | None = None
    spec: Mapping[str, Value] = field(default_factory=dict)


def is_partition_overwritten(
    scope: OverwriteScope, partition: bytes, partition_fields: Sequence[t.DataField]
) -> bool:
    if scope.partitions is not None:
        return partition in scope.partitions
    if not scope.spec:
        return True
    values = deserialize_binary_row(partition, [f.type for f in partition_fields])
    return all(
        compare_values(f.type, value, scope.spec[f.name]) == 0
        for f, value in zip(partition_fields, values, strict=True)
        if f.name in scope.spec
    )


def is_dynamic_overwrite(schema: TableSchema) -> bool:
    """A partitioned table with ``dynamic-partition-overwrite`` (Java ``AbstractFileStore``)."""
    return bool(schema.partition_keys) and bool(
        schema.core_options.get("dynamic-partition-overwrite")
    )


def compute_overwrite_scope(
    schema: TableSchema, append: SnapshotChanges, spec: Mapping[str, Value]
) -> OverwriteScope | None:
    """Rule 13: what an overwrite replaces; None when a dynamic overwrite has no new files."""
    if is_dynamic_overwrite(schema):
        if not append.table_entries:
            return None
        return OverwriteScope(partitions=frozenset(e.partition for e in append.table_entries))
    unknown = sorted(set(spec) - set(schema.partition_keys))
    if unknown:
        raise SpecViolation(
            f"overwrite spec names {unknown}, which are not partition keys "
            f"{list(schema.partition_keys)}",
            code="OVERWRITE_UNKNOWN_PARTITION_KEY",
        )
    scope = OverwriteScope(spec=dict(spec))
    fields = schema.partition_type.fields
    for entry in append.table_entries:
        if not is_partition_overwritten(scope, entry.partition, fields):
            raise SpecViolation(
                f"overwriting partition {dict(spec)} but {entry.file.file_name} belongs to "
                "another partition",
                code="OVERWRITE_OUTSIDE_PARTITION",
            )
    return scope


def compute_overwrite_changes(
    scope: OverwriteScope,
    partition_fields: Sequence[t.DataField],
    live: Sequence[ManifestEntry],
    live_index: Sequence[IndexManifestEntry],
    append: SnapshotChanges,
) -> SnapshotChanges:
    """Rule 13: delete every live file and index file of the replaced partitions, then add the
    new ones (changelog is dropped)."""
    deleted = [
        replace(entry, kind=FileKind.DELETE)
        for entry in live
        if is_partition_overwritten(scope, entry.partition, partition_fields)
    ]
    deleted_index = [
        replace(entry, kind=FileKind.DELETE)
        for entry in live_index
        if is_partition_overwritten(scope, entry.partition, partition_fields)
    ]
    return SnapshotChanges(
        CommitKind.OVERWRITE,
        (*deleted, *append.table_entries),
        (),
        (*deleted_index, *append.index_entries),
    )


# --------------------------------------------------------------------------------------------
# Index manifest entries (rule 6)
# --------------------------------------------------------------------------------------------


def compute_index_by_bucket(
    previous: Sequence[IndexManifestEntry], changes: Sequence[IndexManifestEntry]
) -> list[IndexManifestEntry]:
    """One index file per partition, bucket and type: deletions apply first, then additions
    replace (Java ``IndexManifestFileHandler.CommonBucketCombiner``)."""

    def key(entry: IndexManifestEntry) -> tuple[bytes, int, str]:
        return entry.partition, entry.bucket, entry.index_file.index_type

    live = {key(entry): entry for entry in previous}
    for entry in changes:
        if entry.kind is FileKind.DELETE:
            live.pop(key(entry), None)
    for entry in changes:
        if entry.kind is FileKind.ADD:
            live[key(entry)] = entry
    return list(live.values())


def compute_index_by_file_name(
    previous: Sequence[IndexManifestEntry], changes: Sequence[IndexManifestEntry]
) -> list[IndexManifestEntry]:
    """Index files keyed by name, changes applied in order (Java ``UnawareBucketCombiner``)."""
    live = {entry.index_file.file_name: entry for entry in previous}
    for entry in changes:
        if entry.kind is FileKind.ADD:
            live[entry.index_file.file_name] = entry
        else:
            live.pop(entry.index_file.file_name, None)
    return list(live.values())


def is_bucket_unaware(schema: TableSchema) -> bool:
    """An append table with ``bucket = -1`` (Java ``BucketMode.BUCKET_UNAWARE``)."""
    return not schema.is_primary_key_table and schema.num_buckets == BUCKET_DYNAMIC


def compute_next_index_entries(
    previous: Sequence[IndexManifestEntry],
    changes: Sequence[IndexManifestEntry],
    *,
    bucket_unaware: bool,
) -> list[IndexManifestEntry]:
    """Rule 6: the live index entries after ``changes``; hash index files first."""
    if any(entry.kind is not FileKind.ADD for entry in previous):
        raise SpecViolation(
            "an index manifest holds a DELETE entry", code="INDEX_MANIFEST_DELETE_ENTRY"
        )

    def of_type(entries: Sequence[IndexManifestEntry], index_type: str) -> list[IndexManifestEntry]:
        return [e for e in entries if e.index_file.index_type == index_type]

    hashes = compute_index_by_bucket(
        of_type(previous, HASH_INDEX_TYPE), of_type(changes, HASH_INDEX_TYPE)
    )
    combine = compute_index_by_file_name if bucket_unaware else compute_index_by_bucket
    vectors = combine(
        of_type(previous, DELETION_VECTORS_INDEX_TYPE),
        of_type(changes, DELETION_VECTORS_INDEX_TYPE),
    )
    return hashes + vectors


# --------------------------------------------------------------------------------------------
# Manifest file metas
# --------------------------------------------------------------------------------------------


def compute_extreme(values: Sequence[Value], data_type: t.DataType, sign: int) -> Value:
    """The smallest (``sign = -1``) or largest (``sign = 1``) non-null value, or None."""
    best: Value = None
    for value in values:
        if value is not None and (
            best is None or compare_values(data_type, value, best) * sign > 0
        ):
            best = value
    return best


def compute_partition_stats(
    partitions: Sequence[bytes], partition_fields: Sequence[t.DataField]
) -> SimpleStats:
    """Min, max and null count of each partition field over the entries' partitions (Java's
    full-mode ``SimpleStatsCollector``). The rows are laid out as Java 0.9's
    ``InternalRowSerializer`` writes them (:attr:`NullLayout.ZERO_SLOT`)."""
    types = [f.type for f in partition_fields]
    decoded = {p: deserialize_binary_row(p, types) for p in set(partitions)}
    rows = [decoded[p] for p in partitions]
    columns = [[row[i] for row in rows] for i in range(len(types))]
    minimums = [compute_extreme(c, dt, -1) for c, dt in zip(columns, types, strict=True)]
    maximums = [compute_extreme(c, dt, 1) for c, dt in zip(columns, types, strict=True)]
    return SimpleStats(
        serialize_binary_row(minimums, types, null_layout=NullLayout.ZERO_SLOT),
        serialize_binary_row(maximums, types, null_layout=NullLayout.ZERO_SLOT),
        tuple(sum(value is None for value in column) for column in columns),
    )


def compute_manifest_file_meta(
    file_name: str,
    file_size: int,
    entries: Sequence[ManifestEntry],
    schema: TableSchema,
    field_set: FieldSet,
) -> ManifestFileMeta:
    """The manifest-list entry of a data manifest (Java ``ManifestEntryWriter.result``): the
    schema id is the largest of its files, or the latest schema's when it has no entries.
    Bucket and level ranges are recorded when ``field_set`` has them (1.1+)."""
    buckets = [e.bucket for e in entries]
    levels = [e.file.level for e in entries]
    has_ranges = bool(entries) and is_field_in_set(FieldSet.PAIMON_1_1, field_set)
    return ManifestFileMeta(
        file_name=file_name,
        file_size=file_size,
        num_added_files=sum(e.kind is FileKind.ADD for e in entries),
        num_deleted_files=sum(e.kind is FileKind.DELETE for e in entries),
        partition_stats=compute_partition_stats(
            [e.partition for e in entries], schema.partition_type.fields
        ),
        schema_id=max((e.file.schema_id for e in entries), default=schema.id),
        min_bucket=min(buckets) if has_ranges else None,
        max_bucket=max(buckets) if has_ranges else None,
        min_level=min(levels) if has_ranges else None,
        max_level=max(levels) if has_ranges else None,
    )


def compute_meta_in_field_set(meta: ManifestFileMeta, field_set: FieldSet) -> ManifestFileMeta:
    """A manifest-list entry without the summary fields ``field_set`` lacks (they are optional
    pruning hints, so dropping them loses nothing a reader needs)."""
    if not is_field_in_set(FieldSet.PAIMON_1_1, field_set):
        meta = replace(meta, min_bucket=None, max_bucket=None, min_level=None, max_level=None)
    if not is_field_in_set(FieldSet.PAIMON_1_4, field_set):
        meta = replace(meta, min_row_id=None, max_row_id=None)
    return meta


# --------------------------------------------------------------------------------------------
# Writing meta files
# --------------------------------------------------------------------------------------------


@dataclass
class MetaFileNamer:
    """Names of the meta files of one commit: one random UUID and a counter per kind (Java
    ``FileStorePathFactory``). ``issued`` lists every name handed out, so that the files of a
    failed attempt can be deleted."""

    writer_uuid: str = field(default_factory=lambda: str(uuid.uuid4()))
    manifests: itertools.count[int] = field(default_factory=itertools.count)
    manifest_lists: itertools.count[int] = field(default_factory=itertools.count)
    index_manifests: itertools.count[int] = field(default_factory=itertools.count)
    issued: list[str] = field(default_factory=list)

    def _issue(self, name: str) -> str:
        self.issued.append(name)
        return name

    def next_manifest(self) -> str:
        return self._issue(layout.manifest_file_name(self.writer_uuid, next(self.manifests)))

    def next_manifest_list(self) -> str:
        count = next(self.manifest_lists)
        return self._issue(layout.manifest_list_file_name(self.writer_uuid, count))

    def next_index_manifest(self) -> str:
        count = next(self.index_manifests)
        return self._issue(layout.index_manifest_file_name(self.writer_uuid, count))


@dataclass(frozen=True)
class MetaWriter:
    """Where and how one commit attempt writes meta files: the table, its latest schema (for
    the manifest options, partition type and schema id), the field set and the names."""

    file_io: FileIO
    table_root: str
    schema: TableSchema
    field_set: FieldSet
    namer: MetaFileNamer
    branch: str = layout.MAIN_BRANCH

    @property
    def options(self) -> CoreOptions:
        return self.schema.core_options


def write_meta_file(writer: MetaWriter, name: str, data: bytes) -> None:
    writer.file_io.write_bytes(layout.manifest_path(writer.table_root, name), data)


def encode_manifest(writer: MetaWriter, entries: Sequence[ManifestEntry]) -> bytes:
    """A data manifest in the writer's field set, or a newer one where an entry's file was
    described by a newer writer (:func:`compute_entries_field_set`)."""
    return encode_manifest_entries(
        entries,
        parse_manifest_format(writer.options.manifest_format),
        field_set=compute_entries_field_set(entries, writer.field_set),
        compression=writer.options.manifest_compression,
    )


def write_manifest_file(writer: MetaWriter, entries: Sequence[ManifestEntry]) -> ManifestFileMeta:
    data = encode_manifest(writer, entries)
    name = writer.namer.next_manifest()
    write_meta_file(writer, name, data)
    return compute_manifest_file_meta(name, len(data), entries, writer.schema, writer.field_set)


def is_manifest_full(writer: MetaWriter, entries: Sequence[ManifestEntry]) -> bool:
    target: int = writer.options.get("manifest.target-file-size")
    return len(encode_manifest(writer, entries)) >= target


def write_manifests(writer: MetaWriter, entries: Sequence[ManifestEntry]) -> list[ManifestFileMeta]:
    """Rule 4: ``entries`` in as many manifests as the rolling size asks for (none if empty)."""
    metas: list[ManifestFileMeta] = []
    current: list[ManifestEntry] = []
    for position, entry in enumerate(entries, start=1):
        current.append(entry)
        if position % ROLLING_CHECK_INTERVAL == 0 and is_manifest_full(writer, current):
            metas.append(write_manifest_file(writer, current))
            current = []
    if current:
        metas.append(write_manifest_file(writer, current))
    return metas


def write_manifest_list(writer: MetaWriter, metas: Sequence[ManifestFileMeta]) -> str:
    data = encode_manifest_list(
        [compute_meta_in_field_set(meta, writer.field_set) for meta in metas],
        parse_manifest_format(writer.options.manifest_format),
        field_set=writer.field_set,
        compression=writer.options.manifest_compression,
    )
    name = writer.namer.next_manifest_list()
    write_meta_file(writer, name, data)
    return name


def write_index_manifest(writer: MetaWriter, entries: Sequence[IndexManifestEntry]) -> str:
    data = encode_index_manifest(
        entries,
        parse_manifest_format(writer.options.manifest_format),
        field_set=writer.field_set,
        compression=writer.options.manifest_compression,
    )
    name = writer.namer.next_index_manifest()
    write_meta_file(writer, name, data)
    return name


def delete_meta_files(file_io: FileIO, table_root: str, names: Iterable[str]) -> None:
    """Best-effort removal of the meta files of a failed attempt (leftovers are orphans)."""
    for name in names:
        with contextlib.suppress(StorageError):
            file_io.delete(layout.manifest_path(table_root, name))


# --------------------------------------------------------------------------------------------
# Manifest merging (rule 5)
# --------------------------------------------------------------------------------------------


def read_merged_entries(
    writer: MetaWriter, metas: Sequence[ManifestFileMeta]
) -> list[ManifestEntry]:
    """The entries of ``metas`` merged (rule 5); a file added twice is a corrupt table."""
    entries = [
        e
        for meta in metas
        for e in read_manifest(writer.file_io, writer.table_root, meta.file_name)
    ]
    merged, problems = compute_merged_entries(entries)
    if problems:
        raise SpecViolation(
            "cannot merge manifests: " + "; ".join(problems), code="MANIFEST_DUPLICATE_ADD"
        )
    return merged


def merge_manifest_group(
    writer: MetaWriter, candidates: Sequence[ManifestFileMeta]
) -> list[ManifestFileMeta]:
    """One manifest stays as it is; several are rewritten as their merged entries."""
    if len(candidates) == 1:
        return list(candidates)
    return write_manifests(writer, read_merged_entries(writer, candidates))


def compute_minor_compaction(
    writer: MetaWriter, metas: Sequence[ManifestFileMeta]
) -> list[ManifestFileMeta]:
    """Rule 5, minor compaction (Java ``ManifestFileMerger.tryMinorCompaction``)."""
    target: int = writer.options.get("manifest.target-file-size")
    min_count: int = writer.options.get("manifest.merge-min-count")
    result: list[ManifestFileMeta] = []
    candidates: list[ManifestFileMeta] = []
    for meta in metas:
        candidates.append(meta)
        if sum(c.file_size for c in candidates) >= target:
            result += merge_manifest_group(writer, candidates)
            candidates = []
    if len(candidates) >= min_count:
        result += merge_manifest_group(writer, candidates)
    else:
        result += candidates
    return result


def compute_full_compaction(
    writer: MetaWriter, metas: Sequence[ManifestFileMeta]
) -> list[ManifestFileMeta] | None:
    """Rule 5, full compaction (Java ``ManifestFileMerger.tryFullCompaction``); None when the
    delta is below the threshold."""
    target: int = writer.options.get("manifest.target-file-size")
    threshold: int = writer.options.get("manifest.full-compaction-threshold-size")
    base_count = 0
    while base_count < len(metas) and (
        metas[base_count].num_deleted_files == 0 and metas[base_count].file_size >= target
    ):
        base_count += 1
    base, delta = metas[:base_count], metas[base_count:]
    if sum(meta.file_size for meta in delta) < threshold:
        return None
    delta_entries = read_merged_entries(writer, delta)
    deleted = {compute_file_identifier(e) for e in delta_entries if e.kind is FileKind.DELETE}
    kept: list[ManifestFileMeta] = []
    survivors: list[ManifestEntry] = []
    rewriting = False
    for meta in base:
        entries = read_manifest(writer.file_io, writer.table_root, meta.file_name)
        rewriting = rewriting or any(compute_file_identifier(e) in deleted for e in entries)
        if rewriting:
            survivors += [e for e in entries if compute_file_identifier(e) not in deleted]
        else:
            kept.append(meta)
    survivors += [e for e in delta_entries if e.kind is FileKind.ADD]
    return kept + write_manifests(writer, survivors)


def merge_manifests(
    writer: MetaWriter, metas: Sequence[ManifestFileMeta]
) -> list[ManifestFileMeta]:
    """Rule 5: the manifests of a new base list."""
    full = compute_full_compaction(writer, metas)
    return full if full is not None else compute_minor_compaction(writer, metas)


# --------------------------------------------------------------------------------------------
# Reading the latest state
# --------------------------------------------------------------------------------------------


def read_live_entries(file_io: FileIO, table_root: str, snapshot: Snapshot) -> list[ManifestEntry]:
    """The live data-file entries of a snapshot (``reference.store.scan`` rule 1)."""
    entries = [
        entry
        for meta in list_snapshot_manifests(file_io, table_root, snapshot)
        for entry in read_manifest(file_io, table_root, meta.file_name)
    ]
    return compute_live_entries(entries).live


def read_live_index_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot | None
) -> list[IndexManifestEntry]:
    if snapshot is None or snapshot.index_manifest is None:
        return []
    return read_index_manifest(file_io, table_root, snapshot.index_manifest)


def read_total_record_count(file_io: FileIO, table_root: str, snapshot: Snapshot | None) -> int:
    """A snapshot's ``totalRecordCount``, counted from its files when the file lacks it."""
    if snapshot is None:
        return 0
    if snapshot.total_record_count is not None:
        return snapshot.total_record_count
    return sum(e.file.row_count for e in read_live_entries(file_io, table_root, snapshot))


# --------------------------------------------------------------------------------------------
# One snapshot (rules 4 and 6-9)
# --------------------------------------------------------------------------------------------


def write_index_changes(
    writer: MetaWriter, latest: Snapshot | None, changes: Sequence[IndexManifestEntry]
) -> str | None:
    """Rule 6: the index manifest of the new snapshot."""
    previous = latest.index_manifest if latest is not None else None
    if not changes:
        return previous
    entries = compute_next_index_entries(
        read_live_index_entries(writer.file_io, writer.table_root, latest),
        changes,
        bucket_unaware=is_bucket_unaware(writer.schema),
    )
    return write_index_manifest(writer, entries)


def compute_inherited_statistics(latest: Snapshot | None, schema: TableSchema) -> str | None:
    if latest is None or latest.schema_id != schema.id:
        return None
    return latest.statistics


def prepare_snapshot(
    writer: MetaWriter,
    latest: Snapshot | None,
    changes: SnapshotChanges,
    *,
    commit_user: str,
    commit_identifier: int,
) -> Snapshot:
    """Write the meta files of the snapshot after ``latest`` and return its record."""
    previous = list_snapshot_manifests(writer.file_io, writer.table_root, latest) if latest else []
    base_list = write_manifest_list(writer, merge_manifests(writer, previous))
    delta_list = write_manifest_list(writer, write_manifests(writer, changes.table_entries))
    changelog_list = (
        write_manifest_list(writer, write_manifests(writer, changes.changelog_entries))
        if changes.changelog_entries
        else None
    )
    index_manifest = write_index_changes(writer, latest, changes.index_entries)
    delta_count = compute_record_count_delta(changes.table_entries)
    total_before = read_total_record_count(writer.file_io, writer.table_root, latest)
    return Snapshot(
        version=CURRENT_SNAPSHOT_VERSION,
        id=FIRST_SNAPSHOT_ID if latest is None else latest.id + 1,
        schema_id=writer.schema.id,
        base_manifest_list=base_list,
        delta_manifest_list=delta_list,
        changelog_manifest_list=changelog_list,
        index_manifest=index_manifest,
        commit_user=commit_user,
        commit_identifier=commit_identifier,
        commit_kind=changes.kind,
        time_millis=time.time_ns() // NANOS_PER_MILLI,
        log_offsets=dict(latest.log_offsets or {}) if latest else {},
        total_record_count=total_before + delta_count,
        delta_record_count=delta_count,
        changelog_record_count=sum(e.file.row_count for e in changes.changelog_entries),
        watermark=latest.watermark if latest else None,
        statistics=compute_inherited_statistics(latest, writer.schema),
        null_members=JAVA_0_9_NULL_MEMBERS,
    )


def write_hints(
    file_io: FileIO, table_root: str, snapshot_id: int, branch: str = layout.MAIN_BRANCH
) -> None:
    """Rule 9: advisory hints, written after the snapshot exists."""
    directory = layout.snapshot_dir(table_root, branch)
    hints = [layout.HintFile.LATEST]
    if snapshot_id == FIRST_SNAPSHOT_ID:
        hints.append(layout.HintFile.EARLIEST)
    for hint in hints:
        with contextlib.suppress(StorageError):
            file_io.write_bytes(layout.hint_path(directory, hint), encode_hint(snapshot_id))


def is_base_expired(writer: MetaWriter, latest: Snapshot | None) -> bool:
    """Rule 11: whether the snapshot the attempt builds on was expired while the attempt was
    prepared. Its successor may then be expired too, and creating that id again would succeed
    behind the real latest snapshot (the commit would be lost), so the attempt is retried."""
    if latest is None:
        return False
    base = layout.snapshot_path(writer.table_root, latest.id, writer.branch)
    return not writer.file_io.exists(base)


def try_commit_once(
    writer: MetaWriter,
    latest: Snapshot | None,
    changes: SnapshotChanges,
    *,
    commit_user: str,
    commit_identifier: int,
) -> Snapshot | None:
    """Rule 1: prepare the next snapshot and create it exclusively; None when another
    committer created that snapshot id first or ``latest`` was expired meanwhile (rule 11; the
    attempt's meta files are then deleted).

    A failure while preparing deletes what was written; a failure of the create itself leaves
    everything in place, because the snapshot may or may not exist."""
    first_issued = len(writer.namer.issued)
    try:
        snapshot = prepare_snapshot(
            writer, latest, changes, commit_user=commit_user, commit_identifier=commit_identifier
        )
    except BaseException:
        delete_meta_files(writer.file_io, writer.table_root, writer.namer.issued[first_issued:])
        raise
    path = layout.snapshot_path(writer.table_root, snapshot.id, writer.branch)
    if not is_base_expired(writer, latest) and writer.file_io.create_exclusive(
        path, encode_snapshot(snapshot).encode("utf-8")
    ):
        write_hints(writer.file_io, writer.table_root, snapshot.id, writer.branch)
        return snapshot
    delete_meta_files(writer.file_io, writer.table_root, writer.namer.issued[first_issued:])
    return None


# --------------------------------------------------------------------------------------------
# Retrying (rules 10 and 11)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """Rule 11: how often and how patiently a snapshot conflict is retried."""

    max_retries: int
    min_wait_seconds: float
    max_wait_seconds: float


def compute_retry_policy(options: CoreOptions, max_retries: int | None = None) -> RetryPolicy:
    """``commit.max-retries``, ``commit.min-retry-wait`` and ``commit.max-retry-wait`` (main
    options; 0.9 retried without limit or pause)."""
    retries: int = options.get("commit.max-retries") if max_retries is None else max_retries
    min_wait: int = options.get("commit.min-retry-wait")
    max_wait: int = options.get("commit.max-retry-wait")
    return RetryPolicy(retries, min_wait / NANOS_PER_SECOND, max_wait / NANOS_PER_SECOND)


def compute_retry_wait(policy: RetryPolicy, retry_count: int) -> float:
    """Seconds to wait before retry ``retry_count`` (0-based): exponential, capped, jittered."""
    wait = min(policy.min_wait_seconds * 2.0**retry_count, policy.max_wait_seconds)
    return wait + random.uniform(0.0, wait * RETRY_JITTER_FRACTION)


def check_conflicts(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    latest: Snapshot | None,
    changes: SnapshotChanges,
    *,
    pending: Sequence[ManifestEntry] = (),
) -> None:
    """Rule 10: raise a non-retryable :class:`CommitConflictError` when ``changes`` cannot be
    applied to ``latest`` (followed by the ``pending`` entries of this commit)."""
    if not is_conflict_check_needed(changes):
        return
    live = read_live_entries(file_io, table_root, latest) if latest is not None else []
    base, _ = compute_merged_entries([*live, *pending])
    problems = compute_conflicts(base, changes.table_entries, compute_key_types(schema))
    if problems:
        against = f"snapshot {latest.id}" if latest is not None else "an empty table"
        raise CommitConflictError(
            f"{changes.kind.value} commit conflicts with {against}: "
            + "; ".join(problems[:MAX_REPORTED_CONFLICTS]),
            path=table_root,
            retryable=False,
        )


ChangesProvider = Callable[[TableSchema, Snapshot | None], SnapshotChanges]
"""The changes of a snapshot given the latest schema and snapshot (an overwrite depends on
what is live; other snapshots do not)."""


def commit_snapshot(
    file_io: FileIO,
    table_root: str,
    provide_changes: ChangesProvider,
    *,
    commit_user: str,
    commit_identifier: int,
    namer: MetaFileNamer,
    field_set: FieldSet,
    policy: RetryPolicy,
    branch: str = layout.MAIN_BRANCH,
) -> Snapshot:
    """Rules 10 and 11: commit one snapshot, retrying while other committers get ahead."""
    for retry_count in itertools.count():
        latest = metadata.read_latest_snapshot(file_io, table_root, branch)
        schema = metadata.read_latest_schema(file_io, table_root, branch)
        changes = provide_changes(schema, latest)
        check_conflicts(file_io, table_root, schema, latest, changes)
        writer = MetaWriter(file_io, table_root, schema, field_set, namer, branch)
        snapshot = try_commit_once(
            writer, latest, changes, commit_user=commit_user, commit_identifier=commit_identifier
        )
        if snapshot is not None:
            return snapshot
        if retry_count >= policy.max_retries:
            break
        time.sleep(compute_retry_wait(policy, retry_count))
    raise CommitConflictError(
        f"gave up after {policy.max_retries} retries: other commits kept creating the next "
        "snapshot first",
        path=table_root,
        retryable=True,
    )


# --------------------------------------------------------------------------------------------
# Recovery (rule 12)
# --------------------------------------------------------------------------------------------


def find_latest_snapshot_of_user(
    file_io: FileIO, table_root: str, commit_user: str, branch: str = layout.MAIN_BRANCH
) -> Snapshot | None:
    """The newest snapshot committed by ``commit_user``, searching from the latest snapshot
    back to the earliest (Java ``SnapshotManager.latestSnapshotOfUser``)."""
    latest = metadata.find_latest_snapshot_id(file_io, table_root, branch)
    earliest = metadata.find_earliest_snapshot_id(file_io, table_root, branch)
    if latest is None or earliest is None:
        return None
    for snapshot_id in range(latest, earliest - 1, -1):
        try:
            snapshot = metadata.read_snapshot(file_io, table_root, snapshot_id, branch)
        except SnapshotNotFoundError:
            return None  # expired while we searched: older ones are gone too
        if snapshot.commit_user == commit_user:
            return snapshot
    return None


def filter_committed(
    file_io: FileIO,
    table_root: str,
    commit_user: str,
    identifiers: Sequence[int],
    branch: str = layout.MAIN_BRANCH,
) -> list[int]:
    """Rule 12: the identifiers of ``commit_user`` not committed yet (Java
    ``FileStoreCommitImpl.filterCommitted``)."""
    last = find_latest_snapshot_of_user(file_io, table_root, commit_user, branch)
    if last is None:
        return list(identifiers)
    return [identifier for identifier in identifiers if identifier > last.commit_identifier]


def is_committed(
    file_io: FileIO,
    table_root: str,
    commit_user: str,
    commit_identifier: int,
    branch: str = layout.MAIN_BRANCH,
) -> bool:
    """Rule 12: whether ``commit_user`` already committed ``commit_identifier`` (a batch
    commit never counts as committed)."""
    if commit_identifier == BATCH_COMMIT_IDENTIFIER:
        return False
    return not filter_committed(file_io, table_root, commit_user, [commit_identifier], branch)


# --------------------------------------------------------------------------------------------
# Partial commits (rule 14)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommitAttempt:
    """Who commits, and the latest snapshot id before the commit's first snapshot."""

    file_io: FileIO
    table_root: str
    commit_user: str
    commit_identifier: int
    start_id: int
    branch: str = layout.MAIN_BRANCH


def find_commit_snapshots(attempt: CommitAttempt) -> list[Snapshot]:
    """Rule 14: the snapshots after ``start_id`` made by the attempt's user and identifier."""
    file_io, root, branch = attempt.file_io, attempt.table_root, attempt.branch
    latest = metadata.find_latest_snapshot_id(file_io, root, branch) or attempt.start_id
    found: list[Snapshot] = []
    for snapshot_id in range(attempt.start_id + 1, latest + 1):
        with contextlib.suppress(SnapshotNotFoundError):
            snapshot = metadata.read_snapshot(file_io, root, snapshot_id, branch)
            if (snapshot.commit_user, snapshot.commit_identifier) == (
                attempt.commit_user,
                attempt.commit_identifier,
            ):
                found.append(snapshot)
    return found


def find_landed(
    attempt: CommitAttempt, committed: list[Snapshot], error: PaimonKitError
) -> tuple[list[Snapshot], str]:
    """Rule 14: the snapshots of the commit that exist after ``error``, and a note when the
    store could not tell (then only those known to be committed)."""
    if isinstance(error, CommitConflictError):
        return committed, ""  # a conflict is raised before the snapshot is created
    try:
        return find_commit_snapshots(attempt), ""
    except StorageError as unreadable:
        return committed, f" (whether it was created could not be read back: {unreadable})"


def compute_commit_name(attempt: CommitAttempt) -> str:
    identifier = attempt.commit_identifier
    shown = "batch" if identifier == BATCH_COMMIT_IDENTIFIER else str(identifier)
    return f"commit of user '{attempt.commit_user}' (identifier {shown})"


def compute_failure_cause(error: PaimonKitError) -> CommitConflictError:
    """The failed part's error as a commit error (a store failure is not retryable as is)."""
    if isinstance(error, CommitConflictError):
        return error
    return CommitConflictError(f"store failure: {error.reason}", path=error.path, retryable=False)


def compute_partial_commit_error(
    attempt: CommitAttempt,
    landed: Sequence[Snapshot],
    failed: CommitKind,
    error: PaimonKitError,
    note: str,
) -> PartialCommitError:
    """Rule 14: the error naming what landed and what failed."""
    cause = compute_failure_cause(error)
    described = ", ".join(f"snapshot {s.id} ({s.commit_kind.value})" for s in landed)
    return PartialCommitError(
        f"{compute_commit_name(attempt)} landed in part: {described} committed, its files "
        f"are in the table; the {failed.value} snapshot was not committed{note}: {cause}. "
        "Do not write the landed data again (a retry under the same commit user and "
        "identifier is skipped); a later compaction redoes a dropped one",
        landed=tuple(s.id for s in landed),
        cause=cause,
    )


def settle_failed_commit(
    attempt: CommitAttempt,
    kinds: Sequence[CommitKind],
    committed: list[Snapshot],
    error: PaimonKitError,
) -> list[Snapshot]:
    """Rule 14: after part ``len(committed)`` of the commit failed, return its snapshots when
    every part landed after all, re-raise ``error`` when none did, else raise
    :class:`PartialCommitError`."""
    landed, note = find_landed(attempt, committed, error)
    if not landed:
        raise error
    if len(landed) == len(kinds):
        return landed
    raise compute_partial_commit_error(attempt, landed, kinds[len(landed)], error, note) from error


# --------------------------------------------------------------------------------------------
# The commit
# --------------------------------------------------------------------------------------------


def provide_fixed_changes(changes: SnapshotChanges) -> ChangesProvider:
    """The same changes whatever the latest state (APPEND and COMPACT snapshots)."""

    def provide(_schema: TableSchema, _latest: Snapshot | None) -> SnapshotChanges:
        return changes

    return provide


def provide_overwrite_changes(
    file_io: FileIO, table_root: str, scope: OverwriteScope, append: SnapshotChanges
) -> ChangesProvider:
    """Rule 13 as a function of the latest state (re-evaluated on every retry)."""

    def provide(schema: TableSchema, latest: Snapshot | None) -> SnapshotChanges:
        live = read_live_entries(file_io, table_root, latest) if latest is not None else []
        live_index = read_live_index_entries(file_io, table_root, latest)
        fields = schema.partition_type.fields
        return compute_overwrite_changes(scope, fields, live, live_index, append)

    return provide


def provide_first_changes(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    append: SnapshotChanges,
    overwrite: Mapping[str, Value] | None,
) -> ChangesProvider | None:
    """The first snapshot of a commit: APPEND, or OVERWRITE (rule 13); None for none."""
    if overwrite is None:
        return None if append.is_empty else provide_fixed_changes(append)
    scope = compute_overwrite_scope(schema, append, overwrite)
    return None if scope is None else provide_overwrite_changes(file_io, table_root, scope, append)


def plan_commit_parts(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    latest: Snapshot | None,
    messages: Sequence[CommitMessage],
    *,
    overwrite: Mapping[str, Value] | None,
) -> list[tuple[CommitKind, ChangesProvider]]:
    """The snapshots one commit makes, in order: an APPEND (OVERWRITE when ``overwrite`` is
    given) of the data increments, then a COMPACT of the compaction increments, checked for
    conflicts against ``latest`` and the pending first part (an overwrite writes no
    changelog: rule 13)."""
    append = compute_append_changes(messages)
    compact = compute_compact_changes(messages)
    if overwrite is not None:
        compact = replace(compact, changelog_entries=())  # rule 13: no changelog
    first = provide_first_changes(file_io, table_root, schema, append, overwrite)
    first_kind = CommitKind.APPEND if overwrite is None else CommitKind.OVERWRITE
    parts = [] if first is None else [(first_kind, first)]
    if not compact.is_empty:
        pending = first(schema, latest).table_entries if first is not None else ()
        check_conflicts(file_io, table_root, schema, latest, compact, pending=pending)
        parts.append((CommitKind.COMPACT, provide_fixed_changes(compact)))
    return parts


def commit(
    file_io: FileIO,
    table_root: str,
    messages: Sequence[CommitMessage],
    *,
    commit_user: str,
    commit_identifier: int,
    overwrite: Mapping[str, Value] | None = None,
    field_set: FieldSet = DEFAULT_FIELD_SET,
    max_retries: int | None = None,
    branch: str = layout.MAIN_BRANCH,
) -> list[Snapshot]:
    """Rules 1-14: commit ``messages`` as at most two new snapshots and return them ([] when
    there was nothing to commit or ``commit_identifier`` was already committed by
    ``commit_user``; use :data:`BATCH_COMMIT_IDENTIFIER` for a one-shot batch commit). When
    the second snapshot fails after the first landed, :class:`PartialCommitError` names the
    landed snapshots (rule 14).

    ``overwrite`` is None for a normal commit, else the static partition spec of an overwrite
    (``{}`` for the whole table; a dynamic partition overwrite ignores it). ``field_set`` is
    the manifest field set to write (0.9 by default, so that Java 0.9 reads the table);
    ``max_retries`` overrides ``commit.max-retries``; ``branch`` names the branch whose
    snapshot directory receives the snapshots (``reference.store.branches``).
    """
    if is_committed(file_io, table_root, commit_user, commit_identifier, branch):
        return []
    schema = metadata.read_latest_schema(file_io, table_root, branch)
    latest = metadata.read_latest_snapshot(file_io, table_root, branch)
    parts = plan_commit_parts(file_io, table_root, schema, latest, messages, overwrite=overwrite)
    attempt = CommitAttempt(
        file_io, table_root, commit_user, commit_identifier, latest.id if latest else 0, branch
    )
    namer = MetaFileNamer()
    policy = compute_retry_policy(schema.core_options, max_retries)
    committed: list[Snapshot] = []
    for _, provide in parts:
        try:
            snapshot = commit_snapshot(
                file_io,
                table_root,
                provide,
                commit_user=commit_user,
                commit_identifier=commit_identifier,
                namer=namer,
                field_set=field_set,
                policy=policy,
                branch=branch,
            )
        except (CommitConflictError, StorageError) as error:
            return settle_failed_commit(attempt, [k for k, _ in parts], committed, error)
        committed.append(snapshot)
    return committed


def commit_batch(
    file_io: FileIO,
    table_root: str,
    messages: Sequence[CommitMessage],
    *,
    commit_user: str | None = None,
    overwrite: Mapping[str, Value] | None = None,
) -> list[Snapshot]:
    """A one-shot batch commit (:data:`BATCH_COMMIT_IDENTIFIER`) under ``commit_user``, or
    under a fresh commit user when none is given."""
    return commit(
        file_io,
        table_root,
        messages,
        commit_user=commit_user or str(uuid.uuid4()),
        commit_identifier=BATCH_COMMIT_IDENTIFIER,
        overwrite=overwrite,
    )
