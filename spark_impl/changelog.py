"""Changelog made by spark_impl's compaction: the ``lookup`` and ``full-compaction`` producers,
vectorized over the key segments of a step's sorted records.

The rules are ``reference/store/changelog.py`` (numbered there; Java 0.9.0
``LookupChangelogMergeFunctionWrapper``, ``FirstRowMergeFunctionWrapper``,
``FullChangelogMergeFunctionWrapper``, ``ChangelogResult``); this is an independent
implementation that works on whole Arrow tables:

* *Lookup merge* (rule 2): among a key's records above level 0 only the newest takes part in
  the merge (compaction's and the readers').
* *Changes of one key* (rules 3 and 6), from a *before* record (or none) and the key's merged
  *after* record (or none): no adding before and an adding after: ``+I after``; an adding
  before and no adding after: ``-D before``; both adding: ``-U before``, ``+U after``, left out
  under ``changelog-producer.row-deduplicate`` when the two values are equal. Each change keeps
  the sequence number and values of its record; a key's changes are in that order and keys in
  key order.
* *Lookup* (rule 3): only keys with level-0 records change; the before record is the key's one
  record above level 0 among the merged records (the newest upper-level record of the step, or
  the one looked up above the output level).
* *First row* (rule 5): a key with no record above level 0 (and not found above the output
  level, such keys are gone before the merge) changes by its winning record, kind kept.
* *Full compaction* (rule 6): the before record is the key's record on the top level; a key
  with a single record changes only when it is not on the top level (``+I`` when it adds).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from reference.spec.data import RowKind
from reference.spec.file_format import arrow_to_rows
from reference.spec.options import FORCE_LOOKUP_OPTION, ChangelogProducer, MergeEngine, option_value
from reference.spec.schema import TableSchema
from spark_impl.merge import (
    KIND_COLUMN,
    ORDER_COLUMN,
    SEQUENCE_COLUMN,
    MergeConfig,
    Segments,
    any_where,
    compute_segment_starts,
    compute_segments,
    is_add_kind,
    kinds_of,
    last_where,
    sort_records,
)

INSERT = RowKind.INSERT.byte_value
UPDATE_BEFORE = RowKind.UPDATE_BEFORE.byte_value
UPDATE_AFTER = RowKind.UPDATE_AFTER.byte_value
DELETE = RowKind.DELETE.byte_value
BEFORE_SLOT, AFTER_SLOT = 0, 1
"""A key's ``-U`` / ``-D`` (from the before record) comes ahead of its ``+U`` / ``+I``."""


@dataclass(frozen=True)
class StepRecords:
    """A step's records in merge order, their key segments and level of each record."""

    records: pa.Table
    segments: Segments
    levels: np.ndarray


@dataclass(frozen=True)
class MergedRecords:
    """The merged record of the segments that kept one: ``table`` (values, sequence number,
    kind, in key order) and ``segment`` (the segment index of each of its rows)."""

    table: pa.Table
    segment: np.ndarray


@dataclass(frozen=True)
class ChangeSpec:
    """Per segment: the position of its before record (-1: none) and whether it changes."""

    before: np.ndarray
    produces: np.ndarray


def is_lookup_merge(schema: TableSchema) -> bool:
    """Rules 1 and 2: a primary-key table that compacts through lookup (deletion vectors,
    ``force-lookup``, the ``lookup`` producer) with an engine other than first-row (Java
    ``CoreOptions.needLookup``, ``LookupMergeFunction.wrap``)."""
    core = schema.core_options
    return (
        schema.is_primary_key_table
        and core.merge_engine is not MergeEngine.FIRST_ROW
        and (
            core.changelog_producer is ChangelogProducer.LOOKUP
            or core.deletion_vectors_enabled
            or bool(option_value(schema.options, FORCE_LOOKUP_OPTION))
        )
    )


def compute_lookup_candidates(levels: np.ndarray, segments: Segments) -> np.ndarray:
    """Rule 2 (Java ``LookupMergeFunction``), per record of a table in merge order: whether it
    takes part in its key's merge: level-0 records and the key's newest upper-level record
    (which already holds the older ones, each lookup compaction merged them in)."""
    newest_upper = last_where(levels > 0, segments)
    return np.asarray((levels <= 0) | (np.arange(len(levels)) == newest_upper[segments.group_of]))


def select_lookup_candidates(table: pa.Table, levels: np.ndarray, config: MergeConfig) -> pa.Table:
    """Rule 2 over the records of one bucket (any order; ``levels``: each record's file
    level), as readers of a table that compacts through lookup merge them."""
    level_column = "__level"
    if ORDER_COLUMN not in table.column_names:
        table = table.append_column(ORDER_COLUMN, pa.array(np.arange(table.num_rows)))
    ordered = sort_records(table.append_column(level_column, pa.array(levels)), config)
    starts = compute_segment_starts(ordered, config.key_names)
    segments = compute_segments(starts, ordered.num_rows)
    ordered_levels = np.asarray(ordered.column(level_column).to_numpy(), dtype=np.int64)
    keep = compute_lookup_candidates(ordered_levels, segments)
    return ordered.filter(pa.array(keep)).drop_columns([level_column])


