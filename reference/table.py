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

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reference.errors import TableNotFoundError
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.commit_message import CommitMessage
from reference.spec.data import Row, RowKind, Value
from reference.spec.predicate import Predicate
from reference.spec.schema import SchemaChange, TableSchema
from reference.spec.snapshot import Snapshot
from reference.store import commit as store_commit
from reference.store import metadata, schema_changes
from reference.store.query import LATEST, ReadResult, TimeTravel, read_table
from reference.store.write import write_batch


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
        self, rows: Sequence[Row], kinds: Sequence[RowKind] | None = None
    ) -> list[CommitMessage]:
        """Write data files for ``rows`` (with their row kinds, default all inserts) and return
        the commit messages; nothing is visible until :meth:`commit`."""
        return write_batch(
            self.file_io, self.root, self.schema(), self.latest_snapshot(), rows, kinds
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
            commit_identifier=(
                store_commit.BATCH_COMMIT_IDENTIFIER if identifier is None else identifier
            ),
            overwrite=overwrite,
        )

    def write_and_commit(
        self,
        rows: Sequence[Row],
        kinds: Sequence[RowKind] | None = None,
        *,
        overwrite: Mapping[str, Value] | None = None,
    ) -> list[Snapshot]:
        return self.commit(self.write(rows, kinds), overwrite=overwrite)

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

    def alter(self, changes: Sequence[SchemaChange]) -> TableSchema:
        return schema_changes.alter_table(self.file_io, self.root, changes)
