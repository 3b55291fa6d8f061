"""Every parser of the kit, fed mutated seed files, raises only the kit's typed errors
(``PaimonKitError`` subclasses) and never hangs.

Default tier: hypothesis draws the mutations (bit flips, truncation, insertion, deletion,
interesting integers, splicing of two seeds, JSON value replacement) for each in-process
parser; the parsers that hand bytes to pyarrow's C++ Parquet reader run in a child process
(:mod:`conformance.fuzz.runner`), where an abort is recorded instead of killing the suite; the
ORC parsers run in process, their C++ reader in the kit's ORC worker (``reference.isolation``).
A few thousand cases in all. ``-m slow`` runs ``scripts/run_fuzz.py`` for longer.
"""

from __future__ import annotations

import io
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.conftest import PROJECT_ROOT, THIRD_PARTY
from conformance.fuzz.mutators import (
    INTERESTING_INTEGERS,
    INTERESTING_JSON,
    BitFlip,
    Delete,
    Insert,
    JsonReplace,
    Overwrite,
    Splice,
    Truncate,
    apply_mutation,
    apply_mutations,
    mutation_lists,
)
from conformance.fuzz.runner import (
    Job,
    TargetResult,
    Verdict,
    format_findings,
    generate_case,
    read_cpu_seconds,
    run_campaign,
    run_case_with_budget,
)
from conformance.fuzz.targets import TARGETS, TARGETS_BY_NAME, FuzzTarget, Seed, collect_seeds
from reference.errors import PaimonFormatError
from reference.spec import types as t
from reference.spec.file_format import FileFormat, arrow_to_rows, decode_data_file
from reference.spec.manifest import ManifestFormat, decode_manifest_list
from reference.spec.snapshot import decode_snapshot

EXAMPLES_PER_PARSER = 100
ISOLATED_CASES_PER_PARSER = 100
CASE_BUDGET_SECONDS = 5.0

IN_PROCESS = [target.name for target in TARGETS if not target.isolated]
ISOLATED = [target.name for target in TARGETS if target.isolated]


@pytest.fixture(scope="module")
def corpus() -> Iterator[dict[str, list[Seed]]]:
    """Seeds per parser: the third-party files (when present) and a reference-written set."""
    with tempfile.TemporaryDirectory(prefix="paimon-kit-fuzz-") as scratch:
        yield collect_seeds(THIRD_PARTY if THIRD_PARTY.is_dir() else None, scratch)


# --------------------------------------------------------------------------------------------
# The mutators (expected values by hand)
# --------------------------------------------------------------------------------------------


def test_bit_flip() -> None:
    assert apply_mutation(b"\x00\x01", BitFlip(0.0, 0), []) == b"\x01\x01"
    assert apply_mutation(b"\x00\x01", BitFlip(0.5, 7), []) == b"\x00\x81"


def test_truncate_insert_delete() -> None:
    assert apply_mutation(b"abcd", Truncate(0.5), []) == b"ab"
    assert apply_mutation(b"abcd", Insert(0.5, b"XY"), []) == b"abXYcd"
    assert apply_mutation(b"abcd", Delete(0.25, 0.0), []) == b"acd"
    assert apply_mutation(b"abcd", Delete(0.25, 0.99), []) == b"a"


def test_overwrite_with_an_interesting_integer() -> None:
    value = INTERESTING_INTEGERS[0]  # one byte: 0
    assert apply_mutation(b"abcd", Overwrite(0.25, 0), []) == b"a" + value + b"cd"


def test_splice_joins_two_seeds() -> None:
    assert apply_mutation(b"abcd", Splice(0.5, 1, 0.5), [b"0000", b"wxyz"]) == b"abyz"


def test_json_replace_and_drop() -> None:
    null = INTERESTING_JSON.index("null")
    assert apply_mutation(b'{"a": 1, "b": [2]}', JsonReplace(0.0, null, False), []) == (
        b'{"a": null, "b": [2]}'
    )
    assert apply_mutation(b'{"a": 1, "b": [2]}', JsonReplace(0.7, null, False), []) == (
        b'{"a": 1, "b": [null]}'
    )
    assert apply_mutation(b'{"a": 1, "b": [2]}', JsonReplace(0.0, null, True), []) == (
        b'{"b": [2]}'
    )
    assert apply_mutation(b"not json", JsonReplace(0.0, null, True), []) == b"not json"


def test_mutations_of_empty_data_do_not_fail() -> None:
    for mutation in (BitFlip(0.5, 1), Truncate(0.5), Delete(0.5, 0.5), Overwrite(0.5, 3)):
        assert apply_mutation(b"", mutation, []) == b""


def test_generated_cases_are_reproducible(corpus: dict[str, list[Seed]]) -> None:
    seeds = corpus["snapshot"]
    first = generate_case("snapshot", seeds, 7, 123)
    again = generate_case("snapshot", seeds, 7, 123)
    assert first == again
    assert apply_mutations(first.seed.data, first.mutations, [s.data for s in seeds]) == first.data


def spin(_data: bytes, _context: object) -> object:
    while True:
        pass


def test_budget_counts_cpu_time_not_waiting() -> None:
    """A case that waits (a starved process on a busy machine) is not a hang; one that
    computes past the budget is."""
    waiting = FuzzTarget("waiting", lambda _data, _context: time.sleep(0.3))
    assert run_case_with_budget(waiting, b"", None, 0.1) == (Verdict.OK, None)
    assert run_case_with_budget(FuzzTarget("spinning", spin), b"", None, 0.1)[0] is Verdict.HANG


