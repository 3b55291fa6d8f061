"""Compaction of primary-key buckets: picking sorted runs, merging them into a higher level,
maintaining deletion vectors, and producing a compact increment.

Spec: ``docs/primary-key-table/compaction``, ``changelog-producer``, the deletion-vector pages
and the seeds' LSM / compaction sections. Java (0.9.0): ``mergetree/compact/UniversalCompaction``,
``ForceUpLevel0Compaction``, ``CompactStrategy.pickFullCompaction``, ``MergeTreeCompactManager``,
``MergeTreeCompactTask``, ``MergeTreeCompactRewriter``, ``ChangelogMergeTreeRewriter``,
``LookupMergeTreeCompactRewriter``, ``FullChangelogMergeTreeCompactRewriter``,
``mergetree/LookupLevels``, ``mergetree/LookupUtils``, ``mergetree/MergeTreeWriter``,
``deletionvectors/DeletionVectorsMaintainer``, ``DeletionVectorIndexFileWriter``,
``operation/KeyValueFileStoreWrite`` (which strategy and rewriter an option set gets).

Picking (``reference.store.levels`` gives the runs, newest first):

1.  *Options.* ``num-sorted-run.compaction-trigger`` (T, default 5),
    ``compaction.max-size-amplification-percent`` (A, 200), ``compaction.size-ratio`` (R, 1),
    ``num-levels`` (T + 1); the top level is ``levels - 1``.
2.  *Universal compaction*, tried in order:
    a. size amplification: with at least T runs, when ``100 * (size of all runs but the
       oldest) > A * size of the oldest run``, all runs go to the top level;
    b. size ratio: with at least T runs, starting from the newest run, the next run joins
       while ``candidate size * (100 + R) / 100 >= its size`` (real division); a pick needs
       two runs or more;
    c. file number: with more than T runs, the newest ``runs - T + 1`` runs are taken and then
       grown by the size-ratio rule of (b) (always picked).
    The output level of ``n`` picked runs is the top level when all runs are picked, else the
    level of the first unpicked run minus one; an output level of 0 is avoided by also picking
    the following runs up to and including the first run above level 0 (whose level becomes
    the output; the top level when that takes every run). With
    ``compaction.optimization-interval`` set, a writer's first pick takes all runs to the top
    level; the reference's writers live for one commit, so every pick is a first one.
3.  *Forced level 0* (tables that look up, ``reference.store.changelog`` rule 1): when universal
    compaction picks nothing, all level-0 runs are taken, grown by the size-ratio rule and
    picked even when only one.
4.  *Full compaction* (asked for): every run goes to the top level, unless there is nothing or
    a single run already on the top level.
5.  *Effective picks.* A pick of no file, or of a single file already on the output level, is
    dropped.
6.  *Dropping deletes.* Retracting results are left out when the output level is above 0 and
    either at or above the highest non-empty level, or the table has deletion vectors.

Rewriting (one pick):

7.  *Steps.* The picked files are cut into sections (``levels`` rule 5). In key order: a
    section of several runs is rewritten; in a single-run section every file smaller than
    ``0.7 * target-file-size`` (integer arithmetic: ``target // 10 * 7``) is rewritten
    together with the preceding small files and sections, while a larger file first ends the
    pending rewrite and is then *upgraded* (moved to the output level without rewriting). A
    pending rewrite of a single file alone is an upgrade too. An upgrade to the level the file
    is on does nothing; an upgrade to the top level of a file holding retractions (or of
    unknown retraction count) is a rewrite of that file instead.
8.  *Merging.* A rewrite reads its files (rows marked in deletion vectors skipped), orders all
    records by key, then ``sequence.field`` values, then sequence number, and merges each key:
    a key with a single record keeps it unchanged, several are merged by the merge engine
    (with ``changelog`` rule 2 for tables that look up). Results go to new files on the output
    level (file source COMPACT, rolled at ``target-file-size``, the level's format and
    compression from ``file.format.per.level`` / ``file.compression.per.level``), retracting
    ones dropped per rule 6.
9.  *Lookup rewriter* (tables that look up). A rewrite whose files include level-0 files and
    whose output is above level 0 merges each key through ``changelog`` rules 3-5 (lookup into
    the levels above the output level, deletion vectors, first row) and, for the lookup
    producer, writes the changes to changelog files. An upgrade of a level-0 file also merges
    its keys that way: it rewrites the file (dropping retractions with deletion vectors) when
    deletion vectors are on and the file holds retractions, or when the engine is not
    deduplicate without ``sequence.field`` and the output is not the top level; otherwise the
    file only moves, after its changes were computed. Files above level 0 only move.
10. *Full-compaction rewriter* (``changelog-producer = full-compaction``). A rewrite into the
    top level (the option's ``num-levels - 1``) merges through ``changelog`` rule 6 and writes
    changelog; an upgrade into the top level computes the file's changes and moves it.
11. *Changelog files* are ``changelog-<uuid>-<n>`` on the output level with file source
    APPEND, in the level's format (main's ``changelog-file.*`` options win).
12. *Deletion vectors.* The bucket's vectors (from its DELETION_VECTORS index files) are
    updated: lookups mark rows, rewritten files lose theirs. When anything changed, all
    vectors are written to one new index file ``index-<uuid>-<n>`` (in data file name order;
    an empty file of just the version byte when none is left), listed with the bucket's old
    index files as deleted. Paimon 0.9 writes no cardinality into the index manifest.
13. *Increment.* Files read (or moved from) are ``compact_before``, files written (or moved
    to) ``compact_after``; an upgrade lists the same file on both levels. A second compaction
    of the same commit that reads a file the first one wrote removes it from both lists and
    deletes it (unless it was moved rather than written).

When compactions run (Java ``MergeTreeWriter``): a writer picks (rule 2, or 3) once after each
flush; Java's batch writer waits for the compaction before committing, so its data files and
their compaction land in one commit (APPEND then COMPACT snapshot). An explicit compaction
(``compact``) picks by rule 4 (full) or 2/3, and the commit that follows picks once more. A
streaming writer commits without waiting unless the bucket has more than
``num-sorted-run.stop-trigger`` runs (one more at a checkpoint) or ``commit.force-compact``;
the reference always compacts synchronously, as the batch writer does. ``write-only`` skips
compaction after writes.

Differences from main (not followed): main grows a size-ratio pick over runs of levels 0 and
1 once it has two runs, adds off-peak ratios and early full compaction triggers, and lets a
full compaction rewrite top-level files that have deletion vectors or expired records.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from reference import layout
from reference.errors import InvalidOptionError, UnsupportedFeature
from reference.io import FileIO
from reference.merge.engine import MergeSetup, merge
from reference.spec import types as t
from reference.spec.column_stats import STATS_MODE_OPTION, parse_stats_mode
from reference.spec.commit_message import CommitMessage, CompactIncrement, IndexIncrement
from reference.spec.data import Row, RowKind
from reference.spec.data_file import (
    SEQUENCE_NUMBER_FIELD,
    VALUE_KIND_FIELD,
    DataFileMeta,
    FileSource,
    compute_upgraded_file,
)
from reference.spec.deletion_vector import (
    BitmapKind,
)
from reference.spec.java_numbers import LONG_MAX
from reference.spec.key_value import KeyValue
from reference.spec.manifest import IndexFileMeta
from reference.spec.options import (
    ChangelogProducer,
    MergeEngine,
    option_value,
    validate_engine_combinations,
)
from reference.spec.schema import TableSchema
from reference.spec.units import PERCENT
from reference.store import changelog as cl
from reference.store import metadata
from reference.store.append_compact import (
    compact_append_after_write,
    compact_append_table,
    create_rewrite_context,
)
from reference.store.bucket_assign import (
    compute_key_bytes,
    compute_table_keys,
    compute_total_buckets,
)
from reference.store.bucket_state import (
    BucketState,
    JobContext,
    Vectors,
    compact_written_buckets,
    compute_bitmap_kind,
    compute_index_file_name,
    create_job_context,
    is_state_selected,
    read_bucket_state_map,
    read_bucket_states,
    write_vector_index,
)
from reference.store.file_writer import (
    KeyValueLayout,
    MetaContext,
    compute_key_value_ranges,
    write_key_value_file,
)
from reference.store.levels import (
    Levels,
    LevelSortedRun,
    SortedRun,
    apply_level_update,
    compute_highest_non_empty_level,
    compute_level_sorted_runs,
    compute_levels,
    compute_number_of_sorted_runs,
    compute_sections,
    is_key_in_file,
)
from reference.store.read import (
    compute_file_fields,
    compute_key_indexes,
    compute_key_types,
    compute_table_merge_setup,
    compute_value_mapper,
    read_file_rows,
)
from reference.store.scan import compute_bucket_path
from reference.store.write import (
    CHANGELOG_COMPRESSION_OPTION,
    CHANGELOG_FORMAT_OPTION,
    CHANGELOG_PREFIX_OPTION,
    CHANGELOG_STATS_MODE_OPTION,
    COMPRESSION_PER_LEVEL_OPTION,
    DATA_PREFIX_OPTION,
    FORMAT_PER_LEVEL_OPTION,
    STATS_MODE_PER_LEVEL_OPTION,
    FileKindPlan,
    FileNaming,
    compute_file_kind_plan,
    compute_file_name,
    compute_key_value_layout,
    compute_physical_fields,
    group_sorted_records,
    sort_records,
)

MIN_FILE_SIZE_NUMERATOR = 7
MIN_FILE_SIZE_DENOMINATOR = 10
"""Files below ``target-file-size // 10 * 7`` are rewritten rather than moved (rule 7)."""
RECORD_LEVEL_EXPIRE_OPTION = "record-level.expire-time"

