"""The hybrid read: splits that need no merge through Spark's own Parquet/ORC reader, the rest
through spark_impl's vectorized Python merge, one DataFrame.

Usage::

    import spark_impl
    df = spark_impl.read_table(spark, "/warehouse/db.db/t")             # latest snapshot
    df = spark_impl.read_table(spark, "/warehouse/db.db/t", **{"snapshot-id": "3"})

Rules of :func:`read_table`:

1. Plan the snapshot with :func:`spark_impl.plan.plan_read` (no pruning predicate: the plan is a
   function of the table and the options, so no query's filter can leak into another one).
2. Sort the splits (Java ``DataSplit.rawConvertible`` / ``convertToRawFiles``, set by
   ``MergeTreeSplitGenerator`` / ``SnapshotReaderImpl``): a split is *raw convertible* when
   reading its files one by one gives the merged answer: every split of an append table; a
   primary-key split with no level-0 file whose files are all on one level (one sorted run,
   e.g. after a full compaction), or whose table has deletion vectors or the first-row engine
   (the planner already left level 0 out of those). spark_impl goes further than Java only in
   one direction: records retracting a row (``_VALUE_KIND`` ``-U`` / ``-D``, which Java's rule
   excludes through ``deleteRowCount``) are filtered out in the JVM, which is what the
   deduplicate and first-row merges make of a key's only record; partial-update and
   aggregation splits therefore always merge in Python. *The retract rule*
   (:func:`may_retract`): that filter, and the ``_VALUE_KIND`` column, are only in the scans of
   primary-key files whose ``delete_row_count`` is unknown (None, older writers) or positive;
   a file with ``delete_row_count == 0`` holds only ``+I`` / ``+U`` records (Java
   ``MergeTreeSplitGenerator.withoutDeleteRow``; the reference's, spark_impl's and Java's
   writers count every retract record they write), which is every file of a deletion-vector
   table above level 0 and every fully compacted file.
3. A raw-convertible split goes native only when Spark reads each of its files exactly as
   Java does (:func:`is_file_native`): a local Parquet or ORC file whose columns have types
   Spark decodes identically (no nested types, timestamps of precision <= 6 and none in ORC),
   whose schema evolution is a rename, an added column or a cast Spark computes as Java does
   (integer widening, integer or float to double), and, with a deletion vector, Parquet (Spark
   exposes ``_metadata.row_index`` for Parquet only). Tables with ``fields.<f>.default-value``,
   data evolution (row tracking) or a non-local root read everything through Python.
4. Native files are read by :func:`plan_native_scans`' scans, each one
   ``spark.read.schema(<file schema>).parquet/orc(<files>)`` of one (file schema, format,
   retract rule), so Catalyst prunes columns and pushes filters into row groups; a projection
   maps file columns to the read schema by field id (Java ``SchemaEvolutionUtil``): renamed
   columns aliased, added columns null, casts; the key and ``_SEQUENCE_NUMBER`` columns are
   never selected.
5. Deletion vectors are applied in the scan itself (Java ``ApplyDeletionVectorReader``): each
   file's vector, decoded on the driver, becomes a flat bitmap of 64-bit words; files with a
   vector are read by scans of their own, at most :data:`MAX_VECTORS_PER_SCAN` files each,
   whose condition looks the row's bitmap up by ``_metadata.file_name`` in one constant
   ``MAP<STRING, ARRAY<BIGINT>>`` and tests the bit of ``_metadata.row_index``
   (:func:`is_kept_row`): no join, no broadcast, and files without a vector pay nothing.
   A vector deleting no row is ignored; a file whose vector deletes every row is not read.
   A file with a vector must hold its meta's ``row_count`` rows (:func:`check_row_count`,
   one footer read on the driver): a longer or shorter file is refused, never read with its
   vector shifted or cut.
6. The other splits are read by :func:`spark_impl.read.read_split` in ``mapInArrow`` tasks, one
   task per split, and the two parts are unioned.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from reference import layout
from reference.errors import SpecViolation, naming_file
from reference.io import LOCAL_SCHEMES, file_io_for, local_os_path, split_scheme
from reference.spec import types as t
from reference.spec.data import RowKind
from reference.spec.data_file import VALUE_KIND_FIELD
from reference.spec.default_values import compute_default_values
from reference.spec.options import MergeEngine
from reference.spec.row_tracking import is_data_evolution_enabled
from reference.spec.schema import TableSchema, decode_schema
from spark_impl.fallback import plan_with_fallback
from spark_impl.local_read import read_plan_locally
from spark_impl.options import check_option_names, resolve_time_travel
from spark_impl.plan import (
    DataFileRef,
    ReadPlan,
    Split,
    TimeTravel,
    plan_read,
    resolve_read_schema,
)
from spark_impl.read import IndexFileCache, read_deleted_positions, read_split
from spark_impl.read_files import is_arrow_cast_exact
from spark_impl.read_filters import FilterTuple, check_filter, to_condition, to_read_predicate
from spark_impl.spark_types import to_spark_arrow_schema, to_spark_batch, to_spark_schema

NATIVE_FORMATS = frozenset({"parquet", "orc"})
"""Formats Spark reads itself (Avro and text go through Python)."""
ROW_INDEX_FORMATS = frozenset({"parquet"})
"""Formats whose Spark reader exposes ``_metadata.row_index`` (deletion vectors natively)."""
MAX_NATIVE_TIMESTAMP_PRECISION = 6
"""Spark timestamps are microseconds; Paimon writes precision 7-9 in another encoding."""
NATIVE_ROOTS = (
    t.NUMERIC_ROOTS
    | t.CHARACTER_ROOTS
    | t.BINARY_ROOTS
    | t.TIMESTAMP_ROOTS
    | {t.TypeRoot.BOOLEAN, t.TypeRoot.DATE}
)
"""Types Spark's Parquet and ORC readers decode exactly as Java Paimon writes them."""
ADD_KINDS = (RowKind.INSERT.byte_value, RowKind.UPDATE_AFTER.byte_value)
WORD_SHIFT = 6
WORD_BITS = 1 << WORD_SHIFT
"""Deletion bitmaps are tested per 64-bit word (a Spark BIGINT)."""
BITMAPS_TYPE = "map<string, array<bigint>>"
"""A scan's deletion bitmaps: file name to the file's words."""
MAX_VECTORS_PER_SCAN = 8
"""Files with a vector per scan: a row finds its bitmap by comparing its file name with each
key of the scan's map, so the cost per row grows with this number."""


