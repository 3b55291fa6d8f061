"""The JDBC catalog over SQLite: databases and tables recorded in rows, files in the warehouse.

Spec: ``docs/concepts/catalog.md`` ("JDBC Catalog"). Java (0.9.0): ``jdbc/JdbcCatalog``,
``jdbc/JdbcUtils`` (table DDL and statements), ``jdbc/JdbcCatalogLock``,
``jdbc/SqlLiteDistributedLockDialect``, ``jdbc/AbstractDistributedLockDialect``,
``jdbc/JdbcCatalogOptions``, ``options/CatalogOptions``.

Rules:

1. Three tables, created when missing, as Java creates them:
   ``paimon_tables(catalog_key, database_name, table_name)`` (all ``VARCHAR(255) NOT NULL``,
   primary key all three), ``paimon_database_properties(catalog_key, database_name,
   property_key, property_value)`` (``VARCHAR(255)``; the value ``VARCHAR(1000)``; primary key
   the first three), and, with the lock enabled, ``paimon_distributed_locks(lock_id
   VARCHAR(<lock-key-max-length>) NOT NULL, acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
   NOT NULL, expire_time_seconds BIGINT DEFAULT 0 NOT NULL)``, primary key ``lock_id``.
2. Every row carries the catalog's ``catalog-key`` (default ``jdbc``), so several catalogs can
   share one database. A database exists when a table row or a property row names it;
   creating one writes the property rows, with ``exists = true`` and ``location =
   <warehouse>/<name>.db`` unless given (``exists`` is hidden when properties are read back).
3. A table exists when its row exists. Creating writes the schema files, then the row (a
   failed insert deletes the files); dropping deletes the row, then the directory; renaming
   updates the row, then moves the files when the source had schema files. Dropping a
   database deletes its rows (and, unlike Java 0.9, its directory).
4. Upper case is not allowed in names.
5. The lock (``lock.enabled``) is one row per table, ``lock_id = <catalog-key>.<database>.
   <table>``: acquiring inserts the row (the primary key makes a second insert fail) with
   ``expire_time_seconds`` = ``lock-acquire-timeout`` in seconds, after deleting the row if
   it is older than that (a holder that died). A failed acquire is retried after 50 ms,
   doubling up to ``lock-check-max-sleep``, until ``lock-acquire-timeout`` has passed.
   Releasing deletes the row. :meth:`JdbcCatalog.commit_lock` adapts it to the ``commit_lock``
   of ``reference.io.S3FileIO`` (keyed by the table that holds the path).
6. Catalog options are validated: ``uri`` is required and must be ``jdbc:sqlite:<path>`` (or
   a plain path), the durations, ``lock.enabled``, ``lock-key-max-length`` (positive) and a
   non-blank ``catalog-key``; an invalid value raises ``InvalidOptionError`` naming it.
7. Views (Java main; 0.9 has none): one row per view in ``paimon_views(catalog_key,
   database_name, view_name VARCHAR(255) NOT NULL, view_schema TEXT NOT NULL)``, primary key
   the first three, ``view_schema`` the view's JSON (``reference.catalog.views`` rule 2). A
   database holding only views exists; dropping a database with ``cascade`` drops its views.
   The table is created on first use (Java main creates it when the catalog opens).
8. Format tables (a reference extension: Java's JDBC catalog refuses them, and keeps format
   tables nowhere; Java's Hive and REST catalogs keep their schema in the metastore): one row
   per table in ``paimon_format_tables(catalog_key, database_name, table_name, table_schema
   TEXT)``, shaped like ``paimon_views``, ``table_schema`` the schema file JSON (with
   ``path``). Java's JDBC catalog ignores that table. Dropping a format table deletes its
   directory when it is the catalog's own location (a managed table), not an external
   ``path``; format tables cannot be renamed. Created on first use too. With the catalog
   option ``format-table.enabled = false`` (the seed's section 3.6.4; Java
   ``CatalogOptions.FORMAT_TABLE_ENABLED``, default true) the catalog keeps no format tables:
   creating one is unsupported, and stored ones are neither listed nor found.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TypeVar

from reference import layout
from reference.catalog.base import (
    DATABASE_LOCATION_PROPERTY,
    Catalog,
    Identifier,
    move_directory,
)
from reference.catalog.views import View, decode_view_schema, encode_view_schema
from reference.errors import InvalidOptionError, PaimonKitError, StorageError, UnsupportedFeature
from reference.format_table import PATH_OPTION
from reference.io import S3_SCHEMES, FileIO, file_io_for, split_scheme
from reference.spec.options import parse_boolean, parse_duration, parse_int
from reference.spec.schema import TableSchema, decode_schema, encode_schema
from reference.spec.units import NANOS_PER_SECOND

FORMAT_TABLE_ENABLED_OPTION = "format-table.enabled"
TABLES_TABLE = "paimon_tables"
PROPERTIES_TABLE = "paimon_database_properties"
LOCKS_TABLE = "paimon_distributed_locks"
VIEWS_TABLE = "paimon_views"
FORMAT_TABLES_TABLE = "paimon_format_tables"

CREATE_TABLES_TABLE = (
    f"CREATE TABLE {TABLES_TABLE}("
    "catalog_key VARCHAR(255) NOT NULL,"
    "database_name VARCHAR(255) NOT NULL,"
    "table_name VARCHAR(255) NOT NULL,"
    " PRIMARY KEY (catalog_key, database_name, table_name))"
)
CREATE_PROPERTIES_TABLE = (
    f"CREATE TABLE {PROPERTIES_TABLE}("
    "catalog_key VARCHAR(255) NOT NULL,"
    "database_name VARCHAR(255) NOT NULL,"
    "property_key VARCHAR(255),"
    "property_value VARCHAR(1000),"
    "PRIMARY KEY (catalog_key, database_name, property_key))"
)
CREATE_LOCKS_TABLE = (
    f"CREATE TABLE {LOCKS_TABLE}("
    "lock_id VARCHAR({length}) NOT NULL,"
    "acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,"
    "expire_time_seconds BIGINT DEFAULT 0 NOT NULL,"
    "PRIMARY KEY (lock_id))"
)
CREATE_VIEWS_TABLE = (
    f"CREATE TABLE {VIEWS_TABLE}("
    "catalog_key VARCHAR(255) NOT NULL,"
    "database_name VARCHAR(255) NOT NULL,"
    "view_name VARCHAR(255) NOT NULL,"
    "view_schema TEXT NOT NULL,"
    " PRIMARY KEY (catalog_key, database_name, view_name))"
)
CREATE_FORMAT_TABLES_TABLE = (
    f"CREATE TABLE {FORMAT_TABLES_TABLE}("
    "catalog_key VARCHAR(255) NOT NULL,"
    "database_name VARCHAR(255) NOT NULL,"
    "table_name VARCHAR(255) NOT NULL,"
    "table_schema TEXT NOT NULL,"
    " PRIMARY KEY (catalog_key, database_name, table_name))"
)
RELEASE_TIMED_OUT_LOCK = (
    f"DELETE FROM {LOCKS_TABLE} WHERE strftime('%s', 'now') - strftime('%s', acquired_at)"
    " > expire_time_seconds AND lock_id = ?"
)

JDBC_SQLITE_PREFIX = "jdbc:sqlite:"
DATABASE_EXISTS_PROPERTY = "exists"

URI_OPTION = "uri"
CATALOG_KEY_OPTION = "catalog-key"
LOCK_ENABLED_OPTION = "lock.enabled"
LOCK_CHECK_MAX_SLEEP_OPTION = "lock-check-max-sleep"
LOCK_ACQUIRE_TIMEOUT_OPTION = "lock-acquire-timeout"
LOCK_KEY_MAX_LENGTH_OPTION = "lock-key-max-length"

DEFAULT_CATALOG_KEY = "jdbc"
DEFAULT_LOCK_CHECK_MAX_SLEEP = "8 s"
DEFAULT_LOCK_ACQUIRE_TIMEOUT = "8 min"
DEFAULT_LOCK_KEY_MAX_LENGTH = 255
FIRST_LOCK_RETRY_SECONDS = 0.05
SQLITE_BUSY_TIMEOUT_SECONDS = 30.0

T = TypeVar("T")


class LockTimeoutError(PaimonKitError):
    """The catalog lock of a table could not be acquired in time."""


# --------------------------------------------------------------------------------------------
# Options (rule 6)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JdbcOptions:
    """The catalog options of rule 6; ``lock_enabled`` is None when not set (then the lock is
    on for object-store warehouses, as Java's ``lockEnabled`` default)."""

    database_file: str
    catalog_key: str
    lock_enabled: bool | None
    lock_check_max_sleep_seconds: float
    lock_acquire_timeout_seconds: float
    lock_key_max_length: int
    format_tables_enabled: bool = True


def parse_option(
    options: Mapping[str, str], key: str, default: str, parse: Callable[[str], T]
) -> T:
    text = options.get(key, default)
    try:
        return parse(text)
    except ValueError as error:
        raise InvalidOptionError(key, text, str(error)) from None


def parse_sqlite_uri(uri: str | None) -> str:
    if uri is None or layout.is_blank(uri):
        raise InvalidOptionError(URI_OPTION, uri, "a JDBC catalog needs jdbc:sqlite:<file>")
    if uri.startswith(JDBC_SQLITE_PREFIX):
        return uri[len(JDBC_SQLITE_PREFIX) :]
    if uri.startswith("jdbc:"):
        raise InvalidOptionError(URI_OPTION, uri, "only SQLite (jdbc:sqlite:<file>) is supported")
    return uri


def compute_jdbc_options(options: Mapping[str, str]) -> JdbcOptions:
    """Rule 6."""
    catalog_key = options.get(CATALOG_KEY_OPTION, DEFAULT_CATALOG_KEY)
    if layout.is_blank(catalog_key):
        raise InvalidOptionError(CATALOG_KEY_OPTION, catalog_key, "must not be blank")
    length = parse_option(
        options, LOCK_KEY_MAX_LENGTH_OPTION, str(DEFAULT_LOCK_KEY_MAX_LENGTH), parse_int
    )
    if length < 1:
        raise InvalidOptionError(LOCK_KEY_MAX_LENGTH_OPTION, length, "must be at least 1")
    sleep = parse_option(
        options, LOCK_CHECK_MAX_SLEEP_OPTION, DEFAULT_LOCK_CHECK_MAX_SLEEP, parse_duration
    )
    timeout = parse_option(
        options, LOCK_ACQUIRE_TIMEOUT_OPTION, DEFAULT_LOCK_ACQUIRE_TIMEOUT, parse_duration
    )
    enabled = (
        None
        if LOCK_ENABLED_OPTION not in options
        else parse_option(options, LOCK_ENABLED_OPTION, "", parse_boolean)
    )
    return JdbcOptions(
        database_file=parse_sqlite_uri(options.get(URI_OPTION)),
        catalog_key=catalog_key,
        lock_enabled=enabled,
        lock_check_max_sleep_seconds=sleep / NANOS_PER_SECOND,
        lock_acquire_timeout_seconds=timeout / NANOS_PER_SECOND,
        lock_key_max_length=length,
        format_tables_enabled=parse_option(
            options, FORMAT_TABLE_ENABLED_OPTION, "true", parse_boolean
        ),
    )


# --------------------------------------------------------------------------------------------
# SQL access
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def connect(database_file: str) -> Iterator[sqlite3.Connection]:
    """One connection per operation, committed on success (Java runs each statement on a
    pooled connection in auto-commit mode)."""
    try:
        connection = sqlite3.connect(database_file, timeout=SQLITE_BUSY_TIMEOUT_SECONDS)
    except sqlite3.Error as error:
        raise StorageError(f"cannot open SQLite catalog: {error}", path=database_file) from error
    try:
        with connection:
            yield connection
    finally:
        connection.close()


def is_table_present(connection: sqlite3.Connection, name: str) -> bool:
    found = connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return found is not None


def create_catalog_tables(database_file: str, lock_key_max_length: int | None) -> None:
    """Rule 1."""
    statements = [(TABLES_TABLE, CREATE_TABLES_TABLE), (PROPERTIES_TABLE, CREATE_PROPERTIES_TABLE)]
    if lock_key_max_length is not None:
        statements.append((LOCKS_TABLE, CREATE_LOCKS_TABLE.format(length=lock_key_max_length)))
    with connect(database_file) as connection:
        for name, statement in statements:
            if not is_table_present(connection, name):
                connection.execute(statement)


OPTIONAL_TABLES = {VIEWS_TABLE: CREATE_VIEWS_TABLE, FORMAT_TABLES_TABLE: CREATE_FORMAT_TABLES_TABLE}
"""Catalog tables made on first use (rules 7 and 8)."""


def create_optional_table(database_file: str, name: str) -> None:
    with connect(database_file) as connection:
        if not is_table_present(connection, name):
            connection.execute(OPTIONAL_TABLES[name])


def has_catalog_table(database_file: str, name: str) -> bool:
    with connect(database_file) as connection:
        return is_table_present(connection, name)


def query(database_file: str, sql: str, arguments: Sequence[str]) -> list[tuple[str, ...]]:
    with connect(database_file) as connection:
        return [tuple(row) for row in connection.execute(sql, tuple(arguments)).fetchall()]


def execute(database_file: str, sql: str, arguments: Sequence[object]) -> int:
    """Run one statement; the number of rows it changed."""
    with connect(database_file) as connection:
        return connection.execute(sql, tuple(arguments)).rowcount


# --------------------------------------------------------------------------------------------
# The lock (rule 5)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JdbcCatalogLock:
    """A lock per table in ``paimon_distributed_locks``."""

    database_file: str
    catalog_key: str
    check_max_sleep_seconds: float
    acquire_timeout_seconds: float
    key_max_length: int = DEFAULT_LOCK_KEY_MAX_LENGTH

    def lock_id(self, identifier: Identifier) -> str:
        key = f"{self.catalog_key}.{identifier.database}.{identifier.table}"
        if len(key) > self.key_max_length:
            raise InvalidOptionError(
                LOCK_KEY_MAX_LENGTH_OPTION, self.key_max_length, f"lock key '{key}' is longer"
            )
        return key

    def try_acquire(self, lock_id: str) -> bool:
        execute(self.database_file, RELEASE_TIMED_OUT_LOCK, [lock_id])
        try:
            execute(
                self.database_file,
                f"INSERT INTO {LOCKS_TABLE} (lock_id, expire_time_seconds) VALUES (?, ?)",
                [lock_id, int(self.acquire_timeout_seconds)],
            )
        except sqlite3.IntegrityError:
            return False
        return True

    def release(self, lock_id: str) -> None:
        execute(self.database_file, f"DELETE FROM {LOCKS_TABLE} WHERE lock_id = ?", [lock_id])

    def acquire(self, lock_id: str) -> None:
        started = time.monotonic()
        pause = FIRST_LOCK_RETRY_SECONDS
        while not self.try_acquire(lock_id):
            if time.monotonic() - started > self.acquire_timeout_seconds:
                raise LockTimeoutError(f"could not acquire lock '{lock_id}' in time")
            pause = min(pause * 2, self.check_max_sleep_seconds)
            time.sleep(pause)

    @contextlib.contextmanager
    def hold(self, identifier: Identifier) -> Iterator[None]:
        """Hold the lock of ``identifier`` while the block runs."""
        lock_id = self.lock_id(identifier)
        self.acquire(lock_id)
        try:
            yield
        finally:
            self.release(lock_id)


# --------------------------------------------------------------------------------------------
# The catalog (rules 2-4)
# --------------------------------------------------------------------------------------------


def compute_identifier_of_path(warehouse: str, path: str) -> Identifier | None:
    """The table whose directory holds ``path`` (``<warehouse>/<db>.db/<table>/...``)."""
    prefix = warehouse.rstrip(layout.SEPARATOR) + layout.SEPARATOR
    if not path.startswith(prefix):
        return None
    parts = path[len(prefix) :].split(layout.SEPARATOR)
    if len(parts) < 2 or not parts[0].endswith(layout.DATABASE_SUFFIX):
        return None
    return Identifier(parts[0][: -len(layout.DATABASE_SUFFIX)], parts[1])


class JdbcCatalog(Catalog):
    """Rules 1-6. ``file_io`` defaults to the warehouse's own (``reference.io.file_io_for``),
    given this catalog's lock as commit lock when the lock is enabled."""

    def __init__(
        self, warehouse: str, options: Mapping[str, str], file_io: FileIO | None = None
    ) -> None:
        self.options = compute_jdbc_options(options)
        settings = self.options
        self.lock = JdbcCatalogLock(
            settings.database_file,
            settings.catalog_key,
            settings.lock_check_max_sleep_seconds,
            settings.lock_acquire_timeout_seconds,
            settings.lock_key_max_length,
        )
        scheme, _ = split_scheme(warehouse)
        self.lock_enabled = (
            scheme in S3_SCHEMES if settings.lock_enabled is None else settings.lock_enabled
        )
        create_catalog_tables(
            settings.database_file, settings.lock_key_max_length if self.lock_enabled else None
        )
        lock = self.commit_lock if self.lock_enabled else None
        super().__init__(
            file_io or file_io_for(warehouse, options, commit_lock=lock),
            warehouse,
            allow_upper_case=False,
        )

    @property
    def key(self) -> str:
        return self.options.catalog_key

    def query(self, sql: str, *arguments: str) -> list[tuple[str, ...]]:
        return query(self.options.database_file, sql, arguments)

    def query_optional(self, table: str, sql: str, *arguments: str) -> list[tuple[str, ...]]:
        """``query`` on a table of rules 7-8, which may not exist yet (then: no rows)."""
        if not has_catalog_table(self.options.database_file, table):
            return []
        return self.query(sql.format(table), *arguments)

    def execute_creating(self, table: str, sql: str, *arguments: str) -> int:
        """``execute`` on a table of rules 7-8, creating it first when missing."""
        create_optional_table(self.options.database_file, table)
        return self.execute(sql.format(table), *arguments)

    def execute_optional(self, table: str, sql: str, *arguments: str) -> int:
        """``execute`` on a table of rules 7-8 if it exists (else nothing changes)."""
        if not has_catalog_table(self.options.database_file, table):
            return 0
        return self.execute(sql.format(table), *arguments)

    def execute(self, sql: str, *arguments: str) -> int:
        return execute(self.options.database_file, sql, arguments)

    def commit_lock(self, path: str) -> AbstractContextManager[None]:
        """Rule 5: the lock of the table holding ``path``, for ``S3FileIO(commit_lock=...)``."""
        identifier = compute_identifier_of_path(self.warehouse, path)
        if identifier is None:
            raise StorageError("not inside a table of this catalog's warehouse", path=path)
        return self.lock.hold(identifier)

    # -- databases -------------------------------------------------------------------------

    def list_database_entries(self) -> list[str]:
        sql = "SELECT DISTINCT database_name FROM {} WHERE catalog_key = ?"
        tables = self.query(sql.format(TABLES_TABLE), self.key)
        properties = self.query(sql.format(PROPERTIES_TABLE), self.key)
        views = self.query_optional(VIEWS_TABLE, sql, self.key)
        formats = self.query_optional(FORMAT_TABLES_TABLE, sql, self.key)
        return [row[0] for row in (*tables, *properties, *views, *formats)]

    def has_database_entry(self, name: str) -> bool:
        sql = "SELECT database_name FROM {} WHERE catalog_key = ? AND database_name = ? LIMIT 1"
        return any(
            self.query_optional(table, sql, self.key, name)
            for table in (TABLES_TABLE, PROPERTIES_TABLE, VIEWS_TABLE, FORMAT_TABLES_TABLE)
        )

    def create_database_entry(self, name: str, properties: Mapping[str, str]) -> None:
        rows = {DATABASE_EXISTS_PROPERTY: "true", **properties}
        rows.setdefault(DATABASE_LOCATION_PROPERTY, self.database_location(name))
        with connect(self.options.database_file) as connection:
            connection.executemany(
                f"INSERT INTO {PROPERTIES_TABLE} (catalog_key, database_name, property_key, "
                "property_value) VALUES (?, ?, ?, ?)",
                [(self.key, name, key, value) for key, value in rows.items()],
            )

    def drop_database_entry(self, name: str) -> None:
        sql = "DELETE FROM {} WHERE catalog_key = ? AND database_name = ?"
        for table in (TABLES_TABLE, PROPERTIES_TABLE):
            self.execute(sql.format(table), self.key, name)
        for table in OPTIONAL_TABLES:
            self.execute_optional(table, sql, self.key, name)
        self.file_io.delete_dir(self.database_location(name))

    def database_entry_properties(self, name: str) -> dict[str, str]:
        rows = self.query(
            f"SELECT property_key, property_value FROM {PROPERTIES_TABLE} "
            "WHERE catalog_key = ? AND database_name = ?",
            self.key,
            name,
        )
        properties = {key: value for key, value in rows if key != DATABASE_EXISTS_PROPERTY}
        properties.setdefault(DATABASE_LOCATION_PROPERTY, self.database_location(name))
        return properties

    # -- tables ----------------------------------------------------------------------------

    def list_table_entries(self, database: str) -> list[str]:
        rows = self.query(
            f"SELECT table_name FROM {TABLES_TABLE} WHERE catalog_key = ? AND database_name = ?",
            self.key,
            database,
        )
        return [row[0] for row in rows] + self.list_format_table_names(database)

    def has_table_entry(self, identifier: Identifier) -> bool:
        if self.format_table_schema_entry(identifier) is not None:
            return True
        return bool(
            self.query(
                f"SELECT table_name FROM {TABLES_TABLE} WHERE catalog_key = ? AND "
                "database_name = ? AND table_name = ?",
                self.key,
                identifier.database,
                identifier.table,
            )
        )

    def create_table_entry(self, identifier: Identifier) -> None:
        try:
            self.execute(
                f"INSERT INTO {TABLES_TABLE} (catalog_key, database_name, table_name) "
                "VALUES (?, ?, ?)",
                self.key,
                identifier.database,
                identifier.table,
            )
        except sqlite3.Error:
            self.file_io.delete_dir(self.table_location(identifier))
            raise

    def drop_table_entry(self, identifier: Identifier) -> None:
        stored = self.format_table_schema_entry(identifier)
        if stored is not None:
            self.drop_format_table_entry(identifier, stored)
            return
        self.execute(
            f"DELETE FROM {TABLES_TABLE} WHERE catalog_key = ? AND database_name = ? AND "
            "table_name = ?",
            self.key,
            identifier.database,
            identifier.table,
        )
        self.file_io.delete_dir(self.table_location(identifier))

    def rename_table_entry(self, source: Identifier, target: Identifier) -> None:
        if self.format_table_schema_entry(source) is not None:
            raise UnsupportedFeature(f"renaming format table '{source}'")
        self.execute(
            f"UPDATE {TABLES_TABLE} SET database_name = ?, table_name = ? WHERE catalog_key = ? "
            "AND database_name = ? AND table_name = ?",
            target.database,
            target.table,
            self.key,
            source.database,
            source.table,
        )
        source_location = self.table_location(source)
        if self.file_io.exists(layout.schema_dir(source_location)):
            move_directory(self.file_io, source_location, self.table_location(target))

    # -- format tables (rule 8) --------------------------------------------------------------

    def supports_metastore_objects(self) -> bool:
        return True

    def list_format_table_names(self, database: str) -> list[str]:
        if not self.options.format_tables_enabled:
            return []
        rows = self.query_optional(
            FORMAT_TABLES_TABLE,
            "SELECT table_name FROM {} WHERE catalog_key = ? AND database_name = ?",
            self.key,
            database,
        )
        return [row[0] for row in rows]

    def format_table_schema_entry(self, identifier: Identifier) -> TableSchema | None:
        if not self.options.format_tables_enabled:
            return None
        rows = self.query_optional(
            FORMAT_TABLES_TABLE,
            "SELECT table_schema FROM {} WHERE catalog_key = ? AND database_name = ? AND "
            "table_name = ?",
            self.key,
            identifier.database,
            identifier.table,
        )
        return decode_schema(rows[0][0]) if rows else None

    def create_format_table_entry(self, identifier: Identifier, schema: TableSchema) -> None:
        if not self.options.format_tables_enabled:
            raise UnsupportedFeature(
                f"format table '{identifier}' ('{FORMAT_TABLE_ENABLED_OPTION}' is false)"
            )
        self.execute_creating(
            FORMAT_TABLES_TABLE,
            "INSERT INTO {} (catalog_key, database_name, table_name, table_schema) "
            "VALUES (?, ?, ?, ?)",
            self.key,
            identifier.database,
            identifier.table,
            encode_schema(schema),
        )

    def drop_format_table_entry(self, identifier: Identifier, schema: TableSchema) -> None:
        self.execute_optional(
            FORMAT_TABLES_TABLE,
            "DELETE FROM {} WHERE catalog_key = ? AND database_name = ? AND table_name = ?",
            self.key,
            identifier.database,
            identifier.table,
        )
        if schema.options.get(PATH_OPTION) == self.table_location(identifier):
            self.file_io.delete_dir(self.table_location(identifier))

    # -- views (rule 7) ------------------------------------------------------------------------

    def view_entry(self, identifier: Identifier) -> View | None:
        rows = self.query_optional(
            VIEWS_TABLE,
            "SELECT view_schema FROM {} WHERE catalog_key = ? AND database_name = ? AND "
            "view_name = ?",
            self.key,
            identifier.database,
            identifier.table,
        )
        return decode_view_schema(rows[0][0]) if rows else None

    def list_view_entries(self, database: str) -> list[str]:
        rows = self.query_optional(
            VIEWS_TABLE,
            "SELECT view_name FROM {} WHERE catalog_key = ? AND database_name = ?",
            self.key,
            database,
        )
        return [row[0] for row in rows]

    def create_view_entry(self, identifier: Identifier, view: View) -> None:
        self.execute_creating(
            VIEWS_TABLE,
            "INSERT INTO {} (catalog_key, database_name, view_name, view_schema) "
            "VALUES (?, ?, ?, ?)",
            self.key,
            identifier.database,
            identifier.table,
            encode_view_schema(view),
        )

    def drop_view_entry(self, identifier: Identifier) -> None:
        self.execute_optional(
            VIEWS_TABLE,
            "DELETE FROM {} WHERE catalog_key = ? AND database_name = ? AND view_name = ?",
            self.key,
            identifier.database,
            identifier.table,
        )

    def rename_view_entry(self, source: Identifier, target: Identifier) -> None:
        self.execute_optional(
            VIEWS_TABLE,
            "UPDATE {} SET database_name = ?, view_name = ? WHERE catalog_key = ? AND "
            "database_name = ? AND view_name = ?",
            target.database,
            target.table,
            self.key,
            source.database,
            source.table,
        )

    def replace_view_entry(self, identifier: Identifier, view: View) -> None:
        self.execute_optional(
            VIEWS_TABLE,
            "UPDATE {} SET view_schema = ? WHERE catalog_key = ? AND database_name = ? AND "
            "view_name = ?",
            encode_view_schema(view),
            self.key,
            identifier.database,
            identifier.table,
        )
