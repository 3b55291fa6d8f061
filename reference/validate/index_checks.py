"""Checks of table indexes (deletion vectors, dynamic-bucket HASH indexes) and file indexes.

Spec: ``docs/concepts/spec/tableindex.md``, ``manifest.md`` ("Index Manifest"),
``fileindex.mdx``. Java: ``index/IndexFileMeta``, ``index/HashIndexFile``,
``deletionvectors/DeletionVectorIndexFileWriter``, ``deletionvectors/DeletionVector``,
``index/HashBucketAssigner``, ``fileindex/FileIndexFormat``, ``fileindex/bloomfilter``,
``fileindex/bitmap``, ``fileindex/bsi``.

Rules checked here:

1. The index manifest a snapshot names exists and decodes. Replayed (ADD then DELETE by
   partition, bucket and file name), it gives the snapshot's live index files; each exists
   with its recorded size.
2. A ``DELETION_VECTORS`` file starts with version 1; each range decodes (size, CRC-32
   checksum, magic, bitmap, length); a recorded cardinality (1.0+) equals the number of
   deleted positions; the file's row count is its number of ranges.
3. Each deletion vector belongs to a live data file of its partition and bucket, only one
   vector per data file is live, and it deletes only positions below that file's row count.
4. A ``HASH`` file is whole big-endian ints; its row count is their number. (``--deep``:)
   every key stored in a dynamic bucket has its hash in that bucket's index; the index may
   hold more, since hashes of deleted keys stay.
5. A data file's file index (embedded in the manifest, or the ``.index`` file among its extra
   files) decodes, and so does each index body for its column type. (``--deep``:) it agrees
   with the rows: a bloom filter contains every non-null value, a bitmap maps each value and
   null to exactly its rows, a bit-slice index holds each row's value.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from reference import layout
from reference.errors import FileMissingError, PaimonFormatError, UnsupportedFeature
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.data import Value
from reference.spec.deletion_vector import (
    DeletionVector,
    check_file_version,
    decode_deletion_vector,
)
from reference.spec.file_index import bitmap, bloom_filter, bsi
from reference.spec.file_index.container import (
    BITMAP,
    BLOOM_FILTER,
    BSI,
    INDEX_FILE_SUFFIX,
    decode_file_index,
)
from reference.spec.hash_index import HASH_INDEX_TYPE, decode_hash_index
from reference.spec.manifest import (
    DELETION_VECTORS_INDEX_TYPE,
    FileKind,
    IndexManifestEntry,
)
from reference.spec.schema import TableSchema
from reference.store import scan
from reference.validate import report as r
from reference.validate.guard import read_present, run_read, violation_from_error
from reference.validate.manifest_checks import LiveFile


class IndexMemo:
    """Index manifests and index files already read for one table (each judged once)."""

    def __init__(self) -> None:
        self.manifests: dict[str, list[IndexManifestEntry] | None] = {}
        self.checked: set[str] = set()
        self.vectors: dict[str, dict[str, DeletionVector]] = {}
        self.hashes: dict[str, frozenset[int]] = {}
        self.paths: dict[str, str] = {}
        """Where each index file checked so far is, by file name."""


def index_file_path(table_root: str, entry: IndexManifestEntry, memo: IndexMemo) -> str:
    """Where :func:`check_index_file` found the entry's index file (under ``<root>/index`` for
    one it has not seen)."""
    index_file = entry.index_file
    return memo.paths.get(index_file.file_name) or layout.index_file_location(
        table_root, index_file.file_name, external_path=index_file.external_path
    )


# --------------------------------------------------------------------------------------------
# Index manifest (rule 1)
# --------------------------------------------------------------------------------------------


def read_index_manifest_checked(
    file_io: FileIO, table_root: str, name: str, snapshot_id: int, memo: IndexMemo
) -> tuple[list[IndexManifestEntry] | None, list[r.Violation]]:
    if name in memo.manifests:
        return memo.manifests[name], []
    path = layout.manifest_path(table_root, name)
    entries, found = read_present(
        file_io.exists(path),
        partial(scan.read_index_manifest, file_io, table_root, name),
        (r.Rule.INDEX_MANIFEST_MISSING, r.Rule.INDEX_MANIFEST_UNREADABLE),
        r.relative_file(table_root, path),
        snapshot_id,
    )
    memo.manifests[name] = entries
    return entries, found


def compute_live_index_entries(entries: Sequence[IndexManifestEntry]) -> list[IndexManifestEntry]:
    """Rule 1: ADD puts an index file in, DELETE takes it out (by partition, bucket, name)."""
    live: dict[tuple[bytes, int, str], IndexManifestEntry] = {}
    for entry in entries:
        key = (entry.partition, entry.bucket, entry.index_file.file_name)
        live.pop(key, None)
        if entry.kind is FileKind.ADD:
            live[key] = entry
    return list(live.values())


# --------------------------------------------------------------------------------------------
# Index files (rules 1, 2, 4)
# --------------------------------------------------------------------------------------------


def decode_vectors(
    data: bytes, entry: IndexManifestEntry
) -> tuple[dict[str, DeletionVector], list[tuple[r.Rule, str]]]:
    """Rule 2: the vectors of a deletion-vectors file that decode, and what is wrong."""
    check_file_version(data)
    ranges = entry.index_file.dv_ranges or ()
    vectors: dict[str, DeletionVector] = {}
    problems: list[tuple[r.Rule, str]] = []
    for dv in ranges:
        try:
            vector = decode_deletion_vector(data, dv.offset, dv.length)
        except PaimonFormatError as error:
            problems.append(
                (r.Rule.DV_UNREADABLE, f"vector of {dv.data_file_name}: {error.reason}")
            )
            continue
        vectors[dv.data_file_name] = vector
        if dv.cardinality is not None and dv.cardinality != len(vector.positions):
            problems.append(
                (
                    r.Rule.DV_CARDINALITY_MISMATCH,
                    f"vector of {dv.data_file_name} deletes {len(vector.positions)} rows, "
                    f"_CARDINALITY says {dv.cardinality}",
                )
            )
    if entry.index_file.row_count != len(ranges):
        problems.append(
            (
                r.Rule.INDEX_ROW_COUNT_MISMATCH,
                f"_ROW_COUNT {entry.index_file.row_count}, the file has {len(ranges)} vectors",
            )
        )
    return vectors, problems


def decode_hashes(
    data: bytes, entry: IndexManifestEntry
) -> tuple[frozenset[int], list[tuple[r.Rule, str]]]:
    """Rule 4: the hashes of a HASH index file and what is wrong with its row count."""
    hashes = decode_hash_index(data)
    if entry.index_file.row_count == len(hashes):
        return frozenset(hashes), []
    reason = f"_ROW_COUNT {entry.index_file.row_count}, the file has {len(hashes)} hashes"
    return frozenset(hashes), [(r.Rule.INDEX_ROW_COUNT_MISMATCH, reason)]


def _judge_index_bytes(
    data: bytes, entry: IndexManifestEntry, file: str, snapshot_id: int, memo: IndexMemo
) -> list[r.Violation]:
    """Rules 2 and 4 for the bytes of one index file; other index types are not checked."""
    name = entry.index_file.file_name
    problems: list[tuple[r.Rule, str]] = []
    found: list[r.Violation] = []
    if entry.index_file.index_type == DELETION_VECTORS_INDEX_TYPE:
        vectors, found = run_read(
            partial(decode_vectors, data, entry), r.Rule.DV_UNREADABLE, file, snapshot_id
        )
        if vectors is not None:
            memo.vectors[name], problems = vectors
    elif entry.index_file.index_type == HASH_INDEX_TYPE:
        hashes, found = run_read(
            partial(decode_hashes, data, entry), r.Rule.HASH_INDEX_UNREADABLE, file, snapshot_id
        )
        if hashes is not None:
            memo.hashes[name], problems = hashes
    return found + [r.violation(rule, file, reason, snapshot_id) for rule, reason in problems]


def check_index_file(
    file_io: FileIO,
    table_root: str,
    entry: IndexManifestEntry,
    snapshot_id: int,
    memo: IndexMemo,
    *,
    schema: TableSchema,
) -> list[r.Violation]:
    """Rules 1, 2 and 4 (row count) for one index file, once per file; ``schema`` places it
    (``index-file-in-data-file-dir``, see ``scan.compute_index_file_path``)."""
    index_file = entry.index_file
    if index_file.file_name in memo.checked:
        return []
    memo.checked.add(index_file.file_name)
    path = scan.compute_index_file_path(table_root, schema, entry)
    memo.paths[index_file.file_name] = path
    file = r.relative_file(table_root, path)
    try:
        data = file_io.read_bytes(path)
    except FileMissingError:
        return [r.violation(r.Rule.INDEX_FILE_MISSING, file, "no such file", snapshot_id)]
    found: list[r.Violation] = []
    if len(data) != index_file.file_size:
        found.append(
            r.violation(
                r.Rule.INDEX_FILE_SIZE_MISMATCH,
                file,
                f"{len(data)} bytes, _FILE_SIZE says {index_file.file_size}",
                snapshot_id,
            )
        )
    return found + _judge_index_bytes(data, entry, file, snapshot_id, memo)


# --------------------------------------------------------------------------------------------
# Deletion vectors against the live files (rule 3)
# --------------------------------------------------------------------------------------------


def check_vectors_against_files(
    table_root: str,
    live_index: Sequence[IndexManifestEntry],
    live_files: Sequence[LiveFile],
    memo: IndexMemo,
    snapshot_id: int,
) -> list[r.Violation]:
    """Rule 3 for one snapshot."""
    files = {(f.entry.partition, f.entry.bucket, f.entry.file.file_name): f for f in live_files}
    owners: dict[tuple[bytes, int, str], str] = {}
    found: list[r.Violation] = []
    for entry in live_index:
        if entry.index_file.index_type != DELETION_VECTORS_INDEX_TYPE:
            continue
        file = r.relative_file(table_root, index_file_path(table_root, entry, memo))
        vectors = memo.vectors.get(entry.index_file.file_name, {})
        for dv in entry.index_file.dv_ranges or ():
            key = (entry.partition, entry.bucket, dv.data_file_name)
            if key in owners:
                found.append(
                    r.violation(
                        r.Rule.DV_DUPLICATE,
                        file,
                        f"{dv.data_file_name} also has a vector in {owners[key]}",
                        snapshot_id,
                    )
                )
            owners[key] = entry.index_file.file_name
            live_file = files.get(key)
            if live_file is None:
                found.append(
                    r.violation(
                        r.Rule.DV_DANGLING,
                        file,
                        f"vector of {dv.data_file_name}, which is not live in bucket "
                        f"{entry.bucket}",
                        snapshot_id,
                    )
                )
                continue
            vector = vectors.get(dv.data_file_name)
            row_count = live_file.entry.file.row_count
            if vector is not None and vector.positions and vector.positions.max() >= row_count:
                found.append(
                    r.violation(
                        r.Rule.DV_POSITION_OUT_OF_RANGE,
                        file,
                        f"vector of {dv.data_file_name} deletes position "
                        f"{vector.positions.max()}, the file has {row_count} rows",
                        snapshot_id,
                    )
                )
    return found


# --------------------------------------------------------------------------------------------
# HASH indexes against the keys (rule 4, --deep)
# --------------------------------------------------------------------------------------------

BucketKey = tuple[bytes, int]
"""A partition (serialized) and a bucket."""


def check_hash_index_keys(
    table_root: str,
    live_index: Sequence[IndexManifestEntry],
    key_hashes: Mapping[BucketKey, set[int]],
    memo: IndexMemo,
    snapshot_id: int,
) -> list[r.Violation]:
    """Rule 4: the hash of every key of a dynamic bucket is in that bucket's HASH index."""
    indexed: dict[BucketKey, set[int]] = defaultdict(set)
    files: dict[BucketKey, str] = {}
    for entry in live_index:
        if entry.index_file.index_type == HASH_INDEX_TYPE:
            key = (entry.partition, entry.bucket)
            indexed[key] |= memo.hashes.get(entry.index_file.file_name, frozenset())
            files[key] = r.relative_file(table_root, index_file_path(table_root, entry, memo))
    found: list[r.Violation] = []
    for key, hashes in key_hashes.items():
        missing = hashes - indexed.get(key, set())
        if missing:
            found.append(
                r.violation(
                    r.Rule.HASH_INDEX_MISSING_KEY,
                    files.get(key, layout.INDEX_DIR),
                    f"bucket {key[1]}: {len(missing)} key hash(es) not indexed, e.g. "
                    f"{sorted(missing)[0]}",
                    snapshot_id,
                )
            )
    return found


