"""reference.isolation: ORC bytes decoded in a worker process; a crash of the C++ reader is a
typed error and the next file decodes normally."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.orc as pa_orc
import pytest

from reference.errors import PaimonFormatError
from reference.isolation import IsolatedOrcDecoder, isolating_orc_decoding
from reference.spec import types as t
from reference.spec.file_format import FileFormat, arrow_to_rows, decode_data_file
from reference.spec.orc_decoding import OrcFooter

FIELDS = [
    t.DataField(0, "id", t.BigIntType()),
    t.DataField(1, "name", t.VarCharType(t.MAX_LENGTH)),
]
ROWS = [(i, f"n{i}") for i in range(50)]

CRASHING_BYTE = (67, 7)
"""One byte of :func:`orc_file`'s first stripe that makes pyarrow 19's reader segfault (found
by mutation; checked again by :func:`is_crashing_raw_reader`)."""

RAW_READ = "import io, sys, pyarrow.orc as o; o.ORCFile(io.BytesIO(sys.stdin.buffer.read())).read()"


def orc_file() -> bytes:
    table = pa.table(
        {
            "id": pa.array([r[0] for r in ROWS], pa.int64()),
            "name": pa.array([r[1] for r in ROWS], pa.string()),
        }
    )
    sink = io.BytesIO()
    pa_orc.write_table(table, sink, compression="uncompressed")
    return sink.getvalue()


def crashing_orc_file() -> bytes:
    data = bytearray(orc_file())
    offset, value = CRASHING_BYTE
    data[offset] = value
    return bytes(data)


def is_crashing_raw_reader(data: bytes) -> bool:
    """Whether pyarrow's ORC reader, alone in a fresh process, dies on ``data``."""
    command = [sys.executable, "-c", RAW_READ]
    done = subprocess.run(command, check=False, input=data, capture_output=True)
    return done.returncode < 0


@pytest.fixture(scope="module")
def decoder() -> Iterator[IsolatedOrcDecoder]:
    decoder = IsolatedOrcDecoder()
    yield decoder
    decoder.close()


def test_a_good_file_decodes_to_its_rows(decoder: IsolatedOrcDecoder) -> None:
    assert decoder.decode_table(orc_file()).to_pylist() == [{"id": i, "name": n} for i, n in ROWS]


def test_a_crash_of_the_reader_is_a_typed_error_and_the_next_file_decodes(
    decoder: IsolatedOrcDecoder,
) -> None:
    bad = crashing_orc_file()
    with pytest.raises(PaimonFormatError, match="orc") as raised:
        decoder.decode_table(bad)
    if is_crashing_raw_reader(bad):
        assert "crashed with signal" in str(raised.value)
    assert decoder.decode_table(orc_file()).num_rows == len(ROWS)


def test_a_footer_is_read_through_the_worker(decoder: IsolatedOrcDecoder) -> None:
    assert decoder.decode_footer(orc_file()) == OrcFooter(("id", "name"), len(ROWS))
    with pytest.raises(PaimonFormatError, match="undecodable"):
        decoder.decode_footer(b"ORC" + b"\x00" * 40)


def test_a_reader_error_is_a_typed_error(decoder: IsolatedOrcDecoder) -> None:
    with pytest.raises(PaimonFormatError, match="undecodable"):
        decoder.decode_table(b"ORC" + b"\x00" * 40)


def test_a_worker_that_does_not_answer_in_time_is_stopped() -> None:
    slow = IsolatedOrcDecoder(timeout_seconds=0.0)  # the worker is still starting
    try:
        with pytest.raises(PaimonFormatError, match="did not answer in time"):
            slow.decode_table(orc_file())
    finally:
        slow.close()


def test_data_files_decode_through_the_worker_inside_the_block() -> None:
    bad = crashing_orc_file()
    with isolating_orc_decoding():
        table = decode_data_file(orc_file(), FileFormat.ORC, FIELDS)
        assert arrow_to_rows(table, FIELDS) == ROWS
        with pytest.raises(PaimonFormatError):
            decode_data_file(bad, FileFormat.ORC, FIELDS)
