"""The corruption cases: each copies one valid Java-written table and breaks one thing.

A case names its source table (a third-party table ``paimon-cpp/parquet/<name>.db/<name>``, or
``fixtures:<area>/<case>`` for a Java-written golden table of this project, used where the
third-party tables lack a feature such as dynamic buckets), the code the validator
must report, and a function that breaks a copy of the table and returns the file (relative to
the table root) the finding must name. ``deep`` cases are only visible to
``paimon-kit validate --deep``. The validator is expected to report *at least* that finding;
some corruptions legitimately show more (a reversed file also has its first and last keys
wrong).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from conformance.corruption import surgery as s
from reference import layout
from reference.spec import types as t
from reference.spec.binary_row import serialize_binary_row
from reference.spec.data_file import DataFileMeta, MetaFileKind
from reference.spec.deletion_vector import build_deletion_vector, encode_deletion_vector_file
from reference.spec.file_index import bitmap
from reference.spec.file_index.container import (
    ColumnIndex,
    ColumnIndexes,
    FileIndex,
    decode_file_index,
    encode_file_index,
)
from reference.spec.manifest import (
    DeletionVectorMeta,
    FileKind,
    IndexFileMeta,
    IndexManifestEntry,
    ManifestEntry,
    ManifestFileMeta,
)
from reference.spec.stats import SimpleStats

Ranges = tuple[DeletionVectorMeta, ...]
Corrupt = Callable[[Path], str]
"""Breaks the table copy at the given path; returns the file the finding must name."""


@dataclass(frozen=True)
class CorruptionCase:
    case_id: str
    source: str
    code: str
    description: str
    corrupt: Corrupt
    deep: bool = False


CASES: list[CorruptionCase] = []


def case(
    case_id: str, source: str, code: str, description: str, *, deep: bool = False
) -> Callable[[Corrupt], Corrupt]:
    def register(corrupt: Corrupt) -> Corrupt:
        CASES.append(CorruptionCase(case_id, source, code, description, corrupt, deep))
        return corrupt

    return register


def _snapshot_file(snapshot_id: int) -> str:
    return f"{layout.SNAPSHOT_DIR}/{layout.SNAPSHOT_PREFIX}{snapshot_id}"


def _edit_snapshot(table: Path, snapshot_id: int, edit: Callable[[dict[str, Any]], None]) -> str:
    """Apply ``edit`` to the JSON members of one snapshot file; returns that file."""
    s.edit_json(s.snapshot_path(table, snapshot_id), edit)
    return _snapshot_file(snapshot_id)


def _manifest_file(name: str) -> str:
    return f"{layout.MANIFEST_DIR}/{name}"


def _latest_delta_manifest(table: Path) -> ManifestFileMeta:
    return s.read_list(table, s.latest_snapshot(table).delta_manifest_list)[0]


def _edit_list_entries(
    table: Path, manifest_name: str, edit: Callable[[ManifestFileMeta], ManifestFileMeta]
) -> None:
    """Apply ``edit`` to ``manifest_name``'s entry in every manifest list that lists it."""
    for list_name in s.meta_files(table, MetaFileKind.MANIFEST_LIST):
        if any(m.file_name == manifest_name for m in s.read_list(table, list_name)):
            s.rewrite_manifest_list(
                table,
                list_name,
                lambda ms: [edit(m) if m.file_name == manifest_name else m for m in ms],
            )


def _edit_latest_delta_meta(
    table: Path, edit: Callable[[ManifestFileMeta], ManifestFileMeta]
) -> str:
    """Apply ``edit`` to the manifest list entry of the latest snapshot's first delta manifest;
    returns that manifest."""
    name = _latest_delta_manifest(table).file_name
    _edit_list_entries(table, name, edit)
    return _manifest_file(name)


def _edit_meta(table: Path, ref: s.LiveRef, edit: Callable[[DataFileMeta], DataFileMeta]) -> str:
    """Apply ``edit`` to the metadata of one live file everywhere; returns the file."""
    s.edit_file_meta(table, ref.entry.file.file_name, edit)
    return ref.path


def _edit_first_meta(table: Path, edit: Callable[[DataFileMeta], DataFileMeta]) -> str:
    return _edit_meta(table, s.live_files(table)[0], edit)


def _live_index_entry(table: Path, bucket: int) -> IndexManifestEntry:
    snapshot = s.latest_snapshot(table)
    assert snapshot.index_manifest is not None
    entries = s.read_index_entries(table, snapshot.index_manifest)
    return next(e for e in entries if e.bucket == bucket and e.index_file.dv_ranges)


