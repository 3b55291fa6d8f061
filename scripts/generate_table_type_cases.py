"""Write the conformance cases whose tables only the reference can produce (checked in).

    python scripts/generate_table_type_cases.py            # write the missing cases
    python scripts/generate_table_type_cases.py --rebuild  # rewrite them all

Batch DELETE / UPDATE / MERGE INTO on append tables (copy-on-write and deletion vectors,
fixed-bucket and bucket-unaware), a compaction after deletion vectors, and an object table
refreshed twice: no case step can run these commands (Java 0.9 has them only in its Spark
module), so the reference runs them here into a ``table/`` that is checked in
(``producer: "reference"``); each case's steps only read it, so every engine that reads -
Java 0.9 above all - is judged on the table the reference wrote. Format tables whose plain
files pyarrow wrote (CSV, Parquet, ORC, partitioned by ``key=value`` directories, with
hidden files to skip; ``producer: "pyarrow"``) are read by every engine that has them.

The expected rows and snapshot kinds are written by hand from the rules
(``reference.store.dml`` rules 4-5, ``reference.store.append_compact`` rules 2-5,
``reference.object_table`` rule 2, ``reference.format_table`` rules 2-3), never read back
from the reference: ``expected_by`` is ``spec``.

A format table case ships its files in ``table/`` and its schema in ``table`` (a format table
has no metadata of its own; ``conformance/cases/FORMAT.md``).

The cases carry no ``generator`` key, so ``scripts/generate_cases.py`` leaves them alone. A
rebuild changes file names, commit users, times and sizes only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pyarrow as pa  # noqa: E402
import pyarrow.csv as pa_csv  # noqa: E402
import pyarrow.orc as pa_orc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from conformance.cases.compare import encode_expected  # noqa: E402
from conformance.cases.generators import (  # noqa: E402
    Hand,
    cols,
    ins,
)
from conformance.cases.generators.build import (  # noqa: E402
    expected_from_hand,
    public_step,
    write_json,
)
from conformance.cases.loader import CASE_FILE, EXPECTED_BY_SPEC, TABLE_DIR, TableSpec, encode_table  # noqa: E402  # noqa: E402
from conformance.cases.requirements import compute_requires  # noqa: E402
from reference.io import LocalFileIO  # noqa: E402
from reference.object_table import OBJECT_FIELDS, refresh_object_table  # noqa: E402
from reference.spec import types as t  # noqa: E402
from reference.spec.predicate import Leaf, PredicateOp  # noqa: E402
from reference.store.dml import compute_upsert_statement  # noqa: E402
from reference.table import Table  # noqa: E402

CASES_ROOT = REPO / "fixtures" / "cases"
PRODUCER = "reference"
OBJECT_LOCATION = Path("/tmp/paimon-kit-cases/object-table/objects")
"""Where the object table case lists its objects (the rows keep these paths)."""
OBJECT_MTIMES = {
    "a.txt": 1_700_000_000_000,
    "sub/b.bin": 1_700_000_001_000,
    "c.csv": 1_700_000_002_000,
}
DML_FIELDS = (t.DataField(0, "id", t.IntType()), t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)))
SNAPSHOT_TYPES = ["BIGINT NOT NULL", "STRING NOT NULL"]
DML_REFS = ["docs/docs/append-table/update.md", "Java: DeleteFromPaimonTableCommand"]


@dataclass(frozen=True)
class TableCase:
    """A case whose table the reference writes with ``build``; ``steps`` read it."""

    id: str
    description: str
    spec_refs: Sequence[str]
    build: Callable[[Path], None]
    steps: Sequence[Mapping[str, Any]]
    format_table: TableSpec | None = None
    """For a format table: its schema (``build`` writes only its files)."""
    producer: str = PRODUCER


# --------------------------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------------------------


def read_rows(rows: Sequence[Sequence[Any]], snapshot: int | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"op": "read"}
    if snapshot is not None:
        step["snapshot"] = snapshot
    return {**step, "_expect": Hand([ins(*r) for r in rows]), "_order": "multiset"}


def snapshot_kinds(*kinds: str) -> dict[str, Any]:
    rows = [ins(i, kind) for i, kind in enumerate(kinds, start=1)]
    return {
        "op": "system_table",
        "name": "snapshots",
        "columns": ["snapshot_id", "commit_kind"],
        "_expect": Hand(rows, types=SNAPSHOT_TYPES),
        "_order": "ordered",
        "_row_kinds": "ignore",
    }


# --------------------------------------------------------------------------------------------
# DELETE / UPDATE / MERGE INTO
# --------------------------------------------------------------------------------------------

FIRST = ((1, "a"), (2, "b"), (3, "c"))
SECOND = ((4, "d"), (5, "e"))
AFTER_DELETE = ((1, "a"), (3, "c"), (4, "d"), (5, "e"))
AFTER_UPDATE = ((1, "a"), (3, "x"), (4, "d"), (5, "e"))
AFTER_MERGE = ((1, "a"), (3, "x"), (4, "D"), (5, "e"), (6, "f"))


def run_dml(root: Path, options: Mapping[str, str]) -> None:
    """Two writes, ``DELETE WHERE id = 2``, ``UPDATE SET v = 'x' WHERE id = 3``, and
    ``MERGE INTO USING ((4, 'D'), (6, 'f')) ON id: UPDATE SET * / INSERT *``."""
    table = Table.create(LocalFileIO(), str(root), DML_FIELDS, options=options)
    table.write_and_commit(list(FIRST))
    table.write_and_commit(list(SECOND))
    table.delete(Leaf(PredicateOp.EQUAL, "id", (2,)))
    table.update(Leaf(PredicateOp.EQUAL, "id", (3,)), {"v": lambda row: "x"})
    table.merge_into(compute_upsert_statement(((4, "D"), (6, "f")), key_index=0))


def copy_on_write_case(case_id: str, options: Mapping[str, str], what: str) -> TableCase:
    """Rule 4: each command is one APPEND snapshot rewriting the touched file."""
    return TableCase(
        case_id,
        f"DELETE, UPDATE and MERGE INTO on a {what} append table without deletion vectors "
        "rewrite the touched files (copy-on-write), one APPEND snapshot each",
        [*DML_REFS, "Java: UpdatePaimonTableCommand", "Java: MergeIntoPaimonTable"],
        lambda root: run_dml(root, options),
        [
            snapshot_kinds("APPEND", "APPEND", "APPEND", "APPEND", "APPEND"),
            read_rows(AFTER_DELETE, snapshot=3),
            read_rows(AFTER_UPDATE, snapshot=4),
            read_rows(AFTER_MERGE),
        ],
    )


def deletion_vector_case(case_id: str, options: Mapping[str, str], what: str) -> TableCase:
    """Rule 5: changed rows are marked in deletion vectors (a COMPACT snapshot); updated and
    inserted rows are new files (an APPEND snapshot before it)."""
    return TableCase(
        case_id,
        f"DELETE, UPDATE and MERGE INTO on a {what} append table with deletion vectors mark "
        "the changed rows in deletion vectors (COMPACT) after appending the new rows (APPEND)",
        [*DML_REFS, "Java: PaimonSparkWriter", "docs/docs/concepts/spec/tableindex.md"],
        lambda root: run_dml(root, {**options, "deletion-vectors.enabled": "true"}),
        [
            snapshot_kinds("APPEND", "APPEND", "COMPACT", "APPEND", "COMPACT", "APPEND", "COMPACT"),
            read_rows(AFTER_DELETE, snapshot=3),
            # between an UPDATE's two snapshots the old row is not yet marked
            read_rows((*AFTER_DELETE, (3, "x")), snapshot=4),
            read_rows(AFTER_UPDATE, snapshot=5),
            read_rows(AFTER_MERGE),
        ],
    )


def build_compacted_after_delete(root: Path) -> None:
    """Three writes to a bucket-unaware table with deletion vectors, DELETE WHERE id IN
    (1, 21), then a compaction job: the two files holding vectors share one index file,
    so they form one task; the third file stays."""
    options = {"bucket": "-1", "deletion-vectors.enabled": "true"}
    table = Table.create(LocalFileIO(), str(root), DML_FIELDS, options=options)
    for i in range(3):
        table.write_and_commit([(i * 10 + k, f"v{i * 10 + k}") for k in range(3)])
    table.delete(Leaf(PredicateOp.IN, "id", (1, 21)))
    table.compact(full=True)


def compacted_rows() -> list[tuple[int, str]]:
    """The rows left by :func:`build_compacted_after_delete`."""
    return [(k, f"v{k}") for k in (0, 2, 10, 11, 12, 20, 22)]


# --------------------------------------------------------------------------------------------
# Object table
# --------------------------------------------------------------------------------------------


def place_object(relative: str, data: bytes) -> None:
    path = OBJECT_LOCATION / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    seconds = OBJECT_MTIMES[relative] / 1000
    os.utime(path, (seconds, seconds))


def build_object_table(root: Path) -> None:
    """Objects ``a.txt`` (5 bytes) and ``sub/b.bin`` (2 bytes), a refresh; then ``a.txt``
    removed and ``c.csv`` (1 byte) added, a second refresh."""
    if OBJECT_LOCATION.exists():
        shutil.rmtree(OBJECT_LOCATION)
    place_object("a.txt", b"hello")
    place_object("sub/b.bin", b"12")
    options = {"type": "object-table", "object-location": str(OBJECT_LOCATION)}
    table = Table.create(LocalFileIO(), str(root), OBJECT_FIELDS, options=options)
    refresh_object_table(table.file_io, table.root)
    (OBJECT_LOCATION / "a.txt").unlink()
    place_object("c.csv", b"x")
    refresh_object_table(table.file_io, table.root)


def object_row(relative: str, size: int) -> list[Any]:
    """Rule 2 by hand: URI, parent URI, name, length, mtime, atime 0, seven nulls."""
    uri = f"file:{OBJECT_LOCATION / relative}"
    parent = uri.rsplit("/", 1)[0]
    mtime = {"millisecond": OBJECT_MTIMES[relative], "nano": 0}
    zero = {"millisecond": 0, "nano": 0}
    return [uri, parent, relative.rsplit("/", 1)[-1], size, mtime, zero, *([None] * 7)]


# --------------------------------------------------------------------------------------------
# Format tables written by pyarrow
# --------------------------------------------------------------------------------------------

FORMAT_COLUMNS = cols("p INT", "a INT", "b STRING")
FORMAT_PARTITIONS = {
    1: pa.table({"a": pa.array([1, 2], pa.int32()), "b": ["x,y", None]}),
    2: pa.table({"a": pa.array([3], pa.int32()), "b": ['say "hi"']}),
}
FORMAT_ROWS = ((1, 1, "x,y"), (1, 2, None), (2, 3, 'say "hi"'))


def write_pyarrow_file(data: pa.Table, path: Path, file_format: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if file_format == "csv":
        pa_csv.write_csv(data, path)  # a header line, strings quoted
    elif file_format == "orc":
        pa_orc.write_table(data, path)
    else:
        pq.write_table(data, path)


def build_pyarrow_files(root: Path, file_format: str) -> None:
    """One file per partition directory ``p=<n>``, plus what readers must skip: a
    ``_SUCCESS`` marker, a hidden staging directory and a directory of another key."""
    for partition, data in FORMAT_PARTITIONS.items():
        write_pyarrow_file(data, root / f"p={partition}" / f"part-0.{file_format}", file_format)
    (root / "_SUCCESS").write_bytes(b"")
    write_pyarrow_file(FORMAT_PARTITIONS[1], root / "_temporary" / f"x.{file_format}", file_format)
    write_pyarrow_file(FORMAT_PARTITIONS[1], root / ".staging" / f"x.{file_format}", file_format)


def pyarrow_format_case(file_format: str, options: Mapping[str, str]) -> TableCase:
    return TableCase(
        f"format-table/pyarrow_{file_format}_partitioned",
        f"a partitioned {file_format.upper()} format table over files pyarrow wrote: partitions "
        "come from p=<n> directories, hidden files are skipped, values and nulls read back",
        ["docs/docs/concepts/table-types.md", "Java: FormatTableScan", "Java: PartitionPathUtils"],
        lambda root: build_pyarrow_files(root, file_format),
        [
            read_rows(FORMAT_ROWS),
            {
                **read_rows([r for r in FORMAT_ROWS if r[0] == 2]),
                "filter": {"op": "EQUAL", "field": "p", "literals": [2]},
            },
            {**read_rows([(r[2],) for r in FORMAT_ROWS]), "projection": ["b"]},
        ],
        TableSpec(
            tuple(FORMAT_COLUMNS),
            ("p",),
            (),
            {"type": "format-table", "file.format": file_format, **options},
        ),
        producer="pyarrow",
    )


# --------------------------------------------------------------------------------------------
# The cases
# --------------------------------------------------------------------------------------------

FIXED = {"bucket": "1", "bucket-key": "id"}
UNAWARE = {"bucket": "-1"}

CASES = (
    pyarrow_format_case("csv", {"csv.include-header": "true"}),
    pyarrow_format_case("parquet", {}),
    pyarrow_format_case("orc", {}),
    copy_on_write_case("append/dml_copy_on_write_unaware", UNAWARE, "bucket-unaware"),
    copy_on_write_case("append/dml_copy_on_write_bucketed", FIXED, "fixed-bucket"),
    deletion_vector_case("append/dml_deletion_vectors_unaware", UNAWARE, "bucket-unaware"),
    deletion_vector_case("append/dml_deletion_vectors_bucketed", FIXED, "fixed-bucket"),
    TableCase(
        "append/compaction_drops_deletion_vectors",
        "a compaction job of a bucket-unaware table rewrites the files whose deletion vectors "
        "share an index file without their deleted rows and drops the vectors",
        ["docs/docs/append-table/overview.md", "Java: UnawareAppendDeletionFileMaintainer"],
        build_compacted_after_delete,
        [
            snapshot_kinds("APPEND", "APPEND", "APPEND", "COMPACT", "COMPACT"),
            read_rows(compacted_rows(), snapshot=4),
            read_rows(compacted_rows()),
        ],
    ),
    TableCase(
        "object-table/refresh_and_time_travel",
        "an object table holds one OVERWRITE snapshot per refresh listing the objects below "
        "its location; the first listing stays readable by time travel",
        ["docs/docs/concepts/table-types.md", "Java: ObjectTable", "Java: ObjectRefresh"],
        build_object_table,
        [
            snapshot_kinds("OVERWRITE", "OVERWRITE"),
            {
                **read_rows(()),
                "_expect": Hand([ins(*object_row("c.csv", 1)), ins(*object_row("sub/b.bin", 2))]),
            },
            {
                **read_rows((), snapshot=1),
                "_expect": Hand([ins(*object_row("a.txt", 5)), ins(*object_row("sub/b.bin", 2))]),
            },
        ],
    ),
)


# --------------------------------------------------------------------------------------------
# Writing a case directory
# --------------------------------------------------------------------------------------------


def read_table_spec(table_dir: Path) -> TableSpec:
    """The schema of a checked-in Paimon table."""
    schema = Table.open(LocalFileIO(), str(table_dir)).schema()
    return TableSpec(
        tuple(schema.fields),
        tuple(schema.partition_keys),
        tuple(schema.primary_keys),
        dict(schema.options),
    )


def step_columns(step: Mapping[str, Any], fields: Sequence[t.DataField]) -> list[t.DataField]:
    if step["op"] == "system_table":
        return [t.DataField(i, n, t.VarCharType()) for i, n in enumerate(step["columns"])]
    by_name = {f.name: f for f in fields}
    return [by_name[name] for name in step.get("projection") or by_name]


def write_case(case: TableCase, case_dir: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="table-case-") as scratch:
        staging = Path(scratch) / "case"
        case.build(staging / TABLE_DIR)
        spec = case.format_table or read_table_spec(staging / TABLE_DIR)
        fields = spec.fields
        steps = []
        for index, step in enumerate(case.steps):
            path = f"expected/step-{index + 1:02d}.json"
            order = step["_order"]
            row_kinds = step.get("_row_kinds", "add-only")
            expected = expected_from_hand(
                step["_expect"], step_columns(step, fields), order, row_kinds
            )
            write_json(staging / path, encode_expected(expected))
            steps.append(public_step(step, path))
        requires = compute_requires(
            fields, spec.partition_keys, spec.primary_keys, spec.options, steps, creates_table=False
        )
        document = {
            "id": case.id,
            "area": case.id.split("/", 1)[0],
            "description": case.description,
            "spec_refs": list(case.spec_refs),
            "producer": case.producer,
            "expected_by": EXPECTED_BY_SPEC,
            "requires": sorted(requires),
        }
        if case.format_table is not None:
            document["table"] = encode_table(case.format_table)
        document["steps"] = steps
        write_json(staging / CASE_FILE, document)
        if case_dir.exists():
            shutil.rmtree(case_dir)
        case_dir.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staging, case_dir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rebuild", action="store_true", help="rewrite existing cases")
    parser.add_argument("--out", type=Path, default=CASES_ROOT, help="the cases directory")
    args = parser.parse_args(argv)
    for case in CASES:
        case_dir = args.out / case.id
        if case_dir.exists() and not args.rebuild:
            print(f"kept {case.id}")
            continue
        write_case(case, case_dir)
        print(f"wrote {case.id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
