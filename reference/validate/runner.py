"""Running every check on a table: which snapshots, in which order, sharing what.

For each branch (main first): schemas, snapshots, hints, the record-count chain, tags,
consumers; then, for each selected snapshot, its manifests, live files, buckets, levels and
table indexes (a tag whose snapshot expired without its changelog: a tag holds none, see
``reference.validate.manifest_checks`` rule 1). Then every data and changelog file live in any
checked snapshot, once: file checks, file-index decoding and, with ``deep``, its rows. Last,
with ``deep``, the HASH indexes of each checked snapshot against the key hashes the row pass
collected. Each step runs under a
guard (``reference.validate.guard``), so one bad file never stops the others.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from reference import layout
from reference.errors import SnapshotNotFoundError
from reference.io import FileIO
from reference.isolation import isolating_orc_decoding
from reference.spec import types as t
from reference.spec.manifest import IndexManifestEntry
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot, Tag
from reference.store.branches import list_branches
from reference.validate import report as r
from reference.validate.data_checks import DeepResult, check_file_contents
from reference.validate.file_checks import check_data_file, compute_listing
from reference.validate.guard import describe_error, is_io_failure, run_check, run_read
from reference.validate.index_checks import (
    BucketKey,
    ColumnIndexBody,
    IndexMemo,
    check_file_index,
    check_hash_index_keys,
    check_index_file,
    check_vectors_against_files,
    compute_live_index_entries,
    read_index_manifest_checked,
)
from reference.validate.manifest_checks import (
    LiveFile,
    ManifestMemo,
    check_buckets,
    check_levels,
    compute_live_files,
    read_snapshot_files,
)
from reference.validate.metadata_checks import (
    check_consumers,
    check_hints,
    check_record_count_chain,
    read_schemas,
    read_snapshots,
    read_tags,
)
from reference.validate.report import TableReport, ValidationReport, Violation

Progress = Callable[[int, int, str], None]
"""Called as ``progress(done, total, what)`` while data files are read (``deep`` only)."""


@dataclass(frozen=True)
class ValidateOptions:
    """Which snapshots to check and how deeply."""

    snapshot_id: int | None = None
    all_snapshots: bool = False
    deep: bool = False

    def __post_init__(self) -> None:
        if self.snapshot_id is not None and self.all_snapshots:
            raise ValueError("choose either one snapshot or all snapshots")


# --------------------------------------------------------------------------------------------
# Finding tables
# --------------------------------------------------------------------------------------------


def is_table_root(file_io: FileIO, path: str) -> bool:
    """A directory with a ``schema/`` or ``snapshot/`` directory is a table."""
    return file_io.exists(layout.schema_dir(path)) or file_io.exists(layout.snapshot_dir(path))


def _child_tables(file_io: FileIO, directory: str) -> list[str]:
    children = (layout.join(directory, name) for name in file_io.list_dir(directory))
    return [child for child in children if is_table_root(file_io, child)]


def find_tables(file_io: FileIO, path: str) -> list[str]:
    """The table at ``path``; else the tables of the database directory ``path``; else those
    of every ``<db>.db`` directory of the warehouse ``path``."""
    if is_table_root(file_io, path):
        return [path]
    databases = [
        layout.join(path, name)
        for name in file_io.list_dir(path)
        if name.endswith(layout.DATABASE_SUFFIX)
    ]
    in_warehouse = [table for database in databases for table in _child_tables(file_io, database)]
    return in_warehouse or _child_tables(file_io, path)


# --------------------------------------------------------------------------------------------
# One branch of one table
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _FileToCheck:
    """A live data or changelog file, with the schemas of the branch it is live in (a branch
    may give an id another schema than the main branch does)."""

    live_file: LiveFile
    schemas: Mapping[int, TableSchema]
    partition_fields: tuple[t.DataField, ...]
    is_changelog: bool = False


@dataclass
class _TableState:
    """What a table's checks share: memos, the files seen so far and counters."""

    manifests: ManifestMemo = field(default_factory=ManifestMemo)
    indexes: IndexMemo = field(default_factory=IndexMemo)
    files: dict[str, _FileToCheck] = field(default_factory=dict)
    snapshot_files: list[tuple[Snapshot, list[LiveFile], list[IndexManifestEntry]]] = field(
        default_factory=list
    )
    checked: Counter[str] = field(default_factory=Counter)
    listing: dict[str, list[str]] | None = None


