"""Writing one batch: rows in, data / changelog / index files and commit messages out.

Spec: ``docs/concepts/spec/datafile.md``, ``tableindex.md``; ``docs/primary-key-table/*``
(merge engines, changelog producers, sequence and row kind fields); the seeds' "Concurrency
control" (writers write files, the committer makes them visible). Java (0.9.0):
``table/sink/TableWriteImpl``, ``operation/AbstractFileStoreWrite``,
``operation/KeyValueFileStoreWrite``, ``operation/AppendOnlyFileStoreWrite``,
``mergetree/MergeTreeWriter``, ``mergetree/SortBufferWriteBuffer``,
``mergetree/compact/ReducerMergeFunctionWrapper``, ``append/AppendOnlyWriter``,
``io/DataFilePathFactory``, ``index/HashIndexMaintainer``, ``index/IndexFileHandler``.

A call of :func:`write_batch` is one batch of one commit and keeps no state: what it needs about
existing data (sequence numbers, the HASH index, the cross-partition key index) it reads from
the ``base`` snapshot. It writes files and returns :class:`CommitMessage` records; nothing is
visible until ``reference.store.commit`` commits them.

Rules:

1. *Routing.* Every input row (kind ``+I`` unless given) is sent to a partition and bucket
   (``reference.store.bucket_assign``), in input order.
2. *Row rules* (Java ``TableWriteImpl``), applied to each routed row: a NOT NULL column must not
   hold null; the kind is the ``rowkind.field`` value when that option is set; ``ignore-delete``
   drops -U and -D rows (main's ``ignore-update-before`` drops -U); an append table accepts only
   +I and +U.
3. *Sequence numbers.* The rows of a (partition, bucket) take consecutive numbers in arrival
   order, starting after the largest ``max_sequence_number`` of the bucket's live files in the
   base snapshot (at 0 for an empty bucket). A bucket-unaware append table starts every batch
   at 0: its writers ignore existing files.
4. *Append files:* the rows in arrival order, rolled at ``target-file-size`` (default 256 MB).
5. *Primary-key files* (Java's write buffer flush): the records are sorted by trimmed primary
   key, then by the ``sequence.field`` values, then by sequence number. A key with a single
   record writes it unchanged (whatever its kind); a key with several records writes the merge
   engine's result of them (with the result's kind and sequence number), or nothing when the
   merge yields nothing. Files are level 0 with file source APPEND, rolled at
   ``target-file-size`` (default 128 MB).
6. *Changelog.* With ``changelog-producer = input`` every sorted record, unmerged, also goes to
   rolled changelog files (``changelog-<uuid>-<n>.<format>``) that are part of the data
   increment. The ``lookup`` and ``full-compaction`` producers write changelog at compaction.
7. *Names.* Data and changelog files are ``<prefix><uuid>-<n><extension>`` (prefixes
   ``data-`` / ``changelog-``, main's ``data-file.prefix`` / ``changelog-file.prefix``); index
   files are ``index-<uuid>-<n>`` in ``index/``. One uuid per call (:class:`FileNaming`); data
   and changelog files share one counter across the batch, numbered in the order Java opens
   them (a changelog file opens with its first record, which Java reads before it emits the
   merged record of the key before; Java counts per bucket, the reference per batch so that
   names stay unique with one uuid). Index files have their own counter.
8. *Formats.* Level-0 files use ``file.format.per.level`` for level 0, else ``file.format``
   (default parquet), and ``file.compression.per.level`` / ``file.compression``; changelog
   files the same unless main's ``changelog-file.format`` / ``changelog-file.compression`` /
   ``changelog-file.stats-mode`` say otherwise.
9. *Messages.* One message per (partition, bucket) written to, in first-written order, with the
   new data files, the changelog files and, for dynamic buckets, the rewritten HASH index file
   (the replaced one listed as deleted; Java 0.9 leaves the deleted list empty and lets the
   committer replace the index of the same partition and bucket, which commits the same way).
   ``total_buckets`` is the bucket count, ``-1`` unless fixed.
10. *Deletion vectors and lookup.* Java 0.9's writer writes only level-0 files; deletion
    vectors, first-row deduplication and lookup changelog are made by compaction, which Java's
    batch writer runs before it commits (:func:`is_compaction_needed_after_write`). A reader
    skips level 0 of such tables, so until compaction runs the new rows are not visible.
11. *Overwrite.* A batch written for an overwrite ignores the base snapshot's files: sequence
    numbers start at 0 in every bucket and a dynamic-bucket table assigns buckets with an empty
    HASH index (no index file is carried on or replaced; the committer deletes the overwritten
    partitions' index files). A cross-partition table still routes by the visible keys (Java
    0.9: ``BatchWriteBuilderImpl.newWrite`` sets ``withIgnorePreviousFiles`` for any
    overwrite; Flink's ``HashBucketAssignerOperator`` uses a ``SimpleHashBucketAssigner`` when
    overwriting; ``GlobalDynamicBucketSink`` bootstraps its key index either way).
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cmp_to_key

import pyarrow as pa

from reference import layout
from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature, naming_file
from reference.io import FileIO
from reference.merge.engine import (
    MergeOptions,
    MergeSetup,
    compute_merge_setup,
    compute_rowkind_index,
    is_kept_on_write,
    merge,
    parse_merge_options,
)
from reference.merge.sequence import compare_records, compute_row_kind
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row, serialize_binary_row
from reference.spec.bucket import BucketMode
from reference.spec.column_stats import STATS_MODE_OPTION, compute_stats_modes, parse_stats_mode
from reference.spec.commit_message import CommitMessage, DataIncrement, IndexIncrement
from reference.spec.compare import compare_rows
from reference.spec.data import Row, RowKind, Timestamp
from reference.spec.data_file import (
    DataFileMeta,
    FileSource,
    MetaFileKind,
    compute_data_file_extension,
    compute_data_file_name,
    compute_key_fields,
    compute_key_value_fields,
    compute_meta_file_name,
    is_thin_mode_supported,
)
from reference.spec.file_format import (
    parse_file_format,
    parse_format_write_options,
)
from reference.spec.hash_index import HASH_INDEX_TYPE, decode_hash_index, encode_hash_index
from reference.spec.key_value import NO_SEQUENCE, WRITE_LEVEL, KeyValue
from reference.spec.manifest import FileKind, IndexFileMeta, ManifestEntry
from reference.spec.options import (
    FORCE_LOOKUP_OPTION,
    ChangelogProducer,
    MergeEngine,
    option_value,
    validate_engine_combinations,
)
from reference.spec.row_tracking import find_unwritten_option
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot
from reference.store import query
from reference.store.bucket_assign import (
    ExistingData,
    HashIndexFile,
    HashIndexUpdate,
    KeyLocation,
    RoutedRow,
    TableKeys,
    compute_bucket_mode,
    compute_hash_index_updates,
    compute_projection,
    compute_table_keys,
    compute_total_buckets,
    route_rows,
)
from reference.store.file_index import compute_file_index_builder
from reference.store.file_writer import (
    FileIndexBuilder,
    FileSettings,
    KeyValueLayout,
    MetaContext,
    compute_creation_time,
    compute_key_value_ranges,
    parse_file_index_threshold,
    write_append_files,
    write_key_value_file,
)
from reference.store.read import read_split
from reference.store.scan import (
    compute_bucket_path,
    compute_live_entries,
    list_snapshot_manifests,
    plan_scan,
    read_index_manifest,
    read_manifest,
)

# --------------------------------------------------------------------------------------------
# File naming (rule 7)
# --------------------------------------------------------------------------------------------


def _random_uuid() -> str:
    return str(uuid.uuid4())


@dataclass(frozen=True)
class FileNaming:
    """What makes a batch's file names (and times) reproducible: the writer uuid, and the
    creation time stamped on every data file meta (``None``: the local time now).

    Counters start at 0 for every call, so give each call its own uuid.
    """

    writer_uuid: str = field(default_factory=_random_uuid)
    creation_time: Timestamp | None = None


@dataclass(frozen=True)
class NameCounters:
    """The counters of one call: data and changelog files, and index files."""

    files: Iterator[int]
    index_files: Iterator[int]


def create_name_counters() -> NameCounters:
    return NameCounters(itertools.count(), itertools.count())


# --------------------------------------------------------------------------------------------
# The write plan: options read and checked once
# --------------------------------------------------------------------------------------------

FORMAT_PER_LEVEL_OPTION = "file.format.per.level"
COMPRESSION_PER_LEVEL_OPTION = "file.compression.per.level"
STATS_MODE_PER_LEVEL_OPTION = "metadata.stats-mode.per.level"
CHANGELOG_FORMAT_OPTION = "changelog-file.format"
CHANGELOG_COMPRESSION_OPTION = "changelog-file.compression"
CHANGELOG_STATS_MODE_OPTION = "changelog-file.stats-mode"
DATA_PREFIX_OPTION = "data-file.prefix"
CHANGELOG_PREFIX_OPTION = "changelog-file.prefix"
SUFFIX_COMPRESSION_OPTION = "file.suffix.include.compression"
EXTERNAL_PATHS_OPTION = "data-file.external-paths"


@dataclass(frozen=True)
class FileKindPlan:
    """How the files of one kind (data or changelog) are made and named."""

    settings: FileSettings
    prefix: str
    extension: str


@dataclass(frozen=True)
class WritePlan:
    """Everything :func:`write_batch` needs from the schema and its options."""

    mode: BucketMode
    total_buckets: int
    keys: TableKeys
    data: FileKindPlan
    changelog: FileKindPlan | None
    key_value_layout: KeyValueLayout | None
    merge_setup: MergeSetup | None
    merge_options: MergeOptions
    rowkind_index: int | None
    file_index_threshold: int
    fields: tuple[t.DataField, ...]


def compute_physical_fields(schema: TableSchema) -> list[t.DataField]:
    """The columns of the table's data files (``_KEY_*``, ``_SEQUENCE_NUMBER``, ``_VALUE_KIND``
    and the table columns for primary-key tables; the table columns for append tables)."""
    if not schema.is_primary_key_table:
        return list(schema.fields)
    key_fields = compute_key_fields(schema.fields, schema.trimmed_primary_keys)
    thin = schema.core_options.data_file_thin_mode
    return compute_key_value_fields(key_fields, schema.fields, thin)


def compute_key_value_layout(schema: TableSchema, keys: TableKeys) -> KeyValueLayout:
    """Where keys and values sit in the physical rows of the table's primary-key files."""
    key_fields = compute_key_fields(schema.fields, schema.trimmed_primary_keys)
    thin = schema.core_options.data_file_thin_mode and is_thin_mode_supported(
        key_fields, schema.fields
    )
    value_start = 2 if thin else len(key_fields) + 2
    key_columns = (
        tuple(value_start + i for i in keys.key_indexes) if thin else tuple(range(len(key_fields)))
    )
    return KeyValueLayout(keys.key_types, key_columns, value_start, thin)


