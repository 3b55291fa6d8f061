"""Tests of ``reference.store.file_index`` and its wiring into writing, planning and reading.

Oracles, never the module under test:

* Java's bytes: Paimon 0.9 (our harness) writes the same table from the same rows, and the
  third-party tables ``append_with_bitmap`` / ``append_with_bsi`` (Java 1.x) are rewritten by the
  reference from their own rows; the index bytes must be identical.
* pyarrow: which rows of a Java-written data file match a filter, and which rows an index can
  keep (an exact filter, or the superset Java's index semantics define, e.g. a bitmap ``<>``
  keeps the null rows), decide how many files a plan must skip and how many rows a read may
  materialize.
* Hand-derived answers for small hand-built indexes and option sets.
"""

from __future__ import annotations

import datetime
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import reference.store.read as read_module
from reference.errors import (
    InvalidOptionError,
    PaimonFormatError,
    SpecViolation,
    UnsupportedFeature,
)
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, Timestamp
from reference.spec.data_file import DataFileMeta
from reference.spec.deletion_vector import BitmapKind, build_deletion_vector
from reference.spec.file_format import arrow_to_rows
from reference.spec.file_index import bitmap as bm
from reference.spec.file_index import bloom_filter as bf
from reference.spec.file_index.container import (
    ColumnIndex,
    ColumnIndexes,
    FileIndex,
    decode_file_index,
)
from reference.spec.file_index.options import compute_column_key_hash
from reference.spec.file_index.result import REMAIN, SKIP, rows_result
from reference.spec.file_index.roaring import row_ids_of
from reference.spec.predicate import (
    And,
    Leaf,
    Or,
    Predicate,
    PredicateOp,
    compute_file_predicate,
    equal,
    is_in,
)
from reference.spec.schema import RenameColumn, TableSchema
from reference.store import metadata
from reference.store.commit import BATCH_COMMIT_IDENTIFIER, commit
from reference.store.file_index import (
    IndexRequest,
    compute_file_index_builder,
    evaluate_file_at_read,
    evaluate_predicate,
    find_index_file_name,
    is_planned_by_index,
    parse_index_requests,
    read_file_index,
)
from reference.store.query import load_schemas, read_table
from reference.store.read import is_read_without_merge
from reference.store.scan import DataSplit, ScanPlan, plan_scan
from reference.store.schema_changes import alter_table, create_table
from reference.store.write import write_batch

STRING = t.VarCharType(t.MAX_LENGTH)
INT = t.IntType()
FILE_IO = LocalFileIO()
THIRD_PARTY_TABLES = Path("paimon-cpp", "parquet")
BITMAP_V1_FILE = Path("paimon-cpp", "file_index", "bitmap-index-v1")


def op(kind: PredicateOp, field: str, *literals: Any) -> Leaf:
    return Leaf(kind, field, tuple(literals))


# --------------------------------------------------------------------------------------------
# Helpers: write, plan, read, count what a read materializes
# --------------------------------------------------------------------------------------------


def write_table(
    root: Path,
    fields: Sequence[t.DataField],
    rows: Sequence[Row],
    options: Mapping[str, str],
    *,
    primary_keys: Sequence[str] = (),
) -> TableSchema:
    """Create a table with the reference and commit ``rows`` as one batch."""
    schema = create_table(FILE_IO, str(root), fields, primary_keys=primary_keys, options=options)
    messages = write_batch(FILE_IO, str(root), schema, None, rows)
    commit(
        FILE_IO,
        str(root),
        messages,
        commit_user="test",
        commit_identifier=BATCH_COMMIT_IDENTIFIER,
    )
    return schema


def plan(root: Path, predicate: Predicate | None = None) -> ScanPlan:
    snapshot = metadata.read_latest_snapshot(FILE_IO, str(root))
    assert snapshot is not None
    schemas = load_schemas(FILE_IO, str(root))
    latest = metadata.read_latest_schema(FILE_IO, str(root))
    return plan_scan(FILE_IO, str(root), snapshot, latest, schemas, predicate=predicate)


def planned_files(root: Path) -> list[tuple[DataSplit, DataFileMeta]]:
    return [(split, meta) for split in plan(root).splits for meta in split.files]


