/*
 * paimon-kit's Java oracle harness: a long-lived process that drives Apache Paimon 0.9 through
 * its public Java API, so the conformance suite can compare the reference implementation with
 * Java-written tables and Java-read rows.
 *
 * Usage: java -cp <harness classes>:<paimon jar>:<hadoop jars> PaimonHarness [scratch dir]
 *
 * Protocol: one JSON request per line on stdin, one JSON response per line on stdout.
 *
 *   request:  {"id": <any>, "cmd": "<command>", ...arguments}
 *   response: {"id": <same>, "ok": true, ...results}
 *         or  {"id": <same>, "ok": false, "error": "<exception class>: <message>",
 *              "causes": ["<class>: <message>", ...], "trace": "<stack trace>"}
 *
 * A failing request never ends the process. Anything a library prints to stdout is redirected to
 * stderr so that stdout carries only responses. Values are encoded as described in
 * ValueCodec.java. Tables are named as described in Tables.java. The commands are listed in
 * {@link #commands()}; conformance/java/harness.py documents each one's arguments.
 */

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

public final class PaimonHarness {

    /** One command: the request in, the members of a successful response out. */
    private interface Command {
        void run(JsonNode request, ObjectNode response) throws Exception;
    }

    private final ObjectMapper mapper = new ObjectMapper();
    private final Tables tables = new Tables();
    private final Map<String, WriteSession> sessions = new HashMap<>();
    private final java.nio.file.Path ioDirectory;
    private final IOManager ioManager;
    private final Map<String, Command> commands = commands();
    private boolean running = true;

    /** {@code scratch}: where writers spill (IOManager); null for a new temp directory. */
    private PaimonHarness(String scratch) throws Exception {
        ioDirectory =
                scratch == null
                        ? Files.createTempDirectory("paimon-kit-harness-io")
                        : Files.createDirectories(Paths.get(scratch));
        ioManager = IOManager.create(ioDirectory.toString());
    }

