"""Data-file indexes in spark_impl: which indexes a table asks for, building a file's index from
its Arrow columns, where the bytes go, and what an index says about a filter.

The rules are those of ``reference/store/file_index.py`` (which cites the spec page
``docs/concepts/spec/fileindex.mdx``); this is an independent implementation that shares only
the pure codecs of ``reference.spec.file_index`` (container, bloom filter, bitmap, BSI, roaring)
with the reference:

1. *Options* (Java ``fileindex/FileIndexOptions``). ``file-index.<type>.columns`` lists
   (comma-separated, blanks trimmed) the columns that get an index of ``<type>``
   (``bloom-filter``, ``bitmap``, ``bsi``); ``file-index.<type>.<column>.<option>`` sets one
   option of one listed index (bloom-filter ``items`` / ``fpp``, bitmap ``version`` /
   ``index-block-size``); a key with another number of parts after ``file-index.`` is not an
   index option. A listed column must exist and suit its index type; an index option must
   name a listed column and parse. Every violation is an :class:`InvalidOptionError` naming
   the option (an unknown index type or a map-entry column: :class:`UnsupportedFeature`),
   raised by :func:`compute_file_index_plan` on the driver when the write is planned.
2. *Who gets one.* Every data file of an append table (writes and append compaction); Paimon
   0.9.0 writes none for primary-key files (Java ``KeyValueFileWriterFactory``).
3. *Building* (Java ``io/DataFileIndexWriter``): each index is built over the column's values
   in file order. Bloom filters hash the distinct non-null values once each (XXH64 of the
   UTF-8 / binary bytes, else Thomas Wang's mix of the value's long form, vectorised with
   numpy) and set ``k`` probe bits per hash; bitmaps group the rows by key with Arrow's
   dictionary encoding and order the keys by replaying Java's ``HashMap.computeIfAbsent``
   calls (first occurrences, plus one trailing call when a repeated key comes last: repeated
   calls only ever trigger a resize the next insertion would trigger anyway); BSI slices are
   numpy bit tests. A bitmap is version 1 unless its ``version`` option says 2 (0.9.0 writes
   v1). A column listed for two types gets both (as in main). The bodies go into one container
   in Java's ``HashMap`` order (:func:`order_index_specs`, then
   ``container.compute_java_file_index``), so the bytes equal Java's and the reference's.
4. *Where the bytes go* (Java ``DataFileIndexWriter.close``): a container of at most
   ``file-index.in-manifest-threshold`` bytes (default 500 B) is embedded in the file's meta
   (``_EMBEDDED_FILE_INDEX``); a larger one is written to ``<data file>.index`` beside the data
   file and named in ``_EXTRA_FILES``.
5. *Evaluating a filter* (Java ``fileindex/FileIndexPredicate``). The predicate moves to the
   file's schema by field id; a top-level conjunct naming a field the file lacks, or whose type
   changed, is dropped. A leaf answers the AND of its column's indexes (REMAIN without any):
   bloom-filter ``=`` / ``IN``; bitmap ``=``, ``<>``, ``IN``, ``NOT IN``, ``IS NULL``,
   ``IS NOT NULL`` (row sets); BSI those and the four comparisons; everything else REMAIN. An
   index whose writer saw no row answers SKIP to ``=``, ``IN``, ``IS NOT NULL``,
   ``STARTS_WITH`` and the comparisons. AND stops at the first answer ruling the file out.
6. *Where answers are used* (``file-index.read.enabled``, default true). At plan time only an
   embedded index of an append-table file (Java ``operation/AppendOnlyFileStoreScan
   .testFileIndex``): a file it rules out is not planned. At read time (Java
   ``io/FileIndexSkipper`` in 0.9.0) an append-table file's ``.index`` file or embedded index:
   a file ruled out is not read, and with a row-set answer only those rows are (main's
   ``ApplyBitmapIndexRecordReader``). Spark applies every filter again, so answers only narrow.
"""

from __future__ import annotations

import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyroaring
import xxhash