def stored_index_bytes(split: DataSplit, meta: DataFileMeta) -> tuple[str, bytes]:
    """Where a file's index is and its bytes, read here with plain file IO."""
    if meta.embedded_index is not None:
        return "embedded", meta.embedded_index
    [name] = meta.extra_files
    return "file", Path(split.bucket_path, name).read_bytes()


@dataclass
class ReadCounter:
    """Data files opened and rows materialized by ``read_file_rows`` during a read."""

    files: int = 0
    rows: int = 0


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> ReadCounter:
    counted = ReadCounter()
    original = read_module.read_file_rows

    def spy(*args: Any, **kwargs: Any) -> list[Row]:
        rows = original(*args, **kwargs)
        counted.files += 1
        counted.rows += len(rows)
        return rows

    monkeypatch.setattr(read_module, "read_file_rows", spy)
    return counted


def row_multiset(rows: Sequence[Row]) -> Counter[str]:
    return Counter(repr(row) for row in rows)


# --------------------------------------------------------------------------------------------
# Options (rule 1)
# --------------------------------------------------------------------------------------------


def test_requests_from_options() -> None:
    options = {
        "file-index.bloom-filter.columns": " a ,b",
        "file-index.bloom-filter.a.items": "10",
        "file-index.bitmap.columns": "c",
        "file-index.bitmap.c.version": "2",
        "file-index.read.enabled": "true",
        "file-index.in-manifest-threshold": "1 b",
        "file-index.some.deeper.option.key": "ignored: not three parts",
        "bucket": "-1",
    }
    assert parse_index_requests(options) == [
        IndexRequest("a", "bloom-filter", (("items", "10"),)),
        IndexRequest("b", "bloom-filter"),
        IndexRequest("c", "bitmap", (("version", "2"),)),
    ]


@pytest.mark.parametrize(
    ("options", "error"),
    [
        (
            {"file-index.bitmap.columns": "a", "file-index.bitmap.b.version": "1"},
            InvalidOptionError,
        ),
        ({"file-index.bloom-filter.a.items": "5"}, InvalidOptionError),
        ({"file-index.bitmap.columns": "a,,b"}, InvalidOptionError),
        ({"file-index.bitmap.columns": " "}, InvalidOptionError),
        ({"file-index.bloom-filter.columns": "m[k]"}, UnsupportedFeature),
    ],
)
def test_bad_option_sets(options: dict[str, str], error: type[Exception]) -> None:
    with pytest.raises(error):
        parse_index_requests(options)


FIELDS = (
    t.DataField(0, "k", INT),
    t.DataField(1, "s", STRING),
    t.DataField(2, "price", t.DecimalType(10, 2)),
    t.DataField(3, "flag", t.BooleanType()),
)


@pytest.mark.parametrize(
    ("options", "error", "names"),
    [
        ({"file-index.bitmap.columns": "nope"}, InvalidOptionError, "file-index.bitmap.columns"),
        ({"file-index.bitmap.columns": "price"}, InvalidOptionError, "file-index.bitmap.columns"),
        ({"file-index.bsi.columns": "s"}, InvalidOptionError, "file-index.bsi.columns"),
        ({"file-index.bloom-filter.columns": "flag"}, InvalidOptionError, "bloom-filter"),
        ({"file-index.range-bitmap.columns": "k"}, UnsupportedFeature, "range-bitmap"),
        ({"file-index.zorro.columns": "k"}, UnsupportedFeature, "zorro"),
        (
            {"file-index.bloom-filter.columns": "k", "file-index.bloom-filter.k.items": "x"},
            InvalidOptionError,
            "file-index.bloom-filter.k.items",
        ),
        (
            {"file-index.bloom-filter.columns": "k", "file-index.bloom-filter.k.fpp": "1.5"},
            InvalidOptionError,
            "file-index.bloom-filter.k.fpp",
        ),
        (
            {"file-index.bitmap.columns": "k", "file-index.bitmap.k.version": "3"},
            InvalidOptionError,
            "file-index.bitmap.k.version",
        ),
    ],
)
def test_requests_are_checked_against_the_table(
    options: dict[str, str], error: type[Exception], names: str
) -> None:
    with pytest.raises(error, match=names.replace(".", r"\.")):
        compute_file_index_builder(options, FIELDS)


