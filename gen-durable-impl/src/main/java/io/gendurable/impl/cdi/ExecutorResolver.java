package io.gendurable.impl.cdi;

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
 * {@code gendurable.executor} when set (they must resolve), else the container's default
 * managed executors, else plain pools of daemon threads named {@code gendurable-*} that this
 * layer creates and later shuts down.
 */
public final class ExecutorResolver {
    /** The Jakarta Concurrency default managed scheduled executor. */
    public static final String DEFAULT_SCHEDULED = ConfigKeys.SCHEDULED_EXECUTOR.defaultValue();
    /** The Jakarta Concurrency default managed executor. */
    public static final String DEFAULT_EXECUTOR = ConfigKeys.EXECUTOR.defaultValue();

    private final ConfigReader reader;
    private final EngineConfig config;
    private final JndiLookup jndi;

    /**
     * @param reader the {@code gendurable.*} keys
     * @param config the validated engine configuration (sizes the timer pool)
     * @param jndi   JNDI, or a stand-in
     */
    public ExecutorResolver(ConfigReader reader, EngineConfig config, JndiLookup jndi) {
        this.reader = reader;
        this.config = config;
        this.jndi = jndi;
    }

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
            ScheduledExecutorService own = Executors.newScheduledThreadPool(timerThreads(config), daemon("gendurable-timer-"));
            owned.add(own);
            return own;
        });
        ExecutorService s = steps.orElseGet(() -> {
            // unbounded: the schedulers' slots bound how many steps run at once
            ExecutorService own = Executors.newCachedThreadPool(daemon("gendurable-step-"));
            owned.add(own);
            return own;
        });
        String origin = "timer=" + (timer.isPresent() ? "managed (" + reader.get(ConfigKeys.SCHEDULED_EXECUTOR) + ")"
                : "own pool of " + timerThreads(config) + " threads") + " steps="
                + (steps.isPresent() ? "managed (" + reader.get(ConfigKeys.EXECUTOR) + ")" : "own cached pool")
                + " probe=" + (threads.isPresent() ? "managed (" + reader.get(ConfigKeys.THREAD_FACTORY) + ")" : "own thread");
        return new EngineExecutors(t, s, threads.orElseGet(() -> daemon("gendurable-health-probe-")), origin, owned);
    }

    private <T> Optional<T> find(ConfigKey<String> key, Class<T> type) {
        List<String> tried = new ArrayList<>();
        Optional<String> configured = reader.value(key);
        if (configured.isPresent()) {
            return Optional.of(jndi.find(configured.get(), type, tried).orElseThrow(() -> new ConfigException(
                    key.key(), configured.get(), "the JNDI name of a " + type.getName() + " (" + tried.get(0) + ")")));
        }
        return jndi.find(key.defaultValue(), type, tried);
    }

    /**
     * Timer threads: each queue's fill loop and heartbeat, each flusher, the reaper and GC may
     * each be in a database call at once.
     *
     * @param config the engine configuration
     * @return the timer pool's size
     */
    static int timerThreads(EngineConfig config) {
        return Math.max(2, 2 * config.node().queues().size() + DataSourceResolver.flushConnections(config) + 2);
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
