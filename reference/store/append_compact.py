"""Compaction of append tables: small files merged into larger ones, deletion vectors dropped.

Spec: ``docs/append-table/*`` ("Post small files merging", bucketed append), the seeds' append
table sections. Java (0.9.0): ``append/UnawareAppendTableCompactionCoordinator``,
``append/UnawareAppendCompactionTask``, ``append/BucketedAppendCompactManager``,
``append/AppendOnlyWriter``, ``operation/AppendOnlyFileStoreWrite.compactRewrite``,
``deletionvectors/append/{Unaware,Bucketed}AppendDeletionFileMaintainer``,
``CoreOptions.compactionFileSize``.

Options (rule 1):

1.  ``target-file-size`` T (append default 256 MB); the *compaction file size*
    ``T // 10 * 7``; ``compaction.min.file-num`` (5); ``compaction.max.file-num`` (fallback
    ``compaction.early-max.file-num``; default 50 for a bucket-unaware table, 5 for a
    fixed-bucket one); ``deletion-vectors.enabled``; ``write-only``.

Bucket-unaware tables (``bucket = -1``): a compaction job (Java's coordinator in batch mode,
run once by the Spark procedure and Flink's batch action):

2.  *Candidates.* Per partition, every live file smaller than the compaction file size, and
    with deletion vectors every file that has one.
3.  *Packing without deletion vectors.* The candidates sorted by file size (ties keep the
    snapshot's file order; Java sorts a hash set, whose order the format leaves open) go one
    by one into a bin; a bin is a task once its total size
    reaches T with at least ``min.file-num`` files, or once it holds ``max.file-num`` files.
    Files left in an unfinished bin are not compacted (Java's streaming coordinator compacts
    them after five idle scans; a batch job scans once).
4.  *Packing with deletion vectors.* Candidates with a vector are grouped by the index file
    that holds it; each group is a task (whatever its size). The others are packed by rule 3
    when there are at least two.
5.  *A task* rewrites its files (rule 9) into one partition's bucket 0 and commits them as a
    compaction: its files are ``compact_before``, the new files ``compact_after``. The deletion
    vectors of its files are removed (rule 11).

Fixed-bucket tables (``bucket = N``), per bucket, files in sequence-number order:

6.  *Automatic pick* (after each write of Java's batch writer, and an explicit non-full
    compaction): a window slides over the files; a file joins the window and the window is
    taken when its total size reaches T with at least ``min.file-num`` files, or it holds
    ``max.file-num`` files; when the total reaches T without enough files the oldest file
    leaves the window. No window taken: no compaction.
7.  *Full compaction* (asked for): nothing when there is no file, or fewer than three without
    deletion vectors. Leading files of size >= T without a vector are skipped. With deletion
    vectors the rest is rewritten; without, it is rewritten only when it holds more files
    smaller than T than larger ones and at least three files.
8.  A batch write (``compact_append_after_write``) of a fixed-bucket table, unless
    ``write-only``, picks by rule 6 among the bucket's files (none when overwriting) and its
    new files, and commits the result with the write (APPEND then COMPACT snapshot). A
    bucket-unaware writer never compacts.

Rewriting and deletion vectors:

9.  *Rewrite* (Java ``compactRewrite``): the files are read in task order, rows in file order,
    rows their vectors delete left out, every value moved to the current schema; the rows go
    to new level-0 files (file source COMPACT, current schema id, rolled at T, file index from
    the table's ``file-index.*`` options). Sequence numbers count on from the first input
    file's minimum sequence number.
10. *Fixed-bucket vectors*: a bucket keeps all its vectors in one index file; when they change
    the new set is written to a new ``index-<uuid>-<n>`` file (an empty file of the version
    byte when none is left) and the bucket's old index files are deleted.
11. *Bucket-unaware vectors* (Java ``UnawareAppendDeletionFileMaintainer``): each index file
    is touched when a data file whose vector it holds changes; a touched file is replaced by a
    new file holding its unchanged vectors (none when nothing is left) and deleted. New or
    grown vectors go together into one more new file. Index entries name bucket 0.

Buckets, their deletion vectors, the job context and the writing of index files are shared
with primary-key compaction and row-level changes (``reference.store.bucket_state``).

Differences from main (not followed): main's coordinator packs by ``target-file-size * 2``
with an open-file cost, compacts any leftover bin of ``min.file-num`` files, and joins files
with a high deleted-row ratio; index files are not rolled at
``deletion-vector.index-file.target-size`` here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from reference import layout
from reference.io import FileIO
from reference.spec.commit_message import CommitMessage, CompactIncrement, IndexIncrement
from reference.spec.data import Row
from reference.spec.data_file import (
    DataFileMeta,
    FileSource,
)
from reference.spec.deletion_vector import (
    BitmapKind,
)
from reference.spec.key_value import WRITE_LEVEL
from reference.spec.manifest import IndexFileMeta
from reference.spec.options import BUCKET_DYNAMIC
from reference.spec.schema import TableSchema
from reference.store import bucket_state as bs
from reference.store import metadata
from reference.store.bucket_assign import compute_total_buckets
from reference.store.file_index import compute_file_index_builder
from reference.store.file_writer import (
    FileIndexBuilder,
    MetaContext,
    write_append_files,
)
from reference.store.read import compute_value_mapper, read_file_rows
from reference.store.scan import compute_bucket_path
from reference.store.write import (
    FileNaming,
    NameCounters,
    WritePlan,
    compute_file_name,
    compute_write_plan,
)

DEFAULT_UNAWARE_MAX_FILE_NUM = 50
DEFAULT_BUCKETED_MAX_FILE_NUM = 5
FULL_COMPACT_MIN_FILE = 3
COMPACTION_SIZE_NUMERATOR = 7
COMPACTION_SIZE_DENOMINATOR = 10
MAX_FILE_NUM_OPTION = "compaction.max.file-num"
MIN_FILE_NUM_OPTION = "compaction.min.file-num"

# --------------------------------------------------------------------------------------------
# Options (rule 1)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AppendCompactionOptions:
    """The options append compaction reads, resolved once."""

    bucket_unaware: bool
    target_file_size: int
    compaction_file_size: int
    min_file_num: int
    max_file_num: int
    deletion_vectors: bool
    bitmap_kind: BitmapKind
    write_only: bool


def is_bucket_unaware(schema: TableSchema) -> bool:
    """An append table with ``bucket = -1`` (Java ``BucketMode.BUCKET_UNAWARE``)."""
    return not schema.is_primary_key_table and schema.num_buckets == BUCKET_DYNAMIC


def compute_compaction_file_size(target_file_size: int) -> int:
    """Files below this size join a compaction (Java ``CoreOptions.compactionFileSize``)."""
    return target_file_size // COMPACTION_SIZE_DENOMINATOR * COMPACTION_SIZE_NUMERATOR


def compute_append_compaction_options(schema: TableSchema) -> AppendCompactionOptions:
    """Rule 1 for an append table."""
    core = schema.core_options
    unaware = is_bucket_unaware(schema)
    target = core.target_file_size(False)
    max_file_num: int | None = core.get(MAX_FILE_NUM_OPTION)
    default_max = DEFAULT_UNAWARE_MAX_FILE_NUM if unaware else DEFAULT_BUCKETED_MAX_FILE_NUM
    return AppendCompactionOptions(
        bucket_unaware=unaware,
        target_file_size=target,
        compaction_file_size=compute_compaction_file_size(target),
        min_file_num=int(core.get(MIN_FILE_NUM_OPTION)),
        max_file_num=default_max if max_file_num is None else max_file_num,
        deletion_vectors=core.deletion_vectors_enabled,
        bitmap_kind=bs.compute_bitmap_kind(schema),
        write_only=core.write_only,
    )


# --------------------------------------------------------------------------------------------
# Buckets and their deletion vectors
# --------------------------------------------------------------------------------------------


def sort_by_sequence(files: Sequence[DataFileMeta]) -> list[DataFileMeta]:
    """Files by minimum sequence number (Java ``BucketedAppendCompactManager.fileComparator``)."""
    return sorted(files, key=lambda meta: meta.min_sequence_number)


# --------------------------------------------------------------------------------------------
# Picking in bucket-unaware tables (rules 2-4)
# --------------------------------------------------------------------------------------------


def is_unaware_candidate(
    meta: DataFileMeta, options: AppendCompactionOptions, vectors: bs.Vectors
) -> bool:
    """Rule 2."""
    if options.deletion_vectors and meta.file_name in vectors:
        return True
    return meta.file_size < options.compaction_file_size


def is_bin_ready(total_size: int, file_count: int, options: AppendCompactionOptions) -> bool:
    """Rule 3's (and rule 6's) condition on a set of files."""
    enough_size = total_size >= options.target_file_size and file_count >= options.min_file_num
    return enough_size or file_count >= options.max_file_num


def pack_small_files(
    files: Sequence[DataFileMeta], options: AppendCompactionOptions
) -> list[list[DataFileMeta]]:
    """Rule 3: the tasks of a set of candidates."""
    ordered = sorted(files, key=lambda meta: meta.file_size)
    tasks: list[list[DataFileMeta]] = []
    current: list[DataFileMeta] = []
    for meta in ordered:
        current.append(meta)
        if is_bin_ready(sum(f.file_size for f in current), len(current), options):
            tasks.append(current)
            current = []
    return tasks


def pack_unaware_partition(
    bucket: bs.BucketState, options: AppendCompactionOptions
) -> list[list[DataFileMeta]]:
    """Rules 2-4 for one partition of a bucket-unaware table."""
    candidates = [m for m in bucket.files if is_unaware_candidate(m, options, bucket.vectors)]
    if not options.deletion_vectors:
        return pack_small_files(candidates, options)
    groups: dict[str, list[DataFileMeta]] = {}
    rest: list[DataFileMeta] = []
    for meta in candidates:
        owner = bs.find_vector_file(bucket, meta.file_name)
        if owner is None:
            rest.append(meta)
        else:
            groups.setdefault(owner.file_name, []).append(meta)
    tasks = [groups[name] for name in sorted(groups)]
    if len(rest) > 1:
        tasks += pack_small_files(rest, options)
    return tasks


# --------------------------------------------------------------------------------------------
# Picking in fixed-bucket tables (rules 6-7)
# --------------------------------------------------------------------------------------------


def pick_bucketed_files(
    files: Sequence[DataFileMeta], options: AppendCompactionOptions
) -> list[DataFileMeta] | None:
    """Rule 6 (Java ``BucketedAppendCompactManager.pickCompactBefore``)."""
    window: list[DataFileMeta] = []
    for meta in sort_by_sequence(files):
        window.append(meta)
        total = sum(f.file_size for f in window)
        if is_bin_ready(total, len(window), options):
            return window
        if total >= options.target_file_size:
            window = window[1:]
    return None


def pick_bucketed_full(
    files: Sequence[DataFileMeta], options: AppendCompactionOptions, vectors: bs.Vectors
) -> list[DataFileMeta] | None:
    """Rule 7 (Java ``BucketedAppendCompactManager.FullCompactTask``)."""
    if not files or (not options.deletion_vectors and len(files) < FULL_COMPACT_MIN_FILE):
        return None
    ordered = sort_by_sequence(files)
    target = options.target_file_size
    while ordered and ordered[0].file_size >= target and ordered[0].file_name not in vectors:
        ordered = ordered[1:]
    if options.deletion_vectors:
        return ordered or None
    small = sum(1 for meta in ordered if meta.file_size < target)
    big = len(ordered) - small
    if small > big and len(ordered) >= FULL_COMPACT_MIN_FILE:
        return ordered
    return None


# --------------------------------------------------------------------------------------------
# The context of one compaction job
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RewriteContext:
    """What rewriting files of one table needs: the job (storage, schemas, one naming), the
    options, and the current schema's write plan and file index."""

    job: bs.JobContext
    options: AppendCompactionOptions
    plan: WritePlan
    file_index: FileIndexBuilder | None


