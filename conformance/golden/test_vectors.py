"""The reference against the golden byte vectors Java 0.9 wrote (``fixtures/vectors``).

For each element the reference must encode the recorded input to Java's bytes exactly and decode
Java's bytes to the meaning Java recorded. BinaryRow, bloom-filter, bitmap and BSI vectors are
checked by their codec tests (``test_binary_row.py``, ``file_index/test_*.py``), which load the
same files; this module checks that those files exist and covers the other elements. The
``java`` tests re-run Java: the deterministic vectors must come out unchanged, and Java must read
the ORC / Parquet / Avro manifests the reference writes to the same records.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance.golden import vectors as golden
from conformance.java.values import decode_value
from reference.spec import avro_container, bucket, hash_index
from reference.spec import binary_row as br
from reference.spec import deletion_vector as dv
from reference.spec import manifest as m
from reference.spec import types as t
from reference.spec.data_file import MetaFileKind
from reference.spec.file_index import bitmap as bm
from reference.spec.file_index import bloom_filter as bf
from reference.spec.file_index import container

VECTORS = golden.VECTORS_DIR


def _load(name: str) -> Any:
    return json.loads(golden.output_path(VECTORS, name).read_text(encoding="utf-8"))


def _cases(name: str) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = _load(name)["cases"]
    return cases


def _same(left: Any, right: Any) -> bool:
    """Equality where NaN equals NaN, through lists and tuples."""
    if isinstance(left, float) and isinstance(right, float):
        return left == right or (math.isnan(left) and math.isnan(right))
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(map(_same, left, right))
    return bool(left == right)


@pytest.mark.parametrize("name", list(golden.GENERATORS))
def test_every_element_has_its_java_vectors(name: str) -> None:
    document = _load(name)
    vectors = document if isinstance(document, list) else [document]
    assert vectors and {v["producer"] for v in vectors} == {golden.PRODUCER}
    if isinstance(document, dict):
        assert document.get("cases") or document.get("files"), f"{name} has no vectors"


@pytest.mark.parametrize("element", ["bitmap", "bsi"])
def test_main_only_vectors_are_kept_beside_the_0_9_ones(element: str) -> None:
    """Bitmap v2 and BSI do not exist in 0.9; their vectors came from Paimon main's classes."""
    main = json.loads((VECTORS / element / "java-main.json").read_text(encoding="utf-8"))
    assert main and {vector["producer"] for vector in main} == {"paimon-java main (2026)"}


# --------------------------------------------------------------------------------------------
# Buckets
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("bucket"), ids=lambda case: case["name"])
def test_bucket_keys_hashes_and_buckets(case: dict[str, Any]) -> None:
    fields = [t.parse_data_field(f) for f in case["fields"]]
    types = {f.name: f.type for f in fields}
    key_names = bucket.compute_bucket_key_fields(
        [f.name for f in fields], case["partition_keys"], case["primary_keys"], case["options"]
    )
    trimmed_names = bucket.compute_trimmed_primary_keys(
        case["primary_keys"], case["partition_keys"]
    )
    for row in case["rows"]:
        values = {
            f.name: decode_value(v, f.type) for f, v in zip(fields, row["values"], strict=True)
        }
        key_types = [types[name] for name in key_names]
        key = [values[name] for name in key_names]
        key_bytes = bytes.fromhex(row["bucket_key"])
        assert br.encode_binary_row(key, key_types) == key_bytes
        assert _same(br.decode_binary_row(key_bytes, key_types), tuple(key))
        assert bucket.compute_bucket_key_hash(key, key_types) == row["bucket_key_hash"]
        for count, expected in row["buckets"].items():
            assert bucket.compute_fixed_bucket(key, key_types, int(count)) == expected, count
        if trimmed_names:
            trimmed_types = [types[name] for name in trimmed_names]
            trimmed = [values[name] for name in trimmed_names]
            assert br.encode_binary_row(trimmed, trimmed_types) == bytes.fromhex(
                row["trimmed_primary_key"]
            )
            assert (
                bucket.compute_dynamic_bucket_key_hash(trimmed, trimmed_types)
                == row["trimmed_primary_key_hash"]
            )


