"""Table options: the value grammar of Java's ``OptionsUtils``/``MemorySize``/``TimeUtils``,
defaults, fallback keys, and every invalid value raising ``InvalidOptionError`` naming its key.

Expected values are computed by hand from the Java rules (units are powers of 1024; durations
without a unit are milliseconds; enums compare case-insensitively by their printed value)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference.errors import InvalidOptionError
from reference.spec import options as o
from reference.spec.schema import decode_schema

MIB = 1024 * 1024
SECOND = 1_000_000_000


# --------------------------------------------------------------------------------------------
# Grammar
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("1", 1),
        ("500 B", 500),
        ("1b", 1),
        ("3 bytes", 3),
        ("2k", 2048),
        ("2 KB", 2048),
        ("4 kibibytes", 4096),
        ("128 mb", 128 * MIB),
        ("64MB", 64 * MIB),
        ("8 mebibytes", 8 * MIB),
        ("1 g", 1024 * MIB),
        ("1 gb", 1024 * MIB),
        ("2 t", 2 * 1024**4),
        ("  16 kb  ", 16 * 1024),
        ("9223372036854775807 bytes", 2**63 - 1),
    ],
)
def test_memory_sizes(text: str, expected: int) -> None:
    assert o.parse_memory_size(text) == expected


@pytest.mark.parametrize(
    "text", ["", "  ", "mb", "-1 mb", "1.5 mb", "1 xb", "10 mbs", "9223372036854775807 kb"]
)
def test_bad_memory_sizes(text: str) -> None:
    with pytest.raises(ValueError):
        o.parse_memory_size(text)


@pytest.mark.parametrize(
    ("text", "expected_nanos"),
    [
        ("10", 10 * 1_000_000),
        ("1 h", 3600 * SECOND),
        ("2 hours", 7200 * SECOND),
        ("1 d", 86_400 * SECOND),
        ("3 days", 3 * 86_400 * SECOND),
        ("5 min", 300 * SECOND),
        ("5 m", 300 * SECOND),
        ("1 minutes", 60 * SECOND),
        ("7 s", 7 * SECOND),
        ("7 secs", 7 * SECOND),
        ("7 seconds", 7 * SECOND),
        ("10 ms", 10 * 1_000_000),
        ("10 millis", 10 * 1_000_000),
        ("10 µs", 10_000),
        ("10 micros", 10_000),
        ("10 ns", 10),
        ("10 NANOSECONDS", 10),
        ("0 ms", 0),
    ],
)
def test_durations(text: str, expected_nanos: int) -> None:
    assert o.parse_duration(text) == expected_nanos


@pytest.mark.parametrize(
    "text", ["", "h", "-1 s", "1.5 h", "1 fortnight", "1 hr", "9223372036854775807 d"]
)
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError):
        o.parse_duration(text)


def test_booleans_are_case_insensitive_but_exact() -> None:
    assert o.parse_boolean("TRUE") is True
    assert o.parse_boolean("False") is False
    for text in (" true", "yes", "1", "", "truee"):
        with pytest.raises(ValueError):
            o.parse_boolean(text)


def test_integers_follow_java_parse_int() -> None:
    assert o.parse_int("+5") == 5
    assert o.parse_int("-2147483648") == -(2**31)
    assert o.parse_long("9223372036854775807") == 2**63 - 1
    for text in ("2147483648", " 5", "5 ", "1_000", "0x10", "", "1.0"):
        with pytest.raises(ValueError):
            o.parse_int(text)


def test_doubles_follow_java_parse_double() -> None:
    assert o.parse_double("0.75F") == 0.75
    assert o.parse_double(" 1e3 ") == 1000.0
    assert o.parse_double("-Infinity") == float("-inf")
    for text in ("", "abc", "1..2", "inf", "1_0"):
        with pytest.raises(ValueError):
            o.parse_double(text)


def test_enums_compare_printed_values_ignoring_case() -> None:
    assert o.parse_enum(o.MergeEngine, "PARTIAL-UPDATE") is o.MergeEngine.PARTIAL_UPDATE
    assert o.parse_enum(o.MergeEngine, "aggregation") is o.MergeEngine.AGGREGATE
    assert o.parse_enum(o.RangeStrategy, "size") is o.RangeStrategy.SIZE
    for text in ("partial_update", "aggregate", ""):
        with pytest.raises(ValueError):
            o.parse_enum(o.MergeEngine, text)


def test_maps_and_quoting() -> None:
    assert o.parse_map("0:avro,3:parquet") == {"0": "avro", "3": "parquet"}
    assert o.parse_map(" 0 : lz4 , 1 : zstd ") == {"0": "lz4", "1": "zstd"}
    # Java quotes a whole item (k:v) for the ',' split, and a key or value inside it for ':'.
    assert o.parse_map("'''a:b'':c','\"x,y\":it''s'") == {"a:b": "c", "x,y": "it's"}
    assert o.parse_map("") == {}
    for text in ("0avro", "0:a:b", "'open:x", "'a'b:c", "'a:b':c", ",,"):
        with pytest.raises(ValueError):
            o.parse_map(text)


def test_lists_split_like_java() -> None:
    assert o.split_java("a,b,") == ["a", "b"]
    assert o.split_java("a,,b") == ["a", "", "b"]
    assert o.split_java(",") == []
    assert o.parse_name_list(" s0 , s1") == ["s0", "s1"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("none", "none"),
        ("COUNTS", "counts"),
        ("Full", "full"),
        ("truncate(16)", "truncate(16)"),
        ("TRUNCATE(3)", "truncate(3)"),
    ],
)
def test_stats_modes(text: str, expected: str) -> None:
    assert o.parse_stats_mode(text) == expected


# --------------------------------------------------------------------------------------------
# Registry and defaults
# --------------------------------------------------------------------------------------------


def test_registry_defaults_are_valid_values() -> None:
    for spec in o.TABLE_OPTIONS:
        if spec.default is not None:
            o.validate_option(spec.key, spec.default)
        assert (spec.kind is o.OptionType.ENUM) == (spec.enum is not None), spec.key
    for pattern in o.OPTION_PATTERNS:
        if pattern.default is not None:
            o.parse_option_value(pattern.kind, pattern.default, pattern.enum)


def test_registry_keys_are_unique_and_include_the_format_options() -> None:
    keys = [spec.key for spec in o.TABLE_OPTIONS]
    assert len(keys) == len(set(keys))
    for key in (
        "bucket",
        "bucket-key",
        "file.format",
        "manifest.format",
        "manifest.compression",
        "file.compression",
        "merge-engine",
        "sequence.field",
        "rowkind.field",
        "changelog-producer",
        "changelog-producer.row-deduplicate",
        "ignore-delete",
        "deletion-vectors.enabled",
        "num-sorted-run.compaction-trigger",
        "num-sorted-run.stop-trigger",
        "num-levels",
        "full-compaction.delta-commits",
        "target-file-size",
        "write-buffer-size",
        "dynamic-bucket.target-row-num",
        "snapshot.num-retained.min",
        "changelog.time-retained",
        "consumer.expiration-time",
        "scan.mode",
        "scan.snapshot-id",
        "incremental-between",
        "partition.default-name",
        "data-file.prefix",
        "changelog-file.prefix",
        "data-file.thin-mode",
        "file.format.per.level",
        "metadata.stats-mode",
        "commit.force-compact",
        "write-only",
        "record-level.expire-time",
    ):
        assert key in o.OPTIONS_BY_KEY, key
    assert "sequence.auto-padding" in o.LEGACY_OPTIONS


@pytest.mark.parametrize(
    ("key", "template"),
    [
        ("fields.price.aggregate-function", "fields.<field>.aggregate-function"),
        ("fields.g_1,g_2.sequence-group", "fields.<fields>.sequence-group"),
        ("fields.b.default-value", "fields.<field>.default-value"),
        ("fields.sub.nested-key", "fields.<field>.nested-key"),
        ("fields.tags.distinct", "fields.<field>.distinct"),
        ("fields.s.list-agg-delimiter", "fields.<field>.list-agg-delimiter"),
        ("fields.c.stats-mode", "fields.<field>.stats-mode"),
        ("file-index.bloom-filter.columns", "file-index.<index-type>.columns"),
        ("file-index.bloom-filter.f0.fpp", "file-index.bloom-filter.<column>.fpp"),
        ("commit.callback.com.x.Cb.param", None),
        ("commit.callback.Cb.param", "commit.callback.<class>.param"),
    ],
)
def test_patterns_match_their_keys(key: str, template: str | None) -> None:
    found = o.find_pattern(key)
    assert (found[0].template if found else None) == template


def test_defaults_of_core_options() -> None:
    options = o.CoreOptions({})
    assert options.bucket == -1
    assert options.bucket_key == []
    assert options.file_format == "parquet"
    assert options.manifest_format == "avro"
    assert options.file_compression == "zstd"
    assert options.manifest_compression == "zstd"
    assert options.merge_engine is o.MergeEngine.DEDUPLICATE
    assert options.changelog_producer is o.ChangelogProducer.NONE
    assert options.sequence_fields == []
    assert options.num_sorted_run_compaction_trigger == 5
    assert options.num_sorted_run_stop_trigger == 8
    assert options.num_levels == 6
    assert options.target_file_size(has_primary_key=True) == 128 * MIB
    assert options.target_file_size(has_primary_key=False) == 256 * MIB
    assert options.write_buffer_size == 256 * MIB
    assert options.partition_default_name == "__DEFAULT_PARTITION__"
    assert options.data_file_prefix == "data-"
    assert options.changelog_file_prefix == "changelog-"
    assert options.stats_mode == "truncate(16)"
    assert options.snapshot_num_retained_min == 10
    assert options.snapshot_num_retained_max == 2**31 - 1
    assert options.snapshot_time_retained == 3600 * SECOND
    assert options.changelog_num_retained_min == 10
    assert options.changelog_time_retained == 3600 * SECOND
    assert options.dynamic_bucket_target_row_num == 2_000_000
    assert options.startup_mode is o.StartupMode.LATEST_FULL
    assert options.ignore_delete is False
    assert options.deletion_vectors_enabled is False
    assert options.full_compaction_delta_commits is None


def test_derived_values() -> None:
    options = o.CoreOptions(
        {
            "num-sorted-run.compaction-trigger": "3",
            "num-sorted-run.stop-trigger": "2",
            "snapshot.num-retained.min": "4",
            "sequence.field": "s0, s1",
            "bucket-key": "a, b",
            "merge-engine": "Partial-Update",
            "fields.c.stats-mode": "FULL",
            "fields.a,b.sequence-group": "c,d",
            "file.format.per.level": "0:AVRO,3:parquet",
            "target-file-size": "1 mb",
        }
    )
    assert options.num_sorted_run_stop_trigger == 3  # never below the compaction trigger
    assert options.num_levels == 4
    assert options.changelog_num_retained_min == 4
    assert options.sequence_fields == ["s0", "s1"]
    assert options.bucket_key == ["a", " b"]  # Java does not trim bucket keys
    assert options.merge_engine is o.MergeEngine.PARTIAL_UPDATE
    assert options.field_stats_mode("c") == "full"
    assert options.field_stats_mode("d") == "truncate(16)"
    assert options.sequence_groups == {("a", "b"): ["c", "d"]}
    assert options.file_format_per_level == {0: "avro", 3: "parquet"}
    assert options.target_file_size(has_primary_key=True) == MIB


@pytest.mark.parametrize("key", ["first-row.ignore-delete", "partial-update.ignore-delete"])
def test_fallback_keys_are_read(key: str) -> None:
    assert o.CoreOptions({key: "true"}).ignore_delete is True
    assert o.CoreOptions({"ignore-delete": "false", key: "true"}).ignore_delete is False
    with pytest.raises(InvalidOptionError) as raised:
        o.validate_options({key: "maybe"})
    assert raised.value.option == key


@pytest.mark.parametrize(
    ("options", "mode"),
    [
        ({"scan.snapshot-id": "3"}, o.StartupMode.FROM_SNAPSHOT),
        ({"scan.tag-name": "t"}, o.StartupMode.FROM_SNAPSHOT),
        ({"scan.timestamp-millis": "1"}, o.StartupMode.FROM_TIMESTAMP),
        ({"incremental-between": "1,2"}, o.StartupMode.INCREMENTAL),
        ({"scan.file-creation-time-millis": "1"}, o.StartupMode.FROM_FILE_CREATION_TIME),
        ({"scan.mode": "full"}, o.StartupMode.LATEST_FULL),
        ({"scan.mode": "latest"}, o.StartupMode.LATEST),
        ({"log.scan": "compacted-full"}, o.StartupMode.COMPACTED_FULL),
    ],
)
def test_startup_mode_resolution(options: dict[str, str], mode: o.StartupMode) -> None:
    assert o.CoreOptions(options).startup_mode is mode
    o.validate_options(options)


# --------------------------------------------------------------------------------------------
# Validation: each invalid value names its option
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"bucket": "0"}, "bucket"),
        ({"bucket": "-3"}, "bucket"),
        ({"bucket": "two"}, "bucket"),
        ({"bucket": "2147483648"}, "bucket"),
        ({"merge-engine": "partial_update"}, "merge-engine"),
        ({"changelog-producer": "always"}, "changelog-producer"),
        ({"sort-engine": "quick"}, "sort-engine"),
        ({"file.format": "xls"}, "file.format"),
        ({"manifest.format": "json"}, "manifest.format"),
        ({"changelog-file.format": "xls"}, "changelog-file.format"),
        ({"write-buffer-size": "-1 mb"}, "write-buffer-size"),
        ({"write-buffer-size": "lots"}, "write-buffer-size"),
        ({"target-file-size": "1.5 gb"}, "target-file-size"),
        ({"snapshot.time-retained": "1 fortnight"}, "snapshot.time-retained"),
        ({"snapshot.num-retained.min": "0"}, "snapshot.num-retained.min"),
        ({"snapshot.num-retained.max": "0"}, "snapshot.num-retained.max"),
        ({"changelog.num-retained.min": "0"}, "changelog.num-retained.min"),
        ({"deletion-vectors.enabled": "yes"}, "deletion-vectors.enabled"),
        ({"dynamic-bucket.target-row-num": "0"}, "dynamic-bucket.target-row-num"),
        ({"dynamic-bucket.max-buckets": "0"}, "dynamic-bucket.max-buckets"),
        ({"sort-spill-threshold": "1"}, "sort-spill-threshold"),
        ({"compaction.offpeak.start.hour": "24"}, "compaction.offpeak.start.hour"),
        ({"scan.snapshot-id": "first"}, "scan.snapshot-id"),
        ({"metadata.stats-mode": "truncate(0)"}, "metadata.stats-mode"),
        ({"metadata.stats-mode": "some"}, "metadata.stats-mode"),
        ({"fields.a.stats-mode": "some"}, "fields.a.stats-mode"),
        ({"fields.a.ignore-retract": "no"}, "fields.a.ignore-retract"),
        ({"file.format.per.level": "zero:avro"}, "file.format.per.level"),
        ({"file.format.per.level": "0:xls"}, "file.format.per.level"),
        ({"file.format.per.level": "0avro"}, "file.format.per.level"),
        ({"metadata.stats-mode.per.level": "0:most"}, "metadata.stats-mode.per.level"),
        ({"partition.mark-done-action": "success-file,fax"}, "partition.mark-done-action"),
        ({"lookup.hash-load-factor": "high"}, "lookup.hash-load-factor"),
        ({"write-only": "1"}, "write-only"),
        ({"write.compaction-skip": "1"}, "write.compaction-skip"),
        (
            {"snapshot.num-retained.min": "20", "snapshot.num-retained.max": "10"},
            "snapshot.num-retained.min",
        ),
        (
            {"changelog.num-retained.min": "20", "changelog.num-retained.max": "10"},
            "changelog.num-retained.min",
        ),
        ({"scan.mode": "from-snapshot"}, "scan.mode"),
        (
            {"scan.mode": "from-snapshot", "scan.snapshot-id": "1", "scan.tag-name": "t"},
            "scan.mode",
        ),
        ({"scan.mode": "latest", "scan.snapshot-id": "1"}, "scan.snapshot-id"),
        ({"scan.snapshot-id": "1", "scan.timestamp-millis": "5"}, "scan.snapshot-id"),
        ({"incremental-between": "1,2", "scan.tag-name": "t"}, "incremental-between"),
        (
            {"deletion-vectors.enabled": "true", "merge-engine": "first-row"},
            "deletion-vectors.enabled",
        ),
        (
            {"deletion-vectors.enabled": "true", "changelog-producer": "full-compaction"},
            "changelog-producer",
        ),
        ({"merge-engine": "first-row", "changelog-producer": "input"}, "changelog-producer"),
        (
            {"streaming-read-overwrite": "true", "changelog-producer": "lookup"},
            "streaming-read-overwrite",
        ),
        (
            {"merge-engine": "aggregation", "fields.v.aggregate-function": "median"},
            "fields.v.aggregate-function",
        ),
        (
            {"merge-engine": "partial-update", "fields.default-aggregate-function": "avg"},
            "fields.default-aggregate-function",
        ),
    ],
)
def test_invalid_values_name_the_option(options: dict[str, str], named: str) -> None:
    with pytest.raises(InvalidOptionError) as raised:
        o.validate_options(options)
    assert raised.value.option == named


def test_accepted_combinations() -> None:
    o.validate_options(
        {
            "bucket": "-2",
            "merge-engine": "AGGREGATION",
            "fields.v.aggregate-function": "sum",
            "fields.w.aggregate-function": "first_not_null_value",
            "changelog-producer": "lookup",
            "deletion-vectors.enabled": "true",
            "write-buffer-size": "64mb",
            "snapshot.time-retained": "30 min",
            "file.format": "ORC",
            "unknown.engine.option": "anything",
            "sequence.auto-padding": "row-kind-flag",
            "fields.x.aggregate-function": "sum",
        }
    )
    # Functions are only checked by engines that aggregate.
    o.validate_options({"fields.v.aggregate-function": "median"})


def test_typed_accessor_reports_bad_text() -> None:
    with pytest.raises(InvalidOptionError) as raised:
        _ = o.CoreOptions({"merge-engine": "median"}).merge_engine
    assert raised.value.option == "merge-engine"
    with pytest.raises(InvalidOptionError) as raised:
        o.CoreOptions({"fields.a.ignore-retract": "no"}).field_ignore_retract("a")
    assert raised.value.option == "fields.a.ignore-retract"
    with pytest.raises(InvalidOptionError) as raised:
        o.CoreOptions({"fields.a.stats-mode": "most"}).field_stats_mode("a")
    assert raised.value.option == "fields.a.stats-mode"


def test_java_written_table_options_are_valid(third_party: Path) -> None:
    paths = sorted((third_party / "paimon-cpp/parquet").glob("*/*/schema/schema-*"))
    assert paths
    for path in paths:
        o.validate_options(decode_schema(path.read_bytes()).options)
