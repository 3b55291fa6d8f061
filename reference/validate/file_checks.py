"""Checks of each live data file that need only its metadata, its size and its footer.

Spec: ``docs/concepts/spec/datafile.md`` ("Partition", "Bucket", "Data File"), ``manifest.md``
("Data Manifest"). Java: ``io/DataFileMeta``, ``utils/FileStorePathFactory``,
``io/DataFilePathFactory``, ``KeyValue`` (primary-key file columns).

Rules checked here:

1. A live file exists where its entry's partition and bucket put it (a file of that name in
   another directory is reported as misplaced) and has the entry's ``_FILE_SIZE``.
2. Its ``_SCHEMA_ID`` names an existing schema.
3. Its footer lists the columns its layout requires: for a primary-key table ``_KEY_<k>`` for
   each trimmed primary key (none in thin mode), ``_SEQUENCE_NUMBER``, ``_VALUE_KIND`` and the
   value columns; for an append table the columns of its schema (or ``_WRITE_COLS``). Its
   footer row count is ``_ROW_COUNT``. A ``.blob`` file (``reference.spec.blob``) has no
   column names: its ``_WRITE_COLS`` must name one BLOB column of its schema, and its index
   must hold ``_ROW_COUNT`` entries (the deep checks decode every record and its CRC-32).
4. Its metadata agrees with itself: ``_MIN_SEQUENCE_NUMBER <= _MAX_SEQUENCE_NUMBER``,
   ``0 <= _DELETE_ROW_COUNT <= _ROW_COUNT``, ``_MIN_KEY <= _MAX_KEY`` and the key and value
   statistics have one column per key or statistics field.
5. Every file in ``_EXTRA_FILES`` exists beside it (they carry no size to compare).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import fastavro
import pyarrow.parquet as pq

from reference import layout
from reference.errors import PaimonFormatError, PaimonKitError, naming_file
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.blob import decode_blob_index, is_blob_file_type
from reference.spec.compare import compare_rows
from reference.spec.data_file import DataFileMeta
from reference.spec.file_format import (
    FileFormat,
    check_data_file_magic,
    compute_avro_record_schema,
    is_decoder_error,
    parse_file_format,
)
from reference.spec.orc_decoding import decode_orc_footer
from reference.spec.row_tracking import is_blob_file
from reference.spec.schema import TableSchema
from reference.store.read import compute_file_fields
from reference.store.scan import compute_stats_fields
from reference.validate import report as r
from reference.validate.guard import describe_error, run_check, run_read
from reference.validate.manifest_checks import LiveFile, read_file_size
from reference.validate.stats_checks import check_stats_arity

Listing = Callable[[], Mapping[str, Sequence[str]]]
"""Lazily lists the table: file name -> relative paths of every file with that name."""


@dataclass(frozen=True)
class DataFileFooter:
    """What a data file's footer says: its column names and its row count."""

    columns: tuple[str, ...]
    row_count: int


def _read_parquet_footer(source: Any) -> DataFileFooter:
    parquet_file = pq.ParquetFile(source)
    return DataFileFooter(
        tuple(parquet_file.schema_arrow.names), int(parquet_file.metadata.num_rows)
    )


def _read_orc_footer(source: Any) -> DataFileFooter:
    # Through the current ORC decoder: pyarrow's reader can crash on a garbled footer
    # (reference.spec.orc_decoding).
    footer = decode_orc_footer(bytes(source.read()))
    return DataFileFooter(footer.columns, footer.row_count)


def _read_avro_footer(source: Any) -> DataFileFooter:
    blocks = fastavro.block_reader(source)
    schema = compute_avro_record_schema(blocks.writer_schema)
    rows = sum(block.num_records for block in blocks)
    return DataFileFooter(tuple(f["name"] for f in schema["fields"]), rows)


FOOTER_READERS: Mapping[FileFormat, Callable[[Any], DataFileFooter]] = {
    FileFormat.PARQUET: _read_parquet_footer,
    FileFormat.ORC: _read_orc_footer,
    FileFormat.AVRO: _read_avro_footer,
}


