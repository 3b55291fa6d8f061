"""spark_impl.jvm_bucket: Spark's own expressions give every row the bucket Java gives it (the
oracle here is spark_impl.write.compute_fixed_buckets, itself checked against the reference's
per-row BinaryRow hash in test_bucketing.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from reference.spec import types as t
from reference.spec.schema import TableSchema
from spark_impl.jvm_bucket import (
    MAX_FIELDS,
    estimate_input_bytes,
    is_jvm_bucketable,
    is_large_input,
    with_jvm_bucket,
)
from spark_impl.write import compute_fixed_buckets

pytestmark = pytest.mark.spark

EDGES = {
    t.TypeRoot.TINYINT: [0, 1, -1, 127, -128],
    t.TypeRoot.SMALLINT: [0, 1, -1, 32767, -32768],
    t.TypeRoot.INTEGER: [0, 1, -1, 2**31 - 1, -(2**31)],
    t.TypeRoot.BIGINT: [0, 1, -1, 2**63 - 1, -(2**63), 2**40, -(2**40)],
}
TYPES = {
    t.TypeRoot.TINYINT: (t.TinyIntType(), pa.int8(), "tinyint"),
    t.TypeRoot.SMALLINT: (t.SmallIntType(), pa.int16(), "smallint"),
    t.TypeRoot.INTEGER: (t.IntType(), pa.int32(), "int"),
    t.TypeRoot.BIGINT: (t.BigIntType(), pa.int64(), "bigint"),
}


def make_schema(roots: list[t.TypeRoot], buckets: int) -> TableSchema:
    fields = [t.DataField(i, f"k{i}", TYPES[r][0]) for i, r in enumerate(roots)]
    fields.append(t.DataField(len(roots), "v", t.IntType()))
    return TableSchema(
        version=3,
        id=0,
        fields=tuple(fields),
        highest_field_id=len(roots),
        partition_keys=(),
        primary_keys=(),
        options={
            "bucket": str(buckets),
            "bucket-key": ",".join(f"k{i}" for i in range(len(roots))),
        },
    )


def column_values(root: t.TypeRoot, rows: int, rng: np.random.Generator) -> list[Any]:
    info = np.iinfo(TYPES[root][1].to_pandas_dtype())
    values: list[Any] = rng.integers(
        info.min, info.max, rows, dtype=np.int64, endpoint=True
    ).tolist()
    values[: len(EDGES[root])] = EDGES[root]
    for position in rng.choice(rows, rows // 10, replace=False):
        values[int(position)] = None
    return values


def check(spark: Any, roots: list[t.TypeRoot], buckets: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = 300
    schema = make_schema(roots, buckets)
    keys = [column_values(root, rows, rng) for root in roots]
    arrow = pa.table(
        {
            **{
                f"k{i}": pa.array(values, TYPES[root][1])
                for i, (root, values) in enumerate(zip(roots, keys, strict=True))
            },
            "v": pa.array(range(rows), pa.int32()),
        }
    )
    expected = compute_fixed_buckets(arrow, schema).tolist()
    ddl = ", ".join([f"k{i} {TYPES[r][2]}" for i, r in enumerate(roots)] + ["v int"])
    data = [(*row, i) for i, row in enumerate(zip(*keys, strict=True))]
    frame = spark.createDataFrame(data, ddl)
    got = {r.v: r.b for r in with_jvm_bucket(frame, schema, "b").select("v", "b").collect()}
    assert [got[i] for i in range(rows)] == expected


@pytest.mark.parametrize("root", sorted(TYPES, key=lambda r: r.name), ids=lambda r: r.name)
@pytest.mark.parametrize("buckets", [1, 4, 7, 1000])
def test_single_key_buckets_equal_java(spark: Any, root: t.TypeRoot, buckets: int) -> None:
    check(spark, [root], buckets, seed=buckets)


@pytest.mark.parametrize("arity", [2, 3, 9])
def test_composite_key_buckets_equal_java(spark: Any, arity: int) -> None:
    roots = [list(TYPES)[i % len(TYPES)] for i in range(arity)]
    check(spark, roots, 16, seed=arity)


def test_only_integer_keys_of_the_default_function() -> None:
    assert is_jvm_bucketable(make_schema([t.TypeRoot.BIGINT], 4))
    assert not is_jvm_bucketable(make_schema([t.TypeRoot.BIGINT] * (MAX_FIELDS + 1), 4))
    plain = make_schema([t.TypeRoot.BIGINT], 4)
    mod = replace(plain, options={**plain.options, "bucket-function.type": "mod"})
    assert not is_jvm_bucketable(mod)


def test_only_large_inputs_take_the_jvm_route(spark: Any) -> None:
    """The expressions' planning cost is paid only for inputs Spark estimates as large."""
    small = spark.range(1000).selectExpr("id as k")
    large = spark.range(100_000_000).selectExpr("id as k", "concat('value-', id) as v")
    assert estimate_input_bytes(small) is not None
    assert not is_large_input(small)
    assert is_large_input(large)
