"""Compaction of primary-key buckets in spark_impl: picking as Java's universal compaction,
rewriting with the vectorized merge, deletion-vector maintenance, commit messages out.

The rules are ``reference/store/levels.py`` and ``reference/store/compact.py`` (which cite the
Java classes); this is an independent implementation whose rewrite step works on whole Arrow
tables:

* *Levels.* Level 0 holds one sorted run per file (newest first: larger max sequence number,
  then file name); every level above is one run ordered by min key.
* *Picking* (``num-sorted-run.compaction-trigger`` T, ``compaction.max-size-amplification-
  percent``, ``compaction.size-ratio``): size amplification, then size ratio, then file number;
  tables that look up (deletion vectors, first-row, ``force-lookup``, the ``lookup`` changelog
  producer) force level-0 files up when nothing else is picked; a full compaction takes every
  run to the top level.
* *Steps.* Picked files are cut into key-disjoint sections; sections of several runs are
  rewritten, single-run files below ``0.7 * target-file-size`` are rewritten with their small
  neighbours, larger ones move up (a file with retractions going to the top level is rewritten).
* *Rewrite.* Records sorted and reduced per key (:mod:`spark_impl.reduce`; tables that look up,
  but first-row, merge only a key's newest upper-level record with its level-0 records, Java
  ``LookupMergeFunction``); retracting results are dropped when the output level is at or above
  the highest non-empty level, or with deletion vectors. Tables that look up merge each key
  of a rewrite that contains level-0 files with its newest upper-level version: from the
  step, else found in the levels above the output level (whose row is then marked in the
  deletion vectors); first-row drops a level-0 key that exists above; partial-update and
  aggregation merge a key's single record too (an INSERT, as Java's lookup rewriter always
  calls the merge function).
* *Changelog* (:mod:`spark_impl.changelog`). ``changelog-producer = lookup``: the lookup
  rewrite (and a level-0 file's upgrade) writes the changes of its keys that have level-0
  records (Java ``LookupChangelogMergeFunctionWrapper``; first-row: a new key's first record).
  ``full-compaction``: every step into the top level (``num-levels - 1``) writes the changes
  against the key's top-level record, an upgrade into it moves the file after its changes
  (Java ``FullChangelogMergeTreeCompactRewriter``); such a rewrite drops retractions. Changelog
  files are ``changelog-<uuid>-<n>`` on the output level with file source APPEND, listed as
  the compaction's changelog files.
* *Deletion vectors.* Marks are added, rewritten files lose theirs; a bucket whose vectors
  changed gets one new index file replacing its old ones.
"""

from __future__ import annotations

import itertools
import logging
import time
import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from reference import layout
from reference.errors import (
    PaimonKitError,
    PartialCommitError,
    SpecViolation,
    UnsupportedFeature,
)
from reference.io import FileIO
from reference.spec import data_file
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.commit_message import (
    CommitMessage,
    CompactIncrement,
    IndexIncrement,
)
from reference.spec.compare import SortKey, compare_rows
from reference.spec.data import Timestamp
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.deletion_vector import (
    BitmapKind,
    build_deletion_vector,
    encode_deletion_vector_file,
)
from reference.spec.manifest import (
    DELETION_VECTORS_INDEX_TYPE,
    DeletionVectorMeta,
    FileKind,
    IndexFileMeta,
)
from reference.spec.options import (
    ROW_DEDUPLICATE_OPTION,
    ChangelogProducer,
    MergeEngine,
    option_value,
)
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import Snapshot
from reference.spec.units import PERCENT
from spark_impl import changelog as cl
from spark_impl import commit
from spark_impl.file_writer import (
    MetaContext,
    compute_creation_time,
    compute_key_value_meta,
    compute_rolled_files,
    write_file,
)
from spark_impl.kv_layout import compute_key_value_table, compute_kv_layout, compute_level_plans
from spark_impl.merge import (
    KIND_COLUMN,
    ORDER_COLUMN,
    SEQUENCE_COLUMN,
    MergeConfig,
    any_where,
    compute_merge_config,
    compute_segment_starts,
    compute_segments,
    is_add_kind,
    kinds_of,
    sort_records,
)
from spark_impl.metadata import (
    find_latest_snapshot_id,
    read_index_entries,
    read_latest_schema,
    read_latest_snapshot,
    read_live_entries,
    read_schema_json,
)
from spark_impl.plan import DeletionFileRef, compute_bucket_dir, is_level_zero_skipped
from spark_impl.read import apply_deletions, read_deleted_positions
from spark_impl.read_files import evolve_columns, read_data_file
from spark_impl.reduce import reduce_sorted

LEVEL_COLUMN = "_LEVEL"
FILE_COLUMN = "_FILE"
POSITION_COLUMN = "_POSITION"
WRITE_RECOMPACTION_ATTEMPTS = 3
"""Fresh compactions a write tries after its own lost, on tables that hide level 0."""
LOG = logging.getLogger(__name__)

# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompactionOptions:
    """What the picking and the rewrite of a bucket read from the table options."""

    num_levels: int
    trigger: int
    """``num-sorted-run.compaction-trigger``"""
    max_size_amplification: int
    size_ratio: int
    optimization_interval: bool
    """Set: every pick takes all runs (the interval's clock is not modelled)."""
    min_file_size: int
    need_lookup: bool
    """Deletion vectors, first-row, ``force-lookup`` or the ``lookup`` producer: level-0 files
    are forced up."""
    deletion_vectors: bool
    first_row: bool
    deduplicate_without_sequence: bool
    """Deduplicate without ``sequence.field``: the newest record wins outright."""
    bitmap64: bool
    full_rounds: bool
    lookup_changelog: bool = False
    """``changelog-producer = lookup``: lookup rewrites write changelog."""
    full_changelog: bool = False
    """``changelog-producer = full-compaction``: steps into the top level write changelog."""
    row_deduplicate: bool = False
    """``changelog-producer.row-deduplicate``: equal -U / +U pairs are left out."""

    @property
    def lookup_merge(self) -> bool:
        """Merges follow ``reference.store.changelog`` rule 2 (every engine but first-row)."""
        return self.need_lookup and not self.first_row

    @property
    def top_level(self) -> int:
        """The top level the rewriters know (from the option, not from the files)."""
        return self.num_levels - 1


