package io.gendurable.testing;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import io.gendurable.NewInstance;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.Status;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The engine as the code under test sees it under the kit: every call goes to the engine, except
 * that {@link #await} first runs the drain on the test clock, as a node's threads would run the
 * steps while the caller waits: until the instance settles, or until the clock would pass the
 * caller's timeout. No wall-clock time is spent.
 */
final class KitDurable implements GenDurable {
    /** A longer timeout means "as long as it takes": a {@code Busy} answer then leaves the clock where the drain ended. */
    static final Duration LONGEST_WAIT = Duration.ofDays(366);

    private final GenDurable engine;
    private final Drainer drainer;
    private final TestClock clock;

    KitDurable(GenDurable engine, Drainer drainer, TestClock clock) {
        this.engine = engine;
        this.drainer = drainer;
        this.clock = clock;
    }

    @Override
    public <S> Inserted insert(Class<? extends Fsm<S>> fsm, S state) {
        return engine.insert(fsm, state);
    }

    @Override
    public <S> Inserted insert(Class<? extends Fsm<S>> fsm, S state, InsertOptions options) {
        return engine.insert(fsm, state, options);
    }

    @Override
    public Inserted insert(NewInstance instance) {
        return engine.insert(instance);
    }

    @Override
    public List<Inserted> insertAll(List<NewInstance> instances) {
        return engine.insertAll(instances);
    }

    @Override
    public SignalResult signal(SignalTarget target, String name, Object payload) {
        return engine.signal(target, name, payload);
    }

    @Override
    public SignalResult signal(SignalTarget target, String name, Object payload, String dedupKey) {
        return engine.signal(target, name, payload, dedupKey);
    }

    @Override
    public AwaitResult await(long id, Duration timeout) {
        return await(id, timeout, AwaitUntil.SETTLED);
    }

    /**
     * Answers at once when the instance is settled (or unknown); otherwise drains, on the test clock,
     * until it settles or the clock would pass {@code timeout} from now, and answers from its row:
     * {@code Busy} when it has not settled, the clock then moved to the end of the timeout (the
     * caller waited that long). Called by a step during a drain, it answers from the row at once.
     */
    @Override
    public AwaitResult await(long id, Duration timeout, AwaitUntil until) {
        AwaitResult now = engine.await(id, Duration.ZERO, until);  // checks the arguments, as the engine does
        if (!(now instanceof AwaitResult.Busy) || drainer.active()) {
            return now;
        }
        boolean bounded = timeout.compareTo(LONGEST_WAIT) <= 0;
        Instant horizon = bounded ? clock.instant().plus(timeout) : null;
        drainer.drain(DrainOptions.defaults(), horizon, () -> settled(id, until));
        AwaitResult answer = engine.await(id, Duration.ZERO, until);
        if (answer instanceof AwaitResult.Busy && bounded) {
            clock.advanceTo(horizon);
        }
        return answer;
    }

    private boolean settled(long id, AwaitUntil until) {
        Optional<InstanceSnapshot> s = engine.find(id);
        if (s.isEmpty()) {
            return true;
        }
        Status st = s.get().status();
        return st == Status.DONE || st == Status.FAILED || st == Status.CANCELLED
                || (until == AwaitUntil.SETTLED && (st == Status.AWAITING_SIGNAL || st == Status.AWAITING_CHILDREN));
    }

    @Override
    public Optional<InstanceSnapshot> find(long id) {
        return engine.find(id);
    }

    @Override
    public Optional<InstanceSnapshot> find(String correlationKey) {
        return engine.find(correlationKey);
    }

    @Override
    public String toString() {
        return "GenDurable under the test kit (" + engine + ")";
    }
}
