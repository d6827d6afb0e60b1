package io.gendurable.impl.redis;

import io.gendurable.impl.admission.AdmissionEvents;
import io.gendurable.impl.admission.BucketSql;
import io.gendurable.impl.admission.GateRows;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.runtime.EngineContext;
import io.lettuce.core.ScriptOutputType;

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
 * epoch again. Rate buckets cannot be rebuilt: they restart as the server has them.
 */
public final class RedisLimiter implements Limiter {
    private static final Logger LOG = System.getLogger("io.gendurable.admission");
    private static final int GATE_DENIED = 0;
    private static final int ADMITTED = 1;
    private static final int RATE_DENIED = 2;
    private static final int ATTEMPTS = 3;

    // KEYS: epoch, the G gate sets, the R rate hashes. ARGV: ttl ms, G, R, G limits, R (capacity, tokens per
    // ms), the count of candidates, then per candidate: gate index (0: none), rate index (0: none), weight, holder.
    // A candidate the bucket cannot cover stops the later candidates of its rate key (2 for each).
    // Returns one code per candidate (0 gate full, 1 admitted, 2 rate short), or {-1}: the epoch is missing or
    // was set by another Redis process (its run_id): the server restarted (perhaps from an older snapshot) or
    // failed over, and holders may be missing.
    // A candidate is a claim not admitted yet: a member of its name can only be a rebuild's placeholder
    // (a rebuild counts every gated claim), removed before counting.
    private static final RedisStore.Script ADMIT = new RedisStore.Script("""
            local run = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
            if redis.call('GET', KEYS[1]) ~= run then return {-1} end
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local ttl = tonumber(ARGV[1])
            local G = tonumber(ARGV[2])
            local R = tonumber(ARGV[3])
            local a = 4
            local free = {}
            local first = 4 + G + 2 * R + 1
            for c = 0, tonumber(ARGV[first - 1]) - 1 do
              local g = tonumber(ARGV[first + 4 * c])
              if g > 0 then redis.call('ZREM', KEYS[1 + g], ARGV[first + 4 * c + 3]) end
            end
            for i = 1, G do
              local k = KEYS[1 + i]
              redis.call('ZREMRANGEBYSCORE', k, '-inf', now)
              free[i] = tonumber(ARGV[a]) - redis.call('ZCARD', k)
              a = a + 1
            end
            local tokens, cap, rate, used, stopped = {}, {}, {}, {}, {}
            for j = 1, R do
              cap[j] = tonumber(ARGV[a])
              rate[j] = tonumber(ARGV[a + 1])
              a = a + 2
              local h = redis.call('HMGET', KEYS[1 + G + j], 'tokens', 'ts')
              if h[1] then
                local tk, ts = tonumber(h[1]), tonumber(h[2])
                if now > ts then tk = math.min(cap[j], tk + (now - ts) * rate[j]) end
                tokens[j] = tk
              else
                tokens[j] = cap[j]
              end
            end
            local C = tonumber(ARGV[a])
            a = a + 1
            local out = {}
            for c = 1, C do
              local g, r, w, holder = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), ARGV[a + 3]
              a = a + 4
              local code = 1
              if g > 0 and free[g] < 1 then code = 0 end
              if code == 1 and r > 0 and (stopped[r] or tokens[r] + 1e-9 < w) then
                code = 2
                stopped[r] = true
              end
              if code == 1 then
                if g > 0 then
                  redis.call('ZADD', KEYS[1 + g], now + ttl, holder)
                  free[g] = free[g] - 1
                end
                if r > 0 then
                  tokens[r] = math.max(0, tokens[r] - w)
                  used[r] = true
                end
              end
              out[c] = code
            end
            for i = 1, G do
              if redis.call('EXISTS', KEYS[1 + i]) == 1 then redis.call('PEXPIRE', KEYS[1 + i], 2 * ttl) end
            end
            for j = 1, R do
              if used[j] then
                redis.call('HSET', KEYS[1 + G + j], 'tokens', string.format('%.17g', tokens[j]), 'ts', now)
                redis.call('PEXPIRE', KEYS[1 + G + j], math.ceil(cap[j] / rate[j]) + 1000)
              end
            end
            return out
            """);

