package io.gendurable.impl.admission;

import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.admission.BucketSql.Shard;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.runtime.EngineMetrics;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The GC's bucket work, each part one short transaction over skip-locked shards in
 * {@code (key, shard)} order; a key is deleted only when every one of its shards was locked
 * (all-shards-or-nothing). Rate buckets: a key whose shards have all refilled to capacity, or
 * whose limit is no longer configured, is deleted (a missing key is minted full on next use:
 * the same state). Gates, the reconciler: each locked shard's counter is set from the truth (its
 * capacity under the current config minus the executing rows holding it), idle or orphaned keys
 * are deleted, and shards missing after a {@code shards} increase are backfilled. Crash leaks
 * (slots never credited) heal here.
 */
public final class BucketSweeper {
    private static final int BATCH = 10_000;

    /**
     * Where the next pass over a kind's keys starts. Each pass takes at most {@link #batch} shards
     * from there and moves it on; a short pass (the end reached) starts the next from the first
     * key. Without it every pass would take the first shards in key order, and a key sorted after
     * that many busy shards would never be reconciled (its leaked slots would never come back).
     */
    private static final class Cursor {
        String from = "";
        boolean inclusive = true;

        /** Moves past a pass of {@code shards} (in key order) taken with this cursor and a limit of {@code batch}. */
        void advance(List<Shard> shards, int batch) {
            if (shards.size() < batch) {
                from = "";
                inclusive = true;
                return;
            }
            String first = shards.get(0).key();
            String last = shards.get(shards.size() - 1).key();
            // the last key may have more shards than this pass held: start there again, unless it
            // was the only key of the pass (then past it, so a pass always moves on)
            from = last;
            inclusive = !last.equals(first);
        }
    }

    private final Map<String, Cursor> cursors = new ConcurrentHashMap<>();
    // the most shards a pass takes (tests set fewer)
    private volatile int batch = BATCH;

    private final EngineContext ctx;
    private final LimitsConfig limits;
    private final BucketSql sql;

    /** @param ctx the engine's context (its limits, database, clock and counters) */
    public BucketSweeper(EngineContext ctx) {
        this.ctx = ctx;
        this.limits = ctx.config().limits();
        this.sql = ctx.statements().of(BucketSql.class, BucketSql::new);
    }

    /** @return how many rate-bucket shards were deleted */
    public int sweepRates() {
        // Refills are stamped with the admitting nodes' clocks and judged here with this node's: a
        // bucket goes only once it was full a lease margin ago, the clock skew the engine tolerates
        // (lease-ttl - heartbeat-interval, reliability.md). Deleted early, it would be minted full.
        var lease = ctx.config().lease();
        Instant now = ctx.clock().instant().minus(lease.ttl().minus(lease.heartbeatInterval()));
        return ctx.db().inTransaction(c -> {
            Map<String, List<Shard>> byKey = lockAll(c, "rate");
            List<String> drop = new ArrayList<>();
            byKey.forEach((key, shards) -> {
                LimitsConfig.RateLimit r = limits.rateLimits().get(name(key));
                if (r == null || shards.stream().allMatch(s -> refilled(s, r, now))) {
                    drop.add(key);
                }
            });
            int n = sql.deleteKeys(c, "rate", drop);
            ctx.metrics().bucketsReconciled.add(n);
            return n;
        });
    }

