"""Combining index answers follows Java's FileIndexResult / BitmapIndexResult rules."""

from __future__ import annotations

import pytest

from reference.spec.file_index.result import (
    REMAIN,
    SKIP,
    IndexResult,
    ResultKind,
    and_results,
    is_remain,
    or_results,
    rows_result,
)
from reference.spec.file_index.roaring import row_ids_of

ROWS_12 = rows_result(row_ids_of([1, 2]))
ROWS_23 = rows_result(row_ids_of([2, 3]))
NO_ROWS = rows_result(row_ids_of([]))


def test_remain() -> None:
    assert is_remain(REMAIN)
    assert not is_remain(SKIP)
    assert is_remain(ROWS_12)
    assert not is_remain(NO_ROWS)


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        (REMAIN, ROWS_12, ROWS_12),
        (SKIP, ROWS_12, SKIP),
        (ROWS_12, ROWS_23, rows_result(row_ids_of([2]))),
        (ROWS_12, REMAIN, ROWS_12),
        (ROWS_12, SKIP, SKIP),
    ],
)
def test_and(left: IndexResult, right: IndexResult, expected: IndexResult) -> None:
    assert and_results(left, right) == expected


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        (REMAIN, SKIP, REMAIN),
        (SKIP, ROWS_12, ROWS_12),
        (ROWS_12, ROWS_23, rows_result(row_ids_of([1, 2, 3]))),
        (ROWS_12, REMAIN, REMAIN),
        (ROWS_12, SKIP, ROWS_12),
    ],
)
def test_or(left: IndexResult, right: IndexResult, expected: IndexResult) -> None:
    assert or_results(left, right) == expected


def test_rows_only_with_rows_kind() -> None:
    with pytest.raises(ValueError, match="exactly"):
        IndexResult(ResultKind.REMAIN, row_ids_of([1]))
    with pytest.raises(ValueError, match="exactly"):
        IndexResult(ResultKind.ROWS)
