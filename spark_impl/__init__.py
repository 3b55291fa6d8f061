"""paimon-kit's PySpark engine: a ``paimon`` Python Data Source with its own planning,
vectorized merge-on-read, writer, committer, compaction and streaming reads (see
:mod:`spark_impl.datasource`), and the jobs of :mod:`spark_impl.jobs`.

Entry points (pyspark is imported lazily)::

    spark_impl.register(spark)
    spark_impl.create_table(spark, "/warehouse/db.db/t", "id INT, v STRING, dt STRING",
                            primary_keys=["id", "dt"], partition_keys=["dt"],
                            options={"bucket": "4"})
    spark_impl.write_table(df, "/warehouse/db.db/t", mode="append")
    spark.read.format("paimon").load("/warehouse/db.db/t")
    spark_impl.read_table(spark, "/warehouse/db.db/t")       # hybrid: Spark's own Parquet reader
    spark_impl.read_stream(spark, "/warehouse/db.db/t")      # changes with _ROW_KIND
    from spark_impl.jobs import compact, expire
    compact(spark, "/warehouse/db.db/t", full=True)          # primary-key and append tables
    expire(spark, "/warehouse/db.db/t", retain_max=10)
    from spark_impl import dml
    dml.delete(spark, "/warehouse/db.db/t", "dt = '2024-01-01' AND v < 0")
    dml.update(spark, "/warehouse/db.db/t", "k = 3", {"v": "v + 1"})
    from spark_impl.format_table import read_format_table   # format tables (plain files)
    spark_impl.alter_table(spark, "/warehouse/db.db/t", add_columns={"c": "BIGINT"})
    from spark_impl import procedures                        # tags, branches, rollback, ...
    procedures.create_tag("/warehouse/db.db/t", "v1")
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from spark_impl.workers import require_worker_modules

require_worker_modules()  # in a Spark worker without pyarrow / numpy: name the interpreter


def register(spark: Any) -> None:
    """Register the ``paimon`` data source on ``spark`` (imports pyspark lazily)."""
    from spark_impl.datasource import register as register_datasource  # noqa: PLC0415 (pyspark)

    register_datasource(spark)


def write_table(
    df: Any, path: str, mode: str = "append", options: Mapping[str, str] | None = None
) -> None:
    """Write ``df`` to the table at ``path``: plain appends and overwrites of the append tables
    :mod:`spark_impl.native_write` accepts go through Spark's own Parquet writer, every other
    write through the Python writer (:func:`spark_impl.jobs.write_table`)."""
    from spark_impl import native_write  # noqa: PLC0415

    native_write.write_table(df, path, mode, options)


def read_table(
    spark: Any, path: str, filters: Sequence[tuple[str, str, Any]] = (), **options: str
) -> Any:
    """The table as one DataFrame, splits that need no merge read by Spark's own Parquet/ORC
    reader; ``filters`` (``[("v", "=", "x"), ...]``) prune the plan and filter the rows (see
    :func:`spark_impl.native_read.read_table`)."""
    from spark_impl import native_read  # noqa: PLC0415

    return native_read.read_table(spark, path, filters, **options)


def read_stream(spark: Any, path: str, options: Mapping[str, str] | None = None) -> Any:
    """The table's changes as a streaming DataFrame (see :func:`spark_impl.jobs.read_stream`)."""
    from spark_impl import jobs  # noqa: PLC0415

    return jobs.read_stream(spark, path, options)


if TYPE_CHECKING:  # their real signatures for type checkers; imported on first use at run time
    from spark_impl.alter import alter_table as alter_table
    from spark_impl.create import create_table as create_table

LAZY_FUNCTIONS = {"create_table": "spark_impl.create", "alter_table": "spark_impl.alter"}
"""Entry points whose modules import pyspark at the top, loaded on first use (PEP 562)."""


def __getattr__(name: str) -> Any:
    if name in LAZY_FUNCTIONS:
        return getattr(importlib.import_module(LAZY_FUNCTIONS[name]), name)
    raise AttributeError(f"module 'spark_impl' has no attribute {name!r}")
