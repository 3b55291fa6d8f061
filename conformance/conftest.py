"""Fixtures shared by the whole suite.

``third_party`` points at ``../shared/third-party`` (Java-written tables beside the checkout); a
user's clone does not have it, so tests using it skip with that reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
FIXTURES = PROJECT_ROOT / "fixtures"
THIRD_PARTY = Path(
    os.environ.get("PAIMON_KIT_THIRD_PARTY", PROJECT_ROOT.parent / "shared" / "third-party")
)


@pytest.fixture(scope="session")
def third_party() -> Path:
    """The directory of Java-written third-party files, or skip when this clone has none."""
    if not THIRD_PARTY.is_dir():
        pytest.skip(f"no third-party tables at {THIRD_PARTY} (set PAIMON_KIT_THIRD_PARTY)")
    return THIRD_PARTY


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


# The Java oracle and the object store: one JVM and one S3 server per test process.
from conformance.java.pytest_fixtures import java_harness  # noqa: E402
from conformance.objectstore.pytest_fixtures import s3_store  # noqa: E402

__all__ = ["fixtures_dir", "java_harness", "s3_store", "third_party"]
