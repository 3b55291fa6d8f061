"""Creating a Paimon table from Spark: ``spark_impl.create_table`` and the write to a path
that is not yet a table.

Rules (Java ``SchemaManager.createTable``, ``Schema`` normalization, ``SchemaValidation``;
Paimon's Spark connector takes the keys as options: ``primary-key``, ``partition``):

1. A table exists when its ``schema/`` directory holds a ``schema-<id>`` file.
2. Creating writes ``schema/schema-0`` exclusively (``FileIO.create_exclusive``, the commit
   primitive: a local link or a conditional ``PutObject``), so of two concurrent creators one
   wins and the other gets :class:`~reference.errors.TableAlreadyExistsError`.
3. The schema is computed and validated by ``reference.spec.schema.compute_table_schema``
   (options moved into the key lists, primary-key columns made NOT NULL, every option and
   schema rule checked), the columns from the Spark schema with field ids assigned as Java's
   ``ReassignFieldId`` does (nested fields before their parent).
4. Of the write options, only Paimon's table options go into the schema; the source's own keys
   (path, S3 settings, commit identity, time travel) never do.
5. A write to an existing table may repeat its options but not change them: an option whose
   value differs from the table's is refused naming it (table options change by
   ``spark_impl.alter_table``), except the write-time options the writer honours
   (:data:`WRITE_TIME_OPTIONS`).
6. Before any task runs, each DataFrame column must be of the family of its table column's
   type (numbers, text, boolean, binary, date, timestamps, arrays, maps, rows; an all-NULL
   column fits any): Spark's store-assignment rule (ANSI) refuses ``string`` into ``INT``
   as Paimon's Spark connector does, and the refusal names the table, the column and both
   types instead of an Arrow parse error inside a task. Numbers convert among themselves (a
   Python ``int`` is a Spark ``bigint``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pyspark.sql import types as st

from reference import layout
from reference.errors import (
    InvalidOptionError,
    SpecViolation,
    TableAlreadyExistsError,
    UnsupportedFeature,
)
from reference.io import FileIO, file_io_for
from reference.spec import types as t
from reference.spec.options import (
    find_option,
    find_pattern,
    parse_name_list,
    parse_option_value,
)
from reference.spec.schema import (
    FIRST_SCHEMA_ID,
    PARTITION_OPTION,
    PRIMARY_KEY_OPTION,
    TableSchema,
    compute_reassigned_ids,
    compute_table_schema,
    encode_schema,
)
from reference.spec.units import NANOS_PER_MILLI
from spark_impl.options import SOURCE_OPTIONS, check_option_names
from spark_impl.spark_types import to_paimon_fields, to_spark_type

WRITE_TIME_OPTIONS = frozenset({"dynamic-partition-overwrite"})
"""Table options a write may set for itself (the writer reads them from the write options)."""


def is_table(file_io: FileIO, table_root: str) -> bool:
    """Rule 1."""
    names = file_io.list_dir(layout.schema_dir(table_root))
    return any(name.startswith(layout.SCHEMA_PREFIX) for name in names)


def compute_table_options(options: Mapping[str, str]) -> dict[str, str]:
    """Rule 4: the Paimon table options among ``options`` (source keys and S3 keys dropped)."""
    return {
        key: value
        for key, value in options.items()
        if key not in SOURCE_OPTIONS
        and (find_option(key) is not None or find_pattern(key) is not None)
    }


def compute_fields(spark_schema: Any) -> tuple[t.DataField, ...]:
    """Rule 3: Paimon fields of a Spark ``StructType``, ids as Java's ``ReassignFieldId``."""
    row, _ = compute_reassigned_ids(t.RowType(tuple(to_paimon_fields(spark_schema))), 0)
    assert isinstance(row, t.RowType)
    return row.fields


def write_first_schema(file_io: FileIO, table_root: str, schema: TableSchema) -> None:
    """Rule 2: ``schema-0`` created exclusively."""
    path = layout.schema_path(table_root, schema.id)
    if not file_io.create_exclusive(path, encode_schema(schema).encode("utf-8")):
        raise TableAlreadyExistsError("another writer created the table first", path=table_root)


def create_schema(
    file_io: FileIO,
    table_root: str,
    spark_schema: Any,
    options: Mapping[str, str],
    *,
    primary_keys: Sequence[str] = (),
    partition_keys: Sequence[str] = (),
    check: Callable[[TableSchema], object] | None = None,
) -> TableSchema:
    """Rules 1-4: create the table at ``table_root`` and return its schema 0; ``check`` (the
    writer's own refusals, e.g. a table kind it cannot write) runs before anything is
    written, so a refused write leaves no table behind."""
    table_root = table_root.rstrip("/")
    if is_table(file_io, table_root):
        raise TableAlreadyExistsError("the table already exists", path=table_root)
    schema = compute_table_schema(
        FIRST_SCHEMA_ID,
        compute_fields(spark_schema),
        partition_keys=tuple(partition_keys),
        primary_keys=tuple(primary_keys),
        options=compute_table_options(options),
        comment=None,
        time_millis=time.time_ns() // NANOS_PER_MILLI,
    )
    if check is not None:
        check(schema)
    write_first_schema(file_io, table_root, schema)
    return schema


