"""Tests of ``reference.store.file_writer``: statistics modes, Java's truncation, per-format raw
statistics, stats rows, rolling and file metas.

Expected values are computed by hand from the rules, or are what Paimon 0.9 (Java) wrote for the
same values in our harness runs (noted as "Java 0.9 wrote"); ``test_write.py`` re-checks the
writer against live Java output.
"""

from __future__ import annotations

import datetime
import math
from decimal import Decimal

import pytest

from reference.errors import InvalidOptionError
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.binary_row import (
    SERIALIZED_EMPTY_ROW,
    NullLayout,
    deserialize_binary_row,
    serialize_binary_row,
)
from reference.spec.column_stats import (
    NO_STATS,
    PARQUET_UNKNOWN_NULL_COUNT,
    ColumnStats,
    StatsKind,
    StatsMode,
    apply_stats_mode,
    compute_stats_modes,
    compute_truncated_max,
    compute_truncated_min,
    encode_simple_stats,
    parse_stats_mode,
)
from reference.spec.data import RowKind, Timestamp
from reference.spec.data_file import FileSource
from reference.spec.file_format import (
    FileFormat,
    FormatWriteOptions,
    arrow_to_rows,
    decode_data_file,
)
from reference.spec.key_value import KeyValue
from reference.spec.stats import EMPTY_STATS
from reference.store.file_writer import (
    FileSettings,
    KeyValueLayout,
    MetaContext,
    compute_creation_time,
    compute_file_ranges,
    compute_key_value_ranges,
    compute_raw_stats,
    to_arrow,
    write_append_files,
    write_key_value_file,
)

STRING = t.VarCharType(t.MAX_LENGTH)
TRUNCATE_16 = StatsMode(StatsKind.TRUNCATE, 16)
FULL = StatsMode(StatsKind.FULL)
CONTEXT = MetaContext(
    schema_id=3, level=0, file_source=FileSource.APPEND, creation_time=Timestamp(7)
)

# --------------------------------------------------------------------------------------------
# Modes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("none", StatsMode(StatsKind.NONE)),
        ("COUNTS", StatsMode(StatsKind.COUNTS)),
        ("Full", FULL),
        ("truncate(16)", TRUNCATE_16),
        ("TRUNCATE(3)", StatsMode(StatsKind.TRUNCATE, 3)),
    ],
)
def test_parse_stats_mode(text: str, mode: StatsMode) -> None:
    assert parse_stats_mode(text, "metadata.stats-mode") == mode


@pytest.mark.parametrize("text", ["truncate(0)", "truncate", "some", "truncate(-1)"])
def test_bad_stats_mode_names_the_option(text: str) -> None:
    with pytest.raises(InvalidOptionError) as raised:
        parse_stats_mode(text, "fields.v.stats-mode")
    assert raised.value.option == "fields.v.stats-mode"


def test_field_mode_overrides_table_mode() -> None:
    options = {"metadata.stats-mode": "counts", "fields.v.stats-mode": "full"}
    assert compute_stats_modes(options, ["k", "v"]) == [StatsMode(StatsKind.COUNTS), FULL]
    assert compute_stats_modes({}, ["k"]) == [TRUNCATE_16]


def test_key_column_uses_its_physical_name() -> None:
    options = {"fields._KEY_k.stats-mode": "none"}
    assert compute_stats_modes(options, ["_KEY_k", "k"]) == [StatsMode(StatsKind.NONE), TRUNCATE_16]


# --------------------------------------------------------------------------------------------
# Truncation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "length", "expected"),
    [
        ("abc", 16, "abc"),
        ("a" * 16, 16, "a" * 16),
        ("a" * 17, 16, "a" * 15 + "b"),
        ("abz", 2, "ac"),
        ("a\U0010ffffz", 2, "b"),  # U+10FFFF cannot grow: the code point before it grows
        ("\U0010ffff" * 3, 2, None),  # nothing can grow: no upper bound
        ("\U0001f600bc", 1, "\U0001f601"),  # code points, not UTF-16 units or bytes
        ("x\ud7ffyz", 2, "x?"),  # U+D7FF + 1 is a surrogate: Java's encoder writes '?'
        (42, 1, 42),
    ],
)
def test_truncated_max(value: object, length: int, expected: object) -> None:
    assert compute_truncated_max(value, length) == expected