def create_rewrite_context(job: bs.JobContext) -> RewriteContext:
    schema = job.schema
    return RewriteContext(
        job=job,
        options=compute_append_compaction_options(schema),
        plan=compute_write_plan(schema),
        file_index=compute_file_index_builder(schema.options, schema.fields),
    )


def compute_directory(ctx: RewriteContext, bucket: bs.BucketState) -> str:
    return compute_bucket_path(ctx.job.table_root, ctx.job.schema, bucket.partition, bucket.bucket)


# --------------------------------------------------------------------------------------------
# Rewriting (rule 9)
# --------------------------------------------------------------------------------------------


EMPTY: frozenset[int] = frozenset()
"""No deleted positions."""


def read_visible_rows(
    ctx: RewriteContext, directory: str, meta: DataFileMeta, deleted: frozenset[int]
) -> list[tuple[int, Row]]:
    """The rows of one data file its vector keeps, with their positions, in the current
    schema's fields."""
    file_schema = ctx.job.schemas[meta.schema_id]
    path = layout.data_file_path(directory, meta.file_name, meta.external_path)
    rows = read_file_rows(ctx.job.file_io, path, file_schema.fields)
    mapper = compute_value_mapper(file_schema.fields, ctx.job.schema.fields)
    return [(i, mapper(row)) for i, row in enumerate(rows) if i not in deleted]


