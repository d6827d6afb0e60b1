package io.gendurable.impl.admission;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Unnest;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.gendurable.impl.db.UnnestColumn.bigint;
import static io.gendurable.impl.db.UnnestColumn.float8;
import static io.gendurable.impl.db.UnnestColumn.instant;
import static io.gendurable.impl.db.UnnestColumn.int4;
import static io.gendurable.impl.db.UnnestColumn.text;

/**
 * The limiter's counters ({@code gen_durable_buckets}) and policy ({@code gen_durable_bucket_configs}).
 * Shards are locked {@code FOR UPDATE OF b SKIP LOCKED} in {@code (kind, key, shard)} order, so
 * concurrent pickers grab disjoint shards and no bucket lock can join a deadlock cycle; the
 * {@code 0 ≤ available ≤ capacity} CHECK makes over-admission uncommittable, and a racing mint of
 * the same cold key meets the primary key (the caller retries against the winner's rows).
 */
public final class BucketSql {
    // The unnest inputs, one column per line: the clause and the binding derive from them.
    private static final Unnest<Wanted> WANTED = Unnest.of(text("kind", Wanted::kind), text("key", Wanted::key));
    private static final Unnest<Shard> SHARDS = Unnest.of(
            text("kind", Shard::kind),
            text("key", Shard::key),
            int4("shard", Shard::shard),
            float8("capacity", Shard::capacity),
            float8("available", Shard::available),
            instant("last_refill", Shard::lastRefill));
    private static final Unnest<Shard> GATE_SHARDS = Unnest.of(
            text("key", Shard::key),
            int4("shard", Shard::shard),
            float8("capacity", Shard::capacity),
            float8("available", Shard::available));
    private static final Unnest<Stamp> STAMPS = Unnest.of(
            bigint("id", Stamp::id),
            bigint("token", Stamp::token),
            int4("shard", Stamp::shard));
    private static final Unnest<Limiter.Slot> SLOTS = Unnest.of(text("key", Limiter.Slot::key), int4("shard", Limiter.Slot::shard));
    private static final Unnest<Policy> POLICIES = Unnest.of(
            text("kind", Policy::kind),
            text("name", Policy::name),
            float8("rate", Policy::rate),
            float8("capacity", Policy::capacity),
            int4("shards", Policy::shards));

    private final String lockSql;
    private final String updateSql;
    private final String mintSql;
    private final String stampSql;
    private final String creditSql;
    private final String seedSql;
    private final String lockKindSql;
    private final String deleteKeysSql;
    private final String gateTruthSql;
    private final String capturedSql;
    private final String totalsSql;
    private final String rewriteSql;
    private final String backfillSql;
    private final String holdersSql;

