"""``spark.read.format("paimon")``: a PySpark 4 Python Data Source over :mod:`spark_impl`.

Usage::

    import spark_impl
    spark_impl.register(spark)
    spark.read.format("paimon").option("snapshot-id", "3").load("s3://bucket/db.db/t")

Options (besides the table path given to ``load``):

* Paimon's keys (:mod:`spark_impl.options`): ``scan.snapshot-id``, ``scan.tag-name``,
  ``scan.timestamp-millis``, ``scan.mode``, Spark's ``versionAsOf`` / ``timestampAsOf`` (and
  the short ``snapshot-id`` / ``tag-name`` / ``timestamp-millis``): time travel (at most
  one); the rows come in the schema the selected snapshot was committed with. Without one, a
  load pins the latest snapshot (:func:`compute_pinned_snapshot`). An unknown key is refused
  with the nearest known ones. On a write, Paimon's table options create the table when the
  path holds none (:mod:`spark_impl.create`) and must match the table's otherwise.
* ``s3.endpoint``, ``s3.access-key``, ``s3.secret-key``, ``s3.region``,
  ``s3.path-style-access`` (and the other spellings ``reference.io`` accepts): passed to
  ``reference.io.file_io_for`` on the driver and in every executor, which do their own IO.

Writing: ``df.write.format("paimon").mode("append" | "overwrite").save(path)`` runs
:func:`spark_impl.write.write_task` in every task (Arrow batches in, files and commit messages
out) and commits on the driver (:mod:`spark_impl.commit`); the written buckets of primary-key
tables are compacted before the commit, as Java's batch writer does (in the tasks when the
rows were shuffled by bucket, else on the driver). ``spark_impl.write_table`` prepares the
DataFrame (bucket, shuffle, order) and is the way to write dynamic-bucket tables. ``overwrite``
replaces the partitions the write has rows for when the table's ``dynamic-partition-overwrite``
is on (the default), else the whole table; the write option of the same name overrides it. The
write option ``static-partition`` (a JSON object such as ``{"dt": "2024-01-01"}``) replaces
that partition only, as ``INSERT OVERWRITE t PARTITION (dt = '2024-01-01')`` does.

Streaming: ``spark.readStream.format("paimon").option("read.row-kind", "true").load(path)``
(or ``spark_impl.read_stream``): offsets are snapshot ids, the first micro-batch is the latest
snapshot in full, then each new snapshot's changes, with a ``_ROW_KIND`` column
(:mod:`spark_impl.stream`). ``read.row-kind`` adds that column to the schema (a batch read has
every row ``+I``).

Planning (:func:`spark_impl.plan.plan_read`) runs when Spark asks for partitions: one
:class:`SplitPartition` per split of the latest (or time-travelled) snapshot. It depends on the
table and the options only, never on a query's filters: Spark (4.3, ``PythonScanBuilder``)
keeps the partitions and read function planned during filter pushdown on the relation's
provider (``PythonDataSourceV2.setReadInfo``) and hands them to every later scan of that
DataFrame or view that pushes no filter Python can see (no filter, or only ``OR`` and other
expressions), so a plan pruned by one query's filters would silently drop rows from the next.
``pushFilters`` hands every filter back and records nothing; Spark applies the filters to the
rows. :func:`to_predicate` translates filters for callers that plan themselves
(``plan_read(predicate=...)``).
"""

from __future__ import annotations

from typing import Any, cast

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamWriter,
)
from pyspark.sql.types import StringType, StructField, StructType

from reference.spec.schema import decode_schema
from spark_impl import format_files as format_table
from spark_impl import system_table_source, system_tables, workers
from spark_impl.batch_source import (
    ROW_KIND_COLUMN,
    FormatTableReader,
    PaimonReader,
    PaimonStreamReader,
    PaimonWriter,
    check_read_options,
    compute_pinned_snapshot,
    compute_schema_travel,
    is_row_kind_read,
    open_file_io,
    plain_options,
    table_path,
)
from spark_impl.plan import resolve_read_schema
from spark_impl.spark_types import to_spark_schema
from spark_impl.stream_sink import create_stream_writer
from spark_impl.stream_source import PaimonStreamSource

FORMAT_NAME = "paimon"
FILTER_PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"
HIDE_TRACEBACK_CONF = "spark.sql.execution.pyspark.udf.hideTraceback.enabled"


class PaimonDataSource(DataSource):
    """The ``paimon`` format (see the module docstring)."""

    @classmethod
    def name(cls) -> str:
        return FORMAT_NAME

    def schema(self) -> StructType:
        options = plain_options(self.options)
        if system_tables.system_table_of(options) is not None:  # path$name
            return cast(StructType, system_table_source.spark_schema_of(options))
        if format_table.is_format_table_read(options):  # no .schema(...): the 'fields' option
            table = format_table.parse_source_options(options, table_path(options), None)
            return to_spark_schema(table.fields)
        check_read_options(options)
        travel = compute_schema_travel(options)
        snapshot, schema_json = resolve_read_schema(
            open_file_io(options), table_path(options), travel
        )
        self.pinned_snapshot_id = compute_pinned_snapshot(travel, snapshot, schema_json)
        schema = to_spark_schema(decode_schema(schema_json).fields)
        if is_row_kind_read(options):
            schema = StructType([*schema.fields, StructField(ROW_KIND_COLUMN, StringType(), False)])
        return schema

    def reader(self, schema: StructType) -> DataSourceReader:
        options = plain_options(self.options)
        if system_tables.system_table_of(options) is not None:
            return system_table_source.SystemTableReader(options, schema)
        if format_table.is_format_table_read(options):
            return FormatTableReader(options, schema)
        return PaimonReader(options, schema, getattr(self, "pinned_snapshot_id", None))

    def writer(self, schema: StructType, overwrite: bool) -> PaimonWriter:
        return PaimonWriter(plain_options(self.options), overwrite, schema)

    def streamReader(self, schema: StructType) -> PaimonStreamReader:
        return PaimonStreamSource(plain_options(self.options), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        return create_stream_writer(plain_options(self.options), overwrite, schema)


def register(spark: Any) -> None:
    """Register the ``paimon`` format and turn on Python filter pushdown; in local mode the
    workers run the driver's interpreter unless one was chosen (:mod:`spark_impl.workers`).

    Errors: unless the session chose otherwise, Python workers report an exception as its
    one line (``spark.sql.execution.pyspark.udf.hideTraceback.enabled``; spark_impl's
    errors name the table, option or column and the cause), not as a Python traceback
    repeated inside Spark's messages; set it to ``false`` to see tracebacks again."""
    workers.use_driver_python(spark)
    spark.dataSource.register(PaimonDataSource)
    spark.conf.set(FILTER_PUSHDOWN_CONF, "true")
    if spark.conf.get(HIDE_TRACEBACK_CONF, None) is None:
        spark.conf.set(HIDE_TRACEBACK_CONF, "true")
