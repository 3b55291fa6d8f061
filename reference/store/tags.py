"""Tags: named snapshots that outlive snapshot expiration.

Spec: ``docs/maintenance/manage-tags.mdx``; the tag file in ``reference.spec.snapshot``;
options ``tag.default-time-retained``, ``tag.time-expire-enabled`` (main).
Java (0.9.0): ``utils/TagManager``, ``tag/Tag``, ``tag/TagTimeExpire``,
``operation/TagDeletion``, ``AbstractFileStoreTable.createTag`` / ``findSnapshot``.

Rules:

1. A tag is ``tag/tag-<name>`` of a branch: the tagged snapshot's JSON, plus
   ``tagCreateTime`` (the local wall-clock time of creation) and ``tagTimeRetained`` when the
   tag has a time to live. Without one only the snapshot JSON is written, as Java does so that
   readers older than 0.8 can read it.
2. A tag names a snapshot that exists, or the snapshot of another tag with that id (the
   snapshot may have expired); without an id, the latest snapshot. The time to live is the
   given one, else ``tag.default-time-retained``, else none.
3. Tag names are not blank. Creating a tag that exists is allowed only for the same snapshot
   (its file is then rewritten, e.g. with a new time to live); otherwise it is an error.
4. Deleting a tag deletes its file, then the files only it used (``reference.store.usage``
   rule 4): nothing while the snapshot itself or another tag of it remains.
5. A tag with both a create time and a time to live expires once ``now`` is after
   ``create time + time to live``; tag expiration deletes such tags by rule 4. Automatic tag
   creation (``tag.automatic-creation``) and its ``tag.num-retained-max`` are not modelled.
6. A read at a tag reads its snapshot (``reference.store.query``).
"""

from __future__ import annotations

import datetime as dt

from reference import layout
from reference.errors import SnapshotNotFoundError, SpecViolation
from reference.io import FileIO
from reference.spec.snapshot import (
    LocalDateTime,
    Snapshot,
    Tag,
    encode_snapshot,
    encode_tag,
)
from reference.spec.units import NANOS_PER_MICRO
from reference.store import metadata, usage


def validate_tag_name(name: str) -> None:
    if layout.is_blank(name) or layout.SEPARATOR in name:
        raise SpecViolation(f"tag name {name!r} is blank or has a '/'", code="TAG")


def compute_local_date_time(moment: dt.datetime) -> LocalDateTime:
    return LocalDateTime(
        moment.year,
        moment.month,
        moment.day,
        moment.hour,
        moment.minute,
        moment.second,
        moment.microsecond * NANOS_PER_MICRO,
    )


def to_datetime(moment: LocalDateTime) -> dt.datetime:
    return moment.to_datetime()


def encode_tag_file(tag: Tag) -> str:
    """Rule 1."""
    if tag.time_retained_nanos is None:
        return encode_snapshot(tag.snapshot)
    return encode_tag(tag)


def find_taggable_snapshot(
    file_io: FileIO, table_root: str, snapshot_id: int | None, branch: str
) -> Snapshot:
    """Rule 2 (Java ``findSnapshot``)."""
    if snapshot_id is None:
        latest = metadata.read_latest_snapshot(file_io, table_root, branch)
        if latest is None:
            raise SnapshotNotFoundError("no snapshot to tag", path=table_root)
        return latest
    if metadata.has_snapshot(file_io, table_root, snapshot_id, branch):
        return metadata.read_snapshot(file_io, table_root, snapshot_id, branch)
    for name in metadata.list_tag_names(file_io, table_root, branch):
        tagged = metadata.read_tag(file_io, table_root, name, branch).snapshot
        if tagged.id == snapshot_id:
            return tagged
    raise SnapshotNotFoundError(f"snapshot {snapshot_id} does not exist", path=table_root)


def create_tag(
    file_io: FileIO,
    table_root: str,
    name: str,
    *,
    snapshot_id: int | None = None,
    time_retained_nanos: int | None = None,
    branch: str = layout.MAIN_BRANCH,
    now: dt.datetime | None = None,
) -> Tag:
    """Rules 1-3: tag a snapshot and return the tag written."""
    validate_tag_name(name)
    snapshot = find_taggable_snapshot(file_io, table_root, snapshot_id, branch)
    if time_retained_nanos is None:
        options = metadata.read_latest_schema(file_io, table_root, branch).core_options
        time_retained_nanos = options.get("tag.default-time-retained")
    created = None if time_retained_nanos is None else (now or dt.datetime.now())
    tag = Tag(
        snapshot,
        None if created is None else compute_local_date_time(created),
        time_retained_nanos,
    )
    path = layout.tag_path(table_root, name, branch)
    data = encode_tag_file(tag).encode("utf-8")
    if file_io.create_exclusive(path, data):
        return tag
    existing = metadata.read_tag(file_io, table_root, name, branch).snapshot
    if existing.id != snapshot.id:
        raise SpecViolation(
            f"tag '{name}' already exists (snapshot {existing.id}, not {snapshot.id})", code="TAG"
        )
    file_io.write_bytes(path, data)
    return tag


def delete_tag(
    file_io: FileIO, table_root: str, name: str, *, branch: str = layout.MAIN_BRANCH
) -> list[str]:
    """Rule 4: delete the tag; returns the deleted paths (the tag file first)."""
    validate_tag_name(name)
    tag = metadata.read_tag(file_io, table_root, name, branch)
    path = layout.tag_path(table_root, name, branch)
    holder = usage.Holder(usage.HolderKind.TAG, branch, name, tag.snapshot)
    return usage.delete_holders(file_io, table_root, [(holder, path)], own_file_first=True)


def is_tag_expired(tag: Tag, now: dt.datetime) -> bool:
    """Rule 5."""
    if tag.create_time is None or tag.time_retained_nanos is None:
        return False
    lifetime = dt.timedelta(microseconds=tag.time_retained_nanos // NANOS_PER_MICRO)
    return now > to_datetime(tag.create_time) + lifetime


def expire_tags(
    file_io: FileIO,
    table_root: str,
    *,
    branch: str = layout.MAIN_BRANCH,
    now: dt.datetime | None = None,
) -> list[str]:
    """Rule 5: delete the expired tags of a branch; returns their names."""
    moment = now or dt.datetime.now()
    expired = [
        name
        for name in metadata.list_tag_names(file_io, table_root, branch)
        if is_tag_expired(metadata.read_tag(file_io, table_root, name, branch), moment)
    ]
    for name in expired:
        delete_tag(file_io, table_root, name, branch=branch)
    return expired
