"""Reading splits: data files to rows, with deletion vectors, schema evolution and merging.

Spec: ``docs/concepts/spec/datafile.md``, ``tableindex.md`` (deletion vectors); the seeds' LSM
and merge-engine sections. Java: ``operation/MergeFileSplitRead``, ``RawFileSplitRead``,
``mergetree/MergeTreeReaders``, ``mergetree/compact/SortMergeReader``,
``schema/SchemaEvolutionUtil``, ``deletionvectors/ApplyDeletionVectorReader``.

Rules:

1. A data file is read with the schema it was written with (its ``_SCHEMA_ID``). Each value is
   then moved to the read schema by field id: a field the file does not have reads as null, a
   field whose type changed is cast (``reference.spec.casts``), a dropped field is ignored.
2. A deletion vector lists row positions (0-based, in file order) that are deleted; those rows
   are skipped before anything else.
3. An append table's rows are the rows of its files, each an insert.
4. A primary-key file holds key-value records (``_SEQUENCE_NUMBER``, ``_VALUE_KIND``, values).
   All records of a bucket are ordered by key, then by ``sequence.field`` (if any), then by
   sequence number; the records of each key are merged by the table's merge engine (a single
   record stays as it is; a table that compacts through lookup merges only the newest record
   above level 0, ``reference.store.changelog`` rule 2); a key whose merge result retracts (or
   is nothing) is not in the table.
5. Filters are applied to the final rows; projection comes last.
6. File indexes only narrow what is read (``reference.store.file_index`` rule 6): in append
   tables, and in primary-key splits that Java reads file by file without merging (deletion
   vectors or first-row, every file above level 0 and holding no retraction), a file its index
   rules out is not read, and with a row-set answer only those rows are read. Rule 5's filter
   still decides. (Java main also reads some other primary-key splits without merging, a
   single level or a lone file; the reference merges those and does not narrow them.)
7. Default values (Paimon 0.9, option ``fields.<f>.default-value``): after the merge, every
   null of a field that has a default reads as the default; filters see the filled rows. A
   file's statistics and indexes describe the nulls, not the defaults, so conjuncts on such
   fields never prune files or rows (Java ``operation/DefaultValueAssigner``, applied by
   ``AbstractDataTableRead`` to every read of a data table, batch, incremental or streaming).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cmp_to_key
from typing import Any

from reference import layout
from reference.errors import SpecViolation, UnsupportedFeature, naming_file
from reference.io import FileIO
from reference.merge.engine import (
    MergeSetup,
    compute_merge_setup,
    merge,
    order_records,
)
from reference.spec import types as t
from reference.spec.blob import select_group_blob_files
from reference.spec.casts import cast_value
from reference.spec.compare import compare_rows
from reference.spec.data import Row, RowKind, Value
from reference.spec.data_file import (
    SEQUENCE_NUMBER_FIELD,
    VALUE_KIND_FIELD,
    DataFileMeta,
    compute_key_fields,
    compute_key_value_fields,
    compute_trimmed_primary_keys,
)
from reference.spec.default_values import apply_default_values, compute_default_values
from reference.spec.deletion_vector import DeletionVector, decode_deletion_vector, is_deleted
from reference.spec.file_format import (
    arrow_to_rows,
    decode_blob_data_file,
    decode_data_file,
    parse_file_format,
)
from reference.spec.file_index.result import ResultKind, is_remain
from reference.spec.file_index.roaring import RowIds
from reference.spec.key_value import KeyValue
from reference.spec.predicate import (
    Predicate,
    compute_predicate_without_fields,
    is_row_matching,
)
from reference.spec.row_tracking import (
    DATA_EVOLUTION_OPTION,
    compute_column_sources,
    compute_row_id_groups,
    compute_written_fields,
    is_blob_file,
    is_data_evolution_enabled,
)
from reference.spec.schema import TableSchema
from reference.store.changelog import compute_lookup_strategy, is_lookup_merge, merge_lookup
from reference.store.file_index import evaluate_file_at_read
from reference.store.scan import DataSplit, DeletionFile, is_level_zero_skipped

ChangeRow = tuple[RowKind, Row]
"""A row with the change it carries (+I, -U, +U, -D)."""


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def compute_data_file_path(split: DataSplit, meta: DataFileMeta) -> str:
    return layout.data_file_path(split.bucket_path, meta.file_name, meta.external_path)


def compute_file_fields(file_schema: TableSchema) -> list[t.DataField]:
    """The physical columns of a data file written under ``file_schema`` (rule 4 layout for
    primary-key tables, the table fields for append tables)."""
    if not file_schema.is_primary_key_table:
        return list(file_schema.fields)
    keys = compute_trimmed_primary_keys(file_schema.primary_keys, file_schema.partition_keys)
    key_fields = compute_key_fields(file_schema.fields, keys)
    thin = file_schema.core_options.data_file_thin_mode
    return compute_key_value_fields(key_fields, file_schema.fields, thin)


def read_file_rows(
    file_io: FileIO, path: str, fields: Sequence[t.DataField], positions: RowIds = None
) -> list[Row]:
    """The rows of one data file, columns ``fields`` (format from the file name): all of them,
    or only those at ``positions`` (0-based, in file order)."""
    with naming_file(path):
        if is_blob_file(path):
            table = decode_blob_data_file(file_io.read_bytes(path), fields)
        else:
            fmt = parse_file_format(layout.data_file_format(path))
            table = decode_data_file(file_io.open_input(path), fmt, fields)
        if positions is not None:
            table = table.take(list(positions))
        return arrow_to_rows(table, fields)


def read_deletion_vector(file_io: FileIO, deletion_file: DeletionFile) -> DeletionVector:
    with naming_file(deletion_file.path):
        data = file_io.read_bytes(deletion_file.path)
        return decode_deletion_vector(data, deletion_file.offset, deletion_file.length)


def apply_deletion_vector(rows: list[Row], vector: DeletionVector | None) -> list[Row]:
    """Rule 2: drop the rows whose positions the vector holds."""
    if vector is None:
        return rows
    return [row for position, row in enumerate(rows) if not is_deleted(vector, position)]


def _vector_of(file_io: FileIO, split: DataSplit, meta: DataFileMeta) -> DeletionVector | None:
    deletion_file = split.deletion_files.get(meta.file_name)
    return None if deletion_file is None else read_deletion_vector(file_io, deletion_file)


def read_live_rows(
    file_io: FileIO,
    split: DataSplit,
    meta: DataFileMeta,
    fields: Sequence[t.DataField],
    *,
    schema: TableSchema,
    file_schema: TableSchema,
    predicate: Predicate | None,
) -> list[Row]:
    """Rules 2 and 6: the rows (columns ``fields``) of a data file that its deletion vector
    keeps and its file index does not rule out for ``predicate`` (None: no index is asked)."""
    path = compute_data_file_path(split, meta)
    vector = _vector_of(file_io, split, meta)
    answer = evaluate_file_at_read(
        file_io, path, meta, predicate, schema=schema, file_schema=file_schema, vector=vector
    )
    if not is_remain(answer):
        return []
    if answer.kind is ResultKind.ROWS:
        return read_file_rows(file_io, path, fields, answer.rows)
    return apply_deletion_vector(read_file_rows(file_io, path, fields), vector)


# --------------------------------------------------------------------------------------------
# Schema evolution
# --------------------------------------------------------------------------------------------

ValueMapper = Callable[[Row], Row]


def compute_value_mapper(
    file_fields: Sequence[t.DataField], read_fields: Sequence[t.DataField]
) -> ValueMapper:
    """Rule 1: a function from a row of ``file_fields`` to a row of ``read_fields``."""
    by_id = {f.id: (i, f) for i, f in enumerate(file_fields)}
    plan: list[tuple[int | None, t.DataType | None, t.DataType]] = []
    for read_field in read_fields:
        found = by_id.get(read_field.id)
        if found is None:
            plan.append((None, None, read_field.type))
        else:
            index, file_field = found
            same = file_field.type.copy(True) == read_field.type.copy(True)
            plan.append((index, None if same else file_field.type, read_field.type))

    def mapper(row: Row) -> Row:
        out: list[Any] = []
        for index, source, target in plan:
            if index is None:
                out.append(None)
            elif source is None:
                out.append(row[index])
            else:
                out.append(cast_value(row[index], source, target))
        return tuple(out)

    return mapper


# --------------------------------------------------------------------------------------------
# Append tables
# --------------------------------------------------------------------------------------------


def read_append_split(
    file_io: FileIO,
    split: DataSplit,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    predicate: Predicate | None = None,
) -> list[ChangeRow]:
    """Rules 3 and 6: every row of every file, as inserts, in the table's current fields."""
    if is_data_evolution_enabled(schema.options):
        return read_data_evolution_split(file_io, split, schema, schemas)
    rows: list[ChangeRow] = []
    for meta in split.files:
        file_schema = schemas[meta.schema_id]
        file_rows = read_live_rows(
            file_io,
            split,
            meta,
            file_schema.fields,
            schema=schema,
            file_schema=file_schema,
            predicate=predicate,
        )
        mapper = compute_value_mapper(file_schema.fields, schema.fields)
        rows.extend((RowKind.INSERT, mapper(row)) for row in file_rows)
    return rows


