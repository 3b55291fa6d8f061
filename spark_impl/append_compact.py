"""Compaction of append tables in spark_impl: small files packed into tasks on the driver,
each task rewritten on an executor with Arrow, deletion vectors of rewritten files dropped.

The rules are ``reference/store/append_compact.py`` (which cites Java 0.9's
``UnawareAppendTableCompactionCoordinator``, ``BucketedAppendCompactManager`` and
``AppendOnlyFileStoreWrite.compactRewrite``); this is an independent implementation:

* *Options.* ``target-file-size`` T (append default), files below ``T // 10 * 7`` are small,
  ``compaction.min.file-num``, ``compaction.max.file-num`` (50 bucket-unaware, 5 fixed-bucket
  by default), ``deletion-vectors.enabled``, ``write-only``.
* *Bucket-unaware tables* (one job, per partition): the small files, and with deletion vectors
  every file that has one, are the candidates. Files with a vector form one task per index file
  holding their vectors; the others (at least two) are stably sorted by size (the snapshot's
  file order breaks ties) and cut into bins, a bin being a task once it reaches T with
  ``min.file-num`` files or holds ``max.file-num`` files; an unfinished bin is left alone.
* *Fixed-bucket tables* (per bucket, files by minimum sequence number): a window of files is
  taken when it reaches T with ``min.file-num`` files or holds ``max.file-num``, its oldest
  file leaving when it reaches T without enough files. A full compaction skips leading files
  of at least T without a vector and rewrites the rest when deletion vectors are on, else when
  at least three files remain and small ones outnumber large ones. A batch write of a table
  that is not ``write-only`` runs the window pick on each written bucket (its base files, then
  the new ones) and commits the result with the write.
* *A task* reads its files in order, leaves out rows their vectors delete, moves every value to
  the current schema, and writes level-0 files of source COMPACT, numbered on from the first
  file's minimum sequence number and rolled at T.
* *Vectors.* A fixed bucket whose vectors change gets one new index file (possibly holding no
  vector) replacing all of its old ones; in a bucket-unaware table each index file holding a
  rewritten file's vector is replaced by one with its other vectors (none when nothing is left).
* *File indexes.* Every rewritten file gets the index the table's ``file-index.*`` options ask
  for, as a written file does (:mod:`spark_impl.file_index`, through the level plan's settings).
"""

from __future__ import annotations

import functools
import itertools
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from reference import layout
from reference.io import FileIO
from reference.spec import data_file
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.commit_message import CommitMessage, CompactIncrement, IndexIncrement
from reference.spec.data import Timestamp
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.deletion_vector import (
    BitmapKind,
    build_deletion_vector,
    encode_deletion_vector_file,
)
from reference.spec.manifest import (
    DELETION_VECTORS_INDEX_TYPE as DELETION_VECTORS_INDEX,
)
from reference.spec.manifest import (
    DeletionVectorMeta,
    FileKind,
    IndexFileMeta,
)
from reference.spec.options import option_value
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import Snapshot
from spark_impl.compact import BucketFiles, read_vectors
from spark_impl.file_index import compute_file_index_plan
from spark_impl.file_writer import MetaContext, compute_creation_time, write_append_files
from spark_impl.kv_layout import compute_level_plans
from spark_impl.metadata import (
    read_index_entries,
    read_latest_schema,
    read_latest_snapshot,
    read_live_entries,
    read_schema_json,
)
from spark_impl.plan import compute_bucket_dir
from spark_impl.read import apply_deletions
from spark_impl.read_files import evolve_columns, read_data_file

UNAWARE_BUCKET_OPTION = -1
"""``bucket = -1`` on an append table: bucket-unaware."""
UNAWARE_MAX_FILES = 50
BUCKETED_MAX_FILES = 5
FULL_MIN_FILES = 3
SMALL_NUMERATOR, SMALL_DENOMINATOR = 7, 10
OUTPUT_LEVEL = 0

# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AppendOptions:
    unaware: bool
    """``bucket = -1``."""
    target: int
    small: int
    """Files below this size are compaction candidates."""
    min_files: int
    max_files: int
    vectors: bool
    bitmap64: bool
    write_only: bool


