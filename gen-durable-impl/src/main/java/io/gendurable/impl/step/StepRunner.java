package io.gendurable.impl.step;

import io.gendurable.Backoff;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepTimeoutException;
import io.gendurable.events.OutcomeStale;
import io.gendurable.impl.config.ConfigParts.HistoryConfig;
import io.gendurable.impl.flush.Flusher;
import io.gendurable.impl.flush.StepHistory;
import io.gendurable.impl.flush.Transition;
import io.gendurable.impl.flush.Written;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.lease.LeaseSql;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.impl.trace.StepAttributes;
import io.gendurable.impl.trace.TraceContext;
import io.gendurable.impl.trace.Tracing;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;

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
        this.timeouts = new StepTimeouts(ctx);
    }

    /**
     * The blocking adapter (the test drain): runs the step and its inline continues in this thread,
     * each commit waited for.
     *
     * @param mayChain asked once each step's code has returned: may its next run inline?
     * @return what became of the chain's last outcome
     * @throws CompletionException when the flush failed (the lease will expire; the reaper re-runs it)
     */
    public Written.Result run(Claimed claimed, String worker, Flusher flusher, BooleanSupplier mayChain) {
        CompletableFuture<Written.Result> ended = new CompletableFuture<>();
        chain(claimed, 0, new Chain(worker, flusher, new StepSlot() {
            @Override
            public boolean mayChain() {
                return mayChain.getAsBoolean();
            }

            @Override
            public void resume(Runnable next) {
                throw new IllegalStateException("a blocking chain runs its next step itself");
            }

            @Override
            public void ended(Written.Result result, Throwable failure) {
                if (failure != null) {
                    ended.completeExceptionally(failure);
                } else {
                    ended.complete(result);
                }
            }
        }, true));
        return ended.join();
    }

    /**
     * Runs the step (and its inline continues), then hands the chain's last outcome to the flusher
     * and returns without waiting for it: no thread waits for a commit. {@code slot} is told each
     * time the chain's code stops ({@link StepSlot#codeDone}), gets each next step once its inline
     * continue is durable ({@link StepSlot#resume}) and is told the chain's end
     * ({@link StepSlot#ended}: exactly once when this method returns normally; never when it throws).
     */
    public void runThen(Claimed claimed, String worker, Flusher flusher, StepSlot slot) {
        chain(claimed, 0, new Chain(worker, flusher, slot, false));
    }

    /**
     * What a chain of steps reports to, the same for each of its steps (resumed ones included).
     *
     * @param waits this thread waits for each inline continue's commit and runs the next step itself
     */
    private record Chain(String worker, Flusher flusher, StepSlot slot, boolean waits, BooleanSupplier mayChain,
                         Runnable codeDone) {
        Chain(String worker, Flusher flusher, StepSlot slot, boolean waits) {
            this(worker, flusher, slot, waits, slot::mayChain, waits ? null : slot::codeDone);
        }
    }

    private void chain(Claimed first, int chainedBefore, Chain c) {
        String worker = c.worker();
        Flusher flusher = c.flusher();
        Runnable codeDone = c.codeDone();
        StepSlot slot = c.slot();
        Claimed current = first;
        for (int chained = chainedBefore; ; chained++) {
            if (!slot.live(current.row())) {
                // its lease lapsed before its code started: the reaper's (or another node's) now
                engine.metrics().stale.increment();
                if (engine.bus().on(EventKind.OUTCOME_STALE)) {
                    engine.bus().publish(new OutcomeStale(current.row().id(), current.row().fsm(), current.row().step(), "none"));
                }
                LOG.log(Level.INFO, "gen-durable: the claim of instance " + current.row().id()
                        + " lapsed before its step started; the step is left to the reaper");
                slot.ended(Written.Result.STALE, null);
                return;
            }
            // asked once the step's code has returned (decide): a queue paused while it ran stops the chain here
            BooleanSupplier inlineAllowed = inline != null && chained < InlineContinuation.MAX_CHAIN
                    ? c.mayChain() : () -> false;
            long start = System.nanoTime();
            Instant startedAt = engine.clock().instant();
            ClaimedRow claimed = current.row();
            Tracing.StepSpan span = engine.tracing() == Tracing.NONE
                    ? Tracing.StepSpan.NONE
                    : engine.tracing().startStep(new StepAttributes(claimed.fsm(), claimed.step(),
                            claimed.id(), claimed.attempt(), claimed.queue(),
                            new TraceContext(claimed.traceparent(), claimed.tracestate()),
                            signalLinks(current)));
            Transition encoded;
            boolean logContext = StepLogContext.enter(claimed);  // docs/logging.md
            try {
                encoded = decide(current, worker, inlineAllowed, slot);
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
                        slot.ended(null, failure);
                        return;
                    }
                    try {
                        stepFinished(row, encoded, nanos, written.result());
                    } finally {
                        // whatever an observer threw: the step's end is told (its slot must come back)
                        slot.ended(written.result(), null);
                    }
                });
                return;
            }
            if (!c.waits()) {
                // the next step needs this commit, but no thread waits for it: the commit hands it on
                Claimed from = current;
                int next = chained + 1;
                flusher.submit(encoded, history(row, encoded, startedAt), codeDone).whenComplete((written, failure) -> {
                    spanEnd(span, encoded, written, failure);
                    continuedDurable(from, committed, row, encoded, nanos, written, failure, next, c);
                });
                return;
            }
            Written written;
            try {
                written = flusher.submit(encoded, history(row, encoded, startedAt), null).join();
            } catch (RuntimeException e) {
                spanEnd(span, encoded, null, e);
                throw e;
            }
            spanEnd(span, encoded, written, null);
            Written.Result result = written.result();
            stepFinished(row, encoded, nanos, result);
            if (result == Written.Result.STALE || result == Written.Result.CANCELLED) {
                slot.ended(result, null);
                return;
            }
            slot.moved(row.id(), row.claimToken(), written.token(), committed.leaseUntil());
            current = inline.next(current, committed, result == Written.Result.COMMITTED_WITH_SIGNALS, written.token(),
                    worker, flusher);
            if (current == null) {
                slot.ended(result, null);  // admission denied the next step: it went back to the queue
                return;
            }
        }
    }

    /** An inline continue's flush ended (in the thread that completed it): hand its next step to the resumer, or end the chain. */
    private void continuedDurable(Claimed from, Transition.Continue committed, ClaimedRow row, Transition encoded, long nanos,
                                  Written written, Throwable failure, int chained, Chain c) {
        StepSlot slot = c.slot();
        if (failure != null) {
            slot.ended(null, failure);
            return;
        }
        Written.Result result = written.result();
        try {
            stepFinished(row, encoded, nanos, result);
        } catch (VirtualMachineError e) {
            slot.ended(null, e);
            throw e;
        } catch (Error e) {
            // an observer's Error must not strand the chain (its slot and claim): the next step still runs
            LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
        }
        if (result == Written.Result.STALE || result == Written.Result.CANCELLED) {
            slot.ended(result, null);
            return;
        }
        slot.moved(row.id(), row.claimToken(), written.token(), committed.leaseUntil());
        slot.resume(() -> {
            try {
                // the next step's admission and inbox are read on the step thread, not the flush's
                Claimed next = inline.next(from, committed, result == Written.Result.COMMITTED_WITH_SIGNALS,
                        written.token(), c.worker(), c.flusher());
                if (next == null) {
                    slot.ended(result, null);  // admission denied the next step: it went back to the queue
                    return;
                }
                chain(next, chained, c);
            } catch (RuntimeException | Error e) {
                slot.ended(null, e);
                if (e instanceof Error error) {
                    throw error;
                }
            }
        });
    }

    /** Ends a step's span with its outcome's fate: as written, {@code stale}, or {@code error} when it was not written. */
    private static void spanEnd(Tracing.StepSpan span, Transition encoded, Written written,
                                Throwable failure) {
        try {
            if (failure != null) {
                span.end("error", "the outcome (" + encoded.kind().label() + ") was not written: " + failure);
            } else if (written.result() == Written.Result.STALE) {
                span.end("stale", encoded.error());
            } else if (written.result() == Written.Result.CANCELLED) {
                span.end("cancelled", encoded.error());
            } else {
                span.end(encoded.kind().label(), encoded.error());
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: ending a step's span failed: " + e);
        }
    }

    private void stepFinished(ClaimedRow row, Transition encoded, long nanos, Written.Result result) {
        // the events with their data (stale outcome; step events for plain listeners): only when listened to
        engine.bus().stepFinished(row.id(), row.fsm(), row.step(), row.queue(), encoded.kind().label(), nanos,
                encoded.error(), result == Written.Result.STALE);
        try {
            engine.events().stepFinished(row.id(), row.fsm(), row.step(), row.queue(), encoded.kind().label(), nanos,
                    encoded.error(), result == Written.Result.STALE);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable: an engine observer failed: " + e);
        }
    }

    /** @return the inbox signals that were sent with a span current: the step span's links */
    private static List<StepAttributes.SignalLink> signalLinks(Claimed claimed) {
        if (claimed.inbox().isEmpty()) {
            return List.of();
        }
        List<StepAttributes.SignalLink> links = new ArrayList<>(claimed.inbox().size());
        for (InboxSql.SignalRow s : claimed.inbox()) {
            if (s.traceparent() != null) {
                links.add(new StepAttributes.SignalLink(s.name(), s.id(),
                        new TraceContext(s.traceparent(), s.tracestate())));
            }
        }
        return links;
    }

    /** @return the step's history record when history is on for its FSM (or everywhere), else null */
    private StepHistory history(ClaimedRow row, Transition encoded, Instant startedAt) {
        HistoryConfig h = engine.config().history();
        if (!h.enabled() && !registry.find(row.fsm(), row.fsmVersion()).map(FsmDefinition::history).orElse(false)) {
            return null;
        }
        return new StepHistory(encoded.claim(), row.step(), row.attempt(), encoded.kind().label(), startedAt,
                engine.clock().instant(), nodeId, encoded.error(),
                h.includeState() && encoded.setsState() ? encoded.stateJson() : null);
    }

    private Transition decide(Claimed claimed, String worker, BooleanSupplier inlineAllowed,
                              StepSlot slot) {
        ClaimedRow row = claimed.row();
        Optional<FsmDefinition> found = registry.find(row.fsm(), row.fsmVersion());
        if (found.isEmpty()) {
            return stop(claimed, worker, "no FSM registered as '" + row.fsm() + "' version " + row.fsmVersion()
                    + " on node " + nodeId + "; registered: " + registry.describe());
        }
        FsmDefinition def = found.get();
        if (row.attempt() > def.maxAttempts() && row.lastError() != null
                && row.lastError().startsWith(LeaseSql.LEASE_EXPIRED)) {
            // A step that kills or hangs its worker every time must not loop through the reaper
            // forever. (Retries a step asks for itself are the FSM's business and are not capped here.)
            return stop(claimed, worker, "gave up after " + (row.attempt() - 1) + " attempts of step '" + row.step()
                    + "' (maxAttempts " + def.maxAttempts() + "); the last ones ended with an expired lease");
        }
        RunningContext ctx = new RunningContext(claimed, def.maxAttempts(), engine.json());
        Object state;
        try {
            state = engine.json().read(row.stateJson(), def.stateType());
        } catch (RuntimeException e) {
            return stop(claimed, worker, "the state of instance " + row.id() + " cannot be read as "
                    + def.stateType().getTypeName() + ": " + Backoff.describe(e));
        }
        Fsm<Object> fsm = null;
        Outcome outcome = null;
        Throwable failure = null;
        StepTimeoutException timedOut = null;
        try {
            fsm = def.instance().get();
            Duration timeout = timeouts.of(def, fsm, row);  // null (no allocation) when none is set
            StepTimeouts.Watch watch = timeout == null ? null : timeouts.arm(row, timeout, () -> slot.abandon(row));
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
            Instant now = engine.clock().instant();
            Instant lease = error == null && inlineAllowed.getAsBoolean() && inline.wanted(def, outcome)
                    ? now.plus(engine.config().lease().ttl()) : null;
            return encoder.encode(claimed, worker, outcome, now, error, lease);
        } catch (RuntimeException e) {
            // An outcome that cannot be serialized goes to onError, never into a reaper loop.
            IllegalStateException unstorable = new IllegalStateException("the "
                    + OutcomeEncoder.kind(outcome) + " outcome of step '" + row.step()
                    + "' cannot be stored as JSON: " + Backoff.describe(e), e);
            Outcome recovered = onError(fsm, row, state, ctx, unstorable);
            try {
                return encoder.encode(claimed, worker, recovered, engine.clock().instant(), Backoff.describe(unstorable));
            } catch (RuntimeException again) {
                return stop(claimed, worker, "the outcome of step '" + row.step() + "' cannot be stored as JSON: "
                        + Backoff.describe(again));
            }
        }
    }

    private Transition stop(Claimed claimed, String worker, String error) {
        LOG.log(Level.WARNING, "gen-durable: instance " + claimed.row().id() + " fails: " + error);
        return encoder.encode(claimed, worker, Outcome.stop(error), engine.clock().instant(), null);
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
