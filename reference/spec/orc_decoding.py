"""Where the bytes of an ORC file (data file or manifest) are turned into an Arrow table.

Spec: ``docs/concepts/spec/fileformat.md`` (ORC is one of the formats a data file or a
manifest may use). Java: ``org.apache.paimon.format.orc.OrcReaderFactory``.

The kit decodes ORC with pyarrow's reader (Apache ORC C++), which does not survive every
corrupt file: some garbled footers and stripes crash the process instead of raising. The
codecs of :mod:`reference.spec.file_format` and :mod:`reference.spec.manifest` therefore never
call pyarrow's ORC reader themselves; they call :func:`decode_orc_table`, which hands the bytes
to the *current ORC decoder*:

1. by default, :func:`decode_orc_in_process` (fast; a crash of the C++ reader takes the process
   down with it);
2. inside :func:`using_orc_decoder`, the decoder given, e.g. ``reference.isolation``'s decoder
   that runs the C++ reader in a child process and turns a crash into a
   :class:`~reference.errors.PaimonFormatError` (what the validator and the CLI use for files
   they do not trust).

A decoder takes the whole file and returns all its columns; any exception it raises is
reported by the calling codec as an undecodable file.
"""

from __future__ import annotations

import contextvars
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pyarrow as pa
import pyarrow.orc as pa_orc

OrcDecoder = Callable[[bytes], pa.Table]
"""The bytes of a whole ORC file -> every column of it, as an Arrow table."""


def decode_orc_in_process(data: bytes) -> pa.Table:
    """Decode with pyarrow's ORC reader in this process."""
    return pa_orc.ORCFile(io.BytesIO(data)).read()


_CURRENT_DECODER: contextvars.ContextVar[OrcDecoder] = contextvars.ContextVar(
    "orc_decoder", default=decode_orc_in_process
)


def current_orc_decoder() -> OrcDecoder:
    """The decoder :func:`decode_orc_table` uses here and now."""
    return _CURRENT_DECODER.get()


def decode_orc_table(data: bytes) -> pa.Table:
    """Decode ``data`` with the current ORC decoder (rule 1 or 2 of the module docstring)."""
    return _CURRENT_DECODER.get()(data)


@contextmanager
def using_orc_decoder(decoder: OrcDecoder) -> Iterator[None]:
    """Within the block, ORC bytes are decoded by ``decoder`` (a context variable: threads
    started inside see the default unless they run in a copy of this context)."""
    token = _CURRENT_DECODER.set(decoder)
    try:
        yield
    finally:
        _CURRENT_DECODER.reset(token)
