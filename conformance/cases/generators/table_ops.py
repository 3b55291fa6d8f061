"""Cases of table operations over time: schema evolution, time travel, tags, snapshot
expiration and system tables."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from conformance.cases.generators import (
    CaseSpec,
    Hand,
    alter,
    cols,
    compact,
    delete,
    expect_error,
    expire,
    family,
    ins,
    inserts,
    keyed_case,
    read,
    system_table,
    table_case,
    tag,
    upd,
    write,
)

DOC_SCHEMA = "docs/docs/concepts/spec/schema.md"
DOC_SNAPSHOT = "docs/docs/concepts/spec/snapshot.md"
DOC_TAGS = "docs/docs/maintenance/manage-tags.mdx"
DOC_SNAPSHOTS = "docs/docs/maintenance/manage-snapshots.mdx"
DOC_SYSTEM = "docs/docs/concepts/system-tables (Java 0.9: table/system/*)"
PK_KV = ("k INT NOT NULL", "v STRING")


case = keyed_case
"""Table-operation cases are :func:`keyed_case` tables."""


def add_column(name: str, type_sql: str, **position: Any) -> dict[str, Any]:
    return {"kind": "add_column", "name": name, "type": type_sql, **position}


# --------------------------------------------------------------------------------------------
# schema evolution
# --------------------------------------------------------------------------------------------


@family
def schema_evolution() -> Iterator[CaseSpec]:
    refs = [DOC_SCHEMA, "Java: SchemaManager", "Java: SchemaEvolutionUtil"]
    yield case(
        "schema-evolution/add_column",
        "an added column reads as null in rows written before it existed",
        refs,
        PK_KV,
        [
            inserts((1, "a"), (2, "b")),
            alter(add_column("c", "INT")),
            inserts((2, "b2", 20), (3, "c", 30)),
            read(Hand([ins(1, "a", None), ins(2, "b2", 20), ins(3, "c", 30)])),
        ],
    )
    yield case(
        "schema-evolution/add_column_positions",
        "columns added first and after another column take those positions",
        refs,
        PK_KV,
        [
            inserts((1, "a")),
            alter(add_column("first", "STRING", first=True), add_column("mid", "INT", after="k")),
            inserts(("f", 2, 22, "b")),
            read(Hand([ins(None, 1, None, "a"), ins("f", 2, 22, "b")])),
        ],
    )
    yield case(
        "schema-evolution/drop_column",
        "a dropped column disappears from reads of old and new rows",
        refs,
        ("k INT NOT NULL", "v STRING", "w INT"),
        [
            inserts((1, "a", 10)),
            alter({"kind": "drop_column", "name": "w"}),
            inserts((2, "b")),
            read(Hand([ins(1, "a"), ins(2, "b")])),
        ],
    )
    yield case(
        "schema-evolution/rename_column",
        "a renamed column keeps its values (columns are matched by field id)",
        refs,
        PK_KV,
        [
            inserts((1, "a")),
            alter({"kind": "rename_column", "name": "v", "new_name": "label"}),
            inserts((2, "b")),
            read(Hand([ins(1, "a"), ins(2, "b")])),
            read(Hand([ins("a"), ins("b")]), projection=("label",), order="multiset"),
        ],
    )
    yield case(
        "schema-evolution/drop_then_add_same_name",
        "a column dropped and re-added under the same name is a new column (old values gone)",
        refs,
        PK_KV,
        [
            inserts((1, "a")),
            alter({"kind": "drop_column", "name": "v"}),
            alter(add_column("v", "STRING")),
            inserts((2, "b")),
            read(Hand([ins(1, None), ins(2, "b")])),
        ],
    )
    yield case(
        "schema-evolution/widen_int_to_bigint",
        "INT widened to BIGINT reads old values unchanged",
        refs,
        ("k INT NOT NULL", "n INT"),
        [
            inserts((1, 2147483647), (2, -5)),
            alter({"kind": "update_column_type", "name": "n", "type": "BIGINT"}),
            inserts((3, 9007199254740993)),
            read(Hand([ins(1, 2147483647), ins(2, -5), ins(3, 9007199254740993)])),
        ],
    )
    yield case(
        "schema-evolution/float_to_double",
        "FLOAT widened to DOUBLE keeps each value's exact binary value",
        refs,
        ("k INT NOT NULL", "f FLOAT"),
        [
            inserts((1, 1.5), (2, -0.25)),
            alter({"kind": "update_column_type", "name": "f", "type": "DOUBLE"}),
            inserts((3, 0.1)),
            read(Hand([ins(1, 1.5), ins(2, -0.25), ins(3, 0.1)])),
        ],
    )
    yield case(
        "schema-evolution/int_to_string",
        "INT changed to STRING casts old values on read",
        refs,
        ("k INT NOT NULL", "n INT"),
        [
            inserts((1, 42), (2, -7)),
            alter({"kind": "update_column_type", "name": "n", "type": "STRING"}),
            inserts((3, "x")),
            read(),
        ],
    )
    yield case(
        "schema-evolution/decimal_widening",
        "DECIMAL(5, 2) widened to DECIMAL(10, 4) keeps values exactly",
        refs,
        ("k INT NOT NULL", "d DECIMAL(5, 2)"),
        [
            inserts((1, "123.45"), (2, "-0.01")),
            alter({"kind": "update_column_type", "name": "d", "type": "DECIMAL(10, 4)"}),
            inserts((3, "9.8765")),
            read(Hand([ins(1, "123.4500"), ins(2, "-0.0100"), ins(3, "9.8765")])),
        ],
    )
    yield case(
        "schema-evolution/move_column",
        "moving a column changes the column order of reads",
        refs,
        ("k INT NOT NULL", "a STRING", "b INT"),
        [
            inserts((1, "x", 10)),
            alter({"kind": "update_column_position", "name": "b", "first": True}),
            read(Hand([ins(10, 1, "x")])),
        ],
    )
    yield case(
        "schema-evolution/make_nullable",
        "a NOT NULL value column can become nullable",
        refs,
        ("k INT NOT NULL", "v STRING NOT NULL"),
        [
            inserts((1, "a")),
            alter({"kind": "update_column_nullability", "name": "v", "nullable": True}),
            inserts((2, None)),
            read(Hand([ins(1, "a"), ins(2, None)])),
        ],
    )
    yield case(
        "schema-evolution/with_compaction",
        "compaction rewrites old-schema files into the new schema",
        refs,
        ("k INT NOT NULL", "v STRING", "n INT"),
        [
            inserts((1, "a", 1), (2, "b", 2)),
            alter(
                add_column("extra", "DOUBLE"),
                {"kind": "rename_column", "name": "n", "new_name": "m"},
            ),
            write([upd(2, "b2", 22, 2.5)]),
            compact(),
            read(Hand([ins(1, "a", 1, None), ins(2, "b2", 22, 2.5)])),
        ],
    )
    yield case(
        "schema-evolution/append_table",
        "schema changes of an append table",
        refs,
        ("id INT", "v STRING"),
        [
            inserts((1, "a")),
            alter(
                add_column("w", "BIGINT"),
                {"kind": "rename_column", "name": "v", "new_name": "name"},
            ),
            inserts((2, "b", 5)),
            read(Hand([ins(1, "a", None), ins(2, "b", 5)]), order="multiset"),
        ],
        primary_keys=(),
    )
    yield case(
        "schema-evolution/reject_drop_primary_key",
        "dropping a primary-key column is refused",
        refs,
        PK_KV,
        [
            inserts((1, "a")),
            expect_error(alter({"kind": "drop_column", "name": "k"}), "INVALID_TABLE"),
            read(Hand([ins(1, "a")])),
        ],
    )
    yield case(
        "schema-evolution/reject_duplicate_name",
        "adding a column whose name exists is refused",
        refs,
        PK_KV,
        [
            expect_error(alter(add_column("v", "INT")), "INVALID_TABLE"),
            inserts((1, "a")),
            read(Hand([ins(1, "a")])),
        ],
    )


# --------------------------------------------------------------------------------------------
# time travel
# --------------------------------------------------------------------------------------------


@family
def time_travel() -> Iterator[CaseSpec]:
    refs = [DOC_SNAPSHOT, "Java: StaticFromSnapshotStartingScanner"]
    yield case(
        "time-travel/snapshot_ids",
        "reading snapshot N shows the table as of commit N",
        refs,
        PK_KV,
        [
            inserts((1, "a"), (2, "b")),
            write([upd(1, "a2"), ins(3, "c")]),
            write([delete(2, "b")]),
            read(Hand([ins(1, "a"), ins(2, "b")]), snapshot=1),
            read(Hand([ins(1, "a2"), ins(2, "b"), ins(3, "c")]), snapshot=2),
            read(Hand([ins(1, "a2"), ins(3, "c")]), snapshot=3),
            read(Hand([ins(1, "a2"), ins(3, "c")])),
        ],
    )
    yield case(
        "time-travel/timestamps",
        "reading at a time shows the latest snapshot committed at or before it",
        [DOC_SNAPSHOT, "Java: StaticFromTimestampStartingScanner"],
        PK_KV,
        [
            inserts((1, "a")),
            inserts((2, "b")),
            write([upd(1, "a3")]),
            read(Hand([ins(1, "a")]), timestamp_after_step=0),
            read(Hand([ins(1, "a"), ins(2, "b")]), timestamp_after_step=1),
            read(Hand([ins(1, "a3"), ins(2, "b")]), timestamp_after_step=2),
        ],
    )
    yield case(
        "time-travel/timestamp_before_first_snapshot",
        "a time before the first snapshot is an error: no snapshot was committed at or before it "
        "(main; 0.9 reads the first snapshot)",
        [DOC_SNAPSHOT, "Java: StaticFromTimestampStartingScanner"],
        PK_KV,
        [inserts((1, "a")), expect_error(read(timestamp_millis=1000), "NOT_FOUND")],
        java=False,
    )
    yield case(
        "time-travel/missing_snapshot",
        "reading a snapshot id that does not exist is an error",
        refs,
        PK_KV,
        [inserts((1, "a")), expect_error(read(snapshot=7), "NOT_FOUND")],
    )
    yield case(
        "time-travel/old_schema",
        "an old snapshot reads in the schema it was committed with",
        [*refs, DOC_SCHEMA],
        PK_KV,
        [
            inserts((1, "a")),
            alter(add_column("c", "INT")),
            inserts((2, "b", 2)),
            read(Hand([ins(1, "a")]), snapshot=1),
            read(Hand([ins(1, "a", None), ins(2, "b", 2)]), snapshot=2),
        ],
    )
    yield case(
        "time-travel/after_compaction",
        "snapshots before a compaction stay readable and unchanged",
        refs,
        PK_KV,
        [
            inserts((1, "a"), (2, "b")),
            write([upd(2, "b2")]),
            compact(),
            read(Hand([ins(1, "a"), ins(2, "b")]), snapshot=1),
            read(Hand([ins(1, "a"), ins(2, "b2")]), snapshot=3),
        ],
    )
    yield case(
        "time-travel/append_table",
        "time travel on an append table",
        refs,
        ("id INT", "v STRING"),
        [
            inserts((1, "a")),
            inserts((2, "b")),
            read(Hand([ins(1, "a")]), snapshot=1, order="multiset"),
            read(Hand([ins(1, "a"), ins(2, "b")]), snapshot=2, order="multiset"),
        ],
        primary_keys=(),
    )
    yield case(
        "time-travel/projection_and_filter",
        "a time-travel read with a projection and a filter",
        refs,
        ("k INT NOT NULL", "v STRING", "n INT"),
        [
            inserts((1, "a", 1), (2, "b", 2), (3, "c", 3)),
            write([delete(1, "a", 1), upd(2, "b", 20)]),
            read(
                Hand([ins(2, 2), ins(3, 3)]),
                snapshot=1,
                projection=("n", "k"),
                filter={"op": "GREATER_THAN", "field": "k", "literals": [1]},
                order="multiset",
            ),
        ],
    )


# --------------------------------------------------------------------------------------------
# tags
# --------------------------------------------------------------------------------------------


@family
def tags() -> Iterator[CaseSpec]:
    refs = [DOC_TAGS, "Java: TagManager", "Java: StaticFromTagStartingScanner"]
    yield case(
        "tags/tag_snapshot",
        "a tag names a snapshot; reading the tag reads that snapshot",
        refs,
        PK_KV,
        [
            inserts((1, "a")),
            inserts((2, "b")),
            tag("first", 1),
            write([upd(1, "a2")]),
            read(Hand([ins(1, "a")]), tag="first"),
            read(Hand([ins(1, "a2"), ins(2, "b")])),
        ],
    )
    yield case(
        "tags/tag_latest",
        "a tag without a snapshot id names the latest snapshot",
        refs,
        PK_KV,
        [
            inserts((1, "a")),
            inserts((2, "b")),
            tag("now"),
            inserts((3, "c")),
            read(Hand([ins(1, "a"), ins(2, "b")]), tag="now"),
        ],
    )
    yield case(
        "tags/survives_expiration",
        "a tagged snapshot stays readable through the tag after the snapshot expires",
        [*refs, DOC_SNAPSHOTS],
        PK_KV,
        [
            inserts((1, "a"), (2, "b")),
            write([delete(2, "b")]),
            tag("keep", 1),
            inserts((3, "c")),
            inserts((4, "d")),
            expire(retain_max=1, retain_min=1),
            read(Hand([ins(1, "a"), ins(2, "b")]), tag="keep"),
            read(Hand([ins(1, "a"), ins(3, "c"), ins(4, "d")])),
        ],
    )
    yield case(
        "tags/missing_tag",
        "reading a tag that does not exist is an error",
        refs,
        PK_KV,
        [inserts((1, "a")), expect_error(read(tag="nope"), "NOT_FOUND")],
    )
    yield case(
        "tags/duplicate_name",
        "creating a tag whose name exists is refused",
        refs,
        PK_KV,
        [
            inserts((1, "a")),
            inserts((2, "b")),
            tag("t", 1),
            expect_error(tag("t", 2)),
            read(Hand([ins(1, "a")]), tag="t"),
        ],
    )
    yield case(
        "tags/tags_system_table",
        "the tags system table lists each tag with its snapshot",
        [*refs, DOC_SYSTEM, "Java: TagsTable"],
        PK_KV,
        [
            inserts((1, "a")),
            inserts((2, "b")),
            tag("a", 1),
            tag("b", 2),
            system_table(
                "tags",
                ["tag_name", "snapshot_id", "schema_id", "record_count"],
                Hand(
                    [ins("a", 1, 0, 1), ins("b", 2, 0, 2)],
                    types=["STRING NOT NULL", "BIGINT NOT NULL", "BIGINT NOT NULL", "BIGINT"],
                ),
            ),
        ],
    )


# --------------------------------------------------------------------------------------------
# expiration
# --------------------------------------------------------------------------------------------

SNAPSHOT_ID_TYPE = ["BIGINT NOT NULL"]


@family
def expiration() -> Iterator[CaseSpec]:
    refs = [DOC_SNAPSHOTS, "Java: ExpireSnapshotsImpl"]
    four_writes = [inserts((i, f"v{i}")) for i in range(1, 5)]
    latest = Hand([ins(i, f"v{i}") for i in range(1, 5)])
    yield case(
        "expiration/retain_max",
        "retain-max caps the snapshots kept even when all are newer than the retained time",
        refs,
        PK_KV,
        [
            *four_writes,
            expire(retain_max=2, retain_min=1, time_retained_millis=3_600_000),
            system_table(
                "snapshots", ["snapshot_id"], Hand([ins(3), ins(4)], types=SNAPSHOT_ID_TYPE)
            ),
            read(latest),
            read(Hand([ins(i, f"v{i}") for i in range(1, 4)]), snapshot=3),
        ],
    )
    yield case(
        "expiration/expired_snapshot_unreadable",
        "an expired snapshot can no longer be read",
        refs,
        PK_KV,
        [
            *four_writes,
            expire(retain_max=1, retain_min=1),
            expect_error(read(snapshot=1), "NOT_FOUND"),
            read(latest),
        ],
    )
    yield case(
        "expiration/retain_min",
        "snapshots older than the retained time expire down to retain-min",
        refs,
        PK_KV,
        [
            *four_writes,
            expire(retain_max=10, retain_min=3),
            system_table(
                "snapshots", ["snapshot_id"], Hand([ins(2), ins(3), ins(4)], types=SNAPSHOT_ID_TYPE)
            ),
        ],
    )
    yield case(
        "expiration/time_retained",
        "snapshots newer than the retained time are kept when retain-max allows them",
        refs,
        PK_KV,
        [
            *four_writes,
            expire(retain_max=10, retain_min=1, time_retained_millis=3_600_000),
            system_table(
                "snapshots",
                ["snapshot_id"],
                Hand([ins(i) for i in range(1, 5)], types=SNAPSHOT_ID_TYPE),
            ),
        ],
    )
    yield case(
        "expiration/updates_and_deletes",
        "expiring snapshots of a table with updates and deletes keeps the latest data intact",
        refs,
        PK_KV,
        [
            inserts((1, "a"), (2, "b"), (3, "c")),
            write([upd(1, "a2"), delete(2, "b")]),
            compact(),
            write([upd(3, "c3")]),
            expire(retain_max=1, retain_min=1),
            read(Hand([ins(1, "a2"), ins(3, "c3")])),
        ],
    )
    yield case(
        "expiration/append_table",
        "expiring snapshots of an append table keeps every live row",
        refs,
        ("id INT", "v STRING"),
        [
            inserts((1, "a")),
            inserts((2, "b")),
            inserts((3, "c")),
            expire(retain_max=1, retain_min=1),
            read(Hand([ins(1, "a"), ins(2, "b"), ins(3, "c")]), order="multiset"),
        ],
        primary_keys=(),
    )


# --------------------------------------------------------------------------------------------
# system tables
# --------------------------------------------------------------------------------------------


@family
def system_tables() -> Iterator[CaseSpec]:
    refs = [DOC_SYSTEM, "Java: SystemTableLoader"]
    history = [
        inserts((1, "a"), (2, "b")),
        write([upd(1, "a2"), delete(2, "b")]),
        compact(),
    ]
    yield case(
        "system-tables/snapshots",
        "the snapshots table: id, schema, kind and record counts of each snapshot",
        [*refs, "Java: SnapshotsTable"],
        PK_KV,
        [
            *history,
            system_table(
                "snapshots",
                [
                    "snapshot_id",
                    "schema_id",
                    "commit_kind",
                    "total_record_count",
                    "delta_record_count",
                ],
            ),
        ],
    )
    yield case(
        "system-tables/schemas",
        "the schemas table: one row per schema version with its keys",
        [*refs, "Java: SchemasTable"],
        ("k INT NOT NULL", "p INT NOT NULL", "v STRING"),
        [
            inserts((1, 1, "a")),
            alter(add_column("w", "INT")),
            system_table("schemas", ["schema_id", "partition_keys", "primary_keys"]),
        ],
        primary_keys=("k", "p"),
        partition_keys=("p",),
    )
    yield case(
        "system-tables/options",
        "the options table lists the table's options",
        [*refs, "Java: OptionsTable"],
        PK_KV,
        [
            alter({"kind": "set_option", "key": "snapshot.num-retained.max", "value": "20"}),
            system_table("options", ["key", "value"]),
        ],
        options={"bucket": "2", "file.format": "orc"},
    )
    yield case(
        "system-tables/files",
        "the files table: partition, bucket, format, level and row count of live files",
        [*refs, "Java: FilesTable"],
        ("p INT NOT NULL", "k INT NOT NULL", "v STRING"),
        [
            inserts((1, 1, "a"), (1, 2, "b"), (2, 1, "c")),
            inserts((1, 1, "a2")),
            system_table("files", ["partition", "bucket", "file_format", "level", "record_count"]),
        ],
        primary_keys=("p", "k"),
        partition_keys=("p",),
    )
    yield case(
        "system-tables/manifests",
        "the manifests table counts added and deleted files per manifest",
        [*refs, "Java: ManifestsTable"],
        PK_KV,
        [
            *history,
            system_table("manifests", ["num_added_files", "num_deleted_files", "schema_id"]),
        ],
    )
    yield case(
        "system-tables/audit_log",
        "the audit_log table shows every live row with its row kind as a column",
        [*refs, "Java: AuditLogTable"],
        PK_KV,
        [
            inserts((1, "a"), (2, "b")),
            write([upd(1, "a2")]),
            system_table("audit_log", ["rowkind", "k", "v"]),
        ],
    )
    yield case(
        "system-tables/snapshots_append",
        "the snapshots table of an append table with an overwrite",
        [*refs, "Java: SnapshotsTable"],
        ("id INT", "v STRING"),
        [
            inserts((1, "a")),
            write([ins(2, "b")], overwrite={}),
            system_table(
                "snapshots",
                ["snapshot_id", "commit_kind", "total_record_count", "delta_record_count"],
            ),
        ],
        primary_keys=(),
    )


# --------------------------------------------------------------------------------------------
# table validation
# --------------------------------------------------------------------------------------------


def refused(
    name: str, description: str, refs: Sequence[str], columns: Sequence[str], **table: Any
) -> CaseSpec:
    """A table definition that must be refused at creation."""
    return table_case(
        f"table-validation/{name}",
        description,
        [DOC_SCHEMA, "Java: SchemaValidation", *refs],
        columns,
        [],
        primary_keys=table.get("primary_keys", ()),
        partition_keys=table.get("partition_keys", ()),
        options=table.get("options", {}),
        create_error="INVALID_TABLE",
    )


@family
def table_validation() -> Iterator[CaseSpec]:
    yield refused(
        "bucket_zero",
        "a bucket count of 0 is refused",
        ["CoreOptions.BUCKET"],
        PK_KV,
        primary_keys=("k",),
        options={"bucket": "0"},
    )
    yield refused(
        "unknown_merge_engine",
        "an unknown merge engine is refused",
        ["CoreOptions.MERGE_ENGINE"],
        PK_KV,
        primary_keys=("k",),
        options={"merge-engine": "bogus"},
    )
    yield refused(
        "missing_sequence_field",
        "a sequence.field naming no column is refused",
        ["CoreOptions.SEQUENCE_FIELD"],
        PK_KV,
        primary_keys=("k",),
        options={"sequence.field": "nope"},
    )
    yield refused(
        "primary_key_not_a_column",
        "a primary key naming no column is refused",
        [],
        PK_KV,
        primary_keys=("nope",),
    )
    yield refused(
        "partition_key_not_a_column",
        "a partition key naming no column is refused",
        [],
        PK_KV,
        partition_keys=("nope",),
    )
    yield refused(
        "bucket_key_outside_primary_key",
        "a bucket-key that is not part of the primary key is refused",
        ["CoreOptions.BUCKET_KEY"],
        ("k INT NOT NULL", "v STRING", "w INT"),
        primary_keys=("k",),
        options={"bucket": "2", "bucket-key": "w"},
    )
    yield CaseSpec(
        id="table-validation/removed_count_aggregate",
        area="table-validation",
        description="the count aggregate function (documented by older releases) is unknown to "
        "0.9: the table is refused at creation or, as Java 0.9 does, at the first write",
        spec_refs=[DOC_SCHEMA, "docs/docs/primary-key-table/merge-engine/aggregation.mdx"],
        fields=cols("k INT NOT NULL", "v BIGINT"),
        primary_keys=("k",),
        options={"merge-engine": "aggregation", "fields.v.aggregate-function": "count"},
        steps=[inserts((1, 1))],
        create_error="INVALID_TABLE",
    )
    yield refused(
        "missing_rowkind_field",
        "a rowkind.field naming no column is refused",
        ["CoreOptions.ROWKIND_FIELD"],
        PK_KV,
        primary_keys=("k",),
        options={"rowkind.field": "nope"},
    )
