package io.gendurable.impl.cdi;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Job;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.concurrent.atomic.AtomicInteger;

/** FSM beans for the CDI tests; each test adds only the ones it names. */
final class TestFsms {
    private TestFsms() {
    }

    /** The state of {@link Tally}. */
    public record Count(int n) {
    }

    /** A service an FSM injects, to show FSMs are real CDI beans. */
    @ApplicationScoped
    public static class Increments {
        private final AtomicInteger calls = new AtomicInteger();

        /** @return how often {@link #next} ran */
        public int calls() {
            return calls.get();
        }

        /** @return {@code n + 1} */
        public int next(int n) {
            calls.incrementAndGet();
            return n + 1;
        }
    }

    /** Counts to three through an injected service, then completes with its state. */
    @ApplicationScoped
    @DurableFsm(name = "cdi-tally", version = 1)
    public static class Tally implements Fsm<Count> {
        @Inject
        Increments increments;

        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            return s.n() < 3 ? Outcome.next("start", new Count(increments.next(s.n()))) : Outcome.done(s);
        }
    }

    /** Claims name "dup" version 1. */
    @ApplicationScoped
    @DurableFsm(name = "dup", version = 1)
    public static class DuplicateA implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            return Outcome.done();
        }
    }

    /** Also claims name "dup" version 1, as a job. */
    @ApplicationScoped
    @DurableFsm(name = "dup", version = 1)
    public static class DuplicateB implements Job<Count> {
        @Override
        public Object perform(Count args, StepContext ctx) {
            return null;
        }
    }

    /** Name "dup" version 2: may live beside {@link DuplicateA}. */
    @ApplicationScoped
    @DurableFsm(name = "dup", version = 2)
    public static class DuplicateV2 implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            return Outcome.done();
        }
    }
}
