"""Table layout: every path rule checked against the directories Java wrote in the third-party
tables, plus hand-computed partition strings (Java ``toString`` / cast rules) and escaping."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import layout as lay
from reference.errors import UnsupportedFeature
from reference.spec import types as t
from reference.spec.data import Timestamp

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
COUNTED_NAME = re.compile(rf"^(manifest-list-|index-manifest-|manifest-|index-)({UUID})-(\d+)$")
DATA_FILE_NAME = re.compile(rf"^data-({UUID})-(\d+)\.parquet$")

TABLES = [
    "append_09",
    "append_table_with_alter_table",
    "append_with_bitmap",
    "append_with_bsi",
    "pk_09",
    "pk_table_partial_update",
    "pk_table_scan_and_read_dv",
    "pk_table_with_mor",
]


def _warehouse(third_party: Path) -> Path:
    return third_party / "paimon-cpp" / "parquet"


def _schema(root: Path) -> dict[str, object]:
    return dict(json.loads((root / "schema" / "schema-0").read_text()))


# --------------------------------------------------------------------------------------------
# Third-party tables
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("table", TABLES)
def test_metadata_paths_of_java_tables(third_party: Path, table: str) -> None:
    warehouse = _warehouse(third_party)
    root = lay.table_path(str(warehouse), table, table)
    assert Path(root).is_dir()
    snapshot_names = sorted(p.name for p in Path(lay.snapshot_dir(root)).iterdir())
    ids = [i for i in map(lay.parse_snapshot_id, snapshot_names) if i is not None]
    assert ids and {"EARLIEST", "LATEST"} <= set(snapshot_names)
    assert len(ids) == len(snapshot_names) - 2
    for snapshot_id in ids:
        assert Path(lay.snapshot_path(root, snapshot_id)).is_file()
    latest = int(Path(lay.hint_path(lay.snapshot_dir(root), lay.HintFile.LATEST)).read_text())
    assert latest == max(ids)
    for name in (p.name for p in Path(lay.schema_dir(root)).iterdir()):
        schema_id = lay.parse_schema_id(name)
        assert schema_id is not None and Path(lay.schema_path(root, schema_id)).is_file()


@pytest.mark.parametrize("table", TABLES)
def test_manifest_and_index_file_names(third_party: Path, table: str) -> None:
    root = lay.table_path(str(_warehouse(third_party)), table, table)
    builders = {
        "manifest-": lay.manifest_file_name,
        "manifest-list-": lay.manifest_list_file_name,
        "index-manifest-": lay.index_manifest_file_name,
        "index-": lay.index_file_name,
    }
    directories = [Path(lay.manifest_dir(root)), Path(lay.index_dir(root))]
    for directory in (d for d in directories if d.is_dir()):
        for file in directory.iterdir():
            match = COUNTED_NAME.match(file.name)
            assert match, file.name
            prefix, writer_uuid, count = match.groups()
            assert builders[prefix](writer_uuid, int(count)) == file.name
            if prefix.startswith("index-") and prefix != "index-manifest-":
                assert lay.index_file_path(root, file.name) == str(file)
            else:
                assert lay.manifest_path(root, file.name) == str(file)


# Partition values as Java wrote them, from each table's schema (all INT partition keys).
BUCKET_DIRS = {
    "append_09": [({"f1": 10}, 0), ({"f1": 10}, 1), ({"f1": 20}, 0)],
    "append_table_with_alter_table": [({"key0": 0, "key1": 1}, 0), ({"key0": 1, "key1": 1}, 0)],
    "append_with_bitmap": [({}, 0)],
    "pk_09": [({"f1": 10}, 0), ({"f1": 10}, 1), ({"f1": 20}, 0)],
    "pk_table_with_mor": [
        ({"p0": 0, "p1": 0}, 0),
        ({"p0": 0, "p1": 1}, 0),
        ({"p0": 1, "p1": 0}, 0),
    ],
}


@pytest.mark.parametrize("table", sorted(BUCKET_DIRS))
def test_bucket_directories_from_partition_values(third_party: Path, table: str) -> None:
    root = lay.table_path(str(_warehouse(third_party)), table, table)
    schema = _schema(Path(root))
    fields = {f.name: f for f in map(t.parse_data_field, schema["fields"])}  # type: ignore[arg-type]
    keys = list(schema["partitionKeys"])  # type: ignore[call-overload]
    expected_dirs = set()
    for values, bucket in BUCKET_DIRS[table]:
        spec = lay.compute_partition_spec([fields[k] for k in keys], [values[k] for k in keys])
        directory = lay.bucket_path(root, spec, bucket)
        assert Path(directory).is_dir(), directory
        expected_dirs.add(directory)
    data_dirs = {str(p.parent) for p in Path(root).rglob("*.parquet")}
    assert data_dirs == expected_dirs


@pytest.mark.parametrize("table", TABLES)
def test_data_file_names_and_partition_parsing(third_party: Path, table: str) -> None:
    root = Path(lay.table_path(str(_warehouse(third_party)), table, table))
    keys = list(_schema(root)["partitionKeys"])  # type: ignore[call-overload]
    for data_file in root.rglob("*.parquet"):
        match = DATA_FILE_NAME.match(data_file.name)
        assert match, data_file.name
        assert lay.data_file_name(match.group(1), int(match.group(2)), "parquet") == data_file.name
        assert lay.data_file_format(data_file.name) == "parquet"
        relative = str(data_file.parent.relative_to(root))
        spec = lay.parse_partition_path(relative)
        assert [k for k, _ in spec] == keys
        bucket = lay.parse_bucket_dir_name(data_file.parent.name)
        assert bucket is not None
        assert lay.relative_bucket_path(spec, bucket) == relative
        assert lay.data_file_path(lay.bucket_path(str(root), spec, bucket), data_file.name) == str(
            data_file
        )


def test_file_index_beside_its_data_file(third_party: Path) -> None:
    root = _warehouse(third_party) / "append_with_bsi.db" / "append_with_bsi" / "bucket-0"
    (data_file,) = root.glob("*.parquet")
    assert Path(lay.file_index_path(str(data_file))).is_file()


# --------------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------------


def test_catalog_branch_and_metadata_paths() -> None:
    root = lay.table_path("s3://bucket/wh/", "db", "orders")
    assert root == "s3://bucket/wh/db.db/orders"
    assert lay.branch_path(root) == root
    assert lay.branch_path(root, " ") == root
    assert lay.branch_path(root, "dev") == root + "/branch/branch-dev"
    assert lay.snapshot_path(root, 7, "dev") == root + "/branch/branch-dev/snapshot/snapshot-7"
    assert lay.schema_path(root, 0) == root + "/schema/schema-0"
    assert lay.tag_path(root, "t1") == root + "/tag/tag-t1"
    assert lay.consumer_path(root, "c1") == root + "/consumer/consumer-c1"
    assert lay.changelog_path(root, 3) == root + "/changelog/changelog-3"
    assert lay.hint_path(lay.changelog_dir(root), lay.HintFile.EARLIEST) == (
        root + "/changelog/EARLIEST"
    )
    assert lay.statistics_path(root, lay.statistics_file_name("u", 0)) == (
        root + "/statistics/stat-u-0"
    )
    assert lay.join("/", "a") == "/a"
    assert lay.join("", "a", "", "b/") == "a/b"


def test_bucket_directories_and_external_paths() -> None:
    spec = [("dt", "2024-01-01"), ("hr", "09")]
    assert lay.relative_bucket_path(spec, 3) == "dt=2024-01-01/hr=09/bucket-3"
    assert lay.relative_bucket_path([], -2) == "bucket-postpone"
    assert lay.relative_bucket_path(spec, 0, data_file_path_directory="data") == (
        "data/dt=2024-01-01/hr=09/bucket-0"
    )
    assert lay.external_bucket_path("s3://ext/root", spec, 1) == (
        "s3://ext/root/dt=2024-01-01/hr=09/bucket-1"
    )
    assert lay.data_file_path("/t/bucket-0", "f.parquet", "s3://ext/x/f.parquet") == (
        "s3://ext/x/f.parquet"
    )
    assert lay.data_file_name("u", 2, "orc", prefix="changelog-") == "changelog-u-2.orc"
    assert lay.data_file_format("data-u-0.zst.parquet") == "parquet"
    assert lay.data_file_format("data-u-0.json.gz") == "json"
    assert lay.data_file_name("u", 0, "parquet", compression="zstd") == "data-u-0.parquet"
    assert (
        lay.data_file_name("u", 0, "parquet", compression="zstd", suffix_include_compression=True)
        == "data-u-0.zst.parquet"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("bucket-0", 0),
        ("bucket-17", 17),
        ("bucket-postpone", -2),
        ("bucket-", None),
        ("bucket-x", None),
        ("dt=1", None),
    ],
)
def test_parse_bucket_dir_name(name: str, expected: int | None) -> None:
    assert lay.parse_bucket_dir_name(name) == expected
    if expected is not None:
        assert lay.bucket_dir_name(expected) == name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("snapshot-12", 12),
        ("snapshot-0", 0),
        ("snapshot-", None),
        ("snapshot-1.tmp", None),
        ("snapshot--1", None),
        ("snapshot-\u0663", None),  # an Arabic-Indic digit
        ("LATEST", None),
        ("EARLIEST", None),
    ],
)
def test_parse_snapshot_id(name: str, expected: int | None) -> None:
    assert lay.parse_snapshot_id(name) == expected


def test_parse_prefixed_names() -> None:
    assert lay.parse_tag_name("tag-2024-01-01") == "2024-01-01"
    assert lay.parse_branch_name("branch-dev") == "dev"
    assert lay.parse_consumer_id("consumer-my-job") == "my-job"
    assert lay.parse_tag_name("tag-") is None
    assert lay.parse_tag_name("snapshot-1") is None


# --------------------------------------------------------------------------------------------
# Partition value strings (expected values follow Java's toString and cast rules by hand)
# --------------------------------------------------------------------------------------------

# 1700000000 s since the epoch is 2023-11-14 22:13:20 UTC; day 19000 is 2022-01-08.
LEGACY_CASES = [
    (t.BooleanType(), True, "true"),
    (t.IntType(), -5, "-5"),
    (t.BigIntType(), 2**40, "1099511627776"),
    (t.VarCharType(10), "a b", "a b"),
    (t.DateType(), 19000, "19000"),
    (t.TimeType(3), 45296123, "45296123"),
    (t.DecimalType(5, 2), Decimal("1.50"), "1.50"),
    (t.DecimalType(38, 0), Decimal("12345678901234567890"), "12345678901234567890"),
    (t.DecimalType(5, 2), Decimal("0.00"), "0.00"),
    (t.DoubleType(), 1.0, "1.0"),
    (t.DoubleType(), 1e7, "1.0E7"),
    (t.DoubleType(), 1.5e-5, "1.5E-5"),
    (t.DoubleType(), 0.001, "0.001"),
    (t.DoubleType(), 123456.789, "123456.789"),
    (t.DoubleType(), -0.0, "-0.0"),
    (t.DoubleType(), float("nan"), "NaN"),
    (t.DoubleType(), float("-inf"), "-Infinity"),
    (t.DoubleType(), 5e-324, "4.9E-324"),
    (t.FloatType(), 1.100000023841858, "1.1"),
    (t.FloatType(), 3.4028234663852886e38, "3.4028235E38"),
    (t.FloatType(), 1.401298464324817e-45, "1.4E-45"),
    (t.TimestampType(3), Timestamp(1700000000000), "2023-11-14T22:13:20"),
    (t.TimestampType(3), Timestamp(1699999980000), "2023-11-14T22:13"),
    (t.TimestampType(3), Timestamp(1700000000120), "2023-11-14T22:13:20.120"),
    (t.TimestampType(6), Timestamp(1700000000000, 1000), "2023-11-14T22:13:20.000001"),
    (t.TimestampType(9), Timestamp(1700000000000, 7), "2023-11-14T22:13:20.000000007"),
    (t.LocalZonedTimestampType(3), Timestamp(-1), "1969-12-31T23:59:59.999"),
]


@pytest.mark.parametrize(("data_type", "value", "expected"), LEGACY_CASES)
def test_legacy_partition_strings(data_type: t.DataType, value: object, expected: str) -> None:
    assert lay.compute_partition_value_string(value, data_type) == expected


CAST_CASES = [
    (t.DateType(), 19000, "2022-01-08"),
    (t.DateType(), -1, "1969-12-31"),
    (t.TimeType(0), 45296123, "12:34:56"),
    (t.TimeType(3), 45296123, "12:34:56.123"),
    (t.TimeType(3), 45296500, "12:34:56.5"),
    (t.TimeType(2), 45296000, "12:34:56.0"),
    (t.TimestampType(3), Timestamp(1700000000120), "2023-11-14 22:13:20.120"),
    (t.TimestampType(0), Timestamp(1700000000000), "2023-11-14 22:13:20"),
    (t.TimestampType(6), Timestamp(1700000000000), "2023-11-14 22:13:20.000000"),
    (t.TimestampType(9), Timestamp(1700000000000, 1500), "2023-11-14 22:13:20.000001500"),
    (t.TimestampType(6), Timestamp(1700000000000, 1500), "2023-11-14 22:13:20.0000015"),
    (t.VarBinaryType(10), b"ab", "ab"),
    (t.IntType(), 7, "7"),
]


@pytest.mark.parametrize(("data_type", "value", "expected"), CAST_CASES)
def test_cast_partition_strings(data_type: t.DataType, value: object, expected: str) -> None:
    assert lay.compute_partition_value_string(value, data_type, legacy_name=False) == expected


@pytest.mark.parametrize("value", [None, "", "   ", "\t\n", "\u3000", "\u2028"])
def test_null_and_blank_values_use_the_default_name(value: str | None) -> None:
    assert lay.compute_partition_value_string(value, t.VarCharType(10)) == "__DEFAULT_PARTITION__"
    assert lay.compute_partition_value_string(value, t.VarCharType(10), default_name="N") == "N"


def test_non_breaking_space_is_not_blank_in_java() -> None:
    assert lay.compute_partition_value_string("\u00a0", t.VarCharType(10)) == "\u00a0"


def test_unrepresentable_partition_values() -> None:
    with pytest.raises(UnsupportedFeature):
        lay.compute_partition_value_string(b"ab", t.VarBinaryType(10))
    with pytest.raises(UnsupportedFeature):
        lay.compute_partition_value_string(
            Timestamp(0), t.LocalZonedTimestampType(3), legacy_name=False
        )


def test_partition_spec_and_path() -> None:
    fields = [t.DataField(0, "dt", t.DateType()), t.DataField(1, "name", t.VarCharType(20))]
    spec = lay.compute_partition_spec(fields, [19000, "a/b c:d"])
    assert spec == [("dt", "19000"), ("name", "a/b c:d")]
    assert lay.compute_partition_path(spec) == "dt=19000/name=a%2Fb c%3Ad"
    assert lay.compute_partition_path([]) == ""
    assert lay.parse_partition_path("dt=19000/name=a%2Fb c%3Ad/bucket-0") == spec


# --------------------------------------------------------------------------------------------
# Escaping
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("plain-value_1.2", "plain-value_1.2"),
        ("a/b", "a%2Fb"),
        ("100%", "100%25"),
        ("k=v", "k%3Dv"),
        ("x\ny", "x%0Ay"),
        ("\x00", "%00"),
        ("\x7f", "%7F"),
        ("\"#'*:?\\{}[]^", "%22%23%27%2A%3A%3F%5C%7B%7D%5B%5D%5E"),
        ("é 中", "é 中"),
    ],
)
def test_escape_path_name(raw: str, escaped: str) -> None:
    assert lay.escape_path_name(raw) == escaped
    assert lay.unescape_path_name(escaped) == raw


@pytest.mark.parametrize(
    ("text", "unescaped"),
    [
        ("%", "%"),
        ("%4", "%4"),
        ("a%zz", "a%zz"),
        ("%41%", "A%"),
        ("%+41", "\x041"),
        ("%-1x", "%-1x"),
    ],
)
def test_unescape_leaves_malformed_escapes(text: str, unescaped: str) -> None:
    assert lay.unescape_path_name(text) == unescaped


@given(st.text(min_size=1))
def test_escape_round_trip(text: str) -> None:
    escaped = lay.escape_path_name(text)
    assert "/" not in escaped and "=" not in escaped
    assert lay.unescape_path_name(escaped) == text
