"""The spark_impl write path (task side and committer) against the reference writer.

The reference (``reference.store.write`` / ``compact`` / ``commit``) is the oracle: the same rows
must give the same file metadata (statistics, keys, sequence numbers, sizes), the same table
structure after several commits with compaction (levels, files, deletion-vector and HASH index
files) and the same rows when read by the reference reader.
"""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from conformance.unit.spark_impl.write_helpers import (
    comparable_meta,
    make_batch,
    prepare,
    reference_rows,
    spark_impl_write,
    table_structure,
)
from reference.errors import SpecViolation, UnsupportedFeature
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import RowKind, Timestamp
from reference.store.write import FileNaming, write_batch
from reference.table import Table
from spark_impl import commit as committer
from spark_impl.after_write import compact_after_write
from spark_impl.metadata import read_index_entries, read_latest_snapshot
from spark_impl.write import plan_write, write_task

IO = LocalFileIO()
WIDE_FIELDS = [
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "s", t.VarCharType(100)),
    t.DataField(2, "dt", t.VarCharType(10, nullable=False)),
    t.DataField(3, "f", t.DoubleType()),
    t.DataField(4, "dec", t.DecimalType(20, 3)),
    t.DataField(5, "ts", t.TimestampType(6)),
    t.DataField(6, "b", t.VarBinaryType(10)),
    t.DataField(7, "arr", t.ArrayType(t.IntType())),
]


def wide_row(rng: random.Random, fmt: str) -> tuple[Any, ...]:
    row = (
        rng.randint(0, 80),
        rng.choice([None, "x" * rng.randint(0, 40), "é" * 20, "\U0001f600abc"]),
        rng.choice(["a", "b"]),
        rng.choice([None, 0.0, -0.0, 1.5, float("nan"), -3.25]),
        rng.choice([None, Decimal("1.500"), Decimal("-99999.125")]),
        rng.choice([None, Timestamp(123456, 789000), Timestamp(-5, 1000)]),
        rng.choice([None, b"ab", b""]),
        rng.choice([None, [1, None, 3]]),
    )
    return row[:5] + row[6:] if fmt == "avro" else row


TABLE_KINDS = {
    "pk-fixed": (["k", "dt"], {"bucket": "2"}),
    "pk-dynamic": (["k", "dt"], {"bucket": "-1"}),
    "append-fixed": ([], {"bucket": "3", "bucket-key": "k"}),
    "append-unaware": ([], {"bucket": "-1"}),
    "pk-input-changelog": (
        ["k", "dt"],
        {"bucket": "2", "changelog-producer": "input", "metadata.stats-mode": "truncate(5)"},
    ),
    "pk-thin-full-stats": (
        ["k", "dt"],
        {"bucket": "1", "data-file.thin-mode": "true", "metadata.stats-mode": "full"},
    ),
}


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
@pytest.mark.parametrize("kind", sorted(TABLE_KINDS))
def test_file_metas_equal_the_reference_writer(tmp_path: Path, fmt: str, kind: str) -> None:
    primary_keys, options = TABLE_KINDS[kind]
    fields = [f for f in WIDE_FIELDS if not (fmt == "avro" and f.name == "ts")]
    rng = random.Random(f"{fmt}-{kind}")
    rows = [wide_row(rng, fmt) for _ in range(400)]
    retracting = [RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.UPDATE_BEFORE]
    kinds = [rng.choice(retracting) if primary_keys else RowKind.INSERT for _ in rows]
    root = str(tmp_path / "t")
    table = Table.create(
        IO,
        root,
        fields,
        partition_keys=["dt"],
        primary_keys=primary_keys,
        options={**options, "file.format": fmt},
    )
    expected = write_batch(IO, root, table.schema(), None, rows, kinds, naming=FileNaming())
    plan = plan_write(IO, root, {}, overwrite=False)
    batch = prepare(make_batch(rows, kinds, fields), plan.schema, plan.mode)
    got = write_task(IO, plan, batch)

    def summary(messages: Any) -> dict[Any, Any]:
        return {
            (m.partition, m.bucket): (
                [comparable_meta(f) for f in m.data.new_files],
                [comparable_meta(f) for f in m.data.changelog_files],
                [(f.index_type, f.file_size, f.row_count) for f in m.index.new_index_files],
                m.total_buckets,
            )
            for m in messages
        }

    assert summary(got) == summary(expected)


