"""Buckets: which fields key the bucket of a row, and the Java-identical bucket of that key.

Spec: ``docs/concepts/spec/datafile.md`` ("Bucket") and ``tableindex.md`` (dynamic bucket index).
Java: ``org.apache.paimon.schema.TableSchema`` (``bucketKeys``, ``trimmedPrimaryKeys``),
``table.sink.FixedBucketRowKeyExtractor``, ``table.sink.KeyAndBucketExtractor`` (0.9.0),
``bucket.DefaultBucketFunction`` / ``ModBucketFunction`` (main), ``index.HashBucketAssigner``.

Rules stated here:

* The *trimmed primary key* is the primary key without the partition fields, in primary key
  order. The *bucket key* is the ``bucket-key`` option split on ``,`` (no trimming of blanks, in
  the option's order), or the trimmed primary key when the option is absent or blank. A bucket
  key field must be a table field, must not be a partition field, and must be a primary key field
  when the table has a primary key.
* The bucket key values are written as a BinaryRow (row kind INSERT, null non-compact DECIMAL and
  TIMESTAMP keeping their variable-part chunk, as Java's generated projection writes them) and
  the row's hash is Java's ``BinaryRow.hashCode`` (word-wise Murmur3, seed 42).
* Fixed bucket (``bucket`` > 0), default bucket function: ``bucket = abs(hash % num_buckets)``
  with Java's truncating ``%`` on a signed 32-bit hash. The same in 0.9.0 and main.
* Main adds ``bucket-function.type``: ``default`` (above), ``mod`` (a single INT or BIGINT bucket
  key, ``floorMod(value, num_buckets)``) and ``hive`` (not implemented here).
* Dynamic bucket (``bucket`` = -1 on a primary-key table): the hash kept in the HASH index and
  used to look a key up is the hash of the *trimmed primary key* row (never ``bucket-key``); which
  bucket a new hash goes to depends on the index state (``hash_index``), not on this module.
  Cross-partition-update tables assign buckets from a global key index, not from a hash.
"""

# ruff: noqa: PLC0414 -- `import X as X` re-exports the postpone bucket id.

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum

from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature
from reference.spec import types as t
from reference.spec.binary_row import compute_binary_row_hash, encode_binary_row
from reference.spec.data import RowKind, Value
from reference.spec.data_file import POSTPONE_BUCKET as POSTPONE_BUCKET
from reference.spec.options import INDEX_TTL_OPTION, SEQUENCE_FIELD_OPTION, BucketFunctionType

BUCKET_OPTION = "bucket"
BUCKET_KEY_OPTION = "bucket-key"
BUCKET_FUNCTION_TYPE_OPTION = "bucket-function.type"
"""Option of Paimon main (absent in 0.9.0); default ``default``."""

BUCKET_KEY_SEPARATOR = ","

DYNAMIC_BUCKET = -1
"""``bucket = -1``: dynamic bucket for primary-key tables, bucket-unaware for append tables."""

UNAWARE_BUCKET = 0
"""The bucket of every file and index entry of a bucket-unaware table (Java
``BucketMode.UNAWARE_BUCKET``)."""


class BucketMode(Enum):
    """How rows find their bucket (Java ``BucketMode``, whose names are the values)."""

    FIXED = "HASH_FIXED"
    """``bucket`` > 0: the hash of the bucket key modulo the bucket count."""
    DYNAMIC = "HASH_DYNAMIC"
    """A primary-key table with ``bucket = -1``: buckets from the HASH index."""
    UNAWARE = "BUCKET_UNAWARE"
    """An append table with ``bucket = -1``: everything in bucket 0."""
    CROSS_PARTITION = "CROSS_PARTITION"
    """A primary key without every partition field: the key's bucket is looked up across
    partitions."""


def parse_bucket_function_type(text: str) -> BucketFunctionType:
    """Parse ``bucket-function.type``, case-insensitively as Java does."""
    for kind in BucketFunctionType:
        if kind.value == text.lower():
            return kind
    raise InvalidOptionError(BUCKET_FUNCTION_TYPE_OPTION, text, "unknown bucket function")


# --------------------------------------------------------------------------------------------
# Which fields
# --------------------------------------------------------------------------------------------


def compute_trimmed_primary_keys(
    primary_keys: Sequence[str], partition_keys: Sequence[str]
) -> tuple[str, ...]:
    """The primary key without the partition fields (Java ``TableSchema.trimmedPrimaryKeys``).

    A primary key made only of partition fields is invalid (one row per partition).
    """
    trimmed = tuple(name for name in primary_keys if name not in partition_keys)
    if primary_keys and not trimmed:
        raise SpecViolation(
            f"primary key {list(primary_keys)} must not equal the partition fields "
            f"{list(partition_keys)}",
            code="PRIMARY_KEY_ONLY_PARTITION",
        )
    return trimmed


