"""Golden byte vectors: the inputs, how Java 0.9 turns them into bytes, and the files they go to.

Every vector pairs bytes that Paimon 0.9.0 wrote (through the harness commands of
``conformance/java/VectorCommands.java``) with their meaning as Java states it, so a codec can be
checked in both directions without using itself as the oracle. One file per element,
``fixtures/vectors/<element>/java-0.9.json``; ``fixtures/vectors/README.md`` documents each
file's layout. Run ``python scripts/generate_vectors.py`` to rebuild them.

All elements but ``manifest`` are deterministic: a re-run rewrites identical files. Manifest
vectors come from tables Java writes, so file names (UUIDs), creation times, file sizes and Avro
sync markers change with every run.

Value conventions differ per element because the loaders that existed first fixed them:

* ``binary_row``: the convention of ``conformance/unit/reference/spec/test_binary_row.py``
  (TIMESTAMP as epoch nanos, binaries as hex, MAP / MULTISET as pairs).
* ``bloom_filter`` / ``bitmap``: the convention of
  ``conformance/unit/reference/spec/file_index/java_vectors.py`` (floats as their IEEE bits,
  TIMESTAMP as ``{"millis", "nanos"}``, binaries as ``{"hex"}``).
* everything else: the harness encoding of :mod:`conformance.java.values`.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from conformance.java.harness import JavaHarness
from conformance.java.values import encode_value
from reference.spec import types as t
from reference.spec.data import Row, RowKind, Timestamp, Value

PRODUCER = "paimon-java 0.9.0"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
VECTORS_DIR = FIXTURES / "vectors"
FILE_NAME = "java-0.9.json"
LARGE_BODY_BYTES = 4096
"""Index bodies longer than this are recorded as length + SHA-256 instead of hex."""
MANIFEST_FORMATS = ("avro", "orc", "parquet")

STRING = t.VarCharType(t.MAX_LENGTH)
BYTES = t.VarBinaryType(t.MAX_LENGTH)
INT = t.IntType()
BIGINT = t.BigIntType()
INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = (
    RowKind.INSERT,
    RowKind.UPDATE_BEFORE,
    RowKind.UPDATE_AFTER,
    RowKind.DELETE,
)
NAN = math.nan
INF = math.inf


def _field(index: int, name: str, data_type: t.DataType) -> t.DataField:
    return t.DataField(index, name, data_type)


def _row(*fields: tuple[str, t.DataType]) -> t.RowType:
    return t.RowType(tuple(_field(i, name, dt) for i, (name, dt) in enumerate(fields)))


def _fields(*fields: tuple[str, t.DataType]) -> tuple[t.DataField, ...]:
    return _row(*fields).fields


# --------------------------------------------------------------------------------------------
# JSON value conventions
# --------------------------------------------------------------------------------------------


def _float_json(value: float) -> Any:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def binary_row_value_json(value: Value, data_type: t.DataType) -> Any:
    """One value in the ``test_binary_row`` convention."""
    if value is None:
        return None
    if isinstance(data_type, (t.FloatType, t.DoubleType)):
        return _float_json(float(value))
    if isinstance(data_type, t.DecimalType):
        return format(value, "f")
    if isinstance(data_type, (t.BinaryType, t.VarBinaryType)):
        return bytes(value).hex()
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return value.to_epoch_nanos()
    if isinstance(data_type, t.ArrayType):
        return [binary_row_value_json(v, data_type.element) for v in value]
    if isinstance(data_type, t.MapType):
        return [
            [binary_row_value_json(k, data_type.key), binary_row_value_json(v, data_type.value)]
            for k, v in value.items()
        ]
    if isinstance(data_type, t.MultisetType):
        return [[binary_row_value_json(k, data_type.element), n] for k, n in value.items()]
    if isinstance(data_type, t.RowType):
        return [
            binary_row_value_json(v, f.type) for v, f in zip(value, data_type.fields, strict=True)
        ]
    return value


def file_index_value_json(value: Value, data_type: t.DataType) -> Any:
    """One value in the ``java_vectors`` convention of the file-index tests."""
    if value is None:
        return None
    if isinstance(data_type, t.FloatType):
        return {"bits": struct.pack(">f", value).hex()}
    if isinstance(data_type, t.DoubleType):
        return {"bits": struct.pack(">d", value).hex()}
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return {"millis": value.millisecond, "nanos": value.nano_of_millisecond}
    if isinstance(data_type, (t.BinaryType, t.VarBinaryType)):
        return {"hex": bytes(value).hex()}
    if isinstance(data_type, t.DecimalType):
        return format(value, "f")
    return value


def _float32(bits: str) -> float:
    """The FLOAT value of 8 hex digits of IEEE bits (so -0.0 and NaN are exact)."""
    return float(struct.unpack(">f", bytes.fromhex(bits))[0])


def _float64(bits: str) -> float:
    return float(struct.unpack(">d", bytes.fromhex(bits))[0])


def _body_json(body: bytes) -> dict[str, Any]:
    """An index body as hex, or as its length and SHA-256 when it is large."""
    if len(body) <= LARGE_BODY_BYTES:
        return {"bytes": body.hex()}
    return {"byte_length": len(body), "sha256": hashlib.sha256(body).hexdigest()}


# --------------------------------------------------------------------------------------------
# BinaryRow
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BinaryRowCase:
    """Rows of one row type; each row becomes one vector (per Java writer when they differ)."""

    name: str
    types: tuple[t.DataType, ...]
    rows: tuple[Row, ...]
    kinds: tuple[RowKind, ...] = ()

    def kind_of(self, index: int) -> RowKind:
        return self.kinds[index] if self.kinds else INSERT


def _dec(precision: int, scale: int) -> t.DecimalType:
    return t.DecimalType(precision, scale)


ALL_SCALAR_TYPES: tuple[t.DataType, ...] = (
    t.BooleanType(),
    t.TinyIntType(),
    t.SmallIntType(),
    INT,
    BIGINT,
    t.FloatType(),
    t.DoubleType(),
    _dec(10, 2),
    _dec(38, 4),
    t.CharType(5),
    t.VarCharType(20),
    STRING,
    t.BinaryType(4),
    BYTES,
    t.DateType(),
    t.TimeType(3),
    t.TimestampType(3),
    t.TimestampType(9),
    t.LocalZonedTimestampType(3),
    t.LocalZonedTimestampType(6),
)
NESTED_TYPES: tuple[t.DataType, ...] = (
    t.ArrayType(INT),
    t.MapType(STRING, INT),
    t.MultisetType(STRING),
    _row(("a", INT), ("b", STRING)),
)


def _truncate(nanos: int, precision: int) -> Timestamp:
    """A timestamp of ``nanos`` cut to ``precision`` fractional digits (towards -inf)."""
    step = 10 ** (9 - precision)
    return Timestamp.from_epoch_nanos(nanos - nanos % step)


_NANOS = 1_700_000_000_123_456_789
_NEGATIVE_NANOS = -86_400_000_000_000 - 123_456_789

BINARY_ROW_CASES: tuple[BinaryRowCase, ...] = (
    BinaryRowCase("empty row", (), ((),)),
    BinaryRowCase(
        "booleans and small integers",
        (t.BooleanType(), t.BooleanType(), t.TinyIntType(), t.TinyIntType(), t.SmallIntType()),
        ((True, False, -128, 127, -32768), (False, True, 0, -1, 32767)),
    ),
    BinaryRowCase(
        "int and bigint edges",
        (INT, INT, BIGINT, BIGINT),
        ((-(2**31), 2**31 - 1, -(2**63), 2**63 - 1), (0, -1, 0, 1)),
    ),
    BinaryRowCase(
        "float specials",
        (t.FloatType(),) * 6,
        (
            (0.0, _float32("80000000"), 1.5, INF, -INF, NAN),
            (_float32("7f7fffff"), _float32("00000001"), -2.25, _float32("3dcccccd"), 3.0, -1.0),
        ),
    ),
    BinaryRowCase(
        "double specials",
        (t.DoubleType(),) * 6,
        (
            (0.0, _float64("8000000000000000"), 1.5, INF, -INF, NAN),
            (_float64("7fefffffffffffff"), 5e-324, math.pi, -1e300, 0.1, 2.0),
        ),
    ),
    BinaryRowCase(
        "date and time",
        (t.DateType(), t.DateType(), t.TimeType(0), t.TimeType(3)),
        ((0, -719162, 0, 86_399_999), (19_000, 2_932_896, 1000, 45_296_789)),
    ),
    BinaryRowCase(
        "strings inline and out of line",
        (STRING,) * 6,
        (
            ("", "a", "1234567", "12345678", "a string longer than one word", "😀"),
            ("é", "héllo", "日本語", "ab\x00cd", "x" * 100, "7 bytes"),
        ),
    ),
    BinaryRowCase(
        "char and varchar",
        (t.CharType(3), t.VarCharType(10), t.CharType(10)),
        (("abc", "xyz", "ten chars!"),),
    ),
    BinaryRowCase(
        "binary and varbinary",
        (t.BinaryType(3), BYTES, BYTES, BYTES, t.VarBinaryType(20)),
        ((b"\x00\x01\x02", b"", b"1234567", b"\x00" * 9 + b"\xff", b"\xff" * 8),),
    ),
    BinaryRowCase(
        "compact decimals",
        (_dec(10, 2), _dec(18, 0), _dec(5, 5), _dec(1, 0), _dec(18, 18)),
        (
            (
                Decimal("12345678.90"),
                Decimal("-999999999999999999"),
                Decimal("0.12345"),
                Decimal("0"),
                Decimal("-0.999999999999999999"),
            ),
            (Decimal("-0.01"), Decimal("1"), Decimal("-0.00001"), Decimal("9"), Decimal("0E-18")),
        ),
    ),
    BinaryRowCase(
        "non-compact decimals",
        (_dec(19, 2), _dec(38, 10), _dec(38, 0), _dec(20, 0)),
        (
            (
                Decimal("12345678901234567.89"),
                Decimal("-1234567890123456789012345678.0123456789"),
                Decimal("99999999999999999999999999999999999999"),
                Decimal("-1"),
            ),
            (Decimal("0.00"), Decimal("0E-10"), Decimal("-128"), Decimal("255")),
        ),
    ),
    BinaryRowCase(
        "timestamps of every precision",
        tuple(t.TimestampType(p) for p in range(10)),
        (
            tuple(_truncate(_NANOS, p) for p in range(10)),
            tuple(_truncate(_NEGATIVE_NANOS, p) for p in range(10)),
        ),
    ),
    BinaryRowCase(
        "local zoned timestamps",
        tuple(t.LocalZonedTimestampType(p) for p in (0, 3, 4, 6, 9)),
        (tuple(_truncate(_NANOS, p) for p in (0, 3, 4, 6, 9)),),
    ),
    BinaryRowCase(
        "nulls of every scalar type",
        ALL_SCALAR_TYPES,
        ((None,) * len(ALL_SCALAR_TYPES),),
    ),
    BinaryRowCase(
        "nulls of nested types",
        NESTED_TYPES,
        ((None,) * len(NESTED_TYPES),),
    ),
    BinaryRowCase(
        "null wide values between set ones",
        (_dec(20, 2), INT, t.TimestampType(6), STRING, _dec(38, 0), t.TimestampType(9)),
        (
            (None, 1, Timestamp(5, 1000), None, Decimal("7"), None),
            (Decimal("1.50"), None, None, "out of line string", None, Timestamp(-1, 999_999)),
        ),
    ),
    BinaryRowCase(
        "arrays",
        (
            t.ArrayType(INT),
            t.ArrayType(STRING),
            t.ArrayType(t.BigIntType(nullable=False)),
            t.ArrayType(t.BooleanType()),
            t.ArrayType(t.DoubleType()),
        ),
        (
            ([1, None, 3], ["a", None, "a longer string here"], [], [True, False, None], [1.5]),
            ([], [], [2**63 - 1, -1], [], [NAN, -0.0, None]),
        ),
    ),
    BinaryRowCase(
        "arrays of wide values",
        (
            t.ArrayType(_dec(20, 2)),
            t.ArrayType(t.TimestampType(9)),
            t.ArrayType(_dec(10, 2)),
            t.ArrayType(t.TimestampType(3)),
            t.ArrayType(BYTES),
        ),
        (
            (
                [Decimal("1.00"), None, Decimal("-99999999999999999.99")],
                [Timestamp(1, 2), None],
                [Decimal("3.14"), None],
                [Timestamp(1_700_000_000_123), None],
                [b"", None, b"0123456789"],
            ),
        ),
    ),
    BinaryRowCase(
        "maps and multisets",
        (t.MapType(STRING, INT), t.MapType(INT, t.ArrayType(STRING)), t.MultisetType(STRING)),
        (
            ({"a": 1, "b": None, "a long key string": 3}, {1: ["x"], 2: None, 3: []}, {"a": 2}),
            ({}, {}, {}),
        ),
    ),
    BinaryRowCase(
        "nested rows",
        (
            _row(("a", INT), ("b", STRING)),
            _row(("x", _row(("y", BIGINT), ("z", _dec(10, 2)))), ("w", t.ArrayType(INT))),
            t.ArrayType(_row(("a", INT), ("b", STRING))),
        ),
        (
            (
                (1, "nested long string"),
                ((5, Decimal("3.14")), [1, 2]),
                [(1, "a"), None, (2, None)],
            ),
            ((None, None), (None, None), []),
        ),
    ),
    BinaryRowCase(
        "nested rows with wide values",
        (_row(("d", _dec(20, 2)), ("ts", t.TimestampType(9))),),
        (((Decimal("12.34"), Timestamp(7, 8)),),),
    ),
    BinaryRowCase(
        "many fields (two null-bit words)",
        (INT,) * 60,
        (tuple(None if i % 7 == 3 else i * 1000 for i in range(60)),),
    ),
    BinaryRowCase(
        "row kinds",
        (INT, STRING),
        ((1, "insert"), (2, "update before"), (3, "update after"), (4, "delete")),
        (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE),
    ),
)

JAVA_WRITERS = (("serializer", "zero-slot"), ("projection", "keep-variable-chunk"))
"""Java 0.9 row writers and the null layout each one uses (``reference.spec.binary_row``)."""


def generate_binary_row(java: JavaHarness) -> dict[str, Any]:
    """Every row of :data:`BINARY_ROW_CASES` as Java's serializer writes it, and as its
    generated projection writes it when the bytes differ."""
    cases = []
    for case in BINARY_ROW_CASES:
        rows = [(case.kind_of(i), row) for i, row in enumerate(case.rows)]
        written = {
            writer: java.vector_binary_row(case.types, rows, writer=writer)
            for writer, _ in JAVA_WRITERS
        }
        for index, (kind, row) in enumerate(rows):
            seen: set[bytes] = set()
            for writer, layout in JAVA_WRITERS:
                data, hash_code = written[writer][index]
                if data in seen:
                    continue
                seen.add(data)
                cases.append(
                    {
                        "name": f"{case.name} #{index} ({writer})",
                        "types": [t.type_to_json(dt) for dt in case.types],
                        "values": [
                            binary_row_value_json(v, dt)
                            for v, dt in zip(row, case.types, strict=True)
                        ],
                        "kind": kind.short_string,
                        "null_layout": layout,
                        "bytes": data.hex(),
                        "hash": hash_code,
                    }
                )
    return {
        "producer": PRODUCER,
        "description": "BinaryRow bytes and hashCode, by InternalRowSerializer (zero-slot "
        "nulls) and by a generated projection (keep-variable-chunk nulls)",
        "cases": cases,
    }


# --------------------------------------------------------------------------------------------
# Buckets
# --------------------------------------------------------------------------------------------

BUCKET_COUNTS = (1, 2, 3, 4, 5, 7, 8, 10, 16, 100, 128, 1000)


@dataclass(frozen=True)
class BucketCase:
    name: str
    fields: tuple[t.DataField, ...]
    rows: tuple[Row, ...]
    primary_keys: tuple[str, ...] = ()
    partition_keys: tuple[str, ...] = ()
    options: dict[str, str] = field(default_factory=dict)


_NOT_NULL_INT = t.IntType(nullable=False)
BUCKET_CASES: tuple[BucketCase, ...] = (
    BucketCase(
        "int primary key",
        _fields(("k", _NOT_NULL_INT), ("v", STRING)),
        tuple((k, "v") for k in (0, 1, -1, 2, 3, 7, 42, 1000, 123456789, 2**31 - 1, -(2**31))),
        primary_keys=("k",),
    ),
    BucketCase(
        "bigint primary key",
        _fields(("k", t.BigIntType(nullable=False)), ("v", INT)),
        tuple((k, 0) for k in (0, 1, -1, 2**32, 2**63 - 1, -(2**63), 987654321012)),
        primary_keys=("k",),
    ),
    BucketCase(
        "string primary key",
        _fields(("k", STRING.copy(nullable=False)), ("v", INT)),
        tuple(
            (k, 0)
            for k in ("", "a", "b", "1234567", "12345678", "héllo", "😀", "a longer key string")
        ),
        primary_keys=("k",),
    ),
    BucketCase(
        "composite primary key",
        _fields(("a", _NOT_NULL_INT), ("b", STRING.copy(nullable=False)), ("v", t.DoubleType())),
        tuple((a, b, 0.5) for a in (0, 1, -7) for b in ("x", "a long string value")),
        primary_keys=("a", "b"),
    ),
    BucketCase(
        "bucket-key is a subset of the primary key",
        _fields(("a", _NOT_NULL_INT), ("b", STRING.copy(nullable=False)), ("v", INT)),
        tuple((a, b, 1) for a in (1, 2) for b in ("p", "q", "r")),
        primary_keys=("a", "b"),
        options={"bucket-key": "b"},
    ),
    BucketCase(
        "partitioned primary key (the partition is trimmed)",
        _fields(("p", STRING.copy(nullable=False)), ("k", _NOT_NULL_INT), ("v", INT)),
        tuple((p, k, 0) for p in ("2024-01-01", "2024-01-02") for k in (1, 2, 3)),
        primary_keys=("p", "k"),
        partition_keys=("p",),
    ),
    BucketCase(
        "append table with a two-field bucket-key in option order",
        _fields(("a", INT), ("b", STRING), ("c", BIGINT)),
        tuple((a, b, 5) for a in (1, None, 3) for b in ("u", None)),
        options={"bucket-key": "b,a"},
    ),
    BucketCase(
        "nullable keys of wide and special types",
        _fields(
            ("d20", _dec(20, 2)),
            ("d10", _dec(10, 2)),
            ("ts9", t.TimestampType(9)),
            ("ts3", t.TimestampType(3)),
            ("dbl", t.DoubleType()),
            ("flag", t.BooleanType()),
            ("day", t.DateType()),
            ("bin", BYTES),
            ("v", INT),
        ),
        (
            (None, None, None, None, None, None, None, None, 0),
            (
                Decimal("1.50"),
                Decimal("2.25"),
                Timestamp(5, 7),
                Timestamp(9),
                -0.0,
                True,
                1,
                b"",
                0,
            ),
            (
                Decimal("-1.00"),
                Decimal("0.00"),
                Timestamp(-1, 999_999),
                Timestamp(0),
                NAN,
                False,
                -1,
                b"\x01\x02",
                0,
            ),
            (
                None,
                Decimal("9.99"),
                Timestamp(1_700_000_000_123, 456_789),
                None,
                INF,
                None,
                None,
                None,
                0,
            ),
        ),
        options={"bucket-key": "d20,d10,ts9,ts3,dbl,flag,day,bin"},
    ),
)


def generate_bucket(java: JavaHarness) -> dict[str, Any]:
    """Bucket-key rows, their hashes and buckets; trimmed primary keys and their hashes."""
    cases = []
    for case in BUCKET_CASES:
        results = java.vector_bucket(
            case.fields,
            case.rows,
            BUCKET_COUNTS,
            partition_keys=case.partition_keys,
            primary_keys=case.primary_keys,
            options=case.options,
        )
        row_type = t.RowType(case.fields)
        cases.append(
            {
                "name": case.name,
                "fields": [t.field_to_json(f) for f in case.fields],
                "partition_keys": list(case.partition_keys),
                "primary_keys": list(case.primary_keys),
                "options": dict(case.options),
                "rows": [
                    {
                        "values": [
                            encode_value(v, f.type)
                            for v, f in zip(row, row_type.fields, strict=True)
                        ],
                        **result,
                    }
                    for row, result in zip(case.rows, results, strict=True)
                ],
            }
        )
    return {
        "producer": PRODUCER,
        "description": "bucket-key BinaryRow and hash (generated projection), bucket per bucket "
        "count (FixedBucketRowKeyExtractor), trimmed primary key and hash (dynamic bucket)",
        "bucket_counts": list(BUCKET_COUNTS),
        "cases": cases,
    }


# --------------------------------------------------------------------------------------------
# HASH index and deletion vectors
# --------------------------------------------------------------------------------------------

HASH_INDEX_CASES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("empty", ()),
    ("one hash", (1465514398,)),
    ("signed edges", (0, -1, 2**31 - 1, -(2**31), 1, -2)),
    ("hundred hashes", tuple(((i * 2654435761) % 2**32) - 2**31 for i in range(100))),
)


def generate_hash_index(java: JavaHarness) -> dict[str, Any]:
    cases = []
    for name, hashes in HASH_INDEX_CASES:
        data, decoded = java.vector_hash_index(hashes)
        cases.append({"name": name, "hashes": decoded, "bytes": data.hex()})
    return {
        "producer": PRODUCER,
        "description": "dynamic-bucket HASH index files (HashIndexFile.write) of the hashes "
        "as Java reads them back",
        "cases": cases,
    }


DELETION_VECTOR_CASES: tuple[tuple[str, dict[str, tuple[int, ...]]], ...] = (
    ("one file, few rows", {"data-a.parquet": (1, 2, 3)}),
    ("first row only", {"data-b.orc": (0,)}),
    ("two files in insertion order", {"z-last.parquet": (5, 9), "a-first.parquet": (0,)}),
    ("a run of rows", {"data-run.parquet": tuple(range(100, 1100))}),
    (
        "positions across roaring containers",
        {"data-wide.parquet": (0, 65535, 65536, 131072, 2**31 - 1)},
    ),
    ("dense and sparse", {"f1": tuple(range(0, 3000, 3)), "f2": (7,), "f3": tuple(range(64))}),
)


def generate_deletion_vectors(java: JavaHarness) -> dict[str, Any]:
    cases = []
    for name, vectors in DELETION_VECTOR_CASES:
        files = java.vector_deletion_vectors(vectors)
        cases.append(
            {
                "name": name,
                "vectors": [[file, list(positions)] for file, positions in vectors.items()],
                "files": [
                    {
                        "bytes": f["bytes"],
                        "row_count": f["row_count"],
                        "ranges": f["ranges"],
                        "decoded": f["decoded"],
                    }
                    for f in files
                ],
            }
        )
    return {
        "producer": PRODUCER,
        "description": "deletion-vectors index files (DeletionVectorsIndexFile.write of "
        "32-bit BitmapDeletionVectors): bytes, ranges, and the vectors Java reads back",
        "cases": cases,
    }


# --------------------------------------------------------------------------------------------
# Bloom filter and bitmap index bodies
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexCase:
    """One column of values for one index type; ``absent`` literals are queried as well."""

    sql_type: str
    values: tuple[Value, ...]
    options: dict[str, Any] = field(default_factory=dict)
    absent: tuple[Value, ...] = ()
    queried: bool = True


def _ts(millis: int, nanos: int = 0) -> Timestamp:
    return Timestamp(millis, nanos)


def _f32(*bits: str) -> tuple[float, ...]:
    return tuple(_float32(b) for b in bits)


def _f64(*bits: str) -> tuple[float, ...]:
    return tuple(_float64(b) for b in bits)


_BLOOM_SMALL = {"items": 20, "fpp": 0.05}
BLOOM_CASES: tuple[IndexCase, ...] = (
    IndexCase("TINYINT", (0, 1, -1, 127, -128, None), _BLOOM_SMALL, (2, -2, 100)),
    IndexCase("SMALLINT", (0, 300, -300, 32767, -32768), _BLOOM_SMALL, (1, 301)),
    IndexCase(
        "INT",
        (1, 2, 3, None, -7, 2147483647, -2147483648),
        _BLOOM_SMALL,
        (4, 5, 6, 7, 8, -8),
    ),
    IndexCase(
        "BIGINT",
        (0, -1, 1099511627776, -9223372036854775808, 9223372036854775807),
        _BLOOM_SMALL,
        (1, 2, 3),
    ),
    IndexCase(
        "FLOAT",
        _f32("00000000", "80000000", "3fc00000", "7fc00000", "7f800000", "ff800000"),
        _BLOOM_SMALL,
        _f32("3f800000", "40000000"),
    ),
    IndexCase(
        "DOUBLE",
        _f64(
            "0000000000000000",
            "8000000000000000",
            "3ff8000000000000",
            "7ff8000000000000",
            "c00921fb54442d18",
        ),
        _BLOOM_SMALL,
        _f64("3ff0000000000000"),
    ),
    IndexCase("DATE", (0, 19000, -1), _BLOOM_SMALL, (1, 2, 3)),
    IndexCase("TIME", (0, 86399999, 1000), _BLOOM_SMALL, (1, 2)),
    IndexCase(
        "TIMESTAMP(3)",
        (_ts(1700000000123), _ts(-1, 999999), _ts(0)),
        _BLOOM_SMALL,
        (_ts(1), _ts(2)),
    ),
    IndexCase(
        "TIMESTAMP(6)",
        (_ts(1700000000123, 456000), _ts(-1, 999999), _ts(0, 1000)),
        _BLOOM_SMALL,
        (_ts(0, 2000), _ts(7)),
    ),
    IndexCase("TIMESTAMP(9)", (_ts(1700000000123, 456789), _ts(-2, 1)), _BLOOM_SMALL, (_ts(3),)),
    IndexCase("TIMESTAMP_LTZ(3)", (_ts(1700000000123), _ts(5)), _BLOOM_SMALL, (_ts(6),)),
    IndexCase(
        "STRING",
        ("", "a", "hello", "héllo ✓", "asdfghjkl123_2500", "𝄞"),
        _BLOOM_SMALL,
        ("b", "world", "asdfghjkl123_2501"),
    ),
    IndexCase("BYTES", (b"", b"\x00\xff", b"hello"), _BLOOM_SMALL, (b"\x01", b"\x00\x00")),
    IndexCase("INT", tuple(range(50)), {"items": 100, "fpp": 0.001}, tuple(range(50, 80))),
    IndexCase("STRING", ("x", "y"), {}, ("z",)),
)

_V1 = {"version": 1}
BITMAP_CASES: tuple[IndexCase, ...] = (
    IndexCase("INT", (1, None, 2, 1, None, 3, 2, 1, 5), _V1, (4,)),
    IndexCase("BIGINT", (7, None, 7, 8, -9223372036854775808, 9223372036854775807, 8), _V1, (0,)),
    IndexCase("STRING", ("a", "b", None, "a", "c", "b", "a", ""), _V1, ("z",)),
    IndexCase("TINYINT", (1, 1, -1, 127, None), _V1, (0,)),
    IndexCase("SMALLINT", (300, -300, 300), _V1, (0,)),
    IndexCase("DATE", (19000, 19000, 0), _V1, (1,)),
    IndexCase("TIME", (5, 6, 5), _V1, (7,)),
    IndexCase(
        "TIMESTAMP(3)", (_ts(1700000000123), _ts(1700000000123, 999999), _ts(0)), _V1, (_ts(1),)
    ),
    IndexCase(
        "TIMESTAMP(6)",
        (_ts(1700000000123, 456000), _ts(1700000000123, 456999), _ts(-1, 999999)),
        _V1,
        (_ts(2),),
    ),
    IndexCase(
        "FLOAT",
        _f32("00000000", "80000000", "00000000", "7fc00000", "7fc00000", "3fc00000"),
        _V1,
        _f32("3f800000"),
    ),
    IndexCase(
        "DOUBLE",
        _f64("0000000000000000", "8000000000000000", "7ff8000000000000", "7ff8000000000000"),
        _V1,
        _f64("3ff0000000000000"),
    ),
    IndexCase("INT", (None, None), _V1, (1,)),
    IndexCase("INT", tuple((i * 919) % 1000 for i in range(300)), _V1, queried=False),
    IndexCase("STRING", tuple(f"k{(i * 31) % 97}" for i in range(400)), _V1, queried=False),
)


def _index_options(case: IndexCase) -> dict[str, str]:
    """The index options as Java reads them (``items`` / ``fpp`` / ``version`` as text)."""
    return {key: str(value) for key, value in case.options.items()}


def _distinct(case: IndexCase) -> list[Value]:
    """The non-null values once each, told apart by their JSON form (so 0.0 and -0.0, and
    every NaN, count as written)."""
    data_type = t.parse_sql_type(case.sql_type)
    by_form = {
        json.dumps(file_index_value_json(v, data_type)): v for v in case.values if v is not None
    }
    return list(by_form.values())


def _bloom_queries(case: IndexCase) -> list[dict[str, Any]]:
    return [{"op": "equal", "literal": v} for v in [*_distinct(case), *case.absent]]


def _bitmap_queries(case: IndexCase) -> list[dict[str, Any]]:
    if not case.queried:
        return []
    literals = [*_distinct(case), *case.absent]
    return [
        *({"op": "equal", "literal": v} for v in literals),
        *({"op": "not_equal", "literal": v} for v in literals),
        {"op": "is_null"},
        {"op": "is_not_null"},
    ]


def _index_vector(
    java: JavaHarness,
    element: str,
    index_type: str,
    case: IndexCase,
    queries: list[dict[str, Any]],
) -> dict[str, Any]:
    data_type = t.parse_sql_type(case.sql_type)
    answer = java.vector_file_index(
        index_type, data_type, case.values, options=_index_options(case), queries=queries
    )
    body = bytes.fromhex(answer["bytes"])
    vector: dict[str, Any] = {
        "element": element,
        "producer": PRODUCER,
        "type": case.sql_type,
        "options": dict(case.options),
        "values": [file_index_value_json(v, data_type) for v in case.values],
        **_body_json(body),
    }
    if "hashes" in answer:
        vector["hashes"] = answer["hashes"]
    if queries:
        vector["queries"] = [
            {
                "op": query["op"],
                **(
                    {"literal": file_index_value_json(query["literal"], data_type)}
                    if "literal" in query
                    else {}
                ),
                "result": result,
            }
            for query, result in zip(queries, answer["results"], strict=True)
        ]
    return vector


def generate_bloom_filter(java: JavaHarness) -> list[dict[str, Any]]:
    """Bloom-filter bodies, FastHash of each value, and equality answers."""
    return [
        _index_vector(java, "bloom_filter", "bloom-filter", case, _bloom_queries(case))
        for case in BLOOM_CASES
    ]


def generate_bitmap(java: JavaHarness) -> list[dict[str, Any]]:
    """Bitmap v1 bodies (0.9 has only v1) and the row ids of equality / null queries."""
    return [
        _index_vector(java, "bitmap", "bitmap", case, _bitmap_queries(case))
        for case in BITMAP_CASES
    ]


# --------------------------------------------------------------------------------------------
# File-index container
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContainerCase:
    name: str
    fields: tuple[t.DataField, ...]
    options: dict[str, str]
    rows: tuple[Row, ...]


_CONTAINER_FIELDS = _fields(("id", INT), ("name", STRING), ("price", t.DoubleType()))
_CONTAINER_ROWS = (*((i, f"n{i % 3}", i * 1.5) for i in range(6)), (None, None, None))
CONTAINER_CASES: tuple[ContainerCase, ...] = (
    ContainerCase(
        "one bloom-filter column",
        _CONTAINER_FIELDS,
        {"file-index.bloom-filter.columns": "id", "file-index.bloom-filter.id.items": "10"},
        _CONTAINER_ROWS,
    ),
    ContainerCase(
        "bloom-filter and bitmap on different columns",
        _CONTAINER_FIELDS,
        {
            "file-index.bloom-filter.columns": "id,price",
            "file-index.bloom-filter.id.items": "10",
            "file-index.bloom-filter.price.items": "10",
            "file-index.bitmap.columns": "name",
        },
        _CONTAINER_ROWS,
    ),
    ContainerCase(
        "bitmap on every column",
        _CONTAINER_FIELDS,
        {"file-index.bitmap.columns": "id,name,price"},
        _CONTAINER_ROWS,
    ),
    ContainerCase(
        "no rows",
        _CONTAINER_FIELDS,
        {"file-index.bitmap.columns": "name"},
        (),
    ),
)


def generate_file_index(java: JavaHarness) -> dict[str, Any]:
    """File-index containers as ``DataFileIndexWriter`` builds them, and Java's reading."""
    cases = []
    for case in CONTAINER_CASES:
        data, decoded = java.vector_file_index_container(case.fields, case.rows, case.options)
        row_type = t.RowType(case.fields)
        cases.append(
            {
                "name": case.name,
                "fields": [t.field_to_json(f) for f in case.fields],
                "options": dict(case.options),
                "rows": [
                    [encode_value(v, f.type) for v, f in zip(row, row_type.fields, strict=True)]
                    for row in case.rows
                ],
                "bytes": data.hex(),
                "decoded": [
                    [column, [[kind, body.hex()] for kind, body in indexes]]
                    for column, indexes in decoded
                ],
            }
        )
    return {
        "producer": PRODUCER,
        "description": "file-index containers (DataFileIndexWriter, embedded) and the "
        "columns / index types / bodies Java's FileIndexFormat.Reader finds in them",
        "cases": cases,
    }


