"""The ``first-row`` merge engine: the oldest record of a key wins and later ones are dropped.

Spec: ``docs/primary-key-table/merge-engine/first-row`` and the seeds' "第一行" / "First Row"
sections. Java: ``org.apache.paimon.mergetree.compact.FirstRowMergeFunction`` (0.9.0 and main
merge alike; only the error text changed).

Rules:

* The result is the first added record in merge order.
* A retraction (-U/-D) is an error unless ``ignore-delete`` (legacy key
  ``first-row.ignore-delete``) is set, which skips it.
* ``sequence.field`` cannot be combined with this engine (checked when options are resolved).
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.errors import SpecViolation
from reference.merge.fold import MergeFold, fold_records
from reference.spec.key_value import KeyValue

RETRACT_REJECTED_ERROR = "MERGE_DELETE_REJECTED"


def _retract_rejected(kv: KeyValue) -> SpecViolation:
    return SpecViolation(
        f"first-row cannot accept a {kv.kind.short_string} record by default; configure "
        "'ignore-delete' to ignore DELETE/UPDATE_BEFORE records",
        code=RETRACT_REJECTED_ERROR,
    )


def apply_first_row(first: KeyValue | None, kv: KeyValue, ignore_delete: bool) -> KeyValue | None:
    """Fold one record into the kept first record; a retraction is skipped or rejected."""
    if kv.kind.is_retract:
        if not ignore_delete:
            raise _retract_rejected(kv)
        return first
    return kv if first is None else first


def _no_record(ignore_delete: bool) -> KeyValue | None:
    return None


def _kept_record(kept: KeyValue | None) -> KeyValue | None:
    return kept


FIRST_ROW_FOLD = MergeFold(_no_record, apply_first_row, _kept_record)


def merge_first_row(records: Sequence[KeyValue], ignore_delete: bool = False) -> KeyValue | None:
    """The first added record of one key (records oldest first), or ``None`` if there is none.

    Every retraction is checked, also one that follows the kept record.
    """
    return fold_records(records, FIRST_ROW_FOLD, ignore_delete)
