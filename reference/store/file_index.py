"""Data-file indexes end to end: which indexes a table asks for, building a data file's index
from its rows, finding it again, and what it says about a filter.

Spec: ``docs/concepts/spec/fileindex.mdx``; the codecs are ``reference.spec.file_index``.
Java: ``fileindex/FileIndexOptions``, ``io/DataFileIndexWriter``, ``fileindex/FileIndexPredicate``,
``io/FileIndexEvaluator`` (main; 0.9.0 has ``io/FileIndexSkipper``),
``operation/AppendOnlyFileStoreScan.testFileIndex``, ``operation/RawFileSplitRead``.

Rules:

1. *Options.* ``file-index.<type>.columns`` lists (comma-separated, blanks trimmed) the columns
   that get an index of ``<type>``: ``bloom-filter``, ``bitmap`` or ``bsi``.
   ``file-index.<type>.<column>.<option>`` sets one option of one of those indexes; naming a
   column not listed for that type is an error, and a key with another number of dot-separated
   parts after ``file-index.`` is not an index option (``file-index.read.enabled``,
   ``file-index.in-manifest-threshold``). Options: bloom-filter ``items`` (1,000,000) and
   ``fpp`` (0.1); bitmap ``version`` and ``index-block-size`` (16 KiB, version 2 only); bsi none.
   A listed column must exist and its type must suit the index.
2. *Building.* Each requested index is built over the column's value in every row of the data
   file, in file order (nulls included; the codecs decide what a null contributes). The bodies
   go into one container in Java's ``HashMap`` order (see :func:`order_index_requests`). A
   bitmap index is version 1 unless its ``version`` option says 2: Paimon 0.9.0 and 1.0 write
   only version 1 (and read only it), main defaults to 2; the writer follows 0.9.0 like the rest
   of the write path, so its tables stay readable by every Paimon version. A column listed for
   two index types gets both, as in main; Paimon 0.9.0 keeps one per column and silently drops
   the other (its writer keys its index builders by column name alone).
3. *Where the bytes go* (``file_writer`` rule 7): a container of at most
   ``file-index.in-manifest-threshold`` bytes (default 500 B) is embedded in the file's meta
   (``_EMBEDDED_FILE_INDEX``), a larger one is written to ``<data file>.index`` beside the data
   file and its name listed in ``_EXTRA_FILES``. Only append-table files get one: Paimon 0.9.0
   writes no index for primary-key files (main does, over the value columns).
4. *Finding it again:* the embedded bytes, else the one ``_EXTRA_FILES`` name ending in
   ``.index``, a file in the data file's directory. Two such names are an error.
5. *Evaluating a predicate.* The predicate is first moved to the file's schema by field id; a
   top-level conjunct that names a field the file lacks, or whose type changed, is dropped
   (``SchemaEvolutionUtil.devolveFilters``, minus its literal casts: dropping only costs
   pruning). A leaf on a column answers the AND of its column's indexes (``REMAIN`` without
   any); ``AND`` and ``OR`` combine answers as in ``result.py``, ``AND`` stopping at the first
   answer that rules the file out. Per index type the supported leaves are: bloom-filter ``=``
   and ``IN``; bitmap ``=``, ``<>``, ``IN``, ``NOT IN``, ``IS NULL``, ``IS NOT NULL``; bsi those
   and ``<``, ``<=``, ``>``, ``>=``. Every other leaf, and every index type without a codec here
   (``range-bitmap``), answers ``REMAIN``. An index whose writer saw no row answers ``SKIP`` to
   ``=``, ``IN``, ``IS NOT NULL``, ``STARTS_WITH`` and the four comparisons.
6. *Where answers are used* (``file-index.read.enabled``, default true). At plan time only the
   embedded index of an append-table file is consulted (Java reads no ``.index`` file while
   planning); a file it rules out is not planned. At read time both kinds are consulted, for
   files of append tables and for primary-key splits Java reads without merging (see
   ``read.py``): the answer is ANDed with the rows not deleted by the file's deletion vector; a
   file ruled out is not read, and with a row-set answer only those rows are read. The final
   filter stays exact: an index answer only ever narrows what is read. Paimon 0.9.0 skips
   whole files at read time; the row sets are main's (``ApplyBitmapIndexRecordReader``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from reference import layout
from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature, naming_file
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.data import Row, Value
from reference.spec.data_file import DataFileMeta, is_file_index_file_name
from reference.spec.deletion_vector import BitmapKind, DeletionVector
from reference.spec.file_index import bitmap as bm
from reference.spec.file_index import bloom_filter as bf
from reference.spec.file_index import bsi
from reference.spec.file_index.container import (
    BITMAP,
    BLOOM_FILTER,
    BSI,
    ColumnIndex,
    FileIndex,
    compute_java_file_index,
    decode_file_index,
    encode_file_index,
)
from reference.spec.file_index.java_order import compute_hash_map_order, compute_java_string_hash
from reference.spec.file_index.options import (
    BITMAP_BLOCK_SIZE_OPTION,
    BITMAP_VERSION_OPTION,
    BLOOM_FPP_OPTION,
    BLOOM_ITEMS_OPTION,
    BUILT_INDEX_TYPES,
    READ_ENABLED_OPTION,
    WRITER_BITMAP_VERSION,
    collect_index_requests,
    compute_column_key_hash,
    compute_columns_key,
    compute_option_key,
)
from reference.spec.file_index.result import (
    EMPTY_INDEX_SKIPPED_OPS,
    REMAIN,
    SKIP,
    IndexResult,
    and_results,
    is_remain,
    or_results,
    rows_result,
)
from reference.spec.file_index.roaring import MAX_ROW_POSITION, compute_range
from reference.spec.options import JAVA_WHITESPACE, option_value, parse_memory_size
from reference.spec.predicate import And, Leaf, Predicate, PredicateOp, compute_file_predicate
from reference.spec.schema import TableSchema
from reference.store.file_writer import FileIndexBuilder

# --------------------------------------------------------------------------------------------
# Options (rule 1)
# --------------------------------------------------------------------------------------------

OptionValue = TypeVar("OptionValue")


@dataclass(frozen=True)
class IndexRequest:
    """One index a table asks for: its column, type and ``(option, value)`` pairs."""

    column: str
    index_type: str
    options: tuple[tuple[str, str], ...] = ()


def parse_index_requests(options: Mapping[str, str]) -> list[IndexRequest]:
    """Rule 1: every requested index, in the order the options list them."""
    requested = collect_index_requests(options)
    return [
        IndexRequest(column, index_type, tuple(sorted(settings.items())))
        for (column, index_type), settings in requested.items()
    ]


def _parse_option(
    request: IndexRequest, option: str, parse: Callable[[str], OptionValue], default: OptionValue
) -> OptionValue:
    text = dict(request.options).get(option)
    if text is None:
        return default
    try:
        return parse(text.strip(JAVA_WHITESPACE))
    except ValueError as error:
        key = compute_option_key(request.index_type, request.column, option)
        raise InvalidOptionError(key, text, str(error)) from None


def parse_bloom_options(request: IndexRequest) -> tuple[int, float]:
    """``items`` and ``fpp`` of a bloom-filter request, checked for a buildable filter."""
    items = _parse_option(request, BLOOM_ITEMS_OPTION, int, bf.DEFAULT_ITEMS)
    fpp = _parse_option(request, BLOOM_FPP_OPTION, float, bf.DEFAULT_FPP)
    try:
        bf.compute_num_bits(items, fpp)
    except InvalidOptionError as error:
        key = compute_option_key(request.index_type, request.column, error.option)
        raise InvalidOptionError(key, error.value, "no bloom filter has this size") from None
    return items, fpp


def parse_bitmap_options(request: IndexRequest) -> tuple[bm.BitmapVersion, int]:
    """``version`` (rule 2's default) and ``index-block-size`` of a bitmap request."""
    version = _parse_option(request, BITMAP_VERSION_OPTION, int, int(WRITER_BITMAP_VERSION))
    if version not in tuple(bm.BitmapVersion):
        key = compute_option_key(request.index_type, request.column, BITMAP_VERSION_OPTION)
        raise InvalidOptionError(key, str(version), "bitmap index version must be 1 or 2")
    block_size = _parse_option(
        request, BITMAP_BLOCK_SIZE_OPTION, parse_memory_size, bm.DEFAULT_INDEX_BLOCK_SIZE
    )
    return bm.BitmapVersion(version), block_size


def check_index_options(request: IndexRequest) -> None:
    """The request's options parse and fit its index type."""
    if request.index_type == BLOOM_FILTER:
        parse_bloom_options(request)
    elif request.index_type == BITMAP:
        parse_bitmap_options(request)


def check_index_type(index_type: str, data_type: t.DataType) -> None:
    """The codec's type check (:class:`SpecViolation` when it does not suit the index)."""
    if index_type == BLOOM_FILTER:
        bf.check_bloom_filter_type(data_type)
    elif index_type == BITMAP:
        bm.check_bitmap_type(data_type)
    else:
        bsi.check_bsi_type(data_type)


def validate_index_requests(
    requests: Sequence[IndexRequest], fields: Sequence[t.DataField]
) -> None:
    """Rule 1: known index types, existing columns of suitable types."""
    types = {f.name: f.type for f in fields}
    for request in requests:
        key = compute_columns_key(request.index_type)
        if request.index_type not in BUILT_INDEX_TYPES:
            raise UnsupportedFeature(f"writing '{request.index_type}' file indexes ('{key}')")
        if request.column not in types:
            raise InvalidOptionError(key, request.column, "no such column")
        try:
            check_index_type(request.index_type, types[request.column])
        except SpecViolation as error:
            raise InvalidOptionError(key, request.column, error.reason) from None
        check_index_options(request)


def is_file_index_read_enabled(options: Mapping[str, str]) -> bool:
    return bool(option_value(options, READ_ENABLED_OPTION))


# --------------------------------------------------------------------------------------------
# Building (rule 2)
# --------------------------------------------------------------------------------------------


def encode_column_index(
    request: IndexRequest, values: Sequence[Value], data_type: t.DataType
) -> bytes:
    """The body of one index over one column's values (row ``i`` is ``values[i]``)."""
    if request.index_type == BLOOM_FILTER:
        items, fpp = parse_bloom_options(request)
        bloom = bf.build_bloom_filter(values, data_type, items=items, fpp=fpp)
        return bf.encode_bloom_filter(bloom)
    if request.index_type == BITMAP:
        version, block_size = parse_bitmap_options(request)
        index = bm.build_bitmap_index(values, data_type, version=version)
        return bm.encode_bitmap_index(index, data_type, index_block_size=block_size)
    if request.index_type == BSI:
        return bsi.encode_bsi_index(bsi.build_bsi_index(values, data_type))
    raise UnsupportedFeature(f"writing '{request.index_type}' file indexes")


def order_index_requests(requests: Sequence[IndexRequest]) -> list[IndexRequest]:
    """The order in which Java's writer meets the requests.

    ``FileIndexOptions`` keeps them as ``HashMap<Column, HashMap<type, Options>>`` filled with
    ``computeIfAbsent`` while it walks the options, and ``DataFileIndexWriter`` walks that map;
    :func:`compute_java_file_index` then replays the writer's own maps. The walk of the options
    is taken to be their order in ``requests`` (Java walks a ``HashMap`` of the options; the
    difference shows only when two indexed columns share a hash bucket).
    """
    column_calls = [(r.column, compute_column_key_hash(r.column)) for r in requests]
    ordered: list[IndexRequest] = []
    for column in compute_hash_map_order(column_calls, compute_if_absent=True):
        own = [r for r in requests if r.column == column]
        type_calls = [(r.index_type, compute_java_string_hash(r.index_type)) for r in own]
        for index_type in compute_hash_map_order(type_calls, compute_if_absent=True):
            ordered.extend(r for r in own if r.index_type == index_type)
    return ordered


def build_file_index(
    requests: Sequence[IndexRequest], rows: Sequence[Row], fields: Sequence[t.DataField]
) -> bytes | None:
    """Rule 2: the container of a data file's indexes (None when none is requested)."""
    if not requests:
        return None
    positions = {f.name: i for i, f in enumerate(fields)}
    types = {f.name: f.type for f in fields}
    bodies: dict[str, dict[str, bytes | None]] = {}
    for request in order_index_requests(requests):
        values = [row[positions[request.column]] for row in rows]
        body = encode_column_index(request, values, types[request.column])
        bodies.setdefault(request.column, {})[request.index_type] = body
    return encode_file_index(compute_java_file_index(bodies))


def compute_file_index_builder(
    options: Mapping[str, str], table_fields: Sequence[t.DataField]
) -> FileIndexBuilder | None:
    """The writer hook (``file_writer.FileIndexBuilder``) for a table's options, checked
    against its fields; None when the options request no index."""
    requests = parse_index_requests(options)
    if not requests:
        return None
    validate_index_requests(requests, table_fields)

    def build(rows: Sequence[Row], fields: Sequence[t.DataField]) -> bytes | None:
        return build_file_index(requests, rows, fields)

    return build


# --------------------------------------------------------------------------------------------
# Reading back (rule 4)
# --------------------------------------------------------------------------------------------


def find_index_file_name(meta: DataFileMeta) -> str | None:
    """The ``.index`` file named in a file's extra files, if any."""
    names = [name for name in meta.extra_files if is_file_index_file_name(name)]
    if len(names) > 1:
        raise SpecViolation(
            f"data file {meta.file_name} lists more than one index file: {names}",
            code="FILE_INDEX_EXTRA",
        )
    return names[0] if names else None


def compute_index_file_path(data_file_path: str, index_file_name: str) -> str:
    """An index file sits in the directory of its data file."""
    directory = data_file_path.rsplit(layout.SEPARATOR, 1)[0]
    return layout.join(directory, index_file_name)


def read_file_index(file_io: FileIO, data_file_path: str, meta: DataFileMeta) -> FileIndex | None:
    """Rule 4: the decoded index of the data file at ``data_file_path``, or None."""
    if meta.embedded_index is not None:
        with naming_file(data_file_path):
            return decode_file_index(meta.embedded_index)
    name = find_index_file_name(meta)
    if name is None:
        return None
    path = compute_index_file_path(data_file_path, name)
    with naming_file(path):
        return decode_file_index(file_io.read_bytes(path))


# --------------------------------------------------------------------------------------------
# Evaluating (rule 5)
# --------------------------------------------------------------------------------------------


def evaluate_bloom_filter(body: bytes, leaf: Leaf, data_type: t.DataType) -> IndexResult:
    if leaf.op is PredicateOp.EQUAL:
        return bf.query_equal(bf.decode_bloom_filter(body), leaf.literals[0], data_type)
    if leaf.op is PredicateOp.IN:
        return bf.query_in(bf.decode_bloom_filter(body), leaf.literals, data_type)
    return REMAIN


def evaluate_bitmap(body: bytes, leaf: Leaf, data_type: t.DataType) -> IndexResult:
    index = bm.decode_bitmap_index(body, data_type)
    if leaf.op is PredicateOp.EQUAL:
        return bm.query_equal(index, leaf.literals[0], data_type)
    if leaf.op is PredicateOp.NOT_EQUAL:
        return bm.query_not_equal(index, leaf.literals[0], data_type)
    if leaf.op is PredicateOp.IN:
        return bm.query_in(index, leaf.literals, data_type)
    if leaf.op is PredicateOp.NOT_IN:
        return bm.query_not_in(index, leaf.literals, data_type)
    if leaf.op is PredicateOp.IS_NULL:
        return bm.query_is_null(index)
    if leaf.op is PredicateOp.IS_NOT_NULL:
        return bm.query_is_not_null(index)
    return REMAIN


BSI_COMPARISONS = {
    PredicateOp.EQUAL: bsi.query_equal,
    PredicateOp.NOT_EQUAL: bsi.query_not_equal,
    PredicateOp.LESS_THAN: bsi.query_less_than,
    PredicateOp.LESS_OR_EQUAL: bsi.query_less_or_equal,
    PredicateOp.GREATER_THAN: bsi.query_greater_than,
    PredicateOp.GREATER_OR_EQUAL: bsi.query_greater_or_equal,
}


def evaluate_bsi(body: bytes, leaf: Leaf, data_type: t.DataType) -> IndexResult:
    index = bsi.decode_bsi_index(body)
    comparison = BSI_COMPARISONS.get(leaf.op)
    if comparison is not None:
        return comparison(index, leaf.literals[0], data_type)
    if leaf.op is PredicateOp.IN:
        return bsi.query_in(index, leaf.literals, data_type)
    if leaf.op is PredicateOp.NOT_IN:
        return bsi.query_not_in(index, leaf.literals, data_type)
    if leaf.op is PredicateOp.IS_NULL:
        return bsi.query_is_null(index)
    if leaf.op is PredicateOp.IS_NOT_NULL:
        return bsi.query_is_not_null(index)
    return REMAIN


INDEX_EVALUATORS: Mapping[str, Callable[[bytes, Leaf, t.DataType], IndexResult]] = {
    BLOOM_FILTER: evaluate_bloom_filter,
    BITMAP: evaluate_bitmap,
    BSI: evaluate_bsi,
}


def evaluate_column_index(index: ColumnIndex, leaf: Leaf, data_type: t.DataType) -> IndexResult:
    """One index's answer to one leaf on its column."""
    if index.body is None:
        return SKIP if leaf.op in EMPTY_INDEX_SKIPPED_OPS else REMAIN
    evaluator = INDEX_EVALUATORS.get(index.index_type)
    if evaluator is None:
        return REMAIN
    return evaluator(index.body, leaf, data_type)


def evaluate_leaf(
    file_index: FileIndex, leaf: Leaf, types: Mapping[str, t.DataType]
) -> IndexResult:
    """The AND of the answers of the leaf column's indexes (REMAIN without any)."""
    result = REMAIN
    for column in file_index.columns:
        if column.column != leaf.field or leaf.field not in types:
            continue
        for index in column.indexes:
            result = and_results(result, evaluate_column_index(index, leaf, types[leaf.field]))
            if not is_remain(result):
                return result
    return result


def evaluate_and(
    file_index: FileIndex, children: Sequence[Predicate], types: Mapping[str, t.DataType]
) -> IndexResult:
    """All children hold; stops at the first answer that rules the file out."""
    result = REMAIN
    for child in children:
        result = and_results(result, evaluate_predicate(file_index, child, types))
        if not is_remain(result):
            return result
    return result


def evaluate_or(
    file_index: FileIndex, children: Sequence[Predicate], types: Mapping[str, t.DataType]
) -> IndexResult:
    """Some child holds; an OR without children rules nothing out."""
    if not children:
        return REMAIN
    result = SKIP
    for child in children:
        result = or_results(result, evaluate_predicate(file_index, child, types))
    return result


def evaluate_predicate(
    file_index: FileIndex, predicate: Predicate | None, types: Mapping[str, t.DataType]
) -> IndexResult:
    """Rule 5: what ``file_index`` says about ``predicate`` (over the file's fields, typed by
    ``types``)."""
    if predicate is None:
        return REMAIN
    if isinstance(predicate, Leaf):
        return evaluate_leaf(file_index, predicate, types)
    if isinstance(predicate, And):
        return evaluate_and(file_index, predicate.children, types)
    return evaluate_or(file_index, predicate.children, types)


def compute_field_types(fields: Sequence[t.DataField]) -> dict[str, t.DataType]:
    return {f.name: f.type for f in fields}


# --------------------------------------------------------------------------------------------
# Plan time and read time (rule 6)
# --------------------------------------------------------------------------------------------


def is_planned_by_index(
    meta: DataFileMeta,
    predicate: Predicate | None,
    schema: TableSchema,
    file_schema: TableSchema,
) -> bool:
    """Rule 6, plan time: False when the embedded index of an append-table file rules it out
    (Java ``AppendOnlyFileStoreScan.testFileIndex``)."""
    if (
        predicate is None
        or meta.embedded_index is None
        or schema.is_primary_key_table
        or not is_file_index_read_enabled(schema.options)
    ):
        return True
    file_predicate = compute_file_predicate(predicate, schema.fields, file_schema.fields)
    types = compute_field_types(file_schema.fields)
    with naming_file(meta.file_name):
        file_index = decode_file_index(meta.embedded_index)
        return is_remain(evaluate_predicate(file_index, file_predicate, types))


def compute_live_rows(row_count: int, vector: DeletionVector | None) -> IndexResult:
    """The rows of a file its deletion vector does not delete, as a row set."""
    rows = compute_range(0, row_count)
    return rows_result(rows if vector is None else rows - vector.positions)


def evaluate_file_at_read(
    file_io: FileIO,
    data_file_path: str,
    meta: DataFileMeta,
    predicate: Predicate | None,
    *,
    schema: TableSchema,
    file_schema: TableSchema,
    vector: DeletionVector | None,
) -> IndexResult:
    """Rule 6, read time (Java ``FileIndexEvaluator.evaluate``): REMAIN (read every live row),
    SKIP (read nothing) or the live rows that may match (read only those)."""
    if (
        predicate is None
        or not is_file_index_read_enabled(schema.options)
        or meta.row_count > MAX_ROW_POSITION
        or (vector is not None and vector.kind is not BitmapKind.BITMAP32)
    ):
        return REMAIN
    file_predicate = compute_file_predicate(predicate, schema.fields, file_schema.fields)
    if file_predicate is None:
        return REMAIN
    file_index = read_file_index(file_io, data_file_path, meta)
    if file_index is None:
        return REMAIN
    with naming_file(data_file_path):
        answer = evaluate_predicate(
            file_index, file_predicate, compute_field_types(file_schema.fields)
        )
    live = compute_live_rows(meta.row_count, vector)
    result = and_results(answer, live)
    if result == live:
        return REMAIN
    return result if is_remain(result) else SKIP
