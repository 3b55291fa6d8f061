"""spark_impl.native_read: which splits Spark's own reader takes (rules 2 and 3), without Spark.

The answers of the hybrid read against the reference are in
``conformance/differential/test_native_read.py``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reference.errors import SpecViolation
from reference.spec import types as t
from reference.spec.deletion_vector import build_deletion_vector, encode_deletion_vector_file
from reference.spec.schema import TableSchema
from spark_impl.native_read import (
    MAX_VECTORS_PER_SCAN,
    NativeScan,
    compute_deleted_words,
    is_every_row_deleted,
    is_evolution_native,
    is_file_native,
    is_raw_convertible,
    is_type_native,
    may_retract,
    plan_native_scans,
)
from spark_impl.plan import DataFileRef, DeletionFileRef, Split

FIELDS = (t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType()))


def schema_of(options: dict[str, str], primary_keys: tuple[str, ...] = ("k",)) -> TableSchema:
    return TableSchema(
        version=3,
        id=0,
        fields=FIELDS,
        highest_field_id=1,
        partition_keys=(),
        primary_keys=primary_keys,
        options=options,
    )


def ref(level: int, name: str = "data-1.parquet", deletion: Any = None) -> DataFileRef:
    return DataFileRef(f"/t/bucket-0/{name}", 0, level, 10, 0, deletion)


def split(*levels: int) -> Split:
    return Split((), 0, tuple(ref(level) for level in levels))


@pytest.mark.parametrize(
    ("options", "primary_keys", "levels", "raw"),
    [
        ({}, (), (0, 0, 0), True),  # append: every split
        ({}, ("k",), (5,), True),  # one sorted run after a full compaction
        ({}, ("k",), (5, 5), True),
        ({}, ("k",), (3, 5), False),  # two runs overlap: merge
        ({}, ("k",), (0, 5), False),  # level 0
        ({"deletion-vectors.enabled": "true"}, ("k",), (3, 5), True),
        ({"merge-engine": "first-row"}, ("k",), (2, 5), True),
        ({"merge-engine": "partial-update"}, ("k",), (5,), False),  # retractions need a merge
        ({"merge-engine": "aggregation"}, ("k",), (5,), False),
    ],
)
def test_raw_convertible_splits(
    options: dict[str, str], primary_keys: tuple[str, ...], levels: tuple[int, ...], raw: bool
) -> None:
    assert is_raw_convertible(split(*levels), schema_of(options, primary_keys)) is raw


@pytest.mark.parametrize(
    ("data_type", "file_format", "native"),
    [
        (t.DecimalType(20, 2), "orc", True),
        (t.TimestampType(6), "parquet", True),
        (t.TimestampType(9), "parquet", False),  # Spark keeps microseconds
        (t.TimestampType(3), "orc", False),  # ORC's timestamp rule is Python's
        (t.ArrayType(t.IntType()), "parquet", False),
        (t.TimeType(3), "parquet", False),
    ],
)
def test_types_spark_reads_as_java(data_type: t.DataType, file_format: str, native: bool) -> None:
    assert is_type_native(data_type, file_format) is native


def test_evolution_casts_that_spark_computes_as_java() -> None:
    def pair(source: t.DataType, target: t.DataType) -> bool:
        return is_evolution_native(t.DataField(1, "a", source), t.DataField(1, "b", target))

    assert pair(t.IntType(), t.IntType())  # a rename
    assert pair(t.IntType(), t.BigIntType())
    assert pair(t.FloatType(), t.DoubleType())
    assert not pair(t.BigIntType(), t.IntType())
    assert not pair(t.BigIntType(), t.DoubleType())  # Java's rounding of large longs differs
    assert not pair(t.IntType(), t.VarCharType(t.MAX_LENGTH))


def test_files_spark_reads() -> None:
    schema = schema_of({}, ())
    deletion = DeletionFileRef("/t/index/dv-1", 1, 20)
    assert is_file_native(ref(0), schema, schema)
    assert is_file_native(ref(0, deletion=deletion), schema, schema)
    assert is_file_native(ref(0, "data-1.orc"), schema, schema)
    assert not is_file_native(ref(0, "data-1.orc", deletion), schema, schema)  # no row_index
    assert not is_file_native(ref(0, "data-1.avro"), schema, schema)
    remote = DataFileRef("s3://b/t/bucket-0/data-1.parquet", 0, 0, 10, 0)
    assert not is_file_native(remote, schema, schema)


def test_deleted_positions_as_64_bit_words() -> None:
    """Rule 5: position p is bit p % 64 of word p // 64 (two's complement for bit 63); the
    words cover every row of the file, deleted or not."""
    words = compute_deleted_words(np.array([0, 3, 64, 127, 129], dtype=np.int64), row_count=200)
    assert words.dtype == np.int64
    assert words.tolist() == [0b1001, 1 - 2**63, 0b10, 0]
    assert compute_deleted_words(np.zeros(0, dtype=np.int64), row_count=0).tolist() == []
    assert compute_deleted_words(np.array([70]), row_count=10).tolist() == [0, 1 << 6]


def test_every_row_deleted() -> None:
    """Rule 5: a vector covering rows 0 .. row_count - 1 (positions beyond do not matter)."""
    assert is_every_row_deleted(np.arange(10), 10)
    assert is_every_row_deleted(np.array([*range(10), 15]), 10)
    assert not is_every_row_deleted(np.arange(9), 10)
    assert not is_every_row_deleted(np.array([*range(9), 15]), 10)


@pytest.mark.parametrize(
    ("primary_keys", "delete_row_count", "retracts"),
    [
        (("k",), 0, False),  # only +I / +U records: no _VALUE_KIND filter
        (("k",), None, True),  # unknown (older writers): keep the filter
        (("k",), 3, True),
        ((), None, False),  # append files have no _VALUE_KIND
    ],
)
def test_retract_rule(
    primary_keys: tuple[str, ...], delete_row_count: int | None, retracts: bool
) -> None:
    file = replace(ref(5), delete_row_count=delete_row_count)
    assert may_retract(file, schema_of({}, primary_keys)) is retracts


def vector_refs(
    tmp_path: Path, row_count: int, vectors: dict[str, Sequence[int] | None]
) -> list[DataFileRef]:
    """Parquet files of ``row_count`` rows named by ``vectors``' keys (a ``/`` puts one in
    another bucket), each with a deletion vector of the positions given (None: no vector),
    all in one index file written by the reference's encoder."""
    encoded = {
        name.rsplit("/", 1)[-1]: build_deletion_vector(positions)
        for name, positions in vectors.items()
        if positions is not None and "/" not in name
    }
    data, ranges = encode_deletion_vector_file(encoded)
    index = tmp_path / "index-1"
    index.write_bytes(data)
    found = {r.data_file_name: DeletionFileRef(str(index), r.offset, r.length) for r in ranges}
    refs = []
    for name, positions in vectors.items():
        directory, _, file_name = name.rpartition("/")
        deletion = found[file_name] if positions is not None else None
        path = tmp_path / (directory or "bucket-0") / file_name
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({"k": pa.array(range(row_count), pa.int32())}), path)
        refs.append(DataFileRef(str(path), 0, 5, row_count, 0, deletion, delete_row_count=0))
    return refs