# --------------------------------------------------------------------------------------------
# Options (rule 1)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompactionOptions:
    """The options compaction reads, resolved once (Java ``CoreOptions`` getters)."""

    num_levels: int
    trigger: int
    stop_trigger: int
    max_size_amplification: int
    size_ratio: int
    optimization_interval: bool
    min_file_size: int
    lookup: cl.LookupStrategy
    full_changelog: bool
    row_deduplicate: bool
    has_sequence_field: bool
    is_deduplicate: bool
    bitmap_kind: BitmapKind

    @property
    def rewriter_max_level(self) -> int:
        """The top level the rewriters know (from the option, not from the files)."""
        return self.num_levels - 1


def compute_min_file_size(target_file_size: int) -> int:
    """Rule 7 (Java ``CoreOptions.compactionFileSize``)."""
    return target_file_size // MIN_FILE_SIZE_DENOMINATOR * MIN_FILE_SIZE_NUMERATOR


def compute_compaction_options(schema: TableSchema) -> CompactionOptions:
    """Read and check the options of a primary-key table's compaction."""
    if not schema.is_primary_key_table:
        raise UnsupportedFeature("compaction of append tables")
    validate_engine_combinations(schema.options)
    if schema.options.get(RECORD_LEVEL_EXPIRE_OPTION):
        raise UnsupportedFeature(f"compaction with '{RECORD_LEVEL_EXPIRE_OPTION}'")
    core = schema.core_options
    setup = compute_table_merge_setup(schema)
    return CompactionOptions(
        num_levels=core.num_levels,
        trigger=core.num_sorted_run_compaction_trigger,
        stop_trigger=core.num_sorted_run_stop_trigger,
        max_size_amplification=int(core.get("compaction.max-size-amplification-percent")),
        size_ratio=int(core.get("compaction.size-ratio")),
        optimization_interval=core.get("compaction.optimization-interval") is not None,
        min_file_size=compute_min_file_size(core.target_file_size(True)),
        lookup=cl.compute_lookup_strategy(schema),
        full_changelog=core.changelog_producer is ChangelogProducer.FULL_COMPACTION,
        row_deduplicate=cl.is_row_deduplicate(schema),
        has_sequence_field=bool(setup.sequence.indexes),
        is_deduplicate=setup.engine is MergeEngine.DEDUPLICATE,
        bitmap_kind=compute_bitmap_kind(schema),
    )


