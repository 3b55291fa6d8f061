"""Executor-side reading of a split: files to one Arrow table in the read schema, merged.

Steps of :func:`read_split`:

1. Each data file is read with pyarrow (Parquet, ORC; Avro through
   ``reference.spec.file_format.decode_data_file``), columns chosen by the names of the schema
   the file was written with (its ``schema_id``).
2. Its deletion vector (if any) becomes a numpy mask that drops the deleted row positions. With
   a filter, an append-table file's index (embedded or its ``.index`` file) is asked first
   (:mod:`spark_impl.file_index` rule 6): a file it rules out is not read, and a row-set answer
   keeps only those rows (Spark applies the filter again, so this only narrows).
3. Columns move to the read schema by field id: a field the file lacks is all null; a field
   whose type changed is cast (with Arrow where Arrow's cast is exactly Java's, else value by
   value through ``reference.spec.casts``).
4. Append tables: the files' rows, concatenated. Primary-key tables: the records of all files
   are merged per key by :mod:`spark_impl.merge` (vectorized); tables that compact through
   lookup merge only each key's newest record above level 0 with its level-0 records
   (:func:`spark_impl.changelog.select_lookup_candidates`, Java ``LookupMergeFunction``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reference.errors import naming_file
from reference.io import FileIO
from reference.spec.data_file import SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD
from reference.spec.default_values import compute_default_values
from reference.spec.deletion_vector import decode_deletion_vector
from reference.spec.file_format import compute_arrow_schema, compute_arrow_type, rows_to_arrow
from reference.spec.predicate import Predicate
from reference.spec.row_tracking import is_data_evolution_enabled
from reference.spec.schema import TableSchema, decode_schema
from spark_impl.changelog import is_lookup_merge, select_lookup_candidates
from spark_impl.data_evolution import read_data_evolution_split
from spark_impl.file_index import compute_kept_rows, evaluate_at_read
from spark_impl.merge import ORDER_COLUMN, compute_merge_config, merge_records
from spark_impl.plan import LATEST, DataFileRef, DeletionFileRef, Split, TimeTravel, plan_read
from spark_impl.read_files import evolve_columns, read_data_file

# --------------------------------------------------------------------------------------------
# Files and deletion vectors
# --------------------------------------------------------------------------------------------

NO_POSITIONS = np.zeros(0, dtype=np.int64)
IndexFileCache = dict[str, bytes]
"""Deletion-vector index file path -> its bytes: each index file is read once per split (one
index file holds the vectors of many data files)."""


def read_deleted_positions(
    file_io: FileIO, deletion: DeletionFileRef, cache: IndexFileCache
) -> np.ndarray:
    """The deleted row positions of one data file, ascending, as int64 (the roaring bitmap's
    own array: 32-bit or 64-bit, Java ``DeletionVector.read``)."""
    if deletion.path not in cache:
        with naming_file(deletion.path):
            cache[deletion.path] = file_io.read_bytes(deletion.path)
    with naming_file(deletion.path):
        vector = decode_deletion_vector(cache[deletion.path], deletion.offset, deletion.length)
    values = vector.positions.to_array()
    return np.frombuffer(values, dtype=f"u{values.itemsize}").astype(np.int64)


def compute_index_rows(
    file_io: FileIO,
    ref: DataFileRef,
    predicate: Predicate | None,
    schema: TableSchema,
    file_schema: TableSchema,
) -> np.ndarray | None:
    """The row positions of a file its index keeps for ``predicate`` (None: every row)."""
    if predicate is None or ref.index is None:
        return None
    result = evaluate_at_read(
        file_io,
        ref.path,
        predicate,
        row_count=ref.row_count,
        index_source=ref.index,
        schema=schema,
        file_schema=file_schema,
    )
    return compute_kept_rows(result, ref.row_count)


@dataclass(frozen=True)
class ScanFileCounts:
    """What a filtered scan touches: files planned (after partition, statistics and embedded
    index pruning) and files read (planned files their index does not rule out at read time)."""

    planned: int
    read: int
    skipped_by_stats: int
    skipped_by_index_at_plan: int
    skipped_by_index_at_read: int


def is_file_read(
    file_io: FileIO,
    ref: DataFileRef,
    predicate: Predicate | None,
    schema: TableSchema,
    file_schema: TableSchema,
) -> bool:
    """Whether the reader reads ``ref``: its index keeps every row or some rows."""
    kept = compute_index_rows(file_io, ref, predicate, schema, file_schema)
    return kept is None or len(kept) > 0


def count_scan_files(
    file_io: FileIO,
    table_root: str,
    predicate: Predicate | None,
    travel: TimeTravel = LATEST,
) -> ScanFileCounts:
    """Plan a scan with ``predicate`` and count the files it plans and reads (e.g. the
    benchmark's point query ``v = 'value-123'``: ``count_scan_files(io, root, equal("v",
    "value-123")).read``)."""
    plan = plan_read(file_io, table_root, travel, predicate=predicate)
    schema = plan.schema
    schemas = {i: decode_schema(j) for i, j in plan.file_schema_jsons.items()}
    refs = [ref for split in plan.splits for ref in split.files]
    read = sum(
        is_file_read(file_io, ref, predicate, schema, schemas[ref.schema_id]) for ref in refs
    )
    return ScanFileCounts(
        planned=len(refs),
        read=read,
        skipped_by_stats=plan.skipped_files,
        skipped_by_index_at_plan=plan.skipped_by_index,
        skipped_by_index_at_read=len(refs) - read,
    )


def apply_row_masks(table: pa.Table, kept: np.ndarray | None, deleted: np.ndarray) -> pa.Table:
    """Keep the rows at ``kept`` (None: all) that ``deleted`` does not list."""
    if kept is None:
        return apply_deletions(table, deleted)
    keep = np.zeros(table.num_rows, dtype=bool)
    keep[kept[kept < table.num_rows]] = True
    keep[deleted[deleted < table.num_rows]] = False
    return table.filter(pa.array(keep))


def apply_deletions(table: pa.Table, positions: np.ndarray) -> pa.Table:
    """Drop the rows at ``positions`` (a numpy mask, no per-row Python)."""
    if positions.size == 0:
        return table
    keep = np.ones(table.num_rows, dtype=bool)
    keep[positions[positions < table.num_rows]] = False
    return table.filter(pa.array(keep))


# --------------------------------------------------------------------------------------------
# Splits
# --------------------------------------------------------------------------------------------


def read_file_records(
    file_io: FileIO,
    ref: DataFileRef,
    schema: TableSchema,
    file_schema: TableSchema,
    dv_cache: IndexFileCache,
    *,
    predicate: Predicate | None = None,
) -> pa.Table:
    """One file's rows in the read schema; for primary-key tables with the sequence number and
    value kind columns after the fields. ``predicate`` lets the file's index narrow the rows."""
    system = [SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD] if schema.primary_keys else []
    fields = [*system, *file_schema.fields]
    kept = compute_index_rows(file_io, ref, predicate, schema, file_schema)
    if kept is not None and not len(kept):
        table = compute_arrow_schema(fields).empty_table()
    else:
        table = read_data_file(file_io, ref.path, fields)
        deleted = NO_POSITIONS
        if ref.deletion is not None:
            deleted = read_deleted_positions(file_io, ref.deletion, dv_cache)
        table = apply_row_masks(table, kept, deleted)
    columns = evolve_columns(table, file_schema.fields, schema.fields)
    names = [f.name for f in schema.fields]
    for system_field in system:
        columns.append(table.column(system_field.name).combine_chunks())
        names.append(system_field.name)
    return pa.Table.from_arrays(columns, names=names)


