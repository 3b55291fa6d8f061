"""Cases of the storage layout: buckets (fixed, dynamic, unaware, cross-partition, bucket-key),
partitions and overwrite, append tables, file formats, deletion vectors and file indexes."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from conformance.cases.generators import (
    CaseSpec,
    Hand,
    JsonValue,
    all_of,
    any_of,
    compact,
    delete,
    expect_error,
    family,
    ins,
    inserts,
    leaf,
    read,
    table_case,
    upd,
    write,
)

DOC_DISTRIBUTION = "docs/docs/primary-key-table/data-distribution.md"
DOC_APPEND = "docs/docs/append-table/index.mdx"
DOC_BUCKETED_APPEND = "docs/docs/append-table/bucketed.mdx"
DOC_PARTITIONS = "docs/docs/maintenance/manage-partitions.md"
DOC_FORMAT = "docs/docs/concepts/spec/fileformat.md"
DOC_DATAFILE = "docs/docs/concepts/spec/datafile.md"
DOC_DV = "docs/docs/concepts/spec/tableindex.md"
DOC_FILE_INDEX = "docs/docs/concepts/spec/fileindex.mdx"
DOC_QUERY = "docs/docs/primary-key-table/query-performance.md"


case = table_case
"""Every storage case is a plain :func:`table_case`."""


def rows_of(*values: Sequence[JsonValue]) -> list[list[JsonValue]]:
    return [ins(*v) for v in values]


def upsert_state(
    batches: Sequence[Sequence[Sequence[JsonValue]]], key: Callable[[Sequence[JsonValue]], Any]
) -> list[list[JsonValue]]:
    """The rows left after deduplicating ``batches`` of +I rows by ``key`` (last wins)."""
    state: dict[Any, Sequence[JsonValue]] = {}
    for batch in batches:
        for row in batch:
            state[key(row)] = row
    return [ins(*row) for row in state.values()]


# --------------------------------------------------------------------------------------------
# buckets
# --------------------------------------------------------------------------------------------


@family
def buckets() -> Iterator[CaseSpec]:
    batches = [
        [(i, f"v{i}") for i in range(30)],
        [(i, f"w{i}") for i in range(0, 30, 4)],
        [(i, f"x{i}") for i in range(25, 35)],
    ]
    kv = ("k INT NOT NULL", "v STRING")
    final = upsert_state(batches, lambda r: r[0])
    yield case(
        "bucket/fixed_three_buckets",
        "a fixed bucket count spreads keys by hash; updates find their bucket",
        [DOC_DISTRIBUTION, "Java: FixedBucketRowKeyExtractor"],
        kv,
        [*(inserts(*b) for b in batches), read(Hand(final))],
        primary_keys=("k",),
        options={"bucket": "3"},
    )
    yield case(
        "bucket/dynamic_default",
        "bucket -1 with a primary key assigns buckets through the hash index",
        [DOC_DISTRIBUTION, "Java: HashBucketAssigner"],
        kv,
        [*(inserts(*b) for b in batches), read(Hand(final))],
        primary_keys=("k",),
    )
    yield case(
        "bucket/dynamic_small_target",
        "dynamic-bucket.target-row-num caps a bucket's keys, so new keys open new buckets",
        [DOC_DISTRIBUTION, "Java: HashBucketAssigner"],
        kv,
        [*(inserts(*b) for b in batches), read(Hand(final))],
        primary_keys=("k",),
        options={"dynamic-bucket.target-row-num": "5"},
    )
    part_batches = [
        [(1, i, f"a{i}") for i in range(6)] + [(2, i, f"b{i}") for i in range(4)],
        [(1, i, f"c{i}") for i in range(3, 8)],
    ]
    yield case(
        "bucket/dynamic_partitioned",
        "dynamic buckets are assigned per partition",
        [DOC_DISTRIBUTION, "Java: HashBucketAssigner"],
        ("p INT NOT NULL", "k INT NOT NULL", "v STRING"),
        [
            *(inserts(*b) for b in part_batches),
            read(Hand(upsert_state(part_batches, lambda r: (r[0], r[1])))),
        ],
        primary_keys=("p", "k"),
        partition_keys=("p",),
    )
    yield case(
        "bucket/cross_partition_update",
        "a key written to a new partition moves there (the key is unique across partitions)",
        [DOC_DISTRIBUTION, "Java: GlobalIndexAssigner"],
        ("k INT NOT NULL", "p STRING NOT NULL", "v INT"),
        [
            inserts((1, "x", 10), (2, "x", 20), (3, "y", 30)),
            inserts((1, "y", 11), (3, "y", 31)),
            read(Hand(rows_of((1, "y", 11), (2, "x", 20), (3, "y", 31)))),
        ],
        primary_keys=("k",),
        partition_keys=("p",),
        java=False,
    )
    pair_batches = [
        [(a, b, a * 10 + b) for a in range(4) for b in range(3)],
        [(a, 1, -a) for a in range(4)],
    ]
    yield case(
        "bucket/bucket_key",
        "bucket-key chooses the hashed columns (a subset of the primary key)",
        [DOC_DISTRIBUTION, "CoreOptions.BUCKET_KEY"],
        ("a INT NOT NULL", "b INT NOT NULL", "v INT"),
        [
            *(inserts(*b) for b in pair_batches),
            read(Hand(upsert_state(pair_batches, lambda r: (r[0], r[1])))),
        ],
        primary_keys=("a", "b"),
        options={"bucket": "2", "bucket-key": "a"},
    )
    append_rows = [(i % 3, f"e{i}") for i in range(12)]
    yield case(
        "bucket/append_fixed_bucket",
        "an append table with a fixed bucket count and bucket-key keeps every row",
        [DOC_BUCKETED_APPEND],
        ("g INT", "e STRING"),
        [
            inserts(*append_rows[:6]),
            inserts(*append_rows[6:]),
            read(Hand(rows_of(*append_rows)), order="multiset"),
        ],
        options={"bucket": "2", "bucket-key": "g"},
    )
    yield case(
        "bucket/unaware_append",
        "an append table without buckets (bucket -1) keeps every row, duplicates included",
        [DOC_APPEND],
        ("g INT", "e STRING"),
        [
            inserts((1, "a"), (1, "a"), (2, "b")),
            inserts((1, "a")),
            read(Hand(rows_of((1, "a"), (1, "a"), (2, "b"), (1, "a"))), order="multiset"),
        ],
    )


# --------------------------------------------------------------------------------------------
# partitions and overwrite
# --------------------------------------------------------------------------------------------


@family
def partitions() -> Iterator[CaseSpec]:
    refs = [DOC_PARTITIONS, "Java: FileStoreCommitImpl (overwrite)"]
    pk = ("p INT NOT NULL", "k INT NOT NULL", "v STRING")
    base = [(1, 1, "a"), (1, 2, "b"), (2, 1, "c"), (3, 1, "d")]
    yield case(
        "partition/primary_key_partitioned",
        "a partitioned primary-key table merges per partition",
        [DOC_PARTITIONS, DOC_DATAFILE],
        pk,
        [
            inserts(*base),
            inserts((1, 1, "a2"), (2, 2, "e")),
            read(Hand(rows_of((1, 1, "a2"), (1, 2, "b"), (2, 1, "c"), (2, 2, "e"), (3, 1, "d")))),
        ],
        primary_keys=("p", "k"),
        partition_keys=("p",),
        options={"bucket": "1"},
    )
    yield case(
        "partition/two_levels",
        "two partition columns form nested partition directories",
        [DOC_PARTITIONS, DOC_DATAFILE],
        ("y INT NOT NULL", "m INT NOT NULL", "v STRING"),
        [
            inserts((2024, 1, "a"), (2024, 2, "b"), (2025, 1, "c")),
            read(Hand(rows_of((2024, 1, "a"), (2024, 2, "b"), (2025, 1, "c"))), order="multiset"),
            read(
                Hand(rows_of((2024, 2, "b"))),
                filter=all_of(leaf("EQUAL", "y", 2024), leaf("EQUAL", "m", 2)),
                order="multiset",
            ),
        ],
        partition_keys=("y", "m"),
    )
    yield case(
        "partition/overwrite_table",
        "overwrite without a partition spec replaces the table (dynamic overwrite off)",
        refs,
        pk,
        [
            inserts(*base),
            write(rows_of((1, 9, "z")), overwrite={}),
            read(Hand(rows_of((1, 9, "z")))),
        ],
        primary_keys=("p", "k"),
        partition_keys=("p",),
        options={"bucket": "1", "dynamic-partition-overwrite": "false"},
    )
    yield case(
        "partition/overwrite_dynamic",
        "dynamic partition overwrite replaces only the partitions the new rows touch",
        [*refs, "CoreOptions.DYNAMIC_PARTITION_OVERWRITE"],
        pk,
        [
            inserts(*base),
            write(rows_of((1, 9, "z"), (2, 8, "y")), overwrite={}),
            read(Hand(rows_of((1, 9, "z"), (2, 8, "y"), (3, 1, "d")))),
        ],
        primary_keys=("p", "k"),
        partition_keys=("p",),
        options={"bucket": "1"},
    )
    yield case(
        "partition/overwrite_static_partition",
        "overwrite with a static partition spec replaces that partition only",
        refs,
        pk,
        [
            inserts(*base),
            write(rows_of((2, 7, "x")), overwrite={"p": 2}),
            read(Hand(rows_of((1, 1, "a"), (1, 2, "b"), (2, 7, "x"), (3, 1, "d")))),
        ],
        primary_keys=("p", "k"),
        partition_keys=("p",),
        options={"bucket": "1"},
    )
    yield case(
        "partition/overwrite_append_table",
        "overwriting a partition of an append table drops its old rows",
        refs,
        ("p STRING", "v INT"),
        [
            inserts(("a", 1), ("a", 2), ("b", 3)),
            write(rows_of(("a", 10)), overwrite={"p": "a"}),
            read(Hand(rows_of(("a", 10), ("b", 3))), order="multiset"),
        ],
        partition_keys=("p",),
    )
    yield case(
        "partition/null_partition_value",
        "a null partition value goes to the default partition and reads back as null",
        [DOC_PARTITIONS, "CoreOptions.PARTITION_DEFAULT_NAME"],
        ("p STRING", "v INT"),
        [
            inserts((None, 1), ("a", 2), (None, 3)),
            read(Hand(rows_of((None, 1), ("a", 2), (None, 3))), order="multiset"),
            read(
                Hand(rows_of((None, 1), (None, 3))), filter=leaf("IS_NULL", "p"), order="multiset"
            ),
        ],
        partition_keys=("p",),
    )
    yield case(
        "partition/filter_pruning",
        "a partition filter returns exactly the rows of the matching partitions",
        [DOC_PARTITIONS, "Java: PartitionPredicate"],
        ("d DATE NOT NULL", "k INT NOT NULL", "v STRING"),
        [
            inserts((19000, 1, "a"), (19001, 1, "b"), (19002, 1, "c")),
            inserts((19001, 2, "d")),
            read(
                Hand(rows_of((19001, 1, "b"), (19001, 2, "d"), (19002, 1, "c"))),
                filter=leaf("GREATER_OR_EQUAL", "d", 19001),
            ),
            read(
                Hand(rows_of((19000, 1, "a"), (19002, 1, "c"))),
                filter=leaf("IN", "d", 19000, 19002),
            ),
        ],
        primary_keys=("d", "k"),
        partition_keys=("d",),
        options={"bucket": "1"},
    )


# --------------------------------------------------------------------------------------------
# append tables
# --------------------------------------------------------------------------------------------


@family
def append_tables() -> Iterator[CaseSpec]:
    refs = [DOC_APPEND, "Java: AppendOnlyFileStoreWrite"]
    columns = ("id INT", "name STRING", "score DOUBLE")
    first = [(1, "a", 1.5), (2, "b", None), (3, None, 3.25)]
    second = [(1, "a", 1.5), (4, "d", -0.5)]
    everything = rows_of(*first, *second)
    yield case(
        "append/multiple_commits",
        "every committed row is kept, duplicates included",
        refs,
        columns,
        [inserts(*first), inserts(*second), read(Hand(everything), order="multiset")],
    )
    yield case(
        "append/projection",
        "a projection returns the chosen columns in the chosen order",
        refs,
        columns,
        [
            inserts(*first),
            read(
                Hand([ins(r[2], r[0]) for r in first]),
                projection=("score", "id"),
                order="multiset",
            ),
        ],
    )
    yield case(
        "append/filters",
        "comparison, null and string filters return exactly the matching rows",
        refs,
        columns,
        [
            inserts(*first),
            inserts(*second),
            read(
                Hand(rows_of((3, None, 3.25), (4, "d", -0.5))),
                filter=leaf("GREATER_THAN", "id", 2),
                order="multiset",
            ),
            read(Hand(rows_of((2, "b", None))), filter=leaf("IS_NULL", "score"), order="multiset"),
            read(
                Hand(rows_of((1, "a", 1.5), (1, "a", 1.5), (2, "b", None))),
                filter=any_of(leaf("STARTS_WITH", "name", "a"), leaf("EQUAL", "name", "b")),
                order="multiset",
            ),
            read(
                Hand(rows_of((2, "b", None), (4, "d", -0.5))),
                filter=leaf("NOT_IN", "name", "a", "c"),
                order="multiset",
            ),
        ],
    )
    yield case(
        "append/compaction",
        "compacting a bucketed append table rewrites small files without changing the rows",
        [*refs, "Java: AppendOnlyCompactManager"],
        columns,
        [
            inserts(*first),
            inserts(*second),
            inserts((5, "e", 0.0)),
            compact(),
            read(Hand([*everything, ins(5, "e", 0.0)]), order="multiset"),
        ],
        options={"bucket": "1", "bucket-key": "id"},
    )
    yield case(
        "append/partitioned",
        "a partitioned append table keeps rows per partition",
        refs,
        ("p INT", "v STRING"),
        [
            inserts((1, "a"), (2, "b")),
            inserts((1, "c")),
            read(Hand(rows_of((1, "a"), (1, "c"))), filter=leaf("EQUAL", "p", 1), order="multiset"),
        ],
        partition_keys=("p",),
    )
    yield case(
        "append/rejects_delete",
        "an append table refuses -D rows",
        [*refs, "Java: AppendOnlyWriter"],
        ("id INT", "v STRING"),
        [inserts((1, "a")), expect_error(write([delete(1, "a")]))],
    )
    yield case(
        "append/not_null_violation",
        "writing null into a NOT NULL column is refused",
        [*refs, "Java: TableWriteImpl (checkNullability)"],
        ("id INT NOT NULL", "v STRING"),
        [
            inserts((1, "a")),
            expect_error(write([ins(None, "b")])),
            read(Hand(rows_of((1, "a"))), order="multiset"),
        ],
    )


# --------------------------------------------------------------------------------------------
# file formats
# --------------------------------------------------------------------------------------------

FORMATS = ("parquet", "orc", "avro")
FORMAT_COLUMNS = (
    "k INT NOT NULL",
    "s STRING",
    "d DECIMAL(12, 3)",
    "t TIMESTAMP(6)",
    "b BYTES",
    "a ARRAY<STRING>",
)
FORMAT_ROWS = [
    (1, "one", "1.500", {"millisecond": 1700000000123, "nano": 456000}, "AQI=", ["x", None]),
    (2, None, "-0.001", None, "", []),
    (3, "drei", None, {"millisecond": -1000, "nano": 0}, None, None),
]


@family
def file_formats() -> Iterator[CaseSpec]:
    for file_format in FORMATS:
        refs = [DOC_FORMAT, f"file.format={file_format}"]
        updated = (2, "two", "2.000", None, "/w==", ["y"])
        yield case(
            f"file-format/{file_format}_primary_key",
            f"a primary-key table in {file_format}: updates, deletes and a full compaction",
            refs,
            FORMAT_COLUMNS,
            [
                write(rows_of(*FORMAT_ROWS)),
                write([upd(*updated), delete(*FORMAT_ROWS[2])]),
                read(Hand(rows_of(FORMAT_ROWS[0], updated))),
                compact(),
                read(Hand(rows_of(FORMAT_ROWS[0], updated))),
            ],
            primary_keys=("k",),
            options={"bucket": "1", "file.format": file_format},
        )
        yield case(
            f"file-format/{file_format}_append",
            f"an append table in {file_format} returns its rows unchanged",
            refs,
            FORMAT_COLUMNS,
            [write(rows_of(*FORMAT_ROWS)), read(Hand(rows_of(*FORMAT_ROWS)), order="multiset")],
            options={"file.format": file_format},
        )
        yield case(
            f"file-format/{file_format}_java_written",
            f"a {file_format} primary-key table written by Java 0.9 (checked in) reads back",
            [*refs, "producer paimon-java 0.9.0"],
            FORMAT_COLUMNS,
            [read(Hand(rows_of(FORMAT_ROWS[0], updated)))],
            primary_keys=("k",),
            options={"bucket": "2", "file.format": file_format},
            setup=[write(rows_of(*FORMAT_ROWS)), write([upd(*updated), delete(*FORMAT_ROWS[2])])],
            check_in_table=True,
        )
    yield case(
        "file-format/per_level_formats",
        "file.format.per.level writes level 0 as avro and compacted levels as orc",
        [DOC_FORMAT, "CoreOptions.FILE_FORMAT_PER_LEVEL"],
        ("k INT NOT NULL", "v STRING"),
        [
            inserts((1, "a"), (2, "b")),
            inserts((2, "b2")),
            compact(),
            inserts((3, "c")),
            read(Hand(rows_of((1, "a"), (2, "b2"), (3, "c")))),
        ],
        primary_keys=("k",),
        options={"bucket": "1", "file.format": "orc", "file.format.per.level": "0:avro"},
    )


# --------------------------------------------------------------------------------------------
# deletion vectors
# --------------------------------------------------------------------------------------------


@family
def deletion_vectors() -> Iterator[CaseSpec]:
    refs = [DOC_DV, "Java: DeletionVectorsMaintainer", "Java: BitmapDeletionVector"]
    dv = {"deletion-vectors.enabled": "true", "bucket": "1"}
    kv = ("k INT NOT NULL", "v STRING")
    yield case(
        "deletion-vectors/updates",
        "updated rows are masked by deletion vectors instead of merged on read",
        refs,
        kv,
        [
            inserts((1, "a"), (2, "b"), (3, "c")),
            inserts((2, "b2")),
            inserts((3, "c3"), (4, "d")),
            read(Hand(rows_of((1, "a"), (2, "b2"), (3, "c3"), (4, "d")))),
        ],
        primary_keys=("k",),
        options=dv,
    )
    yield case(
        "deletion-vectors/deletes",
        "deleted keys disappear from a deletion-vector table",
        refs,
        kv,
        [
            inserts((1, "a"), (2, "b"), (3, "c")),
            write([delete(1, "a"), delete(3, "c")]),
            read(Hand(rows_of((2, "b")))),
            inserts((1, "a2")),
            read(Hand(rows_of((1, "a2"), (2, "b")))),
        ],
        primary_keys=("k",),
        options=dv,
    )
    batches = [
        [(p, k, f"{p}-{k}-0") for p in (1, 2) for k in range(8)],
        [(1, k, f"1-{k}-1") for k in range(0, 8, 2)],
        [(2, k, f"2-{k}-2") for k in range(1, 8, 3)],
    ]
    yield case(
        "deletion-vectors/partitioned_many_commits",
        "deletion vectors per partition and bucket across several commits",
        refs,
        ("p INT NOT NULL", "k INT NOT NULL", "v STRING"),
        [
            *(inserts(*b) for b in batches),
            read(Hand(upsert_state(batches, lambda r: (r[0], r[1])))),
        ],
        primary_keys=("p", "k"),
        partition_keys=("p",),
        options={**dv, "bucket": "2"},
    )
    yield case(
        "deletion-vectors/full_compaction",
        "a full compaction drops masked rows and their deletion vectors",
        refs,
        kv,
        [
            inserts((1, "a"), (2, "b")),
            write([upd(1, "a2"), delete(2, "b")]),
            compact(),
            read(Hand(rows_of((1, "a2")))),
        ],
        primary_keys=("k",),
        options=dv,
    )
    yield case(
        "deletion-vectors/partial_update",
        "deletion vectors with the partial-update merge engine",
        [*refs, "docs/docs/primary-key-table/merge-engine/partial-update.md"],
        ("k INT NOT NULL", "a INT", "b STRING"),
        [
            inserts((1, 1, None), (2, 2, "x")),
            inserts((1, None, "y")),
            read(Hand(rows_of((1, 1, "y"), (2, 2, "x")))),
        ],
        primary_keys=("k",),
        options={**dv, "merge-engine": "partial-update"},
    )
    yield case(
        "deletion-vectors/java_written",
        "a Java-written table with deletion vectors (checked in) reads back without masked rows",
        [*refs, "producer paimon-java 0.9.0"],
        kv,
        [read(Hand(rows_of((1, "a2"), (3, "c"), (4, "d"))))],
        primary_keys=("k",),
        options=dv,
        setup=[
            inserts((1, "a"), (2, "b"), (3, "c")),
            write([upd(1, "a2"), delete(2, "b")]),
            inserts((4, "d")),
        ],
        check_in_table=True,
    )


# --------------------------------------------------------------------------------------------
# file indexes
# --------------------------------------------------------------------------------------------

INDEX_COLUMNS = ("id INT", "tag STRING", "n BIGINT")
INDEX_BATCHES: list[list[tuple[Any, ...]]] = [
    [(i, f"t{i % 5}", i * 10) for i in range(0, 20)],
    [(i, f"t{i % 7}", i * 10) for i in range(20, 40)],
    [(i, None if i % 4 == 0 else f"u{i % 3}", None if i % 5 == 0 else i) for i in range(40, 60)],
]
BLOOM_ITEMS = 64
"""Expected distinct values per file (the default, a million, makes 600 KB index files)."""
ALL_INDEX_ROWS = [row for batch in INDEX_BATCHES for row in batch]


def index_case(
    name: str,
    description: str,
    index_type: str,
    column: str,
    filters: Sequence[tuple[Mapping[str, Any], Callable[[tuple[Any, ...]], bool]]],
    *,
    java: bool = True,
    check_in_table: bool = False,
    separate_files: bool = False,
) -> CaseSpec:
    """An append table indexed on ``column``, one file per batch, read with each filter; the
    expected rows are the written rows the filter keeps, with or without the index. Small
    indexes are embedded in the manifest entry; ``separate_files`` forces ``.index`` files."""
    option = {f"file-index.{index_type}.columns": column}
    if separate_files:
        option["file-index.in-manifest-threshold"] = "1 b"
    if index_type == "bloom-filter":
        option[f"file-index.bloom-filter.{column}.items"] = str(BLOOM_ITEMS)
    reads = [
        read(Hand(rows_of(*[r for r in ALL_INDEX_ROWS if keep(r)])), filter=f, order="multiset")
        for f, keep in filters
    ]
    writes = [inserts(*batch) for batch in INDEX_BATCHES]
    return case(
        f"file-index/{name}",
        description,
        [DOC_FILE_INDEX, f"file index {index_type}"],
        INDEX_COLUMNS,
        reads if check_in_table else [*writes, *reads],
        options=option,
        setup=writes if check_in_table else (),
        check_in_table=check_in_table,
        java=java,
    )


@family
def file_indexes() -> Iterator[CaseSpec]:
    yield index_case(
        "bloom_filter_equal",
        "a bloom-filter index never drops a file holding the value looked up",
        "bloom-filter",
        "tag",
        [
            (leaf("EQUAL", "tag", "t3"), lambda r: r[1] == "t3"),
            (leaf("EQUAL", "tag", "nope"), lambda r: False),
            (leaf("IN", "tag", "u1", "t6"), lambda r: r[1] in ("u1", "t6")),
        ],
    )
    yield index_case(
        "bloom_filter_numeric",
        "a bloom-filter index on a BIGINT column, in separate index files",
        "bloom-filter",
        "n",
        [
            (leaf("EQUAL", "n", 250), lambda r: r[2] == 250),
            (leaf("EQUAL", "n", 41), lambda r: r[2] == 41),
        ],
        separate_files=True,
    )
    yield index_case(
        "bitmap_equal_and_null",
        "a bitmap index answers equality, IN and IS NULL exactly",
        "bitmap",
        "tag",
        [
            (leaf("EQUAL", "tag", "u2"), lambda r: r[1] == "u2"),
            (leaf("IS_NULL", "tag"), lambda r: r[1] is None),
            (leaf("IN", "tag", "t0", "u0"), lambda r: r[1] in ("t0", "u0")),
            (leaf("NOT_EQUAL", "tag", "t1"), lambda r: r[1] is not None and r[1] != "t1"),
        ],
    )
    yield index_case(
        "bitmap_combined_filters",
        "bitmap-indexed and plain columns combined with AND / OR",
        "bitmap",
        "tag",
        [
            (
                all_of(leaf("EQUAL", "tag", "t2"), leaf("GREATER_THAN", "id", 10)),
                lambda r: r[1] == "t2" and r[0] > 10,
            ),
            (
                any_of(leaf("EQUAL", "tag", "t4"), leaf("LESS_THAN", "n", 3)),
                lambda r: r[1] == "t4" or (r[2] is not None and r[2] < 3),
            ),
        ],
    )
    yield index_case(
        "bsi_ranges",
        "a bit-sliced index answers ranges and equality exactly (main only; Java 0.9 lacks BSI)",
        "bsi",
        "n",
        [
            (leaf("GREATER_THAN", "n", 300), lambda r: r[2] is not None and r[2] > 300),
            (leaf("LESS_OR_EQUAL", "n", 45), lambda r: r[2] is not None and r[2] <= 45),
            (leaf("EQUAL", "n", 55), lambda r: r[2] == 55),
            (leaf("IS_NOT_NULL", "n"), lambda r: r[2] is not None),
        ],
        java=False,
    )
    yield index_case(
        "java_written_bloom_filter",
        "Java-written bloom-filter index files (checked in) do not drop matching rows",
        "bloom-filter",
        "tag",
        [
            (leaf("EQUAL", "tag", "t5"), lambda r: r[1] == "t5"),
            (leaf("EQUAL", "tag", "zzz"), lambda r: False),
        ],
        check_in_table=True,
    )
    yield index_case(
        "java_written_bitmap",
        "Java-written bitmap index files (checked in, separate .index files) answer exactly",
        "bitmap",
        "tag",
        [
            (leaf("EQUAL", "tag", "u1"), lambda r: r[1] == "u1"),
            (leaf("IS_NULL", "tag"), lambda r: r[1] is None),
        ],
        check_in_table=True,
        separate_files=True,
    )