def names_of(scan: NativeScan) -> list[str]:
    return [path.rsplit("/", 1)[-1] for path in scan.paths]


def test_scans_by_deletion_vector(tmp_path: Path) -> None:
    """Rules 4 and 5: files without a vector, or with one deleting no row, share the plain
    scan; a file whose vector deletes every row is not read; the others are read by a scan
    carrying their bitmaps by file name."""
    refs = vector_refs(
        tmp_path,
        100,
        {
            "plain.parquet": None,
            "none-deleted.parquet": [],
            "all-deleted.parquet": list(range(100)),
            "some-deleted.parquet": [0, 63, 64, 99],
        },
    )
    plain, vectored = plan_native_scans(refs, schema_of({"deletion-vectors.enabled": "true"}), {})
    assert names_of(plain) == ["plain.parquet", "none-deleted.parquet"]
    assert plain.bitmaps == {}
    assert names_of(vectored) == ["some-deleted.parquet"]
    words = vectored.bitmaps["some-deleted.parquet"]
    assert words.tolist() == [1 | (1 << 63) - 2**64, 1 | (1 << 35)]


def test_vector_scans_are_bounded_and_names_distinct(tmp_path: Path) -> None:
    """Rule 5: at most MAX_VECTORS_PER_SCAN files with a vector per scan, and no two of one
    name (a row finds its bitmap by ``_metadata.file_name``); every file read once."""
    vectors: dict[str, Sequence[int] | None] = {
        f"f{i}.parquet": [i] for i in range(MAX_VECTORS_PER_SCAN + 3)
    }
    vectors["bucket-1/f0.parquet"] = None  # same name in another bucket, no vector
    refs = vector_refs(tmp_path, 20, vectors)
    twin = replace(refs[-1], deletion=refs[0].deletion)  # and one with a vector
    scans = plan_native_scans([*refs[:-1], twin], schema_of({}, ()), {})
    assert [len(scan.paths) for scan in scans] == [MAX_VECTORS_PER_SCAN, 4]
    assert sorted(p for scan in scans for p in scan.paths) == sorted(r.path for r in refs)
    for scan in scans:
        assert sorted(scan.bitmaps) == sorted(names_of(scan))


