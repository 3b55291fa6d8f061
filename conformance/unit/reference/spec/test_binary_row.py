"""BinaryRow: bytes worked out by hand from the layout, bytes Java wrote into manifests, byte
vectors from the Java harness (when present), round trips, and corrupted input.

Oracles, in order of strength: the Java-written manifests of the third-party tables (partition
values checked against the ``k=v`` directories Java wrote, keys and stats against the Parquet
data files Java wrote), byte vectors worked out by hand from the layout (each with its
derivation), and published Murmur3 test values.

Java byte vectors: every ``fixtures/vectors/binary_row/*.json`` file is checked by
``test_java_vector_file``. A file is ``{"producer": "...", "cases": [case, ...]}`` where a case is::

    {"name": str, "types": [type JSON as in schema files], "values": [value JSON],
     "kind": "+I" (optional), "null_layout": "keep-variable-chunk" | "zero-slot" (optional),
     "bytes": hex of the BinaryRow (no arity prefix), "hash": Java BinaryRow.hashCode()}

Value JSON: null; BOOLEAN true/false; integers, DATE (days) and TIME (millis) as numbers; FLOAT
and DOUBLE as numbers or "NaN"/"Infinity"/"-Infinity"; DECIMAL as a string; CHAR/VARCHAR as a
string; BINARY/VARBINARY/BLOB as hex; TIMESTAMP as epoch nanos; ARRAY/VECTOR/ROW as lists; MAP and
MULTISET as lists of [key, value] / [element, count] pairs in Java's write order; VARIANT as
{"value": hex, "metadata": hex}.
"""

from __future__ import annotations

import contextlib
import json
import math
import struct
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import fastavro
import pyarrow.orc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.strategies import row_types, rows
from reference.errors import PaimonFormatError, PaimonKitError, SpecViolation, UnsupportedFeature
from reference.spec import binary_row as br
from reference.spec import types as t
from reference.spec.data import (
    RowKind,
    Timestamp,
    Variant,
    decimal_from_unscaled,
    decimal_unscaled,
)

STRING = t.VarCharType(t.MAX_LENGTH)
BYTES = t.VarBinaryType(t.MAX_LENGTH)
KEEP = br.NullLayout.KEEP_VARIABLE_CHUNK
ZERO = br.NullLayout.ZERO_SLOT


def word(*byte_values: int) -> str:
    """Eight bytes as hex, the given ones first and zeros after."""
    return bytes(byte_values).ljust(8, b"\0").hex()


ZERO_WORD = word()

# --------------------------------------------------------------------------------------------
# Bytes worked out by hand
# --------------------------------------------------------------------------------------------

