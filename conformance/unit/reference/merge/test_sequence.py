"""Merge order: sequence fields, sequence numbers, row kinds; ``rowkind.field``; legacy padding.

Oracles: the spec's rules (docs ``sequence-rowkind``; seeds 003/004 "Sequence Field"), Java's
``Float.compare`` / ``BinaryString.compareTo`` semantics worked by hand, and the padding
arithmetic of Paimon 0.7's ``SequenceGenerator`` worked by hand.
"""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.unit.reference.merge.helpers import DEL, INS, UA, UB, int_row_type, row_type
from reference.errors import SpecViolation, UnsupportedFeature
from reference.merge import sequence as s
from reference.spec import types as t
from reference.spec.data import RowKind, Timestamp
from reference.spec.key_value import KeyValue

# --------------------------------------------------------------------------------------------
# compare_values
# --------------------------------------------------------------------------------------------


def test_floats_compare_like_java_float_compare() -> None:
    # Float.compare: -0.0 < 0.0, NaN equals NaN and is above +inf.
    assert s.compare_values(-0.0, 0.0, t.DoubleType()) == -1
    assert s.compare_values(0.0, -0.0, t.FloatType()) == 1
    assert s.compare_values(math.nan, math.inf, t.DoubleType()) == 1
    assert s.compare_values(math.nan, math.nan, t.DoubleType()) == 0
    assert s.compare_values(-math.inf, -1e308, t.DoubleType()) == -1


def test_strings_compare_by_utf8_bytes() -> None:
    # U+FFFF is EF BF BF and U+10000 is F0 90 80 80: UTF-8 order (Java BinaryString) puts the
    # BMP character first, whereas UTF-16 order (java.lang.String) would not.
    assert s.compare_values("\uffff", "\U00010000", t.VarCharType(10)) == -1
    assert s.compare_values("ab", "abc", t.CharType(3)) == -1
    assert s.compare_values("b", "abc", t.VarCharType(3)) == 1


def test_other_atomic_types() -> None:
    assert s.compare_values(b"\xff", b"\x01\x00", t.VarBinaryType(4)) == 1  # unsigned bytes
    assert s.compare_values(Decimal("1.50"), Decimal("1.5"), t.DecimalType(5, 2)) == 0
    assert s.compare_values(Timestamp(5, 1), Timestamp(5, 0), t.TimestampType(9)) == 1
    assert s.compare_values(False, True, t.BooleanType()) == -1


def test_nested_values_compare_element_wise_with_nulls_first() -> None:
    array = t.ArrayType(t.IntType())
    assert s.compare_values([1, None], [1, 0], array) == -1
    assert s.compare_values([1, 2], [1, 2, 0], array) == -1
    row = row_type(("a", t.IntType()), ("b", t.VarCharType(5)))
    assert s.compare_values((1, "b"), (1, "a"), row) == 1
    assert s.compare_values({1: 5}, {1: 4}, t.MapType(t.IntType(), t.IntType())) == 1


def test_variant_has_no_order() -> None:
    with pytest.raises(UnsupportedFeature):
        s.compare_values(b"", b"", t.VariantType())


# --------------------------------------------------------------------------------------------
# Sequence fields and record order
# --------------------------------------------------------------------------------------------

SCHEMA = int_row_type("pk", "v1", "v2", "dt")


def _kv(sequence_number: int, dt: int | None, kind: RowKind = INS, v1: int = 0) -> KeyValue:
    return KeyValue((1,), sequence_number, kind, (1, v1, 0, dt))


def test_sequence_field_decides_before_sequence_number() -> None:
    # Seed 004: "the record with the largest sequence.field value is merged last, whatever the
    # input order".
    fields = s.compute_sequence_fields(SCHEMA, ["dt"])
    late_input_old_time = _kv(5, 100)
    early_input_new_time = _kv(1, 200)
    ordered = s.order_records([late_input_old_time, early_input_new_time], fields)
    assert ordered == [late_input_old_time, early_input_new_time]


def test_equal_sequence_fields_fall_back_to_input_order() -> None:
    # Docs: "if the values are the same, the input order determines the last one".
    fields = s.compute_sequence_fields(SCHEMA, ["dt"])
    first, second = _kv(1, 7, v1=1), _kv(2, 7, v1=2)
    assert s.order_records([second, first], fields) == [first, second]


def test_retraction_sorts_before_add_of_same_sequence_number() -> None:
    add, retract = _kv(3, None, UA), _kv(3, None, UB)
    assert s.order_records([add, retract]) == [retract, add]


def test_null_sequence_value_is_oldest_in_both_orders() -> None:
    null_time, some_time = _kv(9, None), _kv(1, 5)
    for order in s.SortOrder:
        fields = s.compute_sequence_fields(SCHEMA, ["dt"], order)
        assert s.order_records([null_time, some_time], fields) == [null_time, some_time]


def test_descending_order_reverses_values() -> None:
    fields = s.compute_sequence_fields(SCHEMA, ["dt"], s.SortOrder.DESCENDING)
    small, large = _kv(1, 1), _kv(2, 2)
    assert s.order_records([small, large], fields) == [large, small]


