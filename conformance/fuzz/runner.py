"""Running fuzz cases: one case in this process (with a time budget), or whole campaigns in a
child process watched for hangs and aborts.

A case's verdict:

* ``OK``: the decoder returned (a mutation can leave a file valid);
* ``REJECTED``: it raised a :class:`reference.errors.PaimonKitError` (the only allowed error);
* ``CRASH``: it raised anything else (a finding: the codec must check its input);
* ``HANG``: it used more than the per-case budget of CPU time (a finding);
* ``ABORT``: the process died (a signal, e.g. SIGABRT/SIGSEGV from a C++ reader; a finding).

A campaign (:func:`run_campaign`) runs ``cases`` cases of each of its jobs in a forked
*runner* process, under a spawned *zygote* that imported the kit once. Case ``i`` of a target
is generated from ``random.Random(f"{seed}/{target}/{i}")`` alone, so a runner can be
restarted after the case it died on and any case can be reproduced (:func:`generate_case`).
The zygote watches a shared progress counter: a case that has used more CPU time than the
budget (or blocked for :data:`WALL_BUDGET_FACTOR` times the budget) is a hang (the runner is
killed); a runner killed by a signal is an abort. Either way the campaign goes on from the
next case, in a fresh runner (a fork: milliseconds). Budgets count CPU time, not wall-clock
time, so that a niced run on a busy machine does not report a starved case as a hang.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import random
import signal
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from conformance.fuzz.mutators import Mutation, apply_mutations, draw_mutations
from conformance.fuzz.targets import TARGETS_BY_NAME, FuzzTarget, Seed
from reference.errors import PaimonKitError

DEFAULT_BUDGET_SECONDS = 10.0
WATCH_INTERVAL_SECONDS = 0.05
WALL_BUDGET_FACTOR = 30
"""A case blocked (not computing) this many budgets of wall-clock time is a hang too."""
PROC_STAT_FIRST_FIELD = 3
"""``/proc/<pid>/stat`` numbers its fields from 1; after the command name ``(...)`` comes field
3 (the state). ``utime`` and ``stime`` are fields 14 and 15, in clock ticks (proc(5))."""
PROC_STAT_UTIME = 14
PROC_STAT_STIME = 15
PROGRESS_INTERVAL_SECONDS = 60.0
MAX_FINDINGS_PER_TARGET = 20
WORKER_MEMORY_LIMIT_BYTES = 8 * 1024**3


class Verdict(Enum):
    OK = "ok"
    REJECTED = "rejected"
    CRASH = "crash"
    HANG = "hang"
    ABORT = "abort"


FINDINGS = frozenset({Verdict.CRASH, Verdict.HANG, Verdict.ABORT})


class CaseTimeout(BaseException):
    """The per-case time budget ran out (raised by SIGPROF in the main thread)."""


@contextlib.contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Raise :class:`CaseTimeout` inside the block once the process has used ``seconds`` of
    CPU time in it (main thread only; a no-op elsewhere, where the campaign watchdog covers
    hangs)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_signum: int, _frame: object) -> None:
        raise CaseTimeout(f"over the budget of {seconds} s of CPU time")

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def describe_error(error: BaseException) -> str:
    """The exception and where it was raised (the innermost frame of our code or a library)."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
    text = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
    return f"{type(error).__name__}{where}: {text}"


def run_case(target: FuzzTarget, data: bytes, context: Any) -> tuple[Verdict, str | None]:
    """One case in this process, without a budget."""
    try:
        target.decode(data, context)
    except PaimonKitError:
        return Verdict.REJECTED, None
    except CaseTimeout:
        raise
    except (Exception, RecursionError, MemoryError) as error:
        return Verdict.CRASH, describe_error(error)
    return Verdict.OK, None


def run_case_with_budget(
    target: FuzzTarget, data: bytes, context: Any, budget: float = DEFAULT_BUDGET_SECONDS
) -> tuple[Verdict, str | None]:
    try:
        with time_budget(budget):
            return run_case(target, data, context)
    except CaseTimeout as timeout:
        return Verdict.HANG, str(timeout)


# --------------------------------------------------------------------------------------------
# Generated cases
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    seed: Seed
    mutations: tuple[Mutation, ...]
    data: bytes