def _level_zero_entry(options: Mapping[str, str], key: str) -> str | None:
    """The level-0 value of a ``<level>:<value>,...`` option, if it has one."""
    per_level: Mapping[str, str] = option_value(options, key) or {}
    for level, value in per_level.items():
        if not level.strip().lstrip("-").isdigit():
            raise InvalidOptionError(key, options[key], f"level {level!r} is not a number")
        if int(level) == WRITE_LEVEL:
            return value
    return None


def compute_file_kind_plan(
    schema: TableSchema,
    fields: Sequence[t.DataField],
    *,
    format_name: str,
    compression: str,
    stats_mode: str,
    prefix: str,
) -> FileKindPlan:
    """Settings and naming of one kind of file (rule 8)."""
    options = schema.options
    fmt = parse_file_format(format_name)
    write_options = replace(
        parse_format_write_options(options), compression=compression.strip().lower()
    )
    stats_options = {**options, STATS_MODE_OPTION: stats_mode}
    modes = compute_stats_modes(stats_options, [f.name for f in fields])
    settings = FileSettings(
        fmt=fmt,
        write_options=write_options,
        fields=tuple(fields),
        stats_modes=tuple(modes),
        target_file_size=schema.core_options.target_file_size(schema.is_primary_key_table),
    )
    suffix = bool(option_value(options, SUFFIX_COMPRESSION_OPTION))
    extension = compute_data_file_extension(
        fmt.value, compression, suffix_include_compression=suffix
    )
    return FileKindPlan(settings, prefix, extension)


