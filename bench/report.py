"""Turn pytest-benchmark JSON files of the bench suites into ``report.md`` and SVG plots.

    python -m bench.report bench/results/<machine>/raw/*.json [--machine NAME] [--out DIR]

Writes ``<out>/report.md`` (default ``bench/results/<machine>/``): the machine, tree and load
of every run; per size a side-by-side table (seconds per workload and engine), the ratio to
the physical floor, local[1] -> local[2] scaling and peak memory; each target of issue 10 and
where it stands; failures; and, verbatim, ``<out>/notes.md`` (profiles and analysis written
by hand) when present. Plots: PNG through matplotlib (the ``bench`` extra) and SVG drawn by
:func:`render_bars` without any dependency (horizontal bars, log scale).
"""

from __future__ import annotations

import argparse
import html
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.engines import ENGINE_NAMES
from bench.features import POINT_QUERY_COUNT

PINNED_ONE_CORE = "spark-1core"
"""spark_impl at local[1] in a run pinned to one core (``taskset -c 0``): local[1] alone is
one task slot, but each task is a JVM thread *and* a Python worker process running side by
side, so unpinned local[1] already uses up to two cores. The 1 → 2 core scaling compares
this with local[2] on both cores."""
ENGINE_ORDER = (PINNED_ONE_CORE, *ENGINE_NAMES)
OPERATION_ORDER = (
    ("W1", "write"),
    ("W1", "merge-read"),
    ("W1-runs", "write"),
    ("W1-runs", "merge-read"),
    ("W2", "write"),
    ("W2", "scan"),
    ("W3", "full-compaction"),
    ("W4", "write"),
    ("W5", "write"),
    ("W5", "point-query"),
    ("W6-partial", "merge-read"),
    ("W6-aggregate", "merge-read"),
    ("W7", "read"),
    ("session", "start"),
)
FLOOR_OF = {key: "floor" for key in OPERATION_ORDER if key[0] != "W3" and key[0] != "session"}
SPARK = ("spark-local1", "spark-local2")
SCALING_PAIRS = ((PINNED_ONE_CORE, "spark-local2"), SPARK)
"""Scaling is judged on pinned one-core local[1] → local[2] when measured, else on
local[1] → local[2]."""
READ_FLOOR_FACTOR = 2.0
SCALING_TARGET = 1.8
LOADED_PER_CORE = 1.5
LOADED_CORES_FALLBACK = 2
"""Cores assumed for a result that does not record its machine's (older runs)."""
LOADED_MARK = "ᴸ"
"""Marks a time measured on a loaded machine."""
DEFAULT_BUCKETS = 4
"""Results of runs with another bucket count (``BENCH_BUCKETS``) are the fixed-split-size
memory runs: they appear in the memory target only, not in the time tables."""
SPLIT_MEMORY_SLACK = 1.25
"""The split-size memory target holds when the largest worker of the larger table stays
within this factor of the smaller table's at the same rows per split."""
"""A run whose 1-minute load average exceeded the core count ran on a loaded machine."""
COLORS = {
    PINNED_ONE_CORE: "#8fa9d6",
    "spark-local1": "#4c72b0",
    "spark-local2": "#1f3f7a",
    "spark-native": "#64b5cd",
    "pypaimon-rust": "#dd8452",
    "pypaimon": "#55a868",
    "reference": "#8172b3",
    "java": "#c44e52",
    "floor": "#7f7f7f",
}


@dataclass(frozen=True)
class Result:
    """One benchmark: an engine's time for one operation of one workload at one size."""

    workload: str
    operation: str
    engine: str
    rows: int
    seconds: float
    rounds: int
    info: dict[str, Any]

    @property
    def key(self) -> tuple[str, str]:
        return self.workload, self.operation

    @property
    def buckets(self) -> int:
        return int(self.info.get("buckets", DEFAULT_BUCKETS))

    @property
    def loaded(self) -> bool:
        """Whether the 1-minute load average before or after this benchmark exceeded
        :data:`LOADED_PER_CORE` times the machine's cores (another job shared them)."""
        cores = int(self.info.get("cpu_count") or LOADED_CORES_FALLBACK)
        loads = [self.info.get(key) for key in ("load_before", "load_after")]
        return any(load and load[0] > cores * LOADED_PER_CORE for load in loads)


@dataclass(frozen=True)
class Run:
    """One JSON file: a pytest-benchmark session at one size."""

    path: str
    rows: int
    machine: dict[str, Any]
    tree: dict[str, Any]
    started: str
    results: tuple[Result, ...]
    failures: tuple[dict[str, str], ...]
    loads: tuple[tuple[float, float, float], ...]


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def read_run(path: Path) -> Run:
    """A run from a pytest-benchmark JSON file, or from a journal (``*.jsonl``)."""
    if path.suffix == ".jsonl":
        return read_journal(path)
    return parse_run(str(path), json.loads(path.read_text(encoding="utf-8")))


