"""Manifest lists, data manifests and index manifests in Avro, ORC and Parquet.

Oracles, never the codec under test:

* the Java-written third-party tables: file names and sizes on disk, partition directory names
  (partition rows hand-encoded from them), snapshot record counts, index files and the roaring
  bitmaps inside them (read with pyroaring);
* generic readers of the containers (fastavro's own ``reader``, pyarrow) for field values;
* Avro files written by Java (their exact bytes and writer schemas);
* the Java 0.9 oracle jar (``java`` marker): it reads tables whose manifests we rewrote.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.orc as pa_orc
import pyarrow.parquet as pa_parquet
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyroaring import BitMap

from reference import layout
from reference.errors import (
    InvalidOptionError,
    PaimonFormatError,
    SpecViolation,
    UnsupportedFeature,
)
from reference.spec import avro_container as avro
from reference.spec import manifest as m
from reference.spec.data import Timestamp
from reference.spec.data_file import DataFileMeta, FileSource, MetaFileKind
from reference.spec.stats import EMPTY_STATS, SimpleStats
from reference.spec.types import BigIntType, DataField, IntType, VarCharType

TABLES = "paimon-cpp/parquet"
AVRO_DIR = "paimon-cpp/avro/manifest"
DV_MAGIC = 1_581_511_376  # tableindex.md: magic of a 32-bit roaring deletion vector
DV_SIZE_FIELD = 4
DV_CHECKSUM_FIELD = 4

AVRO, ORC, PARQUET = m.ManifestFormat.AVRO, m.ManifestFormat.ORC, m.ManifestFormat.PARQUET
LIST, MANIFEST, INDEX = (
    MetaFileKind.MANIFEST_LIST,
    MetaFileKind.MANIFEST,
    MetaFileKind.INDEX_MANIFEST,
)

DECODE: dict[MetaFileKind, Callable[[bytes, m.ManifestFormat], list[Any]]] = {
    LIST: m.decode_manifest_list,
    MANIFEST: m.decode_manifest_entries,
    INDEX: m.decode_index_manifest,
}
ENCODE: dict[MetaFileKind, Callable[..., bytes]] = {
    LIST: m.encode_manifest_list,
    MANIFEST: m.encode_manifest_entries,
    INDEX: m.encode_index_manifest,
}
ENCODE_ROW: dict[MetaFileKind, Callable[[Any, m.FieldSet], dict[str, Any]]] = {
    LIST: m.encode_manifest_file_meta_row,
    MANIFEST: m.encode_manifest_entry_row,
    INDEX: m.encode_index_manifest_entry_row,
}
ROW_TYPE = {
    LIST: m.compute_manifest_file_meta_type,
    MANIFEST: m.compute_manifest_entry_type,
    INDEX: m.compute_index_manifest_entry_type,
}


@dataclass(frozen=True)
class JavaFile:
    path: Path
    fmt: m.ManifestFormat
    kind: MetaFileKind

    def records(self) -> list[Any]:
        return DECODE[self.kind](self.path.read_bytes(), self.fmt)


def _kind_of(name: str) -> MetaFileKind:
    if name.startswith("manifest-list-") or name.startswith("avro_manifest_list"):
        return LIST
    if name.startswith("index-manifest-"):
        return INDEX
    return MANIFEST


def _tables(third_party: Path) -> list[Path]:
    return sorted(p for p in (third_party / TABLES).glob("*.db/*") if p.is_dir())


def _schema(table: Path) -> dict[str, Any]:
    latest = max(table.glob("schema/schema-*"), key=lambda p: int(p.name.split("-")[1]))
    schema: dict[str, Any] = json.loads(latest.read_text())
    return schema


def _format_of(table: Path) -> m.ManifestFormat:
    return m.ManifestFormat(_schema(table)["options"].get("manifest.format", "avro"))


def _table_files(table: Path) -> list[JavaFile]:
    fmt = _format_of(table)
    return [JavaFile(p, fmt, _kind_of(p.name)) for p in sorted((table / "manifest").iterdir())]


def _java_files(third_party: Path) -> list[JavaFile]:
    files = [f for table in _tables(third_party) for f in _table_files(table)]
    files += [
        JavaFile(p, AVRO, _kind_of(p.name)) for p in sorted((third_party / AVRO_DIR).iterdir())
    ]
    return files


def _int_partition_bytes(values: Sequence[int]) -> bytes:
    """A serialized BinaryRow of non-null INT fields, built by hand from the spec's layout.

    4-byte big-endian arity, a null bit set of 8-byte words (1 header byte + 1 bit per field),
    then one 8-byte little-endian slot per field.
    """
    words = (len(values) + 8 + 63) // 64
    slots = b"".join(v.to_bytes(4, "little", signed=True) + bytes(4) for v in values)
    return len(values).to_bytes(4, "big") + bytes(8 * words) + slots


def _partition_dirs(table: Path) -> dict[bytes, Path]:
    """Serialized partition row -> partition directory, from the ``k=v`` directories on disk."""
    keys = _schema(table)["partitionKeys"]
    if not keys:
        return {_int_partition_bytes([]): table}
    pattern = "/".join(["*=*"] * len(keys))
    out = {}
    for directory in table.glob(pattern):
        parts = directory.relative_to(table).parts
        assert [p.split("=")[0] for p in parts] == keys
        out[_int_partition_bytes([int(p.split("=")[1]) for p in parts])] = directory
    return out


# -- decoding Java-written files ---------------------------------------------------------------


def test_decodes_every_java_manifest_file(third_party: Path) -> None:
    files = _java_files(third_party)
    decoded = {(f.fmt, f.kind): 0 for f in files}
    for java_file in files:
        decoded[(java_file.fmt, java_file.kind)] += len(java_file.records())
    assert set(decoded) == {
        (AVRO, LIST),
        (AVRO, MANIFEST),
        (AVRO, INDEX),
        (ORC, LIST),
        (ORC, MANIFEST),
    }
    assert all(count > 0 for count in decoded.values())


def _raw_rows(java_file: JavaFile) -> list[dict[str, Any]]:
    data = java_file.path.read_bytes()
    if java_file.fmt is AVRO:
        return list(fastavro.reader(io.BytesIO(data)))  # type: ignore[arg-type]
    rows: list[dict[str, Any]] = pa_orc.ORCFile(io.BytesIO(data)).read().to_pylist()
    return rows


def test_decoded_values_equal_a_generic_reader(third_party: Path) -> None:
    for java_file in _java_files(third_party):
        raw_rows, records = _raw_rows(java_file), java_file.records()
        assert len(raw_rows) == len(records), java_file.path
        for raw, record in zip(raw_rows, records, strict=True):
            if java_file.kind is LIST:
                assert (
                    raw["_FILE_NAME"],
                    raw["_FILE_SIZE"],
                    raw["_NUM_ADDED_FILES"],
                    raw["_NUM_DELETED_FILES"],
                    raw["_SCHEMA_ID"],
                ) == (
                    record.file_name,
                    record.file_size,
                    record.num_added_files,
                    record.num_deleted_files,
                    record.schema_id,
                )
                stats = raw["_PARTITION_STATS"]
                assert stats["_MIN_VALUES"] == record.partition_stats.min_values
                assert tuple(stats["_NULL_COUNTS"]) == record.partition_stats.null_counts
                assert raw.get("_MIN_BUCKET") == record.min_bucket
            elif java_file.kind is MANIFEST:
                file = raw["_FILE"]
                assert (raw["_KIND"], raw["_PARTITION"], raw["_BUCKET"], raw["_TOTAL_BUCKETS"]) == (
                    record.kind.value,
                    record.partition,
                    record.bucket,
                    record.total_buckets,
                )
                assert (
                    file["_FILE_NAME"],
                    file["_FILE_SIZE"],
                    file["_ROW_COUNT"],
                    file["_MIN_KEY"],
                    file["_LEVEL"],
                    file["_MIN_SEQUENCE_NUMBER"],
                    file["_MAX_SEQUENCE_NUMBER"],
                    file["_DELETE_ROW_COUNT"],
                    file["_EMBEDDED_FILE_INDEX"],
                    tuple(file["_EXTRA_FILES"]),
                ) == (
                    record.file.file_name,
                    record.file.file_size,
                    record.file.row_count,
                    record.file.min_key,
                    record.file.level,
                    record.file.min_sequence_number,
                    record.file.max_sequence_number,
                    record.file.delete_row_count,
                    record.file.embedded_index,
                    record.file.extra_files,
                )
                assert record.file.creation_time is not None
                assert record.file.creation_time.to_datetime() == file["_CREATION_TIME"].replace(
                    tzinfo=None
                )
            else:
                assert (
                    raw["_INDEX_TYPE"],
                    raw["_FILE_NAME"],
                    raw["_FILE_SIZE"],
                    raw["_ROW_COUNT"],
                ) == (
                    record.index_file.index_type,
                    record.index_file.file_name,
                    record.index_file.file_size,
                    record.index_file.row_count,
                )
            assert raw["_VERSION"] == (1 if java_file.kind is INDEX else 2)


def test_manifest_lists_point_to_manifests_with_their_sizes_and_counts(third_party: Path) -> None:
    checked = 0
    for table in _tables(third_party):
        fmt = _format_of(table)
        for java_file in (f for f in _table_files(table) if f.kind is LIST):
            for meta in java_file.records():
                path = table / "manifest" / meta.file_name
                assert path.stat().st_size == meta.file_size, path
                entries = m.decode_manifest_entries(path.read_bytes(), fmt)
                kinds = [entry.kind for entry in entries]
                assert meta.num_added_files == kinds.count(m.FileKind.ADD)
                assert meta.num_deleted_files == kinds.count(m.FileKind.DELETE)
                assert {entry.file.schema_id for entry in entries} <= {meta.schema_id, 0, 1}
                checked += 1
    assert checked > 30


def test_manifest_entries_point_to_data_files_on_disk(third_party: Path) -> None:
    checked = 0
    for table in _tables(third_party):
        partitions = _partition_dirs(table)
        options = _schema(table)["options"]
        for java_file in (f for f in _table_files(table) if f.kind is MANIFEST):
            for entry in java_file.records():
                path = partitions[entry.partition] / f"bucket-{entry.bucket}" / entry.file.file_name
                assert path.stat().st_size == entry.file.file_size, path
                assert entry.total_buckets == int(options.get("bucket", "-1"))
                for extra in entry.file.extra_files:
                    assert (path.parent / extra).exists()
                assert entry.file.min_sequence_number <= entry.file.max_sequence_number
                checked += 1
    assert checked > 50


def test_snapshot_record_counts_match_the_manifests(third_party: Path) -> None:
    checked = 0
    for table in _tables(third_party):
        fmt = _format_of(table)

        def entries(list_name: str, fmt: m.ManifestFormat = fmt, table: Path = table) -> list[Any]:
            metas = m.decode_manifest_list((table / "manifest" / list_name).read_bytes(), fmt)
            return [
                entry
                for meta in metas
                for entry in m.decode_manifest_entries(
                    (table / "manifest" / meta.file_name).read_bytes(), fmt
                )
            ]

        def added_minus_deleted(items: list[Any]) -> int:
            return sum(e.file.row_count * (1 if e.kind is m.FileKind.ADD else -1) for e in items)

        for snapshot_path in table.glob("snapshot/snapshot-*"):
            snapshot = json.loads(snapshot_path.read_text())
            base, delta = (
                entries(snapshot["baseManifestList"]),
                entries(snapshot["deltaManifestList"]),
            )
            assert added_minus_deleted(base + delta) == snapshot["totalRecordCount"], snapshot_path
            assert added_minus_deleted(delta) == snapshot["deltaRecordCount"], snapshot_path
            assert m.compute_record_count_delta(delta) == snapshot["deltaRecordCount"]
            for key in ("baseManifestList", "deltaManifestList"):
                if f"{key}Size" in snapshot:
                    assert (table / "manifest" / snapshot[key]).stat().st_size == snapshot[
                        f"{key}Size"
                    ]
            checked += 1
    assert checked >= 20


def test_index_manifests_point_to_deletion_vectors(third_party: Path) -> None:
    checked = 0
    for table in _tables(third_party):
        partitions = _partition_dirs(table)
        in_data_dir = _schema(table)["options"].get("index-file-in-data-file-dir") == "true"
        for java_file in (f for f in _table_files(table) if f.kind is INDEX):
            for entry in java_file.records():
                index_file = entry.index_file
                bucket_dir = partitions[entry.partition] / f"bucket-{entry.bucket}"
                path = layout.index_file_location(
                    str(table),
                    index_file.file_name,
                    external_path=index_file.external_path,
                    bucket_directory=str(bucket_dir) if in_data_dir else None,
                )
                data = Path(path).read_bytes()
                assert len(data) == index_file.file_size
                assert index_file.index_type == m.DELETION_VECTORS_INDEX_TYPE
                assert index_file.dv_ranges is not None
                assert index_file.row_count == len(index_file.dv_ranges)
                for dv in index_file.dv_ranges:
                    assert (
                        int.from_bytes(data[dv.offset : dv.offset + DV_SIZE_FIELD], "big")
                        == dv.length
                    )
                    assert dv.offset + DV_SIZE_FIELD + dv.length + DV_CHECKSUM_FIELD <= len(data)
                    body = data[dv.offset + DV_SIZE_FIELD : dv.offset + DV_SIZE_FIELD + dv.length]
                    assert int.from_bytes(body[:4], "big") == DV_MAGIC
                    deleted = BitMap.deserialize(body[4:])
                    if dv.cardinality is not None:
                        assert len(deleted) == dv.cardinality
                    assert (bucket_dir / dv.data_file_name).exists()
                    checked += 1
    assert checked >= 3


def test_paimon_cpp_avro_manifest_samples(third_party: Path) -> None:
    directory = third_party / AVRO_DIR
    for version in ("09", "11"):
        [meta] = m.decode_manifest_list(
            (directory / f"avro_manifest_list_{version}").read_bytes(), AVRO
        )
        manifest = directory / f"avro_manifest_{version}"
        assert meta.file_size == manifest.stat().st_size  # the list describes the sample manifest
        entries = m.decode_manifest_entries(manifest.read_bytes(), AVRO)
        assert meta.num_added_files == len(entries) == 1
        assert entries[0].file.file_source is FileSource.APPEND
        assert entries[0].file.value_stats_cols is None and entries[0].file.external_path is None
    [meta_11] = m.decode_manifest_list((directory / "avro_manifest_list_11").read_bytes(), AVRO)
    assert (meta_11.min_bucket, meta_11.max_bucket, meta_11.min_level, meta_11.max_level) == (
        0,
        0,
        0,
        0,
    )
    [meta_09] = m.decode_manifest_list((directory / "avro_manifest_list_09").read_bytes(), AVRO)
    assert meta_09.min_bucket is None
    big = m.decode_manifest_entries((directory / "manifest").read_bytes(), AVRO)
    assert all(0 <= e.bucket < e.total_buckets == 6 for e in big)
    assert all(e.file.key_stats.null_counts == (None, None) for e in big)
    expected_sets = {
        "avro_manifest_09": m.FieldSet.PAIMON_0_9,
        "avro_manifest_list_09": m.FieldSet.PAIMON_0_9,
        "avro_manifest_11": m.FieldSet.PAIMON_1_0,
        "avro_manifest_list_11": m.FieldSet.PAIMON_1_1,
        "manifest": m.FieldSet.PAIMON_1_0,
    }
    for name, field_set in expected_sets.items():
        data = (directory / name).read_bytes()
        assert m.detect_field_set(data, AVRO, _kind_of(name)) is field_set


# -- re-encoding Java-written files ------------------------------------------------------------


def test_reencoding_every_manifest_record_of_the_third_party_tables_gives_back_the_same_records(
    third_party: Path,
) -> None:
    files = _java_files(third_party)
    for java_file in files:
        data = java_file.path.read_bytes()
        records = DECODE[java_file.kind](data, java_file.fmt)
        field_set = m.detect_field_set(data, java_file.fmt, java_file.kind)
        encoded = ENCODE[java_file.kind](records, java_file.fmt, field_set=field_set)
        assert DECODE[java_file.kind](encoded, java_file.fmt) == records, java_file.path
    assert len(files) >= 90


def test_avro_reencoding_with_the_java_header_is_byte_identical(third_party: Path) -> None:
    """With Java's writer schema, codec and sync marker copied, our Avro bytes are Java's."""
    files = [f for f in _java_files(third_party) if f.fmt is AVRO]
    for java_file in files:
        data = java_file.path.read_bytes()
        header = avro.decode_avro_header(data)
        field_set = m.detect_field_set(data, AVRO, java_file.kind)
        rows = [ENCODE_ROW[java_file.kind](r, field_set) for r in java_file.records()]
        encoded = avro.encode_avro_container(
            rows, header.schema_json, header.codec, sync_marker=header.sync_marker, zstd_level=1
        )
        assert encoded == data, java_file.path
    assert len(files) >= 80


def _avro_field_paths(schema: Any, prefix: str = "") -> set[str]:
    if isinstance(schema, list):
        return set().union(*(_avro_field_paths(branch, prefix) for branch in schema))
    if isinstance(schema, dict) and schema.get("type") == "array":
        return _avro_field_paths(schema["items"], prefix)
    if isinstance(schema, dict) and schema.get("type") == "record":
        paths: set[str] = set()
        for member in schema["fields"]:
            name = prefix + member["name"]
            paths |= {name} | _avro_field_paths(member["type"], name + ".")
        return paths
    return set()


def test_generated_avro_schema_is_javas_for_release_field_sets(third_party: Path) -> None:
    """Files holding exactly a release's fields (0.9.0+ shape) are reproduced byte for byte."""
    matched = set()
    for java_file in (f for f in _java_files(third_party) if f.fmt is AVRO):
        data = java_file.path.read_bytes()
        header = avro.decode_avro_header(data)
        schema = json.loads(header.schema_json)
        if isinstance(schema, list):
            continue  # written by a 0.9 snapshot before the records became NOT NULL
        for field_set in m.FieldSet:
            ours = avro.compute_avro_schema_json(ROW_TYPE[java_file.kind](field_set))
            if _avro_field_paths(json.loads(ours)) == _avro_field_paths(schema):
                assert ours == header.schema_json, java_file.path
                encoded = ENCODE[java_file.kind](
                    java_file.records(),
                    AVRO,
                    field_set=field_set,
                    avro_sync_marker=header.sync_marker,
                )
                assert encoded == data, java_file.path
                matched.add((java_file.kind, field_set))
                break
    assert {kind for kind, _ in matched} == {LIST, MANIFEST, INDEX}
    assert {field_set for _, field_set in matched} >= {
        m.FieldSet.PAIMON_1_0,
        m.FieldSet.PAIMON_1_1,
        m.FieldSet.PAIMON_1_3,
    }


