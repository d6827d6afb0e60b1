package io.gendurable.impl.admission;

import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.admission.BucketSql.Shard;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.db.SqlErrors;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The PostgreSQL limiter: sharded counters in {@code gen_durable_buckets}. One admission is one
 * short transaction holding only bucket locks: grab the wanted keys' shards
 * ({@code SKIP LOCKED}, so concurrent pickers split a hot key's shards), refill rate shards,
 * admit in urgency order against what was grabbed (a cold key, one with no rows at all, counts
 * as full), write back, mint cold keys already debited, stamp the drawn shards. A racing mint
 * fails on the primary key; the admission then retries against the winner's rows (counted as
 * contended).
 */
public final class PostgresLimiter implements Limiter {
    private static final String RATE = "rate";
    private static final String GATE = "conc";
    private static final int ATTEMPTS = 4;

    private final EngineContext ctx;
    private final LimitsConfig limits;
    private final BucketSql sql;
    private final UnknownRateLimits unknown;

    /** @param ctx the engine's context (its limits, database, clock and counters) */
    public PostgresLimiter(EngineContext ctx) {
        this.ctx = ctx;
        this.unknown = new UnknownRateLimits(ctx.metrics());
        this.limits = ctx.config().limits();
        this.sql = ctx.statements().of(BucketSql.class, BucketSql::new);
    }

    @Override
    public Admission admit(List<Candidate> candidates, String queue) {
        int lost = 0;
        for (int attempt = 1; ; attempt++) {
            // the throttles of the attempt that commits: a rolled-back attempt's are not events
            AdmissionEvents events = AdmissionEvents.of(ctx.bus(), queue);
            try {
                Admission a = ctx.db().inTransaction(c -> admitOnce(c, candidates, events));
                events.publish(lost);
                return a;
            } catch (RuntimeException e) {
                if (attempt < ATTEMPTS && SqlErrors.isUniqueViolation(e)) {
                    ctx.metrics().contended(queue);
                    lost++;
                    continue;  // a racing mint won: recompute from its committed rows
                }
                AdmissionEvents.of(ctx.bus(), queue).publish(lost);
                throw e;
            }
        }
    }

    private Admission admitOnce(Connection c, List<Candidate> candidates, AdmissionEvents events)
            throws SQLException {
        Instant now = ctx.clock().instant();
        Set<Long> denied = new LinkedHashSet<>();
        Map<String, List<Shard>> grabbed = new HashMap<>();   // "kind/key" → grabbed shards (mutable copies)
        Set<String> cold = new HashSet<>();
        List<BucketSql.Wanted> keys = new ArrayList<>();
        Set<String> wanted = new LinkedHashSet<>();
        for (Candidate cand : candidates) {
            if (cand.gateKey() != null && wanted.add(GATE + "/" + cand.gateKey())) {
                keys.add(new BucketSql.Wanted(GATE, cand.gateKey()));
            }
            if (cand.rateKey() != null && rateOf(cand.rateKey()) != null && wanted.add(RATE + "/" + cand.rateKey())) {
                keys.add(new BucketSql.Wanted(RATE, cand.rateKey()));
            }
        }
        Set<String> existing = new HashSet<>();
        for (Shard s : sql.lock(c, keys)) {
            String k = s.kind() + "/" + s.key();
            if (s.grabbed() && s.shard() < configuredShards(s)) {
                grabbed.computeIfAbsent(k, x -> new ArrayList<>()).add(refill(s, now));
            } else {
                // Not ours to draw from (locked by another claimer, or retired by a lowered `shards`),
                // but the key exists: it is not cold.
                existing.add(k);
            }
        }
        for (String k : wanted) {
            if (!existing.contains(k) && !grabbed.containsKey(k)) {
                cold.add(k);
                grabbed.put(k, virtualShards(k, now));
            }
        }
        Map<Long, Slot> admitted = new LinkedHashMap<>();
        Map<String, Integer> wantedPerGate = new HashMap<>();
        Map<String, Integer> grantedPerGate = new HashMap<>();
        Set<String> rateStopped = new HashSet<>();
        for (Candidate cand : candidates) {
            Shard gateShard = null;
            if (cand.gateKey() != null) {
                wantedPerGate.merge(cand.gateKey(), 1, Integer::sum);
                gateShard = grabbed.getOrDefault(GATE + "/" + cand.gateKey(), List.of()).stream()
                        .filter(s -> s.available() >= 1).max(Comparator.comparingDouble(Shard::available)).orElse(null);
                if (gateShard == null) {
                    denied.add(cand.id());
                    continue;
                }
            }
            List<Shard> rateShards = null;
            if (cand.rateKey() != null) {
                if (rateOf(cand.rateKey()) == null) {
                    unknown.seen(cand.rateKey());
                    events.unknown(cand);
                    denied.add(cand.id());
                    continue;
                }
                events.rateWanted(cand.rateKey());
                rateShards = grabbed.getOrDefault(RATE + "/" + cand.rateKey(), List.of());
                double tokens = rateShards.stream().mapToDouble(Shard::available).sum();
                // a row the bucket cannot cover stops the rows of its key behind it: the tokens are
                // kept for it (it keeps its place), so a heavy row is not starved by lighter ones
                if (rateStopped.contains(cand.rateKey()) || tokens + 1e-9 < cand.weight()) {
                    rateStopped.add(cand.rateKey());
                    ctx.metrics().rateThrottled.increment();
                    denied.add(cand.id());
                    continue;
                }
            }
            if (gateShard != null) {
                replace(grabbed, GATE + "/" + cand.gateKey(), gateShard, gateShard.available() - 1);
                grantedPerGate.merge(cand.gateKey(), 1, Integer::sum);
            }
            if (rateShards != null) {
                debit(grabbed, RATE + "/" + cand.rateKey(), cand.weight());
                events.rateGranted(cand.rateKey());
            }
            admitted.put(cand.id(), gateShard == null ? null : new Slot(cand.gateKey(), gateShard.shard()));
        }
        wantedPerGate.forEach((key, n) -> {
            int granted = grantedPerGate.getOrDefault(key, 0);
            if (granted < n) {
                ctx.metrics().gateThrottled.increment();
                events.gateThrottled(key, n, granted);
            }
        });
        List<Shard> updates = new ArrayList<>();
        List<Shard> mints = new ArrayList<>();
        grabbed.forEach((k, shards) -> (cold.contains(k) ? mints : updates).addAll(shards));
        sql.update(c, updates);
        sql.mint(c, mints);
        List<BucketSql.Stamp> stamps = new ArrayList<>();
        for (Candidate cand : candidates) {
            Slot slot = admitted.get(cand.id());
            if (slot != null) {
                stamps.add(new BucketSql.Stamp(cand.id(), cand.token(), slot.shard()));
            }
        }
        int stamped = sql.stamp(c, stamps);
        if (stamped != stamps.size()) {
            // A claim was lost (or its row is locked elsewhere) between the claim and this
            // admission: roll the whole admission back rather than debit a slot nobody holds.
            throw new ClaimLostException("admission of " + stamps.size() + " gated rows stamped only " + stamped
                    + ": a claim was lost or its row is locked by another transaction; nothing was admitted");
        }
        return new Admission(admitted, denied);
    }

