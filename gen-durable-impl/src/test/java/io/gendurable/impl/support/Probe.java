package io.gendurable.impl.support;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;

/** Reads the database behind an engine the way a test checks it: plain SQL with the harness's schema on the search path. */
public final class Probe {
    private final DataSource dataSource;
    private final String schema;

    public Probe(EngineHarness h) {
        this(h.dataSource(), h.schema());
    }

    public Probe(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.schema = schema;
    }

    @FunctionalInterface
    private interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private <T> T query(String sql, Object[] params, Reader<T> reader) {
        try (Connection c = dataSource.getConnection()) {
            try (Statement s = c.createStatement()) {
                s.execute("SET search_path TO " + schema);
            }
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < params.length; i++) {
                    ps.setObject(i + 1, params[i]);
                }
                boolean rows = ps.execute();
                try (ResultSet rs = rows ? ps.getResultSet() : null) {
                    return reader.read(rs);
                }
            } finally {
                try (Statement s = c.createStatement()) {
                    s.execute("RESET search_path");
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Runs a statement (DML or DDL) with the schema on the search path. */
    public void exec(String sql, Object... params) {
        query(sql, params, rs -> null);
    }

    /** @return the first column of the only row, as text (null when the row or value is missing) */
    public String string(String sql, Object... params) {
        return query(sql, params, rs -> rs.next() ? rs.getString(1) : null);
    }

    /** @return the first column of the only row, as a long */
    public long count(String sql, Object... params) {
        return query(sql, params, rs -> {
            if (!rs.next()) {
                throw new IllegalStateException("no row: " + sql);
            }
            return rs.getLong(1);
        });
    }

    /** @return the first column of the only row, as an instant (null when missing) */
    public Instant instant(String sql, Object... params) {
        return query(sql, params, rs -> {
            if (!rs.next()) {
                return null;
            }
            OffsetDateTime t = rs.getObject(1, OffsetDateTime.class);
            return t == null ? null : t.toInstant();
        });
    }

    /** @return the rows' first column (a bigint) mapped to their second (as text) */
    public Map<Long, String> pairs(String sql, Object... params) {
        return query(sql, params, rs -> {
            Map<Long, String> out = new HashMap<>();
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getString(2));
            }
            return out;
        });
    }
}