def is_void_compaction(info: dict[str, Any]) -> bool:
    """A W3 result that compacted nothing (as many live files after as before, or not
    recorded, as in runs made before W3 compacted W1-runs): not a compaction time."""
    if info.get("workload") != "W3":
        return False
    before, after = info.get("files_before"), info.get("files_after")
    return before is None or before == after


def engine_of(info: dict[str, Any]) -> str:
    """The engine of a result; local[1] pinned to one core is :data:`PINNED_ONE_CORE`."""
    engine = str(info["engine"])
    if engine == "spark-local1" and info.get("cpu_affinity") == 1:
        return PINNED_ONE_CORE
    return engine


def parse_run(path: str, data: dict[str, Any]) -> Run:
    tree = data.get("paimon_kit", {})
    results = []
    loads: list[tuple[float, float, float]] = []
    for bench in data["benchmarks"]:
        info = bench.get("extra_info", {})
        if not info.get("checksum_ok", False) or is_void_compaction(info):
            continue
        stats = bench["stats"]
        results.append(
            Result(
                info["workload"],
                info["operation"],
                engine_of(info),
                int(info.get("rows", tree.get("rows", 0))),
                float(stats["min"]),
                int(stats["rounds"]),
                info,
            )
        )
        for key in ("load_before", "load_after"):
            if key in info:
                first, five, fifteen = info[key]
                loads.append((float(first), float(five), float(fifteen)))
    return Run(
        path,
        int(tree.get("rows", 0)),
        data.get("machine_info", {}),
        tree,
        str(data.get("datetime", "")),
        tuple(results),
        tuple(tree.get("failures", [])),
        tuple(loads),
    )


def read_journal(path: Path) -> Run:
    """A run from the JSON-lines journal of ``--bench-journal`` (results of a run that may
    have been stopped before pytest-benchmark wrote its JSON)."""
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    benchmarks = [entry for entry in entries if "stats" in entry]
    header: dict[str, Any] = next((e["header"] for e in entries if "header" in e), {})
    data = {
        "benchmarks": benchmarks,
        "machine_info": {
            "node": header.get("node", "?"),
            "cpu_count": header.get("cpu_count", 0),
            "memory_total_mib": header.get("memory_total_mib", "?"),
        },
        "datetime": header.get("started", ""),
        "paimon_kit": {
            **header,
            "failures": [entry["failure"] for entry in entries if "failure" in entry],
        },
    }
    return parse_run(str(path), data)


def index(runs: Sequence[Run]) -> dict[tuple[int, str, str, str], Result]:
    """Results by (rows, workload, operation, engine); a later run replaces an earlier one."""
    found: dict[tuple[int, str, str, str], Result] = {}
    for run in runs:
        for result in run.results:
            if result.buckets == DEFAULT_BUCKETS:
                found[(result.rows, result.workload, result.operation, result.engine)] = result
    return found


# --------------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------------


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds >= 100:
        return f"{seconds:.0f}"
    if seconds >= 10:
        return f"{seconds:.1f}"
    return f"{seconds:.2f}" if seconds >= 0.1 else f"{seconds:.3f}"


def format_rows(rows: int) -> str:
    for size, suffix in ((1_000_000, "M"), (1_000, "k")):
        if rows >= size:
            return f"{rows / size:g}{suffix}"
    return str(rows)


def image(stem: str, alt: str, out: Path | None = None) -> str:
    """A Markdown image line for plot ``stem``: the PNG when ``out`` holds one (matplotlib
    was available), else the SVG; empty when ``out`` holds neither."""
    if out is None:
        return f"![{alt}]({stem}.svg)\n"
    for name in (f"{stem}.png", f"{stem}.svg"):
        if (out / name).exists():
            return f"![{alt}]({name})\n"
    return ""


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return [*lines, ""]


def time_of(found: dict[Any, Result], rows: int, key: tuple[str, str], engine: str) -> float | None:
    result = found.get((rows, key[0], key[1], engine))
    return None if result is None else result.seconds


def time_cell(found: dict[Any, Result], rows: int, key: tuple[str, str], engine: str) -> str:
    """The formatted time, marked with :data:`LOADED_MARK` when measured on a loaded machine."""
    result = found.get((rows, key[0], key[1], engine))
    if result is None:
        return format_seconds(None)
    return format_seconds(result.seconds) + (LOADED_MARK if result.loaded else "")


def is_loaded(run: Run) -> bool:
    cores = int(run.machine.get("cpu", {}).get("count", 0) or run.machine.get("cpu_count", 1))
    return any(load[0] > cores * LOADED_PER_CORE for load in run.loads)


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