def value_columns(config: MergeConfig) -> list[str]:
    return [f.name for f in config.fields] + [SEQUENCE_COLUMN, KIND_COLUMN]


def compute_merged_segments(segments: Segments, ends: np.ndarray) -> np.ndarray:
    """The segment of each merged record, from the position of its key's last record."""
    return np.asarray(np.searchsorted(segments.ends, ends), dtype=np.int64)


def compute_lookup_spec(step: StepRecords) -> ChangeSpec:
    """Rule 3: keys with level-0 records change; the before record is the one above level 0."""
    before = last_where(step.levels > 0, step.segments)
    return ChangeSpec(before, any_where(step.levels == 0, step.segments))


def compute_full_compaction_spec(step: StepRecords, top_level: int) -> ChangeSpec:
    """Rule 6: the before record is the top-level one; a lone top-level record is no change."""
    top = last_where(step.levels == top_level, step.segments)
    lone = step.segments.sizes == 1
    return ChangeSpec(np.where(lone, -1, top), ~(lone & (top >= 0)))


def with_kinds(table: pa.Table, kinds: np.ndarray) -> pa.Table:
    index = table.column_names.index(KIND_COLUMN)
    return table.set_column(index, KIND_COLUMN, pa.array(kinds.astype(np.int8), pa.int8()))


def compute_equal_values(before: pa.Table, after: pa.Table, config: MergeConfig) -> np.ndarray:
    """Row by row whether two tables hold the same values (``row-deduplicate``; compared as
    the reference's rows, so nulls, decimals and nested values compare exactly)."""
    fields = list(config.fields)
    left = arrow_to_rows(before, fields)
    right = arrow_to_rows(after, fields)
    return np.array([a == b for a, b in zip(left, right, strict=True)], dtype=bool)


def compute_change_rows(
    step: StepRecords,
    merged: MergedRecords,
    spec: ChangeSpec,
    config: MergeConfig,
    row_deduplicate: bool,
) -> pa.Table:
    """The changes of every segment (the rules of the module docstring), in key order."""
    count = step.segments.count
    names = value_columns(config)
    after = np.full(count, -1, dtype=np.int64)
    after[merged.segment] = np.arange(len(merged.segment))
    after_adds = np.zeros(count, dtype=bool)
    after_adds[merged.segment] = is_add_kind(kinds_of(merged.table))
    record_adds = is_add_kind(kinds_of(step.records))
    before_adds = (spec.before >= 0) & record_adds[np.maximum(spec.before, 0)]
    inserts = spec.produces & ~before_adds & after_adds
    deletes = spec.produces & before_adds & ~after_adds
    updates = spec.produces & before_adds & after_adds
    if row_deduplicate and updates.any():
        groups = np.flatnonzero(updates)
        same = compute_equal_values(
            step.records.take(pa.array(spec.before[groups])),
            merged.table.take(pa.array(after[groups])),
            config,
        )
        updates[groups[same]] = False
    olds = np.flatnonzero(deletes | updates)
    news = np.flatnonzero(inserts | updates)
    before_part = with_kinds(
        step.records.select(names).take(pa.array(spec.before[olds], pa.int64())),
        np.where(deletes[olds], DELETE, UPDATE_BEFORE),
    )
    after_part = with_kinds(
        merged.table.select(names).take(pa.array(after[news], pa.int64())),
        np.where(inserts[news], INSERT, UPDATE_AFTER),
    )
    return order_changes(before_part, olds, after_part, news)


def order_changes(
    before_part: pa.Table, olds: np.ndarray, after_part: pa.Table, news: np.ndarray
) -> pa.Table:
    """Both parts in key (segment) order, a key's before change ahead of its after change."""
    target = after_part.schema
    combined = pa.concat_tables([before_part.cast(target), after_part])
    slots = np.concatenate([olds * 2 + BEFORE_SLOT, news * 2 + AFTER_SLOT])
    return combined.take(pa.array(np.argsort(slots, kind="stable")))


def compute_first_row_changes(
    step: StepRecords, merged: MergedRecords, config: MergeConfig
) -> pa.Table:
    """Rule 5: the adding winners of keys without a record above level 0, kinds kept."""
    has_upper = any_where(step.levels > 0, step.segments)
    new_key = ~has_upper[merged.segment]
    adding = is_add_kind(kinds_of(merged.table))
    return merged.table.select(value_columns(config)).filter(pa.array(new_key & adding))
