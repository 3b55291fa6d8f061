"""Tags (``reference/store/tags.py``): files, lifetimes, deletion; Java 0.9 side by side."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from conformance.java.harness import JavaHarness
from conformance.unit.reference.store.maintenance_helpers import (
    bucketed_append_table,
    commit_compaction,
    copy_table,
    list_table_files,
    live_files,
    read_values,
    sorted_rows,
)
from conformance.unit.reference.store.test_expire import (
    compacted_history,
    data_files,
    java_history,
    java_rows,
    keep,
    run_expire,
)
from reference import layout
from reference.errors import SnapshotNotFoundError, SpecViolation
from reference.io import LocalFileIO
from reference.spec.snapshot import LocalDateTime
from reference.store import metadata, tags
from reference.store.query import TimeTravel
from reference.table import Table

HOUR_NANOS = 3600 * 10**9
NOON = dt.datetime(2024, 5, 6, 12, 0, 0)


def tag_json(table: Table, name: str) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(Path(layout.tag_path(table.root, name)).read_text())
    return loaded


def test_a_tag_without_lifetime_is_the_snapshot_file(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    table.create_tag("two", 2)
    tag_text = Path(layout.tag_path(table.root, "two")).read_bytes()
    assert tag_text == Path(layout.snapshot_path(table.root, 2)).read_bytes()


def test_a_tag_with_lifetime_adds_create_time_and_retention(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    tags.create_tag(
        table.file_io, table.root, "two", snapshot_id=2, time_retained_nanos=HOUR_NANOS, now=NOON
    )
    members = tag_json(table, "two")
    assert members["tagCreateTime"] == [2024, 5, 6, 12, 0]
    assert str(members["tagTimeRetained"]) == "3600.0"
    assert (
        Path(layout.tag_path(table.root, "two"))
        .read_text()
        .endswith(
            '"tagCreateTime" : [ 2024, 5, 6, 12, 0 ],\n  "tagTimeRetained" : 3600.000000000\n}'
        )
    )
    assert members["id"] == 2


def test_the_default_lifetime_comes_from_the_option(tmp_path: Path) -> None:
    table = bucketed_append_table(tmp_path / "t", **{"tag.default-time-retained": "1 h"})
    table.write_and_commit([(1, "a")])
    tag = tags.create_tag(table.file_io, table.root, "t", now=NOON)
    assert tag.time_retained_nanos == HOUR_NANOS
    assert tag.create_time == LocalDateTime(2024, 5, 6, 12, 0)
    assert tag.snapshot.id == 1


def test_retagging_the_same_snapshot_rewrites_another_is_refused(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    table.create_tag("t", 2)
    tags.create_tag(table.file_io, table.root, "t", snapshot_id=2, time_retained_nanos=HOUR_NANOS)
    assert "tagTimeRetained" in tag_json(table, "t")
    with pytest.raises(SpecViolation):
        table.create_tag("t", 3)
    for bad in ("", "  ", "a/b"):
        with pytest.raises(SpecViolation):
            table.create_tag(bad, 1)
    with pytest.raises(SnapshotNotFoundError):
        table.create_tag("nope", 99)


def test_an_expired_snapshot_can_be_tagged_through_another_tag(tmp_path: Path) -> None:
    table, model, _ = compacted_history(tmp_path)
    table.create_tag("two", 2)
    run_expire(table, keep(1))
    table.create_tag("again", 2)
    assert read_values(table, TimeTravel(tag="again")) == sorted_rows(model[2])


def test_deleting_a_tag_of_a_live_snapshot_deletes_only_the_tag(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    table.create_tag("two", 2)
    before = list_table_files(table.root)
    assert table.delete_tag("two") == [layout.tag_path(table.root, "two")]
    assert before - list_table_files(table.root) == {"tag/tag-two"}


def test_a_second_tag_of_the_same_snapshot_keeps_the_files(tmp_path: Path) -> None:
    table, model, names = compacted_history(tmp_path)
    table.create_tag("a", 2)
    table.create_tag("b", 2)
    run_expire(table, keep(1))
    table.delete_tag("a")
    assert {names["A"], names["B"]} <= data_files(table)
    assert read_values(table, TimeTravel(tag="b")) == sorted_rows(model[2])
    table.delete_tag("b")
    assert data_files(table) == {names["C"], names["D"]}


def test_deleting_a_tag_keeps_what_the_neighbouring_tag_uses(tmp_path: Path) -> None:
    table = bucketed_append_table(tmp_path / "t")
    table.write_and_commit([(1, "a")])  # s1: A
    first = live_files(table)[0].file_name
    table.write_and_commit([(2, "b")])  # s2: A, B
    commit_compaction(table, [(1, "a"), (2, "b")])  # s3: C
    table.create_tag("one", 1)
    table.create_tag("two", 2)
    run_expire(table, keep(1))
    table.delete_tag("two")
    assert first in data_files(table)  # A is still tagged by "one"
    assert read_values(table, TimeTravel(tag="one")) == [(1, "a")]
    assert len(data_files(table)) == 2


def test_expired_tags_are_deleted(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    tags.create_tag(
        table.file_io, table.root, "short", snapshot_id=1, time_retained_nanos=HOUR_NANOS, now=NOON
    )
    table.create_tag("forever", 2)
    later = NOON + dt.timedelta(minutes=59)
    assert tags.expire_tags(table.file_io, table.root, now=later) == []
    assert tags.expire_tags(table.file_io, table.root, now=NOON + dt.timedelta(hours=2)) == [
        "short"
    ]
    assert metadata.list_tag_names(table.file_io, table.root) == ["forever"]


# --------------------------------------------------------------------------------------------
# Java 0.9
# --------------------------------------------------------------------------------------------


@pytest.mark.java
def test_java_reads_our_tags_and_we_read_java_tags(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    table, model, _ = compacted_history(tmp_path)
    table.create_tag("ours", 2)
    tags.create_tag(table.file_io, table.root, "ours-ttl", snapshot_id=3, time_retained_nanos=10**9)
    root = Path(table.root)
    assert java_rows(java_harness, root, tag="ours") == sorted_rows(model[2])
    assert java_rows(java_harness, root, tag="ours-ttl") == sorted_rows(model[3])
    assert java_harness.list_tags(root) == {"ours": 2, "ours-ttl": 3}
    java_harness.create_tag(root, "theirs", snapshot_id=1)
    java_harness.create_tag(root, "theirs-ttl", snapshot_id=1, time_retained="1 h")
    assert read_values(table, TimeTravel(tag="theirs")) == sorted_rows(model[1])
    theirs = json.loads((root / "tag" / "tag-theirs").read_text())
    assert (root / "tag" / "tag-theirs").read_bytes() == (
        root / "snapshot" / "snapshot-1"
    ).read_bytes()
    assert "tagCreateTime" not in theirs
    ttl = metadata.read_tag(table.file_io, table.root, "theirs-ttl")
    assert ttl.time_retained_nanos == HOUR_NANOS and ttl.create_time is not None


@pytest.mark.java
def test_deleting_a_tag_deletes_the_files_java_deletes(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    source = tmp_path / "source"
    java_history(java_harness, source)
    java_harness.expire_snapshots(source, retain_min=1, retain_max=1, time_retained="1 ms")
    by_java = copy_table(source, tmp_path / "java")
    by_us = copy_table(source, tmp_path / "us")
    java_harness.delete_tag(by_java, "first")
    tags.delete_tag(LocalFileIO(), str(by_us), "first")
    assert list_table_files(by_us) == list_table_files(by_java)
    table = Table(LocalFileIO(), str(by_us))
    assert java_rows(java_harness, by_us) == read_values(table, TimeTravel())