def section_runs(runs: Sequence[Run]) -> list[str]:
    first = next((run for run in runs if run.machine.get("cpu")), runs[0])
    cpu = first.machine.get("cpu", {})
    versions = ", ".join(f"{k} {v}" for k, v in first.tree.get("versions", {}).items())
    lines = [
        "## Machine, tree and runs\n",
        f"- machine: `{first.machine.get('node', '?')}`, {cpu.get('brand_raw', '?')}, "
        f"{cpu.get('count', '?')} cores, {first.machine.get('memory_total_mib', '?')} MiB RAM, "
        f"Python {first.machine.get('python_version', '?')}",
        f"- versions: {versions}",
        "",
    ]
    rows = []
    for run in runs:
        loads = [load[0] for load in run.loads] or [0.0]
        rows.append(
            (
                Path(run.path).name,
                format_rows(run.rows),
                str(run.tree.get("buckets", DEFAULT_BUCKETS)),
                run.started[:19],
                f"`{str(run.tree.get('git_sha', '?'))[:10]}`"
                + (" (dirty)" if run.tree.get("git_dirty") else ""),
                f"{min(loads):.1f} – {max(loads):.1f}",
                "**loaded**" if is_loaded(run) else "idle enough",
            )
        )
    header = ("run", "rows", "buckets", "recorded (UTC)", "tree", "1-min load", "machine")
    lines.extend(table(header, rows))
    if any(is_loaded(run) for run in runs):
        lines.append(
            "**Some runs shared the machine** with other engineers' test suites (marked "
            "loaded above; each benchmark's load before/after is in the JSON). A later run's "
            f"result replaces an earlier one of the same size, workload and engine; a time "
            f"still coming from a loaded run is marked {LOADED_MARK} in the tables below: it "
            "is inflated and noisy, and not comparable with the unmarked figures.\n"
        )
    return lines


def sizes_of(found: dict[Any, Result]) -> list[int]:
    return sorted({key[0] for key in found})


def engines_of(found: dict[Any, Result], rows: int) -> list[str]:
    present = {key[3] for key in found if key[0] == rows}
    return [e for e in ENGINE_ORDER if e in present]


def section_times(found: dict[Any, Result], rows: int, out: Path | None = None) -> list[str]:
    engines = engines_of(found, rows)
    body = []
    for key in OPERATION_ORDER:
        cells = [time_of(found, rows, key, e) for e in engines]
        if any(c is not None for c in cells):
            body.append([f"{key[0]} {key[1]}", *(time_cell(found, rows, key, e) for e in engines)])
    lines = [f"### {format_rows(rows)} rows: seconds (best round; lower is better)\n"]
    lines.extend(table(["workload", *engines], body))
    if any(LOADED_MARK in cell for row in body for cell in row):
        lines.append(
            f"{LOADED_MARK}: measured on a loaded machine (1-minute load above 1.5 × the core "
            "count before or after the benchmark): inflated, not comparable with the unmarked "
            "figures.\n"
        )
    return [*lines, image(f"times-{format_rows(rows)}", f"times at {format_rows(rows)}", out)]


def section_floor(found: dict[Any, Result], rows: int) -> list[str]:
    engines = [e for e in engines_of(found, rows) if e != "floor"]
    body = []
    for key, floor in FLOOR_OF.items():
        base = time_of(found, rows, key, floor)
        if not base:
            continue
        cells = [time_of(found, rows, key, e) for e in engines]
        body.append(
            [f"{key[0]} {key[1]}", *("—" if c is None else f"{c / base:.1f}×" for c in cells)]
        )
    if not body:
        return []
    return [
        f"#### {format_rows(rows)}: ratio to the physical floor (pyarrow on the same bytes)\n",
        *table(["workload", *engines], body),
    ]


NATIVE = "spark-native"
NATIVE_TARGETS = {
    ("W2", "write"): 1.2,
    ("W2", "scan"): 1.2,
    ("W7", "read"): 1.2,
    ("W1", "merge-read"): 1.2,
}
"""Issue 20: spark_impl (local[2]) at most this many times Spark's own Parquet path on the same
data and files. The W1 row is the issue's "W1 read after full compaction": the W1 table the
writers leave is one sorted run per bucket (the fifth commit's compaction rewrites all five
runs), so its merge-read reads every file as it is, as after a full compaction."""


def native_status(key: tuple[str, str], ratio: float | None) -> str:
    """The issue-20 target of ``key`` and whether spark_impl at local[2] meets it."""
    bound = NATIVE_TARGETS.get(key)
    if bound is None or ratio is None:
        return "—"
    return f"≤ {bound:.1f}×: {'met' if ratio <= bound else 'missed'}"


def section_native(found: dict[Any, Result], rows: int) -> list[str]:
    """Each engine's time over ``spark-native``'s on the same operation (issue 20)."""
    engines = [e for e in engines_of(found, rows) if e != NATIVE]
    body = []
    for key in OPERATION_ORDER:
        base = time_of(found, rows, key, NATIVE)
        if not base:
            continue
        cells = [time_of(found, rows, key, e) for e in engines]
        mine = time_of(found, rows, key, "spark-local2")
        status = native_status(key, None if mine is None else mine / base)
        ratios = ("—" if c is None else f"{c / base:.2f}×" for c in cells)
        body.append([f"{key[0]} {key[1]}", *ratios, status])
    if not body:
        return []
    return [
        f"#### {format_rows(rows)}: ratio to Spark's own Parquet path (`spark-native`, same "
        "data and files, measured in the same run; merge-reads: the same files read without "
        "merging)\n",
        *table(["workload", *engines, "target (spark-local2)"], body),
    ]