def select_snapshots(
    snapshots: Mapping[int, Snapshot],
    tags: Mapping[str, Tag],
    options: ValidateOptions,
    branch: str,
) -> list[Snapshot]:
    """The snapshots to check in full (see the module docstring)."""
    if options.snapshot_id is not None and branch == layout.MAIN_BRANCH:
        if options.snapshot_id not in snapshots:
            raise SnapshotNotFoundError(f"snapshot {options.snapshot_id} cannot be checked")
        return [snapshots[options.snapshot_id]]
    if options.all_snapshots:
        tagged = {
            t.snapshot.id: t.snapshot for t in tags.values() if t.snapshot.id not in snapshots
        }
        return [snapshots[i] for i in sorted(snapshots)] + [tagged[i] for i in sorted(tagged)]
    return [snapshots[max(snapshots)]] if snapshots else []


def check_tag_manifests(
    file_io: FileIO, table_root: str, tags: Mapping[str, Tag], branch: str
) -> list[Violation]:
    """A tag keeps its snapshot's manifest lists alive: they must exist."""
    found: list[Violation] = []
    for name, tag in tags.items():
        lists = [tag.snapshot.base_manifest_list, tag.snapshot.delta_manifest_list]
        missing = [m for m in lists if not file_io.exists(layout.manifest_path(table_root, m))]
        if missing:
            found.append(
                r.violation(
                    r.Rule.TAG_DANGLING,
                    r.relative_file(table_root, layout.tag_path(table_root, name, branch)),
                    f"tag '{name}' (snapshot {tag.snapshot.id}) lost manifest list(s) "
                    f"{', '.join(missing)}",
                )
            )
    return found


def _check_snapshot(
    file_io: FileIO,
    table_root: str,
    snapshot: Snapshot,
    *,
    schemas: Mapping[int, TableSchema],
    schema: TableSchema,
    branch: str,
    state: _TableState,
    is_tag_only: bool = False,
) -> list[Violation]:
    """Manifests, replay, buckets, levels and table indexes of one snapshot (``is_tag_only``:
    held only by a tag, so checked without its changelog)."""
    files, found = read_snapshot_files(
        file_io,
        table_root,
        snapshot,
        schemas=schemas,
        partition_type=schema.partition_type,
        memo=state.manifests,
        branch=branch,
        with_changelog=not is_tag_only,
    )
    live = compute_live_files(table_root, files.live, schema, snapshot.id)
    partition_fields = tuple(schema.partition_type.fields)
    for live_file in live:
        item = _FileToCheck(live_file, schemas, partition_fields)
        state.files.setdefault(live_file.path, item)
    for changelog_file in compute_live_files(table_root, files.changelog, schema, snapshot.id):
        item = _FileToCheck(changelog_file, schemas, partition_fields, is_changelog=True)
        state.files.setdefault(changelog_file.path, item)
    found += check_buckets(table_root, live, schemas)
    found += check_levels(table_root, live, schema)
    live_index: list[IndexManifestEntry] = []
    if snapshot.index_manifest is not None:
        entries, problems = read_index_manifest_checked(
            file_io, table_root, snapshot.index_manifest, snapshot.id, state.indexes
        )
        found.extend(problems)
        index_entries = compute_live_index_entries(entries or [])
        for entry in index_entries:
            found += check_index_file(
                file_io, table_root, entry, snapshot.id, state.indexes, schema=schema
            )
        found += check_vectors_against_files(
            table_root, index_entries, live, state.indexes, snapshot.id
        )
        live_index = index_entries
    state.snapshot_files.append((snapshot, live, live_index))
    state.checked["snapshots"] += 1
    return found