def compaction_options(schema: TableSchema) -> CompactionOptions:
    if not schema.is_primary_key_table:
        raise UnsupportedFeature("append tables are compacted by spark_impl.append_compact")
    core = schema.core_options
    producer = core.changelog_producer
    if schema.options.get("record-level.expire-time"):
        raise UnsupportedFeature("compaction with 'record-level.expire-time'")
    engine = core.merge_engine
    first_row = engine is MergeEngine.FIRST_ROW
    dv = core.deletion_vectors_enabled
    force = bool(option_value(schema.options, "force-lookup"))
    lookup_changelog = producer is ChangelogProducer.LOOKUP
    full_changelog = producer is ChangelogProducer.FULL_COMPACTION
    if full_changelog and force:
        raise UnsupportedFeature("'force-lookup' with changelog-producer 'full-compaction'")
    return CompactionOptions(
        num_levels=core.num_levels,
        trigger=core.num_sorted_run_compaction_trigger,
        max_size_amplification=int(core.get("compaction.max-size-amplification-percent")),
        size_ratio=int(core.get("compaction.size-ratio")),
        optimization_interval=core.get("compaction.optimization-interval") is not None,
        min_file_size=core.target_file_size(True) // 10 * 7,
        need_lookup=first_row or dv or force or lookup_changelog,
        deletion_vectors=dv,
        first_row=first_row,
        deduplicate_without_sequence=engine is MergeEngine.DEDUPLICATE and not core.sequence_fields,
        bitmap64=bool(option_value(schema.options, "deletion-vectors.bitmap64")),
        full_rounds=core.full_compaction_delta_commits is not None,
        lookup_changelog=lookup_changelog,
        full_changelog=full_changelog,
        row_deduplicate=bool(option_value(schema.options, ROW_DEDUPLICATE_OPTION)),
    )


# --------------------------------------------------------------------------------------------
# Levels
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyRanges:
    """Decoded min and max keys of files, and the key types to order them."""

    key_types: tuple[t.DataType, ...]
    bounds: Mapping[str, tuple[Any, Any]]

    def low(self, meta: DataFileMeta) -> SortKey:
        return SortKey(self.bounds[meta.file_name][0], self.key_types)

    def high(self, meta: DataFileMeta) -> SortKey:
        return SortKey(self.bounds[meta.file_name][1], self.key_types)

    def compare(self, left: Any, right: Any) -> int:
        return compare_rows(self.key_types, left, right)


def decode_ranges(files: Sequence[DataFileMeta], key_types: Sequence[t.DataType]) -> KeyRanges:
    return KeyRanges(
        tuple(key_types),
        {
            f.file_name: (
                tuple(deserialize_binary_row(f.min_key, key_types)),
                tuple(deserialize_binary_row(f.max_key, key_types)),
            )
            for f in files
        },
    )


class Run(NamedTuple):
    """One sorted run: a level-0 file, or all the files of a level above."""

    level: int
    files: tuple[DataFileMeta, ...]

    @property
    def size(self) -> int:
        return sum(f.file_size for f in self.files)


def level_runs(files: Sequence[DataFileMeta], num_levels: int, ranges: KeyRanges) -> list[Run]:
    """Level-0 files (newest first) then the non-empty levels, each one run."""
    level0 = sorted(
        (f for f in files if f.level == 0), key=lambda f: (-f.max_sequence_number, f.file_name)
    )
    runs = [Run(0, (f,)) for f in level0]
    for level in range(1, max(num_levels, 1 + max((f.level for f in files), default=0))):
        members = sorted((f for f in files if f.level == level), key=ranges.low)
        for previous, current in itertools.pairwise(members):
            if (
                ranges.compare(
                    ranges.bounds[current.file_name][0], ranges.bounds[previous.file_name][1]
                )
                <= 0
            ):
                raise SpecViolation(
                    f"files {previous.file_name} and {current.file_name} overlap on level {level}",
                    code="LEVEL_KEY_OVERLAP",
                )
        if members:
            runs.append(Run(level, tuple(members)))
    return runs


def number_of_levels(files: Sequence[DataFileMeta], num_levels: int) -> int:
    return max(num_levels, 1 + max((f.level for f in files), default=0), 2)


def highest_non_empty_level(files: Sequence[DataFileMeta]) -> int:
    return max((f.level for f in files), default=-1)


# --------------------------------------------------------------------------------------------
# Picking: the universal rules over arrays of run levels and sizes (newest run first)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    output_level: int
    files: tuple[DataFileMeta, ...]


def take_runs(runs: Sequence[Run], count: int, output_level: int) -> Unit:
    return Unit(output_level, tuple(itertools.chain.from_iterable(r.files for r in runs[:count])))


def size_ratio_count(sizes: np.ndarray, start: int, size_ratio: int) -> int:
    """How many of the newest runs the size-ratio rule gathers when the first ``start`` are
    taken: it stops at the first run bigger than everything gathered before it, grown by the
    ratio (``compaction.size-ratio`` percent)."""
    gathered = np.cumsum(sizes)[start - 1 : -1].astype(np.float64)
    too_big = np.flatnonzero(gathered * (PERCENT + size_ratio) / PERCENT < sizes[start:])
    return start + int(too_big[0]) if too_big.size else len(sizes)


