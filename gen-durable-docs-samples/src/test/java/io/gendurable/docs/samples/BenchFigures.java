package io.gendurable.docs.samples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes the figures table of {@code docs/performance.md} from the bench's raw JSON lines in
 * {@code gen-durable-bench/results/}, so that no figure of it is typed by hand.
 *
 * <p>The page names its sources in the table's opening marker:
 * <pre>
 * &lt;!-- figures: compare-pg15-server-21.jsonl pg15-server-all-1.jsonl:limited x.jsonl@8d0f5c3 --&gt;
 * (the table, written by this tool)
 * &lt;!-- end figures --&gt;
 * </pre>
 * Each source is a file of that folder, optionally narrowed to one scenario ({@code :limited}) and
 * to the lines of one build ({@code @8d0f5c3}, the lines' {@code git} field). Several lines of one
 * scenario in a source give each figure once per line, joined by " / ".
 *
 * <p>JDK only, so that it runs as a single source file. From the repository root:
 * {@code java gen-durable-docs-samples/src/test/java/io/gendurable/docs/samples/BenchFigures.java .}
 * rewrites the table; add {@code --check} to only report a difference (exit status 1).
 * {@code BenchFiguresTest} runs the check under {@code mvn verify}.
 */
public final class BenchFigures {

    /** The generated region of the page. */
    static final Pattern REGION = Pattern.compile("<!-- figures: ([^>]*?) -->\\n(.*?)<!-- end figures -->", Pattern.DOTALL);
    private static final Pattern SOURCE = Pattern.compile("([\\w.-]+\\.jsonl)(?::([\\w-]+))?(?:@(\\w+))?");

    private BenchFigures() {
    }

    /**
     * The table for the given sources.
     *
     * @param results the folder of the raw JSON lines
     * @param sources the sources, as the page's marker lists them
     * @return the Markdown table, ending with a newline
     */
    public static String table(Path results, String sources) {
        StringBuilder out = new StringBuilder("| Figure | Value | Source: file, build, date |\n|---|---|---|\n");
        Set<String> machines = new LinkedHashSet<>();
        Set<String> peers = new LinkedHashSet<>();
        for (String spec : sources.trim().split("\\s+")) {
            Matcher m = SOURCE.matcher(spec);
            if (!m.matches()) {
                throw new IllegalArgumentException("a source is file.jsonl[:scenario][@build], not '" + spec + "'");
            }
            Map<String, List<Map<String, Object>>> byScenario = new LinkedHashMap<>();
            for (String line : lines(results.resolve(m.group(1)))) {
                Map<String, Object> o = obj(Json.parse(line));
                String scenario = o.containsKey("comparison") ? "comparison" : (String) o.get("scenario");
                if (m.group(2) != null && !m.group(2).equals(scenario)
                        || m.group(3) != null && o.containsKey("git") && !m.group(3).equals(o.get("git"))) {
                    continue;
                }
                if ("db-scheduler".equals(engineName(o))) {
                    peers.add(o.get("engine") + " (" + get(o, "params.polling") + ", " + num(get(o, "params.threads")) + " threads)");
                    byScenario.computeIfAbsent("db-scheduler", k -> new ArrayList<>()).add(o);
                    continue;
                }
                if (o.containsKey("db") && o.containsKey("jvm")) {
                    machines.add(num(get(o, "jvm.cpus")) + " CPUs, Java " + get(o, "jvm.java") + ", PostgreSQL "
                            + String.valueOf(get(o, "db.server_version")).replaceAll(" .*", "") + " (fsync "
                            + get(o, "db.fsync") + ", synchronous_commit " + get(o, "db.synchronous_commit") + ")");
                }
                byScenario.computeIfAbsent(scenario, k -> new ArrayList<>()).add(o);
            }
            if (byScenario.isEmpty()) {
                throw new IllegalArgumentException("no line of " + spec);
            }
            String build = null;
            String date = null;
            for (List<Map<String, Object>> ls : byScenario.values()) {
                for (Map<String, Object> o : ls) {
                    if (o.get("git") != null && build == null) {
                        build = (String) o.get("git");
                        date = String.valueOf(o.get("started_at")).substring(0, 10);
                    }
                }
            }
            String where = "`" + m.group(1) + "` " + build + ", " + date;
            byScenario.forEach((scenario, ls) -> {
                for (String[] row : rows(scenario, ls)) {
                    out.append("| ").append(row[0]).append(" | ").append(row[1]).append(" | ").append(where).append(" |\n");
                }
            });
        }
        out.append("| Machine | ").append(String.join("; ", machines)).append(" | every source |\n");
        if (!peers.isEmpty()) {
            out.append("| Peer | ").append(String.join("; ", peers)).append(", same database, same warm-up | the `compare` sources |\n");
        }
        return out.toString();
    }

    /** The rows one scenario's lines give: label, value. */
    private static List<String[]> rows(String scenario, List<Map<String, Object>> ls) {
        List<String[]> rows = new ArrayList<>();
        switch (scenario) {
            case "comparison" -> {
                Map<String, Object> c = ls.get(ls.size() - 1);
                rows.add(row("`jobs`, tuned: jobs/s, median run of each pair", list(c.get("gen_durable_jobs_per_s"))));
                rows.add(row("`jobs-cdi`, every key at its default: jobs/s", list(c.get("gen_durable_cdi_defaults_jobs_per_s"))));
                rows.add(row("db-scheduler: jobs/s", list(c.get("db_scheduler_jobs_per_s"))));
                rows.add(row("tuned ÷ db-scheduler · defaults ÷ db-scheduler (medians of the pairs)",
                        "**" + num(c.get("ratio_median")) + "** · " + num(c.get("ratio_cdi_defaults_median"))));
                rows.add(row("defaults ÷ tuned", "**" + num(c.get("cdi_defaults_vs_tuned")) + "**"));
                rows.add(row("`ceiling` (bare SQL loop, best thread count): steps/s · tuned ÷ ceiling",
                        num(c.get("ceiling_steps_per_s")) + " · **" + num(c.get("jobs_vs_ceiling")) + "**"));
                rows.add(row("CPU µs per job, tuned: JVM · PostgreSQL", num(get(c, "cpu_us_per_job_median.jvm_us")) + " · "
                        + num(get(c, "cpu_us_per_job_median.db_us"))));
                if (c.get("servers") instanceof Map<?, ?> servers) {
                    servers.forEach((name, figures) -> rows.addAll(serverRows(String.valueOf(name), obj(figures))));
                }
            }
            case "fsm" -> {
                rows.add(row("`fsm`, 5 steps: requeued · inline, steps/s", each(ls, o -> num(get(o, "results.inline_false.steps_per_s"))
                        + " · " + num(get(o, "results.inline_true.steps_per_s")))));
                rows.add(row("inline ÷ requeued", each(ls, o -> "**" + num(get(o, "results.inline_speedup")) + "**")));
            }
            case "latency" -> {
                rows.add(row("`latency`, idle engine: insert → step start, ms p50 · p99", each(ls, o ->
                        "**" + num(get(o, "results.insert_to_start.insert_to_start_ms.p50")) + "** · "
                                + num(get(o, "results.insert_to_start.insert_to_start_ms.p99")))));
                rows.add(row("signal → woken step, ms p50 · p99", each(ls, o ->
                        "**" + num(get(o, "results.signal_to_wake.signal_to_woken_step_ms.p50")) + "** · "
                                + num(get(o, "results.signal_to_wake.signal_to_woken_step_ms.p99")))));
            }
            case "insert" -> {
                rows.add(row("`insert`: `insertAll` of 1,000, rows/s, 1 · 8 threads", each(ls, o ->
                        num(get(o, "results.insert_all_1_thread.rows_per_s")) + " · " + num(get(o, "results.insert_all_8_threads.rows_per_s")))));
                rows.add(row("single `insert`, rows/s, 1 · 8 threads", each(ls, o ->
                        num(get(o, "results.single_1_thread.rows_per_s")) + " · " + num(get(o, "results.single_8_threads.rows_per_s")))));
            }
            case "backlog" -> {
                rows.add(row("`backlog`: loading 1,000,000 rows, rows/s", each(ls, o -> num(get(o, "results.load.rows_per_s")))));
                rows.add(row("burn-down of 50,000 beside 950,000 waiting: jobs/s · heap after GC, MB", each(ls, o ->
                        num(get(o, "results.burn.jobs_per_s")) + " · " + num(get(o, "results.burn.heap_used_after_gc_mb")))));
            }
            case "fanout" -> rows.add(row("`fanout` of 10,000 children: committed · last done · parent woken, ms", each(ls, o ->
                    num(get(o, "results.children_committed_ms")) + " · " + num(get(o, "results.last_child_done_ms")) + " · "
                            + num(get(o, "results.parent_woken_ms")))));
            case "limited" -> rows.add(row("`limited`: jobs/s with no key · gate K = 50 · rate limit", each(ls, o ->
                    num(get(o, "results.unlimited.jobs_per_s")) + " · " + num(get(o, "results.gate.jobs_per_s")) + " · "
                            + num(get(o, "results.rate_limit.jobs_per_s")))));
            case "scaleout" -> {
                StringBuilder v = new StringBuilder();
                for (Map<String, Object> o : ls) {
                    v.append(v.length() == 0 ? "" : " · ").append(num(get(o, "results.nodes"))).append(": ")
                            .append(num(get(o, "results.jobs_per_s"))).append(" (").append(num(get(o, "results.ratio_to_1_node"))).append(")");
                }
                rows.add(row("`scaleout`, default configuration, total concurrency 40: JVMs: jobs/s (÷ 1 JVM)", v.toString()));
            }
            case "hotkey" -> rows.add(row("`hotkey`: ordinary jobs beside one hot K = 1 key ÷ alone", each(ls, o ->
                    "**" + num(get(o, "results.ordinary_ratio")) + "**")));
            case "farfuture" -> rows.add(row("`farfuture`: claim beside 200,000 far-future rows ÷ alone, ms · jobs' rate ratio", each(ls, o ->
                    num(get(o, "results.claim_ms_ratio")) + " · " + num(get(o, "results.ordinary_ratio")))));
            case "search" -> {
                rows.add(row("`search`, 1,000,000 rows: first page of 50, ms p50: no filter · FSM · status `failed` · correlation key · error text",
                        each(ls, o -> String.join(" · ", num(get(o, "results.first_page_ms.none.p50")),
                                num(get(o, "results.first_page_ms.fsm_mid.p50")), num(get(o, "results.first_page_ms.status_failed.p50")),
                                num(get(o, "results.first_page_ms.correlation_key.p50")), num(get(o, "results.first_page_ms.error_text.p50"))))));
                rows.add(row("slow shapes, ms p50: status `done` · old one-hour window (`inserted`) · error text matching nothing",
                        each(ls, o -> String.join(" · ", num(get(o, "results.first_page_ms.status_done.p50")),
                                num(get(o, "results.first_page_ms.inserted_old_hour.p50")),
                                num(get(o, "results.first_page_ms.error_text_no_match.p50"))))));
                rows.add(row("`summary()` · `inspect` of a parent of 1,000 children, ms", each(ls, o ->
                        num(get(o, "results.summary_ms")) + " · " + num(get(o, "results.inspect_parent_ms")))));
            }
            case "db-scheduler", "jobs", "jobs-cdi", "ceiling", "liberty", "wildfly" -> {
                // in the comparison line
            }
            default -> throw new IllegalArgumentException("no rows for scenario " + scenario);
        }
        return rows;
    }

    /** The rows of one application server in a comparison line (compare.sh's {@code servers}). */
    private static List<String[]> serverRows(String name, Map<String, Object> f) {
        String server = switch (name) {
            case "liberty" -> "Open Liberty";
            case "wildfly" -> "WildFly";
            default -> name;
        };
        return List.of(
                row("bench WAR in " + server + ", shipped configuration: jobs/s preloaded · live inserts · first live run after deployment",
                        num(f.get("jobs_per_s")) + " · " + num(f.get("live_jobs_per_s")) + " · " + num(f.get("live_first_jobs_per_s"))),
                row(server + " ÷ tuned: preloaded · live · CPU per job, JVM · PostgreSQL",
                        "**" + num(f.get("jobs_vs_tuned")) + "** · **" + num(f.get("live_vs_tuned")) + "** · "
                                + num(f.get("jvm_cpu_vs_tuned")) + " · " + num(f.get("db_cpu_vs_tuned"))),
                row(server + ": CPU µs per job, JVM · PostgreSQL · blocking steps, jobs/s (÷ ideal) · `fsm` steps/s",
                        num(get(f, "cpu_us_per_job.jvm_us")) + " · " + num(get(f, "cpu_us_per_job.db_us")) + " · "
                                + num(f.get("blocking_jobs_per_s")) + " (" + num(f.get("blocking_vs_ideal")) + ") · "
                                + num(f.get("fsm_steps_per_s"))));
    }

    /**
     * The differences between a page's table and what its sources give.
     *
     * @param root the repository root
     * @return one line per problem, empty when the table is what the sources give
     */
    public static List<String> problems(Path root) {
        String page = read(root.resolve("docs/performance.md"));
        Matcher m = REGION.matcher(page);
        if (!m.find()) {
            return List.of("docs/performance.md: no '<!-- figures: … -->' table");
        }
        String expected = table(root.resolve("gen-durable-bench/results"), m.group(1));
        if (expected.equals(m.group(2))) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        String[] want = expected.split("\n");
        String[] have = m.group(2).split("\n");
        for (int i = 0; i < Math.max(want.length, have.length); i++) {
            String w = i < want.length ? want[i] : "(nothing)";
            String h = i < have.length ? have[i] : "(nothing)";
            if (!w.equals(h)) {
                problems.add("docs/performance.md figures table, row " + (i + 1) + ": has '" + h + "', the results give '" + w + "'");
            }
        }
        return problems;
    }

    /**
     * Rewrites the table of {@code docs/performance.md}, or with {@code --check} reports a difference.
     *
     * @param args the repository root (default {@code .}), optionally {@code --check}
     * @throws IOException when the page cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(List.of(args).stream().filter(a -> !a.startsWith("--")).findFirst().orElse("."));
        if (List.of(args).contains("--check")) {
            List<String> problems = problems(root);
            problems.forEach(System.err::println);
            System.exit(problems.isEmpty() ? 0 : 1);
        }
        Path file = root.resolve("docs/performance.md");
        String page = read(file);
        Matcher m = REGION.matcher(page);
        if (!m.find()) {
            throw new IllegalStateException("docs/performance.md has no '<!-- figures: … -->' table");
        }
        String table = table(root.resolve("gen-durable-bench/results"), m.group(1));
        Files.writeString(file, page.substring(0, m.start(2)) + table + page.substring(m.end(2)), StandardCharsets.UTF_8);
    }

    private static String[] row(String label, String value) {
        return new String[] {label, value};
    }

    private static String each(List<Map<String, Object>> ls, Function<Map<String, Object>, String> f) {
        List<String> values = new ArrayList<>();
        ls.forEach(o -> values.add(f.apply(o)));
        return String.join(" / ", values);
    }

    private static String engineName(Map<String, Object> o) {
        Object engine = o.get("engine");
        return engine == null ? "" : String.valueOf(engine).replaceAll(" .*", "");
    }

    /** A number as the JSON gave it: from 1,000 on a whole number grouped by thousands, from 10 on one decimal at most, below that three. */
    static String num(Object v) {
        if (v == null) {
            throw new IllegalArgumentException("a figure the table needs is missing from the results");
        }
        if (!(v instanceof Double d)) {
            return String.valueOf(v);
        }
        if (Math.abs(d) >= 1_000) {
            return String.format(Locale.ROOT, "%,d", Math.round(d));
        }
        String s = String.format(Locale.ROOT, Math.abs(d) >= 10 ? "%.1f" : "%.3f", d);
        return s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
    }

    private static String list(Object v) {
        List<String> values = new ArrayList<>();
        for (Object o : (List<?>) v) {
            values.add(num(o));
        }
        return String.join(" / ", values);
    }

    /** The value at a dotted path of objects, or null. */
    static Object get(Map<String, Object> o, String path) {
        Object at = o;
        for (String key : path.split("\\.")) {
            if (!(at instanceof Map<?, ?> map)) {
                return null;
            }
            at = map.get(key);
        }
        return at;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> obj(Object o) {
        return (Map<String, Object>) o;
    }

    private static List<String> lines(Path p) {
        return read(p).lines().filter(l -> !l.isBlank()).toList();
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A small JSON reader: objects as maps (in order), arrays as lists, numbers as doubles. */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        static Object parse(String text) {
            Json j = new Json(text);
            Object v = j.value();
            j.ws();
            if (j.i != text.length()) {
                throw new IllegalArgumentException("trailing text at " + j.i);
            }
            return v;
        }

        private Object value() {
            ws();
            char c = s.charAt(i);
            switch (c) {
                case '{' -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    i++;
                    ws();
                    if (s.charAt(i) == '}') {
                        i++;
                        return m;
                    }
                    while (true) {
                        ws();
                        String k = string();
                        ws();
                        expect(':');
                        m.put(k, value());
                        ws();
                        if (s.charAt(i) == ',') {
                            i++;
                        } else {
                            expect('}');
                            return m;
                        }
                    }
                }
                case '[' -> {
                    List<Object> l = new ArrayList<>();
                    i++;
                    ws();
                    if (s.charAt(i) == ']') {
                        i++;
                        return l;
                    }
                    while (true) {
                        l.add(value());
                        ws();
                        if (s.charAt(i) == ',') {
                            i++;
                        } else {
                            expect(']');
                            return l;
                        }
                    }
                }
                case '"' -> {
                    return string();
                }
                default -> {
                    if (s.startsWith("true", i)) {
                        i += 4;
                        return Boolean.TRUE;
                    }
                    if (s.startsWith("false", i)) {
                        i += 5;
                        return Boolean.FALSE;
                    }
                    if (s.startsWith("null", i)) {
                        i += 4;
                        return null;
                    }
                    int start = i;
                    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                        i++;
                    }
                    return Double.parseDouble(s.substring(start, i));
                }
            }
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (s.charAt(i) != '"') {
                char c = s.charAt(i++);
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n' -> b.append('\n');
                        case 't' -> b.append('\t');
                        case 'r' -> b.append('\r');
                        case 'b' -> b.append('\b');
                        case 'f' -> b.append('\f');
                        case 'u' -> {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
            i++;
            return b.toString();
        }

        private void expect(char c) {
            if (s.charAt(i) != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + i);
            }
            i++;
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }
    }
}
