"""Tests of ``reference.store.write``: batches written, committed and read back, for each table
kind and file format, with checks of the physical files; option errors; and, with the Java
harness, Paimon 0.9 reading the tables and writing the same metadata for the same rows.

Expected rows come from a trivial model (all rows of an append table; the latest change of each
key of a deduplicate table). Physical checks recompute statistics with plain Python over the
decoded files, and bucket and index contents with ``reference.spec.bucket`` (tested against
Java's vectors), never with the writer's own functions.
"""

from __future__ import annotations

import io
import itertools
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.orc as pa_orc
import pyarrow.parquet as pq
import pytest

from reference import layout
from reference.errors import InvalidOptionError, SpecViolation
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.bucket import compute_dynamic_bucket_key_hash, compute_fixed_bucket
from reference.spec.commit_message import CommitMessage
from reference.spec.data import Row, RowKind, Timestamp
from reference.spec.data_file import (
    SEQUENCE_NUMBER_FIELD,
    VALUE_KIND_FIELD,
    DataFileMeta,
    compute_key_fields,
    parse_data_file_name,
)
from reference.spec.file_format import (
    FileFormat,
    arrow_to_rows,
    decode_data_file,
    parse_file_format,
)
from reference.spec.hash_index import decode_hash_index
from reference.spec.manifest import ManifestEntry
from reference.spec.schema import TableSchema
from reference.store import scan
from reference.store.write import FileNaming, is_compaction_needed_after_write, write_batch
from reference.table import Table

K = t.DataField(0, "k", t.IntType(nullable=False))
P = t.DataField(1, "p", t.IntType(nullable=False))
V = t.DataField(2, "v", t.VarCharType(t.MAX_LENGTH))
N = t.DataField(3, "n", t.BigIntType())
FIELDS = (K, P, V, N)
FORMATS = ("parquet", "orc", "avro")
INS, UPD, DEL = RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE

# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """A table kind: its keys and options."""

    name: str
    primary_keys: tuple[str, ...]
    options: Mapping[str, str]

    @property
    def is_append(self) -> bool:
        return not self.primary_keys


KINDS = (
    Kind("append-unaware", (), {"bucket": "-1"}),
    Kind("append-fixed", (), {"bucket": "3", "bucket-key": "k"}),
    Kind("pk-fixed", ("k", "p"), {"bucket": "3"}),
    Kind("pk-dynamic", ("k", "p"), {"bucket": "-1", "dynamic-bucket.target-row-num": "4"}),
    Kind("pk-cross-partition", ("k",), {"bucket": "-1", "dynamic-bucket.target-row-num": "4"}),
)


def create(
    root: Path,
    kind: Kind,
    fmt: str = "parquet",
    options: Mapping[str, str] | None = None,
    fields: Sequence[t.DataField] = FIELDS,
) -> Table:
    return Table.create(
        LocalFileIO(),
        str(root),
        fields,
        partition_keys=("p",),
        primary_keys=kind.primary_keys,
        options={"file.format": fmt, **kind.options, **(options or {})},
    )


def write(
    table: Table,
    rows: Sequence[Row],
    kinds: Sequence[RowKind] | None = None,
    naming: FileNaming | None = None,
) -> list[CommitMessage]:
    """Write one batch and commit it."""
    messages = write_batch(
        table.file_io, table.root, table.schema(), table.latest_snapshot(), rows, kinds,
        naming=naming,
    )  # fmt: skip
    table.commit(messages)
    return messages


def write_changes(
    table: Table, kind: Kind, batch: Sequence[tuple[RowKind, Row]]
) -> tuple[list[tuple[RowKind, Row]], list[CommitMessage]]:
    """Write and commit ``batch`` (without retractions for an append table); return what was
    written and the messages."""
    kept = only_adds(kind, batch)
    return kept, write(table, [row for _, row in kept], [change for change, _ in kept])


def ordered(rows: Iterable[Row]) -> list[Row]:
    """Rows in a fixed order (values may be null, so not by value)."""
    return sorted(rows, key=repr)


def read_rows(table: Table) -> list[Row]:
    return ordered(row for _, row in table.read().rows)


