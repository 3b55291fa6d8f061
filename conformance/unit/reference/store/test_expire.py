"""Snapshot and changelog expiration (``reference/store/expire.py``).

Expected ids come from the rules worked by hand; expected files from the history each test
builds (which file each snapshot adds and removes); expected rows from the rows the test
wrote. Java 0.9 reads the expired tables, and expires Java-written histories next to us.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.java.harness import JavaHarness
from conformance.unit.reference.store.commit_helpers import PK_FIELDS, append_file, message
from conformance.unit.reference.store.maintenance_helpers import (
    bucketed_append_table,
    commit_compaction,
    commit_with_changelog,
    copy_table,
    list_table_files,
    live_files,
    read_values,
    snapshot_ids,
    sorted_rows,
)
from reference import layout
from reference.errors import InvalidOptionError, SnapshotNotFoundError, StorageError
from reference.io import LocalFileIO
from reference.spec.data import Row
from reference.store import consumers, expire, metadata, tags
from reference.store.expire import ExpireConfig, compute_expire_end, expire_snapshots
from reference.store.query import TimeTravel
from reference.table import Table

FAR_FUTURE = 2**62
"""A ``now`` that makes every snapshot old."""


def keep(retain_min: int, retain_max: int = 2**31 - 1, limit: int = 100) -> ExpireConfig:
    """Retention by count only (every snapshot is old enough)."""
    return ExpireConfig(retain_min, retain_max, 0, limit, retain_min, retain_max, 0)


def run_expire(table: Table, config: ExpireConfig) -> expire.ExpireResult:
    return expire_snapshots(table.file_io, table.root, config, now_millis=FAR_FUTURE)


def data_files(table: Table) -> set[str]:
    bucket = Path(table.root) / "bucket-0"
    return {p.name for p in bucket.iterdir()} if bucket.exists() else set()


def earliest_hint(table: Table) -> int | None:
    directory = layout.snapshot_dir(table.root)
    return layout.read_hint(table.file_io, directory, layout.HintFile.EARLIEST)


# --------------------------------------------------------------------------------------------
# Rule 1: which ids (hand-worked)
# --------------------------------------------------------------------------------------------


def end_of(**overrides: Any) -> int:
    arguments: dict[str, Any] = {
        "earliest": 1,
        "latest": 10,
        "retain_min": 3,
        "retain_max": 100,
        "max_deletes": 100,
        "min_consumer_next": None,
        "older_than_millis": 1000,
        "commit_times": {i: 0 for i in range(1, 11)},
    }
    arguments.update(overrides)
    return compute_expire_end(**arguments)


def test_end_keeps_the_newest_retain_min_snapshots() -> None:
    assert end_of() == 8  # 10 - 3 + 1: snapshots 8, 9, 10 stay


def test_end_stops_at_the_first_young_snapshot() -> None:
    times = {i: (0 if i < 5 else 5000) for i in range(1, 11)}
    assert end_of(commit_times=times) == 5


def test_end_expires_beyond_retain_max_whatever_the_age() -> None:
    young = {i: 5000 for i in range(1, 11)}
    # retain_max 5: ids below 10 - 5 + 1 = 6 go; 6 is young, so expiration stops there
    assert end_of(retain_max=5, commit_times=young) == 6


def test_end_is_bounded_by_the_slowest_consumer_and_the_limit() -> None:
    assert end_of(min_consumer_next=4) == 4
    assert end_of(max_deletes=2) == 3
    assert end_of(earliest=6, max_deletes=1) == 7


def test_missing_time_entries_are_skipped_when_walking_up() -> None:
    times = {i: 0 for i in range(4, 11)}
    times[9] = 5000
    assert end_of(earliest=4, commit_times=times) == 8


# --------------------------------------------------------------------------------------------
# Rules 2 and 4: which files, in which order
# --------------------------------------------------------------------------------------------


def compacted_history(tmp_path: Path) -> tuple[Table, dict[int, list[Row]], dict[str, str]]:
    """s1 adds A, s2 adds B, s3 compacts A+B into C, s4 adds D; returns the file names."""
    table = bucketed_append_table(tmp_path / "t")
    model: dict[int, list[Row]] = {}
    names: dict[str, str] = {}
    table.write_and_commit([(1, "a")])
    names["A"] = live_files(table)[0].file_name
    model[1] = [(1, "a")]
    table.write_and_commit([(2, "b")])
    names["B"] = ({f.file_name for f in live_files(table)} - {names["A"]}).pop()
    model[2] = [(1, "a"), (2, "b")]
    commit_compaction(table, [(1, "a"), (2, "b")])
    names["C"] = live_files(table)[0].file_name
    model[3] = model[2]
    table.write_and_commit([(3, "d")])
    names["D"] = ({f.file_name for f in live_files(table)} - {names["C"]}).pop()
    model[4] = [*model[3], (3, "d")]
    return table, model, names


def test_expiration_keeps_retain_min_snapshots_readable(tmp_path: Path) -> None:
    table, model, _ = compacted_history(tmp_path)
    result = run_expire(table, keep(2))
    assert result.expired == (1, 2)
    assert snapshot_ids(table) == [3, 4]
    assert earliest_hint(table) == 3
    for snapshot_id in (3, 4):
        assert read_values(table, TimeTravel(snapshot_id=snapshot_id)) == sorted_rows(
            model[snapshot_id]
        )
    with pytest.raises(SnapshotNotFoundError):
        table.read(TimeTravel(snapshot_id=2))


def test_expiration_deletes_the_files_only_expired_snapshots_used(tmp_path: Path) -> None:
    table, model, names = compacted_history(tmp_path)
    before = list_table_files(table.root)
    result = run_expire(table, keep(1))
    assert result.expired == (1, 2, 3)
    # A and B were compacted away by s3; C and D are live in s4
    assert data_files(table) == {names["C"], names["D"]}
    deleted = {Path(p).name for p in result.deleted_files}
    assert {names["A"], names["B"], "snapshot-1", "snapshot-2", "snapshot-3"} <= deleted
    assert before - list_table_files(table.root) == {
        str(Path(p).relative_to(table.root)) for p in result.deleted_files
    }
    assert read_values(table, TimeTravel(snapshot_id=4)) == sorted_rows(model[4])


def test_the_snapshot_file_goes_after_its_meta_files(tmp_path: Path) -> None:
    table, _, names = compacted_history(tmp_path)
    deleted = [Path(p).name for p in run_expire(table, keep(1)).deleted_files]
    data_positions = [deleted.index(names[n]) for n in ("A", "B")]
    snapshot_positions = [deleted.index(f"snapshot-{i}") for i in (1, 2, 3)]
    assert max(data_positions) < min(snapshot_positions)
    assert snapshot_positions == sorted(snapshot_positions)
    assert deleted[-1] == "snapshot-3"


def test_a_tag_keeps_the_files_of_its_snapshot(tmp_path: Path) -> None:
    table, model, names = compacted_history(tmp_path)
    tags.create_tag(table.file_io, table.root, "two", snapshot_id=2)
    run_expire(table, keep(1))
    assert data_files(table) == {names["A"], names["B"], names["C"], names["D"]}
    assert read_values(table, TimeTravel(tag="two")) == sorted_rows(model[2])
    tags.delete_tag(table.file_io, table.root, "two")
    assert data_files(table) == {names["C"], names["D"]}


def test_a_consumer_holds_its_snapshot_and_later_ones(tmp_path: Path) -> None:
    table, _, names = compacted_history(tmp_path)
    consumers.write_consumer(table.file_io, table.root, "reader", 2)
    assert run_expire(table, keep(1)).expired == (1,)
    assert snapshot_ids(table) == [2, 3, 4]
    assert names["A"] in data_files(table)


def test_the_limit_bounds_one_run(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    assert run_expire(table, keep(1, limit=2)).expired == (1, 2)
    assert run_expire(table, keep(1, limit=2)).expired == (3,)


def test_young_snapshots_stay(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    config = ExpireConfig(1, 2**31 - 1, 3_600_000, 100, 1, 2**31 - 1, 3_600_000)
    assert expire_snapshots(table.file_io, table.root, config).expired == ()
    assert snapshot_ids(table) == [1, 2, 3, 4]


def test_nothing_to_expire_writes_a_missing_earliest_hint(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    hint = Path(layout.hint_path(layout.snapshot_dir(table.root), layout.HintFile.EARLIEST))
    hint.unlink()
    assert run_expire(table, keep(10)).expired == ()
    assert hint.read_text() == "1"


def test_expiring_an_empty_table_does_nothing(tmp_path: Path) -> None:
    table = bucketed_append_table(tmp_path / "t")
    assert run_expire(table, keep(1)) == expire.ExpireResult()


class FailingDelete(LocalFileIO):
    """Deleting ``fail_on`` raises, as a crash would stop the run there."""

    def __init__(self, fail_on: str) -> None:
        self.fail_on = fail_on

    def delete(self, path: str) -> bool:
        if path.endswith(self.fail_on):
            raise StorageError("simulated crash", path=path)
        return super().delete(path)


def test_a_crash_half_way_leaves_a_readable_table_and_a_rerun_finishes(tmp_path: Path) -> None:
    table, model, names = compacted_history(tmp_path)
    crashing = Table(FailingDelete("/snapshot/snapshot-2"), table.root)
    with pytest.raises(StorageError):
        run_expire(crashing, keep(1))
    # snapshot 1 is gone, snapshot 2 lost its meta files but not its file, 3 and 4 are whole
    assert snapshot_ids(table) == [2, 3, 4]
    assert read_values(table, TimeTravel(snapshot_id=4)) == sorted_rows(model[4])
    assert read_values(table, TimeTravel(snapshot_id=3)) == sorted_rows(model[3])
    # what snapshot 2 used cannot be known any more: deleting a tag refuses ...
    tags.create_tag(table.file_io, table.root, "four", snapshot_id=4)
    with pytest.raises(StorageError):
        tags.delete_tag(table.file_io, table.root, "four")
    # ... until expiration runs again and finishes the job
    assert run_expire(table, keep(1)).expired == (2, 3)
    assert snapshot_ids(table) == [4]
    assert data_files(table) == {names["C"], names["D"]}
    assert read_values(table, TimeTravel(snapshot_id=4)) == sorted_rows(model[4])
    tags.delete_tag(table.file_io, table.root, "four")


# --------------------------------------------------------------------------------------------
# Rule 3 and 5: decoupled changelog
# --------------------------------------------------------------------------------------------


def test_decoupled_changelog_outlives_its_snapshot(tmp_path: Path) -> None:
    table = bucketed_append_table(tmp_path / "t")
    for i in range(4):
        commit_with_changelog(table, [(i, str(i))])
    changelog_names = set()
    for snapshot_id in (1, 2):
        snapshot = metadata.read_snapshot(table.file_io, table.root, snapshot_id)
        assert snapshot.changelog_manifest_list is not None
        changelog_names.add(snapshot.changelog_manifest_list)
    config = ExpireConfig(2, 2, 0, 100, 3, 3, 0)
    assert config.is_changelog_decoupled
    assert run_expire(table, config).expired == (1, 2)
    changelog_dir = Path(layout.changelog_dir(table.root))
    assert sorted(p.name for p in changelog_dir.iterdir()) == [
        "EARLIEST",
        "LATEST",
        "changelog-1",
        "changelog-2",
    ]
    for name in changelog_names:
        assert (Path(table.root) / "manifest" / name).exists()
    result = expire.expire_changelogs(table.file_io, table.root, config, now_millis=FAR_FUTURE)
    assert result.expired == (1,)  # latest 4 - 3 + 1 = 2: changelog 2 stays
    assert not (changelog_dir / "changelog-1").exists()
    remaining = {p.name for p in (Path(table.root) / "manifest").iterdir()}
    assert len(changelog_names & remaining) == 1  # changelog 2's list stays


def test_coupled_changelog_goes_with_its_snapshot(tmp_path: Path) -> None:
    table = bucketed_append_table(tmp_path / "t")
    for i in range(3):
        commit_with_changelog(table, [(i, str(i))])
    before = data_files(table)
    run_expire(table, keep(1))
    live = {f.file_name for f in live_files(table)}
    # only the live data files and snapshot 3's changelog file remain
    assert len(before) == 6
    assert live <= data_files(table)
    assert len(data_files(table)) == 4
    assert not Path(layout.changelog_dir(table.root)).exists()


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("snapshot.num-retained.min", "0"),
        ("snapshot.num-retained.max", "x"),
        ("snapshot.time-retained", "abc"),
        ("snapshot.expire.limit", "ten"),
        ("snapshot.clean-empty-directories", "maybe"),
        ("changelog.num-retained.min", "0"),
        ("changelog.num-retained.max", "-1"),
        ("changelog.time-retained", "1 parsec"),
        ("consumer.expiration-time", "soon"),
        ("tag.default-time-retained", "x"),
    ],
)
def test_invalid_options_are_refused_naming_the_option(
    tmp_path: Path, option: str, value: str
) -> None:
    with pytest.raises(InvalidOptionError) as raised:
        bucketed_append_table(tmp_path / "t", **{option: value})
    assert raised.value.option == option


def test_a_minimum_above_its_maximum_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidOptionError) as raised:
        bucketed_append_table(
            tmp_path / "t",
            **{"snapshot.num-retained.min": "5", "snapshot.num-retained.max": "3"},
        )
    assert raised.value.option == "snapshot.num-retained.min"


@pytest.mark.parametrize(
    ("config", "option"),
    [
        (ExpireConfig(1, 1, 0, 0, 1, 1, 0), "snapshot.expire.limit"),
        (ExpireConfig(0, 1, 0, 1, 1, 1, 0), "snapshot.num-retained.min"),
        (ExpireConfig(3, 2, 0, 1, 1, 2, 0), "snapshot.num-retained.min"),
        (ExpireConfig(1, 2, 0, 1, 3, 2, 0), "changelog.num-retained.min"),
    ],
)
def test_an_invalid_expire_config_names_the_option(
    tmp_path: Path, config: ExpireConfig, option: str
) -> None:
    table = bucketed_append_table(tmp_path / "t")
    with pytest.raises(InvalidOptionError) as raised:
        run_expire(table, config)
    assert raised.value.option == option


def test_the_table_options_drive_expire(tmp_path: Path) -> None:
    table = bucketed_append_table(
        tmp_path / "t",
        **{
            "snapshot.num-retained.min": "2",
            "snapshot.num-retained.max": "2",
            "snapshot.expire.limit": "0",
        },
    )
    table.write_and_commit([(1, "a")])
    with pytest.raises(InvalidOptionError) as raised:
        table.expire()
    assert raised.value.option == "snapshot.expire.limit"


def test_table_expire_uses_retention_options_and_expires_idle_consumers(tmp_path: Path) -> None:
    table = bucketed_append_table(
        tmp_path / "t",
        **{
            "snapshot.num-retained.min": "1",
            "snapshot.num-retained.max": "2",
            "consumer.expiration-time": "1 h",
        },
    )
    for i in range(4):
        table.write_and_commit([(i, "x")])
    table.reset_consumer("old", 1)
    result = table.expire(now_millis=FAR_FUTURE)
    assert result.expired == (1, 2, 3)
    assert metadata.list_consumer_ids(table.file_io, table.root) == []


# --------------------------------------------------------------------------------------------
# Property: expiration never breaks what remains
# --------------------------------------------------------------------------------------------

OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.integers(1, 3)),
        st.tuples(st.just("compact"), st.just(0)),
        st.tuples(st.just("overwrite"), st.integers(1, 2)),
        st.tuples(st.just("changelog"), st.integers(1, 2)),
        st.tuples(st.just("tag"), st.integers(0, 20)),
        st.tuples(st.just("untag"), st.integers(0, 20)),
        st.tuples(st.just("consumer"), st.integers(0, 20)),
        st.tuples(st.just("unconsume"), st.just(0)),
        st.tuples(st.just("expire"), st.integers(1, 3), st.integers(0, 3), st.integers(1, 3)),
    ),
    min_size=4,
    max_size=14,
)


class History:
    """The model: rows of every snapshot written, tags and the consumer, by hand."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.rows: dict[int, list[Row]] = {}
        self.current: list[Row] = []
        self.tags: dict[str, int] = {}
        self.consumer: int | None = None
        self.next_value = 0

    def new_rows(self, count: int) -> list[Row]:
        rows = [(self.next_value + i, f"v{self.next_value + i}") for i in range(count)]
        self.next_value += count
        return rows

    def record(self, rows: list[Row]) -> None:
        self.current = rows
        latest = self.table.latest_snapshot()
        assert latest is not None
        self.rows[latest.id] = sorted_rows(rows)

    def existing(self) -> list[int]:
        return snapshot_ids(self.table)

    def apply(self, operation: tuple[Any, ...]) -> None:
        kind = operation[0]
        table = self.table
        if kind == "write":
            added = self.new_rows(operation[1])
            table.write_and_commit(added)
            self.record([*self.current, *added])
        elif kind == "compact" and self.current:
            commit_compaction(table, self.current)
            self.record(self.current)
        elif kind == "overwrite":
            added = self.new_rows(operation[1])
            table.write_and_commit(added, overwrite={})
            self.record(added)
        elif kind == "changelog":
            added = self.new_rows(operation[1])
            commit_with_changelog(table, added)
            self.record([*self.current, *added])
        elif kind == "tag" and self.existing():
            ids = self.existing()
            snapshot_id = ids[operation[1] % len(ids)]
            name = f"tag{snapshot_id}"
            tags.create_tag(table.file_io, table.root, name, snapshot_id=snapshot_id)
            self.tags[name] = snapshot_id
        elif kind == "untag" and self.tags:
            name = sorted(self.tags)[operation[1] % len(self.tags)]
            tags.delete_tag(table.file_io, table.root, name)
            del self.tags[name]
        elif kind == "consumer" and self.existing():
            ids = self.existing()
            self.consumer = ids[operation[1] % len(ids)]
            consumers.write_consumer(table.file_io, table.root, "c", self.consumer)
        elif kind == "unconsume" and self.consumer is not None:
            consumers.delete_consumer(table.file_io, table.root, "c")
            self.consumer = None
        elif kind == "expire":
            retain_min, extra, limit = operation[1:]
            run_expire(table, keep(retain_min, retain_min + extra, limit))

    def check(self) -> None:
        ids = self.existing()
        if self.rows:
            assert ids and ids[-1] == max(self.rows)
            assert ids == list(range(ids[0], ids[-1] + 1))
        if self.consumer is not None:
            assert self.consumer in ids
        for snapshot_id in ids:
            travel = TimeTravel(snapshot_id=snapshot_id)
            assert read_values(self.table, travel) == self.rows[snapshot_id]
        for name, snapshot_id in self.tags.items():
            assert read_values(self.table, TimeTravel(tag=name)) == self.rows[snapshot_id]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(operations=OPERATIONS)
