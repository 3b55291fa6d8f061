"""The spark_impl committer against the reference committer: the same messages make the same
snapshots and manifests; conflicts fail; a lost race is retried."""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.spark_impl.write_helpers import (
    INT_FIELDS,
    make_batch,
    prepare,
    reference_rows,
)
from reference.errors import CommitConflictError
from reference.io import LocalFileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.commit_message import CommitMessage, CompactIncrement
from reference.spec.data import RowKind
from reference.store import commit as reference_commit
from reference.table import Table
from spark_impl import commit as committer
from spark_impl.metadata import read_latest_schema, read_manifest, read_manifest_list
from spark_impl.plan import compute_bucket_dir
from spark_impl.write import plan_write, write_task

IO = LocalFileIO()
FIELDS = list(INT_FIELDS)
OPTIONS = {
    "bucket": "2",
    "manifest.target-file-size": "3 kb",
    "manifest.merge-min-count": "3",
    "manifest.full-compaction-threshold-size": "8 kb",
}


def _messages(root: str, rng: random.Random) -> list[CommitMessage]:
    plan = plan_write(IO, root, {}, overwrite=False)
    rows = [(rng.randint(0, 50), rng.randint(0, 9), rng.choice("abc")) for _ in range(60)]
    batch = prepare(make_batch(rows, [RowKind.INSERT] * len(rows), FIELDS), plan.schema, plan.mode)
    return write_task(IO, plan, batch)


def _snapshot_shape(root: Path, snapshot_id: int) -> dict[str, Any]:
    """A snapshot without what is random or time-bound (names, times, users)."""
    members = json.loads((root / "snapshot" / f"snapshot-{snapshot_id}").read_text())
    for key in ("baseManifestList", "deltaManifestList", "changelogManifestList", "indexManifest"):
        if key in members:
            members[key] = members[key] is not None
    for key in ("timeMillis", "commitUser"):
        members.pop(key)
    return members


def _manifests(root: str, list_name: str) -> list[Any]:
    metas = read_manifest_list(IO, root, list_name)
    return [
        (
            dataclasses.replace(m, file_name="", file_size=0),
            [
                dataclasses.replace(
                    e, file=dataclasses.replace(e.file, file_name="", creation_time=None)
                )
                for e in read_manifest(IO, root, m.file_name)
            ],
        )
        for m in metas
    ]


def test_same_messages_make_the_reference_snapshots(tmp_path: Path) -> None:
    """Twelve commits (manifest merging kicks in): every snapshot file and every manifest
    list holds what the reference committer writes for the same messages."""
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    Table.create(
        IO, str(mine), FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=OPTIONS
    )
    shutil.copytree(mine, theirs)
    rng = random.Random(0)
    for _ in range(12):
        messages = _messages(str(mine), rng)
        for message in messages:  # the reference commits the same files into its copy
            for meta in (*message.data.new_files, *message.compaction.compact_after):
                source = next(mine.rglob(meta.file_name))
                target = theirs / source.relative_to(mine)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, target)
        snapshots = committer.commit(IO, str(mine), messages, commit_user="u")
        expected = reference_commit.commit(
            IO,
            str(theirs),
            messages,
            commit_user="u",
            commit_identifier=reference_commit.BATCH_COMMIT_IDENTIFIER,
        )
        assert len(snapshots) == len(expected)
        for snapshot, oracle in zip(snapshots, expected, strict=True):
            assert _snapshot_shape(mine, snapshot.id) == _snapshot_shape(theirs, oracle.id)
            for attribute in ("base_manifest_list", "delta_manifest_list"):
                assert _manifests(str(mine), getattr(snapshot, attribute)) == _manifests(
                    str(theirs), getattr(oracle, attribute)
                )
    assert reference_rows(IO, str(mine)) == reference_rows(IO, str(theirs))
    assert len(read_manifest_list(IO, str(mine), snapshots[-1].base_manifest_list)) < 12


def test_deleting_a_file_that_is_not_live_conflicts(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=OPTIONS)
    messages = _messages(root, random.Random(1))
    committer.commit(IO, root, messages)
    gone = dataclasses.replace(messages[0].data.new_files[0], file_name="data-gone-0.parquet")
    stale = CommitMessage(
        messages[0].partition,
        messages[0].bucket,
        2,
        compaction=CompactIncrement(compact_before=(gone,)),
    )
    with pytest.raises(CommitConflictError) as caught:
        committer.commit(IO, root, [stale])
    assert not caught.value.retryable
    twice = CommitMessage(
        messages[0].partition,
        messages[0].bucket,
        2,
        compaction=CompactIncrement(compact_after=messages[0].data.new_files),
    )
    with pytest.raises(CommitConflictError, match="added twice"):
        committer.commit(IO, root, [twice])


class RacingIO(LocalFileIO):
    """A file IO whose first snapshot creation loses to a commit made just before it."""

    def __init__(self, root: str, rival: list[CommitMessage]) -> None:
        super().__init__()
        self.root, self.rival = root, rival
        self.raced = False

    def create_exclusive(self, path: str, data: bytes) -> bool:
        if not self.raced and "/snapshot/snapshot-" in path:
            self.raced = True
            committer.commit(LocalFileIO(), self.root, self.rival)
        return super().create_exclusive(path, data)


def test_a_lost_race_is_retried(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=OPTIONS)
    rng = random.Random(2)
    first, second = _messages(root, rng), _messages(root, rng)
    racing = RacingIO(root, second)
    [snapshot] = committer.commit(racing, root, first, max_retries=3)
    assert racing.raced and snapshot.id == 2
    manifests = {p.name for p in (Path(root) / "manifest").iterdir()}
    used = set()
    for snapshot_id in (1, 2):
        members = json.loads((Path(root) / "snapshot" / f"snapshot-{snapshot_id}").read_text())
        for key in ("baseManifestList", "deltaManifestList"):
            used.add(members[key])
            used |= {m.file_name for m in read_manifest_list(IO, root, members[key])}
    assert manifests == used, "the lost attempt's meta files are deleted"


def test_overwrite_of_a_static_partition(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    options = {**OPTIONS, "dynamic-partition-overwrite": "false"}
    Table.create(IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=options)
    committer.commit(IO, root, _messages(root, random.Random(3)))
    plan = plan_write(IO, root, {}, overwrite=True)
    batch = prepare(make_batch([(1, 1, "a")], None, FIELDS), plan.schema, plan.mode)
    [snapshot] = committer.commit(IO, root, write_task(IO, plan, batch), overwrite={"dt": "a"})
    assert snapshot.commit_kind.value == "OVERWRITE"
    rows = reference_rows(IO, root)
    assert [row for row in rows if row[2] == "a"] == [(1, 1, "a")]
    assert any(row[2] != "a" for row in rows)


def test_abort_deletes_only_what_the_write_made(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    options = {"bucket": "1", "num-sorted-run.compaction-trigger": "2"}
    Table.create(IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=options)
    rng = random.Random(5)
    committer.commit(IO, root, _messages(root, rng))
    before = {p.name for p in Path(root).rglob("data-*")}
    messages = _messages(root, rng)
    assert any(m.compaction.compact_before for m in messages)
    schema = read_latest_schema(IO, root)

    def directory(message: CommitMessage) -> str:
        partition = deserialize_binary_row(
            message.partition, [f.type for f in schema.partition_type.fields]
        )
        return compute_bucket_dir(root, schema, partition, message.bucket)

    committer.delete_message_files(IO, root, messages, directory)
    assert {p.name for p in Path(root).rglob("data-*")} == before