def test_cpu_seconds_of_a_process() -> None:
    before = read_cpu_seconds(os.getpid())
    if before is None:
        pytest.skip("no /proc here")
    deadline = time.process_time() + 0.2
    while time.process_time() < deadline:
        pass
    after = read_cpu_seconds(os.getpid())
    assert after is not None and after - before >= 0.1


# --------------------------------------------------------------------------------------------
# Seeds
# --------------------------------------------------------------------------------------------


def test_every_parser_has_seeds(corpus: dict[str, list[Seed]]) -> None:
    assert [target.name for target in TARGETS if not corpus.get(target.name)] == []


@pytest.mark.parametrize("name", IN_PROCESS)
def test_seeds_decode(corpus: dict[str, list[Seed]], name: str) -> None:
    """The seeds are valid, so a rejected mutation is rejected for its mutation."""
    for seed in corpus[name]:
        verdict, detail = run_case_with_budget(TARGETS_BY_NAME[name], seed.data, seed.context)
        assert verdict is Verdict.OK, f"{seed.origin}: {verdict.value} {detail or ''}"


# --------------------------------------------------------------------------------------------
# Fuzzing
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", IN_PROCESS)
def test_parser_raises_only_typed_errors(corpus: dict[str, list[Seed]], name: str) -> None:
    seeds = corpus[name]
    target = TARGETS_BY_NAME[name]
    donors = [seed.data for seed in seeds]

    @settings(
        max_examples=EXAMPLES_PER_PARSER,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.integers(0, len(seeds) - 1), mutation_lists(json_aware=target.json))
    def check(index: int, mutations: list[object]) -> None:
        seed = seeds[index]
        data = apply_mutations(seed.data, mutations, donors)  # type: ignore[arg-type]
        verdict, detail = run_case_with_budget(target, data, seed.context, CASE_BUDGET_SECONDS)
        assert verdict in (Verdict.OK, Verdict.REJECTED), f"{seed.origin}: {detail}"

    check()


@pytest.fixture(scope="module")
def isolated_results(corpus: dict[str, list[Seed]]) -> dict[str, TargetResult]:
    jobs = [Job(name, tuple(corpus[name]), ISOLATED_CASES_PER_PARSER) for name in ISOLATED]
    return {result.target: result for result in run_campaign(jobs, run_seed=0)}


@pytest.mark.parametrize("name", ISOLATED)
def test_pyarrow_backed_parser_in_a_child_process(
    isolated_results: dict[str, TargetResult], name: str
) -> None:
    result = isolated_results[name]
    assert result.cases == ISOLATED_CASES_PER_PARSER
    assert result.counts[Verdict.CRASH] == 0, format_findings([result])
    assert result.counts[Verdict.HANG] == 0, format_findings([result])
    assert result.counts[Verdict.ABORT] == 0, format_findings([result])


@pytest.mark.slow
def test_long_run() -> None:
    """The long tier: ``scripts/run_fuzz.py`` over every parser (it exits non-zero on any
    crash, hang or abort)."""
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location(
        "run_fuzz", PROJECT_ROOT / "scripts" / "run_fuzz.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--cases", "100000"]) == 0


# --------------------------------------------------------------------------------------------
# Regressions found by fuzzing (each fixed in reference/)
# --------------------------------------------------------------------------------------------


def test_overlong_json_integer_is_a_format_error() -> None:
    """Python refuses to convert integers of more than 4300 digits (a ValueError that escaped
    ``reference.spec.json_format.decode_json``)."""
    with pytest.raises(PaimonFormatError):
        decode_snapshot(b'{"version": 3, "id": ' + b"1" * 5000 + b"}")


def encode_plain_parquet(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="none", use_dictionary=False)
    return buffer.getvalue()


def test_data_file_string_that_is_not_utf8_is_a_format_error() -> None:
    """pyarrow's readers do not check string columns; converting one to Python raised a raw
    UnicodeDecodeError out of ``arrow_to_rows``."""
    fields = [t.DataField(0, "s", t.VarCharType(nullable=True, length=t.MAX_LENGTH))]
    data = encode_plain_parquet(pa.table({"s": ["hello-world"]}))
    broken = data.replace(b"hello-world", b"\xff\xfello-world")
    with pytest.raises(PaimonFormatError, match="UTF8"):
        arrow_to_rows(decode_data_file(broken, FileFormat.PARQUET, fields), fields)


def test_parquet_manifest_field_name_that_is_not_utf8_is_a_format_error(
    corpus: dict[str, list[Seed]],
) -> None:
    """Reading the field names of a Parquet manifest's schema raised a raw
    UnicodeDecodeError (they were read outside the decoder's error handling)."""
    seed = next(s for s in corpus["manifest-list.parquet"] if s.origin.startswith("ref:"))
    name = b"_NUM_ADDED_FILES"
    assert seed.data.count(name) >= 1
    broken = seed.data.replace(name, b"\xcd" + name[1:])
    with pytest.raises(PaimonFormatError):
        decode_manifest_list(broken, ManifestFormat.PARQUET)


def test_fuzz_script_counts_cases_per_parser(tmp_path: Path) -> None:
    """``scripts/run_fuzz.py`` shares the cases out and reports each parser."""
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location(
        "run_fuzz", PROJECT_ROOT / "scripts" / "run_fuzz.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seeds = {"hint": [Seed(b"1", "x")], "tag": [Seed(b"{}", "y")], "bsi": []}
    jobs = module.plan_jobs(seeds, ["hint", "tag", "bsi"], 7)
    assert [(job.target, job.cases) for job in jobs] == [("hint", 4), ("tag", 3)]
