"""Schema files: Java-written schemas decode and re-encode byte for byte, old versions get their
writers' defaults, each rule has a stable violation code, and evolution reproduces the schema
files Java wrote for the same ALTER TABLE changes."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.strategies import row_types
from reference.errors import (
    InvalidOptionError,
    PaimonFormatError,
    SpecViolation,
    UnsupportedFeature,
)
from reference.spec import schema as s
from reference.spec import types as t

TABLES = "paimon-cpp/parquet"
STRING = t.VarCharType(t.MAX_LENGTH)
BYTES = t.VarBinaryType(t.MAX_LENGTH)


def schema_path(third_party: Path, table: str, schema_id: int) -> Path:
    return third_party / TABLES / f"{table}.db" / table / "schema" / f"schema-{schema_id}"


def load(third_party: Path, table: str, schema_id: int) -> s.TableSchema:
    return s.decode_schema(schema_path(third_party, table, schema_id).read_bytes())


# --------------------------------------------------------------------------------------------
# Java-written files
# --------------------------------------------------------------------------------------------


def test_java_schemas_round_trip_and_validate(third_party: Path) -> None:
    paths = sorted((third_party / TABLES).glob("*/*/schema/schema-*"))
    assert len(paths) >= 10
    for path in paths:
        data = path.read_bytes()
        schema = s.decode_schema(data)
        assert s.encode_schema(schema).encode("utf-8") == data, path
        s.validate_schema(schema)


def test_decoded_members_of_a_primary_key_table(third_party: Path) -> None:
    schema = load(third_party, "pk_09", 0)
    assert schema.version == 3
    assert schema.id == 0
    assert schema.field_names == ["f0", "f1", "f2", "f3"]
    assert schema.highest_field_id == 3
    assert schema.partition_keys == ("f1",)
    assert schema.primary_keys == ("f0", "f1", "f2")
    assert schema.options["deletion-vectors.enabled"] == "true"
    assert list(schema.options)[:2] == ["bucket", "bucket-key"]
    assert schema.comment is None
    assert schema.time_millis == 1755758621910
    assert schema.trimmed_primary_keys == ("f0", "f2")
    assert schema.bucket_keys == ("f2",)
    assert schema.num_buckets == 2
    assert not schema.cross_partition_update
    assert schema.partition_type.field_names == ["f1"]
    assert schema.trimmed_primary_keys_type.field_names == ["f0", "f2"]


def test_helpers_of_other_tables(third_party: Path) -> None:
    partial = load(third_party, "pk_table_partial_update", 0)
    assert partial.bucket_keys == ("k0", "k1")  # the primary key when no bucket-key is set
    assert partial.core_options.merge_engine.value == "partial-update"
    append = load(third_party, "append_with_bitmap", 0)
    assert append.bucket_keys == ()
    assert not append.is_primary_key_table
    description = load(third_party, "append_table_with_alter_table", 1).fields[4]
    assert (description.name, description.description) == ("d", "")


# --------------------------------------------------------------------------------------------
# Evolution reproduces the schemas Java wrote
# --------------------------------------------------------------------------------------------

JAVA_EVOLUTION = [
    ("pk_table_with_mor", 0, [s.RenameColumn(("k1",), "tmp")]),
    ("pk_table_with_mor", 1, [s.RenameColumn(("k0",), "k1")]),
    ("pk_table_with_mor", 2, [s.RenameColumn(("tmp",), "k0")]),
    (
        "pk_table_with_mor",
        3,
        [
            s.RenameColumn(("s1",), "tmp"),
            s.UpdateColumnType(("tmp",), BYTES),
            s.AddColumn(("v2",), t.IntType()),
        ],
    ),
    ("pk_table_with_mor", 4, [s.RenameColumn(("s0",), "s1")]),
    (
        "pk_table_with_mor",
        5,
        [
            s.RenameColumn(("tmp",), "s0"),
            s.UpdateColumnType(("v0",), t.IntType()),
            s.UpdateColumnType(("v1",), STRING),
        ],
    ),
    ("pk_table_with_mor", 6, [s.SetOption("sequence.field", "s0,s1")]),
    (
        "append_table_with_alter_table",
        0,
        [
            s.DropColumn(("a",)),
            s.DropColumn(("c",)),
            s.RenameColumn(("b",), "c"),
            s.RenameColumn(("d",), "a"),
            s.AddColumn(("d",), t.IntType(), "", s.Move("d", s.MoveKind.AFTER, "c")),
            s.AddColumn(("e",), t.IntType()),
            s.UpdateColumnPosition(s.Move("k", s.MoveKind.AFTER, "key1")),
        ],
    ),
]


@pytest.mark.parametrize(("table", "schema_id", "changes"), JAVA_EVOLUTION)
def test_evolution_matches_java(
    third_party: Path, table: str, schema_id: int, changes: list[s.SchemaChange]
) -> None:
    old = load(third_party, table, schema_id)
    expected = schema_path(third_party, table, schema_id + 1).read_bytes()
    time_millis = s.decode_schema(expected).time_millis
    new = s.apply_schema_changes(old, changes, has_snapshots=True, time_millis=time_millis)
    assert s.encode_schema(new).encode("utf-8") == expected


# --------------------------------------------------------------------------------------------
# Old versions
# --------------------------------------------------------------------------------------------


def minimal_schema_json(**members: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "id": 0,
        "fields": [{"id": 0, "name": "a", "type": "INT"}],
        "highestFieldId": 0,
        "partitionKeys": [],
        "primaryKeys": [],
        "options": {},
        "timeMillis": 1,
    }
    document.update(members)
    return document


def test_version_1_gets_bucket_and_file_format() -> None:
    schema = s.decode_schema(json.dumps(minimal_schema_json()))
    assert schema.version == 1
    assert dict(schema.options) == {"bucket": "1", "file.format": "orc"}
    assert json.loads(s.encode_schema(schema))["version"] == 1


def test_version_2_gets_only_file_format() -> None:
    schema = s.decode_schema(json.dumps(minimal_schema_json(version=2)))
    assert dict(schema.options) == {"file.format": "orc"}


def test_version_3_gets_nothing() -> None:
    assert dict(s.decode_schema(json.dumps(minimal_schema_json(version=3))).options) == {}


def test_set_values_win_over_legacy_defaults() -> None:
    options = {"bucket": "4", "file.format": "parquet"}
    schema = s.decode_schema(json.dumps(minimal_schema_json(options=options)))
    assert dict(schema.options) == options


def test_missing_time_and_comment() -> None:
    document = minimal_schema_json(version=3)
    del document["timeMillis"]
    schema = s.decode_schema(json.dumps(document))
    assert schema.time_millis == 0
    assert schema.comment is None
    with_comment = s.decode_schema(json.dumps(minimal_schema_json(version=3, comment="")))
    assert with_comment.comment == ""
    assert list(json.loads(s.encode_schema(with_comment)))[-2:] == ["comment", "timeMillis"]


def test_version_1_single_bucket_append_table_is_valid() -> None:
    s.validate_schema(s.decode_schema(json.dumps(minimal_schema_json())))
    current = s.decode_schema(json.dumps(minimal_schema_json(version=3, options={"bucket": "1"})))
    with pytest.raises(SpecViolation) as raised:
        s.validate_schema(current)
    assert raised.value.code == "SCHEMA_APPEND_BUCKET_WITHOUT_BUCKET_KEY"


# --------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------

texts = st.text(max_size=12)


@st.composite
def table_schemas(draw: st.DrawFn) -> s.TableSchema:
    row = draw(row_types(max_fields=6, max_depth=2))
    fields = tuple(
        replace(f, description=draw(st.none() | texts), default_value=draw(st.none() | texts))
        for f in row.fields
    )
    names = [f.name for f in fields]
    return s.TableSchema(
        version=s.CURRENT_SCHEMA_VERSION,
        id=draw(st.integers(0, 2**31)),
        fields=fields,
        highest_field_id=draw(st.integers(len(fields), 2**31 - 1)),
        partition_keys=tuple(draw(st.lists(st.sampled_from(names), unique=True, max_size=2))),
        primary_keys=tuple(draw(st.lists(st.sampled_from(names), unique=True, max_size=3))),
        options=draw(st.dictionaries(texts, texts, max_size=5)),
        comment=draw(st.none() | texts),
        time_millis=draw(st.integers(0, 2**63 - 1)),
    )


@given(table_schemas())
def test_schema_round_trip(schema: s.TableSchema) -> None:
    text = s.encode_schema(schema)
    assert s.decode_schema(text) == schema
    assert s.decode_schema(text.encode("utf-8")) == schema
    members = list(json.loads(text))  # an independent JSON parser sees Java's member order
    expected = ["version", "id", "fields", "highestFieldId", "partitionKeys", "primaryKeys"]
    assert members[:6] == expected
    assert members[-1] == "timeMillis"


# --------------------------------------------------------------------------------------------
# Corruption
# --------------------------------------------------------------------------------------------


def test_truncated_and_garbled_files(third_party: Path) -> None:
    data = schema_path(third_party, "pk_09", 0).read_bytes()
    for end in (0, 1, len(data) // 3, len(data) // 2, len(data) - 1):
        with pytest.raises(PaimonFormatError):
            s.decode_schema(data[:end])
    for garbage in (b"\x89PNG\r\n\x1a\n", b"\xff" * 40, bytes(range(256))):
        with pytest.raises(PaimonFormatError):
            s.decode_schema(garbage)


@pytest.mark.parametrize(
    "members",
    [
        {"id": "0"},
        {"id": -1},
        {"id": 1.5},
        {"fields": {}},
        {"fields": [{"id": 0, "name": "a"}]},
        {"fields": [{"id": "0", "name": "a", "type": "INT"}]},
        {"fields": [{"id": 0, "name": "a", "type": "NOT A TYPE"}]},
        {"fields": [{"id": 2**31, "name": "a", "type": "INT"}]},
        {"highestFieldId": "3"},
        {"highestFieldId": 2**31},
        {"partitionKeys": "a"},
        {"primaryKeys": [1]},
        {"options": []},
        {"options": {"bucket": 2}},
        {"options": {"bucket": None}},
        {"comment": 5},
        {"timeMillis": "now"},
        {"version": "3"},
        {"version": 0},
    ],
)
def test_wrong_member_types(members: dict[str, Any]) -> None:
    with pytest.raises(PaimonFormatError):
        s.decode_schema(json.dumps(minimal_schema_json(version=3) | members))


@pytest.mark.parametrize(
    "member", ["id", "fields", "highestFieldId", "partitionKeys", "primaryKeys", "options"]
)
def test_missing_required_members(member: str) -> None:
    document = minimal_schema_json(version=3)
    del document[member]
    with pytest.raises(PaimonFormatError, match=member):
        s.decode_schema(json.dumps(document))


def test_future_version_is_unsupported() -> None:
    with pytest.raises(UnsupportedFeature):
        s.decode_schema(json.dumps(minimal_schema_json(version=4)))


# --------------------------------------------------------------------------------------------
# Validation rules
# --------------------------------------------------------------------------------------------


def field(field_id: int, name: str, data_type: t.DataType | None = None) -> t.DataField:
    return t.DataField(field_id, name, data_type or t.IntType(nullable=False))


def table(
    fields: tuple[t.DataField, ...] = (field(0, "k"), field(1, "p"), field(2, "v")),
    partition: tuple[str, ...] = ("p",),
    primary: tuple[str, ...] = ("k", "p"),
    options: dict[str, str] | None = None,
    highest: int | None = None,
) -> s.TableSchema:
    return s.TableSchema(
        version=3,
        id=0,
        fields=fields,
        highest_field_id=len(fields) - 1 if highest is None else highest,
        partition_keys=partition,
        primary_keys=primary,
        options={"bucket": "2"} if options is None else options,
    )


ROW = t.RowType((field(5, "x"), field(6, "y")))

RULES: list[tuple[str, Callable[[], s.TableSchema]]] = [
    ("SCHEMA_DUPLICATE_FIELD_NAME", lambda: table((field(0, "k"), field(1, "p"), field(2, "k")))),
    (
        "SCHEMA_DUPLICATE_FIELD_NAME",
        lambda: table(
            (field(0, "k"), field(1, "p"), field(2, "r", t.RowType((field(3, "x"), field(4, "x")))))
        ),
    ),
    ("SCHEMA_DUPLICATE_FIELD_ID", lambda: table((field(0, "k"), field(1, "p"), field(1, "v")))),
    (
        "SCHEMA_DUPLICATE_FIELD_ID",
        lambda: table((field(0, "k"), field(1, "p"), field(2, "r", t.RowType((field(0, "x"),))))),
    ),
    ("SCHEMA_HIGHEST_FIELD_ID", lambda: table(highest=1)),
    (
        "SCHEMA_HIGHEST_FIELD_ID",
        lambda: table((field(0, "k"), field(1, "p"), field(2, "r", ROW)), highest=5),
    ),
    (
        "SCHEMA_RESERVED_FIELD_NAME",
        lambda: table((field(0, "k"), field(1, "p"), field(2, "_SEQUENCE_NUMBER"))),
    ),
    (
        "SCHEMA_RESERVED_FIELD_NAME",
        lambda: table((field(0, "k"), field(1, "p"), field(2, "_KEY_v"))),
    ),
    ("SCHEMA_DUPLICATE_PARTITION_KEY", lambda: table(partition=("p", "p"))),
    ("SCHEMA_UNKNOWN_PARTITION_KEY", lambda: table(partition=("q",))),
    ("SCHEMA_DUPLICATE_PRIMARY_KEY", lambda: table(primary=("k", "k", "p"))),
    ("SCHEMA_UNKNOWN_PRIMARY_KEY", lambda: table(primary=("k", "x", "p"))),
    (
        "SCHEMA_UNSUPPORTED_KEY_TYPE",
        lambda: table(
            (field(0, "k", t.ArrayType(t.IntType()).copy(False)), field(1, "p"), field(2, "v"))
        ),
    ),
    (
        "SCHEMA_UNSUPPORTED_KEY_TYPE",
        lambda: table((field(0, "k"), field(1, "p", t.MapType(nullable=False)), field(2, "v"))),
    ),
    (
        "SCHEMA_NULLABLE_PRIMARY_KEY",
        lambda: table((field(0, "k", t.IntType()), field(1, "p"), field(2, "v"))),
    ),
    ("SCHEMA_PRIMARY_KEY_ONLY_PARTITION", lambda: table(primary=("p",))),
    ("SCHEMA_UNKNOWN_BUCKET_KEY", lambda: table(options={"bucket": "2", "bucket-key": "z"})),
    (
        "SCHEMA_UNKNOWN_BUCKET_KEY",
        lambda: table(primary=("k", "v", "p"), options={"bucket": "2", "bucket-key": "k, v"}),
    ),
    ("SCHEMA_BUCKET_KEY_IN_PARTITION", lambda: table(options={"bucket": "2", "bucket-key": "p"})),
    (
        "SCHEMA_BUCKET_KEY_NOT_IN_PRIMARY_KEY",
        lambda: table(options={"bucket": "2", "bucket-key": "v"}),
    ),
    (
        "SCHEMA_BUCKET_KEY_WITH_DYNAMIC_BUCKET",
        lambda: table(options={"bucket": "-1", "bucket-key": "k"}),
    ),
    (
        "SCHEMA_APPEND_FULL_COMPACTION",
        lambda: table(primary=(), options={"full-compaction.delta-commits": "1"}),
    ),
    (
        "SCHEMA_POSTPONE_BUCKET_WITHOUT_PRIMARY_KEY",
        lambda: table(primary=(), options={"bucket": "-2"}),
    ),
    ("SCHEMA_APPEND_BUCKET_WITHOUT_BUCKET_KEY", lambda: table(primary=())),
    (
        "SCHEMA_NESTED_BUCKET_KEY",
        lambda: table(
            (field(0, "k"), field(1, "p"), field(2, "r", ROW)),
            primary=(),
            options={"bucket": "2", "bucket-key": "r"},
            highest=6,
        ),
    ),
    (
        "SCHEMA_UNKNOWN_OPTION_FIELD",
        lambda: table(options={"bucket": "2", "fields.z.ignore-retract": "true"}),
    ),
    (
        "SCHEMA_UNKNOWN_SEQUENCE_FIELD",
        lambda: table(options={"bucket": "2", "sequence.field": "z"}),
    ),
    (
        "SCHEMA_DUPLICATE_SEQUENCE_FIELD",
        lambda: table(options={"bucket": "2", "sequence.field": "v,v"}),
    ),
    (
        "SCHEMA_AGGREGATED_SEQUENCE_FIELD",
        lambda: table(
            options={"bucket": "2", "sequence.field": "v", "fields.v.aggregate-function": "sum"}
        ),
    ),
    (
        "SCHEMA_SEQUENCE_FIELD_FIRST_ROW",
        lambda: table(options={"bucket": "2", "sequence.field": "v", "merge-engine": "first-row"}),
    ),
    (
        "SCHEMA_SEQUENCE_FIELD_CROSS_PARTITION",
        lambda: table(primary=("k",), options={"bucket": "-1", "sequence.field": "v"}),
    ),
    (
        "SCHEMA_SEQUENCE_GROUP",
        lambda: table(
            options={
                "bucket": "2",
                "merge-engine": "partial-update",
                "fields.v.sequence-group": "z",
            }
        ),
    ),
    (
        "SCHEMA_SEQUENCE_GROUP",
        lambda: table(
            (field(0, "k"), field(1, "p"), field(2, "v"), field(3, "s1"), field(4, "s2")),
            options={
                "bucket": "2",
                "merge-engine": "partial-update",
                "fields.s1.sequence-group": "v",
                "fields.s2.sequence-group": "v",
            },
        ),
    ),
    (
        "SCHEMA_SEQUENCE_GROUP",
        lambda: table(
            (field(0, "k"), field(1, "p"), field(2, "v"), field(3, "s1")),
            options={
                "bucket": "2",
                "merge-engine": "partial-update",
                "fields.s1.sequence-group": "v",
                "fields.s1.aggregate-function": "max",
            },
        ),
    ),
    (
        "SCHEMA_CHANGELOG_WITHOUT_PRIMARY_KEY",
        lambda: table(primary=(), options={"bucket": "-1", "changelog-producer": "input"}),
    ),
    (
        "SCHEMA_STREAMING_OVERWRITE_WITHOUT_PRIMARY_KEY",
        lambda: table(primary=(), options={"bucket": "-1", "streaming-read-overwrite": "true"}),
    ),
    ("SCHEMA_UNKNOWN_ROWKIND_FIELD", lambda: table(options={"bucket": "2", "rowkind.field": "z"})),
    (
        "SCHEMA_FORMAT_TYPE",
        lambda: table(
            (field(0, "k"), field(1, "p"), field(2, "v", t.TimestampType(9))),
            options={"bucket": "2", "file.format": "avro"},
        ),
    ),
]


def test_a_type_the_file_format_cannot_hold_names_the_column() -> None:
    nanos = (field(0, "k"), field(1, "p"), field(2, "v", t.TimestampType(9)))
    with pytest.raises(SpecViolation, match=r"column 'v'.*TIMESTAMP\(9\)"):
        s.validate_schema(table(nanos, options={"bucket": "2", "file.format": "avro"}))
    s.validate_schema(table(nanos, options={"bucket": "2", "file.format": "parquet"}))


@pytest.mark.parametrize(("code", "build"), RULES)
def test_each_rule_has_its_code(code: str, build: Callable[[], s.TableSchema]) -> None:
    with pytest.raises(SpecViolation) as raised:
        s.validate_schema(build())
    assert raised.value.code == code


def test_valid_tables() -> None:
    s.validate_schema(table())
    s.validate_schema(table(primary=("k",), options={"bucket": "-1"}))  # cross-partition update
    s.validate_schema(table(primary=("k",), options={"bucket": "4"}))  # allowed on main
    s.validate_schema(table(primary=(), options={"bucket": "2", "bucket-key": "k"}))
    s.validate_schema(table(primary=(), options={"bucket": "-1"}))
    s.validate_schema(table(options={"bucket": "-2"}))
    s.validate_schema(table(options={"bucket": "2", "primary-key.nullable": "true"}))
    s.validate_schema(table(options={"bucket": "2", "fields.default-aggregate-function": "sum"}))


def test_option_values_are_checked_first() -> None:
    with pytest.raises(InvalidOptionError) as raised:
        s.validate_schema(table(options={"bucket": "0"}))
    assert raised.value.option == "bucket"


def test_trimmed_primary_key_of_partition_only_key() -> None:
    with pytest.raises(SpecViolation) as raised:
        _ = table(primary=("p",)).bucket_keys
    assert raised.value.code == "SCHEMA_PRIMARY_KEY_ONLY_PARTITION"


# --------------------------------------------------------------------------------------------
# Creating a schema
# --------------------------------------------------------------------------------------------


def test_compute_table_schema_normalizes_like_java() -> None:
    nested = t.RowType((t.DataField(7, "x", t.IntType()),))
    created = s.compute_table_schema(
        0,
        (
            t.DataField(0, "k", t.IntType()),
            t.DataField(1, "p", STRING),
            t.DataField(2, "r", nested),
        ),
        partition_keys=(),
        primary_keys=(),
        options={"primary-key": "k, p", "partition": "p", "bucket": "2"},
        comment=None,
        time_millis=5,
    )
    assert created.primary_keys == ("k", "p")
    assert created.partition_keys == ("p",)
    assert dict(created.options) == {"bucket": "2"}
    assert [f.type.nullable for f in created.fields] == [False, False, True]
    assert created.highest_field_id == 7
    with pytest.raises(SpecViolation) as raised:
        s.compute_table_schema(
            0,
            (t.DataField(0, "k", t.IntType()),),
            partition_keys=(),
            primary_keys=("k",),
            options={"primary-key": "k"},
            comment=None,
            time_millis=5,
        )
    assert raised.value.code == "SCHEMA_KEYS_DEFINED_TWICE"


# --------------------------------------------------------------------------------------------
# Evolution rules
# --------------------------------------------------------------------------------------------


def evolve(
    schema: s.TableSchema, *changes: s.SchemaChange, has_snapshots: bool = True
) -> s.TableSchema:
    return s.apply_schema_changes(schema, changes, has_snapshots=has_snapshots, time_millis=9)


def test_added_columns_get_new_ids_children_first() -> None:
    nested = t.RowType(
        (field(0, "a", t.IntType()), field(0, "b", t.RowType((field(0, "c", t.IntType()),))))
    )
    new = evolve(table(), s.AddColumn(("n",), nested))
    column = new.fields[-1]
    assert column.id == 3
    assert isinstance(column.type, t.RowType)
    a, b = column.type.fields
    assert isinstance(b.type, t.RowType)
    assert (a.id, b.type.fields[0].id, b.id) == (4, 5, 6)
    assert new.highest_field_id == 6
    assert new.id == 1
    assert new.version == s.CURRENT_SCHEMA_VERSION
    assert new.time_millis == 9


def nested_names(schema: s.TableSchema, index: int) -> list[str]:
    row = schema.fields[index].type
    assert isinstance(row, t.RowType)
    return row.field_names


def test_nested_paths() -> None:
    base = table((field(0, "k"), field(1, "p"), field(2, "r", ROW)), highest=6)
    added = evolve(base, s.AddColumn(("r", "z"), t.IntType(), move=s.Move("z", s.MoveKind.FIRST)))
    assert nested_names(added, 2) == ["z", "x", "y"]
    assert added.highest_field_id == 7
    renamed = evolve(base, s.RenameColumn(("r", "x"), "w"))
    assert nested_names(renamed, 2) == ["w", "y"]
    dropped = evolve(base, s.DropColumn(("r", "y")))
    assert nested_names(dropped, 2) == ["x"]
    arrays = table((field(0, "k"), field(1, "p"), field(2, "v", t.ArrayType(t.IntType()))))
    widened = evolve(arrays, s.UpdateColumnType(("v", "element"), t.BigIntType()))
    assert widened.fields[2].type == t.ArrayType(t.BigIntType())


def test_moves() -> None:
    base = table(
        (field(0, "a"), field(1, "b"), field(2, "c"), field(3, "d")), partition=(), primary=("a",)
    )

    def order(move: s.Move) -> list[str]:
        return evolve(base, s.UpdateColumnPosition(move)).field_names

    assert order(s.Move("d", s.MoveKind.FIRST)) == ["d", "a", "b", "c"]
    assert order(s.Move("a", s.MoveKind.LAST)) == ["b", "c", "d", "a"]
    assert order(s.Move("a", s.MoveKind.AFTER, "c")) == ["b", "c", "a", "d"]
    assert order(s.Move("d", s.MoveKind.BEFORE, "b")) == ["a", "d", "b", "c"]
    assert order(s.Move("d", s.MoveKind.AFTER, "a")) == ["a", "d", "b", "c"]


def test_renames_follow_into_keys_and_options() -> None:
    base = table(
        (field(0, "k"), field(1, "p"), field(2, "v"), field(3, "w")),
        primary=("k", "p"),
        options={
            "bucket": "2",
            "bucket-key": "k",
            "merge-engine": "partial-update",
            "fields.w.sequence-group": "v",
            "fields.v.ignore-retract": "true",
        },
    )
    new = evolve(
        base,
        s.RenameColumn(("k",), "key"),
        s.RenameColumn(("w",), "seq"),
        s.RenameColumn(("v",), "val"),
    )
    assert new.primary_keys == ("key", "p")
    assert dict(new.options) == {
        "bucket": "2",
        "bucket-key": "key",
        "merge-engine": "partial-update",
        "fields.seq.sequence-group": "val",
        "fields.val.ignore-retract": "true",
    }


def test_option_changes() -> None:
    base = table()
    assert (
        evolve(base, s.SetOption("snapshot.num-retained.min", "3")).options[
            "snapshot.num-retained.min"
        ]
        == "3"
    )
    assert "x" not in evolve(base, s.SetOption("x", "1"), s.RemoveOption("x")).options
    assert evolve(base, s.SetOption("bucket", "4")).num_buckets == 4
    assert (
        evolve(
            base, s.SetOption("merge-engine", "first-row"), has_snapshots=False
        ).core_options.merge_engine.value
        == "first-row"
    )
    assert evolve(base, s.SetOption("type", "TABLE")).options == base.options
    assert evolve(base, s.SetOption("primary-key", "k,p")).options == base.options
    assert evolve(base, s.UpdateComment("hello")).comment == "hello"


def test_widening_and_explicit_casts() -> None:
    base = table((field(0, "k"), field(1, "p"), field(2, "v", t.IntType())))
    assert evolve(base, s.UpdateColumnType(("v",), t.BigIntType())).fields[2].type == t.BigIntType()
    assert evolve(base, s.UpdateColumnType(("v",), STRING)).fields[2].type == STRING
    kept = evolve(
        base, s.UpdateColumnType(("v",), t.BigIntType(nullable=False), keep_nullability=True)
    )
    assert kept.fields[2].type == t.BigIntType()
    strict = replace(base, options={"bucket": "2", "disable-explicit-type-casting": "true"})
    with pytest.raises(SpecViolation) as raised:
        evolve(strict, s.UpdateColumnType(("v",), t.SmallIntType()))
    assert raised.value.code == "EVOLUTION_INCOMPATIBLE_TYPE"
    allowed = replace(
        base, options={"bucket": "2", "alter-column-null-to-not-null.disabled": "false"}
    )
    assert not evolve(allowed, s.UpdateColumnNullability(("v",), False)).fields[2].type.nullable


EVOLUTION_RULES: list[tuple[str, s.SchemaChange, bool]] = [
    ("EVOLUTION_COLUMN_EXISTS", s.AddColumn(("v",), t.IntType()), True),
    ("EVOLUTION_COLUMN_EXISTS", s.RenameColumn(("v",), "k"), True),
    ("EVOLUTION_COLUMN_NOT_FOUND", s.DropColumn(("z",)), True),
    ("EVOLUTION_COLUMN_NOT_FOUND", s.AddColumn(("z", "y"), t.IntType()), True),
    (
        "EVOLUTION_COLUMN_NOT_FOUND",
        s.AddColumn(("y",), t.IntType(), move=s.Move("y", s.MoveKind.AFTER, "z")),
        True,
    ),
    ("EVOLUTION_COLUMN_NOT_FOUND", s.UpdateColumnComment(("z",), "c"), True),
    ("EVOLUTION_ADD_NOT_NULL", s.AddColumn(("n",), t.IntType(nullable=False)), True),
    ("EVOLUTION_RENAME_PARTITION_KEY", s.RenameColumn(("p",), "q"), True),
    ("EVOLUTION_DROP_KEY", s.DropColumn(("p",)), True),
    ("EVOLUTION_DROP_KEY", s.DropColumn(("k",)), True),
    ("EVOLUTION_UPDATE_KEY_TYPE", s.UpdateColumnType(("p",), t.BigIntType()), True),
    ("EVOLUTION_UPDATE_KEY_TYPE", s.UpdateColumnType(("k",), t.BigIntType()), True),
    ("EVOLUTION_INCOMPATIBLE_TYPE", s.UpdateColumnType(("v",), t.DateType(nullable=False)), True),
    ("EVOLUTION_NULL_TO_NOT_NULL", s.UpdateColumnNullability(("n",), False), True),
    ("EVOLUTION_NULL_TO_NOT_NULL", s.UpdateColumnType(("n",), t.BigIntType(nullable=False)), True),
    ("EVOLUTION_NULLABLE_PRIMARY_KEY", s.UpdateColumnNullability(("k",), True), True),
    ("EVOLUTION_MOVE_ITSELF", s.UpdateColumnPosition(s.Move("v", s.MoveKind.AFTER, "v")), True),
    ("EVOLUTION_MOVE_ITSELF", s.UpdateColumnPosition(s.Move("k", s.MoveKind.FIRST)), True),
    ("EVOLUTION_IMMUTABLE_OPTION", s.SetOption("merge-engine", "first-row"), True),
    ("EVOLUTION_IMMUTABLE_OPTION", s.SetOption("type", "format-table"), False),
    ("EVOLUTION_IMMUTABLE_OPTION", s.RemoveOption("bucket-key"), True),
    ("EVOLUTION_BUCKET_CHANGE", s.SetOption("bucket", "-1"), True),
    ("EVOLUTION_BUCKET_CHANGE", s.RemoveOption("bucket"), True),
    ("EVOLUTION_DELETION_VECTORS_CHANGE", s.SetOption("deletion-vectors.enabled", "true"), True),
    ("EVOLUTION_ONE_WAY_OPTION", s.SetOption("ignore-delete", "false"), True),
    ("EVOLUTION_DROP_PRIMARY_KEY", s.DropPrimaryKey(), True),
    ("SCHEMA_KEYS_DEFINED_TWICE", s.SetOption("primary-key", "v"), False),
    ("SCHEMA_UNKNOWN_SEQUENCE_FIELD", s.SetOption("sequence.field", "gone"), True),
]


@pytest.mark.parametrize(("code", "change", "has_snapshots"), EVOLUTION_RULES)
def test_each_evolution_rule_has_its_code(
    code: str, change: s.SchemaChange, has_snapshots: bool
) -> None:
    base = table(
        (field(0, "k"), field(1, "p"), field(2, "v"), field(3, "n", t.IntType())),
        options={"bucket": "2", "ignore-delete": "true"},
    )
    with pytest.raises(SpecViolation) as raised:
        evolve(base, change, has_snapshots=has_snapshots)
    assert raised.value.code == code


def test_dropping_every_nested_field_is_refused() -> None:
    base = table(
        (field(0, "k"), field(1, "p"), field(2, "r", t.RowType((field(3, "x", t.IntType()),))))
    )
    with pytest.raises(SpecViolation) as raised:
        evolve(base, s.DropColumn(("r", "x")))
    assert raised.value.code == "EVOLUTION_DROP_ALL_FIELDS"


def test_changes_allowed_without_snapshots() -> None:
    base = table(options={"bucket": "2", "deletion-vectors.enabled": "false"})
    assert evolve(
        base, s.SetOption("deletion-vectors.enabled", "true"), has_snapshots=False
    ).core_options.deletion_vectors_enabled
    assert (
        evolve(
            base, s.DropPrimaryKey(), s.SetOption("bucket-key", "k"), has_snapshots=False
        ).primary_keys
        == ()
    )
