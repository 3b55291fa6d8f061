"""Data file codecs: Java-written Parquet files read through ``decode_data_file`` (checked
against pypaimon-rust), the physical layout we write (checked against the spec's type tables
and Java's ``SpecialFields`` example), hypothesis round trips for every type in each format,
and corrupt input."""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.orc as pa_orc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.strategies import row_types, rows
from reference.errors import (
    InvalidOptionError,
    PaimonFormatError,
    PaimonKitError,
    SpecViolation,
    UnsupportedFeature,
)
from reference.spec import file_format as ff
from reference.spec import types as t
from reference.spec.data import Timestamp

PARQUET, ORC, AVRO = ff.FileFormat.PARQUET, ff.FileFormat.ORC, ff.FileFormat.AVRO
STRING = t.VarCharType(t.MAX_LENGTH)

# --------------------------------------------------------------------------------------------
# Java-written Parquet files
# --------------------------------------------------------------------------------------------

SYSTEM_FIELDS = {
    "_SEQUENCE_NUMBER": t.DataField(2147483646, "_SEQUENCE_NUMBER", t.BigIntType(nullable=False)),
    "_VALUE_KIND": t.DataField(2147483645, "_VALUE_KIND", t.TinyIntType(nullable=False)),
    "_ROW_ID": t.DataField(2147483642, "_ROW_ID", t.BigIntType(nullable=False)),
}
"""Primary-key system columns, and the row tracking columns a 1.x compaction writes."""
KEY_PREFIX = "_KEY_"
KEY_FIELD_ID_START = 2147483647 // 2


def _warehouse(third_party: Path) -> Path:
    return third_party / "paimon-cpp" / "parquet"


def _schemas(table_root: Path) -> list[list[t.DataField]]:
    schemas = []
    for path in sorted((table_root / "schema").iterdir()):
        fields = json.loads(path.read_text())["fields"]
        schemas.append([t.parse_data_field(f) for f in fields])
    return schemas


def _schemas_with_options(table_root: Path) -> list[tuple[list[t.DataField], dict[str, str]]]:
    options = [
        json.loads(path.read_text())["options"]
        for path in sorted((table_root / "schema").iterdir())
    ]
    return list(zip(_schemas(table_root), options, strict=True))


def _file_fields(table_root: Path, names: list[str]) -> list[t.DataField]:
    """The row type a data file was written with: the schema whose value columns match the
    file's (or, in a data-evolution table, hold them in order: a file holds a subset), plus the
    system columns (``_KEY_<k>`` copies the key field)."""
    value_names = [n for n in names if not n.startswith(KEY_PREFIX) and n not in SYSTEM_FIELDS]
    for fields, options in _schemas_with_options(table_root):
        by_name = {f.name: f for f in fields}
        subset = options.get("data-evolution.enabled") == "true"
        schema_names = [f.name for f in fields if not subset or f.name in value_names]
        if schema_names != value_names:
            continue
        row_type: list[t.DataField] = []
        for name in names:
            if name in SYSTEM_FIELDS:
                row_type.append(SYSTEM_FIELDS[name])
            elif name.startswith(KEY_PREFIX):
                key = by_name[name[len(KEY_PREFIX) :]]
                row_type.append(t.DataField(KEY_FIELD_ID_START + key.id, name, key.type))
            else:
                row_type.append(by_name[name])
        return row_type
    raise AssertionError(f"no schema of {table_root} matches columns {names}")


def _java_data_files(third_party: Path) -> list[Path]:
    return sorted(_warehouse(third_party).rglob("*.parquet"))


