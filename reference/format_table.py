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
# ruff: noqa: PLC0414 -- `import X as X` re-exports the codecs now in reference.spec.format_table.

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reference import layout
from reference.errors import (
    SpecViolation,
    naming_file,
)
from reference.io import FileIO
from reference.spec.casts import cast_value
from reference.spec.data import Row, Value
from reference.spec.data_file import DATA_FILE_PREFIX
from reference.spec.file_format import (
    FileFormat,
    arrow_to_rows,
    decode_data_file,
)
from reference.spec.format_table import BINARY_ROOTS as BINARY_ROOTS
from reference.spec.format_table import CSV_OPTION_KEYS as CSV_OPTION_KEYS
from reference.spec.format_table import DEFAULT_COMPRESSION as DEFAULT_COMPRESSION
from reference.spec.format_table import (
    DEFAULT_PARTITION_NAME_OPTION as DEFAULT_PARTITION_NAME_OPTION,
)
from reference.spec.format_table import DYNAMIC_OVERWRITE_OPTION as DYNAMIC_OVERWRITE_OPTION
from reference.spec.format_table import FILE_COMPRESSION_OPTION as FILE_COMPRESSION_OPTION
from reference.spec.format_table import FILE_FORMAT_OPTION as FILE_FORMAT_OPTION
from reference.spec.format_table import (
    FORMAT_TABLE_COMPRESSION_OPTION as FORMAT_TABLE_COMPRESSION_OPTION,
)
from reference.spec.format_table import FORMAT_TABLE_TYPE as FORMAT_TABLE_TYPE
from reference.spec.format_table import HIDDEN_PREFIXES
from reference.spec.format_table import INTEGER_BITS as INTEGER_BITS
from reference.spec.format_table import LEGACY_COMPRESSION_OPTION as LEGACY_COMPRESSION_OPTION
from reference.spec.format_table import LEGACY_PARTITION_NAME_OPTION as LEGACY_PARTITION_NAME_OPTION
from reference.spec.format_table import PATH_OPTION as PATH_OPTION
from reference.spec.format_table import STRING as STRING
from reference.spec.format_table import TEXT_ROOTS as TEXT_ROOTS
from reference.spec.format_table import CsvMode as CsvMode
from reference.spec.format_table import CsvOptions as CsvOptions
from reference.spec.format_table import FormatTable as FormatTable
from reference.spec.format_table import FormatTableFormat as FormatTableFormat
from reference.spec.format_table import MalformedField as MalformedField
from reference.spec.format_table import compute_compression as compute_compression
from reference.spec.format_table import compute_csv_options as compute_csv_options
from reference.spec.format_table import compute_format_table as compute_format_table
from reference.spec.format_table import decode_csv_file as decode_csv_file
from reference.spec.format_table import decode_csv_line as decode_csv_line
from reference.spec.format_table import decode_csv_value as decode_csv_value
from reference.spec.format_table import encode_csv_file as encode_csv_file
from reference.spec.format_table import encode_csv_line as encode_csv_line
from reference.spec.format_table import encode_csv_value as encode_csv_value
from reference.spec.format_table import encode_format_file as encode_format_file
from reference.spec.format_table import find_option as find_option
from reference.spec.format_table import is_format_table as is_format_table
from reference.spec.format_table import parse_format as parse_format
from reference.spec.format_table import parse_plain_integer as parse_plain_integer
from reference.spec.format_table import quote_csv_field as quote_csv_field
from reference.spec.format_table import read_csv_text_option as read_csv_text_option
from reference.spec.format_table import split_csv_fields as split_csv_fields
from reference.spec.format_table import split_csv_lines as split_csv_lines
from reference.spec.format_table import validate_format_table as validate_format_table
from reference.spec.options import parse_boolean
from reference.spec.predicate import Predicate, is_row_matching
from reference.spec.schema import TABLE_TYPE_OPTION as TABLE_TYPE_OPTION
from reference.store.scan import compute_predicate_on

PARTITION_SEPARATOR = "="


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
