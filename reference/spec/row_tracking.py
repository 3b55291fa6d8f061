"""Row tracking and data evolution (Paimon 1.x append tables): row ids, and data files that hold
a subset of the columns, merged with the others by row id. Pure rules, no IO.

Spec: ``docs/docs/append-table/row-tracking.md`` and ``docs/docs/append-table/data-evolution.md``.
Java: ``table/SpecialFields``, ``io/DataFileMeta`` (``firstRowId``, ``writeCols``,
``nonNullRowIdRange``), ``operation/commit/RowTrackingCommitUtils``,
``operation/DataEvolutionSplitRead`` (``mergeRangesAndSort``, ``createUnionReader``) and
``reader/DataEvolutionFileReader``.

Rules:

1. Row ids (``row-tracking.enabled``). Every row of the table has a row id. The commit gives
   each new APPEND data file that has no ``_FIRST_ROW_ID`` (and no physical ``_ROW_ID`` column)
   the table's next row id, in entry order, and advances the snapshot's ``nextRowId`` by its row
   count; row ``i`` of that file has ``_ROW_ID = first_row_id + i``. A file written by a
   compaction gets no first row id: it keeps each row's id in a physical ``_ROW_ID`` column
   (and ``_SEQUENCE_NUMBER`` beside it); its ``_WRITE_COLS`` names them.
2. Column subsets (``data-evolution.enabled``). A data file holds the columns its
   ``_WRITE_COLS`` names (all the columns of its schema when absent), over the row id range
   ``[first_row_id, first_row_id + row_count - 1]``; a later file may rewrite some columns of
   rows already written by naming the same range.
3. Files whose row id ranges overlap form one group; the data files of a group must cover the
   same range. Within a group the data files are taken newest first (by max sequence number,
   ties in manifest order).
4. A row of a group takes each column (matched by field id through the file's own schema) from
   the first file of rule 3 that holds it; a column no file holds reads as null.
5. BLOB columns are stored in ``.blob`` files of their own (one column each) over parts of a
   group's range; they join the group their rows overlap, after its data files, and are read
   as :mod:`reference.spec.blob` rule 4 says (the bunch of one column covers the group).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reference.errors import SpecViolation
from reference.spec import types as t
from reference.spec.data_file import SEQUENCE_NUMBER_FIELD, DataFileMeta
from reference.spec.java_numbers import INT_MAX as JAVA_INT_MAX

ROW_TRACKING_OPTION = "row-tracking.enabled"
DATA_EVOLUTION_OPTION = "data-evolution.enabled"
INDEX_IN_DATA_DIR_OPTION = "index-file-in-data-file-dir"

ROW_ID_FIELD = t.DataField(JAVA_INT_MAX - 5, "_ROW_ID", t.BigIntType(nullable=False))
"""The row id system column (Java ``SpecialFields.ROW_ID``)."""
ROW_TRACKING_FIELDS = (ROW_ID_FIELD, SEQUENCE_NUMBER_FIELD)
"""The system columns a row-tracking compaction writes into its files."""

BLOB_FILE_SUFFIX = ".blob"
"""The extension of a file holding one BLOB column (Java ``BlobFileFormat``)."""

UNWRITTEN_OPTIONS = (INDEX_IN_DATA_DIR_OPTION, ROW_TRACKING_OPTION, DATA_EVOLUTION_OPTION)
"""Paimon 1.x layouts this kit reads but does not write: writers refuse a table that sets one
of them ``true`` (the commit would have to assign row ids, or place index files elsewhere)."""

RowIdRange = tuple[int, int]


def _is_true(options: Mapping[str, str], key: str) -> bool:
    return options.get(key, "false").strip().lower() == "true"


def is_row_tracking_enabled(options: Mapping[str, str]) -> bool:
    return _is_true(options, ROW_TRACKING_OPTION)


def is_data_evolution_enabled(options: Mapping[str, str]) -> bool:
    return _is_true(options, DATA_EVOLUTION_OPTION)


def find_unwritten_option(options: Mapping[str, str]) -> str | None:
    """The first option of :data:`UNWRITTEN_OPTIONS` the table sets ``true``, else None."""
    return next((key for key in UNWRITTEN_OPTIONS if _is_true(options, key)), None)


def is_blob_file(file_name: str) -> bool:
    return file_name.endswith(BLOB_FILE_SUFFIX)


def compute_row_id_range(meta: DataFileMeta) -> RowIdRange:
    """Rule 2: the inclusive row id range of a file (Java ``DataFileMeta.nonNullRowIdRange``)."""
    if meta.first_row_id is None:
        raise SpecViolation(
            f"{meta.file_name}: a data file of a data-evolution table has no first row id",
            code="FILE_META_INVALID",
        )
    return meta.first_row_id, meta.first_row_id + meta.row_count - 1


def compute_row_id_groups(files: Sequence[DataFileMeta]) -> list[list[DataFileMeta]]:
    """Rule 3: the files of one bucket grouped by overlapping row id ranges (groups in row id
    order), each group's data files newest first, then its ``.blob`` files (rule 5)."""
    ordered = sorted(files, key=lambda f: compute_row_id_range(f)[0])
    groups: list[list[DataFileMeta]] = []
    end = -1
    for meta in ordered:
        start, last = compute_row_id_range(meta)
        if groups and start <= end:
            groups[-1].append(meta)
            end = max(end, last)
        else:
            groups.append([meta])
            end = last
    for group in groups:
        blobs = [f for f in group if is_blob_file(f.file_name)]
        group[:] = [f for f in group if not is_blob_file(f.file_name)]
        ranges = {compute_row_id_range(f) for f in group}
        if not group:
            raise SpecViolation(
                f".blob files {[f.file_name for f in blobs]} have no data file over their rows",
                code="FILE_META_INVALID",
            )
        if len(ranges) != 1:
            raise SpecViolation(
                f"data files {[f.file_name for f in group]} overlap in row ids but do not "
                f"cover the same range ({sorted(ranges)})",
                code="FILE_META_INVALID",
            )
        group.sort(key=lambda f: f.max_sequence_number, reverse=True)
        group.extend(blobs)
    return groups


def compute_written_fields(
    meta: DataFileMeta, file_fields: Sequence[t.DataField]
) -> list[t.DataField]:
    """Rules 1-2: the columns a file holds, in ``_WRITE_COLS`` order: fields of ``file_fields``
    (the file's schema) or the row tracking columns ``_ROW_ID`` / ``_SEQUENCE_NUMBER`` a
    compaction writes; every field of the schema when ``_WRITE_COLS`` is absent (Java
    ``TableSchema.project(writeCols)`` over ``SpecialFields.rowTypeWithRowTracking``)."""
    if meta.write_cols is None:
        return list(file_fields)
    by_name = {f.name: f for f in (*file_fields, *ROW_TRACKING_FIELDS)}
    return [by_name[name] for name in meta.write_cols if name in by_name]


def compute_column_sources(
    written: Sequence[Sequence[t.DataField]], read_fields: Sequence[t.DataField]
) -> list[int | None]:
    """Rule 4: for each read field, the index (into ``written``, one entry per file of a group,
    newest first) of the file its value comes from; None when no file holds it."""
    sources: list[int | None] = []
    for field in read_fields:
        holders = (i for i, fields in enumerate(written) if any(f.id == field.id for f in fields))
        sources.append(next(holders, None))
    return sources