def compute_data_plan(schema: TableSchema, fields: Sequence[t.DataField]) -> FileKindPlan:
    """Level-0 data files (rule 8)."""
    options = schema.options
    core = schema.core_options
    stats_mode = _level_zero_entry(options, STATS_MODE_PER_LEVEL_OPTION) or core.stats_mode
    parse_stats_mode(stats_mode, STATS_MODE_OPTION)
    return compute_file_kind_plan(
        schema,
        fields,
        format_name=_level_zero_entry(options, FORMAT_PER_LEVEL_OPTION) or core.file_format,
        compression=_level_zero_entry(options, COMPRESSION_PER_LEVEL_OPTION)
        or core.file_compression,
        stats_mode=stats_mode,
        prefix=str(option_value(options, DATA_PREFIX_OPTION)),
    )


def compute_changelog_plan(
    schema: TableSchema, fields: Sequence[t.DataField], data: FileKindPlan
) -> FileKindPlan | None:
    """Changelog files of ``changelog-producer = input`` (rules 6, 8), else ``None``."""
    if schema.core_options.changelog_producer is not ChangelogProducer.INPUT:
        return None
    options = schema.options
    settings = data.settings
    stats_mode = options.get(CHANGELOG_STATS_MODE_OPTION)
    if stats_mode is not None:
        parse_stats_mode(stats_mode, CHANGELOG_STATS_MODE_OPTION)
    return compute_file_kind_plan(
        schema,
        fields,
        format_name=options.get(CHANGELOG_FORMAT_OPTION, settings.fmt.value),
        compression=options.get(CHANGELOG_COMPRESSION_OPTION, settings.write_options.compression),
        stats_mode=stats_mode
        or _level_zero_entry(options, STATS_MODE_PER_LEVEL_OPTION)
        or schema.core_options.stats_mode,
        prefix=str(option_value(options, CHANGELOG_PREFIX_OPTION)),
    )


