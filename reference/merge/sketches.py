"""Unions of serialized bitmaps and sketches: the ``rbm32``, ``rbm64``, ``theta_sketch`` and
``hll_sketch`` aggregate functions.

Spec: ``docs/primary-key-table/merge-engine/aggregation`` (rbm32, rbm64, theta_sketch,
hll_sketch). Java: ``org.apache.paimon.utils.RoaringBitmap32`` / ``RoaringBitmap64``,
``utils.ThetaSketch``, ``utils.HllSketchUtil`` (Apache DataSketches for Java 4.2,
RoaringBitmap 1.0.5 in 0.9.0 / 1.2.1 in main).

* ``rbm32``: both values are 32-bit roaring bitmaps in the portable format; the result is their
  union, run-optimized and serialized in the portable format.
* ``rbm64``: Java serializes ``Roaring64Bitmap`` with its own ART-based layout (not the portable
  64-bit format of CRoaring/pyroaring), which depends on the order values were inserted; the
  reference cannot reproduce it and raises :class:`~reference.errors.UnsupportedFeature`.
* ``theta_sketch``: both values are compact Theta sketches; the result is a default union
  (2^12 nominal entries, seed 9001) as an ordered compact sketch. The C++ library computes the
  same entries; :func:`compute_java_theta_layout` rewrites the three preamble details Java writes
  differently.
* ``hll_sketch``: both values are HLL sketches; a union sized by the *second* sketch absorbs it,
  then the first; the result is written as a compact HLL_4 sketch (byte-identical between the
  C++ and Java libraries).

The sketches need the optional ``datasketches`` package (Apache DataSketches for Python).
"""

from __future__ import annotations

import importlib
import struct
from typing import Any

from reference.errors import PaimonFormatError, UnsupportedFeature
from reference.spec.file_index.roaring import decode_roaring32, encode_roaring32

THETA_PREAMBLE_LONGS_MASK = 0x3F
THETA_FLAGS_OFFSET = 5
THETA_SEED_HASH = slice(6, 8)
THETA_P_FLOAT = slice(12, 16)
THETA_EMPTY_FLAG = 0x04
THETA_SINGLE_ITEM_FLAG = 0x20
THETA_P_OF_A_UNION = 1.0

_SKETCH_DECODE_ERRORS = (RuntimeError, ValueError, IndexError)
"""What the DataSketches bindings raise on malformed bytes."""


def compute_rbm32_union(left: bytes, right: bytes) -> bytes:
    """Union of two serialized 32-bit roaring bitmaps (Java ``RoaringBitmap32`` ``or``)."""
    return encode_roaring32(decode_roaring32(left) | decode_roaring32(right))


def compute_rbm64_union(left: bytes, right: bytes) -> bytes:
    raise UnsupportedFeature(
        "rbm64: Java stores Roaring64Bitmap's own ART-based serialization (not the portable "
        "64-bit format), which the reference cannot write"
    )


def _datasketches() -> Any:
    """The optional ``datasketches`` package (Apache DataSketches, the library Java uses)."""
    try:
        return importlib.import_module("datasketches")
    except ImportError:
        raise UnsupportedFeature(
            "theta_sketch / hll_sketch need the 'datasketches' package (pip install datasketches)"
        ) from None


def compute_java_theta_layout(data: bytes) -> bytes:
    """Rewrite a compact Theta sketch from the C++ library into the bytes Java writes.

    The libraries agree on every hash, count and theta, but Java (datasketches-java 4.2,
    ``CompactOperations.loadCompactMemory``) also writes the unused sampling probability
    ``p = 1.0f`` after the count when there are 2 or more preamble longs, sets the single-item
    flag on a one-entry sketch, and writes a zero seed hash in an empty sketch; C++ leaves the
    first zero, the flag unset and the seed hash in place.
    """
    layout = bytearray(data)
    preamble_longs = layout[0] & THETA_PREAMBLE_LONGS_MASK
    if layout[THETA_FLAGS_OFFSET] & THETA_EMPTY_FLAG:
        layout[THETA_SEED_HASH] = bytes(2)
    elif preamble_longs == 1:
        layout[THETA_FLAGS_OFFSET] |= THETA_SINGLE_ITEM_FLAG
    if preamble_longs > 1:
        layout[THETA_P_FLOAT] = struct.pack("<f", THETA_P_OF_A_UNION)
    return bytes(layout)


def _read_compact_theta(ds: Any, data: bytes) -> Any:
    try:
        return ds.compact_theta_sketch.deserialize(bytes(data))
    except _SKETCH_DECODE_ERRORS as error:
        if "type mismatch" in str(error):
            raise UnsupportedFeature(
                "theta_sketch input in the updatable (non-compact) form; only compact sketches "
                "are supported"
            ) from error
        raise PaimonFormatError(f"invalid theta sketch ({error})") from error


def compute_theta_union(left: bytes, right: bytes) -> bytes:
    """Java ``ThetaSketch.union``: a default union of both, as Java's compact bytes."""
    ds = _datasketches()
    union = ds.theta_union()
    union.update(_read_compact_theta(ds, left))
    union.update(_read_compact_theta(ds, right))
    return compute_java_theta_layout(bytes(union.get_result().serialize()))


def compute_hll_union(left: bytes, right: bytes) -> bytes:
    """Java ``HllSketchUtil.union``: ``Union.heapify(right)`` absorbs ``left``; HLL_4 result."""
    ds = _datasketches()
    try:
        first = ds.hll_sketch.deserialize(bytes(left))
        second = ds.hll_sketch.deserialize(bytes(right))
    except _SKETCH_DECODE_ERRORS as error:
        raise PaimonFormatError(f"invalid HLL sketch ({error})") from error
    union = ds.hll_union(second.lg_config_k)
    union.update(second)
    union.update(first)
    return bytes(union.get_result(ds.tgt_hll_type.HLL_4).serialize_compact())
