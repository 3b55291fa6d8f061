"""Fixtures shared by the differential tests against spark_impl."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="module")
def spark() -> Any:
    """The differential tests' local SparkSession (skips with the reason when none can start)."""
    pytest.importorskip("pyspark")
    from conformance.differential.run_spark import spark_session  # noqa: PLC0415 (pyspark)
    from conformance.engines.spark_engine import spark_unavailable_reason  # noqa: PLC0415

    reason = spark_unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    return spark_session()
