package io.gendurable.bench;

import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * A far-future backlog on an urgent priority beside runnable work: {@code --far-backlog} rows at
 * priority 0 (the most urgent) due in a year (one second apart), and {@code --n} no-op jobs at priority 5, due now,
 * in the same queue; the same jobs without the backlog. Per pick: the claim statement's
 * execution time, buffers and pick-index entries read ({@code EXPLAIN (ANALYZE, BUFFERS)}, rolled
 * back), before and after the burn-down; and the jobs' rate with and without the backlog.
 * Picks stay O(batch) when {@code claim_plan.pick_index_buffers} does not grow with the backlog.
 */
final class FarfutureScenario implements Scenario.Body {
    static final int URGENT = 0;
    static final int NORMAL = 5;

    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        line.put("params", Map.of("n", o.n, "far_backlog", o.farBacklog, "far_priority", URGENT, "far_due_in_days", 365,
                "jobs_priority", NORMAL, "repeat", o.repeat, "claim_batch", 64));
        // one second apart: distinct keys, as a real backlog has (equal keys share a posting list in the index)
        IntFunction<InsertOptions> far = i -> InsertOptions.builder().priority(URGENT)
                .scheduleIn(Duration.ofDays(365).plusSeconds(i)).build();
        InsertOptions normal = InsertOptions.builder().priority(NORMAL).build();
        Map<String, List<Map<String, Object>>> runs = new LinkedHashMap<>();
        for (int r = 0; r < o.repeat; r++) {
            runs.computeIfAbsent("alone", k -> new ArrayList<>()).add(BesideBurn.run(o, db, "faralone", 0, null,
                    i -> NewInstance.of(BenchFsms.NoopJob.class, new BenchFsms.Args(i), normal), null));
            runs.computeIfAbsent("beside_far_future", k -> new ArrayList<>()).add(BesideBurn.run(o, db, "farfuture",
                    o.farBacklog, i -> NewInstance.of(BenchFsms.NoopJob.class, new BenchFsms.Args(i), far.apply(i)),
                    i -> NewInstance.of(BenchFsms.NoopJob.class, new BenchFsms.Args(i), normal), null));
        }
        Map<String, Object> results = HotkeyScenario.report(runs, line);
        results.put("ordinary_ratio", HotkeyScenario.rate(results, "beside_far_future") / HotkeyScenario.rate(results, "alone"));
        results.put("claim_ms_ratio", planFigure(results, "beside_far_future", "execution_ms")
                / planFigure(results, "alone", "execution_ms"));
        results.put("claim_buffers_ratio", planFigure(results, "beside_far_future", "buffers")
                / planFigure(results, "alone", "buffers"));
    }

    private static double planFigure(Map<String, Object> results, String variant, String figure) {
        Object v = ((Map<?, ?>) ((Map<?, ?>) results.get(variant)).get("claim_plan")).get(figure);
        return ((Number) v).doubleValue();
    }
}
