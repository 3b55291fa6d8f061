"""Cases of format tables and of append-table compaction.

Format tables (``type = format-table``): CSV (the seed's example), Parquet and ORC files
inserted, read back, filtered, projected and overwritten (static and dynamic partitions).
Java 0.9 has none (hand-written expectations; ``reference.format_table`` gives the rules).

Append-table compaction: the batch writer's automatic compaction of fixed-bucket
tables (``compaction.max.file-num``, its default, ``write-only``), full compaction and its
three-file threshold, and the compaction job of bucket-unaware tables.

Expectations: rows are hand-written (compaction never changes them); snapshot kinds and file
counts of fixed-bucket tables are recorded from Java 0.9's writer, which compacts them the
same way (``BucketedAppendCompactManager``). Java 0.9's table write API refuses to compact a
bucket-unaware or ``write-only`` table ("NoopCompactManager does not support user triggered
compaction"; the unaware compaction coordinator runs only inside the Flink and Spark compact
actions), so the unaware case is written from the rules of ``reference.store.append_compact``
and Java's run of it is a listed known failure; the write-only case removes the option before
compacting.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from conformance.cases.generators import (
    ORACLE,
    CaseSpec,
    Hand,
    JsonValue,
    alter,
    compact,
    create_view,
    drop_view,
    expect_error,
    family,
    ins,
    inserts,
    leaf,
    read,
    show_views,
    system_table,
    write,
)
from conformance.cases.generators.storage import case

DOC_APPEND = "docs/docs/append-table/overview.md"
DOC_BUCKETED = "docs/docs/append-table/bucketed.md"
COLUMNS = ("id INT", "v STRING")
SNAPSHOT_COLUMNS = ["snapshot_id", "commit_kind"]
SNAPSHOT_TYPES = ["BIGINT NOT NULL", "STRING NOT NULL"]
FILE_COLUMNS = ["bucket", "record_count"]


def append_case(
    case_id: str,
    description: str,
    refs: Sequence[str],
    steps: Sequence[dict[str, object]],
    options: dict[str, str],
    *,
    java: bool = True,
) -> CaseSpec:
    """An append table ``id INT, v STRING``."""
    return case(
        case_id, description, [DOC_APPEND, *refs], COLUMNS, steps, options=options, java=java
    )


def single_row_writes(count: int) -> list[dict[str, object]]:
    """``count`` commits of one row each: ids 1..count, values "v1".."vN"."""
    return [inserts((i, f"v{i}")) for i in range(1, count + 1)]


def all_rows(count: int) -> Hand:
    """The rows of :func:`single_row_writes`."""
    return Hand([ins(i, f"v{i}") for i in range(1, count + 1)])


def snapshot_kinds(*kinds: str) -> Hand:
    rows: list[list[JsonValue]] = [ins(i, kind) for i, kind in enumerate(kinds, start=1)]
    return Hand(rows, types=SNAPSHOT_TYPES)


def compaction_outcome(
    count: int,
    then: Sequence[dict[str, object]] = (),
    snapshots: Hand | str = ORACLE,
    files: Hand | str = ORACLE,
) -> list[dict[str, object]]:
    """``count`` single-row writes and the ``then`` steps, then what compaction left: the
    snapshots' kinds, each file's bucket and row count, and the unchanged rows."""
    return [
        *single_row_writes(count),
        *then,
        system_table("snapshots", SNAPSHOT_COLUMNS, snapshots, order="ordered"),
        system_table("files", FILE_COLUMNS, files),
        read(all_rows(count)),
    ]


@family
def append_compaction() -> Iterator[CaseSpec]:
    fixed = {"bucket": "1", "bucket-key": "id"}
    yield append_case(
        "append/compaction_max_file_num",
        "a fixed-bucket batch writer compacts the bucket when it holds compaction.max.file-num "
        "files, committing the compaction right after its data",
        ["Java: BucketedAppendCompactManager", "Java: AppendOnlyWriter"],
        compaction_outcome(4),
        {**fixed, "compaction.max.file-num": "3"},
    )
    yield append_case(
        "append/compaction_default_fifth_file",
        "without compaction options a fixed-bucket table is compacted by the write that brings "
        "the bucket to five files; the next file stays alone",
        ["Java: BucketedAppendCompactManager", "Java: CoreOptions.COMPACTION_MAX_FILE_NUM"],
        compaction_outcome(6),
        fixed,
    )
    yield append_case(
        "append/full_compaction_needs_three_files",
        "a full compaction of a fixed bucket without deletion vectors rewrites nothing below "
        "three files and everything from three small files on",
        ["Java: BucketedAppendCompactManager.FullCompactTask"],
        [
            *single_row_writes(2),
            compact(full=True),
            system_table("files", FILE_COLUMNS),
            inserts((3, "v3")),
            compact(full=True),
            system_table("snapshots", SNAPSHOT_COLUMNS, order="ordered"),
            system_table("files", FILE_COLUMNS),
            read(all_rows(3)),
        ],
        fixed,
    )
    yield append_case(
        "append/compaction_write_only",
        "a write-only fixed-bucket table is never compacted by its writer; once the option is "
        "removed, an explicit compaction rewrites its files",
        ["Java: CoreOptions.WRITE_ONLY", "Java: AppendOnlyFileStoreWrite"],
        [
            *single_row_writes(3),
            system_table("files", FILE_COLUMNS),
            alter({"kind": "remove_option", "key": "write-only"}),
            compact(full=True),
            system_table("snapshots", SNAPSHOT_COLUMNS, order="ordered"),
            system_table("files", FILE_COLUMNS),
            read(all_rows(3)),
        ],
        {**fixed, "write-only": "true", "compaction.max.file-num": "2"},
    )
    yield append_case(
        "append/compaction_unaware_bins",
        "a compaction job of a bucket-unaware table packs small files into bins of "
        "compaction.max.file-num files and commits each bin rewritten as one file",
        ["Java: UnawareAppendTableCompactionCoordinator", "Java: UnawareAppendCompactionTask"],
        compaction_outcome(
            7,
            [compact(full=True)],
            snapshot_kinds(*["APPEND"] * 7, "COMPACT"),
            Hand([ins(0, 3), ins(0, 3), ins(0, 1)], types=["INT NOT NULL", "BIGINT NOT NULL"]),
        ),
        {"bucket": "-1", "compaction.max.file-num": "3"},
        java=False,
    )


# --------------------------------------------------------------------------------------------
# Format tables
# --------------------------------------------------------------------------------------------

DOC_FORMAT_TABLE = "docs/docs/concepts/table-types.md"
FORMAT_TABLE = {"type": "format-table"}


def format_case(
    case_id: str,
    description: str,
    refs: Sequence[str],
    columns: Sequence[str],
    steps: Sequence[dict[str, object]],
    *,
    options: dict[str, str],
    partition_keys: Sequence[str] = (),
) -> CaseSpec:
    """A format-table case; Java 0.9 has no format tables (its ``FormatTable`` is only a
    record the Hive catalog fills), so expectations are hand-written."""
    return case(
        case_id,
        description,
        [DOC_FORMAT_TABLE, *refs],
        columns,
        steps,
        partition_keys=partition_keys,
        options={**FORMAT_TABLE, **options},
        java=False,
    )


@family
def format_tables() -> Iterator[CaseSpec]:
    csv_rows = [(1, "x,y"), (2, 'say "hi"'), (3, None)]
    yield format_case(
        "format-table/csv_seed_table",
        "the seed's CSV format table (a INT, b STRING, field-delimiter ','): inserted rows, "
        "delimiters and quotes inside values and nulls read back, filtered and projected",
        ["Java: FormatTable", "Java: CsvFormatWriter", "Java: CsvParser"],
        ("a INT", "b STRING"),
        [
            inserts(*csv_rows),
            inserts((4, "d")),
            read(Hand([ins(*r) for r in [*csv_rows, (4, "d")]]), order="multiset"),
            read(
                Hand([ins(3, None), ins(4, "d")]),
                filter=leaf("GREATER_THAN", "a", 2),
                order="multiset",
            ),
            read(Hand([ins("x,y"), ins('say "hi"'), ins(None), ins("d")]), projection=["b"]),
        ],
        options={"file.format": "csv", "field-delimiter": ","},
    )
    first = [("2024-01-01", 1, "a"), ("2024-01-02", 2, "b"), ("2024-01-01", 3, "c")]
    yield format_case(
        "format-table/parquet_partitioned",
        "a partitioned Parquet format table keeps rows per key=value directory, prunes by "
        "partition and overwrites a static partition only",
        ["Java: FormatTableScan", "Java: FormatTableCommit", "Java: PartitionPathUtils"],
        ("dt STRING", "id INT", "v STRING"),
        [
            inserts(*first),
            read(
                Hand([ins("2024-01-02", 2, "b")]),
                filter=leaf("EQUAL", "dt", "2024-01-02"),
                order="multiset",
            ),
            write([ins("2024-01-01", 9, "n")], overwrite={"dt": "2024-01-01"}),
            read(Hand([ins("2024-01-01", 9, "n"), ins("2024-01-02", 2, "b")]), order="multiset"),
        ],
        options={"file.format": "parquet"},
        partition_keys=("dt",),
    )
    yield format_case(
        "format-table/orc_dynamic_overwrite",
        "an overwrite of a partitioned ORC format table replaces only the partitions it "
        "writes (dynamic-partition-overwrite)",
        ["Java: FormatTableCommit", "Java: CoreOptions.DYNAMIC_PARTITION_OVERWRITE"],
        ("p INT", "id INT"),
        [
            inserts((1, 10), (2, 20), (2, 21)),
            write([ins(2, 22)], overwrite={}),
            read(Hand([ins(1, 10), ins(2, 22)]), order="multiset"),
        ],
        options={"file.format": "orc"},
        partition_keys=("p",),
    )
    yield format_case(
        "format-table/csv_overwrite_unpartitioned",
        "an overwrite of an unpartitioned CSV format table (';' delimited) replaces every file",
        ["Java: FormatTableCommit", "Java: CsvOptions"],
        ("id INT", "v STRING"),
        [
            inserts((1, "a;b")),
            inserts((2, "c")),
            write([ins(3, "d")], overwrite={}),
            read(Hand([ins(3, "d")])),
        ],
        options={"file.format": "csv", "csv.field-delimiter": ";"},
    )


# --------------------------------------------------------------------------------------------
# Views
# --------------------------------------------------------------------------------------------

DOC_VIEWS = "docs/docs/concepts/views.md"


def view_row(name: str, query: str, comment: str | None, columns: str) -> list[JsonValue]:
    return ins(name, query, comment, columns)


@family
def views() -> Iterator[CaseSpec]:
    """Java 0.9 has no views (they came with 1.0's ``Catalog`` view methods); the seeds' rules
    (stored text, never run) give the expectations."""
    by_id = "SELECT id FROM t WHERE id > 1"
    everything = "SELECT * FROM t"
    yield append_case(
        "views/create_show_drop",
        "views in a JDBC catalog: created with their query text, comment and columns, listed, "
        "a taken name refused, dropped, and dropping a missing view refused",
        [DOC_VIEWS, "Java: JdbcCatalog", "Java: ViewSchema"],
        [
            inserts((1, "a"), (2, "b")),
            create_view("ids", by_id, comment="ids above one", columns=["id"]),
            create_view("all_rows", everything),
            show_views(
                Hand(
                    [
                        view_row("all_rows", everything, None, "id,v"),
                        view_row("ids", by_id, "ids above one", "id"),
                    ]
                )
            ),
            expect_error(create_view("ids", everything), "ALREADY_EXISTS"),
            drop_view("ids"),
            show_views(Hand([view_row("all_rows", everything, None, "id,v")])),
            expect_error(drop_view("ids"), "NOT_FOUND"),
            read(Hand([ins(1, "a"), ins(2, "b")]), order="multiset"),
        ],
        {},
        java=False,
    )
