package io.gendurable.testing;

import io.gendurable.impl.engine.DrainRunner;
import io.gendurable.impl.engine.DrainSql.Backlog;
import io.gendurable.impl.schedule.ScheduleFirer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The drain's policy over the engine's {@link DrainRunner}: one probe of what is runnable, one pick
 * (and its steps) of each queue that has something due, again, until nothing is due; then, when
 * delays collapse, move the test clock to the next scheduled start or retry and go on. Rows that
 * are due but never admitted move the clock to their rate limit's next refill (computed from its
 * bucket), or, held otherwise (a gate), by 1 s, doubling, up to {@value #MAX_STALLS} times before
 * failing. A step that throws a {@link VirtualMachineError} fails the drain, naming what a node
 * does. Time moves event by event, in a node's order: each round first fires the schedule fire times and await timeouts the clock has
 * passed (as the schedules loop and the reaper do), and a move never passes an await deadline or a
 * fire time: it stops there, so it fires before a row due later runs. The clock never moves only to
 * reach a deadline or a fire time (nothing else scheduled): that is {@link DurableTesting#fireTimeouts()}
 * and the test's own moves.
 */
final class Drainer {
    /** Rows claimed per pick: a production-like batch, still in strict pick order. */
    static final int BATCH = 10;
    /** Clock moves (1 s, 2 s, 4 s, …) allowed while due rows are never admitted. */
    static final int MAX_STALLS = 20;

    private final DrainRunner runner;
    private final TestClock clock;
    /** queue → the registered FSMs that default to it, for each queue {@code gendurable.queues} does not name */
    private final Supplier<Map<String, List<String>>> unserved;

    /** The engine's schedules loop, run one tick at a time here. */
    private final ScheduleFirer schedules;

    Drainer(DrainRunner runner, TestClock clock, Supplier<Map<String, List<String>>> unserved, ScheduleFirer schedules) {
        this.runner = runner;
        this.clock = clock;
        this.unserved = unserved;
        this.schedules = schedules;
    }

    /** Fire times one move of the clock may pass before it fails (each inserts an instance a drain would then run). */
    static final int MAX_FIRE_TIMES = 1000;

    /** Instances the schedules inserted that {@link #fireDueSchedules()} has not reported yet. */
    private final List<Long> unreported = new ArrayList<>();

    /** A tick of a node's schedules loop at {@code at} (what it fires is inserted at the clock's instant). */
    private void tickAt(Instant at) {
        schedules.runAt(at).forEach(f -> unreported.addAll(f.inserted()));
    }

    /**
     * The clock is about to move from {@code from} to {@code to}: the schedules loop ticks as a node's
     * would on that path, at {@code from} and then at each fire time up to {@code to}, each as of
     * itself (so none counts as missed unless it already was at {@code from}). Registered on the
     * {@link TestClock}, so that a test's own {@code advance} is covered too.
     *
     * @throws DrainException when more than {@value #MAX_FIRE_TIMES} fire times lie on the path
     */
    void passing(Instant from, Instant to) {
        if (!to.isAfter(from) || runner.nextScheduleFire(Instant.EPOCH).isEmpty()) {
            return;
        }
        tickAt(from);
        Instant cursor = from;
        int walked = 0;
        while (true) {
            Optional<Instant> next = runner.nextScheduleFire(cursor);
            if (next.isEmpty() || next.get().isAfter(to)) {
                return;
            }
            if (++walked > MAX_FIRE_TIMES) {
                throw new DrainException("moving the clock from " + from + " to " + to + " passes more than "
                        + MAX_FIRE_TIMES + " schedule fire times: a node would insert an instance for each. Move the "
                        + "clock in smaller steps (draining between), or pause the schedule (operations().pauseSchedule).");
            }
            tickAt(next.get());
            cursor = next.get();
        }
    }

    /**
     * A tick of the schedules loop at the clock's instant, then every instance the schedules inserted
     * since the last call or drain (on the clock's path included).
     *
     * @return their ids, earliest fire time first
     */
    List<Long> fireDueSchedules() {
        tickAt(clock.instant());
        List<Long> out = List.copyOf(unreported);
        unreported.clear();
        return out;
    }

    /** Whether a drain runs now (a step that awaits another instance must not start a drain inside it). */
    private volatile boolean active;

    /** @return whether a drain runs now */
    boolean active() {
        return active;
    }

    DrainResult drain(DrainOptions o) {
        return drain(o, null, () -> false);
    }

    /**
     * The drain, stopped early: as soon as {@code settled} holds (asked before each round and after
     * each pick), or when the clock would have to move past {@code horizon} (null: no bound).
     */
    DrainResult drain(DrainOptions o, Instant horizon, BooleanSupplier settled) {
        active = true;
        try {
            return run(o, horizon, settled);
        } finally {
            active = false;
            unreported.clear();  // what the schedules inserted so far is the drain's to run, not to report
        }
    }

    private DrainResult run(DrainOptions o, Instant horizon, BooleanSupplier settled) {
        Set<String> served = runner.servedQueues();
        List<String> notServed = o.queues().stream().filter(q -> !served.contains(q)).toList();
        if (!notServed.isEmpty()) {
            throw new DrainException("cannot drain " + notServed.stream().map(q -> "'" + q + "'" + fsmsOf(q))
                    .collect(Collectors.joining(", ")) + ": gendurable.queues does not name it, so a node with this "
                    + "configuration never runs its rows; served queues: " + served + ". Add it to gendurable.queues "
                    + "(@GenDurableTest(config = \"gendurable.queues=…\")).");
        }
        List<String> queues = o.queues().isEmpty() ? List.copyOf(served) : o.queues();
        List<RanStep> ran = new ArrayList<>();
        int stalls = 0;
        while (true) {
            // As a node's schedules loop and reaper: the fire times and await deadlines the clock has
            // passed fire (instances inserted, awaits woken, all runnable).
            tickAt(clock.instant());
            runner.fireDueTimeouts();
            if (settled.getAsBoolean()) {
                return new DrainResult(ran, clock.instant());
            }
            // One statement says which queues have work; only those are picked.
            Map<String, Backlog> backlog = backlogOf(queues);
            List<String> due = backlog.entrySet().stream().filter(e -> e.getValue().due() > 0).map(Map.Entry::getKey)
                    .toList();
            boolean future = backlog.values().stream().anyMatch(b -> b.total() > b.due());
            int left = o.maxSteps() - ran.size();
            if (left <= 0) {
                if (!due.isEmpty() || (o.collapseDelays() && future)) {
                    throw runaway(ran, o);
                }
                break;
            }
            if (!due.isEmpty()) {
                boolean progressed = false;
                for (String q : due) {
                    int budget = o.maxSteps() - ran.size();
                    if (budget <= 0) {
                        break;
                    }
                    List<DrainRunner.Ran> r;
                    try {
                        r = runner.runOnce(q, Math.min(BATCH, budget), budget);
                    } catch (DrainRunner.StepCrashed e) {
                        throw new DrainException(e.getMessage() + ". gen-durable does not catch a VirtualMachineError: "
                                + "on a node the row stays executing until its lease lapses (gendurable.lease.ttl), then "
                                + "the reaper runs the step again as attempt " + (e.attempt() + 1) + ", and once attempts "
                                + "pass maxAttempts it fails. The kit runs no reaper: the drain stops here and the row is "
                                + "left executing.", e.getCause());
                    }
                    r.forEach(x -> ran.add(new RanStep(x.id(), x.fsm(), x.step(), x.queue(), x.outcome(), x.error())));
                    progressed |= !r.isEmpty();
                    if (settled.getAsBoolean()) {
                        return new DrainResult(ran, clock.instant());
                    }
                }
                if (progressed) {
                    stalls = 0;
                    continue;
                }
                // due, yet the pick admitted none: a rate limit or a gate holds them
                if (!o.collapseDelays()) {
                    break;
                }
                if (++stalls > MAX_STALLS) {
                    throw stalled(backlog);
                }
                // a rate limit's refill is computed from its bucket, to the instant a node's next pick admits
                // the row; a gate held outside the drain gets 1 s, 2 s, 4 s…
                Instant refill = runner.nextRefill(clock.instant()).orElse(null);
                Instant wait = refill != null ? refill : clock.instant().plus(Duration.ofSeconds(1L << (stalls - 1)));
                if (!moveTo(wait, horizon)) {
                    return new DrainResult(ran, clock.instant());
                }
                continue;
            }
            if (!o.collapseDelays() || !future) {
                break;
            }
            Instant next = backlog.values().stream().map(Backlog::nextEligible).min(Comparator.naturalOrder()).orElseThrow();
            if (!moveTo(next, horizon)) {
                return new DrainResult(ran, clock.instant());
            }
        }
        return finish(ran, o, served);
    }

    /**
     * Moves the clock towards {@code target}, as time passes on a node: when an await deadline or a
     * schedule's fire time comes first, only to that instant, where the next round fires it before
     * any row due later runs.
     *
     * @return false, moving nothing, when that instant lies past {@code horizon} (null: no bound)
     */
    private boolean moveTo(Instant target, Instant horizon) {
        Instant to = target;
        for (Optional<Instant> event : List.of(runner.nextAwaitDeadline(), runner.nextScheduleFire(clock.instant()))) {
            if (event.isPresent() && event.get().isBefore(to)) {
                to = event.get();
            }
        }
        if (horizon != null && to.isAfter(horizon)) {
            return false;
        }
        clock.advanceTo(to);
        return true;
    }

    private DrainResult finish(List<RanStep> ran, DrainOptions o, Set<String> served) {
        if (o.queues().isEmpty()) {
            Map<String, Backlog> elsewhere = new LinkedHashMap<>(runner.backlog(clock.instant()));
            elsewhere.keySet().removeAll(served);
            if (!elsewhere.isEmpty()) {
                throw new DrainException("rows are runnable in queues that gendurable.queues does not name, so a node "
                        + "with this configuration never runs them (they stay runnable): " + elsewhere.entrySet().stream()
                        .map(e -> "'" + e.getKey() + "' (" + e.getValue().total() + " rows)" + fsmsOf(e.getKey()))
                        .collect(Collectors.joining(", ")) + "; served queues: " + served
                        + ". Add them to gendurable.queues (@GenDurableTest(config = \"gendurable.queues=…\")), as the "
                        + "production configuration must.");
            }
        }
        return new DrainResult(ran, clock.instant());
    }

    /** @return ", the default queue of FSMs [a, b]" when registered FSMs default to {@code queue}, else "" */
    private String fsmsOf(String queue) {
        List<String> fsms = unserved.get().get(queue);
        return fsms == null || fsms.isEmpty() ? "" : ", the default queue of FSMs " + fsms;
    }

    private Map<String, Backlog> backlogOf(List<String> queues) {
        Map<String, Backlog> all = runner.backlog(clock.instant());
        Map<String, Backlog> out = new LinkedHashMap<>();
        for (String q : queues) {
            if (all.containsKey(q)) {
                out.put(q, all.get(q));
            }
        }
        return out;
    }

    private static DrainException runaway(List<RanStep> ran, DrainOptions o) {
        Map<Long, List<RanStep>> byInstance = ran.stream().collect(Collectors.groupingBy(RanStep::id,
                LinkedHashMap::new, Collectors.toList()));
        String busiest = byInstance.values().stream()
                .sorted(Comparator.comparingInt((List<RanStep> l) -> l.size()).reversed())
                .limit(5)
                .map(l -> {
                    RanStep last = l.get(l.size() - 1);
                    return "instance " + last.id() + " of FSM '" + last.fsm() + "' ran " + l.size()
                            + " steps, the last '" + last.step() + "' -> " + last.outcome();
                })
                .collect(Collectors.joining("; "));
        return new DrainException("drain ran " + ran.size() + " steps (maxSteps " + o.maxSteps()
                + ") and work is still runnable: a runaway FSM? " + busiest
                + ". Raise DrainOptions.maxSteps if this much work is expected.");
    }

    private DrainException stalled(Map<String, Backlog> backlog) {
        return new DrainException("rows are due but the pick admits none of them, even after moving the clock ahead "
                + "by 1 s, doubling, " + MAX_STALLS + " times: " + backlog.entrySet().stream()
                .filter(e -> e.getValue().due() > 0)
                .map(e -> "queue '" + e.getKey() + "': " + e.getValue().due() + " due")
                .collect(Collectors.joining(", "))
                + ". Causes: a rate limit this engine does not configure (gendurable.rate-limits.<name>.*), or a "
                + "concurrency key held by an executing row outside the drain.");
    }
}