def _first_range(entry: IndexManifestEntry) -> DeletionVectorMeta:
    assert entry.index_file.dv_ranges
    return entry.index_file.dv_ranges[0]


def _index_file(name: str) -> str:
    return f"{layout.INDEX_DIR}/{name}"


def _edit_index_file(
    table: Path, entry: IndexManifestEntry, edit: Callable[[IndexFileMeta], IndexFileMeta]
) -> str:
    """Apply ``edit`` to the metadata of one index file in every index manifest; returns the
    index file."""
    s.edit_index_entries(
        table, entry.index_file.file_name, lambda e: replace(e, index_file=edit(e.index_file))
    )
    return _index_file(entry.index_file.file_name)


def _edit_ranges(table: Path, entry: IndexManifestEntry, edit: Callable[[Ranges], Ranges]) -> str:
    """Apply ``edit`` to the deletion-vector ranges of one index file."""
    return _edit_index_file(
        table, entry, lambda f: replace(f, dv_ranges=edit(tuple(f.dv_ranges or ())))
    )


def _rewrite_data(table: Path, ref: s.LiveRef, transform: Callable[[pa.Table], pa.Table]) -> str:
    """Rewrite one live Parquet file through ``transform``; returns the file."""
    s.rewrite_parquet(table, ref, transform)
    return ref.path


def _edit_value(
    table: Path, ref: s.LiveRef, column: str, row: int, edit: Callable[[Any], Any]
) -> str:
    """Rewrite one live Parquet file with one value changed; returns the file."""

    def rewrite(data: pa.Table) -> pa.Table:
        values = data.column(column).to_pylist()
        values[row] = edit(values[row])
        return s.replace_column(data, column, values)

    return _rewrite_data(table, ref, rewrite)


# --------------------------------------------------------------------------------------------
# Schemas
# --------------------------------------------------------------------------------------------

MOR = "pk_table_with_mor"
PK09 = "pk_09"
DV = "pk_table_scan_and_read_dv"
APPEND09 = "append_09"
ALTER = "append_table_with_alter_table"
BITMAP_TABLE = "append_with_bitmap"
BSI_TABLE = "append_with_bsi"
PARTIAL = "pk_table_partial_update"
DYNAMIC = "fixtures:golden/dynamic_bucket"
PK_ORC = "fixtures:golden/pk_dedup_orc"


@case("schema-gap", MOR, "SCHEMA_ID_GAP", "delete schema-3 of schemas 0..7")
def _schema_gap(table: Path) -> str:
    (table / "schema" / "schema-3").unlink()
    return "schema"


@case("schema-all-deleted", APPEND09, "SCHEMA_MISSING", "delete every schema file")
def _schema_missing(table: Path) -> str:
    for path in (table / "schema").iterdir():
        path.unlink()
    return "schema"


@case("schema-truncated", MOR, "SCHEMA_UNREADABLE", "cut schema-5 in half")
def _schema_truncated(table: Path) -> str:
    s.truncate_file(table / "schema" / "schema-5")
    return "schema/schema-5"


@case("schema-id-edited", MOR, "SCHEMA_ID_MISMATCH", "schema-4 claims id 6")
def _schema_id(table: Path) -> str:
    s.edit_json(table / "schema" / "schema-4", lambda j: j.update(id=6))
    return "schema/schema-4"


@case("schema-invalid", MOR, "SCHEMA_INVALID", "schema-6 has bucket = 0")
def _schema_invalid(table: Path) -> str:
    s.edit_json(table / "schema" / "schema-6", lambda j: j["options"].update(bucket="0"))
    return "schema/schema-6"


# --------------------------------------------------------------------------------------------
# Snapshots, hints, record counts
# --------------------------------------------------------------------------------------------


@case("snapshot-gap", PK09, "SNAPSHOT_ID_GAP", "delete snapshot-4 of 1..8")
def _snapshot_gap(table: Path) -> str:
    s.snapshot_path(table, 4).unlink()
    return "snapshot"


@case("snapshot-truncated", PK09, "SNAPSHOT_UNREADABLE", "cut snapshot-6 in half")
def _snapshot_truncated(table: Path) -> str:
    s.truncate_file(s.snapshot_path(table, 6))
    return _snapshot_file(6)


@case("snapshot-id-edited", PK09, "SNAPSHOT_ID_MISMATCH", "snapshot-5 claims id 50")
def _snapshot_id(table: Path) -> str:
    return _edit_snapshot(table, 5, lambda j: j.update(id=50))


