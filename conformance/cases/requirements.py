"""The engine capabilities a case needs, derived from its table and steps.

The generator writes this set into ``case.json`` (``requires``); a unit test checks that every
case's ``requires`` holds at least the derived set, so a hand-written case cannot forget one.
Defaults follow Paimon 0.9's ``CoreOptions`` (``bucket`` -1, ``file.format`` parquet,
``merge-engine`` deduplicate, ``changelog-producer`` none).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance.engines import base as b
from reference.spec import types as t

DEFAULT_BUCKET = -1
DEFAULT_FILE_FORMAT = "parquet"
DEFAULT_MERGE_ENGINE = "deduplicate"
NO_CHANGELOG = "none"
AGGREGATE_FUNCTION_SUFFIX = ".aggregate-function"
SEQUENCE_GROUP_SUFFIX = ".sequence-group"
DEFAULT_AGGREGATE_FUNCTION = "fields.default-aggregate-function"
FILE_INDEX_PREFIX = "file-index."
FORMAT_PER_LEVEL = "file.format.per.level"


def iter_type_roots(data_type: t.DataType) -> Iterable[t.TypeRoot]:
    """The roots of a type and of every type nested in it."""
    yield data_type.root
    if isinstance(data_type, (t.ArrayType, t.VectorType, t.MultisetType)):
        yield from iter_type_roots(data_type.element)
    elif isinstance(data_type, t.MapType):
        yield from iter_type_roots(data_type.key)
        yield from iter_type_roots(data_type.value)
    elif isinstance(data_type, t.RowType):
        for nested in data_type.fields:
            yield from iter_type_roots(nested.type)


def type_requirements(fields: Sequence[t.DataField]) -> set[str]:
    return {b.type_capability(root) for f in fields for root in iter_type_roots(f.type)}


def _is_true(options: Mapping[str, str], key: str) -> bool:
    return options.get(key, "false").strip().lower() == "true"


def bucket_requirements(
    options: Mapping[str, str], partition_keys: Sequence[str], primary_keys: Sequence[str]
) -> set[str]:
    """Fixed (> 0), dynamic (-1 with a key; cross-partition when the key misses a partition
    column) or unaware (-1 without a key) buckets, and ``bucket-key``."""
    needs = set()
    bucket = int(options.get("bucket", str(DEFAULT_BUCKET)))
    if bucket > 0:
        needs.add(b.CAP_BUCKET_FIXED)
    elif primary_keys:
        needs.add(b.CAP_BUCKET_DYNAMIC)
        if not set(partition_keys) <= set(primary_keys):
            needs.add(b.CAP_BUCKET_CROSS_PARTITION)
    else:
        needs.add(b.CAP_BUCKET_UNAWARE)
    if "bucket-key" in options:
        needs.add(b.CAP_BUCKET_KEY)
    return needs


def merge_requirements(options: Mapping[str, str]) -> set[str]:
    """The merge engine and aggregate functions in use. Unknown names (a case checking that
    they are refused) need nothing: every engine must refuse them."""
    needs = set()
    engine = options.get("merge-engine", DEFAULT_MERGE_ENGINE)
    if engine in b.MERGE_ENGINES:
        needs.add(b.merge_engine_capability(engine))
    for key, value in options.items():
        is_function = key.endswith(AGGREGATE_FUNCTION_SUFFIX) or key == DEFAULT_AGGREGATE_FUNCTION
        if is_function and value in b.AGGREGATE_FUNCTIONS:
            needs.add(b.aggregate_capability(value))
        if key.endswith(SEQUENCE_GROUP_SUFFIX):
            needs.add(b.CAP_SEQUENCE_GROUP)
    if "sequence.field" in options:
        needs.add(b.CAP_SEQUENCE_FIELD)
    if "rowkind.field" in options:
        needs.add(b.CAP_ROWKIND_FIELD)
    return needs


def format_requirements(options: Mapping[str, str]) -> set[str]:
    needs = {b.format_capability(options.get("file.format", DEFAULT_FILE_FORMAT).lower())}
    for entry in options.get(FORMAT_PER_LEVEL, "").split(","):
        if ":" in entry:
            needs.add(b.format_capability(entry.split(":", 1)[1].strip().lower()))
    return needs


def format_table_requirements(
    fields: Sequence[t.DataField], partition_keys: Sequence[str], options: Mapping[str, str]
) -> set[str]:
    """A format table: plain files of one format, no Paimon metadata (no buckets, keys or
    merge engine to ask for)."""
    file_format = options.get("file.format", DEFAULT_FILE_FORMAT).strip().lower()
    needs = type_requirements(fields) | {
        b.CAP_FORMAT_TABLE,
        b.format_table_capability(file_format),
    }
    if partition_keys:
        needs.add(b.CAP_PARTITION)
    return needs


def table_requirements(
    fields: Sequence[t.DataField],
    partition_keys: Sequence[str],
    primary_keys: Sequence[str],
    options: Mapping[str, str],
) -> set[str]:
    """What reading (and writing) a table of this shape needs."""
    if options.get("type", "").strip().lower() == b.CAP_FORMAT_TABLE:
        return format_table_requirements(fields, partition_keys, options)
    needs = type_requirements(fields) | format_requirements(options)
    needs.add(b.CAP_PRIMARY_KEY if primary_keys else b.CAP_APPEND)
    if partition_keys:
        needs.add(b.CAP_PARTITION)
    needs |= bucket_requirements(options, partition_keys, primary_keys)
    if primary_keys:
        needs |= merge_requirements(options)
    producer = options.get("changelog-producer", NO_CHANGELOG)
    if producer != NO_CHANGELOG:
        needs.add(b.changelog_capability(producer))
    if _is_true(options, "deletion-vectors.enabled"):
        needs.add(b.CAP_DELETION_VECTORS)
    for key in options:
        parts = key.split(".")
        if key.startswith(FILE_INDEX_PREFIX) and len(parts) == 3 and parts[2] == "columns":
            needs |= {b.CAP_FILE_INDEX, b.file_index_capability(parts[1])}
    return needs


def _alter_requirements(changes: Sequence[Mapping[str, Any]]) -> set[str]:
    needs = {b.CAP_ALTER}
    for change in changes:
        if "type" in change:
            data_type = t.parse_data_type(change["type"])
            needs |= {b.type_capability(root) for root in iter_type_roots(data_type)}
    return needs


def step_requirements(step: Mapping[str, Any]) -> set[str]:
    """What one step needs."""
    op = step["op"]
    if op == "expect_error":
        return step_requirements(step["step"])
    if op == "write":
        needs = {b.CAP_WRITE}
        if any(row[0] != "+I" for row in step["rows"]):
            needs.add(b.CAP_WRITE_ROW_KINDS)
        if step.get("overwrite") is not None:
            needs.add(b.CAP_OVERWRITE)
        return needs
    if op == "alter":
        return _alter_requirements(step["changes"])
    if op == "read":
        needs = {b.CAP_READ}
        if step.get("snapshot") is not None:
            needs.add(b.CAP_TRAVEL_SNAPSHOT)
        if step.get("tag") is not None:
            needs.add(b.CAP_TRAVEL_TAG)
        if step.get("timestamp_millis") is not None or step.get("timestamp_after_step") is not None:
            needs.add(b.CAP_TRAVEL_TIMESTAMP)
        if step.get("projection") is not None:
            needs.add(b.CAP_PROJECTION)
        if step.get("filter") is not None:
            needs.add(b.CAP_FILTER)
        return needs
    simple = {
        "compact": b.CAP_COMPACT,
        "tag": b.CAP_TAG,
        "expire": b.CAP_EXPIRE,
        "read_changes": b.CAP_READ_CHANGES,
        "create_view": b.CAP_VIEW,
        "drop_view": b.CAP_VIEW,
        "show_views": b.CAP_VIEW,
    }
    if op in simple:
        return {simple[op]}
    if op == "system_table":
        return {b.system_table_capability(step["name"])}
    raise ValueError(f"unknown step op {op!r}")


def compute_requires(
    fields: Sequence[t.DataField],
    partition_keys: Sequence[str],
    primary_keys: Sequence[str],
    options: Mapping[str, str],
    steps: Sequence[Mapping[str, Any]],
    *,
    creates_table: bool = True,
) -> frozenset[str]:
    """Every capability a case needs: its table's features, ``write`` if the engine creates
    the table, and each step's needs."""
    needs = table_requirements(fields, partition_keys, primary_keys, options)
    if creates_table:
        needs.add(b.CAP_WRITE)
    for step in steps:
        needs |= step_requirements(step)
    return frozenset(needs)
