"""Format tables in spark_impl: a directory of plain CSV, Parquet or ORC files read as a
DataFrame and written from one.

The rules are ``reference/format_table.py`` (Java main's ``FormatTable``, ``CsvParser``,
``PartitionPathUtils``). The table's schema comes from its catalog (the directory holds only
data files), so a read takes the :class:`~reference.format_table.FormatTable` record. Which
reader runs is the table option ``format-table.implementation`` (Java main's
``CoreOptions.FORMAT_TABLE_IMPLEMENTATION``):

* ``paimon`` (the default): Paimon's own rules, through the ``paimon`` data source with
  ``type = format-table`` (:mod:`spark_impl.datasource`). The driver discovers the partitions
  (``<key>=<value>`` directories, one level per partition key, hidden names skipped) and lists
  each partition's data files; each file is one Spark partition read on an executor: CSV
  decoded by the CSV codec of ``reference.format_table`` (doubled quotes, escapes, the
  ``csv.mode`` rules), Parquet and ORC by column name, partition columns cast from their
  directory strings.

  Reading one directly::

      spark.read.format("paimon").schema("a INT, s STRING, dt STRING")
           .option("type", "format-table").option("file.format", "csv")
           .option("partition-keys", "dt").load("/warehouse/db.db/events")

  The Spark schema gives the Paimon types (strings as STRING, timestamps precision 6); the
  ``fields`` option (the catalog's field JSON) gives them exactly.

Writing (:func:`write_format_table`, Java main's ``FormatTableFileWriter`` /
``FormatTableCommit``): the rows are shuffled by partition and each task writes one file per
partition, ``data-<uuid>-0.<format>``, rows in arrival order, encoded by the file codec of
``reference.format_table`` (CSV quoting, Parquet/ORC with ``file.compression``). An overwrite
then deletes the older data files of the static partition's directory, else (partitioned,
``dynamic-partition-overwrite`` on) of the partitions written, else of every partition. Java
stages files and moves them at commit; here, as in the reference, files appear one by one.
* ``engine``: Spark's own file sources with the options Paimon's Spark catalog hands them
  (Java ``FormatTableCatalog.convertToFileTable``), partitions discovered by Spark. Spark's
  CSV parser differs from Paimon's, e.g. on a doubled quote inside a quoted field.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa

from reference import layout
from reference.errors import SpecViolation
from reference.io import FileIO, file_io_for
from reference.spec.file_format import arrow_to_rows
from reference.spec.format_table import (
    FILE_FORMAT_OPTION,
    FormatTable,
    FormatTableFormat,
    compute_csv_options,
    encode_format_file,
)
from spark_impl.format_files import (
    ENGINE_IMPLEMENTATION,
    compute_source_options,
    data_fields,
    discover_partitions,
    implementation_of,
    list_visible_files,
)
from spark_impl.spark_types import to_spark_schema
from spark_impl.write import to_paimon_table

# --------------------------------------------------------------------------------------------
# The DataFrame
# --------------------------------------------------------------------------------------------


def read_format_table(
    spark: Any, table: FormatTable, fs_options: Mapping[str, str] | None = None
) -> Any:
    """The table's rows as a DataFrame (columns in the table's order): through the ``paimon``
    source (``format-table.implementation = paimon``) or Spark's own file sources
    (``engine``). ``fs_options`` are the storage options (``s3.*``) of
    ``reference.io.file_io_for``."""
    if implementation_of(table) == ENGINE_IMPLEMENTATION:
        return read_with_spark_sources(spark, table)
    from spark_impl.datasource import FORMAT_NAME, register  # noqa: PLC0415 (pyspark)

    register(spark)
    options = {**compute_source_options(table), **(fs_options or {})}
    reader = spark.read.format(FORMAT_NAME).schema(to_spark_schema(table.fields))
    return reader.options(**options).load(table.location)


def spark_csv_options(options: Mapping[str, str]) -> dict[str, str]:
    """A format table's CSV options as Spark's CSV source names them (Java
    ``FormatTableCatalog.convertToFileTable``)."""
    csv = compute_csv_options(options)
    return {
        "sep": csv.field_delimiter,
        "lineSep": csv.line_delimiter,
        "quote": csv.quote,
        "escape": csv.escape,
        "header": str(csv.include_header).lower(),
        "nullValue": csv.null_literal,
        "mode": csv.mode.value.upper(),
    }


def read_with_spark_sources(spark: Any, table: FormatTable) -> Any:
    """``format-table.implementation = engine``: Spark's own CSV, Parquet or ORC source."""
    file_format = table.options.get(FILE_FORMAT_OPTION, table.format.value).strip().lower()
    reader = spark.read.format(file_format).schema(to_spark_schema(table.fields))
    if table.format is FormatTableFormat.CSV:
        reader = reader.options(**spark_csv_options(table.options))
    return reader.load(table.location).select(*[f.name for f in table.fields])


# --------------------------------------------------------------------------------------------
# Writing (executors write files, the driver clears what an overwrite replaces)
# --------------------------------------------------------------------------------------------