# --------------------------------------------------------------------------------------------
# HASH index and deletion vectors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("hash_index"), ids=lambda case: case["name"])
def test_hash_index_files(case: dict[str, Any]) -> None:
    data = bytes.fromhex(case["bytes"])
    assert hash_index.encode_hash_index(case["hashes"]) == data
    assert list(hash_index.decode_hash_index(data)) == case["hashes"]


@pytest.mark.parametrize("case", _cases("deletion_vector"), ids=lambda case: case["name"])
def test_deletion_vector_files(case: dict[str, Any]) -> None:
    (java_file,) = case["files"]
    data = bytes.fromhex(java_file["bytes"])
    vectors = {name: dv.build_deletion_vector(positions) for name, positions in case["vectors"]}
    encoded, ranges = dv.encode_deletion_vector_file(vectors)
    assert encoded == data
    assert [[r.data_file_name, r.offset, r.length] for r in ranges] == java_file["ranges"]
    java_ranges = [dv.DeletionVectorRange(*triple) for triple in java_file["ranges"]]
    decoded = dv.decode_deletion_vector_file(data, java_ranges)
    assert {name: list(v.positions) for name, v in decoded.items()} == dict(java_file["decoded"])
    assert len(decoded) == java_file["row_count"]


# --------------------------------------------------------------------------------------------
# File-index container
# --------------------------------------------------------------------------------------------


def _column_options(options: Mapping[str, str], index_type: str, column: str) -> dict[str, str]:
    prefix = f"file-index.{index_type}.{column}."
    return {key[len(prefix) :]: value for key, value in options.items() if key.startswith(prefix)}


def _body_of(index_type: str, values: list[Any], data_type: t.DataType, options: Any) -> bytes:
    """The body the reference builds for a column (Java 0.9 writes bitmap version 1)."""
    if index_type == container.BLOOM_FILTER:
        sizing: dict[str, Any] = {}
        if "items" in options:
            sizing["items"] = int(options["items"])
        if "fpp" in options:
            sizing["fpp"] = float(options["fpp"])
        return bf.encode_bloom_filter(bf.build_bloom_filter(values, data_type, **sizing))
    built = bm.build_bitmap_index(values, data_type, version=bm.BitmapVersion.V1)
    return bm.encode_bitmap_index(built, data_type)


@pytest.mark.parametrize("case", _cases("file_index"), ids=lambda case: case["name"])
def test_file_index_containers(case: dict[str, Any]) -> None:
    data = bytes.fromhex(case["bytes"])
    decoded = container.decode_file_index(data)
    java = [
        (column, [(kind, bytes.fromhex(body)) for kind, body in indexes])
        for column, indexes in case["decoded"]
    ]
    assert [
        (c.column, [(i.index_type, i.body) for i in c.indexes]) for c in decoded.columns
    ] == java
    assert container.encode_file_index(decoded) == data
    bodies = {column: dict(indexes) for column, indexes in java}
    assert container.encode_file_index(container.compute_java_file_index(bodies)) == data
    fields = [t.parse_data_field(f) for f in case["fields"]]
    for column, indexes in java:
        position = [f.name for f in fields].index(column)
        data_type = fields[position].type
        values = [decode_value(row[position], data_type) for row in case["rows"]]
        for kind, body in indexes:
            options = _column_options(case["options"], kind, column)
            assert _body_of(kind, values, data_type, options) == body, (column, kind)


# --------------------------------------------------------------------------------------------
# Manifest files
# --------------------------------------------------------------------------------------------

DECODE: dict[str, Callable[..., Any]] = {
    "manifest": m.decode_manifest_entries,
    "manifest-list": m.decode_manifest_list,
    "index-manifest": m.decode_index_manifest,
}
ENCODE: dict[str, Callable[..., Any]] = {
    "manifest": m.encode_manifest_entries,
    "manifest-list": m.encode_manifest_list,
    "index-manifest": m.encode_index_manifest,
}
ROW_OF: dict[str, Callable[..., Any]] = {
    "manifest": m.encode_manifest_entry_row,
    "manifest-list": m.encode_manifest_file_meta_row,
    "index-manifest": m.encode_index_manifest_entry_row,
}
JAVA_09 = m.FieldSet.PAIMON_0_9
META_FILE_KIND = {
    "manifest": MetaFileKind.MANIFEST,
    "manifest-list": MetaFileKind.MANIFEST_LIST,
    "index-manifest": MetaFileKind.INDEX_MANIFEST,
}


