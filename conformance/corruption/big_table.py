"""A large valid table for timing ``paimon-kit validate --deep`` (about 1 GB by default).

``write_big_table(path, target_bytes)`` creates a primary-key table (``id`` BIGINT, partition
``dt`` with :data:`PARTITIONS` values, :data:`BUCKETS` fixed buckets, Parquet, full statistics)
and fills it fast: the rows are generated as Arrow columns, each bucket is written as
:data:`FILES_PER_BUCKET` files of one sorted run at the top level (as a full compaction leaves
them: keys ascending, key ranges disjoint), and the metadata is made by the reference codecs and
committer (``reference.store.commit``), one commit per partition. Row-at-a-time writing through
the reference writer would take an hour for a gigabyte; here only the bucket of each key is
computed row by row (``reference.spec.bucket``, the Java hash), so the table is what Java would
accept.

Values come from a fixed seed, so one size always gives the same rows. Write it outside the
repository (``/tmp``) and delete it after timing.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reference import layout
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.binary_row import serialize_binary_row
from reference.spec.bucket import compute_fixed_bucket
from reference.spec.commit_message import CommitMessage, DataIncrement
from reference.spec.data import Value
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.file_format import FileFormat, compute_arrow_schema, encode_data_file
from reference.spec.schema import TableSchema
from reference.spec.stats import SimpleStats
from reference.store import metadata, scan
from reference.store.file_writer import compute_creation_time
from reference.store.read import compute_file_fields
from reference.table import Table

GIB = 2**30
DEFAULT_TARGET_BYTES = GIB
PARTITIONS = ("2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04")
BUCKETS = 4
FILES_PER_BUCKET = 2
TOP_LEVEL = 5
"""``num-levels`` defaults to 6, so a full compaction writes level 5 (Java ``CoreOptions``)."""
PAYLOAD_BYTES = 160
"""Random bytes per row, stored as hex text: about 185 bytes of Parquet per row in all."""
ESTIMATED_ROW_BYTES = 185
NULL_SHARE = 0.05
SEED = 7
WRITER = "big-table"

STRING = t.VarCharType(t.MAX_LENGTH)
FIELDS = (
    t.DataField(0, "id", t.BigIntType(nullable=False)),
    t.DataField(1, "dt", STRING.copy(False)),
    t.DataField(2, "name", STRING),
    t.DataField(3, "amount", t.DoubleType()),
    t.DataField(4, "quantity", t.IntType()),
    t.DataField(5, "payload", STRING),
)
OPTIONS = {
    "bucket": str(BUCKETS),
    "file.format": "parquet",
    "metadata.stats-mode": "full",
    "write-only": "true",
}
KEY_TYPES: tuple[t.DataType, ...] = (FIELDS[0].type,)


@dataclass(frozen=True)
class BigTableSummary:
    path: Path
    rows: int
    files: int
    data_bytes: int
    seconds: float

    def describe(self) -> str:
        return (
            f"{self.path}: {self.rows} rows in {self.files} Parquet files, "
            f"{self.data_bytes / 2**20:.1f} MiB, written in {self.seconds:.0f} s"
        )


def compute_buckets(ids: np.ndarray) -> np.ndarray:
    """The Java bucket of each key (the trimmed primary key is ``id`` alone)."""
    return np.fromiter(
        (compute_fixed_bucket((int(i),), KEY_TYPES, BUCKETS) for i in ids),
        dtype=np.int32,
        count=len(ids),
    )


def generate_columns(ids: np.ndarray, dt: str, rng: np.random.Generator) -> dict[str, pa.Array]:
    """The value columns of the rows with keys ``ids`` (ascending) in partition ``dt``."""
    count = len(ids)
    payload = rng.integers(0, 256, size=(count, PAYLOAD_BYTES), dtype=np.uint8)
    names = np.char.add("customer-", rng.integers(0, 10**6, size=count).astype(str))
    amount = np.round(rng.uniform(-1000, 1000, size=count), 2)
    return {
        "id": pa.array(ids, pa.int64()),
        "dt": pa.array([dt] * count, pa.string()),
        "name": pa.array(names, pa.string()),
        "amount": pa.array(amount, pa.float64(), mask=rng.random(count) < NULL_SHARE),
        "quantity": pa.array(rng.integers(0, 1000, size=count), pa.int32()),
        "payload": pa.array([row.tobytes().hex() for row in payload], pa.string()),
    }


def compute_column_stats(columns: Sequence[pa.Array], types: Sequence[t.DataType]) -> SimpleStats:
    """Full statistics (min, max, null count) of Arrow columns, serialized as Paimon does."""
    minimums: list[Value] = []
    maximums: list[Value] = []
    for column in columns:
        extremes = pc.min_max(column)
        minimums.append(extremes["min"].as_py())
        maximums.append(extremes["max"].as_py())
    nulls = tuple(column.null_count for column in columns)
    return SimpleStats(
        serialize_binary_row(minimums, types), serialize_binary_row(maximums, types), nulls
    )


def write_data_file(
    table_root: str, schema: TableSchema, bucket_dir: str, values: dict[str, pa.Array], seq: int
) -> DataFileMeta:
    """One primary-key data file (keys ascending) and its metadata; sequence numbers from
    ``seq`` on."""
    count = len(values["id"])
    columns = {
        "_KEY_id": values["id"],
        "_SEQUENCE_NUMBER": pa.array(np.arange(seq, seq + count), pa.int64()),
        "_VALUE_KIND": pa.array(np.zeros(count, dtype=np.int8), pa.int8()),
        **values,
    }
    fields = compute_file_fields(schema)
    arrow = pa.table([columns[f.name] for f in fields], schema=compute_arrow_schema(fields))
    data = encode_data_file(arrow, FileFormat.PARQUET, fields)
    name = layout.data_file_name(uuid.uuid4().hex, 0, FileFormat.PARQUET.value)
    LocalFileIO().write_bytes(layout.join(bucket_dir, name), data)
    first, last = int(values["id"][0].as_py()), int(values["id"][-1].as_py())
    return DataFileMeta(
        file_name=name,
        file_size=len(data),
        row_count=count,
        min_key=serialize_binary_row([first], KEY_TYPES),
        max_key=serialize_binary_row([last], KEY_TYPES),
        key_stats=compute_column_stats([values["id"]], KEY_TYPES),
        value_stats=compute_column_stats(
            [values[f.name] for f in FIELDS], [f.type for f in FIELDS]
        ),
        min_sequence_number=seq,
        max_sequence_number=seq + count - 1,
        schema_id=schema.id,
        level=TOP_LEVEL,
        extra_files=(),
        creation_time=compute_creation_time(),
        delete_row_count=0,
        file_source=FileSource.COMPACT,
    )


def write_partition(
    table: Table, schema: TableSchema, dt: str, ids: np.ndarray, rng: np.random.Generator
) -> list[CommitMessage]:
    """The files of one partition (every bucket, one sorted run each) as commit messages."""
    partition = serialize_binary_row([dt], [FIELDS[1].type])
    buckets = compute_buckets(ids)
    messages = []
    seq = 0
    for bucket in range(BUCKETS):
        bucket_dir = scan.compute_bucket_path(table.root, schema, (dt,), bucket)
        files = []
        for run in np.array_split(ids[buckets == bucket], FILES_PER_BUCKET):
            files.append(
                write_data_file(table.root, schema, bucket_dir, generate_columns(run, dt, rng), seq)
            )
            seq += len(run)
        messages.append(
            CommitMessage(partition, bucket, BUCKETS, data=DataIncrement(new_files=tuple(files)))
        )
    return messages


def write_big_table(
    path: Path, target_bytes: int = DEFAULT_TARGET_BYTES, seed: int = SEED
) -> BigTableSummary:
    """Write the table at ``path`` (which must not exist) with about ``target_bytes`` of data
    files, one commit per partition."""
    if path.exists():
        raise FileExistsError(f"{path} exists")
    started = time.monotonic()
    table = Table.create(
        LocalFileIO(),
        str(path),
        FIELDS,
        partition_keys=["dt"],
        primary_keys=["id", "dt"],
        options=OPTIONS,
    )
    schema = metadata.read_latest_schema(table.file_io, table.root)
    rows_per_partition = max(1, target_bytes // ESTIMATED_ROW_BYTES // len(PARTITIONS))
    rng = np.random.default_rng(seed)
    files = 0
    for index, dt in enumerate(PARTITIONS):
        first = index * rows_per_partition
        ids = np.arange(first, first + rows_per_partition, dtype=np.int64)
        messages = write_partition(table, schema, dt, ids, rng)
        table.commit(messages, commit_user=WRITER, identifier=index + 1)
        files += sum(len(m.data.new_files) for m in messages)
    data_bytes = sum(p.stat().st_size for p in path.rglob("*.parquet"))
    return BigTableSummary(
        path, rows_per_partition * len(PARTITIONS), files, data_bytes, time.monotonic() - started
    )
