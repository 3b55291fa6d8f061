"""Differential: the reference and Java Paimon 0.9 given the same random histories.

For each engine option combination (``workloads.DIFFERENTIAL_COMBINATIONS``: deduplicate +-
ignore-delete / default values, partial-update +- sequence groups (one or two ordering fields,
aggregation in a group) / remove-record-on-delete / default values, aggregation with retracting
and ignore-retract functions and with rbm32 / theta / HLL sketches / nested_update, first-row,
sequence.field of one and two fields, rowkind.field, the changelog producers input / lookup /
full-compaction (+- row-deduplicate, with aggregation, partial-update and first-row), deletion
vectors), hypothesis draws a history of writes (random keys, values and row kinds, one
commit each) and compactions. The reference writes it into one table, Java 0.9 into another.
After every step:

* rows: the latest snapshot of both tables read by both readers is the same (4 reads);
* changelog: ``audit_log`` with ``incremental-between`` over the step's snapshots of each table
  reads the same with both readers, and (where ``Combination.changelog``) the two tables'
  changelogs are the same;
* refusals: an input one engine refuses, the other refuses too (the history ends there).

Left out where Java 0.9 lacks the feature or the reference refuses it (expected_differences.md,
"`sequence.auto-padding`, `rbm64`"). A genuine reference bug found here is a strict xfail
(``KNOWN_REFERENCE_BUGS``).

Known differences are in conformance/expected_differences.md and encoded here by name, nothing
else is tolerated: batch reads compare ``+U`` as ``+I`` (``BATCH_READ_ROW_KINDS``), and each
restriction a combination puts on its histories (``RESTRICTIONS``: row kinds or value domains
left out, ``adds_first``, ``deletes_last``, Java's compaction after each write) must be
justified by one of the entries named in ``Combination.differences``;
``test_every_tolerated_difference_is_documented`` checks each such name is an entry of
expected_differences.md and each named entry justifies a restriction the combination has.

Default run: a fixed seed (``derandomize``) and ``DEFAULT_EXAMPLES`` histories per combination.
``-m slow``: ``SLOW_EXAMPLES`` longer histories per combination; the summary (histories run,
steps, refusals) is printed at the end of the module (``-s``).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conformance.differential import run_java, run_reference
from conformance.differential.compare import as_inserts, first_difference
from conformance.differential.run_java import JavaRunner
from conformance.differential.run_reference import ReferenceRunner
from conformance.differential.workloads import (
    AGGREGATE_NULL_RETRACTION,
    BATCH_READ_ROW_KINDS,
    COMBINATIONS_BY_NAME,
    DEL,
    DIFFERENTIAL_COMBINATIONS,
    DOMAINS,
    FULL_COMPACTION_DELTA_COMMITS,
    JAVA_PARQUET_NESTED_ROWS,
    LISTAGG_BLANK,
    NESTED_UPDATE_NULL_ACCUMULATOR,
    PARTIAL_UPDATE_RETRACTION_FIRST,
    REMOVE_RECORD_ON_DELETE,
    SEQUENCE_FIELD_DELETES,
    Change,
    Combination,
    Step,
    Write,
    histories,
    type_root,
)
from conformance.java.harness import JavaHarness, JavaHarnessError
from reference.errors import PaimonKitError
from reference.spec.data import RowKind

DEFAULT_EXAMPLES = 3
DEFAULT_STEPS = 5
SLOW_EXAMPLES = 25
SLOW_STEPS = 8

PHASES = (
    tuple(Phase)
    if os.environ.get("PAIMON_KIT_DIFF_SHRINK")
    else (Phase.explicit, Phase.reuse, Phase.generate)
)
"""Shrinking a failing history costs minutes of JVM round trips; set PAIMON_KIT_DIFF_SHRINK=1 to
shrink (the failure message always prints the whole history)."""
HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
DEFAULT_SETTINGS = settings(
    max_examples=DEFAULT_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    phases=PHASES,
    suppress_health_check=HEALTH,
)
SLOW_SETTINGS = settings(
    max_examples=SLOW_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    phases=PHASES,
    suppress_health_check=HEALTH,
)

EXPECTED_DIFFERENCES = Path(__file__).resolve().parent.parent / "expected_differences.md"


# --------------------------------------------------------------------------------------------
# Tolerated differences, by name
# --------------------------------------------------------------------------------------------


def documented_differences() -> set[str]:
    """The entry names of expected_differences.md: each bullet's text before its first ": "."""
    text = EXPECTED_DIFFERENCES.read_text(encoding="utf-8")
    return {match.group(1) for match in re.finditer(r"^- (.+?): ", text, re.MULTILINE)}


