/*
 * Part of paimon-kit's Java oracle harness (see PaimonHarness.java for the protocol).
 *
 * Commands that produce golden byte vectors: Paimon 0.9 encodes given values (BinaryRow, bucket
 * keys, HASH index, deletion vectors, file indexes) and decodes given metadata files (manifests,
 * manifest lists, index manifests), so the reference's codecs can be compared byte for byte with
 * Java's. Bytes travel as lowercase hex. Values use the encoding of ValueCodec.java.
 *
 *   vector_binary_row     {types: [type JSON], rows: [{kind, values}], writer: "serializer" |
 *                         "projection"} -> rows: [{bytes, hash}]
 *   vector_bucket         {fields, partition_keys, primary_keys, options, rows, bucket_counts}
 *                         -> rows: [{bucket_key, bucket_key_hash, buckets, trimmed_primary_key?,
 *                         trimmed_primary_key_hash?}]
 *   vector_hash_index     {hashes: [int]} -> bytes, decoded: [int]
 *   vector_deletion_vectors {vectors: [[data file name, [positions]]]} -> files: [{bytes,
 *                         ranges: [[name, offset, length]], row_count, decoded: [[name, [pos]]]}]
 *                         (decoded: the vectors read back, checked to delete exactly the
 *                         written positions, as 0.9's vectors cannot be iterated)
 *   vector_file_index     {index_type, type, options, values: [value], queries: [{op, literal?,
 *                         literals?}]} -> bytes, hashes? (bloom), results: ["REMAIN" | "SKIP" |
 *                         [row ids]]
 *   vector_file_index_container {fields, options, rows} -> bytes, decoded: [[column, [[index
 *                         type, body hex]]]]
 *   decode_meta_file      {path, format, kind: "manifest" | "manifest-list" | "index-manifest"}
 *                         -> fields (the versioned record type), records: [{field: value}]
 */

import org.apache.paimon.codegen.CodeGenUtils;
import org.apache.paimon.codegen.Projection;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.deletionvectors.BitmapDeletionVector;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.deletionvectors.DeletionVectorsIndexFile;
import org.apache.paimon.fileindex.FileIndexFormat;
import org.apache.paimon.fileindex.FileIndexReader;
import org.apache.paimon.fileindex.FileIndexResult;
import org.apache.paimon.fileindex.FileIndexWriter;
import org.apache.paimon.fileindex.FileIndexer;
import org.apache.paimon.fileindex.bitmap.BitmapIndexResultLazy;
import org.apache.paimon.fileindex.bloomfilter.FastHash;
import org.apache.paimon.format.FileFormat;
import org.apache.paimon.format.FormatReaderFactory;
import org.apache.paimon.fs.ByteArraySeekableStream;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.index.HashIndexFile;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.DataFileIndexWriter;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.IndexManifestEntrySerializer;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestEntrySerializer;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestFileMetaSerializer;
import org.apache.paimon.options.MemorySize;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.FieldRef;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.sink.FixedBucketRowKeyExtractor;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.IntIterator;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.utils.Pair;
import org.apache.paimon.utils.PathFactory;
import org.apache.paimon.utils.RoaringBitmap32;
import org.apache.paimon.utils.VersionedObjectSerializer;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

final class VectorCommands {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    /** Large enough that every deletion-vectors index file holds all the given vectors. */
    private static final MemorySize DV_TARGET_FILE_SIZE = MemorySize.ofMebiBytes(64);
    /** Large enough that a file-index container is always embedded, never written to a file. */
    private static final String NEVER_A_SEPARATE_INDEX_FILE = "1 gb";

    private VectorCommands() {}

    // ------------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------------

