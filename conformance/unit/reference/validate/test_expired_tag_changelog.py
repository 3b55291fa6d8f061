"""Issue 18 item 3: a tag whose snapshot expired does not keep that snapshot's changelog.

Verdict: the validator was wrong, not expiration. Java 0.9 expires a tagged snapshot's
changelog with the snapshot: ``ExpireSnapshotsImpl.expireUntil`` deletes the changelog files of
every expired snapshot (``deleteAddedDataFiles(snapshot.changelogManifestList())``, no tag
check) and ``SnapshotDeletion.cleanUnusedManifests`` deletes its changelog manifest list and
manifests, because ``FileDeletionBase.manifestSkippingSet`` puts only the tags' base and delta
manifest lists (and their manifests, index manifest, statistics) in the skipping set
("Changelogs were not checked"); ``TagDeletion`` leaves changelogs alone for the same reason.
The tag file still names ``changelogManifestList`` (``TagManager.createTag`` writes the whole
snapshot JSON) and Java never reads a tag's changelog: a batch read of a tag reads its base and
delta manifests only. So after a coupled expiration a tag's ``changelogManifestList`` may name
a file that is gone, and ``validate --all-snapshots`` must check a tag-only snapshot without
its changelog (``reference.store.usage`` rule 2 says the same for what a tag holds).

The Java test writes, tags and expires with Java 0.9 itself and checks that the tagged
snapshot's changelog manifest list is gone from Java's own table, that Java still reads the tag,
that the reference expires the same files, and that both tables validate clean.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from conformance.java.harness import JavaHarness
from conformance.java.pytest_fixtures import java_harness
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row
from reference.store import expire, metadata
from reference.store.query import TimeTravel
from reference.table import Table
from reference.validate import ValidateOptions, ValidationReport, validate_table

__all__ = ["java_harness"]

IO = LocalFileIO()
ALL = ValidateOptions(all_snapshots=True)
DEEP_ALL = ValidateOptions(all_snapshots=True, deep=True)
FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
)
INPUT_CHANGELOG = {"bucket": "1", "changelog-producer": "input"}
KEEP_TWO = expire.ExpireConfig(
    retain_min=2,
    retain_max=2,
    time_retained_millis=1,
    max_deletes=100,
    changelog_retain_min=2,
    changelog_retain_max=2,
    changelog_time_retained_millis=1,
)


def describe(report: ValidationReport) -> str:
    return "\n".join(f"{v.rule.code} {v.file}: {v.reason}" for v in report.violations)


def rows_of(round_number: int) -> list[Row]:
    return [(k, f"r{round_number}") for k in range(round_number, round_number + 3)]


def write_tagged_history(root: Path) -> Table:
    """Four commits with input changelog; tag ``kept`` on snapshot 2."""
    table = Table.create(IO, str(root), FIELDS, primary_keys=["k"], options=INPUT_CHANGELOG)
    for round_number in range(4):
        table.write_and_commit(rows_of(round_number))
        if round_number == 1:
            table.create_tag("kept")
    return table


def manifest_exists(root: Path, name: str) -> bool:
    return (root / "manifest" / name).exists()


def test_reference_expiration_of_a_tagged_changelog_snapshot_validates_clean(
    tmp_path: Path,
) -> None:
    """Failed before the fix with MANIFEST_LIST_MISSING for the tag's changelog list."""
    table = write_tagged_history(tmp_path / "t")
    tagged = metadata.read_tag(IO, table.root, "kept").snapshot
    assert tagged.changelog_manifest_list is not None
    expired = expire.expire_snapshots(IO, table.root, KEEP_TWO)
    assert tagged.id in expired.expired
    assert not manifest_exists(tmp_path / "t", tagged.changelog_manifest_list)
    assert manifest_exists(tmp_path / "t", tagged.delta_manifest_list)
    report = validate_table(IO, table.root, DEEP_ALL)
    assert report.violations == (), describe(report)


