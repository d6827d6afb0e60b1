package io.gendurable.impl.admission;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The limiter's counters ({@code gen_durable_buckets}) and policy ({@code gen_durable_bucket_configs}).
 * Shards are locked {@code FOR UPDATE OF b SKIP LOCKED} in {@code (kind, key, shard)} order, so
 * concurrent pickers grab disjoint shards and no bucket lock can join a deadlock cycle; the
 * {@code 0 ≤ available ≤ capacity} CHECK makes over-admission uncommittable, and a racing mint of
 * the same cold key meets the primary key (the caller retries against the winner's rows).
 */
public final class BucketSql {
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

    public BucketSql(SchemaName schema) {
        String b = schema.qualify("gen_durable_buckets");
        String t = schema.instances();
        this.lockSql = """
                WITH wanted AS (
                    SELECT * FROM unnest(?::text[], ?::text[]) AS w(kind, key)
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
                """.formatted(b);
        this.updateSql = """
                UPDATE %1$s b SET capacity = u.capacity, available = u.available, last_refill = u.last_refill::timestamptz
                FROM unnest(?::text[], ?::text[], ?::int[], ?::float8[], ?::float8[], ?::text[])
                     AS u(kind, key, shard, capacity, available, last_refill)
                WHERE b.kind = u.kind AND b.key = u.key AND b.shard = u.shard
                """.formatted(b);
        // No ON CONFLICT: a racing mint must fail (primary key) so the loser recomputes from the winner's rows.
        this.mintSql = """
                INSERT INTO %1$s (kind, key, shard, capacity, available, last_refill)
                SELECT kind, key, shard, capacity, available, last_refill::timestamptz
                FROM unnest(?::text[], ?::text[], ?::int[], ?::float8[], ?::float8[], ?::text[])
                     AS m(kind, key, shard, capacity, available, last_refill)
                ORDER BY kind, key, shard
                """.formatted(b);
        // Guarded by the claim's fencing token: an admission that runs after its claim was lost (a
        // worker paused between its claim and its admission, the row reaped and claimed again)
        // must not stamp the new claim's row. Rows locked in id order; a row locked elsewhere is
        // waited for briefly (Jdbc.BRIEF_LOCK_WAIT), then the admission fails and rolls back.
        // The caller compares the count: a row not stamped rolls the admission back.
        this.stampSql = """
                WITH s AS (
                    SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::int[]) AS s(id, token, shard)
                ), mine AS (
                    SELECT g.id FROM %1$s g JOIN s ON g.id = s.id
                    WHERE g.claim_token = s.token AND g.status::text = 'executing'
                    ORDER BY g.id
                    FOR NO KEY UPDATE OF g
                )
                UPDATE %1$s g SET concurrency_shard = s.shard
                FROM s JOIN mine ON mine.id = s.id
                WHERE g.id = s.id
                """.formatted(t);
        // LEAST: a slot leaked by a crash and healed by the reconciler must never push a counter
        // over its capacity and sink a flush; credits run inside the flush that frees the slot.
        this.creditSql = """
                WITH c AS (
                    SELECT key, shard, count(*)::float8 AS n FROM unnest(?::text[], ?::int[]) AS x(key, shard)
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
                """.formatted(b);
        this.seedSql = """
                INSERT INTO %1$s (kind, name, rate, capacity, shards)
                SELECT * FROM unnest(?::text[], ?::text[], ?::float8[], ?::float8[], ?::int[])
                ORDER BY 1, 2
                ON CONFLICT (kind, name) DO UPDATE
                SET rate = EXCLUDED.rate, capacity = EXCLUDED.capacity, shards = EXCLUDED.shards
                """.formatted(schema.qualify("gen_durable_bucket_configs"));
        this.lockKindSql = """
                SELECT kind, key, shard, capacity, available, last_refill, true AS grabbed FROM %1$s b
                WHERE kind = ?
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
                FROM unnest(?::text[], ?::int[], ?::float8[], ?::float8[]) AS u(key, shard, capacity, available)
                WHERE b.kind = 'conc' AND b.key = u.key AND b.shard = u.shard
                """.formatted(b);
        this.backfillSql = """
                INSERT INTO %1$s (kind, key, shard, capacity, available)
                SELECT 'conc', key, shard, capacity, available
                FROM unnest(?::text[], ?::int[], ?::float8[], ?::float8[]) AS u(key, shard, capacity, available)
                ORDER BY key, shard
                ON CONFLICT DO NOTHING
                """.formatted(b);
        // Index: gen_durable_concurrency_active (executing K = 1 holders only).
        this.capturedSql = """
                SELECT concurrency_name, count(*) FROM %1$s
                WHERE status = 'executing' AND concurrency_key IS NOT NULL AND concurrency_shard IS NULL
                  AND concurrency_name = ANY(?::text[])
                GROUP BY 1
                """.formatted(t);
    }

    /** @return gate name → live K = 1 holders of keys under that name (identities a gate now captures) */
    public java.util.Map<String, Long> captured(Connection c, Collection<String> gateNames) throws SQLException {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
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
    public java.util.Map<String, Integer> totals(Connection c, String kind, Collection<String> keys) throws SQLException {
        java.util.Map<String, Integer> out = new java.util.HashMap<>();
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
        gateRows(c, rewriteSql, shards);
    }

    /** Inserts gate shards missing after a {@code shards} increase. */
    public void backfillGates(Connection c, List<Shard> shards) throws SQLException {
        gateRows(c, backfillSql, shards);
    }

    private static void gateRows(Connection c, String sql, List<Shard> shards) throws SQLException {
        if (shards.isEmpty()) {
            return;
        }
        int n = shards.size();
        String[] key = new String[n];
        Integer[] shard = new Integer[n];
        Double[] capacity = new Double[n];
        Double[] available = new Double[n];
        for (int i = 0; i < n; i++) {
            key[i] = shards.get(i).key();
            shard[i] = shards.get(i).shard();
            capacity[i] = shards.get(i).capacity();
            available[i] = shards.get(i).available();
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, Jdbc.texts(c, key));
            ps.setArray(2, Jdbc.ints(c, shard));
            ps.setArray(3, c.createArrayOf("float8", capacity));
            ps.setArray(4, c.createArrayOf("float8", available));
            ps.executeUpdate();
        }
    }

    /** A counter shard as read (grabbed) or known to exist without being grabbed (shard null). */
    public record Shard(String kind, String key, Integer shard, double capacity, double available,
                        Instant lastRefill, boolean grabbed) {
    }

    /** @return the grabbed shards of the wanted keys, plus one ungrabbed marker row per existing key */
    public List<Shard> lock(Connection c, List<String> kinds, List<String> keys) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lockSql)) {
            ps.setArray(1, Jdbc.texts(c, kinds.toArray()));
            ps.setArray(2, Jdbc.texts(c, keys.toArray()));
            return shards(ps);
        }
    }

    /** @return up to {@code limit} shards of one kind, skip-locked, in (key, shard) order */
    public List<Shard> lockKind(Connection c, String kind, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lockKindSql)) {
            ps.setString(1, kind);
            ps.setInt(2, limit);
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
        if (shards.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(updateSql)) {
            bindShards(c, ps, shards, true);
            ps.executeUpdate();
        }
    }

    /** Inserts cold keys' shards, already debited; a racing mint fails on the primary key. */
    public void mint(Connection c, List<Shard> shards) throws SQLException {
        if (shards.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(mintSql)) {
            bindShards(c, ps, shards, true);
            ps.executeUpdate();
        }
    }

    private static void bindShards(Connection c, PreparedStatement ps, List<Shard> shards, boolean withCapacity)
            throws SQLException {
        int n = shards.size();
        String[] kind = new String[n];
        String[] key = new String[n];
        Integer[] shard = new Integer[n];
        Double[] capacity = new Double[n];
        Double[] available = new Double[n];
        String[] refill = new String[n];
        for (int i = 0; i < n; i++) {
            Shard s = shards.get(i);
            kind[i] = s.kind();
            key[i] = s.key();
            shard[i] = s.shard();
            capacity[i] = s.capacity();
            available[i] = s.available();
            refill[i] = Jdbc.isoOrNull(s.lastRefill());
        }
        int p = 1;
        ps.setArray(p++, Jdbc.texts(c, kind));
        ps.setArray(p++, Jdbc.texts(c, key));
        ps.setArray(p++, Jdbc.ints(c, shard));
        if (withCapacity) {
            ps.setArray(p++, c.createArrayOf("float8", capacity));
        }
        ps.setArray(p++, c.createArrayOf("float8", available));
        ps.setArray(p, Jdbc.texts(c, refill));
    }

    /** Stamps the drawn gate shard onto admitted rows. */
    public int stamp(Connection c, List<Long> ids, List<Long> tokens, List<Integer> shards) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        return Jdbc.waitingBriefly(c, () -> {
            try (PreparedStatement ps = c.prepareStatement(stampSql)) {
                ps.setArray(1, Jdbc.longs(c, ids));
                ps.setArray(2, Jdbc.longs(c, tokens));
                ps.setArray(3, Jdbc.ints(c, shards.toArray(new Integer[0])));
                return ps.executeUpdate();
            }
        });
    }

    /** Returns one slot per (key, shard) entry to its gate counter (capped at capacity). */
    public void credit(Connection c, List<String> keys, List<Integer> shards) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(creditSql)) {
            ps.setArray(1, Jdbc.texts(c, keys.toArray()));
            ps.setArray(2, Jdbc.ints(c, shards.toArray(new Integer[0])));
            ps.executeUpdate();
        }
    }

    /** Upserts the policy rows this node declares (nothing else is touched). */
    public void seed(Connection c, List<String> kinds, List<String> names, List<Double> rates, List<Double> capacities,
                     List<Integer> shards) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(seedSql)) {
            ps.setArray(1, Jdbc.texts(c, kinds.toArray()));
            ps.setArray(2, Jdbc.texts(c, names.toArray()));
            ps.setArray(3, c.createArrayOf("float8", rates.toArray()));
            ps.setArray(4, c.createArrayOf("float8", capacities.toArray()));
            ps.setArray(5, Jdbc.ints(c, shards.toArray(new Integer[0])));
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