from reference import layout
from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature, naming_file
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.data import decimal_unscaled
from reference.spec.data_file import compute_file_index_file_name, is_file_index_file_name
from reference.spec.file_format import TimeUnit, compute_arrow_type, compute_timestamp_unit
from reference.spec.file_index import bitmap as bm
from reference.spec.file_index import bloom_filter as bf
from reference.spec.file_index import bsi
from reference.spec.file_index.byte_reader import pack_int32
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
from reference.spec.file_index.java_order import (
    CANONICAL_DOUBLE_NAN_BITS,
    CANONICAL_FLOAT_NAN_BITS,
    compute_hash_map_order,
    compute_java_string_hash,
    to_int32,
)
from reference.spec.file_index.options import (
    BITMAP_BLOCK_SIZE_OPTION,
    BITMAP_VERSION_OPTION,
    BLOOM_FPP_OPTION,
    BLOOM_ITEMS_OPTION,
    BUILT_INDEX_TYPES,
    READ_ENABLED_OPTION,
    THRESHOLD_OPTION,
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
    ResultKind,
    and_results,
    is_remain,
    or_results,
)
from reference.spec.file_index.roaring import MAX_ROW_POSITION, RowIds
from reference.spec.java_numbers import LONG_MAX, LONG_MIN
from reference.spec.options import JAVA_WHITESPACE, option_value, parse_memory_size
from reference.spec.predicate import And, Leaf, Predicate, PredicateOp, compute_file_predicate
from reference.spec.schema import TableSchema
from reference.spec.units import NANOS_PER_MICRO

# --------------------------------------------------------------------------------------------
# Options (rule 1)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexSpec:
    """One index to build: column, type and its resolved parameters (bloom ``items`` and
    ``fpp``; bitmap ``version`` and ``block_size``)."""

    column: str
    index_type: str
    items: int = bf.DEFAULT_ITEMS
    fpp: float = bf.DEFAULT_FPP
    version: int = int(WRITER_BITMAP_VERSION)
    block_size: int = bm.DEFAULT_INDEX_BLOCK_SIZE


@dataclass(frozen=True)
class FileIndexPlan:
    """What every append file of a table gets: its indexes in Java's write order and the
    embedding threshold (picklable: shipped to the write tasks)."""

    indexes: tuple[IndexSpec, ...]
    threshold: int


def _parse_number(key: str, text: str | None, parse: Callable[[str], Any], default: Any) -> Any:
    if text is None:
        return default
    try:
        return parse(text.strip(JAVA_WHITESPACE))
    except ValueError as error:
        raise InvalidOptionError(key, text, str(error)) from None


def resolve_spec(column: str, index_type: str, settings: Mapping[str, str]) -> IndexSpec:
    """An index's parameters from its options, checked (bloom sizes, bitmap version)."""
    if index_type == BLOOM_FILTER:
        items_key = compute_option_key(index_type, column, BLOOM_ITEMS_OPTION)
        fpp_key = compute_option_key(index_type, column, BLOOM_FPP_OPTION)
        items = _parse_number(items_key, settings.get(BLOOM_ITEMS_OPTION), int, bf.DEFAULT_ITEMS)
        fpp = _parse_number(fpp_key, settings.get(BLOOM_FPP_OPTION), float, bf.DEFAULT_FPP)
        try:
            bf.compute_num_bits(items, fpp)
        except InvalidOptionError as error:
            key = compute_option_key(index_type, column, error.option)
            raise InvalidOptionError(key, error.value, "no bloom filter has this size") from None
        return IndexSpec(column, index_type, items=items, fpp=fpp)
    if index_type == BITMAP:
        version_key = compute_option_key(index_type, column, BITMAP_VERSION_OPTION)
        version = _parse_number(
            version_key, settings.get(BITMAP_VERSION_OPTION), int, int(WRITER_BITMAP_VERSION)
        )
        if version not in tuple(bm.BitmapVersion):
            raise InvalidOptionError(
                version_key, str(version), "bitmap index version must be 1 or 2"
            )
        block_size = _parse_number(
            compute_option_key(index_type, column, BITMAP_BLOCK_SIZE_OPTION),
            settings.get(BITMAP_BLOCK_SIZE_OPTION),
            parse_memory_size,
            bm.DEFAULT_INDEX_BLOCK_SIZE,
        )
        return IndexSpec(column, index_type, version=version, block_size=block_size)
    return IndexSpec(column, index_type)