# --------------------------------------------------------------------------------------------
# Sorting splits (rules 2 and 3)
# --------------------------------------------------------------------------------------------


def is_raw_convertible(split: Split, schema: TableSchema) -> bool:
    """Rule 2: whether the split's files, read one by one, are already the merged answer
    (Java ``MergeTreeSplitGenerator`` / ``DataSplit.rawConvertible``)."""
    if not schema.primary_keys:
        return True
    engine = schema.core_options.merge_engine
    if engine not in (MergeEngine.DEDUPLICATE, MergeEngine.FIRST_ROW):
        return False
    if any(f.level == 0 for f in split.files):
        return False
    if schema.core_options.deletion_vectors_enabled or engine is MergeEngine.FIRST_ROW:
        return True
    return len({f.level for f in split.files}) == 1


def is_type_native(data_type: t.DataType, file_format: str) -> bool:
    """Rule 3: a column type Spark's reader of ``file_format`` decodes as Java writes it."""
    if data_type.root not in NATIVE_ROOTS:
        return False
    if data_type.root in t.TIMESTAMP_ROOTS:
        precision = getattr(data_type, "precision", MAX_NATIVE_TIMESTAMP_PRECISION + 1)
        return file_format == "parquet" and precision <= MAX_NATIVE_TIMESTAMP_PRECISION
    return True


def is_evolution_native(file_field: t.DataField, read_field: t.DataField) -> bool:
    """Rule 3: a file column becomes its read column with a rename or a cast Spark computes
    as Java's ``CastExecutors`` do (integer widening, integer/float to double, to STRING)."""
    if file_field.type.copy(True) == read_field.type.copy(True):
        return True
    if isinstance(read_field.type, t.VarCharType):
        return False  # Spark does not cut a string to VARCHAR(n); CHAR pads: Python's rule
    return is_arrow_cast_exact(file_field.type, read_field.type)


def is_file_native(ref: DataFileRef, schema: TableSchema, file_schema: TableSchema) -> bool:
    """Rule 3 for one file (see the module docstring)."""
    scheme, _ = split_scheme(ref.path)
    if scheme not in LOCAL_SCHEMES:
        return False
    file_format = layout.data_file_format(ref.path.rsplit("/", 1)[-1])
    if file_format not in NATIVE_FORMATS:
        return False
    if ref.deletion is not None and file_format not in ROW_INDEX_FORMATS:
        return False
    by_id = {f.id: f for f in file_schema.fields}
    for read_field in schema.fields:
        file_field = by_id.get(read_field.id)
        if not is_type_native(read_field.type, file_format):
            return False
        if file_field is not None and not (
            is_type_native(file_field.type, file_format)
            and is_evolution_native(file_field, read_field)
        ):
            return False
    return True