def narrows_domain(combination: Combination, functions: set[str]) -> bool:
    """A column aggregated by one of ``functions`` whose drawn values leave out some of its
    type's default domain (a null, a blank string, a zero)."""
    for data_field in combination.spec.fields:
        function = combination.spec.option(f"fields.{data_field.name}.aggregate-function")
        if function not in functions or data_field.name not in combination.domains:
            continue
        drawn = combination.domains[data_field.name]
        if any(value not in drawn for value in DOMAINS[type_root(data_field.type)]):
            return True
    return False


@dataclass(frozen=True)
class Restriction:
    """Something a combination's histories avoid, and the differences that may justify it."""

    what: str
    applies: Callable[[Combination], bool]
    justified_by: frozenset[str]


RESTRICTIONS: tuple[Restriction, ...] = (
    Restriction(
        "each key's first record in a write is an add",
        lambda c: c.adds_first,
        frozenset({PARTIAL_UPDATE_RETRACTION_FIRST, AGGREGATE_NULL_RETRACTION}),
    ),
    Restriction(
        "a deleted key is alone in its write and never written again",
        lambda c: c.deletes_last,
        frozenset({REMOVE_RECORD_ON_DELETE}),
    ),
    Restriction(
        "Java fully compacts after each write",
        lambda c: c.java_compacts_after_write,
        frozenset({FULL_COMPACTION_DELTA_COMMITS}),
    ),
    Restriction(
        "no -D with a sequence field",
        lambda c: bool(c.spec.option("sequence.field")) and DEL not in c.kinds,
        frozenset({SEQUENCE_FIELD_DELETES}),
    ),
    Restriction(
        "listagg values without blank strings",
        lambda c: narrows_domain(c, {"listagg"}),
        frozenset({LISTAGG_BLANK}),
    ),
    Restriction(
        "product / collect / merge_map values without nulls",
        lambda c: narrows_domain(c, {"product", "collect", "merge_map"}),
        frozenset({AGGREGATE_NULL_RETRACTION}),
    ),
    Restriction(
        "nested_update arrays limited to unique ids in Java's hash order",
        lambda c: narrows_domain(c, {"nested_update"}),
        frozenset({NESTED_UPDATE_NULL_ACCUMULATOR}),
    ),
    Restriction(
        "a file format other than Parquet",
        lambda c: c.spec.option("file.format", "parquet") != "parquet",
        frozenset({JAVA_PARQUET_NESTED_ROWS}),
    ),
    Restriction("changelogs not compared", lambda c: not c.changelog, frozenset()),
)
"""Every way a combination may differ from an unrestricted history; one with no justifying
difference is never tolerated."""
TOLERATED_EVERYWHERE = (BATCH_READ_ROW_KINDS,)
"""Differences every comparison tolerates (``compare.as_inserts`` on batch reads)."""

STATS: Counter[str] = Counter()
"""Histories, steps and refusals run in this process, per combination (the slow summary)."""


# --------------------------------------------------------------------------------------------
# One history
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tables:
    ours: ReferenceRunner
    theirs: JavaRunner


def apply_both(tables: Tables, step: Step, context: str) -> tuple[int, int] | None:
    """Apply ``step`` to both tables; their latest snapshot ids, or ``None`` when both refused
    it (the history ends). One refusing alone is a difference."""
    ours_error: Exception | None = None
    theirs_error: Exception | None = None
    ours_id = theirs_id = 0
    try:
        ours_id = tables.ours.apply(step)
    except PaimonKitError as error:
        ours_error = error
    try:
        theirs_id = tables.theirs.apply(step)
    except JavaHarnessError as error:
        theirs_error = error
    if ours_error is not None and theirs_error is not None:
        return None
    assert ours_error is None, f"{context}: only the reference refused: {ours_error!r}"
    assert theirs_error is None, f"{context}: only Java refused: {theirs_error}"
    return ours_id, theirs_id


