"""Snapshot, hint, tag and consumer files: Java-written snapshots decode and re-encode byte for
byte, unknown members survive, hints parse like ``Long.parseLong``, and malformed files raise
``PaimonFormatError``."""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.errors import PaimonFormatError, UnsupportedFeature
from reference.spec import snapshot as sn

TABLES = "paimon-cpp/parquet"


def snapshot_dirs(third_party: Path) -> list[Path]:
    dirs = sorted((third_party / TABLES).glob("*/*/snapshot"))
    assert dirs
    return dirs


def test_java_snapshots_round_trip(third_party: Path) -> None:
    count = 0
    for directory in snapshot_dirs(third_party):
        for path in sorted(directory.glob("snapshot-*")):
            data = path.read_bytes()
            snapshot = sn.decode_snapshot(data)
            assert snapshot.id == int(path.name.removeprefix("snapshot-"))
            assert sn.encode_snapshot(snapshot).encode("utf-8") == data, path
            count += 1
    assert count >= 20


def test_decoded_members_of_a_0_9_snapshot(third_party: Path) -> None:
    path = third_party / TABLES / "pk_09.db/pk_09/snapshot/snapshot-8"
    snapshot = sn.decode_snapshot(path.read_bytes())
    assert snapshot.version == 3
    assert snapshot.schema_id == 0
    assert snapshot.base_manifest_list.startswith("manifest-list-")
    assert snapshot.changelog_manifest_list is None
    assert snapshot.null_members == {"changelogManifestList"}
    assert snapshot.index_manifest == "index-manifest-03e2700b-8409-499b-8c27-a09ccee9348c-1"
    assert snapshot.commit_identifier == 4
    assert snapshot.commit_kind is sn.CommitKind.COMPACT
    assert snapshot.time_millis == 1755758625645
    assert snapshot.log_offsets == {}
    assert (snapshot.total_record_count, snapshot.delta_record_count) == (10, -3)
    assert snapshot.changelog_record_count == 0
    assert snapshot.base_manifest_list_size is None
    assert snapshot.next_row_id is None
    assert snapshot.extra == {}


def test_decoded_members_of_a_1_x_snapshot(third_party: Path) -> None:
    path = third_party / TABLES / "pk_table_with_mor.db/pk_table_with_mor/snapshot/snapshot-1"
    snapshot = sn.decode_snapshot(path.read_bytes())
    assert (snapshot.base_manifest_list_size, snapshot.delta_manifest_list_size) == (884, 995)
    assert snapshot.next_row_id == 0
    assert snapshot.commit_kind is sn.CommitKind.APPEND


def test_hints_name_the_first_and_last_snapshot(third_party: Path) -> None:
    for directory in snapshot_dirs(third_party):
        ids = [int(p.name.removeprefix("snapshot-")) for p in directory.glob("snapshot-*")]
        earliest = (directory / sn.EARLIEST_HINT).read_bytes()
        latest = (directory / sn.LATEST_HINT).read_bytes()
        assert sn.decode_hint(earliest) == min(ids)
        assert sn.decode_hint(latest) == max(ids)
        assert sn.encode_hint(max(ids)) == latest


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"8", 8),
        (b"+8", 8),
        (b"9223372036854775807", 2**63 - 1),
        (b"", None),
        (b"abc", None),
        (b"8\n", None),
        (b" 8", None),
        (b"8.0", None),
        (b"0", None),
        (b"-1", None),
        (b"9223372036854775808", None),
        (b"\xff\xfe", None),
        (b"\xd9\xa3", None),  # ARABIC-INDIC DIGIT THREE in UTF-8
    ],
)
def test_hint_parsing(data: bytes, expected: int | None) -> None:
    assert sn.decode_hint(data) == expected


def test_hint_encoding() -> None:
    assert sn.encode_hint(1) == b"1"
    assert sn.encode_hint(123456789012) == b"123456789012"
    with pytest.raises(ValueError):
        sn.encode_hint(0)