# --------------------------------------------------------------------------------------------
# Manifest files
# --------------------------------------------------------------------------------------------

MANIFEST_TABLE_FIELDS = _fields(
    ("k", _NOT_NULL_INT),
    ("p", STRING.copy(nullable=False)),
    ("v", STRING),
    ("d", _dec(20, 2)),
)


def meta_file_kind(file_name: str) -> str:
    """``manifest-list``, ``index-manifest`` or ``manifest`` from a file name's prefix."""
    if file_name.startswith("manifest-list-"):
        return "manifest-list"
    if file_name.startswith("index-manifest-"):
        return "index-manifest"
    return "manifest"


def _write_manifest_tables(java: JavaHarness, root: Path, fmt: str) -> list[Path]:
    """Two small tables in ``manifest.format`` = ``fmt``: a partitioned primary-key table with
    deletion vectors (data manifests with ADD and DELETE entries, DV index manifests) and a
    dynamic-bucket table (HASH index manifests). Returns their ``manifest`` directories."""
    dv_table = root / "dv"
    java.create_table(
        dv_table,
        MANIFEST_TABLE_FIELDS,
        partition_keys=["p"],
        primary_keys=["k", "p"],
        options={
            "bucket": "2",
            "manifest.format": fmt,
            "file.format": "parquet",
            "deletion-vectors.enabled": "true",
        },
    )
    java.write(
        dv_table,
        [(k, f"p{k % 2}", f"v{k}", Decimal(k) / 4) for k in range(6)],
        commit=True,
    )
    java.compact(dv_table, full=True, commit=True)
    java.write(dv_table, [(1, "p1", None, None), (4, "p0", "again", Decimal("0.50"))], commit=True)
    java.compact(dv_table, full=False, commit=True)
    hash_table = root / "hash"
    java.create_table(
        hash_table,
        MANIFEST_TABLE_FIELDS,
        partition_keys=["p"],
        primary_keys=["k", "p"],
        options={"bucket": "-1", "manifest.format": fmt, "dynamic-bucket.target-row-num": "2"},
    )
    java.write(hash_table, [(k, "p0", None, None) for k in range(5)], commit=True)
    return [dv_table / "manifest", hash_table / "manifest"]


