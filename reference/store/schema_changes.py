"""Creating a table and changing its schema: committing ``schema/schema-<id>`` files.

Spec: ``docs/concepts/spec/schema.md``; the seeds' "Schema evolution" section.
Java: ``schema/SchemaManager`` (``createTable``, ``commitChanges``, ``commit``).

Rules:

1. A table exists once ``schema/schema-0`` exists. Creating a table computes and validates
   schema 0 (``reference.spec.schema.compute_table_schema``, which also validates the options)
   and creates the file with :meth:`FileIO.create_exclusive`; a table that already has a schema
   file, or that a concurrent creator made first, is refused.
2. Altering a table applies the changes to the latest schema (``apply_schema_changes``, which
   validates the result) and creates ``schema-<latest + 1>`` exclusively. When another change
   created that id first, the changes are applied again to the new latest schema (bounded by
   ``commit.max-retries``). Schema files are never overwritten.
3. The partition keys and the primary key cannot be changed (by options or otherwise): they
   must name the same columns, by field id, before and after. The one exception is main's
   ``DropPrimaryKey`` on a table without snapshots, which ``apply_schema_changes`` governs.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from reference import layout
from reference.errors import CommitConflictError, SpecViolation, TableAlreadyExistsError
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.schema import (
    FIRST_SCHEMA_ID,
    PARTITION_OPTION,
    PRIMARY_KEY_OPTION,
    DropPrimaryKey,
    RemoveOption,
    SchemaChange,
    SetOption,
    TableSchema,
    apply_schema_changes,
    compute_table_schema,
    encode_schema,
    is_unchanged_option,
)
from reference.spec.units import NANOS_PER_MILLI
from reference.store import metadata

KEY_OPTIONS = (PARTITION_OPTION, PRIMARY_KEY_OPTION)


def write_schema(file_io: FileIO, table_root: str, schema: TableSchema) -> bool:
    """Create ``schema/schema-<id>`` exclusively; False when the id is taken."""
    path = layout.schema_path(table_root, schema.id)
    return file_io.create_exclusive(path, encode_schema(schema).encode("utf-8"))


def create_table(
    file_io: FileIO,
    table_root: str,
    fields: Sequence[t.DataField],
    *,
    partition_keys: Sequence[str] = (),
    primary_keys: Sequence[str] = (),
    options: Mapping[str, str] | None = None,
    comment: str | None = None,
) -> TableSchema:
    """Rule 1: create the table and return schema 0.

    Raises :class:`TableAlreadyExistsError` when the table exists, ``SpecViolation`` /
    ``InvalidOptionError`` for an invalid schema."""
    if metadata.list_schema_ids(file_io, table_root):
        raise TableAlreadyExistsError("the table already exists", path=table_root)
    schema = compute_table_schema(
        FIRST_SCHEMA_ID,
        fields,
        partition_keys=partition_keys,
        primary_keys=primary_keys,
        options=dict(options or {}),
        comment=comment,
        time_millis=time.time_ns() // NANOS_PER_MILLI,
    )
    if not write_schema(file_io, table_root, schema):
        raise TableAlreadyExistsError("another writer created the table first", path=table_root)
    return schema


def compute_key_field_ids(schema: TableSchema, keys: Sequence[str]) -> list[int]:
    by_name = {f.name: f.id for f in schema.fields}
    return [by_name[key] for key in keys]


def validate_key_changes(changes: Sequence[SchemaChange], old: TableSchema) -> None:
    """Rule 3, before applying: no option may set the partition keys or the primary key."""
    for change in changes:
        if (
            isinstance(change, SetOption)
            and change.key in KEY_OPTIONS
            and not is_unchanged_option(old, change.key, change.value)
        ):
            raise SpecViolation(
                f"option '{change.key}' cannot be changed: the keys of a table are fixed",
                code="EVOLUTION_KEY_CHANGE",
            )
        if isinstance(change, RemoveOption) and change.key in KEY_OPTIONS:
            raise SpecViolation(
                f"option '{change.key}' cannot be removed: the keys of a table are fixed",
                code="EVOLUTION_KEY_CHANGE",
            )


def validate_keys_kept(old: TableSchema, new: TableSchema, changes: Sequence[SchemaChange]) -> None:
    """Rule 3, after applying: the key columns are the same columns (field ids)."""
    if compute_key_field_ids(old, old.partition_keys) != compute_key_field_ids(
        new, new.partition_keys
    ):
        raise SpecViolation(
            f"partition keys {list(old.partition_keys)} cannot change "
            f"(to {list(new.partition_keys)})",
            code="EVOLUTION_KEY_CHANGE",
        )
    dropped = any(isinstance(change, DropPrimaryKey) for change in changes)
    if not (dropped and not new.primary_keys) and compute_key_field_ids(
        old, old.primary_keys
    ) != compute_key_field_ids(new, new.primary_keys):
        raise SpecViolation(
            f"primary key {list(old.primary_keys)} cannot change (to {list(new.primary_keys)})",
            code="EVOLUTION_KEY_CHANGE",
        )


def alter_table(
    file_io: FileIO,
    table_root: str,
    changes: Sequence[SchemaChange],
    *,
    max_retries: int | None = None,
) -> TableSchema:
    """Rules 2 and 3: apply ``changes`` and return the new latest schema.

    Raises ``TableNotFoundError`` without a table, ``SpecViolation`` for a change the rules
    forbid, and ``CommitConflictError(retryable=True)`` when concurrent changes kept winning."""
    attempts = 0
    while True:
        old = metadata.read_latest_schema(file_io, table_root)
        validate_key_changes(changes, old)
        has_snapshots = metadata.find_latest_snapshot_id(file_io, table_root) is not None
        new = apply_schema_changes(
            old, changes, has_snapshots=has_snapshots, time_millis=time.time_ns() // NANOS_PER_MILLI
        )
        validate_keys_kept(old, new, changes)
        if write_schema(file_io, table_root, new):
            return new
        limit: int = old.core_options.get("commit.max-retries")
        attempts += 1
        if attempts > (limit if max_retries is None else max_retries):
            raise CommitConflictError(
                f"schema {new.id} kept being created by others", path=table_root, retryable=True
            )
