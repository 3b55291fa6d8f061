"""Fixtures shared by the whole suite.

``third_party`` points at ``../shared/third-party`` (Java-written tables beside the checkout); a
user's clone does not have it, so tests using it skip with that reason.

Hypothesis profiles: ``ci`` (the default) draws the same examples on every run
(``derandomize``), so a green suite stays green and a red one reproduces; timing checks are
off because CI machines are small and shared. ``explore`` draws fresh random examples:
``HYPOTHESIS_PROFILE=explore python -m pytest``.

Every Spark JVM the suite starts gets ``conformance.spark_settings.TEST_JVM_OPTIONS`` (set in
the environment here, so the subprocess drivers and a test cluster's daemons get them too).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from conformance.spark_settings import use_test_jvm_options

_RELAXED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", derandomize=True, **_RELAXED)
settings.register_profile("explore", **_RELAXED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
use_test_jvm_options()  # before any Spark JVM of the process or its subprocesses starts

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
