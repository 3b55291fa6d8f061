"""Format tables: a directory of plain CSV, Parquet or ORC files, partitioned like Hive.

Spec: the seeds' section 3.6.4 and ``docs/concepts/table-types``. Java: ``table/FormatTable``
(0.9.0: a record the Hive catalog makes from a Hive table, formats ORC, PARQUET and CSV, and
``csv.field-delimiter``; 0.9 itself reads and writes nothing), main:
``table/format/{FormatTableScan,FileSystemSplitEnumerator,FormatTableFileWriter,
FormatTableCommit,FormatTableWrite,FormatReadBuilder}``, ``utils/PartitionPathUtils``,
``format/csv/{CsvOptions,CsvParser,CsvFormatWriter}``, ``catalog/CatalogUtils``
(``validateFormatTableOptions``, ``toFormatTable``), ``hive/HiveCatalog.createFormatTable``.

The catalog keeps the schema (Java: the Hive metastore or the REST server; here the JDBC
catalog, ``reference.catalog.jdbc``); the directory holds only data files: no schema,
snapshot or manifest files, so any tool writing plain files (pyarrow, Hive, Spark) writes the
table and the reference reads what they wrote.

Rules:

1.  *Table.* ``type = format-table``, ``file.format`` ``csv``, ``parquet`` or ``orc``
    (0.9's three; main adds json and text), no primary key, fields and partition keys like any
    table. ``path`` is the directory (default ``<warehouse>/<db>.db/<table>``).
2.  *Layout.* Data files hold the non-partition columns. A partition is a directory chain
    ``k1=v1/k2=v2`` in partition-key order, names and values escaped as Paimon escapes
    partition paths; null (and blank strings) is ``partition.default-name``; values are
    rendered as for Paimon tables (``partition.legacy-name``). An unpartitioned table's files
    sit anywhere below the directory.
3.  *Discovery.* Partitions are found by walking ``len(partition keys)`` directory levels;
    a directory whose name is not ``<the expected key>=<value>`` is ignored, and so is every
    *hidden* name (starting with ``_`` or ``.``, e.g. ``_SUCCESS``, staging directories).
    The data files of a partition (or of an unpartitioned table) are the non-hidden files
    below its directory at any depth, read in path order. A partition value is read back by
    casting the string to the column type (the default name is null).
4.  *CSV.* Options (main's ``CsvOptions``; fallback keys in brackets): ``csv.field-delimiter``
    (``field-delimiter``, ``seq``, ``delimiter``; ``,``), ``csv.line-delimiter``
    (``lineSep``; ``\\n``), ``csv.quote-character`` (``quote``; ``"``),
    ``csv.escape-character`` (``escape``; ``\\``), ``csv.include-header`` (``header``;
    false), ``csv.null-literal`` (``nullvalue``; empty), ``csv.mode`` (``mode``;
    ``permissive``, ``dropmalformed``, ``failfast``). Only the first character of the
    delimiter, quote and escape options counts.
5.  *CSV writing* (``CsvFormatWriter``): a header line of the field names when asked, then a
    line per row: values joined by the delimiter, ended by the line delimiter. A value is
    Java's string cast of it (binary: Base64); null is the null literal. A value containing
    the delimiter, the line delimiter's first character, the quote or the escape character is
    quoted: escape characters doubled, quotes preceded by the escape character, the whole in
    quotes.
6.  *CSV reading* (``CsvParser``): the file is cut into lines (``\\n``, ``\\r\\n`` or ``\\r``
    for the default delimiter, else the delimiter itself), the header line skipped when asked.
    A blank line is a row of nulls. Otherwise characters are read left to right: an escape
    character inside a field takes the next quote or escape literally; a quote toggles quoting
    (two quotes inside a field are one literal quote; a quote in the middle of a field, not
    first on the line and not next to a delimiter, is kept as a character); an unquoted
    delimiter ends a field. A field equal to the null literal is null; integers must be plain
    decimal digits with an optional sign and in range; booleans are ``true`` (any case) or
    false; binary is Base64; other types are cast from the string. A field that does not parse
    ends the row under ``permissive`` (it and later fields stay null), drops it under
    ``dropmalformed``, and fails the read under ``failfast``.
7.  *Parquet and ORC* files are read by column name and written in Paimon's own encoding
    (``reference.spec.file_format``) with compression ``file.compression``, else
    ``format-table.file.compression``, else ``compression``, else snappy (Parquet) or zstd
    (ORC); CSV files are not compressed.
8.  *Writing* (``FormatTableFileWriter``) groups rows by partition and writes one file per
    partition: ``data-<uuid>-<n>.<format>``, ``n`` counting per partition.
9.  *Overwrite* (``FormatTableCommit``): with a static partition spec (leading keys), the
    data files below that partition path are deleted first; without one, a partitioned table
    with ``dynamic-partition-overwrite`` (default true) deletes the data files of the
    partitions it writes, any other table every data file it has.

Not followed: Java stages files and moves them into place at commit; here a write is visible
file by file. Java rolls files at ``target-file-size``; here one file per partition and write.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from reference import layout
from reference.errors import (
    InvalidOptionError,
    PaimonKitError,
    SpecViolation,
    UnsupportedFeature,
    naming_file,
)
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.casts import cast_value
from reference.spec.data import Row, Value
from reference.spec.data_file import DATA_FILE_PREFIX
from reference.spec.file_format import (
    FileFormat,
    FormatWriteOptions,
    arrow_to_rows,
    decode_data_file,
    encode_data_file,
    parse_format_write_options,
    rows_to_arrow,
)
from reference.spec.options import parse_boolean
from reference.spec.predicate import Predicate, is_row_matching
from reference.spec.schema import TableSchema
from reference.store.scan import compute_predicate_on

TABLE_TYPE_OPTION = "type"
FORMAT_TABLE_TYPE = "format-table"
PATH_OPTION = "path"
FILE_FORMAT_OPTION = "file.format"
DEFAULT_PARTITION_NAME_OPTION = "partition.default-name"
LEGACY_PARTITION_NAME_OPTION = "partition.legacy-name"
DYNAMIC_OVERWRITE_OPTION = "dynamic-partition-overwrite"
FILE_COMPRESSION_OPTION = "file.compression"
FORMAT_TABLE_COMPRESSION_OPTION = "format-table.file.compression"
LEGACY_COMPRESSION_OPTION = "compression"
HIDDEN_PREFIXES = ("_", ".")
PARTITION_SEPARATOR = "="
STRING = t.VarCharType(t.MAX_LENGTH)


class FormatTableFormat(Enum):
    """The file formats of a format table (rule 1; Java ``FormatTable.Format``)."""

    CSV = "csv"
    PARQUET = "parquet"
    ORC = "orc"


DEFAULT_COMPRESSION = {
    FormatTableFormat.PARQUET: "snappy",
    FormatTableFormat.ORC: "zstd",
    FormatTableFormat.CSV: "none",
}
"""Rule 7's last resort (Java ``CoreOptions.formatTableFileCompression``)."""