def test_truncated_min_cuts_code_points() -> None:
    assert compute_truncated_min("\U0001f600abc", 2) == "\U0001f600a"
    assert compute_truncated_min("ab", 5) == "ab"
    assert compute_truncated_min(Decimal("1.5"), 1) == Decimal("1.5")


def test_truncate_mode() -> None:
    stats = ColumnStats("a" * 20, "b" * 20, 2)
    assert apply_stats_mode(stats, TRUNCATE_16) == ColumnStats("a" * 16, "b" * 15 + "c", 2)
    assert apply_stats_mode(ColumnStats("a", "\U0010ffff" * 17, 0), TRUNCATE_16) == ColumnStats(
        None, None, 0
    )


def test_other_modes() -> None:
    stats = ColumnStats(1, 9, 4)
    assert apply_stats_mode(stats, FULL) == stats
    assert apply_stats_mode(stats, StatsMode(StatsKind.COUNTS)) == ColumnStats(None, None, 4)
    assert apply_stats_mode(stats, StatsMode(StatsKind.NONE)) == NO_STATS
    assert apply_stats_mode(None, FULL) == NO_STATS


# --------------------------------------------------------------------------------------------
# Raw statistics per format (observed Java 0.9 behaviour)
# --------------------------------------------------------------------------------------------

NAN = float("nan")


def test_avro_orders_like_java_compare_to() -> None:
    """Java 0.9 wrote min -0.0 / max NaN for (1.5, NaN, -0.0) and min 0.0 / max NaN for
    (NaN, 2.0, 0.0) in an Avro file."""
    first = compute_raw_stats([1.5, NAN, -0.0], t.FloatType(), FileFormat.AVRO)
    assert first is not None and str(first.min) == "-0.0" and math.isnan(first.max)
    second = compute_raw_stats([NAN, 2.0, 0.0], t.DoubleType(), FileFormat.AVRO)
    assert second is not None and str(second.min) == "0.0" and math.isnan(second.max)


def test_parquet_float_rules() -> None:
    """Java 0.9: a NaN drops min/max; (0.0, -0.0, 0.0) reads as min -0.0 max 0.0."""
    assert compute_raw_stats([1.5, NAN, None], t.FloatType(), FileFormat.PARQUET) == ColumnStats(
        None, None, 1
    )
    zeros = compute_raw_stats([0.0, 0.0], t.DoubleType(), FileFormat.PARQUET)
    assert zeros is not None and (str(zeros.min), str(zeros.max)) == ("-0.0", "0.0")


def test_orc_float_rules() -> None:
    """Java 0.9: ORC keeps the first value and compares by IEEE (NaN sticks only if first)."""
    later = compute_raw_stats([1.5, NAN, -0.0], t.FloatType(), FileFormat.ORC)
    assert later == ColumnStats(-0.0, 1.5, 0)
    first = compute_raw_stats([NAN, 2.0, 0.0], t.DoubleType(), FileFormat.ORC)
    assert first is not None and math.isnan(first.min) and math.isnan(first.max)
    zeros = compute_raw_stats([0.0, -0.0], t.DoubleType(), FileFormat.ORC)
    assert zeros is not None and (str(zeros.min), str(zeros.max)) == ("0.0", "0.0")


def test_parquet_nested_columns_have_no_statistics() -> None:
    """Java 0.9 wrote a null null count for an ARRAY column of a Parquet file."""
    assert compute_raw_stats([[1], None], t.ArrayType(t.IntType()), FileFormat.PARQUET) is None
    row = compute_raw_stats([None], t.ArrayType(t.IntType()), FileFormat.ORC)
    assert row == ColumnStats(None, None, 1)


