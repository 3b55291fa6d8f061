"""Catalogs: where a warehouse records its databases and tables.

``create_catalog`` picks the catalog from the ``metastore`` option (Java
``CatalogFactory.createCatalog``): ``filesystem`` (the default) or ``jdbc`` (SQLite).
"""

from __future__ import annotations

from collections.abc import Mapping

from reference.catalog.base import Catalog, Identifier
from reference.catalog.filesystem import FileSystemCatalog
from reference.catalog.jdbc import JdbcCatalog
from reference.errors import InvalidOptionError
from reference.io import FileIO, file_io_for

WAREHOUSE_OPTION = "warehouse"
METASTORE_OPTION = "metastore"
FILESYSTEM_METASTORE = "filesystem"
JDBC_METASTORE = "jdbc"


def create_catalog(options: Mapping[str, str], file_io: FileIO | None = None) -> Catalog:
    """The catalog that ``options`` describe; ``InvalidOptionError`` names a bad option."""
    warehouse = options.get(WAREHOUSE_OPTION)
    if not warehouse:
        raise InvalidOptionError(WAREHOUSE_OPTION, warehouse, "a catalog needs a warehouse")
    metastore = options.get(METASTORE_OPTION, FILESYSTEM_METASTORE)
    if metastore == FILESYSTEM_METASTORE:
        return FileSystemCatalog(file_io or file_io_for(warehouse, options), warehouse)
    if metastore == JDBC_METASTORE:
        return JdbcCatalog(warehouse, options, file_io)
    raise InvalidOptionError(
        METASTORE_OPTION, metastore, f"supported: {FILESYSTEM_METASTORE}, {JDBC_METASTORE}"
    )


__all__ = ["Catalog", "FileSystemCatalog", "Identifier", "JdbcCatalog", "create_catalog"]
