"""Golden tables: small tables Java Paimon 0.9 writes, checked in with what Java reads from them.

Each :class:`GoldenTable` is a table definition and a few mutating steps in the case format
(``write``, ``compact``, ``alter``, ``tag``, ``expire``; ``conformance/cases/FORMAT.md``). The
generator replays them on Java 0.9 (through the ``java`` engine adapter, so a step means exactly
what it means to the case runner), then records, for the table as left behind:

* ``expected/snapshot-<id>.json``: Java's batch read of every live snapshot (time travel, in
  the snapshot's own schema) and ``expected/latest.json`` (no travel option);
* ``expected/tag-<name>.json``: Java's read of every tag;
* ``expected/changes-<a>-<b>.json``: Java's streaming read of the changes of snapshots
  ``a+1 .. b``, for every pair of consecutive live snapshots and for the whole live range;
* ``expected/filter-<n>.json``: filtered reads (file-index cases);

and writes ``fixtures/cases/golden/<case_id>/{case.json, table/, expected/}`` with producer
``paimon-java 0.9.0``: the steps of ``case.json`` only read, so every engine that reads can run
it. Run ``python scripts/generate_golden_tables.py`` to rebuild them.

Re-running changes only what Java randomizes or times: file names (UUIDs), commit users,
``timeMillis`` of schemas, snapshots and tags, creation times and file sizes in manifests, and
Avro sync markers; :func:`compare_generations` checks that and nothing else changed.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fastavro
import pyarrow.parquet as pq
from pyarrow import orc

from conformance.cases.compare import Expected, encode_expected
from conformance.cases.loader import CASE_FILE, CASES_ROOT, EXPECTED_BY_JAVA, TABLE_DIR
from conformance.cases.predicates import decode_filter
from conformance.cases.requirements import compute_requires
from conformance.cases.runner import CaseRun, read_checked_in_fields
from conformance.engines.base import Rows, TimeTravel
from conformance.engines.java_engine import PRODUCER, JavaEngine
from conformance.java.harness import JavaHarness
from conformance.java.values import encode_value
from reference.spec import manifest
from reference.spec import types as t
from reference.spec.data import RowKind

GOLDEN_AREA_DIR = "golden"
GOLDEN_DIR = CASES_ROOT / GOLDEN_AREA_DIR
EXPECTED_DIR = "expected"
SCHEMA_DIR = "schema"
JsonRow = list[Any]


def _f(index: int, name: str, sql_type: str) -> t.DataField:
    return t.DataField(index, name, t.parse_sql_type(sql_type))


def ins(*values: Any) -> JsonRow:
    return ["+I", *values]


def upd(*values: Any) -> JsonRow:
    return ["+U", *values]


def before(*values: Any) -> JsonRow:
    return ["-U", *values]


def delete(*values: Any) -> JsonRow:
    return ["-D", *values]


def write(*rows: JsonRow, overwrite: Mapping[str, Any] | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"op": "write", "rows": [list(r) for r in rows]}
    if overwrite is not None:
        step["overwrite"] = dict(overwrite)
    return step


def compact(full: bool = True) -> dict[str, Any]:
    return {"op": "compact", "full": full}


def alter(*changes: Mapping[str, Any]) -> dict[str, Any]:
    return {"op": "alter", "changes": [dict(c) for c in changes]}


def tag(name: str, snapshot: int | None = None) -> dict[str, Any]:
    return {"op": "tag", "name": name, "snapshot": snapshot}


def expire(retain_max: int, retain_min: int = 1) -> dict[str, Any]:
    return {"op": "expire", "retain_max": retain_max, "retain_min": retain_min}


def ts(millisecond: int, nano: int = 0) -> dict[str, int]:
    return {"millisecond": millisecond, "nano": nano}


@dataclass(frozen=True)
class GoldenTable:
    """One golden table: how Java builds it and what extra reads to record."""

    case_id: str
    area: str
    description: str
    spec_refs: tuple[str, ...]
    fields: tuple[t.DataField, ...]
    steps: tuple[Mapping[str, Any], ...]
    primary_keys: tuple[str, ...] = ()
    partition_keys: tuple[str, ...] = ()
    options: Mapping[str, str] = field(default_factory=dict)
    filters: tuple[Mapping[str, Any], ...] = ()
    """Filters read at the latest snapshot (``filter-<n>.json``)."""

    @property
    def id(self) -> str:
        return f"{GOLDEN_AREA_DIR}/{self.case_id}"


# --------------------------------------------------------------------------------------------
# The tables
# --------------------------------------------------------------------------------------------

KV_FIELDS = (
    _f(0, "k", "INT NOT NULL"),
    _f(1, "name", "STRING"),
    _f(2, "amount", "DECIMAL(12, 2)"),
    _f(3, "ts", "TIMESTAMP(6)"),
)
KV_STEPS = (
    write(
        ins(1, "apple", "1.50", ts(1_700_000_000_000, 1000)),
        ins(2, "banana", "0.25", ts(1_700_000_001_000)),
        ins(3, "cherry", None, None),
        ins(4, "date", "12.00", ts(1_700_000_002_000, 999_000)),
    ),
    write(
        upd(2, "banana split", "3.75", ts(1_700_000_003_000)),
        delete(3, "cherry", None, None),
        ins(5, "elderberry", "100.01", ts(-1000, 500_000)),
    ),
    compact(full=True),
    write(ins(1, "apricot", "2.00", None), ins(6, None, "0.00", ts(0))),
)
SPEC_DEDUP = (
    "docs/docs/primary-key-table/merge-engine/overview.md",
    "Java: DeduplicateMergeFunction",
)


def _dedup(file_format: str) -> GoldenTable:
    return GoldenTable(
        case_id=f"pk_dedup_{file_format}",
        area="merge-engine",
        description=f"deduplicate primary-key table in {file_format}: updates, a delete, a full "
        "compaction and writes after it",
        spec_refs=(*SPEC_DEDUP, f"docs/docs/concepts/spec/fileformat.md ({file_format})"),
        fields=KV_FIELDS,
        primary_keys=("k",),
        options={"bucket": "2", "file.format": file_format},
        steps=KV_STEPS,
    )


def _manifest_format(manifest_format: str) -> GoldenTable:
    return GoldenTable(
        case_id=f"manifest_format_{manifest_format}",
        area="manifest",
        description=f"primary-key table whose manifests, manifest lists and index manifests are "
        f"{manifest_format} files (deletion vectors give an index manifest)",
        spec_refs=(
            "docs/docs/concepts/spec/manifest.md",
            "Java: ManifestFile",
            "Java: ManifestList",
        ),
        fields=KV_FIELDS,
        primary_keys=("k",),
        options={
            "bucket": "1",
            "manifest.format": manifest_format,
            "deletion-vectors.enabled": "true",
        },
        steps=(*KV_STEPS, compact(full=False)),
    )


APPEND_FIELDS = (_f(0, "id", "INT"), _f(1, "name", "STRING"), _f(2, "score", "DOUBLE"))

GOLDEN_TABLES: tuple[GoldenTable, ...] = (
    _dedup("parquet"),
    _dedup("orc"),
    _dedup("avro"),
    GoldenTable(
        case_id="append_unaware",
        area="append",
        description="append table without buckets (bucket -1): three commits, nulls, duplicates",
        spec_refs=("docs/docs/append-table/overview.md", "Java: AppendOnlyFileStoreWrite"),
        fields=APPEND_FIELDS,
        steps=(
            write(ins(1, "a", 1.5), ins(2, None, None), ins(1, "a", 1.5)),
            write(ins(3, "c", -0.0), ins(None, "nothing", 2.25)),
            write(ins(4, "d", 1e10)),
        ),
    ),
    GoldenTable(
        case_id="append_fixed_bucket",
        area="append",
        description="append table with 3 buckets on bucket-key id; a full compaction merges the "
        "small files",
        spec_refs=("docs/docs/append-table/bucketed.md", "Java: FixedBucketRowKeyExtractor"),
        fields=APPEND_FIELDS,
        options={"bucket": "3", "bucket-key": "id"},
        steps=(
            write(*(ins(i, f"n{i}", i * 0.5) for i in range(8))),
            write(*(ins(i, f"m{i}", None) for i in range(4, 12))),
            compact(full=True),
            write(ins(100, "late", 7.0)),
        ),
    ),
    GoldenTable(
        case_id="partial_update_sequence_groups",
        area="merge-engine",
        description="partial-update with two sequence groups: each group's columns are updated "
        "only by records with a newer group sequence, nulls do not overwrite",
        spec_refs=(
            "docs/docs/primary-key-table/merge-engine/partial-update.md",
            "Java: PartialUpdateMergeFunction",
        ),
        fields=(
            _f(0, "k", "INT NOT NULL"),
            _f(1, "a", "STRING"),
            _f(2, "b", "INT"),
            _f(3, "g1", "INT"),
            _f(4, "c", "STRING"),
            _f(5, "g2", "INT"),
        ),
        primary_keys=("k",),
        options={
            "bucket": "1",
            "merge-engine": "partial-update",
            "fields.g1.sequence-group": "a,b",
            "fields.g2.sequence-group": "c",
        },
        steps=(
            write(ins(1, "a1", 1, 1, "c1", 1), ins(2, "a2", 2, 1, None, None)),
            write(ins(1, "a-old", 0, 0, "c2", 2), ins(2, None, 5, 3, "c-new", 1)),
            write(ins(1, None, None, 2, None, None), ins(3, "a3", None, None, "c3", 7)),
            compact(full=True),
            write(ins(3, "a3-new", 33, 9, "c3-old", 6)),
        ),
    ),
    GoldenTable(
        case_id="aggregation",
        area="merge-engine",
        description="aggregation merge engine: sum with retraction, max, min (ignoring "
        "retraction), last_non_null_value, listagg",
        spec_refs=(
            "docs/docs/primary-key-table/merge-engine/aggregation.md",
            "Java: AggregateMergeFunction",
            "Java: FieldAggregatorFactory",
        ),
        fields=(
            _f(0, "k", "INT NOT NULL"),
            _f(1, "total", "BIGINT"),
            _f(2, "high", "INT"),
            _f(3, "low", "DOUBLE"),
            _f(4, "last", "STRING"),
            _f(5, "tags", "STRING"),
        ),
        primary_keys=("k",),
        options={
            "bucket": "1",
            "merge-engine": "aggregation",
            "fields.total.aggregate-function": "sum",
            "fields.high.aggregate-function": "max",
            "fields.low.aggregate-function": "min",
            "fields.last.aggregate-function": "last_non_null_value",
            "fields.tags.aggregate-function": "listagg",
            "fields.high.ignore-retract": "true",
            "fields.low.ignore-retract": "true",
            "fields.tags.ignore-retract": "true",
        },
        steps=(
            write(ins(1, 10, 5, 2.5, "x", "a"), ins(2, 1, 1, 1.0, None, None)),
            write(ins(1, 5, 7, 3.0, None, "b"), ins(2, 2, 0, -1.0, "y", "c")),
            write(before(1, 4, None, None, None, None), ins(3, None, None, None, "z", "d")),
            compact(full=True),
            write(ins(1, 100, 1, 0.5, "w", "e")),
        ),
    ),
    GoldenTable(
        case_id="first_row",
        area="merge-engine",
        description="first-row merge engine: the first record of a key wins, later ones are "
        "ignored (batch reads see only compacted files)",
        spec_refs=(
            "docs/docs/primary-key-table/merge-engine/first-row.md",
            "Java: FirstRowMergeFunction",
        ),
        fields=(_f(0, "k", "INT NOT NULL"), _f(1, "v", "STRING")),
        primary_keys=("k",),
        options={"bucket": "1", "merge-engine": "first-row"},
        steps=(
            write(ins(1, "first"), ins(2, "first")),
            write(ins(1, "second"), ins(3, "first")),
            compact(full=True),
            write(ins(3, "second"), ins(4, "first")),
        ),
    ),
    GoldenTable(
        case_id="sequence_field",
        area="sequence-field",
        description="sequence.field orders the records of a key: a record with a smaller "
        "sequence value written later loses",
        spec_refs=(
            "docs/docs/primary-key-table/sequence-rowkind.md",
            "Java: UserDefinedSeqComparator",
        ),
        fields=(_f(0, "k", "INT NOT NULL"), _f(1, "v", "STRING"), _f(2, "seq", "BIGINT")),
        primary_keys=("k",),
        options={"bucket": "1", "sequence.field": "seq"},
        steps=(
            write(ins(1, "v10", 10), ins(2, "v5", 5)),
            write(ins(1, "v3", 3), ins(2, "v6", 6)),
            write(ins(1, "v10-again", 10), ins(3, "null-seq", None)),
            compact(full=True),
        ),
    ),
    GoldenTable(
        case_id="changelog_input",
        area="changelog-producer",
        description="changelog-producer input: the written records (with their row kinds) are "
        "the changelog",
        spec_refs=(
            "docs/docs/primary-key-table/changelog-producer.md",
            "Java: MergeTreeWriter (input changelog)",
        ),
        fields=(_f(0, "k", "INT NOT NULL"), _f(1, "v", "STRING")),
        primary_keys=("k",),
        options={"bucket": "1", "changelog-producer": "input"},
        steps=(
            write(ins(1, "a"), ins(2, "b")),
            write(before(1, "a"), upd(1, "a2"), delete(2, "b")),
            compact(full=True),
            write(ins(3, "c")),
        ),
    ),
    GoldenTable(
        case_id="changelog_lookup",
        area="changelog-producer",
        description="changelog-producer lookup: changes are derived by looking up the previous "
        "value at compaction, which each commit waits for",
        spec_refs=(
            "docs/docs/primary-key-table/changelog-producer.md",
            "Java: LookupChangelogMergeFunctionWrapper",
        ),
        fields=(_f(0, "k", "INT NOT NULL"), _f(1, "v", "STRING")),
        primary_keys=("k",),
        options={"bucket": "1", "changelog-producer": "lookup"},
        steps=(
            write(ins(1, "a"), ins(2, "b")),
            write(ins(1, "a2"), delete(2, "b"), ins(3, "c")),
            write(ins(3, "c")),
            write(ins(4, "d")),
        ),
    ),
    GoldenTable(
        case_id="changelog_full_compaction",
        area="changelog-producer",
        description="changelog-producer full-compaction: changes appear at full compactions, "
        "as the difference between the compacted states",
        spec_refs=(
            "docs/docs/primary-key-table/changelog-producer.md",
            "Java: FullChangelogMergeFunctionWrapper",
        ),
        fields=(_f(0, "k", "INT NOT NULL"), _f(1, "v", "STRING")),
        primary_keys=("k",),
        options={"bucket": "1", "changelog-producer": "full-compaction"},
        steps=(
            write(ins(1, "a"), ins(2, "b")),
            compact(full=True),
            write(ins(1, "a2"), delete(2, "b"), ins(3, "c")),
            write(ins(3, "c")),
            compact(full=True),
        ),
    ),
    GoldenTable(
        case_id="deletion_vectors",
        area="deletion-vectors",
        description="deletion vectors: updates mark old rows deleted in index files instead of "
        "merging at read time",
        spec_refs=(
            "docs/docs/primary-key-table/deletion-vectors.md",
            "docs/docs/concepts/spec/tableindex.md",
            "Java: DeletionVectorsIndexFile",
        ),
        fields=KV_FIELDS,
        primary_keys=("k",),
        options={"bucket": "2", "deletion-vectors.enabled": "true"},
        steps=(
            write(*(ins(k, f"n{k}", f"{k}.00", None) for k in range(1, 9))),
            compact(full=True),
            write(
                upd(2, "two", "2.50", None), delete(5, None, None, None), ins(9, "nine", None, None)
            ),
            compact(full=False),
            write(upd(3, "three", None, ts(1))),
        ),
    ),
    GoldenTable(
        case_id="file_index_bloom",
        area="file-index",
        description="append table with a bloom-filter index on id (small, so embedded in the "
        "manifest); filtered reads",
        spec_refs=(
            "docs/docs/concepts/spec/fileindex.md",
            "Java: BloomFilterFileIndex",
            "Java: FileIndexFormat",
        ),
        fields=APPEND_FIELDS,
        options={
            "bucket": "1",
            "bucket-key": "id",
            "file-index.bloom-filter.columns": "id",
            "file-index.bloom-filter.id.items": "100",
        },
        steps=(
            write(*(ins(i, f"n{i}", i * 1.5) for i in range(10))),
            write(*(ins(i, f"m{i}", None) for i in range(20, 25))),
        ),
        filters=(
            {"op": "EQUAL", "field": "id", "literals": [3]},
            {"op": "EQUAL", "field": "id", "literals": [22]},
            {"op": "EQUAL", "field": "id", "literals": [15]},
            {"op": "IN", "field": "id", "literals": [1, 21, 99]},
        ),
    ),
    GoldenTable(
        case_id="file_index_bitmap",
        area="file-index",
        description="append table with a bitmap index on name (version 1 in 0.9); filtered reads",
        spec_refs=("docs/docs/concepts/spec/fileindex.md", "Java: BitmapFileIndex"),
        fields=APPEND_FIELDS,
        options={"bucket": "1", "bucket-key": "id", "file-index.bitmap.columns": "name"},
        steps=(
            write(*(ins(i, ["red", "green", None][i % 3], float(i)) for i in range(9))),
            write(ins(10, "blue", 0.0), ins(11, "red", 1.0)),
        ),
        filters=(
            {"op": "EQUAL", "field": "name", "literals": ["red"]},
            {"op": "EQUAL", "field": "name", "literals": ["blue"]},
            {"op": "IS_NULL", "field": "name"},
            {"op": "NOT_EQUAL", "field": "name", "literals": ["green"]},
        ),
    ),
    GoldenTable(
        case_id="dynamic_bucket",
        area="bucket",
        description="dynamic bucket (bucket -1 on a primary-key table) with 3 rows per bucket: "
        "new keys open buckets, updates go to the key's bucket (HASH index)",
        spec_refs=(
            "docs/docs/primary-key-table/data-distribution.md",
            "docs/docs/concepts/spec/tableindex.md",
            "Java: HashBucketAssigner",
        ),
        fields=(_f(0, "k", "INT NOT NULL"), _f(1, "v", "STRING")),
        primary_keys=("k",),
        options={"bucket": "-1", "dynamic-bucket.target-row-num": "3"},
        steps=(
            write(*(ins(k, f"v{k}") for k in range(7))),
            write(upd(1, "one"), upd(5, "five"), ins(7, "v7"), ins(8, "v8")),
            write(delete(0, "v0"), ins(9, "v9")),
        ),
    ),
    GoldenTable(
        case_id="partitioned_overwrite",
        area="partition",
        description="partitioned primary-key table: a static-partition overwrite, then a "
        "whole-table overwrite, then a write",
        spec_refs=("docs/docs/concepts/spec/snapshot.md (OVERWRITE)", "Java: FileStoreCommitImpl"),
        fields=(_f(0, "dt", "STRING NOT NULL"), _f(1, "k", "INT NOT NULL"), _f(2, "v", "STRING")),
        primary_keys=("dt", "k"),
        partition_keys=("dt",),
        options={"bucket": "1"},
        steps=(
            write(
                ins("2024-01-01", 1, "a"),
                ins("2024-01-01", 2, "b"),
                ins("2024-01-02", 1, "c"),
            ),
            write(ins("2024-01-01", 3, "replaced"), overwrite={"dt": "2024-01-01"}),
            write(ins("2024-01-03", 1, "only"), overwrite={}),
            write(ins("2024-01-02", 5, "after")),
        ),
    ),
    GoldenTable(
        case_id="schema_evolution",
        area="schema-evolution",
        description="add, rename, widen (INT to BIGINT) and drop columns between writes; each "
        "snapshot reads in its own schema",
        spec_refs=(
            "docs/docs/concepts/spec/schema.md",
            "Java: SchemaManager",
            "Java: SchemaEvolutionUtil",
        ),
        fields=(_f(0, "k", "INT NOT NULL"), _f(1, "v", "STRING"), _f(2, "n", "INT")),
        primary_keys=("k",),
        options={"bucket": "1"},
        steps=(
            write(ins(1, "a", 10), ins(2, "b", 20)),
            alter({"kind": "add_column", "name": "extra", "type": "DOUBLE"}),
            write(ins(3, "c", 30, 3.5), upd(1, "a2", 11, None)),
            alter({"kind": "rename_column", "name": "v", "new_name": "label"}),
            write(ins(4, "d", 40, 4.5)),
            alter({"kind": "update_column_type", "name": "n", "type": "BIGINT"}),
            write(ins(5, "e", 5_000_000_000, None)),
            alter({"kind": "drop_column", "name": "extra"}),
            write(upd(2, "b2", 21)),
        ),
    ),
    GoldenTable(
        case_id="tags",
        area="tags",
        description="tags on an early and on the latest snapshot, read after later writes",
        spec_refs=("docs/docs/maintenance/manage-tags.md", "Java: TagManager"),
        fields=(_f(0, "k", "INT NOT NULL"), _f(1, "v", "STRING")),
        primary_keys=("k",),
        options={"bucket": "1"},
        steps=(
            write(ins(1, "a"), ins(2, "b")),
            write(upd(1, "a2")),
            tag("first", 1),
            tag("second"),
            write(delete(2, "b"), ins(3, "c")),
            compact(full=True),
        ),
    ),
    GoldenTable(
        case_id="expiration",
        area="expiration",
        description="six snapshots, a tag on snapshot 2, then expiration keeping the last two: "
        "the tag keeps its files",
        spec_refs=("docs/docs/maintenance/manage-snapshots.md", "Java: ExpireSnapshotsImpl"),
        fields=(_f(0, "k", "INT NOT NULL"), _f(1, "v", "STRING")),
        primary_keys=("k",),
        options={"bucket": "1"},
        steps=(
            write(ins(1, "a")),
            write(ins(2, "b")),
            write(upd(1, "a2")),
            write(delete(2, "b")),
            compact(full=True),
            write(ins(3, "c")),
            tag("kept", 2),
            expire(retain_max=2),
        ),
    ),
    _manifest_format("orc"),
    _manifest_format("parquet"),
)


# --------------------------------------------------------------------------------------------
# Recording what Java reads
# --------------------------------------------------------------------------------------------


def _sort_key(change: tuple[RowKind, tuple[Any, ...]], types: Sequence[t.DataType]) -> str:
    kind, row = change
    return json.dumps([kind.short_string, *map(encode_value, row, types)])


def _expected(rows: Rows, order: str, row_kinds: str) -> Expected:
    """Rows as an expected file; unordered rows sorted by their JSON form (stable diffs)."""
    types = tuple(f.type for f in rows.fields)
    changes = list(rows.rows)
    if row_kinds == "add-only":
        changes = [
            (RowKind.INSERT if kind is RowKind.UPDATE_AFTER else kind, row) for kind, row in changes
        ]
    if order != "ordered":
        changes.sort(key=lambda change: _sort_key(change, types))
    return Expected(tuple(rows.column_names), types, order, row_kinds, tuple(changes))


@dataclass
class Recording:
    """The read steps of a golden case and their expected files (name -> JSON)."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, step: dict[str, Any], name: str, expected: Expected) -> None:
        path = f"{EXPECTED_DIR}/{name}.json"
        self.steps.append({**step, "expect": path})
        self.files[path] = encode_expected(expected)