def test_no_index_options_no_builder() -> None:
    assert compute_file_index_builder({"bucket": "-1"}, FIELDS) is None


def test_column_key_hash_is_java_arrays_hash_code() -> None:
    """``Arrays.hashCode(new Object[] {"a", null, false})`` by hand: "a".hashCode() is 97,
    null hashes to 0, Boolean.FALSE to 1237: ((31 + 97) * 31 + 0) * 31 + 1237."""
    assert compute_column_key_hash("a") == ((31 + 97) * 31 + 0) * 31 + 1237 == 124245


# --------------------------------------------------------------------------------------------
# Byte identity with Java (rule 2, 3)
# --------------------------------------------------------------------------------------------

JAVA_FIELDS = (
    t.DataField(0, "id", INT),
    t.DataField(1, "s", STRING),
    t.DataField(2, "n", t.BigIntType()),
    t.DataField(3, "d", t.DoubleType()),
    t.DataField(4, "ts", t.TimestampType(3)),
    t.DataField(5, "dt", t.DateType()),
)


def java_rows() -> list[Row]:
    return [
        (
            i,
            None if i % 7 == 3 else f"v{i % 13}",
            None if i % 5 == 0 else i * 1_000_003 % 97,
            i / 3.0,
            Timestamp(1_700_000_000_000 + i * 17),
            19_000 + i % 11,
        )
        for i in range(60)
    ]


JAVA_CASES = {
    "bloom-embedded": {
        "file-index.bloom-filter.columns": "s,n",
        "file-index.bloom-filter.s.items": "30",
        "file-index.bloom-filter.n.items": "40",
        "file-index.bloom-filter.n.fpp": "0.05",
    },
    "bloom-default-size-in-index-file": {"file-index.bloom-filter.columns": "s"},
    "bitmap-in-index-file": {"file-index.bitmap.columns": "s,n,id,dt,ts"},
    "bitmap-embedded": {"file-index.bitmap.columns": "dt"},
    "bitmap-and-bloom": {
        "file-index.bitmap.columns": "s,dt",
        "file-index.bloom-filter.columns": "n,d,ts",
        "file-index.bloom-filter.n.items": "20",
        "file-index.bloom-filter.d.items": "20",
        "file-index.bloom-filter.ts.items": "20",
        "file-index.in-manifest-threshold": "10 kb",
    },
}


@pytest.mark.java
@pytest.mark.parametrize("options", JAVA_CASES.values(), ids=JAVA_CASES.keys())
def test_java_writes_the_same_index_bytes(
    tmp_path: Path, java_harness: Any, options: dict[str, str]
) -> None:
    rows = java_rows()
    write_table(tmp_path / "ours", JAVA_FIELDS, rows, options)
    java_harness.create_table(tmp_path / "java", JAVA_FIELDS, options=options)
    java_harness.write(tmp_path / "java", rows, commit=True)
    [(our_split, ours)] = planned_files(tmp_path / "ours")
    [(java_split, theirs)] = planned_files(tmp_path / "java")
    assert ours.row_count == theirs.row_count == len(rows)
    assert stored_index_bytes(our_split, ours) == stored_index_bytes(java_split, theirs)


@pytest.mark.java
def test_java_09_keeps_one_index_per_column(tmp_path: Path, java_harness: Any) -> None:
    """A column listed for two index types: 0.9 writes one of them, the reference both (main)."""
    options = {
        "file-index.bitmap.columns": "dt",
        "file-index.bloom-filter.columns": "dt",
        "file-index.bloom-filter.dt.items": "10",
    }
    rows = java_rows()
    write_table(tmp_path / "ours", JAVA_FIELDS, rows, options)
    java_harness.create_table(tmp_path / "java", JAVA_FIELDS, options=options)
    java_harness.write(tmp_path / "java", rows, commit=True)
    [(_, ours)] = planned_files(tmp_path / "ours")
    [(_, theirs)] = planned_files(tmp_path / "java")
    assert ours.embedded_index is not None and theirs.embedded_index is not None
    [our_column] = decode_file_index(ours.embedded_index).columns
    [java_column] = decode_file_index(theirs.embedded_index).columns
    assert {i.index_type for i in our_column.indexes} == {"bitmap", "bloom-filter"}
    [java_index] = java_column.indexes
    assert java_index in our_column.indexes


