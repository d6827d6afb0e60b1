package io.gendurable.impl.cdi.health;

import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;


/**
 * Liveness ({@code /health/live}): every background loop of this node began an iteration within
 * three of its intervals plus {@code gendurable.health.stall-grace} ({@link io.gendurable.impl.health.EngineHealth#liveness()}).
 *
 * <p>Not a discovered bean (no bean-defining annotation): {@link io.gendurable.impl.cdi.GenDurableExtension} adds it only
 * when the MicroProfile Health API is on the class path, so applications without it are unaffected.
 */
@Liveness
public class LivenessCheck implements HealthCheck {
    @Inject
    CheckedEngine durable;

    @Override
    public HealthCheckResponse call() {
        return HealthChecks.liveness(durable);
    }
}
