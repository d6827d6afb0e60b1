package io.gendurable.bench;

import io.gendurable.impl.config.LimitsConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Burns down {@code --n} pre-inserted no-op jobs, {@code --repeat} times; the median run. */
final class JobsScenario implements Scenario.Body {
    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        line.put("params", Map.of("n", o.n, "repeat", o.repeat));
        BurnDown burnDown = new BurnDown(o, db);
        List<Map<String, Object>> runs = new ArrayList<>();
        for (int r = 0; r < o.repeat; r++) {
            runs.add(burnDown.run(BurnDown.Work.noopJobs("jobs", o.n), LimitsConfig.none()));
        }
        Map<String, Object> median = BurnDown.median(runs, "jobs");
        line.put("engine_metrics", median.remove("engine_metrics"));
        line.put("results", median);
        line.put("complete", BurnDown.allComplete(runs));
    }
}