def is_table_native(plan: ReadPlan, schema: TableSchema) -> bool:
    """Tables read wholly through Python: a non-local root, data evolution, default values."""
    scheme, _ = split_scheme(plan.table_root)
    if scheme not in LOCAL_SCHEMES or is_data_evolution_enabled(schema.options):
        return False
    defaults = compute_default_values(schema.options, schema.logical_row_type)
    return all(value is None for value in defaults)


@dataclass(frozen=True)
class SortedSplits:
    """A plan's splits sorted by the way they are read."""

    native: tuple[Split, ...]
    merge: tuple[Split, ...]


def sort_splits(plan: ReadPlan) -> SortedSplits:
    """Rules 2 and 3 over a plan: native splits (every file readable by Spark) and the rest."""
    schema = plan.schema
    if not is_table_native(plan, schema):
        return SortedSplits((), plan.splits)
    file_schemas = {i: decode_schema(j) for i, j in plan.file_schema_jsons.items()}
    native: list[Split] = []
    merge: list[Split] = []
    for split in plan.splits:
        if is_raw_convertible(split, schema) and all(
            is_file_native(f, schema, file_schemas[f.schema_id]) for f in split.files
        ):
            native.append(split)
        else:
            merge.append(split)
    return SortedSplits(tuple(native), tuple(merge))


# --------------------------------------------------------------------------------------------
# The native part (rules 4 and 5)
# --------------------------------------------------------------------------------------------


def project_to_read_schema(df: Any, file_schema: TableSchema, schema: TableSchema) -> Any:
    """Rule 4: file columns as read columns by field id (renames, added nulls, casts)."""
    from pyspark.sql import functions as F  # noqa: PLC0415 (pyspark is optional)

    from spark_impl.spark_types import to_spark_type  # noqa: PLC0415

    by_id = {f.id: f for f in file_schema.fields}
    columns = []
    for read_field in schema.fields:
        spark_type = to_spark_type(read_field.type)
        file_field = by_id.get(read_field.id)
        if file_field is None:
            column = F.lit(None).cast(spark_type)
        else:
            column = F.col(f"`{file_field.name}`")
            if file_field.type.copy(True) != read_field.type.copy(True):
                column = column.cast(spark_type)
        columns.append(column.alias(read_field.name))
    return df.select(*columns)


def may_retract(ref: DataFileRef, schema: TableSchema) -> bool:
    """The retract rule: whether a file may hold ``-U`` / ``-D`` records, so that its scan
    filters on ``_VALUE_KIND``: a primary-key file whose ``delete_row_count`` is unknown
    (None: older writers) or positive (Java ``MergeTreeSplitGenerator.withoutDeleteRow``;
    every writer here counts the retract records it writes)."""
    if not schema.primary_keys:
        return False
    return ref.delete_row_count is None or ref.delete_row_count > 0