TYPE_CHECKS: Mapping[str, Callable[[t.DataType], None]] = {
    BLOOM_FILTER: bf.check_bloom_filter_type,
    BITMAP: bm.check_bitmap_type,
    BSI: bsi.check_bsi_type,
}


def check_column(index_type: str, column: str, types: Mapping[str, t.DataType]) -> None:
    """Rule 1: a known index type on an existing column of a type it suits."""
    key = compute_columns_key(index_type)
    if index_type not in BUILT_INDEX_TYPES:
        raise UnsupportedFeature(f"writing '{index_type}' file indexes ('{key}')")
    if column not in types:
        raise InvalidOptionError(key, column, "no such column")
    try:
        TYPE_CHECKS[index_type](types[column])
    except SpecViolation as error:
        raise InvalidOptionError(key, column, error.reason) from None


def order_index_specs(specs: Sequence[IndexSpec]) -> list[IndexSpec]:
    """The order Java's writer meets the indexes: ``FileIndexOptions`` is a
    ``HashMap<Column, HashMap<type, Options>>`` filled by ``computeIfAbsent`` in option order."""
    column_calls = [(spec.column, compute_column_key_hash(spec.column)) for spec in specs]
    ordered: list[IndexSpec] = []
    for column in compute_hash_map_order(column_calls, compute_if_absent=True):
        own = [spec for spec in specs if spec.column == column]
        type_calls = [(spec.index_type, compute_java_string_hash(spec.index_type)) for spec in own]
        for index_type in compute_hash_map_order(type_calls, compute_if_absent=True):
            ordered.extend(spec for spec in own if spec.index_type == index_type)
    return ordered


def parse_threshold(options: Mapping[str, str]) -> int:
    threshold: int = option_value(options, THRESHOLD_OPTION)
    return threshold


def compute_file_index_plan(schema: TableSchema) -> FileIndexPlan | None:
    """Rules 1 and 2 on the driver: the indexes an append table's files get, checked against
    its fields; None for a primary-key table or when no index is asked for."""
    if schema.is_primary_key_table:
        return None
    requested = collect_index_requests(schema.options)
    if not requested:
        return None
    types = {f.name: f.type for f in schema.fields}
    specs = []
    for (column, index_type), settings in requested.items():
        check_column(index_type, column, types)
        specs.append(resolve_spec(column, index_type, settings))
    return FileIndexPlan(tuple(order_index_specs(specs)), parse_threshold(schema.options))


def is_read_enabled(options: Mapping[str, str]) -> bool:
    return bool(option_value(options, READ_ENABLED_OPTION))


# --------------------------------------------------------------------------------------------
# Hashing and keys from Arrow columns
# --------------------------------------------------------------------------------------------

_U64 = np.uint64
BITS_PER_BYTE = bf.BITS_PER_BYTE
_INTEGER_LIKE_ROOTS = bf.INTEGER_LIKE_ROOTS


def _shift_right(values: np.ndarray, bits: int) -> np.ndarray:
    """Java's signed ``>>`` on longs held as uint64."""
    shifted: np.ndarray = (values.view(np.int64) >> np.int64(bits)).view(_U64)
    return shifted


def compute_thomas_wang_hashes(keys: np.ndarray) -> np.ndarray:
    """``FastHash.getLongHash`` of each int64 key, in wrapping uint64 arithmetic."""
    key = np.ascontiguousarray(keys, dtype=np.int64).view(_U64)
    key = (~key) + (key << _U64(21))
    key = key ^ _shift_right(key, 24)
    key = (key + (key << _U64(3))) + (key << _U64(8))
    key = key ^ _shift_right(key, 14)
    key = (key + (key << _U64(2))) + (key << _U64(4))
    key = key ^ _shift_right(key, 28)
    key = key + (key << _U64(31))
    hashes: np.ndarray = key.view(np.int64)
    return hashes