def append_options(schema: TableSchema) -> AppendOptions:
    core = schema.core_options
    unaware = core.bucket == UNAWARE_BUCKET_OPTION
    target = core.target_file_size(False)
    configured = core.get("compaction.max.file-num")
    return AppendOptions(
        unaware=unaware,
        target=target,
        small=target // SMALL_DENOMINATOR * SMALL_NUMERATOR,
        min_files=int(core.get("compaction.min.file-num")),
        max_files=(UNAWARE_MAX_FILES if unaware else BUCKETED_MAX_FILES)
        if configured is None
        else int(configured),
        vectors=core.deletion_vectors_enabled,
        bitmap64=bool(option_value(schema.options, "deletion-vectors.bitmap64")),
        write_only=core.write_only,
    )


def is_compacted_after_append(schema: TableSchema) -> bool:
    """A fixed-bucket append table that is not ``write-only``: its writer compacts."""
    options = append_options(schema)
    return not options.unaware and not options.write_only


# --------------------------------------------------------------------------------------------
# Picking (driver side; sizes only)
# --------------------------------------------------------------------------------------------


def is_full(total: int, count: int, options: AppendOptions) -> bool:
    return (total >= options.target and count >= options.min_files) or count >= options.max_files


def pack_bins(files: Sequence[DataFileMeta], options: AppendOptions) -> list[list[DataFileMeta]]:
    """Smallest first (stable), cut into full bins; the last unfinished bin is dropped."""
    sizes = np.array([f.file_size for f in files], dtype=np.int64)
    order = np.argsort(sizes, kind="stable")
    bins: list[list[DataFileMeta]] = []
    start, total = 0, 0
    for end, index in enumerate(order.tolist(), 1):
        total += int(sizes[index])
        if is_full(total, end - start, options):
            bins.append([files[i] for i in order[start:end].tolist()])
            start, total = end, 0
    return bins


def pack_unaware(
    files: Sequence[DataFileMeta], owners: Mapping[str, str], options: AppendOptions
) -> list[list[DataFileMeta]]:
    """The tasks of one partition of a bucket-unaware table; ``owners`` maps a data file with
    a deletion vector to the index file holding it."""
    with_vector: dict[str, list[DataFileMeta]] = {}
    plain: list[DataFileMeta] = []
    for meta in files:
        owner = owners.get(meta.file_name) if options.vectors else None
        if owner is not None:
            with_vector.setdefault(owner, []).append(meta)
        elif meta.file_size < options.small:
            plain.append(meta)
    tasks = [with_vector[name] for name in sorted(with_vector)]
    if not options.vectors or len(plain) > 1:
        tasks += pack_bins(plain, options)
    return tasks


def by_sequence(files: Sequence[DataFileMeta]) -> list[DataFileMeta]:
    return sorted(files, key=lambda meta: meta.min_sequence_number)


def pick_window(files: Sequence[DataFileMeta], options: AppendOptions) -> list[DataFileMeta] | None:
    """The automatic pick of a fixed bucket."""
    ordered = by_sequence(files)
    start, total = 0, 0
    for end, meta in enumerate(ordered, 1):
        total += meta.file_size
        if is_full(total, end - start, options):
            return ordered[start:end]
        if total >= options.target:
            total -= ordered[start].file_size
            start += 1
    return None


def pick_full(
    files: Sequence[DataFileMeta], owners: Mapping[str, str], options: AppendOptions
) -> list[DataFileMeta] | None:
    """The full compaction of a fixed bucket."""
    if not files or (not options.vectors and len(files) < FULL_MIN_FILES):
        return None
    ordered = by_sequence(files)
    skip = 0
    while (
        skip < len(ordered)
        and ordered[skip].file_size >= options.target
        and ordered[skip].file_name not in owners
    ):
        skip += 1
    rest = ordered[skip:]
    if options.vectors:
        return rest or None
    small = sum(meta.file_size < options.target for meta in rest)
    if small > len(rest) - small and len(rest) >= FULL_MIN_FILES:
        return rest
    return None


# --------------------------------------------------------------------------------------------
# A task (executor side)
# --------------------------------------------------------------------------------------------


AppendTask = BucketFiles
"""One task: the files to rewrite, in order, with their bucket's vector index files (all of
a fixed bucket's; in a bucket-unaware table those holding the files' vectors)."""


@dataclass
class TaskContext:
    file_io: FileIO
    task: AppendTask
    schema: TableSchema
    options: AppendOptions
    directory: str
    writer_uuid: str = field(default_factory=lambda: str(uuid.uuid4()))
    counter: itertools.count[int] = field(default_factory=itertools.count)
    creation_time: Timestamp = field(default_factory=compute_creation_time)

    def next_index_name(self) -> str:
        return data_file.compute_meta_file_name(
            data_file.MetaFileKind.INDEX, self.writer_uuid, next(self.counter)
        )


