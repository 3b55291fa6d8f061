"""Table surgery: edit a copy of a valid table on local disk so that it breaks one rule.

Each helper changes one thing and then repairs everything that merely *points* at it, so a
corruption case shows one violation rather than a cascade: rewriting a manifest updates the
``_FILE_SIZE`` of every manifest list that names it, rewriting a manifest list updates the
``…ManifestListSize`` of every snapshot and tag that names it, rewriting a data file updates the
``_FILE_SIZE`` of every entry of it.

Manifests are re-encoded with the reference codecs in the format and field set of the original
file (``reference.spec.manifest``), so only the edited record differs.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from reference import layout
from reference.io import LocalFileIO
from reference.spec import manifest as mf
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.data_file import DataFileMeta, MetaFileKind, parse_meta_file_name
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot
from reference.store import metadata, scan

SNAPSHOT_LIST_MEMBERS = ("baseManifestList", "deltaManifestList", "changelogManifestList")
JSON_INDENT = 2

FILE_IO = LocalFileIO()


def copy_table(source: Path, target: Path) -> None:
    shutil.copytree(source, target)


def relative(table: Path, path: Path) -> str:
    return path.relative_to(table).as_posix()


# --------------------------------------------------------------------------------------------
# Bytes and JSON
# --------------------------------------------------------------------------------------------


def truncate_file(path: Path, keep: float = 0.5) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def flip_byte(path: Path, offset: int, mask: int = 0xFF) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= mask
    path.write_bytes(bytes(data))


def read_json(path: Path) -> dict[str, Any]:
    members: dict[str, Any] = json.loads(path.read_text())
    return members


def write_json(path: Path, members: dict[str, Any]) -> None:
    path.write_text(json.dumps(members, indent=JSON_INDENT))


def edit_json(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    members = read_json(path)
    edit(members)
    write_json(path, members)


# --------------------------------------------------------------------------------------------
# Reading the table
# --------------------------------------------------------------------------------------------


def latest_snapshot(table: Path) -> Snapshot:
    snapshot = metadata.read_latest_snapshot(FILE_IO, str(table))
    if snapshot is None:
        raise ValueError(f"{table} has no snapshot")
    return snapshot


def latest_schema(table: Path) -> TableSchema:
    return metadata.read_latest_schema(FILE_IO, str(table))


def snapshot_path(table: Path, snapshot_id: int) -> Path:
    return table / layout.SNAPSHOT_DIR / f"{layout.SNAPSHOT_PREFIX}{snapshot_id}"


def manifest_path(table: Path, name: str) -> Path:
    return table / layout.MANIFEST_DIR / name


def meta_files(table: Path, kind: MetaFileKind) -> list[str]:
    """Names of the manifest directory's files of one kind, sorted."""
    names = []
    for name in sorted(os.listdir(table / layout.MANIFEST_DIR)):
        try:
            if parse_meta_file_name(name).kind is kind:
                names.append(name)
        except Exception:
            continue
    return names


def read_list(table: Path, name: str) -> list[mf.ManifestFileMeta]:
    data = manifest_path(table, name).read_bytes()
    return mf.decode_manifest_list(data, mf.detect_manifest_format(data))


def read_index_entries(table: Path, name: str) -> list[mf.IndexManifestEntry]:
    data = manifest_path(table, name).read_bytes()
    return mf.decode_index_manifest(data, mf.detect_manifest_format(data))


def read_entries(table: Path, name: str) -> list[mf.ManifestEntry]:
    data = manifest_path(table, name).read_bytes()
    return mf.decode_manifest_entries(data, mf.detect_manifest_format(data))


@dataclass(frozen=True)
class LiveRef:
    """A live file of the latest snapshot and its path relative to the table."""

    entry: mf.ManifestEntry
    path: str


