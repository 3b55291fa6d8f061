"""Fuzz every parser of the kit with mutated seed files and print cases and crashes per parser.

    python scripts/run_fuzz.py --cases 1000000 [--targets snapshot,manifest.avro,...]
                               [--seed 0] [--workers 2] [--corpus DIR] [--findings DIR]

``--cases`` is the total, shared evenly by the parsers. Each worker process runs its share
of the parsers (a child process per worker, restarted after an abort or a hang). A crash is
an exception that is not a ``PaimonKitError``, a case over the time budget (hang), or the
process dying (abort; ORC is decoded in the kit's worker process, reference.isolation). The
reference tables used as seeds are written to ``--corpus`` (kept, so a saved corpus
reproduces its cases with the same ``--seed``); ``--findings`` receives the input of every
finding (``<parser>-<case>.bin``) with a line describing it in ``findings.txt``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from conformance.conftest import THIRD_PARTY  # noqa: E402
from conformance.fuzz.runner import (  # noqa: E402
    DEFAULT_BUDGET_SECONDS,
    Job,
    TargetResult,
    format_findings,
    format_results,
    generate_case,
    run_campaign,
)
from conformance.fuzz.targets import TARGETS, Seed, collect_seeds  # noqa: E402


def plan_jobs(seeds: dict[str, list[Seed]], names: list[str], cases: int) -> list[Job]:
    """``cases`` shared evenly by the parsers that have seeds."""
    usable = [name for name in names if seeds.get(name)]
    share, extra = divmod(cases, max(len(usable), 1))
    return [
        Job(name, tuple(seeds[name]), share + (1 if number < extra else 0))
        for number, name in enumerate(usable)
    ]


def run_parallel(jobs: list[Job], workers: int, seed: int, budget: float) -> list[TargetResult]:
    """Deal the jobs out to ``workers`` campaigns (slowest-looking parsers spread first)."""
    groups: list[list[Job]] = [[] for _ in range(max(workers, 1))]
    for number, job in enumerate(jobs):
        groups[number % len(groups)].append(job)

    def reporter(worker: int) -> Callable[[int, int], None]:
        def report(done: int, total: int) -> None:
            print(f"[worker {worker}] {done}/{total} cases", file=sys.stderr, flush=True)

        return report

    with ThreadPoolExecutor(len(groups)) as pool:
        futures = [
            pool.submit(run_campaign, group, seed, budget, reporter(number))
            for number, group in enumerate(groups)
            if group
        ]
        results = [result for future in futures for result in future.result()]
    order = {job.target: number for number, job in enumerate(jobs)}
    return sorted(results, key=lambda result: order[result.target])


def save_findings(
    results: list[TargetResult], seeds: dict[str, list[Seed]], run_seed: int, directory: Path
) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    lines = []
    for result in results:
        for finding in result.findings:
            case = generate_case(finding.target, seeds[finding.target], run_seed, finding.number)
            name = f"{finding.target}-{finding.number}.bin"
            (directory / name).write_bytes(case.data)
            lines.append(f"{name}\t{finding.verdict.value}\t{finding.origin}\t{finding.detail}")
    (directory / "findings.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=5000, help="total cases (all parsers)")
    parser.add_argument("--targets", help="comma-separated parsers (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_SECONDS)
    parser.add_argument("--corpus", type=Path, help="keep the reference seed tables here")
    parser.add_argument("--findings", type=Path, help="save the inputs of findings here")
    args = parser.parse_args(argv)
    names = args.targets.split(",") if args.targets else [target.name for target in TARGETS]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="paimon-kit-fuzz-") as scratch:
        corpus = str(args.corpus) if args.corpus else scratch
        third_party = THIRD_PARTY if THIRD_PARTY.is_dir() else None
        seeds = collect_seeds(third_party, corpus)
        jobs = plan_jobs(seeds, names, args.cases)
        results = run_parallel(jobs, args.workers, args.seed, args.budget)
        if args.findings:
            save_findings(results, seeds, args.seed, args.findings)
    print(format_results(results))
    print(f"\n{sum(r.cases for r in results)} cases in {time.monotonic() - started:.0f} s")
    findings = format_findings(results)
    if findings:
        print("\nFindings (at most 20 per parser):\n" + findings)
    return 0 if all(result.crashes == 0 for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
