package io.gendurable.impl.db;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;

/** Small JDBC conversions shared by the statement classes. */
public final class Jdbc {
    private Jdbc() {
    }

    public static OffsetDateTime ts(Instant instant) {
        return instant == null ? null : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    /**
     * A timestamp the statement returned as microseconds since the epoch
     * ({@code (extract(epoch FROM t) * 1000000)::bigint}): read without parsing timestamp text,
     * which for the claim's rows would be one of the largest allocations per step.
     *
     * @param micros microseconds since 1970-01-01T00:00Z
     * @return the instant
     */
    public static Instant micros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }

    public static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** Timestamps travel in arrays as ISO-8601 text (cast server-side), never as local times. */
    public static String isoOrNull(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    /**
     * How long a statement that must lock instance rows it does not own yet (the admission's
     * stamp, a release) waits for a lock held elsewhere: a signaller's short transaction is
     * waited for; a caller's open transaction that holds a row longer makes the statement fail
     * with SQLSTATE 55P03 instead of stalling the engine behind it.
     */
    static final String BRIEF_LOCK_WAIT = "200ms";

    /** Runs {@code work} with {@link #BRIEF_LOCK_WAIT} as this transaction's lock timeout, then restores the default. */
    public static <T> T waitingBriefly(Connection c, SqlWork<T> work) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL lock_timeout = '" + BRIEF_LOCK_WAIT + "'");
            T result = work.run();
            s.execute("SET LOCAL lock_timeout TO DEFAULT");
            return result;
        }
    }

    /** A JDBC step. */
    public interface SqlWork<T> {
        T run() throws SQLException;
    }

    public static Array longs(Connection c, Collection<Long> values) throws SQLException {
        return c.createArrayOf("bigint", values.toArray(new Long[0]));
    }

    public static Array texts(Connection c, Object[] values) throws SQLException {
        return c.createArrayOf("text", values);
    }

    public static Array ints(Connection c, Integer[] values) throws SQLException {
        return c.createArrayOf("integer", values);
    }

    public static Array bools(Connection c, Boolean[] values) throws SQLException {
        return c.createArrayOf("boolean", values);
    }

    /** @return a PostgreSQL array literal of the values, each element quoted ({@code {"a","b"}}) */
    public static String textArrayLiteral(Collection<String> values) {
        StringBuilder b = new StringBuilder("{");
        for (String v : values) {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append('"').append(v.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return b.append('}').toString();
    }

    public static Long longOrNull(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    /** {@link #longOrNull(ResultSet, String)} by position (a hot read: no label lookup per row). */
    public static Long longOrNull(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }
}
