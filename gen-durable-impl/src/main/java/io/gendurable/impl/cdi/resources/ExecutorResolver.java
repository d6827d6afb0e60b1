package io.gendurable.impl.cdi.resources;

import io.gendurable.impl.config.ConfigException;
import io.gendurable.impl.config.ConfigKey;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.config.ConfigReader;
import io.gendurable.impl.config.EngineConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Finds the engine's executors: the JNDI names in {@code gendurable.scheduled-executor} and
 * {@code gendurable.executor} when set (they must resolve); else pools of the engine's own,
 * named {@code gendurable-*}, that this layer creates and later shuts down, whose threads come
 * from the container's managed thread factory ({@code gendurable.thread-factory}: they carry the
 * application's context) or are plain daemon threads outside a container. Own pools keep the
 * claims, flushes and steps off the pool a server shares with its HTTP requests (Open Liberty's
 * default executor starts with two threads a core), so requests parked in application code
 * cannot starve the engine, nor the engine's blocking steps the requests.
 *
 * @param reader the {@code gendurable.*} keys
 * @param config the validated engine configuration (sizes the timer pool)
 * @param jndi   JNDI, or a stand-in
 */
public record ExecutorResolver(ConfigReader reader, EngineConfig config, JndiLookup jndi) {
    /**
     * Does only lookups before it creates anything, so a bad configured name fails with no
     * thread started.
     *
     * @return the executors
     * @throws ConfigException when a configured JNDI name does not resolve to an executor
     */
    public EngineExecutors resolve() {
        Optional<ScheduledExecutorService> timer = find(ConfigKeys.SCHEDULED_EXECUTOR,
                ScheduledExecutorService.class);
        Optional<ExecutorService> steps = find(ConfigKeys.EXECUTOR, ExecutorService.class);
        Optional<ThreadFactory> threads = find(ConfigKeys.THREAD_FACTORY, ThreadFactory.class);
        List<ExecutorService> owned = new ArrayList<>();
        ScheduledExecutorService t = timer.orElseGet(() -> {
            ScheduledExecutorService own = Executors.newScheduledThreadPool(timerThreads(config),
                    named("gendurable-timer-", threads));
            owned.add(own);
            return own;
        });
        ExecutorService s = steps.orElseGet(() -> {
            // unbounded: the schedulers' slots bound how many steps run at once
            ExecutorService own = Executors.newCachedThreadPool(named("gendurable-step-", threads));
            owned.add(own);
            return own;
        });
        String from = threads.isPresent() ? " of managed threads (" + reader.get(ConfigKeys.THREAD_FACTORY) + ")" : "";
        String origin = "timer=" + (timer.isPresent() ? "managed (" + reader.get(ConfigKeys.SCHEDULED_EXECUTOR) + ")"
                : "own pool of " + timerThreads(config) + " threads" + from) + " steps="
                + (steps.isPresent() ? "managed (" + reader.get(ConfigKeys.EXECUTOR) + ")" : "own cached pool" + from)
                + " probe=" + (threads.isPresent() ? "managed (" + reader.get(ConfigKeys.THREAD_FACTORY) + ")" : "own thread");
        return new EngineExecutors(t, s, threads.orElseGet(() -> named("gendurable-health-probe-", Optional.empty())),
                origin, owned);
    }

    private <T> Optional<T> find(ConfigKey<String> key, Class<T> type) {
        List<String> tried = new ArrayList<>();
        Optional<String> configured = reader.value(key);
        if (configured.isPresent()) {
            return Optional.of(jndi.find(configured.get(), type, tried).orElseThrow(() -> new ConfigException(
                    key.key(), configured.get(), "the JNDI name of a " + type.getName() + " (" + tried.get(0) + ")")));
        }
        return key.defaultValue() == null ? Optional.empty() : jndi.find(key.defaultValue(), type, tried);
    }

    /**
     * Timer threads: each queue's claim loop and heartbeat, each flusher, the reaper and GC may
     * each be in a database call at once.
     *
     * @param config the engine configuration
     * @return the timer pool's size
     */
    static int timerThreads(EngineConfig config) {
        return Math.max(2, 2 * config.node().queues().size() + DataSourceResolver.flushConnections(config) + 2);
    }

    /**
     * Threads named {@code prefix + n}: the container's managed threads (which carry the
     * application's context), else daemon threads.
     */
    private static ThreadFactory named(String prefix, Optional<ThreadFactory> managed) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t;
            if (managed.isPresent()) {
                t = managed.get().newThread(r);
            } else {
                t = new Thread(r);
                t.setDaemon(true);
            }
            t.setName(prefix + n.incrementAndGet());
            return t;
        };
    }
}
