package io.gendurable.bench;

import io.gendurable.NewInstance;
import io.gendurable.impl.config.LimitsConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Burns down {@code --fsm-n} instances of a {@code --k}-step no-op FSM, declared once with
 * {@code inlineExecution = false} and once with {@code true}; the variants interleaved, after one
 * unmeasured run of each when {@code --warmup} is above 0.
 */
final class FsmScenario implements Scenario.Body {
    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        int n = o.fsmN;
        int k = o.k;
        line.put("params", Map.of("instances", n, "k", k, "steps", (long) n * k, "repeat", o.repeat));
        BurnDown burnDown = new BurnDown(o, db);
        BurnDown.Work plainWork = new BurnDown.Work("fsm", n, k,
                i -> NewInstance.of(BenchFsms.HopFsm.class, new BenchFsms.Hop(k)), kind -> true, new BenchFsms.HopFsm());
        BurnDown.Work inlineWork = new BurnDown.Work("fsminline", n, k,
                i -> NewInstance.of(BenchFsms.InlineHopFsm.class, new BenchFsms.Hop(k)), kind -> true,
                new BenchFsms.InlineHopFsm());
        // Its own warm-up: the jobs warm-up does not run the FSM paths (state decoding, next, the inline
        // continue), which the JIT otherwise compiles during the measured runs (83-87 us of a
        // 119-136 us JVM figure a step at --warmup=20000). One unmeasured run of each variant.
        List<Object> warmup = new ArrayList<>();
        if (o.warmup > 0) {
            warmup.add(burnDown.run(plainWork, LimitsConfig.none()).get("events_per_s"));
            warmup.add(burnDown.run(inlineWork, LimitsConfig.none()).get("events_per_s"));
        }
        line.put("fsm_warmup_steps_per_s", warmup);
        // Interleaved so that neither variant gets all the JIT warmth, nor always runs second.
        Map<String, List<Map<String, Object>>> runs = new LinkedHashMap<>();
        runs.put("inline_false", new ArrayList<>());
        runs.put("inline_true", new ArrayList<>());
        for (int r = 0; r < 2 * o.repeat; r++) {
            // plain, inline, inline, plain, plain, inline…: each variant goes first as often as second
            boolean inline = (r % 2 == 1) == (r / 2 % 2 == 0);
            runs.get("inline_" + inline).add(burnDown.run(inline ? inlineWork : plainWork, LimitsConfig.none()));
        }
        Map<String, Object> results = BurnDown.report(runs, "steps", line);
        results.put("inline_speedup", BurnDown.rate(results, "inline_true", "steps")
                / BurnDown.rate(results, "inline_false", "steps"));
    }
}