# --------------------------------------------------------------------------------------------
# File indexes (rule 5)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnIndexBody:
    """One decoded index body of a file index: a bloom filter, bitmap or BSI index."""

    column: str
    index_type: str
    decoded: Any


def find_file_index_source(file_io: FileIO, live_file: LiveFile) -> tuple[str, bytes] | None:
    """``(where, bytes)`` of a data file's file index, or None when it has none."""
    meta = live_file.entry.file
    if meta.embedded_index is not None:
        return "_EMBEDDED_FILE_INDEX of " + meta.file_name, meta.embedded_index
    directory = live_file.path.rpartition("/")[0]
    for name in meta.extra_files:
        if name.endswith(INDEX_FILE_SUFFIX):
            path = layout.join(directory, name)
            return path, file_io.read_bytes(path)
    return None


def decode_index_body(index_type: str, body: bytes, data_type: t.DataType) -> Any:
    if index_type == BLOOM_FILTER:
        return bloom_filter.decode_bloom_filter(body)
    if index_type == BITMAP:
        return bitmap.decode_bitmap_index(body, data_type)
    if index_type == BSI:
        return bsi.decode_bsi_index(body)
    raise UnsupportedFeature(f"file index type '{index_type}' is not checked")


def decode_file_index_bodies(data: bytes, file_schema: TableSchema) -> list[ColumnIndexBody]:
    """Every index body on a column of the file's schema (others, such as map keys, are
    skipped), decoded for the column's type; bodies of writers that saw no row are skipped."""
    types = {f.name: f.type for f in file_schema.fields}
    bodies: list[ColumnIndexBody] = []
    for column in decode_file_index(data).columns:
        if column.column not in types:
            continue
        for index in column.indexes:
            if index.body is not None:
                decoded = decode_index_body(index.index_type, index.body, types[column.column])
                bodies.append(ColumnIndexBody(column.column, index.index_type, decoded))
    return bodies


