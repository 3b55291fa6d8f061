"""The live state of a table's buckets, as compactions and row-level changes see it.

Spec: ``docs/concepts/spec/tableindex.md`` (deletion vectors), ``docs/concepts/spec/
manifest.md`` (index manifest). Java (0.9.0): ``operation/AbstractFileStoreWrite``
(restoring a bucket's files), ``deletionvectors/DeletionVectorsMaintainer``,
``deletionvectors/DeletionVectorIndexFileWriter``, ``index/IndexFileHandler``.

Rules:

1. *A bucket* of a snapshot is a (partition, bucket) pair holding live data files; its files
   keep the order in which the snapshot's manifests list them.
2. *Its deletion vectors* are those of the live ``DELETION_VECTORS`` entries of the snapshot's
   index manifest for that pair (an entry of kind DELETE cancels the file it names). Each
   index file says through its ranges which data files it holds vectors for.
3. *A written bucket* (before a commit) is the bucket's state in the base snapshot (none for
   an overwrite) with the newly written files appended; a bucket the base snapshot lacks
   starts empty. A batch writer compacts each written bucket before it commits: the write's
   message then carries the compaction and the index changes too.
4. *A job* (one compaction or row-level command) reads every schema of the table, writes in
   the current one, and names all its files with one writer uuid and shared counters.
5. *Writing vectors.* A set of vectors is one index file ``index-<uuid>-<n>``: the vectors in
   data file name order, empty ones left out (an empty set is the version byte alone), as
   32-bit bitmaps (0.9), 64-bit ones with main's ``deletion-vectors.bitmap64``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from reference import layout
from reference.errors import naming_file
from reference.io import FileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.commit_message import CommitMessage, CompactIncrement, IndexIncrement
from reference.spec.data import Row, Timestamp
from reference.spec.data_file import DataFileMeta, MetaFileKind, compute_meta_file_name
from reference.spec.deletion_vector import (
    DELETION_VECTORS_INDEX_TYPE,
    BitmapKind,
    DeletionVectorRange,
    build_deletion_vector,
    decode_deletion_vector_file,
    encode_deletion_vector_file,
)
from reference.spec.manifest import DeletionVectorMeta, FileKind, IndexFileMeta
from reference.spec.options import option_value
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot
from reference.store.file_writer import compute_creation_time
from reference.store.query import load_schemas
from reference.store.scan import read_index_manifest
from reference.store.write import (
    FileNaming,
    NameCounters,
    create_name_counters,
    read_live_entries,
)

Vectors = Mapping[str, frozenset[int]]
"""Deleted row positions by data file name."""

BITMAP64_OPTION = "deletion-vectors.bitmap64"

BucketKey = tuple[bytes, int]
"""A bucket's serialized partition and bucket number."""


@dataclass(frozen=True)
class BucketState:
    """Rules 1-2: a bucket's live files, its deletion vectors and the index files holding
    them."""

    partition: Row
    partition_bytes: bytes
    bucket: int
    files: tuple[DataFileMeta, ...]
    vectors: Vectors = field(default_factory=dict)
    vector_files: tuple[IndexFileMeta, ...] = ()


# --------------------------------------------------------------------------------------------
# Reading (rules 1-2)
# --------------------------------------------------------------------------------------------


def compute_vector_ranges(index_file: IndexFileMeta) -> list[DeletionVectorRange]:
    return [
        DeletionVectorRange(m.data_file_name, m.offset, m.length, m.cardinality)
        for m in index_file.dv_ranges or ()
    ]


def compute_vector_owners(index_file: IndexFileMeta) -> frozenset[str]:
    """The data files an index file holds vectors for (rule 2)."""
    return frozenset(m.data_file_name for m in index_file.dv_ranges or ())


def find_vector_file(state: BucketState, data_file_name: str) -> IndexFileMeta | None:
    """The index file holding a data file's vector, if it has one."""
    for index_file in state.vector_files:
        if data_file_name in compute_vector_owners(index_file):
            return index_file
    return None


def read_vector_files(
    file_io: FileIO, table_root: str, snapshot: Snapshot | None
) -> dict[BucketKey, list[IndexFileMeta]]:
    """Rule 2: the live DELETION_VECTORS index files of a snapshot by bucket."""
    if snapshot is None or snapshot.index_manifest is None:
        return {}
    live: dict[str, tuple[BucketKey, IndexFileMeta]] = {}
    for entry in read_index_manifest(file_io, table_root, snapshot.index_manifest):
        name = entry.index_file.file_name
        if entry.kind is FileKind.DELETE:
            live.pop(name, None)
        elif entry.index_file.index_type == DELETION_VECTORS_INDEX_TYPE:
            live[name] = ((entry.partition, entry.bucket), entry.index_file)
    found: dict[BucketKey, list[IndexFileMeta]] = {}
    for key, index_file in live.values():
        found.setdefault(key, []).append(index_file)
    return found


def read_vectors(
    file_io: FileIO, table_root: str, index_files: Sequence[IndexFileMeta]
) -> dict[str, frozenset[int]]:
    """The deleted positions of every data file named in ``index_files``."""
    vectors: dict[str, frozenset[int]] = {}
    for index_file in index_files:
        path = index_file.external_path or layout.index_file_path(table_root, index_file.file_name)
        with naming_file(path):
            data = file_io.read_bytes(path)
            decoded = decode_deletion_vector_file(data, compute_vector_ranges(index_file))
        vectors.update({name: frozenset(v.positions) for name, v in decoded.items()})
    return vectors


