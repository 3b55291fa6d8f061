"""``paimon-kit validate``: check a table (or every table of a warehouse) against the format.

    paimon-kit validate TABLE_OR_WAREHOUSE [--snapshot N | --all-snapshots]
                        [--format text|json | --json] [--deep] [--max-details N]
                        [--progress | --quiet]

Local paths and ``s3://`` URIs (endpoint and keys from the ``AWS_*`` /
``PAIMON_KIT_S3_ENDPOINT`` environment, as for ``read``). Exit codes: 0 no errors (warnings
may be printed), 1 at least one error, 2 a table or the path could not be read at all (not a
table, a storage failure, a snapshot that does not exist).

The checks live in :mod:`reference.validate`; this module parses arguments, draws the progress
bar of ``--deep`` on stderr (on a terminal, or anywhere with ``--progress``; never with
``--quiet``) and prints the report.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from reference.errors import PaimonKitError
from reference.io import file_io_for
from reference.validate import (
    EXIT_UNREADABLE,
    Progress,
    ValidateOptions,
    compute_exit_code,
    render_json,
    render_text,
    validate,
)

DEFAULT_MAX_DETAILS = 10
PROGRESS_BAR_WIDTH = 30
PROGRESS_LABEL_WIDTH = 60


def add_validate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``validate`` on the ``paimon-kit`` sub-command parsers."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "validate",
        help="check a table or warehouse against the Paimon format",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument("path", help="table, database or warehouse: local path or s3://…")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--snapshot", type=int, help="check this snapshot (default: the latest)")
    which.add_argument(
        "--all-snapshots", action="store_true", help="check every snapshot and every tag"
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--format", choices=("text", "json"), default="text")
    output.add_argument(
        "--json", dest="format", action="store_const", const="json", help="same as --format json"
    )
    parser.add_argument(
        "--deep", action="store_true", help="also read every data file's rows (slow)"
    )
    parser.add_argument(
        "--max-details",
        type=int,
        default=DEFAULT_MAX_DETAILS,
        metavar="N",
        help=f"text output: findings shown per code (default {DEFAULT_MAX_DETAILS})",
    )
    bar = parser.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress", action="store_true", help="draw the progress bar even off a terminal"
    )
    bar.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=command_validate)
    return parser


def render_progress_line(done: int, total: int, what: str, seconds: float = 0.0) -> str:
    """``[#######.......]  12/40 files  31 s  dt=1/bucket-0/data-….parquet`` (no newline)."""
    filled = PROGRESS_BAR_WIDTH * done // total if total else PROGRESS_BAR_WIDTH
    bar = "#" * filled + "." * (PROGRESS_BAR_WIDTH - filled)
    label = what if len(what) <= PROGRESS_LABEL_WIDTH else "…" + what[-PROGRESS_LABEL_WIDTH:]
    return f"[{bar}] {done:>{len(str(total))}}/{total} files  {seconds:.0f} s  {label}"


def make_progress_bar(stream: TextIO, clock: Callable[[], float] = time.monotonic) -> Progress:
    """A progress callback redrawing one line of ``stream``; the last drawing (all files
    read) stays, ended by a newline."""
    started = clock()
    width = [0]

    def draw(done: int, total: int, what: str) -> None:
        finished = done >= total
        line = render_progress_line(done, total, "done" if finished else what, clock() - started)
        stream.write("\r" + line.ljust(width[0]) + ("\n" if finished else ""))
        width[0] = max(width[0], len(line))
        stream.flush()

    return draw


def is_progress_shown(args: argparse.Namespace, stream: TextIO) -> bool:
    """The bar is drawn while ``--deep`` reads rows: on a terminal, or when asked for."""
    return bool(args.deep and not args.quiet and (args.progress or stream.isatty()))


def command_validate(args: argparse.Namespace) -> int:
    """Run the validator and print its report; the exit code follows the report."""
    if args.max_details < 0:
        print("paimon-kit validate: --max-details must be >= 0", file=sys.stderr)
        return EXIT_UNREADABLE
    options = ValidateOptions(
        snapshot_id=args.snapshot, all_snapshots=args.all_snapshots, deep=args.deep
    )
    try:
        file_io = file_io_for(args.path)
    except PaimonKitError as error:
        print(f"paimon-kit validate: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    progress = make_progress_bar(sys.stderr) if is_progress_shown(args, sys.stderr) else None
    report = validate(file_io, args.path, options, progress)
    text = render_json(report) if args.format == "json" else render_text(report, args.max_details)
    with contextlib.suppress(BrokenPipeError):
        print(text)
    return compute_exit_code(report)


def main(argv: list[str] | None = None) -> int:
    """Run ``validate`` alone (``python -m paimon_kit.validate_cli PATH ...``)."""
    parser = argparse.ArgumentParser(prog="paimon-kit")
    add_validate_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["validate", *(sys.argv[1:] if argv is None else argv)])
    return command_validate(args)


if __name__ == "__main__":
    sys.exit(main())