def _batch_order(table: GoldenTable) -> str:
    return "key" if table.primary_keys else "multiset"


def record_reads(
    table: GoldenTable, engine: JavaEngine, path: str, harness: JavaHarness
) -> Recording:
    """Java's reads of the finished table (see the module docstring)."""
    recording = Recording()
    order = _batch_order(table)
    snapshot_ids = [int(s["id"]) for s in harness.list_snapshots(path)]
    for snapshot_id in snapshot_ids:
        rows = engine.read(path, TimeTravel(snapshot_id=snapshot_id), None, None)
        step = {"op": "read", "snapshot": snapshot_id}
        recording.add(step, f"snapshot-{snapshot_id}", _expected(rows, order, "add-only"))
    latest = engine.read(path, TimeTravel(), None, None)
    recording.add({"op": "read"}, "latest", _expected(latest, order, "add-only"))
    for name in sorted(harness.list_tags(path)):
        rows = engine.read(path, TimeTravel(tag=name), None, None)
        recording.add(
            {"op": "read", "tag": name}, f"tag-{name}", _expected(rows, order, "add-only")
        )
    fields = read_checked_in_fields(Path(path))
    for index, filter_json in enumerate(table.filters):
        rows = engine.read(path, TimeTravel(), None, decode_filter(filter_json, fields))
        step = {"op": "read", "filter": dict(filter_json)}
        recording.add(step, f"filter-{index}", _expected(rows, order, "add-only"))
    ranges = list(itertools.pairwise(snapshot_ids))
    if snapshot_ids:
        ranges.insert(0, (snapshot_ids[0] - 1, snapshot_ids[0]))
        if len(snapshot_ids) > 1:
            ranges.append((snapshot_ids[0] - 1, snapshot_ids[-1]))
    for first, last in ranges:
        rows = engine.read_changes(path, first, last)
        step = {"op": "read_changes", "from_snapshot": first, "to_snapshot": last}
        recording.add(step, f"changes-{first}-{last}", _expected(rows, "multiset", "exact"))
    return recording


