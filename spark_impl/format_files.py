"""The files of a format table, as the ``paimon`` source reads them (Java main's
``FormatTable``, ``PartitionPathUtils``, ``FormatReadBuilder``): the source options that
describe a table, partition discovery (``<key>=<value>`` directories, one level per partition
key, hidden names skipped), each partition's visible data files, and one file's rows with its
partition columns cast from their directory strings.

This is the piece :mod:`spark_impl.datasource` (the reader) and :mod:`spark_impl.format_table`
(the user's read and write entry points) share; it imports neither, so the data source and
the entry points that go through it do not form a cycle."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from reference import layout
from reference.errors import InvalidOptionError, naming_file
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.casts import cast_value
from reference.spec.file_format import (
    FileFormat,
    compute_arrow_type,
    decode_data_file,
    rows_to_arrow,
)
from reference.spec.format_table import (
    FILE_FORMAT_OPTION,
    FORMAT_TABLE_TYPE,
    HIDDEN_PREFIXES,
    FormatTable,
    FormatTableFormat,
    compute_csv_options,
    decode_csv_file,
    parse_format,
)
from reference.spec.schema import TABLE_TYPE_OPTION
from spark_impl.spark_types import to_paimon_fields

IMPLEMENTATION_OPTION = "format-table.implementation"


PAIMON_IMPLEMENTATION = "paimon"


ENGINE_IMPLEMENTATION = "engine"


STRING = t.VarCharType(t.MAX_LENGTH)


def is_hidden(name: str) -> bool:
    return name.startswith(HIDDEN_PREFIXES)


def partition_value_of(name: str, key: str) -> str | None:
    """The unescaped value of a ``<key>=<value>`` directory name (None: another name)."""
    if is_hidden(name):
        return None
    parsed = layout.parse_partition_path(name)
    if len(parsed) != 1 or parsed[0][0] != key:
        return None
    return parsed[0][1]


def discover_partitions(file_io: FileIO, table: FormatTable) -> list[tuple[str, tuple[str, ...]]]:
    """Every partition directory with its value strings (the table directory when
    unpartitioned)."""
    found: list[tuple[str, tuple[str, ...]]] = [(table.location.rstrip("/"), ())]
    for key in table.partition_keys:
        found = [
            (layout.join(directory, name), (*texts, value))
            for directory, texts in found
            for name in sorted(file_io.list_dir(directory))
            if (value := partition_value_of(name, key)) is not None
        ]
    return found


def list_visible_files(file_io: FileIO, directory: str) -> list[str]:
    """The files below ``directory`` at any depth with no hidden path component."""
    prefix = directory.rstrip("/") + "/"
    return sorted(
        path
        for path in file_io.list_files_recursive(directory)
        if not any(is_hidden(part) for part in path[len(prefix) :].split("/"))
    )


def plan_files(file_io: FileIO, table: FormatTable) -> list[tuple[str, tuple[str, ...]]]:
    """Every data file of the table with its partition's value strings, in path order."""
    return [
        (path, texts)
        for directory, texts in discover_partitions(file_io, table)
        for path in list_visible_files(file_io, directory)
    ]


def data_fields(table: FormatTable) -> list[t.DataField]:
    return [f for f in table.fields if f.name not in table.partition_keys]


def read_file_columns(file_io: FileIO, table: FormatTable, path: str) -> pa.Table:
    """The data columns of one file as a canonical Arrow table."""
    fields = data_fields(table)
    with naming_file(path):
        if table.format is FormatTableFormat.CSV:
            options = compute_csv_options(table.options)
            return rows_to_arrow(decode_csv_file(file_io.read_bytes(path), fields, options), fields)
        return decode_data_file(file_io.open_input(path), FileFormat(table.format.value), fields)


def partition_column(text: str, data_field: t.DataField, table: FormatTable, rows: int) -> pa.Array:
    value = (
        None if text == table.default_partition_name else cast_value(text, STRING, data_field.type)
    )
    return pa.array([value] * rows, compute_arrow_type(data_field.type))


def read_file_table(
    file_io: FileIO, table: FormatTable, path: str, texts: Sequence[str]
) -> pa.Table:
    """One file's rows in the table's field order, partition columns from ``texts``."""
    data = read_file_columns(file_io, table, path)
    by_key = dict(zip(table.partition_keys, texts, strict=True))
    columns = [
        partition_column(by_key[f.name], f, table, data.num_rows)
        if f.name in by_key
        else data.column(f.name)
        for f in table.fields
    ]
    return pa.Table.from_arrays(columns, names=[f.name for f in table.fields])


def implementation_of(table: FormatTable) -> str:
    chosen = table.options.get(IMPLEMENTATION_OPTION, PAIMON_IMPLEMENTATION).strip().lower()
    if chosen not in (PAIMON_IMPLEMENTATION, ENGINE_IMPLEMENTATION):
        raise InvalidOptionError(IMPLEMENTATION_OPTION, chosen, "use 'paimon' or 'engine'")
    return chosen


FIELDS_OPTION = "fields"


PARTITION_KEYS_OPTION = "partition-keys"


def is_format_table_read(options: Mapping[str, str]) -> bool:
    return options.get(TABLE_TYPE_OPTION, "").strip().lower() == FORMAT_TABLE_TYPE


def compute_source_options(table: FormatTable) -> dict[str, str]:
    """The ``paimon`` source options that describe ``table``: its options, the type, its
    fields (Paimon types, JSON, as a catalog stores them) and partition keys."""
    fields = json.dumps([t.field_to_json(f) for f in table.fields])
    return {
        **table.options,
        TABLE_TYPE_OPTION: FORMAT_TABLE_TYPE,
        FILE_FORMAT_OPTION: table.format.value,
        FIELDS_OPTION: fields,
        PARTITION_KEYS_OPTION: ",".join(table.partition_keys),
    }


def parse_source_options(
    options: Mapping[str, str], location: str, spark_schema: Any
) -> FormatTable:
    """The table a ``paimon`` source read with ``type = format-table`` describes: fields from
    the ``fields`` option, else from the Spark schema the reader was given."""
    if FIELDS_OPTION in options:
        fields = tuple(t.parse_data_field(f) for f in json.loads(options[FIELDS_OPTION]))
    elif spark_schema is not None and len(spark_schema.fields):
        fields = tuple(to_paimon_fields(spark_schema))
    else:
        raise InvalidOptionError(
            FIELDS_OPTION, None, "a format table read needs a schema (.schema(...) or 'fields')"
        )
    keys = tuple(k.strip() for k in options.get(PARTITION_KEYS_OPTION, "").split(",") if k.strip())
    return FormatTable(
        location=location,
        fields=fields,
        partition_keys=keys,
        format=parse_format(options.get(FILE_FORMAT_OPTION, FormatTableFormat.PARQUET.value)),
        options={k: v for k, v in options.items() if k not in (FIELDS_OPTION, "path")},
    )