def generate_manifest(java: JavaHarness, fmt: str) -> dict[str, Any]:
    """Every manifest list, data manifest and index manifest of two Java-written tables in
    ``fmt``, with the records Java decodes from each."""
    files = []
    with tempfile.TemporaryDirectory(prefix="paimon-kit-manifest-vectors-") as scratch:
        for directory in _write_manifest_tables(java, Path(scratch), fmt):
            for path in sorted(directory.iterdir(), key=lambda p: (meta_file_kind(p.name), p.name)):
                kind = meta_file_kind(path.name)
                row_type, records = java.decode_meta_file(path, fmt, kind)
                files.append(
                    {
                        "table": directory.parent.name,
                        "name": path.name,
                        "kind": kind,
                        "fields": [t.field_to_json(f) for f in row_type.fields],
                        "records": records,
                        "bytes": path.read_bytes().hex(),
                    }
                )
    return {
        "producer": PRODUCER,
        "description": f"manifest lists, data manifests and index manifests in {fmt} written "
        "by Java tables, with the records Java decodes (by field name, harness value encoding)",
        "format": fmt,
        "files": files,
    }


# --------------------------------------------------------------------------------------------
# Writing the files
# --------------------------------------------------------------------------------------------

Generator = Callable[[JavaHarness], Any]


