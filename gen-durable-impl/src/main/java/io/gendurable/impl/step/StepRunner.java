package io.gendurable.impl.step;

import io.gendurable.events.OutcomeStale;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.Backoff;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.impl.flush.Flusher;
import io.gendurable.impl.flush.StepHistory;
import io.gendurable.impl.flush.Transition;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletionException;

/**
 * Runs one claimed step with no transaction open, turns whatever happens into an outcome
 * (exceptions and unstorable outcomes through {@link Fsm#onError}) and hands it to the flusher:
 * {@link #run} blocks until it is durable, {@link #runThen} is told when it is (no thread waits).
 * A step that throws never waits out a lease.
 */
public final class StepRunner {
    private static final Logger LOG = System.getLogger("io.gendurable.step");

    private final EngineContext engine;
    private final FsmRegistry registry;
    private final OutcomeEncoder encoder;
    private final String nodeId;
    private final InlineContinuation inline;
    private final java.time.Duration leaseTtl;
    private final StepTimeouts timeouts;

    /**
     * @param ctx      the engine's context (its FSMs, node id, lease TTL, clock, counters and observers)
     * @param encoder  turns outcomes into transitions
     * @param inline   runs a {@code next} inline (keeping the row); {@code null} runs every step as its own claim
     */
    public StepRunner(EngineContext ctx, OutcomeEncoder encoder, InlineContinuation inline) {
        this.engine = ctx;
        this.registry = ctx.registry();
        this.encoder = encoder;
        this.nodeId = ctx.config().node().id();
        this.inline = inline;
        this.leaseTtl = ctx.config().lease().ttl();
        this.timeouts = new StepTimeouts(ctx);
    }

    /**
     * @return what became of the outcome
     * @throws CompletionException when the flush failed (the lease will expire; the reaper re-runs it)
     */
    public Flusher.Result run(Picked picked, String worker, Flusher flusher, java.util.function.BooleanSupplier mayChain) {
        return run(picked, worker, flusher, mayChain, Continued.IGNORED);
    }

    /**
     * The holder of a chain's claims: told when an inline continue moved a claim to a new fencing
     * token (the heartbeat must present it), and asked before each step's code runs whether its
     * claim's lease is live.
     */
    public interface Continued {
        /** A listener that ignores the moves and trusts every lease (the test drain: one thread, the test's clock). */
        Continued IGNORED = (id, from, to, leaseUntil) -> { };

        /**
         * @param id         the row
         * @param from       the token of the claim the committed continue ended
         * @param to         the token of the next step's claim
         * @param leaseUntil the lease the continue wrote
         */
        void moved(long id, long from, long to, java.time.Instant leaseUntil);

        /**
         * Asked right before the step's code runs: a claim whose lease lapsed before the step started
         * (a statement or commit that took longer than the lease, a long wait for a slot) may be
         * another node's by now, and its step must not run a second time beside that node's.
         *
         * @param row the claim about to run
         * @return whether its lease is live (confirmed by a renewal when it is close to lapsing); false:
         * the step is not run and the chain ends as stale
         */
        default boolean live(ClaimedRow row) {
            return true;
        }

        /**
         * A timed-out step's code ignored its interrupt for the grace ({@code gendurable.step-timeout-grace}):
         * its claim must no longer be heartbeated, so its lease lapses and the reaper takes the row back.
         * Called once, on the timer's thread, while the step's thread is still in its code (it keeps its slot).
         *
         * @param row the claim given up
         */
        default void abandon(ClaimedRow row) {
        }
    }

    /**
     * @param continued told of each inline continue's new token, before the next step runs
     * @return what became of the outcome
     * @throws CompletionException when the flush failed (the lease will expire; the reaper re-runs it)
     */
    public Flusher.Result run(Picked picked, String worker, Flusher flusher, java.util.function.BooleanSupplier mayChain,
                       Continued continued) {
        return run(picked, worker, flusher, mayChain, continued, null);
    }

