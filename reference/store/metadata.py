"""Reading a table's JSON metadata: schemas, snapshots, hints, tags and consumers.

Spec: ``docs/concepts/spec/schema.md``, ``snapshot.md``; the seeds' "Snapshot" and "Consistency
guarantees" sections. Java: ``schema/SchemaManager``, ``utils/SnapshotManager``,
``utils/HintFileUtils``, ``utils/TagManager``, ``consumer/ConsumerManager``.

Rules:

* Snapshot ids start at 1 and are contiguous between the earliest and the latest snapshot.
* ``snapshot/LATEST`` and ``snapshot/EARLIEST`` are hints only: a reader trusts LATEST only when
  the named snapshot exists and the next one does not, and EARLIEST only when the named snapshot
  exists; otherwise it lists the directory.
* The latest schema is the schema file with the highest id.
* Time travel to a timestamp picks the latest snapshot committed at or before it.
"""

from __future__ import annotations

from reference import layout
from reference.errors import (
    FileMissingError,
    SnapshotNotFoundError,
    TableNotFoundError,
    naming_file,
)
from reference.io import FileIO
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import (
    Consumer,
    Snapshot,
    Tag,
    decode_consumer,
    decode_snapshot,
    decode_tag,
)


def _list_names(file_io: FileIO, directory: str) -> list[str]:
    if not file_io.exists(directory):
        return []
    return file_io.list_dir(directory)


# --------------------------------------------------------------------------------------------
# Schemas
# --------------------------------------------------------------------------------------------


def list_schema_ids(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> list[int]:
    """Ids of the schema files present, ascending."""
    names = _list_names(file_io, layout.schema_dir(table_root, branch))
    ids = (layout.parse_schema_id(name) for name in names)
    return sorted(i for i in ids if i is not None)


def read_schema(
    file_io: FileIO, table_root: str, schema_id: int, branch: str = layout.MAIN_BRANCH
) -> TableSchema:
    """Decode ``schema/schema-<id>``; its ``id`` member must equal the file's number."""
    path = layout.schema_path(table_root, schema_id, branch)
    with naming_file(path):
        schema = decode_schema(file_io.read_bytes(path))
        if schema.id != schema_id:
            raise TableNotFoundError(f"schema file holds id {schema.id}, not {schema_id}")
    return schema


def read_latest_schema(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> TableSchema:
    """The schema with the highest id; :class:`TableNotFoundError` if there is none."""
    ids = list_schema_ids(file_io, table_root, branch)
    if not ids:
        raise TableNotFoundError("no schema files: not a Paimon table", path=table_root)
    return read_schema(file_io, table_root, ids[-1], branch)


# --------------------------------------------------------------------------------------------
# Snapshots and hints
# --------------------------------------------------------------------------------------------


def list_snapshot_ids(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> list[int]:
    """Ids of the snapshot files present, ascending (hint files are not snapshots)."""
    names = _list_names(file_io, layout.snapshot_dir(table_root, branch))
    ids = (layout.parse_snapshot_id(name) for name in names)
    return sorted(i for i in ids if i is not None)


def has_snapshot(
    file_io: FileIO, table_root: str, snapshot_id: int, branch: str = layout.MAIN_BRANCH
) -> bool:
    return file_io.exists(layout.snapshot_path(table_root, snapshot_id, branch))


def find_latest_snapshot_id(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> int | None:
    """The latest snapshot id: the LATEST hint if it is right, else the largest listed id."""
    hint = layout.read_hint(
        file_io, layout.snapshot_dir(table_root, branch), layout.HintFile.LATEST
    )
    if (
        hint is not None
        and has_snapshot(file_io, table_root, hint, branch)
        and not has_snapshot(file_io, table_root, hint + 1, branch)
    ):
        return hint
    ids = list_snapshot_ids(file_io, table_root, branch)
    return ids[-1] if ids else None


def find_earliest_snapshot_id(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> int | None:
    """The earliest snapshot id: the EARLIEST hint if that snapshot exists (and no earlier one
    does), else the smallest listed id."""
    hint = layout.read_hint(
        file_io, layout.snapshot_dir(table_root, branch), layout.HintFile.EARLIEST
    )
    if (
        hint is not None
        and has_snapshot(file_io, table_root, hint, branch)
        and not has_snapshot(file_io, table_root, hint - 1, branch)
    ):
        return hint
    ids = list_snapshot_ids(file_io, table_root, branch)
    return ids[0] if ids else None


def read_snapshot(
    file_io: FileIO, table_root: str, snapshot_id: int, branch: str = layout.MAIN_BRANCH
) -> Snapshot:
    """Decode ``snapshot/snapshot-<id>``; :class:`SnapshotNotFoundError` if it does not exist."""
    path = layout.snapshot_path(table_root, snapshot_id, branch)
    try:
        data = file_io.read_bytes(path)
    except FileMissingError:
        raise SnapshotNotFoundError(f"snapshot {snapshot_id} does not exist", path=path) from None
    with naming_file(path):
        snapshot = decode_snapshot(data)
        if snapshot.id != snapshot_id:
            raise SnapshotNotFoundError(f"snapshot file holds id {snapshot.id}, not {snapshot_id}")
    return snapshot


def read_latest_snapshot(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> Snapshot | None:
    latest = find_latest_snapshot_id(file_io, table_root, branch)
    return None if latest is None else read_snapshot(file_io, table_root, latest, branch)


def find_snapshot_at_time(
    file_io: FileIO, table_root: str, time_millis: int, branch: str = layout.MAIN_BRANCH
) -> Snapshot | None:
    """The latest snapshot whose commit time is at or before ``time_millis`` (Java
    ``SnapshotManager.earlierOrEqualTimeMills``), or ``None`` if every snapshot is later."""
    best: Snapshot | None = None
    for snapshot_id in list_snapshot_ids(file_io, table_root, branch):
        snapshot = read_snapshot(file_io, table_root, snapshot_id, branch)
        if snapshot.time_millis <= time_millis:
            best = snapshot
    return best


# --------------------------------------------------------------------------------------------
# Tags and consumers
# --------------------------------------------------------------------------------------------


def list_tag_names(file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH) -> list[str]:
    names = _list_names(file_io, layout.tag_dir(table_root, branch))
    tags = (layout.parse_tag_name(name) for name in names)
    return sorted(name for name in tags if name is not None)


def read_tag(
    file_io: FileIO, table_root: str, tag_name: str, branch: str = layout.MAIN_BRANCH
) -> Tag:
    """Decode ``tag/tag-<name>``; :class:`SnapshotNotFoundError` if there is no such tag."""
    path = layout.tag_path(table_root, tag_name, branch)
    try:
        data = file_io.read_bytes(path)
    except FileMissingError:
        raise SnapshotNotFoundError(f"tag '{tag_name}' does not exist", path=path) from None
    with naming_file(path):
        return decode_tag(data)


def list_consumer_ids(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> list[str]:
    names = _list_names(file_io, layout.consumer_dir(table_root, branch))
    consumers = (layout.parse_consumer_id(name) for name in names)
    return sorted(c for c in consumers if c is not None)


def read_consumer(
    file_io: FileIO, table_root: str, consumer_id: str, branch: str = layout.MAIN_BRANCH
) -> Consumer:
    path = layout.consumer_path(table_root, consumer_id, branch)
    with naming_file(path):
        return decode_consumer(file_io.read_bytes(path))
