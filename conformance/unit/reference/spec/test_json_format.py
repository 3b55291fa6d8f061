"""Jackson-style JSON: Java-written metadata files re-encode byte for byte, the layout rules hold
on hand-written examples, and the strict reader rejects malformed documents."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.errors import PaimonFormatError
from reference.spec.json_format import (
    decode_json,
    decode_json_object,
    encode_json,
    encode_json_string,
)

PARQUET_TABLES = "paimon-cpp/parquet"


def java_metadata_files(third_party: Path) -> list[Path]:
    root = third_party / PARQUET_TABLES
    files = sorted(root.glob("*/*/schema/schema-*")) + sorted(root.glob("*/*/snapshot/snapshot-*"))
    assert files, f"no schema or snapshot files under {root}"
    return files


def test_java_files_reencode_byte_for_byte(third_party: Path) -> None:
    for path in java_metadata_files(third_party):
        data = path.read_bytes()
        assert encode_json(decode_json_object(data)).encode("utf-8") == data, path


def test_java_files_have_no_trailing_newline(third_party: Path) -> None:
    for path in java_metadata_files(third_party):
        assert path.read_bytes().endswith(b"}"), path


def test_layout_of_nested_objects_and_arrays() -> None:
    # Hand-written following Jackson's DefaultPrettyPrinter: objects indent two spaces per
    # enclosing object, arrays stay on one line and add no indentation.
    value = {
        "a": 1,
        "list": [{"x": "y", "inner": {"deep": []}}, {"z": None}],
        "empty": {},
        "names": ["p", "q"],
        "flag": True,
    }
    expected = (
        "{\n"
        '  "a" : 1,\n'
        '  "list" : [ {\n'
        '    "x" : "y",\n'
        '    "inner" : {\n'
        '      "deep" : [ ]\n'
        "    }\n"
        "  }, {\n"
        '    "z" : null\n'
        "  } ],\n"
        '  "empty" : { },\n'
        '  "names" : [ "p", "q" ],\n'
        '  "flag" : true\n'
        "}"
    )
    assert encode_json(value) == expected


def test_empty_containers_and_scalars() -> None:
    assert encode_json({}) == "{ }"
    assert encode_json([]) == "[ ]"
    assert encode_json([[], {}]) == "[ [ ], { } ]"
    assert encode_json(-9223372036854775808) == "-9223372036854775808"
    assert encode_json(False) == "false"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        ("line\nfeed\ttab\rret\bbs\fff", '"line\\nfeed\\ttab\\rret\\bbs\\fff"'),
        ("\x00\x01\x1f", '"\\u0000\\u0001\\u001F"'),
        ("\x7f", '"\x7f"'),
        ("é ✓ 表 😀", '"é ✓ 表 😀"'),
        ("a/b", '"a/b"'),
    ],
)
def test_string_escaping_matches_jackson(text: str, expected: str) -> None:
    assert encode_json_string(text) == expected
    assert json.loads(expected) == text


def test_fractional_numbers_keep_their_text() -> None:
    for text in ("5.000000000", "0.0", "1.5E+10", "-0.25"):
        assert encode_json(decode_json(text)) == text


def test_floats_and_unknown_objects_are_refused() -> None:
    with pytest.raises(TypeError):
        encode_json(1.5)
    with pytest.raises(TypeError):
        encode_json({"a": object()})


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{",
        b'{"a" : 1',
        b'{"a" : }',
        b"{'a' : 1}",
        b'{"a" : 1} trailing',
        b'{"a" : 1, "a" : 2}',
        b'{"a" : NaN}',
        b'{"a" : Infinity}',
        b'{"a" : "\xff"}',
        b"\x00\x01\x02",
        b'{"a" : "unterminated}',
        b'{"a" : "\x01"}',
    ],
)
def test_malformed_json_is_a_format_error(data: bytes) -> None:
    with pytest.raises(PaimonFormatError):
        decode_json(data)


@pytest.mark.parametrize("data", [b"[1, 2]", b'"text"', b"3", b"null", b"true"])
def test_top_level_must_be_an_object(data: bytes) -> None:
    with pytest.raises(PaimonFormatError, match="top level"):
        decode_json_object(data)


def test_deeply_nested_input_is_a_format_error() -> None:
    with pytest.raises(PaimonFormatError):
        decode_json(b"[" * 100_000 + b"]" * 100_000)


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.decimals(allow_nan=False, allow_infinity=False, places=9).filter(
        lambda d: d != d.to_integral_value()
    ),
    st.text(),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=6))
def test_round_trip_and_python_json_agrees(value: dict[str, object]) -> None:
    text = encode_json(value)
    assert decode_json_object(text) == value
    # An independent parser reads the same document.
    assert json.loads(text, parse_float=Decimal) == value
    assert not text.endswith("\n")


@given(json_values)
def test_reencoding_is_stable(value: object) -> None:
    text = encode_json(value)
    assert encode_json(decode_json(text)) == text
