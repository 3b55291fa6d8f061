"""``paimon-kit`` procedure subcommands: each runs one :mod:`spark_impl.procedures` function
(or :func:`spark_impl.alter.alter_table`) in this process, without Spark, and prints what it
did (a no-op says why)::

    paimon-kit compact TABLE [--full]
    paimon-kit expire-snapshots TABLE [--retain-max N] [--retain-min N] [--older-than MS]
                                      [--max-deletes N]
    paimon-kit create-tag TABLE NAME [--snapshot N] [--time-retained DURATION] [--branch B]
    paimon-kit delete-tag TABLE NAME [--branch B]
    paimon-kit rollback TABLE (--snapshot N | --tag NAME) [--branch B]
    paimon-kit create-branch TABLE NAME [--from-tag NAME]
    paimon-kit delete-branch TABLE NAME
    paimon-kit fast-forward TABLE BRANCH
    paimon-kit remove-orphan-files TABLE [--older-than DURATION] [--dry-run]
    paimon-kit alter TABLE [--add NAME:TYPE] [--widen NAME:TYPE] [--move 'NAME AFTER OTHER']
                           [--drop NAME] [--rename OLD:NEW] [--set KEY=VALUE]   (each repeatable)

Durations are Paimon's (``1 d``, ``2 h``, ``30 min``, ``500 ms``); ``--older-than`` of
``expire-snapshots`` is an epoch-millis time, as Java's procedure takes a timestamp. The
procedures import spark_impl (pyarrow, numpy), not pyspark.
"""

from __future__ import annotations

import argparse
from typing import Any

from reference.errors import InvalidOptionError, PaimonKitError
from reference.layout import MAIN_BRANCH
from reference.spec.options import parse_duration
from reference.spec.units import NANOS_PER_MILLI

EXIT_OK = 0


def parse_millis(option: str, text: str) -> int:
    """A Paimon duration in milliseconds (a bare number is milliseconds)."""
    try:
        return parse_duration(text if not text.strip().isdigit() else f"{text} ms") // (
            NANOS_PER_MILLI
        )
    except ValueError as error:
        raise InvalidOptionError(option, text, str(error)) from None


