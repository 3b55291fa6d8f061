"""Byte vectors written by Java Paimon for the file-index codecs, and how to read them.

A vector is a JSON object::

    {
      "element":  "bloom_filter" | "bitmap" | "bsi",
      "producer": who wrote the bytes, e.g. "paimon-java 0.9.0",
      "type":     the column type as SQL, e.g. "INT", "TIMESTAMP(6)", "DECIMAL(10, 2)",
      "options":  index options: bloom {"items", "fpp"}; bitmap {"version", "index-block-size"},
      "values":   the column, one JSON value per row (see decode_json_value),
      "bytes":    hex of the index body  -- or "byte_length" + "sha256" for large bodies,
      "hashes":   (bloom only, optional) Java's 64-bit FastHash of each non-null value,
      "queries":  (optional) [{"op", "literal"?, "result": "REMAIN" | "SKIP" | [row ids]}]
    }

The vectors here were produced once by running Java Paimon on these inputs (0.9.0 from the
``paimon-python-java-bridge-0.9.0`` jar; the bitmap v2 and BSI classes of main compiled over it)
and reading the bodies back with Java's own readers for the query answers. Files placed under
``fixtures/vectors/<element>/*.json`` (a list of vectors or a single one) are picked up as well.
"""

from __future__ import annotations

import json
import struct
from decimal import Decimal
from pathlib import Path
from typing import Any

from conformance.conftest import FIXTURES
from reference.spec import types as t
from reference.spec.data import Timestamp

HERE = Path(__file__).resolve().parent / "vectors"


def load_vectors(element: str) -> list[dict[str, Any]]:
    """Every vector of ``element``: the ones beside this module, then any under fixtures."""
    paths = [HERE / f"{element}.json", *sorted((FIXTURES / "vectors" / element).glob("*.json"))]
    vectors: list[dict[str, Any]] = []
    for path in paths:
        if path.is_file():
            loaded = json.loads(path.read_text(encoding="utf-8"))
            vectors.extend(loaded if isinstance(loaded, list) else [loaded])
    return vectors


def vector_id(vector: dict[str, Any]) -> str:
    options = ",".join(f"{k}={v}" for k, v in sorted(vector.get("options", {}).items()))
    return f"{vector['producer']}|{vector['type']}|{options}|{len(vector['values'])} rows"


def vector_type(vector: dict[str, Any]) -> t.DataType:
    return t.parse_sql_type(vector["type"])


def decode_json_value(value: Any, data_type: t.DataType) -> Any:
    """JSON -> internal value: floats as {"bits": hex IEEE}, timestamps {"millis", "nanos"},
    binaries {"hex"}, decimals as strings, everything else as the plain JSON value."""
    if value is None:
        return None
    if isinstance(value, dict) and "bits" in value:
        raw = bytes.fromhex(value["bits"])
        return struct.unpack(">f" if len(raw) == 4 else ">d", raw)[0]
    if isinstance(value, dict) and "millis" in value:
        return Timestamp(value["millis"], value["nanos"])
    if isinstance(value, dict) and "hex" in value:
        return bytes.fromhex(value["hex"])
    if isinstance(data_type, t.DecimalType):
        return Decimal(value)
    return value


def vector_values(vector: dict[str, Any]) -> list[Any]:
    data_type = vector_type(vector)
    return [decode_json_value(value, data_type) for value in vector["values"]]


def block_size_option(vector: dict[str, Any]) -> int | None:
    """``index-block-size`` in bytes (vectors spell it like "64b"), or None when unset."""
    text = vector.get("options", {}).get("index-block-size")
    if text is None:
        return None
    assert text.endswith("b"), text
    return int(text[:-1])