def read_row_id_group(
    file_io: FileIO,
    split: DataSplit,
    group: Sequence[DataFileMeta],
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
) -> list[Row]:
    """``row_tracking`` rule 4: the rows of one row id group, each column from the newest file
    of the group that holds it (no file holds it: null)."""
    written = [compute_written_fields(m, schemas[m.schema_id].fields) for m in group]
    sources = compute_column_sources(written, schema.fields)
    columns: dict[int, list[Row]] = {}
    for index in sorted({s for s in sources if s is not None}):
        metas = [group[index]]
        if is_blob_file(group[index].file_name):  # reference.spec.blob rule 4
            metas = select_group_blob_files(group, group[index])
        mapper = compute_value_mapper(written[index], schema.fields)
        columns[index] = [
            mapper(row)
            for meta in metas
            for row in read_file_rows(file_io, compute_data_file_path(split, meta), written[index])
        ]
    row_count = group[0].row_count
    for index, rows in columns.items():
        if len(rows) != row_count:
            raise SpecViolation(
                f"{group[index].file_name}: {len(rows)} rows, its row id range holds {row_count}",
                code="FILE_META_INVALID",
            )
    return [
        tuple(None if s is None else columns[s][position][j] for j, s in enumerate(sources))
        for position in range(row_count)
    ]


