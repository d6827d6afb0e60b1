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
}
