"""Regenerate the golden byte vectors with Java Paimon 0.9 (through the harness).

    python scripts/generate_vectors.py                 # every element, into fixtures/vectors
    python scripts/generate_vectors.py --only bitmap --only bucket
    python scripts/generate_vectors.py --out /tmp/vectors
    python scripts/generate_vectors.py --list

The first run downloads the Paimon 0.9 jar into the cache dir ($PAIMON_KIT_CACHE or
~/.cache/paimon-kit) and compiles the harness. Every element except ``manifest/*`` is
deterministic, so a re-run leaves those files unchanged. The inputs live in
``conformance/golden/vectors.py``; ``fixtures/vectors/README.md`` describes the files.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from conformance.golden.vectors import GENERATORS, VECTORS_DIR, write_vectors  # noqa: E402
from conformance.java.harness import JavaHarness  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=VECTORS_DIR, help="output directory")
    parser.add_argument("--only", action="append", choices=sorted(GENERATORS), help="element")
    parser.add_argument("--list", action="store_true", help="list the elements and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(GENERATORS))
        return 0
    started = time.perf_counter()
    with JavaHarness() as java:
        for path in write_vectors(java, args.out, args.only):
            print(f"wrote {path} ({path.stat().st_size} bytes)")
    print(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
