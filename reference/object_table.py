"""Object tables: a Paimon append table that indexes the objects (files) under a location.

Spec: the seeds' section 3.6.5 (create with ``object-location``, ``refresh_object_table``,
query, time travel with ``scan.snapshot-id``). Java: ``table/object/ObjectTable`` (its
``SCHEMA``), ``ObjectRefresh``, ``catalog/AbstractCatalog.createObjectTable`` as of Paimon
1.1-1.2. History: Paimon 0.9 has no object table (it reads one as a plain append table); 1.0
introduced it with the same thirteen columns, 1.1 filled more of them; 1.3 (main) redesigned it
as a virtual table that lists the location at every read, with six columns (relative path,
name, length, mtime and atime as BIGINT, owner) and no snapshots. The reference follows the
1.1-1.2 design the seed describes, because it has snapshots to travel to.

Rules:

1. *Creating.* The options must name ``object-location``; the given fields must be none or
   some of :data:`OBJECT_FIELDS`; the table is created with exactly :data:`OBJECT_FIELDS`,
   without partition or primary keys (a bucket-unaware append table).
2. *Refresh.* Every file below the location, at any depth (directories are not rows), becomes
   a row: ``path`` (the full URI: ``file:/...`` for local files), ``parent_path``, ``name``,
   ``length``, ``mtime`` (the modification time, TIMESTAMP_LTZ millis), ``atime`` (the access
   time; 0 when the store does not report it, as Paimon's local file IO), and null for
   ``owner``, ``generation``, ``content_type``, ``storage_class``, ``md5_hash``,
   ``metadata_mtime`` and ``metadata`` (the reference's file IO reports none of them). The
   rows, in path order, are committed as one OVERWRITE of the whole table, so each refresh is
   one snapshot holding the listing of that moment (an empty listing too).
3. *Reading* is reading an append table: the latest listing, or an earlier one by time travel.
4. *Writing* other than by refresh is refused (Java: "Object table does not support Write").

Differences from Java: 1.1-1.2 commit every 10,000 objects as a separate overwrite (so a large
location kept only its last batch) and commit nothing for an empty location; 1.0, like the
reference, commits once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reference import layout
from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature
from reference.io import FileIO, file_io_for, split_scheme
from reference.spec import types as t
from reference.spec.data import Row, Timestamp
from reference.spec.schema import TABLE_TYPE_OPTION
from reference.spec.snapshot import Snapshot
from reference.store import commit as store_commit
from reference.store import metadata
from reference.store.write import write_batch

OBJECT_TABLE_TYPE = "object-table"
OBJECT_LOCATION_OPTION = "object-location"
LOCAL_URI_SCHEME = "file:"
UNKNOWN_ACCESS_TIME = 0

STRING = t.VarCharType(t.MAX_LENGTH)
TIMESTAMP_LTZ_MILLIS = t.LocalZonedTimestampType(precision=3)

OBJECT_FIELDS: tuple[t.DataField, ...] = (
    t.DataField(0, "path", STRING.copy(False)),
    t.DataField(1, "parent_path", STRING.copy(False)),
    t.DataField(2, "name", STRING.copy(False)),
    t.DataField(3, "length", t.BigIntType(nullable=False)),
    t.DataField(4, "mtime", TIMESTAMP_LTZ_MILLIS),
    t.DataField(5, "atime", TIMESTAMP_LTZ_MILLIS),
    t.DataField(6, "owner", STRING),
    t.DataField(7, "generation", t.IntType()),
    t.DataField(8, "content_type", STRING),
    t.DataField(9, "storage_class", STRING),
    t.DataField(10, "md5_hash", STRING),
    t.DataField(11, "metadata_mtime", TIMESTAMP_LTZ_MILLIS),
    t.DataField(12, "metadata", t.MapType(STRING, STRING)),
)
"""Java 1.1-1.2 ``ObjectTable.SCHEMA`` (ids in order, as a new table assigns them)."""


def is_object_table(options: Mapping[str, str]) -> bool:
    return options.get(TABLE_TYPE_OPTION, "").strip().lower() == OBJECT_TABLE_TYPE


def compute_field_signature(data_field: t.DataField) -> tuple[str, t.DataType]:
    return data_field.name, data_field.type


def compute_object_table_fields(
    fields: Sequence[t.DataField],
    options: Mapping[str, str],
    *,
    partition_keys: Sequence[str] = (),
    primary_keys: Sequence[str] = (),
) -> tuple[t.DataField, ...]:
    """Rule 1: the fields an object table is created with."""
    if not options.get(OBJECT_LOCATION_OPTION):
        raise InvalidOptionError(
            OBJECT_LOCATION_OPTION, None, "an object table needs its object location"
        )
    allowed = {compute_field_signature(f) for f in OBJECT_FIELDS}
    extra = [f.name for f in fields if compute_field_signature(f) not in allowed]
    if extra:
        raise SpecViolation(
            f"an object table's columns are fixed; {extra} are not among them",
            code="OBJECT_TABLE_SCHEMA",
        )
    if partition_keys or primary_keys:
        raise SpecViolation(
            "an object table has no partition or primary keys", code="OBJECT_TABLE_SCHEMA"
        )
    return OBJECT_FIELDS


def check_not_object_table(options: Mapping[str, str]) -> None:
    """Rule 4."""
    if is_object_table(options):
        raise UnsupportedFeature("an object table is written only by refresh_object_table")


# --------------------------------------------------------------------------------------------
# Rows (rule 2)
# --------------------------------------------------------------------------------------------


def compute_object_uri(path: str) -> str:
    """The URI Java prints for a file: local paths as ``file:/...``, others unchanged."""
    scheme, rest = split_scheme(path)
    if scheme == "":
        return LOCAL_URI_SCHEME + rest
    return path


def compute_parent_uri(uri: str) -> str:
    return uri.rstrip(layout.SEPARATOR).rsplit(layout.SEPARATOR, 1)[0]


def compute_object_row(uri: str, length: int, mtime_millis: int) -> Row:
    """Rule 2's row of one object."""
    return (
        uri,
        compute_parent_uri(uri),
        uri.rsplit(layout.SEPARATOR, 1)[-1],
        length,
        Timestamp(mtime_millis),
        Timestamp(UNKNOWN_ACCESS_TIME),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    )


def list_object_rows(file_io: FileIO, location: str) -> list[Row]:
    """Rule 2: one row per file below ``location``, in path order."""
    return [
        compute_object_row(
            compute_object_uri(path),
            file_io.file_size(path),
            file_io.modification_time_millis(path),
        )
        for path in sorted(file_io.list_files_recursive(location))
    ]


def refresh_object_table(
    file_io: FileIO,
    table_root: str,
    *,
    object_file_io: FileIO | None = None,
    commit_user: str | None = None,
) -> list[Snapshot]:
    """Rule 2: list the table's object location (through ``object_file_io``, default the
    location's own file IO) and commit the listing as one OVERWRITE snapshot."""
    schema = metadata.read_latest_schema(file_io, table_root)
    if not is_object_table(schema.options):
        raise UnsupportedFeature(f"not an object table (option '{TABLE_TYPE_OPTION}')")
    location = schema.options[OBJECT_LOCATION_OPTION]
    objects = object_file_io or file_io_for(location, schema.options)
    rows = list_object_rows(objects, location)
    snapshot = metadata.read_latest_snapshot(file_io, table_root)
    messages = write_batch(file_io, table_root, schema, snapshot, rows)
    return store_commit.commit_batch(
        file_io, table_root, messages, commit_user=commit_user, overwrite={}
    )