# --------------------------------------------------------------------------------------------
# Hand-written files
# --------------------------------------------------------------------------------------------

MAIN_STYLE = """{
  "version" : 3,
  "uuid" : "6b0b7f0e-1c1b-4a0b-9d43-0b2f5c7d3c11",
  "id" : 12,
  "schemaId" : 2,
  "baseManifestList" : "manifest-list-a-0",
  "baseManifestListSize" : 1001,
  "deltaManifestList" : "manifest-list-a-1",
  "deltaManifestListSize" : 996,
  "changelogManifestList" : "manifest-list-a-2",
  "changelogManifestListSize" : 900,
  "indexManifest" : "index-manifest-b-0",
  "commitUser" : "user",
  "writerVersion" : "java-2.1-abc",
  "commitIdentifier" : 7,
  "commitKind" : "OVERWRITE",
  "timeMillis" : 1700000000000,
  "totalRecordCount" : 100,
  "deltaRecordCount" : 0,
  "changelogRecordCount" : 5,
  "watermark" : -9223372036854775808,
  "statistics" : "stats-c-0",
  "properties" : {
    "k" : "v"
  },
  "nextRowId" : 42,
  "operation" : "MERGE"
}"""


def test_main_style_snapshot_round_trips() -> None:
    snapshot = sn.decode_snapshot(MAIN_STYLE)
    assert snapshot.uuid == "6b0b7f0e-1c1b-4a0b-9d43-0b2f5c7d3c11"
    assert snapshot.writer_version == "java-2.1-abc"
    assert snapshot.operation is sn.Operation.MERGE
    assert snapshot.commit_kind is sn.CommitKind.OVERWRITE
    assert snapshot.watermark == -(2**63)
    assert snapshot.properties == {"k": "v"}
    assert snapshot.log_offsets is None
    assert snapshot.null_members == frozenset()
    assert sn.encode_snapshot(snapshot) == MAIN_STYLE


def test_unknown_members_are_kept_and_written_last() -> None:
    document = json.loads(MAIN_STYLE)
    document["futureField"] = {"a": [1, 2], "b": None}
    document["anotherOne"] = 1.25
    text = json.dumps(document, indent=2)
    snapshot = sn.decode_snapshot(text)
    assert snapshot.extra == {
        "futureField": {"a": [1, 2], "b": None},
        "anotherOne": Decimal("1.25"),
    }
    encoded = sn.encode_snapshot(snapshot)
    assert encoded.startswith(MAIN_STYLE[:-2])
    assert encoded.endswith(
        '"operation" : "MERGE",\n'
        '  "futureField" : {\n'
        '    "a" : [ 1, 2 ],\n'
        '    "b" : null\n'
        "  },\n"
        '  "anotherOne" : 1.25\n'
        "}"
    )


def test_explicit_nulls_of_optional_members_are_kept() -> None:
    document = json.loads(MAIN_STYLE)
    document["watermark"] = None
    document["indexManifest"] = None
    snapshot = sn.decode_snapshot(json.dumps(document))
    assert snapshot.null_members == {"watermark", "indexManifest"}
    again = json.loads(sn.encode_snapshot(snapshot))
    assert again["watermark"] is None and again["indexManifest"] is None
    assert "watermark" not in json.loads(
        sn.encode_snapshot(replace(snapshot, null_members=frozenset()))
    )


def test_snapshot_of_paimon_0_2_has_version_1() -> None:
    document = json.loads(MAIN_STYLE)
    del document["version"]
    snapshot = sn.decode_snapshot(json.dumps(document))
    assert snapshot.version == sn.PAIMON_02_SNAPSHOT_VERSION
    assert sn.encode_snapshot(snapshot).startswith('{\n  "version" : 1,')