def validate_write_options(schema: TableSchema) -> None:
    """Option combinations a writer cannot honour (Java ``SchemaValidation``)."""
    options = schema.options
    validate_engine_combinations(options)
    producer = schema.core_options.changelog_producer
    if not schema.is_primary_key_table and producer is not ChangelogProducer.NONE:
        raise InvalidOptionError(
            "changelog-producer", producer.value, "an append table writes no changelog"
        )
    if EXTERNAL_PATHS_OPTION in options:
        raise UnsupportedFeature(f"writing to '{EXTERNAL_PATHS_OPTION}' (main only)")
    unwritten = find_unwritten_option(options)
    if unwritten is not None:
        raise UnsupportedFeature(f"writing to a table with '{unwritten}' (Paimon 1.x, read only)")


def compute_write_plan(schema: TableSchema) -> WritePlan:
    """Read, resolve and check every option the writer uses."""
    validate_write_options(schema)
    mode = compute_bucket_mode(schema)
    keys = compute_table_keys(schema)
    fields = compute_physical_fields(schema)
    data = compute_data_plan(schema, fields)
    merge_options = parse_merge_options(schema.options)
    merge_setup = None
    layout_ = None
    if schema.is_primary_key_table:
        merge_setup = compute_merge_setup(
            merge_options, schema.logical_row_type, schema.primary_keys
        )
        layout_ = compute_key_value_layout(schema, keys)
    return WritePlan(
        mode=mode,
        total_buckets=compute_total_buckets(schema),
        keys=keys,
        data=data,
        changelog=compute_changelog_plan(schema, fields, data),
        key_value_layout=layout_,
        merge_setup=merge_setup,
        merge_options=merge_options,
        rowkind_index=compute_rowkind_index(merge_options, schema.logical_row_type),
        file_index_threshold=parse_file_index_threshold(schema.options),
        fields=tuple(schema.fields),
    )


def is_compaction_needed_after_write(schema: TableSchema) -> bool:
    """Whether Java's batch writer compacts before it commits (rule 10, Java
    ``CoreOptions.needLookup``): deletion vectors, the first-row engine, the lookup changelog
    producer, or ``force-lookup``. The hook for the committer/facade to run compaction."""
    core = schema.core_options
    engine = parse_merge_options(schema.options).merge_engine
    return schema.is_primary_key_table and (
        core.deletion_vectors_enabled
        or engine is MergeEngine.FIRST_ROW
        or core.changelog_producer is ChangelogProducer.LOOKUP
        or bool(option_value(schema.options, FORCE_LOOKUP_OPTION))
    )


# --------------------------------------------------------------------------------------------
# The base snapshot
# --------------------------------------------------------------------------------------------


def read_live_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot | None
) -> list[ManifestEntry]:
    """The live data files of ``snapshot`` (``reference.store.scan`` rule 1)."""
    if snapshot is None:
        return []
    entries = [
        entry
        for manifest in list_snapshot_manifests(file_io, table_root, snapshot)
        for entry in read_manifest(file_io, table_root, manifest.file_name)
    ]
    return compute_live_entries(entries).live


def compute_max_sequence_numbers(entries: Sequence[ManifestEntry]) -> dict[tuple[bytes, int], int]:
    """The largest max sequence number of the live files of each (partition, bucket)."""
    found: dict[tuple[bytes, int], int] = {}
    for entry in entries:
        bucket = (entry.partition, entry.bucket)
        found[bucket] = max(found.get(bucket, NO_SEQUENCE), entry.file.max_sequence_number)
    return found


@dataclass(frozen=True)
class StoredHashIndex:
    """A HASH index file of the base snapshot: its meta and its content."""

    meta: IndexFileMeta
    content: HashIndexFile


