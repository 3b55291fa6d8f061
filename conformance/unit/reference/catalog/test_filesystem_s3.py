"""The file system catalog on an S3 warehouse (``reference/catalog/filesystem.py`` rule 6):
issue 19's row "create_database on an s3:// warehouse returns OK, creates nothing;
create_table then says the database does not exist"."""

from __future__ import annotations

import uuid

import pytest

from conformance.objectstore.pytest_fixtures import S3Store
from reference.catalog import FileSystemCatalog, Identifier, create_catalog
from reference.spec import types as t

pytestmark = pytest.mark.s3

FIELDS = [t.DataField(0, "a", t.IntType())]


def keys(store: S3Store, prefix: str) -> list[str]:
    listed = store.client().list_objects_v2(Bucket=store.bucket, Prefix=prefix)
    return sorted(item["Key"] for item in listed.get("Contents", []))


def test_an_empty_database_exists_on_s3(s3_store: S3Store) -> None:
    """``create_database`` writes the directory marker ``<name>.db/`` (what Hadoop S3A's
    ``mkdirs`` writes for Java's ``FileSystemCatalog``): the empty database is listed and
    exists, ``create_table`` finds it, and dropping it leaves no object behind."""
    warehouse = f"wh-{uuid.uuid4().hex[:8]}"
    catalog = create_catalog({"warehouse": f"{s3_store.uri}/{warehouse}", **s3_store.options})
    assert isinstance(catalog, FileSystemCatalog)
    catalog.create_database("db")
    assert f"{warehouse}/db.db/" in keys(s3_store, warehouse)
    assert catalog.list_databases() == ["db"]
    assert catalog.database_exists("db")
    catalog.create_table(Identifier("db", "t"), FIELDS)
    assert catalog.list_tables("db") == ["t"]
    catalog.drop_database("db", cascade=True)
    assert not any(key.startswith(f"{warehouse}/db.db/") for key in keys(s3_store, warehouse))