# --------------------------------------------------------------------------------------------
# Picking (rules 2-6)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompactUnit:
    """What one compaction reads and where it writes (Java ``CompactUnit``)."""

    output_level: int
    files: tuple[DataFileMeta, ...]


def compute_unit(output_level: int, runs: Sequence[LevelSortedRun]) -> CompactUnit:
    return CompactUnit(output_level, tuple(f for run in runs for f in run.run.files))


def compute_runs_size(runs: Sequence[LevelSortedRun]) -> int:
    return sum(run.run.total_size for run in runs)


def pick_for_size_amplification(
    runs: Sequence[LevelSortedRun], max_level: int, options: CompactionOptions
) -> CompactUnit | None:
    """Rule 2a."""
    if not runs or len(runs) < options.trigger:
        return None
    newer = compute_runs_size(runs[:-1])
    oldest = runs[-1].run.total_size
    if newer * PERCENT > options.max_size_amplification * oldest:
        return compute_unit(max_level, runs)
    return None


def compute_output_unit(
    runs: Sequence[LevelSortedRun], max_level: int, run_count: int
) -> CompactUnit:
    """Rule 2's output level for the newest ``run_count`` runs (Java ``createUnit``)."""
    if run_count == len(runs):
        return compute_unit(max_level, runs)
    output_level = max(0, runs[run_count].level - 1)
    if output_level == 0:
        for run in runs[run_count:]:
            run_count += 1
            if run.level != 0:
                output_level = run.level
                break
    if run_count == len(runs):
        output_level = max_level
    return compute_unit(output_level, runs[:run_count])


def pick_for_size_ratio(
    runs: Sequence[LevelSortedRun],
    max_level: int,
    options: CompactionOptions,
    candidate_count: int = 1,
    force: bool = False,
) -> CompactUnit | None:
    """Rule 2b from ``candidate_count`` runs (Java ``pickForSizeRatio``)."""
    candidate_size = compute_runs_size(runs[:candidate_count])
    for run in runs[candidate_count:]:
        if candidate_size * (PERCENT + options.size_ratio) / PERCENT < run.run.total_size:
            break
        candidate_size += run.run.total_size
        candidate_count += 1
    if force or candidate_count > 1:
        return compute_output_unit(runs, max_level, candidate_count)
    return None


def pick_universal(
    runs: Sequence[LevelSortedRun], num_levels: int, options: CompactionOptions
) -> CompactUnit | None:
    """Rule 2 (Java ``UniversalCompaction.pick``)."""
    max_level = num_levels - 1
    if options.optimization_interval:
        return compute_unit(max_level, runs)
    unit = pick_for_size_amplification(runs, max_level, options)
    if unit is not None:
        return unit
    if len(runs) >= options.trigger:
        unit = pick_for_size_ratio(runs, max_level, options)
        if unit is not None:
            return unit
    if len(runs) > options.trigger:
        return pick_for_size_ratio(runs, max_level, options, len(runs) - options.trigger + 1)
    return None


def pick_force_level0(
    runs: Sequence[LevelSortedRun], num_levels: int, options: CompactionOptions
) -> CompactUnit | None:
    """Rule 3 (Java ``ForceUpLevel0Compaction``)."""
    unit = pick_universal(runs, num_levels, options)
    if unit is not None:
        return unit
    level_zero = len(list(itertools.takewhile(lambda run: run.level == 0, runs)))
    if level_zero == 0:
        return None
    return pick_for_size_ratio(runs, num_levels - 1, options, level_zero, force=True)


def pick_full_compaction(runs: Sequence[LevelSortedRun], num_levels: int) -> CompactUnit | None:
    """Rule 4 (Java ``CompactStrategy.pickFullCompaction``, 0.9)."""
    max_level = num_levels - 1
    if not runs or (len(runs) == 1 and runs[0].level == max_level):
        return None
    return compute_unit(max_level, runs)


def is_unit_effective(unit: CompactUnit) -> bool:
    """Rule 5."""
    if not unit.files:
        return False
    return len(unit.files) > 1 or unit.files[0].level != unit.output_level


def pick_compaction(levels: Levels, options: CompactionOptions, full: bool) -> CompactUnit | None:
    """Rules 2-5 for one bucket (Java ``MergeTreeCompactManager.triggerCompaction``)."""
    runs = compute_level_sorted_runs(levels)
    if full:
        return pick_full_compaction(runs, levels.number_of_levels)
    pick = pick_force_level0 if options.lookup.need_lookup else pick_universal
    unit = pick(runs, levels.number_of_levels, options)
    return unit if unit is not None and is_unit_effective(unit) else None


def is_delete_dropped(output_level: int, levels: Levels, deletion_vectors: bool) -> bool:
    """Rule 6."""
    return output_level != 0 and (
        output_level >= compute_highest_non_empty_level(levels) or deletion_vectors
    )