def compute_long_keys(column: pa.Array, data_type: t.DataType) -> np.ndarray:
    """The long each non-null value of an integer-like or timestamp column is indexed as
    (timestamps: epoch millis for precision <= 3, else epoch micros, floored)."""
    present = column.drop_null()
    if data_type.root in t.TIMESTAMP_ROOTS:
        raw = np.asarray(present.view(pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
        if compute_timestamp_unit(t.timestamp_precision(data_type)) is TimeUnit.NANOS:
            return np.floor_divide(raw, NANOS_PER_MICRO)
        return raw
    if pa.types.is_date32(present.type) or pa.types.is_time32(present.type):
        present = present.view(pa.int32())
    return np.asarray(present.to_numpy(zero_copy_only=False), dtype=np.int64)


def compute_float_bit_keys(column: pa.Array, data_type: t.DataType) -> np.ndarray:
    """``floatToIntBits`` / ``doubleToLongBits`` (NaNs canonical) as int64, non-null values."""
    values = column.drop_null().to_numpy(zero_copy_only=False)
    if data_type.root is t.TypeRoot.FLOAT:
        values32 = np.asarray(values, dtype=np.float32)
        bits = values32.view(np.int32).astype(np.int64)
        bits[np.isnan(values32)] = to_int32(CANONICAL_FLOAT_NAN_BITS)
        return bits
    values64 = np.asarray(values, dtype=np.float64)
    bits64: np.ndarray = values64.view(np.int64).copy()
    bits64[np.isnan(values64)] = CANONICAL_DOUBLE_NAN_BITS
    return bits64


def compute_xxhashes(values: pa.Array) -> np.ndarray:
    """XXH64 (seed 0) of each value of a null-free binary array, as signed longs; the values
    are hashed as views into the Arrow data buffer (no Python bytes per value)."""
    large = values.cast(pa.large_binary())
    _, offsets_buffer, data_buffer = large.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64)[
        large.offset : large.offset + len(large) + 1
    ]
    data = memoryview(data_buffer if data_buffer is not None else b"")
    digest = xxhash.xxh64_intdigest
    starts, ends = offsets[:-1].tolist(), offsets[1:].tolist()
    digests = [digest(data[start:end]) for start, end in zip(starts, ends, strict=True)]
    return np.array(digests, dtype=np.uint64).view(np.int64)


def compute_value_hashes(column: pa.Array, data_type: t.DataType) -> np.ndarray:
    """``FastHash`` of the non-null values of ``column``: strings and binaries once per
    distinct value (XXH64 is a Python call each), other values all at once with numpy."""
    root = data_type.root
    if root in t.CHARACTER_ROOTS or root in t.BINARY_ROOTS:
        return compute_xxhashes(pc.unique(column.drop_null().cast(pa.binary())))
    if root in t.FLOATING_ROOTS:
        return compute_thomas_wang_hashes(compute_float_bit_keys(column, data_type))
    return compute_thomas_wang_hashes(compute_long_keys(column, data_type))


# --------------------------------------------------------------------------------------------
# Building (rule 3)
# --------------------------------------------------------------------------------------------


def compute_bloom_positions(
    hashes: np.ndarray, num_hash_functions: int, num_bits: int
) -> np.ndarray:
    """Every bit the hashes probe (``BloomFilter64.addHash``): ``low + i * high`` in 32-bit
    arithmetic for ``i`` in 1..k, bit-inverted when negative, modulo the bit count."""
    low = hashes.astype(np.int32)
    high = (hashes >> np.int64(32)).astype(np.int32)
    probes = np.arange(1, num_hash_functions + 1, dtype=np.int32)
    combined = low[:, None] + probes[None, :] * high[:, None]  # wraps like Java's int
    combined = np.where(combined < 0, ~combined, combined)
    positions: np.ndarray = (combined % np.int32(num_bits)).ravel()
    return positions


def encode_bloom_filter(spec: IndexSpec, column: pa.Array, data_type: t.DataType) -> bytes:
    """A bloom-filter body: hash count, then the bit set (bit i: bit i % 8 of byte i // 8)."""
    num_bits = bf.compute_num_bits(spec.items, spec.fpp)
    num_hash_functions = bf.compute_num_hash_functions(num_bits, spec.items)
    bits = np.zeros(num_bits // BITS_PER_BYTE, dtype=np.uint8)
    hashes = compute_value_hashes(column, data_type)
    if len(hashes):
        positions = compute_bloom_positions(hashes, num_hash_functions, num_bits)
        np.bitwise_or.at(bits, positions >> 3, np.left_shift(1, positions & 7).astype(np.uint8))
    return pack_int32(num_hash_functions) + bits.tobytes()


def to_row_ids(positions: np.ndarray) -> RowIds:
    """An immutable roaring bitmap of row positions."""
    values = array.array("I")
    values.frombytes(np.ascontiguousarray(positions, dtype=np.uint32).tobytes())
    return pyroaring.FrozenBitMap(values)


def compute_bitmap_codes(column: pa.Array, data_type: t.DataType) -> tuple[np.ndarray, list[Any]]:
    """Per non-null row the code of its key, and the keys by code; Arrow's dictionary encoding
    numbers the keys in order of first occurrence. Floats are keyed by their Java bits (all
    NaNs one key, -0.0 and 0.0 two), timestamps by their long (:func:`compute_long_keys`)."""
    present = column.drop_null()
    root = data_type.root
    if root in t.CHARACTER_ROOTS or root is t.TypeRoot.BOOLEAN:
        identities = present
    elif root in t.FLOATING_ROOTS:
        identities = pa.array(compute_float_bit_keys(column, data_type))
    else:
        identities = pa.array(compute_long_keys(column, data_type))
    encoded = pc.dictionary_encode(identities)
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    if root not in t.FLOATING_ROOTS:
        return codes, encoded.dictionary.to_pylist()
    seen = np.maximum.accumulate(codes) if len(codes) else codes
    firsts = np.flatnonzero(codes > np.concatenate(([-1], seen[:-1])))
    values = np.asarray(present.to_numpy(zero_copy_only=False))
    return codes, [float(value) for value in values[firsts]]


def compute_first_occurrence_calls(
    codes: np.ndarray, hashes: Sequence[int]
) -> list[tuple[int, int]]:
    """The ``computeIfAbsent`` calls that fix Java's ``HashMap`` order: each key's first
    occurrence (codes number keys by first occurrence) and, when a row after the last new key
    repeats a key, one more call (a pending resize happens at the start of any call)."""
    calls = [(code, hashes[code]) for code in range(len(hashes))]
    if len(hashes):
        last_first = int(np.flatnonzero(codes == len(hashes) - 1)[0])
        if last_first < len(codes) - 1:
            calls.append(calls[0])
    return calls


def encode_bitmap(spec: IndexSpec, column: pa.Array, data_type: t.DataType) -> bytes:
    """A bitmap body (rule 3): rows grouped by key, keys in Java's ``HashMap`` order."""
    valid = np.asarray(column.is_valid(), dtype=bool)
    rows = np.flatnonzero(valid)
    codes, keys = compute_bitmap_codes(column, data_type)
    hashes = [bm.compute_key_java_hash(key, data_type) for key in keys]
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(keys) + 1))
    by_code = [to_row_ids(rows[order[bounds[i] : bounds[i + 1]]]) for i in range(len(keys))]
    calls = compute_first_occurrence_calls(codes, hashes)
    entries = tuple(
        bm.BitmapEntry(keys[int(code)], by_code[int(code)])  # type: ignore[call-overload]
        for code in compute_hash_map_order(calls, compute_if_absent=True)
    )
    index = bm.BitmapIndex(
        bm.BitmapVersion(spec.version), len(column), to_row_ids(np.flatnonzero(~valid)), entries
    )
    return bm.encode_bitmap_index(index, data_type, index_block_size=spec.block_size)