def test_0_9_layout_for_new_snapshots() -> None:
    snapshot = sn.Snapshot(
        id=1,
        schema_id=0,
        base_manifest_list="manifest-list-x-0",
        delta_manifest_list="manifest-list-x-1",
        commit_user="u",
        commit_identifier=1,
        commit_kind=sn.CommitKind.APPEND,
        time_millis=5,
        total_record_count=3,
        delta_record_count=3,
        changelog_record_count=0,
        log_offsets={},
        null_members=sn.JAVA_0_9_NULL_MEMBERS,
    )
    assert sn.encode_snapshot(snapshot) == (
        "{\n"
        '  "version" : 3,\n'
        '  "id" : 1,\n'
        '  "schemaId" : 0,\n'
        '  "baseManifestList" : "manifest-list-x-0",\n'
        '  "deltaManifestList" : "manifest-list-x-1",\n'
        '  "changelogManifestList" : null,\n'
        '  "commitUser" : "u",\n'
        '  "commitIdentifier" : 1,\n'
        '  "commitKind" : "APPEND",\n'
        '  "timeMillis" : 5,\n'
        '  "logOffsets" : { },\n'
        '  "totalRecordCount" : 3,\n'
        '  "deltaRecordCount" : 3,\n'
        '  "changelogRecordCount" : 0\n'
        "}"
    )


# --------------------------------------------------------------------------------------------
# Tags and consumers
# --------------------------------------------------------------------------------------------


def test_tag_members_follow_the_snapshot() -> None:
    snapshot = sn.decode_snapshot(MAIN_STYLE)
    tag = sn.Tag(snapshot, sn.LocalDateTime(1969, 1, 1, 0, 0, 0, 123456789), 5 * 10**9)
    text = sn.encode_tag(tag)
    # Jackson's JavaTimeModule writes a LocalDateTime as an array and a Duration as seconds.
    assert text.endswith(
        '"operation" : "MERGE",\n'
        '  "tagCreateTime" : [ 1969, 1, 1, 0, 0, 0, 123456789 ],\n'
        '  "tagTimeRetained" : 5.000000000\n'
        "}"
    )
    assert sn.decode_tag(text) == tag
    assert sn.encode_snapshot(sn.decode_tag(text).snapshot) == MAIN_STYLE


@pytest.mark.parametrize(
    ("create_time", "retained_nanos", "expected_time", "expected_retained"),
    [
        (sn.LocalDateTime(2024, 5, 6, 7, 8), 0, "[ 2024, 5, 6, 7, 8 ]", "0.0"),
        (
            sn.LocalDateTime(2024, 5, 6, 7, 8, 9),
            1_500_000_000,
            "[ 2024, 5, 6, 7, 8, 9 ]",
            "1.500000000",
        ),
        (
            sn.LocalDateTime(2024, 12, 31, 23, 59, 0, 1),
            86_400 * 10**9,
            "[ 2024, 12, 31, 23, 59, 0, 1 ]",
            "86400.000000000",
        ),
    ],
)
def test_tag_time_forms(
    create_time: sn.LocalDateTime, retained_nanos: int, expected_time: str, expected_retained: str
) -> None:
    tag = sn.Tag(sn.decode_snapshot(MAIN_STYLE), create_time, retained_nanos)
    text = sn.encode_tag(tag)
    assert f'"tagCreateTime" : {expected_time},' in text
    assert text.endswith(f'"tagTimeRetained" : {expected_retained}\n}}')
    assert sn.decode_tag(text) == tag


def test_tag_without_tag_members_is_a_snapshot() -> None:
    tag = sn.decode_tag(MAIN_STYLE)
    assert (tag.create_time, tag.time_retained_nanos) == (None, None)
    assert sn.encode_tag(tag) == MAIN_STYLE


