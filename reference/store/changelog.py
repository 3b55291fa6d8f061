"""Changelog made by compaction: the ``lookup`` and ``full-compaction`` producers, per key.

Spec: ``docs/primary-key-table/changelog-producer`` ("Lookup", "Full Compaction"), the seeds'
changelog-producer sections. Java (0.9.0): ``lookup/LookupStrategy``,
``mergetree/compact/LookupMergeFunction``, ``LookupChangelogMergeFunctionWrapper``,
``FirstRowMergeFunctionWrapper``, ``FullChangelogMergeFunctionWrapper``, ``ChangelogResult``,
``table/source/snapshot/FullCompactedStartingScanner`` and Flink's
``GlobalFullCompactionSinkWrite`` (``full-compaction.delta-commits``).

This module is pure: the records of one key in, the record to keep and the changelog out.
``reference.store.compact`` reads the files, calls these functions key by key and writes the
results. A record's ``level`` is the level of the file it was read from.

Rules:

1.  *Lookup strategy.* A table compacts through lookup when it has deletion vectors, the
    first-row engine, ``changelog-producer = lookup`` or ``force-lookup`` (Java
    ``CoreOptions.needLookup``). Only the lookup producer writes changelog.
2.  *Lookup merge* (every engine but first-row, whenever lookup is on; readers merge the same
    way): among a key's records read from levels above 0, only the newest (last in merge
    order) takes part in the merge; older upper-level records are left out, because the
    newest one already contains them (each lookup compaction merged the older value in).
3.  *Lookup changelog, per key* (only when the records include level-0 records). The
    *before* value is the newest upper-level record among the records; without one it is
    looked up in the levels above the compaction's output level (the first level, from low
    to high, whose files hold the key). The *after* value is the merge of the level-0
    records with the before record put at its place in sequence order. Then:
    no before (or a retracting one) and an adding after: ``+I after``; an adding before and a
    retracting after: ``-D before``; both adding: ``-U before``, ``+U after``, left out when
    ``changelog-producer.row-deduplicate`` is set and the two values are equal. Each change
    carries the sequence number of its record.
4.  *Deletion vectors.* With deletion vectors the looked-up record's row is marked deleted
    in its file (its position in file order). The looked-up value takes part in the merge
    only when the table needs it (a changelog, an engine other than deduplicate, or a
    sequence field; Java then persists values in its lookup files).
5.  *First row.* The first adding record of the key wins (retractions are skipped with
    ``ignore-delete``, else rejected). When none of the key's records is from an upper level
    and the key exists above the output level, the level-0 record is dropped; otherwise it is
    kept, and a winning level-0 record is a change of its own kind (``+I``).
6.  *Full compaction.* Only a compaction into the top level makes changelog; the key's record
    on the top level (at most one) is the previous full result. With one record only: a new
    adding key is ``+I``. With several, the merged result against the top record: none and an
    adding result: ``+I``; a top record and a retracting result: ``-D top``; both: ``-U top``
    and ``+U result`` (row-deduplicate drops equal pairs). A retracting result is not kept.
7.  *Full-compaction frequency* (``full-compaction.delta-commits``, documented as "full
    compaction will be constantly triggered after delta commits", 1 for the full-compaction
    producer): a commit with identifier ``i`` runs a full compaction of the buckets written
    since the last one when ``i % delta == 0``; a batch commit (identifier ``Long.MAX_VALUE``)
    always does. Paimon 0.9 implements this in its Flink sink only; the core writers (Java
    API, Spark) ignore the option, so a full compaction must be asked for explicitly.

Where Java would fail (a merge with no result while the key changes) the reference makes no
change instead; the writers never produce such input (they drop retractions that
``ignore-delete`` would skip).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reference.merge.engine import MergeSetup, merge, parse_merge_options
from reference.merge.first_row import apply_first_row
from reference.merge.sequence import compare_sequence
from reference.spec.data import Row, RowKind
from reference.spec.java_numbers import LONG_MAX as JAVA_LONG_MAX
from reference.spec.key_value import KeyValue
from reference.spec.options import (
    FORCE_LOOKUP_OPTION,
    ROW_DEDUPLICATE_OPTION,
    ChangelogProducer,
    MergeEngine,
    option_value,
)
from reference.spec.schema import TableSchema

# --------------------------------------------------------------------------------------------
# Lookup strategy (rule 1)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LookupStrategy:
    """Why a table compacts through lookup (Java ``LookupStrategy``)."""

    is_first_row: bool
    produce_changelog: bool
    deletion_vector: bool
    force_lookup: bool

    @property
    def need_lookup(self) -> bool:
        return (
            self.is_first_row
            or self.produce_changelog
            or self.deletion_vector
            or (self.force_lookup)
        )


def compute_lookup_strategy(schema: TableSchema) -> LookupStrategy:
    """Rule 1 for a primary-key table (an append table never looks up)."""
    core = schema.core_options
    is_pk = schema.is_primary_key_table
    return LookupStrategy(
        is_first_row=is_pk
        and parse_merge_options(schema.options).merge_engine is MergeEngine.FIRST_ROW,
        produce_changelog=is_pk and core.changelog_producer is ChangelogProducer.LOOKUP,
        deletion_vector=is_pk and core.deletion_vectors_enabled,
        force_lookup=is_pk and bool(option_value(schema.options, FORCE_LOOKUP_OPTION)),
    )


def is_lookup_merge(strategy: LookupStrategy) -> bool:
    """Rule 2 applies: lookup is on and the engine is not first-row (Java
    ``LookupMergeFunction.wrap`` leaves first-row alone)."""
    return strategy.need_lookup and not strategy.is_first_row


def is_row_deduplicate(schema: TableSchema) -> bool:
    return bool(option_value(schema.options, ROW_DEDUPLICATE_OPTION))


# --------------------------------------------------------------------------------------------
# Lookup merge (rule 2)
# --------------------------------------------------------------------------------------------


def compute_lookup_merge_candidates(records: Sequence[KeyValue]) -> list[KeyValue]:
    """Rule 2: the records of one key (merge order) without upper-level records older than
    the newest upper-level one."""
    newest_upper = next((kv for kv in reversed(records) if kv.level > 0), None)
    return [kv for kv in records if kv.level <= 0 or kv is newest_upper]


def merge_lookup(records: Sequence[KeyValue], setup: MergeSetup) -> KeyValue | None:
    """The merge of one key's records under rule 2 (Java ``LookupMergeFunction``)."""
    return merge(compute_lookup_merge_candidates(records), setup)


