/*
 * Part of paimon-kit's Java oracle harness (see PaimonHarness.java for the protocol).
 *
 * One open writer on one table, kept between requests until it is committed (batch) or closed
 * (stream). It wraps Paimon's public write path:
 *
 *   batch:  table.newBatchWriteBuilder()[.withOverwrite(spec)] -> newWrite / newCommit, one commit
 *   stream: table.newStreamWriteBuilder().withCommitUser(user)  -> many commits, each with an
 *           increasing commit identifier
 *
 * Every writer gets an IOManager (lookup, first-row and deletion-vector tables need one to spill).
 * Tables in dynamic-bucket mode get their buckets from a HashBucketAssigner, as Flink's bucket
 * assigner operator does, unless the request gives an explicit bucket.
 */

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.index.SimpleHashBucketAssigner;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.apache.paimon.table.sink.SinkRecord;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.RowType;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

final class WriteSession implements AutoCloseable {

    /** The (partition, bucket) of a writer inside the table write. */
    static final class Bucket {
        final BinaryRow partition;
        final int bucket;

        Bucket(BinaryRow partition, int bucket) {
            this.partition = partition.copy();
            this.bucket = bucket;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Bucket
                    && ((Bucket) other).bucket == bucket
                    && ((Bucket) other).partition.equals(partition);
        }

        @Override
        public int hashCode() {
            return Objects.hash(partition, bucket);
        }
    }

    private final FileStoreTable table;
    private final boolean streaming;
    private final BatchWriteBuilder batchBuilder;
    private final StreamWriteBuilder streamBuilder;
    private final TableWriteImpl<?> write;
    private final BucketAssigner assigner;
    private final RowPartitionKeyExtractor keys;
    private final Set<Bucket> touched = new LinkedHashSet<>();
    private long nextIdentifier = 1;
    private boolean committed;

    private WriteSession(
            FileStoreTable table,
            boolean streaming,
            BatchWriteBuilder batchBuilder,
            StreamWriteBuilder streamBuilder,
            TableWriteImpl<?> write,
            BucketAssigner assigner) {
        this.table = table;
        this.streaming = streaming;
        this.batchBuilder = batchBuilder;
        this.streamBuilder = streamBuilder;
        this.write = write;
        this.assigner = assigner;
        this.keys = assigner == null ? null : new RowPartitionKeyExtractor(table.schema());
    }

    /** A batch writer; {@code overwrite} is null for append, else the static partition spec. */
    static WriteSession batch(FileStoreTable table, Map<String, String> overwrite, IOManager io) {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        if (overwrite != null) {
            builder = builder.withOverwrite(overwrite);
        }
        TableWriteImpl<?> write = (TableWriteImpl<?>) builder.newWrite();
        write.withIOManager(io);
        return new WriteSession(
                table, false, builder, null, write, assignerFor(table, "batch", overwrite != null));
    }

    static WriteSession stream(FileStoreTable table, String commitUser, IOManager io) {
        StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser(commitUser);
        TableWriteImpl<?> write = (TableWriteImpl<?>) builder.newWrite();
        write.withIOManager(io);
        return new WriteSession(
                table, true, null, builder, write, assignerFor(table, commitUser, false));
    }

    private static BucketAssigner assignerFor(
            FileStoreTable table, String commitUser, boolean overwrite) {
        if (table.bucketMode() != BucketMode.HASH_DYNAMIC) {
            return null;
        }
        long targetRows = table.coreOptions().dynamicBucketTargetRowNum();
        if (overwrite) {
            // An overwrite starts from empty buckets, so the existing hash index is not loaded.
            return new SimpleHashBucketAssigner(1, 0, targetRows);
        }
        return new HashBucketAssigner(
                table.snapshotManager(),
                commitUser,
                table.store().newIndexFileHandler(),
                1,
                1,
                0,
                targetRows);
    }

    boolean isStreaming() {
        return streaming;
    }

    /** The columns the writer expects (the table's schema when the session was opened). */
    RowType rowType() {
        return table.rowType();
    }

    /** Write one row; {@code bucket} is an explicit bucket or null to let Paimon / us choose. */
    void write(InternalRow row, Integer bucket) throws Exception {
        if (committed) {
            throw new IllegalStateException("this batch writer has already committed");
        }
        if (bucket == null && assigner != null) {
            bucket = assigner.assign(keys.partition(row), keys.trimmedPrimaryKey(row).hashCode());
        }
        if (bucket == null && table.bucketMode() == BucketMode.CROSS_PARTITION) {
            throw new UnsupportedOperationException(
                    "cross-partition-update tables need Paimon's global index assigner, which the"
                            + " harness does not run; give an explicit bucket per row");
        }
        SinkRecord record =
                bucket == null ? write.writeAndReturn(row) : write.writeAndReturn(row, bucket);
        if (record != null) { // null: the row was dropped (ignore-delete, rowkind filters)
            touched.add(new Bucket(record.partition(), record.bucket()));
        }
    }

    /** Compact one bucket (full = rewrite everything into the top level). */
    void compact(BinaryRow partition, int bucket, boolean full) throws Exception {
        write.compact(partition, bucket, full);
        touched.add(new Bucket(partition, bucket));
    }

    /** Compact every bucket this session wrote to and every bucket of the latest snapshot. */
    int compactAll(boolean full) throws Exception {
        Set<Bucket> all = new LinkedHashSet<>(touched);
        for (Split split : table.newSnapshotReader().read().splits()) {
            DataSplit data = (DataSplit) split;
            all.add(new Bucket(data.partition(), data.bucket()));
        }
        for (Bucket target : all) {
            write.compact(target.partition, target.bucket, full);
        }
        touched.addAll(all);
        return all.size();
    }

    /**
     * Prepare and commit what was written since the last commit. A batch session commits once;
     * a stream session commits under {@code identifier} (or the next of its own counter).
     *
     * @return the commit identifier used
     */
    long commit(Long identifier, boolean waitCompaction) throws Exception {
        if (committed) {
            throw new IllegalStateException("this batch writer has already committed");
        }
        if (!streaming) {
            if (assigner != null) {
                assigner.prepareCommit(BatchWriteBuilder.COMMIT_IDENTIFIER);
            }
            List<CommitMessage> messages = write.prepareCommit();
            try (BatchTableCommit commit = batchBuilder.newCommit()) {
                commit.commit(messages);
            }
            committed = true;
            return BatchWriteBuilder.COMMIT_IDENTIFIER;
        }
        long id = identifier == null ? nextIdentifier : identifier;
        nextIdentifier = id + 1;
        if (assigner != null) {
            assigner.prepareCommit(id);
        }
        List<CommitMessage> messages = write.prepareCommit(waitCompaction, id);
        try (StreamTableCommit commit = streamBuilder.newCommit()) {
            commit.commit(id, messages);
        }
        return id;
    }

    boolean isFinished() {
        return committed;
    }

    @Override
    public void close() throws Exception {
        write.close();
    }
}
