"""Apply a workload to Java Paimon 0.9 (through the harness) and read tables with Java.

:class:`JavaRunner` mirrors ``run_reference.ReferenceRunner``: each step is one batch writer
(or one compaction) committed once. Java 0.9's writers ignore ``full-compaction.delta-commits``,
so for the ``full-compaction`` changelog producer each write is followed by a full compaction in
the same commit (conformance/expected_differences.md, "`full-compaction.delta-commits`").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.differential.workloads import Change, Compact, Step, TableSpec, Write
from conformance.java.harness import JavaHarness
from reference.spec.data import RowKind, Value


def overwrite_argument(overwrite: Mapping[str, Value] | None) -> bool | dict[str, str] | None:
    """The harness form of an overwrite: ``True`` for the whole table, else the partition
    spec as text (``None``: an append)."""
    if overwrite is None:
        return None
    if not overwrite:
        return True
    return {key: str(value) for key, value in overwrite.items()}


class JavaRunner:
    """One Java-written table at ``root`` and the steps applied to it."""

    def __init__(
        self, java: JavaHarness, root: str, spec: TableSpec, *, compact_after_write: bool = False
    ) -> None:
        self.java = java
        self.root = root
        self.row_type = spec.row_type
        self.compact_after_write = compact_after_write
        java.create_table(
            root,
            spec.fields,
            partition_keys=spec.partition_keys,
            primary_keys=spec.primary_keys,
            options=dict(spec.options),
        )
        self._latest = 0

    def apply(self, step: Step) -> int:
        """Apply one step; the latest snapshot id after it (0: none yet)."""
        if isinstance(step, Compact):
            response = self.java.compact(self.root, full=step.full, commit=True)
        else:
            response = self._write(step)
        snapshot_id = response.get("snapshot_id")
        self._latest = int(snapshot_id) if snapshot_id is not None else self._latest
        return self._latest

    def _write(self, step: Write) -> dict[str, Any]:
        overwrite = overwrite_argument(step.overwrite)
        follow = self.compact_after_write and overwrite is None
        try:
            response = self.java.write(
                self.root,
                list(step.changes),
                row_type=self.row_type,
                overwrite=overwrite,
                commit=not follow,
            )
            if follow:
                response = self.java.compact(self.root, full=True, commit=True)
        except Exception:
            self.java.close_writer(self.root)
            raise
        return response


def snapshot_ids(java: JavaHarness, root: str) -> list[int]:
    return sorted(int(snapshot["id"]) for snapshot in java.list_snapshots(root))


def read_rows(java: JavaHarness, root: str, snapshot_id: int | None = None) -> list[Change]:
    """Java's batch read of the latest snapshot or of ``snapshot_id``."""
    return java.read(root, snapshot_id=snapshot_id).rows


def read_audit_log(java: JavaHarness, root: str, first: int, last: int) -> list[Change]:
    """Java's ``audit_log`` with ``incremental-between = first,last``: the ``rowkind`` column
    made the row kind again."""
    if first == last:
        return []
    rows = java.system_table(
        root, "audit_log", options={"incremental-between": f"{first},{last}"}
    ).rows
    changes = []
    for _, row in rows:
        kind = row[0]
        assert isinstance(kind, str)
        changes.append((RowKind.from_short_string(kind), tuple(row[1:])))
    return changes