HAND_VECTORS: list[tuple[str, list[t.DataType], list[Any], RowKind, str]] = [
    # No field: the header word only.
    ("empty", [], [], RowKind.INSERT, ZERO_WORD),
    # One INT 1: header word, then the int in the low 4 bytes of its slot.
    ("int", [t.IntType()], [1], RowKind.INSERT, ZERO_WORD + word(1)),
    # Row kind -D is byte 0 = 3; field 0 null is bit 8 = byte 1 bit 0; a null slot is zero.
    ("null bigint, -D", [t.BigIntType()], [None], RowKind.DELETE, word(3, 1) + ZERO_WORD),
    # An all-null partition (INT, STRING): bits 8 and 9 set, both slots zero.
    (
        "all-null partition",
        [t.IntType(), STRING],
        [None, None],
        RowKind.INSERT,
        word(0, 0x03) + ZERO_WORD * 2,
    ),
    # BOOLEAN, TINYINT -1, SMALLINT -2, FLOAT 1.5 (0x3FC00000), DOUBLE -2.0 (0xC000000000000000).
    (
        "primitives",
        [t.BooleanType(), t.TinyIntType(), t.SmallIntType(), t.FloatType(), t.DoubleType()],
        [True, -1, -2, 1.5, -2.0],
        RowKind.INSERT,
        ZERO_WORD
        + word(1)
        + word(0xFF)
        + word(0xFE, 0xFF)
        + word(0, 0, 0xC0, 0x3F)
        + word(0, 0, 0, 0, 0, 0, 0, 0xC0),
    ),
    # DATE 19000 = 0x4A38, TIME 3600000 ms = 0x0036EE80.
    (
        "date and time",
        [t.DateType(), t.TimeType(3)],
        [19000, 3_600_000],
        RowKind.INSERT,
        ZERO_WORD + word(0x38, 0x4A) + word(0x80, 0xEE, 0x36),
    ),
    # "abc" inline: bytes from the first byte, last byte 0x80 | 3.
    (
        "short string",
        [STRING],
        ["abc"],
        RowKind.INSERT,
        ZERO_WORD + word(0x61, 0x62, 0x63, 0, 0, 0, 0, 0x83),
    ),
    # "" inline: only the mark.
    ("empty string", [STRING], [""], RowKind.INSERT, ZERO_WORD + word(0, 0, 0, 0, 0, 0, 0, 0x80)),
    # 8 bytes do not inline: slot = offset 16 << 32 | length 8; data in the variable part.
    (
        "8-byte string",
        [STRING],
        ["abcdefgh"],
        RowKind.INSERT,
        ZERO_WORD + word(8, 0, 0, 0, 16) + b"abcdefgh".hex(),
    ),
    # 9 bytes of binary: padded with 7 zeros to a word.
    (
        "9-byte binary",
        [BYTES],
        [b"\x01" * 9],
        RowKind.INSERT,
        ZERO_WORD + word(9, 0, 0, 0, 16) + "01" * 9 + "00" * 7,
    ),
    # DECIMAL(5, 2) 1.23 is compact: unscaled 123 = 0x7B as a long.
    (
        "compact decimal",
        [t.DecimalType(5, 2)],
        [Decimal("1.23")],
        RowKind.INSERT,
        ZERO_WORD + word(0x7B),
    ),
    # DECIMAL(20, 2) -1.00: unscaled -100 = one byte 0x9C; 16 bytes reserved.
    (
        "decimal -1.00",
        [t.DecimalType(20, 2)],
        [Decimal("-1.00")],
        RowKind.INSERT,
        ZERO_WORD + word(1, 0, 0, 0, 16) + "9c" + "00" * 15,
    ),
    # DECIMAL(20, 2) 1.28: unscaled 128 needs a sign byte: 00 80.
    (
        "decimal 1.28",
        [t.DecimalType(20, 2)],
        [Decimal("1.28")],
        RowKind.INSERT,
        ZERO_WORD + word(2, 0, 0, 0, 16) + "0080" + "00" * 14,
    ),
    # TIMESTAMP(3) is compact: epoch millis 1000 = 0x3E8.
    (
        "compact timestamp",
        [t.TimestampType(3)],
        [Timestamp(1000)],
        RowKind.INSERT,
        ZERO_WORD + word(0xE8, 3),
    ),
    # TIMESTAMP(6): slot = offset 16 << 32 | nanos 5000 (0x1388); millis -1 in the variable part.
    (
        "timestamp(6)",
        [t.LocalZonedTimestampType(6)],
        [Timestamp(-1, 5000)],
        RowKind.INSERT,
        ZERO_WORD + word(0x88, 0x13, 0, 0, 16) + "ff" * 8,
    ),
    # Null TIMESTAMP(9), default layout: null bit, slot = offset 16 << 32, a zero word reserved.
    (
        "null timestamp(9)",
        [t.TimestampType(9)],
        [None],
        RowKind.INSERT,
        word(0, 1) + word(0, 0, 0, 0, 16) + ZERO_WORD,
    ),
    # ARRAY<INT> [1, null, 3]: count 3, null bits 0b010, three 4-byte slots, pad to 24 bytes.
    (
        "int array",
        [t.ArrayType(t.IntType())],
        [[1, None, 3]],
        RowKind.INSERT,
        ZERO_WORD
        + word(24, 0, 0, 0, 16)
        + "03000000"
        + "02000000"
        + "01000000"
        + "00000000"
        + "03000000"
        + "00000000",
    ),
    # ARRAY<BOOLEAN> [true, false]: 1-byte slots, 10 bytes padded to 16.
    (
        "boolean array",
        [t.ArrayType(t.BooleanType())],
        [[True, False]],
        RowKind.INSERT,
        ZERO_WORD + word(16, 0, 0, 0, 16) + "02000000" + "00000000" + "0100" + "00" * 6,
    ),
    # MAP<INT, STRING> {1: "a"}: key array (16 bytes) size, key array, value array with "a"
    # inline; the map is 36 bytes, padded to 40 in the row.
    (
        "map",
        [t.MapType(t.IntType(), STRING)],
        [{1: "a"}],
        RowKind.INSERT,
        ZERO_WORD
        + word(36, 0, 0, 0, 16)
        + "10000000"
        + "01000000"
        + "00000000"
        + "01000000"
        + "00000000"
        + "01000000"
        + "00000000"
        + word(0x61, 0, 0, 0, 0, 0, 0, 0x81)
        + "00000000",
    ),
    # MULTISET<STRING> {"x": 2}: a map to INT counts.
    (
        "multiset",
        [t.MultisetType(STRING)],
        [{"x": 2}],
        RowKind.INSERT,
        ZERO_WORD
        + word(36, 0, 0, 0, 16)
        + "10000000"
        + "01000000"
        + "00000000"
        + word(0x78, 0, 0, 0, 0, 0, 0, 0x81)
        + "01000000"
        + "00000000"
        + "02000000"
        + "00000000"
        + "00000000",
    ),
    # ROW<INT> (7,): a whole nested BinaryRow of 16 bytes.
    (
        "nested row",
        [t.RowType((t.DataField(0, "a", t.IntType()),))],
        [(7,)],
        RowKind.INSERT,
        ZERO_WORD + word(16, 0, 0, 0, 16) + ZERO_WORD + word(7),
    ),
]