def check_rows(java: JavaHarness, tables: Tables, context: str) -> None:
    """The latest snapshot of both tables, read by both readers, is the same (+U read as +I:
    expected_differences.md, "Batch read row kinds")."""
    ours, theirs = tables.ours.root, tables.theirs.root
    readings: list[tuple[str, list[Change]]] = [
        ("reference reading its table", as_inserts(run_reference.read_rows(ours))),
        ("Java reading the reference's table", as_inserts(run_java.read_rows(java, ours))),
        ("Java reading its table", as_inserts(run_java.read_rows(java, theirs))),
        ("reference reading Java's table", as_inserts(run_reference.read_rows(theirs))),
    ]
    difference = first_difference(readings)
    assert difference is None, f"{context}: rows differ\n{difference}"


def check_changes(
    java: JavaHarness,
    tables: Tables,
    combination: Combination,
    before: tuple[int, int],
    after: tuple[int, int],
    *,
    context: str,
) -> None:
    """``audit_log`` over the step's snapshots: each table's read the same by both readers,
    and the two tables' the same where the combination's changelog is comparable."""
    ours, theirs = tables.ours.root, tables.theirs.root
    ours_changes = run_reference.read_audit_log(ours, before[0], after[0])
    difference = first_difference(
        [
            ("reference reading its changelog", ours_changes),
            (
                "Java reading the reference's changelog",
                run_java.read_audit_log(java, ours, before[0], after[0]),
            ),
        ]
    )
    assert difference is None, f"{context}: audit_log of the reference's table\n{difference}"
    theirs_changes = run_java.read_audit_log(java, theirs, before[1], after[1])
    difference = first_difference(
        [
            ("Java reading its changelog", theirs_changes),
            (
                "reference reading Java's changelog",
                run_reference.read_audit_log(theirs, before[1], after[1]),
            ),
        ]
    )
    assert difference is None, f"{context}: audit_log of Java's table\n{difference}"
    if combination.changelog:
        difference = first_difference(
            [("the reference's changelog", ours_changes), ("Java's changelog", theirs_changes)]
        )
        assert difference is None, f"{context}: changelogs differ\n{difference}"


def describe_history(steps: Sequence[Step]) -> str:
    return "\n".join(f"    {index}: {step}" for index, step in enumerate(steps))


def check_history(java: JavaHarness, combination: Combination, steps: Sequence[Step]) -> None:
    """Write ``steps`` with both engines, comparing after every step."""
    STATS[f"{combination.name}:histories"] += 1
    with tempfile.TemporaryDirectory(prefix="paimon-kit-diff-") as base:
        tables = Tables(
            ReferenceRunner(str(Path(base) / "reference"), combination.spec),
            JavaRunner(
                java,
                str(Path(base) / "java"),
                combination.spec,
                compact_after_write=combination.java_compacts_after_write,
            ),
        )
        before = (0, 0)
        for index, step in enumerate(steps):
            context = f"[{combination.name}] after step {index} of\n{describe_history(steps)}\n"
            after = apply_both(tables, step, context)
            if after is None:
                STATS[f"{combination.name}:refused"] += 1
                return
            STATS[f"{combination.name}:steps"] += 1
            check_rows(java, tables, context)
            check_changes(java, tables, combination, before, after, context=context)
            before = after


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def _print_summary() -> Iterator[None]:
    yield
    if STATS:
        names = sorted({key.split(":")[0] for key in STATS})
        lines = [
            f"  {name}: {STATS[name + ':histories']} histories, {STATS[name + ':steps']} steps,"
            f" {STATS[name + ':refused']} refused by both"
            for name in names
        ]
        total = sum(STATS[name + ":histories"] for name in names)
        print(f"\ndifferential summary ({total} histories, {len(names)} combinations):")
        print("\n".join(lines))