def read_data_file_footer(file_io: FileIO, path: str) -> DataFileFooter:
    """Column names and row count of a data file (format from its name), checking magic first.
    Whatever the format library raises on bad bytes becomes a :class:`PaimonFormatError`. A
    ``.blob`` file names no columns; its row count is its index's (rule 3)."""
    with naming_file(path):
        if is_blob_file(path):
            return DataFileFooter((), len(decode_blob_index(file_io.read_bytes(path))))
        fmt = parse_file_format(layout.data_file_format(path))
        source = file_io.open_input(path)
        try:
            check_data_file_magic(source, fmt)
            source.seek(0)
            return FOOTER_READERS[fmt](source)
        except PaimonKitError:
            raise
        except Exception as error:
            if not is_decoder_error(error):
                raise
            reason = f"cannot read the {fmt.value} footer ({describe_error(error)})"
            raise PaimonFormatError(reason) from error
        finally:
            source.close()


# --------------------------------------------------------------------------------------------
# Rules 3 and 4
# --------------------------------------------------------------------------------------------


def compute_expected_columns(file_schema: TableSchema, meta: DataFileMeta) -> list[str]:
    """Rule 3: the columns the file must have."""
    if not file_schema.is_primary_key_table and meta.write_cols is not None:
        return list(meta.write_cols)
    return [f.name for f in compute_file_fields(file_schema)]


def check_footer(
    footer: DataFileFooter, file_schema: TableSchema, meta: DataFileMeta
) -> list[tuple[r.Rule, str]]:
    """Rule 3 against a footer."""
    found: list[tuple[r.Rule, str]] = []
    if is_blob_file(meta.file_name):
        missing = []
        types = {f.name: f.type for f in file_schema.fields}
        columns = list(meta.write_cols or ())
        held = types.get(columns[0]) if len(columns) == 1 else None
        if held is None or not is_blob_file_type(held):
            reason = f"a .blob file holds one BLOB column; _WRITE_COLS is {meta.write_cols}"
            found.append((r.Rule.DATA_FILE_COLUMNS, reason))
    else:
        expected = compute_expected_columns(file_schema, meta)
        missing = [c for c in expected if c not in footer.columns]
    if missing:
        found.append(
            (r.Rule.DATA_FILE_COLUMNS, f"lacks column(s) {missing}; has {list(footer.columns)}")
        )
    if footer.row_count != meta.row_count:
        found.append(
            (
                r.Rule.DATA_FILE_ROW_COUNT,
                f"holds {footer.row_count} rows, _ROW_COUNT says {meta.row_count}",
            )
        )
    return found


def compute_key_fields(file_schema: TableSchema) -> list[t.DataField]:
    """The fields the key statistics and ``_MIN_KEY``/``_MAX_KEY`` cover."""
    return list(file_schema.trimmed_primary_keys_type.fields)


def check_meta_consistency(meta: DataFileMeta, file_schema: TableSchema) -> list[str]:
    """Rule 4."""
    reasons: list[str] = []
    if meta.min_sequence_number > meta.max_sequence_number:
        reasons.append(
            f"_MIN_SEQUENCE_NUMBER {meta.min_sequence_number} > _MAX_SEQUENCE_NUMBER "
            f"{meta.max_sequence_number}"
        )
    if meta.delete_row_count is not None and not 0 <= meta.delete_row_count <= meta.row_count:
        reasons.append(
            f"_DELETE_ROW_COUNT {meta.delete_row_count} outside [0, _ROW_COUNT {meta.row_count}]"
        )
    key_fields = compute_key_fields(file_schema)
    if file_schema.is_primary_key_table:
        key_types = [f.type for f in key_fields]
        min_key = deserialize_binary_row(meta.min_key, key_types)
        max_key = deserialize_binary_row(meta.max_key, key_types)
        if meta.row_count > 0 and compare_rows(key_types, min_key, max_key) > 0:
            reasons.append(f"_MIN_KEY {min_key} > _MAX_KEY {max_key}")
        reasons += [f"key stats: {why}" for why in check_stats_arity(key_fields, meta.key_stats)]
    value_fields = compute_stats_fields(file_schema, meta)
    reasons += [f"value stats: {why}" for why in check_stats_arity(value_fields, meta.value_stats)]
    return reasons


