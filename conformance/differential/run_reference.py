"""Apply a workload to the reference and read tables with the reference.

:class:`ReferenceRunner` creates the table and applies one step at a time (``Table``:
``write_and_commit``, ``compact``), returning the latest snapshot id after each step so that a
test can read and compare between steps. The readers take any table directory, so the same
functions read the table Java wrote.
"""

from __future__ import annotations

from conformance.differential.workloads import Change, Compact, Step, TableSpec, Write
from reference.io import LocalFileIO
from reference.spec.data import Row, RowKind
from reference.store import metadata
from reference.store.query import TimeTravel
from reference.system_tables import SystemTableVersion
from reference.table import Table


def create_table(root: str, spec: TableSpec) -> Table:
    """Create the table ``spec`` describes at ``root`` with the reference (any engine's runner
    may start from it)."""
    return Table.create(
        LocalFileIO(),
        root,
        spec.fields,
        partition_keys=spec.partition_keys,
        primary_keys=spec.primary_keys,
        options=dict(spec.options),
    )


class ReferenceRunner:
    """One reference table at ``root`` and the steps applied to it."""

    def __init__(self, root: str, spec: TableSpec) -> None:
        self.root = root
        self.table = create_table(root, spec)

    def latest_id(self) -> int:
        snapshot = self.table.latest_snapshot()
        return 0 if snapshot is None else snapshot.id

    def apply(self, step: Step) -> int:
        """Apply one step; the latest snapshot id after it (0: none yet)."""
        if isinstance(step, Write):
            rows = [row for _, row in step.changes]
            kinds = [kind for kind, _ in step.changes]
            self.table.write_and_commit(rows, kinds, overwrite=step.overwrite)
        elif isinstance(step, Compact):
            self.table.compact(full=step.full)
        return self.latest_id()


def _table(root: str) -> Table:
    return Table(LocalFileIO(), root)


def snapshot_ids(root: str) -> list[int]:
    """The ids of the table's snapshots, oldest first."""
    return sorted(metadata.list_snapshot_ids(LocalFileIO(), root))


def read_rows(root: str, snapshot_id: int | None = None) -> list[Change]:
    """A batch read of the latest snapshot or of ``snapshot_id``, with row kinds."""
    travel = TimeTravel(snapshot_id=snapshot_id)
    return [(kind, tuple(row)) for kind, row in _table(root).read(travel).rows]


def read_audit_log(root: str, first: int, last: int) -> list[Change]:
    """``audit_log`` with ``incremental-between = first,last`` as Java 0.9 reads it (merged
    per bucket, retractions kept): the changes of snapshots ``first + 1 .. last``."""
    if first == last:
        return []
    rows = (
        _table(root)
        .system_table(
            "audit_log",
            {"incremental-between": f"{first},{last}"},
            version=SystemTableVersion.PAIMON_0_9,
        )
        .rows
    )
    return [_audit_change(row) for row in rows]


def _audit_change(row: Row) -> Change:
    kind = row[0]
    assert isinstance(kind, str)
    return RowKind.from_short_string(kind), tuple(row[1:])