def test_expiration_never_breaks_a_live_snapshot_tag_or_consumer(
    tmp_path_factory: pytest.TempPathFactory, operations: list[tuple[Any, ...]]
) -> None:
    table = bucketed_append_table(tmp_path_factory.mktemp("history") / "t")
    history = History(table)
    for operation in operations:
        history.apply(operation)
        history.check()


# --------------------------------------------------------------------------------------------
# Java 0.9
# --------------------------------------------------------------------------------------------


def java_history(java: JavaHarness, root: Path) -> None:
    """A primary-key table written by Java: writes, full compactions, a tag."""
    java.create_table(root, PK_FIELDS, primary_keys=["k"], options={"bucket": "1"})
    for round_number in range(3):
        rows = [(k, f"r{round_number}-{k}") for k in range(round_number, round_number + 3)]
        java.write(root, rows, commit=True)
        java.write(root, [(10 + round_number, "x")], commit=True)
        java.compact(root, commit=True)
        if round_number == 0:
            java.create_tag(root, "first")


def java_rows(java: JavaHarness, root: Path, **travel: Any) -> list[Row]:
    return sorted_rows([row for _, row in java.read(root, **travel).rows])


@pytest.mark.java
@pytest.mark.parametrize("retain", [1, 3, 5])
def test_expiring_a_java_history_deletes_the_files_java_deletes(
    tmp_path: Path, java_harness: JavaHarness, retain: int
) -> None:
    source = tmp_path / "source"
    java_history(java_harness, source)
    by_java = copy_table(source, tmp_path / "java")
    by_us = copy_table(source, tmp_path / "us")
    expired = java_harness.expire_snapshots(
        by_java, retain_min=retain, retain_max=retain, time_retained="1 ms", max_deletes=100
    )
    ours = run_expire(Table(LocalFileIO(), str(by_us)), keep(retain, retain))
    assert len(ours.expired) == expired
    assert list_table_files(by_us) == list_table_files(by_java)
    for hint in ("EARLIEST", "LATEST"):
        assert (by_us / "snapshot" / hint).read_text() == (by_java / "snapshot" / hint).read_text()
    table = Table(LocalFileIO(), str(by_us))
    assert java_rows(java_harness, by_us) == read_values(table, TimeTravel())
    assert java_rows(java_harness, by_us, tag="first") == read_values(
        table, TimeTravel(tag="first")
    )