def test_every_java_parquet_file_decodes(third_party: Path) -> None:
    files = _java_data_files(third_party)
    assert len(files) >= 40
    for data_file in files:
        table_root = data_file.parent
        while not (table_root / "schema").is_dir():
            table_root = table_root.parent
        metadata = pq.ParquetFile(data_file)
        fields = _file_fields(table_root, metadata.schema_arrow.names)
        table = ff.decode_data_file(data_file.read_bytes(), PARQUET, fields)
        assert table.num_rows == metadata.metadata.num_rows
        assert table.schema.equals(ff.compute_arrow_schema(fields))
        decoded = ff.arrow_to_rows(table, fields)
        assert len(decoded) == table.num_rows
        with pa.OSFile(str(data_file)) as handle:
            assert ff.decode_data_file(handle, PARQUET, fields).equals(table)
        for row in decoded:
            for field, value in zip(fields, row, strict=True):
                assert value is not None or field.type.nullable
        kinds = [f for f in fields if f.name == "_VALUE_KIND"]
        if kinds:
            kind_column = ff.arrow_to_rows(table, kinds)
            assert {kind for (kind,) in kind_column} <= {0, 1, 2, 3}


def _rust_rows(warehouse: Path, table: str) -> list[tuple[Any, ...]]:
    rust = pytest.importorskip("pypaimon_rust.pypaimon_rust")
    catalog = rust.datafusion.PaimonCatalog({"warehouse": str(warehouse)})
    builder = catalog.get_table(f"{table}.{table}").new_read_builder()
    reader = builder.new_read().read_arrow(list(builder.new_scan().plan().splits()))
    batches = []
    while (batch := reader.read_next_batch()) is not None:
        batches.append(batch)
    return [tuple(r.values()) for r in pa.Table.from_batches(batches).to_pylist()]


def _python_value(value: Any) -> Any:
    """Our internal value in the plain form pyarrow's ``to_pylist`` gives (for comparison)."""
    if isinstance(value, Timestamp):
        return value.to_epoch_nanos()
    return value


@pytest.mark.parametrize("table", ["append_with_bitmap", "append_with_bsi"])
def test_decoded_rows_match_pypaimon_rust(third_party: Path, table: str) -> None:
    """Append tables with no deletes: each data file's rows are rows of the table, which
    pypaimon-rust (arrow-rs Parquet) reads on its own; a table of one file is exactly it."""
    warehouse = _warehouse(third_party)
    table_root = warehouse / f"{table}.db" / table
    (fields,) = _schemas(table_root)
    theirs: Counter[tuple[Any, ...]] = Counter()
    for row in _rust_rows(warehouse, table):
        theirs[tuple(v.value if hasattr(v, "value") else v for v in row)] += 1
    data_files = sorted(table_root.rglob("*.parquet"))
    for data_file in data_files:
        decoded = ff.decode_data_file(data_file.read_bytes(), PARQUET, fields)
        ours = Counter(tuple(map(_python_value, r)) for r in ff.arrow_to_rows(decoded, fields))
        assert not ours - theirs
        assert len(data_files) > 1 or ours == theirs


def test_java_int96_before_1970(third_party: Path) -> None:
    """Java writes a negative nanos-of-day for instants before 1970 (here 1969-12-31
    23:59:58.255123); the value must come back exact and not be mistaken for an overflow."""
    table_root = _warehouse(third_party) / "append_with_bsi.db" / "append_with_bsi"
    (data_file,) = table_root.rglob("*.parquet")
    fields = [t.DataField(0, "f0", STRING), t.DataField(4, "f4", t.TimestampType(9))]
    decoded = dict(
        ff.arrow_to_rows(ff.decode_data_file(data_file.read_bytes(), PARQUET, fields), fields)
    )
    assert decoded["Lucy"] == Timestamp(-1765, 123000)
    assert decoded["Emily"] == Timestamp(1745542602000, 123000)


