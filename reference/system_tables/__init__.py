"""System tables: read-only views of a table's metadata and changes, named ``<table>$<name>``.

Spec: ``docs/concepts/system-tables.md``; the seeds' section 3.7. Java:
``table/system/SystemTableLoader`` and the classes beside it.

:func:`read_system_table` returns the row type and rows of one system table of a table:

    rows = read_system_table(LocalFileIO(), "/wh/db.db/t", "files", {"scan.snapshot-id": "1"})

``version`` chooses main's column sets (default) or Paimon 0.9.0's (the Java oracle); the
modules ``metadata_tables``, ``file_tables`` and ``change_tables`` state each table's rows and
the differences. The global tables of the ``sys`` database are in ``global_tables``.

Main-only tables (``buckets``, ``binlog``, ``table_indexes``) raise
:class:`~reference.errors.UnsupportedFeature` for version 0.9. Main's ``file_indexes``,
``file_key_ranges`` and ``row_tracking`` and the global ``all_tables``/``all_partitions`` are
not implemented.
"""

from __future__ import annotations

from collections.abc import Mapping

from reference.errors import UnsupportedFeature
from reference.io import FileIO
from reference.system_tables import change_tables, file_tables, metadata_tables
from reference.system_tables.common import SystemTableRows, SystemTableVersion

SNAPSHOTS = "snapshots"
SCHEMAS = "schemas"
OPTIONS = "options"
AUDIT_LOG = "audit_log"
BINLOG = "binlog"
READ_OPTIMIZED = "ro"
FILES = "files"
TAGS = "tags"
BRANCHES = "branches"
CONSUMERS = "consumers"
MANIFESTS = "manifests"
AGGREGATION_FIELDS = "aggregation_fields"
PARTITIONS = "partitions"
BUCKETS = "buckets"
STATISTICS = "statistics"
TABLE_INDEXES = "table_indexes"

SYSTEM_TABLES_0_9 = (
    MANIFESTS,
    SNAPSHOTS,
    OPTIONS,
    SCHEMAS,
    PARTITIONS,
    AUDIT_LOG,
    FILES,
    TAGS,
    BRANCHES,
    CONSUMERS,
    READ_OPTIMIZED,
    AGGREGATION_FIELDS,
    STATISTICS,
)
"""The data system tables of Paimon 0.9.0 (``SystemTableLoader`` order)."""
SYSTEM_TABLES = (*SYSTEM_TABLES_0_9, BUCKETS, BINLOG, TABLE_INDEXES)
"""The data system tables the reference implements."""


def read_system_table(
    file_io: FileIO,
    table_root: str,
    name: str,
    options: Mapping[str, str] | None = None,
    *,
    version: SystemTableVersion = SystemTableVersion.MAIN,
) -> SystemTableRows:
    """The rows of ``<table>$<name>`` with dynamic ``options`` (time travel, incremental
    options for ``audit_log``/``binlog``, ``table-read.sequence-number.enabled``). Names are
    case-insensitive, as in Java."""
    given = dict(options or {})
    key = name.lower()
    if key == SNAPSHOTS:
        return metadata_tables.read_snapshots_table(file_io, table_root, version)
    if key == SCHEMAS:
        return metadata_tables.read_schemas_table(file_io, table_root)
    if key == OPTIONS:
        return metadata_tables.read_options_table(file_io, table_root)
    if key == TAGS:
        return metadata_tables.read_tags_table(file_io, table_root)
    if key == BRANCHES:
        return metadata_tables.read_branches_table(file_io, table_root, version)
    if key == CONSUMERS:
        return metadata_tables.read_consumers_table(file_io, table_root)
    if key == AGGREGATION_FIELDS:
        return metadata_tables.read_aggregation_fields_table(file_io, table_root)
    if key == STATISTICS:
        return metadata_tables.read_statistics_table(file_io, table_root, given)
    if key == FILES:
        return file_tables.read_files_table(file_io, table_root, given, version)
    if key == MANIFESTS:
        return file_tables.read_manifests_table(file_io, table_root, given, version)
    if key == PARTITIONS:
        return file_tables.read_partitions_table(file_io, table_root, given, version)
    if key == BUCKETS:
        return file_tables.read_buckets_table(file_io, table_root, version)
    if key == TABLE_INDEXES:
        return file_tables.read_table_indexes_table(file_io, table_root, given, version)
    if key == AUDIT_LOG:
        return change_tables.read_audit_log_table(file_io, table_root, given, version)
    if key == BINLOG:
        return change_tables.read_binlog_table(file_io, table_root, given, version)
    if key == READ_OPTIMIZED:
        return change_tables.read_ro_table(file_io, table_root, given)
    raise UnsupportedFeature(f"no system table '{name}'")


__all__ = ["SYSTEM_TABLES", "SystemTableRows", "SystemTableVersion", "read_system_table"]