def third_party_root(third_party: Path, name: str) -> Path:
    return third_party / THIRD_PARTY_TABLES / f"{name}.db" / name


def third_party_data(root: Path) -> tuple[TableSchema, DataSplit, DataFileMeta, pa.Table]:
    """The table's latest schema and its one live data file, read with pyarrow."""
    [(split, meta)] = planned_files(root)
    schema = metadata.read_latest_schema(FILE_IO, str(root))
    return schema, split, meta, pq.read_table(Path(split.bucket_path, meta.file_name))


@pytest.mark.parametrize(
    ("name", "extra_options"),
    [
        # Written by Java 1.x, whose bitmap default is version 2 (the reference writes 1).
        ("append_with_bitmap", {f"file-index.bitmap.f{i}.version": "2" for i in range(3)}),
        ("append_with_bsi", {}),
    ],
)
def test_third_party_index_bytes_are_rewritten_identically(
    tmp_path: Path, third_party: Path, name: str, extra_options: dict[str, str]
) -> None:
    schema, split, meta, data = third_party_data(third_party_root(third_party, name))
    rows = arrow_to_rows(data, schema.fields)
    write_table(tmp_path / name, schema.fields, rows, {**schema.options, **extra_options})
    [(our_split, ours)] = planned_files(tmp_path / name)
    assert stored_index_bytes(our_split, ours) == stored_index_bytes(split, meta)


# --------------------------------------------------------------------------------------------
# Pruning third-party tables (rules 5, 6)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PruneCase:
    """A filter, the pyarrow expression of the rows it matches, and of the rows the file index
    may keep (the same unless Java's index semantics keep more)."""

    predicate: Predicate
    matching: pc.Expression
    kept: pc.Expression | None = None

    @property
    def kept_rows(self) -> pc.Expression:
        return self.matching if self.kept is None else self.kept


F = pc.field
BITMAP_CASES = [
    PruneCase(equal("f0", "Bob"), F("f0") == "Bob"),
    PruneCase(equal("f0", "Bobby"), F("f0") == "Bobby"),
    PruneCase(equal("f1", 15), F("f1") == 15),
    PruneCase(is_in("f1", [11, 12, 20]), F("f1").isin([11, 12, 20])),
    PruneCase(op(PredicateOp.IS_NULL, "f2"), F("f2").is_null()),
    PruneCase(
        op(PredicateOp.NOT_EQUAL, "f2", 1),
        F("f2") != 1,
        (F("f2") != 1) | F("f2").is_null(),
    ),
    PruneCase(And((equal("f0", "Bob"), equal("f1", 20))), (F("f0") == "Bob") & (F("f1") == 20)),
    PruneCase(Or((equal("f0", "Bob"), equal("f2", 0))), (F("f0") == "Bob") | (F("f2") == 0)),
    PruneCase(
        And((equal("f3", 12.1), equal("f0", "Lucy"))),
        (F("f3") == 12.1) & (F("f0") == "Lucy"),
        F("f0") == "Lucy",
    ),
    PruneCase(
        op(PredicateOp.STARTS_WITH, "f0", "Al"),
        pc.starts_with(F("f0"), "Al"),
        pc.scalar(True),
    ),
]

TS_2020 = datetime.datetime(2020, 1, 1)
BSI_CASES = [
    PruneCase(equal("f1", 100), F("f1") == 100),
    PruneCase(equal("f1", 75), F("f1") == 75),
    PruneCase(
        And((op(PredicateOp.GREATER_THAN, "f1", 150), op(PredicateOp.LESS_THAN, "f1", 190))),
        (F("f1") > 150) & (F("f1") < 190),
    ),
    PruneCase(op(PredicateOp.GREATER_OR_EQUAL, "f1", 200), F("f1") >= 200),
    PruneCase(op(PredicateOp.LESS_THAN, "f2", -1), F("f2") < -1),
    PruneCase(
        And((op(PredicateOp.LESS_OR_EQUAL, "f2", 0), op(PredicateOp.GREATER_THAN, "f1", 60))),
        (F("f2") <= 0) & (F("f1") > 60),
    ),
    PruneCase(op(PredicateOp.IS_NULL, "f1"), F("f1").is_null()),
    PruneCase(op(PredicateOp.NOT_EQUAL, "f2", 1), F("f2") != 1),
    PruneCase(is_in("f2", [2, 7]), F("f2").isin([2, 7])),
    PruneCase(
        op(PredicateOp.GREATER_THAN, "f4", Timestamp(int(TS_2020.timestamp() * 1000))),
        F("f4") > pa.scalar(TS_2020, pa.timestamp("ns")),
    ),
]