    // KEYS: the epoch, then one gate set per holder. ARGV: ttl ms, then per holder: the holder and its row's
    // current claim ("<id>:<token>", or '' when it is the holder's own). Renews only holders still registered
    // (ZADD XX): a holder pruned by an admission after its lease lapsed may have had its slot granted to another
    // row, so it is not re-added; its index is returned and its row's lease lapses too. A holder missing while
    // its row's current claim is registered was rebuilt under that name (a rebuild reads the rows' current
    // tokens, and an inline continue keeps its chain's admitted slot under a new token): that member becomes
    // the holder again. With the epoch gone (Redis lost its state), every holder is registered again, as a
    // rebuild would. Returns the 1-based indexes of the holders not renewed.
    private static final RedisStore.Script RENEW = new RedisStore.Script("""
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local ttl = tonumber(ARGV[1])
            local lost = redis.call('GET', KEYS[1]) ~= string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
            local missing = {}
            for i = 2, #KEYS do
              local holder, current = ARGV[2 * i - 2], ARGV[2 * i - 1]
              if lost then
                redis.call('ZADD', KEYS[i], now + ttl, holder)
              elseif redis.call('ZADD', KEYS[i], 'XX', 'CH', now + ttl, holder) == 1
                  or redis.call('ZSCORE', KEYS[i], holder) ~= false then
                if current ~= '' then redis.call('ZREM', KEYS[i], current) end  -- a rebuild's second name for it
              elseif current ~= '' and redis.call('ZREM', KEYS[i], current) == 1 then
                redis.call('ZADD', KEYS[i], now + ttl, holder)
              else
                missing[#missing + 1] = i - 1
              end
              redis.call('PEXPIRE', KEYS[i], 2 * ttl)
            end
            return missing
            """);

    // KEYS: one gate set per holder. ARGV: the holders.
    private static final RedisStore.Script CREDIT = new RedisStore.Script("""
            local n = 0
            for i = 1, #KEYS do n = n + redis.call('ZREM', KEYS[i], ARGV[i]) end
            return n
            """);

    // KEYS: epoch, then one gate set per holder. ARGV: ttl ms, who rebuilds (for the log), then the holders.
    // Only when the epoch is missing or names another Redis process: registers every holder, then sets the
    // epoch to this process's run_id. Returns 1 when it rebuilt, 0 when another node had.
    private static final RedisStore.Script REBUILD = new RedisStore.Script("""
            local run = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
            if redis.call('GET', KEYS[1]) == run then return 0 end
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local ttl = tonumber(ARGV[1])
            for i = 2, #KEYS do
              redis.call('ZADD', KEYS[i], now + ttl, ARGV[i + 1])
              redis.call('PEXPIRE', KEYS[i], 2 * ttl)
            end
            redis.call('SET', KEYS[1], run)
            return 1
            """);

    private final EngineContext ctx;
    private final RedisStore store;
    private final LimitsConfig limits;
    private final GateRows gateRows;
    private final String epochKey;
    private final long ttlMillis;
    /** This node's admitted gated rows per queue: row id → its slot, and when it was admitted. */
    private final Map<String, Map<Long, Held>> held = new ConcurrentHashMap<>();
    private final Set<String> unknownLogged = ConcurrentHashMap.newKeySet();

    private record Held(Limiter.Slot slot, long admittedNanos) {
    }

    /**
     * @param ctx   the engine's context (its limits, lease, database and counters)
     * @param store the engine's Redis
     */
    public RedisLimiter(EngineContext ctx, RedisStore store) {
        this.ctx = ctx;
        this.store = store;
        this.limits = ctx.config().limits();
        this.gateRows = new GateRows(ctx);
        this.epochKey = store.prefix() + "epoch";
        // A slot's lease outlives its row's: the row's lease is set (claim, heartbeat) after the
        // slot's, and one heartbeat interval more covers a skew between this node's clock and Redis's.
        this.ttlMillis = ctx.config().lease().ttl().plus(ctx.config().lease().heartbeatInterval()).toMillis();
    }

    private String gateKey(String key) {
        return store.prefix() + "conc:" + key;
    }

    private String rateKey(String key) {
        return store.prefix() + "rate:" + key;
    }

