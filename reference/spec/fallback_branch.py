"""The schema rule of ``scan.fallback-branch`` (Java 0.9 ``FallbackReadFileStoreTable``).

A batch read of a table whose option ``scan.fallback-branch`` names branch F takes the
partitions its own snapshot lacks from F. That is only sound when F's rows look like the read
branch's: the same field types in the same order (top-level nullability aside, Java
``DataType.equalsIgnoreNullable``) and, when the read branch has primary keys, the same primary
keys (Java ``FallbackReadFileStoreTable.validateSchema``). Both engines check it with this one
definition; their planning of the fallback read is their own."""

from __future__ import annotations

from reference.errors import InvalidOptionError
from reference.spec import types as t
from reference.spec.options import FALLBACK_BRANCH_OPTION
from reference.spec.schema import TableSchema


def is_same_type_ignoring_nullable(left: t.DataType, right: t.DataType) -> bool:
    """Java ``DataType.equalsIgnoreNullable``: equal once both are made nullable (the
    nullability of nested fields still counts)."""
    return left.copy(nullable=True) == right.copy(nullable=True)


def check_fallback_schema(schema: TableSchema, fallback: TableSchema, names: str) -> None:
    """Refuse a fallback branch whose row type or primary keys differ from the read branch's;
    ``names`` is the option's value, for the error."""
    types = [f.type for f in schema.fields]
    fallback_types = [f.type for f in fallback.fields]
    if len(types) != len(fallback_types) or not all(
        is_same_type_ignoring_nullable(a, b) for a, b in zip(types, fallback_types, strict=True)
    ):
        raise InvalidOptionError(
            FALLBACK_BRANCH_OPTION,
            names,
            f"the branch's row type {fallback.logical_row_type.to_sql()} is not the read branch's "
            f"{schema.logical_row_type.to_sql()}",
        )
    if schema.primary_keys and list(schema.primary_keys) != list(fallback.primary_keys):
        raise InvalidOptionError(
            FALLBACK_BRANCH_OPTION,
            names,
            f"the branch's primary keys {list(fallback.primary_keys)} are not the read "
            f"branch's {list(schema.primary_keys)}",
        )