def parse_format(name: str) -> FormatTableFormat:
    try:
        return FormatTableFormat(name.strip().lower())
    except ValueError:
        raise UnsupportedFeature(
            f"format tables of {name!r} files (supported: csv, parquet, orc)"
        ) from None


def is_format_table(options: Mapping[str, str]) -> bool:
    return options.get(TABLE_TYPE_OPTION, "").strip().lower() == FORMAT_TABLE_TYPE


# --------------------------------------------------------------------------------------------
# The table (rule 1)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FormatTable:
    """A format table as its catalog describes it (Java ``FormatTable``)."""

    location: str
    fields: tuple[t.DataField, ...]
    partition_keys: tuple[str, ...]
    format: FormatTableFormat
    options: Mapping[str, str] = field(default_factory=dict)
    comment: str | None = None

    @property
    def partition_fields(self) -> list[t.DataField]:
        by_name = {f.name: f for f in self.fields}
        return [by_name[k] for k in self.partition_keys]

    @property
    def data_fields(self) -> list[t.DataField]:
        """The columns of the data files: every field but the partition keys."""
        return [f for f in self.fields if f.name not in self.partition_keys]

    @property
    def default_partition_name(self) -> str:
        return self.options.get(DEFAULT_PARTITION_NAME_OPTION, layout.DEFAULT_PARTITION_NAME)

    @property
    def legacy_partition_name(self) -> bool:
        return parse_boolean(self.options.get(LEGACY_PARTITION_NAME_OPTION, "true"))


