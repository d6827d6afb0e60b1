package io.gendurable.bench;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One named measurement: its name on the command line (and in the line's {@code scenario}), one
 * line of the usage text, and the class that measures. {@link Bench#run} prints its JSON line:
 * the fields every line has (engine, versions, config, db, jvm…) around what the body puts in:
 * {@code params}, {@code results}, {@code complete}, {@code engine_metrics}. See docs/performance.md.
 */
record Scenario(String name, String summary, Body body) {
    /** Every scenario, in the order {@code all} runs them. */
    static final List<Scenario> ALL = List.of(
            new Scenario("jobs", "a worker burns down --n pre-inserted no-op jobs: jobs_per_s", new JobsScenario()),
            new Scenario("live", "--n jobs inserted while a worker runs on a table that started empty, beside the "
                    + "preloaded burn-down: live_vs_preloaded", new LiveScenario()),
            new Scenario("jobs-cdi", "the jobs burn-down with the engine booted by CDI (Weld SE, MP Config and Metrics), "
                    + "default configuration: jobs_per_s", new CdiJobsScenario()),
            new Scenario("fsm", "the same with --fsm-n FSMs of --k steps, requeued and inline: steps_per_s, "
                    + "inline_speedup", new FsmScenario()),
            new Scenario("insert", "insertAll in batches and single inserts, 1 and --insert-threads threads: "
                    + "rows_per_s, insert_ms", new InsertScenario()),
            new Scenario("latency", "probes at --rate/s, then --waiters signalled at --signal-rate/s: "
                    + "insert_to_start_ms, signal_to_woken_step_ms", new LatencyScenario()),
            new Scenario("backlog", "--backlog-burn jobs of a --backlog backlog: burn.jobs_per_s, "
                    + "burn.heap_used_after_gc_mb", new BacklogScenario()),
            new Scenario("fanout", "one parent fans out --fanout children and joins them: parent_woken_ms, "
                    + "children_per_s", new FanoutScenario()),
            new Scenario("limited", "jobs unlimited, gated (K = --gate-limit) and rate-limited: gate_vs_unlimited, "
                    + "rate_limit_vs_unlimited", new LimitedScenario()),
            new Scenario("ceiling", "no engine: the bare claim/done SQL loop, warm, --ceiling-n rows, 1, 4, 8 "
                    + "threads: best_steps_per_s", new CeilingScenario()),
            new Scenario("search", "the operations API's search on --search-rows rows: first pages of 50 per filter, "
                    + "p50/p99 ms", new SearchScenario()),
            new Scenario("scaleout", "1, 2, 4 engine JVMs (jobs-cdi's boot, defaults) sharing --scaleout-concurrency, "
                    + "--n jobs: one line per node count, jobs_per_s, ratio_to_1_node, per-node claims and conflicts",
                    new ScaleoutScenario()),
            new Scenario("hotkey", "--n jobs alone and beside one K = 1 key's --hot-backlog rows: ordinary_ratio, "
                    + "the hot key's drain rate, the claim's cost", new HotkeyScenario()),
            new Scenario("farfuture", "--n jobs alone and beside --far-backlog rows due in a year at a more urgent "
                    + "priority: the claim's ms and buffers, ordinary_ratio", new FarfutureScenario()));

    /** Scenarios only run by name: too long for {@code all}. */
    static final List<Scenario> LONG = List.of(
            new Scenario("soak", "--soak-rate jobs/s offered for --soak-minutes (an hour), the GC at its defaults: a "
                    + "soak-sample line every --soak-sample-s (rates, claim latency, backlog, table and index sizes, "
                    + "vacuums, WAL), then the totals; not in all", new SoakScenario()));

    /** What a scenario measures. */
    interface Body {
        /**
         * Runs it against {@code db}, putting its parameters, figures and completeness into {@code line}
         * (or, to print several lines, a list of such maps under {@link Bench#SPLIT_LINES}).
         */
        void run(Options o, BenchDb db, Map<String, Object> line) throws Exception;
    }

    static Optional<Scenario> named(String name) {
        return java.util.stream.Stream.concat(ALL.stream(), LONG.stream()).filter(s -> s.name().equals(name)).findFirst();
    }

    /** @return the usage text's list of scenarios */
    static String help() {
        StringBuilder b = new StringBuilder("scenarios (all: every one, in this order):\n");
        ALL.forEach(s -> b.append(String.format("  %-9s %s\n", s.name(), s.summary())));
        LONG.forEach(s -> b.append(String.format("  %-9s %s\n", s.name(), s.summary())));
        return b.append("  serve     start the embedded PostgreSQL, print its URL, wait until stdin closes\n").toString();
    }
}