def count_rows(data: pa.Table, expression: pc.Expression) -> int:
    return int(data.filter(expression).num_rows)


def check_read(
    root: Path,
    case: PruneCase,
    schema: TableSchema,
    data: pa.Table,
    counter: ReadCounter,
) -> None:
    """The read returns exactly pyarrow's rows, materializing only the rows the index keeps."""
    result = read_table(FILE_IO, str(root), predicate=case.predicate)
    expected = arrow_to_rows(data.filter(case.matching), schema.fields)
    assert row_multiset([row for _, row in result.rows]) == row_multiset(expected)
    kept = count_rows(data, case.kept_rows)
    assert (counter.files, counter.rows) == ((1, kept) if kept else (0, 0))


@pytest.mark.parametrize("case", BITMAP_CASES, ids=lambda case: repr(case.predicate))
def test_bitmap_table_prunes_at_plan_time(
    third_party: Path, case: PruneCase, counter: ReadCounter
) -> None:
    """The index is embedded, so the plan itself skips a file no row of which the index keeps."""
    root = third_party_root(third_party, "append_with_bitmap")
    schema, _, _, data = third_party_data(root)
    expected_skips = 1 if count_rows(data, case.kept_rows) == 0 else 0
    pruned = plan(root, case.predicate)
    assert (pruned.skipped_files, pruned.skipped_by_index) == (0, expected_skips)
    counter.files = counter.rows = 0
    check_read(root, case, schema, data, counter)


@pytest.mark.parametrize("case", BSI_CASES, ids=lambda case: repr(case.predicate))
def test_bsi_table_prunes_at_read_time(
    third_party: Path, case: PruneCase, counter: ReadCounter
) -> None:
    """The index is in a ``.index`` file, which Java (and the reference) read only when reading:
    the plan keeps the file, the read skips it or reads only the rows the index keeps."""
    root = third_party_root(third_party, "append_with_bsi")
    schema, _, meta, data = third_party_data(root)
    assert meta.embedded_index is None and find_index_file_name(meta) is not None
    pruned = plan(root, case.predicate)
    assert (pruned.skipped_files, pruned.skipped_by_index) == (0, 0)
    counter.files = counter.rows = 0
    check_read(root, case, schema, data, counter)


# --------------------------------------------------------------------------------------------
# A reference-written bitmap index over 100,000 strings
# --------------------------------------------------------------------------------------------

README_ROWS_OF_2500 = [3127, 18654, 23615, 43768, 62555, 63261, 66284, 74708, 99268]


def bitmap_v1_column(data: bytes) -> list[str | None]:
    """The column a Java-written bitmap body was built from (row ``i`` holds its value)."""
    index = bm.decode_bitmap_index(data, STRING)
    column: list[str | None] = [None] * index.row_count
    for entry in index.entries:
        for row in entry.rows:
            column[row] = entry.key
    return column


def test_bitmap_on_100k_strings_reads_only_matching_rows(
    tmp_path: Path, third_party: Path, counter: ReadCounter
) -> None:
    java_body = (third_party / BITMAP_V1_FILE).read_bytes()
    column = bitmap_v1_column(java_body)
    fields = (t.DataField(0, "id", INT), t.DataField(1, "s", STRING))
    root = tmp_path / "strings"
    write_table(root, fields, list(enumerate(column)), {"file-index.bitmap.columns": "s"})
    [(split, meta)] = planned_files(root)
    where, container = stored_index_bytes(split, meta)
    assert where == "file"
    [indexed] = decode_file_index(container).columns
    assert indexed.column == "s"
    assert indexed.indexes == (ColumnIndex("bitmap", java_body),)

    data = pq.read_table(Path(split.bucket_path, meta.file_name))
    for value in ("asdfghjkl123_2500", "asdfghjkl123_5000", "asdfghjkl123_99999"):
        counter.files = counter.rows = 0
        result = read_table(FILE_IO, str(root), predicate=equal("s", value))
        expected = data.filter(F("s") == value)
        assert sorted(row for _, row in result.rows) == sorted(arrow_to_rows(expected, fields))
        assert counter.rows == expected.num_rows
        assert counter.files == (1 if expected.num_rows else 0)
    counter.rows = 0
    result = read_table(FILE_IO, str(root), predicate=equal("s", "asdfghjkl123_2500"))
    assert [row[0] for _, row in result.rows] == README_ROWS_OF_2500
    assert counter.rows == len(README_ROWS_OF_2500)