def is_compaction_awaited(levels: Levels, options: CompactionOptions, *, batch: bool) -> bool:
    """Whether a Java writer's commit waits for its compaction: always in batch mode, else
    with more runs than the stop trigger allows (Java ``shouldWaitForPreparingCheckpoint``)."""
    return batch or compute_number_of_sorted_runs(levels) > options.stop_trigger + 1


# --------------------------------------------------------------------------------------------
# Steps of one compaction (rule 7)
# --------------------------------------------------------------------------------------------


class StepKind(Enum):
    REWRITE = "rewrite"
    UPGRADE = "upgrade"


@dataclass(frozen=True)
class CompactionStep:
    """A rewrite of some sections, or the upgrade of one file."""

    kind: StepKind
    sections: tuple[tuple[SortedRun, ...], ...] = ()
    file: DataFileMeta | None = None

    @property
    def files(self) -> list[DataFileMeta]:
        if self.file is not None:
            return [self.file]
        return [f for section in self.sections for run in section for f in run.files]


def compute_upgrade_steps(
    meta: DataFileMeta, output_level: int, max_level: int
) -> list[CompactionStep]:
    """An upgrade, nothing (same level), or a rewrite (retractions into the top level)."""
    if meta.level == output_level:
        return []
    if output_level != max_level or meta.delete_row_count == 0:
        return [CompactionStep(StepKind.UPGRADE, file=meta)]
    return [CompactionStep(StepKind.REWRITE, sections=((SortedRun((meta,)),),))]


def compute_pending_steps(
    pending: Sequence[tuple[SortedRun, ...]], output_level: int, max_level: int
) -> list[CompactionStep]:
    """The step of the pending sections: none, the upgrades of a lone run, or a rewrite."""
    if not pending:
        return []
    if len(pending) == 1 and len(pending[0]) <= 1:
        files = pending[0][0].files if pending[0] else ()
        return [s for f in files for s in compute_upgrade_steps(f, output_level, max_level)]
    return [CompactionStep(StepKind.REWRITE, sections=tuple(pending))]


def compute_compaction_steps(
    unit: CompactUnit, key_types: Sequence[t.DataType], min_file_size: int, max_level: int
) -> list[CompactionStep]:
    """Rule 7 (Java ``MergeTreeCompactTask.doCompact``); ``max_level`` is the bucket's."""
    steps: list[CompactionStep] = []
    pending: list[tuple[SortedRun, ...]] = []
    for section in compute_sections(unit.files, key_types):
        if len(section) > 1:
            pending.append(tuple(section))
            continue
        for meta in section[0].files:
            if meta.file_size < min_file_size:
                pending.append((SortedRun((meta,)),))
            else:
                steps += compute_pending_steps(pending, unit.output_level, max_level)
                pending = []
                steps += compute_upgrade_steps(meta, unit.output_level, max_level)
    return steps + compute_pending_steps(pending, unit.output_level, max_level)


# --------------------------------------------------------------------------------------------
# Rewriters (rules 9 and 10)
# --------------------------------------------------------------------------------------------


class Rewriter(Enum):
    """Which Java rewriter a table gets (``KeyValueFileStoreWrite.createRewriter``)."""

    PLAIN = "merge"
    LOOKUP = "lookup"
    FULL_CHANGELOG = "full-changelog"


def compute_rewriter(options: CompactionOptions) -> Rewriter:
    if options.full_changelog:
        return Rewriter.FULL_CHANGELOG
    if options.lookup.need_lookup:
        return Rewriter.LOOKUP
    return Rewriter.PLAIN


class StepMode(Enum):
    """How one step treats its keys."""

    MOVE = "move"
    MERGE = "merge"
    LOOKUP_CHANGELOG = "lookup-changelog"
    FULL_CHANGELOG = "full-changelog"


@dataclass(frozen=True)
class StepPlan:
    """A step's mode, whether it writes new data files, and whether it drops retractions."""

    mode: StepMode
    rewrite: bool
    drop_delete: bool


def compute_lookup_upgrade_plan(
    meta: DataFileMeta, output_level: int, options: CompactionOptions
) -> StepPlan:
    """Rule 9's upgrade (Java ``LookupMergeTreeCompactRewriter.upgradeStrategy``)."""
    dv = options.lookup.deletion_vector
    if meta.level != 0:
        return StepPlan(StepMode.MOVE, False, False)
    if dv and (meta.delete_row_count is None or meta.delete_row_count > 0):
        return StepPlan(StepMode.LOOKUP_CHANGELOG, True, dv)
    if output_level == options.rewriter_max_level or (
        options.is_deduplicate and not options.has_sequence_field
    ):
        return StepPlan(StepMode.LOOKUP_CHANGELOG, False, dv)
    return StepPlan(StepMode.LOOKUP_CHANGELOG, True, dv)


def compute_step_plan(
    step: CompactionStep, output_level: int, drop_delete: bool, options: CompactionOptions
) -> StepPlan:
    """Rules 8-10: what the table's rewriter does with one step."""
    rewriter = compute_rewriter(options)
    is_top = output_level == options.rewriter_max_level
    if step.kind is StepKind.UPGRADE:
        assert step.file is not None
        if rewriter is Rewriter.LOOKUP:
            return compute_lookup_upgrade_plan(step.file, output_level, options)
        if rewriter is Rewriter.FULL_CHANGELOG and is_top:
            return StepPlan(StepMode.FULL_CHANGELOG, False, False)
        return StepPlan(StepMode.MOVE, False, False)
    has_level_zero = any(f.level == 0 for f in step.files)
    if rewriter is Rewriter.LOOKUP and output_level != 0 and has_level_zero:
        return StepPlan(StepMode.LOOKUP_CHANGELOG, True, drop_delete)
    if rewriter is Rewriter.FULL_CHANGELOG and is_top:
        return StepPlan(StepMode.FULL_CHANGELOG, True, drop_delete)
    return StepPlan(StepMode.MERGE, True, drop_delete)


