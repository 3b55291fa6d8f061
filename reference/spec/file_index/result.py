"""What a file index says about a predicate: all rows may match, none does, or these rows may.

A file index only ever narrows a read: ``REMAIN`` keeps the whole file, ``SKIP`` drops it, and a
row-id result keeps the file (and only those rows) when the set is non-empty. Combining two
answers for ``AND`` / ``OR`` follows Java exactly, including the rule that a row set combined with
a plain ``REMAIN``/``SKIP`` collapses to whichever side is more conservative.

Java: ``org.apache.paimon.fileindex.FileIndexResult`` and
``org.apache.paimon.fileindex.bitmap.BitmapIndexResult``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from reference.spec.file_index.roaring import RowIds
from reference.spec.predicate import PredicateOp


class ResultKind(Enum):
    REMAIN = "remain"
    """Every row of the file may match."""
    SKIP = "skip"
    """No row of the file matches."""
    ROWS = "rows"
    """Only the listed row positions may match."""


@dataclass(frozen=True)
class IndexResult:
    """One answer of a file index; ``rows`` is set exactly when ``kind`` is ``ROWS``."""

    kind: ResultKind
    rows: RowIds = None

    def __post_init__(self) -> None:
        if (self.kind is ResultKind.ROWS) != (self.rows is not None):
            raise ValueError("an IndexResult carries rows exactly when its kind is ROWS")


REMAIN = IndexResult(ResultKind.REMAIN)
SKIP = IndexResult(ResultKind.SKIP)


def rows_result(rows: RowIds) -> IndexResult:
    """A row-set answer (an empty set reads as 'skip the file')."""
    return IndexResult(ResultKind.ROWS, rows)


def is_remain(result: IndexResult) -> bool:
    """Whether the file must still be read: REMAIN, or a non-empty row set."""
    if result.kind is ResultKind.ROWS:
        return len(result.rows) > 0
    return result.kind is ResultKind.REMAIN


def and_results(left: IndexResult, right: IndexResult) -> IndexResult:
    """Both predicates hold (Java ``FileIndexResult.and``)."""
    if left.kind is ResultKind.REMAIN:
        return right
    if left.kind is ResultKind.SKIP:
        return SKIP
    if right.kind is ResultKind.ROWS:
        return rows_result(left.rows & right.rows)
    return left if is_remain(right) else SKIP


def or_results(left: IndexResult, right: IndexResult) -> IndexResult:
    """Either predicate holds (Java ``FileIndexResult.or``)."""
    if left.kind is ResultKind.REMAIN:
        return REMAIN
    if left.kind is ResultKind.SKIP:
        return right
    if right.kind is ResultKind.ROWS:
        return rows_result(left.rows | right.rows)
    return REMAIN if is_remain(right) else left


EMPTY_INDEX_SKIPPED_OPS = frozenset(
    {
        PredicateOp.EQUAL,
        PredicateOp.IN,
        PredicateOp.IS_NOT_NULL,
        PredicateOp.STARTS_WITH,
        PredicateOp.LESS_THAN,
        PredicateOp.LESS_OR_EQUAL,
        PredicateOp.GREATER_THAN,
        PredicateOp.GREATER_OR_EQUAL,
    }
)
"""Leaves an index whose writer saw no row answers with SKIP (Java ``EmptyFileIndexReader``);
every other leaf REMAIN."""
