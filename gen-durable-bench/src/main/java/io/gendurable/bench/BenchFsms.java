package io.gendurable.bench;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Job;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLongArray;

/** The no-op FSMs the scenarios run. Their code does nothing but what the measurement needs. */
public final class BenchFsms {
    private BenchFsms() {
    }

    /** @param n the job's number */
    public record Args(int n) {
    }

    /** @return no-op job number {@code i} */
    public static NewInstance noop(int i) {
        return NewInstance.of(NoopJob.class, new Args(i));
    }

    /**
     * How long {@link NoopJob}'s step sleeps: the system property {@code bench.step-ms} (the
     * scale-out nodes' {@code --scaleout-step-ms}), else 0.
     */
    static final long STEP_MS = Long.getLong("bench.step-ms", 0);

    /** A no-op job: completes at once with no result (after {@link #STEP_MS}, when set). */
    @DurableFsm(name = "bench-job", maxAttempts = 3)
    public static final class NoopJob implements Job<Args> {
        @Override
        public Object perform(Args args, StepContext ctx) throws InterruptedException {
            if (STEP_MS > 0) {
                Thread.sleep(STEP_MS);
            }
            return null;
        }
    }

    /** @param left steps still to run, this one included */
    public record Hop(int left) {
    }

    /** K no-op steps: {@code start}, then {@code hop} until {@code left} reaches 1, then done. */
    @DurableFsm(name = "bench-fsm", maxAttempts = 3, inlineExecution = false)
    public static final class HopFsm implements Fsm<Hop> {
        @Override
        public Outcome step(String step, Hop s, StepContext ctx) {
            return s.left() <= 1 ? Outcome.done() : Outcome.next("hop", new Hop(s.left() - 1));
        }
    }

    /** The same K steps, declared for inline execution. */
    @DurableFsm(name = "bench-fsm-inline", maxAttempts = 3, inlineExecution = true)
    public static final class InlineHopFsm implements Fsm<Hop> {
        @Override
        public Outcome step(String step, Hop s, StepContext ctx) {
            return s.left() <= 1 ? Outcome.done() : Outcome.next("hop", new Hop(s.left() - 1));
        }
    }

    /**
     * @param seq    the probe's number (an index into the recorder's arrays)
     * @param waiter whether it parks on signal {@code go} first
     */
    public record Probe(int seq, boolean waiter) {
    }

    /**
     * The latency probe. A plain probe records when its step started; a waiter parks until
     * signal {@code go}, then records when the woken step started. The bench stamps the send
     * times (System.nanoTime(), same JVM) in {@link #sent} and {@link #signalled} first.
     */
    @DurableFsm(name = "bench-probe", maxAttempts = 3)
    public static final class ProbeFsm implements Fsm<Probe> {
        final AtomicLongArray sent;
        final AtomicLongArray started;
        final AtomicLongArray signalled;
        final AtomicLongArray woken;

        public ProbeFsm(int probes, int waiters) {
            this.sent = new AtomicLongArray(Math.max(probes, 1));
            this.started = new AtomicLongArray(Math.max(probes, 1));
            this.signalled = new AtomicLongArray(Math.max(waiters, 1));
            this.woken = new AtomicLongArray(Math.max(waiters, 1));
        }

        @Override
        public Outcome step(String step, Probe p, StepContext ctx) {
            long now = System.nanoTime();
            if (!p.waiter()) {
                started.set(p.seq(), now);
                return Outcome.done();
            }
            if (step.equals("start")) {
                return Outcome.await(Set.of("go"), "woken", p);
            }
            woken.set(p.seq(), now);
            return Outcome.done();
        }
    }

    /** @param children how many children to fan out */
    public record Fan(int children) {
    }

    /** One parent: fans out {@code children} no-op jobs, then records when it wakes. */
    @DurableFsm(name = "bench-parent", maxAttempts = 3)
    public static final class ParentFsm implements Fsm<Fan> {
        volatile long fannedOutAt;
        volatile long wokenAt;
        volatile int childrenSeen;

        @Override
        public Outcome step(String step, Fan f, StepContext ctx) {
            if (step.equals("start")) {
                List<NewInstance> kids = new ArrayList<>(f.children());
                for (int i = 0; i < f.children(); i++) {
                    kids.add(NewInstance.of(NoopJob.class, new Args(i), InsertOptions.defaults()));
                }
                fannedOutAt = System.nanoTime();
                return Outcome.scheduleChildren(kids, "joined", f);
            }
            wokenAt = System.nanoTime();
            childrenSeen = ctx.children().size();
            return Outcome.done();
        }
    }
}