def output_of(levels: np.ndarray, count: int, max_level: int) -> tuple[int, int]:
    """``(runs taken, output level)`` for the newest ``count`` runs: one level below the next
    run's; when that is level 0, the runs up to the first one above level 0 are taken too and
    go to its level; taking every run goes to the top."""
    if count < len(levels) and levels[count] > 1:
        return count, int(levels[count]) - 1
    upper = np.flatnonzero(levels[count:] != 0)
    if upper.size:
        count += int(upper[0]) + 1
        output = int(levels[count - 1])
    else:
        count, output = len(levels), 0
    return (count, max_level) if count == len(levels) else (count, output)


def size_ratio_unit(
    runs: Sequence[Run], max_level: int, size_ratio: int, start: int, force: bool = False
) -> Unit | None:
    sizes = np.array([r.size for r in runs], dtype=np.int64)
    count = size_ratio_count(sizes, start, size_ratio)
    if not force and count <= 1:
        return None
    levels = np.array([r.level for r in runs], dtype=np.int64)
    taken, output = output_of(levels, count, max_level)
    return take_runs(runs, taken, output)


def pick_universal(runs: Sequence[Run], levels: int, options: CompactionOptions) -> Unit | None:
    """Size amplification, then size ratio, then the run count (Java ``UniversalCompaction``)."""
    top = levels - 1
    if options.optimization_interval:
        return take_runs(runs, len(runs), top)
    if not runs or len(runs) < options.trigger:
        return None
    sizes = [r.size for r in runs]
    if sum(sizes[:-1]) * PERCENT > options.max_size_amplification * sizes[-1]:
        return take_runs(runs, len(runs), top)
    by_ratio = size_ratio_unit(runs, top, options.size_ratio, 1)
    if by_ratio is not None or len(runs) == options.trigger:
        return by_ratio
    return size_ratio_unit(runs, top, options.size_ratio, len(runs) - options.trigger + 1)


def is_unit_trivial(unit: Unit | None) -> bool:
    """Nothing to do: no files, or one file already on the output level."""
    return (
        unit is None
        or not unit.files
        or (len(unit.files) == 1 and unit.files[0].level == unit.output_level)
    )


def pick(
    files: Sequence[DataFileMeta], ranges: KeyRanges, options: CompactionOptions, full: bool
) -> Unit | None:
    """One bucket's compaction unit (``None``: nothing to do)."""
    levels = number_of_levels(files, options.num_levels)
    runs = level_runs(files, options.num_levels, ranges)
    if full:
        settled = len(runs) == 1 and runs[0].level == levels - 1
        return None if not runs or settled else take_runs(runs, len(runs), levels - 1)
    unit = pick_universal(runs, levels, options)
    level_zero = sum(1 for _ in itertools.takewhile(lambda r: r.level == 0, runs))
    if unit is None and options.need_lookup and level_zero:
        unit = size_ratio_unit(runs, levels - 1, options.size_ratio, level_zero, force=True)
    return None if is_unit_trivial(unit) else unit


# --------------------------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    rewrite: bool
    files: tuple[DataFileMeta, ...]


def sections(files: Sequence[DataFileMeta], ranges: KeyRanges) -> list[list[list[DataFileMeta]]]:
    """Key-disjoint sections (in key order), each dealt into the fewest sorted runs."""

    def by_range(left: DataFileMeta, right: DataFileMeta) -> int:
        lb, rb = ranges.bounds[left.file_name], ranges.bounds[right.file_name]
        return ranges.compare(lb[0], rb[0]) or ranges.compare(lb[1], rb[1])

    groups: list[list[DataFileMeta]] = []
    bound: Any = None
    for meta in sorted(files, key=cmp_to_key(by_range)):
        low, high = ranges.bounds[meta.file_name]
        if groups and bound is not None and ranges.compare(low, bound) > 0:
            groups.append([])
            bound = None
        if not groups:
            groups.append([])
        groups[-1].append(meta)
        if bound is None or ranges.compare(high, bound) > 0:
            bound = high
    result = []
    for group in groups:
        runs: list[list[DataFileMeta]] = []
        for meta in group:
            ends = [ranges.bounds[run[-1].file_name][1] for run in runs]
            earliest = None
            for index, end in enumerate(ends):
                if earliest is None or ranges.compare(end, ends[earliest]) < 0:
                    earliest = index
            low = ranges.bounds[meta.file_name][0]
            if earliest is not None and ranges.compare(low, ends[earliest]) > 0:
                runs[earliest].append(meta)
            else:
                runs.append([meta])
        result.append(runs)
    return result


def compute_steps(unit: Unit, ranges: KeyRanges, min_size: int, max_level: int) -> list[Step]:
    steps: list[Step] = []
    pending: list[list[list[DataFileMeta]]] = []

    def upgrade(meta: DataFileMeta) -> list[Step]:
        if meta.level == unit.output_level:
            return []
        if unit.output_level != max_level or meta.delete_row_count == 0:
            return [Step(False, (meta,))]
        return [Step(True, (meta,))]

    def flush() -> list[Step]:
        if not pending:
            return []
        if len(pending) == 1 and len(pending[0]) <= 1:
            return [s for f in (pending[0][0] if pending[0] else []) for s in upgrade(f)]
        return [Step(True, tuple(f for section in pending for run in section for f in run))]

    for section in sections(unit.files, ranges):
        if len(section) > 1:
            pending.append(section)
            continue
        for meta in section[0]:
            if meta.file_size < min_size:
                pending.append([[meta]])
            else:
                steps += flush()
                pending = []
                steps += upgrade(meta)
    return steps + flush()


# --------------------------------------------------------------------------------------------
# The bucket job (shipped to an executor)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BucketFiles:
    """Files of one (partition, bucket) shipped to an executor: the table, the schemas the
    files were written with (JSON), the files and the bucket's deletion-vector index files."""

    table_root: str
    schema_json: str
    file_schema_jsons: Mapping[int, str]
    partition: tuple[Any, ...]
    partition_bytes: bytes
    bucket: int
    total_buckets: int
    files: tuple[DataFileMeta, ...]
    vector_files: tuple[IndexFileMeta, ...] = ()