@pytest.mark.parametrize(
    ("types", "values", "kind", "expected"),
    [case[1:] for case in HAND_VECTORS],
    ids=[case[0] for case in HAND_VECTORS],
)
def test_hand_vectors(
    types: list[t.DataType], values: list[Any], kind: RowKind, expected: str
) -> None:
    data = bytes.fromhex(expected)
    assert br.encode_binary_row(values, types, kind).hex() == expected
    assert br.decode_binary_row(data, types) == tuple(values)
    assert br.decode_row_kind(data) is kind


def test_null_layouts_differ_only_for_non_compact_decimal_and_timestamp() -> None:
    types: list[t.DataType] = [t.DecimalType(38, 0), t.TimestampType(3), STRING]
    keep = br.encode_binary_row([None, None, None], types, null_layout=KEEP)
    zero = br.encode_binary_row([None, None, None], types, null_layout=ZERO)
    # Null bits 8, 9, 10 -> byte 1 = 0b111.
    header = word(0, 0x07)
    assert zero.hex() == header + ZERO_WORD * 3
    assert keep.hex() == header + word(0, 0, 0, 0, 32) + ZERO_WORD * 2 + "00" * 16
    assert br.decode_binary_row(keep, types) == br.decode_binary_row(zero, types) == (None,) * 3


def test_null_bit_set_grows_past_56_fields() -> None:
    assert br.compute_null_bits_size(56) == 8
    assert br.compute_null_bits_size(57) == 16
    types: list[t.DataType] = [t.IntType()] * 57
    values: list[Any] = [None if i == 56 else i for i in range(57)]
    data = br.encode_binary_row(values, types)
    assert len(data) == 16 + 57 * 8
    assert data[8] == 0x01  # bit 8 + 56 = 64: byte 8, bit 0
    assert br.decode_binary_row(data, types) == tuple(values)


def test_empty_row_and_its_serialized_form() -> None:
    assert bytes(8) == br.EMPTY_ROW
    assert bytes(12) == br.SERIALIZED_EMPTY_ROW
    assert br.deserialize_binary_row(br.SERIALIZED_EMPTY_ROW, []) == ()


def test_serialized_form_has_a_big_endian_arity_prefix() -> None:
    data = br.serialize_binary_row([1, 2], [t.IntType(), t.IntType()])
    assert data[:4] == b"\x00\x00\x00\x02"
    assert data[4:] == br.encode_binary_row([1, 2], [t.IntType(), t.IntType()])


def test_variant_blob_and_vector() -> None:
    types: list[t.DataType] = [t.VariantType(), t.BlobType(), t.VectorType(t.FloatType(), 3)]
    values: list[Any] = [Variant(b"\x0c\x01", b"\x01\x00\x00"), b"blob", [1.0, 2.0, 3.0]]
    data = br.encode_binary_row(values, types)
    fixed = 8 + 3 * 8
    expected = (
        ZERO_WORD
        # Variant: value size 2, value, metadata: 9 bytes at 32, padded to 16.
        + word(9, 0, 0, 0, fixed)
        + word(0x62, 0x6C, 0x6F, 0x62, 0, 0, 0, 0x84)
        # Vector: count 3, 12 bytes of floats padded to 16: 20 bytes at 48, padded to 24.
        + word(20, 0, 0, 0, fixed + 16)
        + "02000000"
        + "0c01"
        + "010000"
        + "00" * 7
        + "03000000"
        + "0000803f"
        + "00000040"
        + "00004040"
        + "00000000"
        + "00000000"
    )
    assert data.hex() == expected
    assert br.decode_binary_row(data, types) == tuple(values)


