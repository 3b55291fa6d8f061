/*
 * Part of paimon-kit's Java oracle harness (see PaimonHarness.java for the protocol).
 *
 * Finds the table a request names. A request names a table in one of two ways:
 *
 *   {"path": "/abs/table/dir"}                                  the table directory itself
 *   {"warehouse": "/abs/wh", "database": "db", "table": "t"}     a filesystem catalog entry
 *
 * A table named by its directory may add {"branch": "b"}: the request then works on that branch
 * (its schema and snapshot directories; Paimon's 'branch' option).
 *
 * Catalogs are opened once per warehouse with caching off, so a table written by another engine
 * between two requests is always seen as it is on disk.
 */

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.system.SystemTableLoader;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class Tables implements AutoCloseable {

    /** One table named by a request. Exactly one of {@code path} and {@code warehouse} is set. */
    static final class Ref {
        final String path;
        final String warehouse;
        final String database;
        final String table;
        final String branch;

        private Ref(String path, String warehouse, String database, String table, String branch) {
            this.path = path;
            this.warehouse = warehouse;
            this.database = database;
            this.table = table;
            this.branch = branch;
        }

        static Ref of(JsonNode request) {
            String path = Requests.optText(request, "path");
            String warehouse = Requests.optText(request, "warehouse");
            if ((path == null) == (warehouse == null)) {
                throw new IllegalArgumentException(
                        "name the table by 'path', or by 'warehouse' + 'database' + 'table'");
            }
            String branch = Requests.optText(request, "branch");
            if (path != null) {
                return new Ref(path, null, null, null, branch);
            }
            if (branch != null) {
                throw new IllegalArgumentException("'branch' needs a table named by 'path'");
            }
            return new Ref(
                    null,
                    warehouse,
                    Requests.text(request, "database"),
                    Requests.text(request, "table"),
                    null);
        }

        boolean inCatalog() {
            return warehouse != null;
        }

        Identifier identifier() {
            return Identifier.create(database, table);
        }

        /** A key that is the same for every request naming this table the same way. */
        String key() {
            return inCatalog() ? warehouse + "#" + database + "." + table : path + branchSuffix();
        }

        private String branchSuffix() {
            return branch == null ? "" : "$branch_" + branch;
        }

        @Override
        public String toString() {
            return inCatalog() ? database + "." + table + " in " + warehouse : path + branchSuffix();
        }
    }

    private final Map<String, Catalog> catalogs = new HashMap<>();

    Catalog catalog(String warehouse) {
        return catalogs.computeIfAbsent(
                warehouse,
                location -> {
                    Options options = new Options();
                    options.set("warehouse", location);
                    options.set("cache-enabled", "false");
                    return CatalogFactory.createCatalog(CatalogContext.create(options));
                });
    }

    private static FileIO fileIO(Path path) throws Exception {
        return FileIO.get(path, CatalogContext.create(new Options()));
    }

    FileStoreTable load(Ref ref) throws Exception {
        if (!ref.inCatalog()) {
            Options options = new Options();
            options.set("path", ref.path);
            if (ref.branch != null) {
                options.set("branch", ref.branch);
            }
            return FileStoreTableFactory.create(CatalogContext.create(options));
        }
        Table table = catalog(ref.warehouse).getTable(ref.identifier());
        if (!(table instanceof FileStoreTable)) {
            throw new IllegalArgumentException(ref + " is not a file store table: " + table);
        }
        return (FileStoreTable) table;
    }

    /** A system table such as "snapshots", "files" or "audit_log" of the named table. */
    Table loadSystem(Ref ref, String name) throws Exception {
        Table table = SystemTableLoader.load(name, load(ref));
        if (table == null) {
            throw new IllegalArgumentException(
                    "unknown system table '" + name + "'; known: " + SystemTableLoader.SYSTEM_TABLES);
        }
        return table;
    }

    void create(Ref ref, Schema schema, boolean ignoreIfExists) throws Exception {
        if (ref.branch != null) {
            throw new IllegalArgumentException("create the table, then create_branch " + ref);
        }
        if (!ref.inCatalog()) {
            Path path = new Path(ref.path);
            new SchemaManager(fileIO(path), path).createTable(schema, ignoreIfExists);
            return;
        }
        Catalog catalog = catalog(ref.warehouse);
        catalog.createDatabase(ref.database, true);
        catalog.createTable(ref.identifier(), schema, ignoreIfExists);
    }

    void alter(Ref ref, List<SchemaChange> changes) throws Exception {
        if (!ref.inCatalog()) {
            Path path = new Path(ref.path);
            SchemaManager schemas =
                    ref.branch == null
                            ? new SchemaManager(fileIO(path), path)
                            : new SchemaManager(fileIO(path), path, ref.branch);
            schemas.commitChanges(changes);
            return;
        }
        catalog(ref.warehouse).alterTable(ref.identifier(), changes, false);
    }

    void drop(Ref ref, boolean ignoreIfNotExists) throws Exception {
        if (ref.branch != null) {
            throw new IllegalArgumentException("drop the table, not its branch " + ref);
        }
        if (!ref.inCatalog()) {
            Path path = new Path(ref.path);
            FileIO io = fileIO(path);
            if (!io.exists(path) && !ignoreIfNotExists) {
                throw new IllegalArgumentException("no table at " + path);
            }
            io.delete(path, true);
            return;
        }
        catalog(ref.warehouse).dropTable(ref.identifier(), ignoreIfNotExists);
    }

    @Override
    public void close() throws Exception {
        for (Catalog catalog : catalogs.values()) {
            catalog.close();
        }
        catalogs.clear();
    }
}