def compute_bsi_longs(column: pa.Array, data_type: t.DataType) -> np.ndarray:
    """The long of each non-null value (decimals: the unscaled value, checked to fit)."""
    if isinstance(data_type, t.DecimalType):
        unscaled = [decimal_unscaled(v, data_type.scale) for v in column.drop_null().to_pylist()]
        if any(not LONG_MIN <= value <= LONG_MAX for value in unscaled):
            raise SpecViolation("a decimal value does not fit a long", code="BSI_RANGE")
        return np.array(unscaled, dtype=np.int64)
    return compute_long_keys(column, data_type)


def build_slice_set(rows: np.ndarray, magnitudes: np.ndarray) -> bsi.SliceSet | None:
    """Java's ``BitSliceIndexRoaringBitmap.Appender`` with ``min = 0``: slice ``i`` holds the
    rows whose magnitude has bit ``i``."""
    if not len(rows):
        return None
    maximum = int(magnitudes.max())
    slices = tuple(
        to_row_ids(rows[(magnitudes >> np.int64(bit)) & 1 == 1])
        for bit in range(maximum.bit_length())
    )
    return bsi.SliceSet(0, maximum, to_row_ids(rows), slices)


def encode_bsi(column: pa.Array, data_type: t.DataType) -> bytes:
    """A BSI body: non-negative values and magnitudes of negative ones in two slice sets."""
    rows = np.flatnonzero(np.asarray(column.is_valid()))
    values = compute_bsi_longs(column, data_type)
    if (values == LONG_MIN).any():
        raise SpecViolation("a BSI index cannot hold Long.MIN_VALUE", code="BSI_RANGE")
    negative = values < 0
    index = bsi.BsiIndex(
        len(column),
        build_slice_set(rows[~negative], values[~negative]),
        build_slice_set(rows[negative], -values[negative]),
    )
    return bsi.encode_bsi_index(index)


