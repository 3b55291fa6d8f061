"""Tests of ``reference.format_table``: the CSV codec (Java main's ``CsvParser`` /
``CsvFormatWriter`` rules), partition discovery, reading files written by pyarrow, inserting
files pyarrow reads back as plain files, overwrite, and format tables in catalogs.

Expected CSV text and parse results are worked out by hand from the module's rules; pyarrow
(an independent CSV, Parquet and ORC implementation) writes the files the reference must read
and reads the files the reference writes.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.dataset as pa_dataset
import pyarrow.orc as pa_orc
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.catalog import Identifier, create_catalog
from reference.errors import (
    InvalidOptionError,
    SpecViolation,
    TableNotFoundError,
    UnsupportedFeature,
)
from reference.format_table import (
    CsvMode,
    CsvOptions,
    FormatTable,
    FormatTableFormat,
    compute_csv_options,
    decode_csv_file,
    decode_csv_line,
    encode_csv_file,
    list_partition_directories,
    read_format_table,
    write_format_table,
)
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, Timestamp
from reference.spec.predicate import Leaf, PredicateOp

STRING = t.VarCharType(t.MAX_LENGTH)
A = t.DataField(0, "a", t.IntType())
B = t.DataField(1, "b", STRING)
DT = t.DataField(2, "dt", STRING)
FIELDS = (A, B, DT)
IO = LocalFileIO()


def table(location: Path, fmt: str, partitioned: bool = True, **options: str) -> FormatTable:
    """``a INT, b STRING`` partitioned by ``dt STRING``, or just ``a, b``."""
    if partitioned:
        return FormatTable(str(location), FIELDS, ("dt",), FormatTableFormat(fmt), options)
    return FormatTable(str(location), (A, B), (), FormatTableFormat(fmt), options)


def sorted_rows(rows: list[Row]) -> list[Row]:
    return sorted(rows, key=repr)


# --------------------------------------------------------------------------------------------
# CSV options (rule 4)
# --------------------------------------------------------------------------------------------


def test_csv_options_and_their_fallback_keys() -> None:
    assert compute_csv_options({}) == CsvOptions()
    chosen = compute_csv_options(
        {"field-delimiter": ";", "header": "true", "nullvalue": "NULL", "mode": "FAILFAST"}
    )
    assert chosen == CsvOptions(";", "\n", '"', "\\", True, "NULL", CsvMode.FAILFAST)
    # the main key wins over its fallbacks
    assert (
        compute_csv_options({"csv.field-delimiter": "|", "delimiter": ";"}).field_delimiter == "|"
    )
    with pytest.raises(InvalidOptionError):
        compute_csv_options({"csv.field-delimiter": ""})
    with pytest.raises(InvalidOptionError):
        compute_csv_options({"csv.field-delimiter": '"'})
    with pytest.raises(InvalidOptionError):
        compute_csv_options({"csv.mode": "lenient"})


# --------------------------------------------------------------------------------------------
# CSV writing (rule 5)
# --------------------------------------------------------------------------------------------


def test_csv_writing_quotes_only_what_needs_it() -> None:
    rows = [(1, "plain"), (2, "a,b"), (3, 'say "hi"'), (4, "back\\slash"), (None, None)]
    text = encode_csv_file(rows, (A, B), CsvOptions()).decode()
    assert text == '1,plain\n2,"a,b"\n3,"say \\"hi\\""\n4,"back\\\\slash"\n,\n'
    header = encode_csv_file([(1, "x")], (A, B), CsvOptions(include_header=True, null_literal="N"))
    assert header.decode() == "a,b\n1,x\n"


def test_csv_values_are_java_strings() -> None:
    fields = (
        t.DataField(0, "d", t.DateType()),
        t.DataField(1, "ts", t.TimestampType(precision=3)),
        t.DataField(2, "dec", t.DecimalType(precision=10, scale=2)),
        t.DataField(3, "dbl", t.DoubleType()),
        t.DataField(4, "bin", t.VarBinaryType(10)),
        t.DataField(5, "ok", t.BooleanType()),
    )
    row = (19000, Timestamp(1_700_000_000_123), Decimal("1.50"), 1e10, b"\x00\xff", True)
    text = encode_csv_file([row], fields, CsvOptions()).decode()
    assert text == "2022-01-08,2023-11-14 22:13:20.123,1.50,1.0E10,AP8=,true\n"
    assert decode_csv_file(text.encode(), fields, CsvOptions()) == [row]


# --------------------------------------------------------------------------------------------
# CSV reading (rule 6)
# --------------------------------------------------------------------------------------------


def parse(line: str, options: CsvOptions | None = None) -> Row | None:
    return decode_csv_line(line, (A, B), options or CsvOptions())


def test_csv_quotes_and_escapes() -> None:
    assert parse('1,"a,b"') == (1, "a,b")
    assert parse('1,"say \\"hi\\""') == (1, 'say "hi"')
    assert parse('1,"x""y"') == (1, 'x"y')  # two quotes inside a field are one
    assert parse("1,back\\\\slash") == (1, "back\\slash")
    assert parse("1,a\\b") == (1, "ab")  # an escape before anything else is dropped
    assert parse('1,ab"cd"ef') == (1, 'ab"cd"ef')  # quotes in the middle of a field are kept
    assert parse("1") == (1, None)  # a missing field is null
    assert parse("1,x,extra") == (1, "x")


def test_csv_nulls_blank_lines_and_types() -> None:
    assert parse("1,") == (1, None)  # the null literal (empty) reads as null
    assert parse("   ") == (None, None)
    assert parse("1,NULL", CsvOptions(null_literal="NULL")) == (1, None)
    assert parse("1,", CsvOptions(null_literal="NULL")) == (1, "")
    flags = (t.DataField(0, "f", t.BooleanType()), t.DataField(1, "g", t.BooleanType()))
    assert decode_csv_line("TRUE,yes", flags, CsvOptions()) == (True, False)


def test_csv_malformed_fields_by_mode() -> None:
    three = (A, t.DataField(1, "c", t.IntType()), B)
    line = "1, 2,x"  # ' 2' is not an integer (no trimming)
    assert decode_csv_line(line, three, CsvOptions()) == (1, None, None)
    assert decode_csv_line(line, three, CsvOptions(mode=CsvMode.DROPMALFORMED)) is None
    with pytest.raises(SpecViolation):
        decode_csv_line(line, three, CsvOptions(mode=CsvMode.FAILFAST))
    assert decode_csv_line("2147483648,1,x", three, CsvOptions()) == (None, None, None)
    assert decode_csv_line("+7,-0,x", three, CsvOptions()) == (7, 0, "x")


def test_csv_lines_and_header() -> None:
    data = b"a,b\r\n1,x\r\n\n2,y"
    assert decode_csv_file(data, (A, B), CsvOptions(include_header=True)) == [
        (1, "x"),
        (None, None),
        (2, "y"),
    ]
    custom = CsvOptions(line_delimiter="||", field_delimiter="\t")
    assert decode_csv_file(b"1\tx||2\ty||", (A, B), custom) == [(1, "x"), (2, "y")]
    assert encode_csv_file([(1, "x")], (A, B), custom) == b"1\tx||"


CSV_TEXT = st.text(
    alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), min_size=1
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.none() | st.integers(-(2**31), 2**31 - 1),
            st.none() | CSV_TEXT,
            st.none() | st.floats(allow_nan=False, width=64),
            st.none() | st.binary(max_size=8),
        ),
        max_size=6,
    )
)
def test_csv_round_trip(rows: list[Row]) -> None:
    fields = (A, B, t.DataField(2, "d", t.DoubleType()), t.DataField(3, "y", t.VarBinaryType(8)))
    # an all-null row writes a line of delimiters only; empty binary is the null literal
    rows = [tuple(None if v == b"" else v for v in row) for row in rows]
    data = encode_csv_file(rows, fields, CsvOptions())
    assert decode_csv_file(data, fields, CsvOptions()) == rows


def test_pyarrow_reads_reference_csv_and_the_reverse(tmp_path: Path) -> None:
    rows = [(1, "plain"), (2, "a,b"), (3, 'say "hi"'), (4, None)]
    data = encode_csv_file(rows, (A, B), CsvOptions())
    parse_options = pa_csv.ParseOptions(escape_char="\\", double_quote=False)
    convert = pa_csv.ConvertOptions(
        column_types={"a": pa.int32(), "b": pa.string()}, strings_can_be_null=True
    )
    read = pa_csv.read_csv(
        pa.BufferReader(data),
        read_options=pa_csv.ReadOptions(column_names=["a", "b"]),
        parse_options=parse_options,
        convert_options=convert,
    )
    assert [tuple(r.values()) for r in read.to_pylist()] == rows
    path = tmp_path / "p.csv"
    written = pa.table({"a": pa.array([5, None], pa.int32()), "b": ['x "q"', "y,z"]})
    pa_csv.write_csv(written, str(path), pa_csv.WriteOptions(include_header=False))
    assert decode_csv_file(path.read_bytes(), (A, B), CsvOptions()) == [(5, 'x "q"'), (None, "y,z")]


# --------------------------------------------------------------------------------------------
# Files written by pyarrow (rules 2, 3, 7)
# --------------------------------------------------------------------------------------------


PYARROW_DATA = pa.table({"a": pa.array([1, 2], pa.int32()), "b": ["x,y", None]})


def write_with_pyarrow(directory: Path, fmt: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    path = str(directory / f"part-0.{fmt}")
    if fmt == "parquet":
        pq.write_table(PYARROW_DATA, path)
    elif fmt == "orc":
        pa_orc.write_table(PYARROW_DATA, path)
    else:
        pa_csv.write_csv(PYARROW_DATA, path, pa_csv.WriteOptions(include_header=False))


@pytest.mark.parametrize("fmt", ["csv", "parquet", "orc"])
def test_reading_partitioned_files_pyarrow_wrote(tmp_path: Path, fmt: str) -> None:
    root = tmp_path / fmt
    for partition in ("dt=2024-01-02", "dt=2024-01-01", "dt=a%2Fb", "dt=__DEFAULT_PARTITION__"):
        write_with_pyarrow(root / partition, fmt)
    write_with_pyarrow(root / "dt=2024-01-01" / "nested", fmt)  # deeper files belong too
    write_with_pyarrow(root / "_temporary" / "dt=x", fmt)  # hidden: staging
    write_with_pyarrow(root / "other=1", fmt)  # not the partition key
    (root / "dt=2024-01-01" / "_SUCCESS").write_bytes(b"")
    (root / "dt=2024-01-01" / ".part-1.crc").write_bytes(b"junk")
    (root / "stray.txt").write_bytes(b"not in a partition")
    format_table = table(root, fmt)
    partitions = [p.values for p in list_partition_directories(IO, format_table)]
    assert partitions == [("2024-01-01",), ("2024-01-02",), (None,), ("a/b",)]
    rows = read_format_table(IO, format_table)
    expected = [(a, b, p[0]) for p in partitions for a, b in ((1, "x,y"), (2, None))]
    expected += [(1, "x,y", "2024-01-01"), (2, None, "2024-01-01")]
    assert sorted_rows(rows) == sorted_rows(expected)
    only = Leaf(PredicateOp.EQUAL, "dt", ("2024-01-02",))
    assert read_format_table(IO, format_table, predicate=only, projection=["b", "a"]) == [
        ("x,y", 1),
        (None, 2),
    ]


def test_an_unpartitioned_table_reads_every_visible_file(tmp_path: Path) -> None:
    root = tmp_path / "t"
    write_with_pyarrow(root, "parquet")
    write_with_pyarrow(root / "more", "parquet")
    write_with_pyarrow(root / ".hidden", "parquet")
    rows = read_format_table(IO, table(root, "parquet", partitioned=False))
    assert sorted_rows(rows) == sorted_rows([(1, "x,y"), (2, None)] * 2)


# --------------------------------------------------------------------------------------------
# Inserting (rules 5, 7, 8, 9)
# --------------------------------------------------------------------------------------------


def read_plain(path: str, fmt: str) -> list[tuple[object, ...]]:
    """A written file read by pyarrow alone, as a plain file (no partition discovery)."""
    if fmt == "parquet":
        data = pq.ParquetFile(path).read()
    elif fmt == "orc":
        data = pa_orc.read_table(path)
    else:
        data = pa_csv.read_csv(
            path,
            read_options=pa_csv.ReadOptions(column_names=["a", "b"]),
            parse_options=pa_csv.ParseOptions(escape_char="\\", double_quote=False),
            convert_options=pa_csv.ConvertOptions(
                column_types={"a": pa.int32(), "b": pa.string()}, strings_can_be_null=True
            ),
        )
    return [tuple(r.values()) for r in data.to_pylist()]


@pytest.mark.parametrize("fmt", ["csv", "parquet", "orc"])
def test_inserted_files_are_plain_files(tmp_path: Path, fmt: str) -> None:
    format_table = table(tmp_path / fmt, fmt)
    rows = [(1, 'q"z', "2024-01-03"), (2, "w", "2024-01-03"), (3, None, None)]
    paths = write_format_table(IO, format_table, rows, writer_uuid="u")
    assert [p.rsplit("/", 2)[-2:] for p in paths] == [
        ["dt=2024-01-03", f"data-u-0.{fmt}"],
        ["dt=__DEFAULT_PARTITION__", f"data-u-0.{fmt}"],
    ]
    assert read_plain(paths[0], fmt) == [(1, 'q"z'), (2, "w")]
    assert read_plain(paths[1], fmt) == [(3, None)]
    assert sorted_rows(read_format_table(IO, format_table)) == sorted_rows(rows)
    # only data files: no schema, snapshot or manifest directory
    assert sorted(p.name for p in (tmp_path / fmt).iterdir()) == [
        "dt=2024-01-03",
        "dt=__DEFAULT_PARTITION__",
    ]


@pytest.mark.parametrize("fmt", ["csv", "parquet", "orc"])
def test_pyarrow_datasets_read_an_inserted_table_as_hive_partitions(
    tmp_path: Path, fmt: str
) -> None:
    """The whole directory the kit wrote is a Hive-partitioned dataset to pyarrow."""
    root = tmp_path / fmt
    rows = [(1, "x,y", "2024-01-01"), (2, None, "2024-01-02"), (3, "z", "2024-01-01")]
    write_format_table(IO, table(root, fmt), rows[:2])
    write_format_table(IO, table(root, fmt), rows[2:])
    schema = pa.schema([("a", pa.int32()), ("b", pa.string()), ("dt", pa.string())])
    file_format: str | pa_dataset.FileFormat = fmt
    if fmt == "csv":
        file_format = pa_dataset.CsvFileFormat(
            read_options=pa_csv.ReadOptions(column_names=["a", "b"]),
            parse_options=pa_csv.ParseOptions(escape_char="\\", double_quote=False),
            convert_options=pa_csv.ConvertOptions(strings_can_be_null=True),
        )
    dataset = pa_dataset.dataset(str(root), format=file_format, partitioning="hive", schema=schema)
    read = [(r["a"], r["b"], r["dt"]) for r in dataset.to_table().to_pylist()]
    assert sorted_rows(read) == sorted_rows(rows)


def test_overwrite_rules(tmp_path: Path) -> None:
    format_table = table(tmp_path / "t", "parquet")
    write_format_table(IO, format_table, [(1, "a", "x"), (2, "b", "y")])
    # dynamic: only the written partition is replaced
    write_format_table(IO, format_table, [(3, "c", "x")], overwrite=True)
    assert sorted_rows(read_format_table(IO, format_table)) == [(2, "b", "y"), (3, "c", "x")]
    # static: the named partition is emptied even when nothing is written to it
    write_format_table(IO, format_table, [], overwrite=True, static_partition={"dt": "y"})
    assert read_format_table(IO, format_table) == [(3, "c", "x")]
    with pytest.raises(SpecViolation):
        write_format_table(
            IO, format_table, [(1, "a", "z")], overwrite=True, static_partition={"dt": "x"}
        )
    # without dynamic overwrite every partition goes
    static = table(tmp_path / "t", "parquet", **{"dynamic-partition-overwrite": "false"})
    write_format_table(IO, static, [(4, "d", "w")], overwrite=True)
    assert read_format_table(IO, static) == [(4, "d", "w")]
    plain = table(tmp_path / "u", "csv", partitioned=False)
    write_format_table(IO, plain, [(1, "a"), (2, "b")])
    write_format_table(IO, plain, [], overwrite=True)
    assert read_format_table(IO, plain) == []


# --------------------------------------------------------------------------------------------
# Catalogs (rule 1)
# --------------------------------------------------------------------------------------------


def jdbc_catalog(tmp_path: Path, **options: str):  # type: ignore[no-untyped-def]
    return create_catalog(
        {
            "warehouse": str(tmp_path / "wh"),
            "metastore": "jdbc",
            "uri": str(tmp_path / "c.db"),
            **options,
        }
    )


def test_the_seed_csv_table_in_a_jdbc_catalog(tmp_path: Path) -> None:
    """Seed 3.6.4: CREATE TABLE my_csv_table (a INT, b STRING) WITH ('type'='format-table',
    'file.format'='csv', 'field-delimiter'=',')."""
    catalog = jdbc_catalog(tmp_path)
    catalog.create_database("db")
    identifier = Identifier("db", "my_csv_table")
    options = {"type": "format-table", "file.format": "csv", "field-delimiter": ","}
    location = catalog.create_table(identifier, (A, B), options=options)
    assert catalog.list_tables("db") == ["my_csv_table"]
    assert catalog.table_schema(identifier).options["path"] == location
    with sqlite3.connect(tmp_path / "c.db") as connection:
        stored = connection.execute("SELECT table_name FROM paimon_format_tables").fetchall()
        plain = connection.execute("SELECT table_name FROM paimon_tables").fetchall()
    assert stored == [("my_csv_table",)] and plain == []
    format_table = catalog.format_table(identifier)
    write_format_table(IO, format_table, [(1, "x"), (2, "y,z")])
    assert read_format_table(IO, format_table) == [(1, "x"), (2, "y,z")]
    [data_file] = list((Path(location)).iterdir())
    assert data_file.read_text() == '1,x\n2,"y,z"\n'
    with pytest.raises(UnsupportedFeature):
        catalog.alter_table(identifier, [])
    catalog.drop_table(identifier)
    assert catalog.list_tables("db") == [] and not Path(location).exists()
    with pytest.raises(TableNotFoundError):
        catalog.format_table(identifier)


def test_the_seed_catalog_option_disables_format_tables(tmp_path: Path) -> None:
    """Seed 3.6.4: format tables are on by default; the catalog option
    'format-table.enabled' = 'false' turns them off (Java ``CatalogOptions``)."""
    options = {"type": "format-table", "file.format": "csv"}
    identifier = Identifier("db", "my_csv_table")
    enabled = jdbc_catalog(tmp_path)
    enabled.create_database("db")
    enabled.create_table(identifier, (A, B), options=options)
    disabled = jdbc_catalog(tmp_path, **{"format-table.enabled": "false"})
    assert disabled.list_tables("db") == []
    with pytest.raises(TableNotFoundError):
        disabled.format_table(identifier)
    with pytest.raises(UnsupportedFeature):
        disabled.create_table(Identifier("db", "other"), (A, B), options=options)
    assert enabled.list_tables("db") == ["my_csv_table"]


def test_external_format_tables_keep_their_files(tmp_path: Path) -> None:
    catalog = jdbc_catalog(tmp_path)
    catalog.create_database("db")
    external = tmp_path / "external"
    write_with_pyarrow(external / "dt=1", "parquet")
    identifier = Identifier("db", "ext")
    options = {"type": "format-table", "file.format": "parquet", "path": str(external)}
    catalog.create_table(identifier, FIELDS, partition_keys=["dt"], options=options)
    assert len(read_format_table(IO, catalog.format_table(identifier))) == 2
    catalog.drop_table(identifier)
    assert (external / "dt=1").exists()


def test_format_table_refusals(tmp_path: Path) -> None:
    catalog = jdbc_catalog(tmp_path)
    catalog.create_database("db")
    with pytest.raises(SpecViolation):
        catalog.create_table(
            Identifier("db", "pk"),
            (t.DataField(0, "a", t.IntType(nullable=False)),),
            primary_keys=["a"],
            options={"type": "format-table"},
        )
    with pytest.raises(UnsupportedFeature):
        catalog.create_table(
            Identifier("db", "j"), (A,), options={"type": "format-table", "file.format": "json"}
        )
    filesystem = create_catalog({"warehouse": str(tmp_path / "fs")})
    filesystem.create_database("db")
    with pytest.raises(UnsupportedFeature):
        filesystem.create_table(
            Identifier("db", "t"), (A,), options={"type": "format-table", "file.format": "csv"}
        )
