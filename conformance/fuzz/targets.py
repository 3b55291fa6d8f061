"""The parsers under fuzzing and their seed files.

A :class:`FuzzTarget` names one decoder of the kit; it takes the (mutated) bytes and the
seed's *context* (what the file does not say about itself: the field types of a BinaryRow or
a data file, the type of a bitmap index). Seeds come from two places:

* the Java-written third-party tables and files (``../shared/third-party``), when present;
* files the reference writes in a scratch directory (:func:`write_reference_corpus`): tables
  with every manifest format, deletion vectors, a hash index, changelog files, bloom / bitmap /
  BSI file indexes, data files in Parquet, ORC and Avro, a tag and a consumer; plus BinaryRows
  of many types encoded directly.

``isolated`` targets hand bytes to pyarrow's C++ Parquet reader in this process; the runner
executes them in a child process only, so that an abort would be recorded (none has been seen).
ORC targets decode as the validator does: the C++ ORC reader runs in the kit's worker process
(``reference.isolation``), which turns its crashes (frequent on garbled ORC) into
``PaimonFormatError``, so they run in process like the pure-Python parsers.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from reference import layout
from reference.errors import PaimonKitError
from reference.io import LocalFileIO
from reference.isolation import IsolatedOrcDecoder
from reference.spec import types as t
from reference.spec.binary_row import serialize_binary_row
from reference.spec.data import Timestamp
from reference.spec.deletion_vector import decode_all_deletion_vectors, decode_vector_data
from reference.spec.file_format import FileFormat, arrow_to_rows, decode_data_file
from reference.spec.file_index.bitmap import decode_bitmap_index
from reference.spec.file_index.bloom_filter import decode_bloom_filter
from reference.spec.file_index.bsi import decode_bsi_index
from reference.spec.file_index.container import FileIndex, decode_file_index
from reference.spec.hash_index import decode_hash_index
from reference.spec.manifest import (
    ManifestFormat,
    decode_index_manifest,
    decode_manifest_entries,
    decode_manifest_list,
    detect_manifest_format,
)
from reference.spec.orc_decoding import using_orc_decoder
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import decode_consumer, decode_hint, decode_snapshot, decode_tag
from reference.store.write import compute_physical_fields
from reference.table import Table

Decoder = Callable[[bytes, Any], object]

AVRO_MAGIC = b"Obj\x01"
ORC_MAGIC = b"ORC"
PARQUET_MAGIC = b"PAR1"
FILE_INDEX_MAGIC = bytes.fromhex("00054e4e")
MAX_SEEDS_PER_SOURCE = 12
MAX_SEED_BYTES = 256 * 1024


@dataclass(frozen=True)
class Seed:
    """A valid file for a target, where it came from, and its context."""

    data: bytes
    origin: str
    context: Any = None


@dataclass(frozen=True)
class FuzzTarget:
    name: str
    decode: Decoder
    isolated: bool = False
    json: bool = False
    """A JSON document (gets JSON-aware mutations too)."""


def decode_data_rows(fmt: FileFormat) -> Decoder:
    """A data file decoded all the way to rows (the value conversions run too)."""

    def decode(data: bytes, fields: Sequence[t.DataField]) -> object:
        return arrow_to_rows(decode_data_file(data, fmt, fields), fields)

    return decode


ORC_DECODER = IsolatedOrcDecoder()
"""One worker process for every ORC case of this process (started on first use)."""


def isolating_orc(decode: Decoder) -> Decoder:
    """``decode`` with ORC bytes decoded by :data:`ORC_DECODER`."""

    def call(data: bytes, context: Any) -> object:
        with using_orc_decoder(ORC_DECODER):
            return decode(data, context)

    return call


def ignoring_context(decode: Callable[[bytes], object]) -> Decoder:
    def call(data: bytes, _context: Any) -> object:
        return decode(data)

    return call


def manifest_decoder(
    decode: Callable[[bytes, ManifestFormat], object], fmt: ManifestFormat
) -> Decoder:
    def call(data: bytes, _context: Any) -> object:
        return decode(data, fmt)

    return call


def _binary_row(data: bytes, types: Sequence[t.DataType]) -> object:
    from reference.spec.binary_row import deserialize_binary_row  # noqa: PLC0415

    return deserialize_binary_row(data, types)


def _bitmap(data: bytes, data_type: t.DataType) -> object:
    return decode_bitmap_index(data, data_type)


MANIFEST_KINDS: tuple[tuple[str, Callable[[bytes, ManifestFormat], object]], ...] = (
    ("manifest-list", decode_manifest_list),
    ("manifest", decode_manifest_entries),
    ("index-manifest", decode_index_manifest),
)

TARGETS: tuple[FuzzTarget, ...] = (
    FuzzTarget("schema", ignoring_context(decode_schema), json=True),
    FuzzTarget("snapshot", ignoring_context(decode_snapshot), json=True),
    FuzzTarget("tag", ignoring_context(decode_tag), json=True),
    FuzzTarget("consumer", ignoring_context(decode_consumer), json=True),
    FuzzTarget("hint", ignoring_context(decode_hint)),
    *(
        FuzzTarget(f"{kind}.{fmt.value}", manifest_decoder(decode, fmt))
        for kind, decode in MANIFEST_KINDS
        for fmt in (ManifestFormat.AVRO,)
    ),
    *(
        FuzzTarget(f"{kind}.orc", isolating_orc(manifest_decoder(decode, ManifestFormat.ORC)))
        for kind, decode in MANIFEST_KINDS
    ),
    *(
        FuzzTarget(f"{kind}.parquet", manifest_decoder(decode, ManifestFormat.PARQUET), True)
        for kind, decode in MANIFEST_KINDS
    ),
    FuzzTarget("binary-row", _binary_row),
    FuzzTarget("deletion-vector-file", ignoring_context(decode_all_deletion_vectors)),
    FuzzTarget("deletion-vector", ignoring_context(decode_vector_data)),
    FuzzTarget("hash-index", ignoring_context(decode_hash_index)),
    FuzzTarget("file-index", ignoring_context(decode_file_index)),
    FuzzTarget("bloom-filter", ignoring_context(decode_bloom_filter)),
    FuzzTarget("bitmap", _bitmap),
    FuzzTarget("bsi", ignoring_context(decode_bsi_index)),
    FuzzTarget("data.parquet", decode_data_rows(FileFormat.PARQUET), isolated=True),
    FuzzTarget("data.orc", isolating_orc(decode_data_rows(FileFormat.ORC))),
    FuzzTarget("data.avro", decode_data_rows(FileFormat.AVRO)),
)
TARGETS_BY_NAME = {target.name: target for target in TARGETS}


# --------------------------------------------------------------------------------------------
# Seeds: classification of files
# --------------------------------------------------------------------------------------------


def compute_manifest_target(name: str, data: bytes) -> str | None:
    """``<kind>.<format>`` of a manifest-like file, from its name and magic bytes."""
    try:
        fmt = detect_manifest_format(data)
    except PaimonKitError:
        return None
    for prefix, kind in (
        (layout.MANIFEST_LIST_PREFIX, "manifest-list"),
        (layout.INDEX_MANIFEST_PREFIX, "index-manifest"),
        (layout.MANIFEST_PREFIX, "manifest"),
    ):
        if name.startswith(prefix):
            return f"{kind}.{fmt.value}"
    if "list" in name:
        return f"manifest-list.{fmt.value}"
    return f"manifest.{fmt.value}"


def read_table_schema(root: Path) -> TableSchema | None:
    schemas = sorted((root / layout.SCHEMA_DIR).glob(layout.SCHEMA_PREFIX + "*"))
    if not schemas:
        return None
    ids = sorted(layout.parse_schema_id(p.name) or 0 for p in schemas)
    return decode_schema(
        (root / layout.SCHEMA_DIR / f"{layout.SCHEMA_PREFIX}{ids[-1]}").read_bytes()
    )


def iter_table_seeds(root: Path, origin: str) -> Iterator[tuple[str, Seed]]:
    """Seeds from one table directory (any producer)."""
    schema = read_table_schema(root)
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if len(data) > MAX_SEED_BYTES or path.name.startswith("."):
            continue
        where = f"{origin}:{path.relative_to(root)}"
        parent = path.parent.name
        if parent == layout.SCHEMA_DIR:
            yield "schema", Seed(data, where)
        elif parent == layout.SNAPSHOT_DIR:
            is_hint = path.name in {hint.value for hint in layout.HintFile}
            yield ("hint" if is_hint else "snapshot"), Seed(data, where)
        elif parent == layout.TAG_DIR:
            yield "tag", Seed(data, where)
        elif parent == layout.CONSUMER_DIR:
            yield "consumer", Seed(data, where)
        elif parent == layout.MANIFEST_DIR:
            target = compute_manifest_target(path.name, data)
            if target is not None:
                yield target, Seed(data, where)
                yield from iter_embedded_index_seeds(target, data, where, schema)
        elif parent == layout.INDEX_DIR:
            yield from iter_index_file_seeds(data, where)
        elif path.name.endswith(layout.FILE_INDEX_SUFFIX):
            yield from iter_file_index_seeds(data, where, schema)
        elif layout.parse_bucket_dir_name(parent) is not None and schema is not None:
            yield from iter_data_file_seeds(path, data, where, schema)


def iter_index_file_seeds(data: bytes, where: str) -> Iterator[tuple[str, Seed]]:
    """A deletion-vector index file (and each vector in it), or a hash index."""
    try:
        vectors = decode_all_deletion_vectors(data)
    except PaimonKitError:
        yield "hash-index", Seed(data, where)
        return
    yield "deletion-vector-file", Seed(data, where)
    for dv_range, _ in vectors:
        # The vector bytes between the size field and the checksum: magic + bitmap.
        inner = data[dv_range.offset + 4 : dv_range.offset + dv_range.length + 4]
        yield "deletion-vector", Seed(inner, f"{where}@{dv_range.offset}")


BODY_TARGETS = {"bloom-filter": "bloom-filter", "bitmap": "bitmap", "bsi": "bsi"}


def iter_file_index_seeds(
    data: bytes, where: str, schema: TableSchema | None
) -> Iterator[tuple[str, Seed]]:
    """A file-index container and the bodies in it (with their column's type)."""
    yield "file-index", Seed(data, where)
    try:
        container: FileIndex = decode_file_index(data)
    except PaimonKitError:
        return
    types = {f.name: f.type for f in schema.fields} if schema else {}
    for column in container.columns:
        for index in column.indexes:
            target = BODY_TARGETS.get(index.index_type)
            if target is None or index.body is None:
                continue
            context = types.get(column.column)
            if target == "bitmap" and context is None:
                continue
            yield target, Seed(index.body, f"{where}#{column.column}/{index.index_type}", context)


def iter_embedded_index_seeds(
    target: str, data: bytes, where: str, schema: TableSchema | None
) -> Iterator[tuple[str, Seed]]:
    """The file-index containers embedded in a data manifest's entries."""
    kind, _, fmt = target.partition(".")
    if kind != "manifest":
        return
    try:
        entries = decode_manifest_entries(data, ManifestFormat(fmt))
    except PaimonKitError:
        return
    for entry in entries:
        if entry.file.embedded_index:
            where_entry = f"{where}/{entry.file.file_name}"
            yield from iter_file_index_seeds(entry.file.embedded_index, where_entry, schema)


def iter_data_file_seeds(
    path: Path, data: bytes, where: str, schema: TableSchema
) -> Iterator[tuple[str, Seed]]:
    if path.name.startswith(layout.CHANGELOG_FILE_PREFIX) or not path.name.startswith(
        layout.DATA_FILE_PREFIX
    ):
        return
    fields = tuple(compute_physical_fields(schema))
    for fmt, magic in (
        (FileFormat.PARQUET, PARQUET_MAGIC),
        (FileFormat.ORC, ORC_MAGIC),
        (FileFormat.AVRO, AVRO_MAGIC),
    ):
        if data.startswith(magic):
            yield f"data.{fmt.value}", Seed(data, where, fields)


def iter_third_party_seeds(third_party: Path) -> Iterator[tuple[str, Seed]]:
    """Seeds from the Java-written files (tables whose schema never changed, so that every
    data file has the latest schema's columns)."""
    tables = sorted(p.parent for p in third_party.rglob("schema") if p.is_dir())
    for root in tables:
        if len(list((root / layout.SCHEMA_DIR).iterdir())) == 1:
            yield from iter_table_seeds(root, f"java:{root.name}")
    avro = third_party / "paimon-cpp" / "avro" / "manifest"
    for path in sorted(avro.glob("*")) if avro.is_dir() else []:
        data = path.read_bytes()
        target = compute_manifest_target(path.name, data)
        if target is not None:
            yield target, Seed(data, f"java:avro/{path.name}")
    bitmap = third_party / "paimon-cpp" / "file_index" / "bitmap-index-v1"
    if bitmap.is_file():
        string = t.VarCharType(nullable=True, length=t.MAX_LENGTH)
        yield "bitmap", Seed(bitmap.read_bytes(), "java:bitmap-index-v1", string)
    dv = third_party / "paimon-java" / "dvindex-32"
    if dv.is_file():
        yield from iter_index_file_seeds(dv.read_bytes(), "java:dvindex-32")


# --------------------------------------------------------------------------------------------
# Seeds written by the reference
# --------------------------------------------------------------------------------------------


def field(number: int, name: str, data_type: t.DataType) -> t.DataField:
    return t.DataField(number, name, data_type)


RICH_FIELDS = (
    field(0, "k", t.IntType(nullable=False)),
    field(1, "v", t.VarCharType(nullable=True, length=t.MAX_LENGTH)),
    field(2, "amount", t.DecimalType(nullable=True, precision=20, scale=4)),
    field(3, "at", t.TimestampType(nullable=True, precision=6)),
    field(4, "day", t.DateType(nullable=True)),
    field(5, "blob", t.VarBinaryType(nullable=True, length=t.MAX_LENGTH)),
    field(6, "ratio", t.DoubleType(nullable=True)),
    field(7, "flag", t.BooleanType(nullable=True)),
    field(8, "small", t.SmallIntType(nullable=True)),
    field(9, "big", t.BigIntType(nullable=True)),
)


def compute_rich_rows(first: int, count: int) -> list[tuple[Any, ...]]:
    return [
        (
            k,
            None if k % 5 == 0 else f"value-{k}-" + "x" * (k % 11),
            Decimal(k * 1000 + 7).scaleb(-4),
            Timestamp(1_700_000_000_000 + k * 1000, (k % 1000) * 1000),
            19_000 + k,
            bytes(range(k % 17)),
            k / 7,
            k % 2 == 0,
            k - 100,
            k * 10**12,
        )
        for k in range(first, first + count)
    ]


@dataclass(frozen=True)
class CorpusTable:
    name: str
    primary_key: bool
    options: tuple[tuple[str, str], ...]


CORPUS_TABLES = (
    CorpusTable(
        "pk-dv-avro",
        True,
        (
            ("bucket", "1"),
            ("changelog-producer", "lookup"),
            ("deletion-vectors.enabled", "true"),
            ("manifest.compression", "none"),
        ),
    ),
    CorpusTable("pk-dynamic-orc", True, (("bucket", "-1"), ("manifest.format", "orc"))),
    CorpusTable(
        "pk-dv-parquet",
        True,
        (("bucket", "2"), ("deletion-vectors.enabled", "true"), ("manifest.format", "parquet")),
    ),
    CorpusTable(
        "append-indexes-avro",
        False,
        (
            ("bucket", "-1"),
            ("file.format", "avro"),
            ("file-index.bloom-filter.columns", "v,big"),
            ("file-index.bloom-filter.v.items", "50"),
            ("file-index.bloom-filter.big.items", "50"),
            ("file-index.bitmap.columns", "k,v"),
            ("file-index.bsi.columns", "big,small"),
            ("file-index.in-manifest-threshold", "1 B"),
            ("manifest.format", "parquet"),
            ("manifest.compression", "none"),
        ),
    ),
    CorpusTable(
        "append-orc",
        False,
        (("bucket", "2"), ("bucket-key", "k"), ("file.format", "orc"), ("manifest.format", "orc")),
    ),
)


def write_reference_corpus(directory: str) -> list[Path]:
    """Write the corpus tables under ``directory`` (a table already there is kept, so a saved
    corpus reproduces its cases: file names hold random UUIDs); their roots."""
    file_io = LocalFileIO()
    roots = []
    for number, spec in enumerate(CORPUS_TABLES):
        root = os.path.join(directory, spec.name)
        if os.path.isdir(root):
            roots.append(Path(root))
            continue
        table = Table.create(
            file_io,
            root,
            RICH_FIELDS,
            primary_keys=["k"] if spec.primary_key else [],
            options=dict(spec.options),
        )
        for batch in range(4):
            table.write_and_commit(compute_rich_rows(batch * 7, 20))
        table.create_tag("t1")
        table.reset_consumer("c1", 2 + number)
        table.create_tag(
            "retained", time_retained_nanos=int(dt.timedelta(hours=1).total_seconds() * 1e9)
        )
        roots.append(Path(root))
    return roots


def compute_binary_row_seeds() -> Iterator[tuple[str, Seed]]:
    """BinaryRows of many types (fixed-length, variable-length, nested, nulls)."""
    int_array = t.ArrayType(nullable=True, element=t.IntType(nullable=True))
    string_map = t.MapType(
        nullable=True,
        key=t.VarCharType(nullable=False, length=t.MAX_LENGTH),
        value=t.BigIntType(nullable=True),
    )
    nested = (*[f.type for f in RICH_FIELDS], int_array, string_map)
    for number, row in enumerate(compute_rich_rows(1, 6)):
        values = (*row, [1, None, 3] if number % 2 else None, {"a": 1, "long-key-" * 3: None})
        yield "binary-row", Seed(serialize_binary_row(values, nested), f"ref:row-{number}", nested)
    small = (t.IntType(nullable=False), t.VarCharType(nullable=True, length=t.MAX_LENGTH))
    yield "binary-row", Seed(serialize_binary_row((7, "short"), small), "ref:small", small)


def collect_seeds(third_party: Path | None, scratch: str) -> dict[str, list[Seed]]:
    """Seeds per target name: distinct files, at most :data:`MAX_SEEDS_PER_SOURCE` from each
    source (the built-in BinaryRows, the third-party files, each reference table)."""
    found: dict[str, list[Seed]] = {target.name: [] for target in TARGETS}
    sources: list[Iterator[tuple[str, Seed]]] = [compute_binary_row_seeds()]
    if third_party is not None and third_party.is_dir():
        sources.append(iter_third_party_seeds(third_party))
    for root in write_reference_corpus(scratch):
        sources.append(iter_table_seeds(root, f"ref:{root.name}"))
    for source in sources:
        taken: dict[str, int] = {}
        for name, seed in source:
            seeds = found.setdefault(name, [])
            if taken.get(name, 0) < MAX_SEEDS_PER_SOURCE and all(
                s.data != seed.data for s in seeds
            ):
                seeds.append(seed)
                taken[name] = taken.get(name, 0) + 1
    return found
