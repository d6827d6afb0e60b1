package io.gendurable.impl.cdi.health;

import io.gendurable.DurableEngine;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.health.EngineHealth;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The engines' health as MicroProfile Health responses: the default engine's through
 * {@link ReadinessCheck} and {@link LivenessCheck}, each named engine's through two synthetic
 * beans ({@link #addNamedEngineChecks}). Loaded only where the MicroProfile Health API exists:
 * {@link io.gendurable.impl.cdi.GenDurableExtension} adds those beans then, and only then.
 */
public final class HealthChecks {
    /** The readiness check's name (a named engine's: {@code gendurable:<engine>}). */
    static final String READINESS = "gendurable";
    /** The liveness check's name (a named engine's: {@code gendurable-loops:<engine>}). */
    static final String LIVENESS = "gendurable-loops";

    private HealthChecks() {
    }

    /**
     * @param check  a check's name
     * @param engine the engine it checks
     * @return the name an operator reads: the plain one for the default engine, else suffixed
     * {@code :<engine>} (engine names hold no {@code :}, so no engine's name is another's)
     */
    static String name(String check, String engine) {
        return DurableEngine.DEFAULT.equals(engine) ? check : check + ":" + engine;
    }

    /** @return the default engine's readiness */
    static HealthCheckResponse readiness(CheckedEngine durable) {
        return respond(durable, DurableEngine.DEFAULT, EngineHealth::readiness,
                new EngineHealth.Check(READINESS, false, Map.of("engine", "not started")));
    }

    /** @return the default engine's liveness */
    static HealthCheckResponse liveness(CheckedEngine durable) {
        return respond(durable, DurableEngine.DEFAULT, EngineHealth::liveness,
                new EngineHealth.Check(LIVENESS, true, Map.of("engine", "not started: loops not watched")));
    }

    /**
     * @param durable the engine's bean, or null when it was never created (its start has not run)
     * @param engine  the engine's name
     * @param check   readiness or liveness of a started engine
     * @param none    the check's answer while no engine exists (not started yet, or its start failed)
     * @return the response, named for the engine
     */
    static HealthCheckResponse respond(CheckedEngine durable, String engine, Function<EngineHealth, EngineHealth.Check> check,
                                       EngineHealth.Check none) {
        Engine e = durable == null ? null : durable.builtEngine();
        EngineHealth.Check c = e == null ? none : check.apply(e.health());
        HealthCheckResponseBuilder b = HealthCheckResponse.named(name(c.name(), engine)).status(c.up());
        c.data().forEach(b::withData);
        return b.build();
    }

    /**
     * Adds a readiness and a liveness check for a named engine: the checks the default engine has,
     * named {@code gendurable:<engine>} and {@code gendurable-loops:<engine>}.
     *
     * @param event   the container's bean registration
     * @param engine  the named engine
     * @param durable its bean once created (null before)
     */
    public static void addNamedEngineChecks(AfterBeanDiscovery event, String engine, Supplier<CheckedEngine> durable) {
        event.addBean().beanClass(HealthChecks.class).types(HealthCheck.class, Object.class)
                .qualifiers(Readiness.Literal.INSTANCE, Any.Literal.INSTANCE).scope(Dependent.class)
                .id(HealthChecks.class.getName() + "#readiness#" + engine)
                .createWith(c -> (HealthCheck) () -> respond(durable.get(), engine, EngineHealth::readiness,
                        new EngineHealth.Check(READINESS, false, Map.of("engine", "not started"))));
        event.addBean().beanClass(HealthChecks.class).types(HealthCheck.class, Object.class)
                .qualifiers(Liveness.Literal.INSTANCE, Any.Literal.INSTANCE).scope(Dependent.class)
                .id(HealthChecks.class.getName() + "#liveness#" + engine)
                .createWith(c -> (HealthCheck) () -> respond(durable.get(), engine, EngineHealth::liveness,
                        new EngineHealth.Check(LIVENESS, true, Map.of("engine", "not started: loops not watched"))));
    }
}
