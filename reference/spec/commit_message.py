"""The commit message: what a writer of one partition and bucket hands to the committer.

Spec: the seeds' "Concurrency control" (two-phase commit: writers write files, then one commit
makes them visible). Java: ``table/sink/CommitMessageImpl``, ``io/DataIncrement``,
``io/CompactIncrement``, ``io/IndexIncrement``.

A writer never touches metadata. It writes data, changelog and index files, and describes them
in commit messages; the committer turns all messages of one commit into manifest entries, at
most two snapshots (an APPEND snapshot for the data increments, then a COMPACT snapshot for the
compaction increments), and the index manifest. The message is a pure record, so that every
engine (the reference writer, the PySpark tasks) can produce it and one committer commits it.
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.spec.data_file import DataFileMeta
from reference.spec.java_numbers import LONG_MAX
from reference.spec.manifest import IndexFileMeta

BATCH_COMMIT_IDENTIFIER = LONG_MAX
"""The identifier of a one-shot batch commit (Java ``BatchWriteBuilder.COMMIT_IDENTIFIER``,
``Long.MAX_VALUE``)."""


@dataclass(frozen=True)
class DataIncrement:
    """New files written by inserts/updates/deletes (Java ``DataIncrement``).

    ``deleted_files`` is used by overwrite-like writes that drop whole files without compaction.
    """

    new_files: tuple[DataFileMeta, ...] = ()
    deleted_files: tuple[DataFileMeta, ...] = ()
    changelog_files: tuple[DataFileMeta, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.new_files or self.deleted_files or self.changelog_files)


@dataclass(frozen=True)
class CompactIncrement:
    """Files a compaction read (``compact_before``) and wrote (``compact_after``), plus the
    changelog files it produced (lookup and full-compaction producers)."""

    compact_before: tuple[DataFileMeta, ...] = ()
    compact_after: tuple[DataFileMeta, ...] = ()
    changelog_files: tuple[DataFileMeta, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.compact_before or self.compact_after or self.changelog_files)


@dataclass(frozen=True)
class IndexIncrement:
    """Index files (HASH, DELETION_VECTORS) added and removed in this bucket."""

    new_index_files: tuple[IndexFileMeta, ...] = ()
    deleted_index_files: tuple[IndexFileMeta, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.new_index_files or self.deleted_index_files)


@dataclass(frozen=True)
class CommitMessage:
    """Everything one writer of one (partition, bucket) produced for one commit.

    ``partition`` is the serialized partition BinaryRow (as in manifest entries);
    ``total_buckets`` is the bucket count the writer used (``-1`` for dynamic and
    bucket-unaware tables), recorded in each manifest entry.
    """

    partition: bytes
    bucket: int
    total_buckets: int
    data: DataIncrement = DataIncrement()
    compaction: CompactIncrement = CompactIncrement()
    index: IndexIncrement = IndexIncrement()

    @property
    def is_empty(self) -> bool:
        return self.data.is_empty and self.compaction.is_empty and self.index.is_empty