def encode_column_index(spec: IndexSpec, column: pa.Array, data_type: t.DataType) -> bytes:
    if spec.index_type == BLOOM_FILTER:
        return encode_bloom_filter(spec, column, data_type)
    if spec.index_type == BITMAP:
        return encode_bitmap(spec, column, data_type)
    return encode_bsi(column, data_type)


def build_file_index(plan: FileIndexPlan, table: pa.Table, fields: Sequence[t.DataField]) -> bytes:
    """Rule 3: the container of one data file whose physical columns are ``table`` (column
    ``i`` is ``fields[i]``)."""
    positions = {f.name: i for i, f in enumerate(fields)}
    bodies: dict[str, dict[str, bytes | None]] = {}
    for spec in plan.indexes:
        position = positions[spec.column]
        column = table.column(position).combine_chunks()
        body = encode_column_index(spec, column, fields[position].type)
        bodies.setdefault(spec.column, {})[spec.index_type] = body
    return encode_file_index(compute_java_file_index(bodies))


@dataclass(frozen=True)
class WrittenIndex:
    """Where a data file's index went: embedded bytes, or its ``.index`` file's name."""

    embedded: bytes | None = None
    extra_files: tuple[str, ...] = ()


NO_INDEX = WrittenIndex()


def write_file_index(
    file_io: FileIO, directory: str, data_file_name: str, container: bytes, threshold: int
) -> WrittenIndex:
    """Rule 4: embed a container up to ``threshold`` bytes, else write ``<data file>.index``."""
    if len(container) <= threshold:
        return WrittenIndex(embedded=container)
    index_name = compute_file_index_file_name(data_file_name)
    file_io.write_bytes(layout.join(directory, index_name), container)
    return WrittenIndex(extra_files=(index_name,))


# --------------------------------------------------------------------------------------------
# Evaluating (rule 5)
# --------------------------------------------------------------------------------------------


def compute_literal_hash(literal: Any, data_type: t.DataType) -> int | None:
    """The bloom hash of a literal, by the writer's own hashing of a one-value column; None
    when the literal is not a value of the column's type."""
    try:
        if data_type.root in t.TIMESTAMP_ROOTS:
            column = pa.array([_timestamp_units(literal, data_type)], type=pa.int64())
        else:
            column = pa.array([literal], type=compute_arrow_type(data_type))
    except (TypeError, ValueError, OverflowError, AttributeError, pa.ArrowException):
        return None
    hashes = compute_value_hashes(column, data_type)
    return int(hashes[0]) if len(hashes) else None


def _timestamp_units(literal: Any, data_type: t.DataType) -> int:
    """A ``Timestamp`` literal in its column's Arrow unit (ms, us or ns)."""
    unit = compute_timestamp_unit(t.timestamp_precision(data_type))
    if unit is TimeUnit.MILLIS:
        return int(literal.millisecond)
    if unit is TimeUnit.MICROS:
        return int(literal.to_epoch_micros())
    return int(literal.to_epoch_nanos())