def validate_format_table(schema: TableSchema) -> None:
    """Rule 1 (Java ``CatalogUtils.validateFormatTableOptions``)."""
    if schema.primary_keys:
        raise SpecViolation("a format table cannot have a primary key", code="FORMAT_TABLE_KEY")
    fmt = parse_format(schema.options.get(FILE_FORMAT_OPTION, FormatTableFormat.PARQUET.value))
    if fmt is FormatTableFormat.CSV:
        compute_csv_options(schema.options)
    for f in schema.fields:
        if fmt is FormatTableFormat.CSV and t.is_nested(f.type):
            raise UnsupportedFeature(f"CSV format table column {f.name!r} of type {f.type}")


def compute_format_table(schema: TableSchema, location: str | None = None) -> FormatTable:
    """The format table a catalog's stored schema describes (``location`` overrides
    ``path``; Java ``CatalogUtils.toFormatTable``)."""
    validate_format_table(schema)
    where = location or schema.options.get(PATH_OPTION)
    if not where:
        raise InvalidOptionError(PATH_OPTION, where, "a format table needs its directory")
    return FormatTable(
        location=where,
        fields=tuple(schema.fields),
        partition_keys=tuple(schema.partition_keys),
        format=parse_format(
            schema.options.get(FILE_FORMAT_OPTION, FormatTableFormat.PARQUET.value)
        ),
        options=dict(schema.options),
        comment=schema.comment,
    )


# --------------------------------------------------------------------------------------------
# CSV options (rule 4)
# --------------------------------------------------------------------------------------------


class CsvMode(Enum):
    PERMISSIVE = "permissive"
    DROPMALFORMED = "dropmalformed"
    FAILFAST = "failfast"


@dataclass(frozen=True)
class CsvOptions:
    field_delimiter: str = ","
    line_delimiter: str = "\n"
    quote: str = '"'
    escape: str = "\\"
    include_header: bool = False
    null_literal: str = ""
    mode: CsvMode = CsvMode.PERMISSIVE


CSV_OPTION_KEYS: Mapping[str, tuple[str, ...]] = {
    "field_delimiter": ("csv.field-delimiter", "field-delimiter", "seq", "delimiter"),
    "line_delimiter": ("csv.line-delimiter", "lineSep"),
    "quote": ("csv.quote-character", "quote"),
    "escape": ("csv.escape-character", "escape"),
    "include_header": ("csv.include-header", "header"),
    "null_literal": ("csv.null-literal", "nullvalue"),
    "mode": ("csv.mode", "mode"),
}
"""Each setting's key, then its fallback keys (Java ``ConfigOption.withFallbackKeys``)."""


def find_option(options: Mapping[str, str], keys: Sequence[str]) -> tuple[str, str] | None:
    for key in keys:
        if key in options:
            return key, options[key]
    return None


def read_csv_text_option(options: Mapping[str, str], name: str, default: str) -> str:
    found = find_option(options, CSV_OPTION_KEYS[name])
    if found is None:
        return default
    key, value = found
    if name != "null_literal" and not value:
        raise InvalidOptionError(key, value, "must not be empty")
    return value