@case("snapshot-schema-missing", PK09, "SNAPSHOT_SCHEMA_MISSING", "snapshot-3 names schema 9")
def _snapshot_schema(table: Path) -> str:
    return _edit_snapshot(table, 3, lambda j: j.update(schemaId=9))


@case("hint-latest-stale", PK09, "HINT_WRONG", "LATEST says 5 (latest is 8)")
def _hint_latest(table: Path) -> str:
    (table / "snapshot" / "LATEST").write_text("5")
    return "snapshot/LATEST"


@case("hint-earliest-garbage", PK09, "HINT_WRONG", "EARLIEST holds no number")
def _hint_earliest(table: Path) -> str:
    (table / "snapshot" / "EARLIEST").write_text("one")
    return "snapshot/EARLIEST"


@case("total-record-count", PK09, "SNAPSHOT_TOTAL_RECORD_COUNT", "snapshot-6 total + 7")
def _total_count(table: Path) -> str:
    return _edit_snapshot(table, 6, lambda j: j.update(totalRecordCount=j["totalRecordCount"] + 7))


@case("delta-record-count", APPEND09, "SNAPSHOT_DELTA_RECORD_COUNT", "snapshot-3 delta 1 -> 2")
def _delta_count(table: Path) -> str:
    return _edit_snapshot(table, 3, lambda j: j.update(deltaRecordCount=2))


@case("live-record-count", APPEND09, "SNAPSHOT_LIVE_RECORD_COUNT", "every total + 1 (chain kept)")
def _live_count(table: Path) -> str:
    files = [
        _edit_snapshot(table, i, lambda j: j.update(totalRecordCount=j["totalRecordCount"] + 1))
        for i in range(1, 6)
    ]
    return files[-1]


@case(
    "changelog-record-count",
    APPEND09,
    "SNAPSHOT_CHANGELOG_RECORD_COUNT",
    "changelog count 4 without changelog",
)
def _changelog_count(table: Path) -> str:
    return _edit_snapshot(table, 5, lambda j: j.update(changelogRecordCount=4))


# --------------------------------------------------------------------------------------------
# Manifest lists and manifests
# --------------------------------------------------------------------------------------------


@case("manifest-list-missing", PK09, "MANIFEST_LIST_MISSING", "delete the latest delta list")
def _list_missing(table: Path) -> str:
    name = s.latest_snapshot(table).delta_manifest_list
    s.manifest_path(table, name).unlink()
    return _manifest_file(name)


@case("manifest-list-truncated", ALTER, "MANIFEST_LIST_UNREADABLE", "cut the latest delta list")
def _list_truncated(table: Path) -> str:
    name = s.latest_snapshot(table).delta_manifest_list
    s.truncate_file(s.manifest_path(table, name))
    return _manifest_file(name)


@case("manifest-list-size", ALTER, "MANIFEST_LIST_SIZE_MISMATCH", "deltaManifestListSize + 3")
def _list_size(table: Path) -> str:
    snapshot = s.latest_snapshot(table)
    _edit_snapshot(
        table,
        snapshot.id,
        lambda j: j.update(deltaManifestListSize=j["deltaManifestListSize"] + 3),
    )
    return _manifest_file(snapshot.delta_manifest_list)


@case("manifest-missing", APPEND09, "MANIFEST_MISSING", "delete the latest delta manifest")
def _manifest_missing(table: Path) -> str:
    name = _latest_delta_manifest(table).file_name
    s.manifest_path(table, name).unlink()
    return _manifest_file(name)


@case("manifest-truncated-avro", PK09, "MANIFEST_UNREADABLE", "cut an Avro manifest in half")
def _manifest_truncated(table: Path) -> str:
    name = _latest_delta_manifest(table).file_name
    s.truncate_file(s.manifest_path(table, name))
    return _manifest_file(name)


@case("manifest-truncated-orc", APPEND09, "MANIFEST_UNREADABLE", "cut an ORC manifest short")
def _manifest_truncated_orc(table: Path) -> str:
    name = _latest_delta_manifest(table).file_name
    s.truncate_file(s.manifest_path(table, name), keep=0.9)
    return _manifest_file(name)


@case("manifest-size", DV, "MANIFEST_SIZE_MISMATCH", "_FILE_SIZE of a manifest + 10")
def _manifest_size(table: Path) -> str:
    return _edit_latest_delta_meta(table, lambda m: replace(m, file_size=m.file_size + 10))


