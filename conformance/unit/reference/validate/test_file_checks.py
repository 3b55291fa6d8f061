"""File-level rules: expected columns per layout, footers, metadata self-consistency."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import fastavro
import pytest

from reference.errors import PaimonFormatError
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.binary_row import serialize_binary_row
from reference.spec.data_file import DataFileMeta
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.stats import EMPTY_STATS, SimpleStats
from reference.validate.file_checks import (
    DataFileFooter,
    check_footer,
    check_meta_consistency,
    compute_expected_columns,
    read_data_file_footer,
)

FIELDS = (
    '[{"id": 0, "name": "k", "type": "INT NOT NULL"},'
    ' {"id": 1, "name": "p", "type": "INT NOT NULL"},'
    ' {"id": 2, "name": "v", "type": "STRING"}]'
)


def schema(primary_keys: str, options: str = "{}") -> TableSchema:
    return decode_schema(
        f'{{"version": 3, "id": 0, "fields": {FIELDS}, "highestFieldId": 2,'
        f' "partitionKeys": ["p"], "primaryKeys": {primary_keys}, "options": {options},'
        ' "timeMillis": 0}'
    )


PK = schema('["k", "p"]', '{"bucket": "1"}')
THIN = schema('["k", "p"]', '{"bucket": "1", "data-file.thin-mode": "true"}')
APPEND = schema("[]")
INT = [t.IntType(nullable=False)]


def meta(**changes: object) -> DataFileMeta:
    base = DataFileMeta(
        "data-x-0.parquet",
        10,
        4,
        serialize_binary_row([1], INT),
        serialize_binary_row([7], INT),
        EMPTY_STATS,
        EMPTY_STATS,
        0,
        3,
        0,
        0,
        (),
        None,
        delete_row_count=1,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_expected_columns_per_layout() -> None:
    assert compute_expected_columns(PK, meta()) == [
        "_KEY_k",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND",
        "k",
        "p",
        "v",
    ]
    assert compute_expected_columns(THIN, meta()) == [
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND",
        "k",
        "p",
        "v",
    ]
    assert compute_expected_columns(APPEND, meta()) == ["k", "p", "v"]
    evolved = meta(write_cols=("k", "v"))
    assert compute_expected_columns(APPEND, evolved) == ["k", "v"]


def test_footer_against_layout() -> None:
    footer = DataFileFooter(("k", "p", "v"), 4)
    assert check_footer(footer, APPEND, meta()) == []
    found = check_footer(DataFileFooter(("k", "v"), 5), APPEND, meta())
    assert [rule.code for rule, _ in found] == ["DATA_FILE_COLUMNS", "DATA_FILE_ROW_COUNT"]


def test_metadata_consistency() -> None:
    assert check_meta_consistency(meta(), PK) == []
    assert len(check_meta_consistency(meta(min_sequence_number=5), PK)) == 1
    assert len(check_meta_consistency(meta(delete_row_count=9), PK)) == 1
    swapped = meta(min_key=serialize_binary_row([9], INT))
    assert len(check_meta_consistency(swapped, PK)) == 1
    two = [t.IntType(), t.IntType()]
    wide = SimpleStats(serialize_binary_row([1, 2], two), serialize_binary_row([1, 2], two), (0, 0))
    with pytest.raises(PaimonFormatError):  # the validator reports it as FILE_META_INVALID
        check_meta_consistency(meta(value_stats=wide), PK)


def test_footer_of_a_java_file(third_party: Path) -> None:
    bucket = third_party / "paimon-cpp/parquet/pk_09.db/pk_09/f1=20/bucket-0"
    path = next(bucket.glob("*.parquet"))
    footer = read_data_file_footer(LocalFileIO(), str(path))
    assert footer.columns == (
        "_KEY_f0",
        "_KEY_f2",
        "_SEQUENCE_NUMBER",
        "_VALUE_KIND",
        "f0",
        "f1",
        "f2",
        "f3",
    )
    assert footer.row_count == 2


def test_footer_of_an_avro_file_with_a_nullable_top_record(tmp_path: Path) -> None:
    """Java 0.9 writes Avro data files whose schema is ``["null", record]``."""
    record = {
        "type": "record",
        "name": "org.apache.paimon.avro.generated.record",
        "fields": [{"name": "k", "type": "int"}, {"name": "v", "type": ["null", "string"]}],
    }
    path = tmp_path / "data-x-0.avro"
    with path.open("wb") as out:
        fastavro.writer(out, ["null", record], [{"k": 1, "v": None}, {"k": 2, "v": "b"}])
    assert read_data_file_footer(LocalFileIO(), str(path)) == DataFileFooter(("k", "v"), 2)
