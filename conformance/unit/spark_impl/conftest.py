"""Fixtures of the spark_impl tests: one local SparkSession per test session, and the
reference reader as the oracle."""

from __future__ import annotations

import types
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import spark_impl
from conformance.spark_settings import session_builder
from reference.io import LocalFileIO
from reference.store import metadata, query, scan

PAIMON_CPP_TABLES = ("paimon-cpp", "parquet")


def table_roots(third_party: Path) -> list[Path]:
    warehouse = third_party.joinpath(*PAIMON_CPP_TABLES)
    return sorted(p for p in warehouse.glob("*.db/*") if (p / "schema").is_dir())


def snapshot_ids(root: Path) -> list[int]:
    names = (p.name for p in (root / "snapshot").glob("snapshot-*"))
    return sorted(int(n.removeprefix("snapshot-")) for n in names)


ReferenceReader = Callable[..., Counter[tuple[Any, ...]]]


@pytest.fixture(scope="session")
def reference_store() -> types.SimpleNamespace:
    """The reference's store modules (``query``, ``scan``, ``metadata``)."""
    return types.SimpleNamespace(query=query, scan=scan, metadata=metadata)


@pytest.fixture(scope="session")
def reference_reader(reference_store: types.SimpleNamespace) -> ReferenceReader:
    """``read(root, snapshot_id=None, tag=None, timestamp_millis=None, predicate=None)``: the
    reference's rows as a multiset."""
    query = reference_store.query

    def read(root: str | Path, predicate: Any = None, **travel: Any) -> Counter[tuple[Any, ...]]:
        result = query.read_table(
            LocalFileIO(), str(root), query.TimeTravel(**travel), predicate=predicate
        )
        return Counter(row for _, row in result.rows)

    return read


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local SparkSession (2 cores, the suite's settings: ``conformance.spark_settings``)
    with the ``paimon`` format registered."""
    pytest.importorskip("pyspark")
    session = session_builder("local[2]", "paimon-kit-spark-impl-tests").getOrCreate()
    spark_impl.register(session)
    yield session
    session.stop()