def test_orc_files_keep_javas_column_layout(third_party: Path) -> None:
    for java_file in (f for f in _java_files(third_party) if f.fmt is ORC):
        data = java_file.path.read_bytes()
        field_set = m.detect_field_set(data, ORC, java_file.kind)
        ours = ENCODE[java_file.kind](java_file.records(), ORC, field_set=field_set)
        java_schema = pa_orc.ORCFile(io.BytesIO(data)).schema
        assert pa_orc.ORCFile(io.BytesIO(ours)).schema.equals(java_schema), java_file.path
        assert pa_orc.ORCFile(io.BytesIO(ours)).compression == "ZSTD"


# -- round trips of generated records ----------------------------------------------------------

MIN_LONG, MAX_LONG = -(2**63), 2**63 - 1
MIN_INT, MAX_INT = -(2**31), 2**31 - 1
# Creation times within 1900..2200: ORC holds timestamps as nanoseconds in a long.
MIN_CREATION_MILLIS, MAX_CREATION_MILLIS = -2_208_988_800_000, 7_258_118_400_000

longs = st.integers(MIN_LONG, MAX_LONG)
ints = st.integers(MIN_INT, MAX_INT)
names = st.text(max_size=20)
blobs = st.binary(max_size=24)


def _since(field_set: m.FieldSet, since: m.FieldSet, values: st.SearchStrategy[Any]) -> Any:
    """``values`` (or None) when ``field_set`` has the field, else always None."""
    return st.one_of(st.none(), values) if m.is_field_in_set(since, field_set) else st.none()