@pytest.mark.java
def test_expiring_java_changelog_deletes_what_java_deletes(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    source = tmp_path / "source"
    options = {"bucket": "1", "changelog-producer": "input"}
    java_harness.create_table(source, PK_FIELDS, primary_keys=["k"], options=options)
    for round_number in range(4):
        rows = [(k, str(round_number)) for k in range(round_number, round_number + 2)]
        java_harness.write(source, rows, commit=True)
        java_harness.compact(source, commit=True)
    by_java = copy_table(source, tmp_path / "java")
    by_us = copy_table(source, tmp_path / "us")
    expired = java_harness.expire_snapshots(
        by_java, retain_min=2, retain_max=2, time_retained="1 ms"
    )
    ours = run_expire(Table(LocalFileIO(), str(by_us)), keep(2, 2))
    assert len(ours.expired) == expired == 6
    assert any("changelog-" in path for path in ours.deleted_files)
    assert list_table_files(by_us) == list_table_files(by_java)


@pytest.mark.java
def test_java_reads_what_remains_after_our_expiration(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    table, model, _ = compacted_history(tmp_path)
    tags.create_tag(table.file_io, table.root, "two", snapshot_id=2)
    run_expire(table, keep(1))
    root = Path(table.root)
    assert java_rows(java_harness, root) == sorted_rows(model[4])
    assert java_rows(java_harness, root, tag="two") == sorted_rows(model[2])
    assert [int(s["id"]) for s in java_harness.list_snapshots(root)] == [4]
    # and Java expires further on top of our hints
    java_harness.write(root, [(7, "j")], row_type=None, commit=True)
    assert (
        java_harness.expire_snapshots(root, retain_min=1, retain_max=1, time_retained="1 ms") == 1
    )
    snapshot = json.loads((root / "snapshot" / "snapshot-5").read_text())
    assert snapshot["id"] == 5


def test_message_helper_makes_a_plain_append(tmp_path: Path) -> None:
    """Sanity of the hand-made history: an appended file is live."""
    table = bucketed_append_table(tmp_path / "t")
    data = append_file(table, [(1, "a")])
    table.commit([message(table, new=[data])])
    assert [f.file_name for f in live_files(table)] == [data.file_name]
