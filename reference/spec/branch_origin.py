"""Where a branch came from, as Paimon 0.9's ``$branches`` system table reports it.

Java 0.9: ``org.apache.paimon.table.system.BranchesTable`` (``created_from_tag`` and
``created_from_snapshot``). A branch made from a tag starts with that tag's snapshot as its
earliest one and the tag copied into its own ``tag/`` directory; a branch made from nothing has
neither.

Rule: with the branch's earliest snapshot id and the snapshot id of each of its tags,

1. no tag: the branch came from no tag, and from its earliest snapshot (``None`` if none);
2. the tags' first snapshot is the earliest one and exactly one tag names it: that tag and
   that snapshot;
3. otherwise: no tag, and the earliest snapshot.

A branch without a schema (not created yet) has neither; callers check that, it takes IO.
"""

from __future__ import annotations

from collections.abc import Mapping


def select_branch_origin(
    earliest_snapshot_id: int | None, tag_snapshot_ids: Mapping[str, int]
) -> tuple[str | None, int | None]:
    """``(created_from_tag, created_from_snapshot)`` of a branch (module rules 1-3)."""
    if not tag_snapshot_ids:
        return None, earliest_snapshot_id
    first = min(tag_snapshot_ids.values())
    on_first = [name for name, snapshot_id in tag_snapshot_ids.items() if snapshot_id == first]
    if first == earliest_snapshot_id and len(on_first) == 1:
        return on_first[0], first
    return None, earliest_snapshot_id
