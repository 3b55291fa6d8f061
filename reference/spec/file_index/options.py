"""The ``file-index.*`` table options: their wire names and how a key is read.

Spec: ``docs/concepts/spec/fileindex.mdx`` and the table options ``file-index.<type>.columns``,
``file-index.<type>.<column>.<option>``, ``file-index.in-manifest-threshold`` and
``file-index.read.enabled``. Java: ``fileindex/FileIndexOptions`` (0.9.0), ``CoreOptions``.

Rules (what a key means; which indexes a table builds and how it uses them is the writer's and
the reader's business, ``reference.store.file_index`` and ``spark_impl.file_index``):

1. ``file-index.<type>.columns`` lists, comma-separated with blanks trimmed as Java's ``trim``
   does, the columns that get an index of ``<type>``; an empty name is an error and a nested
   column (``map[key]``) is not supported here.
2. ``file-index.<type>.<column>.<option>`` (exactly three dot-separated parts after the prefix)
   sets one option of one index; any other key under the prefix (``read.enabled``,
   ``in-manifest-threshold``) is not an index option.
3. Java keeps the requests in a ``HashMap`` keyed by ``FileIndexOptions.Column``, whose hash
   for a plain column is ``Arrays.hashCode({name, null, false})`` (:func:`compute_column_key_hash`);
   that hash decides the order in which the writer meets the columns.
"""

from __future__ import annotations

from collections.abc import Mapping

from reference.errors import InvalidOptionError, UnsupportedFeature
from reference.spec.file_index import bitmap as bm
from reference.spec.file_index.container import BITMAP, BLOOM_FILTER, BSI
from reference.spec.file_index.java_order import (
    BOOLEAN_FALSE_HASH,
    compute_java_string_hash,
    to_int32,
)
from reference.spec.options import JAVA_WHITESPACE, split_java

OPTION_PREFIX = "file-index."
COLUMNS_SUFFIX = ".columns"
INDEX_OPTION_PARTS = 3
"""``<type>.<column>.<option>`` after the prefix."""
THRESHOLD_OPTION = "file-index.in-manifest-threshold"
READ_ENABLED_OPTION = "file-index.read.enabled"
NESTED_COLUMN_OPEN = "["
BUILT_INDEX_TYPES = (BLOOM_FILTER, BITMAP, BSI)
"""The index types a writer builds (``range-bitmap`` and others have no codec here)."""

BLOOM_ITEMS_OPTION = "items"
BLOOM_FPP_OPTION = "fpp"
BITMAP_VERSION_OPTION = "version"
BITMAP_BLOCK_SIZE_OPTION = "index-block-size"
WRITER_BITMAP_VERSION = bm.BitmapVersion.V1
"""The bitmap version written without a ``version`` option: Paimon 0.9.0 and 1.0 write (and
read) only version 1, so tables stay readable by every Paimon version."""

JAVA_HASH_MULTIPLIER = 31
"""``Arrays.hashCode``: ``h = 31 * h + element hash``, from ``h = 1`` (null hashes to 0)."""


def compute_columns_key(index_type: str) -> str:
    return f"{OPTION_PREFIX}{index_type}{COLUMNS_SUFFIX}"


def compute_option_key(index_type: str, column: str, option: str) -> str:
    return f"{OPTION_PREFIX}{index_type}.{column}.{option}"


def parse_columns_key(key: str) -> str | None:
    """Rule 1: the index type of a ``file-index.<type>.columns`` key, else None."""
    if not key.startswith(OPTION_PREFIX) or not key.endswith(COLUMNS_SUFFIX):
        return None
    return key[len(OPTION_PREFIX) : -len(COLUMNS_SUFFIX)]


def parse_index_option_key(key: str) -> tuple[str, str, str] | None:
    """Rule 2: ``(type, column, option)`` of a ``file-index.<type>.<column>.<option>`` key,
    else None."""
    if not key.startswith(OPTION_PREFIX) or parse_columns_key(key) is not None:
        return None
    parts = split_java(key[len(OPTION_PREFIX) :], ".")
    if len(parts) != INDEX_OPTION_PARTS:
        return None
    return parts[0], parts[1], parts[2]


def parse_indexed_columns(key: str, text: str) -> list[str]:
    """Rule 1: the columns of a ``columns`` option (Java ``String.split`` and ``trim``)."""
    columns = [piece.strip(JAVA_WHITESPACE) for piece in split_java(text)]
    if not columns or any(not column for column in columns):
        raise InvalidOptionError(key, text, "lists an empty column name")
    for column in columns:
        if NESTED_COLUMN_OPEN in column:
            raise UnsupportedFeature(f"file index on a map entry ('{column}' in '{key}')")
    return columns


def collect_index_requests(options: Mapping[str, str]) -> dict[tuple[str, str], dict[str, str]]:
    """Rules 1-2: ``(column, type) -> {option: text}`` for every requested index, in the order
    the options list the columns; an option for a column its type does not list is an error."""
    requested: dict[tuple[str, str], dict[str, str]] = {}
    for key, text in options.items():
        index_type = parse_columns_key(key)
        if index_type is not None:
            for column in parse_indexed_columns(key, text):
                requested.setdefault((column, index_type), {})
    for key, text in options.items():
        parsed = parse_index_option_key(key)
        if parsed is None:
            continue
        index_type, column, option = parsed
        if (column, index_type) not in requested:
            raise InvalidOptionError(
                key, text, f"column '{column}' is not listed in '{compute_columns_key(index_type)}'"
            )
        requested[(column, index_type)][option] = text
    return requested


def compute_column_key_hash(column: str) -> int:
    """Rule 3: ``hashCode`` of Java's ``FileIndexOptions.Column`` for a plain column,
    ``Arrays.hashCode({name, null, false})``."""
    result = to_int32(JAVA_HASH_MULTIPLIER + compute_java_string_hash(column))
    result = to_int32(JAVA_HASH_MULTIPLIER * result)
    return to_int32(JAVA_HASH_MULTIPLIER * result + BOOLEAN_FALSE_HASH)