def live_files(table: Path) -> list[LiveRef]:
    """The live data files of the latest snapshot, where they are."""
    snapshot = latest_snapshot(table)
    schema = latest_schema(table)
    root = str(table)
    entries = [
        e
        for m in scan.list_snapshot_manifests(FILE_IO, root, snapshot)
        for e in scan.read_manifest(FILE_IO, root, m.file_name)
    ]
    refs = []
    types = [f.type for f in schema.partition_type.fields]
    for entry in scan.compute_live_entries(entries).live:
        partition = deserialize_binary_row(entry.partition, types)
        directory = scan.compute_bucket_path(root, schema, partition, entry.bucket)
        path = layout.data_file_path(directory, entry.file.file_name)
        refs.append(LiveRef(entry, path[len(root) + 1 :]))
    return refs


def find_live(table: Path, predicate: Callable[[LiveRef], bool]) -> LiveRef:
    return next(ref for ref in live_files(table) if predicate(ref))


def manifests_of_snapshot(table: Path, snapshot: Snapshot) -> list[mf.ManifestFileMeta]:
    return [
        *read_list(table, snapshot.base_manifest_list),
        *read_list(table, snapshot.delta_manifest_list),
    ]


# --------------------------------------------------------------------------------------------
# Rewriting metadata, with sizes repaired
# --------------------------------------------------------------------------------------------


def _snapshot_and_tag_files(table: Path) -> list[Path]:
    files = sorted((table / layout.SNAPSHOT_DIR).glob(f"{layout.SNAPSHOT_PREFIX}*"))
    return files + sorted((table / layout.TAG_DIR).glob(f"{layout.TAG_PREFIX}*"))


def repair_list_size(table: Path, list_name: str) -> None:
    """Set ``<member>Size`` of every snapshot and tag naming ``list_name`` (Paimon 1.1+)."""
    size = manifest_path(table, list_name).stat().st_size
    for path in _snapshot_and_tag_files(table):
        members = read_json(path)
        changed = False
        for member in SNAPSHOT_LIST_MEMBERS:
            if members.get(member) == list_name and f"{member}Size" in members:
                members[f"{member}Size"] = size
                changed = True
        if changed:
            write_json(path, members)


R = TypeVar("R")


def rewrite_meta_file(
    table: Path,
    name: str,
    kind: MetaFileKind,
    codec: tuple[Callable[[bytes, Any], list[R]], Callable[..., bytes]],
    transform: Callable[[list[R]], list[R]],
) -> list[R]:
    """Decode a file of the manifest directory with ``codec`` (decode, encode), apply
    ``transform`` and write it back in its format and field set; returns the new records."""
    decode, encode = codec
    path = manifest_path(table, name)
    data = path.read_bytes()
    fmt = mf.detect_manifest_format(data)
    field_set = mf.detect_field_set(data, fmt, kind)
    records = transform(decode(data, fmt))
    path.write_bytes(encode(records, fmt, field_set=field_set))
    return records


def rewrite_manifest_list(
    table: Path,
    name: str,
    transform: Callable[[list[mf.ManifestFileMeta]], list[mf.ManifestFileMeta]],
    *,
    repair: bool = True,
) -> None:
    codec = (mf.decode_manifest_list, mf.encode_manifest_list)
    rewrite_meta_file(table, name, MetaFileKind.MANIFEST_LIST, codec, transform)
    if repair:
        repair_list_size(table, name)


def repair_manifest_size(table: Path, manifest_name: str) -> None:
    """Set ``_FILE_SIZE`` of ``manifest_name`` in every manifest list that lists it."""
    size = manifest_path(table, manifest_name).stat().st_size
    for list_name in meta_files(table, MetaFileKind.MANIFEST_LIST):
        metas = read_list(table, list_name)
        if any(m.file_name == manifest_name and m.file_size != size for m in metas):
            rewrite_manifest_list(
                table,
                list_name,
                lambda ms: [
                    replace(m, file_size=size) if m.file_name == manifest_name else m for m in ms
                ],
            )


