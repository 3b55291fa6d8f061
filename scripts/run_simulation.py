"""Run concurrency simulations (writer processes on one table) and print what they found.

    python scripts/run_simulation.py [--writers 3 --commits 5] [--s3-writers 3 --s3-commits 3]
                                     [--stores local,s3] [--tables append,primary-key]
                                     [--racy] [--seed 0]

Each row: the store, the table kind, writers x commits, operations that succeeded, snapshots
committed, commits lost (must be 0), commits applied twice (must be 0), failures by class,
and the number of invariant violations (listed below the table). ``--racy`` turns the
conditional put off (a create that checks, waits and overwrites): lost commits are then
expected, and the exit code is 0 only if some were found. The S3 store is the suite's
(``PAIMON_KIT_S3_ENDPOINT``, MinIO, or SeaweedFS on 127.0.0.1); keep S3 writers at about 4,
because a losing conditional put on SeaweedFS waits about a second.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import uuid
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from conformance.concurrency.simulate import (  # noqa: E402
    SimulationConfig,
    SimulationReport,
    TableKind,
    format_reports,
    run_simulation,
)


def run_s3(
    table_kinds: list[TableKind], writers: int, commits: int, seed: int, racy: bool
) -> list[SimulationReport]:
    from conformance.objectstore.pytest_fixtures import _shared_store  # noqa: PLC0415

    store = _shared_store()
    env = {"AWS_ACCESS_KEY_ID": store.access_key, "AWS_SECRET_ACCESS_KEY": store.secret_key}
    reports = []
    for kind in table_kinds:
        with tempfile.TemporaryDirectory(prefix="paimon-kit-sim-") as work:
            config = SimulationConfig(
                f"{store.uri}/sim-{uuid.uuid4().hex[:8]}/{kind.value}",
                kind,
                writers,
                commits,
                work,
                seed=seed,
                racy=racy,
                s3_endpoint=store.endpoint,
                s3_region=store.region,
            )
            reports.append(run_simulation(config, env))
    return reports


def run_local(
    table_kinds: list[TableKind], writers: int, commits: int, seed: int, racy: bool
) -> list[SimulationReport]:
    reports = []
    for kind in table_kinds:
        with tempfile.TemporaryDirectory(prefix="paimon-kit-sim-") as work:
            config = SimulationConfig(
                f"{work}/table", kind, writers, commits, f"{work}/logs", seed=seed, racy=racy
            )
            reports.append(run_simulation(config))
    return reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", type=int, default=3)
    parser.add_argument("--commits", type=int, default=5)
    parser.add_argument("--s3-writers", type=int, default=3)
    parser.add_argument("--s3-commits", type=int, default=3)
    parser.add_argument("--stores", default="local,s3")
    parser.add_argument("--tables", default="append,primary-key")
    parser.add_argument("--racy", action="store_true", help="turn the conditional put off")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    kinds = [TableKind(name) for name in args.tables.split(",")]
    stores = args.stores.split(",")
    reports = []
    if "local" in stores:
        reports += run_local(kinds, args.writers, args.commits, args.seed, args.racy)
    if "s3" in stores:
        reports += run_s3(kinds, args.s3_writers, args.s3_commits, args.seed, args.racy)
    print(format_reports(reports))
    for report in reports:
        for violation in report.violations:
            print(f"- {report.store}/{report.table_kind}: {violation}")
    if args.racy:
        return 0 if all(report.lost > 0 for report in reports) else 1
    return 0 if all(report.is_clean for report in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
