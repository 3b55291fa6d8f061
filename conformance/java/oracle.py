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
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.store import metadata

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


NEWER_THAN_0_9_OPTIONS = {
    "data-evolution.enabled": (
        "a file may hold a subset of the columns, merged with the others by row id "
        "(Paimon 1.x data evolution); Java 0.9 reads each file as whole rows"
    ),
}
"""Table options naming a feature Java 0.9 reads wrongly, with why (value ``true``)."""

INDEX_IN_DATA_DIR_OPTION = "index-file-in-data-file-dir"


def find_newer_than_0_9(
    table_path: str | os.PathLike[str], snapshot_id: int | None = None
) -> str | None:
    """Why Java 0.9 cannot be the oracle of this table at this snapshot (latest when None): the
    table uses a Paimon 1.x feature that 0.9 does not know; None when 0.9 can read it.

    - an option of :data:`NEWER_THAN_0_9_OPTIONS` is ``true``;
    - a column has a type 0.9 cannot parse (``BLOB``);
    - ``index-file-in-data-file-dir`` is ``true`` and the snapshot has an index manifest
      (0.9 looks for index files only under ``<root>/index``).
    """
    io, root = LocalFileIO(), os.fspath(table_path)
    schema = metadata.read_latest_schema(io, root)
    for option, why in NEWER_THAN_0_9_OPTIONS.items():
        if schema.options.get(option, "false").lower() == "true":
            return f"'{option}': {why}"
    blobs = [f.name for f in schema.fields if isinstance(f.type, t.BlobType)]
    if blobs:
        return f"BLOB column(s) {blobs}: Java 0.9 has no BLOB type"
    if schema.core_options.index_file_in_data_file_dir:
        snapshot = (
            metadata.read_latest_snapshot(io, root)
            if snapshot_id is None
            else metadata.read_snapshot(io, root, snapshot_id)
        )
        if snapshot is not None and snapshot.index_manifest is not None:
            return (
                f"'{INDEX_IN_DATA_DIR_OPTION}': the index files are in the bucket directories; "
                "Java 0.9 looks for them only under <root>/index"
            )
    return None
