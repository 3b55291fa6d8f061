"""paimon-kit's PySpark engine: a ``paimon`` Python Data Source with its own planning and
vectorized merge-on-read (see :mod:`spark_impl.datasource`)."""

from __future__ import annotations

from typing import Any


def register(spark: Any) -> None:
    """Register the ``paimon`` data source on ``spark`` (imports pyspark lazily)."""
    from spark_impl.datasource import register as register_datasource  # noqa: PLC0415 (pyspark)

    register_datasource(spark)
