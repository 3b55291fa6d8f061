"""Bitmap and sketch unions compared with the bytes Paimon 0.9.0 wrote.

Oracles: Paimon 0.9.0's ``RoaringBitmap32``, ``ThetaSketch.union`` and ``HllSketchUtil.union``
run on the same inputs (hex constants, or SHA-256 digests of long outputs); the sketch inputs of
the large cases are rebuilt with the DataSketches package and checked against Java's digest
first where Java printed one.
"""

from __future__ import annotations

import hashlib

import pytest

from reference.errors import PaimonFormatError, UnsupportedFeature
from reference.merge import sketches as sk

JAVA_RBM_0_TO_99 = "3b3000000100006300010000006300"
JAVA_RBM_SPARSE = "3a30000003000000000000000100000010000000200000002200000024000000050070110000"
JAVA_RBM_UNION = "3b3002000100006300010000001000000001000000630070110000"


def test_rbm32_union_matches_java() -> None:
    union = sk.compute_rbm32_union(bytes.fromhex(JAVA_RBM_0_TO_99), bytes.fromhex(JAVA_RBM_SPARSE))
    assert union.hex() == JAVA_RBM_UNION
    with pytest.raises(PaimonFormatError):
        sk.compute_rbm32_union(b"\x00\x01", b"\x00\x01")


def test_rbm64_is_unsupported() -> None:
    with pytest.raises(UnsupportedFeature, match="ART"):
        sk.compute_rbm64_union(b"x", b"y")


JAVA_THETA_1_2_3 = (
    "02030300001acc93030000000000803f15f97dcbbd86a105c397fc1281709d1eba40b3c1da06695d"
)
JAVA_THETA_3_4 = "02030300001acc93020000000000803f40de2ee1c9db3d08ba40b3c1da06695d"
JAVA_THETA_7 = "01030300003acc93e0f48bea9983c37c"
JAVA_THETA_UNION = (
    "02030300001acc93040000000000803f15f97dcbbd86a10540de2ee1c9db3d08c397fc1281709d1e"
    "ba40b3c1da06695d"
)
JAVA_THETA_EMPTY = "01030300001e0000"
JAVA_THETA_LARGE_UNION_SHA256 = "a99d17f8c1908d5588aae8596381e97d6e2c46681eca8d468700b7e91641a22a"
"""Java: union of a sketch of {7 i : 0 <= i < 10000} (estimation mode) with the 1,2,3 sketch."""


def test_theta_sketch_union_matches_java() -> None:
    datasketches = pytest.importorskip("datasketches")
    union = sk.compute_theta_union
    b = bytes.fromhex
    assert union(b(JAVA_THETA_1_2_3), b(JAVA_THETA_3_4)).hex() == JAVA_THETA_UNION
    assert union(b(JAVA_THETA_7), b(JAVA_THETA_7)).hex() == JAVA_THETA_7
    assert union(b(JAVA_THETA_EMPTY), b(JAVA_THETA_EMPTY)).hex() == JAVA_THETA_EMPTY
    assert union(b(JAVA_THETA_EMPTY), b(JAVA_THETA_7)).hex() == JAVA_THETA_7
    sketch = datasketches.update_theta_sketch()
    for i in range(10000):
        sketch.update(i * 7)
    large = union(bytes(sketch.compact().serialize()), b(JAVA_THETA_1_2_3))
    assert hashlib.sha256(large).hexdigest() == JAVA_THETA_LARGE_UNION_SHA256


def test_theta_sketch_rejects_garbage() -> None:
    pytest.importorskip("datasketches")
    with pytest.raises(PaimonFormatError):
        sk.compute_theta_union(b"\x01\x02", bytes.fromhex(JAVA_THETA_7))


JAVA_HLL_1_2_3 = "0201070c030803002bf2fb06862ff90d75816607"
JAVA_HLL_3_TO_6 = "0201070c030804007581660781bc5d067b65e608fc2d420a"
JAVA_HLL_UNION = "0201070c030806007581660781bc5d067b65e608fc2d420a2bf2fb06862ff90d"
JAVA_HLL_LARGE_SHA256 = "c91bcd008ae497ba2b57b31e7e2bbf5adb5a9e0b79e4ac2a7cf369de72ae3518"
"""Java ``HllSketchUtil.sketchOf`` of {13 i : 0 <= i < 5000} (HLL_4, lgK 12)."""
JAVA_HLL_LARGE_UNION_SHA256 = "20cc81dd6771fb4fd17cc08539262293374fb7007bcdd97d73a6617a897d1533"
"""Java: union of that sketch with the 1,2,3 sketch, in either order."""


def test_hll_sketch_union_matches_java() -> None:
    datasketches = pytest.importorskip("datasketches")
    union = sk.compute_hll_union
    b = bytes.fromhex
    assert union(b(JAVA_HLL_1_2_3), b(JAVA_HLL_3_TO_6)).hex() == JAVA_HLL_UNION
    sketch = datasketches.hll_sketch(12, datasketches.tgt_hll_type.HLL_4)
    for i in range(5000):
        sketch.update(i * 13)
    large = bytes(sketch.serialize_compact())
    assert hashlib.sha256(large).hexdigest() == JAVA_HLL_LARGE_SHA256
    for pair in ((large, b(JAVA_HLL_1_2_3)), (b(JAVA_HLL_1_2_3), large)):
        assert hashlib.sha256(union(*pair)).hexdigest() == JAVA_HLL_LARGE_UNION_SHA256


def test_theta_layout_rewrite() -> None:
    # C++'s empty sketch keeps its seed hash, Java's has zeros; a single item gets Java's flag.
    assert sk.compute_java_theta_layout(bytes.fromhex("01030300001ecc93")).hex() == JAVA_THETA_EMPTY
    cpp_single = bytes.fromhex("01030300001acc93e0f48bea9983c37c")
    assert sk.compute_java_theta_layout(cpp_single).hex() == JAVA_THETA_7


def test_hll_rejects_garbage() -> None:
    pytest.importorskip("datasketches")
    with pytest.raises(PaimonFormatError):
        sk.compute_hll_union(b"\x01\x02", bytes.fromhex(JAVA_HLL_1_2_3))