    private int configuredShards(Shard s) {
        if (s.kind().equals(GATE)) {
            LimitsConfig.Gate g = limits.gateFor(s.key());
            return g == null ? 0 : g.shards();
        }
        LimitsConfig.RateLimit r = rateOf(s.key());
        return r == null ? 0 : r.shards();
    }

    private LimitsConfig.RateLimit rateOf(String rateKey) {
        return limits.rateFor(rateKey);
    }

    private Shard refill(Shard s, Instant now) {
        if (!s.kind().equals(RATE)) {
            return s;
        }
        LimitsConfig.RateLimit r = rateOf(s.key());
        if (r == null || s.lastRefill() == null || !now.isAfter(s.lastRefill())) {
            // last_refill never moves back: an admission whose clock is behind the last refill's
            // (another node's clock, or this one's read before a later admission committed) refills
            // nothing and keeps the later instant, or the next refill would count that time twice
            return s;
        }
        // The current config sizes the shard: a changed burst or shards applies at the next admission.
        double capacity = r.burst() / r.shards();
        double seconds = Math.max(0, Duration.between(s.lastRefill(), now).toNanos() / 1e9);
        double available = Math.min(capacity, s.available() + seconds * r.perSecond() / r.shards());
        return new Shard(s.kind(), s.key(), s.shard(), capacity, available, now, true);
    }

    /** A cold key: its shards as they would be, full. */
    private List<Shard> virtualShards(String kindKey, Instant now) {
        int slash = kindKey.indexOf('/');
        String kind = kindKey.substring(0, slash);
        String key = kindKey.substring(slash + 1);
        List<Shard> out = new ArrayList<>();
        if (kind.equals(GATE)) {
            LimitsConfig.Gate g = limits.gateFor(key);
            for (int i = 0; i < g.shards(); i++) {
                out.add(new Shard(GATE, key, i, g.shardCapacity(i), g.shardCapacity(i), null, true));
            }
        } else {
            LimitsConfig.RateLimit r = rateOf(key);
            double cap = r.burst() / r.shards();
            for (int i = 0; i < r.shards(); i++) {
                out.add(new Shard(RATE, key, i, cap, cap, now, true));
            }
        }
        return out;
    }

    private static void replace(Map<String, List<Shard>> grabbed, String k, Shard old, double available) {
        List<Shard> list = grabbed.get(k);
        list.set(list.indexOf(old), new Shard(old.kind(), old.key(), old.shard(), old.capacity(), available,
                old.lastRefill(), true));
    }

    /** Takes {@code weight} tokens from the fullest shards first. */
    private static void debit(Map<String, List<Shard>> grabbed, String k, double weight) {
        List<Shard> list = grabbed.get(k);
        double left = weight;
        List<Shard> order = new ArrayList<>(list);
        order.sort(Comparator.comparingDouble(Shard::available).reversed());
        for (Shard s : order) {
            if (left <= 0) {
                break;
            }
            double take = Math.min(s.available(), left);
            left -= take;
            replace(grabbed, k, s, Math.max(0, s.available() - take));
        }
    }

    @Override
    public void credit(List<Slot> slots) {
        // Its slots are in-band: the flush, release or cancel that frees one credits it. This serves
        // callers that hold a slot outside such a transaction.
        if (slots.isEmpty()) {
            return;
        }
        ctx.db().inTransaction(c -> {
            sql.credit(c, slots);
            return null;
        });
    }

    @Override
    public Set<Long> renew(String queue, Map<Long, Long> held) {
        return Set.of();  // counters do not expire: nothing to renew
    }
}
