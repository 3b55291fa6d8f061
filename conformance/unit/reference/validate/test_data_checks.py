"""Row-level rules on hand-made columns (the deep pass, without files)."""

from __future__ import annotations

from dataclasses import replace

from conformance.unit.reference.validate.records import KEY_TYPES, int_key_schema, key_range_meta
from reference.spec.data_file import DataFileMeta
from reference.validate.data_checks import (
    FileColumns,
    check_key_copies,
    check_key_order,
    check_system_columns,
    compute_key_names,
    find_unsorted_keys,
)
from reference.validate.report import Rule

SCHEMA = int_key_schema(1)
NAMES = ("_KEY_k", "_SEQUENCE_NUMBER", "_VALUE_KIND", "k", "v")


def columns(
    keys: list[int], sequences: list[int], kinds: list[int], values: list[int]
) -> FileColumns:
    texts = tuple(f"v{i}" for i in range(len(keys)))
    return FileColumns(
        NAMES,
        (tuple(keys), tuple(sequences), tuple(kinds), tuple(values), texts),
        tuple((k,) for k in keys),
    )


def meta(low: int, high: int, deletes: int | None = 0) -> DataFileMeta:
    return key_range_meta(
        low,
        high,
        row_count=3,
        min_sequence_number=10,
        max_sequence_number=12,
        level=1,
        delete_row_count=deletes,
    )


def codes(found: list[tuple[Rule, str]]) -> list[str]:
    return [rule.code for rule, _ in found]


def test_key_names() -> None:
    assert compute_key_names(SCHEMA) == ["_KEY_k"]


def test_keys_must_strictly_ascend() -> None:
    assert find_unsorted_keys([(1,), (2,), (5,)], KEY_TYPES) == []
    assert find_unsorted_keys([(1,), (1,), (0,)], KEY_TYPES) == [1, 2]


def test_good_file() -> None:
    data = columns([1, 2, 5], [10, 11, 12], [0, 3, 2], [1, 2, 5])
    assert check_key_order(data, meta(1, 5), SCHEMA) == []
    assert check_key_copies(data, SCHEMA) == []
    assert check_system_columns(data, meta(1, 5, deletes=1)) == []


def test_bad_file() -> None:
    data = columns([2, 1, 5], [9, 11, 12], [0, 7, 1], [2, 4, 5])
    assert codes(check_key_order(data, meta(1, 5), SCHEMA)) == [
        "KEYS_UNSORTED",
        "KEY_RANGE_MISMATCH",
    ]
    assert codes(check_key_copies(data, SCHEMA)) == ["KEY_VALUE_MISMATCH"]
    assert codes(check_system_columns(data, meta(1, 5, deletes=0))) == [
        "SEQUENCE_OUT_OF_RANGE",
        "VALUE_KIND_INVALID",
        "DELETE_ROW_COUNT_MISMATCH",
    ]


def test_max_key_is_an_upper_bound() -> None:
    """Java before 1.3 may record a later key read (and dropped) as ``_MAX_KEY``."""
    data = columns([1, 2, 5], [10, 11, 12], [0, 0, 0], [1, 2, 5])
    assert check_key_order(data, meta(1, 7), SCHEMA) == []
    assert codes(check_key_order(data, meta(1, 4), SCHEMA)) == ["KEY_RANGE_MISMATCH"]
    assert codes(check_key_order(data, meta(2, 5), SCHEMA)) == ["KEY_RANGE_MISMATCH"]


def test_unknown_delete_count_is_not_checked() -> None:
    data = columns([1, 2, 5], [10, 11, 12], [3, 3, 3], [1, 2, 5])
    assert check_system_columns(data, replace(meta(1, 5), delete_row_count=None)) == []