@case("manifest-file-counts", PK09, "MANIFEST_FILE_COUNT_MISMATCH", "_NUM_ADDED_FILES + 1")
def _manifest_counts(table: Path) -> str:
    return _edit_latest_delta_meta(
        table, lambda m: replace(m, num_added_files=m.num_added_files + 1)
    )


@case("manifest-partition-stats", PK09, "MANIFEST_PARTITION_STATS_MISMATCH", "max partition 99")
def _manifest_partition_stats(table: Path) -> str:
    wrong = serialize_binary_row([99], [t.IntType(nullable=False)])

    def edit(meta: ManifestFileMeta) -> ManifestFileMeta:
        stats = meta.partition_stats
        return replace(
            meta, partition_stats=SimpleStats(stats.min_values, wrong, stats.null_counts)
        )

    return _edit_latest_delta_meta(table, edit)


@case("manifest-schema-missing", PK09, "MANIFEST_SCHEMA_MISSING", "_SCHEMA_ID 7")
def _manifest_schema(table: Path) -> str:
    return _edit_latest_delta_meta(table, lambda m: replace(m, schema_id=7))


@case("manifest-bucket-range", DV, "MANIFEST_RANGE_MISMATCH", "_MAX_BUCKET + 3")
def _manifest_range(table: Path) -> str:
    return _edit_latest_delta_meta(table, lambda m: replace(m, max_bucket=(m.max_bucket or 0) + 3))


@case("index-manifest-missing", PK09, "INDEX_MANIFEST_MISSING", "delete the index manifest")
def _index_manifest_missing(table: Path) -> str:
    name = s.latest_snapshot(table).index_manifest
    assert name is not None
    s.manifest_path(table, name).unlink()
    return _manifest_file(name)


@case("index-manifest-truncated", DV, "INDEX_MANIFEST_UNREADABLE", "cut the index manifest")
def _index_manifest_truncated(table: Path) -> str:
    name = s.latest_snapshot(table).index_manifest
    assert name is not None
    s.truncate_file(s.manifest_path(table, name))
    return _manifest_file(name)


# --------------------------------------------------------------------------------------------
# Replay
# --------------------------------------------------------------------------------------------


@case("delete-of-missing-file", ALTER, "DELETE_OF_MISSING_FILE", "DELETE of a never-added file")
def _delete_missing(table: Path) -> str:
    name = _latest_delta_manifest(table).file_name

    def add_delete(entries: list[ManifestEntry]) -> list[ManifestEntry]:
        ghost = replace(
            entries[0].file, file_name="data-00000000-0000-0000-0000-000000000000-0.parquet"
        )
        return [*entries, replace(entries[0], kind=FileKind.DELETE, file=ghost)]

    s.rewrite_manifest(table, name, add_delete, repair_counts=True)
    return _manifest_file(name)


@case("file-added-twice", APPEND09, "FILE_ADDED_TWICE", "the first manifest adds a file twice")
def _added_twice(table: Path) -> str:
    name = s.read_list(table, s.latest_snapshot(table).base_manifest_list)[0].file_name
    s.rewrite_manifest(table, name, lambda es: [*es, es[0]], repair_counts=True)
    return _manifest_file(name)


@case("file-live-twice", DV, "FILE_LIVE_TWICE", "a live file added again at level 3")
def _live_twice(table: Path) -> str:
    name = _latest_delta_manifest(table).file_name
    live = s.find_live(table, lambda r: r.entry.file.level == 5)

    def add_again(entries: list[ManifestEntry]) -> list[ManifestEntry]:
        return [*entries, replace(live.entry, file=replace(live.entry.file, level=3))]

    s.rewrite_manifest(table, name, add_again, repair_counts=True)
    return _manifest_file(name)


@case(
    "partition-undecodable", APPEND09, "PARTITION_UNDECODABLE", "an entry's partition has arity 5"
)
def _partition_undecodable(table: Path) -> str:
    name = _latest_delta_manifest(table).file_name

    def garble(entries: list[ManifestEntry]) -> list[ManifestEntry]:
        return [replace(entries[0], partition=bytes([0, 0, 0, 5]) + bytes(8)), *entries[1:]]

    s.rewrite_manifest(table, name, garble)
    return _manifest_file(name)


# --------------------------------------------------------------------------------------------
# Data files (metadata level)
# --------------------------------------------------------------------------------------------


@case("data-file-missing", PK09, "DATA_FILE_MISSING", "delete a live data file")
def _data_missing(table: Path) -> str:
    ref = s.live_files(table)[0]
    (table / ref.path).unlink()
    return ref.path