# --------------------------------------------------------------------------------------------
# Changelog records (rules 3 and 6)
# --------------------------------------------------------------------------------------------


def compute_change(kind: RowKind, record: KeyValue) -> KeyValue:
    """A changelog record: ``record``'s key, sequence number and value with ``kind``."""
    return KeyValue(record.key, record.sequence_number, kind, record.value)


def is_adding(record: KeyValue | None) -> bool:
    return record is not None and record.kind.is_add


def compute_insert_changes(after: KeyValue | None) -> tuple[KeyValue, ...]:
    """A new key: ``+I`` when it adds a row, else nothing."""
    if after is None or not after.kind.is_add:
        return ()
    return (compute_change(RowKind.INSERT, after),)


def compute_update_changes(
    before: KeyValue, after: KeyValue | None, row_deduplicate: bool
) -> tuple[KeyValue, ...]:
    """The changes from an adding ``before`` to ``after`` (rules 3 and 6)."""
    if after is None or not after.kind.is_add:
        return (compute_change(RowKind.DELETE, before),)
    if row_deduplicate and before.value == after.value:
        return ()
    return (
        compute_change(RowKind.UPDATE_BEFORE, before),
        compute_change(RowKind.UPDATE_AFTER, after),
    )


def compute_lookup_changes(
    before: KeyValue | None, after: KeyValue | None, row_deduplicate: bool
) -> tuple[KeyValue, ...]:
    """Rule 3's changes of one key."""
    if before is None or not before.kind.is_add:
        return compute_insert_changes(after)
    return compute_update_changes(before, after, row_deduplicate)


# --------------------------------------------------------------------------------------------
# One key through lookup (rules 3-5)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowLocation:
    """A row of a data file: the file's name and the row's position in file order."""

    file_name: str
    position: int


@dataclass(frozen=True)
class LookupHit:
    """A key found above the output level: its record (``None`` when the lookup keeps no
    values, rule 4) and where its row is."""

    record: KeyValue | None
    location: RowLocation


Lookup = Callable[[Row], LookupHit | None]
"""Finds a key in the levels above a compaction's output level."""


@dataclass(frozen=True)
class KeyResult:
    """What compaction makes of one key: the record to write (before dropping retractions),
    its changelog, and the rows it marks deleted."""

    result: KeyValue | None
    changelog: tuple[KeyValue, ...] = ()
    deletions: tuple[RowLocation, ...] = ()