simple_stats = st.builds(
    SimpleStats, blobs, blobs, st.lists(st.one_of(st.none(), longs), max_size=4).map(tuple)
)


def data_file_metas(field_set: m.FieldSet) -> st.SearchStrategy[DataFileMeta]:
    return st.builds(
        DataFileMeta,
        file_name=names,
        file_size=longs,
        row_count=longs,
        min_key=blobs,
        max_key=blobs,
        key_stats=simple_stats,
        value_stats=simple_stats,
        min_sequence_number=longs,
        max_sequence_number=longs,
        schema_id=longs,
        level=ints,
        extra_files=st.lists(names, max_size=3).map(tuple),
        creation_time=st.one_of(
            st.none(), st.integers(MIN_CREATION_MILLIS, MAX_CREATION_MILLIS).map(Timestamp)
        ),
        delete_row_count=st.one_of(st.none(), longs),
        embedded_index=st.one_of(st.none(), blobs),
        file_source=st.one_of(st.none(), st.sampled_from(FileSource)),
        value_stats_cols=_since(field_set, m.FieldSet.PAIMON_1_0, st.lists(names).map(tuple)),
        external_path=_since(field_set, m.FieldSet.PAIMON_1_0, names),
        first_row_id=_since(field_set, m.FieldSet.PAIMON_1_3, longs),
        write_cols=_since(field_set, m.FieldSet.PAIMON_1_3, st.lists(names).map(tuple)),
        write_cols_sequences=_since(
            field_set, m.FieldSet.PAIMON_MAIN, st.lists(longs, max_size=3).map(tuple)
        ),
    )