    static String hex(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xF];
            out[2 * i + 1] = HEX[bytes[i] & 0xF];
        }
        return new String(out);
    }

    private static byte[] binaryRowBytes(BinaryRow row) {
        return row.toBytes();
    }

    private static List<DataField> fields(JsonNode request) {
        List<DataField> fields = new ArrayList<>();
        for (JsonNode field : Requests.node(request, "fields")) {
            fields.add(DataTypeJsonParser.parseDataField(field));
        }
        return fields;
    }

    private static List<String> textList(JsonNode request, String name) {
        List<String> list = Requests.optTextList(request, name);
        return list == null ? new ArrayList<>() : list;
    }

    /** A scratch directory on the local file system and a PathFactory naming files in it. */
    private static final class Scratch implements AutoCloseable {
        final java.nio.file.Path directory;
        final FileIO fileIO = LocalFileIO.create();
        final AtomicInteger counter = new AtomicInteger();

        Scratch() throws IOException {
            directory = Files.createTempDirectory("paimon-kit-vectors");
        }

        PathFactory pathFactory(String prefix) {
            Path root = new Path(directory.toUri().toString());
            return new PathFactory() {
                @Override
                public Path newPath() {
                    return new Path(root, prefix + "-" + counter.getAndIncrement());
                }

                @Override
                public Path toPath(String fileName) {
                    return new Path(root, fileName);
                }
            };
        }

        byte[] read(String fileName) throws IOException {
            return Files.readAllBytes(directory.resolve(fileName));
        }

        @Override
        public void close() {
            org.apache.paimon.utils.FileIOUtils.deleteDirectoryQuietly(directory.toFile());
        }
    }

    // ------------------------------------------------------------------------------------------
    // BinaryRow and buckets
    // ------------------------------------------------------------------------------------------

    /** {types, rows, writer}: each row as InternalRowSerializer or a generated projection. */
    static void binaryRow(JsonNode request, ObjectNode response) {
        List<DataType> types = new ArrayList<>();
        for (JsonNode type : Requests.node(request, "types")) {
            types.add(DataTypeJsonParser.parseDataType(type));
        }
        RowType rowType = RowType.of(types.toArray(new DataType[0]));
        String writer = Requests.has(request, "writer") ? Requests.text(request, "writer") : "";
        InternalRowSerializer serializer = new InternalRowSerializer(rowType);
        int[] all = new int[types.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        Projection projection =
                writer.equals("projection") ? CodeGenUtils.newProjection(rowType, all) : null;
        if (projection == null && !writer.equals("serializer")) {
            throw new IllegalArgumentException("writer must be 'serializer' or 'projection'");
        }
        ArrayNode out = response.putArray("rows");
        for (JsonNode rowNode : Requests.node(request, "rows")) {
            GenericRow row = ValueCodec.decodeRow(rowNode, rowType);
            BinaryRow binary =
                    projection == null
                            ? serializer.toBinaryRow(row).copy()
                            : projection.apply(row).copy();
            binary.setRowKind(row.getRowKind());
            ObjectNode item = out.addObject();
            item.put("bytes", hex(binaryRowBytes(binary)));
            item.put("hash", binary.hashCode());
        }
    }

    /**
     * {fields, partition_keys, primary_keys, options, rows, bucket_counts}: the bucket-key row
     * and hash of each row and its bucket for each count (FixedBucketRowKeyExtractor), plus the
     * trimmed primary key and its hash (what dynamic-bucket tables index) for primary-key tables.
     */
    static void bucket(JsonNode request, ObjectNode response) {
        List<DataField> fields = fields(request);
        List<String> partitionKeys = textList(request, "partition_keys");
        List<String> primaryKeys = textList(request, "primary_keys");
        Map<String, String> options = Requests.stringMap(request, "options");
        options.putIfAbsent("bucket", "1");
        int highestFieldId = fields.stream().mapToInt(DataField::id).max().orElse(-1);
        TableSchema schema =
                new TableSchema(
                        0, fields, highestFieldId, partitionKeys, primaryKeys, options, null);
        RowType rowType = schema.logicalRowType();
        Projection bucketKey = CodeGenUtils.newProjection(rowType, schema.bucketKeys());
        List<Integer> counts = new ArrayList<>();
        List<FixedBucketRowKeyExtractor> extractors = new ArrayList<>();
        for (JsonNode count : Requests.node(request, "bucket_counts")) {
            Map<String, String> copy = new HashMap<>(options);
            copy.put("bucket", Integer.toString(count.intValue()));
            counts.add(count.intValue());
            extractors.add(new FixedBucketRowKeyExtractor(schema.copy(copy)));
        }
        ArrayNode out = response.putArray("rows");
        for (JsonNode rowNode : Requests.node(request, "rows")) {
            GenericRow row = ValueCodec.decodeRow(rowNode, rowType);
            BinaryRow key = bucketKey.apply(row);
            ObjectNode item = out.addObject();
            item.put("bucket_key", hex(binaryRowBytes(key)));
            item.put("bucket_key_hash", key.hashCode());
            ObjectNode buckets = item.putObject("buckets");
            for (int i = 0; i < counts.size(); i++) {
                extractors.get(i).setRecord(row);
                buckets.put(Integer.toString(counts.get(i)), extractors.get(i).bucket());
            }
            if (!primaryKeys.isEmpty()) {
                extractors.get(0).setRecord(row);
                BinaryRow trimmed = extractors.get(0).trimmedPrimaryKey();
                item.put("trimmed_primary_key", hex(binaryRowBytes(trimmed)));
                item.put("trimmed_primary_key_hash", trimmed.hashCode());
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Index files
    // ------------------------------------------------------------------------------------------

    /** {hashes}: a HASH index file of the hashes, and what Java reads back from it. */
    static void hashIndex(JsonNode request, ObjectNode response) throws Exception {
        List<Integer> hashes = new ArrayList<>();
        for (JsonNode hash : Requests.node(request, "hashes")) {
            hashes.add(hash.intValue());
        }
        int[] values = hashes.stream().mapToInt(Integer::intValue).toArray();
        try (Scratch scratch = new Scratch()) {
            HashIndexFile file = new HashIndexFile(scratch.fileIO, scratch.pathFactory("index"));
            String name = file.write(IntIterator.create(values));
            response.put("bytes", hex(scratch.read(name)));
            ArrayNode decoded = response.putArray("decoded");
            for (int value : IntIterator.toInts(file.read(name))) {
                decoded.add(value);
            }
        }
    }

    /** {vectors: [[file, [positions]]]}: the deletion-vectors index files Java writes. */
    static void deletionVectors(JsonNode request, ObjectNode response) throws Exception {
        Map<String, DeletionVector> vectors = new LinkedHashMap<>();
        for (JsonNode pair : Requests.node(request, "vectors")) {
            BitmapDeletionVector vector = new BitmapDeletionVector();
            for (JsonNode position : pair.get(1)) {
                vector.delete(position.longValue());
            }
            vectors.put(pair.get(0).asText(), vector);
        }
        try (Scratch scratch = new Scratch()) {
            DeletionVectorsIndexFile file =
                    new DeletionVectorsIndexFile(
                            scratch.fileIO, scratch.pathFactory("index"), DV_TARGET_FILE_SIZE);
            ArrayNode files = response.putArray("files");
            for (IndexFileMeta meta : file.write(vectors)) {
                ObjectNode item = files.addObject();
                item.put("bytes", hex(scratch.read(meta.fileName())));
                item.put("row_count", meta.rowCount());
                ArrayNode ranges = item.putArray("ranges");
                for (Map.Entry<String, Pair<Integer, Integer>> range :
                        meta.deletionVectorsRanges().entrySet()) {
                    ArrayNode triple = ranges.addArray();
                    triple.add(range.getKey());
                    triple.add(range.getValue().getLeft());
                    triple.add(range.getValue().getRight());
                }
                ArrayNode decoded = item.putArray("decoded");
                for (Map.Entry<String, DeletionVector> entry :
                        file.readAllDeletionVectors(meta).entrySet()) {
                    ArrayNode pair = decoded.addArray();
                    pair.add(entry.getKey());
                    pair.add(readBack(entry.getValue(), positionsOf(request, entry.getKey())));
                }
            }
        }
    }

    private static List<Long> positionsOf(JsonNode request, String fileName) {
        List<Long> positions = new ArrayList<>();
        for (JsonNode pair : Requests.node(request, "vectors")) {
            if (pair.get(0).asText().equals(fileName)) {
                pair.get(1).forEach(position -> positions.add(position.longValue()));
            }
        }
        return positions;
    }

    /**
     * The positions a vector read back from a file deletes: 0.9's DeletionVector cannot be
     * iterated, so it must delete every written position and have exactly that cardinality.
     */
    private static ArrayNode readBack(DeletionVector vector, List<Long> written) {
        ArrayNode positions = NODES.arrayNode();
        for (long position : written) {
            if (!vector.isDeleted(position)) {
                throw new IllegalStateException("position " + position + " was not read back");
            }
            positions.add(position);
        }
        if (vector.getCardinality() != written.size()) {
            throw new IllegalStateException(
                    "read back " + vector.getCardinality() + " positions, wrote " + written.size());
        }
        return positions;
    }

    // ------------------------------------------------------------------------------------------
    // File indexes
    // ------------------------------------------------------------------------------------------

    private static JsonNode resultJson(FileIndexResult result) {
        if (result instanceof BitmapIndexResultLazy) {
            RoaringBitmap32 bitmap = ((BitmapIndexResultLazy) result).get();
            ArrayNode rows = NODES.arrayNode();
            Iterator<Integer> iterator = bitmap.iterator();
            while (iterator.hasNext()) {
                rows.add(iterator.next());
            }
            return rows;
        }
        return NODES.textNode(result.remain() ? "REMAIN" : "SKIP");
    }

    private static List<Object> literals(JsonNode query, DataType type) {
        List<Object> out = new ArrayList<>();
        for (JsonNode literal : Requests.node(query, "literals")) {
            out.add(ValueCodec.decode(literal, type, "literal"));
        }
        return out;
    }

    private static FileIndexResult query(
            FileIndexReader reader, FieldRef field, JsonNode query, DataType type) {
        String op = Requests.text(query, "op");
        switch (op) {
            case "equal":
                return reader.visitEqual(field, ValueCodec.decode(query.get("literal"), type, op));
            case "not_equal":
                return reader.visitNotEqual(
                        field, ValueCodec.decode(query.get("literal"), type, op));
            case "in":
                return reader.visitIn(field, literals(query, type));
            case "not_in":
                return reader.visitNotIn(field, literals(query, type));
            case "is_null":
                return reader.visitIsNull(field);
            case "is_not_null":
                return reader.visitIsNotNull(field);
            default:
                throw new IllegalArgumentException("unknown file index query '" + op + "'");
        }
    }

    /**
     * {index_type, type, options, values, queries}: the index body Java's writer makes for one
     * column of values (nulls included), and its reader's answer to each query.
     */
    static void fileIndex(JsonNode request, ObjectNode response) {
        String indexType = Requests.text(request, "index_type");
        DataType type = DataTypeJsonParser.parseDataType(Requests.node(request, "type"));
        Options options = Options.fromMap(Requests.stringMap(request, "options"));
        FileIndexer indexer = FileIndexer.create(indexType, type, options);
        FileIndexWriter writer = indexer.createWriter();
        List<Object> values = new ArrayList<>();
        for (JsonNode value : Requests.node(request, "values")) {
            values.add(ValueCodec.decode(value, type.copy(true), "value"));
        }
        for (Object value : values) {
            writer.writeRecord(value);
        }
        byte[] body = writer.serializedBytes();
        response.put("bytes", hex(body));
        if (indexType.equals("bloom-filter")) {
            FastHash hash = FastHash.getHashFunction(type);
            ArrayNode hashes = response.putArray("hashes");
            for (Object value : values) {
                if (value != null) {
                    hashes.add(hash.hash(value));
                }
            }
        }
        FieldRef field = new FieldRef(0, "c", type);
        ArrayNode results = response.putArray("results");
        if (Requests.has(request, "queries")) {
            for (JsonNode query : request.get("queries")) {
                FileIndexReader reader =
                        indexer.createReader(new ByteArraySeekableStream(body), 0, body.length);
                results.add(resultJson(query(reader, field, query, type)));
            }
        }
    }

    /**
     * {fields, options, rows}: the file-index container DataFileIndexWriter builds for rows
     * under the table options (file-index.*), always embedded; and Java's reading of it.
     */
    static void fileIndexContainer(JsonNode request, ObjectNode response) throws Exception {
        RowType rowType = new RowType(fields(request));
        Map<String, String> options = Requests.stringMap(request, "options");
        options.put("file-index.in-manifest-threshold", NEVER_A_SEPARATE_INDEX_FILE);
        org.apache.paimon.CoreOptions core = new org.apache.paimon.CoreOptions(options);
        byte[] bytes;
        try (Scratch scratch = new Scratch()) {
            Path unused = scratch.pathFactory("data").newPath();
            DataFileIndexWriter writer =
                    DataFileIndexWriter.create(
                            scratch.fileIO, unused, rowType, core.indexColumnsOptions());
            if (writer == null) {
                throw new IllegalArgumentException("the options define no file index");
            }
            for (JsonNode rowNode : Requests.node(request, "rows")) {
                writer.write(ValueCodec.decodeRow(rowNode, rowType));
            }
            writer.close();
            bytes = writer.result().embeddedIndexBytes();
        }
        response.put("bytes", hex(bytes));
        ArrayNode decoded = response.putArray("decoded");
        try (FileIndexFormat.Reader reader =
                FileIndexFormat.createReader(new ByteArraySeekableStream(bytes), rowType)) {
            for (Map.Entry<String, Map<String, byte[]>> column : reader.readAll().entrySet()) {
                ArrayNode pair = decoded.addArray();
                pair.add(column.getKey());
                ArrayNode indexes = pair.addArray();
                for (Map.Entry<String, byte[]> index : column.getValue().entrySet()) {
                    ArrayNode body = indexes.addArray();
                    body.add(index.getKey());
                    body.add(hex(index.getValue()));
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Manifest files
    // ------------------------------------------------------------------------------------------

    /** A row as a JSON object by field name; nested rows (also inside arrays) likewise. */
    static JsonNode namedJson(Object value, DataType type) {
        if (value == null) {
            return NODES.nullNode();
        }
        if (type instanceof RowType) {
            RowType rowType = (RowType) type;
            InternalRow row = (InternalRow) value;
            ObjectNode out = NODES.objectNode();
            for (int i = 0; i < rowType.getFieldCount(); i++) {
                DataType fieldType = rowType.getTypeAt(i);
                Object field = InternalRow.createFieldGetter(fieldType, i).getFieldOrNull(row);
                out.set(rowType.getFieldNames().get(i), namedJson(field, fieldType));
            }
            return out;
        }
        if (type instanceof ArrayType && ((ArrayType) type).getElementType() instanceof RowType) {
            DataType element = ((ArrayType) type).getElementType();
            InternalArray array = (InternalArray) value;
            InternalArray.ElementGetter getter = InternalArray.createElementGetter(element);
            ArrayNode out = NODES.arrayNode();
            for (int i = 0; i < array.size(); i++) {
                out.add(namedJson(getter.getElementOrNull(array, i), element));
            }
            return out;
        }
        return ValueCodec.encode(value, type);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static VersionedObjectSerializer serializerOf(String kind) {
        switch (kind) {
            case "manifest":
                return new ManifestEntrySerializer();
            case "manifest-list":
                return new ManifestFileMetaSerializer();
            case "index-manifest":
                return new IndexManifestEntrySerializer();
            default:
                throw new IllegalArgumentException("unknown metadata file kind '" + kind + "'");
        }
    }

    private static RowType schemaOf(String kind) {
        switch (kind) {
            case "manifest":
                return ManifestEntry.SCHEMA;
            case "manifest-list":
                return ManifestFileMeta.SCHEMA;
            default:
                return IndexManifestEntry.SCHEMA;
        }
    }

    /**
     * {path, format, kind}: the records of a manifest, manifest list or index manifest as Java
     * 0.9 reads them (file rows through the versioned serializer and back), by field name.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void decodeMetaFile(JsonNode request, ObjectNode response) throws Exception {
        String kind = Requests.text(request, "kind");
        VersionedObjectSerializer serializer = serializerOf(kind);
        RowType fileType = VersionedObjectSerializer.versionType(schemaOf(kind));
        FileFormat format =
                FileFormat.fromIdentifier(Requests.text(request, "format"), new Options());
        FormatReaderFactory readerFactory = format.createReaderFactory(fileType);
        Path path = new Path(Requests.text(request, "path"));
        ArrayNode fieldsJson = response.putArray("fields");
        for (DataField field : fileType.getFields()) {
            fieldsJson.add(MAPPER.readTree(JsonSerdeUtil.toJson(field)));
        }
        ArrayNode records = response.putArray("records");
        try (RecordReader<InternalRow> reader =
                org.apache.paimon.utils.FileUtils.createFormatReader(
                        LocalFileIO.create(), readerFactory, path, null)) {
            reader.forEachRemaining(
                    row -> {
                        Object record = serializer.fromRow(row);
                        records.add(namedJson(serializer.toRow(record), fileType));
                    });
        }
    }
}
