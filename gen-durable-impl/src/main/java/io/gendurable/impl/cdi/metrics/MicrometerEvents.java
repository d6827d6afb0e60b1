package io.gendurable.impl.cdi.metrics;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.gauges.QueueGauges;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.QueueActivity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The engine's telemetry as Micrometer meters, with the names and tags of {@link MetricsEvents}
 * (docs/metrics.md maps them): a timer per (fsm, step, outcome), claim counters per queue, the
 * flush batch summary and timer, a gauge per engine counter, the in-flight and buffer gauges of
 * each queue this node runs, and the cluster-wide queue gauges. Loaded only where Micrometer
 * exists ({@link ContainerEvents}); WildFly's Prometheus registry serves the meters at
 * {@code /prometheus} on its management port.
 *
 * <p>Meters are registered through the registry's own methods ({@code timer}, {@code counter},
 * {@code summary}, {@code gauge}, {@code more().timeGauge}), not through the meter builders:
 * WildFly 39's per-deployment {@code ApplicationRegistry} forwards only those methods to the
 * server's registry, and a builder's {@code register} left the meter in a private registry that
 * no endpoint serves. So the meters carry no description. They are cached here and removed from
 * the registry when the engine stops: a registry that outlives the application (WildFly's) would
 * otherwise keep gauges over a stopped engine, and hand them back to the next deployment.
 */
public final class MicrometerEvents implements MetricsBackend {
    private final MeterRegistry registry;
    /** The engine's tag, on every meter. */
    private final Tags engine;
    private final Map<String, Meter> meters = new ConcurrentHashMap<>();
    private final Set<String> queueGauges = ConcurrentHashMap.newKeySet();

    MicrometerEvents(MeterRegistry registry, String engine) {
        this.registry = registry;
        this.engine = Tags.of(ENGINE_TAG, engine);
    }

    /** @param engine the engine's name, its meters' {@code engine} tag @return meters on the application's registry, or null when none is resolvable */
    static MicrometerEvents fromContainer(String engine) {
        MeterRegistry registry = ContainerLookup.read(MeterRegistryLookup.class, MeterRegistryLookup::registry);
        return registry == null ? null : new MicrometerEvents(registry, engine);
    }

    @Override
    public String describe() {
        return "Micrometer (" + registry.getClass().getSimpleName() + ")";
    }

    @Override
    public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos, String error,
                             boolean stale) {
        String kind = stale ? "stale" : outcome;
        Timer t = (Timer) meters.computeIfAbsent("step\0" + fsm + "\0" + step + "\0" + kind,
                k -> registry.timer("gendurable.step.duration", engine.and("fsm", fsm, "step", step, "outcome", kind)));
        t.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void stepTimedOut(long id, String fsm, String step, String queue) {
        ((Counter) meters.computeIfAbsent("timeouts\0" + fsm + "\0" + step,
                k -> registry.counter("gendurable.step.timeouts", engine.and("fsm", fsm, "step", step)))).increment();
    }

    @Override
    public void picked(String queue, int count) {
        ((Counter) meters.computeIfAbsent("claims\0" + queue,
                k -> registry.counter("gendurable.pick.count", engine.and("queue", queue)))).increment();
        ((Counter) meters.computeIfAbsent("claimed\0" + queue,
                k -> registry.counter("gendurable.picked.rows", engine.and("queue", queue)))).increment(count);
    }

    @Override
    public void flushed(int outcomes, long nanos) {
        ((DistributionSummary) meters.computeIfAbsent("flush.batch",
                k -> registry.summary("gendurable.flush.batch.size", engine))).record(outcomes);
        ((Timer) meters.computeIfAbsent("flush.duration",
                k -> registry.timer("gendurable.flush.duration", engine))).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void registerGauges(Engine engine) {
        EngineMetrics m = engine.metrics();
        TOTALS.forEach((name, adder) -> gauge(name, m, x -> adder.apply(x).sum(), this.engine));
        for (QueueActivity s : engine.queueActivity()) {
            Tags queue = this.engine.and("queue", s.queue());
            gauge("gendurable.scheduler.in_flight", s, QueueActivity::inFlight, queue);
            gauge("gendurable.scheduler.buffer", s, QueueActivity::buffered, queue);
            gauge("gendurable.scheduler.prefetch", s, QueueActivity::prefetch, queue);
            EngineMetrics.QueueCounts counts = m.queue(s.queue());
            QUEUE_TOTALS.forEach((name, adder) -> gauge(name, counts, x -> adder.apply(x).sum(), queue));
        }
        MetricsBackend.forEachGaugedQueue(engine, queueGauges, (gauges, q) -> registerQueue(engine, gauges, q));
    }

    /** The cluster-wide gauges of one queue, read from the figures of the gauges' last query. */
    private void registerQueue(Engine engine, QueueGauges gauges, String queue) {
        for (String status : QueueGauges.STATUSES) {
            gauge("gendurable.queue.instances", gauges, g -> g.figures(queue).count(status),
                    this.engine.and("queue", queue, "status", status));
        }
        // a time gauge in seconds: Prometheus names it gendurable_queue_oldest_runnable_age_seconds, as MP Metrics does
        Tags q = this.engine.and("queue", queue);
        TimeGauge age = registry.more().timeGauge("gendurable.queue.oldest_runnable_age", q, gauges, TimeUnit.SECONDS,
                g -> g.figures(queue).oldestDueAge());
        meters.put("gauge\0gendurable.queue.oldest_runnable_age\0" + q, age);
        gauge("gendurable.queue.paused", engine, e -> e.pausedQueues().contains(queue) ? 1 : 0, q);
    }

    private <T> void gauge(String name, T source, ToDoubleFunction<T> value, Tags tags) {
        // the engine holds every source strongly (Micrometer's gauges reference theirs weakly); registry.gauge
        // returns the source, so the gauge itself is found afterwards, for close()
        registry.gauge(name, tags, source, value);
        Gauge g = registry.find(name).tags(tags).gauge();
        if (g != null) {
            meters.put("gauge\0" + name + "\0" + tags, g);
        }
    }

    @Override
    public void close() {
        meters.values().forEach(registry::remove);
        meters.clear();
        queueGauges.clear();
    }
}
