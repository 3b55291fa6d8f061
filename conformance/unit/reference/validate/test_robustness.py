"""The validator never raises: random damage to any file of a table becomes findings.

Each seed copies one third-party table, damages one of its files (flipped bits, a truncation or
a zeroed run of bytes) and validates it deeply. Tables with ORC files are left out: pyarrow's
ORC reader can abort the process on damaged bytes (see ``reference.spec.manifest``).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from reference.io import LocalFileIO, S3Config, S3FileIO
from reference.validate import ValidateOptions, compute_exit_code, validate, validate_table

SEEDS = range(40)
ORC_TABLES = {"append_09"}
CLOSED_PORT_ENDPOINT = "http://127.0.0.1:9"


def damage(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    damaged = bytearray(data)
    mode = rng.choice(["flip", "truncate", "zero"])
    if mode == "flip":
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(damaged))
            damaged[position] ^= 1 << rng.randrange(8)
    elif mode == "truncate":
        del damaged[rng.randrange(len(damaged)) :]
    else:
        start = rng.randrange(len(damaged))
        damaged[start : start + 8] = bytes(len(damaged[start : start + 8]))
    return bytes(damaged)


@pytest.mark.parametrize("seed", SEEDS)
def test_damage_never_escapes(third_party: Path, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    sources = sorted(
        p
        for p in (third_party / "paimon-cpp" / "parquet").glob("*.db/*")
        if p.name not in ORC_TABLES
    )
    table = tmp_path / "table"
    shutil.copytree(rng.choice(sources), table)
    target = rng.choice(sorted(p for p in table.rglob("*") if p.is_file()))
    target.write_bytes(damage(target.read_bytes(), rng))
    report = validate_table(
        LocalFileIO(), str(table), ValidateOptions(all_snapshots=True, deep=True)
    )
    assert report.unreadable is None
    assert [v for v in report.violations if v.code == "CHECK_FAILED"] == []


def test_an_unreachable_store_is_unreadable() -> None:
    file_io = S3FileIO(S3Config(endpoint=CLOSED_PORT_ENDPOINT, access_key="a", secret_key="b"))
    report = validate(file_io, "s3://no-bucket/table")
    assert report.unreadable is not None
    assert compute_exit_code(report) == 2
