package io.gendurable.impl.schedule;

import io.gendurable.MisfirePolicy;
import io.gendurable.ScheduleStatus;
import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** The statements on {@code gen_durable_schedules}. */
final class ScheduleSql {
    private static final String COLUMNS = "name, fsm, cron, zone, state::text AS state, misfire, max_catch_up, origin, "
            + "next_fire_at, last_fire_at, last_instance_id, paused, paused_by, reason";

    /** A schedule's row. */
    record Row(String name, String fsm, String cron, String zone, String stateJson, MisfirePolicy misfire, int maxCatchUp,
               String origin, Instant nextFireAt, Instant lastFireAt, Long lastInstanceId, boolean paused,
               String pausedBy, String reason) {
        ScheduleStatus status() {
            return new ScheduleStatus(name, fsm, cron, zone, misfire, maxCatchUp, origin, nextFireAt, lastFireAt,
                    lastInstanceId, paused, pausedBy, reason);
        }
    }

    /** What to store: a definition with its first fire time. */
    record Upsert(String name, String fsm, String cron, String zone, String stateJson, MisfirePolicy misfire,
                  int maxCatchUp, String origin, Instant firstFireAt) {
    }

    private final String upsertSql;
    private final String orphansSql;
    private final String dueSql;
    private final String advanceSql;
    private final String listSql;
    private final String findSql;
    private final String pauseSql;
    private final String resumeSql;
    private final String deleteSql;

    ScheduleSql(SchemaName schema) {
        String t = schema.qualify("gen_durable_schedules");
        // an unchanged definition keeps its next fire time (a node's restart must not skip a due one);
        // a changed expression or zone starts from the new first fire time; a pause survives both
        this.upsertSql = """
                INSERT INTO %1$s AS s (name, fsm, cron, zone, state, misfire, max_catch_up, origin, next_fire_at, updated_at)
                VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET
                    fsm = EXCLUDED.fsm, cron = EXCLUDED.cron, zone = EXCLUDED.zone, state = EXCLUDED.state,
                    misfire = EXCLUDED.misfire, max_catch_up = EXCLUDED.max_catch_up, origin = EXCLUDED.origin,
                    next_fire_at = CASE WHEN s.cron = EXCLUDED.cron AND s.zone = EXCLUDED.zone THEN s.next_fire_at
                                        ELSE EXCLUDED.next_fire_at END,
                    updated_at = EXCLUDED.updated_at
                WHERE (s.fsm, s.cron, s.zone, s.state, s.misfire, s.max_catch_up, s.origin)
                      IS DISTINCT FROM (EXCLUDED.fsm, EXCLUDED.cron, EXCLUDED.zone, EXCLUDED.state, EXCLUDED.misfire,
                                        EXCLUDED.max_catch_up, EXCLUDED.origin)
                """.formatted(t);
        this.orphansSql = "DELETE FROM " + t + " WHERE origin = 'annotation' AND fsm = ANY(?::text[]) AND name <> ALL(?::text[])";
        this.dueSql = "SELECT " + COLUMNS + " FROM " + t
                + " WHERE NOT paused AND next_fire_at <= ? AND fsm = ANY(?::text[]) ORDER BY next_fire_at LIMIT ?"
                + " FOR UPDATE SKIP LOCKED";
        this.advanceSql = "UPDATE " + t + " SET next_fire_at = ?, last_fire_at = COALESCE(?, last_fire_at),"
                + " last_instance_id = COALESCE(?, last_instance_id), updated_at = ? WHERE name = ?";
        this.listSql = "SELECT " + COLUMNS + " FROM " + t + " ORDER BY name";
        this.findSql = "SELECT " + COLUMNS + " FROM " + t + " WHERE name = ?";
        this.pauseSql = "UPDATE " + t + " SET paused = true, paused_by = ?, reason = ?, updated_at = ? WHERE name = ?";
        this.resumeSql = "UPDATE " + t + " SET paused = false, paused_by = NULL, reason = NULL, updated_at = ? WHERE name = ?";
        this.deleteSql = "DELETE FROM " + t + " WHERE name = ?";
    }