# --------------------------------------------------------------------------------------------
# The context of one compaction job
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompactionContext:
    """What compacting any bucket of one table needs: the job (storage, schemas, file naming
    shared by all files of the job) and the resolved options."""

    job: JobContext
    options: CompactionOptions
    setup: MergeSetup
    key_types: tuple[t.DataType, ...]
    key_value_layout: KeyValueLayout


def create_compaction_context(job: JobContext) -> CompactionContext:
    schema = job.schema
    return CompactionContext(
        job=job,
        options=compute_compaction_options(schema),
        setup=compute_table_merge_setup(schema),
        key_types=tuple(compute_key_types(schema)),
        key_value_layout=compute_key_value_layout(schema, compute_table_keys(schema)),
    )


def compute_state_bucket_path(ctx: CompactionContext, state: BucketState) -> str:
    return compute_bucket_path(ctx.job.table_root, ctx.job.schema, state.partition, state.bucket)


# --------------------------------------------------------------------------------------------
# Reading records with their positions (rule 8)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PositionedRecord:
    """A record read from a data file (``record.level`` is the file's) and where its row is."""

    record: KeyValue
    location: cl.RowLocation


def read_positioned_records(
    ctx: CompactionContext, bucket_path: str, meta: DataFileMeta, deleted: frozenset[int]
) -> list[PositionedRecord]:
    """The records of one file in the table's schema, rows in ``deleted`` skipped."""
    file_schema = ctx.job.schemas[meta.schema_id]
    fields = compute_file_fields(file_schema)
    value_start = fields.index(VALUE_KIND_FIELD) + 1
    sequence_index = fields.index(SEQUENCE_NUMBER_FIELD)
    path = layout.data_file_path(bucket_path, meta.file_name, meta.external_path)
    rows = read_file_rows(ctx.job.file_io, path, fields)
    mapper = compute_value_mapper(file_schema.fields, ctx.job.schema.fields)
    key_indexes = compute_key_indexes(ctx.job.schema)
    records = []
    for position, row in enumerate(rows):
        if position in deleted:
            continue
        value = mapper(row[value_start:])
        record = KeyValue(
            key=tuple(value[i] for i in key_indexes),
            sequence_number=row[sequence_index],
            kind=RowKind.from_byte(row[value_start - 1]),
            value=value,
            level=meta.level,
        )
        records.append(PositionedRecord(record, cl.RowLocation(meta.file_name, position)))
    return records


def read_step_records(
    ctx: CompactionContext, bucket_path: str, files: Sequence[DataFileMeta], vectors: Vectors
) -> list[list[KeyValue]]:
    """Rule 8: the records of ``files``, grouped by key in key order, each key's records in
    merge order."""
    records = [
        positioned.record
        for meta in files
        for positioned in read_positioned_records(
            ctx, bucket_path, meta, vectors.get(meta.file_name, frozenset())
        )
    ]
    ordered = sort_records(records, ctx.key_types, ctx.setup)
    return group_sorted_records(ordered, ctx.key_types)


# --------------------------------------------------------------------------------------------
# Lookups above the output level (changelog rules 3-5)
# --------------------------------------------------------------------------------------------

LevelLookup = Callable[[Row], PositionedRecord | None]


def compute_lookup_files(levels: Levels, level: int) -> Sequence[DataFileMeta]:
    """The files of a level in lookup order (level 0: newest first)."""
    return levels.level0 if level == 0 else levels.run_of_level(level).files


def create_level_lookup(
    ctx: CompactionContext, bucket_path: str, levels: Levels, start_level: int, vectors: Vectors
) -> LevelLookup:
    """A key's newest record on the levels from ``start_level`` up (Java
    ``LookupLevels.lookup``); files are read once, with their deletion vectors."""
    by_file: dict[str, dict[bytes, PositionedRecord]] = {}

    def find_in_file(key_bytes: bytes, meta: DataFileMeta) -> PositionedRecord | None:
        if meta.file_name not in by_file:
            deleted = vectors.get(meta.file_name, frozenset())
            by_file[meta.file_name] = {
                compute_key_bytes(p.record.key, ctx.key_types): p
                for p in read_positioned_records(ctx, bucket_path, meta, deleted)
            }
        return by_file[meta.file_name].get(key_bytes)

    def lookup(key: Row) -> PositionedRecord | None:
        key_bytes = compute_key_bytes(key, ctx.key_types)
        for level in range(start_level, levels.number_of_levels):
            for meta in compute_lookup_files(levels, level):
                if is_key_in_file(key, meta, ctx.key_types):
                    found = find_in_file(key_bytes, meta)
                    if found is not None:
                        return found
        return None

    return lookup


def is_lookup_value_kept(options: CompactionOptions) -> bool:
    """``changelog`` rule 4: deletion-vector lookups keep values only when needed."""
    return (
        options.lookup.produce_changelog or not options.is_deduplicate or options.has_sequence_field
    )


def create_changelog_lookup(level_lookup: LevelLookup, options: CompactionOptions) -> cl.Lookup:
    keeps_value = not options.lookup.deletion_vector or is_lookup_value_kept(options)

    def lookup(key: Row) -> cl.LookupHit | None:
        found = level_lookup(key)
        if found is None:
            return None
        return cl.LookupHit(found.record if keeps_value else None, found.location)

    return lookup


# --------------------------------------------------------------------------------------------
# Keys (rules 8-10)
# --------------------------------------------------------------------------------------------


