"""Creating tables and committing schema changes (``schema/schema-<id>`` files).

Expected schema files are written by hand from ``docs/concepts/spec/schema.md``; Java 0.9
creates the same table and we compare its schema file with ours, and reads tables we created
and altered.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from conformance.java.harness import Change, JavaHarness
from reference import layout
from reference.errors import (
    CommitConflictError,
    InvalidOptionError,
    SpecViolation,
    TableAlreadyExistsError,
    TableNotFoundError,
)
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.schema import (
    AddColumn,
    DropPrimaryKey,
    RemoveOption,
    RenameColumn,
    SetOption,
)
from reference.store import metadata
from reference.store.schema_changes import alter_table, create_table

FIELDS = (
    t.DataField(0, "dt", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(1, "k", t.IntType()),
    t.DataField(2, "v", t.DoubleType()),
)
OPTIONS = {"bucket": "2", "file.format": "parquet"}


def schema_file(root: str, schema_id: int) -> dict[str, Any]:
    path = layout.schema_path(root, schema_id)
    parsed: dict[str, Any] = json.loads(LocalFileIO().read_bytes(path))
    return parsed


def create(root: str, **kwargs: Any) -> Any:
    arguments: dict[str, Any] = {
        "partition_keys": ["dt"],
        "primary_keys": ["dt", "k"],
        "options": OPTIONS,
    }
    arguments.update(kwargs)
    return create_table(LocalFileIO(), root, FIELDS, **arguments)


# --------------------------------------------------------------------------------------------
# Creating
# --------------------------------------------------------------------------------------------


def test_create_writes_schema_0(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    schema = create(root, comment="hello")
    written = schema_file(root, 0)
    assert written == {
        "version": 3,
        "id": 0,
        "fields": [
            {"id": 0, "name": "dt", "type": "STRING NOT NULL"},
            {"id": 1, "name": "k", "type": "INT NOT NULL"},
            {"id": 2, "name": "v", "type": "DOUBLE"},
        ],
        "highestFieldId": 2,
        "partitionKeys": ["dt"],
        "primaryKeys": ["dt", "k"],
        "options": OPTIONS,
        "comment": "hello",
        "timeMillis": schema.time_millis,
    }
    assert schema.time_millis > 0
    assert metadata.read_latest_schema(LocalFileIO(), root) == schema


def test_create_refuses_an_existing_table(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    create(root)
    with pytest.raises(TableAlreadyExistsError):
        create(root, primary_keys=[])
    assert metadata.list_schema_ids(LocalFileIO(), root) == [0]


def test_create_validates_schema_and_options(tmp_path: Path) -> None:
    with pytest.raises(InvalidOptionError):
        create(str(tmp_path / "a"), options={"bucket": "many"})
    with pytest.raises(SpecViolation):
        create(str(tmp_path / "b"), primary_keys=["nope"])
    with pytest.raises(SpecViolation):
        create(str(tmp_path / "c"), primary_keys=["dt"])  # only partition columns
    for name in "abc":
        assert metadata.list_schema_ids(LocalFileIO(), str(tmp_path / name)) == []


def test_racing_creators_make_one_table(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def race(index: int) -> None:
        barrier.wait()
        try:
            create(root, comment=f"creator {index}")
            outcomes.append("created")
        except TableAlreadyExistsError:
            outcomes.append("exists")

    threads = [threading.Thread(target=race, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["created", "exists", "exists", "exists"]
    assert metadata.list_schema_ids(LocalFileIO(), root) == [0]


# --------------------------------------------------------------------------------------------
# Altering
# --------------------------------------------------------------------------------------------


def test_alter_writes_the_next_schema(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    create(root)
    new = alter_table(
        LocalFileIO(),
        root,
        [AddColumn(("w",), t.BigIntType()), SetOption("snapshot.num-retained.max", "50")],
    )
    assert new.id == 1
    written = schema_file(root, 1)
    assert written["fields"][-1] == {"id": 3, "name": "w", "type": "BIGINT"}
    assert written["highestFieldId"] == 3
    assert written["options"] == {**OPTIONS, "snapshot.num-retained.max": "50"}
    assert schema_file(root, 0)["highestFieldId"] == 2  # schema files are never rewritten
    renamed = alter_table(LocalFileIO(), root, [RenameColumn(("w",), "x")])
    assert renamed.id == 2 and renamed.field_names == ["dt", "k", "v", "x"]


def test_alter_needs_a_table(tmp_path: Path) -> None:
    with pytest.raises(TableNotFoundError):
        alter_table(LocalFileIO(), str(tmp_path / "none"), [SetOption("a", "b")])


@pytest.mark.parametrize(
    "change",
    [
        SetOption("primary-key", "k"),
        SetOption("partition", "k"),
        RemoveOption("partition"),
    ],
)
def test_keys_cannot_change(tmp_path: Path, change: Any) -> None:
    root = str(tmp_path / "t")
    create(root)
    with pytest.raises(SpecViolation) as error:
        alter_table(LocalFileIO(), root, [change])
    assert error.value.code == "EVOLUTION_KEY_CHANGE"
    assert metadata.list_schema_ids(LocalFileIO(), root) == [0]


def test_restating_the_keys_changes_nothing(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    create(root)
    new = alter_table(LocalFileIO(), root, [SetOption("primary-key", "dt,k")])
    assert new.primary_keys == ("dt", "k") and "primary-key" not in new.options


def test_keys_of_an_append_table_cannot_be_set(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    create(root, primary_keys=[], options={"bucket": "-1"})
    with pytest.raises(SpecViolation) as error:
        alter_table(LocalFileIO(), root, [SetOption("primary-key", "k")])
    assert error.value.code == "EVOLUTION_KEY_CHANGE"


def test_an_empty_table_may_drop_its_primary_key(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    create(root, partition_keys=[], primary_keys=["k"], options={"bucket": "-1"})
    assert alter_table(LocalFileIO(), root, [DropPrimaryKey()]).primary_keys == ()


class RacingSchemaIO(LocalFileIO):
    """Lets another alteration create the next schema first, once."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.raced = False

    def create_exclusive(self, path: str, data: bytes) -> bool:
        if "/schema/schema-" in path and not self.raced:
            self.raced = True
            alter_table(LocalFileIO(), self.root, [SetOption("write-only", "true")])
        return super().create_exclusive(path, data)


