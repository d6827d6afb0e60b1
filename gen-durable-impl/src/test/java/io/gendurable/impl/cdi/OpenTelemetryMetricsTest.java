package io.gendurable.impl.cdi;

import io.gendurable.GenDurable;
import io.gendurable.impl.cdi.TestFsms.Count;
import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.impl.cdi.metrics.MetricsBackend;
import io.gendurable.impl.cdi.metrics.MetricsChoice;
import io.gendurable.impl.cdi.metrics.OpenTelemetryMetricsEvents;
import io.gendurable.impl.config.ConfigReader;
import io.gendurable.testing.SharedTestDatabase;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static io.gendurable.impl.cdi.CdiTestSupport.property;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * With an {@link OpenTelemetry} bean (what MicroProfile Telemetry 2.x produces), the engine's
 * metrics go through the OpenTelemetry metrics API, read here by the real SDK's in-memory reader.
 * Run beside the Micrometer backend ({@code gendurable.metrics.backend=micrometer,opentelemetry}),
 * whose names and tags are those of MicroProfile Metrics (docs/metrics.md), both see the same
 * series with the same values.
 */
class OpenTelemetryMetricsTest extends CdiTest {
    static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();
    /** A fresh SDK per test: its instruments are cumulative. */
    static volatile InMemoryMetricReader READER;
    static volatile OpenTelemetrySdk SDK;

    @BeforeEach
    void freshSdk() {
        READER = InMemoryMetricReader.create();
        SDK = OpenTelemetrySdk.builder().setMeterProvider(SdkMeterProvider.builder().registerMetricReader(READER).build())
                .build();
    }

    @AfterEach
    void closeSdk() {
        SDK.close();
    }

    /** The application's OpenTelemetry, as MicroProfile Telemetry would produce it. */
    @ApplicationScoped
    public static class Telemetry {
        @Produces
        OpenTelemetry telemetry() {
            return SDK;
        }
    }

    /** A Micrometer registry beside it, as WildFly's micrometer subsystem would produce it. */
    @ApplicationScoped
    public static class Registry {
        @Produces
        MeterRegistry registry() {
            return REGISTRY;
        }
    }

    @Test
    void the_opentelemetry_backend_publishes_the_names_tags_and_values_of_the_others() {
        String schema = SharedTestDatabase.newSchema("cdi_otel_metrics");
        CdiTestSupport.jdbcProperties(schema);
        property("gendurable.metrics.backend", "micrometer,opentelemetry");
        try (WeldContainer c = boot(Tally.class, Increments.class, Telemetry.class, Registry.class)) {
            GenDurable durable = c.select(GenDurable.class).get();
            long id = durable.insert(Tally.class, new Count(0)).id();
            String fsm = durable.find(id).orElseThrow().fsm();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                Timer done = REGISTRY.find("gendurable.step.duration").tags("fsm", fsm, "outcome", "done").timer();
                return done != null && done.count() >= 1;
            });
            await().atMost(Duration.ofSeconds(20)).until(() -> REGISTRY.find("gendurable.queue.instances")
                    .tags("queue", "default", "status", "runnable").gauge() != null);

            double picksBefore = REGISTRY.get("gendurable.pick.count").tag("queue", "default").counter().count();
            // the engine goes on polling meanwhile: its running totals are read on both sides of the collection
            Map<String, Double> totalsBefore = MetricsBackend.TOTALS.keySet().stream()
                    .collect(Collectors.toMap(t -> t, t -> REGISTRY.get(t).gauge().value()));
            double[] movingBefore = moving();
            Map<String, MetricData> otel = READER.collectAllMetrics().stream()
                    .filter(m -> m.getName().startsWith("gendurable."))
                    .collect(Collectors.toMap(MetricData::getName, m -> m));
            double picksAfter = REGISTRY.get("gendurable.pick.count").tag("queue", "default").counter().count();
            Map<String, Double> totalsAfter = MetricsBackend.TOTALS.keySet().stream()
                    .collect(Collectors.toMap(t -> t, t -> REGISTRY.get(t).gauge().value()));
            double[] movingAfter = moving();

            assertThat(series(otel.values())).as("the same names and tags as Micrometer's (so MicroProfile Metrics')")
                    .isEqualTo(series(REGISTRY));
            assertThat(otel.values()).allSatisfy(m -> assertThat(m.getInstrumentationScopeInfo().getName())
                    .isEqualTo("io.gendurable"));

            // the step histogram: in seconds, one point per (fsm, step, outcome), the Micrometer timer's count and sum
            MetricData steps = otel.get("gendurable.step.duration");
            assertThat(steps.getType()).isEqualTo(MetricDataType.HISTOGRAM);
            assertThat(steps.getUnit()).isEqualTo("s");
            for (HistogramPointData p : steps.getHistogramData().getPoints()) {
                Timer t = REGISTRY.get("gendurable.step.duration").tags(micrometerTags(p.getAttributes())).timer();
                assertThat(p.getCount()).isEqualTo(t.count()).isPositive();
                assertThat(p.getSum()).isCloseTo(t.totalTime(java.util.concurrent.TimeUnit.SECONDS), within(1e-6));
                assertThat(p.getBoundaries()).isEqualTo(OpenTelemetryMetricsEvents.SECONDS_BUCKETS);
            }
            assertThat(steps.getHistogramData().getPoints()).anySatisfy(p -> assertThat(tags(p.getAttributes()))
                    .containsEntry("fsm", fsm).containsEntry("step", "start").containsEntry("outcome", "done"));

