"""Framing checks of Parquet, ORC and Avro files.

Oracles: files written by pyarrow and fastavro (independent writers) must pass; every
truncation of them and every damaged magic must fail with :class:`PaimonFormatError`.
"""

from __future__ import annotations

import io

import fastavro
import pyarrow as pa
import pyarrow.orc as pa_orc
import pyarrow.parquet as pa_parquet
import pytest

from reference.errors import PaimonFormatError, UnsupportedFeature
from reference.spec import format_framing as f

TABLE = pa.table({"a": list(range(100)), "b": [str(i) for i in range(100)]})


def _parquet() -> bytes:
    sink = io.BytesIO()
    pa_parquet.write_table(TABLE, sink)
    return sink.getvalue()


def _orc() -> bytes:
    sink = io.BytesIO()
    pa_orc.write_table(TABLE, sink)
    return sink.getvalue()


def _avro() -> bytes:
    sink = io.BytesIO()
    schema = {"type": "record", "name": "r", "fields": [{"name": "a", "type": "long"}]}
    fastavro.writer(sink, schema, [{"a": i} for i in range(10)])
    return sink.getvalue()


def _check_parquet(data: bytes) -> None:
    f.check_parquet_framing(data[: f.MAGIC_PROBE_LENGTH], data[-f.PARQUET_TAIL_LENGTH :], len(data))


def _check_orc(data: bytes) -> None:
    f.check_orc_framing(data[: f.MAGIC_PROBE_LENGTH], data[-f.ORC_MAX_TAIL :], len(data))


def test_files_of_independent_writers_pass() -> None:
    _check_parquet(_parquet())
    _check_orc(_orc())
    f.check_avro_framing(_avro()[: f.MAGIC_PROBE_LENGTH])


@pytest.mark.parametrize("cut", [1, 2, 5, 9, 50])
def test_truncated_parquet_fails(cut: int) -> None:
    with pytest.raises(PaimonFormatError, match="parquet"):
        _check_parquet(_parquet()[:-cut])


def test_parquet_footer_longer_than_file_fails() -> None:
    data = bytearray(_parquet())
    data[-8:-4] = (len(data)).to_bytes(4, "little")
    with pytest.raises(PaimonFormatError, match="footer length"):
        _check_parquet(bytes(data))


def test_encrypted_parquet_footer_is_unsupported() -> None:
    data = _parquet()[:-4] + f.PARQUET_ENCRYPTED_MAGIC
    with pytest.raises(UnsupportedFeature, match="encrypted"):
        _check_parquet(data)


@pytest.mark.parametrize("cut", [1, 2, 10, 100])
def test_truncated_orc_fails(cut: int) -> None:
    with pytest.raises(PaimonFormatError, match="orc"):
        _check_orc(_orc()[:-cut])


def test_orc_postscript_lengths_of_a_pyarrow_file() -> None:
    data = _orc()
    postscript = data[-1 - data[-1] : -1]
    footer, metadata = f.decode_orc_postscript_lengths(postscript)
    assert 0 < footer < len(data)
    assert 0 <= metadata < len(data)


@pytest.mark.parametrize(
    ("check", "data"),
    [
        (_check_parquet, b"XXXX" + _parquet()[4:]),
        (_check_orc, b"XYZ" + _orc()[3:]),
        (lambda d: f.check_avro_framing(d[:4]), b"Obj\x02" + _avro()[4:]),
    ],
)
def test_bad_magic_fails(check, data: bytes) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PaimonFormatError, match="magic"):
        check(data)