    /**
     * @param continued   told of each inline continue's new token, before the next step runs
     * @param codeDone    run once, right after the last step of the chain has handed its outcome to the flusher
     *                    and before this thread waits for it to be durable (the step's code is done: its slot
     *                    may run another step meanwhile); null: nothing
     * @return what became of the outcome
     * @throws CompletionException when the flush failed (the lease will expire; the reaper re-runs it)
     */
    public Flusher.Result run(Picked picked, String worker, Flusher flusher, java.util.function.BooleanSupplier mayChain,
                       Continued continued, Runnable codeDone) {
        java.util.concurrent.CompletableFuture<Flusher.Result> ended = new java.util.concurrent.CompletableFuture<>();
        runThen(picked, worker, flusher, mayChain, continued, codeDone, (result, failure) -> {
            if (failure != null) {
                ended.completeExceptionally(failure);
            } else {
                ended.complete(result);
            }
        });
        return ended.join();
    }

    /** Told once what became of a chain's last outcome. */
    public interface Finished {
        /**
         * @param result  what became of the outcome, or null when it could not be written
         * @param failure why it could not be written (the lease will expire; the reaper re-runs the step), or null
         */
        void finished(Flusher.Result result, Throwable failure);
    }

    /**
     * Runs the step (and its inline continues, each waited for: the next step needs its commit),
     * then hands the chain's last outcome to the flusher and returns without waiting for it:
     * {@code finished} is told when it is durable, stale or failed, in the thread that completes
     * the flush (or in this one, when it already was). No thread waits for a terminal outcome's
     * commit.
     *
     * @param continued told of each inline continue's new token, before the next step runs
     * @param codeDone  run once, right after the last step of the chain has handed its outcome to the
     *                  flusher (the step's code is done: its slot may run another step); null: nothing
     * @param finished  told exactly once when this method returns normally; never when it throws
     */
    public void runThen(Picked picked, String worker, Flusher flusher, java.util.function.BooleanSupplier mayChain,
                        Continued continued, Runnable codeDone, Finished finished) {
        runThen(picked, worker, flusher, mayChain, continued, codeDone, finished, null);
    }

    /** Runs the next step of a chain whose inline continue is durable, on a step thread of the caller's choosing. */
    public interface Resumer {
        /**
         * @param next the chain's next step; it ends the chain itself (its failures are told to the
         *             chain's {@code finished}, never thrown)
         */
        void resume(Runnable next);
    }

    /**
     * As {@link #runThen(Picked, String, Flusher, java.util.function.BooleanSupplier, Continued, Runnable, Finished)};
     * with a {@code resumer}, no thread waits for an inline continue's commit either: {@code codeDone}
     * runs each time the chain's code stops (an inline continue or the last outcome handed to the
     * flusher), and once an inline continue is durable its next step goes to {@code resumer}.
     *
     * @param resumer runs a chain's next step once its inline continue is durable; null: this thread
     *                waits for each inline continue's commit and runs the next step itself
     */
    public void runThen(Picked picked, String worker, Flusher flusher, java.util.function.BooleanSupplier mayChain,
                        Continued continued, Runnable codeDone, Finished finished, Resumer resumer) {
        chain(picked, 0, new Chain(worker, flusher, mayChain, continued, codeDone, finished, resumer));
    }

    /** What a chain of steps reports to, the same for each of its steps (resumed ones included). */
    private record Chain(String worker, Flusher flusher, java.util.function.BooleanSupplier mayChain,
                         Continued continued, Runnable codeDone, Finished finished, Resumer resumer) {
    }

