package io.gendurable.impl.step;

import io.gendurable.Fsm;
import io.gendurable.StepTimeoutException;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.runtime.EngineContext;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Step timeouts (docs/fsm.md, "Step timeouts"). A step with a timeout runs under a {@link Watch}
 * armed right before its code starts. Whether the step's own outcome or the timeout's is taken is
 * decided by one atomic, the watch's state, whichever of the step's thread (its code returned) and
 * the timer (the deadline passed) moves it first: the other side then does nothing. When the timer
 * wins, it interrupts the thread; the thread, once its code returns, discards what it returned and
 * hands a {@link StepTimeoutException} to {@code onError} instead, under the same claim (so the
 * retry is fenced by the claim's token like any outcome). A thread still in the step's code a grace
 * later is given up: its claim is no longer heartbeated, its lease lapses and the reaper takes the
 * row back; whatever it writes when it returns is then stale. Unless its row holds a concurrency key
 * (K = 1 or a gate's): the lapse would free the key for another step of it while this thread still
 * runs, so that claim is kept until the thread returns.
 *
 * <p>No thread per step and no task per step: the watches wait in one set, and one sweep on the
 * engine's timer is scheduled for the earliest deadline (a step that returns in time removes its
 * watch, leaving no cancelled task behind in the timer's queue). With no timeout set anywhere,
 * nothing is allocated or locked per step.
 */
public final class StepTimeouts {
    private static final Logger LOG = System.getLogger("io.gendurable.step");

    /** Tests only: told by the sweep around the atomic that decides a due watch (forces both orders of the race). */
    interface FireHook {
        /** @param id the instance whose step's timeout is due, right before the timeout tries to take the step */
        void before(long id);

        /** @param id the instance @param took whether the timeout took the step (false: its code had returned first) */
        void after(long id, boolean took);

        /** @param id the instance whose timed-out step's grace passed @param givenUp whether its claim was given up */
        default void graced(long id, boolean givenUp) {
        }
    }

    private static final FireHook NO_HOOK = new FireHook() {
        @Override
        public void before(long id) {
        }

        @Override
        public void after(long id, boolean took) {
        }
    };

    /** Tests only: see {@link FireHook}. */
    static volatile FireHook fireHook = NO_HOOK;

    /** Tests only: removes the hook. */
    static void clearFireHook() {
        fireHook = NO_HOOK;
    }

    private final EngineContext ctx;
    private final ScheduledExecutorService timer;
    private final Duration configured;
    private final Duration grace;
    private final long graceNanos;
    private final Set<Watch> armed = ConcurrentHashMap.newKeySet();
    // System.nanoTime() of the earliest sweep scheduled, Long.MAX_VALUE when none is
    private final AtomicLong nextSweep = new AtomicLong(Long.MAX_VALUE);

    /**
     * @param ctx the engine's context: its timer (none: timeouts are not enforced, as in the test
     *            kit's synchronous drain), {@code gendurable.step-timeout} and its grace, counters and observers
     */
    StepTimeouts(EngineContext ctx) {
        this.ctx = ctx;
        this.timer = ctx.timer();
        this.configured = ctx.config().steps().timeout();
        this.grace = ctx.config().steps().timeoutGrace();
        this.graceNanos = nanos(grace);
    }

    // System.nanoTime() counts 292 years and timeouts (and the grace) may be up to 1,000: a wait
    // longer than a century is timed as a century, which no step outlives (a deadline past the
    // counter's range would overflow, and Duration.toNanos() throws beyond it)
    private static final Duration LONGEST = Duration.ofDays(36_500);

    /** @return the duration in nanoseconds, at most a century's */
    static long nanos(Duration d) {
        return d.compareTo(LONGEST) > 0 ? LONGEST.toNanos() : d.toNanos();
    }

    /**
     * The timeout of this run of the row's step: the insert's, else the FSM's {@code stepTimeout(step)}
     * (asked only when its class overrides it), else {@code @DurableFsm(stepTimeout)}, else
     * {@code gendurable.step-timeout}; zero anywhere means none.
     *
     * @return the timeout, or null for none (always null without a timer)
     * @throws IllegalArgumentException when {@code stepTimeout(step)} returns a negative or too long duration
     */
    Duration of(FsmDefinition def, Fsm<Object> fsm, ClaimedRow row) {
        if (timer == null) {
            return null;
        }
        Long own = row.stepTimeoutMillis();
        if (own != null) {
            return own == 0 ? null : Duration.ofMillis(own);
        }
        Duration d = null;
        if (def.timeoutPerStep()) {
            d = fsm.stepTimeout(row.step());
            if (d != null && !d.isZero() && !FsmDefinition.acceptedTimeout(d)) {
                throw new IllegalArgumentException(def.beanClass().getName() + ".stepTimeout(\"" + row.step()
                        + "\") returned " + d + "; accepted: a duration from 1 ms to 1,000 years, zero for no timeout,"
                        + " or null for the FSM's");
            }
        }
        if (d == null) {
            d = def.stepTimeout() != null ? def.stepTimeout() : configured;
        }
        return d.isZero() ? null : d;
    }

    /**
     * Arms the timeout of a step whose code the calling thread is about to run.
     *
     * @param row      the claim
     * @param timeout  its timeout
     * @param giveUp   run once if the thread is still in the step's code a grace after the timeout:
     *                 stops heartbeating the claim
     * @return the watch, which the thread must {@link Watch#returned()} as soon as the step's code returns or throws
     */
    Watch arm(ClaimedRow row, Duration timeout, Runnable giveUp) {
        Watch w = new Watch(row, timeout, Thread.currentThread(), giveUp, System.nanoTime() + nanos(timeout));
        armed.add(w);
        sweepBy(w.deadline);
        return w;
    }

    /** Makes sure a sweep runs at {@code deadline} or earlier. */
    private void sweepBy(long deadline) {
        while (true) {
            long next = nextSweep.get();
            if (next <= deadline) {
                return;
            }
            if (nextSweep.compareAndSet(next, deadline)) {
                try {
                    timer.schedule(this::sweep, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException e) {
                    // the engine is stopping: its steps run on without a timeout
                    nextSweep.compareAndSet(deadline, Long.MAX_VALUE);
                    LOG.log(Level.DEBUG, "gen-durable: the timer refused a step-timeout sweep: " + e);
                }
                return;
            }
        }
    }

    /** Fires the due timeouts, gives up the due graces, and schedules the next sweep. */
    private void sweep() {
        // reset first: a watch armed from now on schedules its own sweep, one armed before is seen below
        nextSweep.set(Long.MAX_VALUE);
        long now = System.nanoTime();
        long earliest = Long.MAX_VALUE;
        for (Watch w : armed) {
            try {
                if (w.deadline - now <= 0) {
                    if (!w.due()) {
                        armed.remove(w);
                        continue;
                    }
                }
                earliest = Math.min(earliest, w.deadline);
            } catch (RuntimeException e) {
                armed.remove(w);
                ctx.metrics().loopErrors.increment();
                LOG.log(Level.WARNING, "gen-durable: the step timeout of instance " + w.row.id() + " failed: " + e);
            }
        }
        if (earliest != Long.MAX_VALUE) {
            sweepBy(earliest);
        }
    }

    /**
     * The timeout of one run of a step. States: running → returned (the step's outcome is taken), or
     * running → timed out (the timeout's is) → collected (the thread came back within the grace) or
     * given up (it did not). The monitor orders the interrupt before the thread's clearing of it.
     */
    final class Watch {
        private static final int RUNNING = 0;
        private static final int RETURNED = 1;
        private static final int TIMED_OUT = 2;
        private static final int COLLECTED = 3;
        private static final int GIVEN_UP = 4;

        private final AtomicInteger state = new AtomicInteger(RUNNING);
        private final ClaimedRow row;
        private final Duration timeout;
        private final Thread thread;
        private final Runnable giveUp;
        // the timeout's deadline, then (timed out) the grace's; System.nanoTime() base. Set when armed,
        // then by the timer's thread
        private volatile long deadline;

        Watch(ClaimedRow row, Duration timeout, Thread thread, Runnable giveUp, long deadline) {
            this.row = row;
            this.timeout = timeout;
            this.thread = thread;
            this.giveUp = giveUp;
            this.deadline = deadline;
        }

        /**
         * The step's code returned or threw, in its own thread.
         *
         * @return true when its outcome stands; false when the timeout took the step first: the
         * thread's interrupt is cleared, and {@link #error()} is the outcome's cause
         */
        boolean returned() {
            if (state.compareAndSet(RUNNING, RETURNED)) {
                armed.remove(this);
                return true;
            }
            synchronized (this) {
                // the timer interrupted this thread inside this monitor: that interrupt has landed
            }
            Thread.interrupted();  // meant for the step's code, not for the engine's statements that follow
            if (!state.compareAndSet(TIMED_OUT, COLLECTED)) {
                LOG.log(Level.INFO, "gen-durable: the timed-out step '" + row.step() + "' of instance " + row.id()
                        + " returned after its claim was given up; what it leads to is written only if the claim is still its own");
            }
            armed.remove(this);
            return false;
        }

        /** @return what the step's outcome is replaced with once the timeout took it */
        StepTimeoutException error() {
            return new StepTimeoutException(row.step(), timeout);
        }

        /** @return whether to keep watching: the timeout fired (the grace runs), or the grace has not passed */
        private boolean due() {
            int s = state.get();
            if (s == RUNNING) {
                FireHook hook = fireHook;
                hook.before(row.id());
                synchronized (this) {
                    if (!state.compareAndSet(RUNNING, TIMED_OUT)) {
                        hook.after(row.id(), false);
                        return false;  // the step's code returned first: its outcome stands
                    }
                    ctx.metrics().stepTimedOut(row.fsm(), row.step());  // counted before the step can go on
                    deadline = System.nanoTime() + graceNanos;
                    thread.interrupt();
                }
                timedOut();
                hook.after(row.id(), true);
                return true;
            }
            if (s == TIMED_OUT && row.concurrencyKey() != null) {
                // A limit holds: given up, the claim's lease would lapse and free its key (and gate
                // slot) for another step of that key while this thread still runs its code. Kept
                // instead, as it was before its timeout: collected when the thread returns.
                LOG.log(Level.WARNING, "gen-durable: the step '" + row.step() + "' of instance " + row.id() + " ("
                        + row.fsm() + ") ignored its interrupt for " + grace + " after its timeout; it holds concurrency"
                        + " key '" + row.concurrencyKey() + "', so its claim stays heartbeated and its key and slot taken"
                        + " until it returns");
                fireHook.graced(row.id(), false);
                return false;
            }
            if (s == TIMED_OUT && state.compareAndSet(TIMED_OUT, GIVEN_UP)) {
                LOG.log(Level.WARNING, "gen-durable: the step '" + row.step() + "' of instance " + row.id() + " ("
                        + row.fsm() + ") ignored its interrupt for " + grace
                        + " after its timeout; its claim is no longer heartbeated: the reaper takes the row back once"
                        + " its lease lapses. The thread keeps its slot of queue " + row.queue() + " until it returns");
                giveUp.run();
                fireHook.graced(row.id(), true);
            }
            return false;
        }

        private void timedOut() {
            LOG.log(Level.INFO, "gen-durable: the step '" + row.step() + "' of instance " + row.id() + " (" + row.fsm()
                    + ") timed out after " + timeout + "; its thread is interrupted");
            try {
                ctx.events().stepTimedOut(row.id(), row.fsm(), row.step(), row.queue());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
            }
        }
    }
}