def read_visible(ctx: TaskContext, vectors: Mapping[str, np.ndarray]) -> pa.Table:
    """The task's rows in file order, deleted rows left out, in the current schema."""
    schemas = {i: decode_schema(j) for i, j in ctx.task.file_schema_jsons.items()}
    names = [f.name for f in ctx.schema.fields]
    parts = []
    for meta in ctx.task.files:
        fields = schemas[meta.schema_id].fields
        path = layout.data_file_path(ctx.directory, meta.file_name, meta.external_path)
        raw = read_data_file(ctx.file_io, path, fields)
        deleted = vectors.get(meta.file_name)
        if deleted is not None and len(deleted):
            raw = apply_deletions(raw, deleted)
        parts.append(pa.Table.from_arrays(evolve_columns(raw, fields, ctx.schema.fields), names))
    return pa.concat_tables(parts).combine_chunks()


def rewrite(ctx: TaskContext, rows: pa.Table) -> list[DataFileMeta]:
    if rows.num_rows == 0:
        return []
    plan, _ = compute_level_plans(ctx.schema, OUTPUT_LEVEL)
    return write_append_files(
        ctx.file_io,
        ctx.directory,
        rows,
        settings=plan.settings,
        first_sequence=ctx.task.files[0].min_sequence_number,
        context=MetaContext(ctx.schema.id, OUTPUT_LEVEL, FileSource.COMPACT, ctx.creation_time),
        names=lambda: data_file.compute_data_file_name(
            plan.prefix, ctx.writer_uuid, next(ctx.counter), plan.extension
        ),
    )


def write_vector_file(
    file_io: FileIO, table_root: str, name: str, vectors: Mapping[str, np.ndarray], bitmap64: bool
) -> IndexFileMeta:
    """Deletion vectors (data file name -> deleted positions) as one index file ``name``."""
    kind = BitmapKind.BITMAP64 if bitmap64 else BitmapKind.BITMAP32
    encoded = {
        data_file_name: build_deletion_vector(np.unique(positions).tolist(), kind)
        for data_file_name, positions in sorted(vectors.items())
    }
    data, ranges = encode_deletion_vector_file(encoded)
    file_io.write_bytes(layout.index_file_path(table_root, name), data)
    metas = tuple(DeletionVectorMeta(r.data_file_name, r.offset, r.length) for r in ranges)
    return IndexFileMeta(DELETION_VECTORS_INDEX, name, len(data), len(metas), metas)


def write_index(ctx: TaskContext, vectors: Mapping[str, np.ndarray]) -> IndexFileMeta:
    name = ctx.next_index_name()
    return write_vector_file(ctx.file_io, ctx.task.table_root, name, vectors, ctx.options.bitmap64)


def owned_names(index_file: IndexFileMeta) -> set[str]:
    return {dv.data_file_name for dv in index_file.dv_ranges or ()}


VectorChanges = Mapping[str, "np.ndarray | None"]
"""Data file name -> its new deleted positions (``None``: its vector is dropped)."""


def change_vectors(
    write: Callable[[Mapping[str, np.ndarray]], IndexFileMeta],
    unaware: bool,
    vector_files: Sequence[IndexFileMeta],
    vectors: Mapping[str, np.ndarray],
    changed: VectorChanges,
) -> IndexIncrement:
    """The index files after ``changed``: a fixed bucket's vectors all go to one new file
    replacing its old ones; in a bucket-unaware table each index file holding a changed
    file's vector is replaced by one with its other vectors (none when nothing is left), and
    the new vectors go to one more file."""
    if not changed:
        return IndexIncrement()
    if not unaware:
        kept = {n: v for n, v in vectors.items() if n not in changed}
        kept.update({n: v for n, v in changed.items() if v is not None})
        return IndexIncrement((write(kept),), tuple(vector_files))
    new_files, deleted = [], []
    for index_file in vector_files:
        owned = owned_names(index_file)
        if owned.isdisjoint(changed):
            continue
        kept = {n: vectors[n] for n in sorted(owned - set(changed)) if n in vectors}
        if kept:
            new_files.append(write(kept))
        deleted.append(index_file)
    grown = {n: v for n, v in changed.items() if v is not None}
    if grown:
        new_files.append(write(grown))
    return IndexIncrement(tuple(new_files), tuple(deleted))