            // counters: picks between the two Micrometer reads (each pick reaches Micrometer first)
            MetricData picks = otel.get("gendurable.pick.count");
            assertThat(picks.getType()).isEqualTo(MetricDataType.LONG_SUM);
            assertThat(picks.getLongSumData().isMonotonic()).isTrue();
            long otelPicks = picks.getLongSumData().getPoints().iterator().next().getValue();
            assertThat((double) otelPicks).isPositive().isBetween(picksBefore - 1, picksAfter);
            // the picked rows and the flush histograms, each between the Micrometer reads on either side
            // of the collection (less the one event that may have reached Micrometer and not yet
            // OpenTelemetry): the last flush's events may land after the instance reads as done
            assertThat((double) otel.get("gendurable.picked.rows").getLongSumData().getPoints().iterator().next().getValue())
                    .isPositive().isBetween(movingBefore[0] - 1, movingAfter[0]);
            HistogramPointData sizes = otel.get("gendurable.flush.batch.size").getHistogramData().getPoints().iterator().next();
            assertThat((double) sizes.getCount()).isPositive().isBetween(movingBefore[1] - 1, movingAfter[1]);
            // one outcome per flush here (one instance, one step at a time): an event in flight moves the sum by one
            assertThat(sizes.getSum()).isBetween(movingBefore[2] - 1, movingAfter[2]);
            HistogramPointData flushes = otel.get("gendurable.flush.duration").getHistogramData().getPoints().iterator().next();
            assertThat(otel.get("gendurable.flush.duration").getUnit()).isEqualTo("s");
            assertThat((double) flushes.getCount()).isPositive().isBetween(movingBefore[3] - 1, movingAfter[3]);

