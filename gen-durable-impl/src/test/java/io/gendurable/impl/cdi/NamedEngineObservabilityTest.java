package io.gendurable.impl.cdi;

import io.gendurable.DurableEngine;
import io.gendurable.GenDurable;
import io.gendurable.impl.cdi.TestFsms.Count;
import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.impl.cdi.metrics.MetricsBackend;
import io.gendurable.impl.engine.Engine;
import io.gendurable.testing.SharedTestDatabase;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static io.gendurable.impl.cdi.CdiTestSupport.property;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A named engine is observable as the default one is: every metric of both engines carries an
 * {@code engine} tag (its name; {@code default} for the default engine) under the same names, in
 * Micrometer and OpenTelemetry alike, and each engine has its own readiness and liveness check,
 * named after it, so one engine's trouble shows as that engine's check DOWN.
 */
class NamedEngineObservabilityTest extends CdiTest {
    static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();
    static volatile InMemoryMetricReader reader;
    static volatile OpenTelemetrySdk sdk;

    @BeforeEach
    void freshSdk() {
        reader = InMemoryMetricReader.create();
        sdk = OpenTelemetrySdk.builder().setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
    }

    @AfterEach
    void closeSdk() {
        sdk.close();
    }

    /** The application's registries, as WildFly's micrometer subsystem and MicroProfile Telemetry would produce them. */
    @ApplicationScoped
    public static class Registries {
        @Produces
        MeterRegistry registry() {
            return REGISTRY;
        }

        @Produces
        OpenTelemetry telemetry() {
            return sdk;
        }
    }

    private static void twoEngines(String orders, String billing) {
        CdiTestSupport.jdbcProperties(orders);
        property("gendurable.metrics.backend", "micrometer,opentelemetry");
        String p = "gendurable.engines.billing.";
        property("gendurable.engines", "billing");
        property(p + "jdbc.url", SharedTestDatabase.url());
        property(p + "jdbc.user", "postgres");
        property(p + "jdbc.password", "postgres");
        property(p + "schema", billing);
        property(p + "queues", "invoices:2");
        property(p + "poll-interval", "50");
        property(p + "max-poll-interval", "200");
        property(p + "drain-timeout", "PT2S");
        property(p + "node-id", "cdi-billing-" + billing);
        property(p + "metrics.backend", "micrometer,opentelemetry");
    }

    @Test
    void every_metric_of_both_engines_carries_its_engine_under_the_same_names() {
        twoEngines(SharedTestDatabase.newSchema("obs_orders"), SharedTestDatabase.newSchema("obs_billing"));
        try (WeldContainer c = boot(Tally.class, Increments.class, NamedEnginesTest.Charge.class, Registries.class)) {
            GenDurable orders = c.select(GenDurable.class).get();
            GenDurable billing = c.select(GenDurable.class, DurableEngineLiteral.of("billing")).get();
            orders.insert(Tally.class, new Count(0));
            billing.insert(NamedEnginesTest.Charge.class, new Count(1), io.gendurable.InsertOptions.builder().queue("invoices").build());
            await().atMost(Duration.ofSeconds(20)).until(() -> done("default", "cdi-tally") && done("billing", "charge"));

            Map<String, Set<String>> byEngine = new TreeMap<>();
            for (Meter m : REGISTRY.getMeters()) {
                if (m.getId().getName().startsWith("gendurable.")) {
                    assertThat(m.getId().getTag("engine")).as(m.getId().toString()).isIn("default", "billing");
                    byEngine.computeIfAbsent(m.getId().getTag("engine"), k -> new TreeSet<>()).add(m.getId().getName());
                }
            }
            assertThat(byEngine.get("billing")).as("the billing engine's meters, under the default engine's names")
                    .hasSizeGreaterThan(30).isEqualTo(byEngine.get("default"));
            // one set of tag keys per name across both engines (what Prometheus registries and MicroProfile Metrics 5 require)
            Map<String, Set<Set<String>>> keys = new TreeMap<>();
            REGISTRY.getMeters().stream().filter(m -> m.getId().getName().startsWith("gendurable.")).forEach(m -> keys
                    .computeIfAbsent(m.getId().getName(), k -> new java.util.HashSet<>())
                    .add(m.getId().getTags().stream().map(Tag::getKey).collect(Collectors.toSet())));
            assertThat(keys).allSatisfy((name, sets) -> assertThat(sets).as(name).hasSize(1));

            // the totals whose queue is known carry it: one series per queue each engine serves
            for (String name : MetricsBackend.QUEUE_TOTALS.keySet()) {
                assertThat(REGISTRY.find(name).gauges()).as(name).extracting(g -> g.getId().getTag("engine") + "/"
                        + g.getId().getTag("queue")).containsExactlyInAnyOrder("default/default", "billing/invoices");
            }
            assertThat(REGISTRY.get("gendurable.pick.count").tags("engine", "billing", "queue", "invoices").counter().count())
                    .isPositive();

            Set<String> otelEngines = new TreeSet<>();
            for (MetricData m : reader.collectAllMetrics()) {
                if (m.getName().startsWith("gendurable.")) {
                    m.getData().getPoints().forEach(p -> {
                        assertThat(p.getAttributes().get(AttributeKey.stringKey("engine"))).as(m.getName()).isNotNull();
                        otelEngines.add(p.getAttributes().get(AttributeKey.stringKey("engine")));
                    });
                }
            }
            assertThat(otelEngines).containsExactly("billing", "default");
        }
        assertThat(REGISTRY.getMeters()).as("each engine removes its meters when it stops")
                .noneMatch(m -> m.getId().getName().startsWith("gendurable."));
    }

