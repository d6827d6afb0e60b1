package io.gendurable.impl.support;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;

/** Walks an {@code EXPLAIN (FORMAT JSON)} plan: the plan tests' one reader of plan trees. */
public final class PlanNodes {
    private PlanNodes() {
    }

    /** @param explained one element of EXPLAIN's JSON array (it holds {@code "Plan"}) @return every node, outermost first */
    public static List<JsonObject> nodes(JsonObject explained) {
        List<JsonObject> out = new ArrayList<>();
        collect((JsonObject) explained.get("Plan"), out);
        return out;
    }

    /** Adds {@code node} and every node below it to {@code out}, depth first. */
    public static void collect(JsonObject node, List<JsonObject> out) {
        out.add(node);
        JsonValue kids = node.get("Plans");
        if (kids instanceof JsonArray a) {
            for (JsonValue k : a) {
                collect((JsonObject) k, out);
            }
        }
    }

    /** @return the relations the plan reads by sequential scan */
    public static List<String> seqScans(JsonObject plan) {
        return nodes(plan).stream().filter(n -> n.getString("Node Type").equals("Seq Scan"))
                .map(n -> n.getString("Relation Name")).toList();
    }

    /** @return the scan nodes of {@code relation}, bitmap index scans (which name no relation) included */
    public static List<JsonObject> scans(JsonObject plan, String relation) {
        return nodes(plan).stream()
                .filter(n -> relation.equals(n.getString("Relation Name", null)) || n.getString("Node Type").equals("Bitmap Index Scan"))
                .toList();
    }

    /** @return the indexes the plan reads on {@code relation} (bitmap index scans count too) */
    public static List<String> indexesOn(JsonObject plan, String relation) {
        return scans(plan, relation).stream().filter(n -> n.containsKey("Index Name")).map(n -> n.getString("Index Name")).toList();
    }

    /**
     * The partial indexes over executing rows only: a walk of one reads at most the running rows
     * (the queues' concurrency over all nodes), never the table's backlog or history.
     */
    public static final java.util.Set<String> RUNNING_ONLY = java.util.Set.of("gen_durable_lease", "gen_durable_concurrency_active");

    /**
     * @return the scans of {@code relation} that read it whole: a sequential scan, or an index
     *         scan with no index condition (a walk of the whole index, as a hashed sub-plan's),
     *         but for a walk of an index in {@link #RUNNING_ONLY}
     */
    public static List<JsonObject> fullScans(JsonObject plan, String relation) {
        return nodes(plan).stream()
                .filter(n -> relation.equals(n.getString("Relation Name", null)))
                .filter(n -> !RUNNING_ONLY.contains(n.getString("Index Name", "")))
                .filter(n -> n.getString("Node Type").equals("Seq Scan")
                        || (n.getString("Node Type").startsWith("Index") && !n.containsKey("Index Cond"))
                        || (n.getString("Node Type").equals("Bitmap Heap Scan") && !n.containsKey("Recheck Cond")))
                .toList();
    }
}