def manifest_file_metas(field_set: m.FieldSet) -> st.SearchStrategy[m.ManifestFileMeta]:
    v11, v14 = m.FieldSet.PAIMON_1_1, m.FieldSet.PAIMON_1_4
    return st.builds(
        m.ManifestFileMeta,
        file_name=names,
        file_size=longs,
        num_added_files=longs,
        num_deleted_files=longs,
        partition_stats=simple_stats,
        schema_id=longs,
        min_bucket=_since(field_set, v11, ints),
        max_bucket=_since(field_set, v11, ints),
        min_level=_since(field_set, v11, ints),
        max_level=_since(field_set, v11, ints),
        min_row_id=_since(field_set, v14, longs),
        max_row_id=_since(field_set, v14, longs),
    )


def manifest_entries(field_set: m.FieldSet) -> st.SearchStrategy[m.ManifestEntry]:
    return st.builds(
        m.ManifestEntry, st.sampled_from(m.FileKind), blobs, ints, ints, data_file_metas(field_set)
    )


def index_manifest_entries(field_set: m.FieldSet) -> st.SearchStrategy[m.IndexManifestEntry]:
    dv = st.builds(
        m.DeletionVectorMeta,
        names,
        ints,
        ints,
        _since(field_set, m.FieldSet.PAIMON_1_0, longs),
    )
    global_index = st.builds(
        m.GlobalIndexMeta,
        longs,
        longs,
        ints,
        st.one_of(st.none(), st.lists(ints, max_size=3).map(tuple)),
        st.one_of(st.none(), blobs),
        _since(field_set, m.FieldSet.PAIMON_2_0, blobs),
    )
    index_file = st.builds(
        m.IndexFileMeta,
        st.sampled_from([m.HASH_INDEX_TYPE, m.DELETION_VECTORS_INDEX_TYPE, "btree"]),
        names,
        longs,
        longs,
        st.one_of(st.none(), st.lists(dv, max_size=3).map(tuple)),
        _since(field_set, m.FieldSet.PAIMON_1_3, names),
        _since(field_set, m.FieldSet.PAIMON_1_4, global_index),
    )
    return st.builds(m.IndexManifestEntry, st.sampled_from(m.FileKind), blobs, ints, index_file)


