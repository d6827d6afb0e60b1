package io.gendurable.impl.cdi.metrics;

import io.gendurable.impl.cdi.resources.OptionalApis;
import io.gendurable.impl.config.ConfigException;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.config.ConfigReader;

import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The metrics backends {@code gendurable.metrics.backend} chooses (docs/metrics.md): with
 * {@code auto} the first one the application has, in the order of {@link Backend}; with
 * {@code none} none; else every one listed, each of which must be there. Read and checked at
 * deployment validation (a bad value, or a listed backend whose API the application does not see,
 * fails the deployment naming the key) and again when the engine starts (where a listed backend's
 * registry must also resolve).
 *
 * @param auto     whether the first available backend is taken and missing ones are skipped
 * @param backends the backends to try ({@code auto}: all, in order), or to require
 */
public record MetricsChoice(boolean auto, List<Backend> backends) {

    /** A metrics backend: its value in the key, its name in logs, and the API class it needs. */
    public enum Backend {
        /** MicroProfile Metrics 5 ({@link MetricsEvents}). */
        MICROPROFILE("MicroProfile Metrics", OptionalApis.MICROPROFILE_METRICS,
                "the MicroProfile Metrics API (org.eclipse.microprofile.metrics; Open Liberty's mpMetrics-5.x)"),
        /** Micrometer ({@link MicrometerEvents}). */
        MICROMETER("Micrometer", OptionalApis.MICROMETER,
                "Micrometer (io.micrometer:micrometer-core; WildFly's micrometer subsystem)"),
        /** OpenTelemetry metrics through MicroProfile Telemetry ({@link OpenTelemetryMetricsEvents}). */
        OPENTELEMETRY("OpenTelemetry", OptionalApis.OPENTELEMETRY,
                "the OpenTelemetry API (io.opentelemetry:opentelemetry-api; MicroProfile Telemetry 2.x: Open Liberty's "
                        + "mpTelemetry-2.0, WildFly's microprofile-telemetry)");

        final String label;
        final String apiClass;
        final String api;

        Backend(String label, String apiClass, String api) {
            this.label = label;
            this.apiClass = apiClass;
            this.api = api;
        }

        /** @return the value naming it in {@code gendurable.metrics.backend} */
        String value() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** @return whether the application sees its API */
        boolean apiPresent() {
            return OptionalApis.present(apiClass);
        }
    }

    /** Every backend in {@code auto}'s order (the same as {@link ConfigKeys#METRICS_BACKENDS}). */
    public static final MetricsChoice AUTO = new MetricsChoice(true, List.of(Backend.values()));

    /**
     * @param reader the default engine's configuration
     * @return the choice, checked: every listed backend's API is visible
     * @throws ConfigException naming {@code gendurable.metrics.backend} and what it accepts
     */
    public static MetricsChoice read(ConfigReader reader) {
        return read(reader, Backend::apiPresent);
    }

    /**
     * @param reader     the default engine's configuration
     * @param apiPresent whether the application sees a backend's API
     * @return the choice, checked
     * @throws ConfigException naming {@code gendurable.metrics.backend} and what it accepts
     */
    public static MetricsChoice read(ConfigReader reader, Predicate<Backend> apiPresent) {
        List<String> values = ConfigKeys.METRICS_BACKEND.check(reader.get(ConfigKeys.METRICS_BACKEND)).stream()
                .map(v -> v.toLowerCase(Locale.ROOT)).toList();
        if (values.equals(List.of("auto"))) {
            return AUTO;
        }
        if (values.equals(List.of("none"))) {
            return new MetricsChoice(false, List.of());
        }
        List<Backend> listed = values.stream().map(v -> Backend.valueOf(v.toUpperCase(Locale.ROOT))).toList();
        for (Backend b : listed) {
            if (!apiPresent.test(b)) {
                throw missing(b, "it needs " + b.api + ", which the application does not see");
            }
        }
        return new MetricsChoice(false, listed);
    }

    /** @return the error for a listed backend that cannot be used, naming the key and what it accepts */
    static ConfigException missing(Backend b, String why) {
        return new ConfigException(ConfigKeys.METRICS_BACKEND.toString(), b.value() + " is listed, but " + why
                + "; list only the backends the server offers, or set auto; accepted: " + ConfigKeys.METRICS_BACKEND_ACCEPTED);
    }
}
