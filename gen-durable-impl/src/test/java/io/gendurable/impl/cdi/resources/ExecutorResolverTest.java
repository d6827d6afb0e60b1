package io.gendurable.impl.cdi.resources;

import io.gendurable.impl.config.ConfigException;
import io.gendurable.impl.config.ConfigReader;
import io.gendurable.impl.config.EngineConfig;
import org.junit.jupiter.api.Test;

import javax.naming.NameNotFoundException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExecutorResolverTest {

    private static ExecutorResolver resolver(Map<String, String> keys, Map<String, Object> jndi) {
        return new ExecutorResolver(ConfigReader.of(keys), EngineConfig.defaults(), name -> {
            Object o = jndi.get(name);
            if (o == null) {
                throw new NameNotFoundException(name);
            }
            return o;
        });
    }

    @Test
    void named_managed_executors_are_used_and_never_shut_down() {
        ScheduledExecutorService managedTimer = Executors.newSingleThreadScheduledExecutor();
        ExecutorService managedSteps = Executors.newSingleThreadExecutor();
        try {
            EngineExecutors ex = resolver(Map.of("gendurable.scheduled-executor", "concurrent/timer",
                    "gendurable.executor", "concurrent/steps"),
                    Map.of("concurrent/timer", managedTimer, "concurrent/steps", managedSteps)).resolve();

            assertThat(ex.timer()).isSameAs(managedTimer);
            assertThat(ex.steps()).isSameAs(managedSteps);
            assertThat(ex.owned()).isEmpty();
            ex.close();
            assertThat(managedTimer.isShutdown()).isFalse();
            assertThat(managedSteps.isShutdown()).isFalse();
        } finally {
            managedTimer.shutdownNow();
            managedSteps.shutdownNow();
        }
    }

    /**
     * A server's default managed executors share its one thread pool with the HTTP requests (Open
     * Liberty's starts at two threads a core): unless named, the engine does not use them, and
     * runs its own pools on the server's managed threads, which the engine shuts down.
     */
    @Test
    void by_default_the_engine_runs_pools_of_its_own_on_the_containers_managed_threads() throws Exception {
        ScheduledExecutorService defaultTimer = Executors.newSingleThreadScheduledExecutor();
        ExecutorService defaultSteps = Executors.newSingleThreadExecutor();
        java.util.Set<Thread> made = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.ThreadFactory managed = r -> {
            Thread t = new Thread(r, "managed");
            made.add(t);
            return t;
        };
        try {
            EngineExecutors ex = resolver(Map.of(), Map.of("java:comp/DefaultManagedScheduledExecutorService", defaultTimer,
                    "java:comp/DefaultManagedExecutorService", defaultSteps,
                    "java:comp/DefaultManagedThreadFactory", managed)).resolve();

            assertThat(ex.owned()).containsExactlyInAnyOrder(ex.timer(), ex.steps());
            Thread step = CompletableFuture.supplyAsync(Thread::currentThread, ex.steps()).get(5, TimeUnit.SECONDS);
            Thread timer = ex.timer().schedule(Thread::currentThread, 1, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS);
            assertThat(made).contains(step, timer);
            assertThat(step.getName()).startsWith("gendurable-step-");
            assertThat(timer.getName()).startsWith("gendurable-timer-");
            assertThat(ex.origin()).contains("steps=own cached pool of managed threads (java:comp/DefaultManagedThreadFactory)");
            ex.close();
            assertThat(ex.steps().isTerminated() && ex.timer().isTerminated()).isTrue();
            assertThat(defaultTimer.isShutdown() || defaultSteps.isShutdown()).isFalse();
        } finally {
            defaultTimer.shutdownNow();
            defaultSteps.shutdownNow();
        }
    }

    @Test
    void without_managed_executors_the_layer_creates_daemon_gendurable_threads_and_shuts_them_down()
            throws Exception {
        EngineExecutors ex = resolver(Map.of(), Map.of()).resolve();

        assertThat(ex.owned()).containsExactlyInAnyOrder(ex.timer(), ex.steps());
        Thread step = CompletableFuture.supplyAsync(Thread::currentThread, ex.steps()).get(5, TimeUnit.SECONDS);
        Thread timer = ex.timer().schedule(Thread::currentThread, 1, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS);
        assertThat(step.getName()).startsWith("gendurable-step-");
        assertThat(timer.getName()).startsWith("gendurable-timer-");
        assertThat(step.isDaemon() && timer.isDaemon()).isTrue();

        ex.close();
        assertThat(ex.timer().isTerminated()).isTrue();
        assertThat(ex.steps().isTerminated()).isTrue();
    }

    @Test
    void a_configured_executor_name_that_does_not_resolve_fails_naming_the_key() {
        assertThatThrownBy(() -> resolver(Map.of("gendurable.executor", "concurrent/missing"), Map.of()).resolve())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("gendurable.executor=concurrent/missing");
        assertThatThrownBy(() -> resolver(Map.of("gendurable.thread-factory", "concurrent/noFactory"), Map.of()).resolve())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("gendurable.thread-factory=concurrent/noFactory");
    }

    @Test
    void the_readiness_probe_gets_the_managed_thread_factory_or_daemon_threads() {
        java.util.concurrent.ThreadFactory managed = Thread::new;
        EngineExecutors found = resolver(Map.of(), Map.of("java:comp/DefaultManagedThreadFactory", managed)).resolve();
        assertThat(found.probeThreads()).isSameAs(managed);
        found.close();
        EngineExecutors own = resolver(Map.of(), Map.of()).resolve();
        assertThat(own.probeThreads().newThread(() -> { }).isDaemon()).isTrue();
        own.close();
    }

    @Test
    void a_configured_scheduled_executor_name_is_looked_up_instead_of_the_default() {
        ScheduledExecutorService named = Executors.newSingleThreadScheduledExecutor();
        try {
            EngineExecutors ex = resolver(Map.of("gendurable.scheduled-executor", "concurrent/timer"),
                    Map.of("concurrent/timer", named)).resolve();

            assertThat(ex.timer()).isSameAs(named);
            assertThat(ex.owned()).containsExactly(ex.steps());
            ex.close();
        } finally {
            named.shutdownNow();
        }
    }
}
