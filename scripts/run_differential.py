"""The long run of the reference-vs-spark_impl differential, outside pytest.

    python scripts/run_differential.py --workloads 5000 --seed 1 [--stream-every 10]
        [--max-steps 4] [--max-rows 5] [--deadline 2026-11-22T01:45] [--report out.txt]

Hypothesis draws ``--workloads`` workloads (``spark_workloads.spark_workloads``) from the seed;
each runs on both engines (``run_spark.run_workload``, one shared local[1] SparkSession) and a
disagreement is recorded, not raised, so the run goes on. Every ``--progress`` workloads and at
the end it prints the summary (workloads, steps, snapshots compared, refusals, disagreements by
check, time); each disagreement is printed with its whole workload so it can become a
regression case. ``--deadline`` (UTC) stops early and reports what was done.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.differential.run_spark import (  # after the path is set
    Summary,
    describe_workload,
    run_workload,
    spark_session,
)
from conformance.differential.spark_workloads import (
    SparkWorkload,
    spark_workloads,
)


class DeadlineReached(Exception):
    """The run stops: ``--deadline`` passed."""


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=4)
    parser.add_argument("--max-rows", type=int, default=5)
    parser.add_argument("--stream-every", type=int, default=10, help="0: never stream")
    parser.add_argument("--progress", type=int, default=50)
    parser.add_argument("--deadline", type=datetime.datetime.fromisoformat, default=None)
    parser.add_argument("--report", type=Path, default=None)
    return parser.parse_args(argv)


def log(text: str, out: Path | None) -> None:
    print(text, flush=True)
    if out is not None:
        with out.open("a") as handle:
            handle.write(text + "\n")


def report(summary: Summary, out: Path | None, final: bool) -> None:
    """The summary line (each disagreement was logged with its workload when found)."""
    log("\n".join(("final: " if final else "progress: ") + line for line in summary.lines()), out)


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    spark = spark_session()
    summary = Summary()
    deadline = arguments.deadline
    if deadline is not None and deadline.tzinfo is None:
        deadline = deadline.replace(tzinfo=datetime.timezone.utc)

    @seed(arguments.seed)
    @settings(
        max_examples=arguments.workloads,
        database=None,
        deadline=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(spark_workloads(arguments.max_steps, arguments.max_rows))
    def run_one(workload: SparkWorkload) -> None:
        if deadline is not None and datetime.datetime.now(datetime.timezone.utc) >= deadline:
            raise DeadlineReached
        every = arguments.stream_every
        stream = every > 0 and summary.workloads % every == 0
        outcome = run_workload(spark, workload, stream=stream)
        summary.add(workload, outcome)
        for disagreement in outcome.disagreements:
            text = f"workload {summary.workloads}: {disagreement.describe()}"
            log(f"{text}\n{describe_workload(workload)}", arguments.report)
        if summary.workloads % arguments.progress == 0:
            report(summary, arguments.report, final=False)

    try:
        run_one()
    except DeadlineReached:
        print("deadline reached: stopping", flush=True)
    report(summary, arguments.report, final=True)
    return 1 if summary.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