def generate_case(target_name: str, seeds: Sequence[Seed], run_seed: int, number: int) -> Case:
    """Case ``number`` of a target: a seed and mutations, from nothing but these arguments."""
    rng = random.Random(f"{run_seed}/{target_name}/{number}")
    seed = seeds[rng.randrange(len(seeds))]
    mutations = tuple(draw_mutations(rng, json_aware=TARGETS_BY_NAME[target_name].json))
    donors = [s.data for s in seeds]
    return Case(seed, mutations, apply_mutations(seed.data, mutations, donors))


# --------------------------------------------------------------------------------------------
# Campaigns
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    target: str
    seeds: tuple[Seed, ...]
    cases: int


@dataclass(frozen=True)
class Finding:
    target: str
    number: int
    verdict: Verdict
    detail: str
    origin: str
    mutations: tuple[Mutation, ...]


@dataclass
class TargetResult:
    target: str
    counts: Counter[Verdict] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def cases(self) -> int:
        return sum(self.counts.values())

    @property
    def crashes(self) -> int:
        return sum(self.counts[v] for v in FINDINGS)


def limit_memory() -> None:
    """Turn an allocation bomb into a MemoryError instead of an OOM kill (best effort)."""
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource  # noqa: PLC0415 (POSIX only)

        resource.setrlimit(
            resource.RLIMIT_AS, (WORKER_MEMORY_LIMIT_BYTES, WORKER_MEMORY_LIMIT_BYTES)
        )


@dataclass
class SharedState:
    """What the processes of a campaign share: the case in progress (job, case number), the
    verdict counts and seconds per job (shared memory, which survives a dying process) and a
    pipe for findings (synchronous writes, so none is lost when the writer dies)."""

    progress: Any
    counts: Any
    seconds: Any
    findings: Any

    def count(self, job_index: int, verdict: Verdict) -> None:
        self.counts[job_index * len(Verdict) + list(Verdict).index(verdict)] += 1


def run_cases(
    jobs: Sequence[Job], run_seed: int, start: tuple[int, int], shared: SharedState
) -> None:
    """Run the cases from ``start`` (job, case) to the end, in this process."""
    for job_index in range(start[0], len(jobs)):
        job = jobs[job_index]
        target = TARGETS_BY_NAME[job.target]
        sent = 0
        for number in range(start[1] if job_index == start[0] else 0, job.cases):
            shared.progress[0], shared.progress[1] = job_index, number
            began = time.perf_counter()
            case = generate_case(job.target, job.seeds, run_seed, number)
            verdict, detail = run_case(target, case.data, case.seed.context)
            shared.count(job_index, verdict)
            shared.seconds[job_index] += time.perf_counter() - began
            if verdict in FINDINGS and sent < MAX_FINDINGS_PER_TARGET:
                sent += 1
                shared.findings.send(
                    Finding(
                        job.target, number, verdict, detail or "", case.seed.origin, case.mutations
                    )
                )
    shared.progress[0], shared.progress[1] = len(jobs), 0


def report_lost_case(
    jobs: Sequence[Job], run_seed: int, shared: SharedState, verdict: Verdict, detail: str
) -> tuple[int, int]:
    """Count and send the case a runner died on (ABORT) or was killed for (HANG); the position
    after it."""
    job_index, number = int(shared.progress[0]), int(shared.progress[1])
    job = jobs[job_index]
    case = generate_case(job.target, job.seeds, run_seed, number)
    shared.count(job_index, verdict)
    shared.findings.send(
        Finding(job.target, number, verdict, detail, case.seed.origin, case.mutations)
    )
    return job_index, number + 1


