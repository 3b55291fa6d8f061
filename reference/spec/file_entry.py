"""File identity and the replay of manifest entries: the pure rules both engines plan with.

Spec: the seeds' "Snapshot, manifest and data files" (a snapshot's files are what its manifests'
ADD entries add and its DELETE entries have not removed since). Java:
``org.apache.paimon.manifest.FileEntry`` (``FileEntry.Identifier``, ``FileEntry.mergeEntries``).

Rules:

1. Two manifest entries name the same file when they agree on partition, bucket, level, file
   name, extra files, embedded index and external path (Java ``FileEntry.Identifier``); the
   kind (ADD / DELETE) is not part of the identity.
2. Replaying entries in manifest order: an ADD makes its file live; a DELETE removes the live
   file of the same identity. A DELETE whose file is not live was never added in the entries
   replayed (a spec violation when they are a snapshot's complete history). The live files keep
   the order their ADD entries came in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from reference.spec.manifest import FileKind, ManifestEntry

FileIdentifier = tuple[bytes, int, int, str, tuple[str, ...], bytes | None, str | None]
"""Partition, bucket, level, file name, extra files, embedded index, external path (rule 1)."""


def compute_file_identifier(entry: ManifestEntry) -> FileIdentifier:
    """Rule 1: what makes two entries name the same file (Java ``FileEntry.Identifier``)."""
    meta = entry.file
    return (
        entry.partition,
        entry.bucket,
        meta.level,
        meta.file_name,
        meta.extra_files,
        meta.embedded_index,
        meta.external_path,
    )


@dataclass(frozen=True)
class ReplayResult:
    """Live ADD entries in first-added order, and DELETE entries whose file was never added
    (a spec violation when replaying a snapshot's complete history)."""

    live: list[ManifestEntry]
    unmatched_deletes: list[ManifestEntry] = field(default_factory=list)


def compute_live_entries(entries: Iterable[ManifestEntry]) -> ReplayResult:
    """Rule 2: replay ADD and DELETE entries in order (Java ``FileEntry.mergeEntries`` over a
    snapshot's whole history)."""
    live: dict[FileIdentifier, ManifestEntry] = {}
    unmatched: list[ManifestEntry] = []
    for entry in entries:
        identifier = compute_file_identifier(entry)
        if entry.kind is FileKind.ADD:
            live[identifier] = entry
        elif identifier in live:
            del live[identifier]
        else:
            unmatched.append(entry)
    return ReplayResult(list(live.values()), unmatched)