def compute_csv_options(options: Mapping[str, str]) -> CsvOptions:
    """Rule 4, with Java's checks (``CsvParser``, ``validateFormatTableOptions``)."""
    defaults = CsvOptions()
    header = find_option(options, CSV_OPTION_KEYS["include_header"])
    mode = find_option(options, CSV_OPTION_KEYS["mode"])
    try:
        parsed = CsvOptions(
            field_delimiter=read_csv_text_option(options, "field_delimiter", ","),
            line_delimiter=read_csv_text_option(options, "line_delimiter", "\n"),
            quote=read_csv_text_option(options, "quote", '"'),
            escape=read_csv_text_option(options, "escape", "\\"),
            include_header=defaults.include_header if header is None else parse_boolean(header[1]),
            null_literal=read_csv_text_option(options, "null_literal", ""),
            mode=defaults.mode if mode is None else CsvMode(mode[1].strip().lower()),
        )
    except ValueError as error:
        raise InvalidOptionError("csv.*", str(dict(options)), str(error)) from None
    delimiter, quote, escape = parsed.field_delimiter[0], parsed.quote[0], parsed.escape[0]
    if delimiter in (quote, escape) or quote == escape:
        raise InvalidOptionError(
            CSV_OPTION_KEYS["field_delimiter"][0],
            parsed.field_delimiter,
            "the delimiter, quote and escape characters must differ",
        )
    return parsed


# --------------------------------------------------------------------------------------------
# CSV values (rules 5 and 6)
# --------------------------------------------------------------------------------------------


class MalformedField(PaimonKitError):
    """A CSV field that does not parse as its column type (rule 6)."""


BINARY_ROOTS = frozenset({t.TypeRoot.BINARY, t.TypeRoot.VARBINARY})
INTEGER_BITS = {
    t.TypeRoot.TINYINT: 8,
    t.TypeRoot.SMALLINT: 16,
    t.TypeRoot.INTEGER: 32,
    t.TypeRoot.BIGINT: 64,
}
TEXT_ROOTS = frozenset({t.TypeRoot.CHAR, t.TypeRoot.VARCHAR})


def encode_csv_value(value: Value, data_type: t.DataType) -> str | None:
    """Rule 5's string of one value (None for null)."""
    if value is None:
        return None
    if data_type.root in BINARY_ROOTS:
        assert isinstance(value, bytes)
        return base64.b64encode(value).decode("ascii")
    text = cast_value(value, data_type, STRING)
    assert isinstance(text, str)
    return text


def quote_csv_field(text: str | None, options: CsvOptions) -> str:
    """Rule 5's quoting."""
    if text is None:
        return options.null_literal
    special = {options.field_delimiter[0], options.line_delimiter[0], options.quote[0]}
    special.add(options.escape[0])
    if not any(char in text for char in special):
        return text
    escaped = text.replace(options.escape, options.escape * 2)
    return (
        options.quote
        + escaped.replace(options.quote, options.escape + options.quote)
        + (options.quote)
    )


def encode_csv_line(values: Sequence[str | None], options: CsvOptions) -> str:
    fields = [quote_csv_field(value, options) for value in values]
    return options.field_delimiter.join(fields) + options.line_delimiter


def encode_csv_file(
    rows: Sequence[Row], fields: Sequence[t.DataField], options: CsvOptions
) -> bytes:
    """Rule 5: a CSV file of ``rows`` (values of ``fields``)."""
    lines = []
    if options.include_header:
        lines.append(encode_csv_line([f.name for f in fields], options))
    for row in rows:
        values = [encode_csv_value(v, f.type) for v, f in zip(row, fields, strict=True)]
        lines.append(encode_csv_line(values, options))
    return "".join(lines).encode("utf-8")