def might_contain(body: bytes, literal: Any, data_type: t.DataType) -> bool:
    """False only if no row of the file holds ``literal`` (a null literal always may)."""
    if literal is None:
        return True
    hash64 = compute_literal_hash(literal, data_type)
    if hash64 is None:
        return True
    bloom = bf.decode_bloom_filter(body)
    positions = compute_bloom_positions(
        np.array([hash64], dtype=np.int64), bloom.num_hash_functions, bloom.num_bits
    )
    bits = np.frombuffer(bloom.bits, dtype=np.uint8)
    return bool(((bits[positions >> 3] >> (positions & 7).astype(np.uint8)) & 1).all())


def evaluate_bloom_filter(body: bytes, leaf: Leaf, data_type: t.DataType) -> IndexResult:
    if leaf.op is PredicateOp.EQUAL:
        return REMAIN if might_contain(body, leaf.literals[0], data_type) else SKIP
    if leaf.op is PredicateOp.IN:
        found = any(might_contain(body, literal, data_type) for literal in leaf.literals)
        return REMAIN if found else SKIP
    return REMAIN


BITMAP_QUERIES: Mapping[PredicateOp, Callable[[bm.BitmapIndex, Leaf, t.DataType], IndexResult]] = {
    PredicateOp.EQUAL: lambda index, leaf, dt: bm.query_equal(index, leaf.literals[0], dt),
    PredicateOp.NOT_EQUAL: lambda index, leaf, dt: bm.query_not_equal(index, leaf.literals[0], dt),
    PredicateOp.IN: lambda index, leaf, dt: bm.query_in(index, leaf.literals, dt),
    PredicateOp.NOT_IN: lambda index, leaf, dt: bm.query_not_in(index, leaf.literals, dt),
    PredicateOp.IS_NULL: lambda index, leaf, dt: bm.query_is_null(index),
    PredicateOp.IS_NOT_NULL: lambda index, leaf, dt: bm.query_is_not_null(index),
}

BSI_QUERIES: Mapping[PredicateOp, Callable[[bsi.BsiIndex, Leaf, t.DataType], IndexResult]] = {
    PredicateOp.EQUAL: lambda index, leaf, dt: bsi.query_equal(index, leaf.literals[0], dt),
    PredicateOp.NOT_EQUAL: lambda index, leaf, dt: bsi.query_not_equal(index, leaf.literals[0], dt),
    PredicateOp.LESS_THAN: lambda index, leaf, dt: bsi.query_less_than(index, leaf.literals[0], dt),
    PredicateOp.LESS_OR_EQUAL: lambda index, leaf, dt: bsi.query_less_or_equal(
        index, leaf.literals[0], dt
    ),
    PredicateOp.GREATER_THAN: lambda index, leaf, dt: bsi.query_greater_than(
        index, leaf.literals[0], dt
    ),
    PredicateOp.GREATER_OR_EQUAL: lambda index, leaf, dt: bsi.query_greater_or_equal(
        index, leaf.literals[0], dt
    ),
    PredicateOp.IN: lambda index, leaf, dt: bsi.query_in(index, leaf.literals, dt),
    PredicateOp.NOT_IN: lambda index, leaf, dt: bsi.query_not_in(index, leaf.literals, dt),
    PredicateOp.IS_NULL: lambda index, leaf, dt: bsi.query_is_null(index),
    PredicateOp.IS_NOT_NULL: lambda index, leaf, dt: bsi.query_is_not_null(index),
}


def evaluate_index(index: ColumnIndex, leaf: Leaf, data_type: t.DataType) -> IndexResult:
    """One index's answer to one leaf on its column."""
    if index.body is None:
        return SKIP if leaf.op in EMPTY_INDEX_SKIPPED_OPS else REMAIN
    if index.index_type == BLOOM_FILTER:
        return evaluate_bloom_filter(index.body, leaf, data_type)
    if index.index_type == BITMAP and leaf.op in BITMAP_QUERIES:
        return BITMAP_QUERIES[leaf.op](
            bm.decode_bitmap_index(index.body, data_type), leaf, data_type
        )
    if index.index_type == BSI and leaf.op in BSI_QUERIES:
        return BSI_QUERIES[leaf.op](bsi.decode_bsi_index(index.body), leaf, data_type)
    return REMAIN


