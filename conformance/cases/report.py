"""The conformance matrix: outcomes per spec area and engine, as text, Markdown and JSON.

A cell counts the outcomes of one area on one engine: ``passed`` (informational runs count
apart), ``failed`` (including ``xpassed``: a listed failure that passes is a stale list),
``xfail`` (known failures) and ``skipped``. Below the matrix every outcome that is not a clean
pass is listed with its reason; engines that could not start are listed with theirs.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from conformance.cases.runner import (
    FAILED,
    INFORMATIONAL,
    PASSED,
    SKIPPED,
    XFAILED,
    XPASSED,
    Outcome,
)

CELL_KEYS = ((PASSED, "ok"), (FAILED, "FAIL"), (XFAILED, "xfail"), (SKIPPED, "skip"))
PROBLEM_ORDER = {FAILED: 0, XPASSED: 0, XFAILED: 1, INFORMATIONAL: 2, SKIPPED: 3, PASSED: 4}


@dataclass
class Report:
    """Everything a conformance run produced."""

    engines: list[str]
    outcomes: list[Outcome] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)

    @property
    def areas(self) -> list[str]:
        return sorted({o.area for o in self.outcomes})

    def counts(self, area: str | None, engine: str) -> Counter[str]:
        """Outcome counts of one cell (``area`` ``None``: the engine's total)."""
        counter: Counter[str] = Counter()
        for outcome in self.outcomes:
            if outcome.engine == engine and (area is None or outcome.area == area):
                status = FAILED if outcome.status == XPASSED else outcome.status
                counter[status] += 1
        return counter

    @property
    def has_failures(self) -> bool:
        return any(o.status in (FAILED, XPASSED) for o in self.outcomes)

    def problems(self) -> list[Outcome]:
        """Outcomes that are not clean passes, failures first. A pass that left steps out
        (the engine lacks what they need) is listed too."""
        listed = [o for o in self.outcomes if o.status != PASSED or o.reason]
        return sorted(listed, key=lambda o: (PROBLEM_ORDER[o.status], o.engine, o.case_id))


def format_cell(counts: Mapping[str, int]) -> str:
    parts = [f"{counts[key]} {label}" for key, label in CELL_KEYS if counts.get(key)]
    if counts.get(INFORMATIONAL):
        parts.append(f"{counts[INFORMATIONAL]} info")
    return ", ".join(parts) or "-"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    return "\n".join(lines)


def matrix_rows(report: Report) -> list[list[str]]:
    rows = []
    for area in report.areas:
        rows.append([area, *(format_cell(report.counts(area, e)) for e in report.engines)])
    rows.append(["TOTAL", *(format_cell(report.counts(None, e)) for e in report.engines)])
    return rows


def render(report: Report, *, markdown: bool = False) -> str:
    """The matrix, then the unavailable engines, then every non-pass with its reason."""
    header = ["area", *report.engines]
    body = matrix_rows(report)
    for engine in report.unavailable:
        if engine in report.engines:
            index = report.engines.index(engine) + 1
            for row in body:
                row[index] = "unavailable"
    out = ["# paimon-kit conformance matrix", ""] if markdown else []
    out.append(_table(header, body, markdown))
    if report.unavailable:
        out += ["", "## Engines not run" if markdown else "Engines not run:"]
        out += [f"- {engine}: {reason}" for engine, reason in report.unavailable.items()]
    problems = report.problems()
    if problems:
        out += ["", "## Not passed" if markdown else "Not passed (and partial passes):"]
        for outcome in problems:
            reason = outcome.reason.replace("\n", "\n    ")
            label = outcome.status if outcome.status != PASSED else "passed (partial)"
            line = f"{outcome.engine} {label} {outcome.case_id}: {reason}"
            out.append(f"- {line}" if markdown else line)
    return "\n".join(out) + "\n"


def to_json(report: Report) -> dict[str, Any]:
    return {
        "engines": report.engines,
        "unavailable": report.unavailable,
        "matrix": {
            area: {e: dict(report.counts(area, e)) for e in report.engines} for area in report.areas
        },
        "totals": {e: dict(report.counts(None, e)) for e in report.engines},
        "outcomes": [asdict(o) for o in report.outcomes],
    }


def dump_json(report: Report) -> str:
    return json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n"
