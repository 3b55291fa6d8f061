"""Reading a split of a ``data-evolution.enabled`` append table (Paimon 1.x): data files that
hold a subset of the columns, merged with the others by row id, column-wise in Arrow.

The rules are ``reference.spec.row_tracking``'s (Java ``DataEvolutionSplitRead``): files whose
row id ranges overlap form a group covering one range; each column of the group's rows comes from
the newest file (largest max sequence number) that holds it, by field id; a column no file holds
is null. BLOB files and deletion vectors over row id groups are refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from reference.errors import SpecViolation, UnsupportedFeature
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.file_format import compute_arrow_type
from reference.spec.row_tracking import DATA_EVOLUTION_OPTION, is_blob_file
from reference.spec.schema import TableSchema
from spark_impl.plan import DataFileRef, Split
from spark_impl.read import evolve_columns, read_data_file


def _row_id_range(ref: DataFileRef) -> tuple[int, int]:
    if ref.first_row_id is None:
        raise SpecViolation(
            f"{ref.path}: a data file of a data-evolution table has no first row id",
            code="FILE_META_INVALID",
        )
    return ref.first_row_id, ref.first_row_id + ref.row_count - 1


def group_by_row_ids(files: Sequence[DataFileRef]) -> list[list[DataFileRef]]:
    """Files grouped by overlapping row id ranges, groups in row id order, newest file first."""
    blobs = [f.path for f in files if is_blob_file(f.path)]
    if blobs:
        raise UnsupportedFeature(
            f"the BLOB type: BLOB column data in .blob files ({blobs[0]}) is not read"
        )
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
        if len({_row_id_range(f) for f in group}) != 1:
            raise SpecViolation(
                f"data files {[f.path for f in group]} overlap in row ids but do not cover "
                "the same range",
                code="FILE_META_INVALID",
            )
        group.sort(key=lambda f: f.max_sequence_number, reverse=True)
    return groups


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
            table = read_data_file(file_io, group[holder].path, written[holder])
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
