"""The ``paimon-kit`` command (the ``paimon-kit`` console script).

Sub-commands:

* ``read TABLE [--snapshot N | --tag T | --timestamp MS] [--limit N] [--columns a,b]
  [--output FILE.parquet]``: rows of a table (local path or ``s3://``) as a text table, or
  written to Parquet with the table's column names.
* ``inspect TABLE``: snapshots, schemas, tags and the files of the latest snapshot.
* ``validate TABLE_OR_WAREHOUSE [--deep] [--all-snapshots] [--json]``: check a table against
  the format, exit 1 on violations (:mod:`paimon_kit.validate_cli`).
* the procedures ``compact``, ``expire-snapshots``, ``create-tag``, ``delete-tag``,
  ``rollback``, ``create-branch``, ``delete-branch``, ``fast-forward``,
  ``remove-orphan-files`` and ``alter`` (:mod:`paimon_kit.procedures_cli`).
* ``conformance [--engines ...] [--cases PATTERN] [--report out.md] [--json out.json]``: the
  conformance cases on every engine, as a matrix; handed to the test kit
  (:mod:`conformance.conformance_cli`), imported only for this subcommand.

Exit codes: 0 success, 2 bad input (one line on stderr naming the table, file, option or
column and the reason).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

import pyarrow.parquet as pq

from paimon_kit.procedures_cli import add_procedure_parsers
from paimon_kit.validate_cli import add_validate_parser
from reference.errors import PaimonKitError
from reference.io import FileIO, file_io_for
from reference.isolation import isolating_orc_decoding
from reference.spec import types as t
from reference.spec.data import Timestamp, date_from_days
from reference.spec.file_format import rows_to_arrow
from reference.spec.schema import TableSchema
from reference.store import metadata
from reference.store.query import TimeTravel, load_schemas, read_table
from reference.store.scan import plan_scan

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_UNREADABLE = 2
MAX_CELL_WIDTH = 40
CONFORMANCE_COMMAND = "conformance"


# --------------------------------------------------------------------------------------------
# Rendering values
# --------------------------------------------------------------------------------------------


def render_value(value: Any, data_type: t.DataType) -> str:
    """A value as a person reads it (ISO dates and times, plain decimals, hex bytes)."""
    if value is None:
        return "NULL"
    if isinstance(data_type, t.DateType):
        return date_from_days(value).isoformat()
    if isinstance(data_type, t.TimeType):
        seconds, millis = divmod(value, 1000)
        return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{millis:03d}"
    if isinstance(value, Timestamp):
        return str(value)
    if isinstance(value, Decimal):
        return f"{value:f}"
    if isinstance(value, bytes):
        return "0x" + value.hex()
    if isinstance(data_type, t.RowType):
        inner = ", ".join(
            render_value(v, f.type) for v, f in zip(value, data_type.fields, strict=True)
        )
        return "{" + inner + "}"
    if isinstance(data_type, (t.ArrayType, t.VectorType)):
        return "[" + ", ".join(render_value(v, data_type.element) for v in value) + "]"
    if isinstance(data_type, t.MapType):
        pairs = (
            f"{render_value(k, data_type.key)}: {render_value(v, data_type.value)}"
            for k, v in value.items()
        )
        return "{" + ", ".join(pairs) + "}"
    return str(value)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CELL_WIDTH else text[: MAX_CELL_WIDTH - 1] + "…"


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain text table with aligned columns."""
    cells = [list(header), *[[_clip(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# read
# --------------------------------------------------------------------------------------------


def _time_travel(args: argparse.Namespace) -> TimeTravel:
    return TimeTravel(snapshot_id=args.snapshot, tag=args.tag, timestamp_millis=args.timestamp)


def parse_columns(table: str, schema: TableSchema, text: str | None) -> list[str] | None:
    """``--columns a,b``: names of the table's columns, else an error naming the column."""
    if not text:
        return None
    names = [name.strip() for name in text.split(",")]
    known = [f.name for f in schema.fields]
    for name in names:
        if name not in known:
            raise PaimonKitError(
                f"--columns: no column '{name}' in the table (columns: {', '.join(known)})",
                path=table,
            )
    return names


def command_read(args: argparse.Namespace) -> int:
    file_io = file_io_for(args.table)
    schemas = load_schemas(file_io, args.table)
    if not schemas:
        raise PaimonKitError("no schema files: not a Paimon table", path=args.table)
    projection = parse_columns(args.table, schemas[max(schemas)], args.columns)
    with isolating_orc_decoding():  # anyone's table: a bad ORC file is an error, not a crash
        result = read_table(file_io, args.table, _time_travel(args), projection=projection)
    schema = result.schema
    fields = (
        list(schema.logical_row_type.project(projection).fields)
        if projection
        else list(schema.fields)
    )
    rows = result.rows if args.limit is None else result.rows[: args.limit]
    if args.output:
        write_rows_to_parquet(args.output, [row for _, row in rows], fields)
        print(f"wrote {len(rows)} rows to {args.output}")
        return EXIT_OK
    header = ["_ROW_KIND", *(f.name for f in fields)]
    body = [
        [kind.short_string, *(render_value(v, f.type) for v, f in zip(row, fields, strict=True))]
        for kind, row in rows
    ]
    print(format_table(header, body))
    snapshot = "none" if result.snapshot is None else str(result.snapshot.id)
    print(f"({len(result.rows)} rows, snapshot {snapshot}, schema {schema.id})")
    return EXIT_OK


def write_rows_to_parquet(path: str, rows: Sequence[Any], fields: Sequence[t.DataField]) -> None:
    pq.write_table(rows_to_arrow(rows, fields), path)


# --------------------------------------------------------------------------------------------
# inspect
# --------------------------------------------------------------------------------------------


def _iso_millis(millis: int) -> str:
    return datetime.fromtimestamp(millis / 1000, tz=timezone.utc).isoformat(timespec="seconds")


def describe_schema(schema: TableSchema) -> str:
    fields = ", ".join(f"{f.name} {f.type}" for f in schema.fields)
    keys = f" primary key ({', '.join(schema.primary_keys)})" if schema.primary_keys else ""
    parts = f" partitioned by ({', '.join(schema.partition_keys)})" if schema.partition_keys else ""
    return f"schema {schema.id}: ({fields}){keys}{parts}"


def command_inspect(args: argparse.Namespace) -> int:
    file_io: FileIO = file_io_for(args.table)
    schemas = load_schemas(file_io, args.table)
    if not schemas:
        raise PaimonKitError("no schema files: not a Paimon table", path=args.table)
    for schema in schemas.values():
        print(describe_schema(schema))
    latest = schemas[max(schemas)]
    options = ", ".join(f"{k}={v}" for k, v in sorted(latest.options.items()))
    print(f"options: {options or '(none)'}")
    snapshot_ids = metadata.list_snapshot_ids(file_io, args.table)
    print(f"snapshots: {len(snapshot_ids)}")
    for snapshot_id in snapshot_ids:
        listed = metadata.read_snapshot(file_io, args.table, snapshot_id)
        print(
            f"  {listed.id:>4} {listed.commit_kind.value:<9} schema {listed.schema_id} "
            f"records {listed.total_record_count} (+{listed.delta_record_count}) "
            f"at {_iso_millis(listed.time_millis)} by {listed.commit_user}"
        )
    for tag in metadata.list_tag_names(file_io, args.table):
        print(f"tag {tag} -> snapshot {metadata.read_tag(file_io, args.table, tag).snapshot.id}")
    snapshot = metadata.read_latest_snapshot(file_io, args.table)
    if snapshot is None:
        return EXIT_OK
    with isolating_orc_decoding():  # ORC manifests too
        plan = plan_scan(file_io, args.table, snapshot, latest, schemas)
    print(f"files of snapshot {snapshot.id} (read by a batch scan):")
    for split in plan.splits:
        where = split.bucket_path[len(args.table) :].lstrip("/")
        dvs = f", {len(split.deletion_files)} deletion vectors" if split.deletion_files else ""
        print(f"  {where}: {len(split.files)} files, {split.row_count} rows{dvs}")
        for meta in split.files:
            print(
                f"    {meta.file_name} level {meta.level} rows {meta.row_count} "
                f"seq {meta.min_sequence_number}..{meta.max_sequence_number} "
                f"size {meta.file_size} schema {meta.schema_id}"
            )
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def non_negative_int(text: str) -> int:
    """An argument that counts something (argparse exits 2 naming the option otherwise)."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paimon-kit", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    read = commands.add_parser("read", help="print (or export) the rows of a table")
    read.add_argument("table", help="table directory, local path or s3://bucket/path")
    travel = read.add_mutually_exclusive_group()
    travel.add_argument("--snapshot", type=int, help="read this snapshot id")
    travel.add_argument("--tag", help="read the snapshot of this tag")
    travel.add_argument("--timestamp", type=int, help="read as of this epoch-millis time")
    read.add_argument("--limit", type=non_negative_int, help="print at most this many rows")
    read.add_argument("--columns", help="comma-separated columns to return")
    read.add_argument("--output", help="write the rows to this Parquet file instead")
    read.set_defaults(run=command_read)

    inspect = commands.add_parser("inspect", help="snapshots, schemas, tags and files")
    inspect.add_argument("table", help="table directory, local path or s3://bucket/path")
    inspect.set_defaults(run=command_inspect)

    commands.add_parser(
        CONFORMANCE_COMMAND,
        help="run the conformance cases on every engine (paimon-kit conformance --help)",
        add_help=False,
    )
    add_validate_parser(commands)
    add_procedure_parsers(commands)

    bench = commands.add_parser("bench", help="benchmark reports (the suites: bench/README.md)")
    bench_commands = bench.add_subparsers(dest="bench_command", required=True)
    report = bench_commands.add_parser(
        "report", help="turn pytest-benchmark JSON files into report.md with tables and plots"
    )
    report.add_argument("json", nargs="+", help="pytest-benchmark JSON (or journal) files")
    report.add_argument("--machine", help="results directory name under bench/results/")
    report.add_argument("--out", help="output directory")
    report.set_defaults(run=command_bench_report)
    return parser


def command_bench_report(args: argparse.Namespace) -> int:
    """``paimon-kit bench report``: :func:`bench.report.main` on the same arguments."""
    report = importlib.import_module("bench.report")  # bench is not the user command's

    argv = [*args.json]
    if args.machine:
        argv += ["--machine", args.machine]
    if args.out:
        argv += ["--out", args.out]
    report.main(argv)
    return EXIT_OK


def run_conformance(argv: Sequence[str]) -> int:
    """``paimon-kit conformance ...``: the test kit's command, imported only now."""
    from conformance import conformance_cli  # noqa: PLC0415 (the test kit, on demand)

    return conformance_cli.main(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; a :class:`PaimonKitError` (or an OS error on a file named in the
    arguments) exits 2 with one line on stderr, never a traceback."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == [CONFORMANCE_COMMAND]:
        return run_conformance(arguments[1:])
    args = build_parser().parse_args(arguments)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except BrokenPipeError:
        return EXIT_OK
    except PaimonKitError as error:
        if error.path is None:  # name the table the command was given
            error.path = getattr(args, "table", None)
        print(f"paimon-kit {args.command}: error: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    except OSError as error:
        print(f"paimon-kit {args.command}: error: {error}", file=sys.stderr)
        return EXIT_UNREADABLE


if __name__ == "__main__":
    sys.exit(main())
