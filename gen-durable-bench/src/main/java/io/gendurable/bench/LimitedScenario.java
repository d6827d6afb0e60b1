package io.gendurable.bench;

import io.gendurable.InsertOptions;
import io.gendurable.impl.config.LimitsConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code jobs} burn-down three ways on engines with a gate and a rate limit configured: rows
 * with no key, rows round-robin on the gate's keys, rows under the rate limit.
 */
final class LimitedScenario implements Scenario.Body {
    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        int n = o.n;
        int keys = o.gateKeys;
        int rate = o.rateLimit;
        line.put("params", Map.of("n", n, "gate_limit", o.gateLimit, "gate_keys", keys, "rate_limit_per_s", rate,
                "repeat", o.repeat));
        LimitsConfig.Gate gate = new LimitsConfig.Gate("g", o.gateLimit, 1);
        LimitsConfig.RateLimit rl = new LimitsConfig.RateLimit("r", rate, Duration.ofSeconds(1), Math.max(1, rate / 10.0), 1);
        LimitsConfig limits = new LimitsConfig(Map.of("r", rl), Map.of("g", gate));
        // The same engine configuration (limits configured) for all three; only the rows differ.
        Map<String, BurnDown.Work> works = new LinkedHashMap<>();
        works.put("unlimited", BurnDown.Work.noopJobs("unlimited", n));
        works.put("gate", BurnDown.Work.noopJobs("gated", n,
                i -> InsertOptions.builder().concurrencyKey("g:" + (i % keys)).build()));
        works.put("rate_limit", BurnDown.Work.noopJobs("rated", n, i -> InsertOptions.builder().rateLimit("r").build()));
        BurnDown burnDown = new BurnDown(o, db);
        Map<String, List<Map<String, Object>>> runs = new LinkedHashMap<>();
        for (int r = 0; r < o.repeat; r++) {
            for (var w : works.entrySet()) {
                runs.computeIfAbsent(w.getKey(), k -> new ArrayList<>()).add(burnDown.run(w.getValue(), limits));
            }
        }
        Map<String, Object> results = BurnDown.report(runs, "jobs", line);
        double base = BurnDown.rate(results, "unlimited", "jobs");
        results.put("gate_vs_unlimited", BurnDown.rate(results, "gate", "jobs") / base);
        results.put("rate_limit_vs_unlimited", BurnDown.rate(results, "rate_limit", "jobs") / base);
        line.put("limits", Map.of("gate", gate.toString(), "rate_limit", rl.toString()));
    }
}