def parse_plain_integer(text: str, bits: int) -> int:
    """Decimal digits with an optional sign, within ``bits`` (Java's CSV ``parseInt``)."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        raise MalformedField(f"not an integer: {text!r}")
    value = int(text)
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise MalformedField(f"out of range: {text!r}")
    return value


def decode_csv_value(text: str | None, data_type: t.DataType, options: CsvOptions) -> Value:
    """Rule 6's value of one field; :class:`MalformedField` when it does not parse."""
    if text is None or text == options.null_literal:
        return None
    root = data_type.root
    if root in INTEGER_BITS:
        return parse_plain_integer(text, INTEGER_BITS[root])
    if root is t.TypeRoot.BOOLEAN:
        return text.lower() == "true"
    if root in TEXT_ROOTS:
        return text
    if root in BINARY_ROOTS:
        try:
            return base64.b64decode(text, validate=True)
        except binascii.Error as error:
            raise MalformedField(f"not Base64: {text!r}") from error
    try:
        return cast_value(text, STRING, data_type)
    except (PaimonKitError, ValueError) as error:
        raise MalformedField(str(error)) from error


def split_csv_lines(text: str, options: CsvOptions) -> list[str]:
    """Rule 6's lines: a final terminator ends the last line rather than starting one."""
    if options.line_delimiter == "\n":
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    else:
        lines = text.split(options.line_delimiter)
    return lines[:-1] if lines and lines[-1] == "" else lines


@dataclass
class _FieldScanner:
    """The state of rule 6's scan over one line."""

    values: list[str | None]
    buffer: list[str] = field(default_factory=list)
    in_quotes: bool = False
    in_field: bool = False


def _is_kept_mid_field_quote(line: str, position: int, delimiter: str) -> bool:
    """A quote in the middle of a field (not among the first three characters, not next to a
    delimiter) that Java keeps as a character."""
    return (
        position > 2
        and line[position - 1] != delimiter
        and len(line) > position + 1
        and line[position + 1] != delimiter
    )


def _scan_quote(scanner: _FieldScanner, line: str, position: int, options: CsvOptions) -> int:
    quote, delimiter = options.quote[0], options.field_delimiter[0]
    if (scanner.in_quotes or scanner.in_field) and line[position + 1 : position + 2] == quote:
        scanner.buffer.append(quote)
        scanner.in_field = not scanner.in_field
        return position + 1
    if _is_kept_mid_field_quote(line, position, delimiter):
        if scanner.buffer and "".join(scanner.buffer).isspace():
            scanner.buffer.clear()
        else:
            scanner.buffer.append(quote)
    scanner.in_quotes = not scanner.in_quotes
    scanner.in_field = not scanner.in_field
    return position


def split_csv_fields(line: str, column_count: int, options: CsvOptions) -> list[str | None]:
    """Rule 6's fields of one non-blank line (missing trailing fields are None)."""
    quote, escape, delimiter = options.quote[0], options.escape[0], options.field_delimiter[0]
    scanner = _FieldScanner([None] * column_count)
    column = 0
    position = 0
    while position < len(line) and column < column_count:
        char = line[position]
        if char == escape:
            following = line[position + 1 : position + 2]
            if (scanner.in_quotes or scanner.in_field) and following in (quote, escape):
                scanner.buffer.append(following)
                position += 1
        elif char == quote:
            position = _scan_quote(scanner, line, position, options)
        elif char == delimiter and not scanner.in_quotes:
            scanner.values[column] = "".join(scanner.buffer)
            column += 1
            scanner.buffer.clear()
            scanner.in_field = False
        else:
            scanner.buffer.append(char)
            scanner.in_field = True
        position += 1
    if column < column_count and not scanner.in_quotes:
        scanner.values[column] = "".join(scanner.buffer)
    return scanner.values


