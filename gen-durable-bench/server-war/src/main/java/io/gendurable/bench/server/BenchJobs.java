package io.gendurable.bench.server;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Job;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;

/** The bench WAR's work: the same no-op job and K-step FSM as the plain-Java bench, and a job that blocks. */
public final class BenchJobs {
    private BenchJobs() {
    }

    /** @param n the job's number */
    public record Args(int n) {
    }

    /** A no-op job on queue {@code default}: completes at once with no result. */
    @DurableFsm(name = "bench-job", maxAttempts = 3)
    @ApplicationScoped
    public static class NoopJob implements Job<Args> {
        @Override
        public Object perform(Args args, StepContext ctx) {
            return null;
        }
    }

    /**
     * @param n       the job's number
     * @param sleepMs how long its step blocks
     */
    public record Sleep(int n, int sleepMs) {
    }

    /** A job on queue {@code blocking} whose step waits {@code sleepMs} (a call to a slow service). */
    @DurableFsm(name = "bench-blocking", queue = "blocking", maxAttempts = 3)
    @ApplicationScoped
    public static class BlockingJob implements Job<Sleep> {
        @Override
        public Object perform(Sleep s, StepContext ctx) throws InterruptedException {
            Thread.sleep(s.sleepMs());
            return null;
        }
    }

    /** @param left steps still to run, this one included */
    public record Hop(int left) {
    }

    /** K no-op steps on queue {@code default}, each requeued: {@code start}, then {@code hop} until done. */
    @DurableFsm(name = "bench-fsm", maxAttempts = 3, inlineExecution = false)
    @ApplicationScoped
    public static class HopFsm implements Fsm<Hop> {
        @Override
        public Outcome step(String step, Hop h, StepContext ctx) {
            return h.left() <= 1 ? Outcome.done() : Outcome.next("hop", new Hop(h.left() - 1));
        }
    }
}