    public BucketSql(SchemaName schema) {
        String b = schema.qualify("gen_durable_buckets");
        String t = schema.instances();
        this.lockSql = """
                WITH wanted AS (
                    SELECT * FROM %2$s
                ), locked AS (
                    SELECT b.kind, b.key, b.shard, b.capacity, b.available, b.last_refill
                    FROM %1$s b JOIN wanted w ON w.kind = b.kind AND w.key = b.key
                    ORDER BY b.kind, b.key, b.shard
                    FOR UPDATE OF b SKIP LOCKED
                )
                SELECT kind, key, shard, capacity, available, last_refill, true AS grabbed FROM locked
                UNION ALL
                SELECT DISTINCT b.kind, b.key, NULL::int, NULL::float8, NULL::float8, NULL::timestamptz, false
                FROM %1$s b JOIN wanted w ON w.kind = b.kind AND w.key = b.key
                """.formatted(b, WANTED.as("w"));
        this.updateSql = """
                UPDATE %1$s b SET capacity = u.capacity, available = u.available, last_refill = u.last_refill::timestamptz
                FROM %2$s
                WHERE b.kind = u.kind AND b.key = u.key AND b.shard = u.shard
                """.formatted(b, SHARDS.as("u"));
        // No ON CONFLICT: a racing mint must fail (primary key) so the loser recomputes from the winner's rows.
        this.mintSql = """
                INSERT INTO %1$s (kind, key, shard, capacity, available, last_refill)
                SELECT kind, key, shard, capacity, available, last_refill::timestamptz
                FROM %2$s
                ORDER BY kind, key, shard
                """.formatted(b, SHARDS.as("m"));
        // Guarded by the claim's fencing token: an admission that runs after its claim was lost (a
        // worker paused between its claim and its admission, the row reaped and claimed again)
        // must not stamp the new claim's row. Rows locked in id order; a row locked elsewhere is
        // waited for briefly (Jdbc.BRIEF_LOCK_WAIT), then the admission fails and rolls back.
        // The caller compares the count: a row not stamped rolls the admission back.
        this.stampSql = """
                WITH s AS (
                    SELECT * FROM %2$s
                ), mine AS (
                    SELECT g.id FROM %1$s g JOIN s ON g.id = s.id
                    WHERE g.claim_token = s.token AND g.status::text = 'executing'
                    ORDER BY g.id
                    FOR NO KEY UPDATE OF g
                )
                UPDATE %1$s g SET concurrency_shard = s.shard
                FROM s JOIN mine ON mine.id = s.id
                WHERE g.id = s.id
                """.formatted(t, STAMPS.as("s"));
        // LEAST: a slot leaked by a crash and healed by the reconciler must never push a counter
        // over its capacity and sink a flush; credits run inside the flush that frees the slot.
        this.creditSql = """
                WITH c AS (
                    SELECT key, shard, count(*)::float8 AS n FROM %2$s
                    GROUP BY key, shard
                ), l AS (
                    SELECT b.key, b.shard FROM %1$s b JOIN c ON c.key = b.key AND c.shard = b.shard
                    WHERE b.kind = 'conc'
                    ORDER BY b.key, b.shard
                    FOR UPDATE OF b
                )
                UPDATE %1$s b SET available = LEAST(b.capacity, b.available + c.n)
                FROM c JOIN l ON l.key = c.key AND l.shard = c.shard
                WHERE b.kind = 'conc' AND b.key = c.key AND b.shard = c.shard
                """.formatted(b, SLOTS.as("x"));
        this.seedSql = """
                INSERT INTO %1$s (kind, name, rate, capacity, shards)
                SELECT * FROM %2$s
                ORDER BY 1, 2
                ON CONFLICT (kind, name) DO UPDATE
                SET rate = EXCLUDED.rate, capacity = EXCLUDED.capacity, shards = EXCLUDED.shards
                """.formatted(schema.qualify("gen_durable_bucket_configs"), POLICIES.as("p"));
        this.lockKindSql = """
                SELECT kind, key, shard, capacity, available, last_refill, true AS grabbed FROM %1$s b
                WHERE kind = ? AND (key > ? OR key = ? AND ?)
                ORDER BY key, shard
                LIMIT ?
                FOR UPDATE OF b SKIP LOCKED
                """.formatted(b);
        this.deleteKeysSql = "DELETE FROM " + b + " WHERE kind = ? AND key = ANY(?::text[])";
        // Index: gen_durable_lease (the executing set). Provisional shards (-1) are not admitted yet.
        this.gateTruthSql = """
                SELECT concurrency_key, concurrency_shard, count(*) FROM %1$s
                WHERE status = 'executing' AND concurrency_shard >= 0 AND concurrency_key = ANY(?::text[])
                GROUP BY 1, 2
                """.formatted(t);
        this.totalsSql = "SELECT key, count(*) FROM " + b + " WHERE kind = ? AND key = ANY(?::text[]) GROUP BY key";
        this.rewriteSql = """
                UPDATE %1$s b SET capacity = u.capacity, available = u.available
                FROM %2$s
                WHERE b.kind = 'conc' AND b.key = u.key AND b.shard = u.shard
                """.formatted(b, GATE_SHARDS.as("u"));
        this.backfillSql = """
                INSERT INTO %1$s (kind, key, shard, capacity, available)
                SELECT 'conc', key, shard, capacity, available
                FROM %2$s
                ORDER BY key, shard
                ON CONFLICT DO NOTHING
                """.formatted(b, GATE_SHARDS.as("u"));
        // Every gated claim, admitted (shard >= 0) or not yet (-1): what a limiter outside
        // PostgreSQL that lost its state must count as held. Index: gen_durable_lease.
        this.holdersSql = """
                SELECT concurrency_key, id, claim_token FROM %1$s
                WHERE status = 'executing' AND concurrency_shard IS NOT NULL AND concurrency_key IS NOT NULL
                """.formatted(t);
        // Index: gen_durable_concurrency_active (executing K = 1 holders only).
        this.capturedSql = """
                SELECT concurrency_name, count(*) FROM %1$s
                WHERE status = 'executing' AND concurrency_key IS NOT NULL AND concurrency_shard IS NULL
                  AND concurrency_name = ANY(?::text[])
                GROUP BY 1
                """.formatted(t);
    }