def _manifest_generator(fmt: str) -> Generator:
    return lambda java: generate_manifest(java, fmt)


GENERATORS: dict[str, Generator] = {
    "binary_row": generate_binary_row,
    "bucket": generate_bucket,
    "hash_index": generate_hash_index,
    "deletion_vector": generate_deletion_vectors,
    "bloom_filter": generate_bloom_filter,
    "bitmap": generate_bitmap,
    "file_index": generate_file_index,
    **{f"manifest/{fmt}": _manifest_generator(fmt) for fmt in MANIFEST_FORMATS},
}
"""Output name -> generator. ``a/b`` writes ``<out>/a/b.json``, ``a`` writes
``<out>/a/java-0.9.json``."""

DETERMINISTIC = tuple(name for name in GENERATORS if not name.startswith("manifest/"))


def output_path(out_dir: Path, name: str) -> Path:
    if "/" in name:
        element, stem = name.split("/", 1)
        return out_dir / element / f"{stem}.json"
    return out_dir / name / FILE_NAME


COMPACT_WIDTH = 100
"""A JSON container whose one-line form is at most this long is written on one line."""


def _render(value: Any, indent: str) -> str:
    flat = json.dumps(value, ensure_ascii=False, allow_nan=False)
    is_container = isinstance(value, (list, dict)) and value
    if not is_container or len(indent) + len(flat) <= COMPACT_WIDTH:
        return flat
    inner = indent + " "
    if isinstance(value, dict):
        items = [
            f"{inner}{json.dumps(k, ensure_ascii=False)}: {_render(v, inner)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if all(not isinstance(item, (list, dict)) for item in value):
        return _render_scalar_list(value, indent)
    items = [inner + _render(item, inner) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + indent + "]"


def _render_scalar_list(values: list[Any], indent: str) -> str:
    """A long list of scalars, several to a line."""
    inner = indent + " "
    lines: list[str] = []
    line = ""
    for value in values:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        if line and len(inner) + len(line) + len(text) + 2 > COMPACT_WIDTH:
            lines.append(line + ",")
            line = ""
        line = f"{line}, {text}" if line else text
    lines.append(line)
    return "[\n" + "\n".join(inner + x for x in lines) + "\n" + indent + "]"


def render_json(document: Any) -> str:
    """The committed text of a vector file: short containers on one line, key order kept."""
    return _render(document, "") + "\n"


def write_vectors(
    java: JavaHarness, out_dir: Path = VECTORS_DIR, names: Sequence[str] | None = None
) -> list[Path]:
    """Generate the chosen outputs (default all) into ``out_dir``; returns the files written."""
    written = []
    for name in names or list(GENERATORS):
        path = output_path(out_dir, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_json(GENERATORS[name](java)), encoding="utf-8")
        written.append(path)
    return written