def read_hash_index(
    file_io: FileIO, table_root: str, schema: TableSchema, snapshot: Snapshot | None
) -> list[StoredHashIndex]:
    """The live HASH index files of ``snapshot``, in index manifest order."""
    if snapshot is None or snapshot.index_manifest is None:
        return []
    live: dict[tuple[bytes, int, str], tuple[bytes, int, IndexFileMeta]] = {}
    for entry in read_index_manifest(file_io, table_root, snapshot.index_manifest):
        identity = (entry.partition, entry.bucket, entry.index_file.file_name)
        if entry.kind is FileKind.DELETE:
            live.pop(identity, None)
        elif entry.index_file.index_type == HASH_INDEX_TYPE:
            live[identity] = (entry.partition, entry.bucket, entry.index_file)
    partition_types = [f.type for f in schema.partition_type.fields]
    stored = []
    for partition, bucket, meta in live.values():
        path = meta.external_path or layout.index_file_path(table_root, meta.file_name)
        with naming_file(path):
            hashes = decode_hash_index(file_io.read_bytes(path))
        values = deserialize_binary_row(partition, partition_types)
        stored.append(StoredHashIndex(meta, HashIndexFile(values, bucket, hashes)))
    return stored


def read_key_locations(
    file_io: FileIO, table_root: str, schema: TableSchema, snapshot: Snapshot | None
) -> list[KeyLocation]:
    """Every visible trimmed primary key with its partition and bucket (Java
    ``IndexBootstrap``: a batch read of the latest snapshot)."""
    if snapshot is None:
        return []
    schemas = {**query.load_schemas(file_io, table_root), schema.id: schema}
    keys = compute_table_keys(schema)
    found = []
    for split in plan_scan(file_io, table_root, snapshot, schema, schemas).splits:
        for _, row in read_split(file_io, split, schema, schemas):
            key = compute_projection(row, keys.key_indexes)
            found.append(KeyLocation(key, split.partition, split.bucket))
    return found


@dataclass(frozen=True)
class BaseState:
    """What the writer knows about the base snapshot."""

    max_sequences: Mapping[tuple[bytes, int], int]
    hash_index: tuple[StoredHashIndex, ...]
    routing: ExistingData


def read_base_state(
    file_io: FileIO, table_root: str, schema: TableSchema, base: Snapshot | None, mode: BucketMode
) -> BaseState:
    """Rule 3's sequence numbers, the HASH index (dynamic) and key index (cross-partition)."""
    entries = [] if mode is BucketMode.UNAWARE else read_live_entries(file_io, table_root, base)
    hash_index = (
        read_hash_index(file_io, table_root, schema, base) if mode is BucketMode.DYNAMIC else []
    )
    locations = (
        read_key_locations(file_io, table_root, schema, base)
        if mode is BucketMode.CROSS_PARTITION
        else []
    )
    routing = ExistingData(tuple(s.content for s in hash_index), tuple(locations))
    return BaseState(compute_max_sequence_numbers(entries), tuple(hash_index), routing)


def compute_overwrite_base_state(state: BaseState) -> BaseState:
    """Rule 11: what an overwrite's writer keeps of the base state (only the key index)."""
    return BaseState({}, (), ExistingData(key_locations=state.routing.key_locations))


# --------------------------------------------------------------------------------------------
# Row rules (rule 2)
# --------------------------------------------------------------------------------------------


def compute_inputs(
    rows: Sequence[Row], kinds: Sequence[RowKind] | None, fields: Sequence[t.DataField]
) -> list[tuple[RowKind, Row]]:
    """Pair each row with its kind (``+I`` by default), checking row and kind counts."""
    if kinds is not None and len(kinds) != len(rows):
        raise ValueError(f"{len(rows)} rows but {len(kinds)} row kinds")
    for row in rows:
        if len(row) != len(fields):
            raise SpecViolation(
                f"a row of {len(row)} values for {len(fields)} columns", code="INVALID_VALUE"
            )
    chosen = kinds if kinds is not None else [RowKind.INSERT] * len(rows)
    return [(kind, tuple(row)) for kind, row in zip(chosen, rows, strict=True)]


def check_not_null(row: Row, fields: Sequence[t.DataField]) -> None:
    """Java ``TableWriteImpl.checkNullability``."""
    for value, data_field in zip(row, fields, strict=True):
        if value is None and not data_field.type.nullable:
            raise SpecViolation(
                f"cannot write null to NOT NULL column '{data_field.name}'",
                code="NULL_IN_NOT_NULL_COLUMN",
            )


def apply_row_rules(routed: RoutedRow, plan: WritePlan, is_append: bool) -> RoutedRow | None:
    """Rule 2: the routed row with its final kind, or ``None`` when it is dropped."""
    check_not_null(routed.row, plan.fields)
    kind = compute_row_kind(routed.row, plan.rowkind_index, routed.kind)
    if not is_kept_on_write(kind, plan.merge_options):
        return None
    if is_append and not kind.is_add:
        raise SpecViolation(
            f"an append table accepts only +I and +U rows, got {kind.short_string}; "
            "configure 'ignore-delete' to drop retractions",
            code="APPEND_RETRACT",
        )
    return replace(routed, kind=kind)


