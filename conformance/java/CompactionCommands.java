/*
 * Part of paimon-kit's Java oracle harness (see PaimonHarness.java for the protocol).
 *
 * Compaction picking: Paimon 0.9's strategies choose a compaction unit from sorted runs that the
 * request describes only by level and file sizes, so the reference's picking rules can be
 * compared with Java's decision for decision.
 *
 *   pick_compaction {strategy: "universal" | "force_level0" | "full", num_levels,
 *                   max_size_amplification, size_ratio, trigger,
 *                   scenarios: [[{level, files: [{name, size}]}]]}
 *                   -> picks: [null | {output_level, files: [name]}]
 *
 * A scenario is a list of sorted runs in Java's order (level-0 runs first, newest first, then
 * the levels in order). Files carry nothing but a name, a size and their run's level: the
 * strategies look at nothing else. A new strategy object is made per scenario, so every pick
 * is a writer's first one.
 */

import org.apache.paimon.compact.CompactUnit;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.mergetree.LevelSortedRun;
import org.apache.paimon.mergetree.SortedRun;
import org.apache.paimon.mergetree.compact.CompactStrategy;
import org.apache.paimon.mergetree.compact.ForceUpLevel0Compaction;
import org.apache.paimon.mergetree.compact.UniversalCompaction;
import org.apache.paimon.stats.SimpleStats;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

final class CompactionCommands {

    private CompactionCommands() {}

    /** A file that has only what picking reads: name, size and level. */
    private static DataFileMeta file(String name, long size, int level) {
        return new DataFileMeta(
                name,
                size,
                1,
                BinaryRow.EMPTY_ROW,
                BinaryRow.EMPTY_ROW,
                SimpleStats.EMPTY_STATS,
                SimpleStats.EMPTY_STATS,
                0,
                0,
                0,
                level,
                0L,
                null,
                FileSource.APPEND);
    }

    private static List<LevelSortedRun> runs(JsonNode scenario) {
        List<LevelSortedRun> runs = new ArrayList<>();
        for (JsonNode runNode : scenario) {
            int level = (int) Requests.integer(runNode, "level");
            List<DataFileMeta> files = new ArrayList<>();
            for (JsonNode fileNode : Requests.node(runNode, "files")) {
                files.add(
                        file(
                                Requests.text(fileNode, "name"),
                                Requests.integer(fileNode, "size"),
                                level));
            }
            runs.add(new LevelSortedRun(level, SortedRun.fromSorted(files)));
        }
        return runs;
    }

    private static Optional<CompactUnit> pick(JsonNode request, List<LevelSortedRun> runs) {
        String strategy = Requests.text(request, "strategy");
        int numLevels = (int) Requests.integer(request, "num_levels");
        if (strategy.equals("full")) {
            return CompactStrategy.pickFullCompaction(numLevels, runs);
        }
        UniversalCompaction universal =
                new UniversalCompaction(
                        (int) Requests.integer(request, "max_size_amplification"),
                        (int) Requests.integer(request, "size_ratio"),
                        (int) Requests.integer(request, "trigger"));
        if (strategy.equals("universal")) {
            return universal.pick(numLevels, runs);
        }
        if (strategy.equals("force_level0")) {
            return new ForceUpLevel0Compaction(universal).pick(numLevels, runs);
        }
        throw new IllegalArgumentException("unknown strategy '" + strategy + "'");
    }

    static void pickCompaction(JsonNode request, ObjectNode response) {
        ArrayNode picks = response.putArray("picks");
        for (JsonNode scenario : Requests.node(request, "scenarios")) {
            Optional<CompactUnit> unit = pick(request, runs(scenario));
            if (!unit.isPresent()) {
                picks.addNull();
                continue;
            }
            ObjectNode item = picks.addObject();
            item.put("output_level", unit.get().outputLevel());
            ArrayNode names = item.putArray("files");
            for (DataFileMeta meta : unit.get().files()) {
                names.add(meta.fileName());
            }
        }
    }
}