def compare_sequence_order(left: KeyValue, right: KeyValue, setup: MergeSetup) -> int:
    """Sequence fields, then sequence number (the lookup wrapper's comparator)."""
    result = compare_sequence(left.value, right.value, setup.sequence)
    if result:
        return result
    return (left.sequence_number > right.sequence_number) - (
        left.sequence_number < right.sequence_number
    )


def insert_in_sequence(
    records: Sequence[KeyValue], before: KeyValue | None, setup: MergeSetup
) -> list[KeyValue]:
    """``records`` with ``before`` put ahead of the first record that follows it."""
    ordered: list[KeyValue] = []
    pending = before
    for record in records:
        if pending is not None and compare_sequence_order(pending, record, setup) < 0:
            ordered.append(pending)
            pending = None
        ordered.append(record)
    if pending is not None:
        ordered.append(pending)
    return ordered


def split_upper_records(records: Sequence[KeyValue]) -> tuple[KeyValue | None, list[KeyValue]]:
    """The newest upper-level record, and the level-0 records (merge order)."""
    upper = [kv for kv in records if kv.level > 0]
    return (upper[-1] if upper else None), [kv for kv in records if kv.level <= 0]


def merge_lookup_key(
    records: Sequence[KeyValue],
    lookup: Lookup,
    setup: MergeSetup,
    strategy: LookupStrategy,
    row_deduplicate: bool,
) -> KeyResult:
    """Rules 3 and 4 for one key (records in merge order; not for first-row)."""
    before, level_zero = split_upper_records(records)
    deletions: tuple[RowLocation, ...] = ()
    if before is None:
        hit = lookup(level_zero[0].key)
        if hit is not None:
            before = hit.record
            deletions = (hit.location,) if strategy.deletion_vector else ()
    after = merge_lookup(insert_in_sequence(level_zero, before, setup), setup)
    produces = bool(level_zero) and strategy.produce_changelog
    changelog = compute_lookup_changes(before, after, row_deduplicate) if produces else ()
    return KeyResult(after, changelog, deletions)


def merge_first_row_key(
    records: Sequence[KeyValue], contains: Callable[[Row], bool], ignore_delete: bool
) -> KeyResult:
    """Rule 5 for one key (records in merge order)."""
    first: KeyValue | None = None
    for record in records:
        first = apply_first_row(first, record, ignore_delete)
    has_upper = any(kv.level > 0 and kv.kind.is_add for kv in records)
    if has_upper or first is None:
        return KeyResult(first)
    if contains(first.key):
        return KeyResult(None)
    return KeyResult(first, (first,) if first.level <= 0 else ())


# --------------------------------------------------------------------------------------------
# One key through a full compaction (rule 6)
# --------------------------------------------------------------------------------------------


def compute_full_changes(
    top: KeyValue | None, merged: KeyValue | None, row_deduplicate: bool
) -> tuple[KeyValue, ...]:
    """Rule 6's changes of one key merged from several records."""
    if top is None:
        return compute_insert_changes(merged)
    return compute_update_changes(top, merged, row_deduplicate)


def merge_full_compaction_key(
    records: Sequence[KeyValue],
    max_level: int,
    merge_records: Callable[[Sequence[KeyValue]], KeyValue | None],
    row_deduplicate: bool,
) -> KeyResult:
    """Rule 6 for one key (records in merge order)."""
    top = next((kv for kv in records if kv.level == max_level), None)
    if len(records) == 1:
        [only] = records
        changes = compute_insert_changes(only) if top is None else ()
        return KeyResult(only if is_adding(only) else None, changes)
    merged = merge_records(records)
    changes = compute_full_changes(top, merged, row_deduplicate)
    return KeyResult(merged if is_adding(merged) else None, changes)


# --------------------------------------------------------------------------------------------
# Full-compaction frequency (rule 7)
# --------------------------------------------------------------------------------------------


def is_full_compaction_due(commit_identifier: int, delta_commits: int) -> bool:
    """Rule 7 (Java ``FullCompactedStartingScanner.isFullCompactedIdentifier``)."""
    return commit_identifier == JAVA_LONG_MAX or commit_identifier % delta_commits == 0


def compute_full_compaction_delta_commits(schema: TableSchema) -> int | None:
    """How many commits apart full compactions run (rule 7); ``None``: only when asked."""
    delta = schema.core_options.full_compaction_delta_commits
    if delta is not None:
        return max(delta, 1)
    if schema.core_options.changelog_producer is ChangelogProducer.FULL_COMPACTION:
        return 1
    return None