def live_entries(table: Table) -> list[ManifestEntry]:
    snapshot = table.latest_snapshot()
    assert snapshot is not None
    entries = [
        entry
        for manifest in scan.list_snapshot_manifests(table.file_io, table.root, snapshot)
        for entry in scan.read_manifest(table.file_io, table.root, manifest.file_name)
    ]
    return scan.compute_live_entries(entries).live


def physical_fields(schema: TableSchema) -> list[t.DataField]:
    """A data file's columns, from the spec (``datafile.md``), not from the writer."""
    if not schema.primary_keys:
        return list(schema.fields)
    keys = compute_key_fields(schema.fields, schema.trimmed_primary_keys)
    return [*keys, SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, *schema.fields]


def file_bytes(table: Table, partition_bytes: bytes, bucket: int, meta: DataFileMeta) -> bytes:
    schema = table.schema()
    partition_types = [f.type for f in schema.partition_type.fields]
    partition = deserialize_binary_row(partition_bytes, partition_types)
    directory = scan.compute_bucket_path(table.root, schema, partition, bucket)
    return table.file_io.read_bytes(layout.join(directory, meta.file_name))


def file_format_of(meta: DataFileMeta) -> FileFormat:
    return parse_file_format(parse_data_file_name(meta.file_name).file_format)


def file_rows(table: Table, partition_bytes: bytes, bucket: int, meta: DataFileMeta) -> list[Row]:
    """The physical rows of one data file of the table."""
    fields = physical_fields(table.schema())
    data = file_bytes(table, partition_bytes, bucket, meta)
    return arrow_to_rows(decode_data_file(data, file_format_of(meta), fields), fields)


def file_column_names(data: bytes, fmt: FileFormat) -> list[str]:
    """The top-level column names a data file declares (read with the format libraries)."""
    if fmt is FileFormat.PARQUET:
        return list(pq.ParquetFile(pa.BufferReader(data)).schema_arrow.names)
    if fmt is FileFormat.ORC:
        return list(pa_orc.ORCFile(pa.BufferReader(data)).schema.names)
    schema = fastavro.reader(io.BytesIO(data)).writer_schema
    record = next(s for s in schema if s != "null") if isinstance(schema, list) else schema
    return [f["name"] for f in record["fields"]]


def entry_rows(table: Table, entry: ManifestEntry) -> list[Row]:
    return file_rows(table, entry.partition, entry.bucket, entry.file)


def batches(seed: int, count: int = 3, size: int = 40) -> Iterator[list[tuple[RowKind, Row]]]:
    """Random changes over 15 keys in 2 partitions (values small ASCII, no truncation)."""
    rng = random.Random(seed)
    for _ in range(count):
        yield [
            (
                rng.choice([INS, INS, INS, UPD, DEL]),
                (
                    rng.randrange(15),
                    rng.randrange(2),
                    rng.choice(["a", "bb", None]),
                    rng.randrange(9),
                ),
            )
            for _ in range(size)
        ]


def expected_rows(kind: Kind, changes: Sequence[tuple[RowKind, Row]]) -> list[Row]:
    """Append: every row. Deduplicate: the latest change of each primary key (``(k, p)``, or
    ``k`` alone for the cross-partition table) wins; a delete removes the key."""
    if kind.is_append:
        return ordered(row for _, row in changes)
    positions = [FIELDS.index(next(f for f in FIELDS if f.name == k)) for k in kind.primary_keys]
    state: dict[tuple[int, ...], Row] = {}
    for change, row in changes:
        key = tuple(row[i] for i in positions)
        if change.is_add:
            state[key] = row
        else:
            state.pop(key, None)
    return ordered(state.values())


def only_adds(kind: Kind, batch: Sequence[tuple[RowKind, Row]]) -> list[tuple[RowKind, Row]]:
    return [(k, r) for k, r in batch if k.is_add] if kind.is_append else list(batch)