# --------------------------------------------------------------------------------------------
# Hash
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "seed", "expected"),
    [
        # Published Murmur3 x86_32 test values (inputs a multiple of 4 bytes).
        (b"", 0, 0),
        (b"", 1, 0x514E28B7),
        (b"\xff\xff\xff\xff", 0, 0x76293B50),
        (b"\x21\x43\x65\x87", 0, 0xF55B516B),
        (b"\x21\x43\x65\x87", 0x5082EDEE, 0x2362F9DE),
        (b"\x00\x00\x00\x00", 0, 0x2362F9DE),
    ],
)
def test_murmur_by_words_matches_published_values(data: bytes, seed: int, expected: int) -> None:
    signed = expected - (1 << 32) if expected >= 1 << 31 else expected
    assert br.compute_murmur_hash_by_words(data, seed) == signed


def test_row_hash_uses_seed_42_and_needs_whole_words() -> None:
    data = br.encode_binary_row([1], [t.IntType()])
    assert br.compute_binary_row_hash(data) == br.compute_murmur_hash_by_words(data, 42)
    with pytest.raises(PaimonFormatError):
        br.compute_binary_row_hash(data[:12])


# --------------------------------------------------------------------------------------------
# Java-written manifests
# --------------------------------------------------------------------------------------------

TABLES = [
    "append_09",
    "append_table_with_alter_table",
    "append_with_bitmap",
    "append_with_bsi",
    "pk_09",
    "pk_table_partial_update",
    "pk_table_scan_and_read_dv",
    "pk_table_with_mor",
]

STATS_STRING_LIMIT = 16
"""Default ``metadata.stats-mode`` is truncate(16): longer strings are cut in the stats."""


def _table_root(third_party: Path, table: str) -> Path:
    return third_party / "paimon-cpp" / "parquet" / f"{table}.db" / table


def _schemas(root: Path) -> dict[int, dict[str, Any]]:
    schemas = {}
    for path in (root / "schema").glob("schema-*"):
        schema = json.loads(path.read_text())
        schemas[schema["id"]] = schema
    return schemas


def _manifest_entries(root: Path) -> Iterator[dict[str, Any]]:
    """Every entry of every data manifest of a table (format from its first schema)."""
    manifest_format = _schemas(root)[0]["options"].get("manifest.format", "avro")
    yield from _manifest_entries_of(root, manifest_format)


def _manifest_entries_of(root: Path, manifest_format: str = "avro") -> Iterator[dict[str, Any]]:
    """Every entry of every data manifest, read with fastavro or pyarrow's ORC reader."""
    for path in sorted((root / "manifest").glob("manifest-*")):
        if path.name.startswith("manifest-list-"):
            continue
        if manifest_format == "orc":
            yield from pyarrow.orc.read_table(path).to_pylist()
        else:
            with path.open("rb") as stream:
                yield from fastavro.reader(stream)


def _field_types(schema: dict[str, Any], names: list[str]) -> list[t.DataType]:
    by_name = {f["name"]: t.parse_data_type(f["type"]) for f in schema["fields"]}
    return [by_name[name] for name in names]


def _trimmed_primary_keys(schema: dict[str, Any]) -> list[str]:
    return [k for k in schema["primaryKeys"] if k not in schema["partitionKeys"]]


def _data_file(root: Path, entry: dict[str, Any]) -> Path | None:
    return next(root.glob(f"**/bucket-{entry['_BUCKET']}/{entry['_FILE']['_FILE_NAME']}"), None)


def _assert_round_trip(data: bytes, values: tuple[Any, ...], types: list[t.DataType]) -> None:
    """Re-encoding gives Java's bytes under one of the two null layouts Java writers use."""
    assert data in {
        br.serialize_binary_row(values, types, null_layout=layout) for layout in br.NullLayout
    }