def _check_branch(
    file_io: FileIO,
    table_root: str,
    branch: str,
    options: ValidateOptions,
    state: _TableState,
) -> list[Violation]:
    schemas, found = read_schemas(file_io, table_root, branch)
    if branch != layout.MAIN_BRANCH and not schemas:
        directory = r.relative_file(table_root, layout.branch_path(table_root, branch))
        return [r.violation(r.Rule.BRANCH_INVALID, directory, f"branch '{branch}' has no schema")]
    ids, snapshots, problems = read_snapshots(file_io, table_root, schemas, branch)
    found += problems
    found += check_hints(file_io, table_root, ids, branch)
    found += check_record_count_chain(table_root, snapshots, branch)
    tags, problems = read_tags(file_io, table_root, ids, snapshots, branch)
    found += problems
    found += check_tag_manifests(file_io, table_root, tags, branch)
    found += check_consumers(file_io, table_root, ids, branch)
    if not schemas:
        return found
    schema = schemas[max(schemas)]
    for snapshot in select_snapshots(snapshots, tags, options, branch):
        file = r.relative_file(table_root, layout.snapshot_path(table_root, snapshot.id, branch))
        found += run_check(
            partial(
                _check_snapshot,
                file_io,
                table_root,
                snapshot,
                schemas=schemas,
                schema=schema,
                branch=branch,
                state=state,
                is_tag_only=snapshot.id not in snapshots,
            ),
            r.Rule.CHECK_FAILED,
            file,
            snapshot.id,
        )
    return found


# --------------------------------------------------------------------------------------------
# Data files, shared by every snapshot and branch
# --------------------------------------------------------------------------------------------


def _listing(file_io: FileIO, table_root: str, state: _TableState) -> dict[str, list[str]]:
    if state.listing is None:
        state.listing = compute_listing(file_io, table_root)
    return state.listing


def _check_file(
    file_io: FileIO, table_root: str, item: _FileToCheck, state: _TableState
) -> tuple[list[Violation], list[ColumnIndexBody] | None]:
    """File and file-index checks of one file; the index bodies when its rows can be read
    (data files whose footer checked out), else None."""
    live_file = item.live_file
    ok, found = check_data_file(
        file_io, table_root, live_file, item.schemas, partial(_listing, file_io, table_root, state)
    )
    file_schema = item.schemas.get(live_file.entry.file.schema_id)
    if item.is_changelog or file_schema is None:
        return found, None
    bodies, problems = check_file_index(file_io, table_root, live_file, file_schema)
    return found + problems, bodies if ok else None


def _check_rows(
    file_io: FileIO, table_root: str, item: _FileToCheck, bodies: Sequence[ColumnIndexBody]
) -> DeepResult:
    live_file = item.live_file
    return check_file_contents(
        file_io,
        table_root,
        live_file,
        item.schemas[live_file.entry.file.schema_id],
        partition_fields=item.partition_fields,
        index_bodies=bodies,
    )


def _check_files(
    file_io: FileIO,
    table_root: str,
    options: ValidateOptions,
    state: _TableState,
    progress: Progress | None,
) -> tuple[list[Violation], dict[str, frozenset[int]]]:
    """Every data and changelog file once; with ``deep`` the rows of the data files too.
    Returns the findings and the key hashes of dynamic-bucket files by path."""
    found: list[Violation] = []
    readable: list[tuple[_FileToCheck, list[ColumnIndexBody]]] = []
    for path, item in state.files.items():
        file = r.relative_file(table_root, path)
        checked, problems = run_read(
            partial(_check_file, file_io, table_root, item, state),
            r.Rule.CHECK_FAILED,
            file,
            item.live_file.snapshot_id,
        )
        found += problems
        if checked is not None:
            found += checked[0]
            if checked[1] is not None:
                readable.append((item, checked[1]))
        state.checked["changelog files" if item.is_changelog else "data files"] += 1
    hashes: dict[str, frozenset[int]] = {}
    if not options.deep:
        return found, hashes
    for done, (item, bodies) in enumerate(readable):
        path = item.live_file.path
        if progress is not None:
            progress(done, len(readable), r.relative_file(table_root, path))
        result, problems = run_read(
            partial(_check_rows, file_io, table_root, item, bodies),
            r.Rule.CHECK_FAILED,
            r.relative_file(table_root, path),
            item.live_file.snapshot_id,
        )
        found += problems
        if result is not None:
            found += result.violations
            if result.key_hashes is not None:
                hashes[path] = result.key_hashes
            state.checked["rows read"] += item.live_file.entry.file.row_count
    if progress is not None:
        progress(len(readable), len(readable), "")
    return found, hashes


