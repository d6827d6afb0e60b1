package io.gendurable.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bench's command line: {@code [--key=value | --key value]... [scenario...]}. Every key has a
 * default tuned for a 2-core machine; {@link #usage()} lists them.
 */
public final class Options {
    static final Map<String, String> DEFAULTS = new LinkedHashMap<>();
    static final Map<String, String> HELP = new LinkedHashMap<>();

    static {
        def("db", "", "JDBC URL (else $" + BenchDb.URL_ENV + ", else an embedded PostgreSQL)");
        def("fsync", "on", "embedded server only: fsync and synchronous_commit on|off");
        def("pg-config", "", "embedded server only: extra settings, name=value;name=value");
        def("n", "20000", "jobs to burn down (jobs, limited)");
        def("fsm-n", "4000", "FSM instances (fsm); steps = fsm-n x k");
        def("k", "5", "steps per FSM instance (fsm)");
        def("repeat", "3", "runs of each burn-down (jobs, fsm, limited); the median is reported");
        def("warmup", "100000", "no-op jobs burnt before the first scenario, in rounds of n, for the JIT (0: none)");
        def("concurrency", "64", "the queue's concurrency (steps in flight)");
        def("prefetch", "64", "rows buffered beyond the running slots");
        def("min-demand", "16", "pick only when at least this many slots are free");
        def("poll-ms", "1000", "idle poll interval");
        def("max-poll-ms", "5000", "idle poll backoff ceiling");
        def("flush-batch", "64", "flusher max-batch");
        def("flush-delay-ms", "2", "flusher max-delay");
        def("flush-parallelism", "2", "flush transactions open at once");
        def("pool", "16", "Hikari pool size");
        def("timer-threads", "4", "threads of the engine's timer (fills, flushes, heartbeats)");
        def("insert-threads", "8", "threads of the insert scenario");
        def("insert-rows", "20000", "rows per insertAll measurement (insert)");
        def("single-rows", "8000", "rows inserted one by one from the threads (insert)");
        def("rate", "200", "inserts per second (latency)");
        def("seconds", "10", "seconds of inserts (latency)");
        def("waiters", "1000", "instances parked on a signal (latency)");
        def("signal-rate", "200", "signals per second (latency)");
        def("backlog", "1000000", "rows waiting (backlog)");
        def("backlog-batch", "5000", "rows per insertAll while loading the backlog");
        def("backlog-burn", "50000", "rows burnt down of the backlog");
        def("fanout", "10000", "children of the one parent (fanout)");
        def("gate-limit", "50", "K of the gate (limited)");
        def("gate-keys", "4", "gated keys, round-robin over the jobs (limited)");
        def("rate-limit", "1000000", "starts per second of the rate limit (limited): high, not the bottleneck");
        def("stall-seconds", "60", "give a scenario up when nothing commits for this long");
        def("keep-schemas", "false", "keep each scenario's schema (default: dropped after the scenario)");
    }

    private static void def(String key, String value, String help) {
        DEFAULTS.put(key, value);
        HELP.put(key, help);
    }

    final Map<String, String> values = new LinkedHashMap<>(DEFAULTS);
    final List<String> scenarios = new ArrayList<>();

    static Options parse(String[] args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                o.scenarios.add("help");
            } else if (a.startsWith("--")) {
                String key;
                String value;
                int eq = a.indexOf('=');
                if (eq > 0) {
                    key = a.substring(2, eq);
                    value = a.substring(eq + 1);
                } else {
                    key = a.substring(2);
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("--" + key + " needs a value");
                    }
                    value = args[++i];
                }
                if (!DEFAULTS.containsKey(key)) {
                    throw new IllegalArgumentException("unknown option --" + key + "\n" + usage());
                }
                o.values.put(key, value);
            } else if (a.startsWith("jdbc:")) {
                o.values.put("db", a);
            } else {
                o.scenarios.add(a);
            }
        }
        return o;
    }

    String str(String key) {
        return values.get(key);
    }

    int integer(String key) {
        try {
            return Integer.parseInt(values.get(key).replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + key + " must be an integer, got " + values.get(key));
        }
    }

    boolean flag(String key) {
        String v = values.get(key);
        return v.equalsIgnoreCase("on") || v.equalsIgnoreCase("true") || v.equals("1");
    }

    static String usage() {
        StringBuilder b = new StringBuilder("""
                usage: Bench [jdbc-url] [--option=value]... scenario...
                scenarios: jobs fsm insert latency backlog fanout limited ceiling, or all (every one, in that order);
                           serve (start the embedded PostgreSQL, print its URL, wait until stdin closes)
                options:
                """);
        DEFAULTS.forEach((k, v) -> b.append(String.format("  --%-16s %-9s %s%n", k, v.isEmpty() ? "-" : v, HELP.get(k))));
        return b.toString();
    }
}
