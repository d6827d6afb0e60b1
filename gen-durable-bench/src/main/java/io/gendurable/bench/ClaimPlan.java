package io.gendurable.bench;

import io.gendurable.impl.claim.ClaimSql;
import io.gendurable.impl.db.SchemaName;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import javax.sql.DataSource;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine's own claim statement ({@link ClaimSql}, its text as the engine runs it), run under
 * {@code EXPLAIN (ANALYZE, BUFFERS)} in a transaction that rolls back: what one pick costs the
 * database (execution time, buffers, index entries read), whatever the rows around it. The
 * median of {@code samples} executions, after one unmeasured.
 */
final class ClaimPlan {
    private ClaimPlan() {
    }

    /**
     * @return {@code execution_ms} (median), {@code buffers} (shared hit + read of the whole
     * statement), {@code pick_index_buffers} and {@code pick_index_rows_read} (the scans of
     * {@code gen_durable_pick}, filtered rows included), {@code rows} claimed, and every sample's time
     */
    static Map<String, Object> measure(DataSource ds, String schema, String queue, int batch, int samples) throws SQLException {
        String sql = "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + new ClaimSql(new SchemaName(schema)).sql();
        List<JsonObject> plans = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                for (int i = 0; i <= samples; i++) {
                    JsonObject plan = explain(c, sql, new SchemaName(schema).instances(), queue, batch);
                    c.rollback();
                    if (i > 0) {
                        plans.add(plan);
                    }
                }
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
        List<Double> ms = plans.stream().map(p -> p.getJsonNumber("Execution Time").doubleValue()).toList();
        List<Double> sorted = new ArrayList<>(ms);
        sorted.sort(Double::compare);
        JsonObject median = plans.get(ms.indexOf(sorted.get((sorted.size() - 1) / 2)));
        JsonObject root = median.getJsonObject("Plan");
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("execution_ms", sorted.get((sorted.size() - 1) / 2));
        m.put("buffers", blocks(root));
        long pickBuffers = 0;
        long rowsRead = 0;
        for (JsonObject n : nodes(root)) {
            if ("gen_durable_pick".equals(n.getString("Index Name", null))) {
                pickBuffers += blocks(n);
                long removed = n.containsKey("Rows Removed by Filter") ? n.getJsonNumber("Rows Removed by Filter").longValue() : 0;
                rowsRead += (n.getJsonNumber("Actual Rows").longValue() + removed)
                        * Math.max(1, n.getJsonNumber("Actual Loops").longValue());
            }
        }
        m.put("pick_index_buffers", pickBuffers);
        m.put("pick_index_rows_read", rowsRead);
        m.put("rows", root.getJsonNumber("Actual Rows").longValue());
        m.put("batch", batch);
        m.put("samples_ms", ms);
        return m;
    }

    private static JsonObject explain(Connection c, String sql, String instances, String queue, int batch) throws SQLException {
        java.time.OffsetDateTime now = java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC);
        java.time.OffsetDateTime lease = now.plusMinutes(1);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            java.sql.Array gates = c.createArrayOf("text", new String[0]);
            // the node's fsm:version keys: those of the queue's runnable rows (read once per sample, outside the plan)
            java.sql.Array runnable;
            try (PreparedStatement k = c.prepareStatement("SELECT ARRAY(SELECT DISTINCT fsm || ':' || fsm_version"
                    + " FROM " + instances + " WHERE status = 'runnable' AND queue = ?)")) {
                k.setString(1, queue);
                try (ResultSet rs = k.executeQuery()) {
                    rs.next();
                    runnable = rs.getArray(1);
                }
            }
            Object[] binds = sql.chars().filter(ch -> ch == '?').count() == 9
                    // the claim of one index walk in (priority, eligible_at) order (before the priority probes)
                    ? new Object[]{gates, queue, now, queue, gates, batch, "bench:explain", lease, now}
                    // the binds of ClaimSql.claim, in its order
                    : new Object[]{queue, queue, queue, gates, queue, now, runnable, gates, batch, batch, "bench:explain", lease, now};
            for (int i = 0; i < binds.length; i++) {
                ps.setObject(i + 1, binds[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                try (var r = jakarta.json.Json.createReader(new StringReader(rs.getString(1)))) {
                    return r.readArray().getJsonObject(0);
                }
            }
        }
    }

    private static long blocks(JsonObject n) {
        return n.getJsonNumber("Shared Hit Blocks").longValue() + n.getJsonNumber("Shared Read Blocks").longValue();
    }

    private static List<JsonObject> nodes(JsonObject root) {
        List<JsonObject> out = new ArrayList<>();
        collect(root, out);
        return out;
    }

    private static void collect(JsonObject n, List<JsonObject> out) {
        out.add(n);
        if (n.get("Plans") instanceof JsonArray a) {
            for (JsonValue k : a) {
                collect((JsonObject) k, out);
            }
        }
    }

    /** Runs a statement on its own. */
    static void exec(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