# --------------------------------------------------------------------------------------------
# Evaluating hand-built indexes (rule 5)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hand_index() -> FileIndex:
    """a: bitmap over [1, 2, null, 2]; b: bloom over ["x", "y"]; c: an index that saw no row;
    d: an index type without a codec here; e: no index."""
    bitmap = bm.encode_bitmap_index(bm.build_bitmap_index([1, 2, None, 2], INT), INT)
    bloom = bf.encode_bloom_filter(bf.build_bloom_filter(["x", "y"], STRING, items=1000, fpp=0.01))
    return FileIndex(
        (
            ColumnIndexes("a", (ColumnIndex("bitmap", bitmap),)),
            ColumnIndexes("b", (ColumnIndex("bloom-filter", bloom),)),
            ColumnIndexes("c", (ColumnIndex("bitmap", None),)),
            ColumnIndexes("d", (ColumnIndex("range-bitmap", b"not decoded"),)),
        )
    )


HAND_TYPES = {"a": INT, "b": STRING, "c": INT, "d": INT, "e": INT}


def rows(*ids: int) -> Any:
    return rows_result(row_ids_of(ids))


@pytest.mark.parametrize(
    ("predicate", "expected"),
    [
        (equal("a", 2), rows(1, 3)),
        (equal("a", 5), rows()),
        (op(PredicateOp.IS_NULL, "a"), rows(2)),
        (op(PredicateOp.NOT_EQUAL, "a", 2), rows(0, 2)),
        (is_in("a", [1, 5]), rows(0)),
        (op(PredicateOp.GREATER_THAN, "a", 1), REMAIN),
        (equal("b", "x"), REMAIN),
        (equal("b", "zzz"), SKIP),
        (is_in("b", ["zzz", "y"]), REMAIN),
        (op(PredicateOp.STARTS_WITH, "b", "x"), REMAIN),
        (And((equal("a", 2), equal("b", "zzz"))), SKIP),
        (And((equal("a", 2), equal("b", "x"))), rows(1, 3)),
        (Or((equal("a", 2), equal("b", "x"))), REMAIN),
        (Or((equal("a", 2), equal("a", 1))), rows(0, 1, 3)),
        (Or((equal("a", 5), equal("b", "zzz"))), rows()),
        (equal("c", 1), SKIP),
        (op(PredicateOp.LESS_THAN, "c", 1), SKIP),
        (op(PredicateOp.IS_NOT_NULL, "c"), SKIP),
        (op(PredicateOp.IS_NULL, "c"), REMAIN),
        (op(PredicateOp.NOT_EQUAL, "c", 1), REMAIN),
        (equal("d", 1), REMAIN),
        (equal("e", 1), REMAIN),
        (And(()), REMAIN),
        (Or(()), REMAIN),
        (None, REMAIN),
    ],
    ids=repr,
)
def test_hand_built_answers(hand_index: FileIndex, predicate: Predicate, expected: Any) -> None:
    assert evaluate_predicate(hand_index, predicate, HAND_TYPES) == expected