def check_file_index(
    file_io: FileIO, table_root: str, live_file: LiveFile, file_schema: TableSchema
) -> tuple[list[ColumnIndexBody], list[r.Violation]]:
    """Rule 5 (decoding) for one data file."""
    file = r.relative_file(table_root, live_file.path)
    try:
        source = find_file_index_source(file_io, live_file)
        if source is None:
            return [], []
        where, data = source
        file = r.relative_file(table_root, where)
        return decode_file_index_bodies(data, file_schema), []
    except FileMissingError:
        return [], []  # reported as EXTRA_FILE_MISSING
    except Exception as error:
        return [], [
            violation_from_error(error, r.Rule.FILE_INDEX_UNREADABLE, file, live_file.snapshot_id)
        ]


def _bitmap_rows(index: bitmap.BitmapIndex, data_type: t.DataType) -> dict[Any, Any]:
    return {bitmap.compute_key_identity(e.key, data_type): e.rows for e in index.entries}


def find_index_disagreements(
    body: ColumnIndexBody, values: Sequence[Value], data_type: t.DataType
) -> list[str]:
    """Rule 5 (``--deep``): why one index body is not true of its column's ``values``."""
    where = f"{body.index_type} index of {body.column}"
    if isinstance(body.decoded, bloom_filter.BloomFilter):
        absent = [
            v
            for v in values
            if v is not None and not bloom_filter.might_contain(body.decoded, v, data_type)
        ]
        return [f"{where} lacks {len(absent)} value(s), e.g. {absent[0]!r}"] if absent else []
    if isinstance(body.decoded, bitmap.BitmapIndex):
        expected = bitmap.build_bitmap_index(values, data_type)
        if body.decoded.row_count != len(values):
            return [f"{where} covers {body.decoded.row_count} rows, the file has {len(values)}"]
        if body.decoded.null_rows != expected.null_rows:
            return [f"{where} marks other rows null than the file"]
        if _bitmap_rows(body.decoded, data_type) != _bitmap_rows(expected, data_type):
            return [f"{where} maps values to other rows than the file"]
        return []
    if isinstance(body.decoded, bsi.BsiIndex):
        if body.decoded.row_count != len(values):
            return [f"{where} covers {body.decoded.row_count} rows, the file has {len(values)}"]
        expected_values = {
            row: bsi.compute_bsi_long(v, data_type) for row, v in enumerate(values) if v is not None
        }
        if bsi.compute_bsi_values(body.decoded) != expected_values:
            return [f"{where} holds other values than the file"]
    return []
