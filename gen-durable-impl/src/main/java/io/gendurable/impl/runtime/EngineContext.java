package io.gendurable.impl.runtime;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.trace.Tracing;

import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What every engine service shares, handed to each as one object: the validated configuration,
 * the FSMs, the database and its statements, the clock, the counters, the observers, JSON-B and the two
 * executors. One per engine, built by its composition root ({@code impl.engine.Engine}); a
 * service takes the context plus its own few collaborators.
 *
 * @param config     the validated configuration
 * @param registry   the FSMs
 * @param db         the engine's transactions
 * @param statements the statements, built once per schema
 * @param clock      the clock (a {@code TestClock} in tests)
 * @param metrics    the counters
 * @param events     observers of steps, claims and flushes
 * @param json       JSON-B for states, payloads and results
 * @param timer      runs claims, flushes, heartbeats and sweeps; {@code null} for the synchronous drain runner
 * @param steps      runs steps; {@code null} for the synchronous drain runner
 * @param tracing    step spans and the stored trace context ({@link Tracing#NONE} when telemetry is off)
 * @param bus        the engine's events with their data, for their listeners (check {@link EngineEventBus#on} first)
 */
public record EngineContext(EngineConfig config, FsmRegistry registry, Db db, Statements statements, InstantSource clock,
                            EngineMetrics metrics, EngineEvents events, Json json,
                            ScheduledExecutorService timer, ExecutorService steps, Tracing tracing, EngineEventBus bus) {
    /** Checks the required parts. */
    public EngineContext {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(db, "db");
        Objects.requireNonNull(statements, "statements");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(events, "events");
        Objects.requireNonNull(json, "json");
        Objects.requireNonNull(tracing, "tracing");
        Objects.requireNonNull(bus, "bus");
    }

    /** A context whose event bus has no listener; the parameters as the canonical constructor's. */
    public EngineContext(EngineConfig config, FsmRegistry registry, Db db, Statements statements, InstantSource clock,
                         EngineMetrics metrics, EngineEvents events, Json json,
                         ScheduledExecutorService timer, ExecutorService steps, Tracing tracing) {
        this(config, registry, db, statements, clock, metrics, events, json, timer, steps, tracing,
                new EngineEventBus(metrics, null));
    }

    /** A context without tracing ({@link Tracing#NONE}); the parameters as the canonical constructor's. */
    public EngineContext(EngineConfig config, FsmRegistry registry, Db db, Statements statements, InstantSource clock,
                         EngineMetrics metrics, EngineEvents events, Json json,
                         ScheduledExecutorService timer, ExecutorService steps) {
        this(config, registry, db, statements, clock, metrics, events, json, timer, steps, Tracing.NONE);
    }

    /** @return the timer, which a synchronous (drain-runner) context does not have */
    public ScheduledExecutorService requireTimer() {
        return Objects.requireNonNull(timer, "this context runs synchronously and has no timer");
    }

    /** @return the step executor, which a synchronous (drain-runner) context does not have */
    public ExecutorService requireSteps() {
        return Objects.requireNonNull(steps, "this context runs synchronously and has no step executor");
    }

    /**
     * @param observers the events of a synchronous run
     * @return this context without executors (everything runs in the caller's thread), observed by {@code observers}
     */
    public EngineContext synchronous(EngineEvents observers) {
        return new EngineContext(config, registry, db, statements, clock, metrics, observers, json, null, null, tracing, bus);
    }
}
