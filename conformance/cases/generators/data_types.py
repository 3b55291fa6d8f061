"""Round trips of every data type through every file format, and primary keys of many types.

Each value list includes the edges of its type (extremes, null, empty, NaN and infinities,
sub-millisecond timestamps, non-ASCII text); the expected rows are the written rows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from conformance.cases.generators import (
    CaseSpec,
    Hand,
    JsonValue,
    cols,
    family,
    ins,
    inserts,
    read,
    upd,
    write,
)

DOC_TYPES = "docs/docs/concepts/data-types.md"
DOC_FORMAT = "docs/docs/concepts/spec/fileformat.md"
FORMATS = ("parquet", "orc", "avro")


def ts(millisecond: int, nano: int = 0) -> dict[str, int]:
    return {"millisecond": millisecond, "nano": nano}


TYPE_VALUES: Sequence[tuple[str, str, Sequence[JsonValue]]] = (
    ("boolean", "BOOLEAN", [True, False, None]),
    ("tinyint", "TINYINT", [-128, 127, 0, None]),
    ("smallint", "SMALLINT", [-32768, 32767, None]),
    ("int", "INT", [-2147483648, 2147483647, 0, None]),
    ("bigint", "BIGINT", [-9223372036854775808, 9223372036854775807, None]),
    (
        "float",
        "FLOAT",
        [1.5, -2.25, 3.4028234663852886e38, 1.401298464324817e-45, "NaN", "-Infinity", None],
    ),
    ("double", "DOUBLE", [0.1, -1e308, 5e-324, "NaN", "Infinity", None]),
    ("decimal_5_2", "DECIMAL(5, 2)", ["123.45", "-999.99", "0.00", None]),
    ("decimal_18_6", "DECIMAL(18, 6)", ["123456789012.345678", "-0.000001", None]),
    (
        "decimal_38_10",
        "DECIMAL(38, 10)",
        ["1234567890123456789012345678.0123456789", "-0.0000000001", None],
    ),
    ("char", "CHAR(5)", ["abcde", "12345", None]),
    ("varchar", "VARCHAR(10)", ["hello", "", "ünïcödé", None]),
    ("string", "STRING", ["", "quote ' and \" and \\", "emoji 😀", "中文", None]),
    ("binary", "BINARY(4)", ["AAECAw==", "/////w==", None]),
    ("varbinary", "VARBINARY(8)", ["", "AQ==", None]),
    ("bytes", "BYTES", ["", "AAEC/w==", None]),
    ("date", "DATE", [0, -719162, 2932896, 19000, None]),
    ("time", "TIME", [0, 86399000, 3723000, None]),
    ("time_3", "TIME(3)", [45296789, 1, None]),
    ("timestamp_0", "TIMESTAMP(0)", [ts(1700000000000), ts(-86400000), None]),
    ("timestamp_3", "TIMESTAMP(3)", [ts(1700000000123), ts(-1), None]),
    ("timestamp_6", "TIMESTAMP(6)", [ts(1700000000123, 456000), ts(-2, 999000), None]),
    ("timestamp_9", "TIMESTAMP(9)", [ts(1700000000123, 456789), ts(0, 1), None]),
    ("timestamp_ltz_3", "TIMESTAMP(3) WITH LOCAL TIME ZONE", [ts(1700000000123), None]),
    ("timestamp_ltz_6", "TIMESTAMP(6) WITH LOCAL TIME ZONE", [ts(1700000000123, 456000), None]),
    ("array_int", "ARRAY<INT>", [[1, 2, None], [], None]),
    ("array_string", "ARRAY<STRING NOT NULL>", [["a", "b"], [], None]),
    ("map", "MAP<STRING, INT>", [[["a", 1], ["b", None]], [], None]),
    ("map_nested", "MAP<INT, ARRAY<STRING>>", [[[1, ["x", None]], [2, []]], None]),
    ("multiset", "MULTISET<STRING>", [[["a", 2], ["b", 1]], [], None]),
    ("row", "ROW<a INT, b STRING>", [[1, "x"], [None, None], None]),
    (
        "row_nested",
        "ROW<a ARRAY<ROW<x INT, y STRING>>, m MAP<STRING, DOUBLE>>",
        [[[[1, "p"], [None, None]], [["k", 1.25]]], [None, None], None],
    ),
)


@family
def data_type_round_trips() -> Iterator[CaseSpec]:
    for name, type_sql, values in TYPE_VALUES:
        rows = [(index, value) for index, value in enumerate(values)]
        for file_format in FORMATS:
            if file_format == "avro" and type_sql.startswith("TIMESTAMP(9)"):
                yield CaseSpec(
                    id=f"data-types/{name}_{file_format}",
                    area="data-types",
                    description="Avro cannot hold nanosecond timestamps: the table is refused",
                    spec_refs=[DOC_TYPES, DOC_FORMAT, "Java: AvroSchemaConverter"],
                    fields=cols("id INT NOT NULL", f"v {type_sql}"),
                    options={"file.format": file_format},
                    steps=[],
                    create_error="INVALID_TABLE",
                )
                continue
            yield CaseSpec(
                id=f"data-types/{name}_{file_format}",
                area="data-types",
                description=f"{type_sql} values survive a write and read in {file_format}",
                spec_refs=[DOC_TYPES, DOC_FORMAT, f"file.format={file_format}"],
                fields=cols("id INT NOT NULL", f"v {type_sql}"),
                options={"file.format": file_format},
                steps=[inserts(*rows), read(Hand([ins(*row) for row in rows]), order="multiset")],
            )


KEY_VALUES: Sequence[tuple[str, str, Sequence[JsonValue]]] = (
    ("tinyint", "TINYINT", [-128, 0, 127]),
    ("bigint", "BIGINT", [-9223372036854775808, 1, 9223372036854775807]),
    ("string", "STRING", ["", "a", "ünïcödé"]),
    ("decimal", "DECIMAL(20, 4)", ["-12345678901234.5678", "0.0001", "3.0000"]),
    ("date", "DATE", [-719162, 0, 19000]),
    ("timestamp", "TIMESTAMP(6)", [ts(-1, 999000), ts(0), ts(1700000000123, 456000)]),
    ("binary", "BYTES", ["", "AA==", "/w=="]),
    ("boolean", "BOOLEAN", [False, True]),
)


@family
def key_types() -> Iterator[CaseSpec]:
    """Primary keys of many types in fixed buckets: hashing and key order per type."""
    for name, type_sql, values in KEY_VALUES:
        first = [(value, f"v{index}") for index, value in enumerate(values)]
        updated = (values[-1], "updated")
        final = [*first[:-1], updated]
        yield CaseSpec(
            id=f"data-types/key_{name}",
            area="data-types",
            description=f"a {type_sql} primary key hashes to a bucket and merges updates",
            spec_refs=[DOC_TYPES, "Java: FixedBucketRowKeyExtractor", "Java: BinaryRow hash"],
            fields=cols(f"k {type_sql} NOT NULL", "v STRING"),
            primary_keys=("k",),
            options={"bucket": "3"},
            steps=[
                inserts(*first),
                write([upd(*updated)]),
                read(Hand([ins(*row) for row in final])),
            ],
        )
