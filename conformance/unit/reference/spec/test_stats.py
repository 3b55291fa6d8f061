"""SimpleStats rows: the empty serialized row, Java-written stats, round trips, bad rows.

Expected values come from the spec's BinaryRow description (hand-built bytes) and from Java-written
manifests read with fastavro / pyarrow directly (not through the codec under test).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import fastavro
import pyarrow.orc as pa_orc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.errors import PaimonFormatError
from reference.spec import stats as s

AVRO_MANIFEST_09 = "paimon-cpp/avro/manifest/avro_manifest_09"
APPEND_09_MANIFEST = (
    "paimon-cpp/parquet/append_09.db/append_09/manifest/"
    "manifest-7008d4c0-b1b0-4237-ac6d-845b887efc92-0"
)

stats_values = st.builds(
    s.SimpleStats,
    st.binary(max_size=40),
    st.binary(max_size=40),
    st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), max_size=6).map(tuple),
)


def test_empty_serialized_row_is_arity_zero_and_one_null_word() -> None:
    # 4-byte big-endian arity 0, then the 8-byte null bit set (header byte included) of 0 fields.
    assert s.EMPTY_SERIALIZED_ROW == b"\x00\x00\x00\x00" + b"\x00" * 8
    assert s.SimpleStats(bytes(12), bytes(12), ()) == s.EMPTY_STATS
    assert s.is_empty_stats(s.SimpleStats(bytes(12), bytes(12), ()))
    assert not s.is_empty_stats(s.SimpleStats(bytes(12), bytes(12), (0,)))


def test_java_append_file_has_empty_key_stats(third_party: Path) -> None:
    data = (third_party / APPEND_09_MANIFEST).read_bytes()
    row = pa_orc.ORCFile(io.BytesIO(data)).read().to_pylist()[0]["_FILE"]
    assert row["_MIN_KEY"] == s.EMPTY_SERIALIZED_ROW
    assert s.decode_simple_stats_row(row["_KEY_STATS"]) == s.EMPTY_STATS
    value_stats = s.decode_simple_stats_row(row["_VALUE_STATS"])
    assert value_stats.null_counts == (0, 0, 0, 0)
    assert value_stats.min_values[:4] == (4).to_bytes(4, "big")  # a 4-column row


def test_java_avro_stats_row_decodes(third_party: Path) -> None:
    with (third_party / AVRO_MANIFEST_09).open("rb") as handle:
        record: Any = next(iter(fastavro.reader(handle)))
    raw = record["_FILE"]["_VALUE_STATS"]
    decoded = s.decode_simple_stats_row(raw)
    assert decoded.min_values == raw["_MIN_VALUES"]
    assert decoded.max_values == raw["_MAX_VALUES"]
    assert decoded.null_counts == (1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 2)
    assert decoded.min_values[:4] == (16).to_bytes(4, "big")  # 16 columns, 16 counts


@given(stats_values)
def test_row_round_trip(stats: s.SimpleStats) -> None:
    row = s.encode_simple_stats_row(stats)
    assert list(row) == [f.name for f in s.SIMPLE_STATS_TYPE.fields]
    assert s.decode_simple_stats_row(row) == stats


def test_null_counts_may_hold_unknown_entries() -> None:
    row = {"_MIN_VALUES": b"a", "_MAX_VALUES": b"b", "_NULL_COUNTS": [None, 3]}
    assert s.decode_simple_stats_row(row).null_counts == (None, 3)


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        (None, "expected a stats row"),
        ({"_MAX_VALUES": b"", "_NULL_COUNTS": []}, "_MIN_VALUES"),
        ({"_MIN_VALUES": "x", "_MAX_VALUES": b"", "_NULL_COUNTS": []}, "_MIN_VALUES"),
        ({"_MIN_VALUES": b"", "_MAX_VALUES": None, "_NULL_COUNTS": []}, "_MAX_VALUES"),
        ({"_MIN_VALUES": b"", "_MAX_VALUES": b""}, "_NULL_COUNTS"),
        ({"_MIN_VALUES": b"", "_MAX_VALUES": b"", "_NULL_COUNTS": None}, "_NULL_COUNTS"),
        ({"_MIN_VALUES": b"", "_MAX_VALUES": b"", "_NULL_COUNTS": ["1"]}, "bad null count"),
        ({"_MIN_VALUES": b"", "_MAX_VALUES": b"", "_NULL_COUNTS": [True]}, "bad null count"),
    ],
)
def test_bad_rows_are_format_errors(row: object, reason: str) -> None:
    with pytest.raises(PaimonFormatError, match=reason):
        s.decode_simple_stats_row(row, context="_VALUE_STATS")
