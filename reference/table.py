"""A table handle for users of the reference: a file IO and a table root, nothing more.

Every method reads what it needs (the latest schema, the latest snapshot) and delegates to a
function of ``reference.store`` with explicit arguments, so the handle carries no state that
could go stale and the store functions stay the specification.

    table = Table.create(LocalFileIO(), "/tmp/t", fields, primary_keys=["k"],
                         options={"bucket": "1"})
    table.write_and_commit([(1, "a"), (2, "b")])
    rows = table.read().rows
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reference.errors import TableNotFoundError
from reference.io import FileIO
from reference.object_table import check_not_object_table
from reference.spec import types as t
from reference.spec.commit_message import BATCH_COMMIT_IDENTIFIER, CommitMessage
from reference.spec.data import Row, RowKind, Value
from reference.spec.predicate import Predicate
from reference.spec.schema import SchemaChange, TableSchema
from reference.spec.snapshot import Snapshot
from reference.store import (
    branches,
    consumers,
    dml,
    metadata,
    orphans,
    rollback,
    schema_changes,
    tags,
)
from reference.store import commit as store_commit
from reference.store import expire as store_expire
from reference.store.compact import compact_after_write, compact_table
from reference.store.incremental import ChangeView, IncrementalResult, read_changes
from reference.store.query import LATEST, ReadResult, TimeTravel, read_table
from reference.store.stream import StreamReader
from reference.store.write import write_batch
from reference.system_tables import SystemTableRows, SystemTableVersion, read_system_table


def new_commit_user() -> str:
    """A fresh commit user, as each Java batch write builder makes one (a random UUID)."""
    return str(uuid.uuid4())


@dataclass(frozen=True)
class Table:
    """A Paimon table at ``root`` reached through ``file_io``."""

    file_io: FileIO
    root: str

    @staticmethod
    def create(
        file_io: FileIO,
        root: str,
        fields: Sequence[t.DataField],
        *,
        partition_keys: Sequence[str] = (),
        primary_keys: Sequence[str] = (),
        options: Mapping[str, str] | None = None,
        comment: str | None = None,
    ) -> Table:
        """Create the table (``schema_changes.create_table``) and return its handle."""
        schema_changes.create_table(
            file_io,
            root,
            fields,
            partition_keys=partition_keys,
            primary_keys=primary_keys,
            options=options,
            comment=comment,
        )
        return Table(file_io, root)

    @staticmethod
    def open(file_io: FileIO, root: str) -> Table:
        """The handle of an existing table; :class:`TableNotFoundError` if there is none."""
        if not metadata.list_schema_ids(file_io, root):
            raise TableNotFoundError("no schema files: not a Paimon table", path=root)
        return Table(file_io, root)

    def schema(self) -> TableSchema:
        return metadata.read_latest_schema(self.file_io, self.root)

    def latest_snapshot(self) -> Snapshot | None:
        return metadata.read_latest_snapshot(self.file_io, self.root)

    def write(
        self,
        rows: Sequence[Row],
        kinds: Sequence[RowKind] | None = None,
        *,
        overwrite: bool = False,
    ) -> list[CommitMessage]:
        """Write data files for ``rows`` (with their row kinds, default all inserts) and return
        the commit messages; nothing is visible until :meth:`commit`. ``overwrite``: the
        messages are for an overwrite commit (``store.write`` rule 11). An object table is
        written only by ``reference.object_table.refresh_object_table``."""
        schema = self.schema()
        check_not_object_table(schema.options)
        return write_batch(
            self.file_io,
            self.root,
            schema,
            self.latest_snapshot(),
            rows,
            kinds,
            overwrite=overwrite,
        )

    def commit(
        self,
        messages: Sequence[CommitMessage],
        *,
        commit_user: str | None = None,
        identifier: int | None = None,
        overwrite: Mapping[str, Value] | None = None,
    ) -> list[Snapshot]:
        """Commit ``messages`` (``store.commit.commit``). Without a commit user a fresh one is
        used; without an identifier it is a batch commit (identifier ``Long.MAX_VALUE``, never
        skipped as already committed). With identifiers, a commit whose identifier is not
        larger than the user's last one is skipped (recovery after a failure)."""
        return store_commit.commit(
            self.file_io,
            self.root,
            messages,
            commit_user=commit_user or new_commit_user(),
            commit_identifier=(BATCH_COMMIT_IDENTIFIER if identifier is None else identifier),
            overwrite=overwrite,
        )

    def write_and_commit(
        self,
        rows: Sequence[Row],
        kinds: Sequence[RowKind] | None = None,
        *,
        overwrite: Mapping[str, Value] | None = None,
        commit_user: str | None = None,
        identifier: int | None = None,
    ) -> list[Snapshot]:
        """Write and commit one batch as Java's batch writer does: the written buckets are
        compacted before the commit (``store.compact``), so a commit makes an APPEND (or
        OVERWRITE) snapshot and then a COMPACT snapshot.

        Whatever fails, the caller learns what landed. When the APPEND landed and the COMPACT
        failed (another writer's commit took its files, or the store failed), a
        :class:`reference.errors.PartialCommitError` names the landed snapshot ids: the rows
        are committed (a table whose reads skip level 0, such as one with deletion vectors,
        shows them after its next compaction), and writing them again would duplicate them.
        For retries that need no inspection, give a ``commit_user`` and an ``identifier``
        (increasing per user, as Java's streaming writers do): a batch whose identifier the
        user already committed is skipped before anything is written, and ``[]`` returned
        (Java ``FileStoreCommitImpl.filterCommitted``). Other errors mean nothing landed."""
        if identifier is not None and commit_user is None:
            raise ValueError("a commit identifier needs the commit_user it belongs to")
        if (
            commit_user is not None
            and identifier is not None
            and store_commit.is_committed(self.file_io, self.root, commit_user, identifier)
        ):
            return []
        is_overwrite = overwrite is not None
        messages = compact_after_write(
            self.file_io,
            self.root,
            self.write(rows, kinds, overwrite=is_overwrite),
            overwrite=is_overwrite,
        )
        return self.commit(
            messages, commit_user=commit_user, identifier=identifier, overwrite=overwrite
        )

    def compact(
        self,
        full: bool = False,
        partition: Mapping[str, Value] | None = None,
        bucket: int | None = None,
    ) -> list[Snapshot]:
        """Compact the buckets of the latest snapshot (of ``partition``, a {column: value}
        spec, and ``bucket`` when given) and commit (``store.compact.compact_table``)."""
        keys = self.schema().partition_keys
        if partition is not None and set(partition) != set(keys):
            raise ValueError(f"partition {dict(partition)} does not name the keys {keys}")
        values = None if partition is None else tuple(partition[k] for k in keys)
        messages = compact_table(
            self.file_io, self.root, full=full, partition=values, bucket=bucket
        )
        return self.commit(messages)

    def read(
        self,
        travel: TimeTravel = LATEST,
        predicate: Predicate | None = None,
        projection: Sequence[str] | None = None,
    ) -> ReadResult:
        """A batch read (``store.query.read_table``) of the latest snapshot or ``travel``."""
        return read_table(
            self.file_io, self.root, travel, predicate=predicate, projection=projection
        )

    # -- row-level changes (``reference.store.dml``) -------------------------------------------

    def delete(self, predicate: Predicate | None = None) -> list[Snapshot]:
        """``DELETE FROM t [WHERE predicate]``: truncate, drop partitions, copy-on-write or
        deletion vectors (``dml.delete_rows``)."""
        return dml.delete_rows(self.file_io, self.root, predicate)

    def update(self, predicate: Predicate | None, assignments: dml.Assignments) -> list[Snapshot]:
        """``UPDATE t SET column = f(old row) ... [WHERE predicate]`` (``dml.update_rows``)."""
        return dml.update_rows(self.file_io, self.root, predicate, assignments)

    def merge_into(self, statement: dml.MergeStatement) -> list[Snapshot]:
        """``MERGE INTO t USING source ON ... WHEN ...`` (``dml.merge_into``)."""
        return dml.merge_into(self.file_io, self.root, statement)

    def alter(self, changes: Sequence[SchemaChange]) -> TableSchema:
        return schema_changes.alter_table(self.file_io, self.root, changes)

    # -- changes and system tables (``reference.store.incremental``, ``stream``,
    # ``reference.system_tables``)

    def read_changes(
        self,
        options: Mapping[str, str],
        *,
        view: ChangeView = ChangeView.RAW,
        keep_retractions: bool = True,
    ) -> IncrementalResult:
        """An incremental read selected by ``options`` (``incremental-between`` and friends);
        ``view=MERGED, keep_retractions=False`` is what Java 0.9's batch read returns."""
        return read_changes(
            self.file_io, self.root, options, view=view, keep_retractions=keep_retractions
        )

    def stream(self, options: Mapping[str, str] | None = None) -> StreamReader:
        """A streaming read (``scan.mode``, ``consumer-id``, ... in ``options``)."""
        return StreamReader(self.file_io, self.root, options)

    def system_table(
        self,
        name: str,
        options: Mapping[str, str] | None = None,
        *,
        version: SystemTableVersion = SystemTableVersion.MAIN,
    ) -> SystemTableRows:
        """The rows of ``<table>$<name>`` (main's columns, or Paimon 0.9's)."""
        return read_system_table(self.file_io, self.root, name, options, version=version)

    # -- maintenance (``reference.store.expire``, ``tags``, ``branches``, ``consumers``,
    #    ``rollback``, ``orphans``) ------------------------------------------------------------

    def expire(self, *, now_millis: int | None = None) -> store_expire.ExpireResult:
        """Expire consumers, snapshots and changelogs by the table's own options."""
        return store_expire.expire(self.file_io, self.root, now_millis=now_millis)

    def create_tag(
        self,
        name: str,
        snapshot_id: int | None = None,
        *,
        time_retained_nanos: int | None = None,
    ) -> None:
        """Tag ``snapshot_id`` (default: the latest snapshot)."""
        tags.create_tag(
            self.file_io,
            self.root,
            name,
            snapshot_id=snapshot_id,
            time_retained_nanos=time_retained_nanos,
        )

    def delete_tag(self, name: str) -> list[str]:
        return tags.delete_tag(self.file_io, self.root, name)

    def create_branch(self, name: str, from_tag: str | None = None) -> None:
        branches.create_branch(self.file_io, self.root, name, from_tag=from_tag)

    def delete_branch(self, name: str) -> None:
        branches.delete_branch(self.file_io, self.root, name)

    def fast_forward(self, branch: str) -> None:
        branches.fast_forward(self.file_io, self.root, branch)

    def rollback_to(self, snapshot_id: int | None = None, *, tag: str | None = None) -> list[str]:
        """Roll back to a snapshot id or to a tag (exactly one)."""
        if (snapshot_id is None) == (tag is None):
            raise ValueError("give exactly one of snapshot_id and tag")
        if tag is not None:
            return rollback.rollback_to_tag(self.file_io, self.root, tag)
        return rollback.rollback_to_snapshot(self.file_io, self.root, snapshot_id or 0)

    def reset_consumer(self, consumer_id: str, next_snapshot: int) -> None:
        consumers.write_consumer(self.file_io, self.root, consumer_id, next_snapshot)

    def remove_orphan_files(
        self, *, older_than: dt.timedelta = orphans.DEFAULT_OLDER_THAN, dry_run: bool = False
    ) -> list[str]:
        """Delete (or with ``dry_run`` only list) files nothing uses, older than
        ``older_than``."""
        return orphans.remove_orphan_files(
            self.file_io, self.root, older_than=older_than, dry_run=dry_run
        )
