package io.gendurable.impl.admission;

import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.db.Db;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Seeds this node's declared limits into {@code gen_durable_bucket_configs} at start-up (a node
 * touches only what it declares; two nodes declaring one name differently: the last start wins),
 * and warns when a gate name already prefixes live keys, which may be identities it now caps.
 */
public final class LimitsSeeder {
    private static final Logger LOG = System.getLogger("io.gendurable.admission");

    private final EngineContext ctx;
    private final LimitsConfig limits;
    private final BucketSql sql;

    /** @param ctx the engine's context (its limits and database) */
    public LimitsSeeder(EngineContext ctx) {
        this.ctx = ctx;
        this.limits = ctx.config().limits();
        this.sql = ctx.statements().of(BucketSql.class, BucketSql::new);
    }

    public void seed() {
        if (limits.isEmpty()) {
            return;
        }
        List<BucketSql.Policy> policies = new ArrayList<>();
        limits.rateLimits().values().forEach(r ->
                policies.add(new BucketSql.Policy("rate", r.name(), r.perSecond(), r.burst(), r.shards())));
        limits.concurrencyLimits().values().forEach(g ->
                policies.add(new BucketSql.Policy("conc", g.name(), null, g.limit(), g.shards())));
        Map<String, Long> captured = ctx.db().inTransaction(c -> {
            sql.seed(c, policies);
            return sql.captured(c, limits.concurrencyLimits().keySet());
        });
        LOG.log(Level.INFO, "gen-durable limits seeded: rate " + limits.rateLimits().keySet() + ", gates "
                + limits.concurrencyLimits().keySet());
        captured.forEach((gate, n) -> LOG.log(Level.WARNING, "gen-durable: gate '" + gate + "' now caps keys named '"
                + gate + ":…', and " + n + " such keys are executing as one-at-a-time identities. If they are "
                + "identities (mutual exclusion), this gate turns them into " + limits.concurrencyLimits().get(gate).limit()
                + "-at-a-time: rename the gate or the keys."));
    }
}