def read_data_evolution_split(
    file_io: FileIO,
    split: DataSplit,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
) -> list[ChangeRow]:
    """An append split of a ``data-evolution.enabled`` table: its files grouped by row id and
    merged column-wise (``reference.spec.row_tracking`` rules 2-4), as inserts in row id order.
    Deletion vectors over row id groups are not read yet (refused)."""
    if split.deletion_files:
        raise UnsupportedFeature(f"deletion vectors with '{DATA_EVOLUTION_OPTION}'")
    rows: list[ChangeRow] = []
    for group in compute_row_id_groups(split.files):
        rows.extend(
            (RowKind.INSERT, row)
            for row in read_row_id_group(file_io, split, group, schema, schemas)
        )
    return rows


# --------------------------------------------------------------------------------------------
# Primary-key tables
# --------------------------------------------------------------------------------------------


def read_key_values(
    file_io: FileIO,
    split: DataSplit,
    meta: DataFileMeta,
    schema: TableSchema,
    file_schema: TableSchema,
    *,
    predicate: Predicate | None = None,
) -> list[KeyValue]:
    """The records of one primary-key file in the read schema (rules 1, 2, 4, 6)."""
    fields = compute_file_fields(file_schema)
    value_start = fields.index(VALUE_KIND_FIELD) + 1
    sequence_index = fields.index(SEQUENCE_NUMBER_FIELD)
    kind_index = value_start - 1
    rows = read_live_rows(
        file_io, split, meta, fields, schema=schema, file_schema=file_schema, predicate=predicate
    )
    mapper = compute_value_mapper(file_schema.fields, schema.fields)
    key_indexes = compute_key_indexes(schema)
    records = []
    for row in rows:
        value = mapper(row[value_start:])
        records.append(
            KeyValue(
                key=tuple(value[i] for i in key_indexes),
                sequence_number=row[sequence_index],
                kind=RowKind.from_byte(row[kind_index]),
                value=value,
                level=meta.level,
            )
        )
    return records


