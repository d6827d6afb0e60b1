package io.gendurable.impl.engine;

import io.gendurable.events.EngineEventListener;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.CallerTransactions;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.trace.Tracing;

import javax.sql.DataSource;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;

/**
 * What an {@link Engine} is built from, as its {@link Engine.Builder} collected it (the optional
 * parts null).
 */
record EngineSetup(DataSource dataSource, DataSource sessionDataSource, EngineConfig config, FsmRegistry registry,
                   ScheduledExecutorService timer, ExecutorService steps, ThreadFactory probeThreads, InstantSource clock,
                   Json json, Poke poke, CallerTransactions callerTransactions, EngineEvents events,
                   Supplier<String> principal, Tracing tracing, List<Listening> listeners) {

    /** A listener given to the builder, with the bits of the event kinds it receives. */
    record Listening(EngineEventListener listener, long kinds) {
    }
}