    private void chain(Picked picked, int chainedBefore, Chain c) {
        String worker = c.worker();
        Flusher flusher = c.flusher();
        Runnable codeDone = c.codeDone();
        Finished finished = c.finished();
        Picked current = picked;
        for (int chained = chainedBefore; ; chained++) {
            if (!c.continued().live(current.row())) {
                // its lease lapsed before its code started: the reaper's (or another node's) now
                engine.metrics().stale.increment();
                if (engine.bus().on(EventKind.OUTCOME_STALE)) {
                    engine.bus().publish(new OutcomeStale(current.row().id(), current.row().fsm(), current.row().step(), "none"));
                }
                LOG.log(Level.INFO, "gen-durable: the claim of instance " + current.row().id()
                        + " lapsed before its step started; the step is left to the reaper");
                finished.finished(Flusher.Result.STALE, null);
                return;
            }
            // asked once the step's code has returned (decide): a queue paused while it ran stops the chain here
            java.util.function.BooleanSupplier inlineAllowed = inline != null && chained < InlineContinuation.MAX_CHAIN
                    ? c.mayChain() : () -> false;
            long start = System.nanoTime();
            java.time.Instant startedAt = engine.clock().instant();
            ClaimedRow claimed = current.row();
            io.gendurable.impl.trace.Tracing.StepSpan span = engine.tracing() == io.gendurable.impl.trace.Tracing.NONE
                    ? io.gendurable.impl.trace.Tracing.StepSpan.NONE
                    : engine.tracing().startStep(new io.gendurable.impl.trace.StepAttributes(claimed.fsm(), claimed.step(),
                            claimed.id(), claimed.attempt(), claimed.queue(),
                            new io.gendurable.impl.trace.TraceContext(claimed.traceparent(), claimed.tracestate()),
                            signalLinks(current)));
            Transition encoded;
            boolean logContext = StepLogContext.enter(claimed);  // docs/logging.md
            try {
                encoded = decide(current, worker, inlineAllowed, c.continued());
            } catch (RuntimeException | Error e) {
                span.leave();
                span.end("error", Backoff.describe(e));
                throw e;
            } finally {
                StepLogContext.exit(logContext);
            }
            span.leave();  // ended once the flush tells the outcome's fate (spanEnd)
            long nanos = System.nanoTime() - start;
            engine.metrics().step(encoded.kind().label(), nanos);
            ClaimedRow row = current.row();
            if (!(encoded instanceof Transition.Continue committed)) {
                // no step of this chain runs after this one: its slot goes back as soon as the outcome
                // is queued, and nothing waits for the commit but the bookkeeping of its end
                flusher.submit(encoded, history(row, encoded, startedAt), codeDone).whenComplete((written, failure) -> {
                    spanEnd(span, encoded, written, failure);
                    if (failure != null) {
                        finished.finished(null, failure);
                        return;
                    }
                    try {
                        stepFinished(row, encoded, nanos, written.result());
                    } finally {
                        // whatever an observer threw: the step's end is told (its slot must come back)
                        finished.finished(written.result(), null);
                    }
                });
                return;
            }
            if (c.resumer() != null) {
                // the next step needs this commit, but no thread waits for it: the commit hands it on
                Picked from = current;
                int next = chained + 1;
                flusher.submit(encoded, history(row, encoded, startedAt), codeDone).whenComplete((written, failure) -> {
                    spanEnd(span, encoded, written, failure);
                    continuedDurable(from, committed, row, encoded, nanos, written, failure, next, c);
                });
                return;
            }
            Flusher.Written written;
            try {
                written = flusher.submit(encoded, history(row, encoded, startedAt), null).join();
            } catch (RuntimeException e) {
                spanEnd(span, encoded, null, e);
                throw e;
            }
            spanEnd(span, encoded, written, null);
            Flusher.Result result = written.result();
            stepFinished(row, encoded, nanos, result);
            if (result == Flusher.Result.STALE || result == Flusher.Result.CANCELLED) {
                finished.finished(result, null);
                return;
            }
            c.continued().moved(row.id(), row.claimToken(), written.token(), committed.leaseUntil());
            current = inline.next(current, committed, result == Flusher.Result.COMMITTED_WITH_SIGNALS, written.token(),
                    worker, flusher);
            if (current == null) {
                finished.finished(result, null);  // admission denied the next step: it went back to the queue
                return;
            }
        }
    }

