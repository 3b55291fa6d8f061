"""Decoding untrusted ORC bytes in a child process, so that a crash of the C++ reader becomes a
typed error instead of the end of the process.

Why: pyarrow's ORC reader (Apache ORC C++) crashes (SIGSEGV, abort) on some corrupt files
(:mod:`reference.spec.orc_decoding`). The validator exists to be pointed at files nobody
vouches for, so it must report such a file as corrupt and go on with the next one.

Rules:

1. One long-lived worker process decodes one file at a time: it receives what to read (the
   table or the footer) and the file's bytes, and answers with the table as an Arrow IPC
   stream or the footer, or with the error the reader raised. Workers
   are forked from a ``forkserver`` that has imported pyarrow (a restart takes milliseconds,
   and no thread or lock of this process is inherited); where there is no fork server
   (Windows), they are spawned.
2. The worker starts on first use and is reused; calls are serialized by a lock, so threads
   may share one decoder.
3. If the worker dies while decoding, the file is reported with :class:`PaimonFormatError`
   naming the signal or exit code, and the next call starts a new worker.
4. If the worker does not answer within ``timeout_seconds`` it is killed and the file is
   reported the same way (a reader that loops forever on a garbled stream).
5. An error the reader raised is reported as an undecodable file, with its type and message.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from typing import Final

import pyarrow as pa

from reference.errors import PaimonFormatError
from reference.spec.orc_decoding import (
    IN_PROCESS_DECODER,
    OrcFooter,
    current_orc_decoder,
    using_orc_decoder,
)

DEFAULT_TIMEOUT_SECONDS = 120.0
"""Rule 4's limit for one file (generous: the reference decodes large files slowly)."""

EXIT_GRACE_SECONDS = 5.0
"""How long a worker whose pipe closed may take to exit before it is killed."""

FORKSERVER: Final = "forkserver"
ANSWER_OK = "ok"
ANSWER_ERROR = "error"


class Request(Enum):
    """What the worker is asked to read (rule 1)."""

    TABLE = b"table"
    FOOTER = b"footer"


def encode_ipc_stream(table: pa.Table) -> bytes:
    """An Arrow table as the bytes of an IPC stream."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def decode_ipc_stream(data: bytes) -> pa.Table:
    """The Arrow table of an IPC stream's bytes."""
    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


def compute_answer(request: Request, data: bytes) -> tuple[str, object]:
    """Rules 1 and 5: what the worker sends back for one request."""
    try:
        if request is Request.FOOTER:
            return ANSWER_OK, IN_PROCESS_DECODER.decode_footer(data)
        return ANSWER_OK, encode_ipc_stream(IN_PROCESS_DECODER.decode_table(data))
    except Exception as error:  # rule 5: any reader error is an answer
        return ANSWER_ERROR, f"{type(error).__name__}: {error}"


def serve_orc_requests(connection: Connection) -> None:
    """The worker's loop (rule 1): answer each request until the pipe closes."""
    while True:
        try:
            request = Request(connection.recv_bytes())
            data = connection.recv_bytes()
        except EOFError:
            return
        try:
            connection.send(compute_answer(request, data))
        except OSError:  # the parent stopped listening (rule 4)
            return


def create_worker_context() -> SpawnContext | ForkServerContext:
    """Rule 1's start method: a fork server preloading this module (and so pyarrow's ORC
    reader), else ``spawn``."""
    if FORKSERVER not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context(FORKSERVER)
    context.set_forkserver_preload([__name__])
    return context


def describe_exit(exit_code: int | None) -> str:
    """How the worker ended, for rule 3's message."""
    if exit_code is None:
        return "did not answer in time (it was stopped)"
    if exit_code < 0:
        return f"crashed with signal {signal.Signals(-exit_code).name}"
    return f"exited with code {exit_code}"


class IsolatedOrcDecoder:
    """An ORC decoder (``reference.spec.orc_decoding.OrcDecoder``) running pyarrow's reader in
    a worker process (rules 1-5)."""

    def __init__(self, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        self.timeout_seconds = timeout_seconds
        self._lock = threading.Lock()
        self._process: BaseProcess | None = None
        self._connection: Connection | None = None

    def decode_table(self, data: bytes) -> pa.Table:
        payload = self._request(Request.TABLE, data)
        assert isinstance(payload, bytes)
        return decode_ipc_stream(payload)

    def decode_footer(self, data: bytes) -> OrcFooter:
        payload = self._request(Request.FOOTER, data)
        assert isinstance(payload, OrcFooter)
        return payload

    def _request(self, request: Request, data: bytes) -> object:
        """Rules 2-5: the worker's answer to one request, or the typed error."""
        with self._lock:
            connection = self._start_worker()
            grace: float | None = 0.0  # rule 4: a worker that did not answer is killed at once
            try:
                connection.send_bytes(request.value)
                connection.send_bytes(data)
                if connection.poll(self.timeout_seconds):
                    kind, payload = connection.recv()
                    grace = None
            except (EOFError, OSError):  # rule 3: the worker died; let it finish dying
                grace = EXIT_GRACE_SECONDS
            if grace is not None:
                exit_code = self._stop_worker(grace)
                raise PaimonFormatError(
                    f"orc: the ORC reader (pyarrow, Apache ORC C++) {describe_exit(exit_code)} "
                    "decoding this file: the file is corrupt"
                )
        if kind != ANSWER_OK:
            raise PaimonFormatError(f"orc: undecodable file ({payload})")
        return payload

    def _start_worker(self) -> Connection:
        if self._connection is not None and self._process is not None:
            if self._process.is_alive():
                return self._connection
            self._stop_worker()
        context = create_worker_context()
        parent, child = context.Pipe()
        process = context.Process(
            target=serve_orc_requests, args=(child,), name="paimon-kit-orc", daemon=True
        )
        process.start()
        child.close()
        self._process, self._connection = process, parent
        return parent

    def _stop_worker(self, grace_seconds: float = 0.0) -> int | None:
        """Stop the worker, after ``grace_seconds`` to end by itself, and return its exit code
        (``None``: it was still running)."""
        process, connection = self._process, self._connection
        self._process, self._connection = None, None
        exit_code = None
        if process is not None:
            process.join(grace_seconds)
            exit_code = process.exitcode
            if exit_code is None:
                process.kill()
            process.join()
        if connection is not None:
            connection.close()
        return exit_code

    def close(self) -> None:
        """Stop the worker; a later call starts a new one."""
        with self._lock:
            self._stop_worker()


@contextmanager
def isolating_orc_decoding(
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
) -> Iterator[IsolatedOrcDecoder]:
    """Within the block, every ORC file the reference decodes goes through a worker process
    (the enclosing block's worker, when blocks nest)."""
    current = current_orc_decoder()
    if isinstance(current, IsolatedOrcDecoder):
        yield current
        return
    decoder = IsolatedOrcDecoder(timeout_seconds)
    try:
        with using_orc_decoder(decoder):
            yield decoder
    finally:
        decoder.close()
