"""Data file names, directories, external paths and column layouts.

Expected values: the file and directory names in the Java-written third-party tables, the column
names and Parquet field ids of their data files (read with pyarrow), the spec's examples, and
hand-computed values (escapes, murmur3 reference vectors, entropy directories).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from reference.errors import PaimonFormatError
from reference.spec import data_file as df
from reference.spec.data import Timestamp
from reference.spec.stats import EMPTY_STATS
from reference.spec.types import BigIntType, DataField, IntType, TinyIntType, parse_data_field

TABLES = "paimon-cpp/parquet"
UUID = "51c16f7b-421c-4bc0-80a0-17677f343358"


def _table_dirs(third_party: Path) -> list[Path]:
    return sorted(p for p in (third_party / TABLES).glob("*.db/*") if p.is_dir())


def _files(third_party: Path) -> list[Path]:
    return sorted(
        Path(root) / name
        for table in _table_dirs(third_party)
        for root, _, names in os.walk(table)
        for name in names
    )


def _schema(table: Path, schema_id: int = 0) -> dict[str, object]:
    schema: dict[str, object] = json.loads((table / "schema" / f"schema-{schema_id}").read_text())
    return schema


# -- data file names --------------------------------------------------------------------------


def test_every_java_data_file_name_parses_and_rebuilds(third_party: Path) -> None:
    data_files = [p for p in _files(third_party) if p.suffix == ".parquet"]
    assert len(data_files) > 20
    for path in data_files:
        parsed = df.parse_data_file_name(path.name)
        assert parsed.prefix == df.DATA_FILE_PREFIX
        assert parsed.file_format == "parquet"
        assert parsed.extension == "parquet"
        assert path.name.startswith(f"data-{parsed.uuid}-{parsed.count}.")
        rebuilt = df.compute_data_file_name(
            parsed.prefix, parsed.uuid, parsed.count, df.compute_data_file_extension("parquet")
        )
        assert rebuilt == path.name


def test_spec_example_names() -> None:
    name = "data-ca1c3c38-dc8d-4533-949b-82e195b41bd4-0.orc"  # datafile.md
    parsed = df.parse_data_file_name(name)
    assert (parsed.prefix, parsed.uuid, parsed.count, parsed.file_format) == (
        "data-",
        "ca1c3c38-dc8d-4533-949b-82e195b41bd4",
        0,
        "orc",
    )
    changelog = df.parse_data_file_name(f"changelog-{UUID}-12.parquet")
    assert changelog.prefix == df.CHANGELOG_FILE_PREFIX and changelog.count == 12
    assert df.is_changelog_file_name(f"changelog-{UUID}-12.parquet")
    assert not df.is_changelog_file_name(name)
    assert df.parse_data_file_name(f"my-prefix-{UUID}-3.avro").prefix == "my-prefix-"


@pytest.mark.parametrize(
    ("file_format", "compression", "include", "extension"),
    [
        ("parquet", "zstd", False, ".parquet"),
        ("parquet", "zstd", True, ".zst.parquet"),
        ("orc", "lz4", True, ".lz4.orc"),
        ("avro", "snappy", True, ".snappy.avro"),
        ("parquet", "none", True, ".parquet"),
        ("parquet", None, True, ".parquet"),
        ("json", "gzip", False, ".json.gz"),
        ("csv", "bzip2", True, ".csv.bz2"),
        ("parquet", "brotli", True, ".brotli.parquet"),
    ],
)
def test_extensions(
    file_format: str, compression: str | None, include: bool, extension: str
) -> None:
    computed = df.compute_data_file_extension(
        file_format, compression, suffix_include_compression=include
    )
    assert computed == extension
    name = df.compute_data_file_name("data-", UUID, 7, computed)
    parsed = df.parse_data_file_name(name)
    assert parsed.file_format == file_format
    assert parsed.extension == extension[1:]
    assert df.compute_format_identifier(name) == file_format


@pytest.mark.parametrize(
    "name",
    [
        "data.parquet",
        "data-not-a-uuid-0.parquet",
        f"data-{UUID}.parquet",
        f"data-{UUID}-x.parquet",
        f"data-{UUID}-0",
        f"data-{UUID}-0.parquet.index",
    ],
)
def test_bad_data_file_names(name: str) -> None:
    with pytest.raises(PaimonFormatError):
        df.parse_data_file_name(name)


def test_file_index_file_names(third_party: Path) -> None:
    index_files = [p for p in _files(third_party) if p.name.endswith(".index")]
    assert index_files, "append_with_bsi has a file-index file"
    for path in index_files:
        assert df.is_file_index_file_name(path.name)
        data_name = path.name[: -len(".index")]
        assert df.compute_file_index_file_name(data_name) == path.name
        assert df.parse_data_file_name(data_name).file_format == "parquet"


# -- meta file names ---------------------------------------------------------------------------


def _expected_kind(name: str) -> df.MetaFileKind:
    for prefix, kind in [
        ("manifest-list-", df.MetaFileKind.MANIFEST_LIST),
        ("index-manifest-", df.MetaFileKind.INDEX_MANIFEST),
        ("manifest-", df.MetaFileKind.MANIFEST),
        ("index-", df.MetaFileKind.INDEX),
    ]:
        if name.startswith(prefix):
            return kind
    raise AssertionError(name)


def test_every_java_meta_file_name_parses_and_rebuilds(third_party: Path) -> None:
    meta_files = [p for p in _files(third_party) if p.parent.name in ("manifest", "index")]
    kinds = set()
    for path in meta_files:
        parsed = df.parse_meta_file_name(path.name)
        assert parsed.kind is _expected_kind(path.name)
        assert df.META_FILE_DIRS[parsed.kind] == path.parent.name
        assert df.compute_meta_file_name(parsed.kind, parsed.uuid, parsed.count) == path.name
        kinds.add(parsed.kind)
    assert kinds == {
        df.MetaFileKind.MANIFEST,
        df.MetaFileKind.MANIFEST_LIST,
        df.MetaFileKind.INDEX_MANIFEST,
        df.MetaFileKind.INDEX,
    }


def test_statistics_and_bad_meta_names() -> None:
    parsed = df.parse_meta_file_name(f"stat-{UUID}-4")
    assert (parsed.kind, parsed.uuid, parsed.count) == (df.MetaFileKind.STATISTICS, UUID, 4)
    for bad in ["manifest-", f"manifest-{UUID}", f"snapshot-{UUID}-1", f"manifest-{UUID}-1.avro"]:
        with pytest.raises(PaimonFormatError):
            df.parse_meta_file_name(bad)


# -- bucket and partition directories ---------------------------------------------------------


def test_java_bucket_directories(third_party: Path) -> None:
    buckets = {p.name for p in (third_party / TABLES).rglob("bucket-*") if p.is_dir()}
    assert buckets == {"bucket-0", "bucket-1"}
    for name in buckets:
        bucket = df.parse_bucket_dir_name(name)
        assert df.compute_bucket_dir_name(bucket) == name
    assert df.compute_bucket_dir_name(-2) == "bucket-postpone"
    assert df.parse_bucket_dir_name("bucket-postpone") == df.POSTPONE_BUCKET
    for bad in ["bucket-", "bucket-x", "buckets-1", "bucket-1.0"]:
        with pytest.raises(PaimonFormatError):
            df.parse_bucket_dir_name(bad)


def test_java_partition_directories(third_party: Path) -> None:
    table = third_party / TABLES / "pk_table_with_mor.db" / "pk_table_with_mor"
    found = sorted(str(p.relative_to(table)) for p in table.glob("*=*/*=*") if p.is_dir())
    assert found == ["p0=0/p1=0", "p0=0/p1=1", "p0=1/p1=0"]
    for relative in found:
        spec = df.parse_partition_path(relative)
        assert df.compute_partition_path(spec) == relative
    assert df.parse_partition_path(f"{table}/p0=1/p1=0/bucket-0") == [("p0", "1"), ("p1", "0")]


@pytest.mark.parametrize(
    ("spec", "path"),
    [
        ([], ""),
        ([("dt", "20240514")], "dt=20240514"),
        ([("dt", "2024-05-14"), ("hr", "10")], "dt=2024-05-14/hr=10"),
        ([("a", "x:y/z")], "a=x%3Ay%2Fz"),
        ([("a=b", "c=d")], "a%3Db=c%3Dd"),
        ([("a", "100%")], "a=100%25"),
        ([("a", "tab\there")], "a=tab%09here"),
        ([("a", "#'\"*?\\{}[]^\x7f")], "a=%23%27%22%2A%3F%5C%7B%7D%5B%5D%5E%7F"),
        ([("a", "space ok")], "a=space ok"),
        ([("a", "ünï")], "a=ünï"),
        ([("a", None)], "a=__DEFAULT_PARTITION__"),
        ([("a", "")], "a=__DEFAULT_PARTITION__"),
        ([("a", " \t\n")], "a=__DEFAULT_PARTITION__"),
        ([("a", "\u3000")], "a=__DEFAULT_PARTITION__"),  # ideographic space: Java whitespace
        ([("a", "\u00a0")], "a=\u00a0"),  # no-break space: not whitespace in Java
    ],
)
def test_partition_paths(spec: list[tuple[str, str | None]], path: str) -> None:
    assert df.compute_partition_path(spec) == path


def test_partition_default_name_round_trips_to_none() -> None:
    path = df.compute_partition_path([("a", None), ("b", "x")], default_name="NULL_PART")
    assert path == "a=NULL_PART/b=x"
    assert df.parse_partition_path(path, default_name="NULL_PART") == [("a", None), ("b", "x")]
    assert df.unescape_path_name("a%3Ab%zz%4") == "a:b%zz%4"


def test_relative_bucket_paths() -> None:
    assert df.compute_relative_bucket_path("", 0) == "bucket-0"
    assert df.compute_relative_bucket_path("dt=1", 3) == "dt=1/bucket-3"
    assert df.compute_relative_bucket_path("dt=1", -2, "data") == "data/dt=1/bucket-postpone"


# -- external paths ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Reference MurmurHash3_x86_32 vectors (seed 0).
        ("", 0x00000000),
        ("hello", 0x248BFA47),
        ("The quick brown fox jumps over the lazy dog", 0x2E4FF723),
    ],
)
def test_murmur3_reference_vectors(text: str, expected: int) -> None:
    assert df.compute_murmur3_32(text.encode()) == expected


def test_entropy_dirs_and_external_paths() -> None:
    # murmur3("hello") = 0x248BFA47; low 20 bits 0xBFA47 = 1011 1111 1010 01000111.
    assert df.compute_entropy_dirs("hello") == "1011/1111/1010/01000111"
    relative = df.compute_relative_bucket_path("dt=1", 0)
    name = f"data-{UUID}-0.parquet"
    assert (
        df.compute_external_data_path("s3://bucket/ext/", relative, name)
        == f"s3://bucket/ext/dt=1/bucket-0/{name}"
    )
    entropy = df.compute_external_data_path("oss://b/e", relative, name, entropy=True)
    dirs = df.compute_entropy_dirs(name)
    assert entropy == f"oss://b/e/dt=1/bucket-0/{dirs}/{name}"
    assert [len(part) for part in dirs.split("/")] == [4, 4, 4, 8]


# -- column layouts ----------------------------------------------------------------------------


def _parquet_columns(path: Path) -> list[tuple[str, int | None, bool]]:
    schema = pq.read_schema(path)
    out = []
    for field in schema:
        raw = (field.metadata or {}).get(b"PARQUET:field_id")
        out.append((field.name, None if raw is None else int(raw), field.nullable))
    return out


@pytest.mark.parametrize(
    "table_name",
    ["pk_table_scan_and_read_dv", "pk_table_partial_update", "pk_09"],
)
def test_primary_key_file_columns_match_java_files(third_party: Path, table_name: str) -> None:
    table = third_party / TABLES / f"{table_name}.db" / table_name
    schema = _schema(table)
    value_fields = [parse_data_field(f) for f in schema["fields"]]  # type: ignore[attr-defined]
    trimmed = df.compute_trimmed_primary_keys(
        schema["primaryKeys"],  # type: ignore[arg-type]
        schema["partitionKeys"],  # type: ignore[arg-type]
    )
    key_fields = df.compute_key_fields(value_fields, trimmed)
    expected = [
        (f.name, f.id, f.type.nullable)
        for f in df.compute_key_value_fields(key_fields, value_fields, thin=False)
    ]
    for path in table.rglob("*.parquet"):
        columns = _parquet_columns(path)
        has_ids = columns[0][1] is not None  # Paimon 0.9 wrote no field ids
        assert columns == [(n, i if has_ids else None, nullable) for n, i, nullable in expected]


def test_pk_09_keys_are_trimmed_of_partition_keys(third_party: Path) -> None:
    assert df.compute_trimmed_primary_keys(["f0", "f1", "f2"], ["f1"]) == ["f0", "f2"]
    path = next((third_party / TABLES / "pk_09.db" / "pk_09").rglob("*.parquet"))
    names = [name for name, _, _ in _parquet_columns(path)]
    assert names[:4] == ["_KEY_f0", "_KEY_f2", "_SEQUENCE_NUMBER", "_VALUE_KIND"]
    with pytest.raises(PaimonFormatError):
        df.compute_trimmed_primary_keys(["dt"], ["dt"])


@pytest.mark.parametrize("table_name", ["append_with_bitmap", "append_with_bsi", "append_09"])
def test_append_file_columns_match_java_files(third_party: Path, table_name: str) -> None:
    table = third_party / TABLES / f"{table_name}.db" / table_name
    value_fields = [parse_data_field(f) for f in _schema(table)["fields"]]  # type: ignore[attr-defined]
    expected = [(f.name, f.id, f.type.nullable) for f in df.compute_append_fields(value_fields)]
    for path in table.rglob("*.parquet"):
        columns = _parquet_columns(path)
        has_ids = columns[0][1] is not None
        assert columns == [(n, i if has_ids else None, nullable) for n, i, nullable in expected]


def test_thin_mode_layout_from_the_spec_example() -> None:
    # datafile.md: T(a INT PRIMARY KEY, b INT, c INT).
    value_fields = [
        DataField(0, "a", IntType(nullable=False)),
        DataField(1, "b", IntType()),
        DataField(2, "c", IntType()),
    ]
    key_fields = df.compute_key_fields(value_fields, ["a"])
    assert key_fields == [DataField(1_073_741_823, "_KEY_a", IntType(nullable=False))]
    full = df.compute_key_value_fields(key_fields, value_fields, thin=False)
    assert [f.name for f in full] == ["_KEY_a", "_SEQUENCE_NUMBER", "_VALUE_KIND", "a", "b", "c"]
    assert full[1] == DataField(2_147_483_646, "_SEQUENCE_NUMBER", BigIntType(nullable=False))
    assert full[2] == DataField(2_147_483_645, "_VALUE_KIND", TinyIntType(nullable=False))
    thin = df.compute_key_value_fields(key_fields, value_fields, thin=True)
    assert [f.name for f in thin] == ["_SEQUENCE_NUMBER", "_VALUE_KIND", "a", "b", "c"]
    assert df.is_thin_mode_supported(key_fields, value_fields)
    # A key that is not a copy of a value column keeps the full layout, as Java does.
    odd_key = [DataField(7, "k", IntType(nullable=False))]
    assert not df.is_thin_mode_supported(odd_key, value_fields)
    assert df.compute_key_value_fields(odd_key, value_fields, thin=True)[0].name == "k"
    assert df.is_system_field_name("_KEY_a") and df.is_system_field_name("_VALUE_KIND")
    assert not df.is_system_field_name("a")
    with pytest.raises(PaimonFormatError):
        df.compute_key_fields(value_fields, ["missing"])


# -- the record --------------------------------------------------------------------------------


def test_data_file_meta_helpers() -> None:
    meta = df.DataFileMeta(
        file_name=f"data-{UUID}-0.parquet",
        file_size=10,
        row_count=5,
        min_key=b"",
        max_key=b"",
        key_stats=EMPTY_STATS,
        value_stats=EMPTY_STATS,
        min_sequence_number=0,
        max_sequence_number=4,
        schema_id=0,
        level=0,
        extra_files=(),
        creation_time=Timestamp(0),
        delete_row_count=2,
    )
    assert df.compute_add_row_count(meta) == 3
    assert df.compute_add_row_count(dataclasses.replace(meta, delete_row_count=None)) is None
    upgraded = df.compute_upgraded_file(meta, 5)
    assert upgraded.level == 5 and meta.level == 0
    assert [s.value for s in df.FileSource] == [0, 1]