def compute_deleted_words(positions: np.ndarray, row_count: int) -> np.ndarray:
    """Rule 5: a file's deleted positions as a bitmap of 64-bit words, position ``p`` being bit
    ``p % 64`` of word ``p // 64`` (Java ``BitmapDeletionVector.isDeleted`` over a roaring
    bitmap; here flat, so the JVM tests a row with one array read and a shift)."""
    size = max(row_count, int(positions.max()) + 1 if positions.size else 0)
    marks = np.zeros(-(-size // WORD_BITS) * WORD_BITS, dtype=bool)
    marks[positions] = True
    return np.packbits(marks, bitorder="little").view("<i8").astype(np.int64)


def check_row_count(ref: DataFileRef) -> None:
    """Rule 5: a Parquet file with a vector holds exactly its meta's ``row_count`` rows (its
    footer says so), else :class:`~reference.errors.SpecViolation` ``FILE_META_INVALID``
    naming the file: the vector's positions count the file's rows (Java
    ``ApplyDeletionVectorReader``), and the bitmap covers ``row_count`` rows, so a longer file
    would have rows kept or dropped by a bit no vector set (the reference's check of a
    file's rows against its meta, ``reference.store.read``). One footer read per file with
    a vector, on the driver."""
    import pyarrow.parquet as pq  # noqa: PLC0415 (one footer, only for files with a vector)

    with naming_file(ref.path):
        rows = pq.read_metadata(local_os_path(ref.path)).num_rows
    if rows != ref.row_count:
        raise SpecViolation(
            f"{rows} rows, its data file meta says {ref.row_count} (its deletion vector "
            "counts positions in the file)",
            path=ref.path,
            code="FILE_META_INVALID",
        )


def is_every_row_deleted(positions: np.ndarray, row_count: int) -> bool:
    """Rule 5: whether ascending, distinct ``positions`` cover rows ``0 .. row_count - 1``."""
    return int(np.searchsorted(positions, row_count)) >= row_count


@dataclass
class NativeScan:
    """Rule 4: the files one Spark scan reads: one file schema and format, whether they may
    hold retract records, and the deletion bitmaps of those with a vector, by file name."""

    schema_id: int
    file_format: str
    retracts: bool
    paths: list[str] = field(default_factory=list)
    bitmaps: dict[str, np.ndarray] = field(default_factory=dict)

    def accepts_vector(self, name: str) -> bool:
        return len(self.bitmaps) < MAX_VECTORS_PER_SCAN and name not in self.bitmaps


def plan_native_scans(
    refs: Sequence[DataFileRef], schema: TableSchema, options: Mapping[str, str]
) -> list[NativeScan]:
    """Rules 4 and 5: the scans of the native files. Files with no vector (or one deleting
    nothing) share one scan per (file schema, format, retract rule); files with a vector go to
    scans of at most :data:`MAX_VECTORS_PER_SCAN` of them, with distinct file names; a file
    whose vector deletes every row is not read."""
    plain: dict[tuple[int, str, bool], NativeScan] = {}
    vectored: dict[tuple[int, str, bool], list[NativeScan]] = {}
    cache: IndexFileCache = {}
    for ref in refs:
        name = ref.path.rsplit("/", 1)[-1]
        key = (ref.schema_id, layout.data_file_format(name), may_retract(ref, schema))
        positions = np.zeros(0, dtype=np.int64)
        if ref.deletion is not None:
            file_io = file_io_for(ref.deletion.path, options)
            positions = read_deleted_positions(file_io, ref.deletion, cache)
        if positions.size == 0:
            plain.setdefault(key, NativeScan(*key)).paths.append(ref.path)
            continue
        check_row_count(ref)
        if not is_every_row_deleted(positions, ref.row_count):
            scans = vectored.setdefault(key, [])
            if not scans or not scans[-1].accepts_vector(name):
                scans.append(NativeScan(*key))
            scans[-1].paths.append(ref.path)
            scans[-1].bitmaps[name] = compute_deleted_words(positions, ref.row_count)
    return [*plain.values(), *(scan for scans in vectored.values() for scan in scans)]


def bitmaps_literal(bitmaps: Mapping[str, np.ndarray]) -> Any:
    """Rule 5: the bitmaps as one ``MAP<STRING, ARRAY<BIGINT>>`` constant: ``from_json`` of a
    JSON text, which the optimizer folds into a literal (the generated code refers to it as
    one object, whatever its size) instead of one expression per word."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    text = json.dumps({name: words.tolist() for name, words in bitmaps.items()})
    return F.from_json(F.lit(text), BITMAPS_TYPE)


def is_kept_row(bitmaps: Mapping[str, np.ndarray]) -> Any:
    """Rule 5: whether the row's bit (``_metadata.row_index``) is clear in its file's bitmap,
    found by ``_metadata.file_name``: a Spark condition, so the scan's own generated code
    drops deleted rows (no join, no shuffle, no broadcast). The bitmap covers the file's
    ``row_count`` rows, which :func:`check_row_count` has checked against the footer."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    row_index = F.col("_metadata.row_index")
    words = F.element_at(bitmaps_literal(bitmaps), F.col("_metadata.file_name"))
    word = F.element_at(words, (F.shiftright(row_index, WORD_SHIFT) + 1).cast("int"))
    shifted = F.call_function("shiftright", word, (row_index % WORD_BITS).cast("int"))
    return shifted.bitwiseAND(F.lit(1)) == 0


def read_native_scan(spark: Any, scan: NativeScan, plan: ReadPlan) -> Any:
    """Rules 4 and 5 for one scan: Spark's reader with the file schema given (no footer
    inference), the retract and deletion conditions, the projection to the read schema."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    file_schema = decode_schema(plan.file_schema_jsons[scan.schema_id])
    fields = list(file_schema.fields)
    if scan.retracts:
        fields.append(VALUE_KIND_FIELD)
    reader = spark.read.schema(to_spark_schema(fields)).format(scan.file_format)
    df = reader.load(list(scan.paths))
    if scan.retracts:
        df = df.where(F.col(VALUE_KIND_FIELD.name).isin(*ADD_KINDS))
    if scan.bitmaps:
        df = df.where(is_kept_row(scan.bitmaps))
    return project_to_read_schema(df, file_schema, plan.schema)


def read_native_splits(
    spark: Any, plan: ReadPlan, splits: Sequence[Split], options: Mapping[str, str]
) -> Any | None:
    """Rules 4 and 5: the native splits' rows, or ``None`` when there are none."""
    refs = [ref for split in splits for ref in split.files]
    scans = plan_native_scans(refs, plan.schema, options)
    return union_all([read_native_scan(spark, scan, plan) for scan in scans])


def union_all(frames: Sequence[Any]) -> Any | None:
    if not frames:
        return None
    result = frames[0]
    for frame in frames[1:]:
        result = result.union(frame)
    return result


# --------------------------------------------------------------------------------------------
# The Python part (rule 6) and the whole
# --------------------------------------------------------------------------------------------


def read_merge_splits(
    spark: Any, plan: ReadPlan, splits: Sequence[Split], options: Mapping[str, str]
) -> Any:
    """Rule 6: the splits that need Python, one ``mapInArrow`` task each."""
    spark_schema = to_spark_schema(plan.schema.fields)
    arrow_schema = to_spark_arrow_schema(spark_schema)
    schema_json, file_jsons, root = plan.schema_json, dict(plan.file_schema_jsons), plan.table_root
    payload = tuple(splits)
    root_options = dict(options)

    def read(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        schema = decode_schema(schema_json)
        file_schemas = {i: decode_schema(j) for i, j in file_jsons.items()}
        file_io = file_io_for(root, root_options)
        for batch in batches:
            for index in batch.column(0).to_pylist():
                table = read_split(file_io, payload[index], schema, file_schemas)
                yield from to_spark_batch(table, arrow_schema).to_batches()

    return spark.range(len(payload), numPartitions=max(1, len(payload))).mapInArrow(
        read, spark_schema
    )


def parse_travel(options: Mapping[str, str]) -> TimeTravel:
    """The snapshot the read selects, as ``spark.read.format("paimon")`` takes it
    (:func:`spark_impl.options.resolve_time_travel`: Paimon's ``scan.*`` keys,
    ``versionAsOf`` / ``timestampAsOf``, the short keys); unknown keys are refused with the
    nearest known ones named."""
    check_option_names(options)
    choice = resolve_time_travel(options)
    return TimeTravel(choice.snapshot_id, choice.tag_name, choice.timestamp_millis)


def read_plan(spark: Any, plan: ReadPlan, options: Mapping[str, str]) -> Any:
    """One plan's splits (rules 2-6): Spark's reader for the native ones, Python for the rest."""
    sorted_splits = sort_splits(plan)
    native = read_native_splits(spark, plan, sorted_splits.native, options)
    if native is None or sorted_splits.merge:
        merged = read_merge_splits(spark, plan, sorted_splits.merge, options)
        native = merged if native is None else native.union(merged)
    return native


def read_table(spark: Any, path: str, filters: Sequence[FilterTuple] = (), **options: str) -> Any:
    """The table at ``path`` as one DataFrame (rules 1-6); ``options`` are those of
    ``spark.read.format("paimon")`` (time travel, S3 settings). ``filters`` belong to this
    DataFrame: they prune the plan and Spark applies them (:mod:`spark_impl.read_filters`).
    With ``scan.fallback-branch`` the partitions main lacks come from the fallback branch's plan
    (:func:`spark_impl.fallback.plan_with_fallback`), read the same way and unioned."""
    root = path.rstrip("/")
    file_io = file_io_for(root, options)
    travel = parse_travel(options)
    predicate = None
    resolved = resolve_read_schema(file_io, root, travel or TimeTravel())
    if filters:
        types = {f.name: f.type for f in decode_schema(resolved[1]).fields}
        filters = [check_filter(item, types) for item in filters]
        predicate = to_read_predicate(filters, types)
    main = plan_read(file_io, root, travel, predicate=predicate, resolved=resolved)
    frames = []
    for plan in plan_with_fallback(file_io, root, travel, main):
        local = read_plan_locally(spark, plan, options)  # spark_impl.local_read
        frames.append(read_plan(spark, plan, options) if local is None else local)
    frame = union_all(frames)
    return frame.where(to_condition(filters)) if filters and frame is not None else frame
