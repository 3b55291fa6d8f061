"""The global system tables of the ``sys`` database: all_table_options and catalog_options.

Spec: ``docs/concepts/system-tables.md`` ("Global System Table"); the seeds' section 3.7.2.
Java: ``table/system/AllTableOptionsTable``, ``CatalogOptionsTable``.

A catalog knows its tables; these functions take them (and the catalog's options) as
arguments, so any catalog can supply them.

* ``all_table_options``: one row per option of the latest schema of every table given, with its
  database and table name; tables in (database, table) order, options in ``HashMap`` order.
* ``catalog_options``: one row per catalog option, ``HashMap`` order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reference.io import FileIO
from reference.spec.data import Row
from reference.spec.system_table_columns import (
    ALL_TABLE_OPTIONS_COLUMNS,
    OPTIONS_COLUMNS,
)
from reference.store import metadata
from reference.system_tables.common import (
    SystemTableRows,
    compute_fields,
    order_as_hash_map,
)

ALL_TABLE_OPTIONS_FIELDS = compute_fields(ALL_TABLE_OPTIONS_COLUMNS)
CATALOG_OPTIONS_FIELDS = compute_fields(OPTIONS_COLUMNS)


@dataclass(frozen=True)
class CatalogTableEntry:
    """A table of a catalog: its database, name and location."""

    database: str
    table: str
    table_root: str


def read_all_table_options_table(
    file_io: FileIO, tables: Sequence[CatalogTableEntry]
) -> SystemTableRows:
    rows: list[Row] = []
    for entry in sorted(tables, key=lambda e: (e.database, e.table)):
        schema = metadata.read_latest_schema(file_io, entry.table_root)
        for key, value in order_as_hash_map(schema.options).items():
            rows.append((entry.database, entry.table, key, value))
    return SystemTableRows(ALL_TABLE_OPTIONS_FIELDS, rows)


def read_catalog_options_table(options: Mapping[str, str]) -> SystemTableRows:
    rows: list[Row] = [(key, value) for key, value in order_as_hash_map(options).items()]
    return SystemTableRows(CATALOG_OPTIONS_FIELDS, rows)
