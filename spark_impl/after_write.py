"""The compaction a writer runs after its flush, added to the write's commit messages: the one
entry point, :func:`compact_after_write`, for the tasks (from the base snapshot's files the
driver shipped in the write plan) and for the driver (reading that base itself).

Java's writers pick a compaction after each flush of a primary-key or fixed-bucket append
table that is not ``write-only``, and the batch commit waits for it (Java
``MergeTreeWriter.prepareCommit`` with ``waitCompaction``, ``AppendOnlyWriter``;
``TableWriteImpl.prepareCommit``): primary-key buckets run the LSM compaction of
:mod:`spark_impl.compact` (universal picking, full rounds under ``full-compaction``
changelog), fixed-bucket append buckets the window picking of
:mod:`spark_impl.append_compact`. The write's data increment is kept; the compaction and its
index change are merged into the message here, in one place (:func:`with_compaction`).

Data flows one way: :mod:`spark_impl.write` calls this module, which calls the two
compactions; neither compaction imports the writer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from reference.io import FileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.bucket import DYNAMIC_BUCKET
from reference.spec.commit_message import CommitMessage, DataIncrement, IndexIncrement
from reference.spec.data_file import DataFileMeta
from reference.spec.manifest import (
    DELETION_VECTORS_INDEX_TYPE,
    FileKind,
    IndexFileMeta,
    IndexManifestEntry,
    ManifestEntry,
)
from reference.spec.schema import TableSchema, decode_schema
from spark_impl import append_compact
from spark_impl.compact import BucketJob, compact_bucket, compaction_options
from spark_impl.metadata import (
    read_index_entries,
    read_latest_schema,
    read_latest_snapshot,
    read_live_entries,
    read_schema_json,
)

BucketKey = tuple[bytes, int]


@dataclass(frozen=True)
class BaseFiles:
    """What a write's compaction starts from: the schema the write plans with, the live data
    files and deletion-vector index files of every bucket of the base snapshot (none for an
    overwrite), and the JSON of every schema those files were written with."""

    schema_json: str
    files: Mapping[BucketKey, tuple[DataFileMeta, ...]]
    vector_files: Mapping[BucketKey, tuple[IndexFileMeta, ...]]
    schema_jsons: Mapping[int, str]

    @property
    def schema(self) -> TableSchema:
        return decode_schema(self.schema_json)


def is_compacted_after_write(schema: TableSchema) -> bool:
    """Java's writers pick a compaction after each flush of a primary-key or fixed-bucket
    append table (not ``write-only``) and its batch commit waits for it."""
    if schema.core_options.write_only:
        return False
    return schema.is_primary_key_table or schema.core_options.bucket != DYNAMIC_BUCKET


def compute_base_files(
    file_io: FileIO,
    table_root: str,
    schema: TableSchema,
    live: Sequence[ManifestEntry],
    index_entries: Sequence[IndexManifestEntry],
) -> BaseFiles:
    """The :class:`BaseFiles` of a snapshot's ``live`` data entries and its index entries."""
    files: dict[BucketKey, tuple[DataFileMeta, ...]] = {}
    for entry in live:
        key = (entry.partition, entry.bucket)
        files[key] = (*files.get(key, ()), entry.file)
    vectors: dict[BucketKey, tuple[IndexFileMeta, ...]] = {}
    for index_entry in index_entries:
        index_file = index_entry.index_file
        if (
            index_entry.kind is FileKind.ADD
            and index_file.index_type == DELETION_VECTORS_INDEX_TYPE
        ):
            key = (index_entry.partition, index_entry.bucket)
            vectors[key] = (*vectors.get(key, ()), index_file)
    schema_ids = {f.schema_id for group in files.values() for f in group} | {schema.id}
    jsons = {i: read_schema_json(file_io, table_root, i) for i in schema_ids}
    return BaseFiles(jsons[schema.id], files, vectors, jsons)


def read_base_files(
    file_io: FileIO, table_root: str, schema: TableSchema, *, overwrite: bool
) -> BaseFiles:
    """The :class:`BaseFiles` of ``schema`` and the latest snapshot (an overwrite: no files)."""
    latest = None if overwrite else read_latest_snapshot(file_io, table_root)
    live = read_live_entries(file_io, table_root, latest)
    index_entries = read_index_entries(file_io, table_root, latest)
    return compute_base_files(file_io, table_root, schema, live, index_entries)


