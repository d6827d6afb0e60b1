package io.gendurable.impl.cdi.metrics;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.gauges.QueueGauges;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Where the engine's metrics go in a container: MicroProfile Metrics ({@link MetricsEvents}),
 * Micrometer ({@link MicrometerEvents}) or OpenTelemetry ({@link OpenTelemetryMetricsEvents}), as
 * {@code gendurable.metrics.backend} chooses (docs/metrics.md). Each implementation is the only
 * class that touches its API, so an application without that API never loads it. One instance
 * serves one engine: every metric it registers carries that engine's {@link #ENGINE_TAG} tag, so
 * several engines share a registry under the same names.
 */
public interface MetricsBackend extends EngineEvents {
    /**
     * The running totals every backend publishes as gauges, by metric name (docs/metrics.md):
     * one list, so the two backends cannot drift apart.
     */
    Map<String, Function<EngineMetrics, LongAdder>> TOTALS = Map.ofEntries(
            Map.entry("gendurable.outcome.stale", x -> x.stale),
            Map.entry("gendurable.reaper.reaped", x -> x.reaped),
            Map.entry("gendurable.keys.blocked", x -> x.keysBlocked),
            Map.entry("gendurable.keys.unblocked", x -> x.keysUnblocked),
            Map.entry("gendurable.gc.swept", x -> x.gcSwept),
            Map.entry("gendurable.schedules.poisoned", x -> x.schedulesPoisoned),
            Map.entry("gendurable.concurrency.throttled", x -> x.gateThrottled),
            Map.entry("gendurable.rate_limit.throttled", x -> x.rateThrottled),
            Map.entry("gendurable.rate_limit.unknown", x -> x.unknownRateLimit),
            Map.entry("gendurable.await.timeouts", x -> x.awaitTimeouts),
            Map.entry("gendurable.signals.delivered", x -> x.signalsDelivered),
            Map.entry("gendurable.flush.errors", x -> x.flushErrors),
            Map.entry("gendurable.flush.deferred", x -> x.flushDeferred),
            Map.entry("gendurable.loop.errors", x -> x.loopErrors),
            Map.entry("gendurable.buckets.reconciled", x -> x.bucketsReconciled),
            Map.entry("gendurable.scheduler.picks_in_flush", x -> x.picksInFlush),
            Map.entry("gendurable.scheduler.started_at_insert", x -> x.startedAtInsert),
            Map.entry("gendurable.insert.debounced", x -> x.debounced),
            Map.entry("gendurable.scheduler.short_picks", x -> x.shortPicks),
            Map.entry("gendurable.scheduler.empty_picks", x -> x.emptyPicks),
            Map.entry("gendurable.events.dropped", x -> x.eventsDropped),
            Map.entry("gendurable.events.failed", x -> x.eventsFailed));

    /**
     * The running totals published per queue this node serves, with a {@code queue} tag beside the
     * {@code engine} one (docs/metrics.md): the queue is known where they count, and the configured
     * queues bound the series.
     */
    Map<String, Function<EngineMetrics.QueueCounts, LongAdder>> QUEUE_TOTALS = Map.ofEntries(
            Map.entry("gendurable.scheduler.reclaimed", x -> x.reclaimed),
            Map.entry("gendurable.scheduler.released", x -> x.released),
            Map.entry("gendurable.concurrency.contended", x -> x.contended),
            Map.entry("gendurable.concurrency.contended_deferred", x -> x.contendedDeferred));

    /** The tag (attribute) every metric carries: the engine's name, {@code default} for the default engine. */
    String ENGINE_TAG = "engine";

    /**
     * Registers the gauges over the engine's counters, its queues and the cluster-wide queue figures.
     *
     * @param engine the engine, built and not yet started
     */
    void registerGauges(Engine engine);

    /** Removes what this backend registered (the engine has stopped); a no-op where the registry ends with the application. */
    default void close() {
    }

    /** @return a short name for the log line that says where the metrics go */
    String describe();

    /**
     * Calls {@code register} once for each queue of the cluster-wide gauges' figures, now and as new
     * queues appear, when the gauges run on this node.
     *
     * @param engine     the engine
     * @param registered the queues registered so far (each queue is registered once)
     * @param register   registers one queue's gauges
     */
    static void forEachGaugedQueue(Engine engine, Set<String> registered, BiConsumer<QueueGauges, String> register) {
        if (engine.config().gauges().enabled()) {
            QueueGauges gauges = engine.gauges();
            Consumer<String> once = q -> {
                if (registered.add(q)) {
                    register.accept(gauges, q);
                }
            };
            gauges.onNewQueues(queues -> queues.forEach(once));
            gauges.figures().keySet().forEach(once);
        }
    }
}
