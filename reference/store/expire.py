"""Snapshot and changelog expiration: dropping old snapshots and the files only they used.

Spec: ``docs/maintenance/manage-snapshots.mdx`` ("Expire Snapshots"), the options
``snapshot.num-retained.min|max``, ``snapshot.time-retained``, ``snapshot.expire.limit``,
``changelog.num-retained.min|max``, ``changelog.time-retained``, ``consumer.expiration-time``.
Java (0.9.0): ``table/ExpireSnapshotsImpl``, ``table/ExpireChangelogImpl``,
``operation/SnapshotDeletion``, ``operation/ChangelogDeletion``, ``options/ExpireConfig``,
``table/sink/TableCommitImpl.expire``.

Rules (``latest`` and ``earliest`` are the branch's latest and earliest snapshot ids):

1.  Which snapshots. Expiration removes the snapshots ``[earliest, end)``: ``end`` is at most
    ``latest - retain_min + 1`` (the newest ``snapshot.num-retained.min`` snapshots always
    stay), at most the smallest ``nextSnapshot`` of the branch's consumers (a consumer still
    reads that one), and at most ``earliest + snapshot.expire.limit``. Within those bounds
    expiration may stop earlier, walking up from ``max(latest - retain_max + 1, earliest)``:
    the first existing snapshot committed at or after ``now - snapshot.time-retained`` is not
    expired, nor anything after it. Snapshots below ``latest - retain_max + 1`` therefore go
    whatever their age. If a snapshot below ``end`` is already missing, only those above it
    are expired (an earlier run got that far).
2.  Which files. The files the expired snapshots use (``reference.store.usage`` rules 1 and
    4) minus those any remaining snapshot, tag or long-lived changelog of any branch uses.
    So a tagged snapshot's data survives the snapshot, a consumer's snapshot is never
    expired, and a branch created from a tag keeps its files even after the tag is deleted.
3.  Changelog. Normally the changelog files of an expired snapshot go with it. When changelog
    retention is *decoupled* (``changelog.num-retained.max`` above ``snapshot.num-retained.max``,
    or the minimum, or ``changelog.time-retained`` above ``snapshot.time-retained``), each
    expired snapshot is first written as ``changelog/changelog-<id>`` (same JSON) and the
    changelog directory's LATEST hint updated; it then keeps its changelog (or, without a
    changelog manifest list, the files its delta adds) until changelog expiration (rule 5).
4.  Order, so that a crash at any point leaves a readable table: data and changelog files
    first (no remaining snapshot reads them), then, snapshot by snapshot in ascending id
    order, its meta files and then its snapshot file, and last the EARLIEST hint (``end``).
    Failing to delete a data or meta file is ignored (it becomes an orphan for
    ``reference.store.orphans``); failing to delete a snapshot file stops the run, as a crash
    does. Either leaves the oldest remaining snapshots with some files gone: run expiration
    again (it expires them first); until then tag deletion, rollback and orphan cleaning
    refuse to run, because what such a snapshot used can no longer be read. When nothing
    expires, the EARLIEST hint is written if it is missing.
5.  Changelog expiration removes long-lived changelogs ``[earliest changelog, end)`` by rule 1
    with the ``changelog.*`` retention (each falling back to its ``snapshot.*`` option),
    relative to the latest *snapshot*, bounded by the consumers, by ``earliest changelog +
    snapshot.expire.limit`` and by the latest changelog id; their exclusive files go as in
    rule 2, then the changelog files, then the changelog EARLIEST hint.
6.  Consumers idle for longer than ``consumer.expiration-time`` are removed first
    (``reference.store.consumers`` rule 3), so they no longer hold snapshots back.

Difference from Java: Java computes the deletable files incrementally (files deleted by the
expired snapshots' deltas, minus the previous tag's files; manifests minus those of the first
remaining snapshot and the overlapping tags) and looks only at the maintained branch's tags. On
a table without branches the two give the same files; with branches Java can delete files a
branch still uses once the tag it was created from is gone, which rule 2 never does.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reference import layout
from reference.errors import InvalidOptionError, StorageError
from reference.io import FileIO
from reference.spec.options import CoreOptions
from reference.spec.snapshot import Snapshot, encode_hint, encode_snapshot
from reference.spec.units import NANOS_PER_MILLI
from reference.store import metadata, usage
from reference.store.consumers import expire_consumers, find_min_next_snapshot

NO_BOUND = 2**63 - 1


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpireConfig:
    """Retention of snapshots and long-lived changelogs (Java ``ExpireConfig``); times in
    milliseconds."""

    retain_min: int
    retain_max: int
    time_retained_millis: int
    max_deletes: int
    changelog_retain_min: int
    changelog_retain_max: int
    changelog_time_retained_millis: int

    @property
    def is_changelog_decoupled(self) -> bool:
        """Rule 3."""
        return (
            self.changelog_retain_max > self.retain_max
            or self.changelog_retain_min > self.retain_min
            or self.changelog_time_retained_millis > self.time_retained_millis
        )


def validate_expire_config(config: ExpireConfig) -> None:
    """Each bound is positive and each minimum at most its maximum; the error names the
    option that carries the value."""
    positive = (
        ("snapshot.num-retained.min", config.retain_min),
        ("snapshot.num-retained.max", config.retain_max),
        ("snapshot.expire.limit", config.max_deletes),
        ("changelog.num-retained.min", config.changelog_retain_min),
        ("changelog.num-retained.max", config.changelog_retain_max),
    )
    for option, value in positive:
        if value < 1:
            raise InvalidOptionError(option, value, "must be at least 1")
    if config.retain_min > config.retain_max:
        raise InvalidOptionError(
            "snapshot.num-retained.min",
            config.retain_min,
            f"must not exceed snapshot.num-retained.max ({config.retain_max})",
        )
    if config.changelog_retain_min > config.changelog_retain_max:
        raise InvalidOptionError(
            "changelog.num-retained.min",
            config.changelog_retain_min,
            f"must not exceed changelog.num-retained.max ({config.changelog_retain_max})",
        )


def compute_expire_config(options: CoreOptions) -> ExpireConfig:
    """The retention a table's options ask for (Java ``CoreOptions.expireConfig``)."""
    config = ExpireConfig(
        retain_min=options.snapshot_num_retained_min,
        retain_max=options.snapshot_num_retained_max,
        time_retained_millis=options.snapshot_time_retained // NANOS_PER_MILLI,
        max_deletes=options.snapshot_expire_limit,
        changelog_retain_min=options.changelog_num_retained_min,
        changelog_retain_max=options.changelog_num_retained_max,
        changelog_time_retained_millis=options.changelog_time_retained // NANOS_PER_MILLI,
    )
    validate_expire_config(config)
    return config


