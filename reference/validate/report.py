"""What the validator reports: the rules it checks, the violations it finds, and how to print them.

Every rule is a member of :class:`Rule`: its name is the stable code (``SNAPSHOT_ID_GAP``), and
it carries a severity and a reference to where the spec (``docs/concepts/spec/*.md`` of Apache
Paimon) or the Java implementation states it. A :class:`Violation` is one finding: a rule broken
by one file, with a reason a person can act on.

Severities:

* ``error``: the table breaks a rule readers or writers rely on (a missing file, a wrong count,
  unsorted keys). Any error makes ``paimon-kit validate`` exit with 1.
* ``warning``: something is off but every reader copes (a stale ``LATEST`` hint: readers fall
  back to listing the directory). Reported, exit code unaffected.
* ``info``: a check that could not run on this table (an unsupported format or index type).

File paths in violations are relative to the table root (``snapshot/snapshot-3``,
``dt=1/bucket-0/data-….parquet``), so reports of copies of a table compare equal.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any

JSON_REPORT_VERSION = 1
EXIT_CLEAN = 0
EXIT_VIOLATIONS = 1
EXIT_UNREADABLE = 2


class Severity(Enum):
    """How much a broken rule matters (see the module docstring); the value is what the JSON
    report and the text report print."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


class Rule(Enum):
    """Every rule the validator checks. The member name is the rule's stable code; the value
    holds its severity, where the spec (``docs/concepts/spec``) or the Java class states it,
    and a one-line summary."""

    # -- the validator itself ---------------------------------------------------------------------
    CHECK_FAILED = (
        ERROR,
        "paimon-kit validator",
        "a check stopped on input it could not handle",
    )
    CHECK_SKIPPED = (
        INFO,
        "paimon-kit validator",
        "a check needs a feature paimon-kit lacks",
    )

    # -- schemas -----------------------------------------------------------------------------------
    SCHEMA_MISSING = (
        ERROR,
        "schema.md; Java schema/SchemaManager",
        "the table has no schema file",
    )
    SCHEMA_UNREADABLE = (
        ERROR,
        "schema.md; Java schema/TableSchema",
        "a schema file does not parse",
    )
    SCHEMA_ID_MISMATCH = (
        ERROR,
        "schema.md; Java schema/SchemaManager",
        "a schema file's id differs from the number in its name",
    )
    SCHEMA_INVALID = (
        ERROR,
        "schema.md; Java schema/SchemaValidation",
        "a schema parses but breaks a rule of table schemas",
    )
    SCHEMA_ID_GAP = (
        ERROR,
        "schema.md; Java schema/SchemaManager.commit (id = latest + 1)",
        "schema ids are not contiguous from 0",
    )

    # -- snapshots and hints -----------------------------------------------------------------------
    SNAPSHOT_UNREADABLE = (
        ERROR,
        "snapshot.md; Java Snapshot",
        "a snapshot file does not parse",
    )
    SNAPSHOT_ID_MISMATCH = (
        ERROR,
        "snapshot.md (id: same to file name)",
        "a snapshot's id differs from the number in its file name",
    )
    SNAPSHOT_ID_GAP = (
        ERROR,
        "snapshot.md (versions start from 1 and are continuous)",
        "snapshot ids are not contiguous between the earliest and the latest",
    )
    SNAPSHOT_SCHEMA_MISSING = (
        ERROR,
        "snapshot.md (schemaId); Java schema/SchemaManager",
        "a snapshot names a schema that does not exist",
    )
    HINT_WRONG = (
        WARNING,
        "snapshot.md (hint files can be inaccurate); Java utils/HintFileUtils",
        "an EARLIEST or LATEST hint does not name the earliest or latest snapshot",
    )
    SNAPSHOT_TOTAL_RECORD_COUNT = (
        ERROR,
        "snapshot.md (totalRecordCount); "
        "Java operation/FileStoreCommitImpl (previous total + delta)",
        "totalRecordCount is not the previous snapshot's total plus deltaRecordCount",
    )
    SNAPSHOT_DELTA_RECORD_COUNT = (
        ERROR,
        "snapshot.md (deltaRecordCount); Java manifest/ManifestEntry.recordCountAdd/-Delete",
        "deltaRecordCount is not the rows added minus the rows deleted by the delta manifests",
    )
    SNAPSHOT_LIVE_RECORD_COUNT = (
        ERROR,
        "snapshot.md (totalRecordCount: record count of all live data files)",
        "totalRecordCount is not the sum of the row counts of the live data files",
    )
    SNAPSHOT_CHANGELOG_RECORD_COUNT = (
        ERROR,
        "snapshot.md (changelogRecordCount); Java operation/FileStoreCommitImpl",
        "changelogRecordCount is not the row count of the changelog manifests",
    )

    # -- manifests ---------------------------------------------------------------------------------
    MANIFEST_LIST_MISSING = (
        ERROR,
        "snapshot.md (base/delta/changelogManifestList)",
        "a manifest list named by a snapshot does not exist",
    )
    MANIFEST_LIST_UNREADABLE = (
        ERROR,
        'manifest.md "Manifest List"; Java manifest/ManifestList',
        "a manifest list does not decode",
    )
    MANIFEST_LIST_SIZE_MISMATCH = (
        ERROR,
        "snapshot.md (baseManifestListSize, Paimon 1.1+)",
        "a manifest list's size differs from the size its snapshot records",
    )
    MANIFEST_MISSING = (
        ERROR,
        'manifest.md "Manifest List" (_FILE_NAME)',
        "a manifest named by a manifest list does not exist",
    )
    MANIFEST_UNREADABLE = (
        ERROR,
        'manifest.md "Data Manifest"; Java manifest/ManifestFile',
        "a manifest does not decode",
    )
    MANIFEST_SIZE_MISMATCH = (
        ERROR,
        'manifest.md "Manifest List" (_FILE_SIZE)',
        "a manifest's size differs from its _FILE_SIZE",
    )
    MANIFEST_FILE_COUNT_MISMATCH = (
        ERROR,
        'manifest.md "Manifest List" (_NUM_ADDED_FILES, _NUM_DELETED_FILES)',
        "a manifest's ADD/DELETE entry counts differ from its manifest list entry",
    )
    MANIFEST_PARTITION_STATS_MISMATCH = (
        ERROR,
        'manifest.md "Manifest List" (_PARTITION_STATS)',
        "a manifest's partition statistics do not cover exactly its entries' partitions",
    )
    MANIFEST_RANGE_MISMATCH = (
        ERROR,
        "Java manifest/ManifestFileMeta (_MIN_BUCKET.._MAX_LEVEL, Paimon 1.1+)",
        "a manifest's bucket or level range differs from its entries",
    )
    MANIFEST_SCHEMA_MISSING = (
        ERROR,
        'manifest.md "Manifest List" (_SCHEMA_ID)',
        "a manifest names a schema that does not exist",
    )
    INDEX_MANIFEST_MISSING = (
        ERROR,
        "snapshot.md (indexManifest)",
        "the index manifest named by a snapshot does not exist",
    )
    INDEX_MANIFEST_UNREADABLE = (
        ERROR,
        'manifest.md "Index Manifest"',
        "an index manifest does not decode",
    )

    # -- replaying entries -------------------------------------------------------------------------
    DELETE_OF_MISSING_FILE = (
        ERROR,
        'manifest.md "Manifest" (a file is added once, deleted once); Java FileEntry.mergeEntries',
        "a DELETE entry removes a file no earlier entry added",
    )
    FILE_ADDED_TWICE = (
        ERROR,
        'Java manifest/FileEntry.mergeEntries ("already added")',
        "an ADD entry adds a file that is already live",
    )
    FILE_LIVE_TWICE = (
        ERROR,
        'datafile.md "Data File"; Java manifest/FileEntry.Identifier',
        "one data file is live twice in a bucket (at two levels)",
    )
    PARTITION_UNDECODABLE = (
        ERROR,
        'manifest.md "Data Manifest" (_PARTITION); "BinaryRow"',
        "an entry's partition does not decode with the table's partition type",
    )

    # -- data files: metadata level ----------------------------------------------------------------
    DATA_FILE_MISSING = (
        ERROR,
        'datafile.md "Data File"; Java utils/FileStorePathFactory',
        "a live data file does not exist where its partition and bucket put it",
    )
    DATA_FILE_WRONG_DIRECTORY = (
        ERROR,
        'datafile.md "Partition", "Bucket"',
        "a live data file sits in another partition or bucket directory than its entry says",
    )
    DATA_FILE_SIZE_MISMATCH = (
        ERROR,
        'manifest.md "Data Manifest" (_FILE_SIZE)',
        "a data file's size differs from its recorded _FILE_SIZE",
    )
    DATA_FILE_UNREADABLE = (
        ERROR,
        'fileformat.md; datafile.md "Data File"',
        "a data file does not decode",
    )
    DATA_FILE_COLUMNS = (
        ERROR,
        'datafile.md "Table with Primary key Data File", "Table w/o Primary key Data File"',
        "a data file lacks a column its table layout requires",
    )
    DATA_FILE_ROW_COUNT = (
        ERROR,
        'manifest.md "Data Manifest" (_ROW_COUNT)',
        "a data file holds another number of rows than its _ROW_COUNT",
    )
    DATA_FILE_SCHEMA_MISSING = (
        ERROR,
        'manifest.md "Data Manifest" (_SCHEMA_ID)',
        "a data file names a schema that does not exist",
    )
    EXTRA_FILE_MISSING = (
        ERROR,
        'manifest.md "Data Manifest" (_EXTRA_FILES); fileindex.mdx',
        "a file listed in _EXTRA_FILES does not exist",
    )
    BUCKET_OUT_OF_RANGE = (
        ERROR,
        'datafile.md "Bucket"; Java operation/AbstractFileStoreWrite',
        "an entry's bucket is outside [0, _TOTAL_BUCKETS)",
    )
    TOTAL_BUCKETS_MISMATCH = (
        ERROR,
        'manifest.md "Data Manifest" (_TOTAL_BUCKETS); '
        "Java AbstractFileStoreScan (bucket num check)",
        "_TOTAL_BUCKETS differs from the bucket option of the file's schema, or within a partition",
    )
    LEVEL_OVERLAP = (
        ERROR,
        "primary-key-table/compaction (each level > 0 is one sorted run); Java mergetree/Levels",
        "two files of one level above 0 in a bucket have overlapping key ranges",
    )
    FILE_META_INVALID = (
        ERROR,
        'manifest.md "Data Manifest"; Java io/DataFileMeta',
        "a data file's metadata contradicts itself (key or sequence range, counts, stats arity)",
    )

    # -- data files: contents (--deep) -------------------------------------------------------------
    KEYS_UNSORTED = (
        ERROR,
        'datafile.md "Table with Primary key Data File"; Java KeyValue, '
        "mergetree/MergeTreeWriter (files are sorted by key)",
        "the keys of a primary-key data file are not strictly ascending",
    )
    KEY_RANGE_MISMATCH = (
        ERROR,
        'manifest.md "Data Manifest" (_MIN_KEY, _MAX_KEY)',
        "a primary-key data file's first key is not _MIN_KEY, or its last key is above _MAX_KEY",
    )
    KEY_VALUE_MISMATCH = (
        ERROR,
        'datafile.md "Table with Primary key Data File"',
        "a _KEY_ column differs from the value column it copies",
    )
    SEQUENCE_OUT_OF_RANGE = (
        ERROR,
        'manifest.md "Data Manifest" (_MIN_SEQUENCE_NUMBER, _MAX_SEQUENCE_NUMBER)',
        "a record's _SEQUENCE_NUMBER is outside the file's recorded range",
    )
    VALUE_KIND_INVALID = (
        ERROR,
        "datafile.md (_VALUE_KIND); Java types/RowKind",
        "a _VALUE_KIND is not one of +I, -U, +U, -D (0..3)",
    )
    DELETE_ROW_COUNT_MISMATCH = (
        ERROR,
        "Java io/DataFileMeta (_DELETE_ROW_COUNT)",
        "_DELETE_ROW_COUNT differs from the number of -U/-D records",
    )
    STATS_MISMATCH = (
        ERROR,
        'manifest.md "SimpleStats"; Java statistics/*SimpleColStatsCollector (truncate, counts)',
        "recorded key or value statistics disagree with the file's rows",
    )
    PARTITION_VALUE_MISMATCH = (
        ERROR,
        'datafile.md "Partition"',
        "a row's partition columns differ from its entry's partition",
    )
    BUCKET_KEY_MISMATCH = (
        ERROR,
        'datafile.md "Bucket"; Java table/sink/KeyAndBucketExtractor (abs(hash % buckets))',
        "a row's bucket key hashes to another bucket than the file's",
    )

    # -- index files -------------------------------------------------------------------------------
    INDEX_FILE_MISSING = (
        ERROR,
        'tableindex.md; manifest.md "Index Manifest"',
        "an index file named by the index manifest does not exist",
    )
    INDEX_FILE_SIZE_MISMATCH = (
        ERROR,
        'manifest.md "Index Manifest" (_FILE_SIZE)',
        "an index file's size differs from its recorded size",
    )
    INDEX_ROW_COUNT_MISMATCH = (
        ERROR,
        'manifest.md "Index Manifest" (_ROW_COUNT); Java index/HashIndexFile, '
        "deletionvectors/DeletionVectorIndexFileWriter",
        "an index file's row count differs from the hashes or vectors it holds",
    )
    DV_UNREADABLE = (
        ERROR,
        'tableindex.md "Deletion Vectors"; Java deletionvectors/DeletionVector',
        "a deletion vector does not decode (size, checksum, magic or bitmap)",
    )
    DV_CARDINALITY_MISMATCH = (
        ERROR,
        "Java index/DeletionVectorMeta (_CARDINALITY, Paimon 1.0+)",
        "a deletion vector deletes another number of rows than its recorded cardinality",
    )
    DV_POSITION_OUT_OF_RANGE = (
        ERROR,
        'tableindex.md "Deletion Vectors"',
        "a deletion vector deletes a position at or beyond its data file's row count",
    )
    DV_DANGLING = (
        ERROR,
        'tableindex.md "Deletion Vectors"; Java deletionvectors/'
        "BucketedDvMaintainer (vectors of compacted files are removed)",
        "a deletion vector belongs to no live data file of its bucket",
    )
    DV_DUPLICATE = (
        ERROR,
        'tableindex.md "Deletion Vectors"',
        "two live deletion vectors name the same data file",
    )
    HASH_INDEX_UNREADABLE = (
        ERROR,
        'tableindex.md "Dynamic Bucket Index"',
        "a HASH index file does not decode",
    )
    HASH_INDEX_MISSING_KEY = (
        ERROR,
        'tableindex.md "Dynamic Bucket Index"; Java index/HashBucketAssigner',
        "a key stored in a dynamic bucket is missing from that bucket's HASH index",
    )
    FILE_INDEX_UNREADABLE = (
        ERROR,
        'fileindex.mdx "Index File"; Java fileindex/FileIndexFormat',
        "a data file's file index (embedded or .index) does not decode",
    )
    FILE_INDEX_MISMATCH = (
        ERROR,
        "fileindex.mdx (BloomFilter, Bitmap, Bit-Slice Index Bitmap)",
        "a file index disagrees with the rows of its data file",
    )

    # -- tags, branches, consumers -----------------------------------------------------------------
    TAG_UNREADABLE = (
        ERROR,
        "Java tag/Tag, utils/TagManager",
        "a tag file does not parse",
    )
    TAG_DANGLING = (
        ERROR,
        "Java utils/TagManager (a tag keeps its snapshot's files alive)",
        "a tag points at a snapshot that never existed or whose manifests are gone",
    )
    TAG_SNAPSHOT_MISMATCH = (
        ERROR,
        "Java utils/TagManager (tag = copy of the snapshot)",
        "a tag differs from the snapshot file of the same id",
    )
    BRANCH_INVALID = (
        ERROR,
        "Java utils/BranchManager (a branch starts with copied schemas)",
        "a branch directory has no schema",
    )
    CONSUMER_UNREADABLE = (
        ERROR,
        "Java consumer/Consumer",
        "a consumer file does not parse",
    )
    CONSUMER_AHEAD = (
        ERROR,
        "Java consumer/ConsumerManager (next snapshot <= latest + 1)",
        "a consumer's next snapshot is beyond the latest snapshot + 1",
    )
    CONSUMER_EXPIRED = (
        WARNING,
        "Java table/ExpireSnapshotsImpl (consumers hold back expiration)",
        "a consumer's next snapshot was already expired",
    )

    @property
    def code(self) -> str:
        return self.name

    @property
    def severity(self) -> Severity:
        severity: Severity = self.value[0]
        return severity

    @property
    def spec_ref(self) -> str:
        spec_ref: str = self.value[1]
        return spec_ref

    @property
    def summary(self) -> str:
        summary: str = self.value[2]
        return summary