@pytest.mark.parametrize("table", TABLES)
def test_java_partitions_decode_to_the_partition_directories(third_party: Path, table: str) -> None:
    root = _table_root(third_party, table)
    schemas = _schemas(root)
    checked = 0
    for entry in _manifest_entries(root):
        schema = schemas[entry["_FILE"]["_SCHEMA_ID"]]
        names = schema["partitionKeys"]
        types = _field_types(schema, names)
        values = br.deserialize_binary_row(entry["_PARTITION"], types)
        # Partition keys and the bucket key are written by Java's projection: default layout.
        assert br.serialize_binary_row(values, types) == entry["_PARTITION"]
        directory = root.joinpath(*(f"{n}={v}" for n, v in zip(names, values, strict=True)))
        assert (directory / f"bucket-{entry['_BUCKET']}").is_dir()
        data_file = _data_file(root, entry)
        if data_file is not None:
            assert data_file.parent == directory / f"bucket-{entry['_BUCKET']}"
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("table", TABLES)
def test_java_min_max_keys_are_the_first_and_last_keys_of_the_file(
    third_party: Path, table: str
) -> None:
    root = _table_root(third_party, table)
    schemas = _schemas(root)
    for entry in _manifest_entries(root):
        schema = schemas[entry["_FILE"]["_SCHEMA_ID"]]
        names = _trimmed_primary_keys(schema)
        types = _field_types(schema, names)
        file_meta = entry["_FILE"]
        min_key = br.deserialize_binary_row(file_meta["_MIN_KEY"], types)
        max_key = br.deserialize_binary_row(file_meta["_MAX_KEY"], types)
        assert br.serialize_binary_row(min_key, types) == file_meta["_MIN_KEY"]
        assert br.serialize_binary_row(max_key, types) == file_meta["_MAX_KEY"]
        data_file = _data_file(root, entry)
        if not names:
            assert file_meta["_MIN_KEY"] == file_meta["_MAX_KEY"] == br.SERIALIZED_EMPTY_ROW
        elif data_file is not None:
            keys = pq.ParquetFile(data_file).read(columns=[f"_KEY_{n}" for n in names])
            key_rows = list(
                zip(*(keys.column(i).to_pylist() for i in range(len(names))), strict=True)
            )
            assert (min_key, max_key) == (key_rows[0], key_rows[-1])


def _check_stat(decoded: Any, actual: list[Any], *, is_min: bool) -> None:
    present = [v for v in actual if v is not None]
    if decoded is None or not present:
        return  # no stats collected (e.g. TIMESTAMP(9) in Parquet) or an all-null column
    expected = min(present) if is_min else max(present)
    if decoded != expected:
        # Only a value stats string longer than the limit may differ: it is truncated.
        assert isinstance(expected, str) and len(expected) > STATS_STRING_LIMIT
        assert len(decoded) <= STATS_STRING_LIMIT
        assert decoded == expected[:STATS_STRING_LIMIT] if is_min else decoded >= expected


@pytest.mark.parametrize("table", TABLES)
def test_java_stats_decode_to_the_data_file_min_max(third_party: Path, table: str) -> None:
    root = _table_root(third_party, table)
    schemas = _schemas(root)
    for entry in _manifest_entries(root):
        file_meta = entry["_FILE"]
        schema = schemas[file_meta["_SCHEMA_ID"]]
        value_names = file_meta.get("_VALUE_STATS_COLS") or [f["name"] for f in schema["fields"]]
        key_names = _trimmed_primary_keys(schema)
        data_file = _data_file(root, entry)
        data = None if data_file is None else pq.ParquetFile(data_file).read()
        for stats, names, prefix in (
            (file_meta["_VALUE_STATS"], value_names, ""),
            (file_meta["_KEY_STATS"], key_names, "_KEY_"),
        ):
            types = _field_types(schema, names)
            mins = br.deserialize_binary_row(stats["_MIN_VALUES"], types)
            maxs = br.deserialize_binary_row(stats["_MAX_VALUES"], types)
            _assert_round_trip(stats["_MIN_VALUES"], mins, types)
            _assert_round_trip(stats["_MAX_VALUES"], maxs, types)
            if data is None:
                continue
            for index, name in enumerate(names):
                column = data.column(prefix + name).to_pylist()
                _check_stat(mins[index], column, is_min=True)
                _check_stat(maxs[index], column, is_min=False)


