"""Manifest rules on hand-built records: counts, ranges, replay, buckets and level overlaps."""

from __future__ import annotations

from dataclasses import replace

from conformance.unit.reference.validate.records import int_key_schema, key_range_meta
from reference.spec.binary_row import SERIALIZED_EMPTY_ROW
from reference.spec.data_file import DataFileMeta
from reference.spec.manifest import FileKind, ManifestEntry, ManifestFileMeta
from reference.spec.stats import EMPTY_STATS
from reference.validate.manifest_checks import (
    LiveFile,
    check_bucket_range,
    check_entry_counts,
    check_levels,
    check_manifest_ranges,
    check_partition_total_buckets,
    check_total_buckets,
    find_added_twice,
    find_live_twice,
)

SCHEMA = int_key_schema(2)


def meta(name: str, level: int = 0, low: int = 0, high: int = 9) -> DataFileMeta:
    return key_range_meta(low, high, file_name=name, level=level)


def entry(name: str, kind: FileKind = FileKind.ADD, bucket: int = 0, **file: int) -> ManifestEntry:
    return ManifestEntry(kind, SERIALIZED_EMPTY_ROW, bucket, 2, meta(name, **file))


def live(e: ManifestEntry) -> LiveFile:
    return LiveFile(e, (), f"/t/bucket-{e.bucket}/{e.file.file_name}", 1)


def test_entry_counts() -> None:
    entries = [entry("a"), entry("b"), entry("a", FileKind.DELETE)]
    list_entry = ManifestFileMeta("m", 1, 2, 1, EMPTY_STATS, 0)
    assert check_entry_counts(list_entry, entries) == []
    assert check_entry_counts(replace(list_entry, num_added_files=3), entries) != []


def test_ranges_are_checked_only_when_recorded() -> None:
    entries = [entry("a", bucket=0, level=1), entry("b", bucket=1, level=4)]
    base = ManifestFileMeta("m", 1, 2, 0, EMPTY_STATS, 0)
    assert check_manifest_ranges(base, entries) == []
    exact = replace(base, min_bucket=0, max_bucket=1, min_level=1, max_level=4)
    assert check_manifest_ranges(exact, entries) == []
    assert len(check_manifest_ranges(replace(exact, max_level=5), entries)) == 1


def test_replay_findings() -> None:
    manifests = [
        ("m1", [entry("a"), entry("b")]),
        ("m2", [entry("a", FileKind.DELETE), entry("a"), entry("b")]),
    ]
    twice = find_added_twice(manifests)
    assert [(name, e.file.file_name) for name, e in twice] == [("m2", "b")]
    live_entries = [entry("a"), entry("a", level=3), entry("b", bucket=1)]
    assert [e.file.level for e in find_live_twice(live_entries)] == [3]


def test_bucket_rules() -> None:
    assert check_bucket_range(live(entry("a", bucket=1))) == []
    assert check_bucket_range(live(replace(entry("a"), bucket=2))) != []
    assert check_bucket_range(live(replace(entry("a"), bucket=-3, total_buckets=-1))) != []
    assert check_bucket_range(live(replace(entry("a"), bucket=5, total_buckets=-1))) == []
    assert check_total_buckets(live(entry("a")), SCHEMA) == []
    assert check_total_buckets(live(replace(entry("a"), total_buckets=3)), SCHEMA) != []
    mixed = [live(entry("a")), live(entry("b")), live(replace(entry("c"), total_buckets=4))]
    assert [v.file for v in check_partition_total_buckets("/t", mixed)] == ["bucket-0/c"]


def test_levels_above_zero_are_sorted_runs() -> None:
    files = [
        live(entry("a", level=2, low=0, high=4)),
        live(entry("b", level=2, low=5, high=9)),
        live(entry("c", level=0, low=0, high=9)),
        live(entry("d", level=3, low=0, high=9)),
    ]
    assert check_levels("/t", files, SCHEMA) == []
    overlapping = [*files, live(entry("e", level=2, low=4, high=6))]
    found = check_levels("/t", overlapping, SCHEMA)
    # a [0, 4], e [4, 6], b [5, 9]: e overlaps a, and b overlaps e
    assert [(v.code, v.file) for v in found] == [
        ("LEVEL_OVERLAP", "bucket-0/e"),
        ("LEVEL_OVERLAP", "bucket-0/b"),
    ]
