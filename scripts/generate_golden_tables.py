"""Regenerate the golden tables: Java Paimon 0.9 writes them, and what Java reads is recorded.

    python scripts/generate_golden_tables.py                    # all, into fixtures/cases/golden
    python scripts/generate_golden_tables.py --only tags --only expiration
    python scripts/generate_golden_tables.py --out /tmp/golden  # elsewhere
    python scripts/generate_golden_tables.py --compare /tmp/a /tmp/b   # what two runs differ in
    python scripts/generate_golden_tables.py --list

The tables are defined in ``conformance/golden/tables.py``. A re-run rewrites every table/
directory: file names (UUIDs), commit users, times, manifest sizes and Avro sync markers change;
``--compare`` shows that nothing else did.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from conformance.golden.tables import (  # noqa: E402
    GOLDEN_DIR,
    GOLDEN_TABLES,
    build_golden_tables,
    compare_generations,
)
from conformance.java.harness import JavaHarness  # noqa: E402


def print_comparison(first: Path, second: Path) -> int:
    diff = compare_generations(first, second)
    sections = (
        ("paths in one generation only (after replacing UUIDs)", diff.listing),
        ("case.json / expected files that differ", diff.case_files),
        ("table JSON differing beyond UUIDs, timeMillis, commitUser", diff.json_metadata),
        ("binary table files whose normalized content differs", diff.content),
    )
    for title, section in sections:
        for case, paths in section.items():
            print(f"PROBLEM {title}: {case}: {paths}")
    for kind, count in sorted(diff.volatile_binary.items()):
        print(f"differ in bytes only (names, times, sizes, sync markers): {kind}: {count} files")
    if diff.problems:
        print(f"{diff.problems} problems")
        return 1
    print("OK: case files, expectations, table JSON and decoded contents are identical")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=GOLDEN_DIR, help="output directory")
    names = sorted(table.case_id for table in GOLDEN_TABLES)
    parser.add_argument("--only", action="append", choices=names, help="one golden table")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("FIRST", "SECOND"))
    parser.add_argument("--list", action="store_true", help="list the golden tables and exit")
    args = parser.parse_args(argv)
    if args.list:
        for table in GOLDEN_TABLES:
            print(f"{table.case_id:<32} {table.description}")
        return 0
    if args.compare:
        return print_comparison(*args.compare)
    started = time.perf_counter()
    with JavaHarness() as java:
        for case_dir in build_golden_tables(java, args.out, args.only):
            size = sum(p.stat().st_size for p in case_dir.rglob("*") if p.is_file())
            print(f"wrote {case_dir} ({size} bytes)")
    print(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
