"""ORC TIMESTAMP values read as Java reads them: the pre-1970 compensation comes before the
writer zone's conversion (``reference.spec.orc_timestamps``; issue 22 item 1).

Oracles: the README of paimon-cpp's Java-1.x table (its expected rows), Java Paimon 0.9 (the
harness, in a JVM of its own zone writing and a UTC JVM reading) and, for files pyarrow writes,
the values written.
"""

from __future__ import annotations

import datetime
import zlib
import zoneinfo
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cramjam
import pyarrow as pa
import pytest

from conformance.java.harness import JavaHarness
from reference.io import LocalFileIO
from reference.spec import orc_timestamps as ot
from reference.spec import types as t
from reference.spec.data import Timestamp
from reference.spec.file_format import (
    FileFormat,
    FormatWriteOptions,
    arrow_to_rows,
    decode_data_file,
    encode_data_file,
    rows_to_arrow,
)
from reference.spec.schema import decode_schema
from reference.store import query
from reference.validate.runner import ValidateOptions, validate_table
from spark_impl.plan import TimeTravel, plan_read
from spark_impl.read import read_split
from spark_impl.read_files import read_data_file

PRECISIONS = (0, 3, 6, 9)
MAX_UNCOMPENSATED_NANOS = ot.MAX_UNCOMPENSATED_NANOS
TABLE = "append_with_multiple_ts_precision_and_timezone"


def ts(nanos: int) -> Timestamp:
    return Timestamp.from_epoch_nanos(nanos)


