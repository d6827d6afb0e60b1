package io.gendurable.impl.cdi;

import io.gendurable.impl.cdi.metrics.MetricsBackend;
import io.gendurable.impl.config.ConfigCatalogue;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metric names of the docs are the code's: docs/metrics.md has a row for every metric a
 * backend registers (MicroProfile Metrics, Micrometer, OpenTelemetry and the totals of
 * {@link MetricsBackend#TOTALS} and {@link MetricsBackend#QUEUE_TOTALS}) and no row for another; and every dotted {@code gendurable.a.b}
 * name in backticks on any page or in the README is a configuration key or a name the engine's code
 * writes (a metric, a span attribute).
 */
class MetricNamesDocTest {

    private static final Path ROOT = Path.of("..");
    private static final Path CDI = Path.of("src/main/java/io/gendurable/impl/cdi/metrics");
    private static final List<String> BACKENDS = List.of("MetricsEvents.java", "MicrometerEvents.java", "OpenTelemetryMetricsEvents.java");
    /** A name the code writes: a string literal {@code "gendurable.x.y"}. */
    private static final Pattern LITERAL = Pattern.compile("\"(gendurable\\.[a-z_][a-z0-9_.]*)[\" ]");
    /** A dotted name in backticks on a page: at least two parts after the prefix. */
    private static final Pattern DOTTED = Pattern.compile("`(gendurable\\.[a-z0-9_-]+(?:\\.[a-z0-9_<>\\[\\]-]+)+)`");
    /** The first cell of a row of metrics.md's tables. */
    private static final Pattern ROW = Pattern.compile("(?m)^\\|\\s*`(gendurable\\.[a-z_.]+)`\\s*\\|");

    @Test
    void metricsMdHasARowForEveryMetricTheBackendsRegisterAndNoOther() throws IOException {
        Set<String> code = codeMetrics();
        assertThat(code).as("metrics the backends register").hasSizeGreaterThan(30)
                .contains("gendurable.step.duration", "gendurable.picked.rows", "gendurable.outcome.stale");
        Set<String> rows = new TreeSet<>();
        Matcher m = ROW.matcher(Files.readString(ROOT.resolve("docs/metrics.md")));
        while (m.find()) {
            rows.add(m.group(1));
        }
        assertThat(rows).as("metrics with a row in docs/metrics.md").containsAll(code);
        assertThat(code).as("metrics the backends register, for the rows of docs/metrics.md").containsAll(rows);
    }

    @Test
    void everyDottedNameOnAPageIsAConfigKeyOrANameTheCodeWrites() throws IOException {
        assertThat(unknownNames(pages(), codeLiterals())).as("dotted gendurable names that neither the code nor the config knows")
                .isEmpty();
    }

    @Test
    void aMetricNameTypedWrongIsFound() throws IOException {
        Map<String, String> pages = Map.of("p.md", "Not counted in `gendurable.pick.count` or `gendurable.pick.rows`; "
                + "`gendurable.gc.interval` and `gendurable.rate-limits.psp.allowed` are keys.\n");
        assertThat(unknownNames(pages, codeLiterals())).containsExactly("p.md:1: `gendurable.pick.rows`");
    }

    static List<String> unknownNames(Map<String, String> pages, Set<String> code) {
        List<String> unknown = new ArrayList<>();
        pages.forEach((name, text) -> {
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                Matcher m = DOTTED.matcher(lines[i]);
                while (m.find()) {
                    String n = m.group(1);
                    String key = n.substring("gendurable.".length()).replace("[i]", "[0]").replace("<name>", "psp");
                    if (!code.contains(n) && !ConfigCatalogue.isKnown(key)) {
                        unknown.add(name + ":" + (i + 1) + ": `" + n + "`");
                    }
                }
            }
        });
        return unknown;
    }

    /** Every metric name the three backends and the totals register. */
    static Set<String> codeMetrics() throws IOException {
        Set<String> names = new TreeSet<>(MetricsBackend.TOTALS.keySet());
        names.addAll(MetricsBackend.QUEUE_TOTALS.keySet());
        for (String file : BACKENDS) {
            Matcher m = LITERAL.matcher(Files.readString(CDI.resolve(file)));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    /** Every "gendurable.…" literal of the engine's main sources. */
    static Set<String> codeLiterals() throws IOException {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = LITERAL.matcher(Files.readString(p));
                while (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        return names;
    }

    private static Map<String, String> pages() throws IOException {
        Map<String, String> pages = new LinkedHashMap<>();
        pages.put("README.md", Files.readString(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            for (Path p : s.filter(f -> f.toString().endsWith(".md")).sorted().toList()) {
                pages.put("docs/" + p.getFileName(), Files.readString(p));
            }
        }
        return pages;
    }
}
