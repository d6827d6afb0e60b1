package io.gendurable.impl.support;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;

import java.util.concurrent.atomic.AtomicInteger;

/** The fixture FSMs the engine tests share; a test declares its own only when its steps are the subject. */
public final class Fsms {
    private Fsms() {
    }

    /** A numbered payload. */
    public record Item(int n) {
    }

    /** A one-step job that finishes at once, counting its runs. */
    public static class Noop implements Fsm<Item> {
        public final AtomicInteger runs = new AtomicInteger();

        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            runs.incrementAndGet();
            return Outcome.done();
        }
    }

    /** Two steps: {@code start} then {@code end}, which finishes with the payload. */
    public static class TwoSteps implements Fsm<Item> {
        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            return step.equals("start") ? Outcome.next("end", s) : Outcome.done(s);
        }
    }
}
