"""Schema evolution from spark_impl: add, rename, drop, reorder columns, widen types, set
options, by committing the next ``schema/schema-<id>`` file.

Rules (Java ``schema/SchemaManager.commitChanges``; the change records and how they apply are
the spec's own, :func:`reference.spec.schema.apply_schema_changes`):

1. The changes apply in order to the latest schema. New columns get ids from
   ``highestFieldId + 1``; renamed, moved and retyped columns keep their ids, so files written
   before read on by field id (dropped columns are never read again, added ones read as NULL).
2. Refused, with a ``SpecViolation`` naming the column: adding a column that exists, renaming
   onto an existing name, touching a column that does not exist, dropping a partition or
   primary-key column or every column, changing the type of a key column or to a type the
   old one does not convert to.
3. Narrowing a type (``BIGINT`` to ``INT``, a shorter ``VARCHAR``, a smaller ``DECIMAL``,
   ``STRING`` to a number) is refused here: Java allows any explicit cast, which truncates or
   fails on values already written when they are read; spark_impl accepts only changes that
   keep every value (:func:`is_widening`), ``INT`` to ``STRING`` included.
4. The partition keys and the primary key cannot be changed through the ``partition`` and
   ``primary-key`` options.
5. The new schema file is created exclusively; when a concurrent change took the id, the
   changes are applied again to the new latest schema (up to ``commit.max-retries`` times).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from reference import layout
from reference.errors import CommitConflictError, SpecViolation
from reference.io import FileIO, file_io_for
from reference.spec import types as t
from reference.spec.schema import (
    PARTITION_OPTION,
    PRIMARY_KEY_OPTION,
    AddColumn,
    DropColumn,
    Move,
    MoveKind,
    RemoveOption,
    RenameColumn,
    SchemaChange,
    SetOption,
    TableSchema,
    UpdateColumnPosition,
    UpdateColumnType,
    apply_schema_changes,
    encode_schema,
)
from reference.spec.units import NANOS_PER_MILLI
from spark_impl.metadata import find_latest_snapshot_id, read_latest_schema

KEY_OPTIONS = (PARTITION_OPTION, PRIMARY_KEY_OPTION)
INTEGER_WIDTHS = {
    t.TypeRoot.TINYINT: 1,
    t.TypeRoot.SMALLINT: 2,
    t.TypeRoot.INTEGER: 4,
    t.TypeRoot.BIGINT: 8,
}
FLOAT_WIDTHS = {t.TypeRoot.FLOAT: 4, t.TypeRoot.DOUBLE: 8}
TypeLike = t.DataType | str | Any
"""A Paimon type, a Paimon SQL type string (``BIGINT``, ``DECIMAL(10, 2)``) or a pyspark
``DataType``."""


def to_data_type(value: TypeLike) -> t.DataType:
    """A Paimon type from a Paimon type, a Paimon SQL string or a pyspark type."""
    if isinstance(value, t.DataType):
        return value
    if isinstance(value, str):
        return t.parse_sql_type(value)
    from spark_impl.spark_types import to_paimon_type  # noqa: PLC0415 (pyspark)

    return to_paimon_type(value)


def _integer_fits(old: t.DataType, new: t.DataType) -> bool:
    if new.root in INTEGER_WIDTHS:
        return INTEGER_WIDTHS[new.root] >= INTEGER_WIDTHS[old.root]
    if isinstance(new, t.DecimalType):
        digits = {1: 3, 2: 5, 4: 10, 8: 19}[INTEGER_WIDTHS[old.root]]
        return new.precision - new.scale >= digits
    return new.root in FLOAT_WIDTHS and INTEGER_WIDTHS[old.root] <= 2 * FLOAT_WIDTHS[new.root] // 4


def is_widening(old: t.DataType, new: t.DataType) -> bool:
    """Rule 3: every value of ``old`` is a value of ``new``: the same kind at least as wide,
    an integer to a wide enough decimal or float, a date to a timestamp, or any atomic
    non-binary value to ``STRING`` (its text, as Java's cast writes it)."""
    if isinstance(new, t.VarCharType) and new.length == t.MAX_LENGTH:
        return not t.is_nested(old) and not isinstance(old, (t.BinaryType, t.VarBinaryType))
    if isinstance(old, t.DateType):
        return isinstance(new, (t.DateType, t.TimestampType, t.LocalZonedTimestampType))
    if old.root in INTEGER_WIDTHS:
        return _integer_fits(old, new)
    if old.root in FLOAT_WIDTHS:
        return new.root in FLOAT_WIDTHS and FLOAT_WIDTHS[new.root] >= FLOAT_WIDTHS[old.root]
    if isinstance(old, t.DecimalType) and isinstance(new, t.DecimalType):
        return new.scale >= old.scale and new.precision - new.scale >= old.precision - old.scale
    if isinstance(old, (t.CharType, t.VarCharType)) and isinstance(new, t.VarCharType):
        return new.length >= old.length
    if isinstance(old, (t.TimestampType, t.LocalZonedTimestampType)) and type(new) is type(old):
        return new.precision >= old.precision
    return old.copy(nullable=True) == new.copy(nullable=True)


def _column_type(schema: TableSchema, path: Sequence[str]) -> t.DataType | None:
    fields = {f.name: f for f in schema.fields}
    return fields[path[0]].type if len(path) == 1 and path[0] in fields else None


def validate_changes(schema: TableSchema, changes: Sequence[SchemaChange]) -> None:
    """Rules 3 and 4, checked before applying (the rest is the spec's)."""
    for change in changes:
        if isinstance(change, (SetOption, RemoveOption)) and change.key in KEY_OPTIONS:
            old = schema.options.get(change.key)
            if not isinstance(change, SetOption) or change.value != old:
                raise SpecViolation(
                    f"option '{change.key}' cannot be changed: the keys of a table are fixed",
                    code="EVOLUTION_KEY_CHANGE",
                )
        if isinstance(change, UpdateColumnType):
            old_type = _column_type(schema, change.path)
            if old_type is not None and not is_widening(old_type, change.new_type):
                raise SpecViolation(
                    f"column '{'.'.join(change.path)}': {old_type} cannot narrow to "
                    f"{change.new_type} (values already written would change)",
                    code="EVOLUTION_TYPE",
                )


def _path(name: str) -> tuple[str, ...]:
    """``a.b`` addresses field ``b`` of ROW column ``a``."""
    return tuple(name.split("."))


def _move(name: str, where: str) -> Move:
    """``FIRST``, ``LAST``, ``AFTER other`` or ``BEFORE other``."""
    words = where.split()
    kind = MoveKind(words[0].upper()) if words else MoveKind.LAST
    reference = words[1] if len(words) > 1 else None
    if (reference is None) != (kind in (MoveKind.FIRST, MoveKind.LAST)) or len(words) > 2:
        raise SpecViolation(
            f"column '{name}': cannot read the position {where!r} "
            "(FIRST, LAST, AFTER <column> or BEFORE <column>)",
            code="EVOLUTION_MOVE",
        )
    return Move(name, kind, reference)


def commit_changes(
    file_io: FileIO, table_root: str, changes: Sequence[SchemaChange]
) -> TableSchema:
    """Rules 1-5: apply ``changes`` to the latest schema and commit the result."""
    attempts = 0
    while True:
        old = read_latest_schema(file_io, table_root)
        validate_changes(old, changes)
        has_snapshots = find_latest_snapshot_id(file_io, table_root) is not None
        now = time.time_ns() // NANOS_PER_MILLI
        new = apply_schema_changes(old, changes, has_snapshots=has_snapshots, time_millis=now)
        path = layout.schema_path(table_root, new.id)
        if file_io.create_exclusive(path, encode_schema(new).encode("utf-8")):
            return new
        attempts += 1
        if attempts > int(old.core_options.get("commit.max-retries")):
            raise CommitConflictError(
                f"schema {new.id} kept being created by others", path=table_root, retryable=True
            )


def alter_table(
    spark: Any,
    path: str,
    changes: Sequence[SchemaChange] = (),
    *,
    add_columns: Mapping[str, TypeLike] | None = None,
    rename_columns: Mapping[str, str] | None = None,
    drop_columns: Sequence[str] = (),
    widen_columns: Mapping[str, TypeLike] | None = None,
    move_columns: Mapping[str, str] | None = None,
    set_options: Mapping[str, str] | None = None,
    options: Mapping[str, str] | None = None,
) -> TableSchema:
    """Change the schema of the table at ``path`` and return the new schema::

        spark_impl.alter_table(spark, "/wh/db.db/t", add_columns={"c": "BIGINT"},
                               rename_columns={"v": "value"}, widen_columns={"k": "BIGINT"},
                               move_columns={"c": "AFTER k"}, drop_columns=["old"])

    ``changes`` (the spec's records) come first, then the keyword changes in the order add,
    widen, move, drop, rename, options (each mapping in its own order; every keyword names
    columns as they are before the call, or as added by it). Types are Paimon types, Paimon
    SQL strings or pyspark types. ``spark`` may be ``None``: only the driver writes (one
    schema file); Spark reads pick the new schema up on their next load. ``options`` are
    the store's (``s3.*``)."""
    del spark  # metadata only; taken so the call reads like the other jobs
    all_changes: list[SchemaChange] = [
        *changes,
        *(AddColumn(_path(n), to_data_type(k)) for n, k in (add_columns or {}).items()),
        *(UpdateColumnType(_path(n), to_data_type(k)) for n, k in (widen_columns or {}).items()),
        *(UpdateColumnPosition(_move(n, w)) for n, w in (move_columns or {}).items()),
        *(DropColumn(_path(name)) for name in drop_columns),
        *(RenameColumn(_path(a), b) for a, b in (rename_columns or {}).items()),
        *(SetOption(k, str(v)) for k, v in (set_options or {}).items()),
    ]
    root = path.rstrip(layout.SEPARATOR)
    settings = {str(k): str(v) for k, v in (options or {}).items()}
    return commit_changes(file_io_for(root, settings), root, all_changes)