# --------------------------------------------------------------------------------------------
# Round trips and physical checks
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_batches_read_back(tmp_path: Path, kind: Kind, fmt: str) -> None:
    table = create(tmp_path / "t", kind, fmt)
    changes: list[tuple[RowKind, Row]] = []
    for batch in batches(seed=len(kind.name)):
        written, _ = write_changes(table, kind, batch)
        changes += written
        assert read_rows(table) == expected_rows(kind, changes)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_physical_files(tmp_path: Path, kind: Kind, fmt: str) -> None:
    table = create(tmp_path / "t", kind, fmt, options={"metadata.stats-mode": "full"})
    schema = table.schema()
    max_sequence: dict[tuple[bytes, int], int] = {}
    for batch in batches(seed=7):
        _, messages = write_changes(table, kind, batch)
        for message in messages:
            bucket = (message.partition, message.bucket)
            files = sorted(message.data.new_files, key=lambda f: f.min_sequence_number)
            first = 0 if kind.name == "append-unaware" else max_sequence.get(bucket, -1) + 1
            if kind.is_append:  # rows numbered in order from ``first``, file after file
                assert files[0].min_sequence_number == first
                for before, after in itertools.pairwise(files):
                    assert after.min_sequence_number == before.max_sequence_number + 1
            else:  # merged keys keep one of their numbers, all from ``first`` on
                assert files[0].min_sequence_number >= first
            max_sequence[bucket] = max(f.max_sequence_number for f in files)
    for entry in live_entries(table):
        data = file_bytes(table, entry.partition, entry.bucket, entry.file)
        expected_columns = [f.name for f in physical_fields(schema)]
        assert file_column_names(data, file_format_of(entry.file)) == expected_columns
        check_file(schema, kind, entry, entry_rows(table, entry))


def check_file(schema: TableSchema, kind: Kind, entry: ManifestEntry, rows: list[Row]) -> None:
    meta = entry.file
    assert meta.row_count == len(rows) and meta.level == 0 and meta.schema_id == schema.id
    values = [row[-len(FIELDS) :] for row in rows]
    value_types = [f.type for f in FIELDS]
    assert deserialize_binary_row(meta.value_stats.min_values, value_types) == column_extremes(
        values, min
    )
    assert deserialize_binary_row(meta.value_stats.max_values, value_types) == column_extremes(
        values, max
    )
    assert meta.value_stats.null_counts == tuple(
        sum(row[i] is None for row in values) for i in range(len(FIELDS))
    )
    for value in values:
        assert_bucket(schema, kind, entry, value)
    if kind.is_append:
        assert meta.max_sequence_number - meta.min_sequence_number + 1 == len(rows)
        return
    keys = [row[: len(schema.trimmed_primary_keys)] for row in rows]
    assert keys == sorted(set(keys)), "a level-0 file holds each key once, in key order"
    key_types = [f.type for f in schema.trimmed_primary_keys_type.fields]
    assert deserialize_binary_row(meta.min_key, key_types) == keys[0]
    assert deserialize_binary_row(meta.max_key, key_types) == keys[-1]
    sequences = [row[len(keys[0])] for row in rows]
    assert (min(sequences), max(sequences)) == (meta.min_sequence_number, meta.max_sequence_number)
    kinds = [RowKind.from_byte(row[len(keys[0]) + 1]) for row in rows]
    assert meta.delete_row_count == sum(k.is_retract for k in kinds)


def column_extremes(values: list[Row], pick: Any) -> Row:
    """Min or max of each column over non-null values (ints and short ASCII strings only)."""
    columns = zip(*values, strict=True)
    return tuple(pick((v for v in column if v is not None), default=None) for column in columns)


def assert_bucket(schema: TableSchema, kind: Kind, entry: ManifestEntry, value: Row) -> None:
    if kind.name == "append-unaware":
        assert entry.bucket == 0 and entry.total_buckets == -1
    elif kind.name in ("append-fixed", "pk-fixed"):
        assert entry.total_buckets == 3
        assert entry.bucket == compute_fixed_bucket((value[0],), [K.type], 3)
    else:
        assert entry.total_buckets == -1