@case("data-file-wrong-bucket", PK09, "DATA_FILE_WRONG_DIRECTORY", "move a file to bucket-0")
def _wrong_bucket(table: Path) -> str:
    ref = s.find_live(table, lambda r: r.entry.bucket == 1)
    target = table / ref.path.replace("bucket-1", "bucket-0")
    (table / ref.path).rename(target)
    return ref.path


@case("data-file-size", ALTER, "DATA_FILE_SIZE_MISMATCH", "_FILE_SIZE + 1")
def _data_size(table: Path) -> str:
    return _edit_first_meta(table, lambda m: replace(m, file_size=m.file_size + 1))


@case("data-file-truncated", BITMAP_TABLE, "DATA_FILE_UNREADABLE", "cut a Parquet file in half")
def _data_truncated(table: Path) -> str:
    path = s.live_files(table)[0].path
    s.truncate_file(table / path)
    return path


ORC_CRASH_BYTE = (355, 0xFF)
"""A byte of the first live ORC file of :data:`PK_ORC` that makes pyarrow 19's ORC reader
segfault (found by mutation); the validator decodes ORC in a worker process and reports it."""


@case(
    "data-file-orc-reader-crash",
    PK_ORC,
    "DATA_FILE_UNREADABLE",
    "one byte of an ORC stripe on which pyarrow's reader crashes (found by reading rows)",
    deep=True,
)
def _data_orc_crash(table: Path) -> str:
    path = s.live_files(table)[0].path
    data = bytearray((table / path).read_bytes())
    offset, value = ORC_CRASH_BYTE
    data[offset] = value
    (table / path).write_bytes(bytes(data))
    return path


@case("data-file-columns", PARTIAL, "DATA_FILE_COLUMNS", "rewrite a file without _VALUE_KIND")
def _data_columns(table: Path) -> str:
    ref = s.live_files(table)[0]
    return _rewrite_data(table, ref, lambda d: d.drop_columns(["_VALUE_KIND"]))


@case("data-file-row-count", APPEND09, "DATA_FILE_ROW_COUNT", "_ROW_COUNT + 1")
def _data_rows(table: Path) -> str:
    return _edit_first_meta(table, lambda m: replace(m, row_count=m.row_count + 1))


@case("data-file-schema-missing", ALTER, "DATA_FILE_SCHEMA_MISSING", "_SCHEMA_ID 5")
def _data_schema(table: Path) -> str:
    return _edit_first_meta(table, lambda m: replace(m, schema_id=5))


@case("extra-file-missing", BSI_TABLE, "EXTRA_FILE_MISSING", "delete a .index extra file")
def _extra_missing(table: Path) -> str:
    ref = s.live_files(table)[0]
    extra = str(Path(ref.path).parent / ref.entry.file.extra_files[0])
    (table / extra).unlink()
    return extra


@case("bucket-out-of-range", APPEND09, "BUCKET_OUT_OF_RANGE", "bucket 7 of 2 buckets")
def _bucket_range(table: Path) -> str:
    ref = s.find_live(table, lambda r: r.entry.bucket == 1)
    moved = ref.path.replace("bucket-1", "bucket-7")
    (table / moved).parent.mkdir(parents=True, exist_ok=True)
    (table / ref.path).rename(table / moved)
    s.edit_entry(table, ref.entry.file.file_name, lambda e: replace(e, bucket=7))
    return moved


@case("total-buckets", PK09, "TOTAL_BUCKETS_MISMATCH", "_TOTAL_BUCKETS 3 for bucket = 2")
def _total_buckets(table: Path) -> str:
    ref = s.live_files(table)[0]
    s.edit_entry(table, ref.entry.file.file_name, lambda e: replace(e, total_buckets=3))
    return ref.path


@case("level-overlap", DV, "LEVEL_OVERLAP", "move a level-4 file into overlapping level 5")
def _level_overlap(table: Path) -> str:
    ref = s.find_live(table, lambda r: r.entry.file.level == 4)
    return _edit_meta(table, ref, lambda m: replace(m, level=5) if m.level == 4 else m)


@case("file-meta-invalid", APPEND09, "FILE_META_INVALID", "min sequence above max")
def _meta_invalid(table: Path) -> str:
    ref = s.find_live(
        table, lambda r: r.entry.file.min_sequence_number < r.entry.file.max_sequence_number
    )
    return _edit_meta(
        table,
        ref,
        lambda m: replace(
            m, min_sequence_number=m.max_sequence_number, max_sequence_number=m.min_sequence_number
        ),
    )


