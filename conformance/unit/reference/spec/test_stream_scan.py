"""reference.spec.stream_scan: what a streaming read reads (Java ``DataTableStreamScan``, the
follow-up and compacted starting scanners), from stated expected values."""

from __future__ import annotations

import pytest

from reference.spec import stream_scan as ss
from reference.spec import types as t
from reference.spec.commit_message import BATCH_COMMIT_IDENTIFIER
from reference.spec.options import ChangelogProducer
from reference.spec.schema import TableSchema, compute_table_schema
from reference.spec.snapshot import CommitKind, Snapshot

NONE, INPUT = ChangelogProducer.NONE, ChangelogProducer.INPUT
LOOKUP, FULL = ChangelogProducer.LOOKUP, ChangelogProducer.FULL_COMPACTION


def table(options: dict[str, str], *, primary_key: bool = True) -> TableSchema:
    fields = [t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType())]
    return compute_table_schema(
        0,
        fields,
        partition_keys=(),
        primary_keys=("k",) if primary_key else (),
        options={"bucket": "1", **options} if primary_key else options,
        comment=None,
        time_millis=0,
    )


def snapshot(snapshot_id: int, kind: CommitKind, identifier: int) -> Snapshot:
    return Snapshot(snapshot_id, 0, "base", "delta", "user", identifier, kind, 0, None, None)


@pytest.mark.parametrize(
    ("options", "primary_key", "expected"),
    [
        ({}, True, False),
        ({"changelog-producer": "lookup"}, True, True),
        ({"deletion-vectors.enabled": "true"}, True, True),
        ({"merge-engine": "first-row"}, True, True),
        ({"force-lookup": "true"}, True, True),
        ({"changelog-producer": "full-compaction"}, True, False),
        ({"deletion-vectors.enabled": "true"}, False, False),  # an append table never looks up
    ],
)
def test_needs_lookup(options: dict[str, str], primary_key: bool, expected: bool) -> None:
    assert ss.needs_lookup(table(options, primary_key=primary_key)) is expected


@pytest.mark.parametrize(
    ("looks_up", "producer", "expected_levels"),
    [
        (True, LOOKUP, [1, 2, 3]),
        (True, FULL, [1, 2, 3]),  # lookup wins over full-compaction (tryFirstPlan's order)
        (False, FULL, [3]),
        (False, NONE, [0, 1, 2, 3]),
    ],
)
def test_full_read_levels(
    looks_up: bool, producer: ChangelogProducer, expected_levels: list[int]
) -> None:
    keep = ss.select_full_read_levels(looks_up, producer, top_level=3)
    assert [level for level in range(4) if keep(level)] == expected_levels


@pytest.mark.parametrize(
    ("producer", "followed"),
    [
        (NONE, CommitKind.APPEND),
        (INPUT, CommitKind.APPEND),
        (LOOKUP, CommitKind.COMPACT),
        (FULL, CommitKind.COMPACT),
    ],
)
def test_follow_up_snapshots(producer: ChangelogProducer, followed: CommitKind) -> None:
    assert [k for k in CommitKind if ss.is_follow_up_snapshot(k, producer)] == [followed]


def test_compacted_start() -> None:
    newest_first = [
        snapshot(5, CommitKind.APPEND, 5),
        snapshot(4, CommitKind.COMPACT, 3),
        snapshot(3, CommitKind.COMPACT, 2),
        snapshot(2, CommitKind.COMPACT, BATCH_COMMIT_IDENTIFIER),
    ]
    pick = ss.select_compacted_start
    assert pick(newest_first, None, NONE) == newest_first[1]  # the newest COMPACT
    assert pick(newest_first, 2, NONE) == newest_first[2]  # identifier a multiple of 2
    assert pick(newest_first, 5, NONE) == newest_first[3]  # the batch identifier
    assert pick(newest_first, None, FULL) == newest_first[1]  # full-compaction: every commit
    assert pick(newest_first[:1], None, NONE) is None