def merge_table_records(records: Sequence[KeyValue], ctx: CompactionContext) -> KeyValue | None:
    """The table's merge function: ``changelog`` rule 2 for tables that look up."""
    if cl.is_lookup_merge(ctx.options.lookup):
        return cl.merge_lookup(records, ctx.setup)
    return merge(records, ctx.setup)


def merge_reduced(records: Sequence[KeyValue], ctx: CompactionContext) -> KeyValue | None:
    """Rule 8: a single record unchanged, several merged (Java ``ReducerMergeFunctionWrapper``)."""
    if len(records) == 1:
        return records[0]
    return merge_table_records(records, ctx)


def compute_key_result(
    records: Sequence[KeyValue], mode: StepMode, ctx: CompactionContext, lookup: LevelLookup
) -> cl.KeyResult:
    """What one key of a step becomes."""
    options = ctx.options
    if mode is StepMode.LOOKUP_CHANGELOG and options.lookup.is_first_row:
        return cl.merge_first_row_key(
            records, lambda key: lookup(key) is not None, ctx.setup.options.ignore_delete
        )
    if mode is StepMode.LOOKUP_CHANGELOG:
        changelog_lookup = create_changelog_lookup(lookup, options)
        return cl.merge_lookup_key(
            records, changelog_lookup, ctx.setup, options.lookup, options.row_deduplicate
        )
    if mode is StepMode.FULL_CHANGELOG:
        return cl.merge_full_compaction_key(
            records,
            options.rewriter_max_level,
            lambda group: merge_table_records(group, ctx),
            options.row_deduplicate,
        )
    return cl.KeyResult(merge_reduced(records, ctx))


def is_changelog_written(mode: StepMode, options: CompactionOptions) -> bool:
    if mode is StepMode.FULL_CHANGELOG:
        return True
    return mode is StepMode.LOOKUP_CHANGELOG and options.lookup.produce_changelog


def is_result_written(result: KeyValue | None, drop_delete: bool) -> bool:
    return result is not None and (not drop_delete or result.kind.is_add)


# --------------------------------------------------------------------------------------------
# Writing files (rules 8 and 11)
# --------------------------------------------------------------------------------------------


def find_level_entry(options: Mapping[str, str], key: str, level: int) -> str | None:
    """The value of a ``<level>:<value>,...`` option for ``level``, if it has one."""
    per_level: Mapping[str, str] = option_value(options, key) or {}
    for entry_level, value in per_level.items():
        if not entry_level.strip().lstrip("-").isdigit():
            raise InvalidOptionError(key, options[key], f"level {entry_level!r} is not a number")
        if int(entry_level) == level:
            return value
    return None


def compute_level_data_plan(schema: TableSchema, level: int) -> FileKindPlan:
    """Rule 8: data files of ``level``."""
    options = schema.options
    core = schema.core_options
    stats_mode = find_level_entry(options, STATS_MODE_PER_LEVEL_OPTION, level) or core.stats_mode
    parse_stats_mode(stats_mode, STATS_MODE_OPTION)
    return compute_file_kind_plan(
        schema,
        compute_physical_fields(schema),
        format_name=find_level_entry(options, FORMAT_PER_LEVEL_OPTION, level) or core.file_format,
        compression=find_level_entry(options, COMPRESSION_PER_LEVEL_OPTION, level)
        or core.file_compression,
        stats_mode=stats_mode,
        prefix=str(option_value(options, DATA_PREFIX_OPTION)),
    )


def compute_level_changelog_plan(schema: TableSchema, level: int) -> FileKindPlan:
    """Rule 11: changelog files written by a compaction into ``level``."""
    options = schema.options
    data = compute_level_data_plan(schema, level)
    stats_mode = options.get(CHANGELOG_STATS_MODE_OPTION) or (
        find_level_entry(options, STATS_MODE_PER_LEVEL_OPTION, level)
        or schema.core_options.stats_mode
    )
    parse_stats_mode(stats_mode, CHANGELOG_STATS_MODE_OPTION)
    return compute_file_kind_plan(
        schema,
        compute_physical_fields(schema),
        format_name=options.get(CHANGELOG_FORMAT_OPTION, data.settings.fmt.value),
        compression=options.get(
            CHANGELOG_COMPRESSION_OPTION, data.settings.write_options.compression
        ),
        stats_mode=stats_mode,
        prefix=str(option_value(options, CHANGELOG_PREFIX_OPTION)),
    )


def write_key_value_files(
    ctx: CompactionContext,
    bucket_path: str,
    records: Sequence[KeyValue],
    plan: FileKindPlan,
    meta_context: MetaContext,
) -> list[DataFileMeta]:
    """``records`` (key order) into files rolled at the target size."""
    if not records:
        return []
    table, ranges = compute_key_value_ranges(list(records), plan.settings, ctx.key_value_layout)
    metas = []
    for start, end in ranges:
        metas.append(
            write_key_value_file(
                ctx.job.file_io,
                bucket_path,
                compute_file_name(plan, ctx.job.naming, ctx.job.counters),
                table.slice(start, end - start),
                records[start:end],
                settings=plan.settings,
                key_value_layout=ctx.key_value_layout,
                context=meta_context,
            )
        )
    return metas


def compute_meta_context(ctx: CompactionContext, level: int, source: FileSource) -> MetaContext:
    return MetaContext(ctx.job.schema.id, level, source, ctx.job.creation_time)


# --------------------------------------------------------------------------------------------
# Running steps (rules 7-12)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompactionResult:
    """Files read, written and produced by compaction, and the rows it marked deleted
    (Java ``CompactResult`` with the deletion notifications)."""

    before: tuple[DataFileMeta, ...] = ()
    after: tuple[DataFileMeta, ...] = ()
    changelog: tuple[DataFileMeta, ...] = ()
    deletions: tuple[cl.RowLocation, ...] = ()
    rewritten: tuple[str, ...] = ()
    """Names of files read and rewritten: their deletion vectors go (rule 12)."""