# --------------------------------------------------------------------------------------------
# Canonical Arrow types and the physical layout we write
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data_type", "arrow_type"),
    [
        (t.BooleanType(), pa.bool_()),
        (t.TinyIntType(), pa.int8()),
        (t.SmallIntType(), pa.int16()),
        (t.IntType(), pa.int32()),
        (t.BigIntType(), pa.int64()),
        (t.FloatType(), pa.float32()),
        (t.DoubleType(), pa.float64()),
        (t.DecimalType(10, 2), pa.decimal128(10, 2)),
        (t.CharType(3), pa.string()),
        (STRING, pa.string()),
        (t.BinaryType(4), pa.binary()),
        (t.DateType(), pa.date32()),
        (t.TimeType(0), pa.time32("ms")),
        (t.TimeType(9), pa.time32("ms")),
        (t.TimestampType(0), pa.timestamp("ms")),
        (t.TimestampType(3), pa.timestamp("ms")),
        (t.TimestampType(4), pa.timestamp("us")),
        (t.TimestampType(6), pa.timestamp("us")),
        (t.TimestampType(7), pa.timestamp("ns")),
        (t.LocalZonedTimestampType(3), pa.timestamp("ms", tz="UTC")),
        (t.LocalZonedTimestampType(9), pa.timestamp("ns", tz="UTC")),
        (t.ArrayType(t.IntType()), pa.list_(pa.field("element", pa.int32()))),
        (t.MultisetType(STRING), pa.map_(pa.string(), pa.field("value", pa.int32(), False))),
    ],
)
def test_canonical_arrow_types(data_type: t.DataType, arrow_type: pa.DataType) -> None:
    assert ff.compute_arrow_type(data_type).equals(arrow_type)


def _parquet_columns(data: bytes) -> dict[str, Any]:
    schema = pq.ParquetFile(io.BytesIO(data)).metadata.schema
    return {schema.column(i).path: schema.column(i) for i in range(len(schema))}


# Physical and logical Parquet types per the spec's table (docs/concepts/spec/fileformat.md) and
# the minimal FIXED_LEN_BYTE_ARRAY sizes of Java's computeMinBytesForDecimalPrecision.
PARQUET_LAYOUT = [
    (t.BooleanType(), "BOOLEAN", "None", None),
    (t.TinyIntType(), "INT32", "Int(bitWidth=8, isSigned=true)", None),
    (t.SmallIntType(), "INT32", "Int(bitWidth=16, isSigned=true)", None),
    (t.IntType(), "INT32", "None", None),
    (t.BigIntType(), "INT64", "None", None),
    (t.FloatType(), "FLOAT", "None", None),
    (t.DoubleType(), "DOUBLE", "None", None),
    (t.DecimalType(9, 2), "INT32", "Decimal(precision=9, scale=2)", None),
    (t.DecimalType(18, 2), "INT64", "Decimal(precision=18, scale=2)", None),
    (t.DecimalType(19, 2), "FIXED_LEN_BYTE_ARRAY", "Decimal(precision=19, scale=2)", 9),
    (t.DecimalType(38, 10), "FIXED_LEN_BYTE_ARRAY", "Decimal(precision=38, scale=10)", 16),
    (t.VarCharType(5), "BYTE_ARRAY", "String", None),
    (t.VarBinaryType(5), "BYTE_ARRAY", "None", None),
    (t.DateType(), "INT32", "Date", None),
    (t.TimeType(3), "INT32", "Time(isAdjustedToUTC=true, timeUnit=milliseconds)", None),
]


def test_parquet_physical_layout_of_each_type() -> None:
    fields = [t.DataField(i, f"c{i}", dt) for i, (dt, *_) in enumerate(PARQUET_LAYOUT)]
    data = ff.encode_data_file(ff.rows_to_arrow([], fields), PARQUET, fields)
    columns = _parquet_columns(data)
    for field, (_, physical, logical, length) in zip(fields, PARQUET_LAYOUT, strict=True):
        column = columns[field.name]
        assert column.physical_type == physical, field
        assert str(column.logical_type) == logical, field
        if length is not None:
            assert column.length == length
    parquet_file = pq.ParquetFile(io.BytesIO(data))
    assert parquet_file.metadata.metadata is None  # no ARROW:schema, like Java
    arrow_schema = parquet_file.schema_arrow
    assert [arrow_schema.field(f.name).metadata[b"PARQUET:field_id"] for f in fields] == [
        str(i).encode() for i in range(len(fields))
    ]