def test_java_stats_keep_the_chunk_of_a_null_timestamp_9(third_party: Path) -> None:
    """``append_with_bsi`` has a TIMESTAMP(9) column without stats: its null min/max keep an
    8-byte chunk in the variable part, as Java 1.2+ writes SimpleStats rows."""
    root = _table_root(third_party, "append_with_bsi")
    schema = _schemas(root)[0]
    types = _field_types(schema, [f["name"] for f in schema["fields"]])
    for entry in _manifest_entries(root):
        data = entry["_FILE"]["_VALUE_STATS"]["_MIN_VALUES"]
        values = br.deserialize_binary_row(data, types)
        assert values[4] is None
        assert br.serialize_binary_row(values, types, null_layout=KEEP) == data
        assert br.serialize_binary_row(values, types, null_layout=ZERO) != data


# --------------------------------------------------------------------------------------------
# Java byte vectors (from the Java harness, when the files exist)
# --------------------------------------------------------------------------------------------

VECTOR_DIR = Path(__file__).resolve().parents[4] / "fixtures" / "vectors" / "binary_row"


def _value_from_json(value: Any, data_type: t.DataType) -> Any:
    """One value in the JSON convention of the module docstring, as an internal value."""
    if value is None:
        return None
    if isinstance(data_type, t.FloatType):
        return struct.unpack("<f", struct.pack("<f", float(value)))[0]
    if isinstance(data_type, t.DoubleType):
        return float(value)
    if isinstance(data_type, t.DecimalType):
        return decimal_from_unscaled(
            decimal_unscaled(Decimal(value), data_type.scale), data_type.scale
        )
    if isinstance(data_type, (t.BinaryType, t.VarBinaryType, t.BlobType)):
        return bytes.fromhex(value)
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return Timestamp.from_epoch_nanos(value)
    if isinstance(data_type, t.VariantType):
        return Variant(bytes.fromhex(value["value"]), bytes.fromhex(value["metadata"]))
    if isinstance(data_type, (t.ArrayType, t.VectorType)):
        return [_value_from_json(v, data_type.element) for v in value]
    if isinstance(data_type, t.MapType):
        return {
            _value_from_json(k, data_type.key): _value_from_json(v, data_type.value)
            for k, v in value
        }
    if isinstance(data_type, t.MultisetType):
        return {_value_from_json(k, data_type.element): count for k, count in value}
    if isinstance(data_type, t.RowType):
        return tuple(
            _value_from_json(v, f.type) for v, f in zip(value, data_type.fields, strict=True)
        )
    return value


