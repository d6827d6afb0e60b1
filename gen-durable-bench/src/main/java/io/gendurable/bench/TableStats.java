package io.gendurable.bench;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a long run does to the instances table, read from the server's catalog and statistics
 * views (a benchmark, not a test, may read these): sizes of the table and of each index, live
 * and dead tuples, the vacuums and analyzes it had, the WAL position, and the server's autovacuum
 * settings. The WAL position is the server's: other databases' writes are in it too.
 */
final class TableStats {
    private TableStats() {
    }

    /** The autovacuum settings the figures depend on, read with SHOW; {@code autovacuum} first. */
    static Map<String, Object> autovacuumSettings(DataSource ds) {
        Map<String, Object> m = new LinkedHashMap<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT name, setting FROM pg_settings WHERE name = 'autovacuum' "
                     + "OR name LIKE 'autovacuum\\_%' OR name IN ('track_counts', 'vacuum_cost_limit', "
                     + "'maintenance_work_mem', 'max_wal_size', 'checkpoint_timeout') ORDER BY name <> 'autovacuum', name")) {
            while (rs.next()) {
                m.put(rs.getString(1), rs.getString(2));
            }
        } catch (SQLException e) {
            m.put("error", e.getMessage());
        }
        return m;
    }

    /** @return whether {@code SHOW autovacuum} says on */
    static boolean autovacuumOn(DataSource ds) {
        return "on".equals(autovacuumSettings(ds).get("autovacuum"));
    }

    /** @return the server's current WAL insert position, in bytes from 0/0 */
    static long walLsn(DataSource ds) {
        return BenchDb.queryLong(ds, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint");
    }

    /**
     * @param table the instances table, schema-qualified
     * @return {@code total_bytes} (pg_total_relation_size), {@code heap_bytes}, {@code indexes_bytes},
     * {@code index_bytes} (per index), and the table's line of pg_stat_user_tables
     */
    static Map<String, Object> of(DataSource ds, String table) {
        Map<String, Object> m = new LinkedHashMap<>();
        try (Connection c = ds.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_total_relation_size(?::regclass), "
                    + "pg_relation_size(?::regclass), pg_indexes_size(?::regclass)")) {
                for (int i = 1; i <= 3; i++) {
                    ps.setString(i, table);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    m.put("total_bytes", rs.getLong(1));
                    m.put("heap_bytes", rs.getLong(2));
                    m.put("indexes_bytes", rs.getLong(3));
                }
            }
            Map<String, Object> idx = new LinkedHashMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT i.indexrelid::regclass::text, pg_relation_size(i.indexrelid) "
                    + "FROM pg_index i WHERE i.indrelid = ?::regclass ORDER BY 1")) {
                ps.setString(1, table);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String name = rs.getString(1);
                        idx.put(name.substring(name.lastIndexOf('.') + 1), rs.getLong(2));
                    }
                }
            }
            m.put("index_bytes", idx);
            int dot = table.lastIndexOf('.');
            try (PreparedStatement ps = c.prepareStatement("SELECT n_live_tup, n_dead_tup, n_tup_ins, n_tup_upd, "
                    + "n_tup_hot_upd, n_tup_del, last_autovacuum, autovacuum_count, last_vacuum, vacuum_count, "
                    + "last_autoanalyze, autoanalyze_count FROM pg_stat_user_tables WHERE schemaname = ? AND relname = ?")) {
                ps.setString(1, table.substring(0, dot));
                ps.setString(2, table.substring(dot + 1));
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            Object v = rs.getObject(i);
                            m.put(rs.getMetaData().getColumnLabel(i), v instanceof Number n ? (Object) n.longValue()
                                    : v == null ? null : v.toString());
                        }
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT phase FROM pg_stat_progress_vacuum WHERE relid = ?::regclass")) {
                ps.setString(1, table);
                try (ResultSet rs = ps.executeQuery()) {
                    m.put("vacuum_running", rs.next() ? rs.getString(1) : null);
                }
            }
        } catch (SQLException e) {
            m.put("error", e.getMessage());
        }
        return m;
    }
}