def _check_hash_indexes(
    table_root: str, hashes: Mapping[str, frozenset[int]], state: _TableState
) -> list[Violation]:
    """Index rule 4 per checked snapshot, from the key hashes the deep pass collected."""
    found: list[Violation] = []
    for snapshot, live, live_index in state.snapshot_files:
        by_bucket: dict[BucketKey, set[int]] = defaultdict(set)
        for live_file in live:
            if live_file.path in hashes:
                key = (live_file.entry.partition, live_file.entry.bucket)
                by_bucket[key] |= hashes[live_file.path]
        if by_bucket:
            found += check_hash_index_keys(
                table_root,
                live_index,
                by_bucket,
                state.indexes,
                snapshot.id,
            )
    return found


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


def _check_table(
    file_io: FileIO, table_root: str, options: ValidateOptions, progress: Progress | None
) -> tuple[list[Violation], Counter[str]]:
    """The main branch and every branch; a branch directory given on its own
    (``<table>/branch/branch-<name>``, ``layout.parse_branch_path``) is checked as that branch
    of its table, whose manifests and data files it uses (files named from the table root)."""
    state = _TableState()
    branch_of = layout.parse_branch_path(table_root)
    if branch_of is not None and is_table_root(file_io, branch_of[0]):
        table_root, branch = branch_of
        branches = [branch]
    else:
        branches = [layout.MAIN_BRANCH, *list_branches(file_io, table_root)]
    found: list[Violation] = []
    for branch in branches:
        found += _check_branch(file_io, table_root, branch, options, state)
    problems, hashes = _check_files(file_io, table_root, options, state, progress)
    found += problems
    found += _check_hash_indexes(table_root, hashes, state)
    return r.dedupe_violations(found), state.checked


def validate_table(
    file_io: FileIO,
    table_root: str,
    options: ValidateOptions | None = None,
    progress: Progress | None = None,
) -> TableReport:
    """Every check on one table. Never raises for a bad table: it reports it (ORC files are
    decoded in a worker process, ``reference.isolation``, so even a crash of the ORC reader
    is reported)."""
    options = options or ValidateOptions()
    try:
        with isolating_orc_decoding():
            found, checked = _check_table(file_io, table_root, options, progress)
    except SnapshotNotFoundError as error:
        return TableReport(table_root, unreadable=describe_error(error))
    except Exception as error:
        if is_io_failure(error):
            return TableReport(table_root, unreadable=describe_error(error))
        failure = r.violation(r.Rule.CHECK_FAILED, "", describe_error(error))
        return TableReport(table_root, (failure,))
    return TableReport(table_root, tuple(found), checked=dict(checked))


def validate(
    file_io: FileIO,
    path: str,
    options: ValidateOptions | None = None,
    progress: Progress | None = None,
) -> ValidationReport:
    """Validate the table, database or warehouse at ``path``."""
    try:
        tables = find_tables(file_io, path)
    except Exception as error:
        return ValidationReport(path, unreadable=describe_error(error))
    if not tables:
        return ValidationReport(
            path,
            unreadable="not a Paimon table (no schema/ or snapshot/ directory), database or "
            "warehouse (no <db>.db/<table> directories)",
        )
    with isolating_orc_decoding():  # one worker for all the tables
        reports = tuple(validate_table(file_io, table, options, progress) for table in tables)
    return ValidationReport(path, reports)