    /** An inline continue's flush ended (in the thread that completed it): hand its next step to the resumer, or end the chain. */
    private void continuedDurable(Picked from, Transition.Continue committed, ClaimedRow row, Transition encoded, long nanos,
                                  Flusher.Written written, Throwable failure, int chained, Chain c) {
        Finished finished = c.finished();
        if (failure != null) {
            finished.finished(null, failure);
            return;
        }
        Flusher.Result result = written.result();
        try {
            stepFinished(row, encoded, nanos, result);
        } catch (VirtualMachineError e) {
            finished.finished(null, e);
            throw e;
        } catch (Error e) {
            // an observer's Error must not strand the chain (its slot and claim): the next step still runs
            LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
        }
        if (result == Flusher.Result.STALE || result == Flusher.Result.CANCELLED) {
            finished.finished(result, null);
            return;
        }
        c.continued().moved(row.id(), row.claimToken(), written.token(), committed.leaseUntil());
        c.resumer().resume(() -> {
            try {
                // the next step's admission and inbox are read on the step thread, not the flush's
                Picked next = inline.next(from, committed, result == Flusher.Result.COMMITTED_WITH_SIGNALS,
                        written.token(), c.worker(), c.flusher());
                if (next == null) {
                    finished.finished(result, null);  // admission denied the next step: it went back to the queue
                    return;
                }
                chain(next, chained, c);
            } catch (RuntimeException | Error e) {
                finished.finished(null, e);
                if (e instanceof Error error) {
                    throw error;
                }
            }
        });
    }