@dataclass(frozen=True)
class BucketJob(BucketFiles):
    """One bucket to compact: its live files and the rounds to run (``True``: full)."""

    rounds: tuple[bool, ...] = (False,)
    new_files: frozenset[str] = frozenset()
    """Files of this commit's write (level 0, not yet committed)."""


@dataclass
class Context:
    """One bucket job on its executor: IO, the job, schemas, options and the file namer."""

    file_io: FileIO
    job: BucketJob
    schema: TableSchema
    schemas: dict[int, TableSchema]
    """Every schema the bucket's files were written with, by id."""
    options: CompactionOptions
    directory: str
    writer_uuid: str = field(default_factory=lambda: str(uuid.uuid4()))
    counter: itertools.count[int] = field(default_factory=itertools.count)
    creation_time: Timestamp = field(default_factory=compute_creation_time)

    @property
    def key_types(self) -> list[t.DataType]:
        return [f.type for f in self.schema.trimmed_primary_keys_type.fields]


def read_vectors(
    file_io: FileIO, table_root: str, index_files: Sequence[IndexFileMeta]
) -> dict[str, np.ndarray]:
    """The deleted positions of every data file named in the bucket's vector index files."""
    cache: dict[str, bytes] = {}
    refs = {
        dv.data_file_name: DeletionFileRef(
            index_file.external_path or layout.index_file_path(table_root, index_file.file_name),
            dv.offset,
            dv.length,
        )
        for index_file in index_files
        for dv in index_file.dv_ranges or ()
    }
    return {name: read_deleted_positions(file_io, ref, cache) for name, ref in refs.items()}


def read_records(
    ctx: Context, metas: Sequence[DataFileMeta], vectors: Mapping[str, np.ndarray]
) -> pa.Table:
    """The live records of files in the table schema, with sequence number, kind, the file's
    level, index in ``metas`` and row position."""
    tables = []
    for number, meta in enumerate(metas):
        file_schema = ctx.schemas[meta.schema_id]
        path = layout.data_file_path(ctx.directory, meta.file_name, meta.external_path)
        system = [data_file.SEQUENCE_NUMBER_FIELD, data_file.VALUE_KIND_FIELD]
        raw = read_data_file(ctx.file_io, path, [*system, *file_schema.fields])
        raw = raw.append_column(POSITION_COLUMN, pa.array(np.arange(raw.num_rows)))
        deleted = vectors.get(meta.file_name)
        if deleted is not None:
            raw = apply_deletions(raw, deleted)
        columns = evolve_columns(raw, file_schema.fields, ctx.schema.fields)
        names = [f.name for f in ctx.schema.fields]
        columns += [
            raw.column(SEQUENCE_COLUMN).combine_chunks(),
            raw.column(KIND_COLUMN).combine_chunks(),
        ]
        names += [SEQUENCE_COLUMN, KIND_COLUMN]
        columns.append(pa.array(np.full(raw.num_rows, meta.level, dtype=np.int32)))
        columns.append(pa.array(np.full(raw.num_rows, number, dtype=np.int32)))
        columns.append(raw.column(POSITION_COLUMN).combine_chunks())
        names += [LEVEL_COLUMN, FILE_COLUMN, POSITION_COLUMN]
        tables.append(pa.Table.from_arrays(columns, names=names))
    table = pa.concat_tables(tables).combine_chunks()
    return table.append_column(ORDER_COLUMN, pa.array(np.arange(table.num_rows)))


def write_key_value_records(
    ctx: Context, records: pa.Table, level: int, *, changelog: bool
) -> list[DataFileMeta]:
    """Records (key order) into rolled files of ``level``: data files (file source COMPACT) or
    changelog files (the changelog plan, file source APPEND, as Java's compact rewriters)."""
    if records.num_rows == 0:
        return []
    data_plan, changelog_plan = compute_level_plans(ctx.schema, level)
    plan = changelog_plan if changelog else data_plan
    assert plan is not None
    kv = compute_kv_layout(ctx.schema)
    table = compute_key_value_table(records, ctx.schema, kv)
    source = FileSource.APPEND if changelog else FileSource.COMPACT
    context = MetaContext(ctx.schema.id, level, source, ctx.creation_time)
    metas = []
    for start, end, data in compute_rolled_files(table, plan.settings):
        name = f"{plan.prefix}{ctx.writer_uuid}-{next(ctx.counter)}{plan.extension}"
        write_file(ctx.file_io, ctx.directory, name, data)
        part = table.slice(start, end - start)
        metas.append(
            compute_key_value_meta(
                part, name, len(data), settings=plan.settings, kv_layout=kv, context=context
            )
        )
    return metas


def write_records(ctx: Context, records: pa.Table, level: int) -> list[DataFileMeta]:
    """Reduced records into rolled data files of ``level`` (file source COMPACT)."""
    return write_key_value_records(ctx, records, level, changelog=False)


def write_changelog(ctx: Context, changes: pa.Table, level: int) -> tuple[DataFileMeta, ...]:
    """Changes (key order) into changelog files of the step's output ``level``."""
    return tuple(write_key_value_records(ctx, changes, level, changelog=True))


@dataclass(frozen=True)
class StepResult:
    before: tuple[DataFileMeta, ...]
    after: tuple[DataFileMeta, ...]
    marks: Mapping[str, np.ndarray]
    rewritten: tuple[str, ...]
    changelog: tuple[DataFileMeta, ...] = ()