# --------------------------------------------------------------------------------------------
# Primary-key buckets (rules 5 and 6)
# --------------------------------------------------------------------------------------------


def compute_records(
    rows: Sequence[RoutedRow], first_sequence: int, keys: TableKeys
) -> list[KeyValue]:
    """Rule 3: the key-value records of a bucket's rows, numbered in arrival order."""
    return [
        KeyValue(
            key=compute_projection(routed.row, keys.key_indexes),
            sequence_number=first_sequence + position,
            kind=routed.kind,
            value=routed.row,
        )
        for position, routed in enumerate(rows)
    ]


def sort_records(
    records: Sequence[KeyValue], key_types: Sequence[t.DataType], setup: MergeSetup
) -> list[KeyValue]:
    """Rule 5's order: key, then ``sequence.field`` values, then sequence number."""

    def compare(left: KeyValue, right: KeyValue) -> int:
        return compare_rows(key_types, left.key, right.key) or compare_records(
            left, right, setup.sequence
        )

    return sorted(records, key=cmp_to_key(compare))


def group_sorted_records(
    records: Sequence[KeyValue], key_types: Sequence[t.DataType]
) -> list[list[KeyValue]]:
    """Consecutive records of equal key."""
    groups: list[list[KeyValue]] = []
    for record in records:
        if groups and compare_rows(key_types, groups[-1][0].key, record.key) == 0:
            groups[-1].append(record)
        else:
            groups.append([record])
    return groups


def merge_group(group: Sequence[KeyValue], setup: MergeSetup) -> KeyValue | None:
    """Rule 5 (Java ``ReducerMergeFunctionWrapper``): one record passes unchanged."""
    if len(group) == 1:
        return group[0]
    return merge(group, setup)


@dataclass(frozen=True)
class FlushPlan:
    """A sorted write buffer: its raw records, the merged records with the position in the raw
    records at which Java emits each, for naming files in Java's order (rule 7)."""

    raw: list[KeyValue]
    merged: list[KeyValue]
    emitted_at: list[int]


def compute_flush_plan(
    records: Sequence[KeyValue], key_types: Sequence[t.DataType], setup: MergeSetup
) -> FlushPlan:
    """Sort, group and merge (rule 5). A merged record is emitted once Java has read the first
    record of the next key (or the last record)."""
    raw = sort_records(records, key_types, setup)
    merged: list[KeyValue] = []
    emitted_at: list[int] = []
    end = 0
    for group in group_sorted_records(raw, key_types):
        end += len(group)
        result = merge_group(group, setup)
        if result is not None:
            merged.append(result)
            emitted_at.append(min(end, len(raw) - 1))
    return FlushPlan(raw, merged, emitted_at)


@dataclass(frozen=True)
class PlannedFile:
    """One file to write: which kind, which records (a slice), and when Java opens it."""

    is_changelog: bool
    start: int
    end: int
    opened_at: tuple[int, int]


def compute_planned_files(
    flush: FlushPlan,
    data_ranges: Sequence[tuple[int, int]],
    changelog_ranges: Sequence[tuple[int, int]],
) -> list[PlannedFile]:
    """Files in the order Java opens them: raw record ``i`` is read at ``(i, 0)``, merged
    record ``j`` written at ``(emitted_at[j], 1)`` (rule 7)."""
    planned = [PlannedFile(True, start, end, (start, 0)) for start, end in changelog_ranges]
    planned += [
        PlannedFile(False, start, end, (flush.emitted_at[start], 1)) for start, end in data_ranges
    ]
    return sorted(planned, key=lambda file: file.opened_at)


@dataclass(frozen=True)
class BucketTarget:
    """Where and how one bucket's files are written."""

    directory: str
    first_sequence: int
    context: MetaContext


def compute_file_name(kind: FileKindPlan, naming: FileNaming, counters: NameCounters) -> str:
    return compute_data_file_name(
        kind.prefix, naming.writer_uuid, next(counters.files), kind.extension
    )


@dataclass(frozen=True)
class RolledRecords:
    """The records of one kind of file (data or changelog), as a physical table, and the row
    ranges of its rolled files."""

    kind: FileKindPlan
    records: list[KeyValue]
    table: pa.Table
    ranges: list[tuple[int, int]]


def compute_rolled_records(
    records: list[KeyValue], kind: FileKindPlan, key_value_layout: KeyValueLayout
) -> RolledRecords:
    table, ranges = compute_key_value_ranges(records, kind.settings, key_value_layout)
    return RolledRecords(kind, records, table, ranges)


