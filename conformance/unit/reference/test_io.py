"""File IO: local semantics (including racing exclusive creates between threads and processes),
option resolution, and the same contract on an S3 server (SeaweedFS / MinIO / env endpoint)."""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from botocore.exceptions import ClientError

from conformance.objectstore.pytest_fixtures import S3Store
from reference import io as fio
from reference.errors import (
    FileMissingError,
    InvalidOptionError,
    PaimonKitError,
    StorageError,
    UnsupportedFeature,
)

RACERS = 8


def _race_threads(attempt: Callable[[int], bool]) -> dict[int, bool]:
    """Run ``attempt(racer)`` for RACERS threads released at the same moment."""
    barrier = threading.Barrier(RACERS)
    results: dict[int, bool] = {}

    def race(racer: int) -> None:
        barrier.wait()
        results[racer] = attempt(racer)

    threads = [threading.Thread(target=race, args=(i,)) for i in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


# --------------------------------------------------------------------------------------------
# Local
# --------------------------------------------------------------------------------------------


@pytest.fixture
def local() -> fio.LocalFileIO:
    return fio.LocalFileIO()


def test_write_read_overwrite_creates_parents(local: fio.LocalFileIO, tmp_path: Path) -> None:
    path = str(tmp_path / "a" / "b" / "file")
    local.write_bytes(path, b"one")
    local.write_bytes(path, b"two")
    assert local.read_bytes(path) == b"two"
    assert local.file_size(path) == 3
    assert sorted(os.listdir(tmp_path / "a" / "b")) == ["file"]  # no temp file left behind


def test_missing_file_is_a_kit_error_and_a_file_not_found(
    local: fio.LocalFileIO, tmp_path: Path
) -> None:
    path = str(tmp_path / "nope")
    for call in (local.read_bytes, local.file_size, local.open_input):
        with pytest.raises(FileMissingError) as caught:
            call(path)
        assert isinstance(caught.value, FileNotFoundError)
        assert isinstance(caught.value, PaimonKitError)
        assert caught.value.path == path
        assert path in str(caught.value)


def test_other_os_errors_are_storage_errors(local: fio.LocalFileIO, tmp_path: Path) -> None:
    with pytest.raises(StorageError) as caught:
        local.read_bytes(str(tmp_path))  # a directory
    assert not isinstance(caught.value, FileMissingError)
    assert caught.value.path == str(tmp_path)


def test_create_exclusive_only_once(local: fio.LocalFileIO, tmp_path: Path) -> None:
    path = str(tmp_path / "snapshot" / "snapshot-1")
    assert local.create_exclusive(path, b"first") is True
    assert local.create_exclusive(path, b"second") is False
    assert local.read_bytes(path) == b"first"
    assert os.listdir(tmp_path / "snapshot") == ["snapshot-1"]


def test_create_exclusive_races_between_threads(local: fio.LocalFileIO, tmp_path: Path) -> None:
    for round_number in range(5):
        path = str(tmp_path / f"snapshot-{round_number}")
        results = _race_threads(
            lambda racer, target=path: local.create_exclusive(target, f"racer {racer}".encode())
        )
        winners = [racer for racer, won in results.items() if won]
        assert len(winners) == 1
        assert local.read_bytes(path) == f"racer {winners[0]}".encode()
    assert not [n for n in os.listdir(tmp_path) if n.endswith(fio.TEMP_FILE_SUFFIX)]


def _race_in_process(path: str, racer: int, start: object, results: object) -> None:
    start.wait()  # type: ignore[attr-defined]
    won = fio.LocalFileIO().create_exclusive(path, f"process {racer}".encode())
    results.put((racer, won))  # type: ignore[attr-defined]


def test_create_exclusive_races_between_processes(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    path = str(tmp_path / "tag-t1")
    start, results = context.Event(), context.Queue()
    processes = [
        context.Process(target=_race_in_process, args=(path, i, start, results)) for i in range(4)
    ]
    for process in processes:
        process.start()
    start.set()
    outcomes = dict(results.get(timeout=30) for _ in processes)
    for process in processes:
        process.join(timeout=30)
    winners = [racer for racer, won in outcomes.items() if won]
    assert len(winners) == 1
    assert fio.LocalFileIO().read_bytes(path) == f"process {winners[0]}".encode()


def test_listing_exists_delete(local: fio.LocalFileIO, tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    local.write_bytes(root + "/snapshot/snapshot-2", b"x")
    local.write_bytes(root + "/snapshot/LATEST", b"2")
    local.write_bytes(root + "/dt=1/bucket-0/data-a-0.parquet", b"d")
    local.mkdirs(root + "/tag")
    assert local.list_dir(root) == ["dt=1", "snapshot", "tag"]
    assert local.list_dir(root + "/snapshot") == ["LATEST", "snapshot-2"]
    assert local.list_dir(root + "/nope") == []
    assert local.list_files_recursive(root) == [
        root + "/dt=1/bucket-0/data-a-0.parquet",
        root + "/snapshot/LATEST",
        root + "/snapshot/snapshot-2",
    ]
    assert local.exists(root + "/tag") and not local.exists(root + "/nope")
    assert local.delete(root + "/snapshot/LATEST") is True
    assert local.delete(root + "/snapshot/LATEST") is False
    local.delete_dir(root + "/dt=1")
    local.delete_dir(root + "/dt=1")
    assert local.list_dir(root) == ["snapshot", "tag"]


def test_file_uris_are_local_paths(local: fio.LocalFileIO, tmp_path: Path) -> None:
    local.write_bytes(f"file://{tmp_path}/x", b"1")
    assert local.read_bytes(f"file:{tmp_path}/x") == b"1"
    assert local.read_bytes(str(tmp_path / "x")) == b"1"
    assert local.list_files_recursive(f"file://{tmp_path}") == [f"file://{tmp_path}/x"]


def test_open_input_is_readable_by_pyarrow(local: fio.LocalFileIO, tmp_path: Path) -> None:
    path = str(tmp_path / "f.parquet")
    pq.write_table(pa.table({"a": [1, 2, 3]}), path)
    with local.open_input(path) as handle:
        assert pq.read_table(handle).column("a").to_pylist() == [1, 2, 3]


def test_probe_on_local_store(local: fio.LocalFileIO, tmp_path: Path) -> None:
    assert fio.probe_conditional_put(local, str(tmp_path)) is True
    assert os.listdir(tmp_path) == []


# --------------------------------------------------------------------------------------------
# Resolution and options
# --------------------------------------------------------------------------------------------


def test_file_io_for_schemes() -> None:
    assert isinstance(fio.file_io_for("/tmp/wh"), fio.LocalFileIO)
    assert isinstance(fio.file_io_for("file:///tmp/wh"), fio.LocalFileIO)
    assert isinstance(fio.file_io_for("s3://bucket/wh", env={}), fio.S3FileIO)
    assert isinstance(fio.file_io_for("s3a://bucket/wh", env={}), fio.S3FileIO)
    with pytest.raises(UnsupportedFeature):
        fio.file_io_for("hdfs://namenode/wh")


def test_s3_options_win_over_env() -> None:
    options = {
        "s3.endpoint": "http://127.0.0.1:9000",
        "s3.access-key": "ak",
        "s3.secret-key": "sk",
        "s3.region": "eu-west-1",
        "s3.path-style-access": "true",
    }
    env = {"AWS_ACCESS_KEY_ID": "env-ak", "PAIMON_KIT_S3_ENDPOINT": "http://127.0.0.1:1"}
    config = fio.s3_config_from_options(options, env)
    assert config.endpoint == "http://127.0.0.1:9000"
    assert (config.endpoint_scheme, config.endpoint_host) == ("http", "127.0.0.1:9000")
    assert (config.access_key, config.secret_key, config.region) == ("ak", "sk", "eu-west-1")
    assert config.path_style is True
    assert "sk" not in repr(config)


def test_s3_settings_from_env_and_java_spellings() -> None:
    env = {
        "PAIMON_KIT_S3_ENDPOINT": "127.0.0.1:8333",
        "AWS_ACCESS_KEY_ID": "a",
        "AWS_SECRET_ACCESS_KEY": "s",
        "AWS_REGION": "ap-south-1",
    }
    config = fio.s3_config_from_options({"s3.connection.ssl.enabled": "false"}, env)
    assert config.endpoint == "http://127.0.0.1:8333"
    assert (config.access_key, config.secret_key, config.region) == ("a", "s", "ap-south-1")
    dotted = fio.s3_config_from_options(
        {"s3.endpoint": "https://minio:9000", "s3.path.style.access": "false"}, {}
    )
    assert dotted.endpoint_scheme == "https" and dotted.path_style is False
    assert fio.s3_config_from_options({}, {}).endpoint is None
    with pytest.raises(InvalidOptionError):
        fio.s3_config_from_options({"s3.path-style-access": "yes"}, {})


def test_split_s3_uri() -> None:
    assert fio.split_s3_uri("s3://bucket/a/b") == ("bucket", "a/b")
    assert fio.split_s3_uri("s3a://bucket") == ("bucket", "")
    assert fio.split_s3_uri("bucket/key") == ("bucket", "key")
    with pytest.raises(StorageError):
        fio.split_s3_uri("s3:///key")


def test_loopback_detection() -> None:
    assert fio.is_loopback_endpoint("http://127.0.0.1:9000")
    assert fio.is_loopback_endpoint("localhost:9000")
    assert fio.is_loopback_endpoint("http://[::1]:9000")
    assert not fio.is_loopback_endpoint("http://10.0.0.5:9000")
    assert not fio.is_loopback_endpoint("https://s3.amazonaws.com")


# --------------------------------------------------------------------------------------------
# S3
# --------------------------------------------------------------------------------------------


def _prefix(store: S3Store, name: str) -> str:
    return f"{store.uri}/{name}"


@pytest.mark.s3
def test_s3_read_write_list_delete(s3_store: S3Store) -> None:
    s3 = s3_store.file_io()
    root = _prefix(s3_store, "rw")
    s3.write_bytes(root + "/snapshot/snapshot-1", b"one")
    s3.write_bytes(root + "/snapshot/snapshot-1", b"uno")
    s3.write_bytes(root + "/dt=1/bucket-0/data-x-0.parquet", b"data")
    assert s3.read_bytes(root + "/snapshot/snapshot-1") == b"uno"
    assert s3.file_size(root + "/dt=1/bucket-0/data-x-0.parquet") == 4
    assert s3.list_dir(root) == ["dt=1", "snapshot"]
    assert s3.list_dir(root + "/nope") == []
    assert s3.list_files_recursive(root) == [
        root + "/dt=1/bucket-0/data-x-0.parquet",
        root + "/snapshot/snapshot-1",
    ]
    assert s3.exists(root + "/snapshot/snapshot-1") and not s3.exists(root + "/snapshot/x")
    with s3.open_input(root + "/dt=1/bucket-0/data-x-0.parquet") as handle:
        assert handle.read() == b"data"
    assert s3.delete(root + "/snapshot/snapshot-1") is True
    assert s3.delete(root + "/snapshot/snapshot-1") is False
    s3.delete_dir(root + "/dt=1")
    assert s3.list_files_recursive(root) == []
    with pytest.raises(FileMissingError):
        s3.read_bytes(root + "/snapshot/snapshot-1")


@pytest.mark.s3
def test_s3_second_conditional_put_gets_412(s3_store: S3Store) -> None:
    client = s3_store.client()
    key = "raw/snapshot-1"
    client.put_object(Bucket=s3_store.bucket, Key=key, Body=b"1", IfNoneMatch="*")
    with pytest.raises(ClientError) as caught:
        client.put_object(Bucket=s3_store.bucket, Key=key, Body=b"2", IfNoneMatch="*")
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412


@pytest.mark.s3
def test_s3_create_exclusive_and_probe(s3_store: S3Store) -> None:
    s3 = s3_store.file_io()
    directory = _prefix(s3_store, "probe")
    assert s3.probe_conditional_put(directory) is True
    assert s3.list_files_recursive(directory) == []
    path = directory + "/snapshot/snapshot-1"
    assert s3.create_exclusive(path, b"first") is True
    assert s3.create_exclusive(path, b"second") is False
    assert s3.read_bytes(path) == b"first"
    assert fio.probe_conditional_put(s3, directory) is True


@pytest.mark.s3
def test_s3_create_exclusive_races_between_threads(s3_store: S3Store) -> None:
    s3 = s3_store.file_io()
    path = _prefix(s3_store, "race/snapshot-7")
    s3.create_exclusive(_prefix(s3_store, "race/warm-up"), b"")  # probe once, outside the race
    results = _race_threads(lambda racer: s3.create_exclusive(path, f"racer {racer}".encode()))
    winners = [racer for racer, won in results.items() if won]
    assert len(winners) == 1
    assert s3.read_bytes(path) == f"racer {winners[0]}".encode()


@pytest.mark.s3
def test_s3_refuses_commits_when_the_store_ignores_conditions(
    s3_store: S3Store,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s3 = s3_store.file_io()
    monkeypatch.setattr(s3, "put_if_absent", lambda path, data: True)  # "always created"
    with pytest.raises(UnsupportedFeature) as caught:
        s3.create_exclusive(_prefix(s3_store, "ignored/snapshot-1"), b"x")
    assert "conditional" in str(caught.value)


@pytest.mark.s3
def test_s3_commit_lock_replaces_the_probe(s3_store: S3Store) -> None:
    held: list[str] = []

    @contextmanager
    def lock(path: str) -> Iterator[None]:
        held.append(path)
        yield

    s3 = fio.S3FileIO(s3_store.config(), commit_lock=lock)
    path = _prefix(s3_store, "locked/snapshot-1")
    assert s3.create_exclusive(path, b"a") is True
    assert s3.create_exclusive(path, b"b") is False
    assert held == [path, path]
    assert s3.read_bytes(path) == b"a"


@pytest.mark.s3
def test_file_io_for_reaches_the_store(s3_store: S3Store) -> None:
    s3 = fio.file_io_for(s3_store.uri + "/wh", s3_store.options, env={})
    s3.write_bytes(s3_store.uri + "/wh/x", b"hello")
    assert fio.S3FileIO(s3_store.config()).read_bytes(s3_store.uri + "/wh/x") == b"hello"


@pytest.mark.s3
def test_s3_bad_credentials_are_storage_errors(s3_store: S3Store) -> None:
    s3 = s3_store.file_io()
    s3.write_bytes(_prefix(s3_store, "auth/x"), b"1")
    wrong = fio.S3Config(
        endpoint=s3_store.endpoint, access_key=s3_store.access_key, secret_key="wrong"
    )
    with pytest.raises(StorageError) as caught:
        fio.S3FileIO(wrong).read_bytes(_prefix(s3_store, "auth/x"))
    assert not isinstance(caught.value, FileMissingError)