def scaling_rows(found: dict[Any, Result]) -> list[tuple[int, tuple[str, str], str, float, float]]:
    """``(rows, key, first engine, first s, local[2] s)`` for every pair of
    :data:`SCALING_PAIRS` measured at the same size."""
    found_rows = []
    for rows in sizes_of(found):
        for key in OPERATION_ORDER[:-1]:
            for first, second in SCALING_PAIRS:
                one, two = time_of(found, rows, key, first), time_of(found, rows, key, second)
                if one and two:
                    found_rows.append((rows, key, first, one, two))
    return found_rows


def section_scaling(found: dict[Any, Result]) -> list[str]:
    body = [
        [
            format_rows(rows),
            f"{key[0]} {key[1]}",
            "local[1], 1 core (taskset)" if first == PINNED_ONE_CORE else "local[1]",
            format_seconds(one),
            format_seconds(two),
            f"{one / two:.2f}×",
        ]
        for rows, key, first, one, two in scaling_rows(found)
    ]
    if not body:
        return []
    header = ["rows", "workload", "from", "from s", "local[2] s", "speed-up"]
    return [
        "## spark_impl scaling to local[2]\n",
        "local[1] is one task slot, but a task is a JVM thread and a Python worker process "
        "working side by side, so unpinned local[1] already uses up to two cores; the 1 → 2 "
        "core figure is local[1] pinned to one core (`taskset -c 0`) against local[2] on "
        "both.\n",
        *table(header, body),
    ]


def section_memory(found: dict[Any, Result]) -> list[str]:
    body = []
    for (rows, workload, operation, engine), result in sorted(found.items()):
        info = result.info
        if "peak_tree_mib" not in info:
            continue
        body.append(
            [
                format_rows(rows),
                f"{workload} {operation}",
                engine,
                f"{info.get('peak_worker_mib', 0):.0f}",
                f"{info.get('peak_jvm_mib', 0):.0f}",
                f"{info.get('peak_own_mib', 0):.0f}",
                f"{info.get('peak_tree_mib', 0):.0f}",
            ]
        )
    header = [
        "rows",
        "workload",
        "engine",
        "largest Python worker MiB",
        "JVM MiB",
        "this process MiB",
        "process tree MiB",
    ]
    return [
        "## Peak memory (sampled every 0.25 s from /proc)\n",
        "For spark_impl the number that matters is the largest Python worker: each task reads "
        "or writes one split (one bucket), so it should follow the split size, not the table "
        "size. The JVM's heap is the driver's (local mode: driver and executor in one JVM).\n",
        *table(header, body),
    ]


@dataclass(frozen=True)
class Target:
    name: str
    status: str
    detail: str


def compare(value: float | None, bound: float | None, *, at_most: bool = True) -> str:
    if value is None or bound is None:
        return "not measured"
    return "met" if (value <= bound if at_most else value >= bound) else "missed"


def largest_size(found: dict[Any, Result], key: tuple[str, str], engines: Sequence[str]) -> int:
    """The largest size at which every one of ``engines`` has a time for ``key`` (0: none)."""
    sizes = [r for r in sizes_of(found) if all(time_of(found, r, key, e) for e in engines)]
    return max(sizes, default=0)


def pair_target(
    found: dict[Any, Result],
    name: str,
    key: tuple[str, str],
    engines: tuple[str, str],
    verdict: Callable[[float, float, int], tuple[bool, str]],
) -> Target:
    """A target comparing two engines' times for ``key`` at the largest size both ran:
    ``verdict(first, second, rows)`` says whether it is met and how to show the figures."""
    rows = largest_size(found, key, engines)
    if not rows:
        return Target(name, "not measured", "")
    first, second = (time_of(found, rows, key, e) or 0.0 for e in engines)
    met, figures = verdict(first, second, rows)
    return Target(name, "met" if met else "missed", f"{format_rows(rows)}: {figures}")


def no_slower(mine: float, theirs: float, rows: int) -> tuple[bool, str]:
    return mine <= theirs, f"{format_seconds(mine)} s vs {format_seconds(theirs)} s"


def within_floor(mine: float, floor: float, rows: int) -> tuple[bool, str]:
    figures = f"{format_seconds(mine)} s vs floor {format_seconds(floor)} s ({mine / floor:.1f}×)"
    return mine <= READ_FLOOR_FACTOR * floor, figures


def throughput(mine: float, theirs: float, rows: int) -> tuple[bool, str]:
    return mine <= theirs, f"{rows / mine:,.0f} rows/s vs {rows / theirs:,.0f} rows/s"


def scaling(one: float, two: float, rows: int) -> tuple[bool, str]:
    figures = f"{format_seconds(one)} s → {format_seconds(two)} s ({one / two:.2f}×)"
    return one / two >= SCALING_TARGET, figures