def test_parquet_timestamps_and_nullability() -> None:
    fields = [
        t.DataField(0, "ts3", t.TimestampType(3, nullable=False)),
        t.DataField(1, "ts6", t.TimestampType(6)),
        t.DataField(2, "ltz3", t.LocalZonedTimestampType(3)),
        t.DataField(3, "ltz6", t.LocalZonedTimestampType(6)),
    ]
    data = ff.encode_data_file(ff.rows_to_arrow([], fields), PARQUET, fields)
    parquet_schema = pq.ParquetFile(io.BytesIO(data)).schema
    columns = _parquet_columns(data)
    assert str(columns["ts3"].logical_type) == (
        "Timestamp(isAdjustedToUTC=false, timeUnit=milliseconds, is_from_converted_type=false, "
        "force_set_converted_type=false)"
    )
    assert "isAdjustedToUTC=false, timeUnit=microseconds" in str(columns["ts6"].logical_type)
    assert "isAdjustedToUTC=true, timeUnit=milliseconds" in str(columns["ltz3"].logical_type)
    assert "isAdjustedToUTC=true, timeUnit=microseconds" in str(columns["ltz6"].logical_type)
    assert "required int64 field_id=0 ts3" in str(parquet_schema)
    assert "optional int64 field_id=1 ts6" in str(parquet_schema)


def test_parquet_int96_file_keeps_shorter_timestamps_as_plain_int64() -> None:
    fields = [
        t.DataField(0, "ts3", t.TimestampType(3)),
        t.DataField(1, "ts9", t.TimestampType(9)),
        t.DataField(2, "nested", t.ArrayType(t.LocalZonedTimestampType(9))),
    ]
    values = [(Timestamp(1700000000123), Timestamp(-1, 999_999), [Timestamp(5, 1), None])]
    data = ff.encode_data_file(ff.rows_to_arrow(values, fields), PARQUET, fields)
    columns = _parquet_columns(data)
    assert (columns["ts3"].physical_type, str(columns["ts3"].logical_type)) == ("INT64", "None")
    assert columns["ts9"].physical_type == "INT96"
    assert columns["nested.list.element"].physical_type == "INT96"
    assert ff.arrow_to_rows(ff.decode_data_file(data, PARQUET, fields), fields) == values


def test_parquet_int96_out_of_arrow_range_is_refused() -> None:
    year_9999 = pa.table({"ts": pa.array([253402300799999999], pa.timestamp("us"))})
    sink = io.BytesIO()
    pq.write_table(year_9999, sink, use_deprecated_int96_timestamps=True)
    with pytest.raises(UnsupportedFeature, match="outside the range"):
        ff.decode_data_file(sink.getvalue(), PARQUET, [t.DataField(0, "ts", t.TimestampType(9))])