def lookup_records(
    ctx: Context,
    records: pa.Table,
    upper_files: Sequence[DataFileMeta],
    vectors: Mapping[str, np.ndarray],
) -> tuple[pa.Table, dict[str, np.ndarray], np.ndarray]:
    """For keys of ``records`` without an upper-level record: their version in
    ``upper_files`` (lowest level first), to merge in; the rows to mark deleted; and the
    keys (as a mask over the found rows) that exist above."""
    key_names = list(ctx.schema.trimmed_primary_keys)
    empty: dict[str, np.ndarray] = {}
    if not upper_files or records.num_rows == 0:
        return records.slice(0, 0), empty, np.zeros(0, dtype=bool)
    upper = read_records(ctx, upper_files, vectors)
    upper = upper.sort_by([(LEVEL_COLUMN, "ascending"), (ORDER_COLUMN, "ascending")])
    # first (lowest level) version of each key
    upper = upper.append_column("__rank", pa.array(np.arange(upper.num_rows)))
    firsts = upper.group_by(key_names, use_threads=False).aggregate([("__rank", "min")])
    upper = upper.take(pa.array(np.sort(firsts.column("__rank_min").to_numpy())))
    wanted = records.select(key_names).group_by(key_names, use_threads=False).aggregate([])
    # Join the keys alone (Arrow's join refuses nested non-key columns), then take the rows.
    keys = upper.select(key_names).append_column("__row", pa.array(np.arange(upper.num_rows)))
    matched = keys.join(wanted, key_names, join_type="left semi", use_threads=False)
    found = upper.take(pa.array(np.sort(matched.column("__row").to_numpy())))
    marks: dict[str, np.ndarray] = {}
    if ctx.options.deletion_vectors:
        file_ids = found.column(FILE_COLUMN).to_numpy()
        positions = found.column(POSITION_COLUMN).to_numpy()
        for number in np.unique(file_ids).tolist():
            marks[upper_files[number].file_name] = positions[file_ids == number]
    return found.drop_columns(["__rank"]), marks, np.ones(found.num_rows, dtype=bool)


@dataclass(frozen=True)
class StepTarget:
    """Where a step writes and what it sees: the output level, the bucket's files, its
    deletion vectors, and whether retracting results are dropped."""

    output_level: int
    all_files: Sequence[DataFileMeta]
    vectors: Mapping[str, np.ndarray]
    drop_delete: bool


def keep_newest_upper(ordered: pa.Table, config: MergeConfig) -> tuple[pa.Table, np.ndarray]:
    """Rule 2 of ``reference.store.changelog`` (Java ``LookupMergeFunction``): the level-0
    records and each key's newest upper-level record; and, per kept record, whether its key
    has an upper-level record in the step."""
    n = ordered.num_rows
    segments = compute_segments(compute_segment_starts(ordered, config.key_names), n)
    levels = ordered.column(LEVEL_COLUMN).to_numpy()
    keep = cl.compute_lookup_candidates(levels, segments)
    has_upper = any_where(levels > 0, segments)[segments.group_of][keep]
    return ordered.filter(pa.array(keep)), has_upper


def drop_found_keys(ordered: pa.Table, found: pa.Table, key_names: list[str]) -> pa.Table:
    """First row (rule 5): the records of keys that exist above the output level go."""
    exists = found.select(key_names).append_column(
        "__found", pa.array(np.ones(found.num_rows, dtype=bool))
    )
    joined = ordered.join(exists, key_names, join_type="left outer", use_threads=False)
    drop = joined.column("__found").fill_null(False).to_numpy(zero_copy_only=False)
    return joined.filter(pa.array(~drop)).drop_columns(["__found"])


def renumber(table: pa.Table) -> pa.Table:
    """A fresh input-order column (the records' order so far)."""
    return table.drop_columns([ORDER_COLUMN]).append_column(
        ORDER_COLUMN, pa.array(np.arange(table.num_rows))
    )


def compute_step_records(records: pa.Table, config: MergeConfig) -> cl.StepRecords:
    """Records sorted into merge order, with their key segments and levels."""
    ordered = sort_records(records, config)
    starts = compute_segment_starts(ordered, config.key_names)
    segments = compute_segments(starts, ordered.num_rows)
    levels = np.asarray(ordered.column(LEVEL_COLUMN).to_numpy(), dtype=np.int64)
    return cl.StepRecords(ordered, segments, levels)


def merge_step(
    step_records: cl.StepRecords, config: MergeConfig, *, keep_lone: bool
) -> cl.MergedRecords:
    merged, ends = reduce_sorted(step_records.records, config, keep_lone=keep_lone)
    return cl.MergedRecords(merged, cl.compute_merged_segments(step_records.segments, ends))


@dataclass(frozen=True)
class LookupMerge:
    """A lookup step's keys merged: its records (with what was looked up), their merge and
    the rows the lookups mark deleted."""

    records: cl.StepRecords
    merged: cl.MergedRecords
    marks: Mapping[str, np.ndarray]


def merge_lookup_step(ctx: Context, step: Step, target: StepTarget) -> LookupMerge:
    """Rules 2-5 of ``reference.store.changelog``: each key's level-0 records merged with its
    newest upper-level record, from the step or looked up above the output level."""
    config = compute_merge_config(ctx.schema)
    records = read_records(ctx, step.files, target.vectors)
    ordered, has_upper = keep_newest_upper(sort_records(records, config), config)
    upper_files = [f for f in target.all_files if f.level > target.output_level]
    without_upper = ordered.filter(pa.array(~has_upper))
    found, marks, _ = lookup_records(ctx, without_upper, upper_files, target.vectors)
    if ctx.options.first_row:
        combined = drop_found_keys(ordered, found, list(config.key_names))
        marks = {}
    else:
        found = found.select(ordered.column_names)
        combined = pa.concat_tables([ordered, found.cast(ordered.schema)])
    step_records = compute_step_records(renumber(combined), config)
    return LookupMerge(step_records, merge_step(step_records, config, keep_lone=False), marks)


