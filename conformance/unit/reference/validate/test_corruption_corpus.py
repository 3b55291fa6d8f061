"""The corruption corpus: every broken copy of a valid table is caught, with the expected code
on the expected file, and nothing crashes. The expectations come from how each case was broken
(``conformance/corruption/cases.py``), not from the validator.

The corpus is generated once per session into a temporary directory. Every case is validated on
local disk; a representative subset (one or more per area: metadata, manifests, replay, data
files, ``--deep`` contents, table and file indexes, tags and consumers) is uploaded to the S3
test store and validated there by default, and the whole corpus in the slow tier::

    python -m pytest conformance/unit/reference/validate/test_corruption_corpus.py -m "s3 and slow"
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.corruption import GeneratedCase, generate_corpus
from conformance.corruption.cases import CASES
from conformance.objectstore.pytest_fixtures import S3Store, s3_store
from paimon_kit.validate_cli import main as validate_main
from reference.io import FileIO, LocalFileIO
from reference.validate import RULES, TableReport, ValidateOptions, validate_table

__all__ = ["s3_store"]

CASE_IDS = [case.case_id for case in CASES]
S3_CASES = [
    "schema-truncated",
    "snapshot-gap",
    "hint-latest-stale",
    "manifest-list-size",
    "manifest-truncated-avro",
    "manifest-truncated-orc",
    "delete-of-missing-file",
    "data-file-missing",
    "data-file-wrong-bucket",
    "data-file-truncated",
    "extra-file-missing",
    "keys-unsorted",
    "bucket-key-mismatch",
    "dv-checksum",
    "hash-index-missing-key",
    "file-index-mismatch",
    "tag-dangling",
    "consumer-ahead",
]
MIN_CASES = 40


@pytest.fixture(scope="session")
def corpus(third_party: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, GeneratedCase]:
    out_dir = tmp_path_factory.mktemp("corruption-corpus")
    return {case.case_id: case for case in generate_corpus(out_dir, third_party)}


def run(file_io: FileIO, table: str, case: GeneratedCase) -> TableReport:
    options = ValidateOptions(all_snapshots=True, deep=case.deep)
    return validate_table(file_io, table, options)


def assert_caught(report: TableReport, case: GeneratedCase) -> None:
    found = [(v.code, v.file) for v in report.violations]
    assert report.unreadable is None
    assert (case.code, case.file) in found, (
        f"{case.case_id}: expected {case.code} on {case.file}, got {found}"
    )
    assert "CHECK_FAILED" not in {code for code, _ in found}, found


def generated(corpus: dict[str, GeneratedCase], case_id: str) -> GeneratedCase:
    if case_id not in corpus:
        pytest.skip(f"the source table of {case_id} is absent")
    return corpus[case_id]


def test_the_corpus_is_large_and_varied() -> None:
    assert len(CASES) >= MIN_CASES
    assert len(set(CASE_IDS)) == len(CASE_IDS)
    assert len({case.code for case in CASES}) >= MIN_CASES
    assert set(S3_CASES) <= set(CASE_IDS)
    assert {case.code for case in CASES} <= set(RULES)


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_is_caught_on_local_disk(corpus: dict[str, GeneratedCase], case_id: str) -> None:
    case = generated(corpus, case_id)
    assert_caught(run(LocalFileIO(), str(case.table), case), case)


def test_only_deep_cases_need_deep(corpus: dict[str, GeneratedCase]) -> None:
    """A shallow run misses the deep cases' faults (they are in the rows) but still runs."""
    for case in corpus.values():
        if case.deep:
            report = validate_table(
                LocalFileIO(), str(case.table), ValidateOptions(all_snapshots=True)
            )
            assert report.unreadable is None
            assert (case.code, case.file) not in [(v.code, v.file) for v in report.violations]


def test_case_files_say_what_to_expect(corpus: dict[str, GeneratedCase]) -> None:
    case = generated(corpus, "keys-unsorted")
    document = json.loads((case.table.parent / "case.json").read_text())
    assert document["expected"] == {"code": "KEYS_UNSORTED", "file": case.file}
    assert document["validate_options"] == {"deep": True, "all_snapshots": True}


# --------------------------------------------------------------------------------------------
# On S3
# --------------------------------------------------------------------------------------------


def upload(store: S3Store, directory: Path, prefix: str) -> str:
    client = store.client()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        key = f"{prefix}/{path.relative_to(directory).as_posix()}"
        client.put_object(Bucket=store.bucket, Key=key, Body=path.read_bytes())
    return f"{store.uri}/{prefix}"


def uploaded(store: S3Store, corpus: dict[str, GeneratedCase], case_id: str) -> str:
    """The case's table on the store (uploaded on first use)."""
    case = generated(corpus, case_id)
    prefix = f"corpus/{case_id}/table"
    if not store.file_io().exists(f"{store.uri}/{prefix}/schema"):
        upload(store, case.table, prefix)
    return f"{store.uri}/{prefix}"


def check_on_s3(store: S3Store, corpus: dict[str, GeneratedCase], case_id: str) -> None:
    table = uploaded(store, corpus, case_id)
    assert_caught(run(store.file_io(), table, corpus[case_id]), corpus[case_id])


@pytest.mark.s3
@pytest.mark.parametrize("case_id", S3_CASES)
def test_case_is_caught_on_s3(
    corpus: dict[str, GeneratedCase], s3_store: S3Store, case_id: str
) -> None:
    check_on_s3(s3_store, corpus, case_id)


@pytest.mark.s3
@pytest.mark.slow
@pytest.mark.parametrize("case_id", sorted(set(CASE_IDS) - set(S3_CASES)))
def test_every_other_case_is_caught_on_s3(
    corpus: dict[str, GeneratedCase], s3_store: S3Store, case_id: str
) -> None:
    check_on_s3(s3_store, corpus, case_id)


@pytest.mark.s3
def test_cli_on_s3_reports_the_violation_as_json(
    corpus: dict[str, GeneratedCase],
    s3_store: S3Store,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``paimon-kit validate s3://… --deep --all-snapshots --json``: exit 1, the finding, no
    traceback."""
    table = uploaded(s3_store, corpus, "keys-unsorted")
    monkeypatch.setenv("PAIMON_KIT_S3_ENDPOINT", s3_store.endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3_store.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3_store.secret_key)
    monkeypatch.setenv("AWS_REGION", s3_store.region)
    assert validate_main([table, "--deep", "--all-snapshots", "--json"]) == 1
    captured = capsys.readouterr()
    violations = json.loads(captured.out)["tables"][0]["violations"]
    expected = corpus["keys-unsorted"]
    assert (expected.code, expected.file) in [(v["code"], v["file"]) for v in violations]
    assert "Traceback" not in captured.err
