"""The session fixture ``java_harness``: one Paimon 0.9 JVM for the whole test session.

Import it into a ``conftest.py``::

    from conformance.java.pytest_fixtures import java_harness  # noqa: F401

It builds the harness on first use (downloading the jar once into the cache dir) and skips the
requesting tests, with the reason, when java/javac/pyspark are missing or the jar cannot be
downloaded. A compile error in the harness sources is a failure, not a skip.
"""

from __future__ import annotations

import atexit

import pytest

from conformance.java import build as java_build
from conformance.java.harness import JavaHarness, java_unavailable_reason

_HARNESS: JavaHarness | None = None
"""One JVM per process, however many modules import the fixture."""


@pytest.fixture(scope="session")
def java_harness() -> JavaHarness:
    """A started :class:`JavaHarness`, shut down when the process exits."""
    global _HARNESS  # noqa: PLW0603 (a process-wide singleton, created lazily)
    reason = java_unavailable_reason()
    if reason is not None:
        pytest.skip(f"Java oracle unavailable: {reason}")
    if _HARNESS is None:
        try:
            build = java_build.ensure_built()
        except (java_build.ToolMissing, java_build.DownloadFailed) as error:
            pytest.skip(f"Java oracle unavailable: {error}")
        harness = JavaHarness(build)
        harness.start()
        atexit.register(harness.close)
        _HARNESS = harness
    return _HARNESS
