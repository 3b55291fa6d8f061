"""Every system-table example of the seeds (``001_*.plain.txt`` section 3.7) reproduced by a
table the reference writes, with the seed's columns. Values that depend on times, uuids and
file sizes are normalized away; where a seed column or rendering comes from an older Paimon
than 0.9 and main, the test says so (and ``conformance/expected_differences.md`` lists it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from reference import layout
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.spec.schema import AddColumn
from reference.spec.snapshot import encode_snapshot
from reference.store import metadata
from reference.system_tables import (
    SYSTEM_TABLES,
    SystemTableRows,
    SystemTableVersion,
    read_system_table,
)
from reference.system_tables.global_tables import (
    CatalogTableEntry,
    read_all_table_options_table,
    read_catalog_options_table,
)
from reference.table import Table

V09 = SystemTableVersion.PAIMON_0_9
MAIN = SystemTableVersion.MAIN
STRING = t.VarCharType(t.MAX_LENGTH)
UUID_PATTERN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def columns(rows: SystemTableRows, names: Sequence[str]) -> list[Row]:
    return rows.project(names).rows


def without_uuid(text: object) -> str:
    return UUID_PATTERN.sub("<uuid>", str(text))


def create(
    tmp_path: Path, fields: Sequence[t.DataField], name: str = "t", **kwargs: object
) -> Table:
    return Table.create(LocalFileIO(), str(tmp_path / name), fields, **kwargs)  # type: ignore[arg-type]


WORD = t.DataField(0, "word", t.VarCharType(t.MAX_LENGTH, nullable=False))


# 3.7.1.1 Snapshots Table -------------------------------------------------------------------

SNAPSHOT_COLUMNS = [
    "snapshot_id",
    "schema_id",
    "commit_user",
    "commit_identifier",
    "commit_kind",
    "commit_time",
    "base_manifest_list",
    "delta_manifest_list",
    "changelog_manifest_list",
    "total_record_count",
    "delta_record_count",
    "changelog_record_count",
    "watermark",
]


def test_snapshots(tmp_path: Path) -> None:
    table = create(tmp_path, [WORD], primary_keys=["word"], options={"bucket": "1"})
    for identifier, word in ((1, "a"), (2, "b")):
        table.commit(table.write([(word,)]), identifier=identifier, commit_user="u")
    rows = table.system_table("snapshots", version=V09)
    assert rows.field_names == SNAPSHOT_COLUMNS
    seed_values = ["snapshot_id", "schema_id", "commit_identifier", "commit_kind"]
    assert sorted(columns(rows, seed_values), reverse=True) == [
        (2, 0, 2, "APPEND"),
        (1, 0, 1, "APPEND"),
    ]
    counts = ["total_record_count", "delta_record_count", "changelog_record_count"]
    assert columns(rows, counts) == [(1, 1, 0), (2, 1, 0)]
    for base, delta in columns(rows, ["base_manifest_list", "delta_manifest_list"]):
        assert without_uuid(base).startswith("manifest-list-<uuid>")
        assert without_uuid(delta).startswith("manifest-list-<uuid>")
    # The seed's release wrote a changelog manifest list and a watermark for every snapshot;
    # 0.9 and main write none without changelog files or a watermark.
    assert rows.column("changelog_manifest_list") == [None, None]
    assert rows.column("watermark") == [None, None]


# 3.7.1.2 Schemas Table ---------------------------------------------------------------------


def test_schemas(tmp_path: Path) -> None:
    table = create(tmp_path, [WORD], primary_keys=["word"])
    table.alter([AddColumn(("cnt",), t.IntType())])
    table.alter([AddColumn(("val",), t.IntType())])
    rows = table.system_table("schemas")
    assert rows.field_names == [
        "schema_id",
        "fields",
        "partition_keys",
        "primary_keys",
        "options",
        "comment",
        "update_time",
    ]
    seen = columns(rows, ["schema_id", "partition_keys", "primary_keys", "options", "comment"])
    assert seen == [(i, "[]", '["word"]', "{}", None) for i in range(3)]
    for fields_text in rows.column("fields"):
        assert str(fields_text).startswith('[{"id":0,"name":"word","typ')


# 3.7.1.3 Options Table ---------------------------------------------------------------------


def test_options(tmp_path: Path) -> None:
    table = create(tmp_path, [WORD], options={"snapshot.time-retained": "5 h"})
    rows = table.system_table("options")
    assert rows.field_names == ["key", "value"]
    assert rows.rows == [("snapshot.time-retained", "5 h")]


# 3.7.1.4 Audit log Table and 3.7.1.5 Binlog Table -------------------------------------------

COLUMNS_01 = [
    t.DataField(0, "column_0", t.IntType(nullable=False)),
    t.DataField(1, "column_1", STRING),
]


def write_update(tmp_path: Path) -> Table:
    table = create(
        tmp_path,
        COLUMNS_01,
        primary_keys=["column_0"],
        options={"bucket": "1", "changelog-producer": "input"},
    )
    table.write_and_commit([(0, "col_1")])
    table.write_and_commit(
        [(0, "col_1_ub"), (0, "col_1_ua")], [RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER]
    )
    table.write_and_commit([(0, "col_1_ua")], [RowKind.DELETE])
    return table


def test_audit_log(tmp_path: Path) -> None:
    table = write_update(tmp_path)
    rows = table.system_table("audit_log", {"incremental-between": "0,2"})
    assert rows.field_names == ["rowkind", "column_0", "column_1"]
    assert [row[0] for row in rows.rows] == ["+I", "-U", "+U"]


def test_binlog(tmp_path: Path) -> None:
    table = write_update(tmp_path)
    rows = table.system_table("binlog", {"incremental-between": "0,3"})
    assert rows.field_names == ["rowkind", "column_0", "column_1"]
    assert rows.rows == [
        ("+I", [0], ["col_1"]),
        ("+U", [0, 0], ["col_1_ub", "col_1_ua"]),
        ("-D", [0], ["col_1_ua"]),
    ]


# 3.7.1.6 Read-optimized Table --------------------------------------------------------------


def test_read_optimized(tmp_path: Path) -> None:
    table = create(tmp_path, COLUMNS_01, primary_keys=["column_0"], options={"bucket": "1"})
    table.write_and_commit([(1, "a")])
    table.compact(full=True)
    table.write_and_commit([(2, "b")])
    rows = table.system_table("ro")
    assert rows.field_names == ["column_0", "column_1"]
    assert rows.rows == [(1, "a")]  # only the fully compacted result


# 3.7.1.7 Files Table -----------------------------------------------------------------------

FILES_COLUMNS = [
    "partition",
    "bucket",
    "file_path",
    "file_format",
    "schema_id",
    "level",
    "record_count",
    "file_size_in_bytes",
    "min_key",
    "max_key",
    "null_value_counts",
    "min_value_stats",
    "max_value_stats",
    "min_sequence_number",
    "max_sequence_number",
    "creation_time",
]
WORD_CNT_VAL = [
    WORD,
    t.DataField(1, "cnt", t.IntType(nullable=False)),
    t.DataField(2, "val", t.IntType()),
]


def test_files(tmp_path: Path) -> None:
    table = create(
        tmp_path,
        WORD_CNT_VAL,
        primary_keys=["word", "cnt"],
        partition_keys=["cnt"],
        options={"bucket": "1", "file.format": "orc"},
    )
    table.write_and_commit([("a", 1, 11), ("b", 2, 22), ("c", 3, 33)])
    table.write_and_commit([("d", 2, 32), ("c", 5, 51), ("a", 4, 12)])
    latest = table.system_table("files", version=V09)
    assert latest.field_names == FILES_COLUMNS
    seen = [
        "partition",
        "bucket",
        "file_format",
        "schema_id",
        "level",
        "record_count",
        "min_key",
        "max_key",
        "null_value_counts",
        "min_value_stats",
        "max_value_stats",
    ]

    def expected(partition: int, word: str, value: int) -> Row:
        stats = f"{{cnt={partition}, val={value}, word={word}}}"
        nulls = "{cnt=0, val=0, word=0}"
        return (f"[{partition}]", 0, "orc", 0, 0, 1, f"[{word}]", f"[{word}]", nulls, stats, stats)

    assert sorted(columns(latest, seen)) == sorted(
        [
            expected(3, "c", 33),
            expected(2, "b", 22),
            expected(2, "d", 32),
            expected(5, "c", 51),
            expected(1, "a", 11),
            expected(4, "a", 12),
        ]
    )
    for path in latest.column("file_path"):
        assert without_uuid(path).startswith("data-<uuid>")
    first = table.system_table("files", {"scan.snapshot-id": "1"}, version=V09)
    assert sorted(columns(first, seen)) == sorted(
        [expected(3, "c", 33), expected(2, "b", 22), expected(1, "a", 11)]
    )


# 3.7.1.8 Tags Table ------------------------------------------------------------------------


def test_tags(tmp_path: Path) -> None:
    table = create(tmp_path, [WORD])
    table.write_and_commit([("a",), ("b",), ("c",)])
    table.write_and_commit([("d",), ("e",)])
    table.write_and_commit([("f",), ("g",)])
    table.create_tag("tag1", 1)
    table.create_tag("tag3", 3)
    table.create_branch("branch-1", from_tag="tag3")
    rows = table.system_table("tags")
    # The seed's release had a 'branches' column; 0.9 and main have create_time and
    # time_retained instead.
    seed_columns = ["tag_name", "snapshot_id", "schema_id", "commit_time", "record_count"]
    assert rows.field_names[:5] == seed_columns
    assert columns(rows, ["tag_name", "snapshot_id", "schema_id", "record_count"]) == [
        ("tag1", 1, 0, 3),
        ("tag3", 3, 0, 7),
    ]


# 3.7.1.9 Branches Table --------------------------------------------------------------------


def test_branches(tmp_path: Path) -> None:
    table = create(tmp_path, [WORD])
    table.create_branch("branch1")
    table.create_branch("branch2")
    rows = table.system_table("branches")
    assert rows.field_names == ["branch_name", "create_time"]
    assert rows.column("branch_name") == ["branch1", "branch2"]
    times = rows.column("create_time")
    assert all(value is not None for value in times)


# 3.7.1.10 Consumers Table ------------------------------------------------------------------


def test_consumers(tmp_path: Path) -> None:
    table = create(tmp_path, [WORD])
    table.reset_consumer("id1", 1)
    table.reset_consumer("id2", 3)
    rows = table.system_table("consumers")
    assert rows.field_names == ["consumer_id", "next_snapshot_id"]
    assert sorted(rows.rows) == [("id1", 1), ("id2", 3)]


# 3.7.1.11 Manifests Table ------------------------------------------------------------------

MANIFEST_COLUMNS = ["file_name", "file_size", "num_added_files", "num_deleted_files", "schema_id"]


def test_manifests(tmp_path: Path) -> None:
    table = create(tmp_path, [WORD], options={"bucket": "40", "bucket-key": "word"})
    table.write_and_commit([(f"w{i}",) for i in range(400)])  # every bucket gets a file
    table.create_tag("tag1")
    table.write_and_commit([("one",)])
    seen = ["num_added_files", "num_deleted_files", "schema_id"]
    latest = table.system_table("manifests", version=V09)
    assert latest.field_names == MANIFEST_COLUMNS
    assert columns(latest, seen) == [(40, 0, 0), (1, 0, 0)]
    for name in latest.column("file_name"):
        assert without_uuid(name).startswith("manifest-<uuid>")
    first_time = metadata.read_snapshot(table.file_io, table.root, 1).time_millis
    for options in (
        {"scan.snapshot-id": "1"},
        {"scan.tag-name": "tag1"},
        {"scan.timestamp-millis": str(first_time)},
    ):
        rows = table.system_table("manifests", options)  # main honours every option
        assert columns(rows, seen) == [(40, 0, 0)], options
    # Paimon 0.9 honours only the snapshot id.
    assert len(table.system_table("manifests", {"scan.tag-name": "tag1"}, version=V09).rows) == 2


# 3.7.1.12 Aggregation fields Table ---------------------------------------------------------


def test_aggregation_fields(tmp_path: Path) -> None:
    fields = [
        t.DataField(0, "product_id", t.BigIntType(nullable=False)),
        t.DataField(1, "price", t.IntType()),
        t.DataField(2, "sales", t.BigIntType()),
    ]
    options = {
        "merge-engine": "aggregation",
        "fields.price.aggregate-function": "max",
        "fields.price.ignore-retract": "true",
        "fields.sales.aggregate-function": "sum",
    }
    table = create(tmp_path, fields, primary_keys=["product_id"], options=options)
    rows = table.system_table("aggregation_fields")
    assert rows.field_names == [
        "field_name",
        "field_type",
        "function",
        "function_options",
        "comment",
    ]
    # Java prints lists with ", " (the seed shows them without the space).
    assert rows.rows == [
        ("product_id", "BIGINT NOT NULL", "[]", "[]", None),
        (
            "price",
            "INT",
            "[true, max]",
            "[fields.price.ignore-retract, fields.price.aggregate-function]",
            None,
        ),
        ("sales", "BIGINT", "[sum]", "[fields.sales.aggregate-function]", None),
    ]


# 3.7.1.13 Partitions Table and 3.7.1.14 Buckets Table ---------------------------------------

PART = [t.DataField(0, "p", t.IntType()), t.DataField(1, "v", STRING)]


def test_partitions(tmp_path: Path) -> None:
    table = create(tmp_path, PART, partition_keys=["p"], options={"bucket": "1", "bucket-key": "v"})
    table.write_and_commit([(1, "x")])
    rows = table.system_table("partitions", version=V09)
    assert rows.field_names == [
        "partition",
        "record_count",
        "file_size_in_bytes",
        "file_count",
        "last_update_time",
    ]
    size = table.system_table("files").column("file_size_in_bytes")[0]
    assert columns(rows, ["partition", "record_count", "file_size_in_bytes", "file_count"]) == [
        ("[1]", 1, size, 1)
    ]
    assert table.system_table("partitions").column("partition") == ["p=1"]  # main's text


def test_buckets(tmp_path: Path) -> None:
    table = create(tmp_path, PART, partition_keys=["p"], options={"bucket": "1", "bucket-key": "v"})
    table.write_and_commit([(1, "x")])
    rows = table.system_table("buckets")
    assert rows.field_names == [
        "partition",
        "bucket",
        "record_count",
        "file_size_in_bytes",
        "file_count",
        "last_update_time",
    ]
    # Main casts the partition row to text ({1}); the seed shows an older [1].
    assert columns(rows, ["partition", "bucket", "record_count", "file_count"]) == [
        ("{1}", 0, 1, 1)
    ]


# 3.7.1.15 Statistic Table ------------------------------------------------------------------


def test_statistics(tmp_path: Path) -> None:
    table = create(tmp_path, [WORD])
    table.write_and_commit([("a",)])
    table.write_and_commit([("b",)])
    # The reference has no ANALYZE: write the statistics file Java writes and point the latest
    # snapshot at it.
    name = "stat-00000000-0000-0000-0000-000000000000-0"
    stats = '{"snapshotId":2,"schemaId":0,"mergedRecordCount":2,"mergedRecordSize":2,"colStats":{}}'
    table.file_io.write_bytes(layout.statistics_path(table.root, name), stats.encode())
    latest = metadata.read_snapshot(table.file_io, table.root, 2)
    path = layout.snapshot_path(table.root, 2)
    table.file_io.write_bytes(path, encode_snapshot(replace(latest, statistics=name)).encode())
    rows = table.system_table("statistics")
    assert rows.field_names == [
        "snapshot_id",
        "schema_id",
        "mergedRecordCount",
        "mergedRecordSize",
        "colstat",
    ]
    # Jackson's pretty printer prints an empty object as "{ }" (the seed shows "{}").
    assert rows.rows == [(2, 0, 2, 2, "{ }")]


# 3.7.1.13 Table Indexes Table --------------------------------------------------------------


def test_table_indexes(tmp_path: Path) -> None:
    fields = [t.DataField(0, "dt", t.DateType()), t.DataField(1, "k", t.IntType(nullable=False))]
    table = create(
        tmp_path,
        fields,
        partition_keys=["dt"],
        primary_keys=["dt", "k"],
        options={"bucket": "-1", "deletion-vectors.enabled": "true"},
    )
    day = 19997  # 2024-10-01
    table.write_and_commit([(day, 1), (day, 2), (day, 3)])
    table.write_and_commit([(day, 2)], [RowKind.DELETE])
    rows = table.system_table("table_indexes")
    seed_columns = [
        "partition",
        "bucket",
        "index_type",
        "file_name",
        "file_size",
        "row_count",
        "dv_ranges",
    ]
    assert rows.field_names[:7] == seed_columns
    seen = columns(rows, ["partition", "bucket", "index_type", "file_size", "row_count"])
    # Main casts the partition row ({2024-10-01}); the seed shows an older [2024-10-01].
    assert ("{2024-10-01}", 0, "HASH", 12, 3) in seen
    dv = [row for row in rows.rows if row[2] == "DELETION_VECTORS"]
    assert len(dv) == 1 and dv[0][5] == 1
    ranges = dv[0][6]
    assert isinstance(ranges, list) and str(ranges[0][0]).startswith("data-")
    hashes = [row for row in rows.rows if row[2] == "HASH"]
    assert hashes[0][6] is None


# 3.7.2 Global System Tables ----------------------------------------------------------------


def test_all_table_options(tmp_path: Path) -> None:
    file_io = LocalFileIO()
    entries = []
    for database, name, options in (
        ("my_db", "Orders_orc", {"bucket": "-1"}),
        ("my_db", "Orders2", {"bucket": "-1", "sink.parallelism": "7"}),
        ("my_db2", "OrdersSum", {"bucket": "1"}),
    ):
        root = layout.table_path(str(tmp_path), database, name)
        Table.create(file_io, root, [WORD], primary_keys=["word"], options=options)
        entries.append(CatalogTableEntry(database, name, root))
    rows = read_all_table_options_table(file_io, entries)
    assert rows.field_names == ["database_name", "table_name", "key", "value"]
    assert sorted(rows.rows) == [
        ("my_db", "Orders2", "bucket", "-1"),
        ("my_db", "Orders2", "sink.parallelism", "7"),
        ("my_db", "Orders_orc", "bucket", "-1"),
        ("my_db2", "OrdersSum", "bucket", "1"),
    ]


def test_catalog_options() -> None:
    rows = read_catalog_options_table({"warehouse": "hdfs:///path/to/warehouse"})
    assert rows.field_names == ["key", "value"]
    assert rows.rows == [("warehouse", "hdfs:///path/to/warehouse")]


def test_every_system_table_has_a_reader(tmp_path: Path) -> None:
    table = create(tmp_path, [WORD], primary_keys=["word"], options={"bucket": "1"})
    table.write_and_commit([("a",)])
    for name in SYSTEM_TABLES:
        assert read_system_table(table.file_io, table.root, name, version=MAIN).fields