KNOWN_REFERENCE_BUGS: dict[str, str] = {}
"""Combinations whose histories fail on a reference bug (xfail, strict: a fix makes them pass
and the entry must go)."""
NAMES = [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_REFERENCE_BUGS[name]))
    if name in KNOWN_REFERENCE_BUGS
    else name
    for name in (combination.name for combination in DIFFERENTIAL_COMBINATIONS)
]


@pytest.mark.java
@pytest.mark.parametrize("name", NAMES)
@DEFAULT_SETTINGS
@given(data=st.data())
def test_reference_matches_java(java_harness: JavaHarness, name: str, data: st.DataObject) -> None:
    combination = COMBINATIONS_BY_NAME[name]
    steps = data.draw(histories(combination, max_steps=DEFAULT_STEPS), label="history")
    check_history(java_harness, combination, steps)


@pytest.mark.java
@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@SLOW_SETTINGS
@given(data=st.data())
def test_reference_matches_java_many_histories(
    java_harness: JavaHarness, name: str, data: st.DataObject
) -> None:
    combination = COMBINATIONS_BY_NAME[name]
    steps = data.draw(histories(combination, max_steps=SLOW_STEPS, max_rows=10), label="history")
    check_history(java_harness, combination, steps)


def test_every_tolerated_difference_is_documented() -> None:
    """Each name a combination (or every comparison) tolerates is an entry of
    expected_differences.md, each restriction a combination has is justified by one of its
    names, and each of its names justifies one of its restrictions."""
    documented = documented_differences()
    for name in TOLERATED_EVERYWHERE:
        assert name in documented, name
    for combination in DIFFERENTIAL_COMBINATIONS:
        named = set(combination.differences)
        assert named <= documented, (combination.name, named - documented)
        used: set[str] = set()
        for restriction in RESTRICTIONS:
            if restriction.applies(combination):
                justified = named & restriction.justified_by
                assert justified, f"{combination.name}: {restriction.what} is not justified"
                used |= justified
        assert named == used, (combination.name, "names nothing it restricts", named - used)


# --------------------------------------------------------------------------------------------
# Regressions: reference bugs the differential found (each fixed in ``reference/``)
# --------------------------------------------------------------------------------------------


def test_default_values_fill_nulls_of_read_rows(tmp_path: Path) -> None:
    """0.9's ``fields.<f>.default-value``: a null read as the default, in a batch read and in
    ``audit_log`` (what Java 0.9 reads from this very table through the harness:
    ``(0, 0, 7, 'dflt')`` both ways)."""
    combination = COMBINATIONS_BY_NAME["deduplicate-default-value"]
    runner = ReferenceRunner(str(tmp_path / "t"), combination.spec)
    latest = runner.apply(Write(((RowKind.INSERT, (0, 0, None, None)),)))
    expected = [(RowKind.INSERT, (0, 0, 7, "dflt"))]
    assert run_reference.read_rows(runner.root) == expected
    assert run_reference.read_audit_log(runner.root, 0, latest) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # the delta of a deletion-vector / first-row table is at level 0: nothing is read
        ("deduplicate-dv", []),
        ("first-row", []),
        ("changelog-input", None),  # no level filter: the input changelog is read
        # lookup changelog files sit above level 0 and are read
        ("changelog-lookup-first-row", [("+I", (1, 1, "a"))]),
    ],
)
def test_incremental_audit_log_skips_level_zero_like_java_0_9(
    tmp_path: Path, name: str, expected: list[tuple[str, tuple[object, ...]]] | None
) -> None:
    """Java 0.9's ``DataTableBatchScan`` filters level 0 for deletion-vector and first-row
    tables in incremental reads too (``reference.store.incremental`` rule 4); the reference's
    0.9 ``audit_log`` once read their level-0 delta files."""
    combination = COMBINATIONS_BY_NAME[name]
    runner = ReferenceRunner(str(tmp_path / "t"), combination.spec)
    row = (0, 1, 1, "a") if "p" in combination.spec.field_names else (1, 1, "a")
    latest = runner.apply(Write(((RowKind.INSERT, row),)))
    found = [
        (kind.short_string, row)
        for kind, row in run_reference.read_audit_log(runner.root, 0, latest)
    ]
    assert found == (expected if expected is not None else [("+I", row)])
