package io.gendurable.impl.cdi.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The counter {@code gendurable.step.timeouts} {fsm, step} of docs/metrics.md, in the Micrometer and OpenTelemetry backends. */
class StepTimeoutMetricsTest {
    @Test
    void micrometer_counts_timeouts_by_fsm_and_step() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerEvents events = new MicrometerEvents(registry, "default");
        events.stepTimedOut(1, "checkout", "charge", "default");
        events.stepTimedOut(2, "checkout", "charge", "default");
        events.stepTimedOut(3, "checkout", "ship", "default");
        assertThat(registry.get("gendurable.step.timeouts").tags("fsm", "checkout", "step", "charge").counter().count())
                .isEqualTo(2.0);
        assertThat(registry.get("gendurable.step.timeouts").tags("fsm", "checkout", "step", "ship").counter().count())
                .isEqualTo(1.0);
    }

    @Test
    void opentelemetry_counts_timeouts_by_fsm_and_step() {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build()) {
            OpenTelemetryMetricsEvents events = new OpenTelemetryMetricsEvents(sdk, "default");
            events.stepTimedOut(1, "checkout", "charge", "default");
            events.stepTimedOut(2, "checkout", "charge", "default");
            MetricData timeouts = reader.collectAllMetrics().stream()
                    .filter(m -> m.getName().equals("gendurable.step.timeouts")).findFirst().orElseThrow();
            LongPointData point = timeouts.getLongSumData().getPoints().iterator().next();
            assertThat(point.getValue()).isEqualTo(2);
            assertThat(point.getAttributes().get(AttributeKey.stringKey("fsm"))).isEqualTo("checkout");
            assertThat(point.getAttributes().get(AttributeKey.stringKey("step"))).isEqualTo("charge");
        }
    }
}
