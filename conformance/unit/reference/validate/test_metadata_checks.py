"""Metadata rules on small hand-made tables (JSON written by the test, not by the reference)."""

from __future__ import annotations

import json
from pathlib import Path

from reference.io import LocalFileIO
from reference.validate.metadata_checks import (
    check_consumers,
    check_hints,
    compute_missing_ids,
    describe_ids,
    read_schemas,
    read_snapshots,
    read_tags,
)

SCHEMA = {
    "version": 3,
    "id": 0,
    "fields": [{"id": 0, "name": "k", "type": "INT NOT NULL"}],
    "highestFieldId": 0,
    "partitionKeys": [],
    "primaryKeys": [],
    "options": {},
    "timeMillis": 0,
}


def snapshot_json(
    snapshot_id: int, schema_id: int = 0, total: int = 0, delta: int = 0
) -> dict[str, object]:
    return {
        "version": 3,
        "id": snapshot_id,
        "schemaId": schema_id,
        "baseManifestList": f"manifest-list-b-{snapshot_id}",
        "deltaManifestList": f"manifest-list-d-{snapshot_id}",
        "changelogManifestList": None,
        "commitUser": "u",
        "commitIdentifier": snapshot_id,
        "commitKind": "APPEND",
        "timeMillis": 1000 + snapshot_id,
        "logOffsets": {},
        "totalRecordCount": total,
        "deltaRecordCount": delta,
        "changelogRecordCount": 0,
    }


def make_table(root: Path, schema_ids: list[int], snapshot_ids: list[int]) -> str:
    (root / "schema").mkdir(parents=True)
    (root / "snapshot").mkdir()
    for schema_id in schema_ids:
        (root / "schema" / f"schema-{schema_id}").write_text(
            json.dumps({**SCHEMA, "id": schema_id})
        )
    for snapshot_id in snapshot_ids:
        (root / "snapshot" / f"snapshot-{snapshot_id}").write_text(
            json.dumps(snapshot_json(snapshot_id))
        )
    return str(root)


def test_missing_ids() -> None:
    assert compute_missing_ids([0, 1, 4, 6], 0) == [2, 3, 5]
    assert compute_missing_ids([3, 4], 3) == []
    assert compute_missing_ids([], 0) == []
    assert describe_ids(list(range(12))).endswith("… (12 in all)")


def test_schema_ids_must_start_at_zero(tmp_path: Path) -> None:
    root = make_table(tmp_path / "t", [1, 2], [])
    schemas, found = read_schemas(LocalFileIO(), root)
    assert sorted(schemas) == [1, 2]
    assert [(v.code, v.file) for v in found] == [("SCHEMA_ID_GAP", "schema")]


def test_no_schema(tmp_path: Path) -> None:
    root = make_table(tmp_path / "t", [], [1])
    assert [v.code for v in read_schemas(LocalFileIO(), root)[1]] == ["SCHEMA_MISSING"]


def test_snapshots_gap_and_missing_schema(tmp_path: Path) -> None:
    root = make_table(tmp_path / "t", [0], [2, 3, 5])
    (tmp_path / "t" / "snapshot" / "snapshot-5").write_text(
        json.dumps(snapshot_json(5, schema_id=4))
    )
    ids, snapshots, found = read_snapshots(
        LocalFileIO(), root, read_schemas(LocalFileIO(), root)[0]
    )
    assert ids == [2, 3, 5] and sorted(snapshots) == [2, 3, 5]
    assert [(v.code, v.file) for v in found] == [
        ("SNAPSHOT_ID_GAP", "snapshot"),
        ("SNAPSHOT_SCHEMA_MISSING", "snapshot/snapshot-5"),
    ]


def test_hints(tmp_path: Path) -> None:
    root = make_table(tmp_path / "t", [0], [2, 3])
    assert check_hints(LocalFileIO(), root, [2, 3]) == []  # missing hints are fine
    (tmp_path / "t" / "snapshot" / "EARLIEST").write_text("2")
    (tmp_path / "t" / "snapshot" / "LATEST").write_text("2")
    found = check_hints(LocalFileIO(), root, [2, 3])
    assert [(v.code, v.file, v.severity.value) for v in found] == [
        ("HINT_WRONG", "snapshot/LATEST", "warning")
    ]


def test_tags_and_consumers(tmp_path: Path) -> None:
    root = make_table(tmp_path / "t", [0], [2, 3])
    (tmp_path / "t" / "tag").mkdir()
    (tmp_path / "t" / "tag" / "tag-ok").write_text(json.dumps(snapshot_json(3)))
    (tmp_path / "t" / "tag" / "tag-late").write_text(json.dumps(snapshot_json(9)))
    (tmp_path / "t" / "consumer").mkdir()
    for name, next_snapshot in [("done", 4), ("ahead", 5), ("behind", 1)]:
        (tmp_path / "t" / "consumer" / f"consumer-{name}").write_text(
            json.dumps({"nextSnapshot": next_snapshot})
        )
    io = LocalFileIO()
    _, snapshots, _ = read_snapshots(io, root, read_schemas(io, root)[0])
    tags, found = read_tags(io, root, [2, 3], snapshots)
    assert sorted(tags) == ["late", "ok"]
    assert [(v.code, v.file) for v in found] == [("TAG_DANGLING", "tag/tag-late")]
    found = check_consumers(io, root, [2, 3])
    assert [(v.code, v.file) for v in found] == [
        ("CONSUMER_AHEAD", "consumer/consumer-ahead"),
        ("CONSUMER_EXPIRED", "consumer/consumer-behind"),
    ]