@pytest.mark.parametrize("fmt", FORMATS)
def test_dynamic_bucket_index_holds_the_keys_of_its_bucket(tmp_path: Path, fmt: str) -> None:
    kind = KINDS[3]
    table = create(tmp_path / "t", kind, fmt)
    written: dict[tuple[bytes, int], set[int]] = {}
    for batch in batches(seed=11):
        messages = write(table, [row for _, row in batch], [change for change, _ in batch])
        for message in messages:
            keys = {
                row[0]
                for meta in message.data.new_files
                for row in file_rows(table, message.partition, message.bucket, meta)
            }
            written.setdefault((message.partition, message.bucket), set()).update(keys)
    snapshot = table.latest_snapshot()
    assert snapshot is not None and snapshot.index_manifest is not None
    index = scan.read_index_manifest(table.file_io, table.root, snapshot.index_manifest)
    assert {(e.partition, e.bucket) for e in index} == set(written)
    for entry in index:
        data = table.file_io.read_bytes(
            layout.index_file_path(table.root, entry.index_file.file_name)
        )
        hashes = decode_hash_index(data)
        expected = {
            compute_dynamic_bucket_key_hash((k,), [K.type])
            for k in written[entry.partition, entry.bucket]
        }
        assert (
            set(hashes) == expected and len(hashes) == len(expected) == entry.index_file.row_count
        )
        assert entry.index_file.index_type == "HASH"
    counts: dict[bytes, list[int]] = {}
    for partition, bucket in written:
        counts.setdefault(partition, []).append(bucket)
    for buckets in counts.values():  # buckets open from 0 upwards, at most 4 keys each
        assert sorted(buckets) == list(range(len(buckets)))


def test_dynamic_bucket_rewrites_the_index_of_a_touched_bucket(tmp_path: Path) -> None:
    table = create(tmp_path / "t", KINDS[3])
    [first] = write(table, [(1, 0, "a", 1)])
    [second] = write(table, [(2, 0, "b", 2)])
    assert second.index.deleted_index_files == first.index.new_index_files
    [old], [new] = first.index.new_index_files, second.index.new_index_files
    assert (old.row_count, new.row_count) == (1, 2)
    [third] = write(table, [(1, 0, "c", 3)])  # key 1's hash is already indexed
    assert third.index.new_index_files == () and third.index.deleted_index_files == ()


# --------------------------------------------------------------------------------------------
# Primary-key write rules
# --------------------------------------------------------------------------------------------

PK = KINDS[2]


def test_single_record_keys_are_written_unmerged(tmp_path: Path) -> None:
    """Java's write buffer writes a key's only record as it is, a lone DELETE included, and
    merges keys with several records."""
    table = create(tmp_path / "t", Kind("pk", ("k", "p"), {"bucket": "1"}))
    rows = [
        (3, 0, "a", 1),
        (1, 0, "b", 1),
        (3, 0, "a", 1),
        (2, 0, "c", 1),
        (1, 0, "d", 1),
        (5, 0, "z", 1),
    ]
    kinds = [INS, INS, DEL, INS, INS, DEL]
    [message] = write(table, rows, kinds)
    [meta] = message.data.new_files
    physical = file_rows(table, message.partition, message.bucket, meta)
    inserted, deleted = INS.byte_value, DEL.byte_value
    assert [(row[0], row[1], row[2]) for row in physical] == [
        (1, 4, inserted), (2, 3, inserted), (3, 2, deleted), (5, 5, deleted),
    ]  # fmt: skip
    assert (meta.min_sequence_number, meta.max_sequence_number, meta.delete_row_count) == (2, 5, 2)


def test_changelog_input_writes_every_record(tmp_path: Path) -> None:
    table = create(tmp_path / "t", PK, options={"bucket": "1", "changelog-producer": "input"})
    rows = [(3, 0, "a", 1), (1, 0, "b", 1), (3, 0, "c", 1)]
    naming = FileNaming("00000000-0000-0000-0000-00000000000a", Timestamp(0))
    [message] = write(table, rows, naming=naming)
    [changelog] = message.data.changelog_files
    [data] = message.data.new_files
    # Java opens the changelog file with the first record, before the first merged record
    assert changelog.file_name == "changelog-00000000-0000-0000-0000-00000000000a-0.parquet"
    assert data.file_name == "data-00000000-0000-0000-0000-00000000000a-1.parquet"
    assert (changelog.row_count, data.row_count) == (3, 2)
    changelog_rows = file_rows(table, message.partition, message.bucket, changelog)
    # every record, sorted by key then sequence number; numbers 0..2 in input order
    assert [(row[0], row[1], row[5]) for row in changelog_rows] == [
        (1, 1, "b"),
        (3, 0, "a"),
        (3, 2, "c"),
    ]


