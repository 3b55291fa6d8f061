"""Write the validator's corruption corpus: broken copies of valid third-party tables.

    python scripts/make_corruption_corpus.py OUT_DIR [--third-party DIR] [--case ID ...]
    python scripts/make_corruption_corpus.py OUT_DIR --verify
    python scripts/make_corruption_corpus.py --list

Each case is ``OUT_DIR/<case_id>/table/`` plus ``case.json`` naming the code and file that
``paimon-kit validate --all-snapshots [--deep]`` must report. Write the corpus to a scratch
directory, never into the repository (the sources are third-party files). ``--verify`` then
validates every written case and prints whether the expected code was reported on the expected
file (exit 1 if any was missed or the validator itself failed).

``--big-table DIR [--size-mb N]`` instead writes one large valid table (about 1 GB by default;
Arrow columns and the reference codecs and committer, see ``conformance/corruption/big_table.py``)
for timing ``paimon-kit validate --deep``. Put it under ``/tmp`` and delete it afterwards.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from conformance.corruption import GeneratedCase, generate_corpus  # noqa: E402
from conformance.corruption.cases import CASES  # noqa: E402

DEFAULT_THIRD_PARTY = Path(
    os.environ.get("PAIMON_KIT_THIRD_PARTY", PROJECT_ROOT.parent / "shared" / "third-party")
)


def verify_case(case: GeneratedCase) -> tuple[bool, list[str]]:
    """Whether the validator reports the case's code on its file, and the codes it reported."""
    from reference.io import LocalFileIO  # noqa: PLC0415
    from reference.validate import ValidateOptions, validate_table  # noqa: PLC0415

    options = ValidateOptions(all_snapshots=True, deep=case.deep)
    report = validate_table(LocalFileIO(), str(case.table), options)
    found = [(v.code, v.file) for v in report.violations]
    codes = sorted({code for code, _ in found})
    caught = (case.code, case.file) in found and "CHECK_FAILED" not in codes
    return caught and report.unreadable is None, codes


def verify_corpus(generated: list[GeneratedCase]) -> int:
    missed = 0
    for case in generated:
        caught, codes = verify_case(case)
        missed += not caught
        print(f"{'caught' if caught else 'MISSED':<7} {case.case_id:<28} {case.code:<34} {codes}")
    print(f"{len(generated) - missed} of {len(generated)} cases caught")
    return 1 if missed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", nargs="?", type=Path, help="where to write the cases")
    parser.add_argument("--third-party", type=Path, default=DEFAULT_THIRD_PARTY)
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--verify", action="store_true", help="validate every written case")
    parser.add_argument("--big-table", type=Path, help="write one large valid table here")
    parser.add_argument("--size-mb", type=int, default=1024, help="data size of --big-table")
    args = parser.parse_args(argv)
    if args.list:
        for case in CASES:
            deep = " (--deep)" if case.deep else ""
            print(f"{case.case_id:<28} {case.code:<34} {case.source}: {case.description}{deep}")
        return 0
    if args.big_table is not None:
        from conformance.corruption.big_table import write_big_table  # noqa: PLC0415

        if args.big_table.resolve().is_relative_to(PROJECT_ROOT):
            parser.error("write the big table outside the repository")
        print(write_big_table(args.big_table, args.size_mb * 2**20).describe())
        return 0
    if args.out_dir is None:
        parser.error("give OUT_DIR (or --list / --big-table)")
    if args.out_dir.resolve().is_relative_to(PROJECT_ROOT):
        parser.error("write the corpus outside the repository")
    generated = generate_corpus(args.out_dir, args.third_party, args.case)
    codes = {g.code for g in generated}
    print(f"wrote {len(generated)} cases ({len(codes)} distinct codes) to {args.out_dir}")
    absent = {c.case_id for c in CASES} - {g.case_id for g in generated}
    if args.case is None and absent:
        print(f"left out (source table absent): {', '.join(sorted(absent))}")
    return verify_corpus(generated) if args.verify else 0


if __name__ == "__main__":
    sys.exit(main())
