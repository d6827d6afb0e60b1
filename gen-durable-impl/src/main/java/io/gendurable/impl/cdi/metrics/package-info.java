/**
 * The metrics backends of the container layer: MicroProfile Metrics, Micrometer and OpenTelemetry,
 * each loaded only when the application sees its API, chosen by {@code gendurable.metrics.backend}
 * ({@link io.gendurable.impl.cdi.metrics.MetricsChoice}) behind one
 * {@link io.gendurable.impl.cdi.metrics.ContainerEvents}. Knows nothing of the wiring in
 * {@code impl.cdi}.
 */
package io.gendurable.impl.cdi.metrics;