def test_parquet_drops_large_binary_statistics() -> None:
    """Java 0.9 wrote null count -1 for strings of 3000 characters (min + max >= 4096 bytes)
    and kept strings of 1501 characters."""
    big = compute_raw_stats(["x" * 3000, "y" * 3000, None], STRING, FileFormat.PARQUET)
    assert big == ColumnStats(None, None, PARQUET_UNKNOWN_NULL_COUNT)
    kept = compute_raw_stats(["q" * 1500 + "a", "q" * 1500 + "b"], STRING, FileFormat.PARQUET)
    assert kept == ColumnStats("q" * 1500 + "a", "q" * 1500 + "b", 0)
    binary = compute_raw_stats([b"a" * 3000], t.VarBinaryType(t.MAX_LENGTH), FileFormat.PARQUET)
    assert binary == ColumnStats(None, None, PARQUET_UNKNOWN_NULL_COUNT)


def test_orc_long_strings_have_unknown_bounds() -> None:
    """Java 0.9 wrote no min/max for strings of 1501 characters in an ORC file."""
    stats = compute_raw_stats(["q" * 1500 + "a", "q" * 1500 + "b", None], STRING, FileFormat.ORC)
    assert stats == ColumnStats(None, None, 1)
    short_min = compute_raw_stats(["a", "q" * 1500], STRING, FileFormat.ORC)
    assert short_min == ColumnStats("a", None, 0)


def test_parquet_int96_timestamps_have_no_min_max() -> None:
    values = [Timestamp(3, 999_999), None]
    assert compute_raw_stats(values, t.TimestampType(9), FileFormat.PARQUET) == ColumnStats(
        None, None, 1
    )
    assert compute_raw_stats(values, t.TimestampType(9), FileFormat.ORC) == ColumnStats(
        Timestamp(3, 999_999), Timestamp(3, 999_999), 1
    )


@pytest.mark.parametrize("fmt", list(FileFormat))
def test_binary_has_only_null_counts(fmt: FileFormat) -> None:
    stats = compute_raw_stats([b"\x00", None, b"\xff"], t.VarBinaryType(10), fmt)
    assert stats == ColumnStats(None, None, 1)


@pytest.mark.parametrize("fmt", list(FileFormat))
def test_strings_compare_by_utf8_bytes(fmt: FileFormat) -> None:
    """U+FF5E sorts below U+1F600 in UTF-8 although its UTF-16 unit is larger."""
    stats = compute_raw_stats(["\uff5e", "\U0001f600", "a"], STRING, fmt)
    assert stats == ColumnStats("a", "\U0001f600", 0)


@pytest.mark.parametrize("fmt", list(FileFormat))
def test_all_null_column(fmt: FileFormat) -> None:
    assert compute_raw_stats([None, None], t.IntType(), fmt) == ColumnStats(None, None, 2)


# --------------------------------------------------------------------------------------------
# Stats rows
# --------------------------------------------------------------------------------------------


def test_simple_stats_round_trip() -> None:
    types = [t.IntType(nullable=False), STRING, t.DecimalType(20, 2)]
    stats = [ColumnStats(1, 5, 0), ColumnStats("a", "z", None), ColumnStats(None, None, 3)]
    encoded = encode_simple_stats(stats, types)
    assert deserialize_binary_row(encoded.min_values, types) == (1, "a", None)
    assert deserialize_binary_row(encoded.max_values, types) == (5, "z", None)
    assert encoded.null_counts == (0, None, 3)


def test_stats_rows_use_the_0_9_null_layout() -> None:
    """0.9's InternalRowSerializer gives a null DECIMAL(20, 2) no variable part (a bare
    8-byte header + 8-byte slot row), unlike a key projection."""
    encoded = encode_simple_stats([NO_STATS], [t.DecimalType(20, 2)])
    zero_slot = serialize_binary_row(
        [None], [t.DecimalType(20, 2)], null_layout=NullLayout.ZERO_SLOT
    )
    assert encoded.min_values == zero_slot
    assert len(encoded.min_values) == 4 + 16