def compute_key_indexes(schema: TableSchema) -> list[int]:
    """Positions of the (trimmed) primary key fields in the table's rows."""
    keys = compute_trimmed_primary_keys(schema.primary_keys, schema.partition_keys)
    return [schema.logical_row_type.field_index(k) for k in keys]


def compute_key_types(schema: TableSchema) -> list[t.DataType]:
    fields = schema.logical_row_type.fields
    return [fields[i].type for i in compute_key_indexes(schema)]


def group_by_key(
    records: Sequence[KeyValue], key_types: Sequence[t.DataType]
) -> list[list[KeyValue]]:
    """Records sorted by key (Java order), then grouped by equal key; input order is kept
    within a key (stable sort)."""

    def compare_keys(left: KeyValue, right: KeyValue) -> int:
        return compare_rows(key_types, left.key, right.key)

    ordered = sorted(records, key=cmp_to_key(compare_keys))
    groups: list[list[KeyValue]] = []
    for record in ordered:
        if groups and compare_rows(key_types, groups[-1][0].key, record.key) == 0:
            groups[-1].append(record)
        else:
            groups.append([record])
    return groups


def merge_key_values(
    records: Sequence[KeyValue],
    key_types: Sequence[t.DataType],
    setup: MergeSetup,
    *,
    lookup: bool = False,
) -> list[KeyValue]:
    """Rule 4: one merge result per key, retractions included (callers drop them). A key with
    a single record keeps it unchanged (Java ``ReducerMergeFunctionWrapper``); with ``lookup``
    (tables that compact through lookup) only the newest record above level 0 takes part
    (``reference.store.changelog`` rule 2, Java ``LookupMergeFunction``)."""
    results = []
    for group in group_by_key(records, key_types):
        ordered = order_records(group, setup)
        if len(ordered) == 1:
            merged: KeyValue | None = ordered[0]
        elif lookup:
            merged = merge_lookup(ordered, setup)
        else:
            merged = merge(ordered, setup)
        if merged is not None:
            results.append(merged)
    return results


def compute_table_merge_setup(schema: TableSchema) -> MergeSetup:
    return compute_merge_setup(schema.options, schema.logical_row_type, schema.primary_keys)


def is_read_without_merge(schema: TableSchema, split: DataSplit) -> bool:
    """Rule 6: whether Java reads a primary-key split file by file (``DataSplit.rawConvertible``
    with deletion vectors or first-row): every file above level 0 and holding no retraction."""
    return is_level_zero_skipped(schema) and all(
        meta.level > 0 and meta.delete_row_count == 0 for meta in split.files
    )


