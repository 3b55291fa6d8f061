"""File IO: the few operations a Paimon table needs from a file system or an object store.

Java: ``org.apache.paimon.fs.FileIO``, ``LocalFileIO`` and the S3 file IO of ``paimon-s3``.

Rules stated here:

* Paths are strings in the store's own namespace: a local path (``/tmp/t`` or ``file:/tmp/t``
  or ``file:///tmp/t``) or an object URI (``s3://bucket/key``). Listings return names or paths
  in the same form the caller used for the directory.
* :meth:`FileIO.create_exclusive` is the only commit primitive. It writes a whole file under a
  name only if no file has that name yet, atomically, and says whether it did. A snapshot, a tag
  or a schema file is committed with it; every other file (data, manifests, hints) is written
  with :meth:`FileIO.write_bytes`, which overwrites.
* A missing file is reported as :class:`reference.errors.FileMissingError` (also a
  ``FileNotFoundError``); any other failure of the store as :class:`StorageError` naming the
  path. Neither is ever a :class:`reference.errors.PaimonFormatError`, so a reader can always
  tell "missing" from "corrupt".
* Listing a directory that does not exist gives an empty list (a table without tags simply has
  no ``tag/`` directory); deleting something that does not exist is not an error.
* On S3, a conditional ``PutObject`` (``If-None-Match: *``) makes ``create_exclusive`` atomic.
  Stores that ignore the header would silently let two writers commit the same snapshot, so
  each store is probed once (:meth:`S3FileIO.probe_conditional_put`) and an S3 file IO refuses
  to commit unless the probe passed or an explicit commit lock is configured.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

import pyarrow
from pyarrow import fs as pafs

from reference.errors import (
    FileMissingError,
    InvalidOptionError,
    PaimonKitError,
    StorageError,
    UnsupportedFeature,
)
from reference.spec.units import NANOS_PER_MILLI

LOCAL_SCHEMES = frozenset({"", "file"})
S3_SCHEMES = frozenset({"s3", "s3a", "s3n"})
TEMP_FILE_SUFFIX = ".tmp"
PROBE_FILE_PREFIX = ".paimon-kit-conditional-put-probe-"

HTTP_PRECONDITION_FAILED = 412
HTTP_CONFLICT = 409
HTTP_NOT_IMPLEMENTED = 501
CONDITIONAL_PUT_ATTEMPTS = 5
CONDITIONAL_PUT_RETRY_PAUSE_SECONDS = 0.05
CONDITIONAL_PUT_TIMEOUT_SECONDS = 10


class ConditionalPut(Enum):
    """The outcome of one conditional ``PutObject``."""

    CREATED = "created"
    EXISTS = "exists"
    CONFLICT = "conflict"
    UNKNOWN = "unknown"


DEFAULT_S3_REGION = "us-east-1"

CommitLock = Callable[[str], AbstractContextManager[None]]
"""An explicit commit lock: given the path about to be created, a context manager held while
the name is checked and written. Used on stores without conditional writes (JDBC lock later)."""


@runtime_checkable
class FileIO(Protocol):
    """What the reference needs from a store. Every method raises kit errors naming the path."""

    def read_bytes(self, path: str) -> bytes:
        """The whole file; :class:`FileMissingError` if there is none."""
        ...

    def write_bytes(self, path: str, data: bytes) -> None:
        """Write (or overwrite) a whole file; readers see the old or the new bytes, never a mix."""
        ...

    def create_exclusive(self, path: str, data: bytes) -> bool:
        """Atomically create ``path`` with ``data`` if no file has that name: True if this call
        created it, False if the name already existed. Other failures raise."""
        ...

    def exists(self, path: str) -> bool: ...

    def list_dir(self, path: str) -> list[str]:
        """Names (not paths) of the files and directories directly under ``path``, sorted."""
        ...

    def list_files_recursive(self, path: str) -> list[str]:
        """Full paths of every file below ``path`` at any depth, sorted."""
        ...

    def delete(self, path: str) -> bool:
        """Delete one file; False if there was none."""
        ...

    def delete_dir(self, path: str) -> None:
        """Delete a directory and everything below it; nothing if it does not exist."""
        ...

    def file_size(self, path: str) -> int: ...

    def modification_time_millis(self, path: str) -> int:
        """When the file was last written, in milliseconds since the epoch (consumer
        expiration and orphan cleaning compare it with a cut-off)."""
        ...

    def mkdirs(self, path: str) -> None: ...

    def open_input(self, path: str) -> Any:
        """A seekable ``pyarrow.NativeFile`` over the file, for large data files."""
        ...


# --------------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------------


def split_scheme(uri: str) -> tuple[str, str]:
    """``(scheme, rest)`` of a URI; a plain path has scheme ``""``. Schemes are lower-cased."""
    head, separator, rest = uri.partition(":")
    if separator and head.isalnum() and len(head) > 1 and not head[0].isdigit():
        return head.lower(), rest
    return "", uri


def local_os_path(path: str) -> str:
    """The OS path of a local path or ``file:`` URI (``file:/a``, ``file:///a``)."""
    scheme, rest = split_scheme(path)
    if scheme not in LOCAL_SCHEMES:
        raise UnsupportedFeature(f"not a local path: {path!r}")
    if scheme == "file" and rest.startswith("//"):
        rest = urlsplit(path).path
    return rest


def join_path(directory: str, name: str) -> str:
    """``directory/name`` without doubling the separator."""
    return directory.rstrip("/") + "/" + name


# --------------------------------------------------------------------------------------------
# Local file system
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _os_errors_named(path: str) -> Iterator[None]:
    """Turn OS errors into kit errors that name ``path``."""
    try:
        yield
    except PaimonKitError:
        raise
    except FileNotFoundError as error:
        raise FileMissingError(f"no such file ({error.strerror})", path=path) from error
    except OSError as error:
        raise StorageError(f"{type(error).__name__}: {error}", path=path) from error


def _fsync_directory(directory: str) -> None:
    """Make a new directory entry durable (best effort where directories cannot be opened)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


class LocalFileIO:
    """:class:`FileIO` over the local file system.

    ``create_exclusive`` writes a temporary file in the target's directory, fsyncs it, then
    hard-links it to the target name: ``link`` fails when the name exists, so exactly one of
    several racing writers (threads or processes) wins, and nobody ever sees a partial file.
    """

    def read_bytes(self, path: str) -> bytes:
        with _os_errors_named(path), open(local_os_path(path), "rb") as handle:
            return handle.read()

    def write_bytes(self, path: str, data: bytes) -> None:
        with _os_errors_named(path):
            target = local_os_path(path)
            temp = self._write_temp(target, data)
            try:
                os.replace(temp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise

    def create_exclusive(self, path: str, data: bytes) -> bool:
        with _os_errors_named(path):
            target = local_os_path(path)
            temp = self._write_temp(target, data)
            try:
                os.link(temp, target)
            except FileExistsError:
                return False
            finally:
                os.unlink(temp)
            _fsync_directory(os.path.dirname(target) or ".")
            return True

    def exists(self, path: str) -> bool:
        with _os_errors_named(path):
            return os.path.exists(local_os_path(path))

    def list_dir(self, path: str) -> list[str]:
        with _os_errors_named(path):
            directory = local_os_path(path)
            if not os.path.isdir(directory):
                return []
            return sorted(os.listdir(directory))

    def list_files_recursive(self, path: str) -> list[str]:
        with _os_errors_named(path):
            root = local_os_path(path)
            prefix_length = len(root.rstrip("/"))
            found: list[str] = []
            for directory, _subdirectories, names in os.walk(root):
                relative = directory[prefix_length:].strip("/")
                for name in names:
                    found.append(join_path(path, f"{relative}/{name}" if relative else name))
            return sorted(found)

    def delete(self, path: str) -> bool:
        with _os_errors_named(path):
            try:
                os.unlink(local_os_path(path))
            except FileNotFoundError:
                return False
            return True

    def delete_dir(self, path: str) -> None:
        with _os_errors_named(path):
            directory = local_os_path(path)
            if os.path.isdir(directory):
                shutil.rmtree(directory)

    def file_size(self, path: str) -> int:
        with _os_errors_named(path):
            return os.stat(local_os_path(path)).st_size

    def modification_time_millis(self, path: str) -> int:
        with _os_errors_named(path):
            return os.stat(local_os_path(path)).st_mtime_ns // NANOS_PER_MILLI

    def mkdirs(self, path: str) -> None:
        with _os_errors_named(path):
            os.makedirs(local_os_path(path), exist_ok=True)

    def open_input(self, path: str) -> Any:
        with _os_errors_named(path):
            return pyarrow.OSFile(local_os_path(path), "rb")

    @staticmethod
    def _write_temp(target: str, data: bytes) -> str:
        """Write ``data`` durably to a fresh temporary file beside ``target``; return its path."""
        directory = os.path.dirname(target) or "."
        os.makedirs(directory, exist_ok=True)
        temp = os.path.join(
            directory, f".{os.path.basename(target)}.{uuid.uuid4().hex}{TEMP_FILE_SUFFIX}"
        )
        with open(temp, "xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        return temp


# --------------------------------------------------------------------------------------------
# S3
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class S3Config:
    """How to reach an S3 store. ``endpoint`` is ``http(s)://host:port`` or None for AWS."""

    endpoint: str | None = None
    access_key: str | None = None
    secret_key: str | None = None
    session_token: str | None = None
    region: str = DEFAULT_S3_REGION
    path_style: bool = True

    @property
    def endpoint_scheme(self) -> str:
        return urlsplit(self.endpoint).scheme if self.endpoint else "https"

    @property
    def endpoint_host(self) -> str | None:
        return urlsplit(self.endpoint).netloc if self.endpoint else None

    def __repr__(self) -> str:
        # Never print secrets.
        return (
            f"S3Config(endpoint={self.endpoint!r}, region={self.region!r}, "
            f"path_style={self.path_style}, access_key={'set' if self.access_key else None})"
        )


# Each setting and the option keys that may carry it (Paimon accepts the ``s3.``, ``s3a.`` and
# ``fs.s3a.`` prefixes and both dashed and dotted spellings).
S3_OPTION_KEYS: dict[str, tuple[str, ...]] = {
    "endpoint": ("s3.endpoint", "s3a.endpoint", "fs.s3a.endpoint"),
    "access_key": ("s3.access-key", "s3.access.key", "fs.s3a.access.key", "fs.s3a.access-key"),
    "secret_key": ("s3.secret-key", "s3.secret.key", "fs.s3a.secret.key", "fs.s3a.secret-key"),
    "session_token": ("s3.session-token", "s3.session.token", "fs.s3a.session.token"),
    "region": ("s3.region", "s3.endpoint.region", "fs.s3a.endpoint.region"),
    "path_style": (
        "s3.path-style-access",
        "s3.path.style.access",
        "fs.s3a.path.style.access",
        "fs.s3a.path-style-access",
    ),
    "ssl": ("s3.connection.ssl.enabled", "fs.s3a.connection.ssl.enabled"),
}

S3_ENV_KEYS: dict[str, tuple[str, ...]] = {
    "endpoint": ("PAIMON_KIT_S3_ENDPOINT", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"),
    "access_key": ("AWS_ACCESS_KEY_ID",),
    "secret_key": ("AWS_SECRET_ACCESS_KEY",),
    "session_token": ("AWS_SESSION_TOKEN",),
    "region": ("AWS_REGION", "AWS_DEFAULT_REGION"),
}


def _first_setting(setting: str, options: Mapping[str, str], env: Mapping[str, str]) -> str | None:
    for key in S3_OPTION_KEYS.get(setting, ()):
        if options.get(key):
            return options[key]
    for key in S3_ENV_KEYS.get(setting, ()):
        if env.get(key):
            return env[key]
    return None


def _parse_bool_option(key: str, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered not in ("true", "false"):
        raise InvalidOptionError(key, value, "must be 'true' or 'false'")
    return lowered == "true"


def s3_config_from_options(
    options: Mapping[str, str] | None = None, env: Mapping[str, str] | None = None
) -> S3Config:
    """The S3 settings in table/catalog ``options``, falling back to the environment.

    An endpoint without a scheme uses https unless ``s3.connection.ssl.enabled`` is false.
    Path-style addressing is the default whenever an endpoint is given (local stores need it).
    """
    options = options or {}
    env = os.environ if env is None else env
    endpoint = _first_setting("endpoint", options, env)
    ssl_text = _first_setting("ssl", options, env)
    use_ssl = (
        True if ssl_text is None else _parse_bool_option("s3.connection.ssl.enabled", ssl_text)
    )
    if endpoint and "://" not in endpoint:
        endpoint = ("https://" if use_ssl else "http://") + endpoint
    path_style_text = _first_setting("path_style", options, env)
    path_style = (
        endpoint is not None
        if path_style_text is None
        else _parse_bool_option("s3.path-style-access", path_style_text)
    )
    return S3Config(
        endpoint=endpoint.rstrip("/") if endpoint else None,
        access_key=_first_setting("access_key", options, env),
        secret_key=_first_setting("secret_key", options, env),
        session_token=_first_setting("session_token", options, env),
        region=_first_setting("region", options, env) or DEFAULT_S3_REGION,
        path_style=path_style,
    )


def split_s3_uri(path: str) -> tuple[str, str]:
    """``(bucket, key)`` of ``s3://bucket/key`` (also ``s3a``/``s3n``) or of ``bucket/key``."""
    scheme, rest = split_scheme(path)
    if scheme and scheme not in S3_SCHEMES:
        raise UnsupportedFeature(f"not an S3 path: {path!r}")
    rest = rest[2:] if scheme and rest.startswith("//") else rest.lstrip("/")
    bucket, _, key = rest.partition("/")
    if not bucket:
        raise StorageError("an S3 path needs a bucket", path=path)
    return bucket, key


def is_loopback_endpoint(endpoint: str) -> bool:
    """Whether ``endpoint``'s host is on this machine (``localhost`` or a loopback address)."""
    host = urlsplit(endpoint if "://" in endpoint else "//" + endpoint).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class S3FileIO:
    """:class:`FileIO` over S3: ``pyarrow.pafs.S3FileSystem`` for everything but commits, and a
    boto3 conditional ``PutObject`` for :meth:`create_exclusive`.

    ``commit_lock`` is an explicit lock for stores without conditional writes; without one,
    the first commit in a bucket runs :meth:`probe_conditional_put` there and commits are
    refused with :class:`UnsupportedFeature` unless the store passed.
    """

    def __init__(self, config: S3Config, *, commit_lock: CommitLock | None = None) -> None:
        self.config = config
        self.commit_lock = commit_lock
        self._probe_results: dict[str, bool] = {}
        self._probe_guard = threading.Lock()
        self._filesystem: Any = None
        self._client: Any = None

    # -- clients ---------------------------------------------------------------------------

    @property
    def filesystem(self) -> Any:
        if self._filesystem is None:
            if self.config.endpoint is not None:
                # An explicit endpoint means a non-AWS store: never ask the EC2 metadata service.
                os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
            arguments: dict[str, Any] = {
                "region": self.config.region,
                "force_virtual_addressing": not self.config.path_style,
            }
            if self.config.endpoint is not None:
                arguments["endpoint_override"] = self.config.endpoint_host
                arguments["scheme"] = self.config.endpoint_scheme
            if self.config.access_key and self.config.secret_key:
                arguments["access_key"] = self.config.access_key
                arguments["secret_key"] = self.config.secret_key
                if self.config.session_token:
                    arguments["session_token"] = self.config.session_token
            self._filesystem = pafs.S3FileSystem(**arguments)
        return self._filesystem

    @property
    def client(self) -> Any:
        """The boto3 S3 client (boto3 is only needed for commits)."""
        if self._client is None:
            try:
                import boto3  # noqa: PLC0415 (optional dependency)
                from botocore.config import Config  # noqa: PLC0415
            except ImportError as error:
                raise UnsupportedFeature(
                    "committing to S3 needs boto3 (pip install 'paimon-kit[s3]')"
                ) from error
            addressing = "path" if self.config.path_style else "virtual"
            self._client = boto3.client(
                "s3",
                endpoint_url=self.config.endpoint,
                aws_access_key_id=self.config.access_key,
                aws_secret_access_key=self.config.secret_key,
                aws_session_token=self.config.session_token,
                region_name=self.config.region,
                config=Config(
                    s3={"addressing_style": addressing},
                    # A retried conditional put can see its own first attempt and report 412:
                    # never retry inside botocore, resolve ambiguous outcomes ourselves.
                    retries={"total_max_attempts": 1},
                    connect_timeout=CONDITIONAL_PUT_TIMEOUT_SECONDS,
                    read_timeout=CONDITIONAL_PUT_TIMEOUT_SECONDS,
                ),
            )
        return self._client

    # -- helpers ---------------------------------------------------------------------------

    @staticmethod
    def _fs_path(path: str) -> str:
        bucket, key = split_s3_uri(path)
        return f"{bucket}/{key}".rstrip("/")

    @staticmethod
    def _uri(path: str, fs_path: str) -> str:
        """``fs_path`` (``bucket/key``) in the caller's form: with ``path``'s scheme if any."""
        scheme, _ = split_scheme(path)
        return f"{scheme}://{fs_path}" if scheme else fs_path

    def _info(self, path: str) -> Any:
        with _os_errors_named(path):
            return self.filesystem.get_file_info(self._fs_path(path))

    # -- FileIO ----------------------------------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        with _os_errors_named(path), self.filesystem.open_input_stream(self._fs_path(path)) as f:
            data: bytes = f.read()
            return data

    def write_bytes(self, path: str, data: bytes) -> None:
        with (
            _os_errors_named(path),
            self.filesystem.open_output_stream(self._fs_path(path), metadata={}) as out,
        ):
            out.write(data)

    def exists(self, path: str) -> bool:
        return bool(self._info(path).type != pafs.FileType.NotFound)

    def list_dir(self, path: str) -> list[str]:
        selector = pafs.FileSelector(self._fs_path(path), allow_not_found=True, recursive=False)
        with _os_errors_named(path):
            infos = self.filesystem.get_file_info(selector)
        return sorted(info.base_name for info in infos)

    def list_files_recursive(self, path: str) -> list[str]:
        selector = pafs.FileSelector(self._fs_path(path), allow_not_found=True, recursive=True)
        with _os_errors_named(path):
            infos = self.filesystem.get_file_info(selector)
        return sorted(
            self._uri(path, info.path) for info in infos if info.type == pafs.FileType.File
        )

    def delete(self, path: str) -> bool:
        if self._info(path).type != pafs.FileType.File:
            return False
        with _os_errors_named(path):
            self.filesystem.delete_file(self._fs_path(path))
        return True

    def delete_dir(self, path: str) -> None:
        if self._info(path).type != pafs.FileType.Directory:
            return
        with _os_errors_named(path):
            self.filesystem.delete_dir(self._fs_path(path))

    def file_size(self, path: str) -> int:
        info = self._info(path)
        if info.type != pafs.FileType.File:
            raise FileMissingError("no such file", path=path)
        return int(info.size)

    def modification_time_millis(self, path: str) -> int:
        info = self._info(path)
        if info.type != pafs.FileType.File or info.mtime_ns is None:
            raise FileMissingError("no such file", path=path)
        return int(info.mtime_ns) // NANOS_PER_MILLI

    def mkdirs(self, path: str) -> None:
        """Object stores have no directories: a key's prefixes exist once the key does."""

    def open_input(self, path: str) -> Any:
        with _os_errors_named(path):
            return self.filesystem.open_input_file(self._fs_path(path))

    # -- commits ---------------------------------------------------------------------------

    def put_if_absent(self, path: str, data: bytes) -> bool:
        """One conditional ``PutObject`` (``If-None-Match: *``): True if it created the key,
        False on 412 Precondition Failed. Unlike :meth:`create_exclusive` it skips the probe.

        A 409 (another conditional write of the key in flight) is retried. When the outcome is
        unknown (the response timed out or the connection broke, so the object may or may not
        have been written by this call) the key is read back: it is ours if it holds ``data``.
        """
        for attempt in range(CONDITIONAL_PUT_ATTEMPTS):
            outcome = self._conditional_put_once(path, data)
            if outcome is ConditionalPut.CONFLICT:
                time.sleep(CONDITIONAL_PUT_RETRY_PAUSE_SECONDS * (attempt + 1))
                continue
            if outcome is ConditionalPut.UNKNOWN:
                try:
                    return self.read_bytes(path) == data
                except FileMissingError:
                    continue  # not written after all: try again
            return outcome is ConditionalPut.CREATED
        raise StorageError("conditional put did not settle", path=path)

    def _conditional_put_once(self, path: str, data: bytes) -> ConditionalPut:
        client = self.client  # first: without boto3 this says to install the s3 extra
        from botocore.exceptions import (  # noqa: PLC0415
            BotoCoreError,
            ClientError,
            ConnectionClosedError,
            ReadTimeoutError,
        )

        bucket, key = split_s3_uri(path)
        try:
            client.put_object(Bucket=bucket, Key=key, Body=data, IfNoneMatch="*")
            return ConditionalPut.CREATED
        except ClientError as error:
            status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            code = error.response.get("Error", {}).get("Code")
            if status == HTTP_PRECONDITION_FAILED or code == "PreconditionFailed":
                return ConditionalPut.EXISTS
            if status == HTTP_CONFLICT:
                return ConditionalPut.CONFLICT
            raise StorageError(f"conditional put failed: {code} ({status})", path=path) from error
        except (ReadTimeoutError, ConnectionClosedError):
            return ConditionalPut.UNKNOWN
        except BotoCoreError as error:
            raise StorageError(f"conditional put failed: {error}", path=path) from error

    def probe_conditional_put(self, directory: str) -> bool:
        """Whether the store honours ``If-None-Match: *``: create a probe key under
        ``directory`` twice and check that the second create is refused. The probe key is
        deleted afterwards. A store that rejects the header outright (501) fails the probe."""
        probe = join_path(directory, PROBE_FILE_PREFIX + uuid.uuid4().hex)
        try:
            first = self.put_if_absent(probe, b"1")
            second = self.put_if_absent(probe, b"2") if first else True
        except StorageError:
            return False
        finally:
            with contextlib.suppress(PaimonKitError):
                self.delete(probe)
        return first and not second

    def create_exclusive(self, path: str, data: bytes) -> bool:
        if self.commit_lock is not None:
            with self.commit_lock(path):
                if self.exists(path):
                    return False
                self.write_bytes(path, data)
                return True
        self._require_conditional_put(path)
        return self.put_if_absent(path, data)

    def _require_conditional_put(self, path: str) -> None:
        bucket, key = split_s3_uri(path)
        with self._probe_guard:
            if bucket not in self._probe_results:
                parent = key.rpartition("/")[0]
                self._probe_results[bucket] = self.probe_conditional_put(
                    f"s3://{bucket}/{parent}" if parent else f"s3://{bucket}"
                )
            passed = self._probe_results[bucket]
        if not passed:
            raise UnsupportedFeature(
                "this S3 store does not honour conditional writes (If-None-Match: *), so "
                "commits could overwrite each other; configure a commit lock to write here",
                path=path,
            )


# --------------------------------------------------------------------------------------------
# Resolution
# --------------------------------------------------------------------------------------------


def probe_conditional_put(file_io: FileIO, directory: str) -> bool:
    """Whether ``file_io`` refuses a second exclusive create of the same name in ``directory``.

    For an :class:`S3FileIO` this is its conditional-put probe; for other stores it exercises
    :meth:`FileIO.create_exclusive` directly.
    """
    if isinstance(file_io, S3FileIO):
        return file_io.probe_conditional_put(directory)
    probe = join_path(directory, PROBE_FILE_PREFIX + uuid.uuid4().hex)
    try:
        return file_io.create_exclusive(probe, b"1") and not file_io.create_exclusive(probe, b"2")
    finally:
        file_io.delete(probe)


def file_io_for(
    uri: str,
    options: Mapping[str, str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    commit_lock: CommitLock | None = None,
) -> FileIO:
    """The file IO for ``uri``: local for plain paths and ``file:``, S3 for ``s3://`` (with
    settings from ``options`` then the environment, see :func:`s3_config_from_options`)."""
    scheme, _ = split_scheme(uri)
    if scheme in LOCAL_SCHEMES:
        return LocalFileIO()
    if scheme in S3_SCHEMES:
        return S3FileIO(s3_config_from_options(options, env), commit_lock=commit_lock)
    raise UnsupportedFeature(f"no file IO for scheme '{scheme}' (in {uri!r})")