def test_int96_candidates_by_hand() -> None:
    # Java's layout of -1.744877 s: day 0 of the epoch, nanos of day -1744877000.
    nanos_of_day = -1_744_877_000
    micros_read = (nanos_of_day + 2**64) // 1000  # pyarrow adds the nanos as unsigned
    assert nanos_of_day in ff.compute_int96_candidates(nanos_of_day, micros_read)
    # pyarrow's own layout of the same instant: day -1 and a positive nanos of day. The reads
    # cannot rule out the same digits 2^64 ns earlier, which is out of range.
    candidates = ff.compute_int96_candidates(nanos_of_day, nanos_of_day // 1000)
    assert candidates == [nanos_of_day - 2**64, nanos_of_day]
    assert ff.compute_int96_candidates(0, 12345) == []


def test_nested_field_ids_follow_special_fields() -> None:
    """Java ``SpecialFields``' own example: ARRAY(MAP(INT, ARRAY(INT))) with field id 10."""
    data_type = t.ArrayType(t.MapType(t.IntType(), t.ArrayType(t.IntType())))
    fields = [t.DataField(10, "a", data_type)]
    data = ff.encode_data_file(ff.rows_to_arrow([([{1: [2]}],)], fields), PARQUET, fields)
    text = str(pq.ParquetFile(io.BytesIO(data)).schema)
    assert "optional group field_id=10 a (List)" in text
    assert f"optional group field_id={536870911 + 1024 * 10 + 1} element (Map)" in text
    assert f"required int32 field_id={536870911 - 1024 * 10 - 2} key" in text
    assert f"optional group field_id={536870911 + 1024 * 10 + 2} value (List)" in text
    assert f"optional int32 field_id={536870911 + 1024 * 10 + 3} element" in text


def test_compression_options() -> None:
    fields = [t.DataField(0, "a", t.IntType())]
    table = ff.rows_to_arrow([(1,), (2,)], fields)
    default = ff.encode_data_file(table, PARQUET, fields)
    assert pq.ParquetFile(io.BytesIO(default)).metadata.row_group(0).column(0).compression == "ZSTD"
    snappy = ff.encode_data_file(table, PARQUET, fields, ff.FormatWriteOptions("snappy"))
    assert pq.ParquetFile(io.BytesIO(snappy)).metadata.row_group(0).column(0).compression == (
        "SNAPPY"
    )
    assert pa_orc.ORCFile(io.BytesIO(ff.encode_data_file(table, ORC, fields))).compression == "ZSTD"
    codecs = {
        None: "zstandard",
        "snappy": "snappy",
        "uncompressed": "snappy",
    }
    for compression, codec in codecs.items():
        options = ff.FormatWriteOptions(compression or "zstd")
        avro = ff.encode_data_file(table, AVRO, fields, options)
        assert fastavro.reader(io.BytesIO(avro)).metadata["avro.codec"] == codec
    deflate = ff.parse_format_write_options({"avro.codec": "deflate"})
    avro = ff.encode_data_file(table, AVRO, fields, deflate)
    assert fastavro.reader(io.BytesIO(avro)).metadata["avro.codec"] == "deflate"
    with pytest.raises(InvalidOptionError):
        ff.encode_data_file(table, PARQUET, fields, ff.FormatWriteOptions("lz4"))
    with pytest.raises(InvalidOptionError):
        ff.parse_format_write_options({"file.compression.zstd-level": "high"})
    options = ff.parse_format_write_options({"file.compression": "GZIP"})
    assert options == ff.FormatWriteOptions("gzip", 1, None)


# --------------------------------------------------------------------------------------------
# Avro schema (Java AvroSchemaConverter, written out by hand)
# --------------------------------------------------------------------------------------------


def test_avro_schema_matches_java_converter() -> None:
    fields = [
        t.DataField(0, "id", t.BigIntType(nullable=False)),
        t.DataField(1, "name", t.VarCharType(10)),
        t.DataField(2, "price", t.DecimalType(10, 2)),
        t.DataField(3, "ts", t.TimestampType(6, nullable=False)),
        t.DataField(4, "ltz", t.LocalZonedTimestampType(3)),
        t.DataField(5, "tags", t.MapType(STRING, t.IntType(nullable=False))),
        t.DataField(6, "counts", t.MultisetType(t.IntType(nullable=False))),
        t.DataField(7, "point", t.RowType((t.DataField(8, "x", t.DoubleType()),))),
        t.DataField(9, "days", t.ArrayType(t.DateType(nullable=False), nullable=False)),
    ]
    name = "org.apache.paimon.avro.generated.record"
    assert ff.compute_avro_schema(fields) == {
        "type": "record",
        "name": name,
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "name", "type": ["null", "string"], "default": None},
            {
                "name": "price",
                "type": [
                    "null",
                    {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2},
                ],
                "default": None,
            },
            {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros"}},
            {
                "name": "ltz",
                "type": ["null", {"type": "long", "logicalType": "local-timestamp-millis"}],
                "default": None,
            },
            {"name": "tags", "type": ["null", {"type": "map", "values": "int"}], "default": None},
            {
                "name": "counts",
                "type": [
                    "null",
                    {
                        "type": "array",
                        "logicalType": "map",
                        "items": {
                            "type": "record",
                            "name": name + "_counts",
                            "fields": [
                                {"name": "key", "type": "int"},
                                {"name": "value", "type": ["null", "int"], "default": None},
                            ],
                        },
                    },
                ],
                "default": None,
            },
            {
                "name": "point",
                "type": [
                    "null",
                    {
                        "type": "record",
                        "name": name + "_point",
                        "fields": [{"name": "x", "type": ["null", "double"], "default": None}],
                    },
                ],
                "default": None,
            },
            {
                "name": "days",
                "type": {"type": "array", "items": {"type": "int", "logicalType": "date"}},
            },
        ],
    }