def evaluate_targets(found: dict[Any, Result], runs: Sequence[Run] = ()) -> list[Target]:
    """Every target of issue 10 at the largest size where it was measured (the figures
    column names the size: the write/read targets are stated for 10M rows, the reference
    target for 1M); the memory target from the fixed-split-size runs when there are some."""
    read, write, compaction = ("W1", "merge-read"), ("W1", "write"), ("W3", "full-compaction")
    runs_read = ("W1-runs", "merge-read")
    targets = []
    for engine in SPARK:
        targets.extend(
            [
                pair_target(
                    found,
                    f"{engine}: merge-read no slower than pypaimon-rust",
                    read,
                    (engine, "pypaimon-rust"),
                    no_slower,
                ),
                pair_target(
                    found,
                    f"{engine}: merge-read of 5 sorted runs no slower than pypaimon-rust",
                    runs_read,
                    (engine, "pypaimon-rust"),
                    no_slower,
                ),
                pair_target(
                    found,
                    f"{engine}: merge-read of 5 sorted runs within 2× the floor",
                    runs_read,
                    (engine, "floor"),
                    within_floor,
                ),
                pair_target(
                    found,
                    f"{engine}: write no slower than pypaimon-rust",
                    write,
                    (engine, "pypaimon-rust"),
                    no_slower,
                ),
                pair_target(
                    found,
                    f"{engine}: merge-read within 2× the raw pyarrow floor",
                    read,
                    (engine, "floor"),
                    within_floor,
                ),
                pair_target(
                    found,
                    f"{engine}: full compaction at least Java 0.9's rows/s",
                    compaction,
                    (engine, "java"),
                    throughput,
                ),
            ]
        )
    for key in (write, read, runs_read, compaction):
        pinned = largest_size(found, key, SCALING_PAIRS[0])
        pair = SCALING_PAIRS[0] if pinned else SPARK
        source = "1 core (local[1] pinned)" if pinned else "local[1]"
        name = f"≥ 1.8× from {source} to 2 cores (local[2]), {key[0]} {key[1]}"
        targets.append(pair_target(found, name, key, pair, scaling))
    for key in (write, read):
        name = f"reference at least pypaimon's throughput, W1 {key[1]}"
        targets.append(pair_target(found, name, key, ("reference", "pypaimon"), no_slower))
    targets.append(split_memory_target(runs) or memory_target(found))
    return targets


def split_peaks(runs: Sequence[Run]) -> dict[tuple[str, str, int, int], float]:
    """The largest spark_impl Python worker by (engine, workload and operation, rows per
    split, table rows), over every bucket count (a split is one bucket)."""
    peaks: dict[tuple[str, str, int, int], float] = {}
    for run in runs:
        for result in run.results:
            peak = result.info.get("peak_worker_mib")
            if result.engine not in SPARK or result.workload not in {"W1", "W1-runs"} or not peak:
                continue
            key = (
                result.engine,
                f"{result.workload} {result.operation}",
                result.rows // result.buckets,
                result.rows,
            )
            peaks[key] = max(peaks.get(key, 0.0), float(peak))
    return peaks


def split_memory_target(runs: Sequence[Run]) -> Target | None:
    """Met when, at the same rows per split, the largest worker for a 10× larger table stays
    within :data:`SPLIT_MEMORY_SLACK` of the smaller table's (for every operation measured so);
    ``None`` when no two sizes share a split size."""
    by_split: dict[tuple[str, str, int], dict[int, float]] = {}
    for (engine, name, per_split, rows), peak in split_peaks(runs).items():
        by_split.setdefault((engine, name, per_split), {})[rows] = peak
    pairs = []
    for (engine, name, per_split), sizes in sorted(by_split.items()):
        if len(sizes) < 2:
            continue
        small, large = min(sizes), max(sizes)
        pairs.append((engine, name, per_split, small, sizes[small], large, sizes[large]))
    if not pairs:
        return None
    met = all(
        large_peak <= SPLIT_MEMORY_SLACK * small_peak for *_, small_peak, _, large_peak in pairs
    )
    detail = "; ".join(
        f"{engine} {name}, {format_rows(per_split)}-row splits: {format_rows(small)} rows "
        f"{small_peak:.0f} MiB → {format_rows(large)} rows {large_peak:.0f} MiB"
        for engine, name, per_split, small, small_peak, large, large_peak in pairs
    )
    return Target(
        "spark_impl worker peak memory bounded by the split size, not the table size",
        "met" if met else "missed",
        f"largest Python worker at a fixed split size (`BENCH_BUCKETS`): {detail}",
    )


def memory_target(found: dict[Any, Result]) -> Target:
    """The largest spark_impl Python worker per size and operation. With bucket 4 a split is a
    whole bucket, a quarter of the table, so split size and table size grow together here:
    the figures show the per-split cost, not yet a bound independent of the table."""
    peaks: dict[tuple[int, str], float] = {}
    for (rows, workload, operation, engine), result in found.items():
        if engine in SPARK and workload in {"W1", "W1-runs"}:
            key = (rows, f"{workload} {operation}")
            peaks[key] = max(peaks.get(key, 0.0), result.info.get("peak_worker_mib", 0.0))
    if not peaks:
        return Target("spark_impl worker memory bounded by split size", "not measured", "")
    detail = "; ".join(
        f"{format_rows(rows)} {name}: {peak:.0f} MiB ({format_rows(rows // 4)}-row splits)"
        for (rows, name), peak in sorted(peaks.items())
    )
    return Target(
        "spark_impl worker peak memory bounded by the split size, not the table size",
        "not shown",
        f"largest Python worker: {detail}. Needs a run at a fixed split size (more buckets "
        "as the table grows) to separate the two",
    )