# --------------------------------------------------------------------------------------------
# Data files (contents, --deep)
# --------------------------------------------------------------------------------------------


def _largest_pk_file(table: Path) -> s.LiveRef:
    return max(s.live_files(table), key=lambda r: (r.entry.file.row_count, r.path))


@case("keys-unsorted", PK09, "KEYS_UNSORTED", "rewrite a file with its rows reversed", deep=True)
def _keys_unsorted(table: Path) -> str:
    reverse = lambda d: d.take(pa.array(range(d.num_rows - 1, -1, -1)))  # noqa: E731
    return _rewrite_data(table, _largest_pk_file(table), reverse)


@case("key-range", DV, "KEY_RANGE_MISMATCH", "_MAX_KEY below the last key", deep=True)
def _key_range(table: Path) -> str:
    ref = s.find_live(table, lambda r: r.entry.bucket == 1 and r.entry.file.level == 5)
    key = serialize_binary_row(
        ["Mia", 0], [t.VarCharType(t.MAX_LENGTH, nullable=False), t.IntType(nullable=False)]
    )
    return _edit_meta(table, ref, lambda m: replace(m, max_key=key))


@case("key-value-mismatch", PK09, "KEY_VALUE_MISMATCH", "value f0 differs from _KEY_f0", deep=True)
def _key_value(table: Path) -> str:
    return _edit_value(table, _largest_pk_file(table), "f0", 1, lambda v: v + "!")


@case(
    "sequence-out-of-range",
    PK09,
    "SEQUENCE_OUT_OF_RANGE",
    "_MAX_SEQUENCE_NUMBER lowered",
    deep=True,
)
def _sequence(table: Path) -> str:
    return _edit_meta(
        table,
        _largest_pk_file(table),
        lambda m: replace(m, max_sequence_number=m.min_sequence_number + 1),
    )


@case("value-kind-invalid", PARTIAL, "VALUE_KIND_INVALID", "a _VALUE_KIND of 9", deep=True)
def _value_kind(table: Path) -> str:
    return _edit_value(table, s.live_files(table)[0], "_VALUE_KIND", 0, lambda _: 9)


@case(
    "delete-row-count", PARTIAL, "DELETE_ROW_COUNT_MISMATCH", "_DELETE_ROW_COUNT 2 -> 0", deep=True
)
def _delete_rows(table: Path) -> str:
    ref = s.find_live(table, lambda r: bool(r.entry.file.delete_row_count))
    return _edit_meta(table, ref, lambda m: replace(m, delete_row_count=0))


STATS_HEADER_BYTES = 4 + 8
"""Serialized BinaryRow: arity (4 bytes) and, up to 56 fields, one 8-byte null bit set."""
FIXED_SLOT_BYTES = 8


@case("stats-byte-flipped", APPEND09, "STATS_MISMATCH", "flip a byte of a value min", deep=True)
def _stats_flip(table: Path) -> str:
    field_index = 2  # f2 INT: the slot's first byte is the int's lowest byte (little-endian)

    def flip(meta: DataFileMeta) -> DataFileMeta:
        minimums = bytearray(meta.value_stats.min_values)
        minimums[STATS_HEADER_BYTES + FIXED_SLOT_BYTES * field_index] ^= 0x01
        stats = replace(meta.value_stats, min_values=bytes(minimums))
        return replace(meta, value_stats=stats)

    return _edit_first_meta(table, flip)


@case("partition-value", APPEND09, "PARTITION_VALUE_MISMATCH", "rows of f1=20 in f1=10", deep=True)
def _partition_value(table: Path) -> str:
    ref = s.find_live(table, lambda r: r.path.startswith("f1=10/"))
    return _rewrite_data(table, ref, lambda d: s.replace_column(d, "f1", [20] * d.num_rows))


@case(
    "bucket-key-mismatch",
    PK09,
    "BUCKET_KEY_MISMATCH",
    "a bucket-1 file recorded in bucket 0",
    deep=True,
)
def _bucket_key(table: Path) -> str:
    ref = s.find_live(table, lambda r: r.entry.bucket == 1)
    moved = ref.path.replace("bucket-1", "bucket-0")
    (table / ref.path).rename(table / moved)
    s.edit_entry(table, ref.entry.file.file_name, lambda e: replace(e, bucket=0))
    return moved


