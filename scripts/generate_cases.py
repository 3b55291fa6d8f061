"""Regenerate the conformance cases under ``fixtures/cases/`` from their generator functions.

    python scripts/generate_cases.py                    # every case (needs Java 17 for the oracle)
    python scripts/generate_cases.py --only 'merge-engine/*'
    python scripts/generate_cases.py --rebuild-tables   # also rewrite the checked-in tables

Expected results come from Paimon 0.9's Java implementation (the oracle) or from the
hand-written expectations in the generators, which are cross-checked against Java; a
disagreement is printed and makes the script exit with status 1 (fix the generator, or record
the Java bug in ``conformance/known_failures/java.json`` and pass ``--allow-disagreements``).
Without Java, cases that need it are kept as they are.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.cases.generators import CaseSpec, load_families  # noqa: E402
from conformance.cases.generators.build import BuildReport, build_case, remove_stale  # noqa: E402
from conformance.cases.loader import (  # noqa: E402
    CASES_ROOT,
    is_pattern_matching,
    load_known_failures,
)
from conformance.engines.base import Engine, EngineUnavailable  # noqa: E402


def oracle_engines(use_java: bool) -> tuple[Engine | None, Engine]:
    """The Java engine (or ``None`` with the reason printed) and the reference engine."""
    from conformance.engines.reference_engine import ReferenceEngine  # noqa: PLC0415

    java: Engine | None = None
    if use_java:
        try:
            from conformance.engines.java_engine import JavaEngine  # noqa: PLC0415

            java = JavaEngine()
        except EngineUnavailable as error:
            print(f"Java oracle unavailable ({error}); keeping cases that need it", file=sys.stderr)
    return java, ReferenceEngine()


def oracle_for(spec: CaseSpec, java: Engine | None, reference: Engine) -> Engine | None:
    if spec.expected_by_reference:
        return reference
    return java if spec.java else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="glob or substring of the case ids to regenerate")
    parser.add_argument("--out", type=Path, default=CASES_ROOT, help="the cases directory")
    parser.add_argument("--no-java", action="store_true", help="do not start the Java oracle")
    parser.add_argument("--rebuild-tables", action="store_true", help="rewrite table/ dirs")
    parser.add_argument(
        "--allow-disagreements",
        action="store_true",
        help="exit 0 even if Java disagrees with a hand-written expectation",
    )
    args = parser.parse_args(argv)
    java, reference = oracle_engines(not args.no_java)
    report = BuildReport()
    all_ids: set[str] = set()
    start = time.monotonic()
    for name, function in load_families().items():
        for spec in function():
            all_ids.add(spec.id)
            if not is_pattern_matching(spec.id, args.only):
                continue
            oracle = oracle_for(spec, java, reference)
            try:
                build_case(
                    spec,
                    args.out,
                    oracle,
                    report,
                    generator=name,
                    rebuild_tables=args.rebuild_tables,
                )
            except Exception as error:
                print(f"{spec.id}: generation failed: {error}", file=sys.stderr)
                raise
    removed = remove_stale(args.out, all_ids) if not args.only else []
    seconds = time.monotonic() - start
    print(f"wrote {len(report.written)} cases in {seconds:.0f}s; kept {len(report.kept)}")
    for case_id in report.kept:
        print(f"  kept {case_id}")
    for case_id in removed:
        print(f"  removed stale {case_id}")
    known = load_known_failures("java")
    unexplained = []
    for disagreement in report.disagreements:
        case_id = disagreement.split(" ", 1)[0]
        reason = known.reason_for(case_id)
        if reason is None:
            unexplained.append(disagreement)
            print(f"DISAGREEMENT {disagreement}", file=sys.stderr)
        else:
            print(f"known Java disagreement {case_id}: {reason}")
    if java is not None:
        java.close()
    return 1 if unexplained and not args.allow_disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
