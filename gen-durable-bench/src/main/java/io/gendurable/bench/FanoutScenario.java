package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** One parent whose first step fans out {@code --fanout} no-op children; timed until the parent's join step. */
final class FanoutScenario implements Scenario.Body {
    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        int children = o.fanout;
        line.put("params", Map.of("children", children));
        BenchFsms.ParentFsm parent = new BenchFsms.ParentFsm();
        AtomicLong childrenCommitted = new AtomicLong();
        Progress childDone = new Progress(k -> k.equals("done")) {
            @Override
            public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos,
                                     String error, boolean stale) {
                if (fsm.equals("bench-parent")) {
                    if (outcome.equals("schedule_children")) {
                        childrenCommitted.set(System.nanoTime());
                    }
                    return;
                }
                super.stepFinished(id, fsm, step, queue, outcome, nanos, error, stale);
            }
        };
        childDone.arm(children);
        Map<String, Object> results = new LinkedHashMap<>();
        try (Schema schema = Schema.fresh(db, o, "fanout"); HikariDataSource ds = db.pool("bench-fanout", o.pool);
             Node node = new Node("fanout", ds, Engines.worker(o, schema.name()), o.timerThreads, childDone, parent,
                     new BenchFsms.NoopJob()).start()) {
            Thread.sleep(500);
            CpuSplit cpu = CpuSplit.now(ds);
            long t0 = System.nanoTime();
            node.engine.insert(BenchFsms.ParentFsm.class, new BenchFsms.Fan(children));
            boolean childrenOk = childDone.await(o.stallSeconds);
            boolean woke = Parallel.waitFor(() -> parent.wokenAt != 0, o.stallSeconds);
            long committed = childrenCommitted.get();
            long lastDone = childDone.tEnd();
            results.put("parent_first_step_ms", (parent.fannedOutAt - t0) / 1e6);
            results.put("children_committed_ms", committed == 0 ? null : (committed - t0) / 1e6);
            results.put("last_child_done_ms", lastDone == 0 ? null : (lastDone - t0) / 1e6);
            results.put("parent_woken_ms", woke ? (parent.wokenAt - t0) / 1e6 : null);
            results.put("join_ms", woke && lastDone != 0 ? (parent.wokenAt - lastDone) / 1e6 : null);
            results.put("children_per_s", lastDone == 0 || committed == 0 ? null
                    : children * 1e9 / (lastDone - committed));
            results.put("children_seen_by_parent", parent.childrenSeen);
            results.put("cpu", cpu.since());
            results.put("heap_used_mb", Machine.heapUsedMb());
            line.put("complete", childrenOk && woke && parent.childrenSeen == children);
            line.put("engine_metrics", Engines.metrics(node.engine.metrics(), childDone, (System.nanoTime() - t0) / 1e9));
        }
        line.put("results", results);
    }
}