def test_merge_engines_merge_within_a_batch(tmp_path: Path) -> None:
    partial = create(tmp_path / "p", PK, options={"merge-engine": "partial-update"})
    write(partial, [(1, 0, "a", None), (1, 0, None, 5), (2, 0, None, 1)])
    assert read_rows(partial) == [(1, 0, "a", 5), (2, 0, None, 1)]
    aggregate = create(
        tmp_path / "a",
        PK,
        options={"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
    )
    write(aggregate, [(1, 0, "a", 2), (1, 0, "b", 3)])
    write(aggregate, [(1, 0, "c", 4)])
    assert read_rows(aggregate) == [(1, 0, "c", 9)]


def test_sequence_field_orders_a_key(tmp_path: Path) -> None:
    table = create(tmp_path / "t", PK, options={"sequence.field": "n"})
    write(table, [(1, 0, "late", 9), (1, 0, "early", 3)])
    assert read_rows(table) == [(1, 0, "late", 9)]


def test_rowkind_field_gives_the_kind(tmp_path: Path) -> None:
    table = create(tmp_path / "t", PK, options={"rowkind.field": "v"})
    write(table, [(1, 0, "+I", 1), (2, 0, "+I", 1)])
    write(table, [(1, 0, "-D", 1)])
    assert read_rows(table) == [(2, 0, "+I", 1)]


def test_ignore_delete_drops_retractions(tmp_path: Path) -> None:
    table = create(tmp_path / "t", PK, options={"ignore-delete": "true"})
    write(table, [(1, 0, "a", 1)])
    messages = write(table, [(1, 0, "a", 1), (2, 0, "b", 2)], [DEL, RowKind.UPDATE_BEFORE])
    assert messages == []
    assert read_rows(table) == [(1, 0, "a", 1)]


def test_deletion_vector_tables_wait_for_compaction(tmp_path: Path) -> None:
    """0.9 writes level-0 files only; readers of deletion-vector tables skip level 0."""
    table = create(tmp_path / "t", PK, options={"deletion-vectors.enabled": "true"})
    [message] = write(table, [(1, 0, "a", 1)])
    assert [f.level for f in message.data.new_files] == [0]
    assert is_compaction_needed_after_write(table.schema())
    assert read_rows(table) == []
    assert not is_compaction_needed_after_write(create(tmp_path / "u", PK).schema())


def test_cross_partition_update_moves_a_key(tmp_path: Path) -> None:
    table = create(tmp_path / "t", KINDS[4])
    write(table, [(1, 0, "a", 1), (2, 0, "b", 2)])
    write(table, [(1, 1, "moved", 3)])
    assert read_rows(table) == [(1, 1, "moved", 3), (2, 0, "b", 2)]


# --------------------------------------------------------------------------------------------
# Names, formats, errors
# --------------------------------------------------------------------------------------------


def test_naming_is_deterministic(tmp_path: Path) -> None:
    naming = FileNaming("12345678-1234-1234-1234-123456789abc", Timestamp(1_700_000_000_000))
    names = []
    for root in ("a", "b"):
        table = create(tmp_path / root, KINDS[1], "orc")
        messages = write(table, [(k, k % 2, "x", k) for k in range(6)], naming=naming)
        names.append([(m.bucket, [f.file_name for f in m.data.new_files]) for m in messages])
        assert all(
            f.creation_time == Timestamp(1_700_000_000_000)
            for m in messages
            for f in m.data.new_files
        )
    assert names[0] == names[1]
    assert all(
        name.startswith("data-12345678-") and name.endswith(".orc")
        for _, files in names[0]
        for name in files
    )


def test_format_per_level_zero(tmp_path: Path) -> None:
    table = create(tmp_path / "t", PK, options={"file.format.per.level": "0:avro,1:orc"})
    [message] = write(table, [(1, 0, "a", 1)])
    assert message.data.new_files[0].file_name.endswith(".avro")
    assert read_rows(table) == [(1, 0, "a", 1)]


def test_append_table_rejects_retractions(tmp_path: Path) -> None:
    table = create(tmp_path / "t", KINDS[0])
    with pytest.raises(SpecViolation):
        write(table, [(1, 0, "a", 1)], [DEL])
    ignoring = create(tmp_path / "u", KINDS[0], options={"ignore-delete": "true"})
    assert write(ignoring, [(1, 0, "a", 1), (2, 0, "b", 2)], [DEL, INS]) != []
    assert read_rows(ignoring) == [(2, 0, "b", 2)]


def test_not_null_columns(tmp_path: Path) -> None:
    table = create(tmp_path / "t", KINDS[0])
    with pytest.raises(SpecViolation) as raised:
        write(table, [(None, 0, "a", 1)])
    assert raised.value.code == "NULL_IN_NOT_NULL_COLUMN"


@pytest.mark.parametrize(
    ("kind", "options", "option"),
    [
        (KINDS[0], {"metadata.stats-mode": "sometimes"}, "metadata.stats-mode"),
        (KINDS[0], {"fields.v.stats-mode": "truncate(0)"}, "fields.v.stats-mode"),
        (KINDS[3], {"dynamic-bucket.target-row-num": "0"}, "dynamic-bucket.target-row-num"),
        (KINDS[3], {"dynamic-bucket.initial-buckets": "0"}, "dynamic-bucket.initial-buckets"),
        (KINDS[0], {"file.compression": "nonsense"}, "file.compression"),
        (KINDS[0], {"changelog-producer": "input"}, "changelog-producer"),
        (KINDS[0], {"file.format.per.level": "zero:avro"}, "file.format.per.level"),
        (
            KINDS[2],
            {"merge-engine": "first-row", "deletion-vectors.enabled": "true"},
            "deletion-vectors.enabled",
        ),
    ],
)
def test_invalid_options(tmp_path: Path, kind: Kind, options: dict[str, str], option: str) -> None:
    root = tmp_path / "t"
    table = create(root, kind)
    schema = table.schema()
    broken = TableSchema(
        schema.version, schema.id, schema.fields, schema.highest_field_id,
        schema.partition_keys, schema.primary_keys, {**schema.options, **options},
    )  # fmt: skip
    with pytest.raises(InvalidOptionError) as raised:
        write_batch(LocalFileIO(), str(root), broken, None, [(1, 0, "a", 1)])
    assert raised.value.option == option


def test_empty_batch_writes_nothing(tmp_path: Path) -> None:
    table = create(tmp_path / "t", PK)
    assert write_batch(table.file_io, table.root, table.schema(), None, []) == []


# --------------------------------------------------------------------------------------------
# Java 0.9 reads our tables and writes the same metadata
# --------------------------------------------------------------------------------------------


def _comparable(entry: ManifestEntry) -> tuple[Any, ...]:
    """A live entry without what differs between writers (name, size, creation time)."""
    meta = entry.file
    return (
        entry.partition, entry.bucket, entry.total_buckets, meta.row_count, meta.min_key,
        meta.max_key, meta.key_stats, meta.value_stats, meta.min_sequence_number,
        meta.max_sequence_number, meta.level, meta.delete_row_count, meta.file_source,
    )  # fmt: skip


JAVA_KINDS = (
    KINDS[0],
    KINDS[1],
    Kind("pk-fixed", ("k", "p"), {"bucket": "3", "write-only": "true"}),
    Kind(
        "pk-dynamic",
        ("k", "p"),
        {"bucket": "-1", "dynamic-bucket.target-row-num": "4", "write-only": "true"},
    ),
)
"""Kinds Java's harness can write; ``write-only`` keeps Java from compacting what we leave at
level 0 (compaction is not part of the writer)."""


SLOW_FORMATS = [
    "parquet",
    *(pytest.param(fmt, marks=pytest.mark.slow) for fmt in ("orc", "avro")),
]
"""Each comparison takes seconds of Java writing: Parquet in the default tier, the others in
the slow tier (the per-format statistics rules also have unit tests with Java's values)."""


@pytest.mark.java
@pytest.mark.parametrize("fmt", SLOW_FORMATS)
@pytest.mark.parametrize("kind", JAVA_KINDS, ids=lambda kind: kind.name)
def test_java_writes_the_same_metadata(
    tmp_path: Path, java_harness: Any, kind: Kind, fmt: str
) -> None:
    ours = create(tmp_path / "ours", kind, fmt)
    theirs = tmp_path / "java"
    java_harness.create_table(
        theirs, FIELDS, partition_keys=("p",), primary_keys=kind.primary_keys,
        options={"file.format": fmt, **kind.options},
    )  # fmt: skip
    for batch in batches(seed=3, count=2):
        written, _ = write_changes(ours, kind, batch)
        java_harness.write(theirs, written, commit=True)
    java_table = Table(LocalFileIO(), str(theirs))
    assert sorted(map(_comparable, live_entries(ours)), key=repr) == sorted(
        map(_comparable, live_entries(java_table)), key=repr
    )
    assert ordered(row for _, row in java_harness.read(ours.root).rows) == read_rows(java_table)


@pytest.mark.java
@pytest.mark.parametrize("fmt", FORMATS)
def test_java_writes_the_same_hash_index(tmp_path: Path, java_harness: Any, fmt: str) -> None:
    kind = Kind("pk-dynamic", ("k", "p"), {"bucket": "-1", "write-only": "true"})
    ours = create(tmp_path / "ours", kind, fmt)
    theirs = tmp_path / "java"
    java_harness.create_table(
        theirs, FIELDS, partition_keys=("p",), primary_keys=("k", "p"),
        options={"file.format": fmt, **kind.options},
    )  # fmt: skip
    rng = random.Random(1)
    for _ in range(2):
        rows = [(rng.randrange(400), rng.randrange(2), "v", 1) for _ in range(150)]
        write(ours, rows)
        java_harness.write(theirs, rows, commit=True)

    def index_files(table: Table) -> list[tuple[bytes, int, tuple[int, ...]]]:
        snapshot = table.latest_snapshot()
        assert snapshot is not None and snapshot.index_manifest is not None
        entries = scan.read_index_manifest(table.file_io, table.root, snapshot.index_manifest)
        return sorted(
            (e.partition, e.bucket, decode_hash_index(
                table.file_io.read_bytes(layout.index_file_path(table.root, e.index_file.file_name))
            ))
            for e in entries
        )  # fmt: skip

    assert index_files(ours) == index_files(Table(LocalFileIO(), str(theirs)))


@pytest.mark.java
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "kind",
    (
        *KINDS,
        Kind("pk-input-changelog", ("k", "p"), {"bucket": "2", "changelog-producer": "input"}),
    ),
    ids=lambda kind: kind.name,
)
def test_java_reads_our_tables(tmp_path: Path, java_harness: Any, kind: Kind, fmt: str) -> None:
    table = create(tmp_path / "t", kind, fmt)
    for batch in batches(seed=5):
        write_changes(table, kind, batch)

    def changes(rows: Sequence[tuple[RowKind, Row]]) -> list[tuple[str, Row]]:
        return sorted(((kind.short_string, row) for kind, row in rows), key=repr)

    assert changes(java_harness.read(table.root).rows) == changes(table.read().rows)