def write_rewritten_rows(
    ctx: RewriteContext, directory: str, rows: Sequence[Row], first_sequence: int
) -> list[DataFileMeta]:
    """Rows to new level-0 COMPACT files of the current schema."""
    if not rows:
        return []
    return write_append_files(
        ctx.job.file_io,
        directory,
        rows,
        settings=ctx.plan.data.settings,
        first_sequence=first_sequence,
        context=MetaContext(
            ctx.job.schema.id, WRITE_LEVEL, FileSource.COMPACT, ctx.job.creation_time
        ),
        names=lambda: compute_file_name(ctx.plan.data, ctx.job.naming, ctx.job.counters),
        file_index=ctx.file_index,
        file_index_threshold=ctx.plan.file_index_threshold,
    )


def rewrite_files(
    ctx: RewriteContext, bucket: bs.BucketState, files: Sequence[DataFileMeta]
) -> list[DataFileMeta]:
    """Rule 9: the files' visible rows, in task order, to new files."""
    if not files:
        return []
    directory = compute_directory(ctx, bucket)
    vectors = bucket.vectors
    rows = [
        row
        for meta in files
        for _, row in read_visible_rows(ctx, directory, meta, vectors.get(meta.file_name, EMPTY))
    ]
    return write_rewritten_rows(ctx, directory, rows, files[0].min_sequence_number)


