package io.gendurable.bench;

import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.runtime.EngineEvents;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/** One engine with its own executors, on a shared pool. */
final class Node implements AutoCloseable {
    /** The session DataSource of every node ({@code --session-db}), or null: the node's own pool serves. */
    static volatile DataSource session;
    final Engine engine;
    private final ScheduledExecutorService timer;
    private final ExecutorService steps;

    Node(String name, DataSource ds, EngineConfig config, int timerThreads, EngineEvents events, Fsm<?>... fsms) {
        FsmRegistry registry = new FsmRegistry();
        for (Fsm<?> f : fsms) {
            registry.register(FsmDefinition.of(f));
        }
        this.timer = Executors.newScheduledThreadPool(timerThreads, threads(name + "-timer"));
        this.steps = Executors.newCachedThreadPool(threads(name + "-step"));
        this.engine = Engine.builder().dataSource(ds).sessionDataSource(session).config(config).registry(registry).timer(timer).steps(steps)
                .events(events == null ? EngineEvents.NONE : events).build();
    }

    /** @return a started node with no queues and 2 timer threads, for loading rows */
    static Node loader(DataSource ds, EngineConfig config, Fsm<?>... fsms) {
        return new Node("loader", ds, config, 2, null, fsms).start();
    }

    Node start() {
        engine.start();
        return this;
    }

    /** Inserts {@code row(0…rows-1)} with {@code insertAll} in batches of {@code batch}, from {@code threads} threads. */
    void insertAll(int rows, int threads, int batch, IntFunction<NewInstance> row) throws Exception {
        Parallel.run(threads, t -> {
            for (int from = t * batch; from < rows; from += threads * batch) {
                List<NewInstance> list = new ArrayList<>(batch);
                for (int i = from; i < Math.min(rows, from + batch); i++) {
                    list.add(row.apply(i));
                }
                engine.insertAll(list);
            }
        });
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    public void close() {
        try {
            engine.stop();
        } finally {
            timer.shutdownNow();
            steps.shutdownNow();
            try {
                timer.awaitTermination(5, TimeUnit.SECONDS);
                steps.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