def rewrite_manifest(
    table: Path,
    name: str,
    transform: Callable[[list[mf.ManifestEntry]], list[mf.ManifestEntry]],
    *,
    repair_counts: bool = False,
) -> None:
    """Re-encode a data manifest after ``transform``; sizes (and, if asked, the ADD/DELETE
    counts) in the manifest lists follow."""
    codec = (mf.decode_manifest_entries, mf.encode_manifest_entries)
    entries = rewrite_meta_file(table, name, MetaFileKind.MANIFEST, codec, transform)
    repair_manifest_size(table, name)
    if repair_counts:
        added = sum(e.kind is mf.FileKind.ADD for e in entries)
        deleted = len(entries) - added
        for list_name in meta_files(table, MetaFileKind.MANIFEST_LIST):
            if any(m.file_name == name for m in read_list(table, list_name)):
                rewrite_manifest_list(
                    table,
                    list_name,
                    lambda ms: [
                        replace(m, num_added_files=added, num_deleted_files=deleted)
                        if m.file_name == name
                        else m
                        for m in ms
                    ],
                )


def manifests_naming(table: Path, file_name: str) -> list[str]:
    return [
        name
        for name in meta_files(table, MetaFileKind.MANIFEST)
        if any(e.file.file_name == file_name for e in read_entries(table, name))
    ]


def edit_file_meta(
    table: Path, file_name: str, edit: Callable[[DataFileMeta], DataFileMeta]
) -> None:
    """Apply ``edit`` to the metadata of ``file_name`` in every entry of every manifest."""
    for name in manifests_naming(table, file_name):
        rewrite_manifest(
            table,
            name,
            lambda es: [
                replace(e, file=edit(e.file)) if e.file.file_name == file_name else e for e in es
            ],
        )


def edit_entry(
    table: Path, file_name: str, edit: Callable[[mf.ManifestEntry], mf.ManifestEntry]
) -> None:
    """Apply ``edit`` to every manifest entry of ``file_name``."""
    for name in manifests_naming(table, file_name):
        rewrite_manifest(
            table, name, lambda es: [edit(e) if e.file.file_name == file_name else e for e in es]
        )


def rewrite_index_manifest(
    table: Path,
    name: str,
    transform: Callable[[list[mf.IndexManifestEntry]], list[mf.IndexManifestEntry]],
) -> None:
    codec = (mf.decode_index_manifest, mf.encode_index_manifest)
    rewrite_meta_file(table, name, MetaFileKind.INDEX_MANIFEST, codec, transform)


def index_manifests(table: Path) -> list[str]:
    return meta_files(table, MetaFileKind.INDEX_MANIFEST)


def edit_index_entries(
    table: Path,
    index_file_name: str,
    edit: Callable[[mf.IndexManifestEntry], mf.IndexManifestEntry],
) -> None:
    """Apply ``edit`` to the entries of one index file in every index manifest."""
    for name in index_manifests(table):
        rewrite_index_manifest(
            table,
            name,
            lambda es: [edit(e) if e.index_file.file_name == index_file_name else e for e in es],
        )


# --------------------------------------------------------------------------------------------
# Rewriting data files
# --------------------------------------------------------------------------------------------


def rewrite_parquet(table: Path, ref: LiveRef, transform: Callable[[pa.Table], pa.Table]) -> None:
    """Rewrite one Parquet data file (schema and field ids kept) and repair its
    ``_FILE_SIZE`` everywhere."""
    path = table / ref.path
    data = pq.ParquetFile(path).read()
    pq.write_table(transform(data), path)
    size = path.stat().st_size
    edit_file_meta(table, ref.entry.file.file_name, lambda m: replace(m, file_size=size))


def replace_column(data: pa.Table, name: str, values: Sequence[Any]) -> pa.Table:
    index = data.schema.get_field_index(name)
    field = data.schema.field(index)
    return data.set_column(index, field, pa.array(values, type=field.type))