def read_split(
    file_io: FileIO,
    split: Split,
    schema: TableSchema,
    file_schemas: Mapping[int, TableSchema],
    *,
    predicate: Predicate | None = None,
) -> pa.Table:
    """The rows of one split in the read schema (canonical Paimon Arrow types); with
    ``predicate``, files (and rows) of append tables their index rules out are left out."""
    if is_data_evolution_enabled(schema.options):
        return fill_default_values(
            read_data_evolution_split(file_io, split, schema, file_schemas), schema
        )
    dv_cache: IndexFileCache = {}
    files = sorted(split.files, key=lambda f: f.min_sequence_number)
    tables = [
        read_file_records(
            file_io, ref, schema, file_schemas[ref.schema_id], dv_cache, predicate=predicate
        )
        for ref in files
    ]
    if not tables:
        return empty_table(schema)
    combined = pa.concat_tables(tables).combine_chunks()
    if schema.primary_keys:
        combined = combined.append_column(ORDER_COLUMN, pa.array(np.arange(combined.num_rows)))
        config = compute_merge_config(schema)
        if is_lookup_merge(schema):
            levels = np.repeat([f.level for f in files], [table.num_rows for table in tables])
            combined = select_lookup_candidates(combined, levels, config)
        combined = merge_records(combined, config)
    return fill_default_values(combined, schema)


def fill_default_values(table: pa.Table, schema: TableSchema) -> pa.Table:
    """Paimon 0.9's ``fields.<f>.default-value``: after the merge, a null of such a field reads
    as its default (the option text is parsed by ``reference.spec.default_values``)."""
    defaults = compute_default_values(schema.options, schema.logical_row_type)
    for data_field, default in zip(schema.fields, defaults, strict=True):
        if default is None or data_field.name not in table.column_names:
            continue
        index = table.column_names.index(data_field.name)
        column = table.column(index)
        filler = rows_to_arrow([(default,)], [data_field]).column(0).cast(column.type)[0]
        table = table.set_column(index, table.field(index), pc.fill_null(column, filler))
    return table


def empty_table(schema: TableSchema) -> pa.Table:
    return pa.Table.from_arrays(
        [pa.array([], type=compute_arrow_type(f.type)) for f in schema.fields],
        names=[f.name for f in schema.fields],
    )