RULES: Mapping[str, Rule] = MappingProxyType({rule.code: rule for rule in Rule})
"""Every rule by code."""


# --------------------------------------------------------------------------------------------
# Findings
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    """One broken rule: ``file`` is relative to the table root; ``snapshot`` is the first
    snapshot in which the problem was seen (None for problems outside any snapshot)."""

    rule: Rule
    file: str
    reason: str
    snapshot: int | None = None

    @property
    def code(self) -> str:
        return self.rule.code

    @property
    def severity(self) -> Severity:
        return self.rule.severity

    @property
    def spec_ref(self) -> str:
        return self.rule.spec_ref


def violation(rule: Rule, file: str, reason: str, snapshot: int | None = None) -> Violation:
    return Violation(rule, file, reason, snapshot)


def relative_file(table_root: str, path: str) -> str:
    """``path`` relative to the table root when it lies below it, else ``path`` itself."""
    prefix = table_root.rstrip("/") + "/"
    return path[len(prefix) :] if path.startswith(prefix) else path


@dataclass(frozen=True)
class TableReport:
    """The findings on one table; ``unreadable`` is why it could not be checked at all."""

    table: str
    violations: tuple[Violation, ...] = ()
    unreadable: str | None = None
    checked: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "checked", MappingProxyType(dict(self.checked)))