STRATEGIES: dict[MetaFileKind, Callable[[m.FieldSet], st.SearchStrategy[Any]]] = {
    LIST: manifest_file_metas,
    MANIFEST: manifest_entries,
    INDEX: index_manifest_entries,
}

ROUND_TRIP_CASES = [
    (fmt, kind, field_set)
    for fmt in m.ManifestFormat
    for kind in STRATEGIES
    for field_set in (
        m.FieldSet if fmt is AVRO else (m.FieldSet.PAIMON_0_9, m.FieldSet.PAIMON_MAIN)
    )
]


@pytest.mark.parametrize(("fmt", "kind", "field_set"), ROUND_TRIP_CASES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_round_trip(
    fmt: m.ManifestFormat, kind: MetaFileKind, field_set: m.FieldSet, data: st.DataObject
) -> None:
    records = data.draw(st.lists(STRATEGIES[kind](field_set), max_size=4))
    encoded = ENCODE[kind](records, fmt, field_set=field_set)
    assert DECODE[kind](encoded, fmt) == records
    detected = m.detect_field_set(encoded, fmt, kind)
    assert ROW_TYPE[kind](detected) == ROW_TYPE[kind](field_set)


def _entry(**file_fields: Any) -> m.ManifestEntry:
    meta = DataFileMeta(
        "data-x.parquet",
        10,
        2,
        b"k",
        b"k",
        EMPTY_STATS,
        EMPTY_STATS,
        0,
        1,
        0,
        0,
        (),
        Timestamp(1_700_000_000_123),
        0,
        None,
        FileSource.APPEND,
    )
    return m.ManifestEntry(m.FileKind.ADD, b"p", 0, 1, dataclasses.replace(meta, **file_fields))


def test_older_field_set_refuses_values_it_cannot_hold() -> None:
    entry = _entry(external_path="s3://b/x")
    with pytest.raises(UnsupportedFeature, match="_EXTERNAL_PATH"):
        m.encode_manifest_entries([entry], AVRO)  # default: the 0.9 set
    encoded = m.encode_manifest_entries([entry], AVRO, field_set=m.FieldSet.PAIMON_1_0)
    assert m.decode_manifest_entries(encoded, AVRO) == [entry]
    meta = m.ManifestFileMeta("manifest-x", 1, 1, 0, EMPTY_STATS, 0, min_row_id=3)
    with pytest.raises(UnsupportedFeature, match="_MIN_ROW_ID"):
        m.encode_manifest_list([meta], ORC, field_set=m.FieldSet.PAIMON_1_3)


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        (_entry(level=2**31), "out of range"),
        (_entry(file_size=2**63), "out of range"),
        (dataclasses.replace(_entry(), bucket=-(2**31) - 1), "out of range"),
        (_entry(file_name=None), "NOT NULL"),
        (_entry(extra_files=(1,)), "expected a string"),
        (_entry(min_key="text"), "expected bytes"),
    ],
)
def test_records_that_do_not_fit_the_schema_are_refused(
    entry: m.ManifestEntry, reason: str
) -> None:
    for fmt in m.ManifestFormat:
        with pytest.raises(SpecViolation, match=reason):
            m.encode_manifest_entries([entry], fmt)