def test_table_expire_with_a_tag_validates_clean(tmp_path: Path) -> None:
    """The same through ``Table.expire`` and the table's retention options."""
    retained = Table.create(
        IO,
        str(tmp_path / "t"),
        FIELDS,
        primary_keys=["k"],
        options={
            **INPUT_CHANGELOG,
            "snapshot.num-retained.min": "1",
            "snapshot.num-retained.max": "1",
        },
    )
    for round_number in range(4):
        retained.write_and_commit(rows_of(round_number))
        if round_number == 0:
            retained.create_tag("first")
    result = retained.expire()
    assert result.expired
    report = validate_table(IO, retained.root, ALL)
    assert report.violations == (), describe(report)
    assert retained.read(TimeTravel(tag="first")).rows


def test_a_missing_changelog_list_of_a_live_snapshot_is_still_reported(tmp_path: Path) -> None:
    """Only a tag is excused: a snapshot that exists must keep its changelog."""
    table = write_tagged_history(tmp_path / "t")
    latest = table.latest_snapshot()
    assert latest is not None and latest.changelog_manifest_list is not None
    (tmp_path / "t" / "manifest" / latest.changelog_manifest_list).unlink()
    report = validate_table(IO, table.root, ALL)
    assert [v.rule.code for v in report.violations] == ["MANIFEST_LIST_MISSING"]


def test_a_tag_that_lost_its_data_manifest_lists_is_still_reported(tmp_path: Path) -> None:
    table = write_tagged_history(tmp_path / "t")
    expire.expire_snapshots(IO, table.root, KEEP_TWO)
    tagged = metadata.read_tag(IO, table.root, "kept").snapshot
    (tmp_path / "t" / "manifest" / tagged.delta_manifest_list).unlink()
    report = validate_table(IO, table.root, ALL)
    assert "TAG_DANGLING" in {v.rule.code for v in report.violations}


# --------------------------------------------------------------------------------------------
# Java 0.9
# --------------------------------------------------------------------------------------------


def list_files(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.name not in ("EARLIEST", "LATEST")
    }


@pytest.mark.java
def test_java_expiration_deletes_a_tagged_snapshots_changelog(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    source = tmp_path / "source"
    java_harness.create_table(source, FIELDS, primary_keys=["k"], options=INPUT_CHANGELOG)
    rng = random.Random(18)
    for round_number in range(5):
        java_harness.write(source, [(rng.randrange(6), f"r{round_number}")], commit=True)
        if round_number == 1:
            java_harness.create_tag(source, "kept")
    tagged = metadata.read_tag(IO, str(source), "kept").snapshot
    changelog_list = tagged.changelog_manifest_list
    assert changelog_list is not None and manifest_exists(source, changelog_list)
    expected_tag_rows = sorted(r for _, r in java_harness.read(source, tag="kept").rows)
    by_java = tmp_path / "java"
    by_us = tmp_path / "us"
    shutil.copytree(source, by_java)
    shutil.copytree(source, by_us)

    expired = java_harness.expire_snapshots(
        by_java, retain_min=2, retain_max=2, time_retained="1 ms"
    )
    assert expired > 0
    assert not (by_java / "snapshot" / f"snapshot-{tagged.id}").exists()
    # Java deleted the tagged snapshot's changelog manifest list, kept its data lists
    assert not manifest_exists(by_java, changelog_list)
    assert manifest_exists(by_java, tagged.base_manifest_list)
    assert manifest_exists(by_java, tagged.delta_manifest_list)
    # Java still reads the tag, and the tag file still names the deleted list
    assert sorted(r for _, r in java_harness.read(by_java, tag="kept").rows) == expected_tag_rows
    assert metadata.read_tag(IO, str(by_java), "kept").snapshot.changelog_manifest_list == (
        changelog_list
    )

    ours = expire.expire_snapshots(IO, str(by_us), KEEP_TWO)
    assert len(ours.expired) == expired
    assert list_files(by_us) == list_files(by_java)
    for root in (by_java, by_us):
        report = validate_table(IO, str(root), DEEP_ALL)
        assert report.violations == (), f"{root.name}:\n{describe(report)}"