@dataclass(frozen=True)
class ValidationReport:
    """The findings on a table or on every table of a warehouse."""

    root: str
    tables: tuple[TableReport, ...] = ()
    unreadable: str | None = None


def count_by_severity(violations: Iterable[Violation]) -> Counter[Severity]:
    return Counter(v.severity for v in violations)


def is_failing(table: TableReport) -> bool:
    return any(v.severity is Severity.ERROR for v in table.violations)


def compute_exit_code(report: ValidationReport) -> int:
    """2 if the root or a table could not be read at all, else 1 if any error, else 0."""
    if report.unreadable is not None or any(t.unreadable is not None for t in report.tables):
        return EXIT_UNREADABLE
    if any(is_failing(table) for table in report.tables):
        return EXIT_VIOLATIONS
    return EXIT_CLEAN


def dedupe_violations(violations: Iterable[Violation]) -> list[Violation]:
    """Violations in first-seen order, each (code, file, reason) once."""
    seen: set[tuple[str, str, str]] = set()
    kept: list[Violation] = []
    for found in violations:
        key = (found.code, found.file, found.reason)
        if key not in seen:
            seen.add(key)
            kept.append(found)
    return kept


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------


def violation_to_json(found: Violation) -> dict[str, Any]:
    return {
        "code": found.code,
        "severity": found.severity.value,
        "file": found.file,
        "reason": found.reason,
        "spec_ref": found.spec_ref,
        "snapshot": found.snapshot,
    }