def merge_bucket_messages(messages: Sequence[CommitMessage]) -> list[CommitMessage]:
    """One message per (partition, bucket): several tasks may have written one bucket."""
    merged: dict[BucketKey, CommitMessage] = {}
    for message in messages:
        key = (message.partition, message.bucket)
        found = merged.get(key)
        merged[key] = (
            message
            if found is None
            else replace(
                found,
                data=DataIncrement(
                    found.data.new_files + message.data.new_files,
                    found.data.deleted_files + message.data.deleted_files,
                    found.data.changelog_files + message.data.changelog_files,
                ),
                index=merge_index(found.index, message.index),
            )
        )
    return list(merged.values())


def merge_index(first: IndexIncrement, second: IndexIncrement) -> IndexIncrement:
    """Two index increments of one bucket as one (``first``'s files first)."""
    return IndexIncrement(
        first.new_index_files + second.new_index_files,
        first.deleted_index_files + second.deleted_index_files,
    )


def with_compaction(message: CommitMessage, compacted: CommitMessage | None) -> CommitMessage:
    """The write ``message`` with its bucket's compaction (``None``: nothing was picked)."""
    if compacted is None:
        return message
    return replace(
        message,
        compaction=compacted.compaction,
        index=merge_index(message.index, compacted.index),
    )


def compact_key_value_bucket(
    file_io: FileIO, table_root: str, base: BaseFiles, message: CommitMessage
) -> CommitMessage | None:
    """The LSM compaction of a primary-key bucket over its base files and the new ones."""
    schema = base.schema
    key = (message.partition, message.bucket)
    partition_types = [f.type for f in schema.partition_type.fields]
    job = BucketJob(
        table_root=table_root,
        schema_json=base.schema_json,
        file_schema_jsons={**base.schema_jsons, schema.id: base.schema_json},
        partition=tuple(deserialize_binary_row(message.partition, partition_types)),
        partition_bytes=message.partition,
        bucket=message.bucket,
        total_buckets=message.total_buckets,
        files=base.files.get(key, ()) + message.data.new_files,
        vector_files=base.vector_files.get(key, ()),
        rounds=(True, False) if compaction_options(schema).full_rounds else (False,),
    )
    return compact_bucket(file_io, job)


def compact_append_bucket(
    file_io: FileIO, table_root: str, base: BaseFiles, message: CommitMessage
) -> CommitMessage | None:
    """The window compaction of a fixed-bucket append bucket (Java
    ``BucketedAppendCompactManager``) over its base files and the new ones."""
    schema = base.schema
    key = (message.partition, message.bucket)
    files = [*base.files.get(key, ()), *message.data.new_files]
    picked = append_compact.pick_window(files, append_compact.append_options(schema))
    if picked is None:
        return None
    partition_types = [f.type for f in schema.partition_type.fields]
    task = append_compact.AppendTask(
        table_root,
        base.schema_json,
        {**base.schema_jsons, schema.id: base.schema_json},
        tuple(deserialize_binary_row(message.partition, partition_types)),
        message.partition,
        message.bucket,
        message.total_buckets,
        tuple(picked),
        base.vector_files.get(key, ()),
    )
    return append_compact.run_task_message(file_io, task)


def compact_after_write(
    file_io: FileIO,
    table_root: str,
    messages: Sequence[CommitMessage],
    *,
    overwrite: bool,
    base: BaseFiles | None = None,
) -> list[CommitMessage]:
    """The write ``messages`` (merged to one per bucket) with each written bucket's
    compaction added, as Java's batch writer prepares its commit. ``base``: the files the
    driver shipped to a task (a task's messages); ``None``: read here from the latest snapshot
    (an ``overwrite`` starts from empty buckets). Tables that do not compact after a write
    get ``messages`` back as they are."""
    table_root = table_root.rstrip("/")
    schema = read_latest_schema(file_io, table_root) if base is None else base.schema
    if not is_compacted_after_write(schema):
        return list(messages)
    if base is None:
        base = read_base_files(file_io, table_root, schema, overwrite=overwrite)
    compact = compact_key_value_bucket if schema.is_primary_key_table else compact_append_bucket
    return [
        with_compaction(message, compact(file_io, table_root, base, message))
        for message in merge_bucket_messages(messages)
    ]