def _same_values(left: Any, right: Any) -> bool:
    """Value equality where NaN equals NaN (Java vectors may hold NaN)."""
    if isinstance(left, float) and isinstance(right, float):
        return left == right or (math.isnan(left) and math.isnan(right))
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(map(_same_values, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return list(left) == list(right) and all(map(_same_values, left.values(), right.values()))
    return bool(left == right)


def _vector_files() -> list[Path]:
    return sorted(VECTOR_DIR.glob("*.json")) if VECTOR_DIR.is_dir() else []


@pytest.mark.parametrize("path", _vector_files() or [None], ids=lambda p: p.name if p else "none")
def test_java_vector_file(path: Path | None) -> None:
    if path is None:
        pytest.skip(f"no Java BinaryRow vectors in {VECTOR_DIR} yet")
    for case in json.loads(path.read_text())["cases"]:
        types = [t.parse_data_type(x) for x in case["types"]]
        values = tuple(_value_from_json(v, dt) for v, dt in zip(case["values"], types, strict=True))
        kind = RowKind.from_short_string(case.get("kind", "+I"))
        layout = br.NullLayout(case.get("null_layout", KEEP.value))
        data = bytes.fromhex(case["bytes"])
        assert _same_values(br.decode_binary_row(data, types), values), case["name"]
        assert br.decode_row_kind(data) is kind, case["name"]
        assert br.encode_binary_row(values, types, kind, null_layout=layout) == data, case["name"]
        assert br.compute_binary_row_hash(data) == case["hash"], case["name"]


# --------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------


@st.composite
def typed_rows(draw: st.DrawFn, max_depth: int = 1) -> tuple[list[t.DataType], tuple[Any, ...]]:
    row_type = draw(row_types(max_fields=8, max_depth=max_depth))
    return [f.type for f in row_type.fields], draw(rows(row_type))


def _check_round_trip(
    types: list[t.DataType], values: tuple[Any, ...], kind: RowKind, layout: br.NullLayout
) -> None:
    data = br.encode_binary_row(values, types, kind, null_layout=layout)
    assert len(data) % br.WORD_SIZE == 0
    assert br.decode_binary_row(data, types) == values
    assert br.decode_row_kind(data) is kind
    serialized = br.serialize_binary_row(values, types, kind, null_layout=layout)
    assert br.deserialize_binary_row(serialized, types) == values


@given(typed_rows(), st.sampled_from(RowKind), st.sampled_from(br.NullLayout))
def test_round_trip(
    typed_row: tuple[list[t.DataType], tuple[Any, ...]], kind: RowKind, layout: br.NullLayout
) -> None:
    _check_round_trip(*typed_row, kind, layout)


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=50)
@given(typed_rows(max_depth=2), st.sampled_from(RowKind), st.sampled_from(br.NullLayout))
def test_round_trip_nested_twice(
    typed_row: tuple[list[t.DataType], tuple[Any, ...]], kind: RowKind, layout: br.NullLayout
) -> None:
    _check_round_trip(*typed_row, kind, layout)


# --------------------------------------------------------------------------------------------
# Corrupt input
# --------------------------------------------------------------------------------------------

LONG_TEXT_TYPES: list[t.DataType] = [t.IntType(), STRING]
LONG_TEXT = br.encode_binary_row([5, "exactly16bytes!!"], LONG_TEXT_TYPES)


def _patched(data: bytes, position: int, replacement: bytes) -> bytes:
    return data[:position] + replacement + data[position + len(replacement) :]


def test_every_truncation_is_a_format_error() -> None:
    """The last chunk has no padding, so every proper prefix loses bytes that are needed."""
    for length in range(len(LONG_TEXT)):
        with pytest.raises(PaimonFormatError):
            br.decode_binary_row(LONG_TEXT[:length], LONG_TEXT_TYPES)


@pytest.mark.parametrize(
    ("slot_word", "reason"),
    [
        (1000 << 32 | 16, "outside"),  # offset past the end
        (24 << 32 | 17, "outside"),  # length past the end
        (0 << 32 | 16, "outside"),  # offset inside the fixed part
        (0x88 << 56, "claims 8 bytes"),  # inline mark with a length of 8
    ],
)
def test_bad_string_slot(slot_word: int, reason: str) -> None:
    data = _patched(LONG_TEXT, 16, struct.pack("<Q", slot_word))
    with pytest.raises(PaimonFormatError, match=reason):
        br.decode_binary_row(data, LONG_TEXT_TYPES)


def test_wrong_arity_in_serialized_form() -> None:
    serialized = br.encode_serialized_binary_row(LONG_TEXT, 2)
    assert br.deserialize_binary_row(serialized, LONG_TEXT_TYPES) == (5, "exactly16bytes!!")
    with pytest.raises(PaimonFormatError, match="has 2 fields, expected 3"):
        br.deserialize_binary_row(serialized, [*LONG_TEXT_TYPES, t.IntType()])
    with pytest.raises(PaimonFormatError, match="negative arity"):
        br.deserialize_binary_row(b"\xff\xff\xff\xff" + LONG_TEXT, LONG_TEXT_TYPES)
    with pytest.raises(PaimonFormatError, match="no arity"):
        br.deserialize_binary_row(b"\x00\x00", [])


def test_more_types_than_the_row_holds() -> None:
    with pytest.raises(PaimonFormatError, match="fixed part"):
        br.decode_binary_row(br.encode_binary_row([1], [t.IntType()]), [t.IntType()] * 2)


@pytest.mark.parametrize(
    ("types", "values", "position", "replacement", "reason"),
    [
        # Unknown row kind byte.
        ([t.IntType()], [1], 0, b"\x09", "row kind"),
        # Inline string that is not UTF-8.
        ([STRING], ["a"], 8, b"\xff", "UTF-8"),
        # Timestamp nanos of a millisecond must be below 1000000.
        ([t.TimestampType(9)], [Timestamp(0, 1)], 8, struct.pack("<I", 1_000_000), "nano"),
        # A non-compact decimal is 1 to 16 bytes.
        ([t.DecimalType(20, 0)], [Decimal(1)], 8, struct.pack("<I", 0), "decimal of 0 bytes"),
        ([t.DecimalType(20, 0)], [Decimal(1)], 8, struct.pack("<I", 17), "outside"),
        # Array element count larger than the array, or negative.
        ([t.ArrayType(t.IntType())], [[1]], 16, struct.pack("<i", 100), "smaller than"),
        ([t.ArrayType(t.IntType())], [[1]], 16, struct.pack("<i", -1), "negative"),
        # Map key array size larger than the map.
        ([t.MapType(t.IntType(), t.IntType())], [{1: 2}], 16, struct.pack("<i", 99), "key array"),
        # Nested row with an unknown row kind.
        ([t.RowType((t.DataField(0, "a", t.IntType()),))], [(1,)], 16, b"\x07", "row kind"),
    ],
)
def test_corrupt_values(
    types: list[t.DataType], values: list[Any], position: int, replacement: bytes, reason: str
) -> None:
    data = _patched(br.encode_binary_row(values, types), position, replacement)
    with pytest.raises(PaimonFormatError, match=reason):
        br.decode_binary_row(data, types)


@given(typed_rows(), st.data())
def test_flipped_bytes_decode_or_raise_a_kit_error(
    typed_row: tuple[list[t.DataType], tuple[Any, ...]], data: st.DataObject
) -> None:
    types, values = typed_row
    encoded = bytearray(br.encode_binary_row(values, types))
    position = data.draw(st.integers(0, len(encoded) - 1))
    encoded[position] ^= data.draw(st.integers(1, 255))
    with contextlib.suppress(PaimonKitError):
        br.decode_binary_row(bytes(encoded), types)


def test_values_that_do_not_fit_their_type() -> None:
    with pytest.raises(SpecViolation):
        br.encode_binary_row([128], [t.TinyIntType()])
    with pytest.raises(SpecViolation):
        br.encode_binary_row([Decimal("1.234")], [t.DecimalType(5, 2)])
    with pytest.raises(SpecViolation):
        br.encode_binary_row([Decimal("1234.5")], [t.DecimalType(5, 2)])
    with pytest.raises(SpecViolation):
        br.encode_binary_row(["x"], [t.IntType()])
    with pytest.raises(SpecViolation):
        br.encode_binary_row([1], [t.ArrayType(t.IntType())])
    with pytest.raises(SpecViolation):
        br.encode_binary_row([1, 2], [t.IntType()])
    with pytest.raises(UnsupportedFeature):
        br.encode_binary_row([[[1.0]]], [t.ArrayType(t.VectorType(t.FloatType(), 1))])


# --------------------------------------------------------------------------------------------
# Java 0.9 differential: which null layout each writer uses
# --------------------------------------------------------------------------------------------


@pytest.mark.java
def test_java_09_null_layouts_of_partitions_and_stats(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Paimon 0.9 writes a partition with Java's generated projection (a null non-compact
    DECIMAL or TIMESTAMP keeps its chunk) and SimpleStats with ``InternalRowSerializer`` (a
    null keeps only a zero slot)."""
    java = request.getfixturevalue("java_harness")
    fields = (
        t.DataField(0, "v_decimal", t.DecimalType(38, 2)),
        t.DataField(1, "v_ts", t.TimestampType(6)),
        t.DataField(2, "p_decimal", t.DecimalType(20, 2)),
        t.DataField(3, "p_ts", t.TimestampType(9)),
    )
    types = [f.type for f in fields]
    partition_types = types[2:]
    table = tmp_path / "nulls"
    java.create_table(
        table,
        fields,
        partition_keys=["p_decimal", "p_ts"],
        options={"bucket": "1", "bucket-key": "v_decimal", "manifest.format": "avro"},
    )
    rows = [(None, None, None, None), (None, None, Decimal("1.50"), Timestamp(5, 7))]
    java.write(table, rows, commit=True)
    partitions = set()
    for entry in _manifest_entries_of(table):
        partition_bytes = entry["_PARTITION"]
        partition = br.deserialize_binary_row(partition_bytes, partition_types)
        partitions.add(partition)
        layouts = {
            br.serialize_binary_row(partition, partition_types, null_layout=x)
            for x in br.NullLayout
        }
        assert (
            br.serialize_binary_row(partition, partition_types, null_layout=KEEP) == partition_bytes
        )
        assert (partition == (None, None)) == (len(layouts) == 2)
        for key in ("_MIN_VALUES", "_MAX_VALUES"):
            stats_bytes = entry["_FILE"]["_VALUE_STATS"][key]
            stats = br.deserialize_binary_row(stats_bytes, types)
            assert stats[:2] == (None, None)
            assert br.serialize_binary_row(stats, types, null_layout=ZERO) == stats_bytes
            assert br.serialize_binary_row(stats, types, null_layout=KEEP) != stats_bytes
    assert partitions == {(None, None), (Decimal("1.50"), Timestamp(5, 7))}