def read_bucket_states(
    file_io: FileIO, table_root: str, schema: TableSchema, snapshot: Snapshot | None
) -> list[BucketState]:
    """Rules 1-2: every bucket of ``snapshot`` holding live files, in first-seen order."""
    partition_types = [f.type for f in schema.partition_type.fields]
    files: dict[BucketKey, list[DataFileMeta]] = {}
    for entry in read_live_entries(file_io, table_root, snapshot):
        files.setdefault((entry.partition, entry.bucket), []).append(entry.file)
    vector_files = read_vector_files(file_io, table_root, snapshot)
    states = []
    for (partition, bucket), metas in files.items():
        index_files = vector_files.get((partition, bucket), [])
        states.append(
            BucketState(
                partition=deserialize_binary_row(partition, partition_types),
                partition_bytes=partition,
                bucket=bucket,
                files=tuple(metas),
                vectors=read_vectors(file_io, table_root, index_files),
                vector_files=tuple(index_files),
            )
        )
    return states


def read_bucket_state_map(
    file_io: FileIO, table_root: str, schema: TableSchema, snapshot: Snapshot | None
) -> dict[BucketKey, BucketState]:
    """:func:`read_bucket_states` by bucket (empty for no snapshot: an overwrite's base)."""
    return {
        (state.partition_bytes, state.bucket): state
        for state in read_bucket_states(file_io, table_root, schema, snapshot)
    }


def is_state_selected(state: BucketState, partition: Row | None, bucket: int | None) -> bool:
    """Whether a bucket is in a compaction restricted to ``partition`` / ``bucket``."""
    return (partition is None or tuple(state.partition) == tuple(partition)) and (
        bucket is None or state.bucket == bucket
    )


# --------------------------------------------------------------------------------------------
# Written buckets (rule 3)
# --------------------------------------------------------------------------------------------


def compute_written_state(
    message: CommitMessage, base: Mapping[BucketKey, BucketState], schema: TableSchema
) -> BucketState:
    """Rule 3: the bucket a write message went to, with its new files after the others."""
    found = base.get((message.partition, message.bucket))
    if found is None:
        partition_types = [f.type for f in schema.partition_type.fields]
        partition = deserialize_binary_row(message.partition, partition_types)
        found = BucketState(partition, message.partition, message.bucket, ())
    return replace(found, files=found.files + message.data.new_files)


BucketCompactor = Callable[[BucketState], tuple[CompactIncrement, IndexIncrement] | None]
"""Compacts one written bucket: its compact and index increments, or None for nothing."""


def merge_index_increments(first: IndexIncrement, second: IndexIncrement) -> IndexIncrement:
    return IndexIncrement(
        first.new_index_files + second.new_index_files,
        first.deleted_index_files + second.deleted_index_files,
    )


def compact_written_buckets(
    messages: Sequence[CommitMessage],
    base: Mapping[BucketKey, BucketState],
    schema: TableSchema,
    compactor: BucketCompactor,
) -> list[CommitMessage]:
    """Rule 3: each write message with its written bucket's compaction added."""
    compacted = []
    for message in messages:
        outcome = compactor(compute_written_state(message, base, schema))
        if outcome is None:
            compacted.append(message)
            continue
        compaction, index = outcome
        merged = merge_index_increments(message.index, index)
        compacted.append(replace(message, compaction=compaction, index=merged))
    return compacted


# --------------------------------------------------------------------------------------------
# A job (rule 4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JobContext:
    """Rule 4: the storage, schemas and file naming of one job."""

    file_io: FileIO
    table_root: str
    schema: TableSchema
    schemas: Mapping[int, TableSchema]
    naming: FileNaming
    counters: NameCounters
    creation_time: Timestamp


def create_job_context(
    file_io: FileIO, table_root: str, schema: TableSchema, naming: FileNaming | None = None
) -> JobContext:
    naming = naming or FileNaming()
    return JobContext(
        file_io=file_io,
        table_root=table_root,
        schema=schema,
        schemas={**load_schemas(file_io, table_root), schema.id: schema},
        naming=naming,
        counters=create_name_counters(),
        creation_time=naming.creation_time or compute_creation_time(),
    )


# --------------------------------------------------------------------------------------------
# Writing vectors (rule 5)
# --------------------------------------------------------------------------------------------


def compute_bitmap_kind(schema: TableSchema) -> BitmapKind:
    """Rule 5's bitmap kind."""
    if option_value(schema.options, BITMAP64_OPTION):
        return BitmapKind.BITMAP64
    return BitmapKind.BITMAP32


def compute_index_file_name(naming: FileNaming, counters: NameCounters) -> str:
    counter = next(counters.index_files)
    return compute_meta_file_name(MetaFileKind.INDEX, naming.writer_uuid, counter)


def write_vector_index(
    file_io: FileIO, table_root: str, vectors: Vectors, kind: BitmapKind, name: str
) -> IndexFileMeta:
    """Rule 5: ``vectors`` as the new index file ``name``."""
    encoded = {
        file_name: build_deletion_vector(sorted(positions), kind)
        for file_name, positions in sorted(vectors.items())
        if positions
    }
    data, ranges = encode_deletion_vector_file(encoded)
    file_io.write_bytes(layout.index_file_path(table_root, name), data)
    metas = tuple(DeletionVectorMeta(r.data_file_name, r.offset, r.length) for r in ranges)
    return IndexFileMeta(DELETION_VECTORS_INDEX_TYPE, name, len(data), len(metas), metas)
