"""Checks of manifest lists, data manifests and the replay of their entries.

Spec: ``docs/concepts/spec/manifest.md``, ``snapshot.md``, ``datafile.md`` ("Bucket").
Java: ``manifest/ManifestList``, ``ManifestFile``, ``ManifestFileMeta``, ``FileEntry``
(``mergeEntries``), ``operation/FileStoreCommitImpl`` (record counts),
``operation/AbstractFileStoreScan`` (bucket number check), ``mergetree/Levels``.

Rules checked here:

1. Every manifest list a snapshot names exists, has the size the snapshot records (Paimon 1.1+)
   and decodes. Every manifest it lists exists, has its ``_FILE_SIZE``, decodes, holds
   ``_NUM_ADDED_FILES`` ADD and ``_NUM_DELETED_FILES`` DELETE entries, names an existing schema,
   and its ``_PARTITION_STATS`` (full statistics over the entries' partitions) and, when
   recorded, its bucket and level ranges are true of its entries. A tag whose snapshot expired
   holds no changelog (``reference.store.usage`` rule 2), so its ``changelogManifestList`` is
   not checked: Java 0.9's expiration deletes that list with the snapshot even when it is
   tagged (``operation/FileDeletionBase.manifestSkippingSet`` skips only the tags' base and
   delta lists), and no reader of a tag reads it.
2. Replaying the base then the delta manifests never adds a file that is live and never deletes
   a file that is not (Java's ``FileEntry.mergeEntries`` refuses both); a file is live at most
   once per bucket.
3. ``deltaRecordCount`` is the rows of the delta manifests' ADD entries minus those of their
   DELETE entries; ``totalRecordCount`` is the rows of the live files (both are "unmerged"
   record counts: every file's ``_ROW_COUNT``); ``changelogRecordCount`` is the rows of the
   changelog manifests.
4. In a fixed-bucket table, a file's ``_TOTAL_BUCKETS`` is the ``bucket`` option of the schema
   it was written with, the same for every live file of a partition, and its bucket is in
   ``[0, _TOTAL_BUCKETS)``.
5. In a primary-key table, the files of one level above 0 in one bucket form one sorted run:
   their ``[_MIN_KEY, _MAX_KEY]`` ranges do not overlap.

A snapshot with an unreadable manifest gets no replay, count or file checks (its live files
are unknown: guessing them would report files that a lost DELETE entry removed), so one broken
manifest is reported once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import pairwise

from reference import layout
from reference.errors import FileMissingError
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.compare import SortKey, compare_rows
from reference.spec.data import Row
from reference.spec.manifest import (
    FileKind,
    ManifestEntry,
    ManifestFileMeta,
    compute_record_count_delta,
)
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot
from reference.store import scan
from reference.validate import report as r
from reference.validate.guard import read_present, run_check, run_read
from reference.validate.metadata_checks import snapshot_violation
from reference.validate.stats_checks import find_stats_disagreements


class ManifestMemo:
    """What was already read for one table: each file is read once, and each manifest list
    entry (a manifest's recorded size, counts and statistics) is judged once."""

    def __init__(self) -> None:
        self.lists: dict[str, list[ManifestFileMeta] | None] = {}
        self.manifests: dict[str, list[ManifestEntry] | None] = {}
        self.sizes: dict[str, int | None] = {}
        self.judged: set[ManifestFileMeta] = set()


@dataclass(frozen=True)
class LiveFile:
    """A live data file of a snapshot: its entry, decoded partition, and where it must be."""

    entry: ManifestEntry
    partition: Row
    path: str
    snapshot_id: int


@dataclass(frozen=True)
class SnapshotFiles:
    """The files of one snapshot; ``complete`` is False when a manifest could not be read
    (then ``live`` is empty)."""

    snapshot_id: int
    live: tuple[ManifestEntry, ...]
    changelog: tuple[ManifestEntry, ...]
    complete: bool


def live_file_violation(
    rule: r.Rule, table_root: str, live_file: LiveFile, reason: str
) -> r.Violation:
    """A finding on a live data file, in the snapshot it was live in."""
    file = r.relative_file(table_root, live_file.path)
    return r.violation(rule, file, reason, live_file.snapshot_id)


def manifest_file(table_root: str, name: str) -> str:
    return r.relative_file(table_root, layout.manifest_path(table_root, name))


# --------------------------------------------------------------------------------------------
# Manifest lists (rule 1)
# --------------------------------------------------------------------------------------------


def read_file_size(file_io: FileIO, path: str) -> int | None:
    """The size of a file, or None when there is none (a name no file system accepts, such
    as one holding a NUL byte, names no file either)."""
    try:
        return file_io.file_size(path)
    except (FileMissingError, ValueError):
        return None


def read_manifest_list_checked(
    file_io: FileIO,
    table_root: str,
    name: str,
    recorded_size: int | None,
    *,
    snapshot_id: int,
    memo: ManifestMemo,
) -> tuple[list[ManifestFileMeta] | None, list[r.Violation]]:
    """A manifest list and its findings (only the first time it is read)."""
    if name in memo.lists:
        return memo.lists[name], []
    file = manifest_file(table_root, name)
    size = read_file_size(file_io, layout.manifest_path(table_root, name))
    metas, found = read_present(
        size is not None,
        partial(scan.read_manifest_list, file_io, table_root, name),
        (r.Rule.MANIFEST_LIST_MISSING, r.Rule.MANIFEST_LIST_UNREADABLE),
        file,
        snapshot_id,
    )
    if size is not None and recorded_size is not None and recorded_size != size:
        reason = f"{size} bytes, the snapshot records {recorded_size}"
        found.append(r.violation(r.Rule.MANIFEST_LIST_SIZE_MISMATCH, file, reason, snapshot_id))
    memo.lists[name] = metas
    return metas, found


# --------------------------------------------------------------------------------------------
# Manifests (rule 1)
# --------------------------------------------------------------------------------------------


def check_entry_counts(meta: ManifestFileMeta, entries: Sequence[ManifestEntry]) -> list[str]:
    added = sum(e.kind is FileKind.ADD for e in entries)
    deleted = len(entries) - added
    if (added, deleted) == (meta.num_added_files, meta.num_deleted_files):
        return []
    return [
        f"{added} ADD / {deleted} DELETE entries, the manifest list says "
        f"{meta.num_added_files} / {meta.num_deleted_files}"
    ]


def decode_partitions(entries: Sequence[ManifestEntry], partition_type: t.RowType) -> list[Row]:
    """The partition of each entry (raises on the first that does not decode)."""
    types = [f.type for f in partition_type.fields]
    return [deserialize_binary_row(e.partition, types) for e in entries]


def check_partition_stats(
    meta: ManifestFileMeta, partitions: Sequence[Row], partition_type: t.RowType
) -> list[str]:
    """Rule 1: ``_PARTITION_STATS`` against the entries' partitions."""
    fields = list(partition_type.fields)
    if not fields:
        return []
    columns = [[row[i] for row in partitions] for i in range(len(fields))]
    return find_stats_disagreements(fields, columns, meta.partition_stats)


def _range_reason(name: str, recorded: tuple[int | None, int | None], actual: list[int]) -> str:
    low, high = recorded
    if low is None or high is None or not actual:
        return ""
    if (low, high) == (min(actual), max(actual)):
        return ""
    return f"{name} range [{low}, {high}] recorded, entries span [{min(actual)}, {max(actual)}]"


def check_manifest_ranges(meta: ManifestFileMeta, entries: Sequence[ManifestEntry]) -> list[str]:
    """Rule 1: ``_MIN_BUCKET``/``_MAX_BUCKET`` and ``_MIN_LEVEL``/``_MAX_LEVEL`` (1.1+)."""
    reasons = [
        _range_reason("bucket", (meta.min_bucket, meta.max_bucket), [e.bucket for e in entries]),
        _range_reason("level", (meta.min_level, meta.max_level), [e.file.level for e in entries]),
    ]
    return [reason for reason in reasons if reason]


def _judge_manifest(
    table_root: str,
    meta: ManifestFileMeta,
    entries: Sequence[ManifestEntry],
    *,
    schemas: Mapping[int, TableSchema],
    partition_type: t.RowType,
    snapshot_id: int,
) -> list[r.Violation]:
    file = manifest_file(table_root, meta.file_name)
    found = [
        r.violation(r.Rule.MANIFEST_FILE_COUNT_MISMATCH, file, reason, snapshot_id)
        for reason in check_entry_counts(meta, entries)
    ]
    found += [
        r.violation(r.Rule.MANIFEST_RANGE_MISMATCH, file, reason, snapshot_id)
        for reason in check_manifest_ranges(meta, entries)
    ]
    if meta.schema_id not in schemas:
        found.append(
            r.violation(
                r.Rule.MANIFEST_SCHEMA_MISSING,
                file,
                f"_SCHEMA_ID {meta.schema_id} has no schema file",
                snapshot_id,
            )
        )
    partitions, problems = run_read(
        partial(decode_partitions, entries, partition_type),
        r.Rule.PARTITION_UNDECODABLE,
        file,
        snapshot_id,
    )
    found.extend(problems)
    if partitions is not None:
        found += run_check(
            lambda: [
                r.violation(r.Rule.MANIFEST_PARTITION_STATS_MISMATCH, file, reason, snapshot_id)
                for reason in check_partition_stats(meta, partitions, partition_type)
            ],
            r.Rule.MANIFEST_PARTITION_STATS_MISMATCH,
            file,
            snapshot_id,
        )
    return found


def _read_manifest_once(
    file_io: FileIO, table_root: str, name: str, snapshot_id: int, memo: ManifestMemo
) -> list[r.Violation]:
    """Size and entries of a manifest into ``memo`` (None when missing or unreadable)."""
    if name in memo.manifests:
        return []
    memo.sizes[name] = read_file_size(file_io, layout.manifest_path(table_root, name))
    entries, found = read_present(
        memo.sizes[name] is not None,
        partial(scan.read_manifest, file_io, table_root, name),
        (r.Rule.MANIFEST_MISSING, r.Rule.MANIFEST_UNREADABLE),
        manifest_file(table_root, name),
        snapshot_id,
    )
    memo.manifests[name] = entries
    return found


def read_manifest_checked(
    file_io: FileIO,
    table_root: str,
    meta: ManifestFileMeta,
    *,
    schemas: Mapping[int, TableSchema],
    partition_type: t.RowType,
    snapshot_id: int,
    memo: ManifestMemo,
) -> tuple[list[ManifestEntry] | None, list[r.Violation]]:
    """A data (or changelog) manifest and the findings of rule 1. The file is read once; each
    distinct manifest list entry describing it is judged once."""
    found = _read_manifest_once(file_io, table_root, meta.file_name, snapshot_id, memo)
    entries = memo.manifests[meta.file_name]
    size = memo.sizes[meta.file_name]
    if meta in memo.judged:
        return entries, found
    memo.judged.add(meta)
    if size is not None and size != meta.file_size:
        found.append(
            r.violation(
                r.Rule.MANIFEST_SIZE_MISMATCH,
                manifest_file(table_root, meta.file_name),
                f"{size} bytes, _FILE_SIZE says {meta.file_size}",
                snapshot_id,
            )
        )
    if entries is not None:
        found += _judge_manifest(
            table_root,
            meta,
            entries,
            schemas=schemas,
            partition_type=partition_type,
            snapshot_id=snapshot_id,
        )
    return entries, found


def read_manifests_of_list(
    file_io: FileIO,
    table_root: str,
    list_name: str,
    recorded_size: int | None,
    *,
    schemas: Mapping[int, TableSchema],
    partition_type: t.RowType,
    snapshot_id: int,
    memo: ManifestMemo,
) -> tuple[list[tuple[str, list[ManifestEntry]]] | None, list[r.Violation]]:
    """``[(manifest name, entries), ...]`` of one manifest list in order, or None when the list
    or any of its manifests could not be read."""
    metas, found = read_manifest_list_checked(
        file_io, table_root, list_name, recorded_size, snapshot_id=snapshot_id, memo=memo
    )
    if metas is None:
        return None, found
    manifests: list[tuple[str, list[ManifestEntry]]] = []
    complete = True
    for meta in metas:
        entries, problems = read_manifest_checked(
            file_io,
            table_root,
            meta,
            schemas=schemas,
            partition_type=partition_type,
            snapshot_id=snapshot_id,
            memo=memo,
        )
        found.extend(problems)
        if entries is None:
            complete = False
        else:
            manifests.append((meta.file_name, entries))
    return (manifests if complete else None), found


# --------------------------------------------------------------------------------------------
# Replay (rule 2) and record counts (rule 3)
# --------------------------------------------------------------------------------------------


def find_added_twice(
    manifests: Sequence[tuple[str, Sequence[ManifestEntry]]],
) -> list[tuple[str, ManifestEntry]]:
    """ADD entries of files that are live at that point of the replay, with their manifest."""
    live: set[scan.FileIdentifier] = set()
    twice: list[tuple[str, ManifestEntry]] = []
    for name, entries in manifests:
        for entry in entries:
            identifier = scan.compute_file_identifier(entry)
            if entry.kind is FileKind.DELETE:
                live.discard(identifier)
            elif identifier in live:
                twice.append((name, entry))
            else:
                live.add(identifier)
    return twice


def find_manifest_of(
    entry: ManifestEntry, manifests: Sequence[tuple[str, Sequence[ManifestEntry]]]
) -> str:
    return next(name for name, entries in manifests if entry in entries)


def find_live_twice(live: Sequence[ManifestEntry]) -> list[ManifestEntry]:
    """Live entries whose file name is already live in the same bucket (all but the first)."""
    seen: set[tuple[bytes, int, str]] = set()
    twice: list[ManifestEntry] = []
    for entry in live:
        key = (entry.partition, entry.bucket, entry.file.file_name)
        if key in seen:
            twice.append(entry)
        seen.add(key)
    return twice


def check_replay(
    table_root: str,
    manifests: Sequence[tuple[str, Sequence[ManifestEntry]]],
    live: Sequence[ManifestEntry],
    unmatched: Sequence[ManifestEntry],
    snapshot_id: int,
) -> list[r.Violation]:
    """Rule 2."""
    found = [
        r.violation(
            r.Rule.FILE_ADDED_TWICE,
            manifest_file(table_root, name),
            f"{entry.file.file_name} (bucket {entry.bucket}, level {entry.file.level}) is "
            "added while already live",
            snapshot_id,
        )
        for name, entry in find_added_twice(manifests)
    ]
    found += [
        r.violation(
            r.Rule.DELETE_OF_MISSING_FILE,
            manifest_file(table_root, find_manifest_of(entry, manifests)),
            f"deletes {entry.file.file_name} (bucket {entry.bucket}, level {entry.file.level}), "
            "which no earlier entry added",
            snapshot_id,
        )
        for entry in unmatched
    ]
    found += [
        r.violation(
            r.Rule.FILE_LIVE_TWICE,
            manifest_file(table_root, find_manifest_of(entry, manifests)),
            f"{entry.file.file_name} is live at level {entry.file.level} and at another level "
            f"of bucket {entry.bucket}",
            snapshot_id,
        )
        for entry in find_live_twice(live)
    ]
    return found


def check_record_counts(
    table_root: str,
    snapshot: Snapshot,
    delta_entries: Sequence[ManifestEntry],
    live: Sequence[ManifestEntry],
    branch: str,
) -> list[r.Violation]:
    """Rule 3 for the data manifests."""
    delta = compute_record_count_delta(delta_entries)
    total = sum(e.file.row_count for e in live)
    checks = (
        (
            r.Rule.SNAPSHOT_DELTA_RECORD_COUNT,
            snapshot.delta_record_count,
            delta,
            f"deltaRecordCount {snapshot.delta_record_count}, the delta manifests add "
            f"{delta} rows net",
        ),
        (
            r.Rule.SNAPSHOT_LIVE_RECORD_COUNT,
            snapshot.total_record_count,
            total,
            f"totalRecordCount {snapshot.total_record_count}, the live files hold {total} rows",
        ),
    )
    return [
        snapshot_violation(rule, table_root, snapshot.id, branch, reason)
        for rule, recorded, actual, reason in checks
        if recorded is not None and recorded != actual
    ]


def check_changelog_count(
    table_root: str, snapshot: Snapshot, changelog: Sequence[ManifestEntry], branch: str
) -> list[r.Violation]:
    """Rule 3 for the changelog manifests (0 when the snapshot has none)."""
    rows = sum(e.file.row_count for e in changelog)
    recorded = snapshot.changelog_record_count
    if recorded is None or recorded == rows:
        return []
    reason = f"changelogRecordCount {recorded}, the changelog manifests hold {rows} rows"
    return [
        snapshot_violation(
            r.Rule.SNAPSHOT_CHANGELOG_RECORD_COUNT, table_root, snapshot.id, branch, reason
        )
    ]


def read_snapshot_files(
    file_io: FileIO,
    table_root: str,
    snapshot: Snapshot,
    *,
    schemas: Mapping[int, TableSchema],
    partition_type: t.RowType,
    memo: ManifestMemo,
    branch: str = layout.MAIN_BRANCH,
    with_changelog: bool = True,
) -> tuple[SnapshotFiles, list[r.Violation]]:
    """Rules 1-3 for one snapshot, and its live data files and changelog files; without
    ``with_changelog`` (a tag whose snapshot expired, rule 1) the changelog is left out."""
    read = partial(
        read_manifests_of_list,
        file_io,
        table_root,
        schemas=schemas,
        partition_type=partition_type,
        snapshot_id=snapshot.id,
        memo=memo,
    )
    base, found = read(snapshot.base_manifest_list, snapshot.base_manifest_list_size)
    delta, problems = read(snapshot.delta_manifest_list, snapshot.delta_manifest_list_size)
    found.extend(problems)
    changelog: list[ManifestEntry] = []
    changelog_complete = True
    if with_changelog and snapshot.changelog_manifest_list is not None:
        changelogs, problems = read(
            snapshot.changelog_manifest_list, snapshot.changelog_manifest_list_size
        )
        found.extend(problems)
        changelog_complete = changelogs is not None
        changelog = [e for _, entries in changelogs or [] for e in entries]
    if with_changelog and changelog_complete:
        found += check_changelog_count(table_root, snapshot, changelog, branch)
    if base is None or delta is None:
        return SnapshotFiles(snapshot.id, (), tuple(changelog), False), found
    manifests = [*base, *delta]
    replay = scan.compute_live_entries(e for _, entries in manifests for e in entries)
    found += check_replay(table_root, manifests, replay.live, replay.unmatched_deletes, snapshot.id)
    delta_entries = [e for _, entries in delta for e in entries]
    found += check_record_counts(table_root, snapshot, delta_entries, replay.live, branch)
    return SnapshotFiles(snapshot.id, tuple(replay.live), tuple(changelog), True), found


# --------------------------------------------------------------------------------------------
# Live files: where they are, buckets (rule 4) and levels (rule 5)
# --------------------------------------------------------------------------------------------


def compute_live_files(
    table_root: str,
    entries: Sequence[ManifestEntry],
    schema: TableSchema,
    snapshot_id: int,
) -> list[LiveFile]:
    """Where each entry's file must be (entries whose partition does not decode are left out:
    their manifest was already reported)."""
    types = [f.type for f in schema.partition_type.fields]
    files: list[LiveFile] = []
    for entry in entries:
        try:
            partition = deserialize_binary_row(entry.partition, types)
        except Exception:
            continue
        bucket_dir = scan.compute_bucket_path(table_root, schema, partition, entry.bucket)
        path = layout.data_file_path(bucket_dir, entry.file.file_name, entry.file.external_path)
        files.append(LiveFile(entry, partition, path, snapshot_id))
    return files


def check_bucket_range(live_file: LiveFile) -> list[str]:
    """Rule 4 for one file: its bucket against ``_TOTAL_BUCKETS``."""
    entry = live_file.entry
    total, bucket = entry.total_buckets, entry.bucket
    reasons: list[str] = []
    if total > 0 and not 0 <= bucket < total:
        reasons.append(f"bucket {bucket} outside [0, {total})")
    elif total <= 0 and bucket < 0 and bucket != layout.POSTPONE_BUCKET:
        reasons.append(f"bucket {bucket} is negative")
    return reasons


def check_total_buckets(live_file: LiveFile, file_schema: TableSchema | None) -> list[str]:
    """Rule 4 for one file: ``_TOTAL_BUCKETS`` is the bucket option of its schema."""
    option = None if file_schema is None else file_schema.num_buckets
    total = live_file.entry.total_buckets
    if option is None or option <= 0 or total == option:
        return []
    return [
        f"_TOTAL_BUCKETS {total}, but schema {live_file.entry.file.schema_id} has bucket {option}"
    ]


def check_partition_total_buckets(table_root: str, files: Sequence[LiveFile]) -> list[r.Violation]:
    """Rule 4: one ``_TOTAL_BUCKETS`` per partition (fixed buckets only)."""
    by_partition: dict[bytes, list[LiveFile]] = defaultdict(list)
    for live_file in files:
        if live_file.entry.total_buckets > 0:
            by_partition[live_file.entry.partition].append(live_file)
    found: list[r.Violation] = []
    for members in by_partition.values():
        counts = sorted({f.entry.total_buckets for f in members})
        if len(counts) < 2:
            continue
        majority = max(counts, key=lambda c: sum(f.entry.total_buckets == c for f in members))
        for live_file in members:
            if live_file.entry.total_buckets != majority:
                reason = (
                    f"_TOTAL_BUCKETS {live_file.entry.total_buckets}, other files of its "
                    f"partition say {majority}"
                )
                found.append(
                    live_file_violation(
                        r.Rule.TOTAL_BUCKETS_MISMATCH, table_root, live_file, reason
                    )
                )
    return found


def check_buckets(
    table_root: str, files: Sequence[LiveFile], schemas: Mapping[int, TableSchema]
) -> list[r.Violation]:
    """Rule 4 for the live files of one snapshot."""
    found: list[r.Violation] = []
    for live_file in files:
        file_schema = schemas.get(live_file.entry.file.schema_id)
        found += [
            live_file_violation(r.Rule.BUCKET_OUT_OF_RANGE, table_root, live_file, reason)
            for reason in check_bucket_range(live_file)
        ]
        found += [
            live_file_violation(r.Rule.TOTAL_BUCKETS_MISMATCH, table_root, live_file, reason)
            for reason in check_total_buckets(live_file, file_schema)
        ]
    return found + check_partition_total_buckets(table_root, files)


def compute_key_types(schema: TableSchema) -> list[t.DataType]:
    return [f.type for f in schema.trimmed_primary_keys_type.fields]


def find_overlaps(
    files: Sequence[LiveFile], key_types: Sequence[t.DataType]
) -> list[tuple[LiveFile, LiveFile]]:
    """Pairs of files of one sorted run (same level) whose key ranges overlap (rule 5); files
    are taken in key order (ties by name), and each is paired with the one before it."""
    bounds = [
        (
            f,
            deserialize_binary_row(f.entry.file.min_key, key_types),
            deserialize_binary_row(f.entry.file.max_key, key_types),
        )
        for f in files
    ]
    ordered = sorted(bounds, key=lambda b: (SortKey(b[1], key_types), b[0].entry.file.file_name))
    return [
        (left[0], right[0])
        for left, right in pairwise(ordered)
        if compare_rows(key_types, left[2], right[1]) >= 0
    ]


def check_levels(
    table_root: str, files: Sequence[LiveFile], schema: TableSchema
) -> list[r.Violation]:
    """Rule 5 (primary-key tables only)."""
    if not schema.is_primary_key_table:
        return []
    runs: dict[tuple[bytes, int, int], list[LiveFile]] = defaultdict(list)
    for live_file in files:
        if live_file.entry.file.level > 0:
            entry = live_file.entry
            runs[(entry.partition, entry.bucket, entry.file.level)].append(live_file)
    key_types = compute_key_types(schema)
    found: list[r.Violation] = []
    for (_, bucket, level), members in runs.items():
        if len(members) < 2:
            continue
        overlaps, problems = run_read(
            partial(find_overlaps, members, key_types),
            r.Rule.FILE_META_INVALID,
            r.relative_file(table_root, members[0].path),
            members[0].snapshot_id,
        )
        found.extend(problems)
        for left, right in overlaps or []:
            reason = (
                f"level {level} of bucket {bucket}: its key range overlaps that of "
                f"{left.entry.file.file_name}"
            )
            found.append(live_file_violation(r.Rule.LEVEL_OVERLAP, table_root, right, reason))
    return found