def read_primary_key_split(
    file_io: FileIO,
    split: DataSplit,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    predicate: Predicate | None = None,
) -> list[ChangeRow]:
    """Rules 4 and 6: the merged rows of one bucket; each keeps the kind of its winning
    record. ``predicate`` narrows the read only where rule 6 allows."""
    index_predicate = predicate if is_read_without_merge(schema, split) else None
    records: list[KeyValue] = []
    for meta in sorted(split.files, key=lambda m: m.min_sequence_number):
        file_schema = schemas[meta.schema_id]
        records.extend(
            read_key_values(file_io, split, meta, schema, file_schema, predicate=index_predicate)
        )
    lookup = is_lookup_merge(compute_lookup_strategy(schema))
    merged = merge_key_values(
        records, compute_key_types(schema), compute_table_merge_setup(schema), lookup=lookup
    )
    return [(kv.kind, kv.value) for kv in merged if kv.kind.is_add]


# --------------------------------------------------------------------------------------------
# Default values (rule 7)
# --------------------------------------------------------------------------------------------


def compute_read_defaults(schema: TableSchema) -> tuple[Value, ...] | None:
    """The default of each field of ``schema`` (``None`` where it has none), or ``None`` when
    no field has one."""
    defaults = compute_default_values(schema.options, schema.logical_row_type)
    return defaults if any(d is not None for d in defaults) else None


def compute_defaulted_fields(
    schema: TableSchema, defaults: Sequence[Value] | None
) -> frozenset[str]:
    """The names of the fields that have a default value."""
    if defaults is None:
        return frozenset()
    return frozenset(f.name for f, d in zip(schema.fields, defaults, strict=True) if d is not None)


def compute_pruning_predicate(predicate: Predicate | None, schema: TableSchema) -> Predicate | None:
    """The part of ``predicate`` that may prune files and rows: without the conjuncts on
    fields that have a default value."""
    defaulted = compute_defaulted_fields(schema, compute_read_defaults(schema))
    return compute_predicate_without_fields(predicate, defaulted)


def apply_read_defaults(rows: list[ChangeRow], defaults: Sequence[Value] | None) -> list[ChangeRow]:
    """Rule 7 on read rows."""
    if defaults is None:
        return rows
    return [(kind, apply_default_values(row, defaults)) for kind, row in rows]


def apply_record_defaults(
    records: list[KeyValue], defaults: Sequence[Value] | None
) -> list[KeyValue]:
    """Rule 7 on change records (incremental and streaming reads keep sequence numbers)."""
    if defaults is None:
        return records
    return [replace(r, value=apply_default_values(r.value, defaults)) for r in records]


# --------------------------------------------------------------------------------------------
# Whole reads
# --------------------------------------------------------------------------------------------


def read_split(
    file_io: FileIO,
    split: DataSplit,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    *,
    predicate: Predicate | None = None,
) -> list[ChangeRow]:
    """The rows of one split under ``schema`` (all fields). ``predicate`` lets file indexes
    narrow the read (rule 6); it does not filter: the caller applies it (rule 5)."""
    defaults = compute_read_defaults(schema)
    narrowing = compute_predicate_without_fields(
        predicate, compute_defaulted_fields(schema, defaults)
    )
    if schema.is_primary_key_table:
        rows = read_primary_key_split(file_io, split, schema, schemas, narrowing)
    else:
        rows = read_append_split(file_io, split, schema, schemas, narrowing)
    return apply_read_defaults(rows, defaults)


@dataclass(frozen=True)
class Projection:
    """Field names to return, in order; ``None`` returns every field."""

    names: tuple[str, ...] | None = None


def apply_filter_and_projection(
    rows: Sequence[ChangeRow],
    schema: TableSchema,
    predicate: Predicate | None,
    projection: Sequence[str] | None,
) -> list[ChangeRow]:
    """Rule 5."""
    names = schema.field_names
    types = {f.name: f.type for f in schema.fields}
    kept = [
        (kind, row)
        for kind, row in rows
        if predicate is None
        or is_row_matching(predicate, dict(zip(names, row, strict=True)), types)
    ]
    if projection is None:
        return kept
    indexes = [names.index(name) for name in projection]
    return [(kind, tuple(row[i] for i in indexes)) for kind, row in kept]
