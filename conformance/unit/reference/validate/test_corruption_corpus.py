"""The corruption corpus: every broken copy of a valid table is caught, with the expected code
on the expected file, and nothing crashes. The expectations come from how each case was broken
(``conformance/corruption/cases.py``), not from the validator.

The corpus is generated once per session into a temporary directory. A subset is uploaded to
the S3 test store and validated there too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.corruption import GeneratedCase, generate_corpus
from conformance.corruption.cases import CASES
from conformance.objectstore.pytest_fixtures import S3Store, s3_store
from reference.io import FileIO, LocalFileIO
from reference.validate import TableReport, ValidateOptions, validate_table

__all__ = ["s3_store"]

CASE_IDS = [case.case_id for case in CASES]
S3_CASES = [
    "snapshot-gap",
    "hint-latest-stale",
    "manifest-truncated-avro",
    "data-file-missing",
    "data-file-wrong-bucket",
    "extra-file-missing",
    "dv-checksum",
    "keys-unsorted",
    "tag-dangling",
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


def test_the_corpus_is_large_and_varied() -> None:
    assert len(CASES) >= MIN_CASES
    assert len(set(CASE_IDS)) == len(CASE_IDS)
    assert len({case.code for case in CASES}) >= MIN_CASES


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_is_caught_on_local_disk(corpus: dict[str, GeneratedCase], case_id: str) -> None:
    if case_id not in corpus:
        pytest.skip(f"the source table of {case_id} is absent")
    case = corpus[case_id]
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


def upload(store: S3Store, directory: Path, prefix: str) -> str:
    client = store.client()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        key = f"{prefix}/{path.relative_to(directory).as_posix()}"
        client.put_object(Bucket=store.bucket, Key=key, Body=path.read_bytes())
    return f"{store.uri}/{prefix}"


@pytest.fixture(scope="module")
def s3_corpus(corpus: dict[str, GeneratedCase], s3_store: S3Store) -> Iterator[dict[str, str]]:
    yield {
        case_id: upload(s3_store, corpus[case_id].table, f"corpus/{case_id}/table")
        for case_id in S3_CASES
    }


@pytest.mark.s3
@pytest.mark.parametrize("case_id", S3_CASES)
def test_case_is_caught_on_s3(
    corpus: dict[str, GeneratedCase], s3_corpus: dict[str, str], s3_store: S3Store, case_id: str
) -> None:
    case = corpus[case_id]
    assert_caught(run(s3_store.file_io(), s3_corpus[case_id], case), case)