def compute_lookup_changes(ctx: Context, lookup: LookupMerge) -> pa.Table:
    """The changelog of a lookup step (rules 3 and 5; Java
    ``LookupChangelogMergeFunctionWrapper``, ``FirstRowMergeFunctionWrapper``)."""
    config = compute_merge_config(ctx.schema)
    if ctx.options.first_row:
        return cl.compute_first_row_changes(lookup.records, lookup.merged, config)
    spec = cl.compute_lookup_spec(lookup.records)
    return cl.compute_change_rows(
        lookup.records, lookup.merged, spec, config, ctx.options.row_deduplicate
    )


def finish_step(
    ctx: Context,
    step: Step,
    target: StepTarget,
    outcome: tuple[pa.Table, Mapping[str, np.ndarray], tuple[DataFileMeta, ...]],
    *,
    moved: bool,
) -> StepResult:
    """The step's files moved, or its merged records (``outcome``: records, marks, changelog
    files) written, retractions dropped as the target says."""
    merged, marks, changelog = outcome
    if moved:
        after = tuple(data_file.compute_upgraded_file(f, target.output_level) for f in step.files)
        return StepResult(tuple(step.files), after, marks, (), changelog)
    if target.drop_delete:
        merged = merged.filter(pa.array(is_add_kind(kinds_of(merged))))
    written = write_records(ctx, merged, target.output_level)
    rewritten = tuple(f.file_name for f in step.files)
    return StepResult(tuple(step.files), tuple(written), marks, rewritten, changelog)


def run_lookup_step(ctx: Context, step: Step, target: StepTarget) -> StepResult:
    """A rewrite (or a level-0 upgrade) of a table that looks up; with the ``lookup`` producer
    its changes go to changelog files."""
    lookup = merge_lookup_step(ctx, step, target)
    changelog: tuple[DataFileMeta, ...] = ()
    if ctx.options.lookup_changelog:
        changes = compute_lookup_changes(ctx, lookup)
        changelog = write_changelog(ctx, changes, target.output_level)
    moved = not step.rewrite and _is_lookup_move(step.files[0], target.output_level, ctx.options)
    outcome = (lookup.merged.table, lookup.marks, changelog)
    return finish_step(ctx, step, target, outcome, moved=moved)


def _is_lookup_move(meta: DataFileMeta, output_level: int, options: CompactionOptions) -> bool:
    """Java ``LookupMergeTreeCompactRewriter.upgradeStrategy``: whether a level-0 file only
    moves (after its lookups marked deletions)."""
    if meta.level != 0:
        return True
    if options.deletion_vectors and (meta.delete_row_count is None or meta.delete_row_count > 0):
        return False
    return output_level == options.num_levels - 1 or options.deduplicate_without_sequence


def run_full_changelog_step(ctx: Context, step: Step, target: StepTarget) -> StepResult:
    """A step into the top level of a ``full-compaction`` producer table (rule 6 of
    ``reference.store.changelog``, Java ``FullChangelogMergeTreeCompactRewriter`` and
    ``FullChangelogMergeFunctionWrapper``): each key's changes against its top-level record;
    an upgrade moves the file after its changes, a rewrite keeps adding results only."""
    config = compute_merge_config(ctx.schema)
    step_records = compute_step_records(read_records(ctx, step.files, target.vectors), config)
    merged = merge_step(step_records, config, keep_lone=True)
    spec = cl.compute_full_compaction_spec(step_records, ctx.options.top_level)
    changes = cl.compute_change_rows(
        step_records, merged, spec, config, ctx.options.row_deduplicate
    )
    changelog = write_changelog(ctx, changes, target.output_level)
    adding = merged.table.filter(pa.array(is_add_kind(kinds_of(merged.table))))
    return finish_step(ctx, step, target, (adding, {}, changelog), moved=not step.rewrite)


def run_plain_step(ctx: Context, step: Step, target: StepTarget) -> StepResult:
    """A move, or a rewrite through the merge function: a key's single record unchanged,
    several merged (under rule 2 for tables that look up, Java ``LookupMergeFunction``)."""
    if not step.rewrite:
        return finish_step(ctx, step, target, (pa.table({}), {}, ()), moved=True)
    config = compute_merge_config(ctx.schema)
    step_records = compute_step_records(read_records(ctx, step.files, target.vectors), config)
    if not ctx.options.lookup_merge:
        merged, _ = reduce_sorted(step_records.records, config)
        return finish_step(ctx, step, target, (merged, {}, ()), moved=False)
    keep = cl.compute_lookup_candidates(step_records.levels, step_records.segments)
    lone = step_records.segments.sizes == 1
    candidates = step_records.records.filter(pa.array(keep))
    merged, _ = reduce_sorted(candidates, config, keep_lone=lone)
    return finish_step(ctx, step, target, (merged, {}, ()), moved=False)


def run_step(ctx: Context, step: Step, target: StepTarget) -> StepResult:
    """One step through the table's rewriter (Java ``KeyValueFileStoreWrite.createRewriter``:
    the full-compaction producer's first, then lookup's)."""
    output_level = target.output_level
    if ctx.options.full_changelog:
        if output_level == ctx.options.top_level:
            return run_full_changelog_step(ctx, step, target)
        return run_plain_step(ctx, step, target)
    has_level_zero = any(f.level == 0 for f in step.files)
    if ctx.options.need_lookup and output_level > 0 and has_level_zero:
        return run_lookup_step(ctx, step, target)
    return run_plain_step(ctx, step, target)


