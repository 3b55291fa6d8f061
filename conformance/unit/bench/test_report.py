"""bench.report: runs at another bucket count stay out of the time tables and decide the
split-size memory target."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import report


def run(rows: int, buckets: int, peaks: dict[str, float]) -> report.Run:
    results = tuple(
        report.Result(
            "W1",
            operation,
            "spark-local2",
            rows,
            1.0,
            1,
            {"buckets": buckets, "peak_worker_mib": peak},
        )
        for operation, peak in peaks.items()
    )
    machine: dict[str, Any] = {}
    return report.Run(f"{rows}-{buckets}.json", rows, machine, {}, "", results, (), ())


def test_other_bucket_counts_are_not_timed() -> None:
    found = report.index([run(10_000_000, 4, {"write": 900}), run(10_000_000, 40, {"write": 300})])
    assert found[(10_000_000, "W1", "write", "spark-local2")].info["buckets"] == 4


def test_split_memory_target_met_and_missed() -> None:
    bounded = [
        run(1_000_000, 4, {"write": 300, "merge-read": 250}),
        run(10_000_000, 40, {"write": 340, "merge-read": 260}),
    ]
    target = report.split_memory_target(bounded)
    assert target is not None and target.status == "met"
    assert "250k-row splits" in target.detail
    growing = [run(1_000_000, 4, {"write": 300}), run(10_000_000, 40, {"write": 1000})]
    missed = report.split_memory_target(growing)
    assert missed is not None and missed.status == "missed"


def test_split_memory_target_needs_two_sizes() -> None:
    assert report.split_memory_target([run(10_000_000, 4, {"write": 900})]) is None


def test_local1_pinned_to_one_core_is_its_own_engine() -> None:
    assert report.engine_of({"engine": "spark-local1", "cpu_affinity": 1}) == "spark-1core"
    assert report.engine_of({"engine": "spark-local1", "cpu_affinity": 2}) == "spark-local1"
    assert report.engine_of({"engine": "spark-local2", "cpu_affinity": 1}) == "spark-local2"


def test_loaded_results_are_marked() -> None:
    info = {"cpu_count": 2, "load_before": [12.0, 9.0, 8.0], "load_after": [2.0, 2.0, 2.0]}
    loaded = report.Result("W1", "write", "pypaimon", 10, 1.0, 1, info)
    idle = report.Result("W1", "write", "floor", 10, 1.0, 1, {**info, "load_before": [2.5, 2, 2]})
    found = {(10, "W1", "write", "pypaimon"): loaded, (10, "W1", "write", "floor"): idle}
    assert report.time_cell(found, 10, ("W1", "write"), "pypaimon").endswith(report.LOADED_MARK)
    assert report.time_cell(found, 10, ("W1", "write"), "floor") == "1.00"


def test_plots_are_png_with_matplotlib_and_svg_always(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    bars = [("W1 write · floor", "floor", 0.5), ("W1 write · spark-local2", "spark-local2", 30.0)]
    report.save_plot(tmp_path, "times", "title", bars, "s")
    assert (tmp_path / "times.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "times.svg").read_text(encoding="utf-8").startswith("<svg")
    assert report.image("times", "t", tmp_path) == "![t](times.png)\n"
    assert report.image("absent", "t", tmp_path) == ""


def timed_run(name: str, times: dict[tuple[str, str, str], float]) -> report.Run:
    """A 10M run with the given (workload, operation, engine) -> seconds."""
    results = tuple(
        report.Result(w, op, engine, 10_000_000, seconds, 1, {"buckets": 4})
        for (w, op, engine), seconds in times.items()
    )
    return report.Run(name, 10_000_000, {}, {}, "", results, (), ())


def test_native_ratio_targets_use_one_run_side_by_side() -> None:
    earlier = timed_run("old.json", {("W2", "write", "spark-local2"): 1.0})
    native = timed_run(
        "native.json",
        {
            ("W2", "write", "spark-local2"): 11.0,
            ("W2", "write", "spark-native"): 10.0,
            ("W2", "scan", "spark-local2"): 13.0,
            ("W2", "scan", "spark-native"): 10.0,
        },
    )
    runs = [native, earlier]  # the earlier run, read last, must not replace the native run's
    targets = {t.name: t for t in report.evaluate_native_targets(report.index(runs), runs)}
    assert targets["W2 write ≤ 1.2× spark-native"].status == "met"
    assert "1.10×" in targets["W2 write ≤ 1.2× spark-native"].detail
    assert targets["W2 scan ≤ 1.2× spark-native"].status == "missed"
    assert targets["W7 read ≤ 1.2× spark-native"].status == "not measured"