@pytest.mark.parametrize("fmt", ["parquet", "orc"])
def test_rolled_files_equal_the_reference_writer(tmp_path: Path, fmt: str) -> None:
    fields = [
        t.DataField(0, "k", t.IntType(nullable=False)),
        t.DataField(1, "v", t.VarCharType(50)),
    ]
    rng = random.Random(fmt)
    rows = [(i, "".join(rng.choice("abcdef") for _ in range(20))) for i in range(4500)]
    for primary_keys in ([], ["k"]):
        root = str(tmp_path / f"t{len(primary_keys)}")
        options = {
            "bucket": "1",
            "bucket-key": "k",
            "file.format": fmt,
            "target-file-size": "20 kb",
        }
        if primary_keys:
            del options["bucket-key"]
        table = Table.create(IO, root, fields, primary_keys=primary_keys, options=options)
        expected = write_batch(IO, root, table.schema(), None, rows)
        got = write_task(
            IO, plan_write(IO, root, {}, overwrite=False), make_batch(rows, None, fields)
        )
        [expected_message], [message] = expected, got
        assert len(message.data.new_files) > 1
        assert [comparable_meta(f) for f in message.data.new_files] == [
            comparable_meta(f) for f in expected_message.data.new_files
        ]


FIELDS = [
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.IntType()),
    t.DataField(2, "dt", t.VarCharType(10, nullable=False)),
]
COMMIT_CASES = {
    "deduplicate": ({"bucket": "2", "target-file-size": "2 kb"}, True),
    "trigger-3": ({"bucket": "2", "num-sorted-run.compaction-trigger": "3"}, True),
    "deletion-vectors": ({"bucket": "2", "deletion-vectors.enabled": "true"}, True),
    "dv-partial-update": (
        {
            "bucket": "1",
            "deletion-vectors.enabled": "true",
            "merge-engine": "partial-update",
            "num-sorted-run.compaction-trigger": "2",
        },
        False,
    ),
    "first-row": ({"bucket": "2", "merge-engine": "first-row"}, False),
    "aggregation": (
        {"bucket": "2", "merge-engine": "aggregation", "fields.v.aggregate-function": "sum"},
        True,
    ),
    "input-changelog": ({"bucket": "2", "changelog-producer": "input"}, True),
    "dynamic": (
        {
            "bucket": "-1",
            "dynamic-bucket.target-row-num": "20",
            "dynamic-bucket.initial-buckets": "2",
        },
        True,
    ),
}


@pytest.mark.parametrize("case", sorted(COMMIT_CASES))
def test_commits_build_the_reference_table(tmp_path: Path, case: str) -> None:
    """Seven commits through each writer: after every commit the two tables have the same
    structure (files, levels, sizes, index files) and rows."""
    options, retracts = COMMIT_CASES[case]
    rng = random.Random(case)
    mine, theirs = str(tmp_path / "mine"), str(tmp_path / "theirs")
    for root in (mine, theirs):
        Table.create(
            IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=options
        )
    reference = Table(IO, theirs)
    for _ in range(7):
        rows = [
            (rng.randint(0, 120), rng.choice([None, rng.randint(0, 9)]), rng.choice(["a", "b"]))
            for _ in range(rng.randint(40, 300))
        ]
        choices = (
            [RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE] if retracts else [RowKind.INSERT]
        )
        kinds = [rng.choice(choices) for _ in rows]
        spark_impl_write(IO, mine, rows, kinds)
        reference.write_and_commit(rows, kinds)
        assert table_structure(IO, mine) == table_structure(IO, theirs)
        assert reference_rows(IO, mine) == reference_rows(IO, theirs)
    if case == "dynamic":
        assert _index_bytes(mine) == _index_bytes(theirs)