    /** Ends a step's span with its outcome's fate: as written, {@code stale}, or {@code error} when it was not written. */
    private static void spanEnd(io.gendurable.impl.trace.Tracing.StepSpan span, Transition encoded, Flusher.Written written,
                                Throwable failure) {
        try {
            if (failure != null) {
                span.end("error", "the outcome (" + encoded.kind().label() + ") was not written: " + failure);
            } else if (written.result() == Flusher.Result.STALE) {
                span.end("stale", encoded.error());
            } else if (written.result() == Flusher.Result.CANCELLED) {
                span.end("cancelled", encoded.error());
            } else {
                span.end(encoded.kind().label(), encoded.error());
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: ending a step's span failed: " + e);
        }
    }

    private void stepFinished(ClaimedRow row, Transition encoded, long nanos, Flusher.Result result) {
        // the events with their data (stale outcome; step events for plain listeners): only when listened to
        engine.bus().stepFinished(row.id(), row.fsm(), row.step(), row.queue(), encoded.kind().label(), nanos,
                encoded.error(), result == Flusher.Result.STALE);
        try {
            engine.events().stepFinished(row.id(), row.fsm(), row.step(), row.queue(), encoded.kind().label(), nanos,
                    encoded.error(), result == Flusher.Result.STALE);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
        }
    }

    /** @return the inbox signals that were sent with a span current: the step span's links */
    private static java.util.List<io.gendurable.impl.trace.StepAttributes.SignalLink> signalLinks(Picked picked) {
        if (picked.inbox().isEmpty()) {
            return java.util.List.of();
        }
        java.util.List<io.gendurable.impl.trace.StepAttributes.SignalLink> links = new java.util.ArrayList<>(picked.inbox().size());
        for (InboxSql.SignalRow s : picked.inbox()) {
            if (s.traceparent() != null) {
                links.add(new io.gendurable.impl.trace.StepAttributes.SignalLink(s.name(), s.id(),
                        new io.gendurable.impl.trace.TraceContext(s.traceparent(), s.tracestate())));
            }
        }
        return links;
    }

    /** @return the step's history record when history is on for its FSM (or everywhere), else null */
    private StepHistory history(ClaimedRow row, Transition encoded, java.time.Instant startedAt) {
        io.gendurable.impl.config.EngineConfig.HistoryConfig h = engine.config().history();
        if (!h.enabled() && !registry.find(row.fsm(), row.fsmVersion()).map(FsmDefinition::history).orElse(false)) {
            return null;
        }
        return new StepHistory(encoded.claim(), row.step(), row.attempt(), encoded.kind().label(), startedAt,
                engine.clock().instant(), nodeId, encoded.error(),
                h.includeState() && encoded.setsState() ? encoded.stateJson() : null);
    }

    private Transition decide(Picked picked, String worker, java.util.function.BooleanSupplier inlineAllowed,
                              Continued continued) {
        ClaimedRow row = picked.row();
        Optional<FsmDefinition> found = registry.find(row.fsm(), row.fsmVersion());
        if (found.isEmpty()) {
            return stop(picked, worker, "no FSM registered as '" + row.fsm() + "' version " + row.fsmVersion()
                    + " on node " + nodeId + "; registered: " + registry.describe());
        }
        FsmDefinition def = found.get();
        if (row.attempt() > def.maxAttempts() && row.lastError() != null
                && row.lastError().startsWith(io.gendurable.impl.lease.LeaseSql.LEASE_EXPIRED)) {
            // A step that kills or hangs its worker every time must not loop through the reaper
            // forever. (Retries a step asks for itself are the FSM's business and are not capped here.)
            return stop(picked, worker, "gave up after " + (row.attempt() - 1) + " attempts of step '" + row.step()
                    + "' (maxAttempts " + def.maxAttempts() + "); the last ones ended with an expired lease");
        }
        RunningContext ctx = new RunningContext(picked, def.maxAttempts(), engine.json());
        Object state;
        try {
            state = engine.json().read(row.stateJson(), def.stateType());
        } catch (RuntimeException e) {
            return stop(picked, worker, "the state of instance " + row.id() + " cannot be read as "
                    + def.stateType().getTypeName() + ": " + Backoff.describe(e));
        }
        Fsm<Object> fsm = null;
        Outcome outcome = null;
        Throwable failure = null;
        io.gendurable.StepTimeoutException timedOut = null;
        try {
            fsm = def.instance().get();
            java.time.Duration timeout = timeouts.of(def, fsm, row);  // null (no allocation) when none is set
            StepTimeouts.Watch watch = timeout == null ? null : timeouts.arm(row, timeout, () -> continued.abandon(row));
            try {
                outcome = fsm.step(row.step(), state, ctx);
            } finally {
                // one atomic decides: the step's outcome, or (the timer was first) the timeout's, never both
                if (watch != null && !watch.returned()) {
                    timedOut = watch.error();
                }
            }
            if (timedOut == null && outcome == null) {
                throw new IllegalStateException(def.beanClass().getName() + ".step(\"" + row.step() + "\") returned null");
            }
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            failure = e;
        }
        String error = null;
        if (timedOut != null) {
            // whatever the step returned or threw after its timeout is discarded: it is the timeout's outcome
            if (failure != null) {
                timedOut.addSuppressed(failure);
            }
            failure = timedOut;
        }
        if (failure != null) {
            outcome = onError(fsm, row, state, ctx, failure);
            error = Backoff.describe(failure);
        }
        try {
            java.time.Instant now = engine.clock().instant();
            java.time.Instant lease = error == null && inlineAllowed.getAsBoolean() && inline.wanted(def, outcome)
                    ? now.plus(leaseTtl) : null;
            return encoder.encode(picked, worker, outcome, now, error, lease);
        } catch (RuntimeException e) {
            // An outcome that cannot be serialized goes to onError, never into a reaper loop.
            IllegalStateException unstorable = new IllegalStateException("the "
                    + OutcomeEncoder.kind(outcome) + " outcome of step '" + row.step()
                    + "' cannot be stored as JSON: " + Backoff.describe(e), e);
            Outcome recovered = onError(fsm, row, state, ctx, unstorable);
            try {
                return encoder.encode(picked, worker, recovered, engine.clock().instant(), Backoff.describe(unstorable));
            } catch (RuntimeException again) {
                return stop(picked, worker, "the outcome of step '" + row.step() + "' cannot be stored as JSON: "
                        + Backoff.describe(again));
            }
        }
    }

    private Transition stop(Picked picked, String worker, String error) {
        LOG.log(Level.WARNING, "gen-durable: instance " + picked.row().id() + " fails: " + error);
        return encoder.encode(picked, worker, Outcome.stop(error), engine.clock().instant(), null);
    }

    private Outcome onError(Fsm<Object> fsm, ClaimedRow row, Object state, RunningContext ctx, Throwable error) {
        Outcome o = null;
        if (fsm != null) {
            try {
                o = fsm.onError(row.step(), state, ctx, error);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                error.addSuppressed(e);
                LOG.log(Level.WARNING, "gen-durable: onError of " + row.fsm() + " threw; using the default policy", e);
            }
        }
        if (o == null) {
            o = ctx.attempt() < ctx.maxAttempts() ? Outcome.retry(Backoff.exponential(ctx.attempt()))
                    : Outcome.stop(Backoff.describe(error));
        }
        return o;
    }
}