def write_primary_key_bucket(
    file_io: FileIO,
    rows: Sequence[RoutedRow],
    plan: WritePlan,
    target: BucketTarget,
    names: Callable[[FileKindPlan], str],
) -> DataIncrement:
    """Rules 3, 5, 6 for one bucket: level-0 files and changelog files."""
    assert plan.merge_setup is not None and plan.key_value_layout is not None
    records = compute_records(rows, target.first_sequence, plan.keys)
    flush = compute_flush_plan(records, plan.keys.key_types, plan.merge_setup)
    rolled = {False: compute_rolled_records(flush.merged, plan.data, plan.key_value_layout)}
    if plan.changelog is not None:
        rolled[True] = compute_rolled_records(flush.raw, plan.changelog, plan.key_value_layout)
    changelog_ranges = rolled[True].ranges if True in rolled else []
    written: dict[bool, list[DataFileMeta]] = {False: [], True: []}
    for planned in compute_planned_files(flush, rolled[False].ranges, changelog_ranges):
        part = rolled[planned.is_changelog]
        meta = write_key_value_file(
            file_io,
            target.directory,
            names(part.kind),
            part.table.slice(planned.start, planned.end - planned.start),
            part.records[planned.start : planned.end],
            settings=part.kind.settings,
            key_value_layout=plan.key_value_layout,
            context=target.context,
        )
        written[planned.is_changelog].append(meta)
    return DataIncrement(new_files=tuple(written[False]), changelog_files=tuple(written[True]))


def write_append_bucket(
    file_io: FileIO,
    rows: Sequence[RoutedRow],
    plan: WritePlan,
    target: BucketTarget,
    names: Callable[[FileKindPlan], str],
    *,
    file_index: FileIndexBuilder | None,
) -> DataIncrement:
    """Rules 3 and 4 for one bucket."""
    metas = write_append_files(
        file_io,
        target.directory,
        [routed.row for routed in rows],
        settings=plan.data.settings,
        first_sequence=target.first_sequence,
        context=target.context,
        names=lambda: names(plan.data),
        file_index=file_index,
        file_index_threshold=plan.file_index_threshold,
    )
    return DataIncrement(new_files=tuple(metas))


# --------------------------------------------------------------------------------------------
# HASH index files (rule 9)
# --------------------------------------------------------------------------------------------


def write_hash_index_file(
    file_io: FileIO,
    table_root: str,
    update: HashIndexUpdate,
    naming: FileNaming,
    counters: NameCounters,
) -> IndexFileMeta:
    """Write one bucket's new HASH index file (Java ``IndexFileHandler.writeHashIndex``)."""
    name = compute_meta_file_name(
        MetaFileKind.INDEX, naming.writer_uuid, next(counters.index_files)
    )
    data = encode_hash_index(update.hashes)
    file_io.write_bytes(layout.index_file_path(table_root, name), data)
    return IndexFileMeta(HASH_INDEX_TYPE, name, len(data), len(update.hashes))


def compute_index_increment(
    new_file: IndexFileMeta, update: HashIndexUpdate, stored: Sequence[StoredHashIndex]
) -> IndexIncrement:
    """The new index file, and the one it replaces (rule 9)."""
    replaced = tuple(s.meta for s in stored if s.content is update.previous)
    return IndexIncrement(new_index_files=(new_file,), deleted_index_files=replaced)


def write_index_increments(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    updates: Sequence[HashIndexUpdate],
    *,
    state: BaseState,
    naming: FileNaming,
    counters: NameCounters,
) -> dict[tuple[bytes, int], IndexIncrement]:
    """Rule 9: write each changed HASH index; the increments by (partition bytes, bucket)."""
    types = [f.type for f in schema.partition_type.fields]
    increments = {}
    for update in updates:
        new_file = write_hash_index_file(file_io, table_root, update, naming, counters)
        identity = (serialize_binary_row(update.partition, types), update.bucket)
        increments[identity] = compute_index_increment(new_file, update, state.hash_index)
    return increments


# --------------------------------------------------------------------------------------------
# A batch
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BucketRows:
    """The rows of one (partition, bucket), in arrival order."""

    partition: Row
    partition_bytes: bytes
    bucket: int
    rows: tuple[RoutedRow, ...]


