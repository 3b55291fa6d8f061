"""Table procedures from Python (and ``paimon-kit`` subcommands): tags, rollback, branches,
compaction, snapshot expiration, orphan files.

Each returns a :class:`ProcedureResult` saying what it did (snapshot ids, names, files); a
procedure that changed nothing says why. Only the driver touches metadata; the Spark-backed
ones (``compact``, ``expire_snapshots``, ``remove_orphan_files``) take a SparkSession or
``None`` (the work then runs in this process, as the ``paimon-kit`` command does).

Semantics follow Java Paimon 0.9 (``utils/TagManager``, ``utils/BranchManager``,
``table/RollbackHelper``, ``operation/OrphanFilesClean``, ``table/ExpireSnapshotsImpl`` and the
procedures of paimon-spark with the same names); the rules are stated on each function.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reference import layout
from reference.errors import (
    FileMissingError,
    InvalidOptionError,
    SnapshotNotFoundError,
    SpecViolation,
    TableNotFoundError,
)
from reference.io import FileIO, file_io_for
from reference.spec.manifest import FileKind
from reference.spec.snapshot import (
    LocalDateTime,
    Snapshot,
    Tag,
    encode_hint,
    encode_snapshot,
    encode_tag,
)
from reference.spec.units import MILLIS_PER_DAY, NANOS_PER_MICRO, NANOS_PER_MILLI
from spark_impl import jobs
from spark_impl import refs as r
from spark_impl.expire import ExpireLimits
from spark_impl.metadata import read_manifest, read_manifest_list

DEFAULT_ORPHAN_AGE_MILLIS = MILLIS_PER_DAY
"""``remove_orphan_files`` keeps files younger than this by default (Java: one day)."""
TAG_DEFAULT_TIME_RETAINED = "tag.default-time-retained"


@dataclass(frozen=True)
class ProcedureResult:
    """What a procedure did: ``summary`` is one line (for a no-op, the reason)."""

    procedure: str
    table: str
    changed: bool
    summary: str
    snapshot_ids: tuple[int, ...] = ()
    names: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def describe(self) -> str:
        """The text ``paimon-kit`` prints: the summary, then one line per file."""
        head = f"{self.procedure} {self.table}: {self.summary}"
        return "\n".join([head, *(f"  {path}" for path in self.files)])


def _open(path: str, options: Mapping[str, str] | None) -> tuple[FileIO, str]:
    root = path.rstrip(layout.SEPARATOR)
    settings = {str(k): str(v) for k, v in (options or {}).items()}
    file_io = file_io_for(root, settings)
    r.read_branch_schema(file_io, root, layout.MAIN_BRANCH)  # not a table: named error
    return file_io, root


def _write_hint(
    file_io: FileIO, table_root: str, branch: str, hint: layout.HintFile, at: int
) -> None:
    path = layout.hint_path(layout.snapshot_dir(table_root, branch), hint)
    file_io.write_bytes(path, encode_hint(at))


def _require_branch(file_io: FileIO, table_root: str, branch: str) -> None:
    if branch != layout.MAIN_BRANCH and not file_io.exists(layout.branch_path(table_root, branch)):
        raise TableNotFoundError(f"branch '{branch}' does not exist", path=table_root)


# --------------------------------------------------------------------------------------------
# Tags (Java 0.9: TagManager, AbstractFileStoreTable.createTag / deleteTag, TagDeletion)
# --------------------------------------------------------------------------------------------


def validate_tag_name(name: str) -> None:
    """A tag name is not blank and has no ``/`` (it is a file name)."""
    if layout.is_blank(name) or layout.SEPARATOR in name:
        raise SpecViolation(f"tag name {name!r} is blank or has a '/'", code="TAG")


def find_taggable_snapshot(
    file_io: FileIO, table_root: str, snapshot_id: int | None, branch: str
) -> Snapshot:
    """The snapshot a new tag names: ``snapshot_id`` when it exists, else the snapshot of a tag
    with that id (expired since); without an id, the latest snapshot."""
    ids = r.list_snapshot_ids(file_io, table_root, branch)
    if snapshot_id is None and not ids:
        raise SnapshotNotFoundError("no snapshot to tag", path=table_root)
    wanted = ids[-1] if snapshot_id is None else snapshot_id
    if wanted in ids:
        return r.read_branch_snapshot(file_io, table_root, wanted, branch)
    names = r.list_tag_names(file_io, table_root, branch)
    tagged = (r.read_tag(file_io, table_root, name, branch).snapshot for name in names)
    found = next((snapshot for snapshot in tagged if snapshot.id == wanted), None)
    if found is None:
        raise SnapshotNotFoundError(f"snapshot {wanted} does not exist", path=table_root)
    return found


def _now_local() -> LocalDateTime:
    now = dt.datetime.now()
    return LocalDateTime(
        now.year,
        now.month,
        now.day,
        now.hour,
        now.minute,
        now.second,
        now.microsecond * NANOS_PER_MICRO,
    )


def create_tag(
    path: str,
    name: str,
    *,
    snapshot_id: int | None = None,
    time_retained_millis: int | None = None,
    branch: str = layout.MAIN_BRANCH,
    options: Mapping[str, str] | None = None,
) -> ProcedureResult:
    """Tag a snapshot (default the latest). The tag file is the snapshot's JSON, plus the create
    time and the time to live when it has one (given, else ``tag.default-time-retained``). A tag
    that exists may only name the same snapshot: then nothing changes unless a time to live is
    given (the file is rewritten with it); another snapshot is refused."""
    file_io, root = _open(path, options)
    _require_branch(file_io, root, branch)
    validate_tag_name(name)
    snapshot = find_taggable_snapshot(file_io, root, snapshot_id, branch)
    tag_path = layout.tag_path(root, name, branch)
    if file_io.exists(tag_path):
        existing = r.read_tag(file_io, root, name, branch).snapshot.id
        if existing != snapshot.id:
            raise SpecViolation(
                f"tag '{name}' already exists (snapshot {existing}, not {snapshot.id})",
                path=root,
                code="TAG",
            )
        if time_retained_millis is None:
            reason = f"tag '{name}' already names snapshot {snapshot.id}"
            return ProcedureResult("create-tag", root, False, reason, (snapshot.id,), (name,))
    retained = (
        r.read_branch_schema(file_io, root, branch).core_options.get(TAG_DEFAULT_TIME_RETAINED)
        if time_retained_millis is None
        else time_retained_millis * NANOS_PER_MILLI
    )
    if retained is None:
        data = encode_snapshot(snapshot)
    else:
        data = encode_tag(Tag(snapshot, _now_local(), retained))
    file_io.write_bytes(tag_path, data.encode("utf-8"))
    summary = f"tag '{name}' names snapshot {snapshot.id}"
    return ProcedureResult("create-tag", root, True, summary, (snapshot.id,), (name,), (tag_path,))


def delete_tag(
    path: str,
    name: str,
    *,
    branch: str = layout.MAIN_BRANCH,
    options: Mapping[str, str] | None = None,
) -> ProcedureResult:
    """Delete a tag file, then the files only the tag used (none while its snapshot, or another
    holder using them, remains)."""
    file_io, root = _open(path, options)
    _require_branch(file_io, root, branch)
    validate_tag_name(name)
    if not file_io.exists(layout.tag_path(root, name, branch)):
        raise SpecViolation(f"tag '{name}' does not exist", path=root, code="TAG")
    holders = r.read_all_holders(file_io, root)
    removed = [
        h for h in holders if h.kind == layout.TAG_DIR and (h.branch, h.name) == (branch, name)
    ]
    kept = [h for h in holders if h not in removed]
    schema = r.read_branch_schema(file_io, root, layout.MAIN_BRANCH)
    deleted = r.delete_unused(file_io, root, schema, removed, kept)
    snapshot_id = removed[0].snapshot.id
    summary = (
        f"deleted tag '{name}' (snapshot {snapshot_id}) and {len(deleted) - 1} files only it used"
    )
    return ProcedureResult(
        "delete-tag", root, True, summary, (snapshot_id,), (name,), tuple(deleted)
    )


# --------------------------------------------------------------------------------------------
# Rollback (Java 0.9: RollbackHelper, AbstractFileStoreTable.rollbackTo)
# --------------------------------------------------------------------------------------------

_REMOVAL_ORDER = (layout.SNAPSHOT_DIR, layout.CHANGELOG_DIR, layout.TAG_DIR)


def compute_removed(holders: Sequence[r.Holder], branch: str, snapshot_id: int) -> list[r.Holder]:
    """The branch's snapshots, changelogs and tags above ``snapshot_id``: snapshots newest
    first (a crash leaves a contiguous range), then changelogs newest first, then tags."""
    above = [h for h in holders if h.branch == branch and h.snapshot.id > snapshot_id]
    return sorted(above, key=lambda h: (_REMOVAL_ORDER.index(h.kind), -h.snapshot.id, h.name))


def _rollback_target(file_io: FileIO, root: str, branch: str, version: int | str) -> Snapshot:
    """Java 0.9 ``RollbackProcedure``: a version of digits is a snapshot id, any other a tag."""
    if isinstance(version, str) and not version.isdigit():
        validate_tag_name(version)
        if not file_io.exists(layout.tag_path(root, version, branch)):
            raise SpecViolation(f"tag '{version}' does not exist", path=root, code="TAG")
        return r.read_tag(file_io, root, version, branch).snapshot
    snapshot_id = int(version)
    if snapshot_id not in r.list_snapshot_ids(file_io, root, branch):
        raise SnapshotNotFoundError(f"snapshot {snapshot_id} does not exist", path=root)
    return r.read_branch_snapshot(file_io, root, snapshot_id, branch)


def rollback(
    path: str,
    version: int | str,
    *,
    branch: str = layout.MAIN_BRANCH,
    options: Mapping[str, str] | None = None,
) -> ProcedureResult:
    """Make ``version`` the latest snapshot of the branch, as Paimon's Spark procedure
    ``sys.rollback(table, version)`` does: a snapshot id (an int, or a string of digits) or a
    tag name. Removes every snapshot, changelog and tag above it, then the files only they
    used, then points LATEST at it. A tag whose snapshot expired has it written back (and
    EARLIEST points at it). The next commit creates the following id again."""
    file_io, root = _open(path, options)
    _require_branch(file_io, root, branch)
    target = _rollback_target(file_io, root, branch, version)
    holders = r.read_all_holders(file_io, root)
    removed = compute_removed(holders, branch, target.id)
    existing = target.id in r.list_snapshot_ids(file_io, root, branch)
    if not removed and existing:
        reason = f"snapshot {target.id} is already the latest, nothing above it"
        return ProcedureResult("rollback", root, False, reason, (target.id,))
    kept = [h for h in holders if h not in removed]
    schema = r.read_branch_schema(file_io, root, layout.MAIN_BRANCH)
    deleted = r.delete_unused(file_io, root, schema, removed, kept)
    if not existing:
        snapshot_path = layout.snapshot_path(root, target.id, branch)
        file_io.write_bytes(snapshot_path, encode_snapshot(target).encode("utf-8"))
        _write_hint(file_io, root, branch, layout.HintFile.EARLIEST, target.id)
    _write_hint(file_io, root, branch, layout.HintFile.LATEST, target.id)
    gone_ids = sorted({h.snapshot.id for h in removed if h.kind == layout.SNAPSHOT_DIR})
    tags = tuple(h.name for h in removed if h.kind == layout.TAG_DIR)
    summary = (
        f"rolled back to snapshot {target.id}: removed snapshots {gone_ids or 'none'}, "
        f"tags {list(tags) or 'none'}, {len(deleted)} files"
    )
    return ProcedureResult("rollback", root, True, summary, tuple(gone_ids), tags, tuple(deleted))


# --------------------------------------------------------------------------------------------
# Branches (Java 0.9: BranchManager)
# --------------------------------------------------------------------------------------------


def validate_branch_name(name: str) -> None:
    """Not ``main`` (the default branch), not blank, not only digits, no ``/``."""
    if name == layout.MAIN_BRANCH:
        raise SpecViolation("'main' is the default branch and cannot be created", code="BRANCH")
    if layout.is_blank(name) or layout.SEPARATOR in name:
        raise SpecViolation(f"branch name {name!r} is blank or has a '/'", code="BRANCH")
    if name.isascii() and name.isdigit():
        raise SpecViolation(f"branch name {name!r} is only digits", code="BRANCH")


def _copy(file_io: FileIO, source: str, target: str) -> str:
    file_io.write_bytes(target, file_io.read_bytes(source))
    return target


def _copy_schemas(file_io: FileIO, root: str, branch: str, up_to: int) -> list[str]:
    return [
        _copy(file_io, layout.schema_path(root, i), layout.schema_path(root, i, branch))
        for i in r.list_schema_ids(file_io, root, layout.MAIN_BRANCH)
        if i <= up_to
    ]


def create_branch(
    path: str,
    name: str,
    *,
    from_tag: str | None = None,
    options: Mapping[str, str] | None = None,
) -> ProcedureResult:
    """Create branch ``name``: empty (main's schema files up to the latest, no snapshot), or
    from a tag of main (the tag file, the tagged snapshot as the branch's snapshot, written
    from the tag when it expired on main, and main's schema files up to its schema)."""
    file_io, root = _open(path, options)
    validate_branch_name(name)
    if file_io.exists(layout.branch_path(root, name)):
        raise SpecViolation(f"branch '{name}' already exists", path=root, code="BRANCH")
    if from_tag is None:
        latest = r.read_branch_schema(file_io, root, layout.MAIN_BRANCH).id
        written = _copy_schemas(file_io, root, name, latest)
        summary = f"created empty branch '{name}' with schemas up to {latest}"
        return ProcedureResult("create-branch", root, True, summary, (), (name,), tuple(written))
    validate_tag_name(from_tag)
    snapshot = r.read_tag(file_io, root, from_tag, layout.MAIN_BRANCH).snapshot
    written = [
        _copy(file_io, layout.tag_path(root, from_tag), layout.tag_path(root, from_tag, name))
    ]
    target = layout.snapshot_path(root, snapshot.id, name)
    if snapshot.id in r.list_snapshot_ids(file_io, root, layout.MAIN_BRANCH):
        written.append(_copy(file_io, layout.snapshot_path(root, snapshot.id), target))
    else:
        file_io.write_bytes(target, encode_snapshot(snapshot).encode("utf-8"))
        written.append(target)
    written += _copy_schemas(file_io, root, name, snapshot.schema_id)
    summary = f"created branch '{name}' from tag '{from_tag}' (snapshot {snapshot.id})"
    return ProcedureResult(
        "create-branch", root, True, summary, (snapshot.id,), (name,), tuple(written)
    )


def delete_branch(
    path: str, name: str, *, options: Mapping[str, str] | None = None
) -> ProcedureResult:
    """Delete the branch's directory; data only it wrote becomes orphaned (Java does the same:
    ``remove_orphan_files`` removes it)."""
    file_io, root = _open(path, options)
    validate_branch_name(name)
    _require_branch(file_io, root, name)
    file_io.delete_dir(layout.branch_path(root, name))
    summary = f"deleted branch '{name}' (its data files are left for remove-orphan-files)"
    return ProcedureResult("delete-branch", root, True, summary, (), (name,))


def _delete_main_from(file_io: FileIO, root: str, earliest: int, first_schema: int) -> list[str]:
    """Fast-forward's first half: main's LATEST hint, snapshots and tags at or above
    ``earliest`` and schemas at or above ``first_schema``."""
    main = layout.MAIN_BRANCH
    paths = [layout.hint_path(layout.snapshot_dir(root), layout.HintFile.LATEST)]
    paths += [
        layout.snapshot_path(root, i)
        for i in r.list_snapshot_ids(file_io, root, main)
        if i >= earliest
    ]
    paths += [
        layout.schema_path(root, i)
        for i in r.list_schema_ids(file_io, root, main)
        if i >= first_schema
    ]
    paths += [
        layout.tag_path(root, tag)
        for tag in r.list_tag_names(file_io, root, main)
        if r.read_tag(file_io, root, tag, main).snapshot.id >= earliest
    ]
    return [p for p in paths if file_io.delete(p)]


def _is_metadata_name(directory: str, file_name: str) -> bool:
    """A snapshot file or hint, a schema file or a tag file (not, e.g., a temporary file of an
    unfinished write)."""
    if directory == layout.SNAPSHOT_DIR:
        hints = {hint.value for hint in layout.HintFile}
        return file_name in hints or layout.parse_snapshot_id(file_name) is not None
    if directory == layout.SCHEMA_DIR:
        return layout.parse_schema_id(file_name) is not None
    return layout.parse_tag_name(file_name) is not None


def fast_forward(
    path: str, name: str, *, options: Mapping[str, str] | None = None
) -> ProcedureResult:
    """Make main equal to branch ``name``: main's snapshots and tags from the branch's earliest
    snapshot on, and its schemas from that snapshot's schema on, are deleted, then the
    branch's snapshot, schema and tag files are copied into main."""
    file_io, root = _open(path, options)
    validate_branch_name(name)
    _require_branch(file_io, root, name)
    ids = r.list_snapshot_ids(file_io, root, name)
    if not ids:
        raise SnapshotNotFoundError(
            f"branch '{name}' has no snapshot to fast-forward to", path=root
        )
    first_schema = r.read_branch_snapshot(file_io, root, ids[0], name).schema_id
    deleted = _delete_main_from(file_io, root, ids[0], first_schema)
    copied = []
    for directory in (layout.SNAPSHOT_DIR, layout.SCHEMA_DIR, layout.TAG_DIR):
        source = layout.join(layout.branch_path(root, name), directory)
        for file_name in file_io.list_dir(source):
            if _is_metadata_name(directory, file_name):
                target = layout.join(root, directory, file_name)
                copied.append(_copy(file_io, layout.join(source, file_name), target))
    summary = (
        f"main now ends at snapshot {ids[-1]} of branch '{name}' "
        f"({len(deleted)} files of main replaced by {len(copied)} copies)"
    )
    return ProcedureResult(
        "fast-forward", root, True, summary, tuple(ids), (name,), tuple(deleted + copied)
    )


# --------------------------------------------------------------------------------------------
# Orphan files (Java 0.9: OrphanFilesClean, SnapshotManager.tryGetNonSnapshotFiles)
# --------------------------------------------------------------------------------------------


def _file_name(path: str) -> str:
    return path.rstrip(layout.SEPARATOR).rpartition(layout.SEPARATOR)[2]


def _files_in(file_io: FileIO, directory: str) -> list[str]:
    """The files directly in ``directory``."""
    start = len(directory.rstrip(layout.SEPARATOR)) + 1
    return [p for p in file_io.list_files_recursive(directory) if layout.SEPARATOR not in p[start:]]


def _bucket_dirs(file_io: FileIO, directory: str, depth: int) -> list[str]:
    """The ``bucket-*`` directories below ``depth`` levels of ``k=v`` directories."""
    names = file_io.list_dir(directory)
    if depth == 0:
        return [
            layout.join(directory, n) for n in names if layout.parse_bucket_dir_name(n) is not None
        ]
    return [
        bucket
        for n in names
        if "=" in n
        for bucket in _bucket_dirs(file_io, layout.join(directory, n), depth - 1)
    ]


def list_orphan_candidates(file_io: FileIO, root: str, branches: Sequence[str]) -> list[str]:
    """The files of ``manifest/``, ``index/``, ``statistics/`` and every bucket directory, and
    the files of each branch's ``snapshot/`` and ``changelog/`` that are neither a versioned
    file nor a hint (e.g. an unfinished create's temporary file)."""
    schema = r.read_branch_schema(file_io, root, layout.MAIN_BRANCH)
    data_root = layout.join(root, schema.core_options.data_file_path_directory or "")
    table_dirs = [d(root) for d in (layout.manifest_dir, layout.index_dir, layout.statistics_dir)]
    bucket_dirs = _bucket_dirs(file_io, data_root, len(schema.partition_keys))
    candidates = [p for d in [*table_dirs, *bucket_dirs] for p in _files_in(file_io, d)]
    hints = {hint.value for hint in layout.HintFile}
    for branch in branches:
        for directory, prefix in (
            (layout.snapshot_dir(root, branch), layout.SNAPSHOT_PREFIX),
            (layout.changelog_dir(root, branch), layout.CHANGELOG_PREFIX),
        ):
            candidates += [
                p
                for p in _files_in(file_io, directory)
                if _file_name(p) not in hints
                and layout.parse_versioned_name(_file_name(p), prefix) is None
            ]
    return candidates


def _mentioned_names(file_io: FileIO, root: str, snapshot: Snapshot) -> set[str]:
    """Every file name any manifest of the snapshot names, live or deleted (Java keeps them
    all, cautiously)."""
    lists = [snapshot.base_manifest_list, snapshot.delta_manifest_list]
    if snapshot.changelog_manifest_list is not None:
        lists.append(snapshot.changelog_manifest_list)
    names: set[str] = set()
    for list_name in lists:
        for meta in read_manifest_list(file_io, root, list_name):
            for entry in read_manifest(file_io, root, meta.file_name):
                names.add(entry.file.file_name)
                names.update(entry.file.extra_files)
    return names


def read_used_names(file_io: FileIO, root: str) -> set[str]:
    """The names every holder of every branch uses or mentions; a holder that vanished while
    read (a concurrent expiration) is skipped, one still there but unreadable stops the
    clean (deleting then could lose data)."""
    schema = r.read_branch_schema(file_io, root, layout.MAIN_BRANCH)
    names: set[str] = set()
    for holder in r.read_all_holders(file_io, root):
        try:
            usage = r.holder_usage(file_io, root, schema, holder)
            mentioned = _mentioned_names(file_io, root, holder.snapshot)
        except FileMissingError:
            if file_io.exists(holder.path):
                raise
            continue
        names |= {_file_name(p) for p in usage.data | usage.meta} | mentioned
    return names


def _is_older(file_io: FileIO, path: str, cutoff_millis: int) -> bool:
    try:
        return file_io.modification_time_millis(path) < cutoff_millis
    except FileMissingError:
        return False


def find_orphans(
    file_io: FileIO, root: str, *, older_than_millis: int, now_millis: int | None = None
) -> list[str]:
    """The orphan files, sorted: candidates last written before ``now - older_than_millis``
    whose name no holder uses. Refused when a branch has no schema (a damaged table)."""
    branches = r.list_branches(file_io, root)
    missing = [b for b in branches if not r.list_schema_ids(file_io, root, b)]
    if missing:
        raise SpecViolation(f"branches {missing} have no schema: not cleaning", path=root)
    now = time.time_ns() // NANOS_PER_MILLI if now_millis is None else now_millis
    candidates = [
        p
        for p in list_orphan_candidates(file_io, root, branches)
        if _is_older(file_io, p, now - older_than_millis)
    ]
    used = read_used_names(file_io, root)
    return sorted(p for p in candidates if _file_name(p) not in used)


def remove_orphan_files(
    spark: Any,
    path: str,
    *,
    older_than_millis: int = DEFAULT_ORPHAN_AGE_MILLIS,
    dry_run: bool = False,
    now_millis: int | None = None,
    options: Mapping[str, str] | None = None,
) -> ProcedureResult:
    """Delete the files of the table nothing uses that are older than ``older_than_millis``
    (default one day, so a commit in progress is safe); ``dry_run`` only lists them. The
    deletes run as a Spark job when ``spark`` is given."""
    file_io, root = _open(path, options)
    orphans = find_orphans(
        file_io, root, older_than_millis=older_than_millis, now_millis=now_millis
    )
    if not orphans:
        reason = f"no orphan file older than {older_than_millis} ms"
        return ProcedureResult("remove-orphan-files", root, False, reason)
    if dry_run:
        summary = f"{len(orphans)} orphan files (dry run: nothing deleted)"
        return ProcedureResult("remove-orphan-files", root, False, summary, files=tuple(orphans))
    jobs.delete_files(spark, root, orphans, options)
    summary = f"deleted {len(orphans)} orphan files"
    return ProcedureResult("remove-orphan-files", root, True, summary, files=tuple(orphans))


# --------------------------------------------------------------------------------------------
# Compaction and expiration (spark_impl.jobs)
# --------------------------------------------------------------------------------------------


def _count_kinds(file_io: FileIO, root: str, snapshot: Snapshot) -> tuple[int, int]:
    """(files added, files deleted) by a snapshot's delta manifests."""
    entries = [
        entry
        for meta in read_manifest_list(file_io, root, snapshot.delta_manifest_list)
        for entry in read_manifest(file_io, root, meta.file_name)
    ]
    added = sum(1 for e in entries if e.kind is FileKind.ADD)
    return added, len(entries) - added


def compact(
    spark: Any, path: str, *, full: bool = False, options: Mapping[str, str] | None = None
) -> ProcedureResult:
    """Compact the table (:func:`spark_impl.jobs.compact`; Java ``CompactProcedure``): the
    snapshots committed and the files they replaced, or why no bucket needed it."""
    file_io, root = _open(path, options)
    snapshots = jobs.compact(spark, root, full=full, options=options)
    if not snapshots:
        reason = jobs.explain_no_compaction(file_io, root, full=full)
        return ProcedureResult("compact", root, False, reason)
    counts = [_count_kinds(file_io, root, s) for s in snapshots]
    added, deleted = sum(c[0] for c in counts), sum(c[1] for c in counts)
    ids = tuple(s.id for s in snapshots)
    summary = f"committed snapshots {list(ids)}: {deleted} files rewritten into {added}"
    return ProcedureResult("compact", root, True, summary, ids)


def expire_snapshots(
    spark: Any,
    path: str,
    *,
    retain_max: int | None = None,
    retain_min: int | None = None,
    older_than_millis: int | None = None,
    max_deletes: int | None = None,
    now_millis: int | None = None,
    options: Mapping[str, str] | None = None,
) -> ProcedureResult:
    """Expire snapshots (Java ``ExpireSnapshotsProcedure``: ``retain_max``, ``retain_min``,
    ``older_than`` an epoch-millis time, ``max_deletes``; unset ones from the table's
    ``snapshot.*`` options) with :func:`spark_impl.jobs.expire`."""
    file_io, root = _open(path, options)
    for option, value in (("retain_max", retain_max), ("retain_min", retain_min)):
        if value is not None and value < 1:
            raise InvalidOptionError(option, value, "must be at least 1")
    if retain_max is not None and retain_min is not None and retain_max < retain_min:
        raise InvalidOptionError("retain_max", retain_max, f"is below retain_min {retain_min}")
    now = time.time_ns() // NANOS_PER_MILLI if now_millis is None else now_millis
    retained = None if older_than_millis is None else max(now - older_than_millis, 0)
    limits = ExpireLimits(retain_max, retain_min, retained, max_deletes, now)
    plan = jobs.expire_plan(spark, root, limits, options)
    if plan is None:
        ids = r.list_snapshot_ids(file_io, root, layout.MAIN_BRANCH)
        reason = (
            "the table has no snapshot"
            if not ids
            else f"no snapshot of {ids[0]}..{ids[-1]} may expire: the newest retain-min, the ones "
            "within retain-max newer than the time retained, and those a consumer reads stay"
        )
        return ProcedureResult("expire-snapshots", root, False, reason)
    files = (*plan.data_paths, *(p for paths in plan.meta_paths for p in paths))
    summary = f"expired snapshots {list(plan.snapshot_ids)}, {len(files)} files deleted"
    return ProcedureResult("expire-snapshots", root, True, summary, plan.snapshot_ids, (), files)
