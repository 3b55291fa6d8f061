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

from reference.spec.key_value import KeyValue


def is_skipped_record(kv: KeyValue, ignore_delete: bool) -> bool:
    """Whether ``ignore-delete`` makes the merge skip this record."""
    return ignore_delete and kv.kind.is_retract


def merge_deduplicate(records: Sequence[KeyValue], ignore_delete: bool = False) -> KeyValue | None:
    """The newest kept record of one key (records oldest first), or ``None`` if none is kept."""
    kept = [kv for kv in records if not is_skipped_record(kv, ignore_delete)]
    return kept[-1] if kept else None


class DeduplicateMergeFunction:
    """Incremental form (``reset``/``add``/``result``) of :func:`merge_deduplicate`."""

    def __init__(self, ignore_delete: bool = False) -> None:
        self.ignore_delete = ignore_delete
        self.latest: KeyValue | None = None

    def reset(self) -> None:
        self.latest = None

    def add(self, kv: KeyValue) -> None:
        if not is_skipped_record(kv, self.ignore_delete):
            self.latest = kv

    def result(self) -> KeyValue | None:
        return self.latest