ARRIVAL_COLUMN = "_PAIMON_ARRIVAL"
WRITTEN_COLUMN = "_PAIMON_WRITTEN"


def partition_directory(table: FormatTable, values: Sequence[Any]) -> str:
    """The directory of a partition, or of the leading keys ``values`` name (``k1=v1/k2=v2``
    under the table's)."""
    spec = layout.compute_partition_spec(
        table.partition_fields[: len(values)],
        values,
        default_name=table.default_partition_name,
        legacy_name=table.legacy_partition_name,
    )
    return layout.join(table.location, layout.compute_partition_path(spec))


def write_partitions(file_io: FileIO, table: FormatTable, rows: pa.Table) -> list[str]:
    """One file per partition of ``rows`` (the table's columns, Paimon's canonical Arrow, in
    arrival order): ``data-<uuid>-0.<format>``; the paths written."""
    writer_uuid = str(uuid.uuid4())
    keys = list(table.partition_keys)
    groups: dict[tuple[Any, ...], list[int]] = {}
    partition_rows = arrow_to_rows(rows.select(keys), table.partition_fields) if keys else None
    for index in range(rows.num_rows):
        key = tuple(partition_rows[index]) if partition_rows is not None else ()
        groups.setdefault(key, []).append(index)
    fields = data_fields(table)
    written = []
    for values, indices in groups.items():
        data = rows.take(pa.array(indices)).select([f.name for f in fields])
        name = f"data-{writer_uuid}-0.{table.format.value}"
        path = layout.join(partition_directory(table, values), name)
        file_io.write_bytes(path, encode_format_file(table, arrow_to_rows(data, fields)))
        written.append(path)
    return written


def check_static_partition(table: FormatTable, spec: Mapping[str, Any]) -> list[str]:
    """The keys of a static partition spec, which must be the table's leading partition keys."""
    keys = list(table.partition_keys[: len(spec)])
    if set(spec) != set(keys):
        raise SpecViolation(
            f"static partition {dict(spec)} must name the leading partition keys {keys}",
            code="OVERWRITE_UNKNOWN_PARTITION_KEY",
        )
    return keys


def cleared_directories(
    file_io: FileIO,
    table: FormatTable,
    written: Sequence[str],
    static_partition: Mapping[str, Any] | None,
) -> list[str]:
    """The directories whose older data files an overwrite deletes: the static partition's,
    else (partitioned, ``dynamic-partition-overwrite`` on, the default) those written to,
    else every partition's."""
    if static_partition:
        keys = check_static_partition(table, static_partition)
        return [partition_directory(table, [static_partition[k] for k in keys])]
    dynamic = table.options.get("dynamic-partition-overwrite", "true").strip().lower() == "true"
    if table.partition_keys and dynamic:
        return sorted({path.rsplit("/", 1)[0] for path in written})
    return [directory for directory, _ in discover_partitions(file_io, table)]


def write_format_table(
    frame: Any,
    table: FormatTable,
    *,
    overwrite: bool = False,
    static_partition: Mapping[str, Any] | None = None,
    fs_options: Mapping[str, str] | None = None,
) -> list[str]:
    """Insert the rows of ``frame`` (the table's columns) into a format table, each Spark task
    writing one file per partition it holds (rows in arrival order); an overwrite then deletes
    the other data files of the directories it replaces. Returns the written paths."""
    from pyspark.sql import functions as F  # noqa: PLC0415
    from pyspark.sql.types import StringType, StructField, StructType  # noqa: PLC0415

    storage = dict(fs_options or {})
    file_io = file_io_for(table.location, storage)
    if static_partition:
        check_static_partition(table, static_partition)

    def write(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        received = [b for b in batches if b.num_rows]
        if not received:
            return
        arrived = pa.Table.from_batches(received).sort_by(ARRIVAL_COLUMN)
        rows = to_paimon_table(arrived.drop_columns([ARRIVAL_COLUMN]), table.fields)
        if static_partition:
            keys = list(table.partition_keys)
            values = arrow_to_rows(rows.select(keys), table.partition_fields)
            spec = [(keys.index(k), v) for k, v in static_partition.items()]
            if any(row[i] != v for row in values for i, v in spec):
                raise SpecViolation(
                    f"a row lies outside the static partition {dict(static_partition)}",
                    code="OVERWRITE_OUTSIDE_PARTITION",
                )
        paths = write_partitions(file_io_for(table.location, storage), table, rows)
        yield pa.record_batch([pa.array(paths, pa.string())], [WRITTEN_COLUMN])

    keys = [F.col(k) for k in table.partition_keys]
    arriving = frame.select(*[f.name for f in table.fields]).withColumn(
        ARRIVAL_COLUMN, F.monotonically_increasing_id()
    )
    spread = arriving.repartition(*keys) if keys else arriving.coalesce(1)
    output = StructType([StructField(WRITTEN_COLUMN, StringType(), False)])
    written = [row[0] for row in spread.mapInArrow(write, output).collect()]
    if overwrite:
        mine = set(written)
        for directory in cleared_directories(file_io, table, written, static_partition):
            for path in list_visible_files(file_io, directory):
                if path not in mine:
                    file_io.delete(path)
    return written
