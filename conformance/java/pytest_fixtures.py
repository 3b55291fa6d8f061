"""The session fixture ``java_harness``: one Paimon 0.9 JVM for the whole test session.

Import it into a ``conftest.py``::

    from conformance.java.pytest_fixtures import java_harness  # noqa: F401

It builds the harness on first use (downloading the jar once into the cache dir) and skips the
requesting tests, with the reason, when java/javac/pyspark are missing or the jar cannot be
downloaded. A compile error in the harness sources is a failure, not a skip.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.java import build as java_build
from conformance.java.harness import JavaHarness, java_unavailable_reason


@pytest.fixture(scope="session")
def java_harness() -> Iterator[JavaHarness]:
    """A started :class:`JavaHarness`, shut down at the end of the session."""
    reason = java_unavailable_reason()
    if reason is not None:
        pytest.skip(f"Java oracle unavailable: {reason}")
    try:
        build = java_build.ensure_built()
    except (java_build.ToolMissing, java_build.DownloadFailed) as error:
        pytest.skip(f"Java oracle unavailable: {error}")
    with JavaHarness(build) as harness:
        yield harness
