"""Where the bytes of an ORC file (data file or manifest) are turned into an Arrow table, or
into what its footer says.

Spec: ``docs/concepts/spec/fileformat.md`` (ORC is one of the formats a data file or a
manifest may use). Java: ``org.apache.paimon.format.orc.OrcReaderFactory``.

The kit decodes ORC with pyarrow's reader (Apache ORC C++), which does not survive every
corrupt file: some garbled footers and stripes crash the process instead of raising. The
codecs of :mod:`reference.spec.file_format` and :mod:`reference.spec.manifest` and the
validator therefore never call pyarrow's ORC reader themselves; they call
:func:`decode_orc_table` or :func:`decode_orc_footer`, which hand the bytes to the *current
ORC decoder*:

1. by default, :data:`IN_PROCESS_DECODER` (fast; a crash of the C++ reader takes the process
   down with it);
2. inside :func:`using_orc_decoder`, the decoder given, e.g. ``reference.isolation``'s decoder
   that runs the C++ reader in a child process and turns a crash into a
   :class:`~reference.errors.PaimonFormatError` (what the validator and the CLI use for files
   they do not trust).

A decoder takes the whole file. ``decode_table`` returns all its columns; ``decode_footer``
reads only the file's tail (column names and row count). Any exception it raises is reported
by the caller as an undecodable file.
"""

from __future__ import annotations

import contextvars
import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

import pyarrow as pa
import pyarrow.orc as pa_orc


@dataclass(frozen=True)
class OrcFooter:
    """What an ORC file's footer says: its top-level column names and its row count."""

    columns: tuple[str, ...]
    row_count: int


class OrcDecoder(Protocol):
    """Turns the bytes of a whole ORC file into its table or its footer."""

    def decode_table(self, data: bytes) -> pa.Table: ...

    def decode_footer(self, data: bytes) -> OrcFooter: ...


class InProcessOrcDecoder:
    """Rule 1: pyarrow's ORC reader in this process."""

    def decode_table(self, data: bytes) -> pa.Table:
        return pa_orc.ORCFile(io.BytesIO(data)).read()

    def decode_footer(self, data: bytes) -> OrcFooter:
        orc_file = pa_orc.ORCFile(io.BytesIO(data))
        return OrcFooter(tuple(orc_file.schema.names), int(orc_file.nrows))


IN_PROCESS_DECODER = InProcessOrcDecoder()

_CURRENT_DECODER: contextvars.ContextVar[OrcDecoder] = contextvars.ContextVar(
    "orc_decoder", default=IN_PROCESS_DECODER
)


def current_orc_decoder() -> OrcDecoder:
    """The decoder used here and now (rule 1 or 2 of the module docstring)."""
    return _CURRENT_DECODER.get()


def decode_orc_table(data: bytes) -> pa.Table:
    """Every column of the ORC file ``data``, by the current decoder."""
    return current_orc_decoder().decode_table(data)


def decode_orc_footer(data: bytes) -> OrcFooter:
    """The footer of the ORC file ``data``, by the current decoder."""
    return current_orc_decoder().decode_footer(data)


@contextmanager
def using_orc_decoder(decoder: OrcDecoder) -> Iterator[None]:
    """Within the block, ORC bytes are decoded by ``decoder`` (a context variable: threads
    started inside see the default unless they run in a copy of this context)."""
    token = _CURRENT_DECODER.set(decoder)
    try:
        yield
    finally:
        _CURRENT_DECODER.reset(token)