def _index_bytes(root: str) -> list[tuple[Any, bytes]]:
    snapshot = read_latest_snapshot(IO, root)
    found = []
    for entry in read_index_entries(IO, root, snapshot):
        data = (Path(root) / "index" / entry.index_file.file_name).read_bytes()
        found.append(((entry.partition, entry.bucket), data))
    return sorted(found)


@pytest.mark.parametrize("options", [{"bucket": "-1"}, {"bucket": "2", "bucket-key": "k"}])
def test_append_tables(tmp_path: Path, options: dict[str, str]) -> None:
    mine, theirs = str(tmp_path / "mine"), str(tmp_path / "theirs")
    for root in (mine, theirs):
        Table.create(IO, root, FIELDS, partition_keys=["dt"], options=options)
    rng = random.Random(1)
    for _ in range(3):
        rows = [(rng.randint(0, 9), rng.randint(0, 9), rng.choice("ab")) for _ in range(50)]
        spark_impl_write(IO, mine, rows)
        Table(IO, theirs).write_and_commit(rows)
        assert table_structure(IO, mine) == table_structure(IO, theirs)
    assert reference_rows(IO, mine) == reference_rows(IO, theirs)


@pytest.mark.parametrize("dynamic_overwrite", ["true", "false"])
def test_overwrite(tmp_path: Path, dynamic_overwrite: str) -> None:
    options = {"bucket": "2", "dynamic-partition-overwrite": dynamic_overwrite}
    mine, theirs = str(tmp_path / "mine"), str(tmp_path / "theirs")
    for root in (mine, theirs):
        Table.create(
            IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=options
        )
    first = [(i, i, "a" if i % 2 else "b") for i in range(40)]
    second = [(i, -i, "a") for i in range(10)]
    for rows, overwrite in ((first, False), (second, True)):
        spark_impl_write(IO, mine, rows, overwrite=overwrite)
        Table(IO, theirs).write_and_commit(rows, overwrite={} if overwrite else None)
    assert reference_rows(IO, mine) == reference_rows(IO, theirs)
    expected_b = 0 if dynamic_overwrite == "false" else 20
    assert sum(1 for row in reference_rows(IO, mine) if row[2] == "b") == expected_b


def test_unshuffled_tasks_number_sequences_apart(tmp_path: Path) -> None:
    """Two tasks writing one bucket without the shuffle: the later task's rows are newer."""
    root = str(tmp_path / "t")
    Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options={"bucket": "1"}
    )
    plan = plan_write(IO, root, {}, overwrite=False)
    first = write_task(IO, plan, make_batch([(1, 1, "a"), (2, 2, "a")], None, FIELDS), 0)
    second = write_task(IO, plan, make_batch([(1, 10, "a")], None, FIELDS), 1)
    committer.commit(IO, root, [*first, *second])
    assert reference_rows(IO, root) == {(1, 10, "a"): 1, (2, 2, "a"): 1}
    ranges = [
        (f.min_sequence_number, f.max_sequence_number)
        for m in (*first, *second)
        for f in m.data.new_files
    ]
    assert ranges == [(0, 1), (1 << 32, 1 << 32)]


def test_row_kinds_and_ignore_delete(tmp_path: Path) -> None:
    options = {"bucket": "1", "ignore-delete": "true"}
    mine, theirs = str(tmp_path / "mine"), str(tmp_path / "theirs")
    for root in (mine, theirs):
        Table.create(
            IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=options
        )
    rows = [(1, 1, "a"), (1, 2, "a"), (2, 1, "a"), (1, 3, "a")]
    kinds = [RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE, RowKind.UPDATE_BEFORE]
    spark_impl_write(IO, mine, rows, kinds)
    Table(IO, theirs).write_and_commit(rows, kinds)
    assert reference_rows(IO, mine) == reference_rows(IO, theirs) == {(1, 2, "a"): 1}