# --------------------------------------------------------------------------------------------
# Deletion-vector index files (rules 10-11; shared with ``reference.store.dml``)
# --------------------------------------------------------------------------------------------


IndexWriter = Callable[[bs.Vectors], IndexFileMeta]
"""Writes a set of vectors as one new index file (the job's naming and bitmap kind bound)."""


def create_index_writer(
    file_io: FileIO, table_root: str, kind: BitmapKind, naming: FileNaming, counters: NameCounters
) -> IndexWriter:
    def write(vectors: bs.Vectors) -> IndexFileMeta:
        name = bs.compute_index_file_name(naming, counters)
        return bs.write_vector_index(file_io, table_root, vectors, kind, name)

    return write


def compute_bucketed_vector_increment(
    bucket: bs.BucketState,
    changed: Mapping[str, frozenset[int] | None],
    write: IndexWriter,
) -> IndexIncrement:
    """Rule 10: ``changed`` maps data files to their new vector (``None``: removed)."""
    before = bucket.vectors
    after = dict(before)
    for name, positions in changed.items():
        if positions:
            after[name] = positions
        else:
            after.pop(name, None)
    if after == before:
        return IndexIncrement()
    deleted = bucket.vector_files
    return IndexIncrement(new_index_files=(write(after),), deleted_index_files=deleted)


def compute_unaware_vector_increment(
    bucket: bs.BucketState,
    changed: Mapping[str, frozenset[int] | None],
    write: IndexWriter,
) -> IndexIncrement:
    """Rule 11: ``changed`` maps data files to their new vector (``None``: removed)."""
    new_files: list[IndexFileMeta] = []
    deleted: list[IndexFileMeta] = []
    for vector_file in bucket.vector_files:
        owners = bs.compute_vector_owners(vector_file)
        if owners.isdisjoint(changed):
            continue
        unchanged = {n: bucket.vectors[n] for n in sorted(owners) if n not in changed}
        if unchanged:
            new_files.append(write(unchanged))
        deleted.append(vector_file)
    grown = {name: positions for name, positions in changed.items() if positions}
    if grown:
        new_files.append(write(grown))
    return IndexIncrement(tuple(new_files), tuple(deleted))


def compute_vector_increment(
    options: AppendCompactionOptions,
    bucket: bs.BucketState,
    changed: Mapping[str, frozenset[int] | None],
    write: IndexWriter,
) -> IndexIncrement:
    """Rule 10 or 11, by the table's bucket mode."""
    if options.bucket_unaware:
        return compute_unaware_vector_increment(bucket, changed, write)
    return compute_bucketed_vector_increment(bucket, changed, write)