def _manifest_files() -> list[tuple[str, dict[str, Any]]]:
    return [
        (fmt, file) for fmt in golden.MANIFEST_FORMATS for file in _load(f"manifest/{fmt}")["files"]
    ]


def _file_id(item: tuple[str, dict[str, Any]]) -> str:
    fmt, file = item
    return f"{fmt}-{file['table']}-{file['name'][:24]}"


def as_harness_json(value: Any, data_type: t.DataType) -> Any:
    """A reference row-dict value in the harness JSON encoding Java's records use."""
    if value is None:
        return None
    if isinstance(data_type, t.RowType):
        return {f.name: as_harness_json(value[f.name], f.type) for f in data_type.fields}
    if isinstance(data_type, t.ArrayType):
        return [as_harness_json(item, data_type.element) for item in value]
    if isinstance(data_type, (t.BinaryType, t.VarBinaryType)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(data_type, t.TimestampType):
        millis = value if isinstance(value, int) else m.decode_timestamp_millis(value).millisecond
        return {"millisecond": millis, "nano": 0}
    return value


def _reference_records(kind: str, data: bytes, fmt: m.ManifestFormat, row_type: t.RowType) -> Any:
    return [
        as_harness_json(ROW_OF[kind](record, JAVA_09), row_type)
        for record in DECODE[kind](data, fmt)
    ]


@pytest.mark.parametrize("item", _manifest_files(), ids=_file_id)
def test_manifest_files_decode_to_java_records(item: tuple[str, dict[str, Any]]) -> None:
    fmt_name, file = item
    fmt = m.parse_manifest_format(fmt_name)
    row_type = t.RowType(tuple(t.parse_data_field(f) for f in file["fields"]))
    data = bytes.fromhex(file["bytes"])
    assert m.detect_field_set(data, fmt, META_FILE_KIND[file["kind"]]) is JAVA_09
    assert _reference_records(file["kind"], data, fmt, row_type) == file["records"]


@pytest.mark.parametrize("item", [x for x in _manifest_files() if x[0] == "avro"], ids=_file_id)
def test_avro_manifest_files_encode_byte_identically(item: tuple[str, dict[str, Any]]) -> None:
    """Avro is byte-identical given Java's (random) sync marker. ORC and Parquet are not
    compared byte for byte: their writers are other libraries (see the java test below)."""
    _, file = item
    data = bytes.fromhex(file["bytes"])
    avro = m.ManifestFormat.AVRO
    records = DECODE[file["kind"]](data, avro)
    sync = avro_container.decode_avro_header(data).sync_marker
    assert ENCODE[file["kind"]](records, avro, avro_sync_marker=sync) == data


# --------------------------------------------------------------------------------------------
# Java re-runs
# --------------------------------------------------------------------------------------------


@pytest.mark.java
@pytest.mark.parametrize("name", golden.DETERMINISTIC)
def test_java_still_writes_the_committed_vectors(java_harness: Any, name: str) -> None:
    """Regenerating a deterministic element changes nothing (inputs, harness, jar agree)."""
    regenerated = golden.render_json(golden.GENERATORS[name](java_harness))
    assert regenerated == golden.output_path(VECTORS, name).read_text(encoding="utf-8")


@pytest.mark.java
@pytest.mark.parametrize("item", _manifest_files(), ids=_file_id)
def test_java_reads_the_manifest_files_the_reference_writes(
    java_harness: Any, tmp_path: Path, item: tuple[str, dict[str, Any]]
) -> None:
    fmt_name, file = item
    fmt = m.parse_manifest_format(fmt_name)
    records = DECODE[file["kind"]](bytes.fromhex(file["bytes"]), fmt)
    path = tmp_path / file["name"]
    path.write_bytes(ENCODE[file["kind"]](records, fmt))
    _, java_records = java_harness.decode_meta_file(path, fmt_name, file["kind"])
    assert java_records == file["records"]
