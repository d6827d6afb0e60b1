package io.gendurable.testing.agreement;

import io.gendurable.Fsm;
import io.gendurable.InstanceSnapshot;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.testing.TestClock;
import org.awaitility.Awaitility;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * The production side of an agreement test: a started engine (schedulers, reaper, schedules loop,
 * all on their own threads) whose clock is a {@link TestClock}, and time passed as it passes for
 * a node: the clock moves from one instant at which something can happen (a row becomes due, an
 * await deadline, a schedule's fire time; at most {@code maxStep} apart) to the next, and at each
 * the engine is left to do everything it does at that instant before the clock moves on. Between
 * two such instants nothing that depends on time happens on a node, so this walk sees what a node
 * whose clock runs continuously sees.
 */
final class Production implements AutoCloseable {
    private final EngineHarness harness;
    final TestClock clock;
    final Engine engine;
    private final Set<String> served;

    /**
     * @param hint   part of the schema's name
     * @param clock  the engine's clock
     * @param tweak  the configuration beyond the harness's defaults (queues default:4, fast polls),
     *               with the reaper and the schedules loop on, every 50 ms
     * @param fsms   the FSMs
     */
    Production(String hint, TestClock clock, UnaryOperator<EngineConfig.Builder> tweak, Fsm<?>... fsms) {
        this.harness = new EngineHarness(hint);
        this.clock = clock;
        this.engine = harness.start("prod", b -> tweak.apply(b
                .reaper(new EngineConfig.ReaperConfig(true, Duration.ofMillis(50), 1000))
                .schedules(new EngineConfig.SchedulesConfig(true, Duration.ofMillis(50), Duration.ofMinutes(1)))), clock, fsms);
        this.served = engine.config().node().queues().keySet();
    }

    /** @return a second engine on the same schema, with these FSMs, that serves no queue (it inserts only) */
    Engine insertOnly(Fsm<?>... fsms) {
        return harness.start("web", b -> b.queues(java.util.Map.of()), clock, fsms);
    }

    /** @return the instance's row */
    InstanceSnapshot instance(long id) {
        return engine.find(id).orElseThrow(() -> new AssertionError("no instance " + id));
    }

    /** @return every instance of the FSM named {@code fsm}, in id order */
    java.util.List<InstanceSnapshot> instances(String fsm) {
        try {
            return harness.inTransaction(c -> {
                java.util.List<Long> ids = new java.util.ArrayList<>();
                try (var ps = c.prepareStatement("SELECT id FROM gen_durable WHERE fsm = ? ORDER BY id")) {
                    ps.setString(1, fsm);
                    try (var rs = ps.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getLong(1));
                        }
                    }
                }
                return ids;
            }).stream().map(this::instance).toList();
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Lets time pass up to {@code until}, event by event (at most {@code maxStep} at a time), the
     * engine doing at each instant what is due then before the clock moves on.
     */
    void runUntil(Instant until, Duration maxStep) {
        quiet();
        while (clock.instant().isBefore(until)) {
            Instant next = nextEvent();
            Instant bound = clock.instant().plus(maxStep);
            Instant to = next != null && next.isBefore(bound) ? next : bound;
            clock.advanceTo(to.isAfter(until) ? until : to);
            quiet();
        }
    }

    /**
     * Waits until the engine did everything due at the clock's instant: no step runs, no row of a
     * served queue is due (rows naming a rate limit aside, which wait for their refill), no await
     * is past its deadline, no schedule past its fire time, and every queue was picked again after
     * the clock last moved (so a rate-limited row had its chance at this instant).
     */
    void quiet() {
        long mark = engine.metrics().picks.sum();
        Awaitility.await().dontCatchUncaughtExceptions().alias("the engine did all that is due at " + clock.instant())
                .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                .until(() -> busy() == 0 && engine.metrics().picks.sum() >= mark + 2L * served.size());
        Awaitility.await().dontCatchUncaughtExceptions().alias("still nothing due at " + clock.instant()).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(10)).until(() -> busy() == 0);
    }

    private long busy() {
        String now = ts(clock.instant());
        String queues = served.stream().map(q -> "'" + q.replace("'", "''") + "'").collect(Collectors.joining(","));
        return harness.queryLong("SELECT (SELECT count(*) FROM gen_durable WHERE status = 'executing')"
                + " + (SELECT count(*) FROM gen_durable g WHERE status = 'runnable' AND eligible_at <= " + now
                + " AND rate_limit IS NULL AND queue IN (" + (queues.isEmpty() ? "NULL" : queues) + ")"
                + " AND NOT EXISTS (SELECT 1 FROM gen_durable_paused_queues p WHERE p.queue = g.queue))"
                + " + (SELECT count(*) FROM gen_durable WHERE status = 'awaiting_signal' AND await_deadline <= " + now + ")"
                + " + (SELECT count(*) FROM gen_durable_schedules WHERE NOT paused AND next_fire_at <= " + now + ")");
    }

    /** @return the next instant after the clock's at which a row becomes due, an await times out or a schedule fires */
    private Instant nextEvent() {
        String now = ts(clock.instant());
        String next = harness.queryString("SELECT least("
                + "(SELECT min(eligible_at) FROM gen_durable WHERE status = 'runnable' AND eligible_at > " + now + "),"
                + "(SELECT min(await_deadline) FROM gen_durable WHERE status = 'awaiting_signal' AND await_deadline > " + now + "),"
                + "(SELECT min(next_fire_at) FROM gen_durable_schedules WHERE NOT paused AND next_fire_at > " + now + "))"
                + "::timestamptz AT TIME ZONE 'UTC'");
        return next == null ? null : Timestamp.valueOf(next).toLocalDateTime().toInstant(java.time.ZoneOffset.UTC);
    }

    private static String ts(Instant i) {
        return "'" + i + "'::timestamptz";
    }

    /** @return the engine's readiness data */
    java.util.Map<String, String> readinessData() {
        return engine.health().readiness().data();
    }

    @Override
    public void close() {
        harness.close();
    }
}
