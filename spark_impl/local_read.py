"""The driver-local read of a tiny planned scan: the files read on the driver, the rows handed to
Spark as a local relation.

A point query (``read_table(spark, root, [("v", "=", value)])``) keeps a file or two after the
planner's pruning; reading them through Spark's file scan costs a file listing, a schema check
and a scan stage, more than reading them. Rules of :func:`read_plan_locally`:

1. *When.* A plan of the latest or a time-travel snapshot read with filters whose planned files
   hold at most ``read.local.max-rows`` rows (:data:`spark_impl.options.LOCAL_READ_MAX_ROWS_OPTION`,
   default :data:`LOCAL_READ_MAX_ROWS`; ``0`` turns the path off) and at most
   :data:`LOCAL_READ_MAX_BYTES` bytes. A read without filters keeps the hybrid read whatever its
   size (it is not a point query; its DataFrame keeps its input files).
2. *Which tables.* Columns whose Spark Arrow form ``spark.createDataFrame`` takes back unchanged:
   numbers, strings, binaries, booleans and dates (createDataFrame re-localizes timestamps to
   the session time zone; times and nested types are left out too). Other tables decline and
   take the hybrid read.
3. *How.* Each split is read by :func:`spark_impl.read.read_split`, the code behind the Python
   route of the hybrid read (Java ``MergeFileSplitRead`` / ``RawFileSplitRead``): merge of
   primary-key splits, deletion vectors, schema evolution, default values, data evolution; for
   append tables the files' indexes may leave rows out (Java ``FileIndexEvaluator``: an index
   never rules out a matching row), so what is read is a superset of the matching rows. The
   rows are narrowed by the plan's predicate where pyarrow and Spark agree exactly
   (:func:`narrow_rows`), then become one ``spark.createDataFrame(<Arrow table>, <schema>)``
   (a ``LocalRelation`` under ``spark.sql.execution.arrow.localRelationThreshold``): no file
   scan, no scan task.
4. *The answer.* :func:`spark_impl.native_read.read_table` applies the filters as Spark
   conditions on top, as it does on the hybrid read, so the answer is the same rows. The rows
   are read when the DataFrame is built: it is the snapshot planned, later commits unseen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reference.errors import InvalidOptionError
from reference.io import file_io_for
from reference.spec import types as t
from reference.spec.predicate import And, Leaf, Predicate, PredicateOp
from reference.spec.schema import TableSchema, decode_schema
from spark_impl.options import LOCAL_READ_MAX_ROWS_OPTION
from spark_impl.plan import ReadPlan
from spark_impl.read import read_split
from spark_impl.spark_types import to_spark_arrow_schema, to_spark_batch, to_spark_schema

LOCAL_READ_MAX_ROWS = 262144
"""Rule 1: the default of ``read.local.max-rows``, the planned rows a local read may hold: a
few files of a point query (W5's files hold 33k rows, and a bloom filter's false positive
plans a second one), read on the driver in a few tens of milliseconds, less than a scan job."""
LOCAL_READ_MAX_BYTES = 32 * 1024 * 1024
"""Rule 1: the planned files' bytes a local read may hold (the driver reads them)."""
LOCAL_ROOTS = (
    t.NUMERIC_ROOTS | t.CHARACTER_ROOTS | t.BINARY_ROOTS | {t.TypeRoot.BOOLEAN, t.TypeRoot.DATE}
)
"""Rule 2: column types the local read takes (timestamps, times and nested types decline)."""
NARROWING_ROOTS = t.INTEGER_ROOTS | {t.TypeRoot.VARCHAR}
"""Rule 3: columns whose equality is the same in pyarrow and Spark (integers; strings by their
bytes, Spark's default ``UTF8_BINARY`` collation; not CHAR, which Spark may pad)."""
NARROWING_OPS = frozenset({PredicateOp.EQUAL, PredicateOp.IN})


def local_read_max_rows(options: Mapping[str, str]) -> int:
    """Rule 1: ``read.local.max-rows`` (a non-negative integer), else the default."""
    text = options.get(LOCAL_READ_MAX_ROWS_OPTION)
    if text is None:
        return LOCAL_READ_MAX_ROWS
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise InvalidOptionError(LOCAL_READ_MAX_ROWS_OPTION, text, "expected an integer >= 0")
    return value


def is_plan_local(plan: ReadPlan, schema: TableSchema, max_rows: int) -> bool:
    """Rules 1 and 2: whether ``plan`` is read on the driver."""
    files = [ref for split in plan.splits for ref in split.files]
    if sum(ref.row_count for ref in files) > max_rows:
        return False
    if sum(ref.file_size for ref in files) > LOCAL_READ_MAX_BYTES:
        return False
    return all(f.type.root in LOCAL_ROOTS for f in schema.fields)


def find_narrowing_leaves(predicate: Predicate, schema: TableSchema) -> list[Leaf]:
    """Rule 3: the top-level conjuncts ``column = value`` / ``column IN (values)`` on a
    :data:`NARROWING_ROOTS` column with no null value: every row of Spark's answer passes each
    of them, so keeping only the rows that pass them keeps a superset of that answer."""
    types = {f.name: f.type for f in schema.fields}
    children = predicate.children if isinstance(predicate, And) else (predicate,)
    return [
        leaf
        for leaf in children
        if isinstance(leaf, Leaf)
        and leaf.op in NARROWING_OPS
        and leaf.field in types
        and types[leaf.field].root in NARROWING_ROOTS
        and leaf.literals
        and all(value is not None for value in leaf.literals)
    ]


def narrow_rows(rows: pa.Table, predicate: Predicate, schema: TableSchema) -> pa.Table:
    """Rule 3: the rows passing :func:`find_narrowing_leaves` (a null never passes, as a
    null compared in SQL is not true)."""
    for leaf in find_narrowing_leaves(predicate, schema):
        column = rows.column(leaf.field)
        values = compute_value_set(leaf.literals, column.type)
        rows = rows.filter(pc.is_in(column, value_set=values))
    return rows


def compute_value_set(literals: Sequence[Any], arrow_type: pa.DataType) -> pa.Array:
    """Rule 3: the literals as values of the column's Arrow type; an integer outside the
    column's range matches no row (Spark compares it exactly, after widening the column)."""
    if pa.types.is_integer(arrow_type):
        bounds = np.iinfo(arrow_type.to_pandas_dtype())
        literals = [v for v in literals if bounds.min <= v <= bounds.max]
    return pa.array(list(literals), type=arrow_type)


def read_plan_locally(spark: Any, plan: ReadPlan, options: Mapping[str, str]) -> Any | None:
    """Rules 1-3: the plan's rows as a local DataFrame in the read schema, or ``None`` when the
    plan is not read locally (no filter, too large, a declined type)."""
    if plan.predicate is None:
        return None
    max_rows = local_read_max_rows(options)
    schema = plan.schema
    if max_rows == 0 or not is_plan_local(plan, schema, max_rows):
        return None
    file_schemas = {i: decode_schema(j) for i, j in plan.file_schema_jsons.items()}
    file_io = file_io_for(plan.table_root, options)
    spark_schema = to_spark_schema(schema.fields)
    arrow_schema = to_spark_arrow_schema(spark_schema)
    tables = [
        to_spark_batch(
            read_split(file_io, split, schema, file_schemas, predicate=plan.predicate),
            arrow_schema,
        )
        for split in plan.splits
    ]
    rows = pa.concat_tables(tables) if tables else arrow_schema.empty_table()
    return spark.createDataFrame(narrow_rows(rows, plan.predicate, schema), spark_schema)