POINT_QUERY_TARGET_SECONDS = 0.5
"""Issue 20: W5's point queries at 1M rows within this wall time (the report's W5 point-query
figure, the one the issue quotes as today's 2.25 s: all of bench.features.POINT_QUERY_COUNT
queries, one after another)."""
NATIVE_TARGET_ROWS = 10_000_000
"""Issue 20 states its ratio targets for 10M rows."""


def ratio_to_native(mine: float, native: float, rows: int) -> tuple[bool, str]:
    """Every ratio target of :data:`NATIVE_TARGETS` is the same bound."""
    figures = f"{format_seconds(mine)} s vs {format_seconds(native)} s ({mine / native:.2f}×)"
    return mine <= max(NATIVE_TARGETS.values()) * native, figures


def point_query_target(found: dict[Any, Result]) -> Target:
    name = f"W5 point queries (1M) within {POINT_QUERY_TARGET_SECONDS} s wall, spark-local2"
    seconds = time_of(found, 1_000_000, ("W5", "point-query"), "spark-local2")
    if seconds is None:
        return Target(name, "not measured", "")
    status = compare(seconds, POINT_QUERY_TARGET_SECONDS)
    each = format_seconds(seconds / POINT_QUERY_COUNT)
    return Target(
        name,
        status,
        f"1M: {format_seconds(seconds)} s ({POINT_QUERY_COUNT} queries, {each} s each)",
    )


def side_by_side(runs: Sequence[Run]) -> dict[tuple[int, str, str, str], Result]:
    """The results of the runs that measured ``spark-native``: ratios to it are taken only
    between engines measured side by side in one run."""
    return index([run for run in runs if any(r.engine == NATIVE for r in run.results)])


def evaluate_native_targets(found: dict[Any, Result], runs: Sequence[Run]) -> list[Target]:
    """Issue 20's targets: spark_impl at local[2] against Spark's own Parquet path on the same
    data and files and against pypaimon-rust (side by side in one run), and W5's wall time."""
    only_10m = {k: v for k, v in side_by_side(runs).items() if k[0] == NATIVE_TARGET_ROWS}
    targets = [
        pair_target(
            only_10m,
            f"{key[0]} {key[1]} ≤ {bound:.1f}× spark-native",
            key,
            ("spark-local2", NATIVE),
            ratio_to_native,
        )
        for key, bound in NATIVE_TARGETS.items()
    ]
    for key in (("W1", "merge-read"), ("W1", "write")):
        name = f"W1 {key[1]} no slower than pypaimon-rust"
        targets.append(
            pair_target(only_10m, name, key, ("spark-local2", "pypaimon-rust"), no_slower)
        )
    targets.append(point_query_target(found))
    return targets


def section_targets(found: dict[Any, Result], runs: Sequence[Run]) -> list[str]:
    """Issue 10's targets, then issue 20's; profiles of the missed ones are named below each."""
    sections = (
        ("issue 10", evaluate_targets(found, runs), "the notes below and `profile-*.md`"),
        (
            "issue 20: Spark's own columnar path",
            evaluate_native_targets(found, runs),
            "`profile-local2-10000000.md` and the notes below",
        ),
    )
    lines = []
    for title, targets, profiles in sections:
        body = [[t.name, f"**{t.status}**", t.detail] for t in targets]
        lines.extend(
            [
                f"## Targets ({title})\n",
                *table(["target", "status", "figures"], body),
                f"Profiles of the missed targets: {profiles}.\n",
            ]
        )
    return lines


def section_session(found: dict[Any, Result], runs: Sequence[Run]) -> list[str]:
    body = []
    for (rows, workload, _operation, engine), result in sorted(found.items()):
        if workload == "session":
            body.append(
                [format_rows(rows), engine, format_seconds(result.info.get("inner_seconds"))]
            )
    warm = [
        [format_rows(run.rows), master, ", ".join(format_seconds(s) for s in seconds)]
        for run in runs
        for master, seconds in run.tree.get("spark_warm_up_seconds", {}).items()
    ]
    lines = ["## Spark session start (not included in any job time above)\n"]
    lines.extend(table(["run", "engine", "fresh interpreter → session + live workers, s"], body))
    if warm:
        lines.append(
            "After each (re)start the suite warms the Python workers with a 1k-row write, read "
            "and compaction (untimed by the benchmarks):\n"
        )
        lines.extend(table(["run", "master", "warm-up s"], warm))
    return lines


def failure_key(test: str) -> tuple[str, str]:
    """``(workload, engine)`` named by a failed benchmark's test id, as far as it tells."""
    name, _, param = test.rsplit("::", maxsplit=1)[-1].partition("[")
    param = param.rstrip("]")
    engine = next((e for e in ENGINE_ORDER if param.endswith(e)), "")
    named = next((w for w in ("W3", "W4", "W5") if name.startswith(f"test_{w.lower()}")), None)
    return named or param[: -len(engine)].rstrip("-") or name, engine