def write_vector_index(ctx: Context, vectors: Mapping[str, np.ndarray]) -> IndexFileMeta:
    kind = BitmapKind.BITMAP64 if ctx.options.bitmap64 else BitmapKind.BITMAP32
    encoded = {
        name: build_deletion_vector(sorted(set(positions.tolist())), kind)
        for name, positions in sorted(vectors.items())
        if len(positions)
    }
    data, ranges = encode_deletion_vector_file(encoded)
    name = data_file.compute_meta_file_name(
        data_file.MetaFileKind.INDEX, ctx.writer_uuid, next(ctx.counter)
    )
    ctx.file_io.write_bytes(layout.index_file_path(ctx.job.table_root, name), data)
    metas = tuple(DeletionVectorMeta(r.data_file_name, r.offset, r.length) for r in ranges)
    return IndexFileMeta(DELETION_VECTORS_INDEX_TYPE, name, len(data), len(metas), metas)


def compact_bucket(file_io: FileIO, job: BucketJob) -> CommitMessage | None:
    """Run the job's rounds on one bucket; its commit message (``None``: nothing changed)."""
    schema = decode_schema(job.schema_json)
    ctx = Context(
        file_io=file_io,
        job=job,
        schema=schema,
        schemas={i: decode_schema(j) for i, j in job.file_schema_jsons.items()},
        options=compaction_options(schema),
        directory=compute_bucket_dir(job.table_root, schema, job.partition, job.bucket),
    )
    ctx.schemas[schema.id] = schema
    files = list(job.files)
    vectors = read_vectors(file_io, job.table_root, job.vector_files)
    original_vectors = {k: v.copy() for k, v in vectors.items()}
    before: dict[str, DataFileMeta] = {}
    after: list[DataFileMeta] = []
    changelog: list[DataFileMeta] = []
    for full in job.rounds:
        ranges = decode_ranges(files, ctx.key_types)
        unit = pick(files, ranges, ctx.options, full)
        if unit is None:
            continue
        levels = number_of_levels(files, ctx.options.num_levels)
        highest = highest_non_empty_level(files)
        drop_delete = unit.output_level != 0 and (
            unit.output_level >= highest or ctx.options.deletion_vectors
        )
        for step in compute_steps(unit, ranges, ctx.options.min_file_size, levels - 1):
            target = StepTarget(unit.output_level, files, vectors, drop_delete)
            result = run_step(ctx, step, target)
            for name, positions in result.marks.items():
                vectors[name] = np.union1d(vectors.get(name, np.zeros(0, np.int64)), positions)
            for name in result.rewritten:
                vectors.pop(name, None)
            moved = {f.file_name for f in result.after}
            for meta in result.before:
                if meta in after:
                    after.remove(meta)
                    if meta.file_name not in before and meta.file_name not in moved:
                        file_io.delete(layout.data_file_path(ctx.directory, meta.file_name))
                else:
                    before[meta.file_name] = meta
            after += result.after
            changelog += result.changelog
            gone = {(f.level, f.file_name) for f in result.before}
            files = [f for f in files if (f.level, f.file_name) not in gone] + list(result.after)
    compaction = CompactIncrement(tuple(before.values()), tuple(after), tuple(changelog))
    return compaction_message(ctx, compaction, original_vectors, vectors)


def compaction_message(
    ctx: Context,
    compaction: CompactIncrement,
    original_vectors: Mapping[str, np.ndarray],
    vectors: Mapping[str, np.ndarray],
) -> CommitMessage | None:
    """The bucket's commit message: the compaction and, when the deletion vectors changed, a
    new deletion-vector index file replacing the job's (``None``: nothing changed)."""
    job = ctx.job
    changed = _vectors_changed(original_vectors, vectors)
    index = IndexIncrement()
    if changed:
        new_file = write_vector_index(ctx, vectors)
        index = IndexIncrement(new_index_files=(new_file,), deleted_index_files=job.vector_files)
    if not compaction.compact_before and not compaction.compact_after and not changed:
        return None
    return CommitMessage(
        job.partition_bytes, job.bucket, job.total_buckets, compaction=compaction, index=index
    )


