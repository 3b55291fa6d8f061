"""The ``deduplicate`` merge engine (the default): the newest record of a key wins.

Spec: ``docs/primary-key-table/merge-engine`` "Deduplicate" and the seeds' "去重" sections.
Java: ``org.apache.paimon.mergetree.compact.DeduplicateMergeFunction`` (same in 0.9.0 and main).

Rule: the result is the last record in merge order, whatever its kind -- so when the newest
record is a DELETE the key is deleted (readers drop a retracting result). With ``ignore-delete``
retractions (-U/-D) are skipped as if never written (tables written by 0.7 and older may hold
them even though the writer was told to drop them); if nothing is left the merge yields nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.merge.fold import MergeFold, fold_records
from reference.spec.key_value import KeyValue


def is_skipped_record(kv: KeyValue, ignore_delete: bool) -> bool:
    """Whether ``ignore-delete`` makes the merge skip this record."""
    return ignore_delete and kv.kind.is_retract


def apply_deduplicate(
    latest: KeyValue | None, kv: KeyValue, ignore_delete: bool
) -> KeyValue | None:
    """Fold one record into the kept newest record: it replaces it unless it is skipped."""
    return latest if is_skipped_record(kv, ignore_delete) else kv


def _no_record(ignore_delete: bool) -> KeyValue | None:
    return None


def _kept_record(kept: KeyValue | None) -> KeyValue | None:
    return kept


DEDUPLICATE_FOLD = MergeFold(_no_record, apply_deduplicate, _kept_record)


def merge_deduplicate(records: Sequence[KeyValue], ignore_delete: bool = False) -> KeyValue | None:
    """The newest kept record of one key (records oldest first), or ``None`` if none is kept."""
    return fold_records(records, DEDUPLICATE_FOLD, ignore_delete)