def decode_csv_line(line: str, fields: Sequence[t.DataField], options: CsvOptions) -> Row | None:
    """Rule 6's row of one line; None when ``dropmalformed`` drops it."""
    values: list[Value] = [None] * len(fields)
    if not line.strip():
        return tuple(values)
    texts = split_csv_fields(line, len(fields), options)
    for i, (text, data_field) in enumerate(zip(texts, fields, strict=True)):
        try:
            values[i] = decode_csv_value(text, data_field.type, options)
        except MalformedField as error:
            if options.mode is CsvMode.DROPMALFORMED:
                return None
            if options.mode is CsvMode.FAILFAST:
                raise SpecViolation(
                    f"malformed CSV field {data_field.name!r}: {error}", code="CSV_MALFORMED"
                ) from error
            break
    return tuple(values)


def decode_csv_file(data: bytes, fields: Sequence[t.DataField], options: CsvOptions) -> list[Row]:
    """Rule 6: the rows of a CSV file (columns ``fields``, in file order)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SpecViolation(f"CSV file is not UTF-8: {error}", code="CSV_ENCODING") from error
    lines = split_csv_lines(text, options)
    if options.include_header:
        lines = lines[1:]
    rows = [decode_csv_line(line, fields, options) for line in lines]
    return [row for row in rows if row is not None]


# --------------------------------------------------------------------------------------------
# Partition directories and data files (rules 2 and 3)
# --------------------------------------------------------------------------------------------


def is_hidden_name(name: str) -> bool:
    """Rule 3 (Java ``PartitionPathUtils.isHiddenName``)."""
    return name.startswith(HIDDEN_PREFIXES)


def compute_partition_directory(table: FormatTable, values: Row) -> str:
    """Rule 2: the directory of a partition, relative to the table's."""
    spec = layout.compute_partition_spec(
        table.partition_fields,
        values,
        default_name=table.default_partition_name,
        legacy_name=table.legacy_partition_name,
    )
    return layout.compute_partition_path(spec)


def parse_partition_component(name: str, key: str) -> str | None:
    """The value of a ``<key>=<value>`` directory name, None for any other name."""
    spec = layout.parse_partition_path(name)
    if len(spec) != 1 or spec[0][0] != key:
        return None
    return spec[0][1]


def compute_partition_values(table: FormatTable, texts: Sequence[str]) -> Row:
    """Rule 3: directory strings back to values."""
    values: list[Value] = []
    for text, data_field in zip(texts, table.partition_fields, strict=True):
        if text == table.default_partition_name:
            values.append(None)
        else:
            values.append(cast_value(text, STRING, data_field.type))
    return tuple(values)


@dataclass(frozen=True)
class PartitionDirectory:
    """A discovered partition: its values and its directory."""

    values: Row
    path: str


def list_partition_directories(file_io: FileIO, table: FormatTable) -> list[PartitionDirectory]:
    """Rule 3's partitions, in path order (the table itself when it is unpartitioned)."""
    level: list[tuple[str, tuple[str, ...]]] = [(table.location, ())]
    for key in table.partition_keys:
        deeper = []
        for directory, texts in level:
            for name in file_io.list_dir(directory):
                value = None if is_hidden_name(name) else parse_partition_component(name, key)
                if value is not None:
                    deeper.append((layout.join(directory, name), (*texts, value)))
        level = deeper
    found = [PartitionDirectory(compute_partition_values(table, v), d) for d, v in level]
    return sorted(found, key=lambda partition: partition.path)


def list_data_files(file_io: FileIO, directory: str) -> list[str]:
    """Rule 3: the non-hidden files below ``directory`` (at any depth), in path order."""
    prefix = directory.rstrip(layout.SEPARATOR) + layout.SEPARATOR
    found = []
    for path in file_io.list_files_recursive(directory):
        parts = path[len(prefix) :].split(layout.SEPARATOR)
        if not any(is_hidden_name(part) for part in parts):
            found.append(path)
    return sorted(found)


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def read_data_file(file_io: FileIO, table: FormatTable, path: str) -> list[Row]:
    """The rows (data columns) of one file (rules 6 and 7)."""
    fields = table.data_fields
    with naming_file(path):
        if table.format is FormatTableFormat.CSV:
            return decode_csv_file(
                file_io.read_bytes(path), fields, compute_csv_options(table.options)
            )
        fmt = FileFormat(table.format.value)
        return arrow_to_rows(decode_data_file(file_io.open_input(path), fmt, fields), fields)


