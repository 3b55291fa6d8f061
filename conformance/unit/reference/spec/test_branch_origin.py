"""reference.spec.branch_origin: 0.9's ``created_from_tag`` / ``created_from_snapshot`` of a
branch (Java ``BranchesTable``), from stated expected values."""

from __future__ import annotations

import pytest

from reference.spec.branch_origin import select_branch_origin


@pytest.mark.parametrize(
    ("earliest", "tags", "expected"),
    [
        (None, {}, (None, None)),  # an empty branch
        (3, {}, (None, 3)),  # rule 1: no tag
        (3, {"t1": 3, "t2": 5}, ("t1", 3)),  # rule 2: one tag on the earliest snapshot
        (3, {"t1": 3, "t0": 3}, (None, 3)),  # rule 3: two tags on it
        (4, {"t1": 3}, (None, 4)),  # rule 3: the tag's snapshot is gone
    ],
)
def test_branch_origin(
    earliest: int | None, tags: dict[str, int], expected: tuple[str | None, int | None]
) -> None:
    assert select_branch_origin(earliest, tags) == expected