# --------------------------------------------------------------------------------------------
# Which ids (rules 1 and 5)
# --------------------------------------------------------------------------------------------


def compute_expire_end(
    *,
    earliest: int,
    latest: int,
    retain_min: int,
    retain_max: int,
    max_deletes: int,
    min_consumer_next: int | None,
    older_than_millis: int,
    commit_times: Mapping[int, int],
    last_candidate: int | None = None,
) -> int:
    """Rule 1: the exclusive end of the ids to expire (``<= earliest``: none).

    ``commit_times`` maps the ids that exist to their commit times; ``last_candidate`` caps
    the ids examined for their time (rule 5's latest changelog id)."""
    first_by_count = max(latest - retain_max + 1, earliest)
    end = latest - retain_min + 1
    end = min(end, NO_BOUND if min_consumer_next is None else min_consumer_next)
    end = min(end, earliest + max_deletes)
    if last_candidate is not None:
        end = min(end, last_candidate)
    last_examined = end if last_candidate is not None else end - 1
    for candidate in range(first_by_count, last_examined + 1):
        if candidate in commit_times and older_than_millis <= commit_times[candidate]:
            return candidate
    return end


def compute_expire_begin(earliest: int, end: int, existing: set[int]) -> int:
    """Rule 1: below the first missing id under ``end`` everything is gone already."""
    for candidate in range(end - 1, earliest - 1, -1):
        if candidate not in existing:
            return candidate + 1
    return earliest


# --------------------------------------------------------------------------------------------
# Deleting (rules 2 and 4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpireResult:
    """The ids that were expired and every file deleted, snapshot/changelog files included."""

    expired: tuple[int, ...] = ()
    deleted_files: tuple[str, ...] = ()


def write_hint(file_io: FileIO, directory: str, hint: layout.HintFile, value: int) -> None:
    """Hints are advisory: a failure to write one is ignored."""
    with contextlib.suppress(StorageError):
        file_io.write_bytes(layout.hint_path(directory, hint), encode_hint(value))


def write_long_lived_changelogs(
    file_io: FileIO, table_root: str, branch: str, snapshots: Sequence[Snapshot]
) -> None:
    """Rule 3: keep the expiring snapshots as changelogs."""
    if not snapshots:
        return
    directory = layout.changelog_dir(table_root, branch)
    had_changelogs = bool(usage.list_changelog_ids(file_io, table_root, branch))
    for snapshot in snapshots:
        path = layout.changelog_path(table_root, snapshot.id, branch)
        file_io.write_bytes(path, encode_snapshot(snapshot).encode("utf-8"))
    write_hint(file_io, directory, layout.HintFile.LATEST, snapshots[-1].id)
    if not had_changelogs:
        write_hint(file_io, directory, layout.HintFile.EARLIEST, snapshots[0].id)


def read_commit_times(
    file_io: FileIO, table_root: str, branch: str, ids: Sequence[int]
) -> dict[int, int]:
    return {
        snapshot_id: metadata.read_snapshot(file_io, table_root, snapshot_id, branch).time_millis
        for snapshot_id in ids
    }


def current_millis() -> int:
    return time.time_ns() // NANOS_PER_MILLI


