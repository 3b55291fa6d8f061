"""The validator for Paimon tables written by anyone: every rule of the format it can check.

``validate(file_io, path)`` checks a table, or every table of a database directory or a
warehouse (``<warehouse>/<db>.db/<table>``), and returns a :class:`ValidationReport` of
:class:`Violation` findings, each with a stable code, a severity, the file (relative to its
table), a reason and the spec section or Java class that states the rule
(``reference.validate.report`` lists them all).

What is checked, module by module:

* ``metadata_checks``: schemas, snapshots, hints, record-count chain, tags, branches, consumers.
* ``manifest_checks``: manifest lists and manifests (sizes, counts, partition stats), the
  replay of ADD/DELETE entries, snapshot record counts, buckets, level overlaps.
* ``file_checks``: each live data file exists in its bucket directory with its size, its
  schema, its columns and row count, its extra files.
* ``index_checks``: deletion vectors, HASH indexes and file indexes.
* ``data_checks`` (``deep``): the rows of each file against its metadata, statistics,
  partition, bucket and file index (``stats_checks`` judges statistics, also for partitions).
* ``runner`` runs them in order, ``guard`` turns failures into findings, ``report`` holds the
  rules and renders the report as text or JSON.

By default the latest snapshot of each branch is checked; ``snapshot_id`` picks one snapshot
of the main branch and ``all_snapshots`` checks every snapshot and every tag. Each manifest and
each data file is judged once however many snapshots share it; a finding names the first
snapshot that showed it.

Nothing escapes as an exception: a check that trips over bad input becomes a finding
(``CHECK_FAILED`` when the validator itself could not cope), and a table that cannot be read at
all (not a table, a storage failure, a requested snapshot that does not exist) is reported as
unreadable.
"""

from reference.validate.report import (
    EXIT_CLEAN,
    EXIT_UNREADABLE,
    EXIT_VIOLATIONS,
    RULES,
    Rule,
    Severity,
    TableReport,
    ValidationReport,
    Violation,
    compute_exit_code,
    render_json,
    render_text,
    report_to_json,
)
from reference.validate.runner import (
    Progress,
    ValidateOptions,
    find_tables,
    validate,
    validate_table,
)

__all__ = [
    "EXIT_CLEAN",
    "EXIT_UNREADABLE",
    "EXIT_VIOLATIONS",
    "RULES",
    "Progress",
    "Rule",
    "Severity",
    "TableReport",
    "ValidateOptions",
    "ValidationReport",
    "Violation",
    "compute_exit_code",
    "find_tables",
    "render_json",
    "render_text",
    "report_to_json",
    "validate",
    "validate_table",
]