def compute_bucket_key_fields(
    field_names: Sequence[str],
    partition_keys: Sequence[str],
    primary_keys: Sequence[str],
    options: Mapping[str, str],
) -> tuple[str, ...]:
    """The bucket key of a table, in order (Java ``TableSchema.bucketKeys``).

    The ``bucket-key`` option when set (split on ``,`` exactly as Java does, blanks kept), else
    the trimmed primary key; empty for an append table without ``bucket-key``.
    """
    option = options.get(BUCKET_KEY_OPTION)
    if option is None or not option.strip():
        return compute_trimmed_primary_keys(primary_keys, partition_keys)
    bucket_keys = tuple(option.split(BUCKET_KEY_SEPARATOR))
    if not set(bucket_keys) <= set(field_names):
        raise InvalidOptionError(
            BUCKET_KEY_OPTION, option, f"every bucket key must be a field of {list(field_names)}"
        )
    if set(bucket_keys) & set(partition_keys):
        raise InvalidOptionError(
            BUCKET_KEY_OPTION, option, f"bucket keys must not be partition keys {partition_keys}"
        )
    if primary_keys and not set(bucket_keys) <= set(primary_keys):
        raise InvalidOptionError(
            BUCKET_KEY_OPTION, option, f"bucket keys must be primary key fields {primary_keys}"
        )
    return bucket_keys


# --------------------------------------------------------------------------------------------
# Hash and bucket
# --------------------------------------------------------------------------------------------


def compute_key_hash(values: Sequence[Value], types: Sequence[t.DataType]) -> int:
    """Java ``BinaryRow.hashCode`` of the key row ``values`` of ``types`` (signed 32-bit).

    The row is written as Java's generated projection writes keys: row kind INSERT and the
    default null layout of :func:`reference.spec.binary_row.encode_binary_row`.
    """
    return compute_binary_row_hash(encode_binary_row(values, types, RowKind.INSERT))


def compute_bucket_key_hash(values: Sequence[Value], types: Sequence[t.DataType]) -> int:
    """The hash of a bucket key row (values of the bucket key fields, in bucket key order)."""
    return compute_key_hash(values, types)


def compute_dynamic_bucket_key_hash(values: Sequence[Value], types: Sequence[t.DataType]) -> int:
    """The hash a dynamic-bucket table keeps in its HASH index: that of the trimmed primary key
    row (Java ``HashBucketAssignerOperator``: ``trimmedPrimaryKey().hashCode()``)."""
    return compute_key_hash(values, types)


def _java_remainder(dividend: int, divisor: int) -> int:
    """Java's ``%``: truncates toward zero, so the result has the dividend's sign."""
    remainder = abs(dividend) % abs(divisor)
    return -remainder if dividend < 0 else remainder


def compute_bucket(hash_code: int, num_buckets: int) -> int:
    """The default bucket function: ``Math.abs(hash % numBuckets)`` with Java's ``%``.

    Java: ``KeyAndBucketExtractor.bucket`` (0.9.0), ``DefaultBucketFunction`` (main).
    """
    if num_buckets <= 0:
        raise InvalidOptionError(BUCKET_OPTION, num_buckets, "a fixed bucket count must be > 0")
    return abs(_java_remainder(hash_code, num_buckets))


def compute_mod_bucket(value: int, num_buckets: int) -> int:
    """The ``mod`` bucket function: ``Math.floorMod(value, numBuckets)`` (Paimon main only).

    ``value`` is the single INT or BIGINT bucket key; Python's ``%`` is already a floor modulo.
    """
    if num_buckets <= 0:
        raise InvalidOptionError(BUCKET_OPTION, num_buckets, "a fixed bucket count must be > 0")
    return value % num_buckets


def compute_fixed_bucket(
    values: Sequence[Value],
    types: Sequence[t.DataType],
    num_buckets: int,
    function: BucketFunctionType = BucketFunctionType.DEFAULT,
) -> int:
    """The bucket of a bucket key row in a fixed-bucket table."""
    if function is BucketFunctionType.DEFAULT:
        return compute_bucket(compute_bucket_key_hash(values, types), num_buckets)
    if function is BucketFunctionType.MOD:
        if len(types) != 1 or not isinstance(types[0], (t.IntType, t.BigIntType)):
            raise InvalidOptionError(
                BUCKET_FUNCTION_TYPE_OPTION, function.value, "needs one INT or BIGINT bucket key"
            )
        # Java reads a null key's zeroed slot, so a null key lands in bucket 0.
        return compute_mod_bucket(0 if values[0] is None else values[0], num_buckets)
    raise UnsupportedFeature(f"bucket function '{function.value}' is not implemented")


def validate_cross_partition_options(options: Mapping[str, str]) -> None:
    """A cross-partition-update table (primary key without all partition fields) takes no
    ``sequence.field`` (Java ``SchemaValidation``: the key index keeps one location per key, so
    rows cannot be ordered across partitions); ``cross-partition-upsert.index-ttl`` makes the
    key index depend on the wall clock, which neither engine reproduces."""
    if SEQUENCE_FIELD_OPTION in options:
        raise InvalidOptionError(
            SEQUENCE_FIELD_OPTION,
            options[SEQUENCE_FIELD_OPTION],
            "cannot be used when the primary key lacks partition fields",
        )
    if INDEX_TTL_OPTION in options:
        raise UnsupportedFeature(f"'{INDEX_TTL_OPTION}' (a wall-clock dependent key index)")
