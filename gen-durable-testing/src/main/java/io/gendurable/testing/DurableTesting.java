package io.gendurable.testing;

import io.gendurable.DurableOperations;
import io.gendurable.DurableValue;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Status;
import io.gendurable.impl.engine.DrainRunner;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.json.Json;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A test's handle on a gen-durable engine that runs no thread of its own: {@link #drain()} runs
 * everything runnable in the calling thread through the engine's production pick, step and flush
 * path; {@link #fireTimeouts()} fires await timeouts; the clock is a {@link TestClock}; the
 * assertions read the rows. {@link #durable()} is the same engine as a {@link GenDurable}
 * (insert, signal, find; await drains on the test clock), and {@link #operations()} the
 * operator's API on it.
 *
 * <p>Get one from {@link DurableTestExtension} (a parameter of a {@link GenDurableTest} test), or
 * build one with {@link #builder()} and close it after the test.
 */
public final class DurableTesting implements AutoCloseable {
    private final Engine engine;
    private final TestClock clock;
    private final DrainRunner runner;
    private final Drainer drainer;
    private final KitDurable durable;
    /** Registered on the clock: the schedules fire on every move's path. */
    private final TestClock.Listener passing;
    private final InstanceAssertions assertions;
    private final Runnable onClose;

    DurableTesting(Engine engine, TestClock clock, Json json, Runnable onClose) {
        this.engine = engine;
        this.clock = clock;
        this.runner = EngineInternals.drainRunner(engine);
        this.drainer = new Drainer(runner, clock, engine::unservedQueues, EngineInternals.schedules(engine).firer());
        this.durable = new KitDurable(engine, drainer, clock);
        this.passing = drainer::passing;
        clock.addListener(passing);
        this.assertions = new InstanceAssertions(engine, runner, json);
        this.onClose = onClose;
    }

    /**
     * Part of start-up, not of the test: the first use of each statement and of JSON-B pays class
     * loading and compilation. Every call here is read-only or finds nothing on a fresh, empty
     * schema (the builder warms only a schema it created).
     */
    void warmUp(Json json) {
        json.read(json.write(java.util.Map.of("warm-up", 1)), java.util.Map.class);
        for (String q : runner.servedQueues()) {
            runner.runOnce(q, 1, 1);
        }
        runner.backlog(clock.instant());
        runner.lastAwaitDeadline();
        runner.fireDueTimeouts();
        runner.instances("");
        engine.find(0L);
        engine.find("warm-up");
        engine.signal(io.gendurable.SignalTarget.id(0L), "warm-up", null);
    }

    /** @return a builder of an engine for tests, on the tests' database */
    public static DurableTestingBuilder builder() {
        return new DurableTestingBuilder();
    }

    /**
     * @return the engine as the application sees it: insert, signal and find go to the engine;
     *         {@code await} first drains on the test clock (until the instance settles, or until the
     *         clock would pass the caller's timeout, which it then reaches), as a node's threads run
     *         the steps while the caller waits, and answers from the row. No wall-clock time passes.
     */
    public GenDurable durable() {
        return durable;
    }

    /**
     * Stops firing the schedules on the clock's moves (a node that is down while time passes): only
     * {@link #fireDueSchedules()} and drains tick, at the clock's instant. For the project's own
     * tests of missed fire times.
     */
    void detachFromClock() {
        clock.removeListener(passing);
    }

    /** @return the engine itself (the project's own tests reach it through their test sources) */
    Engine engine() {
        return engine;
    }

    /** @return the operator's API over the same engine: search, inspect, summary; cancel, retry, reschedule, pause a queue */
    public DurableOperations operations() {
        return engine.operations();
    }

    /** @return the engine's clock: move it to make time pass */
    public TestClock clock() {
        return clock;
    }

    /**
     * Registers FSM objects (for FSMs that need constructor arguments or fields set by the test).
     * Their rows run when their queue is one of {@code gendurable.queues}, as on a node; otherwise
     * a drain fails, naming the queue.
     *
     * @param fsms the FSM objects
     * @return this
     * @throws IllegalStateException when an FSM's name and version are already registered
     */
    public DurableTesting register(Fsm<?>... fsms) {
        for (Fsm<?> f : fsms) {
            engine.registry().register(FsmDefinition.of(Objects.requireNonNull(f, "fsm must not be null")));
        }
        EngineInternals.schedules(engine).seed();  // their @DurableSchedule, stored as a node's start stores them
        return this;
    }

    // ---- running ---------------------------------------------------------------------------

    /**
     * Runs everything runnable in every served queue, in this thread, until nothing is left to
     * run: each step's outcome is committed before the next step starts, as in production.
     * Scheduled starts and retry backoffs are collapsed (the clock jumps to them), event by event
     * in a node's order: the await timeouts and schedule fire times the clock reaches fire in their
     * turn, before rows due later run; the clock never moves only to reach an await deadline (see
     * {@link #fireTimeouts()}); at most {@value DrainOptions#DEFAULT_MAX_STEPS} steps run.
     *
     * @return the steps that ran, in order
     * @throws DrainException on a runaway FSM, rows due but never admitted, rows in a queue that
     *                        {@code gendurable.queues} does not name (a node would never run them),
     *                        or a step that threw a {@link VirtualMachineError}
     */
    public DrainResult drain() {
        return drain(DrainOptions.defaults());
    }

    /**
     * {@link #drain()} for one queue only.
     *
     * @param queue the queue
     * @return the steps that ran, in order
     */
    public DrainResult drain(String queue) {
        return drain(DrainOptions.defaults().queues(queue));
    }

    /**
     * {@link #drain()} with options.
     *
     * @param options the runaway limit, whether delays collapse, the queues
     * @return the steps that ran, in order
     */
    public DrainResult drain(DrainOptions options) {
        return drainer.drain(Objects.requireNonNull(options, "options must not be null"));
    }

    /**
     * Fires every pending await timeout: moves the clock to the latest await deadline (when it is
     * still ahead), then wakes every parked await whose deadline passed, as the reaper would. The
     * woken instances are runnable; {@link #drain()} runs them.
     *
     * <p>A node would run a row that is due before that deadline first (its step might signal the
     * await): when one is runnable, this moves nothing and fails, naming it. Drain first, or move the
     * clock yourself and call {@link #fireDueTimeouts()}.
     *
     * @return how many awaits timed out
     * @throws DrainException when a runnable row of a served queue is due at or before the last deadline
     */
    public int fireTimeouts() {
        java.util.Optional<Instant> last = runner.lastAwaitDeadline();
        if (last.isPresent()) {
            java.util.Set<String> served = runner.servedQueues();
            String earlier = runner.backlog(clock.instant()).entrySet().stream()
                    .filter(e -> served.contains(e.getKey()) && !e.getValue().nextEligible().isAfter(last.get()))
                    .map(e -> "queue '" + e.getKey() + "': " + e.getValue().total() + " runnable, the first due at "
                            + e.getValue().nextEligible())
                    .collect(java.util.stream.Collectors.joining(", "));
            if (!earlier.isEmpty()) {
                throw new DrainException("fireTimeouts() would move the clock to " + last.get() + ", past rows a node "
                        + "runs before the await deadline (their steps might signal the await): " + earlier
                        + ". Call drain() first (it fires each timeout in its turn), or move the clock yourself "
                        + "(t.clock().advanceTo(…)) and call fireDueTimeouts().");
            }
            clock.advanceTo(last.get());  // the schedules fire on the way (TestClock's listener)
        }
        return runner.fireDueTimeouts();
    }

    /**
     * Fires the await timeouts already due by the clock, without moving it (move it first with
     * {@link TestClock#advance}).
     *
     * @return how many awaits timed out
     */
    public int fireDueTimeouts() {
        return runner.fireDueTimeouts();
    }

    /**
     * Fires the recurring schedules ({@code @DurableSchedule}, {@code defineSchedule}) due by the
     * clock, as a node's schedules loop would have on the clock's path, without moving the clock
     * (move it first with {@link TestClock#advance}): each fire time the clock passed fires as of
     * itself, as the loop's tick at that instant would, so none counts as missed (a drain does the
     * same at each round). The inserted instances are runnable, {@link #drain()} runs them.
     *
     * @return the ids of the instances the schedules inserted since the last call or drain (on the
     *         clock's path included), earliest fire time first
     * @throws DrainException when a due schedule cannot fire, or too many fire times are due
     */
    public List<Long> fireDueSchedules() {
        EngineInternals.schedules(engine).seed();
        return drainer.fireDueSchedules();
    }

    // ---- reading and asserting -------------------------------------------------------------

    /**
     * @param id an instance
     * @return its snapshot
     * @throws AssertionError when it does not exist
     */
    public InstanceSnapshot instance(long id) {
        return assertions.instance(id);
    }

    /**
     * @param fsm an FSM class
     * @return every instance of it, in id order
     */
    public List<InstanceSnapshot> instances(Class<? extends Fsm<?>> fsm) {
        return runner.instances(io.gendurable.FsmNames.nameOf(fsm));
    }

    /**
     * @param id       an instance
     * @param expected the status it must have
     * @return its snapshot
     * @throws AssertionError naming the status, step, awaits and error it has instead
     */
    public InstanceSnapshot assertStatus(long id, Status expected) {
        return assertions.assertStatus(id, expected);
    }

    /**
     * @param id an instance
     * @return its result
     * @throws AssertionError when it is not done
     */
    public DurableValue assertDone(long id) {
        return assertions.assertDone(id);
    }

    /**
     * @param id             an instance
     * @param expectedResult the result it must have ended with, compared as JSON (objects by member,
     *                       numbers by value)
     * @return its result
     * @throws AssertionError when it is not done, or done with another result
     */
    public DurableValue assertDone(long id, Object expectedResult) {
        return assertions.assertDone(id, expectedResult);
    }

    /**
     * @param id an instance
     * @return its error
     * @throws AssertionError when it has not failed
     */
    public String assertFailed(long id) {
        return assertions.assertFailed(id);
    }

    /**
     * @param id                an instance
     * @param expectedErrorPart text its error must contain
     * @return its error
     * @throws AssertionError when it has not failed, or failed with another error
     */
    public String assertFailed(long id, String expectedErrorPart) {
        return assertions.assertFailed(id, expectedErrorPart);
    }

    /**
     * @param id          an instance
     * @param signalNames the signals it must await, exactly (none: any)
     * @return its snapshot
     * @throws AssertionError when it is not parked on those signals
     */
    public InstanceSnapshot assertAwaiting(long id, String... signalNames) {
        return assertions.assertAwaiting(id, signalNames);
    }

    /**
     * @param fsm an FSM class
     * @return the first instance of it
     * @throws AssertionError when there is none
     */
    public InstanceSnapshot assertInserted(Class<? extends Fsm<?>> fsm) {
        return assertions.assertInserted(fsm, null, null);
    }

    /**
     * @param fsm   an FSM class
     * @param state the state it must hold now, compared as JSON (an instance that ran has moved on)
     * @return the first matching instance
     * @throws AssertionError listing the instances of the FSM when none matches
     */
    public InstanceSnapshot assertInserted(Class<? extends Fsm<?>> fsm, Object state) {
        return assertions.assertInserted(fsm, state, null);
    }

    /**
     * @param fsm     an FSM class
     * @param state   the state it must hold now (null: any)
     * @param options what it must have been inserted with: {@code priority} always, and each of
     *                {@code queue}, {@code scheduledAt}, {@code step}, {@code correlationKey},
     *                {@code concurrencyKey} that is set (leave {@code rateLimit}, {@code weight} and
     *                {@code correlationScope} unset: a snapshot does not show them)
     * @return the first matching instance
     * @throws AssertionError listing the instances of the FSM when none matches
     */
    public InstanceSnapshot assertInserted(Class<? extends Fsm<?>> fsm, Object state, InsertOptions options) {
        return assertions.assertInserted(fsm, state, Objects.requireNonNull(options, "options must not be null"));
    }

    /** @return the clock's instant (shorthand for {@code clock().instant()}) */
    public Instant now() {
        return clock.instant();
    }

    /** Stops the engine (it ran no thread) and drops its schema when the builder said so. */
    @Override
    public void close() {
        clock.removeListener(passing);
        try {
            engine.stop();
        } finally {
            onClose.run();
        }
    }
}