@pytest.mark.parametrize(
    ("fmt", "compression"),
    [(AVRO, c) for c in ("zstd", "none", "null", "deflate", "snappy", "bzip2", "xz")]
    + [(ORC, c) for c in ("zstd", "none", "snappy", "lz4", "zlib")]
    + [(PARQUET, c) for c in ("zstd", "none", "snappy", "gzip", "lz4")],
)
def test_compressions(fmt: m.ManifestFormat, compression: str) -> None:
    entries = [_entry(file_name=f"data-{i}.parquet") for i in range(3)]
    encoded = m.encode_manifest_entries(entries, fmt, compression=compression)
    assert m.decode_manifest_entries(encoded, fmt) == entries
    if fmt is AVRO:
        expected = {"zstd": "zstandard", "none": "null"}.get(compression, compression)
        assert fastavro.reader(io.BytesIO(encoded)).codec == expected


@pytest.mark.parametrize(("fmt", "compression"), [(AVRO, "lz4"), (ORC, "brotli"), (PARQUET, "xz")])
def test_unknown_compressions(fmt: m.ManifestFormat, compression: str) -> None:
    with pytest.raises(UnsupportedFeature):
        m.encode_manifest_entries([_entry()], fmt, compression=compression)


def test_empty_files_round_trip() -> None:
    for fmt in m.ManifestFormat:
        for kind in STRATEGIES:
            assert DECODE[kind](ENCODE[kind]([], fmt), fmt) == []


def test_avro_blocks_are_cut_at_the_sync_interval() -> None:
    entries = [_entry(file_name=f"data-{i:06d}.parquet", min_key=bytes(200)) for i in range(600)]
    encoded = m.encode_manifest_entries(entries, AVRO)
    blocks = list(fastavro.block_reader(io.BytesIO(encoded)))
    assert len(blocks) > 1
    datum = len(fastavro_datum(entries[0]))
    for block in blocks[:-1]:
        # Java writes a block once at least 64000 uncompressed bytes are buffered.
        assert block.num_records == math.ceil(avro.AVRO_SYNC_INTERVAL / datum)
    assert m.decode_manifest_entries(encoded, AVRO) == entries


def fastavro_datum(entry: m.ManifestEntry) -> bytes:
    schema = fastavro.parse_schema(
        json.loads(
            avro.compute_avro_schema_json(m.compute_manifest_entry_type(m.DEFAULT_FIELD_SET))
        )
    )
    buffer = io.BytesIO()
    fastavro.schemaless_writer(
        buffer, schema, m.encode_manifest_entry_row(entry, m.DEFAULT_FIELD_SET)
    )
    return buffer.getvalue()


def test_default_sync_marker_is_deterministic() -> None:
    first = m.encode_manifest_entries([_entry()], AVRO)
    assert first == m.encode_manifest_entries([_entry()], AVRO)
    assert (
        avro.decode_avro_header(first).sync_marker
        != avro.decode_avro_header(
            m.encode_manifest_entries([_entry(row_count=3)], AVRO)
        ).sync_marker
    )


def test_parse_manifest_format() -> None:
    assert m.parse_manifest_format(" ORC ") is ORC
    with pytest.raises(InvalidOptionError, match=r"manifest\.format"):
        m.parse_manifest_format("csv")


# -- corrupted and malformed files -------------------------------------------------------------


def _sample_files(third_party: Path) -> list[JavaFile]:
    table = third_party / TABLES
    return [
        _table_files(table / "pk_09.db" / "pk_09")[0],
        next(f for f in _table_files(table / "append_09.db" / "append_09") if f.kind is LIST),
        next(f for f in _table_files(table / "append_09.db" / "append_09") if f.kind is MANIFEST),
        JavaFile(third_party / AVRO_DIR / "avro_manifest_list_11", AVRO, LIST),
    ]


def test_truncated_files_are_format_errors(third_party: Path) -> None:
    for java_file in _sample_files(third_party):
        data = java_file.path.read_bytes()
        body_offset = avro.decode_avro_header(data).body_offset if java_file.fmt is AVRO else -1
        for cut in range(0, len(data), 3 if java_file.fmt is AVRO else 11):
            if cut == body_offset:  # a header alone is a valid empty Avro file
                assert DECODE[java_file.kind](data[:cut], java_file.fmt) == []
                continue
            with pytest.raises(PaimonFormatError):
                DECODE[java_file.kind](data[:cut], java_file.fmt)