# --------------------------------------------------------------------------------------------
# The checks of one file
# --------------------------------------------------------------------------------------------


def compute_listing(file_io: FileIO, table_root: str) -> dict[str, list[str]]:
    """File name -> relative paths of every file under the table root."""
    found: dict[str, list[str]] = {}
    for path in file_io.list_files_recursive(table_root):
        relative = r.relative_file(table_root, path)
        found.setdefault(posixpath.basename(relative), []).append(relative)
    return found


def _check_presence(
    file_io: FileIO, table_root: str, live_file: LiveFile, listing: Listing
) -> tuple[int | None, list[r.Violation]]:
    """Rule 1: the file's size, or None and why it is not there."""
    file = r.relative_file(table_root, live_file.path)
    size = read_file_size(file_io, live_file.path)
    if size is not None:
        return size, []
    elsewhere = [p for p in listing().get(live_file.entry.file.file_name, []) if p != file]
    if elsewhere:
        reason = f"not in its bucket directory; found at {', '.join(elsewhere)}"
        return None, [
            r.violation(r.Rule.DATA_FILE_WRONG_DIRECTORY, file, reason, live_file.snapshot_id)
        ]
    return None, [
        r.violation(r.Rule.DATA_FILE_MISSING, file, "no such file", live_file.snapshot_id)
    ]


def check_extra_files(file_io: FileIO, table_root: str, live_file: LiveFile) -> list[r.Violation]:
    """Rule 5."""
    directory = posixpath.dirname(live_file.path)
    found: list[r.Violation] = []
    for name in live_file.entry.file.extra_files:
        path = layout.join(directory, name)
        if not file_io.exists(path):
            found.append(
                r.violation(
                    r.Rule.EXTRA_FILE_MISSING,
                    r.relative_file(table_root, path),
                    f"listed in _EXTRA_FILES of {live_file.entry.file.file_name}",
                    live_file.snapshot_id,
                )
            )
    return found


def check_data_file(
    file_io: FileIO,
    table_root: str,
    live_file: LiveFile,
    schemas: Mapping[int, TableSchema],
    listing: Listing,
) -> tuple[bool, list[r.Violation]]:
    """Rules 1-5 for one live file: whether its contents can be checked, and the findings."""
    meta = live_file.entry.file
    snapshot_id = live_file.snapshot_id
    file = r.relative_file(table_root, live_file.path)
    size, found = _check_presence(file_io, table_root, live_file, listing)
    found += check_extra_files(file_io, table_root, live_file)
    if size is None:
        return False, found
    if size != meta.file_size:
        found.append(
            r.violation(
                r.Rule.DATA_FILE_SIZE_MISMATCH,
                file,
                f"{size} bytes, _FILE_SIZE says {meta.file_size}",
                snapshot_id,
            )
        )
    file_schema = schemas.get(meta.schema_id)
    if file_schema is None:
        found.append(
            r.violation(
                r.Rule.DATA_FILE_SCHEMA_MISSING,
                file,
                f"_SCHEMA_ID {meta.schema_id} has no schema file",
                snapshot_id,
            )
        )
        return False, found
    found += run_check(
        lambda: [
            r.violation(r.Rule.FILE_META_INVALID, file, reason, snapshot_id)
            for reason in check_meta_consistency(meta, file_schema)
        ],
        r.Rule.FILE_META_INVALID,
        file,
        snapshot_id,
    )
    footer, problems = run_read(
        partial(read_data_file_footer, file_io, live_file.path),
        r.Rule.DATA_FILE_UNREADABLE,
        file,
        snapshot_id,
    )
    found.extend(problems)
    if footer is None:
        return False, found
    footer_problems = [
        r.violation(rule, file, reason, snapshot_id)
        for rule, reason in check_footer(footer, file_schema, meta)
    ]
    found.extend(footer_problems)
    return not footer_problems, found