def run_step(
    ctx: CompactionContext,
    step: CompactionStep,
    plan: StepPlan,
    *,
    output_level: int,
    bucket_path: str,
    levels: Levels,
    vectors: Vectors,
) -> CompactionResult:
    """One step: move the file, or merge the keys, write the results and the changelog."""
    before = tuple(step.files)
    if plan.mode is StepMode.MOVE:
        return CompactionResult(
            before, tuple(compute_upgraded_file(f, output_level) for f in before)
        )
    lookup = create_level_lookup(ctx, bucket_path, levels, output_level + 1, vectors)
    results = [
        compute_key_result(group, plan.mode, ctx, lookup)
        for group in read_step_records(ctx, bucket_path, before, vectors)
    ]
    changelog: list[DataFileMeta] = []
    if is_changelog_written(plan.mode, ctx.options):
        changes = [change for result in results for change in result.changelog]
        changelog = write_key_value_files(
            ctx,
            bucket_path,
            changes,
            compute_level_changelog_plan(ctx.job.schema, output_level),
            compute_meta_context(ctx, output_level, FileSource.APPEND),
        )
    deletions = tuple(location for result in results for location in result.deletions)
    if not plan.rewrite:
        after = tuple(compute_upgraded_file(f, output_level) for f in before)
        return CompactionResult(before, after, tuple(changelog), deletions)
    written = [r.result for r in results if is_result_written(r.result, plan.drop_delete)]
    after_files = write_key_value_files(
        ctx,
        bucket_path,
        [record for record in written if record is not None],
        compute_level_data_plan(ctx.job.schema, output_level),
        compute_meta_context(ctx, output_level, FileSource.COMPACT),
    )
    rewritten = tuple(f.file_name for f in before)
    return CompactionResult(before, tuple(after_files), tuple(changelog), deletions, rewritten)


def apply_vector_changes(vectors: Vectors, result: CompactionResult) -> dict[str, frozenset[int]]:
    """Rule 12: mark the rows the lookups found, drop the vectors of rewritten files."""
    updated = dict(vectors)
    for location in result.deletions:
        updated[location.file_name] = updated.get(location.file_name, frozenset()) | {
            location.position
        }
    for name in result.rewritten:
        updated.pop(name, None)
    return updated


def merge_results(first: CompactionResult, second: CompactionResult) -> CompactionResult:
    """Two results of one compaction, concatenated (Java ``CompactResult.merge``)."""
    return CompactionResult(
        first.before + second.before,
        first.after + second.after,
        first.changelog + second.changelog,
        first.deletions + second.deletions,
        first.rewritten + second.rewritten,
    )


@dataclass(frozen=True)
class RoundResult:
    """One compaction of a bucket: its result and the vectors after it."""

    result: CompactionResult
    vectors: dict[str, frozenset[int]]


def run_compaction(
    ctx: CompactionContext,
    state: BucketState,
    levels: Levels,
    unit: CompactUnit,
    vectors: Vectors,
) -> RoundResult:
    """Rules 6-12 for one picked unit (Java ``MergeTreeCompactTask``)."""
    bucket_path = compute_state_bucket_path(ctx, state)
    drop_delete = is_delete_dropped(unit.output_level, levels, ctx.options.lookup.deletion_vector)
    total = CompactionResult()
    current = dict(vectors)
    steps = compute_compaction_steps(
        unit, ctx.key_types, ctx.options.min_file_size, levels.max_level
    )
    for step in steps:
        plan = compute_step_plan(step, unit.output_level, drop_delete, ctx.options)
        result = run_step(
            ctx,
            step,
            plan,
            output_level=unit.output_level,
            bucket_path=bucket_path,
            levels=levels,
            vectors=current,
        )
        current = apply_vector_changes(current, result)
        total = merge_results(total, result)
    return RoundResult(total, current)


# --------------------------------------------------------------------------------------------
# A bucket's compactions within one commit (rule 13)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Increment:
    """What the compactions of one commit add up to (Java ``MergeTreeWriter`` bookkeeping)."""

    before: Mapping[str, DataFileMeta] = field(default_factory=dict)
    after: tuple[DataFileMeta, ...] = ()
    changelog: tuple[DataFileMeta, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.before or self.after or self.changelog)


def apply_round_to_increment(
    file_io: FileIO, bucket_path: str, increment: Increment, result: CompactionResult
) -> Increment:
    """Rule 13: a file an earlier compaction of this commit wrote and this one read leaves the
    increment (and storage, unless it was only moved)."""
    before = dict(increment.before)
    after = list(increment.after)
    moved = {f.file_name for f in result.after}
    for meta in result.before:
        if meta in after:
            after.remove(meta)
            if meta.file_name not in before and meta.file_name not in moved:
                file_io.delete(layout.data_file_path(bucket_path, meta.file_name))
        else:
            before[meta.file_name] = meta
    return Increment(before, (*after, *result.after), increment.changelog + result.changelog)


@dataclass(frozen=True)
class BucketCompaction:
    """The compactions of one bucket for one commit, and its vectors after them."""

    increment: Increment
    vectors: Mapping[str, frozenset[int]]
    vectors_changed: bool