def run_task(file_io: FileIO, task: AppendTask) -> tuple[CompactIncrement, IndexIncrement]:
    """Rewrite the task's files; the compaction and the index change."""
    schema = decode_schema(task.schema_json)
    ctx = TaskContext(
        file_io=file_io,
        task=task,
        schema=schema,
        options=append_options(schema),
        directory=compute_bucket_dir(task.table_root, schema, task.partition, task.bucket),
    )
    vectors = read_vectors(file_io, task.table_root, task.vector_files)
    after = rewrite(ctx, read_visible(ctx, vectors))
    dropped: VectorChanges = {m.file_name: None for m in task.files if m.file_name in vectors}
    index = IndexIncrement()
    if ctx.options.vectors:
        writer = functools.partial(write_index, ctx)
        index = change_vectors(writer, ctx.options.unaware, task.vector_files, vectors, dropped)
    return CompactIncrement(task.files, tuple(after)), index


def run_task_message(file_io: FileIO, task: AppendTask) -> CommitMessage:
    compaction, index = run_task(file_io, task)
    return CommitMessage(
        task.partition_bytes, task.bucket, task.total_buckets, compaction=compaction, index=index
    )


# --------------------------------------------------------------------------------------------
# Planning a compaction job (driver side)
# --------------------------------------------------------------------------------------------


def compute_owners(index_files: Sequence[IndexFileMeta]) -> dict[str, str]:
    return {name: f.file_name for f in index_files for name in owned_names(f)}


BucketKey = tuple[bytes, int]


def read_buckets(
    file_io: FileIO, table_root: str, snapshot: Snapshot | None
) -> tuple[
    dict[BucketKey, list[DataFileMeta]], dict[BucketKey, int], dict[BucketKey, list[IndexFileMeta]]
]:
    """Per (partition, bucket) of ``snapshot``: the live files in snapshot order, the total
    bucket count, the deletion-vector index files."""
    files: dict[BucketKey, list[DataFileMeta]] = {}
    total_buckets: dict[BucketKey, int] = {}
    for entry in read_live_entries(file_io, table_root, snapshot):
        files.setdefault((entry.partition, entry.bucket), []).append(entry.file)
        total_buckets[entry.partition, entry.bucket] = entry.total_buckets
    vector_files: dict[BucketKey, list[IndexFileMeta]] = {}
    for index_entry in read_index_entries(file_io, table_root, snapshot):
        index_file = index_entry.index_file
        if index_entry.kind is FileKind.ADD and index_file.index_type == DELETION_VECTORS_INDEX:
            key = (index_entry.partition, index_entry.bucket)
            vector_files.setdefault(key, []).append(index_file)
    return files, total_buckets, vector_files


def plan_append_tasks(file_io: FileIO, table_root: str, *, full: bool) -> list[AppendTask]:
    """The tasks a compaction of the latest snapshot runs (``full`` matters for fixed buckets)."""
    table_root = table_root.rstrip("/")
    schema = read_latest_schema(file_io, table_root)
    options = append_options(schema)
    compute_file_index_plan(schema)  # wrong file-index options fail here, not in a task
    latest = read_latest_snapshot(file_io, table_root)
    grouped, total_buckets, vector_files = read_buckets(file_io, table_root, latest)
    schema_ids = {f.schema_id for files in grouped.values() for f in files} | {schema.id}
    jsons = {i: read_schema_json(file_io, table_root, i) for i in schema_ids}
    partition_types = [f.type for f in schema.partition_type.fields]
    tasks = []
    for key, files in grouped.items():
        index_files = tuple(vector_files.get(key, ()))
        owners = compute_owners(index_files)
        if options.unaware:
            picked = pack_unaware(files, owners, options)
        else:
            one = pick_full(files, owners, options) if full else pick_window(files, options)
            picked = [] if one is None else [one]
        partition_bytes, bucket = key
        partition = tuple(deserialize_binary_row(partition_bytes, partition_types))
        tasks += [
            AppendTask(
                table_root,
                jsons[schema.id],
                jsons,
                partition,
                partition_bytes,
                bucket,
                total_buckets[key],
                tuple(chosen),
                tuple(f for f in index_files if owned_names(f) & {m.file_name for m in chosen})
                if options.unaware
                else index_files,
            )
            for chosen in picked
        ]
    return tasks