@pytest.mark.parametrize("data_type", [t.TimeType(6), t.TimestampType(9)])
def test_avro_rejects_what_java_rejects(data_type: t.DataType) -> None:
    fields = [t.DataField(0, "a", data_type)]
    with pytest.raises(UnsupportedFeature):
        ff.compute_avro_schema(fields)


# --------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------

NANOS_SAFE_MILLIS = 9_000_000_000_000
"""Timestamps within +-9e12 ms of the epoch (1684..2255) fit Arrow nanoseconds; the width is a
whole number of seconds so values keep their precision when moved into the window."""


def _into_nanos_window(value: Any, data_type: t.DataType, every_precision: bool) -> Any:
    if value is None:
        return None
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        if every_precision or data_type.precision > ff.MICROS_MAX_PRECISION:
            width = 2 * NANOS_SAFE_MILLIS
            millis = (value.millisecond + NANOS_SAFE_MILLIS) % width - NANOS_SAFE_MILLIS
            return Timestamp(millis, value.nano_of_millisecond)
        return value
    if isinstance(data_type, t.ArrayType):
        return [_into_nanos_window(v, data_type.element, every_precision) for v in value]
    if isinstance(data_type, (t.MapType, t.MultisetType)):
        key_type, value_type = ff.map_key_value_types(data_type)
        return {
            _into_nanos_window(k, key_type, every_precision): _into_nanos_window(
                v, value_type, every_precision
            )
            for k, v in value.items()
        }
    if isinstance(data_type, t.RowType):
        return tuple(
            _into_nanos_window(v, f.type, every_precision)
            for f, v in zip(data_type.fields, value, strict=True)
        )
    return value


def _avro_compatible(data_type: t.DataType) -> t.DataType:
    """The nearest type Java's Avro writer accepts (TIME <= 3, TIMESTAMP <= 6)."""
    if isinstance(data_type, t.TimeType):
        return t.TimeType(min(data_type.precision, 3), nullable=data_type.nullable)
    if isinstance(data_type, t.TimestampType):
        return t.TimestampType(min(data_type.precision, 6), nullable=data_type.nullable)
    if isinstance(data_type, t.LocalZonedTimestampType):
        return t.LocalZonedTimestampType(min(data_type.precision, 6), nullable=data_type.nullable)
    if isinstance(data_type, t.ArrayType):
        return t.ArrayType(_avro_compatible(data_type.element), nullable=data_type.nullable)
    if isinstance(data_type, t.MultisetType):
        return t.MultisetType(_avro_compatible(data_type.element), nullable=data_type.nullable)
    if isinstance(data_type, t.MapType):
        return t.MapType(
            _avro_compatible(data_type.key),
            _avro_compatible(data_type.value),
            nullable=data_type.nullable,
        )
    if isinstance(data_type, t.RowType):
        fields = tuple(
            t.DataField(f.id, f.name, _avro_compatible(f.type)) for f in data_type.fields
        )
        return t.RowType(fields, nullable=data_type.nullable)
    return data_type