    public static void main(String[] args) throws Exception {
        PrintStream protocol =
                new PrintStream(
                        new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        BufferedReader input =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PaimonHarness harness = new PaimonHarness(args.length > 0 ? args[0] : null);
        try {
            String line;
            while (harness.running && (line = input.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                protocol.println(harness.handle(line));
                protocol.flush();
            }
        } finally {
            harness.closeEverything();
        }
        System.exit(0);
    }

    private Map<String, Command> commands() {
        Map<String, Command> commands = new LinkedHashMap<>();
        commands.put("ping", this::ping);
        commands.put("create_table", this::createTable);
        commands.put("describe", this::describe);
        commands.put("write", this::write);
        commands.put("compact", this::compact);
        commands.put("commit", this::commit);
        commands.put("close_writer", this::closeWriter);
        commands.put("read", this::read);
        commands.put("read_stream", this::readStream);
        commands.put("system_table", this::systemTable);
        commands.put("list_snapshots", this::listSnapshots);
        commands.put("create_tag", this::createTag);
        commands.put("delete_tag", this::deleteTag);
        commands.put("list_tags", this::listTags);
        commands.put("create_branch", this::createBranch);
        commands.put("rollback", this::rollback);
        commands.put("expire_snapshots", this::expireSnapshots);
        commands.put("alter_table", this::alterTable);
        commands.put("drop_table", this::dropTable);
        commands.put("shutdown", this::shutdown);
        // Golden byte vectors (VectorCommands.java).
        commands.put("vector_binary_row", VectorCommands::binaryRow);
        commands.put("vector_bucket", VectorCommands::bucket);
        commands.put("vector_hash_index", VectorCommands::hashIndex);
        commands.put("vector_deletion_vectors", VectorCommands::deletionVectors);
        commands.put("vector_file_index", VectorCommands::fileIndex);
        commands.put("vector_file_index_container", VectorCommands::fileIndexContainer);
        commands.put("decode_meta_file", VectorCommands::decodeMetaFile);
        // Compaction picking (CompactionCommands.java).
        commands.put("pick_compaction", CompactionCommands::pickCompaction);
        return commands;
    }

    // ------------------------------------------------------------------------------------------
    // Request loop
    // ------------------------------------------------------------------------------------------

    private String handle(String line) {
        ObjectNode response = mapper.createObjectNode();
        try {
            JsonNode request = mapper.readTree(line);
            if (request.has("id")) {
                response.set("id", request.get("id"));
            }
            String name = Requests.text(request, "cmd");
            Command command = commands.get(name);
            if (command == null) {
                throw new IllegalArgumentException(
                        "unknown command '" + name + "'; known: " + commands.keySet());
            }
            response.put("ok", true);
            command.run(request, response);
        } catch (Throwable error) {
            describeError(error, response);
        }
        try {
            return mapper.writeValueAsString(response);
        } catch (Exception encodeError) {
            ObjectNode fallback = mapper.createObjectNode();
            describeError(encodeError, fallback);
            return fallback.toString();
        }
    }

    private static String oneLine(Throwable error) {
        String message = error.getMessage();
        return error.getClass().getName() + ": " + (message == null ? "" : message);
    }

    private void describeError(Throwable error, ObjectNode response) {
        response.put("ok", false);
        response.put("error", oneLine(error));
        ArrayNode causes = response.putArray("causes");
        for (Throwable cause = error.getCause(); cause != null; cause = cause.getCause()) {
            causes.add(oneLine(cause));
        }
        StringWriter trace = new StringWriter();
        error.printStackTrace(new PrintWriter(trace));
        response.put("trace", trace.toString());
    }

    private void closeEverything() {
        for (WriteSession session : sessions.values()) {
            closeQuietly(session);
        }
        sessions.clear();
        closeQuietly(tables);
        closeQuietly(ioManager);
        try {
            org.apache.paimon.utils.FileIOUtils.deleteDirectoryQuietly(ioDirectory.toFile());
        } catch (Throwable ignored) {
            // The directory is in the system temp dir; leaving it behind is harmless.
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Throwable error) {
            System.err.println("harness: close failed: " + oneLine(error));
        }
    }

    // ------------------------------------------------------------------------------------------
    // JSON helpers
    // ------------------------------------------------------------------------------------------

    private JsonNode parseJson(String text) throws Exception {
        return mapper.readTree(text);
    }

    /** The fields of a row type in the schema-file JSON form. */
    private ArrayNode fieldsJson(RowType type) throws Exception {
        ArrayNode out = mapper.createArrayNode();
        for (DataField field : type.getFields()) {
            out.add(parseJson(JsonSerdeUtil.toJson(field)));
        }
        return out;
    }

    private static Long latestSnapshotId(FileStoreTable table) {
        return table.snapshotManager().latestSnapshotId();
    }

    // ------------------------------------------------------------------------------------------
    // Tables
    // ------------------------------------------------------------------------------------------

    private void ping(JsonNode request, ObjectNode response) {
        response.put("java", System.getProperty("java.version"));
        response.put("paimon", paimonVersion());
    }

    /** The version in the Paimon bundle's Maven metadata (the jar's manifest has none). */
    private static String paimonVersion() {
        String resource = "/META-INF/maven/org.apache.paimon/paimon-bundle/pom.properties";
        try (InputStream in = Snapshot.class.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * {path | warehouse, database, table}, fields: [schema-file field JSON], partition_keys,
     * primary_keys, options, comment, ignore_if_exists.
     */
    private void createTable(JsonNode request, ObjectNode response) throws Exception {
        List<DataField> fields = new ArrayList<>();
        for (JsonNode field : Requests.node(request, "fields")) {
            fields.add(DataTypeJsonParser.parseDataField(field));
        }
        List<String> partitionKeys = Requests.optTextList(request, "partition_keys");
        List<String> primaryKeys = Requests.optTextList(request, "primary_keys");
        Schema schema =
                new Schema(
                        fields,
                        partitionKeys == null ? new ArrayList<>() : partitionKeys,
                        primaryKeys == null ? new ArrayList<>() : primaryKeys,
                        Requests.stringMap(request, "options"),
                        Requests.optText(request, "comment"));
        Tables.Ref ref = Tables.Ref.of(request);
        tables.create(ref, schema, Requests.flag(request, "ignore_if_exists", false));
        describeTable(tables.load(ref), response);
    }

    private void describe(JsonNode request, ObjectNode response) throws Exception {
        describeTable(tables.load(Tables.Ref.of(request)), response);
    }

    private void describeTable(FileStoreTable table, ObjectNode response) throws Exception {
        response.put("location", table.location().toString());
        response.set("schema", parseJson(JsonSerdeUtil.toJson(table.schema())));
        response.put("bucket_mode", table.bucketMode().name());
        Long latest = latestSnapshotId(table);
        if (latest == null) {
            response.putNull("latest_snapshot_id");
        } else {
            response.put("latest_snapshot_id", latest);
        }
    }

    /** {table}, changes: [{"action": ..., ...}] (see alterTableChange). */
    private void alterTable(JsonNode request, ObjectNode response) throws Exception {
        Tables.Ref ref = Tables.Ref.of(request);
        List<SchemaChange> changes = new ArrayList<>();
        for (JsonNode change : Requests.node(request, "changes")) {
            changes.add(schemaChange(change));
        }
        tables.alter(ref, changes);
        describeTable(tables.load(ref), response);
    }

    private static SchemaChange.Move move(JsonNode change, String name) {
        if (Requests.flag(change, "first", false)) {
            return SchemaChange.Move.first(name);
        }
        String after = Requests.optText(change, "after");
        return after == null ? null : SchemaChange.Move.after(name, after);
    }

    private static SchemaChange schemaChange(JsonNode change) {
        String action = Requests.text(change, "action");
        switch (action) {
            case "set_option":
                return SchemaChange.setOption(
                        Requests.text(change, "key"), Requests.node(change, "value").asText());
            case "remove_option":
                return SchemaChange.removeOption(Requests.text(change, "key"));
            case "update_comment":
                return SchemaChange.updateComment(Requests.optText(change, "comment"));
            case "add_column":
                {
                    String name = Requests.text(change, "name");
                    DataType type = DataTypeJsonParser.parseDataType(Requests.node(change, "type"));
                    return SchemaChange.addColumn(
                            name, type, Requests.optText(change, "comment"), move(change, name));
                }
            case "drop_column":
                return SchemaChange.dropColumn(Requests.text(change, "name"));
            case "rename_column":
                return SchemaChange.renameColumn(
                        Requests.text(change, "name"), Requests.text(change, "new_name"));
            case "update_column_type":
                return SchemaChange.updateColumnType(
                        Requests.text(change, "name"),
                        DataTypeJsonParser.parseDataType(Requests.node(change, "type")));
            case "update_column_nullability":
                return SchemaChange.updateColumnNullability(
                        Requests.text(change, "name"), Requests.flag(change, "nullable", true));
            case "update_column_comment":
                return SchemaChange.updateColumnComment(
                        Requests.text(change, "name"), Requests.optText(change, "comment"));
            case "update_column_position":
                {
                    SchemaChange.Move move = move(change, Requests.text(change, "name"));
                    if (move == null) {
                        throw new IllegalArgumentException("give 'first': true or 'after'");
                    }
                    return SchemaChange.updateColumnPosition(move);
                }
            default:
                throw new IllegalArgumentException("unknown alter action '" + action + "'");
        }
    }

    private void dropTable(JsonNode request, ObjectNode response) throws Exception {
        Tables.Ref ref = Tables.Ref.of(request);
        WriteSession session = sessions.remove(ref.key());
        if (session != null) {
            closeQuietly(session);
        }
        tables.drop(ref, Requests.flag(request, "ignore_if_not_exists", false));
    }

    // ------------------------------------------------------------------------------------------
    // Writes
    // ------------------------------------------------------------------------------------------

    /** The open session of a table, opening one as the request describes when there is none. */
    private WriteSession session(JsonNode request, Tables.Ref ref) throws Exception {
        String mode = Requests.has(request, "mode") ? Requests.text(request, "mode") : "batch";
        if (!mode.equals("batch") && !mode.equals("stream")) {
            throw new IllegalArgumentException("mode must be 'batch' or 'stream', got " + mode);
        }
        boolean streaming = mode.equals("stream");
        WriteSession session = sessions.get(ref.key());
        if (session != null) {
            if (session.isStreaming() != streaming) {
                throw new IllegalStateException(
                        "an open " + (session.isStreaming() ? "stream" : "batch")
                                + " writer exists on " + ref + "; commit or close it first");
            }
            return session;
        }
        FileStoreTable table = tables.load(ref);
        if (streaming) {
            String user = Requests.optText(request, "commit_user");
            session =
                    WriteSession.stream(
                            table, user == null ? UUID.randomUUID().toString() : user, ioManager);
        } else {
            session = WriteSession.batch(table, overwriteSpec(request), ioManager);
        }
        sessions.put(ref.key(), session);
        return session;
    }

    /** 'overwrite': true (whole table) or a {partition column: value} spec; absent = append. */
    private static Map<String, String> overwriteSpec(JsonNode request) {
        if (!Requests.has(request, "overwrite")) {
            return null;
        }
        JsonNode overwrite = request.get("overwrite");
        if (overwrite.isBoolean()) {
            return overwrite.booleanValue() ? new HashMap<>() : null;
        }
        return Requests.stringMap(request, "overwrite");
    }

    /**
     * {table}, rows: [{"kind": "+I", "values": [...], "bucket": n?}], mode: batch|stream,
     * commit_user, overwrite, bucket (for every row), commit: bool, commit_identifier.
     */
    private void write(JsonNode request, ObjectNode response) throws Exception {
        Tables.Ref ref = Tables.Ref.of(request);
        WriteSession session = session(request, ref);
        RowType rowType = session.rowType();
        Long defaultBucket = Requests.optInteger(request, "bucket");
        int count = 0;
        for (JsonNode rowNode : Requests.node(request, "rows")) {
            GenericRow row = ValueCodec.decodeRow(rowNode, rowType);
            Long bucket = rowNode.isObject() ? Requests.optInteger(rowNode, "bucket") : null;
            bucket = bucket == null ? defaultBucket : bucket;
            session.write(row, bucket == null ? null : bucket.intValue());
            count++;
        }
        response.put("written", count);
        if (Requests.flag(request, "commit", false)) {
            commitSession(request, ref, session, response);
        }
    }

    /** {table}, partition: [values] or {column: value}, bucket, full; no bucket = all buckets. */
    private void compact(JsonNode request, ObjectNode response) throws Exception {
        Tables.Ref ref = Tables.Ref.of(request);
        WriteSession session = session(request, ref);
        boolean full = Requests.flag(request, "full", true);
        if (!Requests.has(request, "bucket")) {
            response.put("compacted_buckets", session.compactAll(full));
        } else {
            FileStoreTable table = tables.load(ref);
            BinaryRow partition = partitionRow(table, request);
            session.compact(partition, (int) Requests.integer(request, "bucket"), full);
            response.put("compacted_buckets", 1);
        }
        if (Requests.flag(request, "commit", false)) {
            commitSession(request, ref, session, response);
        }
    }

    private BinaryRow partitionRow(FileStoreTable table, JsonNode request) {
        RowType partitionType = table.schema().logicalPartitionType();
        JsonNode spec = request.get("partition");
        if (spec == null || spec.isNull()) {
            spec = mapper.createArrayNode();
        }
        if (spec.isObject()) {
            ArrayNode ordered = mapper.createArrayNode();
            for (String name : partitionType.getFieldNames()) {
                ordered.add(Requests.node(spec, name));
            }
            spec = ordered;
        }
        GenericRow row = ValueCodec.decodeFields(spec, partitionType, "partition");
        return new InternalRowSerializer(partitionType).toBinaryRow(row).copy();
    }

    /** {table}, commit_identifier (stream), wait_compaction (default true). */
    private void commit(JsonNode request, ObjectNode response) throws Exception {
        Tables.Ref ref = Tables.Ref.of(request);
        WriteSession session = sessions.get(ref.key());
        if (session == null) {
            throw new IllegalStateException("no open writer on " + ref + "; write first");
        }
        commitSession(request, ref, session, response);
    }

    private void commitSession(
            JsonNode request, Tables.Ref ref, WriteSession session, ObjectNode response)
            throws Exception {
        FileStoreTable table = tables.load(ref);
        Long before = latestSnapshotId(table);
        long identifier =
                session.commit(
                        Requests.optInteger(request, "commit_identifier"),
                        Requests.flag(request, "wait_compaction", true));
        if (session.isFinished()) {
            sessions.remove(ref.key());
            session.close();
        }
        Long after = latestSnapshotId(table);
        response.put("commit_identifier", identifier);
        if (after == null) {
            response.putNull("snapshot_id");
        } else {
            response.put("snapshot_id", after);
        }
        response.put("new_snapshot", after != null && !after.equals(before));
    }

    /** Close (and abandon) the open writer of a table, if any. */
    private void closeWriter(JsonNode request, ObjectNode response) throws Exception {
        WriteSession session = sessions.remove(Tables.Ref.of(request).key());
        response.put("closed", session != null);
        if (session != null) {
            session.close();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Reads
    // ------------------------------------------------------------------------------------------

    /** Dynamic options of a read: 'options' plus the time-travel shortcuts. */
    private static Map<String, String> scanOptions(JsonNode request) {
        Map<String, String> options = Requests.stringMap(request, "options");
        Long snapshotId = Requests.optInteger(request, "snapshot_id");
        if (snapshotId != null) {
            options.put("scan.snapshot-id", Long.toString(snapshotId));
        }
        String tag = Requests.optText(request, "tag");
        if (tag != null) {
            options.put("scan.tag-name", tag);
        }
        Long timestamp = Requests.optInteger(request, "timestamp_millis");
        if (timestamp != null) {
            options.put("scan.timestamp-millis", Long.toString(timestamp));
        }
        if (Requests.has(request, "incremental_between")) {
            JsonNode between = request.get("incremental_between");
            String text =
                    between.isArray()
                            ? between.get(0).asText() + "," + between.get(1).asText()
                            : between.asText();
            options.put("incremental-between", text);
        }
        return options;
    }

    private static Table withOptions(Table table, Map<String, String> options) {
        return options.isEmpty() ? table : table.copy(options);
    }

    private static ReadBuilder readBuilder(Table table, JsonNode request) {
        ReadBuilder builder = table.newReadBuilder();
        List<String> projection = Requests.optTextList(request, "projection");
        if (projection != null) {
            RowType rowType = table.rowType();
            int[] indexes = new int[projection.size()];
            for (int i = 0; i < indexes.length; i++) {
                indexes[i] = rowType.getFieldIndex(projection.get(i));
                if (indexes[i] < 0) {
                    throw new IllegalArgumentException(
                            "no column '" + projection.get(i) + "' in " + rowType.getFieldNames());
                }
            }
            builder = builder.withProjection(indexes);
        }
        return builder;
    }

    private ArrayNode readSplits(ReadBuilder builder, TableRead read, List<Split> splits)
            throws Exception {
        RowType readType = builder.readType();
        ArrayNode rows = mapper.createArrayNode();
        try (RecordReader<InternalRow> reader = read.createReader(splits)) {
            reader.forEachRemaining(row -> rows.add(ValueCodec.encodeRow(row, readType)));
        }
        return rows;
    }

    private void readTable(Table table, JsonNode request, ObjectNode response) throws Exception {
        ReadBuilder builder = readBuilder(table, request);
        List<Split> splits = builder.newScan().plan().splits();
        TableRead read = builder.newRead().withIOManager(ioManager);
        response.set("fields", fieldsJson(builder.readType()));
        response.set("rows", readSplits(builder, read, splits));
    }

    /**
     * {table}, snapshot_id | tag | timestamp_millis | incremental_between, projection: [names],
     * options: {scan options}. A batch read through ReadBuilder.
     */
    private void read(JsonNode request, ObjectNode response) throws Exception {
        FileStoreTable table = tables.load(Tables.Ref.of(request));
        readTable(withOptions(table, scanOptions(request)), request, response);
    }

    /**
     * {table}, snapshot_id (start: scan.mode from-snapshot unless options say otherwise),
     * options, projection, max_plans. A streaming read that plans until it passes the latest
     * snapshot; each plan's rows form one batch.
     */
    private void readStream(JsonNode request, ObjectNode response) throws Exception {
        FileStoreTable table = tables.load(Tables.Ref.of(request));
        Map<String, String> options = Requests.stringMap(request, "options");
        Long start = Requests.optInteger(request, "snapshot_id");
        if (start != null) {
            options.putIfAbsent("scan.mode", "from-snapshot");
            options.put("scan.snapshot-id", Long.toString(start));
        }
        Table view = withOptions(table, options);
        ReadBuilder builder = readBuilder(view, request);
        StreamTableScan scan = builder.newStreamScan();
        TableRead read = builder.newRead().withIOManager(ioManager);
        Long latest = latestSnapshotId(table);
        Long earliest = table.snapshotManager().earliestSnapshotId();
        long span = latest == null || earliest == null ? 0 : latest - earliest + 1;
        long maxPlans =
                Requests.has(request, "max_plans")
                        ? Requests.integer(request, "max_plans")
                        : span + 3;
        ArrayNode batches = mapper.createArrayNode();
        boolean complete = false;
        for (long plan = 0; plan < maxPlans; plan++) {
            List<Split> splits = scan.plan().splits();
            Long next = scan.checkpoint();
            ObjectNode batch = batches.addObject();
            batch.set("rows", readSplits(builder, read, splits));
            if (next == null) {
                batch.putNull("next_snapshot_id");
            } else {
                batch.put("next_snapshot_id", next);
            }
            if (latest == null || next == null || next > latest) {
                complete = true;
                break;
            }
        }
        response.set("fields", fieldsJson(builder.readType()));
        response.set("batches", batches);
        response.put("complete", complete);
    }

    /** {table}, name: "snapshots" | "files" | "audit_log" | ..., options, projection. */
    private void systemTable(JsonNode request, ObjectNode response) throws Exception {
        Table table = tables.loadSystem(Tables.Ref.of(request), Requests.text(request, "name"));
        readTable(withOptions(table, scanOptions(request)), request, response);
    }

    // ------------------------------------------------------------------------------------------
    // Snapshots, tags, maintenance
    // ------------------------------------------------------------------------------------------

    private void listSnapshots(JsonNode request, ObjectNode response) throws Exception {
        FileStoreTable table = tables.load(Tables.Ref.of(request));
        List<Snapshot> snapshots = new ArrayList<>();
        Iterator<Snapshot> iterator = table.snapshotManager().snapshots();
        iterator.forEachRemaining(snapshots::add);
        snapshots.sort(Comparator.comparingLong(Snapshot::id));
        ArrayNode out = response.putArray("snapshots");
        for (Snapshot snapshot : snapshots) {
            out.add(parseJson(snapshot.toJson()));
        }
    }

    /** {table}, name, snapshot_id (default latest), time_retained. */
    private void createTag(JsonNode request, ObjectNode response) throws Exception {
        FileStoreTable table = tables.load(Tables.Ref.of(request));
        String name = Requests.text(request, "name");
        Long snapshotId = Requests.optInteger(request, "snapshot_id");
        if (snapshotId == null) {
            snapshotId = latestSnapshotId(table);
            if (snapshotId == null) {
                throw new IllegalStateException("the table has no snapshot to tag");
            }
        }
        Duration retained = Requests.optDuration(request, "time_retained");
        if (retained == null) {
            table.createTag(name, snapshotId);
        } else {
            table.createTag(name, snapshotId, retained);
        }
        response.put("snapshot_id", snapshotId);
    }

    private void deleteTag(JsonNode request, ObjectNode response) throws Exception {
        tables.load(Tables.Ref.of(request)).deleteTag(Requests.text(request, "name"));
    }

    private void listTags(JsonNode request, ObjectNode response) throws Exception {
        FileStoreTable table = tables.load(Tables.Ref.of(request));
        ArrayNode out = response.putArray("tags");
        for (Map.Entry<Snapshot, List<String>> entry : table.tagManager().tags().entrySet()) {
            for (String name : entry.getValue()) {
                ObjectNode tag = out.addObject();
                tag.put("name", name);
                tag.put("snapshot_id", entry.getKey().id());
            }
        }
    }

    /** {table}, name, from_tag (absent: an empty branch with the latest schema). */
    private void createBranch(JsonNode request, ObjectNode response) throws Exception {
        FileStoreTable table = tables.load(Tables.Ref.of(request));
        String name = Requests.text(request, "name");
        String tag = Requests.optText(request, "from_tag");
        if (tag == null) {
            table.createBranch(name);
        } else {
            table.createBranch(name, tag);
        }
        response.put("branch", name);
    }

    /** {table}, snapshot_id | tag. */
    private void rollback(JsonNode request, ObjectNode response) throws Exception {
        FileStoreTable table = tables.load(Tables.Ref.of(request));
        Long snapshotId = Requests.optInteger(request, "snapshot_id");
        if (snapshotId != null) {
            table.rollbackTo(snapshotId);
        } else {
            table.rollbackTo(Requests.text(request, "tag"));
        }
        response.put("latest_snapshot_id", latestSnapshotId(table));
    }

    /**
     * {table}, retain_max, retain_min, time_retained, max_deletes; each defaults to the table's
     * own option (snapshot.num-retained.max, ...).
     */
    private void expireSnapshots(JsonNode request, ObjectNode response) throws Exception {
        FileStoreTable table = tables.load(Tables.Ref.of(request));
        ExpireConfig defaults = table.coreOptions().expireConfig();
        Long retainMax = Requests.optInteger(request, "retain_max");
        Long retainMin = Requests.optInteger(request, "retain_min");
        Long maxDeletes = Requests.optInteger(request, "max_deletes");
        Duration timeRetained = Requests.optDuration(request, "time_retained");
        ExpireConfig config =
                ExpireConfig.builder()
                        .snapshotRetainMax(
                                retainMax == null
                                        ? defaults.getSnapshotRetainMax()
                                        : retainMax.intValue())
                        .snapshotRetainMin(
                                retainMin == null
                                        ? defaults.getSnapshotRetainMin()
                                        : retainMin.intValue())
                        .snapshotTimeRetain(
                                timeRetained == null
                                        ? defaults.getSnapshotTimeRetain()
                                        : timeRetained)
                        .snapshotMaxDeletes(
                                maxDeletes == null
                                        ? defaults.getSnapshotMaxDeletes()
                                        : maxDeletes.intValue())
                        .build();
        response.put("expired", table.newExpireSnapshots().config(config).expire());
        response.put("earliest_snapshot_id", table.snapshotManager().earliestSnapshotId());
    }

    private void shutdown(JsonNode request, ObjectNode response) {
        running = false;
    }
}