def at_precision(nanos: int, precision: int) -> Timestamp:
    """``nanos`` truncated (floor) to ``precision`` fractional digits, as Paimon stores it."""
    unit = 10 ** (9 - precision)
    return ts(nanos // unit * unit)


# --------------------------------------------------------------------------------------------
# (a) The Java 1.x table of paimon-cpp (writer zone Asia/Shanghai), against its README
# --------------------------------------------------------------------------------------------

MS = 1_000_000
US = 1_000
S = 1_000_000_000
README_ROWS = {
    # ts_sec, ts_milli, ts_micro, ts_nano, ts_tz_sec, ts_tz_milli, ts_tz_micro, ts_tz_nano
    (ts(1 * S), ts(1 * MS), ts(1 * US), ts(1), ts(2 * S), ts(2 * MS), ts(2 * US), ts(2)),
    (ts(3 * S), ts(3 * MS), None, ts(3), ts(4 * S), ts(4 * MS), ts(4 * US), ts(4)),
    (ts(5 * S), ts(5 * MS), None, None, ts(6 * S), None, ts(6 * US), None),
}
"""The README's three rows (1970-01-01T00:00:01, 1970-01-01T00:00:00.001, ... UTC)."""


@pytest.fixture(scope="module")
def java_1x_table(third_party: Path) -> Path:
    return third_party / "paimon-cpp" / "orc" / f"{TABLE}.db" / TABLE


def test_java_1x_file_records_a_zone_east_of_utc(java_1x_table: Path) -> None:
    """The premise: the data file's stripe says Asia/Shanghai (the writing JVM's zone)."""
    (data_file,) = (java_1x_table / "bucket-0").glob("data-*.orc")
    zones = ot.read_orc_stripe_zones(*ot.read_range_of(data_file.read_bytes()))
    assert zones == (ot.StripeZone(3, "Asia/Shanghai"),)


def test_java_1x_table_reads_the_readme_rows_in_the_reference(java_1x_table: Path) -> None:
    result = query.read_table(LocalFileIO(), str(java_1x_table), query.TimeTravel())
    assert {row for _, row in result.rows} == README_ROWS
    assert len(result.rows) == len(README_ROWS)


@pytest.mark.spark
def test_java_1x_table_reads_the_readme_rows_in_spark_impl(java_1x_table: Path) -> None:
    assert set(spark_impl_rows(java_1x_table)) == README_ROWS


def test_java_1x_table_validates_deep_without_stats_mismatch(java_1x_table: Path) -> None:
    """The writer's statistics (Paimon's, from the values it wrote) agree with the values."""
    report = validate_table(LocalFileIO(), str(java_1x_table), ValidateOptions(deep=True))
    assert report.unreadable is None
    assert [v.code for v in report.violations] == []


def spark_impl_rows(root: Path) -> list[tuple[Any, ...]]:

    plan = plan_read(LocalFileIO(), str(root), TimeTravel())
    file_schemas = {i: decode_schema(text) for i, text in plan.file_schema_jsons.items()}
    rows: list[tuple[Any, ...]] = []
    for split in plan.splits:
        table = read_split(LocalFileIO(), split, plan.schema, file_schemas)
        rows += arrow_to_rows(table, list(plan.schema.fields))
    return rows


# --------------------------------------------------------------------------------------------
# Values before and after 1970, all precisions
# --------------------------------------------------------------------------------------------

VALUES_NANOS = (
    -123_123_123_123,  # -123.123123123 s
    -28_800_500_000_000,  # 8 h before 1970 minus half a second (UTC+8's wall-clock epoch)
    -1_500_000_000,
    -1_000_001_000,  # -1.000001 s
    -1_000_000_000,
    -500_000_000,  # -0.5 s: an instant in (-1 s, 0) is ambiguous in ORC when the JVM is UTC
    0,
    1_000_000,  # 0.001 s
    1,
    123_123_123_123,  # 123.123123123 s
    28_799_500_000_000,  # 8 h after 1970 minus half a second (UTC-8's wall-clock epoch)
    -220_898_880_012_345_679,  # 1963-01-01 minus 0.012345679 s
)
TIMESTAMP_FIELDS = tuple(
    t.DataField(1 + i, f"ts{p}", t.TimestampType(p)) for i, p in enumerate(PRECISIONS)
)
NESTED_FIELDS = (
    t.DataField(5, "arr3", t.ArrayType(t.TimestampType(3))),
    t.DataField(6, "map6", t.MapType(t.IntType(nullable=False), t.TimestampType(6))),
    t.DataField(7, "row9", t.RowType((t.DataField(8, "inner", t.TimestampType(9)),))),
)
LTZ_FIELDS = tuple(
    t.DataField(9 + i, f"ltz{p}", t.LocalZonedTimestampType(p)) for i, p in enumerate(PRECISIONS)
)
ID_FIELD = t.DataField(0, "id", t.IntType(nullable=False))


def value_row(row_id: int, nanos: int, fields: Sequence[t.DataField]) -> tuple[Any, ...]:
    row: list[Any] = [row_id]
    for field in fields:
        data_type = field.type
        if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
            row.append(at_precision(nanos, data_type.precision))
        elif isinstance(data_type, t.ArrayType):
            row.append([at_precision(nanos, 3), None, at_precision(-nanos, 3)])
        elif isinstance(data_type, t.MapType):
            row.append({1: at_precision(nanos, 6), 2: at_precision(nanos + 999_999, 6)})
        else:
            row.append((at_precision(nanos, 9),))
    return tuple(row)


def value_rows(fields: Sequence[t.DataField]) -> list[tuple[Any, ...]]:
    rows = [value_row(i, n, fields) for i, n in enumerate(VALUES_NANOS)]
    return [*rows, (len(rows), *([None] * len(fields)))]


def normalized(row: Sequence[Any]) -> tuple[Any, ...]:
    """Lists as tuples and maps as sorted pairs, so rows of either reader compare."""

    def one(value: Any) -> Any:
        if isinstance(value, dict):
            return tuple(sorted((k, one(v)) for k, v in value.items()))
        if isinstance(value, (list, tuple)):
            return tuple(one(v) for v in value)
        return value

    return tuple(one(v) for v in row)


def sorted_rows(rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    return sorted((normalized(r) for r in rows), key=lambda r: r[0])


# --------------------------------------------------------------------------------------------
# (b) Files written by Java Paimon 0.9, in JVMs of three zones
# --------------------------------------------------------------------------------------------

WRITER_ZONES = ("UTC", "Asia/Shanghai", "America/Los_Angeles")
AMBIGUOUS_ROWS = {
    "UTC": {5, 7, 8},  # -0.5 s; -0.001 s in the arrays of 0.001 s and 1 ns
    "Asia/Shanghai": {10},  # 07:59:59.5 is the instant -0.5 s
    "America/Los_Angeles": {1},  # 1969-12-31 15:59:59.5 is the instant -0.5 s
}


class JavaWriters:
    """A harness JVM per writer zone, started on first use (the session harness, in UTC,
    reads: a JVM that did not write the file)."""

    def __init__(self) -> None:
        self.started: dict[str, JavaHarness] = {}

    def __getitem__(self, zone: str) -> JavaHarness:
        if zone not in self.started:
            self.started[zone] = JavaHarness(jvm_args=(f"-Duser.timezone={zone}",))
            self.started[zone].start()
        return self.started[zone]


@pytest.fixture(scope="module")
def java_writers(java_harness: Any) -> Iterator[JavaWriters]:
    writers = JavaWriters()
    try:
        yield writers
    finally:
        for writer in writers.started.values():
            writer.close()


def is_ambiguous_in_orc(value: Timestamp, zone: str) -> bool:
    """Java's ORC writer stores ``millis / 1000`` truncated toward zero, so a writer's instant
    in (-1 s, 0) with a fraction over 999,999 ns is stored as second 0 and reads back one second
    later; Java's ``toSQLTimestamp`` makes the instant the wall clock in the JVM's zone."""
    nanos = value.to_epoch_nanos()
    wall = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=nanos // US)
    offset = wall.replace(tzinfo=zoneinfo.ZoneInfo(zone)).utcoffset()
    assert offset is not None
    instant = nanos - int(offset.total_seconds()) * S
    return -S < instant < 0 and instant % S > MAX_UNCOMPENSATED_NANOS


def has_ambiguous_value(value: Any, zone: str) -> bool:
    if isinstance(value, Timestamp):
        return is_ambiguous_in_orc(value, zone)
    if isinstance(value, dict):
        return any(has_ambiguous_value(v, zone) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_ambiguous_value(v, zone) for v in value)
    return False


def fields_for_zone(zone: str) -> tuple[t.DataField, ...]:
    """Paimon 0.9 writes local-zoned timestamps to ORC as the JVM's wall clock of the UTC
    value, a separate matter (hours, not a second) not covered here: LTZ only from UTC."""
    extra = LTZ_FIELDS if zone == "UTC" else ()
    return (ID_FIELD, *TIMESTAMP_FIELDS, *NESTED_FIELDS, *extra)


@pytest.mark.java
@pytest.mark.parametrize("zone", WRITER_ZONES)
def test_java_09_orc_reads_as_java_reads(
    tmp_path: Path, java_harness: Any, java_writers: JavaWriters, zone: str
) -> None:
    fields = fields_for_zone(zone)
    root = tmp_path / "db.db" / "t"
    writer = java_writers[zone]
    writer.create_table(root, fields, options={"file.format": "orc", "bucket": "-1"})
    written = value_rows(fields[1:])
    writer.write(root, written, commit=True)
    (data_file,) = root.glob("bucket-0/*.orc")
    assert ot.read_orc_stripe_zones(*ot.read_range_of(data_file.read_bytes()))[0] == (
        ot.StripeZone(len(written), zone)
    )

    java = sorted_rows(java_harness.read(root).values())
    reference = sorted_rows(
        [row for _, row in query.read_table(LocalFileIO(), str(root), query.TimeTravel()).rows]
    )
    assert reference == java
    # Java itself gives back what was written, except where ORC cannot tell (see
    # is_ambiguous_in_orc): those rows come back different, the others equal.
    ambiguous = {r[0] for r in written if has_ambiguous_value(r, zone)}
    assert ambiguous == AMBIGUOUS_ROWS[zone]
    expected = sorted_rows(written)
    assert [r for r in java if r[0] not in ambiguous] == [
        r for r in expected if r[0] not in ambiguous
    ]
    assert all(java[i] != expected[i] for i in ambiguous)


@pytest.mark.java
@pytest.mark.spark
@pytest.mark.parametrize("zone", ("Asia/Shanghai", "America/Los_Angeles"))
def test_java_09_orc_reads_as_java_reads_in_spark_impl(
    tmp_path: Path, java_harness: Any, java_writers: JavaWriters, zone: str
) -> None:
    fields = fields_for_zone(zone)
    root = tmp_path / "db.db" / "t"
    java_writers[zone].create_table(root, fields, options={"file.format": "orc", "bucket": "-1"})
    java_writers[zone].write(root, value_rows(fields[1:]), commit=True)
    java = sorted_rows(java_harness.read(root).values())
    assert sorted_rows(spark_impl_rows(root)) == java


# --------------------------------------------------------------------------------------------
# (c) Files pyarrow writes (the reference's own ORC writer; zone GMT): unchanged
# --------------------------------------------------------------------------------------------

PYARROW_FIELDS = (ID_FIELD, *TIMESTAMP_FIELDS, *NESTED_FIELDS, *LTZ_FIELDS)


def pyarrow_orc_file() -> tuple[bytes, list[tuple[Any, ...]]]:
    rows = value_rows(PYARROW_FIELDS[1:])
    table = rows_to_arrow(rows, PYARROW_FIELDS)
    data = encode_data_file(table, FileFormat.ORC, PYARROW_FIELDS, FormatWriteOptions())
    return data, rows


def test_pyarrow_orc_round_trips_before_and_after_1970() -> None:
    data, rows = pyarrow_orc_file()
    assert ot.read_orc_stripe_zones(*ot.read_range_of(data)) == (ot.StripeZone(len(rows), "GMT"),)
    decoded = decode_data_file(data, FileFormat.ORC, PYARROW_FIELDS)
    assert sorted_rows(arrow_to_rows(decoded, PYARROW_FIELDS)) == sorted_rows(rows)


@pytest.mark.spark
def test_pyarrow_orc_round_trips_in_spark_impl(tmp_path: Path) -> None:
    data, rows = pyarrow_orc_file()
    path = tmp_path / "data-0.orc"
    path.write_bytes(data)
    decoded = read_data_file(LocalFileIO(), str(path), PYARROW_FIELDS)
    assert sorted_rows(arrow_to_rows(decoded, PYARROW_FIELDS)) == sorted_rows(rows)


# --------------------------------------------------------------------------------------------
# The rule on its own
# --------------------------------------------------------------------------------------------


def test_probe_finds_pyarrow_compensating_after_conversion() -> None:
    """pyarrow's bundled ORC C++ predates ORC-2151; if a release fixes it, the rule stands
    down (and this test says so)."""
    assert ot.is_compensation_after_conversion()


@pytest.mark.parametrize(
    ("late_read_nanos", "zone", "expected_nanos"),
    [
        # Asia/Shanghai (UTC+8): wall clock 00:00:00.001 is instant -28799.999 s; the late
        # reader adds its compensation to a positive wall clock: no -1, one second late.
        (1_001_000_000, "Asia/Shanghai", 1_000_000),
        (124_123_123_000, "Asia/Shanghai", 123_123_123_000),
        (28_800_999_000_000, "Asia/Shanghai", 28_800_999_000_000),  # instant 0.999: no change
        (-1_001_000_000, "Asia/Shanghai", -1_001_000_000),  # both negative: no change
        # America/Los_Angeles (UTC-8): wall clock -0.5 s is instant 28799.5 s (no
        # compensation), but the late reader compensated the negative wall clock.
        (-1_500_000_000, "America/Los_Angeles", -500_000_000),
        (-124_123_123_000, "America/Los_Angeles", -123_123_123_000),
        (-28_801_500_000_000, "America/Los_Angeles", -28_801_500_000_000),  # instant < 0
        # No fraction of a millisecond: never compensated.
        (1_000_999_999, "Asia/Shanghai", 1_000_999_999),
    ],
)
def test_compensated_first(late_read_nanos: int, zone: str, expected_nanos: int) -> None:
    values = pa.array([late_read_nanos, None], pa.timestamp("ns"))
    corrected = ot.compute_compensated_first(values, zone)
    assert corrected.cast(pa.int64()).to_pylist() == [expected_nanos, None]


def compressed_chunk(kind: ot.OrcCompression, data: bytes) -> bytes:
    if kind is ot.OrcCompression.ZLIB:
        compressor = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        body = compressor.compress(data) + compressor.flush()
    elif kind is ot.OrcCompression.SNAPPY:
        body = bytes(cramjam.snappy.compress_raw(data))
    elif kind is ot.OrcCompression.LZ4:
        body = bytes(cramjam.lz4.compress_block(data, store_size=False))
    else:
        body = bytes(cramjam.zstd.compress(data))
    return (len(body) << 1).to_bytes(ot.CHUNK_HEADER_LENGTH, "little") + body


@pytest.mark.parametrize(
    "kind",
    [
        ot.OrcCompression.ZLIB,
        ot.OrcCompression.SNAPPY,
        ot.OrcCompression.LZ4,
        ot.OrcCompression.ZSTD,
    ],
)
def test_metadata_streams_decompress(kind: ot.OrcCompression) -> None:
    """A stream is chunks: compressed ones and (header bit 1) ones stored as they are."""
    first, second = b"\x1a\x0dAsia/Shanghai" * 40, b"stored as is"
    original = ((len(second) << 1) | 1).to_bytes(ot.CHUNK_HEADER_LENGTH, "little") + second
    stream = compressed_chunk(kind, first) + original
    assert ot.decompress_orc_stream(stream, kind) == first + second