def compute_table_row(table: FormatTable, data_row: Row, partition: Row) -> Row:
    """A row in the table's field order from a data row and its partition's values."""
    data = iter(data_row)
    by_key = dict(zip(table.partition_keys, partition, strict=True))
    return tuple(by_key[f.name] if f.name in by_key else next(data) for f in table.fields)


def compute_row_mapping(table: FormatTable, row: Row) -> dict[str, Value]:
    return {f.name: value for f, value in zip(table.fields, row, strict=True)}


def is_partition_kept(
    table: FormatTable, partition: PartitionDirectory, predicate: Predicate | None
) -> bool:
    """Partition pruning by the part of ``predicate`` on partition keys only."""
    on_keys = compute_predicate_on(predicate, set(table.partition_keys))
    if on_keys is None:
        return True
    named = dict(zip(table.partition_keys, partition.values, strict=True))
    types = {f.name: f.type for f in table.partition_fields}
    return is_row_matching(on_keys, named, types)


def read_format_table(
    file_io: FileIO,
    table: FormatTable,
    *,
    predicate: Predicate | None = None,
    projection: Sequence[str] | None = None,
) -> list[Row]:
    """Every row of the table (partitions and files in path order, rows in file order) that
    matches ``predicate``, with the ``projection`` columns (default: all)."""
    types = {f.name: f.type for f in table.fields}
    rows = []
    for partition in list_partition_directories(file_io, table):
        if not is_partition_kept(table, partition, predicate):
            continue
        for path in list_data_files(file_io, partition.path):
            for data_row in read_data_file(file_io, table, path):
                row = compute_table_row(table, data_row, partition.values)
                named = compute_row_mapping(table, row)
                if predicate is None or is_row_matching(predicate, named, types):
                    rows.append(row)
    if projection is None:
        return rows
    positions = [[f.name for f in table.fields].index(name) for name in projection]
    return [tuple(row[i] for i in positions) for row in rows]


# --------------------------------------------------------------------------------------------
# Writing (rules 5, 7, 8, 9)
# --------------------------------------------------------------------------------------------


def compute_compression(table: FormatTable) -> str:
    """Rule 7's codec name."""
    for key in (
        FILE_COMPRESSION_OPTION,
        FORMAT_TABLE_COMPRESSION_OPTION,
        LEGACY_COMPRESSION_OPTION,
    ):
        if key in table.options:
            return table.options[key].strip().lower()
    return DEFAULT_COMPRESSION[table.format]


def encode_format_file(table: FormatTable, rows: Sequence[Row]) -> bytes:
    """One data file of ``rows`` (data columns) in the table's format."""
    fields = table.data_fields
    compression = compute_compression(table)
    if table.format is FormatTableFormat.CSV:
        if compression not in ("none", "uncompressed"):
            raise UnsupportedFeature(f"compressed ({compression}) CSV format table files")
        return encode_csv_file(rows, fields, compute_csv_options(table.options))
    options = parse_format_write_options(table.options)
    write_options = FormatWriteOptions(compression, options.zstd_level, options.avro_codec)
    fmt = FileFormat(table.format.value)
    return encode_data_file(rows_to_arrow(rows, fields), fmt, fields, write_options)


def split_row(table: FormatTable, row: Row) -> tuple[Row, Row]:
    """A table row's partition values and data values."""
    if len(row) != len(table.fields):
        raise SpecViolation(
            f"a row of {len(row)} values for {len(table.fields)} columns", code="INVALID_VALUE"
        )
    named = compute_row_mapping(table, row)
    partition = tuple(named[k] for k in table.partition_keys)
    data = tuple(named[f.name] for f in table.data_fields)
    return partition, data