def expire_snapshots(
    file_io: FileIO,
    table_root: str,
    config: ExpireConfig,
    *,
    branch: str = layout.MAIN_BRANCH,
    now_millis: int | None = None,
) -> ExpireResult:
    """Rules 1-4 on one branch."""
    validate_expire_config(config)
    latest = metadata.find_latest_snapshot_id(file_io, table_root, branch)
    earliest = metadata.find_earliest_snapshot_id(file_io, table_root, branch)
    if latest is None or earliest is None:
        return ExpireResult()
    ids = metadata.list_snapshot_ids(file_io, table_root, branch)
    now = current_millis() if now_millis is None else now_millis
    end = compute_expire_end(
        earliest=earliest,
        latest=latest,
        retain_min=config.retain_min,
        retain_max=config.retain_max,
        max_deletes=config.max_deletes,
        min_consumer_next=find_min_next_snapshot(file_io, table_root, branch),
        older_than_millis=now - config.time_retained_millis,
        commit_times=read_commit_times(file_io, table_root, branch, ids),
    )
    directory = layout.snapshot_dir(table_root, branch)
    if end <= earliest:
        if layout.read_hint(file_io, directory, layout.HintFile.EARLIEST) is None:
            write_hint(file_io, directory, layout.HintFile.EARLIEST, earliest)
        return ExpireResult()
    begin = compute_expire_begin(earliest, end, set(ids))
    expiring = [
        metadata.read_snapshot(file_io, table_root, snapshot_id, branch)
        for snapshot_id in range(begin, end)
    ]
    if config.is_changelog_decoupled:
        write_long_lived_changelogs(file_io, table_root, branch, expiring)
    removed = [
        (
            usage.Holder(usage.HolderKind.SNAPSHOT, branch, str(snapshot.id), snapshot),
            layout.snapshot_path(table_root, snapshot.id, branch),
        )
        for snapshot in expiring
    ]
    deleted = usage.delete_holders(file_io, table_root, removed)
    write_hint(file_io, directory, layout.HintFile.EARLIEST, end)
    return ExpireResult(tuple(range(begin, end)), tuple(deleted))


def find_changelog_bounds(file_io: FileIO, table_root: str, branch: str) -> tuple[int, int] | None:
    ids = usage.list_changelog_ids(file_io, table_root, branch)
    return (ids[0], ids[-1]) if ids else None


def expire_changelogs(
    file_io: FileIO,
    table_root: str,
    config: ExpireConfig,
    *,
    branch: str = layout.MAIN_BRANCH,
    now_millis: int | None = None,
) -> ExpireResult:
    """Rule 5 on one branch."""
    validate_expire_config(config)
    latest = metadata.find_latest_snapshot_id(file_io, table_root, branch)
    bounds = find_changelog_bounds(file_io, table_root, branch)
    if latest is None or bounds is None:
        return ExpireResult()
    earliest, latest_changelog = bounds
    changelogs = {
        changelog_id: usage.read_changelog(file_io, table_root, changelog_id, branch)
        for changelog_id in usage.list_changelog_ids(file_io, table_root, branch)
    }
    now = current_millis() if now_millis is None else now_millis
    end = compute_expire_end(
        earliest=earliest,
        latest=latest,
        retain_min=config.changelog_retain_min,
        retain_max=config.changelog_retain_max,
        max_deletes=config.max_deletes,
        min_consumer_next=find_min_next_snapshot(file_io, table_root, branch),
        older_than_millis=now - config.changelog_time_retained_millis,
        commit_times={i: changelog.time_millis for i, changelog in changelogs.items()},
        last_candidate=latest_changelog,
    )
    expiring = [changelogs[i] for i in range(earliest, end) if i in changelogs]
    if not expiring:
        return ExpireResult()
    removed = [
        (
            usage.Holder(usage.HolderKind.CHANGELOG, branch, str(changelog.id), changelog),
            layout.changelog_path(table_root, changelog.id, branch),
        )
        for changelog in expiring
    ]
    deleted = usage.delete_holders(file_io, table_root, removed)
    write_hint(file_io, layout.changelog_dir(table_root, branch), layout.HintFile.EARLIEST, end)
    return ExpireResult(tuple(c.id for c in expiring), tuple(deleted))


def expire(
    file_io: FileIO,
    table_root: str,
    *,
    branch: str = layout.MAIN_BRANCH,
    now_millis: int | None = None,
) -> ExpireResult:
    """What a Java committer does after each commit (rules 6, 1-4, then 5), with the branch's
    own options."""
    options = metadata.read_latest_schema(file_io, table_root, branch).core_options
    config = compute_expire_config(options)
    now = current_millis() if now_millis is None else now_millis
    idle_limit = options.consumer_expiration_time
    if idle_limit is not None:
        expire_consumers(file_io, table_root, now - idle_limit // NANOS_PER_MILLI, branch=branch)
    snapshots = expire_snapshots(file_io, table_root, config, branch=branch, now_millis=now)
    if not config.is_changelog_decoupled:
        return snapshots
    changelogs = expire_changelogs(file_io, table_root, config, branch=branch, now_millis=now)
    return ExpireResult(snapshots.expired, snapshots.deleted_files + changelogs.deleted_files)