def is_superseded(failure: dict[str, str], rows: int, found: dict[Any, Result]) -> bool:
    """Whether a later session measured what this failed benchmark was to measure."""
    workload, engine = failure_key(failure["test"])
    return any(k[0] == rows and k[1] == workload and k[3] == engine for k in found)


def section_failures(runs: Sequence[Run]) -> list[str]:
    found = index(runs)
    body = [
        [
            format_rows(run.rows),
            f"`{f['test'].split('::')[-1]}`",
            f["message"].splitlines()[0]
            + (" (measured by a later session)" if is_superseded(f, run.rows, found) else ""),
        ]
        for run in runs
        for f in run.failures
    ]
    if not body:
        return []
    return [
        "## Benchmarks that failed (no time counted)\n",
        *table(["rows", "benchmark", "error"], body),
    ]


# --------------------------------------------------------------------------------------------
# SVG plots
# --------------------------------------------------------------------------------------------

BAR_HEIGHT = 16
LABEL_WIDTH = 260
PLOT_WIDTH = 520
MARGIN = 20


def render_bars(title: str, bars: Sequence[tuple[str, str, float]], unit: str) -> str:
    """Horizontal bars ``(label, engine, value)`` on a log scale, coloured by engine."""
    values = [v for _, _, v in bars if v > 0]
    low = 10 ** math.floor(math.log10(min(values))) if values else 0.01
    high = 10 ** math.ceil(math.log10(max(values))) if values else 1.0
    high = max(high, low * 10)
    span = math.log10(high) - math.log10(low)
    height = MARGIN * 3 + BAR_HEIGHT * len(bars) + 20
    width = LABEL_WIDTH + PLOT_WIDTH + 80
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{MARGIN}" y="{MARGIN}" font-size="13">{html.escape(title)}</text>',
    ]
    top = MARGIN * 2
    decade = low
    while decade <= high * 1.0001:
        x = LABEL_WIDTH + PLOT_WIDTH * (math.log10(decade) - math.log10(low)) / span
        out.append(
            f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" '
            f'y2="{top + BAR_HEIGHT * len(bars)}" stroke="#ddd"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{top + BAR_HEIGHT * len(bars) + 14}" '
            f'text-anchor="middle">{decade:g} {unit}</text>'
        )
        decade *= 10
    for position, (label, engine, value) in enumerate(bars):
        y = top + position * BAR_HEIGHT
        length = PLOT_WIDTH * (math.log10(value) - math.log10(low)) / span if value > 0 else 0
        out.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{y + BAR_HEIGHT - 4}" text-anchor="end">'
            f"{html.escape(label)}</text>"
        )
        out.append(
            f'<rect x="{LABEL_WIDTH}" y="{y + 2}" width="{max(length, 1):.1f}" '
            f'height="{BAR_HEIGHT - 4}" fill="{COLORS.get(engine, "#999")}"/>'
        )
        out.append(
            f'<text x="{LABEL_WIDTH + max(length, 1) + 4:.1f}" y="{y + BAR_HEIGHT - 4}">'
            f"{format_seconds(value) if unit == 's' else f'{value:.1f}'}</text>"
        )
    out.append("</svg>")
    return "\n".join(out)


def render_png(path: Path, title: str, bars: Sequence[tuple[str, str, float]], unit: str) -> bool:
    """The bars as a PNG (matplotlib, log scale, coloured by engine); False without
    matplotlib (``pip install -e '.[bench]'``)."""
    try:
        import matplotlib  # noqa: PLC0415 (optional: the bench extra)

        matplotlib.use("Agg")
        from matplotlib import pyplot  # noqa: PLC0415
    except ImportError:
        return False
    figure, axes = pyplot.subplots(figsize=(10, 0.8 + 0.26 * len(bars)))
    positions = list(range(len(bars)))
    values = [value for _, _, value in bars]
    axes.barh(positions, values, color=[COLORS.get(engine, "#999") for _, engine, _ in bars])
    axes.set_yticks(positions, [label for label, _, _ in bars], fontsize=8)
    axes.invert_yaxis()
    axes.set_xscale("log")
    axes.set_xlabel(unit)
    axes.set_title(title, fontsize=10)
    for position, value in enumerate(values):
        text = format_seconds(value) if unit == "s" else f"{value:.1f}"
        axes.annotate(
            text,
            (value, position),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            fontsize=7,
        )
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    pyplot.close(figure)
    return True


def save_plot(
    out: Path, stem: str, title: str, bars: Sequence[tuple[str, str, float]], unit: str
) -> None:
    """``<stem>.svg`` (dependency-free) and, with matplotlib, ``<stem>.png``."""
    (out / f"{stem}.svg").write_text(render_bars(title, bars, unit), encoding="utf-8")
    render_png(out / f"{stem}.png", title, bars, unit)