def group_by_partition(table: FormatTable, rows: Sequence[Row]) -> dict[Row, list[Row]]:
    """Rule 8: data rows by partition values, partitions in first-written order."""
    groups: dict[Row, list[Row]] = {}
    for row in rows:
        partition, data = split_row(table, row)
        groups.setdefault(partition, []).append(data)
    return groups


def compute_static_prefix(table: FormatTable, spec: Mapping[str, Value]) -> str:
    """Rule 9: the directory of a static partition spec naming the leading keys."""
    keys = list(table.partition_keys[: len(spec)])
    if set(spec) != set(keys):
        raise SpecViolation(
            f"static partition {dict(spec)} must name the leading partition keys {keys}",
            code="OVERWRITE_UNKNOWN_PARTITION_KEY",
        )
    fields = table.partition_fields[: len(spec)]
    values = tuple(spec[k] for k in keys)
    rendered = layout.compute_partition_spec(
        fields,
        values,
        default_name=table.default_partition_name,
        legacy_name=table.legacy_partition_name,
    )
    return layout.compute_partition_path(rendered)


def is_in_static_partition(table: FormatTable, partition: Row, spec: Mapping[str, Value]) -> bool:
    named = dict(zip(table.partition_keys, partition, strict=True))
    return all(named[key] == value for key, value in spec.items())


def compute_cleared_directories(
    file_io: FileIO,
    table: FormatTable,
    written: Sequence[str],
    static_partition: Mapping[str, Value] | None,
) -> list[str]:
    """Rule 9: the directories whose data files an overwrite deletes."""
    if static_partition:
        return [layout.join(table.location, compute_static_prefix(table, static_partition))]
    dynamic = parse_boolean(table.options.get(DYNAMIC_OVERWRITE_OPTION, "true"))
    if table.partition_keys and dynamic:
        return list(written)
    return [p.path for p in list_partition_directories(file_io, table)]


def delete_data_files(file_io: FileIO, directories: Sequence[str]) -> list[str]:
    """Delete the (non-hidden) data files below each directory; the deleted paths."""
    deleted = []
    for directory in directories:
        for path in list_data_files(file_io, directory):
            if file_io.delete(path):
                deleted.append(path)
    return deleted


def compute_data_file_name(table: FormatTable, writer_uuid: str, count: int) -> str:
    """Rule 8: ``data-<uuid>-<n>.<format>``."""
    return f"{DATA_FILE_PREFIX}{writer_uuid}-{count}.{table.format.value}"


def write_format_table(
    file_io: FileIO,
    table: FormatTable,
    rows: Sequence[Row],
    *,
    overwrite: bool = False,
    static_partition: Mapping[str, Value] | None = None,
    writer_uuid: str | None = None,
) -> list[str]:
    """Insert ``rows`` (table field order): rules 8 and 9. Returns the written files' paths."""
    groups = group_by_partition(table, rows)
    if static_partition and any(
        not is_in_static_partition(table, p, static_partition) for p in groups
    ):
        raise SpecViolation(
            f"a row lies outside the static partition {dict(static_partition)}",
            code="OVERWRITE_OUTSIDE_PARTITION",
        )
    name_uuid = writer_uuid or str(uuid.uuid4())
    directories = {
        p: layout.join(table.location, compute_partition_directory(table, p)) for p in groups
    }
    if overwrite:
        cleared = compute_cleared_directories(
            file_io, table, list(directories.values()), static_partition
        )
        delete_data_files(file_io, cleared)
    written = []
    for partition, data_rows in groups.items():
        path = layout.join(directories[partition], compute_data_file_name(table, name_uuid, 0))
        file_io.write_bytes(path, encode_format_file(table, data_rows))
        written.append(path)
    return written
