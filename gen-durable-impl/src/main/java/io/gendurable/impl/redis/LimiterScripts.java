package io.gendurable.impl.redis;

import io.gendurable.impl.admission.BucketSql;
import io.gendurable.impl.admission.GateRows;
import io.gendurable.impl.admission.Limiter.Candidate;
import io.gendurable.impl.admission.Limiter.Slot;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.runtime.EngineContext;
import io.lettuce.core.ScriptOutputType;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Redis side of {@link RedisLimiter}: its keys (the epoch, a sorted set per gate key, a hash
 * per rate key), the scripts over them with the encoding of their arguments, and the rebuild of
 * every gate's holders from PostgreSQL when Redis lost its state.
 */
final class LimiterScripts {
    private static final Logger LOG = System.getLogger("io.gendurable.admission");
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
    private final GateRows gateRows;
    private final String epochKey;
    private final long ttlMillis;

    /**
     * @param ctx      the engine's context (its lease, node id, clock and counters)
     * @param store    the engine's Redis
     * @param gateRows the gated rows in PostgreSQL, the source of a rebuild
     */
    LimiterScripts(EngineContext ctx, RedisStore store, GateRows gateRows) {
        this.ctx = ctx;
        this.store = store;
        this.gateRows = gateRows;
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

    /** @param id a row @param token its claim @return its holder's name in a gate's set */
    static String holder(long id, long token) {
        return id + ":" + token;
    }

    /**
     * Admits the candidates in one script, rebuilding the holders first when Redis lost its state.
     *
     * @param gates  the gate keys asked for → their 1-based index
     * @param rates  the rate keys asked for → their 1-based index
     * @param asked  the candidates, each of a configured gate and rate limit (or none)
     * @param limits this node's limits (the caps sent with the script)
     * @return one code per candidate: {@link RedisLimiter#GATE_DENIED}, {@link RedisLimiter#ADMITTED}
     *         or {@link RedisLimiter#RATE_DENIED}
     */
    List<Long> admit(Map<String, Integer> gates, Map<String, Integer> rates, List<Candidate> asked, LimitsConfig limits) {
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

    /** @param slots Redis gate slots: removes their holders */
    void credit(List<Slot> slots) {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (Slot s : slots) {
            keys.add(gateKey(s.key()));
            args.add(s.holder());
        }
        store.eval(CREDIT, ScriptOutputType.INTEGER, keys, args);
    }

    /**
     * A holder to renew. @param slot its slot
     * @param current its row's current claim ({@code <id>:<token>}) when that is another name than the holder's, else ''
     */
    record Renewal(Slot slot, String current) {
    }

    /** @param renewals the holders, in order @return the 1-based indexes of those not renewed (pruned) */
    List<Long> renew(List<Renewal> renewals) {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        keys.add(epochKey);
        args.add(Long.toString(ttlMillis));
        for (Renewal r : renewals) {
            keys.add(gateKey(r.slot().key()));
            args.add(r.slot().holder());
            args.add(r.current());
        }
        return store.eval(RENEW, ScriptOutputType.MULTI, keys, args);
    }
}