def to_struct_type(schema_or_ddl: Any) -> Any:
    """A ``StructType`` as given, or parsed from a DDL string (``"id INT, v STRING"``)."""
    if isinstance(schema_or_ddl, st.StructType):
        return schema_or_ddl
    if isinstance(schema_or_ddl, str):
        parsed = st.StructType.fromDDL(schema_or_ddl)
        if isinstance(parsed, st.StructType):
            return parsed
    raise TypeError(f"expected a StructType or a DDL string, got {schema_or_ddl!r}")


def create_table(
    spark: Any,
    path: str,
    schema_or_ddl: Any,
    *,
    primary_keys: Sequence[str] = (),
    partition_keys: Sequence[str] = (),
    options: Mapping[str, str] | None = None,
) -> TableSchema:
    """Create the table at ``path`` (local or ``s3://``) with the columns of a Spark
    ``StructType`` or DDL string; ``options`` are Paimon's table options (``bucket``,
    ``merge-engine``, ...) plus the S3 keys. Raise ``TableAlreadyExistsError`` when it exists,
    ``InvalidOptionError`` / ``SpecViolation`` naming what is wrong. ``spark`` is unused
    (the metadata is written from the driver) and kept for the connector's call shape."""
    del spark
    given = {str(k).lower(): str(v) for k, v in (options or {}).items()}
    check_option_names(given)
    return create_schema(
        file_io_for(path, given),
        path,
        to_struct_type(schema_or_ddl),
        given,
        primary_keys=primary_keys,
        partition_keys=partition_keys,
    )


# --------------------------------------------------------------------------------------------
# Writing to an existing table
# --------------------------------------------------------------------------------------------


def _same_value(key: str, given: str, current: str | None) -> bool:
    """Whether two texts of option ``key`` mean the same value."""
    if current is None:
        return False
    spec = find_option(key)
    if spec is None:
        return given.strip() == current.strip()
    try:
        return bool(
            parse_option_value(spec.kind, given, spec.enum)
            == parse_option_value(spec.kind, current, spec.enum)
        )
    except ValueError:
        return given.strip() == current.strip()


def _current_value(schema: TableSchema, key: str) -> str | None:
    """The table's text for ``key``: its keys, its option, else the option's default."""
    if key == PRIMARY_KEY_OPTION:
        return ",".join(schema.primary_keys)
    if key == PARTITION_OPTION:
        return ",".join(schema.partition_keys)
    if key in schema.options:
        return schema.options[key]
    spec = find_option(key)
    return None if spec is None else spec.default


def check_write_options(schema: TableSchema, options: Mapping[str, str], table_root: str) -> None:
    """Rule 5: refuse a table option whose value differs from the table's."""
    for key, given in sorted(compute_table_options(options).items()):
        if key in WRITE_TIME_OPTIONS:
            continue
        current = _current_value(schema, key)
        if key in (PRIMARY_KEY_OPTION, PARTITION_OPTION):
            same = parse_name_list(given) == parse_name_list(current or "")
        else:
            same = _same_value(key, given, current)
        if not same:
            raise InvalidOptionError(
                key,
                given,
                f"the table at {table_root} has {current!r}; a write cannot change a table "
                "option (use spark_impl.alter_table, or write to a new path)",
            )


TYPE_FAMILIES: tuple[tuple[str, tuple[type[st.DataType], ...]], ...] = (
    ("number", (st.NumericType,)),
    ("text", (st.StringType, st.CharType, st.VarcharType)),
    ("boolean", (st.BooleanType,)),
    ("binary", (st.BinaryType,)),
    ("date", (st.DateType,)),
    ("timestamp", (st.TimestampType, st.TimestampNTZType)),
    ("time", (st.TimeType,)),
    ("array", (st.ArrayType,)),
    ("map", (st.MapType,)),
    ("row", (st.StructType,)),
)
"""Rule 6: the Spark type families a column may be written across."""


def type_family(data_type: st.DataType) -> str:
    for name, classes in TYPE_FAMILIES:
        if isinstance(data_type, classes):
            return name
    return data_type.simpleString()


def check_write_columns(schema: TableSchema, spark_schema: Any, table_root: str) -> None:
    """Rule 6: refuse a DataFrame column whose type cannot be written to its table column."""
    columns = {f.name: f.dataType for f in spark_schema.fields}
    for data_field in schema.fields:
        given = columns.get(data_field.name)
        if given is None or isinstance(given, st.NullType):
            continue  # a missing column is refused by the writer, naming every one
        try:
            wanted = to_spark_type(data_field.type)
        except UnsupportedFeature:
            continue  # no Spark type: the writer's own conversion decides
        if type_family(given) != type_family(wanted):
            raise SpecViolation(
                f"column {data_field.name!r}: the DataFrame's {given.simpleString()} cannot be "
                f"written to {data_field.type} (cast it first, e.g. "
                f"col({data_field.name!r}).cast({wanted.simpleString()!r}))",
                path=table_root,
                code="WRITE_COLUMN_TYPE",
            )