def test_several_sequence_fields_compare_in_listed_order() -> None:
    fields = s.compute_sequence_fields(SCHEMA, ["v2", "dt"])
    a = KeyValue((1,), 0, INS, (1, 0, 1, 9))
    b = KeyValue((1,), 1, INS, (1, 0, 2, 0))
    c = KeyValue((1,), 2, INS, (1, 0, 2, -1))
    assert s.order_records([a, b, c], fields) == [a, c, b]


@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),
            st.one_of(st.none(), st.integers(-3, 3)),
            st.sampled_from(list(RowKind)),
        ),
        max_size=12,
    )
)
def test_order_is_a_sorted_permutation(specs: list[tuple[int, int | None, RowKind]]) -> None:
    fields = s.compute_sequence_fields(SCHEMA, ["dt"])
    kvs = [_kv(number, dt, kind) for number, dt, kind in specs]
    ordered = s.order_records(kvs, fields)
    assert sorted(map(id, ordered)) == sorted(map(id, kvs))

    def rank(kv: KeyValue) -> tuple[int, int, int, int]:
        dt = kv.value[3]
        return (dt is not None, dt or 0, kv.sequence_number, int(kv.kind.is_add))

    assert [rank(kv) for kv in ordered] == sorted(rank(kv) for kv in kvs)


# --------------------------------------------------------------------------------------------
# rowkind.field
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "kind"), [("+I", INS), ("-U", UB), ("+U", UA), ("-D", DEL)])
def test_rowkind_field_gives_the_kind(text: str, kind: RowKind) -> None:
    assert s.compute_row_kind((1, text), 1, RowKind.INSERT) is kind


def test_rowkind_field_absent_keeps_input_kind() -> None:
    assert s.compute_row_kind((1, "-D"), None, UB) is UB


@pytest.mark.parametrize("text", [None, "+X", "insert", ""])
def test_rowkind_field_rejects_null_and_unknown(text: str | None) -> None:
    with pytest.raises(SpecViolation) as error:
        s.compute_row_kind((1, text), 1, INS)
    assert error.value.code == s.ROWKIND_FIELD_ERROR


def test_rowkind_field_must_be_a_string_type() -> None:
    assert s.is_rowkind_field_type(t.VarCharType(2))
    assert s.is_rowkind_field_type(t.CharType(2))
    assert not s.is_rowkind_field_type(t.IntType())


# --------------------------------------------------------------------------------------------
# sequence.auto-padding (0.5 - 0.7)
# --------------------------------------------------------------------------------------------


def test_padding_parse() -> None:
    assert s.parse_auto_padding("second-to-micro, Row-Kind-Flag") == (
        s.SequenceAutoPadding.SECOND_TO_MICRO,
        s.SequenceAutoPadding.ROW_KIND_FLAG,
    )
    with pytest.raises(ValueError, match="unknown"):
        s.parse_auto_padding("nanos")


def test_row_kind_flag_separates_retract_and_add_of_same_time() -> None:
    # Seed 003: with the same op time for -U and +U, the flag makes +U sort after -U.
    flag = (s.SequenceAutoPadding.ROW_KIND_FLAG,)
    bigint = t.BigIntType()
    assert s.compute_padded_sequence(100, flag, UB, bigint, 0) == 200
    assert s.compute_padded_sequence(100, flag, UA, bigint, 0) == 201


def test_time_padding_adds_the_clock_micros() -> None:
    millis = (s.SequenceAutoPadding.MILLIS_TO_MICRO,)
    seconds = (s.SequenceAutoPadding.SECOND_TO_MICRO,)
    ts = t.TimestampType(3)
    # millis 1_700 -> 1_700_000 micros + 123 micros of the current milli
    assert s.compute_padded_sequence(1_700, millis, INS, ts, 5_123) == 1_700_123
    # a timestamp's millis are first cut to seconds: 1_700_999 ms -> 1_700 s
    assert s.compute_padded_sequence(1_700_999, seconds, INS, ts, 2_000_042) == 1_700_000_042
    # Java's long division truncates toward zero: -1_500 ms is -1 s, not -2 s
    assert s.compute_padded_sequence(-1_500, seconds, INS, ts, 5) == -999_995
    # an integer field already holds seconds
    assert s.compute_padded_sequence(3, seconds, INS, t.IntType(), 7) == 3_000_007
    both = (s.SequenceAutoPadding.SECOND_TO_MICRO, s.SequenceAutoPadding.ROW_KIND_FLAG)
    assert s.compute_padded_sequence(3, both, DEL, t.IntType(), 7) == 6_000_014


def test_legacy_sequence_value_per_type() -> None:
    assert s.compute_legacy_sequence_value(Timestamp(1234, 999), t.TimestampType(9)) == 1234
    assert s.compute_legacy_sequence_value(Decimal("-7.9"), t.DecimalType(3, 1)) == -7
    assert s.compute_legacy_sequence_value(-7.9, t.DoubleType()) == -7
    assert s.compute_legacy_sequence_value(math.nan, t.DoubleType()) == 0
    assert s.compute_legacy_sequence_value("42", t.VarCharType(5)) == 42
    with pytest.raises(SpecViolation):
        s.compute_legacy_sequence_value("4.2", t.VarCharType(5))
    with pytest.raises(UnsupportedFeature):
        s.compute_legacy_sequence_value(True, t.BooleanType())