# --------------------------------------------------------------------------------------------
# Tasks and commit messages (rules 5, 9-11)
# --------------------------------------------------------------------------------------------


def create_context_index_writer(ctx: RewriteContext) -> IndexWriter:
    return create_index_writer(
        ctx.job.file_io,
        ctx.job.table_root,
        ctx.options.bitmap_kind,
        ctx.job.naming,
        ctx.job.counters,
    )


def compute_removed_vectors(
    bucket: bs.BucketState, files: Sequence[DataFileMeta]
) -> dict[str, frozenset[int] | None]:
    """The vectors a compaction of ``files`` removes."""
    vectors = bucket.vectors
    return {meta.file_name: None for meta in files if meta.file_name in vectors}


def run_compaction_task(
    ctx: RewriteContext, bucket: bs.BucketState, files: Sequence[DataFileMeta]
) -> tuple[CompactIncrement, IndexIncrement]:
    """Rewrite ``files`` of ``bucket`` and drop their deletion vectors."""
    after = rewrite_files(ctx, bucket, files)
    index = IndexIncrement()
    if ctx.options.deletion_vectors:
        removed = compute_removed_vectors(bucket, files)
        writer = create_context_index_writer(ctx)
        index = compute_vector_increment(ctx.options, bucket, removed, writer)
    return CompactIncrement(compact_before=tuple(files), compact_after=tuple(after)), index


def compact_task_message(
    ctx: RewriteContext, bucket: bs.BucketState, files: Sequence[DataFileMeta]
) -> CommitMessage:
    compaction, index = run_compaction_task(ctx, bucket, files)
    return CommitMessage(
        bucket.partition_bytes,
        bucket.bucket,
        compute_total_buckets(ctx.job.schema),
        compaction=compaction,
        index=index,
    )


def pick_bucket_files(
    ctx: RewriteContext, bucket: bs.BucketState, full: bool
) -> list[DataFileMeta] | None:
    """Rule 7 when ``full``, else rule 6."""
    if full:
        return pick_bucketed_full(bucket.files, ctx.options, bucket.vectors)
    return pick_bucketed_files(bucket.files, ctx.options)


def compact_append_table(
    ctx: RewriteContext,
    *,
    full: bool = False,
    partition: Row | None = None,
    bucket: int | None = None,
) -> list[CommitMessage]:
    """A compaction job over the latest snapshot of an append table (those of ``partition``
    / ``bucket`` when given): rules 2-5 for bucket-unaware tables (``full`` changes nothing
    there), 6 or 7 per bucket for fixed-bucket tables. Returns the messages to commit."""
    job = ctx.job
    snapshot = metadata.read_latest_snapshot(job.file_io, job.table_root)
    messages = []
    for state in bs.read_bucket_states(job.file_io, job.table_root, job.schema, snapshot):
        if not bs.is_state_selected(state, partition, bucket):
            continue
        if ctx.options.bucket_unaware:
            tasks = pack_unaware_partition(state, ctx.options)
        else:
            picked = pick_bucket_files(ctx, state, full)
            tasks = [] if picked is None else [picked]
        messages += [compact_task_message(ctx, state, task) for task in tasks]
    return messages


def compact_append_after_write(
    ctx: RewriteContext, messages: Sequence[CommitMessage], *, overwrite: bool = False
) -> list[CommitMessage]:
    """Rule 8: the write ``messages`` with each written bucket's automatic compaction added
    (fixed-bucket tables that are not ``write-only``; others are returned unchanged)."""
    if ctx.options.bucket_unaware or ctx.options.write_only:
        return list(messages)
    job = ctx.job
    snapshot = None if overwrite else metadata.read_latest_snapshot(job.file_io, job.table_root)
    base = bs.read_bucket_state_map(job.file_io, job.table_root, job.schema, snapshot)

    def compactor(
        state: bs.BucketState,
    ) -> tuple[CompactIncrement, IndexIncrement] | None:
        picked = pick_bucketed_files(state.files, ctx.options)
        return None if picked is None else run_compaction_task(ctx, state, picked)

    return bs.compact_written_buckets(messages, base, job.schema, compactor)
