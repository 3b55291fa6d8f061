"""The columns of Paimon's system tables, declared once for both engines.

Each constant is one system table's columns as ``(name, DataType)`` pairs in Java's order
(the table's ``TABLE_TYPE`` row type), written as Paimon's SQL type text
(``reference.spec.types.parse_sql_type``; ``STRING`` is ``VARCHAR(2147483647)``). Where the
reference serves both Paimon 0.9 and main, the constant holds main's columns and
``*_0_9_COLUMNS`` the 0.9 prefix; the PySpark engine serves 0.9's. Names, types and
nullability are what the conformance tests accept against Java 0.9.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reference.spec import types as t
from reference.spec.manifest import LATEST_FIELD_SET, compute_deletion_vector_meta_type

Columns = tuple[tuple[str, t.DataType], ...]

STRING = t.VarCharType(t.MAX_LENGTH)
"""Java's ``STRING`` (``VARCHAR(2147483647)``)."""
DV_META_TYPE = compute_deletion_vector_meta_type(LATEST_FIELD_SET)
"""The row of one ``dv_ranges`` element (Java ``DeletionVectorMeta``)."""


def split_columns(text: str) -> list[str]:
    """The ``name TYPE`` items of ``text``: split at commas outside ``<>`` and ``()``."""
    items: list[str] = []
    depth = start = 0
    for index, char in enumerate(text):
        depth += (char in "<(") - (char in ">)")
        if char == "," and depth == 0:
            items.append(text[start:index].strip())
            start = index + 1
    items.append(text[start:].strip())
    return items


def parse_column_type(text: str, named: Mapping[str, t.DataType]) -> t.DataType:
    """An atomic SQL type (``reference.spec.types.parse_sql_type``), a type of ``named``, or
    ``ARRAY<...>`` of either (a nullable array)."""
    if text.startswith("ARRAY<") and text.endswith(">"):
        return t.ArrayType(parse_column_type(text[len("ARRAY<") : -1], named))
    return named[text] if text in named else t.parse_sql_type(text)


def parse_columns(text: str, **named: t.DataType) -> Columns:
    """``(name, DataType)`` pairs of a ``name TYPE, name TYPE, ...`` declaration, in order."""
    pairs = (item.split(" ", 1) for item in split_columns(text))
    return tuple((name, parse_column_type(type_text, named)) for name, type_text in pairs)


def column_names(columns: Sequence[tuple[str, t.DataType]]) -> tuple[str, ...]:
    return tuple(name for name, _ in columns)


SNAPSHOTS_COLUMNS: Columns = parse_columns(
    "snapshot_id BIGINT NOT NULL, schema_id BIGINT NOT NULL, commit_user STRING NOT NULL, "
    "commit_identifier BIGINT NOT NULL, commit_kind STRING NOT NULL, "
    "commit_time TIMESTAMP(3) NOT NULL, base_manifest_list STRING NOT NULL, "
    "delta_manifest_list STRING NOT NULL, changelog_manifest_list STRING, "
    "total_record_count BIGINT, delta_record_count BIGINT, changelog_record_count BIGINT, "
    "watermark BIGINT, next_row_id BIGINT, operation STRING, writer_version STRING"
)
"""Java ``SnapshotsTable`` (main); 0.9 has the first 13."""
SNAPSHOTS_0_9_COLUMNS: Columns = SNAPSHOTS_COLUMNS[:13]

SCHEMAS_COLUMNS: Columns = parse_columns(
    "schema_id BIGINT NOT NULL, fields STRING NOT NULL, partition_keys STRING NOT NULL, "
    "primary_keys STRING NOT NULL, options STRING NOT NULL, comment STRING, "
    "update_time TIMESTAMP(3) NOT NULL"
)
"""Java ``SchemasTable`` (0.9 and main)."""

OPTIONS_COLUMNS: Columns = parse_columns("key STRING NOT NULL, value STRING NOT NULL")
"""Java ``OptionsTable``; ``CatalogOptionsTable`` has the same columns."""

TAGS_COLUMNS: Columns = parse_columns(
    "tag_name STRING NOT NULL, snapshot_id BIGINT NOT NULL, schema_id BIGINT NOT NULL, "
    "commit_time TIMESTAMP(3) NOT NULL, record_count BIGINT, create_time TIMESTAMP(3), "
    "time_retained STRING"
)
"""Java ``TagsTable`` (0.9 and main)."""