def compact_bucket(
    ctx: CompactionContext, state: BucketState, rounds: Sequence[bool]
) -> BucketCompaction:
    """Pick and compact once per entry of ``rounds`` (``True``: a full compaction), each on the
    levels the previous one left (Java: ``compact`` then the commit's own pick)."""
    levels = compute_levels(state.files, ctx.options.num_levels, ctx.key_types)
    bucket_path = compute_state_bucket_path(ctx, state)
    increment = Increment()
    vectors: Mapping[str, frozenset[int]] = state.vectors
    for full in rounds:
        unit = pick_compaction(levels, ctx.options, full)
        if unit is None:
            continue
        outcome = run_compaction(ctx, state, levels, unit, vectors)
        increment = apply_round_to_increment(
            ctx.job.file_io, bucket_path, increment, outcome.result
        )
        levels = apply_level_update(
            levels, outcome.result.before, outcome.result.after, ctx.key_types
        )
        vectors = outcome.vectors
    return BucketCompaction(increment, vectors, dict(vectors) != dict(state.vectors))


# --------------------------------------------------------------------------------------------
# Deletion-vector index files (rule 12)
# --------------------------------------------------------------------------------------------


def write_context_vector_index(ctx: CompactionContext, vectors: Vectors) -> IndexFileMeta:
    """All of a bucket's vectors in one new index file (``bucket_state`` rule 4)."""
    name = compute_index_file_name(ctx.job.naming, ctx.job.counters)
    return write_vector_index(
        ctx.job.file_io, ctx.job.table_root, vectors, ctx.options.bitmap_kind, name
    )


def compute_vector_increment(
    ctx: CompactionContext, state: BucketState, compaction: BucketCompaction
) -> IndexIncrement:
    """The new index file replacing the bucket's old ones, when the vectors changed."""
    if not compaction.vectors_changed:
        return IndexIncrement()
    new_file = write_context_vector_index(ctx, compaction.vectors)
    return IndexIncrement(new_index_files=(new_file,), deleted_index_files=state.vector_files)


# --------------------------------------------------------------------------------------------
# Commit messages
# --------------------------------------------------------------------------------------------


def compute_compact_increment(increment: Increment) -> CompactIncrement:
    return CompactIncrement(
        compact_before=tuple(increment.before.values()),
        compact_after=increment.after,
        changelog_files=increment.changelog,
    )


def compact_bucket_message(
    ctx: CompactionContext, state: BucketState, rounds: Sequence[bool]
) -> CommitMessage | None:
    """The commit message of one bucket's compactions, or ``None`` when nothing changed."""
    compaction = compact_bucket(ctx, state, rounds)
    index = compute_vector_increment(ctx, state, compaction)
    if compaction.increment.is_empty and index.is_empty:
        return None
    return CommitMessage(
        state.partition_bytes,
        state.bucket,
        compute_total_buckets(ctx.job.schema),
        compaction=compute_compact_increment(compaction.increment),
        index=index,
    )


def compact_table(
    file_io: FileIO,
    table_root: str,
    *,
    full: bool = False,
    partition: Row | None = None,
    bucket: int | None = None,
    naming: FileNaming | None = None,
) -> list[CommitMessage]:
    """Compact the buckets of the latest snapshot (those of ``partition`` / ``bucket`` when
    given): a full compaction (rule 4) or a normal pick (rules 2-3), then the normal pick
    Java's commit makes. Returns the messages to commit. Append tables are compacted by
    ``reference.store.append_compact.compact_append_table``."""
    schema = metadata.read_latest_schema(file_io, table_root)
    job = create_job_context(file_io, table_root, schema, naming)
    if not schema.is_primary_key_table:
        append_ctx = create_rewrite_context(job)
        return compact_append_table(append_ctx, full=full, partition=partition, bucket=bucket)
    ctx = create_compaction_context(job)
    snapshot = metadata.read_latest_snapshot(file_io, table_root)
    messages = []
    for state in read_bucket_states(file_io, table_root, schema, snapshot):
        if is_state_selected(state, partition, bucket):
            message = compact_bucket_message(ctx, state, (full, False))
            if message is not None:
                messages.append(message)
    return messages


# --------------------------------------------------------------------------------------------
# Compaction after a write
# --------------------------------------------------------------------------------------------


def compute_write_rounds(schema: TableSchema) -> tuple[bool, ...]:
    """The compactions a batch write runs before it commits: the writer's normal pick, after
    a full compaction when ``full-compaction.delta-commits`` is due (``changelog`` rule 7; a
    batch commit always is)."""
    delta = cl.compute_full_compaction_delta_commits(schema)
    if delta is not None and cl.is_full_compaction_due(LONG_MAX, delta):
        return (True, False)
    return (False,)


def compact_after_write(
    file_io: FileIO,
    table_root: str,
    messages: Sequence[CommitMessage],
    *,
    overwrite: bool = False,
    naming: FileNaming | None = None,
) -> list[CommitMessage]:
    """The write ``messages`` with the compaction of each written bucket added, as Java's
    batch writer prepares its commit. An overwrite starts from empty buckets (Java ignores
    previous files). ``write-only`` tables are returned unchanged; append tables go to
    ``reference.store.append_compact``."""
    schema = metadata.read_latest_schema(file_io, table_root)
    job = create_job_context(file_io, table_root, schema, naming)
    if not schema.is_primary_key_table:
        append_ctx = create_rewrite_context(job)
        return compact_append_after_write(append_ctx, messages, overwrite=overwrite)
    if schema.core_options.write_only:
        return list(messages)
    ctx = create_compaction_context(job)
    snapshot = None if overwrite else metadata.read_latest_snapshot(file_io, table_root)
    base = read_bucket_state_map(file_io, table_root, schema, snapshot)
    rounds = compute_write_rounds(schema)

    def compactor(state: BucketState) -> tuple[CompactIncrement, IndexIncrement]:
        compaction = compact_bucket(ctx, state, rounds)
        index = compute_vector_increment(ctx, state, compaction)
        return compute_compact_increment(compaction.increment), index

    return compact_written_buckets(messages, base, schema, compactor)
