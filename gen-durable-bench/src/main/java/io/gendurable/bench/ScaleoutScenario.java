package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scale-out on one database: 1, 2 and 4 engine JVMs (child processes, {@link ScaleoutNode}, each
 * booted the way {@code jobs-cdi} boots the engine, default configuration) with the same total
 * concurrency split evenly ({@code --scaleout-concurrency} = 40: 1 × 40, 2 × 20, 4 × 10, the
 * default), burning down the same {@code --n} no-op jobs after {@code --scaleout-warmup} per JVM. Each run: a fresh schema, the nodes
 * booted and idle, then the jobs inserted with one {@code insertAll} (one transaction, then a
 * poke), timed from its return to the last committed outcome the nodes report. The node counts
 * are interleaved over {@code --repeat} rounds (1, 2, 4, 1, 2, 4…): the machine is shared.
 * One line per node count: the median run, its ratio to 1 node, each node's claims and
 * conflicts, and the machine's CPU accounting (each JVM's and PostgreSQL's CPU seconds, the
 * load average sampled every second).
 */
final class ScaleoutScenario implements Scenario.Body {
    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        List<Integer> counts = o.scaleoutNodes;
        Map<Integer, List<Map<String, Object>>> runs = new LinkedHashMap<>();
        for (int r = 0; r < o.repeat; r++) {
            for (int k : counts) {
                runs.computeIfAbsent(k, x -> new ArrayList<>()).add(once(o, db, k));
            }
        }
        List<Map<String, Object>> lines = new ArrayList<>();
        Double base = null;
        for (var e : runs.entrySet()) {
            int k = e.getKey();
            List<Map<String, Object>> sorted = new ArrayList<>(e.getValue());
            sorted.sort(Comparator.comparingDouble(m -> (double) m.get("jobs_per_s")));
            Map<String, Object> median = new LinkedHashMap<>(sorted.get((sorted.size() - 1) / 2));
            double rate = (double) median.get("jobs_per_s");
            if (base == null) {
                base = rate;
            }
            Map<String, Object> results = new LinkedHashMap<>();
            results.put("nodes", k);
            results.put("jobs_per_s", rate);
            results.put("ratio_to_" + counts.get(0) + "_node", rate / base);
            results.put("runs_jobs_per_s", e.getValue().stream().map(m -> m.get("jobs_per_s")).toList());
            results.put("runs_cpu_us_per_job_total", e.getValue().stream()
                    .map(m -> ((Map<?, ?>) m.get("cpu_us_per_job")).get("total")).toList());
            results.put("runs_load_avg_1m_mean", e.getValue().stream()
                    .map(m -> ((Map<?, ?>) m.get("load_avg_1m")).get("mean")).toList());
            results.putAll(median);
            Map<String, Object> one = new LinkedHashMap<>();
            Map<String, Object> params = new LinkedHashMap<>();
            params.put("nodes", k);
            params.put("n", o.n);
            params.put("total_concurrency", o.scaleoutConcurrency);
            params.put("concurrency_per_node", o.scaleoutConcurrency / k);
            params.put("repeat", o.repeat);
            params.put("node_heap", o.scaleoutHeap);
            params.put("warmup_jobs_per_jvm", o.scaleoutWarmup);
            params.put("step_ms", o.scaleoutStepMs);
            one.put("params", params);
            one.put("results", results);
            one.put("engine_metrics", median.get("per_node"));
            one.put("complete", e.getValue().stream().allMatch(m -> Boolean.TRUE.equals(m.get("complete"))));
            lines.add(one);
        }
        // the ratios the docs read: each node count's median over the first's, and what CPU explains
        for (Map<String, Object> one : lines) {
            Map<String, Object> results = cast(one.get("results"));
            double cpuFirst = (double) cast(cast(lines.get(0).get("results")).get("cpu_us_per_job")).get("total");
            double cpu = (double) cast(results.get("cpu_us_per_job")).get("total");
            results.put("cpu_per_job_ratio_to_" + counts.get(0) + "_node", cpu / cpuFirst);
        }
        line.put(Bench.SPLIT_LINES, lines);
        line.put("config_override", config(o));
    }

    /** @return what the lines' {@code config} says: the defaults via CDI, but the keys the scenario sets */
    static Map<String, Object> config(Options o) {
        Map<String, Object> m = CdiJobsScenario.describe();
        m.put("keys_set", List.of("gendurable.jdbc.url", "gendurable.schema", "gendurable.node-id (one per JVM)",
                "gendurable.queues=default:<total / nodes>"));
        m.put("queues", "default:" + o.scaleoutConcurrency + " split evenly over the nodes");
        m.put("prefetch", "default (each node's queue concurrency)");
        m.put("jvm_options", "-Xms" + o.scaleoutHeap + " -Xmx" + o.scaleoutHeap);
        return m;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Object o) {
        return (Map<String, Object>) o;
    }

    /** One run with {@code k} engine JVMs. */
    private Map<String, Object> once(Options o, BenchDb db, int k) throws Exception {
        Map<String, Object> r = new LinkedHashMap<>();
        int each = Math.max(1, o.scaleoutConcurrency / k);
        try (Schema schema = Schema.fresh(db, o, "scaleout"); HikariDataSource ds = db.pool("bench-scaleout", 4);
             Node loader = Node.loader(ds, Engines.client(o, schema.name()), new BenchFsms.NoopJob())) {
            List<Child> children = new ArrayList<>();
            try {
                for (int i = 0; i < k; i++) {
                    children.add(new Child(o, db.url(), schema.name(), "scaleout-" + (i + 1), each));
                }
                for (Child c : children) {
                    if (!c.ready.await(240, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("node " + c.id + " did not boot in 240 s");
                    }
                }
                r.put("boot_s", children.stream().map(c -> c.bootSeconds).toList());
                List<io.gendurable.NewInstance> rows = new ArrayList<>(o.n);
                for (int i = 0; i < o.n; i++) {
                    rows.add(BenchFsms.noop(i));
                }
                int warmup = o.scaleoutWarmup * k;
                if (warmup > 0) {
                    // every JVM as warm (JIT) as one that burnt --scaleout-warmup jobs, before the measured ones
                    List<io.gendurable.NewInstance> warm = new ArrayList<>(warmup);
                    for (int i = 0; i < warmup; i++) {
                        warm.add(BenchFsms.noop(i));
                    }
                    loader.engine.insertAll(warm);
                    if (!Parallel.waitFor(() -> children.stream().mapToLong(c -> c.progress.get()).sum() >= warmup,
                            Math.max(o.stallSeconds, 300))) {
                        throw new IllegalStateException("the scale-out warm-up did not finish");
                    }
                    for (Child c : children) {
                        c.mark();
                    }
                    r.put("warmup_jobs_each", children.stream().map(c -> c.progress.get()).toList());
                }
                List<Long> base = children.stream().map(c -> c.progress.get()).toList();
                LoadSampler load = new LoadSampler();
                List<Long> cpuBefore = children.stream().map(c -> c.cpuTicks()).toList();
                CpuSplit cpu = CpuSplit.now(ds);
                long tInsert = System.nanoTime();
                loader.engine.insertAll(rows);
                long t0 = System.nanoTime();
                r.put("insert_s", (t0 - tInsert) / 1e9);
                long tEnd = 0;
                long lastCount = -1;
                long lastChange = System.nanoTime();
                boolean complete = false;
                while (System.nanoTime() - lastChange < TimeUnit.SECONDS.toNanos(o.stallSeconds)) {
                    long sum = measured(children, base);
                    if (sum >= o.n) {
                        tEnd = System.nanoTime();
                        complete = true;
                        break;
                    }
                    if (sum != lastCount) {
                        lastCount = sum;
                        lastChange = System.nanoTime();
                    }
                    Thread.sleep(10);
                }
                if (tEnd == 0) {
                    tEnd = System.nanoTime();
                }
                Map<String, Object> split = cpu.since();
                List<Long> cpuAfter = children.stream().map(c -> c.cpuTicks()).toList();
                load.stop();
                double seconds = (tEnd - t0) / 1e9;
                long jobs = complete ? o.n : measured(children, base);
                r.put("jobs", jobs);
                // each node's share of the measured jobs, and the largest distance from an even share
                List<Double> shares = new ArrayList<>();
                double spread = 0;
                for (int i = 0; i < k; i++) {
                    double share = jobs == 0 ? 0 : (double) (children.get(i).progress.get() - base.get(i)) / jobs;
                    shares.add(share);
                    spread = Math.max(spread, Math.abs(share * k - 1));
                }
                r.put("shares", shares);
                r.put("share_max_deviation_from_even", spread);
                r.put("seconds", seconds);
                r.put("jobs_per_s", jobs / seconds);
                List<Double> nodeCpu = new ArrayList<>();
                for (int i = 0; i < k; i++) {
                    nodeCpu.add((cpuAfter.get(i) - cpuBefore.get(i)) / 100.0);
                }
                double jvms = nodeCpu.stream().mapToDouble(Double::doubleValue).sum();
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("wall_s", split.get("wall_s"));
                c.put("machine_busy_pct", split.get("machine_busy_pct"));
                c.put("node_jvms_cpu_s", jvms);
                c.put("each_node_jvm_cpu_s", nodeCpu);
                c.put("db_cpu_s", split.get("db_cpu_s"));
                c.put("bench_jvm_cpu_s", split.get("jvm_cpu_s"));
                double busy = split.get("machine_busy_pct") instanceof Double b
                        ? b / 100 * Runtime.getRuntime().availableProcessors() * (double) split.get("wall_s") : Double.NaN;
                double dbs = split.get("db_cpu_s") instanceof Double d ? d : Double.NaN;
                c.put("rest_cpu_s", Math.max(0, busy - jvms - dbs - (double) split.get("jvm_cpu_s")));
                r.put("cpu", c);
                Map<String, Object> per = new LinkedHashMap<>();
                per.put("node_jvms", jvms * 1e6 / jobs);
                per.put("db", dbs * 1e6 / jobs);
                per.put("total", (jvms + dbs) * 1e6 / jobs);
                r.put("cpu_us_per_job", per);
                r.put("load_avg_1m", load.summary());
                r.put("complete", complete);
            } finally {
                List<Map<String, Object>> perNode = new ArrayList<>();
                for (Child c : children) {
                    perNode.add(c.stop());
                }
                r.put("per_node", perNode);
            }
            long done = BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema.instances() + " WHERE status = 'done'");
            r.put("rows_done", done);
            if (done != (long) o.n + (long) o.scaleoutWarmup * k) {  // the warm-up's jobs are in the same table
                r.put("complete", false);
            }
        }
        Bench.log(String.format(Locale.ROOT, "scaleout %d node(s) x %d: %,.0f jobs/s  cpu %s  load %s", k, each,
                (double) r.get("jobs_per_s"), r.get("cpu_us_per_job"), r.get("load_avg_1m")));
        return r;
    }

    private static long measured(List<Child> children, List<Long> base) {
        long sum = 0;
        for (int i = 0; i < children.size(); i++) {
            sum += children.get(i).progress.get() - base.get(i);
        }
        return sum;
    }

    /** One engine JVM: its process, its progress as it reports it, its counters at the end. */
    static final class Child {
        final String id;
        final Process process;
        final CountDownLatch ready = new CountDownLatch(1);
        final AtomicLong progress = new AtomicLong();
        volatile double bootSeconds;
        volatile String metrics;
        volatile String marked;
        private final CountDownLatch markSeen = new CountDownLatch(1);
        private final Thread reader;

        Child(Options o, String url, String schema, String id, int concurrency) throws IOException {
            this.id = id;
            String java = ProcessHandle.current().info().command().orElse("java");
            List<String> command = new ArrayList<>(List.of(java, "-Xms" + o.scaleoutHeap, "-Xmx" + o.scaleoutHeap,
                    "-Dbench.step-ms=" + o.scaleoutStepMs));
            if (!o.sessionDb.isBlank()) {
                command.add("-Dgendurable.session.jdbc.url=" + o.sessionDb);  // --db may be a transaction-mode pooler
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), ScaleoutNode.class.getName(),
                    url, schema, id, String.valueOf(concurrency)));
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            this.process = pb.start();
            this.reader = new Thread(this::read, "scaleout-read-" + id);
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    if (l.startsWith("p ")) {
                        progress.set(Long.parseLong(l.substring(2).strip()));
                    } else if (l.startsWith("ready ")) {
                        bootSeconds = Double.parseDouble(l.substring(6).strip());
                        ready.countDown();
                    } else if (l.startsWith("mark ")) {
                        marked = l.substring(5);
                        markSeen.countDown();
                    } else if (l.startsWith("metrics ")) {
                        metrics = l.substring(8);
                    }
                }
            } catch (IOException | RuntimeException e) {
                Bench.log("scaleout node " + id + ": " + e);
            }
        }

        private static jakarta.json.JsonObject parse(String json) {
            try (var jr = jakarta.json.Json.createReader(new java.io.StringReader(json))) {
                return jr.readObject();
            }
        }

        /** @return the counters of the measured run: the end's minus the warm-up's, rows per pick recomputed */
        static Map<String, Object> since(jakarta.json.JsonObject end, jakarta.json.JsonObject mark) {
            Map<String, Object> m = new LinkedHashMap<>();
            end.forEach((k, v) -> {
                if (v instanceof jakarta.json.JsonNumber n && (mark == null || mark.get(k) instanceof jakarta.json.JsonNumber)) {
                    m.put(k, mark == null ? n.longValue() : n.longValue() - mark.getJsonNumber(k).longValue());
                }
            });
            long picks = ((Number) m.getOrDefault("picks", 0L)).longValue();
            m.put("rows_per_pick", picks == 0 ? null : ((Number) m.get("picked")).doubleValue() / picks);
            return m;
        }

        /** @return the process's CPU ticks (user + system, 1/100 s) from /proc, or -1 */
        long cpuTicks() {
            try {
                String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                return Long.parseLong(f[11]) + Long.parseLong(f[12]);
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }

        /** Asks the node for its counters now: the end of the warm-up, subtracted from the end's. */
        void mark() throws IOException, InterruptedException {
            OutputStream in = process.getOutputStream();
            in.write("mark\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            if (!markSeen.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("node " + id + " did not answer mark");
            }
        }

        /** Asks the node to stop; @return its counters (as it printed them) */
        Map<String, Object> stop() throws InterruptedException {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("node", id);
            try {
                OutputStream in = process.getOutputStream();
                in.write("stop\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
            } catch (IOException e) {
                // it ended already
            }
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            reader.join(5000);
            m.put("counters", metrics == null ? null : since(parse(metrics), marked == null ? null : parse(marked)));
            m.put("exit", process.exitValue());
            return m;
        }
    }

    /** The 1-minute load average, read every second while a run lasts. */
    static final class LoadSampler {
        private final List<Double> samples = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final Thread t;
        private volatile boolean stop;

        LoadSampler() {
            sample();
            t = new Thread(() -> {
                while (!stop) {
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                    sample();
                }
            }, "bench-load-sampler");
            t.setDaemon(true);
            t.start();
        }

        private void sample() {
            List<Double> l = Machine.loadAverage();
            if (!l.isEmpty()) {
                samples.add(l.get(0));
            }
        }

        void stop() throws InterruptedException {
            stop = true;
            t.interrupt();
            t.join(2000);
            sample();
        }

        /** @return first, mean, max and last of the samples */
        Map<String, Object> summary() {
            Map<String, Object> m = new LinkedHashMap<>();
            if (samples.isEmpty()) {
                return m;
            }
            m.put("first", samples.get(0));
            m.put("mean", samples.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN));
            m.put("max", samples.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN));
            m.put("last", samples.get(samples.size() - 1));
            m.put("samples", samples.size());
            return m;
        }
    }
}