def group_by_bucket(rows: Sequence[RoutedRow], schema: TableSchema) -> list[BucketRows]:
    """Rows by (partition, bucket), buckets in first-written order."""
    types = [f.type for f in schema.partition_type.fields]
    groups: dict[tuple[bytes, int], list[RoutedRow]] = {}
    partitions: dict[bytes, Row] = {}
    for routed in rows:
        partition_bytes = serialize_binary_row(routed.partition, types)
        partitions[partition_bytes] = routed.partition
        groups.setdefault((partition_bytes, routed.bucket), []).append(routed)
    return [
        BucketRows(partitions[partition_bytes], partition_bytes, bucket, tuple(members))
        for (partition_bytes, bucket), members in groups.items()
    ]


def compute_first_sequence(group: BucketRows, plan: WritePlan, base: BaseState) -> int:
    """Rule 3."""
    if plan.mode is BucketMode.UNAWARE:
        return 0
    return base.max_sequences.get((group.partition_bytes, group.bucket), NO_SEQUENCE) + 1


def write_bucket(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    group: BucketRows,
    plan: WritePlan,
    *,
    base: BaseState,
    names: Callable[[FileKindPlan], str],
    creation_time: Timestamp,
    file_index: FileIndexBuilder | None,
) -> DataIncrement:
    """The files of one (partition, bucket)."""
    target = BucketTarget(
        directory=compute_bucket_path(table_root, schema, group.partition, group.bucket),
        first_sequence=compute_first_sequence(group, plan, base),
        context=MetaContext(schema.id, WRITE_LEVEL, FileSource.APPEND, creation_time),
    )
    if schema.is_primary_key_table:
        return write_primary_key_bucket(file_io, group.rows, plan, target, names)
    return write_append_bucket(file_io, group.rows, plan, target, names, file_index=file_index)


def select_written_rows(
    rows: Sequence[Row],
    kinds: Sequence[RowKind] | None,
    schema: TableSchema,
    plan: WritePlan,
    state: BaseState,
) -> list[RoutedRow]:
    """The rows a batch writes: each input row (``+I`` unless ``kinds`` says otherwise) routed
    to its partition and bucket, then kept or dropped by the row rules (``apply_row_rules``)."""
    inputs = compute_inputs(rows, kinds, plan.fields)
    routed = route_rows(inputs, schema, plan.mode, state.routing)
    is_append = not schema.is_primary_key_table
    return [r for r in (apply_row_rules(r, plan, is_append) for r in routed) if r is not None]


def compute_batch_index_updates(
    kept: Sequence[RoutedRow], plan: WritePlan, state: BaseState
) -> list[HashIndexUpdate]:
    """A dynamic-bucket batch updates the hash index of each bucket it writes to
    (``bucket_assign.compute_hash_index_updates``); other bucket modes keep no hash index."""
    if plan.mode is not BucketMode.DYNAMIC:
        return []
    return compute_hash_index_updates(kept, plan.keys, state.routing.hash_index)


def write_batch(  # noqa: PLR0917 (the positional API the table facade calls)
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    base: Snapshot | None,
    rows: Sequence[Row],
    kinds: Sequence[RowKind] | None = None,
    *,
    naming: FileNaming | None = None,
    file_index: FileIndexBuilder | None = None,
    overwrite: bool = False,
) -> list[CommitMessage]:
    """Rules 1-11: write ``rows`` (with ``kinds``, default ``+I``) as one batch on top of the
    ``base`` snapshot (``None``: an empty table) and return one commit message per bucket;
    ``overwrite``: the batch is to be committed as an overwrite (rule 11).

    ``file_index`` is the hook that builds an append file's file index; by default the one the
    table's ``file-index.*`` options ask for (``reference.store.file_index``), if any.
    """
    naming = naming or FileNaming()
    plan = compute_write_plan(schema)
    if file_index is None and not schema.is_primary_key_table:
        file_index = compute_file_index_builder(schema.options, schema.fields)
    state = read_base_state(file_io, table_root, schema, base, plan.mode)
    if overwrite:
        state = compute_overwrite_base_state(state)
    kept = select_written_rows(rows, kinds, schema, plan, state)
    counters = create_name_counters()
    creation_time = naming.creation_time or compute_creation_time()

    def names(kind: FileKindPlan) -> str:
        return compute_file_name(kind, naming, counters)

    index_updates = compute_batch_index_updates(kept, plan, state)
    increments = write_index_increments(
        file_io, table_root, schema, index_updates, state=state, naming=naming, counters=counters
    )
    messages = []
    for group in group_by_bucket(kept, schema):
        increment = write_bucket(
            file_io,
            table_root,
            schema,
            group,
            plan,
            base=state,
            names=names,
            creation_time=creation_time,
            file_index=file_index,
        )
        index = increments.get((group.partition_bytes, group.bucket), IndexIncrement())
        messages.append(
            CommitMessage(
                group.partition_bytes, group.bucket, plan.total_buckets, increment, index=index
            )
        )
    return messages