@case(
    "file-index-mismatch",
    BITMAP_TABLE,
    "FILE_INDEX_MISMATCH",
    "bitmap of f1 from other rows",
    deep=True,
)
def _file_index_mismatch(table: Path) -> str:
    column_type = t.IntType()

    def edit(meta: DataFileMeta) -> DataFileMeta:
        assert meta.embedded_index is not None
        container = decode_file_index(meta.embedded_index)
        wrong = bitmap.encode_bitmap_index(
            bitmap.build_bitmap_index(
                range(meta.row_count), column_type, version=bitmap.BitmapVersion.V1
            ),
            column_type,
        )
        columns = tuple(
            ColumnIndexes(c.column, tuple(ColumnIndex(i.index_type, wrong) for i in c.indexes))
            if c.column == "f1"
            else c
            for c in container.columns
        )
        return replace(meta, embedded_index=encode_file_index(FileIndex(columns)))

    return _edit_first_meta(table, edit)


@case("file-index-unreadable", BSI_TABLE, "FILE_INDEX_UNREADABLE", "garble the .index magic")
def _file_index_unreadable(table: Path) -> str:
    ref = s.live_files(table)[0]
    extra = str(Path(ref.path).parent / ref.entry.file.extra_files[0])
    s.flip_byte(table / extra, 0)
    return extra


# --------------------------------------------------------------------------------------------
# Deletion vectors and index files
# --------------------------------------------------------------------------------------------

DV_SIZE_BYTES = 4
DV_CHECKSUM_BYTES = 4
HASH_BYTES = 4


@case("dv-checksum", PK09, "DV_UNREADABLE", "flip a byte of a deletion vector's CRC")
def _dv_checksum(table: Path) -> str:
    entry = _live_index_entry(table, bucket=1)
    dv = _first_range(entry)
    checksum_at = dv.offset + DV_SIZE_BYTES + dv.length
    s.flip_byte(
        table / _index_file(entry.index_file.file_name), checksum_at + DV_CHECKSUM_BYTES - 1
    )
    return _index_file(entry.index_file.file_name)


@case("dv-cardinality", DV, "DV_CARDINALITY_MISMATCH", "_CARDINALITY 3 for one deleted row")
def _dv_cardinality(table: Path) -> str:
    entry = _live_index_entry(table, bucket=1)
    return _edit_ranges(table, entry, lambda rs: tuple(replace(r, cardinality=3) for r in rs))


@case("dv-position", DV, "DV_POSITION_OUT_OF_RANGE", "a vector deletes row 12 of 5")
def _dv_position(table: Path) -> str:
    entry = _live_index_entry(table, bucket=1)
    data_file = _first_range(entry).data_file_name
    data, ranges = encode_deletion_vector_file({data_file: build_deletion_vector([12])})
    (table / _index_file(entry.index_file.file_name)).write_bytes(data)
    new_ranges = tuple(
        DeletionVectorMeta(r.data_file_name, r.offset, r.length, r.cardinality) for r in ranges
    )
    return _edit_index_file(
        table, entry, lambda f: replace(f, file_size=len(data), dv_ranges=new_ranges)
    )


@case("dv-dangling", PK09, "DV_DANGLING", "a vector names a file that is not live")
def _dv_dangling(table: Path) -> str:
    entry = _live_index_entry(table, bucket=1)
    return _edit_ranges(
        table, entry, lambda rs: tuple(replace(r, data_file_name="data-gone.parquet") for r in rs)
    )


@case("dv-duplicate", DV, "DV_DUPLICATE", "two vectors for one data file")
def _dv_duplicate(table: Path) -> str:
    return _edit_ranges(table, _live_index_entry(table, bucket=0), lambda rs: rs + rs)


@case("index-file-missing", DV, "INDEX_FILE_MISSING", "delete a deletion-vectors file")
def _index_missing(table: Path) -> str:
    entry = _live_index_entry(table, bucket=0)
    (table / _index_file(entry.index_file.file_name)).unlink()
    return _index_file(entry.index_file.file_name)


@case("index-file-size", PK09, "INDEX_FILE_SIZE_MISMATCH", "index _FILE_SIZE + 5")
def _index_size(table: Path) -> str:
    entry = _live_index_entry(table, bucket=1)
    return _edit_index_file(table, entry, lambda f: replace(f, file_size=f.file_size + 5))


@case("index-row-count", PK09, "INDEX_ROW_COUNT_MISMATCH", "index _ROW_COUNT 7")
def _index_rows(table: Path) -> str:
    entry = _live_index_entry(table, bucket=1)
    return _edit_index_file(table, entry, lambda f: replace(f, row_count=7))


