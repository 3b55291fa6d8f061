"""pytest fixtures for S3 tests (mark them ``@pytest.mark.s3``).

Import the fixture into a test module (``from conformance.objectstore.pytest_fixtures import
s3_store``) or list this module in ``pytest_plugins``. One server serves the whole session
(see :mod:`conformance.objectstore.server`); each session gets a fresh bucket.
"""

from __future__ import annotations

import atexit
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from conformance.objectstore.server import ObjectStoreUnavailable, start_object_store
from reference.io import S3Config, S3FileIO


@dataclass(frozen=True)
class S3Store:
    """A bucket on a running S3 server, and how to reach it."""

    endpoint: str
    access_key: str
    secret_key: str
    region: str
    bucket: str
    source: str

    @property
    def uri(self) -> str:
        return f"s3://{self.bucket}"

    @property
    def options(self) -> dict[str, str]:
        """Table/catalog options that point ``reference.io.file_io_for`` at this store."""
        return {
            "s3.endpoint": self.endpoint,
            "s3.access-key": self.access_key,
            "s3.secret-key": self.secret_key,
            "s3.region": self.region,
            "s3.path-style-access": "true",
        }

    def config(self) -> S3Config:
        return S3Config(
            endpoint=self.endpoint,
            access_key=self.access_key,
            secret_key=self.secret_key,
            region=self.region,
            path_style=True,
        )

    def file_io(self) -> S3FileIO:
        return S3FileIO(self.config())

    def client(self) -> Any:
        """A raw boto3 client (for tests that bypass the file IO)."""
        return self.file_io().client


_STORE: S3Store | None = None
"""One bucket on one server per process, however many modules import the fixture."""


def _shared_store() -> S3Store:
    global _STORE  # noqa: PLW0603 (a process-wide singleton, created lazily)
    if _STORE is None:
        server = start_object_store()
        atexit.register(server.stop)
        store = S3Store(
            endpoint=server.endpoint,
            access_key=server.access_key,
            secret_key=server.secret_key,
            region=server.region,
            bucket="paimon-kit-" + uuid.uuid4().hex[:12],
            source=server.source,
        )
        store.client().create_bucket(Bucket=store.bucket)
        _STORE = store
    return _STORE


@pytest.fixture(scope="session")
def s3_store() -> S3Store:
    """A fresh bucket on the session's S3 server; skips when no server can be had."""
    try:
        return _shared_store()
    except ObjectStoreUnavailable as reason:
        pytest.skip(str(reason))
