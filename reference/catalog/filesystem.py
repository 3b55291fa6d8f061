"""The file system catalog (the default): the warehouse directory is the catalog.

Spec: ``docs/concepts/catalog.md`` ("Filesystem Catalog"). Java (0.9.0):
``catalog/FileSystemCatalog``, ``AbstractCatalog.listDatabasesInFileSystem`` and
``listTablesInFileSystem``.

Rules:

1. A database is a directory ``<warehouse>/<name>.db``; the databases are the directories of
   the warehouse whose names end in ``.db``.
2. A table of a database is a directory in it that holds a schema file.
3. Databases store no properties: a ``location`` property is refused, others are dropped.
4. Dropping a table or a database deletes its directory. Renaming a table moves its files.
5. Upper case is allowed (Java's ``case-sensitive`` default).

6. On an object store, which has no directories, creating a database writes a directory
   marker, the zero-byte object ``<warehouse>/<name>.db/`` that Hadoop's S3A file system
   writes for Java's ``FileSystemCatalog.createDatabaseImpl`` (``FileIO.mkdirs``): the empty
   database exists, is listed and holds tables, for Java and for this catalog alike, and
   dropping it deletes the marker with the rest.
"""

from __future__ import annotations

from collections.abc import Mapping

from reference import layout
from reference.catalog.base import (
    DATABASE_LOCATION_PROPERTY,
    Catalog,
    Identifier,
    move_directory,
)
from reference.errors import SpecViolation
from reference.io import FileIO, S3FileIO, split_s3_uri
from reference.store import metadata


def make_directory(file_io: FileIO, path: str) -> None:
    """A directory that exists while empty: ``mkdirs``, or on S3 rule 6's marker object."""
    if isinstance(file_io, S3FileIO):
        bucket, key = split_s3_uri(path)
        file_io.filesystem.create_dir(f"{bucket}/{key}".rstrip("/"), recursive=True)
    else:
        file_io.mkdirs(path)


class FileSystemCatalog(Catalog):
    """Rules 1-5."""

    def __init__(self, file_io: FileIO, warehouse: str) -> None:
        super().__init__(file_io, warehouse, allow_upper_case=True)

    def list_database_entries(self) -> list[str]:
        suffix = layout.DATABASE_SUFFIX
        return [
            name[: -len(suffix)]
            for name in self.file_io.list_dir(self.warehouse)
            if name.endswith(suffix) and len(name) > len(suffix)
        ]

    def has_database_entry(self, name: str) -> bool:
        return self.file_io.exists(self.database_location(name))

    def create_database_entry(self, name: str, properties: Mapping[str, str]) -> None:
        if DATABASE_LOCATION_PROPERTY in properties:
            raise SpecViolation(
                "a file system catalog cannot place a database elsewhere ('location')",
                code="CATALOG",
            )
        make_directory(self.file_io, self.database_location(name))

    def drop_database_entry(self, name: str) -> None:
        self.file_io.delete_dir(self.database_location(name))

    def database_entry_properties(self, name: str) -> dict[str, str]:
        return {}

    def list_table_entries(self, database: str) -> list[str]:
        directory = self.database_location(database)
        return [
            name
            for name in self.file_io.list_dir(directory)
            if metadata.list_schema_ids(self.file_io, layout.join(directory, name))
        ]

    def has_table_entry(self, identifier: Identifier) -> bool:
        return bool(metadata.list_schema_ids(self.file_io, self.table_location(identifier)))

    def create_table_entry(self, identifier: Identifier) -> None:
        """The schema file is the record."""

    def drop_table_entry(self, identifier: Identifier) -> None:
        self.file_io.delete_dir(self.table_location(identifier))

    def rename_table_entry(self, source: Identifier, target: Identifier) -> None:
        move_directory(self.file_io, self.table_location(source), self.table_location(target))