def _hash_entry(table: Path) -> IndexManifestEntry:
    snapshot = s.latest_snapshot(table)
    assert snapshot.index_manifest is not None
    entries = s.read_index_entries(table, snapshot.index_manifest)
    return max(entries, key=lambda e: (e.index_file.row_count, e.index_file.file_name))


@case("hash-index-truncated", DYNAMIC, "HASH_INDEX_UNREADABLE", "a HASH file of 1.5 ints")
def _hash_truncated(table: Path) -> str:
    entry = _hash_entry(table)
    path = table / _index_file(entry.index_file.file_name)
    path.write_bytes(path.read_bytes()[:6])
    return _index_file(entry.index_file.file_name)


@case("hash-index-missing-key", DYNAMIC, "HASH_INDEX_MISSING_KEY", "drop a key's hash", deep=True)
def _hash_missing_key(table: Path) -> str:
    entry = _hash_entry(table)
    path = table / _index_file(entry.index_file.file_name)
    data = path.read_bytes()[HASH_BYTES:]
    path.write_bytes(data)
    return _edit_index_file(
        table, entry, lambda f: replace(f, file_size=len(data), row_count=len(data) // HASH_BYTES)
    )


# --------------------------------------------------------------------------------------------
# Tags, consumers, branches
# --------------------------------------------------------------------------------------------


def _write_tag(table: Path, name: str, members: dict[str, Any]) -> str:
    (table / "tag").mkdir(exist_ok=True)
    s.write_json(table / "tag" / f"tag-{name}", members)
    return f"tag/tag-{name}"


@case("tag-dangling", PK09, "TAG_DANGLING", "a tag of snapshot 12 (latest is 8)")
def _tag_dangling(table: Path) -> str:
    members = s.read_json(s.snapshot_path(table, 8))
    members["id"] = 12
    return _write_tag(table, "future", members)


@case("tag-lost-manifests", PK09, "TAG_DANGLING", "a tag of expired snapshot 1 lost its list")
def _tag_lost(table: Path) -> str:
    members = s.read_json(s.snapshot_path(table, 1))
    members["deltaManifestList"] = "manifest-list-00000000-0000-0000-0000-000000000000-0"
    s.snapshot_path(table, 1).unlink()
    (table / "snapshot" / "EARLIEST").write_text("2")
    return _write_tag(table, "old", members)


@case(
    "tag-snapshot-mismatch", PK09, "TAG_SNAPSHOT_MISMATCH", "a tag of snapshot 3 with another time"
)
def _tag_mismatch(table: Path) -> str:
    members = s.read_json(s.snapshot_path(table, 3))
    members["timeMillis"] += 1
    return _write_tag(table, "moved", members)


@case("tag-unreadable", PK09, "TAG_UNREADABLE", "a tag file that is not JSON")
def _tag_unreadable(table: Path) -> str:
    (table / "tag").mkdir(exist_ok=True)
    (table / "tag" / "tag-broken").write_text("{not json")
    return "tag/tag-broken"


def _write_consumer(table: Path, name: str, text: str) -> str:
    (table / "consumer").mkdir(exist_ok=True)
    (table / "consumer" / f"consumer-{name}").write_text(text)
    return f"consumer/consumer-{name}"


@case("consumer-ahead", PK09, "CONSUMER_AHEAD", "a consumer expecting snapshot 42")
def _consumer_ahead(table: Path) -> str:
    return _write_consumer(table, "reader", '{"nextSnapshot" : 42}')


@case("consumer-expired", PK09, "CONSUMER_EXPIRED", "a consumer behind the earliest snapshot")
def _consumer_expired(table: Path) -> str:
    s.snapshot_path(table, 1).unlink()
    (table / "snapshot" / "EARLIEST").write_text("2")
    return _write_consumer(table, "slow", '{"nextSnapshot" : 1}')


@case("consumer-unreadable", PK09, "CONSUMER_UNREADABLE", "a consumer file that is not JSON")
def _consumer_unreadable(table: Path) -> str:
    return _write_consumer(table, "broken", "next=3")


@case("branch-without-schema", PK09, "BRANCH_INVALID", "a branch directory without schema")
def _branch(table: Path) -> str:
    snapshots = table / "branch" / "branch-dev" / "snapshot"
    snapshots.mkdir(parents=True)
    (snapshots / "snapshot-1").write_bytes(s.snapshot_path(table, 1).read_bytes())
    return "branch/branch-dev"