@pytest.mark.parametrize("fmt", list(m.ManifestFormat))
def test_wrong_magic_is_a_format_error(fmt: m.ManifestFormat) -> None:
    data = bytearray(m.encode_manifest_entries([_entry()], fmt))
    data[0] ^= 0xFF
    with pytest.raises(PaimonFormatError, match="magic"):
        m.decode_manifest_entries(bytes(data), fmt)
    if fmt is not AVRO:
        data = bytearray(m.encode_manifest_entries([_entry()], fmt))
        data[-2] ^= 0xFF  # inside the ORC postscript / the Parquet tail magic
        with pytest.raises(PaimonFormatError):
            m.decode_manifest_entries(bytes(data), fmt)


def test_a_file_in_another_format_is_a_format_error() -> None:
    for written in m.ManifestFormat:
        data = m.encode_manifest_list([], written)
        for read_as in m.ManifestFormat:
            if read_as is not written:
                with pytest.raises(PaimonFormatError):
                    m.decode_manifest_list(data, read_as)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), flips=st.integers(1, 4))
def test_avro_byte_flips_never_escape_as_other_errors(seed: int, flips: int) -> None:
    """A corrupted Avro manifest decodes (to other values) or fails with PaimonFormatError."""
    data = bytearray(AVRO_SAMPLE)
    rnd = random.Random(seed)
    for _ in range(flips):
        data[rnd.randrange(len(data))] ^= 1 << rnd.randrange(8)
    with contextlib.suppress(PaimonFormatError):
        m.decode_manifest_entries(bytes(data), AVRO)


AVRO_SAMPLE = m.encode_manifest_entries(
    [_entry(file_name=f"data-{i}.parquet", min_key=bytes([i]) * 9) for i in range(5)], AVRO
)


def test_flipped_sync_marker_is_detected() -> None:
    header = avro.decode_avro_header(AVRO_SAMPLE)
    data = bytearray(AVRO_SAMPLE)
    data[-1] ^= 0x01  # the sync marker after the only block
    with pytest.raises(PaimonFormatError, match="sync marker"):
        m.decode_manifest_entries(bytes(data), AVRO)
    assert header.codec == "zstandard"


MANIFEST_LIST_09_SCHEMA = avro.compute_avro_schema(
    m.compute_manifest_file_meta_type(m.FieldSet.PAIMON_0_9)
)


def _fastavro_file(schema: dict[str, Any], records: list[Any]) -> bytes:
    """An Avro file written by fastavro itself, independently of our container writer."""
    buffer = io.BytesIO()
    fastavro.writer(buffer, fastavro.parse_schema(schema), records)
    return buffer.getvalue()


def _list_row(**changes: Any) -> dict[str, Any]:
    row = {
        "_VERSION": 2,
        "_FILE_NAME": "manifest-x",
        "_FILE_SIZE": 1,
        "_NUM_ADDED_FILES": 1,
        "_NUM_DELETED_FILES": 0,
        "_SCHEMA_ID": 0,
        "_PARTITION_STATS": {"_MIN_VALUES": b"", "_MAX_VALUES": b"", "_NULL_COUNTS": []},
    }
    row.update(changes)
    return row


def _schema_without(field: str) -> dict[str, Any]:
    schema = json.loads(json.dumps(MANIFEST_LIST_09_SCHEMA))
    schema["fields"] = [f for f in schema["fields"] if f["name"] != field]
    return dict(schema)


def test_fastavro_written_list_decodes() -> None:
    [meta] = m.decode_manifest_list(_fastavro_file(MANIFEST_LIST_09_SCHEMA, [_list_row()]), AVRO)
    assert meta == m.ManifestFileMeta("manifest-x", 1, 1, 0, SimpleStats(b"", b"", ()), 0)


@pytest.mark.parametrize("field", ["_FILE_NAME", "_VERSION", "_PARTITION_STATS", "_SCHEMA_ID"])
def test_missing_required_avro_field_is_a_format_error(field: str) -> None:
    row = {k: v for k, v in _list_row().items() if k != field}
    data = _fastavro_file(_schema_without(field), [row])
    with pytest.raises(PaimonFormatError, match=field):
        m.decode_manifest_list(data, AVRO)


@pytest.mark.parametrize("fmt", [ORC, PARQUET])
def test_missing_required_column_is_a_format_error(fmt: m.ManifestFormat) -> None:
    table = pa.Table.from_pylist([{"_VERSION": 2, "_FILE_NAME": "x"}])
    sink = pa.BufferOutputStream()
    if fmt is ORC:
        pa_orc.write_table(table, sink)
    else:
        pa_parquet.write_table(table, sink)
    with pytest.raises(PaimonFormatError, match="_FILE_SIZE"):
        m.decode_manifest_list(sink.getvalue().to_pybytes(), fmt)


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"_VERSION": 1}, "format identifier 1"),
        ({"_VERSION": 3}, "format identifier 3"),
        (
            {"_PARTITION_STATS": {"_MIN_VALUES": b"", "_MAX_VALUES": b"", "_NULL_COUNTS": None}},
            "_NULL_COUNTS",
        ),
    ],
)
def test_invalid_avro_values_are_format_errors(changes: dict[str, Any], reason: str) -> None:
    schema = json.loads(json.dumps(MANIFEST_LIST_09_SCHEMA))
    stats_schema = schema["fields"][5]["type"]
    stats_schema["fields"][2]["type"] = ["null", {"type": "array", "items": ["null", "long"]}]
    data = _fastavro_file(schema, [_list_row(**changes)])
    with pytest.raises(PaimonFormatError, match=reason):
        m.decode_manifest_list(data, AVRO)


