package io.gendurable.impl.cdi;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.health.EngineHealth;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

import java.util.function.Function;

/**
 * The engine's health as MicroProfile Health responses ({@link ReadinessCheck}, {@link LivenessCheck}).
 * Loaded only where the MicroProfile Health API exists: {@link GenDurableExtension} adds those two
 * beans then, and only then.
 */
final class HealthChecks {
    private HealthChecks() {
    }

    /**
     * @param durable the engine's bean
     * @param check   readiness or liveness of a started engine
     * @param none    the check's answer while no engine exists (not started yet, or its start failed)
     * @return the response
     */
    static HealthCheckResponse respond(DurableBean durable, Function<EngineHealth, EngineHealth.Check> check,
                                       EngineHealth.Check none) {
        Engine e = durable.builtEngine();
        EngineHealth.Check c = e == null ? none : check.apply(e.health());
        HealthCheckResponseBuilder b = HealthCheckResponse.named(c.name()).status(c.up());
        c.data().forEach(b::withData);
        return b.build();
    }
}
