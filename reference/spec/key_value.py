"""The key-value record of primary-key tables.

Spec: ``docs/concepts/spec/datafile.md`` (primary-key data files: ``_KEY_*`` columns, then
``_SEQUENCE_NUMBER``, ``_VALUE_KIND``, then the value columns).
Java: ``org.apache.paimon.KeyValue``.

A primary-key table stores every change as a ``KeyValue``: the primary key, the sequence number
the writer assigned (strictly increasing per bucket), the row kind, and the full value row (all
table fields, key fields included). Readers order records of one key by sequence number (or by
``sequence.field`` first) and hand them to the merge engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.spec.data import Row, RowKind

UNKNOWN_LEVEL = -1
"""Level of a record not read from a file (e.g. still in the write buffer)."""
WRITE_LEVEL = 0
"""The LSM level of every file a writer flushes (higher levels come from compaction)."""
NO_SEQUENCE = -1
"""The max sequence number of an empty bucket, so its first record gets 0 (Java
``DataFileMeta.getMaxSequenceNumber`` of no file)."""


@dataclass(frozen=True)
class KeyValue:
    """One change of one key. ``level`` is the LSM level of the file it was read from."""

    key: Row
    sequence_number: int
    kind: RowKind
    value: Row
    level: int = UNKNOWN_LEVEL

    @property
    def is_add(self) -> bool:
        return self.kind.is_add