def test_no_columns_make_empty_stats() -> None:
    assert encode_simple_stats([], []) == EMPTY_STATS


# --------------------------------------------------------------------------------------------
# Rolling
# --------------------------------------------------------------------------------------------

ROW_FIELDS = (t.DataField(0, "k", t.IntType()), t.DataField(1, "v", STRING))


def _settings(
    fmt: FileFormat, target: int, fields: tuple[t.DataField, ...] = ROW_FIELDS
) -> FileSettings:
    return FileSettings(
        fmt=fmt,
        write_options=FormatWriteOptions(),
        fields=fields,
        stats_modes=tuple(TRUNCATE_16 for _ in fields),
        target_file_size=target,
    )


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        (FileFormat.PARQUET, [(0, 1000), (1000, 2000), (2000, 2500)]),
        (FileFormat.AVRO, [(0, 1000), (1000, 2000), (2000, 2500)]),
        (FileFormat.ORC, [(0, 1024), (1024, 2048), (2048, 2500)]),
    ],
)
def test_rolls_only_at_java_check_points(fmt: FileFormat, expected: list[tuple[int, int]]) -> None:
    settings = _settings(fmt, target=1)
    table = to_arrow([(i, f"v{i}") for i in range(2500)], settings)
    assert compute_file_ranges(table, settings) == expected


def test_no_roll_below_the_target() -> None:
    settings = _settings(FileFormat.PARQUET, target=128 * 1024 * 1024)
    table = to_arrow([(i, "x") for i in range(2500)], settings)
    assert compute_file_ranges(table, settings) == [(0, 2500)]


def test_rows_after_the_last_check_stay_in_the_last_file() -> None:
    """No check falls on the 500 rows after row 1000, so they make one last file."""
    settings = _settings(FileFormat.PARQUET, target=1)
    table = to_arrow([(i, "v") for i in range(1500)], settings)
    assert compute_file_ranges(table, settings) == [(0, 1000), (1000, 1500)]


# --------------------------------------------------------------------------------------------
# Files and metas
# --------------------------------------------------------------------------------------------


def _names() -> object:
    counter = iter(range(100))
    return lambda: f"data-00000000-0000-0000-0000-000000000000-{next(counter)}.parquet"


def test_append_files_and_metas(tmp_path: object) -> None:
    file_io = LocalFileIO()
    directory = str(tmp_path)
    settings = _settings(FileFormat.PARQUET, target=1)
    rows = [(i, None if i % 3 == 0 else f"v{i % 7}") for i in range(1500)]
    metas = write_append_files(
        file_io,
        directory,
        rows,
        settings=settings,
        first_sequence=10,
        context=CONTEXT,
        names=_names(),  # type: ignore[arg-type]
    )
    assert [(m.row_count, m.min_sequence_number, m.max_sequence_number) for m in metas] == [
        (1000, 10, 1009),
        (500, 1010, 1509),
    ]
    first = metas[0]
    assert (first.min_key, first.max_key, first.key_stats) == (
        SERIALIZED_EMPTY_ROW,
        SERIALIZED_EMPTY_ROW,
        EMPTY_STATS,
    )
    assert (first.level, first.schema_id, first.delete_row_count) == (0, 3, 0)
    assert (first.file_source, first.creation_time, first.extra_files) == (
        FileSource.APPEND,
        Timestamp(7),
        (),
    )
    stored = file_io.read_bytes(f"{directory}/{first.file_name}")
    assert first.file_size == len(stored)
    decoded = arrow_to_rows(decode_data_file(stored, FileFormat.PARQUET, ROW_FIELDS), ROW_FIELDS)
    assert decoded == rows[:1000]
    types = [f.type for f in ROW_FIELDS]
    assert deserialize_binary_row(first.value_stats.min_values, types) == (0, "v0")
    assert deserialize_binary_row(first.value_stats.max_values, types) == (999, "v6")
    assert first.value_stats.null_counts == (0, 334)