    /** Inserts or updates a definition (see the statement for what an update keeps). */
    void upsert(Connection c, Upsert u, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(upsertSql)) {
            ps.setString(1, u.name());
            ps.setString(2, u.fsm());
            ps.setString(3, u.cron());
            ps.setString(4, u.zone());
            ps.setString(5, u.stateJson());
            ps.setString(6, dbName(u.misfire()));
            ps.setInt(7, u.maxCatchUp());
            ps.setString(8, u.origin());
            ps.setObject(9, Jdbc.ts(u.firstFireAt()));
            ps.setObject(10, Jdbc.ts(now));
            ps.executeUpdate();
        }
    }

    /** Deletes the annotation schedules of {@code fsms} whose names are not in {@code keep}. @return how many */
    int deleteOrphans(Connection c, Collection<String> fsms, Collection<String> keep) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(orphansSql)) {
            ps.setArray(1, Jdbc.texts(c, fsms.toArray()));
            ps.setArray(2, Jdbc.texts(c, keep.toArray()));
            return ps.executeUpdate();
        }
    }

    /** @return the due, unpaused schedules of {@code fsms}, locked, skipping those another node holds */
    List<Row> lockDue(Connection c, Instant now, Collection<String> fsms, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(dueSql)) {
            ps.setObject(1, Jdbc.ts(now));
            ps.setArray(2, Jdbc.texts(c, fsms.toArray()));
            ps.setInt(3, limit);
            return rows(ps);
        }
    }

    /** Moves a schedule's next fire time, recording the last one that inserted an instance (if any). */
    void advance(Connection c, String name, Instant next, Instant lastFire, Long lastInstance, Instant now)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(advanceSql)) {
            ps.setObject(1, Jdbc.ts(next));
            ps.setObject(2, lastFire == null ? null : Jdbc.ts(lastFire), Types.TIMESTAMP_WITH_TIMEZONE);
            if (lastInstance == null) {
                ps.setNull(3, Types.BIGINT);
            } else {
                ps.setLong(3, lastInstance);
            }
            ps.setObject(4, Jdbc.ts(now));
            ps.setString(5, name);
            ps.executeUpdate();
        }
    }

    List<Row> list(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(listSql)) {
            return rows(ps);
        }
    }

    Optional<Row> find(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(findSql)) {
            ps.setString(1, name);
            return rows(ps).stream().findFirst();
        }
    }

    /** @return whether the schedule exists */
    boolean pause(Connection c, String name, String by, String reason, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(pauseSql)) {
            ps.setString(1, by);
            ps.setString(2, reason);
            ps.setObject(3, Jdbc.ts(now));
            ps.setString(4, name);
            return ps.executeUpdate() == 1;
        }
    }

    /** @return whether the schedule exists */
    boolean resume(Connection c, String name, Instant now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(resumeSql)) {
            ps.setObject(1, Jdbc.ts(now));
            ps.setString(2, name);
            return ps.executeUpdate() == 1;
        }
    }

    /** @return whether the schedule existed */
    boolean delete(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(deleteSql)) {
            ps.setString(1, name);
            return ps.executeUpdate() == 1;
        }
    }

    static String dbName(MisfirePolicy p) {
        return p == MisfirePolicy.CATCH_UP ? "catch_up" : "skip";
    }

    private static List<Row> rows(PreparedStatement ps) throws SQLException {
        List<Row> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Row(rs.getString("name"), rs.getString("fsm"), rs.getString("cron"), rs.getString("zone"),
                        rs.getString("state"),
                        "catch_up".equals(rs.getString("misfire")) ? MisfirePolicy.CATCH_UP : MisfirePolicy.SKIP,
                        rs.getInt("max_catch_up"), rs.getString("origin"), Jdbc.instant(rs, "next_fire_at"),
                        Jdbc.instant(rs, "last_fire_at"), Jdbc.longOrNull(rs, "last_instance_id"),
                        rs.getBoolean("paused"), rs.getString("paused_by"), rs.getString("reason")));
            }
        }
        return out;
    }
}
