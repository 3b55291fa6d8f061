"""Reading a system table from Spark (see :mod:`spark_impl.system_tables` for the rules): the
registry of system tables (:data:`spark_impl.system_table_rows.SYSTEM_TABLES`) looked up by
name, their Spark schemas and rows, and the ``DataSourceReader`` the ``paimon`` source hands
Spark. Above the system tables' modules, which build on :mod:`spark_impl.system_tables`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, InputPartition

from reference.errors import InvalidOptionError
from reference.io import FileIO, file_io_for
from spark_impl.options import SYSTEM_TABLE_OPTION
from spark_impl.spark_types import to_spark_arrow_schema, to_spark_batch, to_spark_schema
from spark_impl.system_table_rows import SYSTEM_TABLES
from spark_impl.system_tables import (
    MAX_BATCH_ROWS,
    SystemTable,
    TableOptions,
    compute_fields,
    system_table_of,
)


def lookup_system_table(name: str) -> SystemTable:
    if name not in SYSTEM_TABLES:
        raise InvalidOptionError(
            SYSTEM_TABLE_OPTION, name, f"no such system table; known: {', '.join(SYSTEM_TABLES)}"
        )
    return SYSTEM_TABLES[name]


def system_table_spark_schema(
    file_io: FileIO, table_root: str, name: str, options: TableOptions
) -> Any:
    """The Spark schema of a system table (its Java 0.9 row type)."""
    columns = lookup_system_table(name).columns(file_io, table_root, options)
    return to_spark_schema(compute_fields(columns))


def read_system_table(
    file_io: FileIO, table_root: str, name: str, options: TableOptions
) -> pa.Table:
    """The rows of ``<table_root>$<name>`` as an Arrow table in the Spark schema."""
    table = lookup_system_table(name)
    columns = table.columns(file_io, table_root, options)
    arrow_schema = to_spark_arrow_schema(to_spark_schema(compute_fields(columns)))
    rows = table.rows(file_io, table_root, options)
    if isinstance(rows, pa.Table):
        return to_spark_batch(rows, arrow_schema)
    names = [name for name, _ in columns]
    return pa.Table.from_pylist([dict(zip(names, row, strict=True)) for row in rows], arrow_schema)


def open_table_io(root: str, options: TableOptions) -> FileIO:
    return file_io_for(root, options)


def spark_schema_of(options: TableOptions) -> Any:
    """``DataSource.schema()`` of a system table read."""
    found = system_table_of(options)
    assert found is not None
    root, name = found
    return system_table_spark_schema(open_table_io(root, options), root, name, options)


class SystemTableReader(DataSourceReader):
    """One partition holding the whole system table (metadata is small; the row tables
    ``audit_log`` and ``ro`` read their splits in that task)."""

    def __init__(self, options: dict[str, str], schema: Any) -> None:
        found = system_table_of(options)
        assert found is not None
        self.root, self.name = found
        self.options = options
        self.spark_schema = schema
        lookup_system_table(self.name)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        file_io = open_table_io(self.root, self.options)
        table = read_system_table(file_io, self.root, self.name, self.options)
        yield from table.to_batches(max_chunksize=MAX_BATCH_ROWS)