def test_null_top_level_record_and_bad_kinds_are_format_errors() -> None:
    nullable = ["null", MANIFEST_LIST_09_SCHEMA]  # the pre-0.9.0 shape
    with pytest.raises(PaimonFormatError, match="not a row"):
        m.decode_manifest_list(_fastavro_file({"type": "array", "items": "int"}, [[1]]), AVRO)
    buffer = io.BytesIO()
    fastavro.writer(buffer, fastavro.parse_schema(nullable), [None])
    with pytest.raises(PaimonFormatError, match="not a row"):
        m.decode_manifest_list(buffer.getvalue(), AVRO)
    row: dict[str, Any] = m.encode_manifest_entry_row(_entry(), m.DEFAULT_FIELD_SET)
    schema = avro.compute_avro_schema(m.compute_manifest_entry_type(m.DEFAULT_FIELD_SET))
    cases: list[tuple[dict[str, Any], str]] = [
        ({"_KIND": 7}, "unknown file kind 7"),
        ({"_FILE": {**row["_FILE"], "_FILE_SOURCE": 9}}, "unknown file source"),
    ]
    for changes, reason in cases:
        with pytest.raises(PaimonFormatError, match=reason):
            m.decode_manifest_entries(_fastavro_file(schema, [{**row, **changes}]), AVRO)


def test_detect_field_set_rejects_unknown_fields() -> None:
    schema = json.loads(json.dumps(MANIFEST_LIST_09_SCHEMA))
    schema["fields"].append({"name": "_FROM_THE_FUTURE", "type": ["null", "int"], "default": None})
    data = _fastavro_file(schema, [_list_row(_FROM_THE_FUTURE=1)])
    assert m.decode_manifest_list(data, AVRO)[0].file_name == "manifest-x"  # skipped, as Java
    with pytest.raises(UnsupportedFeature, match="_FROM_THE_FUTURE"):
        m.detect_field_set(data, AVRO, LIST)


# -- Java 0.9 reads what we write --------------------------------------------------------------

JAVA_FIELDS = [
    DataField(0, "k", IntType(nullable=False)),
    DataField(1, "p", IntType(nullable=False)),
    DataField(2, "v", VarCharType(100)),
    DataField(3, "n", BigIntType()),
]


def _rewrite_manifests(table: Path, fmt: m.ManifestFormat, field_set: m.FieldSet) -> int:
    """Re-encode every manifest of ``table`` with our codec; returns how many files changed."""
    directory = table / "manifest"
    sizes = {}
    for path in sorted(directory.iterdir()):
        kind = _kind_of(path.name)
        if kind is LIST:
            continue
        data = path.read_bytes()
        header_sync = avro.decode_avro_header(data).sync_marker if fmt is AVRO else None
        encoded = ENCODE[kind](
            DECODE[kind](data, fmt), fmt, field_set=field_set, avro_sync_marker=header_sync
        )
        path.write_bytes(encoded)
        sizes[path.name] = len(encoded)
    for path in sorted(directory.glob("manifest-list-*")):
        metas = m.decode_manifest_list(path.read_bytes(), fmt)
        fixed = [dataclasses.replace(meta, file_size=sizes[meta.file_name]) for meta in metas]
        path.write_bytes(m.encode_manifest_list(fixed, fmt, field_set=field_set))
    return len(sizes)


@pytest.mark.java
@pytest.mark.parametrize("field_set", [m.DEFAULT_FIELD_SET, m.LATEST_FIELD_SET])
@pytest.mark.parametrize("fmt", list(m.ManifestFormat))
def test_java_09_reads_tables_whose_manifests_we_rewrote(
    java_harness: Any,
    tmp_path: Path,
    fmt: m.ManifestFormat,
    field_set: m.FieldSet,
) -> None:
    table = tmp_path / "t"
    java_harness.create_table(
        table,
        JAVA_FIELDS,
        partition_keys=["p"],
        primary_keys=["k", "p"],
        options={"bucket": "2", "manifest.format": fmt.value, "deletion-vectors.enabled": "true"},
    )
    first = [(k, k % 2, f"v{k}", k * 10) for k in range(8)]
    java_harness.write(table, first, commit=True)
    java_harness.compact(table, full=True, commit=True)
    second = [(k, k % 2, None, None) for k in range(0, 8, 3)]
    java_harness.write(table, second, commit=True)
    java_harness.compact(table, full=False, commit=True)  # deletion vectors: an index manifest
    if fmt is AVRO and field_set is m.DEFAULT_FIELD_SET:
        # Paimon 0.9.0's own Avro manifests are byte-for-byte what we write.
        for path in (table / "manifest").iterdir():
            kind = _kind_of(path.name)
            data = path.read_bytes()
            sync = avro.decode_avro_header(data).sync_marker
            assert ENCODE[kind](DECODE[kind](data, AVRO), AVRO, avro_sync_marker=sync) == data
    kinds = {_kind_of(path.name) for path in (table / "manifest").iterdir()}
    assert kinds == {LIST, MANIFEST, INDEX}
    assert _rewrite_manifests(table, fmt, field_set) > 0
    expected = {row[0]: row for row in first} | {row[0]: row for row in second}
    rows = [row for _, row in java_harness.read(table).rows]
    assert sorted(rows) == sorted(expected.values())
