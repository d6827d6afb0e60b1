package io.gendurable.impl.admission;

import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.runtime.EngineMetrics;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rows naming a rate limit this node has not configured: each is counted, and each name logged
 * once (such rows stall until the limit is configured). Shared by the limiters of both backends.
 */
public final class UnknownRateLimits {
    private static final Logger LOG = System.getLogger("io.gendurable.admission");

    private final EngineMetrics metrics;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    /** @param metrics the engine's counters */
    public UnknownRateLimits(EngineMetrics metrics) {
        this.metrics = metrics;
    }

    /** @param rateKey a rate-limit key whose name is not configured here */
    public void seen(String rateKey) {
        metrics.unknownRateLimit.increment();
        String name = LimitsConfig.nameOf(rateKey);
        if (logged.add(name)) {
            LOG.log(Level.WARNING, "gen-durable: rate limit '" + name + "' is not configured on this node; rows naming it "
                    + "stall until gendurable.rate-limits." + name + ".allowed is set (logged once)");
        }
    }
}