def test_file_index_hook(tmp_path: object) -> None:
    file_io = LocalFileIO()
    directory = str(tmp_path)
    settings = _settings(FileFormat.PARQUET, target=1 << 30)

    def small(rows: object, fields: object) -> bytes:
        return b"idx"

    def large(rows: object, fields: object) -> bytes:
        return b"x" * 600

    [embedded] = write_append_files(
        file_io,
        directory,
        [(1, "a")],
        settings=settings,
        first_sequence=0,
        context=CONTEXT,
        names=_names(),
        file_index=small,
        file_index_threshold=500,  # type: ignore[arg-type]
    )
    assert (embedded.embedded_index, embedded.extra_files) == (b"idx", ())
    [separate] = write_append_files(
        file_io,
        directory,
        [(1, "a")],
        settings=settings,
        first_sequence=0,
        context=CONTEXT,
        names=_names(),
        file_index=large,
        file_index_threshold=500,  # type: ignore[arg-type]
    )
    assert separate.embedded_index is None
    assert separate.extra_files == (separate.file_name + ".index",)
    assert file_io.read_bytes(f"{directory}/{separate.file_name}.index") == b"x" * 600


def test_key_value_meta(tmp_path: object) -> None:
    file_io = LocalFileIO()
    key_type = t.IntType(nullable=False)
    fields = (
        t.DataField(1_073_741_823, "_KEY_k", key_type),
        t.DataField(2_147_483_646, "_SEQUENCE_NUMBER", t.BigIntType(nullable=False)),
        t.DataField(2_147_483_645, "_VALUE_KIND", t.TinyIntType(nullable=False)),
        t.DataField(0, "k", key_type),
        t.DataField(1, "v", STRING),
    )
    settings = _settings(FileFormat.AVRO, target=1 << 30, fields=fields)
    layout = KeyValueLayout((key_type,), (0,), 3, thin=False)
    records = [
        KeyValue((1,), 7, RowKind.INSERT, (1, "a")),
        KeyValue((2,), 5, RowKind.DELETE, (2, "b")),
        KeyValue((4,), 9, RowKind.UPDATE_BEFORE, (4, None)),
    ]
    table, ranges = compute_key_value_ranges(records, settings, layout)
    assert ranges == [(0, 3)]
    meta = write_key_value_file(
        file_io,
        str(tmp_path),
        "data-x-0.avro",
        table,
        records,
        settings=settings,
        key_value_layout=layout,
        context=CONTEXT,
    )
    assert (meta.row_count, meta.delete_row_count) == (3, 2)
    assert (meta.min_sequence_number, meta.max_sequence_number) == (5, 9)
    assert deserialize_binary_row(meta.min_key, [key_type]) == (1,)
    assert deserialize_binary_row(meta.max_key, [key_type]) == (4,)
    assert deserialize_binary_row(meta.key_stats.max_values, [key_type]) == (4,)
    value_types = [key_type, STRING]
    assert deserialize_binary_row(meta.value_stats.min_values, value_types) == (1, "a")
    assert meta.value_stats.null_counts == (0, 1)
    physical = arrow_to_rows(
        decode_data_file(file_io.read_bytes(f"{tmp_path}/data-x-0.avro"), FileFormat.AVRO, fields),
        fields,
    )
    assert physical == [(1, 7, 0, 1, "a"), (2, 5, 3, 2, "b"), (4, 9, 1, 4, None)]


def test_creation_time_is_local_wall_clock_millis() -> None:
    moment = datetime.datetime(2024, 1, 2, 3, 4, 5, 678_901)
    assert compute_creation_time(moment) == Timestamp(1_704_164_645_678)
