"""MAP keys of any type (issue 22 item 3): maps whose keys Python cannot hash (ARRAY, MAP,
MULTISET keys, ROW keys holding one) decode in Parquet, ORC and Avro.

Java Paimon 0.9 writes one table per file format holding such maps (and maps with hashable
non-string keys, for contrast); the reference must read exactly the rows Java reads back, which
are the rows written. Java 0.9's Avro writer cannot write any MULTISET (a ClassCastException in
its ``AvroSchemaVisitor``), so the Avro table has no multiset column. The representation
(``reference.spec.data.PairMap``) is checked on its own: entries in order, a later equal key
replacing an earlier one's value, dict-like equality.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from conformance.java.harness import JavaHarness
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row, serialize_binary_row
from reference.spec.casts import cast_value
from reference.spec.data import PairMap, Row, Timestamp, build_map, days_from_date
from reference.store.query import LATEST, read_table

FORMATS = ("parquet", "orc", "avro")
STRING = t.VarCharType(t.MAX_LENGTH)
VALUE_ROW = t.RowType((t.DataField(10, "a", t.IntType()), t.DataField(11, "b", STRING)))
KEY_ROW = t.RowType((t.DataField(12, "x", t.IntType()), t.DataField(13, "y", t.ArrayType(STRING))))

FIELDS = [
    t.DataField(0, "id", t.IntType(nullable=False)),
    t.DataField(1, "by_array", t.MapType(t.ArrayType(t.FloatType()), VALUE_ROW)),
    t.DataField(2, "by_row", t.MapType(KEY_ROW, t.BigIntType())),
    t.DataField(3, "by_map", t.MapType(t.MapType(t.IntType(), STRING), t.IntType())),
    t.DataField(4, "bag_of_arrays", t.MultisetType(t.ArrayType(t.IntType()))),
    t.DataField(5, "by_bytes", t.MapType(t.VarBinaryType(t.MAX_LENGTH), t.DateType())),
    t.DataField(6, "by_time", t.MapType(t.TimestampType(3), t.DecimalType(10, 2))),
]

DAY = days_from_date(datetime.date(2024, 2, 29))
ROWS: list[Row] = [
    (
        1,
        PairMap([([1.5, None], (1, "x")), ([], (2, None)), ([-0.25], None)]),
        PairMap([((7, ["p", None]), 70), ((8, []), None)]),
        PairMap([({1: "one", 2: None}, 12), ({}, 0)]),
        PairMap([([1, 2], 2), ([], 1)]),
        {b"\x00\xff": DAY, b"": None},
        {Timestamp(1_700_000_000_123): Decimal("12.34"), Timestamp(86_400_001): None},
    ),
    (2, None, None, None, None, None, None),
    (3, PairMap([]), {}, build_map([]), {}, {}, {}),
]


NO_MULTISET = {"avro"}
"""Formats whose Java 0.9 writer cannot write a MULTISET column."""


def written_columns(fmt: str) -> list[int]:
    """The positions of :data:`FIELDS` the ``fmt`` table holds."""
    skip = t.TypeRoot.MULTISET if fmt in NO_MULTISET else None
    return [i for i, f in enumerate(FIELDS) if f.type.root is not skip]


def expected_rows(fmt: str) -> list[Row]:
    return [tuple(row[i] for i in written_columns(fmt)) for row in ROWS]


@pytest.fixture(scope="module")
def java_tables(java_harness: JavaHarness, tmp_path_factory: Any) -> Iterator[dict[str, Path]]:
    """One Java-0.9-written append table per file format, holding :data:`ROWS`."""
    base = tmp_path_factory.mktemp("map-keys")
    roots = {}
    for fmt in FORMATS:
        root = base / fmt / "t"
        fields = [FIELDS[i] for i in written_columns(fmt)]
        java_harness.create_table(root, fields, options={"file.format": fmt, "bucket": "-1"})
        java_harness.write(root, expected_rows(fmt), commit=True)
        roots[fmt] = root
    yield roots


def by_id(rows: list[Row]) -> list[Row]:
    return sorted(rows, key=lambda row: row[0])


@pytest.mark.java
@pytest.mark.parametrize("fmt", FORMATS)
def test_reference_reads_java_maps_with_any_key(
    java_harness: JavaHarness, java_tables: dict[str, Path], fmt: str
) -> None:
    java_rows = by_id(java_harness.read(java_tables[fmt]).values())
    assert java_rows == expected_rows(fmt)
    result = read_table(LocalFileIO(), str(java_tables[fmt]), LATEST)
    assert all(kind.is_add for kind, _ in result.rows)
    assert by_id([row for _, row in result.rows]) == java_rows


def test_pair_map_keeps_entries_and_compares_like_a_dict() -> None:
    built = build_map([([1], "a"), ([2], "b"), ([1], "c")])
    assert isinstance(built, PairMap)
    assert list(built.items()) == [([1], "c"), ([2], "b")]
    assert built[[2]] == "b" and [3] not in built and len(built) == 2
    assert built == PairMap([([2], "b"), ([1], "c")])
    assert built != PairMap([([2], "b"), ([1], "a")])
    assert built != {1: "c", 2: "b"} and PairMap([]) == {}
    assert build_map([(1, "a")]) == {1: "a"} and isinstance(build_map([(1, "a")]), dict)
    with pytest.raises(TypeError):
        hash(built)


def test_schema_evolution_casts_map_values_under_unhashable_keys() -> None:
    """A MAP<ARRAY<INT>, INT> read as MAP<ARRAY<INT>, BIGINT> (a widened value type)."""
    source = t.MapType(t.ArrayType(t.IntType()), t.IntType())
    target = t.MapType(t.ArrayType(t.IntType()), t.BigIntType())
    value = PairMap([([1], 2), ([], None)])
    assert cast_value(value, source, target) == PairMap([([], None), ([1], 2)])


def test_binary_row_maps_with_unhashable_keys_decode() -> None:
    """Java ``BinaryMap`` holds keys of any type; decoding one keyed by arrays gives a PairMap
    (was: UnsupportedFeature 'not hashable')."""
    types = [t.MapType(t.ArrayType(t.IntType()), STRING), t.MultisetType(KEY_ROW)]
    row = (PairMap([([1, 2], "a"), ([], None)]), PairMap([((1, ["x"]), 2)]))
    assert deserialize_binary_row(serialize_binary_row(row, types), types) == row