    /** @return gate name → live K = 1 holders of keys under that name (identities a gate now captures) */
    public Map<String, Long> captured(Connection c, Collection<String> gateNames) throws SQLException {
        Map<String, Long> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement(capturedSql)) {
            ps.setArray(1, Jdbc.texts(c, gateNames.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return out;
    }

    /** @return key → how many shards it has (locked or not) */
    public Map<String, Integer> totals(Connection c, String kind, Collection<String> keys) throws SQLException {
        Map<String, Integer> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(totalsSql)) {
            ps.setString(1, kind);
            ps.setArray(2, Jdbc.texts(c, keys.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return out;
    }

    /** Sets gate shards' capacity and available (the reconciler's truth). */
    public void rewriteGates(Connection c, List<Shard> shards) throws SQLException {
        write(c, rewriteSql, GATE_SHARDS, shards);
    }

    /** Inserts gate shards missing after a {@code shards} increase. */
    public void backfillGates(Connection c, List<Shard> shards) throws SQLException {
        write(c, backfillSql, GATE_SHARDS, shards);
    }

    /** A counter shard as read (grabbed) or known to exist without being grabbed (shard null). */
    public record Shard(String kind, String key, Integer shard, double capacity, double available,
                        Instant lastRefill, boolean grabbed) {
    }

    /** A counter the admission wants: its kind ({@code rate} or {@code conc}) and key. */
    public record Wanted(String kind, String key) {
    }

    /** @return the grabbed shards of the wanted keys, plus one ungrabbed marker row per existing key */
    public List<Shard> lock(Connection c, List<Wanted> wanted) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lockSql)) {
            WANTED.bind(c, ps, 1, wanted);
            return shards(ps);
        }
    }

    /** @return up to {@code limit} shards of one kind, skip-locked, in (key, shard) order */
    public List<Shard> lockKind(Connection c, String kind, int limit) throws SQLException {
        return lockKind(c, kind, "", true, limit);
    }

    /**
     * @param c         the transaction
     * @param kind      {@code conc} or {@code rate}
     * @param from      where this page of keys starts (a cursor: "" for the first key)
     * @param inclusive whether the key {@code from} itself is in the page
     * @param limit     the most shards
     * @return the shards of the kind from {@code from} on, in (key, shard) order, that no other transaction holds
     */
    public List<Shard> lockKind(Connection c, String kind, String from, boolean inclusive, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lockKindSql)) {
            ps.setString(1, kind);
            ps.setString(2, from);
            ps.setString(3, from);
            ps.setBoolean(4, inclusive);
            ps.setInt(5, limit);
            return shards(ps);
        }
    }

    private static List<Shard> shards(PreparedStatement ps) throws SQLException {
        List<Shard> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                int shard = rs.getInt("shard");
                Integer s = rs.wasNull() ? null : shard;
                out.add(new Shard(rs.getString("kind"), rs.getString("key"), s, rs.getDouble("capacity"),
                        rs.getDouble("available"), Jdbc.instant(rs, "last_refill"), rs.getBoolean("grabbed")));
            }
        }
        return out;
    }

    /** Writes back grabbed shards' counters. */
    public void update(Connection c, List<Shard> shards) throws SQLException {
        write(c, updateSql, SHARDS, shards);
    }

    /** Inserts cold keys' shards, already debited; a racing mint fails on the primary key. */
    public void mint(Connection c, List<Shard> shards) throws SQLException {
        write(c, mintSql, SHARDS, shards);
    }

    /** Runs {@code sql} over {@code rows} bound as one unnest input, unless there are none. */
    private static <R> void write(Connection c, String sql, Unnest<R> input, List<R> rows)
            throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            input.bind(c, ps, 1, rows);
            ps.executeUpdate();
        }
    }

    /** A gated claim: its key, row and fencing token. */
    public record Holder(String key, long id, long token) {
    }

    /** @return every executing gated claim (admitted or not yet) */
    public List<Holder> holders(Connection c) throws SQLException {
        List<Holder> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(holdersSql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Holder(rs.getString(1), rs.getLong(2), rs.getLong(3)));
            }
        }
        return out;
    }

    /** An admitted row's drawn gate shard, stamped while its claim (fencing token) holds. */
    public record Stamp(long id, long token, int shard) {
    }

    /** Stamps the drawn gate shard onto admitted rows. */
    public int stamp(Connection c, List<Stamp> stamps) throws SQLException {
        if (stamps.isEmpty()) {
            return 0;
        }
        return Jdbc.waitingBriefly(c, () -> {
            try (PreparedStatement ps = c.prepareStatement(stampSql)) {
                STAMPS.bind(c, ps, 1, stamps);
                return ps.executeUpdate();
            }
        });
    }

    /** Returns each slot to its gate counter, one per entry (capped at capacity). */
    public void credit(Connection c, List<Limiter.Slot> slots) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(creditSql)) {
            SLOTS.bind(c, ps, 1, slots);
            ps.executeUpdate();
        }
    }

    /**
     * A limit's policy row.
     *
     * @param kind     {@code rate} or {@code conc}
     * @param rate     tokens per second (rate), or null (a gate)
     * @param capacity the burst (rate) or the limit (gate)
     * @param shards   how many shards its counter has
     */
    public record Policy(String kind, String name, Double rate, double capacity, int shards) {
    }

    /** Upserts the policy rows this node declares (nothing else is touched). */
    public void seed(Connection c, List<Policy> policies) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(seedSql)) {
            POLICIES.bind(c, ps, 1, policies);
            ps.executeUpdate();
        }
    }

    /** Deletes every shard of the given keys. */
    public int deleteKeys(Connection c, String kind, Collection<String> keys) throws SQLException {
        if (keys.isEmpty()) {
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement(deleteKeysSql)) {
            ps.setString(1, kind);
            ps.setArray(2, Jdbc.texts(c, keys.toArray()));
            return ps.executeUpdate();
        }
    }

    /** One (key, shard) → executing count of the truth. */
    public record Held(String key, int shard, long count) {
    }

    /** @return the executing rows holding slots of these gate keys, by (key, shard) */
    public List<Held> gateTruth(Connection c, Collection<String> keys) throws SQLException {
        List<Held> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(gateTruthSql)) {
            ps.setArray(1, Jdbc.texts(c, keys.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Held(rs.getString(1), rs.getInt(2), rs.getLong(3)));
                }
            }
        }
        return out;
    }
}