    /** @return how many gate shards were corrected, backfilled or deleted */
    public int reconcileGates() {
        return ctx.db().inTransaction(c -> {
            Map<String, List<Shard>> locked = group(page(c, "conc"));
            if (locked.isEmpty()) {
                return 0;
            }
            Map<String, Integer> totals = sql.totals(c, "conc", locked.keySet());
            Map<String, Map<Integer, Long>> held = new HashMap<>();
            for (BucketSql.Held h : sql.gateTruth(c, locked.keySet())) {
                held.computeIfAbsent(h.key(), k -> new HashMap<>()).put(h.shard(), h.count());
            }
            List<Shard> updates = new ArrayList<>();
            List<Shard> backfill = new ArrayList<>();
            List<String> drop = new ArrayList<>();
            for (var e : locked.entrySet()) {
                String key = e.getKey();
                List<Shard> shards = e.getValue();
                boolean whole = shards.size() == totals.getOrDefault(key, 0);
                Map<Integer, Long> inUse = held.getOrDefault(key, Map.of());
                LimitsConfig.Gate g = limits.concurrencyLimits().get(name(key));
                if (inUse.isEmpty() && whole) {
                    drop.add(key);  // idle or orphaned: a missing key reads as full
                    continue;
                }
                if (g == null) {
                    continue;  // orphaned but still held: swept once its holders finish
                }
                if (!whole && !shaped(g, shards, totals.getOrDefault(key, 0))) {
                    // Its shards or limit changed: the reshape is one pass's, over every shard. A pass
                    // holding some (an admission holds the others) resized them to the new shares while
                    // the others kept their old ones, and a retired shard it never held kept the slots
                    // its holders returned: raised again, the key admitted beyond its limit.
                    continue;
                }
                // Holders the current shards cannot account for: those on shards beyond a shards
                // decrease, and those over a shard's new share after a resize. They still run, so their
                // count comes off the free slots of the other shards (the limit holds for the whole key).
                long excess = 0;
                for (var u : inUse.entrySet()) {
                    excess += u.getKey() >= g.shards() ? u.getValue()
                            : Math.max(0, u.getValue() - g.shardCapacity(u.getKey()));
                }
                for (Shard s : shards) {
                    if (s.shard() >= g.shards()) {
                        // beyond this node's shards: it never draws from it, and its holders came off
                        // the other shards above. A node still on a larger shards value would draw its
                        // stale free slots beside them (over the limit): it is emptied; the slots its
                        // holders give back return to it, once each. Deleted with the key when idle.
                        if (s.available() != 0) {
                            updates.add(new Shard("conc", key, s.shard(), s.capacity(), 0, null, true));
                        }
                        continue;
                    }
                    double capacity = g.shardCapacity(s.shard());
                    double free = Math.max(0, capacity - inUse.getOrDefault(s.shard(), 0L));
                    double truth = free - Math.min(free, excess);
                    excess -= (long) (free - truth);
                    if (s.capacity() != capacity || s.available() != truth) {
                        updates.add(new Shard("conc", key, s.shard(), capacity, truth, null, true));
                    }
                }
                if (whole) {
                    Set<Integer> present = shards.stream().map(Shard::shard).collect(Collectors.toSet());
                    for (int i = 0; i < g.shards(); i++) {
                        if (!present.contains(i)) {
                            double free = g.shardCapacity(i);
                            double truth = free - Math.min(free, excess);
                            excess -= (long) (free - truth);
                            backfill.add(new Shard("conc", key, i, g.shardCapacity(i), truth, null, true));
                        }
                    }
                }
            }
            sql.rewriteGates(c, updates);
            sql.backfillGates(c, backfill);
            int n = updates.size() + backfill.size() + sql.deleteKeys(c, "conc", drop);
            ctx.metrics().bucketsReconciled.add(n);
            return n;
        });
    }

    /**
     * @return whether the key's counters have the gate's current shape: exactly its shards, each
     *         sized to its share (so a pass may correct the shards it holds one by one)
     */
    private static boolean shaped(LimitsConfig.Gate g, List<Shard> locked, int total) {
        return total == g.shards() && locked.stream().allMatch(s -> s.shard() < g.shards()
                && s.capacity() == g.shardCapacity(s.shard()));
    }

    /** The kind's shards we could lock, keeping only keys whose every shard we hold. */
    private Map<String, List<Shard>> lockAll(Connection c, String kind) throws SQLException {
        Map<String, List<Shard>> byKey = group(page(c, kind));
        if (byKey.isEmpty()) {
            return byKey;
        }
        Map<String, Integer> totals = sql.totals(c, kind, byKey.keySet());
        byKey.entrySet().removeIf(e -> e.getValue().size() != totals.getOrDefault(e.getKey(), 0));
        return byKey;
    }

    /** The next page of the kind's shards that no other transaction holds; moves the kind's cursor past it. */
    private List<Shard> page(Connection c, String kind) throws SQLException {
        Cursor cursor = cursors.computeIfAbsent(kind, k -> new Cursor());
        int limit = batch;
        List<Shard> shards = sql.lockKind(c, kind, cursor.from, cursor.inclusive, limit);
        cursor.advance(shards, limit);
        return shards;
    }

    /**
     * Sets the most shards one pass takes (default 10,000): tests show the cursor's reach with few.
     *
     * @param shards at least 1
     */
    public void batch(int shards) {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be at least 1, got " + shards);
        }
        this.batch = shards;
    }

    private static boolean refilled(Shard s, LimitsConfig.RateLimit r, Instant now) {
        if (s.lastRefill() == null) {
            return true;
        }
        double seconds = Math.max(0, Duration.between(s.lastRefill(), now).toNanos() / 1e9);
        return s.available() + seconds * r.perSecond() / r.shards() >= s.capacity() - 1e-9;
    }

    private static Map<String, List<Shard>> group(List<Shard> shards) {
        Map<String, List<Shard>> out = new LinkedHashMap<>();
        for (Shard s : shards) {
            out.computeIfAbsent(s.key(), k -> new ArrayList<>()).add(s);
        }
        return out;
    }

    private static String name(String key) {
        return LimitsConfig.nameOf(key);
    }
}
