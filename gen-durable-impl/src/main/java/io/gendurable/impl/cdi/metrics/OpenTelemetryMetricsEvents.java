package io.gendurable.impl.cdi.metrics;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.gauges.QueueGauges;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.QueueActivity;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The engine's telemetry as OpenTelemetry metrics, through the {@link OpenTelemetry} that
 * MicroProfile Telemetry 2.x gives the application (Open Liberty's {@code mpTelemetry-2.0},
 * WildFly's {@code microprofile-telemetry}), with the names and tags of {@link MetricsEvents}
 * (docs/metrics.md maps them): the timers become histograms in seconds, the counters counters,
 * the flush batch size a histogram, and the running totals and queue gauges observable gauges, read
 * when the SDK collects. Loaded only where the OpenTelemetry API exists ({@link ContainerEvents});
 * the only class that touches its metrics API.
 *
 * <p>The observable gauges are closed when the engine stops (their callbacks would otherwise read a
 * stopped engine); the synchronous instruments cannot be removed and end with the application's SDK.
 */
public final class OpenTelemetryMetricsEvents implements MetricsBackend {
    /** The instrumentation scope of the engine's instruments. */
    static final String SCOPE = "io.gendurable";
    /** Bucket boundaries in seconds for the step and flush durations (the SDK's default ones are for milliseconds). */
    public static final List<Double> SECONDS_BUCKETS = List.of(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
            2.5, 5.0, 10.0, 30.0, 60.0, 300.0);
    private static final AttributeKey<String> FSM = AttributeKey.stringKey("fsm");
    private static final AttributeKey<String> STEP = AttributeKey.stringKey("step");
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");
    private static final AttributeKey<String> QUEUE = AttributeKey.stringKey("queue");
    private static final AttributeKey<String> STATUS = AttributeKey.stringKey("status");
    private static final AttributeKey<String> ENGINE = AttributeKey.stringKey(ENGINE_TAG);
    private static final double NANOS_PER_SECOND = 1e9;

    private final Meter meter;
    /** The engine's attribute alone, on the metrics without other attributes; every other set carries it too. */
    private final Attributes engine;
    private final DoubleHistogram stepDurations;
    private final LongCounter claims;
    private final LongCounter stepTimeouts;
    private final LongCounter claimedRows;
    private final LongHistogram flushSizes;
    private final DoubleHistogram flushDurations;
    /** Attributes built once per (fsm, step, outcome) and per queue: not on every step. */
    private final Map<StepKey, Attributes> stepAttributes = new ConcurrentHashMap<>();
    private final Map<String, Attributes> queueAttributes = new ConcurrentHashMap<>();
    /** The callbacks' sources: this node's queue schedulers, and the queues of the cluster-wide gauges. */
    private final List<QueueActivity> activities = new CopyOnWriteArrayList<>();
    private final Set<String> clusterQueues = ConcurrentHashMap.newKeySet();
    private final List<AutoCloseable> observers = new CopyOnWriteArrayList<>();

    OpenTelemetryMetricsEvents(OpenTelemetry telemetry, String engine) {
        this.engine = Attributes.of(ENGINE, engine);
        this.meter = telemetry.getMeter(SCOPE);
        this.stepDurations = meter.histogramBuilder("gendurable.step.duration").setUnit("s")
                .setDescription("Time in step code, by FSM, step and outcome")
                .setExplicitBucketBoundariesAdvice(SECONDS_BUCKETS).build();
        this.claims = meter.counterBuilder("gendurable.pick.count").setDescription("Claims run, by queue").build();
        this.stepTimeouts = meter.counterBuilder("gendurable.step.timeouts")
                .setDescription("Steps that ran past their timeout, by FSM and step").build();
        this.claimedRows = meter.counterBuilder("gendurable.picked.rows")
                .setDescription("Rows claimed and admitted, by queue").build();
        this.flushSizes = meter.histogramBuilder("gendurable.flush.batch.size")
                .setDescription("Outcomes per group-commit flush").ofLongs().build();
        this.flushDurations = meter.histogramBuilder("gendurable.flush.duration").setUnit("s")
                .setDescription("Group-commit flush transactions").setExplicitBucketBoundariesAdvice(SECONDS_BUCKETS).build();
    }

    /** @param engine the engine's name, its metrics' {@code engine} attribute @return instruments on the application's OpenTelemetry, or null when none is resolvable */
    static OpenTelemetryMetricsEvents fromContainer(String engine) {
        OpenTelemetry telemetry = OpenTelemetryLookup.telemetry();
        return telemetry == null ? null : new OpenTelemetryMetricsEvents(telemetry, engine);
    }

    @Override
    public String describe() {
        return "OpenTelemetry";
    }

    @Override
    public void stepFinished(long id, String fsm, String step, String queue, String outcome, long nanos, String error,
                             boolean stale) {
        String kind = stale ? "stale" : outcome;
        Attributes a = stepAttributes.computeIfAbsent(new StepKey(fsm, step, kind),
                k -> engine.toBuilder().put(FSM, k.fsm()).put(STEP, k.step()).put(OUTCOME, k.outcome()).build());
        stepDurations.record(nanos / NANOS_PER_SECOND, a);
    }

    @Override
    public void stepTimedOut(long id, String fsm, String step, String queue) {
        stepTimeouts.add(1, engine.toBuilder().put(FSM, fsm).put(STEP, step).build());
    }

    @Override
    public void picked(String queue, int count) {
        Attributes a = queue(queue);
        claims.add(1, a);
        claimedRows.add(count, a);
    }

    @Override
    public void flushed(int outcomes, long nanos) {
        flushSizes.record(outcomes, engine);
        flushDurations.record(nanos / NANOS_PER_SECOND, engine);
    }

    private Attributes queue(String queue) {
        return queueAttributes.computeIfAbsent(queue, q -> engine.toBuilder().put(QUEUE, q).build());
    }

    @Override
    public void registerGauges(Engine engine) {
        EngineMetrics m = engine.metrics();
        TOTALS.forEach((name, adder) -> gauge(name, "Running total since start (see docs/metrics.md)",
                o -> o.record(adder.apply(m).sum(), this.engine)));
        activities.addAll(engine.queueActivity());
        QUEUE_TOTALS.forEach((name, adder) -> gauge(name, "Running total since start, by queue (see docs/metrics.md)",
                o -> activities.forEach(s -> o.record(adder.apply(m.queue(s.queue())).sum(), queue(s.queue())))));
        gauge("gendurable.scheduler.in_flight", "Steps running now or waiting for their flush",
                o -> activities.forEach(s -> o.record(s.inFlight(), queue(s.queue()))));
        gauge("gendurable.scheduler.buffer", "Claimed rows waiting for a slot",
                o -> activities.forEach(s -> o.record(s.buffered(), queue(s.queue()))));
        gauge("gendurable.scheduler.prefetch", "Rows claimed beyond the free slots now (auto prefetch adapts)",
                o -> activities.forEach(s -> o.record(s.prefetch(), queue(s.queue()))));
        if (engine.config().gauges().enabled()) {
            QueueGauges gauges = engine.gauges();
            gauge("gendurable.queue.instances",
                    "Live rows of the queue by status, cluster-wide, as of the last gauges query",
                    o -> clusterQueues.forEach(q -> {
                        for (String status : QueueGauges.STATUSES) {
                            o.record(gauges.figures(q).count(status), queue(q).toBuilder().put(STATUS, status).build());
                        }
                    }));
            observers.add(meter.gaugeBuilder("gendurable.queue.oldest_runnable_age").setUnit("s")
                    .setDescription("How long the queue's oldest due runnable row had been due, as of the last gauges query")
                    .buildWithCallback(o -> clusterQueues.forEach(q -> o.record(gauges.figures(q).oldestDueAge(), queue(q)))));
            gauge("gendurable.queue.paused",
                    "1 while the queue is paused cluster-wide (DurableOperations.pauseQueue), as this node last read it",
                    o -> clusterQueues.forEach(q -> o.record(engine.pausedQueues().contains(q) ? 1 : 0, queue(q))));
            gauges.onNewQueues(clusterQueues::addAll);
            clusterQueues.addAll(gauges.figures().keySet());
        }
    }

    private void gauge(String name, String description, Consumer<ObservableLongMeasurement> callback) {
        observers.add(meter.gaugeBuilder(name).setDescription(description).ofLongs().buildWithCallback(callback));
    }

    @Override
    public void close() {
        for (AutoCloseable o : observers) {
            try {
                o.close();
            } catch (Exception e) {
                // an observable instrument's close only unregisters its callback; nothing else to do
            }
        }
        observers.clear();
        activities.clear();
        clusterQueues.clear();
    }

    /** The attributes of one step histogram series. */
    private record StepKey(String fsm, String step, String outcome) {
    }
}
