"""Tests of ``reference.system_tables.common``: Java's text renderings and orders.

Expected strings are what the JDK prints (``Duration.toString``, ``LocalDateTime.toString``,
``TreeMap.toString``, ``Float.toString``), written out by hand, and a ``HashMap`` order seen in
a Java 0.9 ``$schemas`` row.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from reference.errors import InvalidOptionError
from reference.spec import types as t
from reference.spec.data import Timestamp
from reference.spec.snapshot import LocalDateTime
from reference.spec.units import format_java_duration
from reference.system_tables import common

DATE_2024_10_01 = 19997


@pytest.mark.parametrize(
    ("nanos", "text"),
    [
        (0, "PT0S"),
        (3_600 * 10**9, "PT1H"),
        (25 * 3_600 * 10**9, "PT25H"),
        (5_400 * 10**9, "PT1H30M"),
        (3_661 * 10**9, "PT1H1M1S"),
        (500_000_000, "PT0.5S"),
        (60_001 * 10**6, "PT1M0.001S"),
        (1, "PT0.000000001S"),
    ],
)
def test_java_duration_text(nanos: int, text: str) -> None:
    assert format_java_duration(nanos) == text


@pytest.mark.parametrize(
    ("value", "data_type", "text"),
    [
        (None, t.IntType(), "null"),
        (True, t.BooleanType(), "true"),
        (-7, t.BigIntType(), "-7"),
        (1.0, t.FloatType(), "1.0"),
        (1e10, t.DoubleType(), "1.0E10"),
        (Decimal("1.50"), t.DecimalType(5, 2), "1.50"),
        ("c", t.VarCharType(t.MAX_LENGTH), "c"),
        (DATE_2024_10_01, t.DateType(), "19997"),
        (3_600_000, t.TimeType(), "3600000"),
        (Timestamp(1_677_254_781_166, 0), t.TimestampType(3), "2023-02-24T16:06:21.166"),
        (Timestamp(1_677_254_760_000, 0), t.TimestampType(3), "2023-02-24T16:06"),
        (b"\x01", t.VarBinaryType(t.MAX_LENGTH), common.BINARY_OBJECT_TEXT),
    ],
)
def test_object_text(value: object, data_type: t.DataType, text: str) -> None:
    assert common.format_object_text(value, data_type) == text  # type: ignore[arg-type]


def test_cast_text_and_rows() -> None:
    types = [t.DateType(), t.IntType()]
    assert common.format_cast_row((DATE_2024_10_01, None), types) == "{2024-10-01, null}"
    assert common.format_object_row((DATE_2024_10_01, 3), types) == "[19997, 3]"
    assert common.format_cast_row((), []) == "{}"
    assert common.format_object_row((), []) == "[]"


def test_tree_map_text_uses_java_string_order() -> None:
    assert common.format_java_tree_map({"b": "1", "a": "2", "B": "3"}) == "{B=3, a=2, b=1}"
    assert common.format_java_tree_map({}) == "{}"


def test_hash_map_order_seen_in_java() -> None:
    # Java 0.9's $schemas printed these options (written in this order) as
    # {"bucket":"1","snapshot.time-retained":"5 h","file.format":"orc"}.
    keys = ["bucket", "file.format", "snapshot.time-retained"]
    assert common.compute_hash_map_keys(keys) == ["bucket", "snapshot.time-retained", "file.format"]


def test_flat_json_is_compact() -> None:
    assert common.encode_flat_json({"a": ["x", "é"], "b": {}}) == '{"a":["x","é"],"b":{}}'


def test_tag_time_keeps_nanoseconds() -> None:
    local = LocalDateTime(2024, 10, 1, 12, 30, 5, 123_456_789)
    assert common.compute_timestamp_of_local(local) == Timestamp(1_727_785_805_123, 456_789)


def test_time_travel_options() -> None:
    travel = common.parse_time_travel({"scan.snapshot-id": "3"})
    assert travel.snapshot_id == 3
    with pytest.raises(InvalidOptionError, match="conflicts"):
        common.parse_time_travel({"scan.snapshot-id": "3", "scan.tag-name": "t"})
