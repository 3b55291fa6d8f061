"""What a streaming read of a table reads, decided from options and snapshots alone: the rules
the reference's stream (``reference.store.stream``) and spark_impl's (``spark_impl.stream``)
both follow. No IO: the callers read the snapshots.

Java: ``table/source/DataTableStreamScan`` (``tryFirstPlan``, ``createFollowUpScanner``),
``CoreOptions.needLookup`` / ``lookup/LookupStrategy``, ``snapshot/FullCompactedStartingScanner``,
``snapshot/CompactedStartingScanner``, the follow-up scanners (``DeltaFollowUpScanner``,
``InputChangelogFollowUpScanner``, ``CompactionChangelogFollowUpScanner``).

Rules:

1. A primary-key table *needs lookup* when its changelog producer is ``lookup``, or it has
   deletion vectors, the ``first-row`` merge engine or ``force-lookup``.
2. The first (full) read of a stream takes, when the table needs lookup, the levels above 0
   (level-0 files are not compacted yet; their changes come later from the compaction);
   otherwise, with the ``full-compaction`` producer, the top level only; otherwise all.
3. After the first read a stream follows the APPEND snapshots when the producer is ``none`` or
   ``input``, and the COMPACT snapshots (whose changelog the compaction wrote) when it is
   ``lookup`` or ``full-compaction``.
4. ``scan.mode = compacted-full`` starts at the newest COMPACT snapshot. With
   ``full-compaction.delta-commits`` set, or the ``full-compaction`` producer (then every
   commit), only a full compaction's snapshot counts: its commit identifier a multiple of the
   delta commits, or the batch identifier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from reference.spec.commit_message import BATCH_COMMIT_IDENTIFIER
from reference.spec.options import (
    FORCE_LOOKUP_OPTION,
    ChangelogProducer,
    MergeEngine,
    option_value,
)
from reference.spec.schema import TableSchema
from reference.spec.snapshot import CommitKind, Snapshot

LevelFilter = Callable[[int], bool]

_COMPACTION_PRODUCERS = frozenset({ChangelogProducer.LOOKUP, ChangelogProducer.FULL_COMPACTION})


def needs_lookup(schema: TableSchema) -> bool:
    """Rule 1 (Java ``CoreOptions.needLookup``), from ``schema``'s options."""
    core = schema.core_options
    return schema.is_primary_key_table and (
        core.changelog_producer is ChangelogProducer.LOOKUP
        or core.deletion_vectors_enabled
        or core.merge_engine is MergeEngine.FIRST_ROW
        or bool(option_value(schema.options, FORCE_LOOKUP_OPTION))
    )


def select_full_read_levels(
    looks_up: bool, producer: ChangelogProducer, top_level: int
) -> LevelFilter:
    """Rule 2 (Java ``DataTableStreamScan.tryFirstPlan``): the levels the first read takes."""
    if looks_up:
        return lambda level: level > 0
    if producer is ChangelogProducer.FULL_COMPACTION:
        return lambda level: level == top_level
    return lambda level: True


def is_follow_up_snapshot(commit_kind: CommitKind, producer: ChangelogProducer) -> bool:
    """Rule 3: whether the producer's follow-up scanner reads a snapshot of ``commit_kind``."""
    if producer in _COMPACTION_PRODUCERS:
        return commit_kind is CommitKind.COMPACT
    return commit_kind is CommitKind.APPEND


def select_compacted_start(
    newest_first: Iterable[Snapshot], delta_commits: int | None, producer: ChangelogProducer
) -> Snapshot | None:
    """Rule 4: the first snapshot of ``newest_first`` a ``compacted-full`` stream starts at
    (``None``: none is; the caller then starts at the latest). ``newest_first`` is read only
    as far as needed."""
    if delta_commits is None and producer is ChangelogProducer.FULL_COMPACTION:
        delta_commits = 1
    for snapshot in newest_first:
        if snapshot.commit_kind is not CommitKind.COMPACT:
            continue
        identifier = snapshot.commit_identifier
        if delta_commits is None or identifier == BATCH_COMMIT_IDENTIFIER:
            return snapshot
        if identifier % delta_commits == 0:
            return snapshot
    return None
