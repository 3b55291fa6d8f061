"""Hand-built records shared by the validator's unit tests: an INT-keyed primary-key schema and
data file metadata over it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reference.spec import types as t
from reference.spec.binary_row import serialize_binary_row
from reference.spec.data_file import DataFileMeta
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.stats import EMPTY_STATS

KEY_TYPES = [t.IntType(nullable=False)]


def int_key_schema(buckets: int) -> TableSchema:
    """``k INT NOT NULL`` (the primary key), ``v STRING``, ``buckets`` fixed buckets."""
    return decode_schema(
        '{"version": 3, "id": 0, "fields": [{"id": 0, "name": "k", "type": "INT NOT NULL"},'
        ' {"id": 1, "name": "v", "type": "STRING"}], "highestFieldId": 1, "partitionKeys": [],'
        f' "primaryKeys": ["k"], "options": {{"bucket": "{buckets}"}}, "timeMillis": 0}}'
    )


def compute_key(value: int) -> bytes:
    return serialize_binary_row([value], KEY_TYPES)


# name, size, rows, min and max key, key and value stats, sequence numbers, schema, level,
# extra files, creation time
BASE_META = DataFileMeta(
    "data-x-0.parquet", 100, 10, compute_key(0), compute_key(9), EMPTY_STATS, EMPTY_STATS, 0, 9,
    0, 0, (), None,
)  # fmt: skip


def key_range_meta(low: int, high: int, **changes: Any) -> DataFileMeta:
    """:data:`BASE_META` with keys ``[low, high]`` and other ``changes``."""
    return replace(
        BASE_META,
        min_key=compute_key(low),
        max_key=compute_key(high),
        **changes,
    )