    private static boolean done(String engine, String fsm) {
        Timer t = REGISTRY.find("gendurable.step.duration").tags("engine", engine, "fsm", fsm, "outcome", "done").timer();
        return t != null && t.count() >= 1;
    }

    @Test
    void each_engine_has_its_own_readiness_and_liveness_check_named_after_it() {
        String billing = SharedTestDatabase.newSchema("obs_health_billing");
        twoEngines(SharedTestDatabase.newSchema("obs_health_orders"), billing);
        try (WeldContainer c = boot(Tally.class, Increments.class, NamedEnginesTest.Charge.class, Registries.class)) {
            assertThat(responses(c, Readiness.Literal.INSTANCE)).isEqualTo(Map.of("gendurable", true, "gendurable:billing", true));
            assertThat(responses(c, Liveness.Literal.INSTANCE))
                    .isEqualTo(Map.of("gendurable-loops", true, "gendurable-loops:billing", true));

            // the billing engine's schema history records its latest migration as failed: that engine alone is unready
            SharedTestDatabase.exec(db, "UPDATE " + billing + ".gendurable_schema_history SET success = false"
                    + " WHERE installed_rank = (SELECT max(installed_rank) FROM " + billing + ".gendurable_schema_history)");
            assertThat(responses(c, Readiness.Literal.INSTANCE)).isEqualTo(Map.of("gendurable", true, "gendurable:billing", false));
            Engine billingEngine = c.select(DurableBean.class, DurableEngineLiteral.of("billing")).get().engine();
            assertThat(billingEngine.health().readiness().up()).isFalse();
            assertThat(c.select(DurableBean.class).get().engineName()).isEqualTo(DurableEngine.DEFAULT);
        }
    }

    /** @return each check of the kind, by name: whether it is UP (a plain response builder: no MicroProfile Health implementation here) */
    private static Map<String, Boolean> responses(WeldContainer c, java.lang.annotation.Annotation kind) {
        HealthCheckResponse.setResponseProvider(PlainResponse::new);
        Map<String, Boolean> out = new TreeMap<>();
        for (HealthCheck check : c.select(HealthCheck.class, kind)) {
            HealthCheckResponse r = check.call();
            out.put(r.getName(), r.getStatus() == HealthCheckResponse.Status.UP);
        }
        return out;
    }

    /** What a MicroProfile Health implementation's builder does, for the checks' responses outside a server. */
    static final class PlainResponse extends org.eclipse.microprofile.health.HealthCheckResponseBuilder {
        private String name;
        private HealthCheckResponse.Status status = HealthCheckResponse.Status.DOWN;
        private final Map<String, Object> data = new java.util.LinkedHashMap<>();

        @Override
        public PlainResponse name(String name) {
            this.name = name;
            return this;
        }

        @Override
        public PlainResponse withData(String key, String value) {
            data.put(key, value);
            return this;
        }

        @Override
        public PlainResponse withData(String key, long value) {
            data.put(key, value);
            return this;
        }

        @Override
        public PlainResponse withData(String key, boolean value) {
            data.put(key, value);
            return this;
        }

        @Override
        public PlainResponse up() {
            return status(true);
        }

        @Override
        public PlainResponse down() {
            return status(false);
        }

        @Override
        public PlainResponse status(boolean up) {
            status = up ? HealthCheckResponse.Status.UP : HealthCheckResponse.Status.DOWN;
            return this;
        }

        @Override
        public HealthCheckResponse build() {
            return new HealthCheckResponse(name, status, java.util.Optional.of(Map.copyOf(data)));
        }
    }
}
