package io.gendurable.impl.engine;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The test drain's probes (read-only; never on a production path): what is left runnable per
 * queue, and the last pending await deadline. The drain uses them to tell quiescence from work
 * that is scheduled later, throttled, or in a queue it does not serve.
 */
public final class DrainSql {
    private final String backlogSql;
    private final String lastDeadlineSql;
    private final String nextDeadlineSql;
    private final String nextFireSql;
    private final String refillSql;

    /**
     * One shard of a rate limit's bucket that due rows wait on.
     *
     * @param key        the rate key
     * @param available  its tokens at {@code lastRefill}
     * @param lastRefill when they were counted
     * @param weight     the smallest weight among the due rows naming it
     */
    public record Refill(String key, double available, Instant lastRefill, int weight) {
    }

    /**
     * What is left runnable in one queue.
     *
     * @param due          rows due at the probe's instant
     * @param total        runnable rows, due or not
     * @param nextEligible the earliest {@code eligible_at} among them
     */
    public record Backlog(long due, long total, Instant nextEligible) {
    }

    public DrainSql(SchemaName schema) {
        String t = schema.instances();
        // Index: gen_durable_pick and gen_durable_key_blocked (their predicates); a test database holds few rows. A paused queue's
        // rows wait for its resume: they are not a backlog the drain could run. Nor are the rows of an FSM
        // version this engine does not register: its claim leaves them to a node that has it.
        this.backlogSql = """
                SELECT queue, count(*) FILTER (WHERE eligible_at <= ?) AS due, count(*) AS total,
                       min(eligible_at) AS next_eligible
                FROM (SELECT queue, eligible_at FROM %1$s WHERE status = 'runnable' AND NOT key_blocked
                                                               AND (fsm || ':' || fsm_version) = ANY (?::text[])
                      UNION ALL
                      SELECT queue, eligible_at FROM %1$s WHERE status = 'runnable' AND key_blocked
                                                          AND (fsm || ':' || fsm_version) = ANY (?::text[])) g
                WHERE NOT EXISTS (SELECT 1 FROM %2$s pq WHERE pq.queue = g.queue)
                GROUP BY queue
                ORDER BY queue
                """.formatted(t, schema.qualify("gen_durable_paused_queues"));
        // Index: gen_durable_await_deadline.
        this.lastDeadlineSql = """
                SELECT max(await_deadline) AS last_deadline FROM %1$s
                WHERE status = 'awaiting_signal' AND await_deadline IS NOT NULL
                """.formatted(t);
        // A test database holds few rows and buckets: no index needed.
        this.refillSql = """
                SELECT b.key, b.available, b.last_refill, w.weight
                FROM %2$s b
                JOIN (SELECT rate_limit, min(weight) AS weight FROM %1$s
                      WHERE status = 'runnable' AND eligible_at <= ? AND rate_limit IS NOT NULL
                      GROUP BY rate_limit) w ON b.kind = 'rate' AND b.key = w.rate_limit
                """.formatted(t, schema.qualify("gen_durable_buckets"));
        // A test database holds a few schedules: no index needed.
        this.nextFireSql = "SELECT min(next_fire_at) AS next_fire FROM " + schema.qualify("gen_durable_schedules")
                + " WHERE NOT paused AND fsm = ANY(?::text[]) AND next_fire_at > ?";
        // Index: gen_durable_await_deadline.
        this.nextDeadlineSql = """
                SELECT min(await_deadline) AS next_deadline FROM %1$s
                WHERE status = 'awaiting_signal' AND await_deadline IS NOT NULL
                """.formatted(t);
    }

    /**
     * @param runnable the {@code fsm:version} keys the engine runs ({@code FsmRegistry.claimKeys()})
     * @return queue → what is runnable there by this engine (queues with none are absent), in queue order
     */
    public Map<String, Backlog> backlog(Connection c, Instant now, String[] runnable) throws SQLException {
        Map<String, Backlog> out = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(backlogSql)) {
            Array keys = Jdbc.texts(c, runnable);
            ps.setObject(1, Jdbc.ts(now));
            ps.setArray(2, keys);
            ps.setArray(3, keys);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString("queue"), new Backlog(rs.getLong("due"), rs.getLong("total"),
                            Jdbc.instant(rs, "next_eligible")));
                }
            }
        }
        return out;
    }

    /** @return the shards of the rate limits that rows due at {@code now} name */
    public List<Refill> refills(Connection c, Instant now) throws SQLException {
        List<Refill> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(refillSql)) {
            ps.setObject(1, Jdbc.ts(now));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Refill(rs.getString("key"), rs.getDouble("available"), Jdbc.instant(rs, "last_refill"),
                            rs.getInt("weight")));
                }
            }
        }
        return out;
    }

    /** @return the earliest next fire time after {@code after} among the unpaused schedules of {@code fsms} */
    public Optional<Instant> nextScheduleFire(Connection c, Collection<String> fsms, Instant after)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(nextFireSql)) {
            ps.setArray(1, Jdbc.texts(c, fsms.toArray()));
            ps.setObject(2, Jdbc.ts(after));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return Optional.ofNullable(Jdbc.instant(rs, "next_fire"));
            }
        }
    }

    /** @return the earliest deadline among parked awaits that have one (a passed one included) */
    public Optional<Instant> nextAwaitDeadline(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(nextDeadlineSql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return Optional.ofNullable(Jdbc.instant(rs, "next_deadline"));
        }
    }

    /** @return the latest deadline among parked awaits that have one */
    public Optional<Instant> lastAwaitDeadline(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lastDeadlineSql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return Optional.ofNullable(Jdbc.instant(rs, "last_deadline"));
        }
    }
}