    private static String holder(long id, long token) {
        return id + ":" + token;
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
                unknownRateLimit(c.rateKey());
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
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        keys.add(epochKey);
        args.add(Long.toString(ttlMillis));
        args.add(Integer.toString(gates.size()));
        args.add(Integer.toString(rates.size()));
        gates.keySet().forEach(k -> {
            keys.add(gateKey(k));
            args.add(Integer.toString(limits.gateFor(k).limit()));
        });
        rates.keySet().forEach(k -> {
            LimitsConfig.RateLimit r = limits.rateFor(k);
            keys.add(rateKey(k));
            args.add(Double.toString(r.burst()));
            args.add(Double.toString(r.perSecond() / 1000.0));
        });
        args.add(Integer.toString(asked.size()));
        for (Candidate c : asked) {
            args.add(Integer.toString(c.gateKey() == null ? 0 : gates.get(c.gateKey())));
            args.add(Integer.toString(c.rateKey() == null ? 0 : rates.get(c.rateKey())));
            args.add(Integer.toString(c.weight()));
            args.add(holder(c.id(), c.token()));
        }
        List<Long> codes = asked.isEmpty() ? List.of() : run(keys, args);
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

    private List<Long> run(List<String> keys, List<String> args) {
        for (int attempt = 1; ; attempt++) {
            List<Long> codes = store.eval(ADMIT, ScriptOutputType.MULTI, keys, args);
            if (codes.size() != 1 || codes.get(0) != -1L) {
                return codes;
            }
            if (attempt == ATTEMPTS) {
                throw new IllegalStateException("gen-durable: the Redis limiter's epoch key " + epochKey
                        + " was lost again right after " + ATTEMPTS + " rebuilds; nothing was admitted");
            }
            rebuild();
        }
    }

    /** Redis lost its data: registers every gated claim PostgreSQL knows of, then sets the epoch. */
    private void rebuild() {
        List<BucketSql.Holder> holders = gateRows.holders();
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        keys.add(epochKey);
        args.add(Long.toString(ttlMillis));
        args.add(ctx.config().node().id() + "@" + ctx.clock().instant());
        for (BucketSql.Holder h : holders) {
            keys.add(gateKey(h.key()));
            args.add(holder(h.id(), h.token()));
        }
        Long rebuilt = store.eval(REBUILD, ScriptOutputType.INTEGER, keys, args);
        if (rebuilt == 1L) {
            ctx.metrics().bucketsReconciled.add(holders.size());
            LOG.log(Level.WARNING, "gen-durable: the Redis limiter found no epoch of this Redis process under "
                    + store.prefix() + " (a new Redis, or one that restarted, was restored or failed over): rebuilt "
                    + holders.size()
                    + " gate holders from PostgreSQL's executing rows; rate buckets restart full");
        }
    }

    @Override
    public void credit(List<Slot> slots) {
        List<Slot> mine = slots.stream().filter(s -> !s.inBand()).toList();
        if (mine.isEmpty()) {
            return;
        }
        forget(mine);
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (Slot s : mine) {
            keys.add(gateKey(s.key()));
            args.add(s.holder());
        }
        try {
            store.eval(CREDIT, ScriptOutputType.INTEGER, keys, args);
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
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        keys.add(epochKey);
        args.add(Long.toString(ttlMillis));
        List<Long> order = new ArrayList<>();
        Set<Long> renewing = new HashSet<>();
        mine.forEach((id, h) -> {
            keys.add(gateKey(h.slot().key()));
            args.add(h.slot().holder());
            Long token = claims.get(id);
            String current = token == null ? "" : holder(id, token);
            args.add(current.equals(h.slot().holder()) ? "" : current);
            order.add(id);
            renewing.add(id);
        });
        if (order.isEmpty()) {
            return Set.of();
        }
        try {
            List<Long> missing = store.eval(RENEW, ScriptOutputType.MULTI, keys, args);
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
            LOG.log(Level.WARNING, "gen-durable: could not renew " + keys.size() + " Redis gate slots of queue " + queue
                    + "; their rows' leases are not extended either (they lapse together unless a later heartbeat "
                    + "gets through): " + e);
            return renewing;
        }
    }

    private void unknownRateLimit(String rateKey) {
        ctx.metrics().unknownRateLimit.increment();
        String name = LimitsConfig.nameOf(rateKey);
        if (unknownLogged.add(name)) {
            LOG.log(Level.WARNING, "gen-durable: rate limit '" + name + "' is not configured on this node; rows naming it "
                    + "stall until gendurable.rate-limits." + name + ".allowed is set (logged once)");
        }
    }
}