def _vectors_changed(old: Mapping[str, np.ndarray], new: Mapping[str, np.ndarray]) -> bool:
    def normal(vectors: Mapping[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
        return {k: tuple(np.unique(v).tolist()) for k, v in vectors.items() if len(v)}

    return normal(old) != normal(new)


# --------------------------------------------------------------------------------------------
# Driver side: the buckets of a table
# --------------------------------------------------------------------------------------------


def plan_bucket_jobs(
    file_io: FileIO,
    table_root: str,
    *,
    full: bool,
    rounds: tuple[bool, ...] | None = None,
    only_needed: bool = True,
    buckets: Collection[tuple[bytes, int]] | None = None,
) -> list[BucketJob]:
    """The buckets of the latest snapshot that a compaction would change (``buckets``: only
    those (partition, bucket) pairs)."""

    table_root = table_root.rstrip("/")
    schema = read_latest_schema(file_io, table_root)
    options = compaction_options(schema)
    latest = read_latest_snapshot(file_io, table_root)
    live = read_live_entries(file_io, table_root, latest)
    vector_files: dict[tuple[bytes, int], list[IndexFileMeta]] = {}
    for index_entry in read_index_entries(file_io, table_root, latest):
        index_file = index_entry.index_file
        if (
            index_entry.kind is FileKind.ADD
            and index_file.index_type == DELETION_VECTORS_INDEX_TYPE
        ):
            key = (index_entry.partition, index_entry.bucket)
            vector_files.setdefault(key, []).append(index_file)
    grouped: dict[tuple[bytes, int], list[DataFileMeta]] = {}
    total_buckets: dict[tuple[bytes, int], int] = {}
    for entry in live:
        if buckets is not None and (entry.partition, entry.bucket) not in buckets:
            continue
        grouped.setdefault((entry.partition, entry.bucket), []).append(entry.file)
        total_buckets[entry.partition, entry.bucket] = entry.total_buckets
    schema_ids = {f.schema_id for files in grouped.values() for f in files} | {schema.id}
    jsons = {i: read_schema_json(file_io, table_root, i) for i in schema_ids}
    partition_types = [f.type for f in schema.partition_type.fields]
    key_types = [f.type for f in schema.trimmed_primary_keys_type.fields]
    chosen_rounds = rounds or ((True, False) if full else (False,))
    jobs = []
    for (partition, bucket), files in grouped.items():
        if only_needed and pick(files, decode_ranges(files, key_types), options, full) is None:
            continue
        jobs.append(
            BucketJob(
                table_root=table_root,
                schema_json=jsons[schema.id],
                file_schema_jsons=jsons,
                partition=tuple(deserialize_binary_row(partition, partition_types)),
                partition_bytes=partition,
                bucket=bucket,
                total_buckets=total_buckets[partition, bucket],
                files=tuple(files),
                vector_files=tuple(vector_files.get((partition, bucket), ())),
                rounds=chosen_rounds,
            )
        )
    return jobs


# --------------------------------------------------------------------------------------------
# Driver side: a write's compaction redone after it lost
# --------------------------------------------------------------------------------------------


def is_hidden_until_compacted(file_io: FileIO, table_root: str, written: TableSchema) -> bool:
    """Do batch reads of the table skip level-0 files, so that the rows of a write stay
    invisible until a compaction moves them up? Primary-key tables with deletion vectors or
    the first-row merge engine (:func:`spark_impl.plan.is_level_zero_skipped`, Java
    ``DataTableBatchScan``), by the latest schema (``written``, the schema the write planned
    with, when the latest cannot be read)."""
    try:
        schema = read_latest_schema(file_io, table_root.rstrip("/"))
    except PaimonKitError:
        schema = written
    return is_level_zero_skipped(schema)


def delete_compaction_files(
    file_io: FileIO, table_root: str, messages: Sequence[CommitMessage], *, since: int | None
) -> list[str]:
    """Delete the files compaction ``messages`` made that no snapshot newer than ``since``
    references (best effort: none when the table cannot be read)."""
    root = table_root.rstrip("/")
    if not messages:
        return []
    try:
        schema = read_latest_schema(file_io, root)
    except PaimonKitError as error:
        LOG.warning("keeping the files of a failed compaction of %s: %s", root, error)
        return []
    return commit.delete_written_files(file_io, root, schema, messages, since=since)


def compact_buckets(
    file_io: FileIO, table_root: str, buckets: Collection[tuple[bytes, int]]
) -> list[CommitMessage]:
    """A fresh compaction, planned on the latest snapshot, of those of ``buckets``
    ((partition, bucket)) that need one, run here with the rounds of a write's compaction.
    When it fails, the files of the buckets already compacted are deleted."""
    root = table_root.rstrip("/")
    since = find_latest_snapshot_id(file_io, root)
    schema = read_latest_schema(file_io, root)
    rounds = (True, False) if compaction_options(schema).full_rounds else (False,)
    messages: list[CommitMessage] = []
    try:
        for job in plan_bucket_jobs(file_io, root, full=False, rounds=rounds, buckets=buckets):
            message = compact_bucket(file_io, job)
            if message is not None:
                messages.append(message)
    except BaseException:
        delete_compaction_files(file_io, root, messages, since=since)
        raise
    return messages


def _reason(error: Exception) -> str:
    return error.reason if isinstance(error, PaimonKitError) else f"{type(error).__name__}: {error}"


def recompact_after_write(
    file_io: FileIO,
    table_root: str,
    landed: Sequence[Snapshot],
    buckets: Collection[tuple[bytes, int]],
    lost: Exception,
    *,
    attempts: int = WRITE_RECOMPACTION_ATTEMPTS,
) -> Snapshot | None:
    """Redo the compaction a write lost (``lost``: why) after its ``landed`` snapshots
    (APPEND or OVERWRITE): compact the written ``buckets`` afresh on the latest snapshot and
    commit them under the write's commit user and identifier, at most ``attempts`` times.

    Returns the COMPACT snapshot, or ``None`` when none of those buckets needs a compaction
    any more (another commit compacted them). Each failed attempt deletes the files it made.
    When every attempt fails, raises :class:`PartialCommitError` naming the landed
    snapshots: their rows are committed, but hidden from batch reads until a compaction of
    those buckets lands (``spark_impl.jobs.compact``)."""
    root = table_root.rstrip("/")
    write = landed[0]
    described = ", ".join(f"snapshot {s.id} ({s.commit_kind.value})" for s in landed)
    cause: Exception = lost
    for attempt in range(attempts):
        since: int | None = None
        messages: list[CommitMessage] = []
        try:
            if attempt:
                options = read_latest_schema(file_io, root).core_options
                time.sleep(commit.retry_wait(options, attempt - 1))
            since = find_latest_snapshot_id(file_io, root)
            messages = compact_buckets(file_io, root, buckets)
            return commit.commit_compaction(
                file_io,
                root,
                messages,
                commit_user=write.commit_user,
                commit_identifier=write.commit_identifier,
            )
        except Exception as error:  # the data landed: whatever failed, say so (below)
            cause = error
            delete_compaction_files(file_io, root, messages, since=since)
            LOG.warning(
                "%s: retry %d of %d to compact the buckets written by %s failed: %s",
                root,
                attempt + 1,
                attempts,
                described,
                _reason(error),
            )
    raise PartialCommitError(
        f"{described} landed, but its rows are not visible yet: batch reads of this table "
        "skip level-0 files (deletion vectors or the first-row merge engine) and the "
        f"compaction of the written buckets failed {attempts + 1} times, last: "
        f"{_reason(cause)}. The "
        "rows become visible after the next compaction of the table (spark_impl.jobs."
        "compact(spark, path)); do not write them again",
        landed=tuple(s.id for s in landed),
        cause=commit.as_conflict(cause, root),
    ) from cause