def write_plots(found: dict[Any, Result], out: Path) -> None:
    for rows in sizes_of(found):
        bars = [
            (f"{key[0]} {key[1]} · {engine}", engine, value)
            for key in OPERATION_ORDER
            for engine in ENGINE_ORDER
            if (value := time_of(found, rows, key, engine) or 0.0) > 0
        ]
        title = f"Seconds per workload and engine, {format_rows(rows)} rows (log scale)"
        save_plot(out, f"times-{format_rows(rows)}", title, bars, "s")
    ratios = []
    for rows in sizes_of(found):
        for key, floor in FLOOR_OF.items():
            base = time_of(found, rows, key, floor)
            for engine in ENGINE_ORDER:
                seconds = time_of(found, rows, key, engine)
                if base and seconds and engine != floor:
                    label = f"{format_rows(rows)} {key[0]} {key[1]} · {engine}"
                    ratios.append((label, engine, seconds / base))
    if ratios:
        save_plot(out, "ratio-to-floor", "Time / physical floor (log scale)", ratios, "×")
    scaling = [
        (f"{format_rows(rows)} {key[0]} {key[1]} from {first}", first, one / two)
        for rows, key, first, one, two in scaling_rows(found)
    ]
    if scaling:
        title = "spark_impl speed-up to local[2] (target 1.8×)"
        save_plot(out, "scaling", title, scaling, "×")
    memory = [
        (f"{format_rows(k[0])} {k[1]} {k[2]} · {k[3]}", k[3], r.info["peak_worker_mib"])
        for k, r in sorted(found.items())
        if k[3] in SPARK and r.info.get("peak_worker_mib")
    ]
    if memory:
        save_plot(out, "memory", "Largest spark_impl Python worker, peak MiB", memory, "MiB")


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------


def machine_name(run: Run) -> str:
    cpu = run.machine.get("cpu", {})
    brand = str(cpu.get("brand_raw", "cpu")).lower().replace(" ", "-")
    return f"{run.machine.get('node', 'machine')}-{cpu.get('count', '?')}core-{brand}"


def render_report(runs: Sequence[Run], out: Path, commands: str) -> str:
    found = index(runs)
    lines = [
        "# paimon-kit benchmark report\n",
        "Generated by `python -m bench.report` from the pytest-benchmark JSON files in `raw/`. "
        "Workloads are defined in `bench/workloads.py`: W1 = primary-key table, bucket 4, "
        "Parquet/zstd, 5 commits (all keys, then 4 × 20 % updates), merge-on-read of the "
        "result; W2 = append table written in 5 commits and scanned; W3 = full compaction of "
        "W1 written `write-only` (W1-runs: five sorted runs per bucket). `bench/features.py`: "
        "W4 = W1 into a `changelog-producer = lookup` table (the write must also produce the "
        "changelog, counted); W5 = W2 with a bloom-filter index on `v` and small files, and "
        "point queries `v = …`; W6 = merge-read of W1 keys in `partial-update` and "
        "`aggregation` tables (five runs per bucket); W7 = read of W1 in a deletion-vector "
        "table. Every engine's result is checked against a checksum computed independently "
        "with numpy before its time counts; a failed check or error leaves the cell empty and "
        "is listed under failures. Readers read the table spark_impl wrote, except pypaimon "
        "(it cannot read 0.9-layout manifests; it reads the table it wrote itself).\n",
        *section_runs(runs),
        "## Times\n",
    ]
    write_plots(found, out)
    for rows in sizes_of(found):
        lines.extend(section_times(found, rows, out))
        lines.extend(section_floor(found, rows))
        lines.extend(section_native(side_by_side(runs), rows))
    lines.append(image("ratio-to-floor", "ratio to floor", out))
    lines.extend(section_scaling(found))
    lines.append(image("scaling", "scaling", out))
    lines.extend(section_session(found, runs))
    lines.extend(section_memory(found))
    lines.append(image("memory", "memory", out))
    lines.extend(section_targets(found, runs))
    lines.extend(section_failures(runs))
    notes = out / "notes.md"
    if notes.exists():
        lines.append(notes.read_text(encoding="utf-8"))
    lines.extend(["## Regenerating\n", commands])
    return "\n".join(lines)


REGENERATE = """The exact commands (tree export, the 100k and 10M sessions, the profiles) are in
`bench/README.md`; this file is then rebuilt from the raw results with

```sh
python -m bench.report bench/results/<machine>/raw/*.json bench/results/<machine>/raw/*.jsonl \\
  --out bench/results/<machine>
```
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", nargs="+", help="pytest-benchmark JSON files")
    parser.add_argument("--machine", default=None, help="results directory name")
    parser.add_argument("--out", default=None, help="output directory")
    options = parser.parse_args(argv)
    runs = sorted((read_run(Path(p)) for p in options.json), key=lambda r: (r.rows, r.started))
    name = options.machine or machine_name(runs[0])
    out = Path(options.out or f"bench/results/{name}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(render_report(runs, out, REGENERATE), encoding="utf-8")
    print(out / "report.md")


if __name__ == "__main__":
    main()
