"""The format-table codecs, pure (no IO): the table record and its options, the CSV options,
CSV values, lines and files, and one data file of a format table in its format (Java main's
``table/FormatTable``, ``format/csv/{CsvOptions,CsvParser,CsvFormatWriter}``,
``CatalogUtils.validateFormatTableOptions`` / ``toFormatTable``,
``CoreOptions.formatTableFileCompression``). The numbered rules are those of
``reference/format_table.py``, which discovers, reads and writes a format table's files with
these codecs; spark_impl uses them too (through ``reference.spec`` only)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from reference.errors import (
    InvalidOptionError,
    PaimonKitError,
    SpecViolation,
    UnsupportedFeature,
)
from reference.spec import types as t
from reference.spec.casts import cast_value
from reference.spec.data import Row, Value
from reference.spec.data_file import DEFAULT_PARTITION_NAME
from reference.spec.file_format import (
    FileFormat,
    FormatWriteOptions,
    encode_data_file,
    parse_format_write_options,
    rows_to_arrow,
)
from reference.spec.options import parse_boolean
from reference.spec.schema import TABLE_TYPE_OPTION, TableSchema

FORMAT_TABLE_TYPE = "format-table"


PATH_OPTION = "path"


FILE_FORMAT_OPTION = "file.format"


DEFAULT_PARTITION_NAME_OPTION = "partition.default-name"


LEGACY_PARTITION_NAME_OPTION = "partition.legacy-name"


DYNAMIC_OVERWRITE_OPTION = "dynamic-partition-overwrite"
HIDDEN_PREFIXES = ("_", ".")
"""Names starting with these are not data files of a format table (Java
``FormatTableScan``: hidden and underscore-prefixed files are skipped)."""


FILE_COMPRESSION_OPTION = "file.compression"


FORMAT_TABLE_COMPRESSION_OPTION = "format-table.file.compression"


LEGACY_COMPRESSION_OPTION = "compression"


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
        return self.options.get(DEFAULT_PARTITION_NAME_OPTION, DEFAULT_PARTITION_NAME)

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


class CsvMode(Enum):
    """What a read does with a row whose field does not parse (``csv.mode`` of Java main's
    ``CsvOptions``, rule 6): end the row there (later fields null), drop it, or fail."""

    PERMISSIVE = "permissive"
    DROPMALFORMED = "dropmalformed"
    FAILFAST = "failfast"

    @classmethod
    def parse(cls, text: str) -> CsvMode:
        """The mode ``text`` names, case and surrounding blanks ignored (``ValueError`` for
        any other text)."""
        return cls(text.strip().lower())


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
            mode=defaults.mode if mode is None else CsvMode.parse(mode[1]),
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