def positive_int(text: str) -> int:
    """A count that must be at least 1 (argparse exits 2 naming the option otherwise)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {value}")
    return value


def split_pairs(option: str, values: list[str] | None, separator: str) -> dict[str, str]:
    """``NAME:TYPE`` (or ``KEY=VALUE``) arguments as a mapping, in order."""
    pairs: dict[str, str] = {}
    for value in values or []:
        name, found, rest = value.partition(separator)
        if not found or not name.strip() or not rest.strip():
            raise InvalidOptionError(option, value, f"expected NAME{separator}VALUE")
        pairs[name.strip()] = rest.strip()
    return pairs


def _print(result: Any) -> int:
    print(result.describe())
    return EXIT_OK


def command_compact(args: argparse.Namespace) -> int:
    from spark_impl import procedures  # noqa: PLC0415 (spark_impl only for procedures)

    return _print(procedures.compact(None, args.table, full=args.full))


def command_expire(args: argparse.Namespace) -> int:
    from spark_impl import procedures  # noqa: PLC0415

    result = procedures.expire_snapshots(
        None,
        args.table,
        retain_max=args.retain_max,
        retain_min=args.retain_min,
        older_than_millis=args.older_than,
        max_deletes=args.max_deletes,
    )
    return _print(result)


def command_create_tag(args: argparse.Namespace) -> int:
    from spark_impl import procedures  # noqa: PLC0415

    retained = (
        None if args.time_retained is None else parse_millis("--time-retained", args.time_retained)
    )
    result = procedures.create_tag(
        args.table,
        args.name,
        snapshot_id=args.snapshot,
        time_retained_millis=retained,
        branch=args.branch,
    )
    return _print(result)


def command_delete_tag(args: argparse.Namespace) -> int:
    from spark_impl import procedures  # noqa: PLC0415

    return _print(procedures.delete_tag(args.table, args.name, branch=args.branch))


def command_rollback(args: argparse.Namespace) -> int:
    from spark_impl import procedures  # noqa: PLC0415

    version = args.tag if args.snapshot is None else args.snapshot
    return _print(procedures.rollback(args.table, version, branch=args.branch))


def command_create_branch(args: argparse.Namespace) -> int:
    from spark_impl import procedures  # noqa: PLC0415

    return _print(procedures.create_branch(args.table, args.name, from_tag=args.from_tag))


def command_delete_branch(args: argparse.Namespace) -> int:
    from spark_impl import procedures  # noqa: PLC0415

    return _print(procedures.delete_branch(args.table, args.name))


def command_fast_forward(args: argparse.Namespace) -> int:
    from spark_impl import procedures  # noqa: PLC0415

    return _print(procedures.fast_forward(args.table, args.branch))


def command_remove_orphans(args: argparse.Namespace) -> int:
    from spark_impl import procedures  # noqa: PLC0415

    older = parse_millis("--older-than", args.older_than)
    result = procedures.remove_orphan_files(
        None, args.table, older_than_millis=older, dry_run=args.dry_run
    )
    return _print(result)


def command_alter(args: argparse.Namespace) -> int:
    from spark_impl.alter import alter_table  # noqa: PLC0415

    moves = {}
    for text in args.move or []:
        name, _, where = text.strip().partition(" ")
        moves[name] = where
    if not any((args.add, args.widen, args.move, args.drop, args.rename, args.set)):
        raise PaimonKitError(
            "alter: no change given (--add, --widen, --move, --drop, --rename, --set)"
        )
    schema = alter_table(
        None,
        args.table,
        add_columns=split_pairs("--add", args.add, ":"),
        widen_columns=split_pairs("--widen", args.widen, ":"),
        move_columns=moves,
        drop_columns=list(args.drop or []),
        rename_columns=split_pairs("--rename", args.rename, ":"),
        set_options=split_pairs("--set", args.set, "="),
    )
    fields = ", ".join(f"{f.name} {f.type}" for f in schema.fields)
    print(f"alter {args.table.rstrip('/')}: schema {schema.id}: ({fields})")
    return EXIT_OK


def _table_parser(commands: Any, name: str, help_text: str, run: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, help=help_text)
    parser.add_argument("table", help="table directory, local path or s3://bucket/path")
    parser.set_defaults(run=run)
    return parser


def _add_branch_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--branch", default=MAIN_BRANCH, help="the branch (default: main)")


def _add_snapshot_procedures(commands: Any) -> None:
    compact = _table_parser(commands, "compact", "compact the table's buckets", command_compact)
    compact.add_argument("--full", action="store_true", help="full compaction")
    expire = _table_parser(commands, "expire-snapshots", "expire old snapshots", command_expire)
    expire.add_argument("--retain-max", type=positive_int, help="keep at most this many snapshots")
    expire.add_argument("--retain-min", type=positive_int, help="keep at least this many snapshots")
    expire.add_argument("--older-than", type=int, help="expire snapshots before this epoch ms")
    expire.add_argument(
        "--max-deletes", type=positive_int, help="expire at most this many snapshots"
    )
    rollback = _table_parser(
        commands, "rollback", "roll back to a snapshot or tag", command_rollback
    )
    target = rollback.add_mutually_exclusive_group(required=True)
    target.add_argument("--snapshot", type=int, help="snapshot id to make the latest")
    target.add_argument("--tag", help="tag whose snapshot becomes the latest")
    _add_branch_argument(rollback)
    orphans = _table_parser(
        commands, "remove-orphan-files", "delete files nothing uses", command_remove_orphans
    )
    orphans.add_argument("--older-than", default="1 d", help="only files older (default 1 d)")
    orphans.add_argument("--dry-run", action="store_true", help="list the orphans only")


def add_procedure_parsers(commands: Any) -> None:
    """Register the procedure subcommands and ``alter`` on the ``paimon-kit`` parsers."""
    _add_snapshot_procedures(commands)
    tag = _table_parser(commands, "create-tag", "tag a snapshot", command_create_tag)
    tag.add_argument("name")
    tag.add_argument("--snapshot", type=int, help="snapshot id (default: the latest)")
    tag.add_argument("--time-retained", help="time to live, e.g. '7 d'")
    _add_branch_argument(tag)
    untag = _table_parser(commands, "delete-tag", "delete a tag", command_delete_tag)
    untag.add_argument("name")
    _add_branch_argument(untag)
    branch = _table_parser(commands, "create-branch", "create a branch", command_create_branch)
    branch.add_argument("name")
    branch.add_argument("--from-tag", help="start the branch at this tag of main")
    delete = _table_parser(commands, "delete-branch", "delete a branch", command_delete_branch)
    delete.add_argument("name")
    forward = _table_parser(
        commands, "fast-forward", "make main equal to a branch", command_fast_forward
    )
    forward.add_argument("branch")
    alter = _table_parser(commands, "alter", "change the table's schema", command_alter)
    for flag, meta in (("--add", "NAME:TYPE"), ("--widen", "NAME:TYPE"), ("--drop", "NAME")):
        alter.add_argument(flag, action="append", metavar=meta)
    alter.add_argument("--move", action="append", metavar="'NAME FIRST|LAST|AFTER X|BEFORE X'")
    alter.add_argument("--rename", action="append", metavar="OLD:NEW")
    alter.add_argument("--set", action="append", metavar="KEY=VALUE")
