"""The system tables over a table's rows, ``audit_log`` and ``ro``, for
:mod:`spark_impl.system_tables`.

Java: ``table/system/AuditLogTable`` and ``ReadOptimizedTable`` of Paimon 0.9.0.

* ``audit_log``: a ``rowkind`` column (``+I``, ``-U``, ``+U``, ``-D``) before the table's
  fields: a batch read of the selected snapshot (time travel reads in that snapshot's schema)
  that keeps retracting merge results, so every key's merged record shows, ``-D`` included;
  append tables' rows are ``+I``.
* ``ro`` (read-optimized): primary-key tables read only the files of the top level
  (``num-levels - 1``, what the latest full compaction wrote), merged; append tables read as a
  batch read does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pyarrow as pa

from reference.errors import UnsupportedFeature
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.schema import TableSchema, decode_schema
from spark_impl import stream
from spark_impl.plan import ReadPlan, TimeTravel, plan_read, resolve_read_schema
from spark_impl.read import empty_table, fill_default_values, read_split
from spark_impl.system_tables import Columns, parse_travel

ROW_KIND_NAME = "rowkind"
ROW_KIND_TYPE = t.VarCharType(t.MAX_LENGTH)
INCREMENTAL_OPTIONS = ("incremental-between", "incremental-between-timestamp")


def plan_rows_read(file_io: FileIO, root: str, travel: TimeTravel) -> tuple[ReadPlan, TableSchema]:
    plan = plan_read(file_io, root, travel)
    return plan, decode_schema(plan.schema_json)


def file_schemas(plan: ReadPlan) -> dict[int, TableSchema]:
    return {i: decode_schema(j) for i, j in plan.file_schema_jsons.items()}


def audit_log_columns(schema: TableSchema) -> Columns:
    return [(ROW_KIND_NAME, ROW_KIND_TYPE), *((f.name, f.type) for f in schema.fields)]


def read_audit_log(file_io: FileIO, root: str, travel: TimeTravel) -> pa.Table:
    """``audit_log`` (module docstring) in canonical Arrow columns."""
    plan, schema = plan_rows_read(file_io, root, travel)
    schemas = file_schemas(plan)
    names = [f.name for f in schema.fields]
    tables = []
    for split in plan.splits:
        if schema.primary_keys:
            table = stream.read_merged_with_kinds(
                file_io, split, schema, schemas, keep_retractions=True
            )
            table = fill_default_values(table, schema)
        else:
            table = read_split(file_io, split, schema, schemas)
            table = stream.with_row_kinds(table, np.zeros(table.num_rows, dtype=np.int64))
        tables.append(table)
    if not tables:
        tables.append(stream.with_row_kinds(empty_table(schema), np.zeros(0, dtype=np.int64)))
    combined = pa.concat_tables(tables)
    kinds = combined.column(stream.ROW_KIND_COLUMN)
    return pa.Table.from_arrays(
        [kinds, *(combined.column(n) for n in names)], names=[ROW_KIND_NAME, *names]
    )


def read_optimized(file_io: FileIO, root: str, travel: TimeTravel) -> pa.Table:
    """``ro`` (module docstring) in canonical Arrow columns."""
    plan, schema = plan_rows_read(file_io, root, travel)
    schemas = file_schemas(plan)
    top = schema.core_options.num_levels - 1
    tables = []
    for split in plan.splits:
        kept = split
        if schema.primary_keys:
            kept = replace(split, files=tuple(f for f in split.files if f.level == top))
        if kept.files:
            tables.append(read_split(file_io, kept, schema, schemas))
    if not tables:
        return empty_table(schema)
    return pa.concat_tables(tables).select([f.name for f in schema.fields])


def rows_schema(file_io: FileIO, root: str, options: Mapping[str, str]) -> TableSchema:
    """The read schema: the selected snapshot's under time travel, else the latest."""
    _, schema_json = resolve_read_schema(file_io, root, parse_travel(options))
    return decode_schema(schema_json)


def refuse_incremental(options: Mapping[str, str]) -> None:
    """The incremental forms of ``audit_log`` / ``binlog`` are not implemented here."""
    for key in INCREMENTAL_OPTIONS:
        if key in options:
            raise UnsupportedFeature(
                f"option '{key}' on the audit_log / binlog system tables from Spark (use "
                "reference.Table.system_table, or a batch read with that option)"
            )


def audit_log_columns_of(file_io: FileIO, root: str, options: Mapping[str, str]) -> Columns:
    refuse_incremental(options)
    return audit_log_columns(rows_schema(file_io, root, options))


def ro_columns_of(file_io: FileIO, root: str, options: Mapping[str, str]) -> Columns:
    return [(f.name, f.type) for f in rows_schema(file_io, root, options).fields]


def audit_log_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> pa.Table:
    refuse_incremental(options)
    return read_audit_log(file_io, root, parse_travel(options))


def ro_rows(file_io: FileIO, root: str, options: Mapping[str, str]) -> pa.Table:
    return read_optimized(file_io, root, parse_travel(options))
