"""Java hash codes and HashMap iteration order, against orders printed by a Java 17 JVM."""

from __future__ import annotations

from reference.spec.file_index import java_order as j


def test_hash_codes_match_java() -> None:
    # "hello".hashCode(), "\uD834\uDD1E".hashCode(), Long.hashCode(-5L),
    # Double.hashCode(-0.0), Float.hashCode(Float.NaN), Boolean.hashCode(true/false)
    assert j.compute_java_string_hash("hello") == 99162322
    assert j.compute_java_string_hash("\U0001d11e") == 1772394
    assert j.compute_long_hash(-5) == 4
    assert j.compute_double_hash(-0.0) == -2147483648
    assert j.compute_float_hash(float("nan")) == 2143289344
    assert (j.compute_boolean_hash(True), j.compute_boolean_hash(False)) == (1231, 1237)


def test_binary_string_hash_matches_paimon() -> None:
    # BinaryString.fromString(s).hashCode() printed by Paimon 0.9.0 (murmur3, seed 42, with
    # Paimon's own handling of the 1-3 trailing bytes).
    java = {
        "": 142593372,
        "a": 1485273170,
        "ab": -97053317,
        "abc": 1322437556,
        "abcd": -396302900,
        "asdfghjkl123_2500": 1980901172,
        "h\u00e9llo \u2713": 528773591,
        "\u00ff\u00fe\u00fd": -1848368187,
    }
    for text, expected in java.items():
        assert j.compute_binary_string_hash(text.encode("utf-8")) == expected


def _strings(keys: list[str]) -> list[tuple[object, int]]:
    return [(key, j.compute_java_string_hash(key)) for key in keys]


def test_put_order_over_resizes() -> None:
    keys = [f"col_{i * 7 % 40}" for i in range(40)]
    java = (
        "col_32,col_10,col_11,col_33,col_30,col_31,col_6,col_5,col_4,col_3,col_2,col_1,col_0,"
        "col_29,col_27,col_28,col_25,col_9,col_26,col_23,col_8,col_7,col_24,col_21,col_22,"
        "col_20,col_18,col_19,col_16,col_38,col_39,col_17,col_14,col_36,col_37,col_15,col_34,"
        "col_12,col_35,col_13"
    )
    assert j.compute_hash_map_order(_strings(keys), compute_if_absent=False) == java.split(",")


def test_put_keeps_insertion_order_within_a_bucket() -> None:
    calls = [(i * 16, i * 16) for i in range(10)]
    expected = [0, 32, 64, 96, 128, 16, 48, 80, 112, 144]
    assert j.compute_hash_map_order(calls, compute_if_absent=False) == expected


def test_compute_if_absent_prepends_and_resizes_lazily() -> None:
    calls = [(x, x) for x in [16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]
    assert j.compute_hash_map_order(calls, compute_if_absent=True) == [0, 16, *range(1, 12)]
    # Any further call (here for a key already present) first grows the table to 32 buckets.
    resized = j.compute_hash_map_order([*calls, (5, 5)], compute_if_absent=True)
    assert resized == [*range(12), 16]


def test_crowded_bucket_in_small_table_resizes() -> None:
    calls = [(x * 16, x * 16) for x in range(13)]
    expected = [192, 160, 128, 96, 64, 32, 0, 176, 144, 112, 80, 48, 16]
    assert j.compute_hash_map_order(calls, compute_if_absent=True) == expected
