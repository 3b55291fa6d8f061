"""Merging records per key *keeping* row kinds and sequence numbers: the write buffer's flush and
compaction's rewrite (the read path's :func:`spark_impl.merge.merge_records` drops them).

Rules (as ``reference.store.write`` rule 5 and ``reference.store.compact`` rule 8, with the merge
engines' results of ``reference.merge``):

* Records are ordered by key, ``sequence.field`` values, sequence number (as for reads).
* A key with a single record keeps it unchanged, whatever its kind.
* ``deduplicate``: the last record (after dropping retractions under ``ignore-delete``; a key
  left with none yields nothing).
* ``first-row``: the first added record (a retraction is an error unless ``ignore-delete``).
* ``partial-update`` / ``aggregation``: the merged values with the newest record's sequence
  number, as an INSERT; as a DELETE when the key ends removed (partial-update: no added record,
  or a last removing -D; aggregation with ``aggregation.remove-record-on-delete``: a last -D),
  whose values are those the row was initialised from (the last -D, else the first record).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reference.spec.file_format import arrow_to_rows, rows_to_arrow
from reference.spec.options import MergeEngine
from spark_impl.merge import (
    DELETE,
    INSERT,
    KIND_COLUMN,
    ORDER_COLUMN,
    SEQUENCE_COLUMN,
    MergeConfig,
    Segments,
    _retract_error,
    any_where,
    compute_segment_starts,
    compute_segments,
    first_where,
    is_add_kind,
    kinds_of,
    last_where,
    merge_aggregation,
    merge_partial_update,
    sort_records,
)
from spark_impl.merge_slow import Record, merge_aggregation_key, merge_partial_update_key


@dataclass(frozen=True)
class Reduced:
    """``raw``: every record in merge order; ``merged``: one record per key (values,
    ``_SEQUENCE_NUMBER``, ``_VALUE_KIND``) in key order; ``ends``: for each merged record the
    position in ``raw`` of its key's last record."""

    raw: pa.Table
    merged: pa.Table
    ends: np.ndarray


def _columns(config: MergeConfig) -> list[str]:
    return [f.name for f in config.fields] + [SEQUENCE_COLUMN, KIND_COLUMN]


def _choose(mask: np.ndarray, when_true: pa.Table, when_false: pa.Table) -> pa.Table:
    """Row-wise ``mask ? when_true : when_false`` of two tables with the same columns."""
    if not mask.any():
        return when_false
    if mask.all():
        return when_true
    condition = pa.array(mask)
    columns = [
        pc.if_else(condition, when_true.column(name), when_false.column(name))
        for name in when_false.column_names
    ]
    return pa.Table.from_arrays(columns, names=when_false.column_names)


def _pick(ordered: pa.Table, positions: np.ndarray, config: MergeConfig) -> pa.Table:
    return ordered.select(_columns(config)).take(pa.array(positions, type=pa.int64()))


def _with_kind(values: pa.Table, sequence: pa.Array, kinds: np.ndarray) -> pa.Table:
    values = values.append_column(SEQUENCE_COLUMN, sequence)
    return values.append_column(KIND_COLUMN, pa.array(kinds.astype(np.int8)))


def _value_rows(
    ordered: pa.Table, segments: Segments, kinds: np.ndarray, config: MergeConfig
) -> tuple[pa.Table, np.ndarray]:
    """Merged values of every key (partial-update, aggregation) and whether each is removed."""
    if config.needs_slow_path:
        return _slow_value_rows(ordered, segments, kinds, config)
    if config.engine is MergeEngine.AGGREGATE:
        values = merge_aggregation(ordered, segments, kinds, config)
        return values, np.zeros(segments.count, dtype=bool)
    is_add = is_add_kind(kinds)
    removing = config.remove_record_on_delete and not config.ignore_delete
    last_delete = last_where(kinds == DELETE, segments) if removing else None
    kept = any_where(is_add, segments)
    if last_delete is not None:
        kept &= last_delete != segments.ends
    # merge_partial_update returns the kept keys only: spread them back over all keys.
    merged = merge_partial_update(ordered, segments, kinds, config)
    positions = np.cumsum(kept) - 1
    spread = merged.take(pa.array(np.where(kept, positions, 0))) if merged.num_rows else None
    base = (
        segments.starts
        if last_delete is None
        else np.where(last_delete >= 0, last_delete, segments.starts)
    )
    initial = ordered.select([f.name for f in config.fields]).take(pa.array(base))
    if spread is None:
        return initial, ~kept
    return _choose(kept, spread, initial), ~kept