# --------------------------------------------------------------------------------------------
# Writing a case directory
# --------------------------------------------------------------------------------------------


def _latest_schema(table_dir: Path) -> dict[str, Any]:
    schemas = sorted((table_dir / SCHEMA_DIR).glob("schema-*"), key=lambda p: int(p.name[7:]))
    document: dict[str, Any] = json.loads(schemas[-1].read_text(encoding="utf-8"))
    return document


def case_document(
    table: GoldenTable, table_dir: Path, steps: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """``case.json`` of a golden table (no ``generator`` key: these cases are not the case
    generators' to rebuild or remove)."""
    schema = _latest_schema(table_dir)
    fields = read_checked_in_fields(table_dir)
    requires = compute_requires(
        fields,
        schema.get("partitionKeys", []),
        schema.get("primaryKeys", []),
        schema.get("options", {}),
        steps,
        creates_table=False,
    )
    return {
        "id": table.id,
        "area": table.area,
        "description": table.description,
        "spec_refs": list(table.spec_refs),
        "producer": PRODUCER,
        "expected_by": EXPECTED_BY_JAVA,
        "requires": sorted(requires),
        "steps": list(steps),
    }


COMPACT_WIDTH = 100


def render_json(value: Any, indent: str = "") -> str:
    """JSON with short containers (a row, a type, a step) on one line."""
    flat = json.dumps(value, ensure_ascii=False, allow_nan=False)
    if not isinstance(value, (list, dict)) or not value or len(indent) + len(flat) <= COMPACT_WIDTH:
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {render_json(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    items = [inner + render_json(v, inner) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + indent + "]"


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_json(value) + "\n", encoding="utf-8")


def build_golden_table(table: GoldenTable, harness: JavaHarness, out_root: Path) -> Path:
    """Build one golden case directory under ``out_root`` (replacing any previous one)."""
    engine = JavaEngine(harness)
    with tempfile.TemporaryDirectory(prefix="paimon-kit-golden-") as scratch:
        path = str(Path(scratch) / table.case_id)
        engine.create_table(
            path, table.fields, table.partition_keys, table.primary_keys, dict(table.options)
        )
        run = CaseRun(engine, path, table.fields)
        for index, step in enumerate(table.steps):
            run.perform(index, step)
        recording = record_reads(table, engine, path, harness)
        case_dir = out_root / table.case_id
        if case_dir.exists():
            shutil.rmtree(case_dir)
        shutil.copytree(path, case_dir / TABLE_DIR)
    for name, document in recording.files.items():
        _write_json(case_dir / name, document)
    _write_json(case_dir / CASE_FILE, case_document(table, case_dir / TABLE_DIR, recording.steps))
    return case_dir


def build_golden_tables(
    harness: JavaHarness, out_root: Path = GOLDEN_DIR, only: Sequence[str] | None = None
) -> list[Path]:
    """Build the chosen golden cases (default all); returns their directories."""
    chosen = [table for table in GOLDEN_TABLES if not only or table.case_id in only]
    return [build_golden_table(table, harness, out_root) for table in chosen]


# --------------------------------------------------------------------------------------------
# Reproducibility: what differs between two generations
# --------------------------------------------------------------------------------------------

UUID_PATTERN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
VOLATILE_JSON_KEYS = frozenset({"timeMillis", "commitUser"})
"""Schema, snapshot and tag keys Java fills with the wall clock or a random commit user."""


def normalize_name(name: str) -> str:
    return UUID_PATTERN.sub("<uuid>", name)


def _normalized_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: "<volatile>" if k in VOLATILE_JSON_KEYS else _normalized_json(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_normalized_json(v) for v in value]
    if isinstance(value, str):
        return normalize_name(value)
    return value


def _json_or_none(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


def _file_signature(path: Path) -> tuple[str, str]:
    """How a file compares across generations: ``("json", normalized text)`` for JSON
    metadata, ``("bytes", hex digest)`` otherwise."""
    parsed = _json_or_none(path) if path.stat().st_size < 1 << 20 else None
    if parsed is not None:
        return "json", json.dumps(_normalized_json(parsed), sort_keys=True)
    return "bytes", hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class GenerationDiff:
    """Differences between two generations, per case."""

    listing: dict[str, list[str]] = field(default_factory=dict)
    """Case -> normalized paths present in only one generation."""
    case_files: dict[str, list[str]] = field(default_factory=dict)
    """Case -> ``case.json`` / ``expected/*`` files that differ (must be empty)."""
    json_metadata: dict[str, list[str]] = field(default_factory=dict)
    """Case -> table JSON files (snapshots, schemas, tags, hints) that differ after
    normalizing UUIDs, ``timeMillis`` and ``commitUser`` (must be empty)."""
    volatile_binary: Counter[str] = field(default_factory=Counter)
    """Kind of binary table file -> how many differ in bytes but not in content once file
    names, creation times and manifest sizes are normalized."""
    content: dict[str, list[str]] = field(default_factory=dict)
    """Case -> binary table files whose normalized content differs (must be empty)."""

    @property
    def problems(self) -> int:
        sections = (self.listing, self.case_files, self.json_metadata, self.content)
        return sum(len(paths) for section in sections for paths in section.values())


def _binary_kind(relative: str) -> str:
    """``bucket/data.parquet``, ``manifest/manifest-list``, ``index/index`` ..."""
    parts = relative.split("/")
    directory = "bucket" if any(p.startswith("bucket-") for p in parts[:-1]) else parts[1]
    name = parts[-1]
    prefix = name.split("-<uuid>")[0]
    suffix = name.rsplit(".", 1)[-1] if "." in name and "<uuid>" in name else ""
    return f"{directory}/{prefix}" + (f".{suffix}" if suffix and not suffix[0].isdigit() else "")


CREATION_TIME_KEY = "_CREATION_TIME"
MANIFEST_SIZE_KEY = "_FILE_SIZE"
"""In a manifest list, the size of a manifest: it holds creation times and UUID names, so its
compressed size varies. Data and index file sizes (the same key elsewhere) do not."""


def _normalized_record(value: Any, volatile: frozenset[str]) -> Any:
    """Decoded rows or records with UUIDs in names replaced and ``volatile`` keys masked."""
    if isinstance(value, dict):
        return {
            k: "<volatile>" if k in volatile else _normalized_record(v, volatile)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_normalized_record(v, volatile) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, str):
        return normalize_name(value)
    return value if isinstance(value, (int, float, bool)) or value is None else str(value)


def _content(path: Path, relative: str) -> Any:
    """The normalized content of a binary table file (decoded rows or records)."""

    data = path.read_bytes()
    if relative.startswith(f"{TABLE_DIR}/manifest/"):
        fmt = manifest.detect_manifest_format(data)
        _, records = manifest._decode_rows(data, fmt)  # format-neutral rows (a private helper)
        volatile = {CREATION_TIME_KEY}
        if "/manifest-list-" in relative:
            volatile.add(MANIFEST_SIZE_KEY)
        return _normalized_record(records, frozenset(volatile))
    none: frozenset[str] = frozenset()
    if path.suffix == ".parquet":
        return _normalized_record(pq.ParquetFile(path).read().to_pylist(), none)
    if path.suffix == ".orc":
        return _normalized_record(orc.read_table(path).to_pylist(), none)
    if path.suffix == ".avro":
        with path.open("rb") as stream:
            return _normalized_record(list(fastavro.reader(stream)), none)
    return data.hex()


def compare_generations(first: Path, second: Path) -> GenerationDiff:
    """Compare two output roots of :func:`build_golden_tables` case by case.

    Files are matched by normalized path (UUIDs replaced) and, among files with the same
    normalized path, by content: JSON after normalization, other files by bytes; binary files
    left unmatched are compared again by decoded, normalized content.
    """
    diff = GenerationDiff()
    for case_dir in sorted(p for p in first.iterdir() if p.is_dir()):
        roots = (case_dir, second / case_dir.name)
        by_path: list[dict[str, list[Path]]] = [{}, {}]
        for side, root in enumerate(roots):
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                relative = normalize_name(path.relative_to(root).as_posix())
                by_path[side].setdefault(relative, []).append(path)
        left, right = by_path
        only = sorted(set(left) ^ set(right))
        if only:
            diff.listing[case_dir.name] = only
        for relative in sorted(set(left) & set(right)):
            signatures = [Counter(_file_signature(p) for p in side[relative]) for side in by_path]
            if signatures[0] == signatures[1]:
                continue
            if not relative.startswith(TABLE_DIR + "/"):
                diff.case_files.setdefault(case_dir.name, []).append(relative)
                continue
            if all(kind == "json" for kind, _ in signatures[0]):
                diff.json_metadata.setdefault(case_dir.name, []).append(relative)
                continue
            contents = [
                sorted(json.dumps(_content(p, relative), sort_keys=True) for p in side[relative])
                for side in by_path
            ]
            if contents[0] == contents[1]:
                diff.volatile_binary[_binary_kind(relative)] += sum(
                    (signatures[0] - signatures[1]).values()
                )
            else:
                diff.content.setdefault(case_dir.name, []).append(relative)
    return diff
