"""A large valid table for timing ``paimon-kit validate --deep``, written by Java Paimon 0.9.

``write_big_table(path, rows)`` creates a primary-key table (4 partitions, 4 fixed buckets,
deletion vectors, Parquet) through the Java harness (``conformance.java``), writes ``rows``
rows in batches of :data:`BATCH_ROWS` (one commit each, about a third of them updates of
earlier keys), then fully compacts it. About 10 million rows make 1 GB of data files. Values
are pseudo-random with a fixed seed, so a size always gives the same table.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

from conformance.java import build as java_build
from conformance.java.harness import JavaHarness
from reference.spec import types as t
from reference.spec.data import Row, Timestamp

BATCH_ROWS = 50_000
PARTITIONS = ("2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04")
UPDATE_SHARE = 0.3
SEED = 7
EPOCH_MILLIS_2024 = 1_704_067_200_000
NOTE_WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")

FIELDS = (
    t.DataField(0, "id", t.BigIntType(nullable=False)),
    t.DataField(1, "dt", t.VarCharType(t.MAX_LENGTH, nullable=False)),
    t.DataField(2, "name", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(3, "amount", t.DoubleType()),
    t.DataField(4, "ts", t.TimestampType(3)),
    t.DataField(5, "note", t.VarCharType(t.MAX_LENGTH)),
)
OPTIONS = {
    "bucket": "4",
    "file.format": "parquet",
    "deletion-vectors.enabled": "true",
}


def generate_rows(count: int, seed: int = SEED) -> Iterator[Row]:
    """``count`` rows; ids grow, and a share of rows update an earlier id of the same day."""
    rng = random.Random(seed)
    next_id = 0
    for _ in range(count):
        if next_id and rng.random() < UPDATE_SHARE:
            key = rng.randrange(next_id)
        else:
            key, next_id = next_id, next_id + 1
        note = " ".join(rng.choice(NOTE_WORDS) for _ in range(rng.randrange(4, 16)))
        yield (
            key,
            PARTITIONS[key % len(PARTITIONS)],
            f"customer-{rng.randrange(10**6):06d}",
            None if rng.random() < 0.05 else round(rng.uniform(-1000, 1000), 2),
            Timestamp(EPOCH_MILLIS_2024 + rng.randrange(366 * 86_400_000), 0),
            note,
        )


def write_big_table(path: Path, rows: int) -> str:
    """Write the table at ``path`` (which must not exist); return a one-line summary."""
    if path.exists():
        raise FileExistsError(f"{path} exists")
    started = time.monotonic()
    with JavaHarness(java_build.ensure_built()) as java:
        java.create_table(
            str(path), FIELDS, partition_keys=["dt"], primary_keys=["id", "dt"], options=OPTIONS
        )
        batch: list[Row] = []
        for row in generate_rows(rows):
            batch.append(row)
            if len(batch) == BATCH_ROWS:
                java.write(str(path), batch, commit=True)
                batch = []
        if batch:
            java.write(str(path), batch, commit=True)
        java.compact(str(path), commit=True)
    size = sum(f.stat().st_size for f in path.rglob("*.parquet"))
    elapsed = time.monotonic() - started
    return f"{path}: {rows} rows, {size / 2**20:.1f} MiB of Parquet, written in {elapsed:.0f} s"