def _table_status(table: TableReport) -> str:
    if table.unreadable is not None:
        return "unreadable"
    return "violations" if is_failing(table) else "clean"


def table_to_json(table: TableReport) -> dict[str, Any]:
    counts = Counter(v.code for v in table.violations)
    return {
        "table": table.table,
        "status": _table_status(table),
        "unreadable": table.unreadable,
        "checked": dict(table.checked),
        "counts": dict(sorted(counts.items())),
        "violations": [violation_to_json(v) for v in table.violations],
    }


def report_to_json(report: ValidationReport) -> dict[str, Any]:
    """The stable JSON form (``version`` 1): a summary, then every table with every finding."""
    severities = count_by_severity(v for t in report.tables for v in t.violations)
    return {
        "version": JSON_REPORT_VERSION,
        "root": report.root,
        "unreadable": report.unreadable,
        "exit_code": compute_exit_code(report),
        "summary": {
            "tables": len(report.tables),
            "unreadable_tables": sum(t.unreadable is not None for t in report.tables),
            "errors": severities[Severity.ERROR],
            "warnings": severities[Severity.WARNING],
            "infos": severities[Severity.INFO],
        },
        "tables": [table_to_json(t) for t in report.tables],
    }


def render_json(report: ValidationReport) -> str:
    return json.dumps(report_to_json(report), indent=2, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------

TEXT_INDENT = "  "


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _severity_summary(violations: Sequence[Violation]) -> str:
    counts = count_by_severity(violations)
    parts = [_plural(counts[Severity.ERROR], "error"), _plural(counts[Severity.WARNING], "warning")]
    if counts[Severity.INFO]:
        parts.append(f"{counts[Severity.INFO]} skipped")
    return ", ".join(parts)


def render_summary_line(report: ValidationReport) -> str:
    """``validate: 3 tables, 1 with errors, 0 unreadable; 4 errors, 1 warning``."""
    if report.unreadable is not None:
        return f"validate: {report.root}: UNREADABLE: {report.unreadable}"
    found = [v for t in report.tables for v in t.violations]
    failing = sum(is_failing(t) for t in report.tables)
    unreadable = sum(t.unreadable is not None for t in report.tables)
    return (
        f"validate: {_plural(len(report.tables), 'table')}, {failing} with errors, "
        f"{unreadable} unreadable; {_severity_summary(found)}"
    )


def _checked_summary(checked: Mapping[str, int]) -> str:
    """``snapshots: 4, data files: 12, rows read: 90``."""
    return ", ".join(f"{name}: {count}" for name, count in checked.items())


def _snapshot_note(found: Violation) -> str:
    return "" if found.snapshot is None else f" (snapshot {found.snapshot})"


def render_table_text(table: TableReport, max_details: int) -> list[str]:
    """Lines for one table: a status line, counts per code, then the first ``max_details``
    findings of each code grouped by file."""
    if table.unreadable is not None:
        return [f"UNREADABLE {table.table}: {table.unreadable}"]
    status = "FAIL" if is_failing(table) else "OK  "
    lines = [f"{status} {table.table}: {_severity_summary(table.violations)}"]
    if table.checked:
        lines.append(f"{TEXT_INDENT}checked {_checked_summary(table.checked)}")
    if not table.violations:
        return lines
    counts = Counter(v.rule for v in table.violations)
    lines.append(f"{TEXT_INDENT}by code:")
    for rule, count in sorted(counts.items(), key=lambda item: (-item[1], item[0].code)):
        lines.append(
            f"{TEXT_INDENT * 2}{rule.severity.value:<7} {rule.code:<34} {count:>5}  {rule.summary}"
        )
    shown: list[Violation] = []
    per_code: Counter[str] = Counter()
    for found in table.violations:
        if per_code[found.code] < max_details:
            shown.append(found)
        per_code[found.code] += 1
    lines.append(f"{TEXT_INDENT}by file:")
    for file in dict.fromkeys(v.file for v in shown):
        lines.append(f"{TEXT_INDENT * 2}{file or '.'}")
        for found in (v for v in shown if v.file == file):
            lines.append(
                f"{TEXT_INDENT * 3}{found.severity.value} {found.code}"
                f"{_snapshot_note(found)}: {found.reason}"
            )
            lines.append(f"{TEXT_INDENT * 4}spec: {found.spec_ref}")
    hidden = {
        code: per_code[code] - max_details for code in per_code if per_code[code] > max_details
    }
    for code, count in sorted(hidden.items()):
        lines.append(f"{TEXT_INDENT}... {count} more {code} (raise --max-details to see them)")
    return lines


def render_text(report: ValidationReport, max_details: int) -> str:
    lines = [render_summary_line(report)]
    for table in report.tables:
        lines.extend(render_table_text(table, max_details))
    return "\n".join(lines)
