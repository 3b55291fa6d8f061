"""Main's column sets and behaviours of the system tables (no main oracle runs here, so the
expectations are written by hand from main's Java sources), and the 0.9 differences next to
them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reference.errors import UnsupportedFeature
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import RowKind
from reference.spec.schema import AddColumn, UpdateColumnType
from reference.system_tables import SystemTableVersion, read_system_table
from reference.table import Table

V09 = SystemTableVersion.PAIMON_0_9
KV = (t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType()))


def create(tmp_path: Path, **kwargs: object) -> Table:
    return Table.create(LocalFileIO(), str(tmp_path / "t"), KV, **kwargs)  # type: ignore[arg-type]


def test_main_adds_columns(tmp_path: Path) -> None:
    table = create(tmp_path, primary_keys=["k"], options={"bucket": "1"})
    table.write_and_commit([(1, 1)])
    widths = {
        name: (
            len(table.system_table(name).fields),
            len(table.system_table(name, version=V09).fields),
        )
        for name in ("snapshots", "files", "manifests", "partitions", "branches")
    }
    assert widths == {
        "snapshots": (16, 13),
        "files": (20, 16),
        "manifests": (9, 5),
        "partitions": (12, 5),
        "branches": (2, 4),
    }


def test_main_files_rows(tmp_path: Path) -> None:
    table = create(tmp_path, primary_keys=["k"], options={"bucket": "1"})
    table.write_and_commit([(1, 10), (2, None)])
    files = table.system_table("files")
    row = dict(zip(files.field_names, files.rows[0], strict=True))
    assert str(row["file_path"]).startswith(f"{table.root}/bucket-0/data-")
    assert row["partition"] == "{}"
    assert (row["deleteRowCount"], row["file_source"], row["write_cols"]) == (0, "APPEND", None)


def test_statistics_after_a_type_change(tmp_path: Path) -> None:
    table = create(tmp_path, primary_keys=["k"], options={"bucket": "1"})
    table.write_and_commit([(1, 10), (2, None)])
    table.alter([AddColumn(("w",), t.VarCharType(t.MAX_LENGTH))])
    table.alter([UpdateColumnType(("v",), t.BigIntType())])
    main = table.system_table("files").project(["null_value_counts", "min_value_stats"]).rows
    assert main == [("{k=0, v=1, w=2}", "{k=1, v=10, w=null}")]
    # 0.9 lists only as many fields as the file had once a type changed.
    old = table.system_table("files", version=V09).project(["null_value_counts"]).rows
    assert old == [("{k=0, v=1}",)]


def test_audit_log_sequence_numbers(tmp_path: Path) -> None:
    table = create(tmp_path, primary_keys=["k"], options={"bucket": "1"})
    table.write_and_commit([(1, 10), (2, 20)])
    table.write_and_commit([(2, 20)], [RowKind.DELETE])
    options = {"table-read.sequence-number.enabled": "true"}
    rows = table.system_table("audit_log", options)
    assert rows.field_names == ["rowkind", "_SEQUENCE_NUMBER", "k", "v"]
    assert sorted(rows.rows) == [("+I", 0, 1, 10), ("-D", 2, 2, 20)]
    assert table.system_table("audit_log", options, version=V09).field_names == [
        "rowkind",
        "k",
        "v",
    ]


def test_partition_texts(tmp_path: Path) -> None:
    fields = (t.DataField(0, "p", t.DateType()), t.DataField(1, "v", t.IntType()))
    table = Table.create(LocalFileIO(), str(tmp_path / "t"), fields, partition_keys=["p"])
    table.write_and_commit([(19997, 1), (None, 2)])
    assert sorted(table.system_table("partitions").column("partition")) == [
        "p=2024-10-01",
        "p=__DEFAULT_PARTITION__",
    ]
    assert sorted(table.system_table("partitions", version=V09).column("partition")) == [
        "[19997]",
        "[null]",
    ]
    assert sorted(table.system_table("buckets").column("partition")) == ["{2024-10-01}", "{null}"]


def test_binlog_of_a_batch_read_holds_single_values(tmp_path: Path) -> None:
    table = create(tmp_path, primary_keys=["k"], options={"bucket": "1"})
    table.write_and_commit([(1, 10), (2, 20)])
    table.write_and_commit([(2, 20)], [RowKind.DELETE])
    assert sorted(table.system_table("binlog").rows) == [("+I", [1], [10]), ("-D", [2], [20])]
    assert [str(f.type) for f in table.system_table("binlog").fields] == [
        "STRING",
        "ARRAY<INT>",
        "ARRAY<INT>",
    ]


def test_unknown_and_main_only_tables(tmp_path: Path) -> None:
    table = create(tmp_path)
    with pytest.raises(UnsupportedFeature, match="no system table"):
        table.system_table("nope")
    for name in ("buckets", "binlog", "table_indexes"):
        with pytest.raises(UnsupportedFeature, match=r"0\.9"):
            read_system_table(table.file_io, table.root, name, version=V09)
    assert table.system_table("SNAPSHOTS").rows == []  # names are case-insensitive