def test_invalid_input_is_refused(tmp_path: Path) -> None:
    root = str(tmp_path / "pk")
    Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options={"bucket": "1"}
    )
    plan = plan_write(IO, root, {}, overwrite=False)
    bad_kind = make_batch([(1, 1, "a")], None, FIELDS).append_column("_ROW_KIND", pa.array(["+X"]))
    with pytest.raises(SpecViolation, match="row kind"):
        write_task(IO, plan, bad_kind)
    with pytest.raises(SpecViolation, match="lacks the columns"):
        write_task(IO, plan, make_batch([(1, 1, "a")], None, FIELDS).drop_columns(["v"]))
    nulls = pa.table({"k": pa.array([None], pa.int32()), "v": [1], "dt": ["a"]})
    with pytest.raises(SpecViolation):
        write_task(IO, plan, nulls)
    append = str(tmp_path / "append")
    Table.create(IO, append, FIELDS, options={"bucket": "-1"})
    deleting = make_batch([(1, 1, "a")], [RowKind.DELETE], FIELDS)
    with pytest.raises(SpecViolation, match="append table"):
        write_task(IO, plan_write(IO, append, {}, overwrite=False), deleting)
    dynamic = str(tmp_path / "dynamic")
    Table.create(IO, dynamic, FIELDS, primary_keys=["k"], options={"bucket": "-1"})
    with pytest.raises(UnsupportedFeature, match="write_table"):
        write_task(
            IO,
            plan_write(IO, dynamic, {}, overwrite=False),
            make_batch([(1, 1, "a")], None, FIELDS),
        )
    cross = str(tmp_path / "cross")
    Table.create(
        IO, cross, FIELDS, partition_keys=["dt"], primary_keys=["k"], options={"bucket": "-1"}
    )
    with pytest.raises(UnsupportedFeature, match="cross-partition"):  # not via write_table
        write_task(
            IO,
            plan_write(IO, cross, {}, overwrite=False),
            make_batch([(1, 1, "a")], None, FIELDS),
        )


def test_spark_arrow_types_are_floored_to_the_column_precision(tmp_path: Path) -> None:
    fields = [
        t.DataField(0, "k", t.IntType(nullable=False)),
        t.DataField(1, "ts3", t.TimestampType(3)),
        t.DataField(2, "ts9", t.TimestampType(9)),
    ]
    root = str(tmp_path / "t")
    Table.create(IO, root, fields, primary_keys=["k"], options={"bucket": "1"})
    micros = pa.array([-1, 1_500, None], pa.timestamp("us"))
    batch = pa.table({"k": pa.array([1, 2, 3], pa.int32()), "ts3": micros, "ts9": micros})
    committer.commit(IO, root, write_task(IO, plan_write(IO, root, {}, overwrite=False), batch))
    assert reference_rows(IO, root) == {
        (1, Timestamp(-1, 0), Timestamp(-1, 999_000)): 1,
        (2, Timestamp(1, 0), Timestamp(1, 500_000)): 1,
        (3, None, None): 1,
    }


def test_driver_compacts_buckets_several_tasks_wrote(tmp_path: Path) -> None:
    """Unshuffled input: the driver merges the tasks' messages per bucket and compacts once
    (deletion vectors: the rows only become visible through that compaction)."""
    options = {"bucket": "1", "deletion-vectors.enabled": "true"}
    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=options)
    spark_impl_write(IO, root, [(1, 1, "a"), (2, 2, "a")])
    plan = plan_write(IO, root, {}, overwrite=False)
    first = write_task(IO, plan, make_batch([(1, 5, "a"), (3, 3, "a")], None, FIELDS), 0)
    second = write_task(IO, plan, make_batch([(2, 6, "a")], [RowKind.DELETE], FIELDS), 1)
    messages = compact_after_write(IO, root, [*first, *second], overwrite=False)
    assert len(messages) == 1 and messages[0].compaction.compact_after
    committer.commit(IO, root, messages)
    assert reference_rows(IO, root) == {(1, 5, "a"): 1, (3, 3, "a"): 1}