def test_an_alteration_that_loses_the_race_is_applied_to_the_new_schema(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    create(root)
    new = alter_table(RacingSchemaIO(root), root, [AddColumn(("w",), t.IntType())])
    assert new.id == 2
    assert new.options["write-only"] == "true"  # the other change is kept
    assert new.field_names[-1] == "w"
    assert metadata.list_schema_ids(LocalFileIO(), root) == [0, 1, 2]


def test_alteration_retries_are_bounded(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    create(root)
    with pytest.raises(CommitConflictError) as error:
        alter_table(RacingSchemaIO(root), root, [AddColumn(("w",), t.IntType())], max_retries=0)
    assert error.value.retryable


# --------------------------------------------------------------------------------------------
# Java 0.9
# --------------------------------------------------------------------------------------------


@pytest.mark.java
def test_java_09_creates_the_same_schema_file(tmp_path: Path, java_harness: JavaHarness) -> None:
    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "theirs")
    create(ours)
    java_harness.create_table(
        theirs, FIELDS, partition_keys=["dt"], primary_keys=["dt", "k"], options=OPTIONS
    )
    mine, java = schema_file(ours, 0), schema_file(theirs, 0)
    del mine["timeMillis"], java["timeMillis"]
    assert mine == java


@pytest.mark.java
def test_java_09_reads_a_table_we_created_and_altered(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    root = str(tmp_path / "t")
    create(root)
    alter_table(LocalFileIO(), root, [AddColumn(("w",), t.BigIntType())])
    java_harness.write(root, [("a", 1, 1.5, 7)], commit=True)
    assert [row for _, row in java_harness.read(root).rows] == [("a", 1, 1.5, 7)]
    java_harness.alter_table(root, [Change.add_column("z", t.IntType())])
    assert metadata.read_latest_schema(LocalFileIO(), root).field_names == [
        "dt",
        "k",
        "v",
        "w",
        "z",
    ]
