"""Reading a split of a ``data-evolution.enabled`` append table (Paimon 1.x): data files that
hold a subset of the columns, merged with the others by row id, column-wise in Arrow.

The rules are ``reference.spec.row_tracking``'s (Java ``DataEvolutionSplitRead``): files whose
row id ranges overlap form a group covering one range; each column of the group's rows comes from
the newest file (largest max sequence number) that holds it, by field id; a column no file holds
is null. A BLOB column is read from the group's ``.blob`` files of that column, chosen and
concatenated as ``reference.spec.blob`` rule 4 says (Java ``DataEvolutionSplitRead.BlobBunch``).
Deletion vectors over row id groups are refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from reference.errors import SpecViolation, UnsupportedFeature
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.blob import BlobFileSpan, select_blob_bunch
from reference.spec.file_format import compute_arrow_type
from reference.spec.row_tracking import DATA_EVOLUTION_OPTION, is_blob_file
from reference.spec.schema import TableSchema
from spark_impl.plan import DataFileRef, Split
from spark_impl.read_files import evolve_columns, read_data_file


def _row_id_range(ref: DataFileRef) -> tuple[int, int]:
    if ref.first_row_id is None:
        raise SpecViolation(
            f"{ref.path}: a data file of a data-evolution table has no first row id",
            code="FILE_META_INVALID",
        )
    return ref.first_row_id, ref.first_row_id + ref.row_count - 1


def group_by_row_ids(files: Sequence[DataFileRef]) -> list[list[DataFileRef]]:
    """Files grouped by overlapping row id ranges, groups in row id order; in a group the data
    files newest first, then the ``.blob`` files (``reference.spec.row_tracking`` rules 3, 5)."""
    groups: list[list[DataFileRef]] = []
    end = -1
    for ref in sorted(files, key=lambda f: _row_id_range(f)[0]):
        start, last = _row_id_range(ref)
        if groups and start <= end:
            groups[-1].append(ref)
            end = max(end, last)
        else:
            groups.append([ref])
            end = last
    for group in groups:
        blobs = [f for f in group if is_blob_file(f.path)]
        group[:] = [f for f in group if not is_blob_file(f.path)]
        if not group:
            raise SpecViolation(
                f".blob files {[f.path for f in blobs]} have no data file over their rows",
                code="FILE_META_INVALID",
            )
        if len({_row_id_range(f) for f in group}) != 1:
            raise SpecViolation(
                f"data files {[f.path for f in group]} overlap in row ids but do not cover "
                "the same range",
                code="FILE_META_INVALID",
            )
        group.sort(key=lambda f: f.max_sequence_number, reverse=True)
        group.extend(blobs)
    return groups


def read_holder(
    file_io: FileIO, group: Sequence[DataFileRef], holder: int, fields: Sequence[t.DataField]
) -> pa.Table:
    """The rows of the group's file ``holder``; for a ``.blob`` file, of its column's files
    chosen by ``reference.spec.blob.select_blob_bunch``, concatenated."""
    ref = group[holder]
    if not is_blob_file(ref.path):
        return read_data_file(file_io, ref.path, fields)
    column = [f for f in group if is_blob_file(f.path) and f.write_cols == ref.write_cols]
    spans = [
        BlobFileSpan(f.path, _row_id_range(f)[0], f.row_count, f.max_sequence_number)
        for f in column
    ]
    first_row_id = _row_id_range(group[0])[0]
    chosen = select_blob_bunch(spans, first_row_id, group[0].row_count)
    tables = [read_data_file(file_io, column[i].path, fields) for i in chosen]
    return pa.concat_tables(tables)


def _written_fields(ref: DataFileRef, file_schema: TableSchema) -> list[t.DataField]:
    if ref.write_cols is None:
        return list(file_schema.fields)
    names = set(ref.write_cols)
    return [f for f in file_schema.fields if f.name in names]


def read_group(
    file_io: FileIO,
    group: Sequence[DataFileRef],
    schema: TableSchema,
    file_schemas: Mapping[int, TableSchema],
) -> pa.Table:
    """One row id group's rows in the read schema, each column from its newest holder."""
    written = [_written_fields(ref, file_schemas[ref.schema_id]) for ref in group]
    row_count = group[0].row_count
    columns: list[pa.Array] = []
    read: dict[int, list[pa.Array]] = {}
    for position, field in enumerate(schema.fields):
        holder = next(
            (i for i, fields in enumerate(written) if any(f.id == field.id for f in fields)),
            None,
        )
        if holder is None:
            columns.append(pa.nulls(row_count, type=compute_arrow_type(field.type)))
            continue
        if holder not in read:
            table = read_holder(file_io, group, holder, written[holder])
            if table.num_rows != row_count:
                raise SpecViolation(
                    f"{group[holder].path}: {table.num_rows} rows, its row id range holds "
                    f"{row_count}",
                    code="FILE_META_INVALID",
                )
            read[holder] = evolve_columns(table, written[holder], schema.fields)
        columns.append(read[holder][position])
    return pa.Table.from_arrays(columns, names=[f.name for f in schema.fields])


def read_data_evolution_split(
    file_io: FileIO,
    split: Split,
    schema: TableSchema,
    file_schemas: Mapping[int, TableSchema],
) -> pa.Table:
    """The rows of one split of a data-evolution table, in row id order."""
    if any(ref.deletion is not None for ref in split.files):
        raise UnsupportedFeature(f"deletion vectors with '{DATA_EVOLUTION_OPTION}'")
    tables = [
        read_group(file_io, group, schema, file_schemas) for group in group_by_row_ids(split.files)
    ]
    return pa.concat_tables(tables).combine_chunks()
