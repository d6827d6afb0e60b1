package io.gendurable.impl.cdi.metrics;

import io.gendurable.impl.runtime.QueueActivity;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.gauges.QueueGauges;
import io.gendurable.impl.runtime.EngineMetrics;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Histogram;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine's telemetry as MicroProfile Metrics (see docs/metrics.md): a timer per
 * (fsm, step, outcome), claim counters per queue, flush batch and duration, a gauge per engine
 * counter, the in-flight and buffer gauges of each queue this node runs, and the cluster-wide
 * queue gauges (rows by status, oldest due row) of every queue, each tagged with its engine. Loaded
 * only where the MicroProfile Metrics API exists ({@link ContainerEvents}).
 */
public final class MetricsEvents implements MetricsBackend {
    private final MetricRegistry registry;
    /** The engine's tag, on every metric. */
    private final Tag engine;
    private final Set<String> queueGauges = ConcurrentHashMap.newKeySet();
    private final Map<StepKey, Timer> stepTimers = new ConcurrentHashMap<>();
    private final Map<String, Counter[]> claimCounters = new ConcurrentHashMap<>();
    private volatile Histogram flushSizes;
    private volatile Timer flushDurations;

    MetricsEvents(MetricRegistry registry, String engine) {
        this.registry = registry;
        this.engine = new Tag(ENGINE_TAG, engine);
    }

    /** @param engine the engine's name, its metrics' {@code engine} tag @return metrics on the application's registry, or null when none is resolvable */
    static MetricsEvents fromContainer(String engine) {
        MetricRegistry registry = ContainerLookup.read(MetricRegistryLookup.class, MetricRegistryLookup::registry);
        return registry == null ? null : new MetricsEvents(registry, engine);
    }

    @Override
    public String describe() {
        return "MicroProfile Metrics";
    }

    @Override
    public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos, String error,
                             boolean stale) {
        if (registry != null) {
            String kind = stale ? "stale" : outcome;
            // Looked up once per (fsm, step, outcome): building the metadata and the metric id and
            // resolving them in the registry on every step cost more than the step of a no-op job.
            stepTimers.computeIfAbsent(new StepKey(fsm, step, kind), k -> registry.timer(
                    Metadata.builder().withName("gendurable.step.duration")
                            .withDescription("Time in step code, by FSM, step and outcome").build(),
                    engine, new Tag("fsm", k.fsm()), new Tag("step", k.step()), new Tag("outcome", k.outcome())))
                    .update(Duration.ofNanos(nanos));
        }
    }

    @Override
    public void stepTimedOut(long id, String fsm, String step, String queue) {
        if (registry != null) {
            registry.counter(Metadata.builder().withName("gendurable.step.timeouts")
                    .withDescription("Steps that ran past their timeout, by FSM and step").build(),
                    engine, new Tag("fsm", fsm), new Tag("step", step)).inc();
        }
    }

    @Override
    public void picked(String queue, int count) {
        if (registry != null) {
            Counter[] c = claimCounters.computeIfAbsent(queue, q -> new Counter[]{
                registry.counter(Metadata.builder().withName("gendurable.pick.count")
                        .withDescription("Claims run, by queue").build(), engine, new Tag("queue", q)),
                registry.counter(Metadata.builder().withName("gendurable.picked.rows")
                        .withDescription("Rows claimed and admitted, by queue").build(), engine, new Tag("queue", q))});
            c[0].inc();
            c[1].inc(count);
        }
    }

    @Override
    public void flushed(int outcomes, long nanos) {
        if (registry != null) {
            Histogram sizes = flushSizes;
            Timer durations = flushDurations;
            if (sizes == null || durations == null) {
                sizes = registry.histogram(Metadata.builder().withName("gendurable.flush.batch.size")
                        .withDescription("Outcomes per group-commit flush").build(), engine);
                durations = registry.timer(Metadata.builder().withName("gendurable.flush.duration")
                        .withDescription("Group-commit flush transactions").build(), engine);
                flushSizes = sizes;
                flushDurations = durations;
            }
            sizes.update(outcomes);
            durations.update(Duration.ofNanos(nanos));
        }
    }

    /** The tags of one step timer. */
    private record StepKey(String fsm, String step, String outcome) {
    }

    /** Registers the gauges over the engine's counters and schedulers. */
    @Override
    public void registerGauges(Engine engine) {
        if (registry == null) {
            return;
        }
        EngineMetrics m = engine.metrics();
        TOTALS.forEach((name, adder) -> registry.gauge(Metadata.builder().withName(name)
                .withDescription("Running total since start (see docs/metrics.md)").build(), m, x -> adder.apply(x).sum(),
                this.engine));
        for (QueueActivity s : engine.queueActivity()) {
            Tag queue = new Tag("queue", s.queue());
            registry.gauge(Metadata.builder().withName("gendurable.scheduler.in_flight")
                    .withDescription("Steps running now or waiting for their flush").build(), s, QueueActivity::inFlight,
                    this.engine, queue);
            registry.gauge(Metadata.builder().withName("gendurable.scheduler.buffer")
                    .withDescription("Claimed rows waiting for a slot").build(), s, QueueActivity::buffered, this.engine, queue);
            registry.gauge(Metadata.builder().withName("gendurable.scheduler.prefetch")
                    .withDescription("Rows claimed beyond the free slots now (auto prefetch adapts)").build(), s,
                    QueueActivity::prefetch, this.engine, queue);
            EngineMetrics.QueueCounts counts = m.queue(s.queue());
            QUEUE_TOTALS.forEach((name, adder) -> registry.gauge(Metadata.builder().withName(name)
                    .withDescription("Running total since start, by queue (see docs/metrics.md)").build(), counts,
                    x -> adder.apply(x).sum(), this.engine, queue));
        }
        MetricsBackend.forEachGaugedQueue(engine, queueGauges, (gauges, q) -> registerQueue(engine, gauges, q));
    }

    /** The cluster-wide gauges of one queue, read from the figures of the gauges' last query. */
    private void registerQueue(Engine engine, QueueGauges gauges, String queue) {
        Tag q = new Tag("queue", queue);
        for (String status : QueueGauges.STATUSES) {
            registry.gauge(Metadata.builder().withName("gendurable.queue.instances")
                            .withDescription("Live rows of the queue by status, cluster-wide, as of the last gauges query").build(),
                    gauges, g -> g.figures(queue).count(status), this.engine, q, new Tag("status", status));
        }
        registry.gauge(Metadata.builder().withName("gendurable.queue.oldest_runnable_age").withUnit(MetricUnits.SECONDS)
                        .withDescription("How long the queue's oldest due runnable row had been due, as of the last gauges query").build(),
                gauges, g -> g.figures(queue).oldestDueAge(), this.engine, q);
        registry.gauge(Metadata.builder().withName("gendurable.queue.paused")
                        .withDescription("1 while the queue is paused cluster-wide (DurableOperations.pauseQueue), as this node last read it").build(),
                engine, e -> e.pausedQueues().contains(queue) ? 1 : 0, this.engine, q);
    }
}
