package io.gendurable.bench;

import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One hot K = 1 concurrency key beside ordinary work: {@code --n} no-op jobs burnt down alone,
 * then the same with {@code --hot-backlog} rows of one unconfigured key ({@code hot:1}, so K = 1)
 * inserted before them (earlier in the pick order, same priority). The ordinary jobs' rate with
 * and without the backlog ({@code ordinary_ratio}, target at least 0.8), how fast the hot key
 * drains meanwhile, and the claim's cost over the backlog with one of its rows executing.
 * Variants interleaved over {@code --repeat} rounds; the median run of each is reported.
 */
final class HotkeyScenario implements Scenario.Body {
    static final String KEY = "hot:1";

    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        line.put("params", Map.of("n", o.n, "hot_backlog", o.hotBacklog, "hot_key", KEY, "repeat", o.repeat));
        InsertOptions hot = InsertOptions.builder().concurrencyKey(KEY).build();
        // the hot key's next row held executing, as while the key runs, for the claim's plan
        String holdOne = "UPDATE %1$s SET status = 'executing', locked_by = 'bench:hot', "
                + "lease_expires_at = now() + interval '1 hour', claim_token = nextval('%1$s_claim_token') WHERE id = (SELECT min(id) FROM %1$s "
                + "WHERE status = 'runnable' AND concurrency_key = '" + KEY + "')";
        Map<String, List<Map<String, Object>>> runs = new LinkedHashMap<>();
        for (int r = 0; r < o.repeat; r++) {
            runs.computeIfAbsent("alone", k -> new ArrayList<>()).add(BesideBurn.run(o, db, "hotalone", 0, null,
                    BenchFsms::noop, null));
            runs.computeIfAbsent("beside_hot_key", k -> new ArrayList<>()).add(BesideBurn.run(o, db, "hotkey",
                    o.hotBacklog, i -> NewInstance.of(BenchFsms.NoopJob.class, new BenchFsms.Args(i), hot),
                    BenchFsms::noop, holdOne));
        }
        Map<String, Object> results = report(runs, line);
        results.put("ordinary_ratio", rate(results, "beside_hot_key") / rate(results, "alone"));
    }

    /** Each variant's median run (by the ordinary jobs' rate) under {@code results}, with every run's rate. */
    static Map<String, Object> report(Map<String, List<Map<String, Object>>> runs, Map<String, Object> line) {
        Map<String, Object> results = new LinkedHashMap<>();
        Map<String, Object> metrics = new LinkedHashMap<>();
        boolean complete = true;
        for (var e : runs.entrySet()) {
            List<Map<String, Object>> sorted = new ArrayList<>(e.getValue());
            sorted.sort(java.util.Comparator.comparingDouble(HotkeyScenario::ordinaryRate));
            Map<String, Object> median = new LinkedHashMap<>(sorted.get((sorted.size() - 1) / 2));
            median.put("runs_jobs_per_s", e.getValue().stream().map(HotkeyScenario::ordinaryRate).toList());
            metrics.put(e.getKey(), median.remove("engine_metrics"));
            results.put(e.getKey(), median);
            complete &= e.getValue().stream().allMatch(m -> Boolean.TRUE.equals(m.get("complete")));
        }
        line.put("results", results);
        line.put("engine_metrics", metrics);
        line.put("complete", complete);
        return results;
    }

    static double ordinaryRate(Map<String, Object> run) {
        return (double) ((Map<?, ?>) run.get("ordinary")).get("jobs_per_s");
    }

    static double rate(Map<String, Object> results, String variant) {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) results.get(variant);
        return ordinaryRate(m);
    }
}