def test_tag_accepts_whole_seconds() -> None:
    document = json.loads(MAIN_STYLE) | {"tagTimeRetained": 60, "tagCreateTime": [2020, 1, 2, 3, 4]}
    tag = sn.decode_tag(json.dumps(document))
    assert tag.time_retained_nanos == 60 * 10**9
    assert tag.create_time == sn.LocalDateTime(2020, 1, 2, 3, 4)


@pytest.mark.parametrize(
    "members",
    [
        {"tagCreateTime": "2020-01-01T00:00"},
        {"tagCreateTime": [2020, 1, 2]},
        {"tagCreateTime": [2020, 13, 1, 0, 0]},
        {"tagCreateTime": [2020, 1, 1, 0, 0, 0, 10**9]},
        {"tagTimeRetained": "PT5S"},
        {"tagTimeRetained": 1.0000000001},
    ],
)
def test_malformed_tag_members(members: dict[str, Any]) -> None:
    with pytest.raises(PaimonFormatError):
        sn.decode_tag(json.dumps(json.loads(MAIN_STYLE) | members))


def test_consumer_files() -> None:
    assert sn.encode_consumer(sn.Consumer(5)) == '{\n  "nextSnapshot" : 5\n}'
    assert sn.decode_consumer('{"nextSnapshot": 17}') == sn.Consumer(17)
    for text in ("{}", '{"nextSnapshot": "5"}', '{"nextSnapshot": null}', "[5]", "{"):
        with pytest.raises(PaimonFormatError):
            sn.decode_consumer(text)


# --------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------

longs = st.integers(-(2**63), 2**63 - 1)
names = st.text(min_size=1, max_size=12)
extra_names = names.filter(lambda n: n not in sn.SNAPSHOT_MEMBERS and n not in sn.TAG_MEMBERS)
json_leaves = st.one_of(st.none(), st.booleans(), longs, st.text(max_size=8))
json_values = st.recursive(
    json_leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def snapshots(draw: st.DrawFn) -> sn.Snapshot:
    snapshot = sn.Snapshot(
        version=draw(st.integers(1, 3)),
        uuid=draw(st.none() | names),
        id=draw(st.integers(1, 2**63 - 1)),
        schema_id=draw(st.integers(0, 2**63 - 1)),
        base_manifest_list=draw(names),
        base_manifest_list_size=draw(st.none() | longs),
        delta_manifest_list=draw(names),
        delta_manifest_list_size=draw(st.none() | longs),
        changelog_manifest_list=draw(st.none() | names),
        changelog_manifest_list_size=draw(st.none() | longs),
        index_manifest=draw(st.none() | names),
        commit_user=draw(st.text(max_size=12)),
        writer_version=draw(st.none() | names),
        commit_identifier=draw(longs),
        commit_kind=draw(st.sampled_from(sn.CommitKind)),
        time_millis=draw(longs),
        log_offsets=draw(
            st.none() | st.dictionaries(st.integers(-(2**31), 2**31 - 1), longs, max_size=3)
        ),
        total_record_count=draw(st.none() | longs),
        delta_record_count=draw(st.none() | longs),
        changelog_record_count=draw(st.none() | longs),
        watermark=draw(st.none() | longs),
        statistics=draw(st.none() | names),
        properties=draw(
            st.none() | st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=3)
        ),
        next_row_id=draw(st.none() | longs),
        operation=draw(st.none() | st.sampled_from(sn.Operation)),
        extra=draw(st.dictionaries(extra_names, json_values, max_size=3)),
    )
    written = sn.snapshot_to_json(snapshot)
    unset = [
        name for name in sn.SNAPSHOT_MEMBERS if name in sn.OPTIONAL_MEMBERS and name not in written
    ]
    chosen = draw(st.lists(st.sampled_from(unset), unique=True)) if unset else []
    return replace(snapshot, null_members=frozenset(chosen))