def _tables(
    fmt: ff.FileFormat,
) -> st.SearchStrategy[tuple[list[t.DataField], list[tuple[Any, ...]]]]:
    def adapt(row_type: t.RowType) -> t.RowType:
        adapted = _avro_compatible(row_type) if fmt is AVRO else row_type
        assert isinstance(adapted, t.RowType)
        return adapted

    every_precision = fmt is ORC  # pyarrow reads every ORC timestamp as nanoseconds

    def with_rows(row_type: t.RowType) -> st.SearchStrategy[Any]:
        row = rows(row_type).map(lambda r: _into_nanos_window(r, row_type, every_precision))
        return st.tuples(st.just(list(row_type.fields)), st.lists(row, max_size=5))

    return row_types(max_fields=6, max_depth=1).map(adapt).flatmap(with_rows)


def _round_trip(fmt: ff.FileFormat, case: tuple[list[t.DataField], list[tuple[Any, ...]]]) -> None:
    fields, values = case
    table = ff.rows_to_arrow(values, fields)
    assert ff.arrow_to_rows(table, fields) == values
    data = ff.encode_data_file(table, fmt, fields)
    decoded = ff.decode_data_file(data, fmt, fields)
    assert decoded.schema.equals(ff.compute_arrow_schema(fields))
    assert ff.arrow_to_rows(decoded, fields) == values
    last = fields[-1:]
    projected = ff.decode_data_file(pa.BufferReader(data), fmt, last)
    assert ff.arrow_to_rows(projected, last) == [row[-1:] for row in values]


ROUND_TRIP_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@ROUND_TRIP_SETTINGS
@given(_tables(PARQUET))
def test_parquet_round_trip(case: tuple[list[t.DataField], list[tuple[Any, ...]]]) -> None:
    _round_trip(PARQUET, case)


@ROUND_TRIP_SETTINGS
@given(_tables(ORC))
def test_orc_round_trip(case: tuple[list[t.DataField], list[tuple[Any, ...]]]) -> None:
    _round_trip(ORC, case)


@ROUND_TRIP_SETTINGS
@given(_tables(AVRO))
def test_avro_round_trip(case: tuple[list[t.DataField], list[tuple[Any, ...]]]) -> None:
    _round_trip(AVRO, case)


def test_wide_range_timestamps_round_trip_where_the_unit_allows() -> None:
    fields = [
        t.DataField(0, "ms", t.TimestampType(3)),
        t.DataField(1, "us", t.LocalZonedTimestampType(6)),
    ]
    values = [(Timestamp(-62135596800000), Timestamp(253402300799999, 999000))]  # 0001 .. 9999
    for fmt in (PARQUET, AVRO):
        data = ff.encode_data_file(ff.rows_to_arrow(values, fields), fmt, fields)
        assert ff.arrow_to_rows(ff.decode_data_file(data, fmt, fields), fields) == values


def test_empty_projection_keeps_the_row_count() -> None:
    fields = [t.DataField(0, "a", t.IntType())]
    table = ff.rows_to_arrow([(1,), (2,), (None,)], fields)
    for fmt in ff.FileFormat:
        data = ff.encode_data_file(table, fmt, fields)
        assert ff.decode_data_file(data, fmt, []).num_rows == 3


# --------------------------------------------------------------------------------------------
# Invalid values and corrupt files
# --------------------------------------------------------------------------------------------


def test_invalid_values_are_spec_violations() -> None:
    not_null = [t.DataField(0, "a", t.IntType(nullable=False))]
    with pytest.raises(SpecViolation):
        ff.rows_to_arrow([(None,)], not_null)
    with pytest.raises(SpecViolation):
        ff.rows_to_arrow([(2**40,)], not_null)
    with pytest.raises(SpecViolation):
        ff.rows_to_arrow([(1, 2)], not_null)
    with pytest.raises(SpecViolation):
        ff.rows_to_arrow([(Decimal("1.234"),)], [t.DataField(0, "d", t.DecimalType(5, 2))])
    with pytest.raises(UnsupportedFeature):
        ff.rows_to_arrow([(Timestamp(253402300799999),)], [t.DataField(0, "t", t.TimestampType(9))])