def evaluate_leaf(
    file_index: FileIndex, leaf: Leaf, types: Mapping[str, t.DataType]
) -> IndexResult:
    result = REMAIN
    if leaf.field not in types:
        return result
    for column in file_index.columns:
        if column.column != leaf.field:
            continue
        for index in column.indexes:
            result = and_results(result, evaluate_index(index, leaf, types[leaf.field]))
            if not is_remain(result):
                return result
    return result


def evaluate_predicate(
    file_index: FileIndex, predicate: Predicate | None, types: Mapping[str, t.DataType]
) -> IndexResult:
    """Rule 5: what ``file_index`` says about ``predicate`` (over the file's field names)."""
    if predicate is None:
        return REMAIN
    if isinstance(predicate, Leaf):
        return evaluate_leaf(file_index, predicate, types)
    if isinstance(predicate, And):
        result = REMAIN
        for child in predicate.children:
            result = and_results(result, evaluate_predicate(file_index, child, types))
            if not is_remain(result):
                return result
        return result
    if not predicate.children:
        return REMAIN
    result = SKIP
    for child in predicate.children:
        result = or_results(result, evaluate_predicate(file_index, child, types))
    return result


# --------------------------------------------------------------------------------------------
# Plan time and read time (rule 6)
# --------------------------------------------------------------------------------------------


def evaluate_container(
    container: bytes,
    predicate: Predicate | None,
    schema: TableSchema,
    file_schema: TableSchema,
) -> IndexResult:
    """A container's answer to a predicate over ``schema``, for a file of ``file_schema``."""
    file_predicate = compute_file_predicate(predicate, schema.fields, file_schema.fields)
    if file_predicate is None:
        return REMAIN
    types = {f.name: f.type for f in file_schema.fields}
    return evaluate_predicate(decode_file_index(container), file_predicate, types)


def is_planned_by_index(
    embedded_index: bytes | None,
    predicate: Predicate | None,
    schema: TableSchema,
    file_schema: TableSchema,
) -> bool:
    """Rule 6, plan time: False when an append-table file's embedded index rules it out."""
    if (
        predicate is None
        or embedded_index is None
        or schema.is_primary_key_table
        or not is_read_enabled(schema.options)
    ):
        return True
    return is_remain(evaluate_container(embedded_index, predicate, schema, file_schema))


def find_index_file_name(extra_files: Sequence[str]) -> str | None:
    """The ``.index`` file among a data file's extra files (two are an error)."""
    names = [name for name in extra_files if is_file_index_file_name(name)]
    if len(names) > 1:
        raise SpecViolation(
            f"a data file lists more than one index file: {names}", code="FILE_INDEX_EXTRA"
        )
    return names[0] if names else None


def evaluate_at_read(
    file_io: FileIO,
    data_file_path: str,
    predicate: Predicate | None,
    *,
    row_count: int,
    index_source: bytes | str | None,
    schema: TableSchema,
    file_schema: TableSchema,
) -> IndexResult:
    """Rule 6, read time: REMAIN, SKIP or the rows that may match, from the embedded container
    (``bytes``) or the ``.index`` file beside the data file (its name)."""
    if (
        predicate is None
        or index_source is None
        or schema.is_primary_key_table
        or row_count > MAX_ROW_POSITION
        or not is_read_enabled(schema.options)
    ):
        return REMAIN
    if isinstance(index_source, bytes):
        with naming_file(data_file_path):
            return evaluate_container(index_source, predicate, schema, file_schema)
    directory = data_file_path.rsplit(layout.SEPARATOR, 1)[0]
    path = layout.join(directory, index_source)
    with naming_file(path):
        return evaluate_container(file_io.read_bytes(path), predicate, schema, file_schema)


def compute_kept_rows(result: IndexResult, row_count: int) -> np.ndarray | None:
    """The row positions a read keeps (None: every row; empty: none)."""
    if result.kind is ResultKind.SKIP:
        return np.zeros(0, dtype=np.int64)
    if result.kind is ResultKind.REMAIN:
        return None
    rows = np.frombuffer(result.rows.to_array(), dtype=np.uint32).astype(np.int64)
    return rows[rows < row_count]