def test_predicate_moves_to_the_file_schema_by_field_id() -> None:
    read_fields = (
        t.DataField(0, "x", INT),
        t.DataField(1, "y", STRING),
        t.DataField(2, "z", t.BigIntType()),
    )
    file_fields = (t.DataField(0, "old_x", INT.copy(False)), t.DataField(1, "y", INT))
    x, y, z = equal("x", 1), equal("y", "a"), equal("z", 2)
    assert compute_file_predicate(x, read_fields, file_fields) == equal("old_x", 1)
    assert compute_file_predicate(And((x, y, z)), read_fields, file_fields) == equal("old_x", 1)
    assert compute_file_predicate(Or((x, z)), read_fields, file_fields) is None
    assert compute_file_predicate(y, read_fields, file_fields) is None
    both = And((x, op(PredicateOp.IS_NULL, "x")))
    assert compute_file_predicate(both, read_fields, file_fields) == And(
        (equal("old_x", 1), op(PredicateOp.IS_NULL, "old_x"))
    )


# --------------------------------------------------------------------------------------------
# Reference-written tables: where the index goes, plan and read use, deletion vectors
# --------------------------------------------------------------------------------------------

SMALL_FIELDS = (t.DataField(0, "k", INT), t.DataField(1, "v", STRING))
SMALL_ROWS = [(i % 3, f"v{i}") for i in range(10)]
BITMAP_ON_K = {"file-index.bitmap.columns": "k"}


@pytest.fixture
def small_table(tmp_path: Path) -> Iterator[tuple[Path, TableSchema, DataSplit, DataFileMeta]]:
    root = tmp_path / "small"
    schema = write_table(root, SMALL_FIELDS, SMALL_ROWS, BITMAP_ON_K)
    [(split, meta)] = planned_files(root)
    yield root, schema, split, meta


def test_threshold_decides_embedded_or_index_file(tmp_path: Path) -> None:
    embedded_root, separate_root = tmp_path / "embedded", tmp_path / "separate"
    write_table(embedded_root, SMALL_FIELDS, SMALL_ROWS, BITMAP_ON_K)
    write_table(
        separate_root,
        SMALL_FIELDS,
        SMALL_ROWS,
        {**BITMAP_ON_K, "file-index.in-manifest-threshold": "1 b"},
    )
    [(embedded_split, embedded)] = planned_files(embedded_root)
    [(separate_split, separate)] = planned_files(separate_root)
    assert embedded.embedded_index is not None and embedded.extra_files == ()
    assert separate.embedded_index is None
    assert separate.extra_files == (separate.file_name + ".index",)
    assert len(embedded.embedded_index) <= 500 < len(embedded.embedded_index) + 500
    index_file = Path(separate_split.bucket_path, separate.extra_files[0])
    assert index_file.read_bytes() == embedded.embedded_index
    for split, meta in ((embedded_split, embedded), (separate_split, separate)):
        path = str(Path(split.bucket_path, meta.file_name))
        assert read_file_index(FILE_IO, path, meta) == decode_file_index(embedded.embedded_index)


def test_plan_skips_and_read_narrows(
    small_table: tuple[Path, TableSchema, DataSplit, DataFileMeta], counter: ReadCounter
) -> None:
    root, *_ = small_table
    assert plan(root, equal("k", 1)).skipped_by_index == 0
    assert plan(root, And((equal("k", 1), equal("k", 2)))).skipped_by_index == 1
    result = read_table(FILE_IO, str(root), predicate=equal("k", 1))
    assert [row for _, row in result.rows] == [(1, "v1"), (1, "v4"), (1, "v7")]
    assert (counter.files, counter.rows) == (1, 3)


def test_read_enabled_false_turns_the_index_off(tmp_path: Path, counter: ReadCounter) -> None:
    root = tmp_path / "off"
    write_table(root, SMALL_FIELDS, SMALL_ROWS, {**BITMAP_ON_K, "file-index.read.enabled": "false"})
    assert plan(root, And((equal("k", 1), equal("k", 2)))).skipped_by_index == 0
    result = read_table(FILE_IO, str(root), predicate=equal("k", 1))
    assert len(result.rows) == 3
    assert (counter.files, counter.rows) == (1, len(SMALL_ROWS))


def test_renamed_column_still_prunes(tmp_path: Path, counter: ReadCounter) -> None:
    root = tmp_path / "renamed"
    write_table(root, SMALL_FIELDS, SMALL_ROWS, BITMAP_ON_K)
    alter_table(FILE_IO, str(root), [RenameColumn(("k",), "key")])
    assert plan(root, And((equal("key", 1), equal("key", 2)))).skipped_by_index == 1
    result = read_table(FILE_IO, str(root), predicate=equal("key", 2))
    assert [row for _, row in result.rows] == [(2, "v2"), (2, "v5"), (2, "v8")]
    assert counter.rows == 3


