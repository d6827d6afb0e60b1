package io.gendurable.impl.redis;

import io.gendurable.impl.admission.AdmissionEvents;
import io.gendurable.impl.admission.BucketSql;
import io.gendurable.impl.admission.GateRows;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.admission.UnknownRateLimits;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.runtime.EngineContext;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Redis limiter ({@code gendurable.limiter=redis}). A gate key is a sorted set whose members
 * are its holders ({@code <row id>:<claim token>}) scored with their lease's expiry (Redis time,
 * ms): an admission first prunes the members whose lease lapsed, so a slot leaked by a crashed
 * node heals by itself, with no reconciler; the scheduler's heartbeat renews the members of the
 * rows it still holds ({@link #renew}) before it extends their leases, so a long step is never
 * pruned and a row never outlives its slot. A rate key is a token bucket (a hash of tokens and the
 * time of their last refill, expiring once it would be full again). {@link #admit} and
 * {@link #renew} are each one script over every key of the batch; the caps come from this node's
 * configuration, sent with each script (no configuration lookup per admission).
 *
 * <p>Between the two stores: admission runs in Redis first, then stamps the admitted gated rows in
 * PostgreSQL (fenced by their claim token); a stamp that fails gives the slots back (and if that
 * fails too, they lapse with their lease). Credits run after the transaction that frees a slot
 * commits ({@link Limiter.Slot#inBand()} is false), so a failure between the two leaks the slot
 * until its lease lapses, never frees one still held. A Redis that lost any of its state is
 * detected by its epoch key, which holds the {@code run_id} of the Redis process that set it:
 * missing (restarted without persistence, flushed) or naming another process (restarted, perhaps
 * from an older snapshot, or failed over to a replica), every script refuses to admit until the
 * limiter has rebuilt every gate's holders from PostgreSQL's executing gated rows and set the
 * epoch again. Rate buckets cannot be rebuilt: they restart as the server has them. The keys and
 * scripts are {@link LimiterScripts}'.
 */
public final class RedisLimiter implements Limiter {
    private static final Logger LOG = System.getLogger("io.gendurable.admission");
    /** The script's answer for a candidate whose gate is full. */
    static final int GATE_DENIED = 0;
    /** ...for a candidate admitted. */
    static final int ADMITTED = 1;
    /** ...for a candidate its rate bucket cannot cover. */
    static final int RATE_DENIED = 2;

    private final EngineContext ctx;
    private final LimiterScripts scripts;
    private final LimitsConfig limits;
    private final GateRows gateRows;
    /** This node's admitted gated rows per queue: row id → its slot, and when it was admitted. */
    private final Map<String, Map<Long, Held>> held = new ConcurrentHashMap<>();
    private final UnknownRateLimits unknown;

    private record Held(Limiter.Slot slot, long admittedNanos) {
    }

    /**
     * @param ctx   the engine's context (its limits, lease, database and counters)
     * @param store the engine's Redis
     */
    public RedisLimiter(EngineContext ctx, RedisStore store) {
        this.ctx = ctx;
        this.unknown = new UnknownRateLimits(ctx.metrics());
        this.limits = ctx.config().limits();
        this.gateRows = new GateRows(ctx);
        this.scripts = new LimiterScripts(ctx, store, gateRows);
    }

    private static String holder(long id, long token) {
        return LimiterScripts.holder(id, token);
    }

    @Override
    public Admission admit(List<Candidate> candidates, String queue) {
        Map<String, Integer> gates = new LinkedHashMap<>();
        Map<String, Integer> rates = new LinkedHashMap<>();
        Set<Long> denied = new LinkedHashSet<>();
        List<Candidate> asked = new ArrayList<>();
        AdmissionEvents events = AdmissionEvents.of(ctx.bus(), queue);
        for (Candidate c : candidates) {
            if (c.rateKey() != null && limits.rateFor(c.rateKey()) == null) {
                unknown.seen(c.rateKey());
                events.unknown(c);
                denied.add(c.id());
                continue;
            }
            if (c.gateKey() != null && limits.gateFor(c.gateKey()) == null) {
                denied.add(c.id());  // not a gate on this node (the claim only marks configured names)
                continue;
            }
            asked.add(c);
            if (c.gateKey() != null) {
                gates.putIfAbsent(c.gateKey(), gates.size() + 1);
            }
            if (c.rateKey() != null) {
                rates.putIfAbsent(c.rateKey(), rates.size() + 1);
            }
        }
        List<Long> codes = asked.isEmpty() ? List.of() : scripts.admit(gates, rates, asked, limits);
        Map<Long, Slot> admitted = new LinkedHashMap<>();
        Set<String> throttledGates = new HashSet<>();
        List<BucketSql.Stamp> stamps = new ArrayList<>();
        for (int i = 0; i < asked.size(); i++) {
            Candidate c = asked.get(i);
            int code = codes.get(i).intValue();
            if (code == ADMITTED) {
                Slot slot = c.gateKey() == null ? null : new Slot(c.gateKey(), 0, holder(c.id(), c.token()));
                admitted.put(c.id(), slot);
                if (slot != null) {
                    stamps.add(new BucketSql.Stamp(c.id(), c.token(), 0));
                }
            } else {
                denied.add(c.id());
                if (code == RATE_DENIED) {
                    ctx.metrics().rateThrottled.increment();
                } else if (code == GATE_DENIED && throttledGates.add(c.gateKey())) {
                    ctx.metrics().gateThrottled.increment();
                }
            }
            if (c.rateKey() != null && (code == ADMITTED || code == RATE_DENIED)) {
                events.rateWanted(c.rateKey());
                if (code == ADMITTED) {
                    events.rateGranted(c.rateKey());
                }
            }
        }
        if (!throttledGates.isEmpty() && events != AdmissionEvents.NONE) {
            Map<String, int[]> perGate = new LinkedHashMap<>();  // key → {wanted, admitted}
            for (int i = 0; i < asked.size(); i++) {
                Candidate c = asked.get(i);
                if (c.gateKey() != null && throttledGates.contains(c.gateKey())) {
                    int[] n = perGate.computeIfAbsent(c.gateKey(), k -> new int[2]);
                    n[0]++;
                    n[1] += codes.get(i).intValue() == ADMITTED ? 1 : 0;
                }
            }
            perGate.forEach((key, n) -> events.gateThrottled(key, n[0], n[1]));
        }
        List<Slot> slots = admitted.values().stream().filter(s -> s != null).toList();
        try {
            gateRows.stamp(stamps);
        } catch (RuntimeException e) {
            // The claims are lost or locked: give the slots back (should this fail, they lapse with their lease).
            credit(slots);
            throw e;
        }
        Map<Long, Held> mine = held.computeIfAbsent(queue, q -> new ConcurrentHashMap<>());
        long now = System.nanoTime();
        admitted.forEach((id, slot) -> {
            if (slot != null) {
                mine.put(id, new Held(slot, now));
            }
        });
        events.publish(0);
        return new Admission(admitted, denied);
    }

    @Override
    public void credit(List<Slot> slots) {
        List<Slot> mine = slots.stream().filter(s -> !s.inBand()).toList();
        if (mine.isEmpty()) {
            return;
        }
        forget(mine);
        try {
            scripts.credit(mine);
        } catch (RuntimeException e) {
            // Best-effort, as the SPI says: the holders lapse with their lease.
            ctx.metrics().loopErrors.increment();
            LOG.log(Level.WARNING, "gen-durable: could not give back " + mine.size()
                    + " Redis gate slots; they lapse with their lease: " + e);
        }
    }

    private void forget(List<Slot> slots) {
        Set<String> holders = new HashSet<>();
        slots.forEach(s -> holders.add(s.holder()));
        held.values().forEach(m -> m.values().removeIf(h -> holders.contains(h.slot().holder())));
    }

    @Override
    public Set<Long> renew(String queue, Map<Long, Long> claims) {
        Set<Long> stillHeld = claims.keySet();
        Map<Long, Held> mine = held.get(queue);
        if (mine == null || mine.isEmpty()) {
            return Set.of();
        }
        // Forget admissions no longer held (finished, released, lost), except the youngest: a row
        // admitted a moment ago may not have reached the scheduler's claims yet.
        long young = System.nanoTime() - ctx.config().lease().heartbeatInterval().toNanos();
        mine.entrySet().removeIf(e -> !stillHeld.contains(e.getKey()) && e.getValue().admittedNanos() < young);
        List<LimiterScripts.Renewal> renewals = new ArrayList<>();
        List<Long> order = new ArrayList<>();
        Set<Long> renewing = new HashSet<>();
        mine.forEach((id, h) -> {
            Long token = claims.get(id);
            String current = token == null ? "" : holder(id, token);
            renewals.add(new LimiterScripts.Renewal(h.slot(), current.equals(h.slot().holder()) ? "" : current));
            order.add(id);
            renewing.add(id);
        });
        if (order.isEmpty()) {
            return Set.of();
        }
        try {
            List<Long> missing = scripts.renew(renewals);
            if (missing == null || missing.isEmpty()) {
                return Set.of();
            }
            // pruned (their slot may be another row's now): not renewed, forgotten; their rows lapse
            Set<Long> pruned = new HashSet<>();
            for (Long index : missing) {
                pruned.add(order.get(index.intValue() - 1));
            }
            mine.keySet().removeAll(pruned);
            LOG.log(Level.WARNING, "gen-durable: " + pruned.size() + " Redis gate slots of queue " + queue
                    + " were pruned after their lease lapsed; their rows' leases lapse too: " + pruned);
            return pruned;
        } catch (RuntimeException e) {
            ctx.metrics().loopErrors.increment();
            // the count includes the epoch key, as it always did
            LOG.log(Level.WARNING, "gen-durable: could not renew " + (renewals.size() + 1) + " Redis gate slots of queue " + queue
                    + "; their rows' leases are not extended either (they lapse together unless a later heartbeat "
                    + "gets through): " + e);
            return renewing;
        }
    }

}