def test_scans_by_retract_rule(tmp_path: Path) -> None:
    """The retract rule: primary-key files whose delete_row_count is 0 are read by a scan
    without the _VALUE_KIND filter, the others (None, > 0) by one with it."""
    refs = vector_refs(tmp_path, 10, {"a.parquet": None, "b.parquet": None, "c.parquet": None})
    counts = [0, None, 2]
    refs = [replace(r, delete_row_count=c) for r, c in zip(refs, counts, strict=True)]
    scans = plan_native_scans(refs, schema_of({}), {})
    assert [(scan.retracts, names_of(scan)) for scan in scans] == [
        (False, ["a.parquet"]),
        (True, ["b.parquet", "c.parquet"]),
    ]


@pytest.mark.parametrize("written", [101, 99])
def test_file_rows_other_than_its_meta_says_are_refused(tmp_path: Path, written: int) -> None:
    """Rule 5: a file with a vector whose footer holds more (or fewer) rows than its meta's
    row_count is refused, naming the file: its bitmap covers row_count rows, so the extra
    rows would be kept or dropped by bits no vector set. Files without a vector, or whose
    vector deletes nothing, are not checked (no position to misplace)."""
    refs = vector_refs(tmp_path, 100, {"a.parquet": [0, 99], "b.parquet": [], "c.parquet": None})
    pq.write_table(pa.table({"k": pa.array(range(written), pa.int32())}), refs[0].path)
    for other in refs[1:]:
        pq.write_table(pa.table({"k": pa.array(range(written), pa.int32())}), other.path)
    assert len(plan_native_scans(refs[1:], schema_of({}, ()), {})) == 1
    with pytest.raises(SpecViolation, match=f"{written} rows, its data file meta says 100") as e:
        plan_native_scans(refs, schema_of({}, ()), {})
    assert e.value.code == "FILE_META_INVALID"
    assert e.value.path == refs[0].path


def test_vector_deleting_every_row_checked_too(tmp_path: Path) -> None:
    """Rule 5: a file whose vector deletes every row is not read, but a footer longer than
    its meta still fails (the rows past row_count were never deleted)."""
    refs = vector_refs(tmp_path, 10, {"a.parquet": list(range(10))})
    assert plan_native_scans(refs, schema_of({}, ()), {}) == []
    pq.write_table(pa.table({"k": pa.array(range(12), pa.int32())}), refs[0].path)
    with pytest.raises(SpecViolation, match="12 rows"):
        plan_native_scans(refs, schema_of({}, ()), {})