def test_missing_or_mistyped_columns_are_spec_violations() -> None:
    fields = [t.DataField(0, "a", t.IntType()), t.DataField(1, "s", STRING)]
    for fmt in ff.FileFormat:
        data = ff.encode_data_file(ff.rows_to_arrow([(1, "x")], fields), fmt, fields)
        with pytest.raises(SpecViolation) as caught:
            ff.decode_data_file(data, fmt, [t.DataField(2, "nope", t.IntType())])
        assert caught.value.code == "DATA_FILE_COLUMN_MISSING"
        if fmt is not AVRO:
            with pytest.raises(SpecViolation) as caught:
                ff.decode_data_file(data, fmt, [t.DataField(1, "s", t.DateType())])
            assert caught.value.code == "DATA_FILE_COLUMN_TYPE"


def _sample_file(fmt: ff.FileFormat) -> bytes:
    fields = [t.DataField(0, "a", t.BigIntType()), t.DataField(1, "s", STRING)]
    values = [(i, f"value {i}" * 3) for i in range(200)]
    return ff.encode_data_file(ff.rows_to_arrow(values, fields), fmt, fields)


SAMPLE_FIELDS = [t.DataField(0, "a", t.BigIntType()), t.DataField(1, "s", STRING)]


@pytest.mark.parametrize("fmt", list(ff.FileFormat))
@pytest.mark.parametrize("keep", [0, 3, 10, 0.5, -1, -5])
def test_truncated_files_are_format_errors(fmt: ff.FileFormat, keep: float) -> None:
    data = _sample_file(fmt)
    cut = int(len(data) * keep) if isinstance(keep, float) else keep
    with pytest.raises(PaimonFormatError):
        ff.decode_data_file(data[:cut], fmt, SAMPLE_FIELDS)


@pytest.mark.parametrize("fmt", list(ff.FileFormat))
def test_wrong_magic_is_a_format_error(fmt: ff.FileFormat) -> None:
    data = _sample_file(fmt)
    with pytest.raises(PaimonFormatError, match="magic"):
        ff.decode_data_file(b"XXXX" + data[4:], fmt, SAMPLE_FIELDS)
    other = _sample_file(PARQUET if fmt is not PARQUET else AVRO)
    with pytest.raises(PaimonFormatError):
        ff.decode_data_file(other, fmt, SAMPLE_FIELDS)


def _flip_each(data: bytes, positions: range, fmt: ff.FileFormat) -> None:
    for position in positions:
        garbled = bytearray(data)
        garbled[position] ^= 0xFF
        with contextlib.suppress(PaimonKitError):
            ff.decode_data_file(bytes(garbled), fmt, SAMPLE_FIELDS)


@pytest.mark.parametrize("fmt", [PARQUET, AVRO])
def test_flipped_bytes_never_escape_as_raw_errors(fmt: ff.FileFormat) -> None:
    data = _sample_file(fmt)
    _flip_each(data, range(4, len(data) - 4, max(1, len(data) // 40)), fmt)


def test_flipped_orc_postscript_bytes_are_caught() -> None:
    """Only the ORC postscript is checked by us: pyarrow's ORC reader can crash the process on
    a garbled footer, so flips elsewhere are not exercised (see ``decode_data_file``)."""
    data = _sample_file(ORC)
    postscript_start = len(data) - 1 - data[-1]
    _flip_each(data, range(postscript_start, len(data)), ORC)
    with pytest.raises(PaimonFormatError, match="postscript"):
        ff.decode_data_file(data[:-1] + b"\x00", ORC, SAMPLE_FIELDS)


def test_unknown_format_is_unsupported() -> None:
    assert ff.parse_file_format("PARQUET") is PARQUET
    with pytest.raises(UnsupportedFeature):
        ff.parse_file_format("lance")