            // gauges, read when the SDK collects: the running totals (monotonic: between the Micrometer
            // reads on either side of the collection, as the engine may count meanwhile), the queue
            // gauges (seconds for the age)
            for (String total : MetricsBackend.TOTALS.keySet()) {
                MetricData g = otel.get(total);
                assertThat(g.getType()).as(total).isEqualTo(MetricDataType.LONG_GAUGE);
                assertThat((double) g.getLongGaugeData().getPoints().iterator().next().getValue()).as(total)
                        .isBetween(totalsBefore.get(total), totalsAfter.get(total));
            }
            assertThat(otel.get("gendurable.queue.oldest_runnable_age").getUnit()).isEqualTo("s");
            assertThat(otel.get("gendurable.queue.oldest_runnable_age").getType()).isEqualTo(MetricDataType.DOUBLE_GAUGE);
            assertThat(otel.get("gendurable.queue.instances").getLongGaugeData().getPoints())
                    .extracting(p -> p.getAttributes().asMap().size()).containsOnly(3);  // engine, queue, status
            assertThat(otel.get("gendurable.scheduler.in_flight").getLongGaugeData().getPoints()).singleElement()
                    .satisfies(p -> assertThat(tags(p.getAttributes())).isEqualTo(Map.of("engine", "default", "queue", "default")));
            assertThat(otel.get("gendurable.scheduler.prefetch").getLongGaugeData().getPoints()).singleElement()
                    .satisfies(p -> assertThat(p.getValue()).isPositive());
        }
        assertThat(READER.collectAllMetrics()).as("the gauges' callbacks end with the engine")
                .noneMatch(m -> m.getType() == MetricDataType.LONG_GAUGE && m.getName().startsWith("gendurable.")
                        && !m.getLongGaugeData().getPoints().isEmpty());
    }

    /** @return Micrometer's picked rows, flush batch count and sum, and flush count, as they are now */
    private static double[] moving() {
        return new double[]{REGISTRY.get("gendurable.picked.rows").counter().count(),
                REGISTRY.get("gendurable.flush.batch.size").summary().count(),
                REGISTRY.get("gendurable.flush.batch.size").summary().totalAmount(),
                REGISTRY.get("gendurable.flush.duration").timer().count()};
    }

    @ParameterizedTest
    @ValueSource(strings = {"prometheus", "auto,micrometer", "micrometer,micrometer", "none,opentelemetry", ","})
    void a_bad_backend_list_fails_the_deployment_naming_the_key_and_the_accepted_values(String value) {
        String schema = SharedTestDatabase.newSchema("cdi_otel_bad");
        CdiTestSupport.jdbcProperties(schema);
        property("gendurable.metrics.backend", value);

        assertThatThrownBy(() -> boot(Tally.class, Increments.class, Telemetry.class).close())
                .hasMessageContaining("gendurable.metrics.backend")
                .hasMessageContaining("auto (the default), none, or one or more of microprofile, micrometer, opentelemetry");
        assertThat(CdiTestSupport.schemaExists(db, schema)).isFalse();
    }

    @Test
    void a_listed_backend_without_its_registry_fails_the_start_naming_the_key() {
        // the MicroProfile Metrics API is on this class path, but no implementation produces a MetricRegistry
        String schema = SharedTestDatabase.newSchema("cdi_otel_noreg");
        CdiTestSupport.jdbcProperties(schema);
        property("gendurable.metrics.backend", "opentelemetry,microprofile");

        assertThatThrownBy(() -> boot(Tally.class, Increments.class, Telemetry.class).close())
                .hasMessageContaining("invalid configuration gendurable.metrics.backend: microprofile is listed, but "
                        + "MicroProfile Metrics: no registry")
                .hasMessageContaining("accepted: auto (the default)");
    }

    @Test
    void a_listed_backend_whose_api_is_absent_is_refused_naming_the_key_and_the_api() {
        ConfigReader reader = ConfigReader.of(Map.of("gendurable.metrics.backend", "microprofile, OpenTelemetry"));
        assertThatThrownBy(() -> MetricsChoice.read(reader, b -> b != MetricsChoice.Backend.OPENTELEMETRY))
                .hasMessageContaining("invalid configuration gendurable.metrics.backend: opentelemetry is listed, but it "
                        + "needs the OpenTelemetry API (io.opentelemetry:opentelemetry-api")
                .hasMessageContaining("which the application does not see");
        assertThat(MetricsChoice.read(reader, b -> true)).isEqualTo(new MetricsChoice(false,
                java.util.List.of(MetricsChoice.Backend.MICROPROFILE, MetricsChoice.Backend.OPENTELEMETRY)));
        assertThat(MetricsChoice.read(ConfigReader.of(Map.of()), b -> false)).isEqualTo(MetricsChoice.AUTO);
        assertThat(MetricsChoice.read(ConfigReader.of(Map.of("gendurable.metrics.backend", "none")), b -> false).backends())
                .isEmpty();
    }

    @Test
    void with_auto_and_only_opentelemetry_the_engine_publishes_there() {
        String schema = SharedTestDatabase.newSchema("cdi_otel_auto");
        CdiTestSupport.jdbcProperties(schema);
        long before = stepCount();
        try (WeldContainer c = boot(Tally.class, Increments.class, Telemetry.class)) {
            GenDurable durable = c.select(GenDurable.class).get();
            long id = durable.insert(Tally.class, new Count(0)).id();
            await().atMost(Duration.ofSeconds(20)).until(() -> stepCount() - before >= 4);
            assertThat(stepCount() - before).as("the four steps of the tally").isEqualTo(4);
        }
    }

    /** @return the steps the OpenTelemetry histogram has counted so far, all series */
    private static long stepCount() {
        return READER.collectAllMetrics().stream().filter(m -> m.getName().equals("gendurable.step.duration"))
                .flatMap(m -> m.getHistogramData().getPoints().stream()).mapToLong(HistogramPointData::getCount).sum();
    }

    /** @return name{tag=value,…} of every OpenTelemetry point */
    private static Set<String> series(Collection<MetricData> metrics) {
        Set<String> out = new TreeSet<>();
        for (MetricData m : metrics) {
            Collection<? extends PointData> points = switch (m.getType()) {
                case HISTOGRAM -> m.getHistogramData().getPoints();
                case LONG_SUM -> m.getLongSumData().getPoints();
                case LONG_GAUGE -> m.getLongGaugeData().getPoints();
                case DOUBLE_GAUGE -> m.getDoubleGaugeData().getPoints();
                default -> throw new AssertionError("unexpected instrument type " + m.getType() + " of " + m.getName());
            };
            points.forEach(p -> out.add(m.getName() + tags(p.getAttributes())));
        }
        return out;
    }

    /** @return name{tag=value,…} of every Micrometer meter of the engine */
    private static Set<String> series(SimpleMeterRegistry registry) {
        Set<String> out = new TreeSet<>();
        for (Meter m : registry.getMeters()) {
            if (m.getId().getName().startsWith("gendurable.")) {
                Map<String, String> tags = new TreeMap<>();
                for (Tag t : m.getId().getTags()) {
                    tags.put(t.getKey(), t.getValue());
                }
                out.add(m.getId().getName() + tags);
            }
        }
        return out;
    }

    private static Map<String, String> tags(Attributes attributes) {
        Map<String, String> out = new TreeMap<>();
        attributes.forEach((k, v) -> out.put(k.getKey(), String.valueOf(v)));
        return out;
    }

    private static java.util.List<Tag> micrometerTags(Attributes attributes) {
        return tags(attributes).entrySet().stream().map(e -> Tag.of(e.getKey(), e.getValue())).toList();
    }
}
