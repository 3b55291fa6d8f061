"""What the files of one LSM level look like, shared by the writer and both compactions: the
per-level file plans (format, compression, stats mode, name prefix and extension of data and
changelog files, Java ``KeyValueFileWriterFactory`` with ``file.format.per.level`` etc.), the
physical key-value layout of primary-key files (``_KEY_`` copies, ``_SEQUENCE_NUMBER``,
``_VALUE_KIND``, values; thin mode, Java ``KeyValueDataFileWriter`` and
``KeyValueThinSerializer``) and the first sequence number a writer gives a bucket's rows (Java
``MergeTreeWriter`` numbers after the bucket's ``maxSequenceNumber``).

This module imports no other write or compaction module, so :mod:`spark_impl.write`,
:mod:`spark_impl.compact` and :mod:`spark_impl.append_compact` all build on it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import pyarrow as pa

from reference.errors import InvalidOptionError
from reference.spec import data_file
from reference.spec import types as t
from reference.spec.file_format import parse_file_format, parse_format_write_options
from reference.spec.key_value import NO_SEQUENCE
from reference.spec.options import option_value
from reference.spec.schema import TableSchema
from spark_impl.file_index import compute_file_index_plan
from spark_impl.file_writer import FileSettings, KeyValueLayout, compute_stats_modes_with_default
from spark_impl.merge import KIND_COLUMN, SEQUENCE_COLUMN

SEQUENCE_STRIDE = 1 << 32
"""Sequence numbers reserved per task for input that was not shuffled by bucket."""


class FileKindPlan(NamedTuple):
    """Settings of one kind of file (data or changelog) and the parts of its names."""

    settings: FileSettings
    prefix: str
    extension: str


def per_level_values(options: Mapping[str, str], key: str) -> dict[int, str]:
    """A ``<level>:<value>,...`` option as ``{level: value}`` (levels must be integers)."""
    parsed: Mapping[str, str] = option_value(options, key) or {}
    levels = {text: text.strip() for text in parsed}
    bad = [text for text, stripped in levels.items() if not stripped.lstrip("-").isdigit()]
    if bad:
        raise InvalidOptionError(key, options[key], f"level {bad[0]!r} is not a number")
    return {int(levels[text]): value for text, value in parsed.items()}


@dataclass(frozen=True)
class KindChoice:
    """The options that pick one kind of file's format, codec, stats mode and name prefix."""

    format_name: str
    compression: str
    stats_mode: str
    prefix: str


def resolve_kind(
    schema: TableSchema, fields: Sequence[t.DataField], choice: KindChoice
) -> FileKindPlan:
    """Settings and naming of the files ``choice`` describes."""
    options = schema.options
    codec = choice.compression.strip().lower()
    base = parse_format_write_options(options)
    modes = compute_stats_modes_with_default(options, [f.name for f in fields], choice.stats_mode)
    fmt = parse_file_format(choice.format_name)
    target = schema.core_options.target_file_size(schema.is_primary_key_table)
    index = compute_file_index_plan(schema)
    settings = FileSettings(
        fmt, replace(base, compression=codec), tuple(fields), modes, target, index
    )
    with_codec = bool(option_value(options, "file.suffix.include.compression"))
    return FileKindPlan(
        settings,
        choice.prefix,
        data_file.compute_data_file_extension(
            fmt.value, choice.compression, suffix_include_compression=with_codec
        ),
    )


def compute_level_plans(
    schema: TableSchema, level: int
) -> tuple[FileKindPlan, FileKindPlan | None]:
    """Data and (``changelog-producer = input``) changelog file plans of one LSM level."""
    options, core = schema.options, schema.core_options
    at_level = {
        key: per_level_values(options, f"{key}.per.level").get(level)
        for key in ("file.format", "file.compression", "metadata.stats-mode")
    }
    stats_mode = at_level["metadata.stats-mode"] or core.stats_mode
    fields = compute_physical_fields(schema)
    data = resolve_kind(
        schema,
        fields,
        KindChoice(
            at_level["file.format"] or core.file_format,
            at_level["file.compression"] or core.file_compression,
            stats_mode,
            str(option_value(options, "data-file.prefix")),
        ),
    )
    changelog_choice = KindChoice(
        options.get("changelog-file.format", data.settings.fmt.value),
        options.get("changelog-file.compression", data.settings.write_options.compression),
        options.get("changelog-file.stats-mode") or stats_mode,
        str(option_value(options, "changelog-file.prefix")),
    )
    return data, resolve_kind(schema, fields, changelog_choice)


def compute_physical_fields(schema: TableSchema) -> list[t.DataField]:
    if not schema.is_primary_key_table:
        return list(schema.fields)
    key_fields = data_file.compute_key_fields(schema.fields, schema.trimmed_primary_keys)
    return data_file.compute_key_value_fields(
        key_fields, schema.fields, schema.core_options.data_file_thin_mode
    )


def compute_kv_layout(schema: TableSchema) -> KeyValueLayout:
    key_fields = data_file.compute_key_fields(schema.fields, schema.trimmed_primary_keys)
    thin = schema.core_options.data_file_thin_mode and data_file.is_thin_mode_supported(
        key_fields, schema.fields
    )
    names = schema.trimmed_primary_keys
    by_name = {f.name: f for f in schema.fields}
    value_start = 2 if thin else len(key_fields) + 2
    positions = [schema.field_names.index(n) for n in names]
    key_columns = (
        tuple(value_start + i for i in positions) if thin else tuple(range(len(key_fields)))
    )
    return KeyValueLayout(
        key_names=tuple(names),
        key_types=tuple(by_name[n].type for n in names),
        key_columns=key_columns,
        value_start=value_start,
        thin=thin,
    )


def compute_key_value_table(records: pa.Table, schema: TableSchema, kv: KeyValueLayout) -> pa.Table:
    """The physical rows of primary-key files: ``_KEY_`` copies, sequence, kind, values."""
    columns: list[pa.Array] = []
    names: list[str] = []
    if not kv.thin:
        for key in kv.key_names:
            columns.append(records.column(key))
            names.append(f"_KEY_{key}")
    columns += [records.column(SEQUENCE_COLUMN), records.column(KIND_COLUMN)]
    names += [data_file.SEQUENCE_NUMBER_FIELD.name, data_file.VALUE_KIND_FIELD.name]
    for data_field in schema.fields:
        columns.append(records.column(data_field.name))
        names.append(data_field.name)
    return pa.Table.from_arrays(columns, names=names)


def compute_first_sequence(max_sequence: int | None, task_id: int, *, stride_tasks: bool) -> int:
    """The first sequence number of a bucket's rows: one past the bucket's largest
    ``max_sequence_number`` in the base snapshot (``None``: no file, start at 0); input that
    was not shuffled by bucket may reach several tasks per bucket, so each task then starts
    ``task_id * SEQUENCE_STRIDE`` further."""
    base = (NO_SEQUENCE if max_sequence is None else max_sequence) + 1
    return base + (task_id * SEQUENCE_STRIDE if stride_tasks else 0)