def read_cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) used so far by process ``pid``, or None where ``/proc`` cannot
    tell (not Linux, or the process is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    utime = int(fields[PROC_STAT_UTIME - PROC_STAT_FIRST_FIELD])
    stime = int(fields[PROC_STAT_STIME - PROC_STAT_FIRST_FIELD])
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def is_over_budget(pid: int, since: tuple[float, float | None], budget: float) -> bool:
    """Whether the case that started at ``since`` (wall clock, CPU time of ``pid``) has used
    more than ``budget`` of CPU time, or waited :data:`WALL_BUDGET_FACTOR` budgets."""
    wall = time.monotonic() - since[0]
    if wall <= budget:
        return False
    cpu_now = read_cpu_seconds(pid)
    if since[1] is None or cpu_now is None:
        return True  # no CPU accounting here: fall back to the wall clock
    return cpu_now - since[1] > budget or wall > WALL_BUDGET_FACTOR * budget


def watch_runner(pid: int, shared: SharedState, budget: float) -> int | None:
    """Wait for the runner ``pid``; its wait status, or None after killing it for a case that
    ran over ``budget``."""
    last: tuple[int, int] | None = None
    since = (time.monotonic(), read_cpu_seconds(pid))
    while True:
        finished, status = os.waitpid(pid, os.WNOHANG)
        if finished:
            return status
        current = (int(shared.progress[0]), int(shared.progress[1]))
        if current != last:
            last, since = current, (time.monotonic(), read_cpu_seconds(pid))
        elif is_over_budget(pid, since, budget):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(WATCH_INTERVAL_SECONDS)


def campaign_worker(jobs: Sequence[Job], run_seed: int, budget: float, shared: SharedState) -> None:
    """The campaign's child process, a *zygote*: it imports the kit once and forks a runner
    for the cases; when a runner dies (abort) or hangs it reports that case and forks the
    next runner from the case after it. It never decodes anything itself, so forking it is
    safe (no library threads are running)."""
    limit_memory()
    position = (0, 0)
    while position[0] < len(jobs):
        shared.progress[0], shared.progress[1] = position
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                run_cases(jobs, run_seed, position, shared)
                code = 0
            finally:
                os._exit(code)
        status = watch_runner(pid, shared, budget)
        if status is None:
            position = report_lost_case(jobs, run_seed, shared, Verdict.HANG, f"over {budget} s")
        elif os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0:
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            detail = f"the process died (exit code {code})"
            position = report_lost_case(jobs, run_seed, shared, Verdict.ABORT, detail)
        else:
            position = (len(jobs), 0)


def drain(findings: Any, outcome: list[TargetResult]) -> None:
    while findings.poll():
        finding = findings.recv()
        result = next(r for r in outcome if r.target == finding.target)
        if len(result.findings) < MAX_FINDINGS_PER_TARGET:
            result.findings.append(finding)


def run_campaign(
    jobs: Sequence[Job],
    run_seed: int = 0,
    budget: float = DEFAULT_BUDGET_SECONDS,
    progress: Callable[[int, int], None] | None = None,
) -> list[TargetResult]:
    """Run every job's cases in a spawned zygote process (:func:`campaign_worker`);
    ``progress(done, total)`` is called about every :data:`PROGRESS_INTERVAL_SECONDS`."""
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    shared = SharedState(
        context.RawArray("q", [0, 0]),
        context.RawArray("q", len(jobs) * len(Verdict)),
        context.RawArray("d", len(jobs)),
        sender,
    )
    outcome = [TargetResult(job.target) for job in jobs]
    child = context.Process(target=campaign_worker, args=(list(jobs), run_seed, budget, shared))
    child.start()
    total = sum(job.cases for job in jobs)
    reported = time.monotonic()
    while child.exitcode is None:
        child.join(WATCH_INTERVAL_SECONDS)
        drain(receiver, outcome)
        if progress is not None and time.monotonic() - reported > PROGRESS_INTERVAL_SECONDS:
            reported = time.monotonic()
            progress(sum(shared.counts), total)
    drain(receiver, outcome)
    if child.exitcode != 0:
        raise RuntimeError(f"the fuzz worker failed (exit code {child.exitcode})")
    verdicts = list(Verdict)
    for job_index, result in enumerate(outcome):
        for number, verdict in enumerate(verdicts):
            result.counts[verdict] += shared.counts[job_index * len(verdicts) + number]
        result.seconds = shared.seconds[job_index]
    return outcome


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------


def format_results(results: Sequence[TargetResult]) -> str:
    """A Markdown table: parser, cases, verdict counts, crashes (untyped + hang + abort)."""
    verdicts = list(Verdict)
    header = ["parser", "cases", *(v.value for v in verdicts), "crashes", "seconds"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in results:
        cells = [r.target, str(r.cases), *(str(r.counts[v]) for v in verdicts)]
        lines.append("| " + " | ".join([*cells, str(r.crashes), f"{r.seconds:.0f}"]) + " |")
    total = sum(r.cases for r in results)
    crashes = sum(r.crashes for r in results)
    lines.append(f"| **total** | {total} |" + " |" * len(verdicts) + f" {crashes} | |")
    return "\n".join(lines)


def format_findings(results: Sequence[TargetResult]) -> str:
    lines = []
    for r in results:
        for f in r.findings:
            lines.append(
                f"- {f.target} case {f.number} ({f.verdict.value}) from {f.origin}: {f.detail}"
            )
    return "\n".join(lines)
