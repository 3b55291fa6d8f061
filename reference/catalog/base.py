"""What every catalog does: databases of tables, each table at a location with schema files.

Spec: ``docs/concepts/catalog.md``. Java (0.9.0): ``catalog/Catalog``,
``catalog/AbstractCatalog``, ``catalog/Identifier``.

Rules:

1. A table is named by a database and a table name; its location is
   ``<warehouse>/<database>.db/<table>`` (``reference.layout.table_path``). The table itself is
   its schema files there (``reference.store.schema_changes``); a catalog only records which
   databases and tables exist (a file system catalog by directories, a JDBC catalog in rows).
2. The database ``sys`` is the system database: it cannot be created, dropped or hold tables.
   A name containing ``$`` names a system table or a branch (``t$snapshots``,
   ``t$branch_b``) and cannot be created, dropped, renamed or altered.
3. A catalog that does not allow upper case (JDBC) rejects database, table and field names
   with an upper-case letter.
4. Creating a database that exists fails unless ``ignore_if_exists``; dropping one that does
   not exist fails unless ``ignore_if_not_exists``; a database with tables is dropped only
   with ``cascade``. Creating a table needs its database; a table that exists fails unless
   ``ignore_if_exists``. Renaming needs the source and refuses an existing target. The
   option ``auto-create`` must not be true.
5. Listings are sorted.
6. Other table types (``type`` option): a format table (``reference.format_table``) is kept
   by the catalog alone (schema with ``path``; its directory holds only data files) and only
   catalogs with a metastore keep them; an object table (``reference.object_table``) is an
   append table created with the fixed object columns.
7. Views (``reference.catalog.views``) share the name space of tables: a name is a table or a
   view, never both. Catalogs without a metastore keep no views (views rule 4).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from reference import format_table, layout, object_table
from reference.catalog.views import (
    View,
    ViewAlreadyExistsError,
    ViewChange,
    ViewNotFoundError,
    apply_view_changes,
)
from reference.errors import (
    PaimonKitError,
    SpecViolation,
    TableAlreadyExistsError,
    TableNotFoundError,
    UnsupportedFeature,
)
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.schema import (
    FIRST_SCHEMA_ID,
    AddColumn,
    RenameColumn,
    SchemaChange,
    TableSchema,
    compute_table_schema,
)
from reference.spec.units import NANOS_PER_MILLI
from reference.store import metadata, schema_changes

SYSTEM_DATABASE = "sys"
SYSTEM_TABLE_SPLITTER = "$"
AUTO_CREATE_OPTION = "auto-create"
DATABASE_LOCATION_PROPERTY = "location"


class DatabaseNotFoundError(PaimonKitError):
    """A database the catalog does not have."""


class DatabaseAlreadyExistsError(PaimonKitError):
    """A database being created exists already."""


class DatabaseNotEmptyError(PaimonKitError):
    """A database being dropped without ``cascade`` still has tables."""


@dataclass(frozen=True)
class Identifier:
    """A table of a catalog (Java ``catalog.Identifier``, without branch or system suffix)."""

    database: str
    table: str

    def __str__(self) -> str:
        return f"{self.database}.{self.table}"


# --------------------------------------------------------------------------------------------
# Name rules (rules 2 and 3)
# --------------------------------------------------------------------------------------------


def is_system_database(name: str) -> bool:
    return name == SYSTEM_DATABASE


def is_system_table(identifier: Identifier) -> bool:
    return is_system_database(identifier.database) or SYSTEM_TABLE_SPLITTER in identifier.table


def check_not_system_database(name: str) -> None:
    if is_system_database(name):
        raise SpecViolation(f"'{name}' is the system database", code="CATALOG_SYSTEM")


def check_not_system_table(identifier: Identifier, action: str) -> None:
    if is_system_table(identifier):
        raise SpecViolation(
            f"cannot {action} system table or branch '{identifier}'", code="CATALOG_SYSTEM"
        )


def check_case(allow_upper_case: bool, kind: str, names: Iterable[str]) -> None:
    if allow_upper_case:
        return
    for name in names:
        if name != name.lower():
            raise SpecViolation(
                f"{kind} name '{name}' cannot contain upper case in this catalog",
                code="CATALOG_CASE",
            )


def compute_new_field_names(changes: Sequence[SchemaChange]) -> list[str]:
    """Field names an ALTER introduces (Java checks their case too)."""
    names: list[str] = []
    for change in changes:
        if isinstance(change, AddColumn):
            names.append(change.path[-1])
        elif isinstance(change, RenameColumn):
            names.append(change.new_name)
    return names


def check_no_auto_create(options: Mapping[str, str]) -> None:
    if options.get(AUTO_CREATE_OPTION, "false").lower() == "true":
        raise SpecViolation(
            f"option '{AUTO_CREATE_OPTION}' must be false for a catalog table", code="CATALOG"
        )


# --------------------------------------------------------------------------------------------
# Moving a table's files (rename)
# --------------------------------------------------------------------------------------------


def move_directory(file_io: FileIO, source: str, target: str) -> None:
    """Copy every file below ``source`` to the same place below ``target``, then delete
    ``source``. Not atomic (``FileIO`` has no rename): a crash can leave both copies."""
    prefix = source.rstrip(layout.SEPARATOR)
    for path in file_io.list_files_recursive(source):
        relative = path[len(prefix) :].lstrip(layout.SEPARATOR)
        file_io.write_bytes(layout.join(target, relative), file_io.read_bytes(path))
    file_io.delete_dir(source)


# --------------------------------------------------------------------------------------------
# The catalog
# --------------------------------------------------------------------------------------------


class Catalog(ABC):
    """Rules 1-5 over the storage-specific ``*_entry`` methods of a subclass."""

    def __init__(self, file_io: FileIO, warehouse: str, *, allow_upper_case: bool) -> None:
        self.file_io = file_io
        self.warehouse = warehouse
        self.allow_upper_case = allow_upper_case

    # -- storage of the catalog's own records --------------------------------------------

    @abstractmethod
    def list_database_entries(self) -> list[str]: ...

    @abstractmethod
    def has_database_entry(self, name: str) -> bool: ...

    @abstractmethod
    def create_database_entry(self, name: str, properties: Mapping[str, str]) -> None: ...

    @abstractmethod
    def drop_database_entry(self, name: str) -> None: ...

    @abstractmethod
    def database_entry_properties(self, name: str) -> dict[str, str]: ...

    @abstractmethod
    def list_table_entries(self, database: str) -> list[str]: ...

    @abstractmethod
    def has_table_entry(self, identifier: Identifier) -> bool: ...

    @abstractmethod
    def create_table_entry(self, identifier: Identifier) -> None:
        """Record a table whose schema files were just written."""

    @abstractmethod
    def drop_table_entry(self, identifier: Identifier) -> None: ...

    @abstractmethod
    def rename_table_entry(self, source: Identifier, target: Identifier) -> None: ...

    # -- format tables and views: kept only by catalogs with a metastore (rules 6, 7) --------

    def supports_metastore_objects(self) -> bool:
        """Whether this catalog keeps format tables and views (Java: Hive, REST, JDBC)."""
        return False

    def format_table_schema_entry(self, identifier: Identifier) -> TableSchema | None:
        """The stored schema of a format table of that name, if there is one."""
        return None

    def create_format_table_entry(self, identifier: Identifier, schema: TableSchema) -> None:
        raise UnsupportedFeature(
            f'{type(self).__name__} keeps no format tables (Java: "currently does not support '
            'format table"); use a catalog with a metastore'
        )

    def view_entry(self, identifier: Identifier) -> View | None:
        return None

    def list_view_entries(self, database: str) -> list[str]:
        return []

    def create_view_entry(self, identifier: Identifier, view: View) -> None:
        self.check_views_supported()

    def drop_view_entry(self, identifier: Identifier) -> None:
        self.check_views_supported()

    def rename_view_entry(self, source: Identifier, target: Identifier) -> None:
        self.check_views_supported()

    def replace_view_entry(self, identifier: Identifier, view: View) -> None:
        self.check_views_supported()

    def check_views_supported(self) -> None:
        if not self.supports_metastore_objects():
            raise UnsupportedFeature(
                f"{type(self).__name__} keeps no views: they need a metastore (Java's file "
                "system catalog throws UnsupportedOperationException)"
            )

    # -- locations -------------------------------------------------------------------------

    def database_location(self, name: str) -> str:
        return layout.database_path(self.warehouse, name)

    def table_location(self, identifier: Identifier) -> str:
        return layout.table_path(self.warehouse, identifier.database, identifier.table)

    # -- databases (rules 2, 4, 5) -----------------------------------------------------------

    def list_databases(self) -> list[str]:
        return sorted(set(self.list_database_entries()))

    def database_exists(self, name: str) -> bool:
        return is_system_database(name) or self.has_database_entry(name)

    def create_database(
        self,
        name: str,
        properties: Mapping[str, str] | None = None,
        *,
        ignore_if_exists: bool = False,
    ) -> None:
        check_not_system_database(name)
        check_case(self.allow_upper_case, "Database", [name])
        if self.database_exists(name):
            if ignore_if_exists:
                return
            raise DatabaseAlreadyExistsError(f"database '{name}' already exists")
        self.create_database_entry(name, dict(properties or {}))

    def database_properties(self, name: str) -> dict[str, str]:
        if is_system_database(name):
            return {}
        self.require_database(name)
        return self.database_entry_properties(name)

    def drop_database(
        self, name: str, *, ignore_if_not_exists: bool = False, cascade: bool = False
    ) -> None:
        check_not_system_database(name)
        if not self.database_exists(name):
            if ignore_if_not_exists:
                return
            raise DatabaseNotFoundError(f"database '{name}' does not exist")
        if not cascade and (self.list_tables(name) or self.list_views(name)):
            raise DatabaseNotEmptyError(f"database '{name}' still has tables or views")
        self.drop_database_entry(name)

    def require_database(self, name: str) -> None:
        if not self.database_exists(name):
            raise DatabaseNotFoundError(f"database '{name}' does not exist")

    # -- tables (rules 1-5) ------------------------------------------------------------------

    def list_tables(self, database: str) -> list[str]:
        self.require_database(database)
        return sorted(self.list_table_entries(database))

    def table_exists(self, identifier: Identifier) -> bool:
        return not is_system_table(identifier) and self.has_table_entry(identifier)

    def require_table(self, identifier: Identifier) -> None:
        if not self.table_exists(identifier):
            raise TableNotFoundError(f"table '{identifier}' does not exist")

    def create_table(
        self,
        identifier: Identifier,
        fields: Sequence[t.DataField],
        *,
        partition_keys: Sequence[str] = (),
        primary_keys: Sequence[str] = (),
        options: Mapping[str, str] | None = None,
        comment: str | None = None,
        ignore_if_exists: bool = False,
    ) -> str:
        """Create the table's schema files and record it; returns its location."""
        check_not_system_table(identifier, "create")
        check_case(self.allow_upper_case, "Database", [identifier.database])
        check_case(self.allow_upper_case, "Table", [identifier.table])
        check_case(self.allow_upper_case, "Field", [f.name for f in fields])
        check_no_auto_create(options or {})
        self.require_database(identifier.database)
        location = self.table_location(identifier)
        if self.table_exists(identifier):
            if ignore_if_exists:
                return location
            raise TableAlreadyExistsError(f"table '{identifier}' already exists", path=location)
        if self.view_exists(identifier):
            raise TableAlreadyExistsError(f"'{identifier}' is a view")
        given = dict(options or {})
        if format_table.is_format_table(given):
            keys = (partition_keys, primary_keys)
            return self.create_format_table(identifier, fields, keys, given, comment)
        if object_table.is_object_table(given):
            fields = object_table.compute_object_table_fields(
                fields, given, partition_keys=partition_keys, primary_keys=primary_keys
            )
        schema_changes.create_table(
            self.file_io,
            location,
            fields,
            partition_keys=partition_keys,
            primary_keys=primary_keys,
            options=options,
            comment=comment,
        )
        self.create_table_entry(identifier)
        return location

    def drop_table(self, identifier: Identifier, *, ignore_if_not_exists: bool = False) -> None:
        check_not_system_table(identifier, "drop")
        if not self.table_exists(identifier):
            if ignore_if_not_exists:
                return
            raise TableNotFoundError(f"table '{identifier}' does not exist")
        self.drop_table_entry(identifier)

    def rename_table(
        self, source: Identifier, target: Identifier, *, ignore_if_not_exists: bool = False
    ) -> None:
        check_not_system_table(source, "rename")
        check_not_system_table(target, "rename")
        check_case(self.allow_upper_case, "Database", [target.database])
        check_case(self.allow_upper_case, "Table", [target.table])
        if not self.table_exists(source):
            if ignore_if_not_exists:
                return
            raise TableNotFoundError(f"table '{source}' does not exist")
        if self.table_exists(target) or self.view_exists(target):
            raise TableAlreadyExistsError(f"table or view '{target}' already exists")
        self.rename_table_entry(source, target)

    def alter_table(
        self,
        identifier: Identifier,
        changes: Sequence[SchemaChange],
        *,
        ignore_if_not_exists: bool = False,
    ) -> TableSchema | None:
        """Apply schema changes (``reference.store.schema_changes.alter_table``)."""
        check_not_system_table(identifier, "alter")
        check_case(self.allow_upper_case, "Field", compute_new_field_names(changes))
        if not self.table_exists(identifier):
            if ignore_if_not_exists:
                return None
            raise TableNotFoundError(f"table '{identifier}' does not exist")
        if self.format_table_schema_entry(identifier) is not None:
            raise UnsupportedFeature(f"altering format table '{identifier}'")
        return schema_changes.alter_table(self.file_io, self.table_location(identifier), changes)

    def table_schema(self, identifier: Identifier) -> TableSchema:
        self.require_table(identifier)
        stored = self.format_table_schema_entry(identifier)
        if stored is not None:
            return stored
        return metadata.read_latest_schema(self.file_io, self.table_location(identifier))

    # -- format tables (rule 6) -----------------------------------------------------------

    def create_format_table(
        self,
        identifier: Identifier,
        fields: Sequence[t.DataField],
        keys: tuple[Sequence[str], Sequence[str]],
        options: Mapping[str, str],
        comment: str | None,
    ) -> str:
        """Record a format table's schema (its ``path``: the given one, else the catalog's
        location for it); returns its directory. ``keys`` are the partition and primary keys
        (a format table must have no primary key). Java ``HiveCatalog.createFormatTable``."""
        location = options.get(format_table.PATH_OPTION) or self.table_location(identifier)
        partition_keys, primary_keys = keys
        schema = compute_table_schema(
            FIRST_SCHEMA_ID,
            fields,
            partition_keys=partition_keys,
            primary_keys=primary_keys,
            options={**options, format_table.PATH_OPTION: location},
            comment=comment,
            time_millis=time.time_ns() // NANOS_PER_MILLI,
        )
        format_table.validate_format_table(schema)
        self.create_format_table_entry(identifier, schema)
        return location

    def format_table(self, identifier: Identifier) -> format_table.FormatTable:
        """The format table of that name (:class:`TableNotFoundError` if it is not one)."""
        stored = None if is_system_table(identifier) else self.format_table_schema_entry(identifier)
        if stored is None:
            raise TableNotFoundError(f"format table '{identifier}' does not exist")
        return format_table.compute_format_table(stored)

    # -- views (rule 7, ``reference.catalog.views``) ------------------------------------------

    def view_exists(self, identifier: Identifier) -> bool:
        return not is_system_table(identifier) and self.view_entry(identifier) is not None

    def get_view(self, identifier: Identifier) -> View:
        found = None if is_system_table(identifier) else self.view_entry(identifier)
        if found is None:
            raise ViewNotFoundError(f"view '{identifier}' does not exist")
        return found

    def list_views(self, database: str) -> list[str]:
        if is_system_database(database):
            return []
        self.require_database(database)
        return sorted(self.list_view_entries(database))

    def create_view(
        self, identifier: Identifier, view: View, *, ignore_if_exists: bool = False
    ) -> None:
        self.check_views_supported()
        check_not_system_table(identifier, "create view")
        self.require_database(identifier.database)
        if self.view_exists(identifier) or self.table_exists(identifier):
            if ignore_if_exists:
                return
            raise ViewAlreadyExistsError(f"view or table '{identifier}' already exists")
        self.create_view_entry(identifier, view)

    def drop_view(self, identifier: Identifier, *, ignore_if_not_exists: bool = False) -> None:
        self.check_views_supported()
        if not self.view_exists(identifier):
            if ignore_if_not_exists:
                return
            raise ViewNotFoundError(f"view '{identifier}' does not exist")
        self.drop_view_entry(identifier)

    def rename_view(
        self, source: Identifier, target: Identifier, *, ignore_if_not_exists: bool = False
    ) -> None:
        self.check_views_supported()
        if not self.view_exists(source):
            if ignore_if_not_exists:
                return
            raise ViewNotFoundError(f"view '{source}' does not exist")
        check_not_system_table(target, "rename view")
        self.require_database(target.database)
        if self.view_exists(target) or self.table_exists(target):
            raise ViewAlreadyExistsError(f"view or table '{target}' already exists")
        self.rename_view_entry(source, target)

    def alter_view(
        self,
        identifier: Identifier,
        changes: Sequence[ViewChange],
        *,
        ignore_if_not_exists: bool = False,
    ) -> None:
        self.check_views_supported()
        if not self.view_exists(identifier):
            if ignore_if_not_exists:
                return
            raise ViewNotFoundError(f"view '{identifier}' does not exist")
        self.replace_view_entry(identifier, apply_view_changes(self.get_view(identifier), changes))
