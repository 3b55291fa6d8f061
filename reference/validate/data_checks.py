"""Checks of the rows inside each live data file (``paimon-kit validate --deep``).

Spec: ``docs/concepts/spec/datafile.md``, ``manifest.md`` ("Data Manifest", "SimpleStats"),
``fileindex.mdx``, ``tableindex.md``. Java: ``KeyValue``, ``io/KeyValueDataFileWriter``,
``io/DataFileMeta``, ``mergetree/MergeTreeWriter``, ``table/sink/KeyAndBucketExtractor``,
``index/HashBucketAssigner``, ``types/RowKind``.

Rules checked here, on the file's own schema (its ``_SCHEMA_ID``):

1. Primary-key files: keys (the ``_KEY_`` columns, or the key value columns in thin mode)
   strictly ascend in Java key order (a writer merges equal keys before it writes); the first
   key is ``_MIN_KEY`` and the last is at most ``_MAX_KEY`` (not checked in the postpone
   bucket of Paimon 1.1+, whose files keep arrival order until compaction). Each ``_KEY_<k>``
   equals value column ``<k>``; every ``_SEQUENCE_NUMBER`` lies in the recorded range; every
   ``_VALUE_KIND`` is a row kind (0..3) and the -U/-D records number ``_DELETE_ROW_COUNT``
   (when recorded).

   ``_MAX_KEY`` is only a bound, not the last key, because Java writes it so and readers
   accept it: in 0.9.0 up to 1.2, ``io/KeyValueDataFileWriter`` copies the first key but keeps
   a mere reference to the last written one (``maxKey = kv.key()``), and the merge reader
   reuses that key object for the records it reads next. A compaction that writes key 1 and
   then reads and drops the retraction of key 2 records ``_MAX_KEY`` 2 over a file whose last
   key is 1 (the golden table ``changelog_input``, written by Java 0.9.0). Java 1.3.0 copies
   the key (apache/paimon#5849). Readers only use the range to skip files and order runs, for
   which a wider range is safe, so a looser ``_MAX_KEY`` is tolerated and not reported; a
   ``_MAX_KEY`` below the last key is reported (``KEY_RANGE_MISMATCH``).
2. Key and value statistics are true of the rows (see ``reference.validate.stats_checks``).
3. Every row's partition columns hold the entry's partition.
4. Fixed-bucket tables: every row's bucket key (``bucket-key``, else the trimmed primary key)
   lands in the file's bucket under ``_TOTAL_BUCKETS`` buckets.
5. The file index agrees with the rows (``reference.validate.index_checks`` rule 5).

For dynamic-bucket primary-key tables it also returns the hashes of the file's keys, which the
caller checks against the bucket's HASH index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from reference.errors import UnsupportedFeature
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.bucket import (
    BUCKET_FUNCTION_TYPE_OPTION,
    POSTPONE_BUCKET,
    compute_dynamic_bucket_key_hash,
    compute_fixed_bucket,
    parse_bucket_function_type,
)
from reference.spec.compare import compare_rows, compare_values
from reference.spec.data import Row, RowKind, Value
from reference.spec.data_file import (
    KEY_FIELD_PREFIX,
    SEQUENCE_NUMBER_FIELD,
    VALUE_KIND_FIELD,
    DataFileMeta,
)
from reference.spec.options import BucketFunctionType
from reference.spec.row_tracking import compute_written_fields
from reference.spec.schema import TableSchema
from reference.store.read import compute_file_fields, read_file_rows
from reference.store.scan import compute_stats_fields
from reference.validate import report as r
from reference.validate.guard import run_check, run_read
from reference.validate.index_checks import ColumnIndexBody, find_index_disagreements
from reference.validate.manifest_checks import LiveFile
from reference.validate.stats_checks import find_stats_disagreements

RETRACT_KINDS = frozenset({RowKind.UPDATE_BEFORE.byte_value, RowKind.DELETE.byte_value})
VALID_KINDS = frozenset(kind.byte_value for kind in RowKind)
MAX_EXAMPLES = 3


@dataclass(frozen=True)
class FileColumns:
    """The decoded rows of a data file as columns by physical name, and its key rows."""

    names: tuple[str, ...]
    columns: tuple[tuple[Value, ...], ...]
    keys: tuple[Row, ...]

    def column(self, name: str) -> tuple[Value, ...]:
        return self.columns[self.names.index(name)]


def compute_key_names(file_schema: TableSchema) -> list[str]:
    """The physical columns holding the key: ``_KEY_<k>``, or the value columns in thin mode."""
    keys = list(file_schema.trimmed_primary_keys)
    names = [f.name for f in compute_file_fields(file_schema)]
    prefixed = [KEY_FIELD_PREFIX + k for k in keys]
    return prefixed if all(p in names for p in prefixed) else keys


def read_file_columns(
    file_io: FileIO, live_file: LiveFile, file_schema: TableSchema
) -> FileColumns:
    fields = compute_file_fields(file_schema)
    if not file_schema.is_primary_key_table:  # 1.x: the columns the file holds
        fields = compute_written_fields(live_file.entry.file, fields)
    rows = read_file_rows(file_io, live_file.path, fields)
    names = tuple(f.name for f in fields)
    columns = tuple(zip(*rows, strict=True)) if rows else tuple(() for _ in names)
    key_indexes = (
        [names.index(n) for n in compute_key_names(file_schema)]
        if file_schema.is_primary_key_table
        else []
    )
    keys = tuple(tuple(row[i] for i in key_indexes) for row in rows)
    return FileColumns(names, columns, keys)


def _examples(items: Sequence[object]) -> str:
    shown = ", ".join(repr(i) for i in items[:MAX_EXAMPLES])
    return shown + (", …" if len(items) > MAX_EXAMPLES else "")


# --------------------------------------------------------------------------------------------
# Rule 1: primary-key files
# --------------------------------------------------------------------------------------------


def find_unsorted_keys(keys: Sequence[Row], key_types: Sequence[t.DataType]) -> list[int]:
    """Positions whose key is not above the key before it."""
    return [i for i in range(1, len(keys)) if compare_rows(key_types, keys[i - 1], keys[i]) >= 0]


def check_key_order(
    data: FileColumns, meta: DataFileMeta, file_schema: TableSchema
) -> list[tuple[r.Rule, str]]:
    key_types = [f.type for f in file_schema.trimmed_primary_keys_type.fields]
    found: list[tuple[r.Rule, str]] = []
    unsorted = find_unsorted_keys(data.keys, key_types)
    if unsorted:
        found.append(
            (
                r.Rule.KEYS_UNSORTED,
                f"{len(unsorted)} key(s) not above the previous one, at rows {_examples(unsorted)}",
            )
        )
    if data.keys:
        min_key = deserialize_binary_row(meta.min_key, key_types)
        max_key = deserialize_binary_row(meta.max_key, key_types)
        if compare_rows(key_types, min_key, data.keys[0]) != 0:
            found.append(
                (r.Rule.KEY_RANGE_MISMATCH, f"_MIN_KEY {min_key}, first key {data.keys[0]}")
            )
        if compare_rows(key_types, max_key, data.keys[-1]) < 0:
            found.append(
                (r.Rule.KEY_RANGE_MISMATCH, f"_MAX_KEY {max_key}, last key {data.keys[-1]}")
            )
    return found


def check_key_copies(data: FileColumns, file_schema: TableSchema) -> list[tuple[r.Rule, str]]:
    found: list[tuple[r.Rule, str]] = []
    for data_field in file_schema.trimmed_primary_keys_type.fields:
        copy = KEY_FIELD_PREFIX + data_field.name
        if copy not in data.names:
            continue
        differing = [
            i
            for i, (a, b) in enumerate(
                zip(data.column(copy), data.column(data_field.name), strict=True)
            )
            if compare_values(data_field.type, a, b) != 0
        ]
        if differing:
            found.append(
                (
                    r.Rule.KEY_VALUE_MISMATCH,
                    f"{copy} differs from {data_field.name} at rows {_examples(differing)}",
                )
            )
    return found


def check_system_columns(data: FileColumns, meta: DataFileMeta) -> list[tuple[r.Rule, str]]:
    found: list[tuple[r.Rule, str]] = []
    sequences = data.column(SEQUENCE_NUMBER_FIELD.name)
    outside = [
        s for s in sequences if not meta.min_sequence_number <= s <= meta.max_sequence_number
    ]
    if outside:
        found.append(
            (
                r.Rule.SEQUENCE_OUT_OF_RANGE,
                f"{len(outside)} sequence number(s) outside [{meta.min_sequence_number}, "
                f"{meta.max_sequence_number}], e.g. {_examples(outside)}",
            )
        )
    kinds = data.column(VALUE_KIND_FIELD.name)
    invalid = [k for k in kinds if k not in VALID_KINDS]
    if invalid:
        found.append((r.Rule.VALUE_KIND_INVALID, f"_VALUE_KIND values {_examples(invalid)}"))
    retracts = sum(k in RETRACT_KINDS for k in kinds)
    if meta.delete_row_count is not None and meta.delete_row_count != retracts:
        found.append(
            (
                r.Rule.DELETE_ROW_COUNT_MISMATCH,
                f"_DELETE_ROW_COUNT {meta.delete_row_count}, the file has {retracts} -U/-D rows",
            )
        )
    return found


# --------------------------------------------------------------------------------------------
# Rules 2-4
# --------------------------------------------------------------------------------------------


def check_stats(
    data: FileColumns, meta: DataFileMeta, file_schema: TableSchema
) -> list[tuple[r.Rule, str]]:
    reasons: list[str] = []
    if file_schema.is_primary_key_table:
        key_fields = list(file_schema.trimmed_primary_keys_type.fields)
        key_columns = [[key[i] for key in data.keys] for i in range(len(key_fields))]
        reasons += [
            f"key stats: {why}"
            for why in find_stats_disagreements(key_fields, key_columns, meta.key_stats)
        ]
    value_fields = compute_stats_fields(file_schema, meta)
    value_columns = [data.column(f.name) for f in value_fields]
    reasons += [
        f"value stats: {why}"
        for why in find_stats_disagreements(value_fields, value_columns, meta.value_stats)
    ]
    return [(r.Rule.STATS_MISMATCH, reason) for reason in reasons]


def check_partition_values(
    data: FileColumns, live_file: LiveFile, partition_fields: Sequence[t.DataField]
) -> list[tuple[r.Rule, str]]:
    found: list[tuple[r.Rule, str]] = []
    for index, data_field in enumerate(partition_fields):
        if data_field.name not in data.names:
            continue
        expected = live_file.partition[index]
        wrong = [
            v
            for v in data.column(data_field.name)
            if compare_values(data_field.type, v, expected) != 0
        ]
        if wrong:
            found.append(
                (
                    r.Rule.PARTITION_VALUE_MISMATCH,
                    f"{len(wrong)} row(s) have {data_field.name} = {_examples(wrong)}, the "
                    f"partition is {expected!r}",
                )
            )
    return found


def compute_bucket_function(file_schema: TableSchema) -> BucketFunctionType:
    return parse_bucket_function_type(
        file_schema.options.get(BUCKET_FUNCTION_TYPE_OPTION, BucketFunctionType.DEFAULT.value)
    )


def check_buckets(
    data: FileColumns, live_file: LiveFile, file_schema: TableSchema
) -> list[tuple[r.Rule, str]]:
    """Rule 4 (fixed buckets only; tables without a bucket key are not checked)."""
    total = live_file.entry.total_buckets
    bucket_fields = list(file_schema.bucket_key_type.fields)
    if total <= 0 or not bucket_fields:
        return []
    function = compute_bucket_function(file_schema)
    types = [f.type for f in bucket_fields]
    columns = [data.column(f.name) for f in bucket_fields]
    wrong: list[tuple[int, int]] = []
    for row, values in enumerate(zip(*columns, strict=True)):
        bucket = compute_fixed_bucket(values, types, total, function)
        if bucket != live_file.entry.bucket:
            wrong.append((row, bucket))
    if not wrong:
        return []
    return [
        (
            r.Rule.BUCKET_KEY_MISMATCH,
            f"{len(wrong)} row(s) belong to other buckets of {total}, e.g. row {wrong[0][0]} "
            f"to bucket {wrong[0][1]}, not {live_file.entry.bucket}",
        )
    ]


def check_file_index_agreement(
    data: FileColumns, bodies: Sequence[ColumnIndexBody], file_schema: TableSchema
) -> list[tuple[r.Rule, str]]:
    types = {f.name: f.type for f in file_schema.fields}
    return [
        (r.Rule.FILE_INDEX_MISMATCH, reason)
        for body in bodies
        if body.column in data.names
        for reason in find_index_disagreements(body, data.column(body.column), types[body.column])
    ]


def compute_key_hashes(data: FileColumns, file_schema: TableSchema) -> set[int]:
    """Hashes of the trimmed primary keys, as a dynamic-bucket HASH index stores them."""
    types = [f.type for f in file_schema.trimmed_primary_keys_type.fields]
    return {compute_dynamic_bucket_key_hash(key, types) for key in data.keys}


def is_dynamic_bucket_table(file_schema: TableSchema) -> bool:
    return (
        file_schema.is_primary_key_table
        and file_schema.num_buckets == -1
        and not file_schema.cross_partition_update
    )


# --------------------------------------------------------------------------------------------
# One file
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeepResult:
    """The findings of one file, and its key hashes (dynamic-bucket tables only)."""

    violations: tuple[r.Violation, ...]
    key_hashes: frozenset[int] | None


def _judge(
    data: FileColumns,
    live_file: LiveFile,
    file_schema: TableSchema,
    partition_fields: Sequence[t.DataField],
    index_bodies: Sequence[ColumnIndexBody],
) -> list[tuple[r.Rule, str]]:
    meta = live_file.entry.file
    found: list[tuple[r.Rule, str]] = []
    if file_schema.is_primary_key_table:
        if live_file.entry.bucket != POSTPONE_BUCKET:
            found += check_key_order(data, meta, file_schema)
        found += check_key_copies(data, file_schema)
        found += check_system_columns(data, meta)
    found += check_stats(data, meta, file_schema)
    found += check_partition_values(data, live_file, partition_fields)
    found += check_buckets(data, live_file, file_schema)
    found += check_file_index_agreement(data, index_bodies, file_schema)
    return found


def check_file_contents(
    file_io: FileIO,
    table_root: str,
    live_file: LiveFile,
    file_schema: TableSchema,
    *,
    partition_fields: Sequence[t.DataField],
    index_bodies: Sequence[ColumnIndexBody],
) -> DeepResult:
    """Rules 1-5 for one data file whose footer already checked out."""
    file = r.relative_file(table_root, live_file.path)
    snapshot_id = live_file.snapshot_id
    data, found = run_read(
        partial(read_file_columns, file_io, live_file, file_schema),
        r.Rule.DATA_FILE_UNREADABLE,
        file,
        snapshot_id,
    )
    if data is None:
        return DeepResult(tuple(found), None)

    def judge() -> list[r.Violation]:
        return [
            r.violation(rule, file, reason, snapshot_id)
            for rule, reason in _judge(data, live_file, file_schema, partition_fields, index_bodies)
        ]

    found += run_check(judge, r.Rule.CHECK_FAILED, file, snapshot_id)
    hashes = None
    if is_dynamic_bucket_table(file_schema):
        try:
            hashes = frozenset(compute_key_hashes(data, file_schema))
        except UnsupportedFeature:
            hashes = None
    return DeepResult(tuple(found), hashes)
