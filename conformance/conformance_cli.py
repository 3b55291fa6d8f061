"""``paimon-kit conformance``: run the conformance cases on engines and print the matrix.

    paimon-kit conformance [--engines reference,java,pypaimon,spark] [--cases PATTERN]
                           [--report out.md] [--json out.json]

Engines default to every built-in engine; one that cannot run here (no Java, no pyspark) gets
its column marked unavailable with the reason, so the command works on a fresh machine. Known
failures (``conformance/known_failures/<engine>.json``) show as ``xfail``; a listed case that
passes counts as a failure (the list is stale). Exit status: 0 when every outcome that is not a
pass is a declared known failure or a skip with its reason, 1 when a case failed or an engine
named in ``--engines`` cannot run here, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from conformance.cases.loader import CASES_ROOT, Case, discover_cases, load_known_failures
from conformance.cases.report import Report, dump_json, render
from conformance.cases.runner import apply_known_failure, run_case
from conformance.engines import BUILTIN_ENGINES, load_engine
from conformance.engines.base import Engine, EngineUnavailable

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_USAGE = 2
BAR_WIDTH = 30


class Progress:
    """A one-line progress bar on a terminal; a line per tenth of the work otherwise."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total = max(total, 1)
        self.stream = stream or sys.stderr  # looked up now: the command may be imported late
        self.enabled = enabled
        self.done = 0
        self.is_tty = self.stream.isatty()
        self.last_tenth = -1
        self.start = time.monotonic()

    def advance(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        fraction = self.done / self.total
        if self.is_tty:
            filled = int(BAR_WIDTH * fraction)
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label[:50]:<50}")
            self.stream.flush()
        elif int(fraction * 10) > self.last_tenth:
            self.last_tenth = int(fraction * 10)
            elapsed = time.monotonic() - self.start
            self.stream.write(f"{self.done}/{self.total} cases run ({elapsed:.0f}s)\n")

    def finish(self) -> None:
        if self.enabled and self.is_tty:
            self.stream.write("\n")
            self.stream.flush()


def parse_engines(text: str | None) -> list[str]:
    if not text:
        return list(BUILTIN_ENGINES)
    return [name.strip() for name in text.split(",") if name.strip()]


def open_engines(names: Sequence[str]) -> tuple[dict[str, Engine], dict[str, str]]:
    """The engines that start, and the reasons of those that cannot."""
    engines: dict[str, Engine] = {}
    unavailable: dict[str, str] = {}
    for name in names:
        try:
            engine = load_engine(name)
        except EngineUnavailable as error:
            unavailable[name] = str(error)
            continue
        engines[engine.name] = engine
    return engines, unavailable


def run_matrix(
    cases: Sequence[Case],
    engines: dict[str, Engine],
    unavailable: dict[str, str],
    *,
    progress: Progress | None = None,
) -> Report:
    """Every case on every engine (engine by engine, so one JVM warms up once)."""
    report = Report(engines=[*engines, *unavailable], unavailable=dict(unavailable))
    with tempfile.TemporaryDirectory(prefix="paimon-kit-conformance-") as workdir:
        for name, engine in engines.items():
            known = load_known_failures(name)
            for case in cases:
                outcome = run_case(case, engine, Path(workdir))
                report.outcomes.append(apply_known_failure(outcome, known))
                if progress is not None:
                    progress.advance(f"{name} {case.id}")
    return report


def add_conformance_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``conformance`` sub-command to a ``paimon-kit`` sub-parser set."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "conformance",
        help="run the conformance cases on engines and print the matrix",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument(
        "--engines",
        help=f"comma-separated engines (built-in: {', '.join(BUILTIN_ENGINES)}; or module:Class)",
    )
    parser.add_argument("--cases", help="glob or substring of case ids (comma-separated)")
    parser.add_argument("--cases-dir", type=Path, default=CASES_ROOT, help="the cases directory")
    parser.add_argument("--report", type=Path, help="also write the matrix as Markdown here")
    parser.add_argument("--json", type=Path, help="also write every outcome as JSON here")
    parser.add_argument("--no-progress", action="store_true", help="no progress on stderr")
    parser.set_defaults(run=command_conformance)
    return parser


def command_conformance(args: argparse.Namespace) -> int:
    cases = discover_cases(args.cases_dir, args.cases)
    if not cases:
        print(
            f"paimon-kit: error: no cases match {args.cases!r} in {args.cases_dir}", file=sys.stderr
        )
        return EXIT_USAGE
    try:
        engines, unavailable = open_engines(parse_engines(args.engines))
    except ValueError as error:
        print(f"paimon-kit: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    progress = Progress(len(cases) * len(engines), enabled=not args.no_progress)
    try:
        report = run_matrix(cases, engines, unavailable, progress=progress)
    finally:
        progress.finish()
        for engine in engines.values():
            engine.close()
    print(render(report), end="")
    if args.report is not None:
        args.report.write_text(render(report, markdown=True), encoding="utf-8")
    if args.json is not None:
        args.json.write_text(dump_json(report), encoding="utf-8")
    missing = requested_but_unavailable(args.engines, unavailable)
    for name in missing:
        print(f"paimon-kit: engine {name} was asked for but cannot run here", file=sys.stderr)
    return EXIT_FAILURES if report.has_failures or missing else EXIT_OK


def requested_but_unavailable(engines_arg: str | None, unavailable: dict[str, str]) -> list[str]:
    """Engines named in ``--engines`` that could not start: a failure, since the caller asked
    for them (with no ``--engines``, an engine this machine cannot run is only reported)."""
    if not engines_arg:
        return []
    return [name for name in parse_engines(engines_arg) if name in unavailable]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m conformance.conformance_cli``: the sub-command on its own."""
    parser = argparse.ArgumentParser(prog="paimon-kit")
    add_conformance_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["conformance", *(argv if argv is not None else sys.argv[1:])])
    return command_conformance(args)


if __name__ == "__main__":
    sys.exit(main())
