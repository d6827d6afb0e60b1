package io.gendurable.impl.cdi.health;

import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;


/**
 * Readiness ({@code /health/ready}): the engine started, its database answering within
 * {@code gendurable.health.timeout}, the schema at the version this code expects
 * ({@link io.gendurable.impl.health.EngineHealth#readiness()}).
 *
 * <p>Not a discovered bean (no bean-defining annotation): {@link io.gendurable.impl.cdi.GenDurableExtension} adds it only
 * when the MicroProfile Health API is on the class path, so applications without it are unaffected.
 */
@Readiness
public class ReadinessCheck implements HealthCheck {
    @Inject
    CheckedEngine durable;

    @Override
    public HealthCheckResponse call() {
        return HealthChecks.readiness(durable);
    }
}
