"""Rows as Paimon 0.9's Java reader returns them: the expected values for the reference reader.

:func:`read_table_with_java` reads a table directory through ``ReadBuilder`` (a batch scan of
the latest snapshot or of ``snapshot_id``) and returns ``(RowKind, row)`` pairs with values in
the ``reference.spec.data`` conventions, in Java's read order. Java 0.9 keeps the row kind of the
winning record in a primary-key table (a row last written as ``+U`` reads back as ``+U``).

Without an explicit ``harness`` a module-wide :class:`JavaHarness` is started on first use and
shut down at interpreter exit; inside pytest prefer the ``java_harness`` fixture.
"""

from __future__ import annotations

import atexit
import os
import threading

from conformance.java.harness import JavaHarness
from reference.spec.data import Row, RowKind

_shared: JavaHarness | None = None
_shared_lock = threading.Lock()


def shared_harness() -> JavaHarness:
    """The module-wide harness (built and started on first use, closed at exit)."""
    global _shared  # noqa: PLW0603 (one JVM per process, created lazily)
    with _shared_lock:
        if _shared is None:
            _shared = JavaHarness()
            _shared.start()
            atexit.register(_shared.close)
        return _shared


def read_table_with_java(
    table_path: str | os.PathLike[str],
    snapshot_id: int | None = None,
    *,
    harness: JavaHarness | None = None,
) -> list[tuple[RowKind, Row]]:
    """The rows of the table at ``table_path`` (latest snapshot, or ``snapshot_id``)."""
    java = harness or shared_harness()
    return java.read(table_path, snapshot_id=snapshot_id).rows


def snapshot_ids_with_java(
    table_path: str | os.PathLike[str], *, harness: JavaHarness | None = None
) -> list[int]:
    """The ids of the table's snapshots, as Java's ``SnapshotManager`` lists them."""
    java = harness or shared_harness()
    return [int(snapshot["id"]) for snapshot in java.list_snapshots(table_path)]