@given(snapshots())
def test_snapshot_round_trip(snapshot: sn.Snapshot) -> None:
    text = sn.encode_snapshot(snapshot)
    assert sn.decode_snapshot(text) == snapshot
    names_in_file = list(json.loads(text))  # an independent parser sees the member order
    known = [n for n in names_in_file if n in sn.SNAPSHOT_MEMBERS]
    assert known == [n for n in sn.SNAPSHOT_MEMBERS if n in known]
    assert names_in_file[len(known) :] == list(snapshot.extra)


@given(snapshots(), st.none() | st.integers(0, 10**15), st.booleans())
def test_tag_round_trip(snapshot: sn.Snapshot, retained: int | None, with_time: bool) -> None:
    create_time = sn.LocalDateTime(2001, 2, 3, 4, 5, 6, 7) if with_time else None
    tag = sn.Tag(snapshot, create_time, retained)
    assert sn.decode_tag(sn.encode_tag(tag)) == tag


# --------------------------------------------------------------------------------------------
# Corruption
# --------------------------------------------------------------------------------------------


def test_truncated_and_garbled_files(third_party: Path) -> None:
    data = (third_party / TABLES / "pk_09.db/pk_09/snapshot/snapshot-8").read_bytes()
    for end in (0, 1, 10, len(data) // 2, len(data) - 1):
        with pytest.raises(PaimonFormatError):
            sn.decode_snapshot(data[:end])
    flipped = bytearray(data)
    flipped[0] ^= 0xFF
    for garbage in (bytes(flipped), b"\x00" * 64, b"PAR1\x15\x04"):
        with pytest.raises(PaimonFormatError):
            sn.decode_snapshot(garbage)


REQUIRED = [
    "id",
    "schemaId",
    "baseManifestList",
    "deltaManifestList",
    "commitUser",
    "commitIdentifier",
    "commitKind",
    "timeMillis",
]


@pytest.mark.parametrize("member", REQUIRED)
def test_missing_or_null_required_members(member: str) -> None:
    document = json.loads(MAIN_STYLE)
    del document[member]
    with pytest.raises(PaimonFormatError, match=re.escape(member)):
        sn.decode_snapshot(json.dumps(document))
    document[member] = None
    with pytest.raises(PaimonFormatError):
        sn.decode_snapshot(json.dumps(document))


@pytest.mark.parametrize(
    "members",
    [
        {"id": "12"},
        {"id": 1.5},
        {"id": True},
        {"id": 2**63},
        {"schemaId": [0]},
        {"baseManifestList": 5},
        {"commitKind": "MERGE"},
        {"commitKind": "append"},
        {"timeMillis": "yesterday"},
        {"totalRecordCount": "10"},
        {"logOffsets": []},
        {"logOffsets": {"x": 1}},
        {"logOffsets": {"0": "1"}},
        {"properties": {"a": 1}},
        {"operation": "DROP"},
        {"version": "3"},
        {"version": 0},
        {"uuid": 7},
    ],
)
def test_wrong_member_types(members: dict[str, Any]) -> None:
    with pytest.raises(PaimonFormatError):
        sn.decode_snapshot(json.dumps(json.loads(MAIN_STYLE) | members))


def test_future_version_is_unsupported() -> None:
    with pytest.raises(UnsupportedFeature):
        sn.decode_snapshot(json.dumps(json.loads(MAIN_STYLE) | {"version": 4}))


@pytest.mark.parametrize(
    ("local", "expected"),
    [
        (sn.LocalDateTime(2024, 5, 6), datetime.datetime(2024, 5, 6)),
        (
            sn.LocalDateTime(1969, 12, 31, 23, 59, 58, 123_456_789),
            datetime.datetime(1969, 12, 31, 23, 59, 58, 123_456),
        ),
    ],
)
def test_local_date_time_to_datetime_keeps_microseconds(
    local: sn.LocalDateTime, expected: datetime.datetime
) -> None:
    """A tag's create time as a Python date-time: nanoseconds below the microsecond dropped."""
    assert local.to_datetime() == expected