BRANCHES_COLUMNS: Columns = parse_columns(
    "branch_name STRING NOT NULL, created_from_tag STRING, created_from_snapshot BIGINT, "
    "create_time TIMESTAMP(3) NOT NULL"
)
"""Java 0.9 ``BranchesTable``; main keeps ``BRANCHES_MAIN`` only."""
BRANCHES_MAIN = ("branch_name", "create_time")

CONSUMERS_COLUMNS: Columns = parse_columns(
    "consumer_id STRING NOT NULL, next_snapshot_id BIGINT NOT NULL"
)
"""Java ``ConsumersTable``."""

AGGREGATION_COLUMNS: Columns = parse_columns(
    "field_name STRING NOT NULL, field_type STRING NOT NULL, function STRING, "
    "function_options STRING, comment STRING"
)
"""Java ``AggregationFieldsTable``."""

STATISTICS_COLUMNS: Columns = parse_columns(
    "snapshot_id BIGINT NOT NULL, schema_id BIGINT NOT NULL, mergedRecordCount BIGINT, "
    "mergedRecordSize BIGINT, colstat STRING"
)
"""Java ``StatisticTable``."""

MANIFESTS_COLUMNS: Columns = parse_columns(
    "file_name STRING NOT NULL, file_size BIGINT NOT NULL, num_added_files BIGINT NOT NULL, "
    "num_deleted_files BIGINT NOT NULL, schema_id BIGINT NOT NULL, min_partition_stats STRING, "
    "max_partition_stats STRING, min_row_id BIGINT, max_row_id BIGINT"
)
"""Java ``ManifestsTable`` (main); 0.9 has the first 5."""
MANIFESTS_0_9_COLUMNS: Columns = MANIFESTS_COLUMNS[:5]

FILES_COLUMNS: Columns = parse_columns(
    "partition STRING, bucket INT NOT NULL, file_path STRING NOT NULL, "
    "file_format STRING NOT NULL, schema_id BIGINT NOT NULL, level INT NOT NULL, "
    "record_count BIGINT NOT NULL, file_size_in_bytes BIGINT NOT NULL, min_key STRING, "
    "max_key STRING, null_value_counts STRING NOT NULL, min_value_stats STRING NOT NULL, "
    "max_value_stats STRING NOT NULL, min_sequence_number BIGINT, max_sequence_number BIGINT, "
    "creation_time TIMESTAMP(3), deleteRowCount BIGINT, file_source STRING, first_row_id BIGINT, "
    "write_cols ARRAY<STRING>"
)
"""Java ``FilesTable`` (main); 0.9 has the first 16."""
FILES_0_9_COLUMNS: Columns = FILES_COLUMNS[:16]

PARTITIONS_COLUMNS: Columns = parse_columns(
    "partition STRING, record_count BIGINT NOT NULL, file_size_in_bytes BIGINT NOT NULL, "
    "file_count BIGINT NOT NULL, last_update_time TIMESTAMP(3), created_at TIMESTAMP(3), "
    "created_by STRING, updated_by STRING, options STRING, total_buckets INT, done BOOLEAN, "
    "deleted_record_count BIGINT"
)
"""Java ``PartitionsTable`` (main); 0.9 has the first 5."""
PARTITIONS_0_9_COLUMNS: Columns = PARTITIONS_COLUMNS[:5]

BUCKETS_COLUMNS: Columns = parse_columns(
    "partition STRING, bucket INT NOT NULL, record_count BIGINT NOT NULL, "
    "file_size_in_bytes BIGINT NOT NULL, file_count BIGINT NOT NULL, "
    "last_update_time TIMESTAMP(3)"
)
"""Java ``BucketsTable`` (main; 0.9 has none)."""

TABLE_INDEXES_COLUMNS: Columns = parse_columns(
    "partition STRING, bucket INT NOT NULL, index_type STRING NOT NULL, "
    "file_name STRING NOT NULL, file_size BIGINT NOT NULL, row_count BIGINT NOT NULL, "
    "dv_ranges ARRAY<DV_META>, row_range_start BIGINT, row_range_end BIGINT, index_field_id INT, "
    "index_field_name STRING",
    DV_META=DV_META_TYPE,
)
"""Java ``TableIndexesTable`` (main; 0.9 has none)."""

ALL_TABLE_OPTIONS_COLUMNS: Columns = parse_columns(
    "database_name STRING, table_name STRING, key STRING, value STRING"
)
"""Java ``AllTableOptionsTable``."""