def test_thin_mode_leaves_out_key_columns(tmp_path: Path) -> None:
    """Main's ``data-file.thin-mode``: no ``_KEY_`` columns; key statistics are the statistics
    of the key's value columns."""
    table = create(tmp_path / "t", PK, options={"data-file.thin-mode": "true", "bucket": "1"})
    [message] = write(table, [(2, 0, "a", 1), (1, 0, "b", 2)])
    [meta] = message.data.new_files
    data = file_bytes(table, message.partition, message.bucket, meta)
    assert file_column_names(data, FileFormat.PARQUET) == [
        "_SEQUENCE_NUMBER", "_VALUE_KIND", "k", "p", "v", "n",
    ]  # fmt: skip
    assert deserialize_binary_row(meta.key_stats.min_values, [K.type]) == (1,)
    assert deserialize_binary_row(meta.key_stats.max_values, [K.type]) == (2,)
    assert read_rows(table) == [(1, 0, "b", 2), (2, 0, "a", 1)]


def test_main_naming_options(tmp_path: Path) -> None:
    options = {"data-file.prefix": "part-", "file.suffix.include.compression": "true"}
    table = create(tmp_path / "t", KINDS[0], options=options)
    naming = FileNaming("00000000-0000-0000-0000-000000000001")
    [message] = write(table, [(1, 0, "a", 1)], naming=naming)
    [meta] = message.data.new_files
    assert meta.file_name == "part-00000000-0000-0000-0000-000000000001-0.zst.parquet"
    assert read_rows(table) == [(1, 0, "a", 1)]