def _slow_value_rows(
    ordered: pa.Table, segments: Segments, kinds: np.ndarray, config: MergeConfig
) -> tuple[pa.Table, np.ndarray]:
    """The slow paths, key by key; a removed key keeps the values it was initialised from."""

    by_engine = {MergeEngine.PARTIAL_UPDATE: merge_partial_update_key}
    merge_key = by_engine.get(config.engine, merge_aggregation_key)
    rows = arrow_to_rows(ordered.select([f.name for f in config.fields]), list(config.fields))
    kind_list = kinds.tolist()
    values: list[tuple[object, ...]] = []
    removed = np.zeros(segments.count, dtype=bool)
    for group, (start, end) in enumerate(
        zip(segments.starts.tolist(), segments.ends.tolist(), strict=True)
    ):
        records = [Record(kind_list[i], rows[i]) for i in range(start, end + 1)]
        result = merge_key(records, config)
        if result is None:
            removed[group] = True
            deletes = [i for i in range(start, end + 1) if kind_list[i] == DELETE]
            result = rows[deletes[-1]] if deletes else rows[start]
        values.append(result)
    return rows_to_arrow(values, list(config.fields)), removed


def reduce_sorted(
    ordered: pa.Table, config: MergeConfig, *, keep_lone: bool | np.ndarray = True
) -> tuple[pa.Table, np.ndarray]:
    """One record per key of a table in merge order; returns the records and, for each, the
    position of its key's last record. ``keep_lone=False``: partial-update and aggregation
    merge a key's single record too (Java's lookup compaction always calls the merge
    function, which makes it an INSERT) instead of keeping it unchanged; a boolean array
    (one per key): only the single records of the keys it marks stay unchanged (keys left
    with one record by ``reference.store.changelog`` rule 2 are still merged)."""
    names = _columns(config)
    if ordered.num_rows == 0:
        return ordered.select(names), np.zeros(0, dtype=np.int64)
    segments = compute_segments(compute_segment_starts(ordered, config.key_names), len(ordered))
    kinds = kinds_of(ordered)
    is_add = is_add_kind(kinds)
    single = segments.sizes == 1
    if config.engine is MergeEngine.DEDUPLICATE:
        usable = is_add if config.ignore_delete else np.ones(len(kinds), dtype=bool)
        chosen = last_where(usable, segments)
        chosen = np.where(single, segments.starts, chosen)
        kept = chosen >= 0
        return _pick(ordered, chosen[kept], config), segments.ends[kept]
    if config.engine is MergeEngine.FIRST_ROW:
        multi = ~single[segments.group_of]
        if (multi & ~is_add).any() and not config.ignore_delete:
            raise _retract_error("first-row", "'ignore-delete'")
        chosen = np.where(single, segments.starts, first_where(is_add, segments))
        kept = chosen >= 0
        return _pick(ordered, chosen[kept], config), segments.ends[kept]
    values, removed = _value_rows(ordered, segments, kinds, config)
    sequence = ordered.column(SEQUENCE_COLUMN).combine_chunks().take(pa.array(segments.ends))
    merged_kinds = np.where(removed, DELETE, INSERT)
    merged = _with_kind(values, sequence, merged_kinds)
    if keep_lone is False:
        return merged.select(names), segments.ends
    lone = single if keep_lone is True else single & np.asarray(keep_lone, dtype=bool)
    unchanged = _pick(ordered, segments.starts, config)
    return _choose(lone, unchanged, merged.select(names)), segments.ends


def reduce_records(table: pa.Table, config: MergeConfig) -> Reduced:
    """Sort ``table`` (values, sequence number, kind and an input-order column) into merge
    order and reduce it to one record per key."""
    if ORDER_COLUMN not in table.column_names:
        table = table.append_column(ORDER_COLUMN, pa.array(np.arange(table.num_rows)))
    ordered = sort_records(table, config)
    merged, ends = reduce_sorted(ordered, config)
    return Reduced(ordered.select(_columns(config)), merged, ends)
