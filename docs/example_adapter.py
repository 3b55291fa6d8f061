"""An example third-party engine adapter for the paimon-kit conformance cases.

Run the cases against it with the pytest plugin::

    python -m pytest conformance/test_cases.py --paimon-engine docs.example_adapter:ExampleEngine

or from an installed paimon-kit::

    pytest --pyargs conformance.test_cases --paimon-engine docs.example_adapter:ExampleEngine

An adapter is a class with a ``name``, a ``capabilities`` set and the methods of
:class:`conformance.engines.base.Engine`. Values follow ``reference.spec.data`` (DATE = days,
TIMESTAMP = ``Timestamp``, DECIMAL = ``Decimal``, ...); rows travel as ``(RowKind, row)``.
Declare only what your engine does: a case needing anything else is skipped with the reason,
and a read-like step you cannot run (say, ``read_changes``) is left out of a case whose other
steps you can run. Methods behind capabilities you do not declare are never called.

"Your engine" here is paimon-kit's reference implementation, driven only through its public
table API, and the adapter claims a deliberately small slice of the format: primary-key tables
with the deduplicate merge engine and append tables, in Parquet, with plain column types. A real
adapter would call its own engine where this one calls ``Table``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from conformance.engines import base as b
from conformance.engines.base import AlterChange, Change, Filter, Rows, TimeTravel
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Value
from reference.store.query import TimeTravel as ReferenceTimeTravel
from reference.table import Table

SUPPORTED_TYPES = (
    t.TypeRoot.BOOLEAN,
    t.TypeRoot.INTEGER,
    t.TypeRoot.BIGINT,
    t.TypeRoot.DOUBLE,
    t.TypeRoot.VARCHAR,
)


class ExampleEngine:
    """Writes and reads primary-key (deduplicate) and append tables; nothing else."""

    name = "example"
    capabilities = frozenset(
        {
            b.CAP_WRITE,
            b.CAP_READ,
            b.CAP_PROJECTION,
            b.CAP_PRIMARY_KEY,
            b.CAP_APPEND,
            b.CAP_BUCKET_FIXED,
            b.CAP_BUCKET_UNAWARE,
            b.merge_engine_capability("deduplicate"),
            b.format_capability("parquet"),
            *(b.type_capability(root) for root in SUPPORTED_TYPES),
        }
    )
    timestamp_precision = 9
    """Digits of a second the engine keeps (the comparison truncates both sides to it)."""

    def __init__(self) -> None:
        # Build connections, sessions, clients here; raise EngineUnavailable if you cannot.
        self.file_io = LocalFileIO()

    def create_table(
        self,
        path: str,
        fields: Sequence[t.DataField],
        partition_keys: Sequence[str],
        primary_keys: Sequence[str],
        options: Mapping[str, str],
    ) -> None:
        Table.create(
            self.file_io,
            path,
            fields,
            partition_keys=partition_keys,
            primary_keys=primary_keys,
            options=options,
        )

    def write(
        self, path: str, rows: Sequence[Change], overwrite: Mapping[str, Value] | None = None
    ) -> int | None:
        table = Table.open(self.file_io, path)
        table.write_and_commit([row for _, row in rows], [kind for kind, _ in rows])
        latest = table.latest_snapshot()
        return None if latest is None else latest.id

    def read(
        self,
        path: str,
        travel: TimeTravel,
        projection: Sequence[str] | None,
        filter: Filter | None,
    ) -> Rows:
        result = Table.open(self.file_io, path).read(
            ReferenceTimeTravel(travel.snapshot_id, travel.tag, travel.timestamp_millis),
            None,
            projection,
        )
        fields = result.schema.fields
        if projection is not None:
            fields = b.project_fields(fields, projection)
        return Rows(tuple(fields), list(result.rows))

    # Not declared in ``capabilities``, so never called by the runner.

    def compact(self, path: str, full: bool) -> int | None:
        raise NotImplementedError

    def alter(self, path: str, changes: Sequence[AlterChange]) -> None:
        raise NotImplementedError

    def create_tag(self, path: str, name: str, snapshot_id: int | None) -> None:
        raise NotImplementedError

    def expire(
        self,
        path: str,
        retain_max: int | None,
        retain_min: int | None,
        time_retained_millis: int | None,
    ) -> None:
        raise NotImplementedError

    def read_changes(self, path: str, from_snapshot: int, to_snapshot: int | None) -> Rows:
        raise NotImplementedError

    def system_table(self, path: str, name: str) -> Rows:
        raise NotImplementedError

    def close(self) -> None:
        """Release sessions and processes (called once, at the end of the run)."""