def test_read_time_answer_leaves_out_deleted_rows(
    small_table: tuple[Path, TableSchema, DataSplit, DataFileMeta],
) -> None:
    """Java ``FileIndexEvaluator``: the index answer ANDed with the rows the vector keeps; all
    of them is REMAIN, none is SKIP."""
    _, schema, split, meta = small_table
    path = str(Path(split.bucket_path, meta.file_name))

    def answer(predicate: Predicate | None, deleted: Sequence[int], kind: BitmapKind) -> Any:
        vector = build_deletion_vector(deleted, kind) if deleted else None
        return evaluate_file_at_read(
            FILE_IO, path, meta, predicate, schema=schema, file_schema=schema, vector=vector
        )

    bits32 = BitmapKind.BITMAP32
    assert answer(equal("k", 1), [], bits32) == rows(1, 4, 7)
    assert answer(equal("k", 1), [4, 5], bits32) == rows(1, 7)
    assert answer(equal("k", 1), [1, 4, 7], bits32) == SKIP
    assert answer(is_in("k", [0, 1, 2]), [4], bits32) == REMAIN
    assert answer(equal("v", "v1"), [4], bits32) == REMAIN
    assert answer(None, [4], bits32) == REMAIN
    assert answer(equal("k", 1), [4], BitmapKind.BITMAP64) == REMAIN


def test_index_file_lookup_errors(
    small_table: tuple[Path, TableSchema, DataSplit, DataFileMeta],
) -> None:
    _, schema, _, meta = small_table
    assert meta.embedded_index is not None
    two = replace(meta, embedded_index=None, extra_files=("a.parquet.index", "b.parquet.index"))
    with pytest.raises(SpecViolation, match="more than one index file"):
        find_index_file_name(two)
    broken = replace(meta, embedded_index=b"\x00" * 24)
    with pytest.raises(PaimonFormatError) as raised:
        is_planned_by_index(broken, equal("k", 1), schema, schema)
    assert raised.value.path == meta.file_name
    truncated = replace(meta, embedded_index=meta.embedded_index[:-3])
    with pytest.raises(PaimonFormatError):
        is_planned_by_index(truncated, equal("k", 1), schema, schema)


def test_primary_key_files_get_no_index(tmp_path: Path) -> None:
    """Paimon 0.9.0 writes file indexes only for append tables."""
    root = tmp_path / "pk"
    fields = (t.DataField(0, "k", INT.copy(False)), t.DataField(1, "v", STRING))
    write_table(root, fields, SMALL_ROWS[:3], {**BITMAP_ON_K, "bucket": "1"}, primary_keys=["k"])
    [(_, meta)] = planned_files(root)
    assert (meta.embedded_index, meta.extra_files) == (None, ())


@pytest.mark.parametrize(
    ("options", "levels", "delete_rows", "expected"),
    [
        ({"deletion-vectors.enabled": "true"}, [1, 2], [0, 0], True),
        ({"merge-engine": "first-row"}, [3], [0], True),
        ({"deletion-vectors.enabled": "true"}, [1, 2], [0, 1], False),
        ({"deletion-vectors.enabled": "true"}, [1], [None], False),
        ({}, [1, 2], [0, 0], False),
    ],
)
def test_which_primary_key_splits_are_read_without_merge(
    options: dict[str, str], levels: list[int], delete_rows: list[int | None], expected: bool
) -> None:
    fields = (t.DataField(0, "k", INT.copy(False)), t.DataField(1, "v", STRING))
    with tempfile.TemporaryDirectory() as directory:
        schema = create_table(
            FILE_IO, directory, fields, primary_keys=["k"], options={"bucket": "1", **options}
        )
        meta = write_batch(FILE_IO, directory, schema, None, [(1, "a")])[0].data.new_files[0]
    files = tuple(
        replace(meta, level=level, delete_row_count=deleted)
        for level, deleted in zip(levels, delete_rows, strict=True)
    )
    split = DataSplit(1, (), b"", 0, "unused", files, {})
    assert is_read_without_merge(schema, split) is expected
