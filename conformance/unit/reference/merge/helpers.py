"""Small builders shared by the merge-engine tests (rows of one key, row types by name)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference.merge.engine import compute_merge_setup, merge, order_records
from reference.spec import types as t
from reference.spec.data import RowKind
from reference.spec.key_value import KeyValue

INT = t.IntType()
KEY_INT = t.IntType(nullable=False)
STRING = t.VarCharType(t.MAX_LENGTH)

INS, UB, UA, DEL = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE


def row_type(*fields: tuple[str, t.DataType]) -> t.RowType:
    return t.RowType(tuple(t.DataField(i, name, dt) for i, (name, dt) in enumerate(fields)))


def int_row_type(*names: str) -> t.RowType:
    """All INT fields; the first one (the key) NOT NULL."""
    return row_type(*((name, KEY_INT if i == 0 else INT) for i, name in enumerate(names)))


def records(*rows: Sequence[Any], kinds: Sequence[RowKind] | None = None) -> list[KeyValue]:
    """Records of one key (the first field), sequence numbers 0, 1, 2, ... in order."""
    return [
        KeyValue((row[0],), number, kinds[number] if kinds else INS, tuple(row))
        for number, row in enumerate(rows)
    ]


def merge_rows(
    options: Mapping[str, str],
    schema: t.RowType,
    *rows: Sequence[Any],
    kinds: Sequence[RowKind] | None = None,
    primary_keys: Sequence[str] | None = None,
) -> KeyValue | None:
    """Resolve ``options``, order the records of one key and merge them."""
    keys = [schema.fields[0].name] if primary_keys is None else list(primary_keys)
    setup = compute_merge_setup(options, schema, keys)
    return merge(order_records(records(*rows, kinds=kinds), setup), setup)
