package io.gendurable.impl.signals;

import io.gendurable.impl.db.UnknownCommitException;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.impl.db.CallerTransactions;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.ValueSize;

import io.gendurable.impl.trace.TraceContext;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;

/**
 * Validates and delivers signals (one statement each), and pokes the queue of a woken target.
 * Inside a caller's transaction the delivery joins it and the poke waits for its commit.
 * Outside one, a row the signal wakes is claimed in the signal's transaction for a free slot of
 * this node when it needs no claim's checks ({@link WakeStarts}): its step starts when the signal
 * commits, and nothing is poked for it.
 */
public final class Signaller {
    /** The longest signal name and dedup key accepted. */
    static final int MAX_NAME = 255;

    private final EngineContext ctx;
    private final SignalSql sql;
    private final Poke poke;
    private final CallerTransactions callerTransactions;
    private final ValueSize valueSize;
    private final WakeStarts starts;

    /**
     * @param ctx                the engine's context
     * @param poke               told of the queues whose rows a signal woke
     * @param callerTransactions how a signal joins its caller's transaction
     * @param starts             this node's queues that start a row at its wake-up ({@link WakeStarts#NONE}: none)
     */
    public Signaller(EngineContext ctx, Poke poke, CallerTransactions callerTransactions, WakeStarts starts) {
        this.ctx = ctx;
        this.starts = ctx.config().poll().startAtInsert() ? starts : WakeStarts.NONE;
        this.callerTransactions = callerTransactions;
        this.valueSize = new ValueSize(ctx.config().values().maxBytes());
        this.sql = ctx.statements().of(SignalSql.class, SignalSql::new);
        this.poke = poke;
    }

    public SignalResult signal(SignalTarget target, String name, Object payload, String dedupKey) {
        Objects.requireNonNull(target, "target must not be null");
        requireText("name", name);
        if (dedupKey != null) {
            requireText("dedupKey", dedupKey);
        }
        String payloadJson;
        try {
            payloadJson = ctx.json().write(payload);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the payload of signal '" + name + "' cannot be serialized as JSON: "
                    + e.getMessage(), e);
        }
        valueSize.check("the payload of signal '" + name + "'", payloadJson);
        Long id = target instanceof SignalTarget.Id i ? i.id() : null;
        String key = target instanceof SignalTarget.CorrelationKey k ? k.key() : null;
        TraceContext sender = ctx.tracing().current();  // NONE when tracing is off
        Db.Work<SignalSql.Delivery> work = c -> sql.deliver(c, id, key, name, payloadJson, dedupKey, ctx.clock().instant(),
                sender);
        Optional<CallerTransactions.Joined> joined = callerTransactions.active();
        SignalSql.Delivery d;
        if (joined.isPresent()) {
            d = joined.get().run(work);
            if (d.wokenQueue() != null) {
                joined.get().afterCommit(() -> poke.poke(d.wokenQueue()));
            }
        } else {
            WakeStart start = new WakeStart();
            try {
                d = ctx.db().inTransaction(c -> start.claimWoken(c, work.run(c)));
            } catch (RuntimeException e) {
                start.abandoned(e instanceof UnknownCommitException);
                throw e;
            }
            if (!start.committed() && d.wokenQueue() != null) {
                poke.poke(d.wokenQueue());
            }
        }
        if (!d.targetFound()) {
            ctx.metrics().signalsNoTarget.increment();
            return SignalResult.NO_TARGET;
        }
        if (!d.inserted()) {
            ctx.metrics().signalsDuplicate.increment();
            return SignalResult.DUPLICATE;
        }
        ctx.metrics().signalsDelivered.increment();
        return SignalResult.DELIVERED;
    }

    /** The wake-up of one signal outside a caller's transaction: a slot reserved, and the woken row claimed in it. */
    private final class WakeStart {
        private WakeStarts.Slot slot;
        private boolean claimed;

        /** @return the delivery, after claiming the row it woke for a free local slot where it can */
        SignalSql.Delivery claimWoken(Connection c, SignalSql.Delivery d) throws SQLException {
            if (d.wokenId() != null && (slot = starts.reserve(d.wokenQueue())) != null) {
                claimed = slot.claimIn(c, d.wokenId());
            }
            return d;
        }

        /** @return whether the woken row was claimed here and now runs (nothing to poke) */
        boolean committed() {
            if (slot != null) {
                slot.committed();
            }
            return claimed;
        }

        void abandoned(boolean mayHaveCommitted) {
            if (slot != null) {
                slot.abandoned(mayHaveCommitted);
            }
        }
    }

    private static void requireText(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " must not be null or blank");
        }
        if (value.length() > MAX_NAME) {
            throw new IllegalArgumentException(field + " must be at most " + MAX_NAME + " characters, got "
                    + value.length());
        }
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(field + " must not contain a NUL character (PostgreSQL text cannot store it)");
        }
    }
}
