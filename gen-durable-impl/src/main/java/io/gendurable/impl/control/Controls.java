package io.gendurable.impl.control;

import io.gendurable.CorrelationKeyHeldException;
import io.gendurable.InstanceStateException;
import io.gendurable.NoSuchInstanceException;
import io.gendurable.PausedQueue;
import io.gendurable.Status;
import io.gendurable.impl.admission.BucketSql;
import io.gendurable.impl.keys.KeySql;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.flush.ChildrenSql;
import io.gendurable.impl.runtime.EngineContext;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An operator's actions on instances and queues, each one short transaction: cancel (with the
 * gate slot returned and a waiting parent told, in the same transaction), retry, reschedule,
 * pause and resume a queue. Callers (the operations facade) validate arguments, log and fire the
 * events; this class writes and tells the engine what changed.
 */
public final class Controls {
    /** The statuses an instance is live in. */
    public static final Set<Status> LIVE = EnumSet.of(Status.RUNNABLE, Status.EXECUTING, Status.AWAITING_SIGNAL,
            Status.AWAITING_CHILDREN);
    /** The statuses a retry applies to. */
    public static final Set<Status> RETRYABLE = EnumSet.of(Status.FAILED, Status.CANCELLED);

    /** Told after an action committed: the engine's await waiters and pokes. */
    public interface Committed {
        /**
         * @param statuses rows whose status changed: id → new status
         * @param queues   queues whose rows became runnable (or whose pause changed)
         */
        void changed(Map<Long, String> statuses, Set<String> queues);

        /**
         * @param ids executing rows whose cancel was requested: the steps running for them are
         *            interrupted (on this node; other nodes see it at their next heartbeat)
         */
        default void cancelRequested(List<Long> ids) {
        }

        /** A queue was paused or resumed: this node's view of the paused queues is read again now. */
        default void pausesChanged() {
        }
    }

    /**
     * What a cancel committed.
     *
     * @param cancelled the ids cancelled, the asked one first
     * @param queues    the queues whose rows changed (a woken parent's included)
     * @param requested the executing ids whose cancel was requested instead: each keeps its claim,
     *                  key and slot until its step's code returns, then ends cancelled
     */
    public record Cancelled(List<Long> cancelled, Set<String> queues, List<Long> requested) {
    }

    private final EngineContext ctx;
    private final Committed committed;
    private final ControlSql sql;

    /** @param ctx the engine's context @param committed told of what each action changed */
    public Controls(EngineContext ctx, Committed committed) {
        this.ctx = ctx;
        this.committed = committed;
        this.sql = ctx.statements().of(ControlSql.class, ControlSql::new);
    }

    /**
     * Cancels a live instance and, when asked, its live descendants. A step running for one of them
     * commits nothing (its claim's token is gone); its gate slot is returned now; a parent awaiting
     * its children counts it as finished.
     *
     * @throws NoSuchInstanceException when there is no such instance
     * @throws InstanceStateException  when it has already ended
     */
    /** Test hook: runs in a cancel with descendants once the live descendants are listed, before they are locked. */
    static volatile Runnable afterDescendantsListed = () -> { };

    public Cancelled cancel(long id, String reason, boolean withDescendants) {
        Map<Long, String> statuses = new HashMap<>();
        Cancelled result = ctx.db().inTransaction(c -> {
            sql.boundLockWaits(c);
            Optional<Long> parent = sql.probe(c, id).orElseThrow(() -> new NoSuchInstanceException(id));
            Set<Long> wanted = new LinkedHashSet<>();
            wanted.add(id);
            parent.ifPresent(wanted::add);
            if (withDescendants) {
                wanted.addAll(sql.liveDescendants(c, id));
                afterDescendantsListed.run();
            }
            Map<Long, ControlSql.Locked> rows = new HashMap<>();
            for (ControlSql.Locked r : sql.lock(c, wanted, ctx.clock().instant())) {
                rows.put(r.id(), r);
            }
            // The list was read without locks: a descendant's fan-out may have committed before its
            // lock was taken. Walk again and lock what is new until the walk finds nothing: a locked
            // descendant cannot commit a fan-out before this transaction ends, so the tree is closed.
            while (withDescendants) {
                List<Long> fresh = new ArrayList<>();
                for (Long d : sql.liveDescendants(c, id)) {
                    if (wanted.add(d)) {
                        fresh.add(d);
                    }
                }
                if (fresh.isEmpty()) {
                    break;
                }
                for (ControlSql.Locked r : sql.lock(c, fresh, ctx.clock().instant())) {
                    rows.put(r.id(), r);
                }
            }
            ControlSql.Locked target = rows.get(id);
            if (target == null) {
                throw new NoSuchInstanceException(id);  // deleted between the probe and the lock
            }
            if (target.terminal()) {
                throw new InstanceStateException("cancel", id, Status.fromDb(target.status()), LIVE);
            }
            List<Long> ids = new ArrayList<>();
            ids.add(id);
            for (Long d : wanted) {
                ControlSql.Locked r = rows.get(d);
                if (d != id && r != null && !r.terminal() && !parent.equals(Optional.of(d))) {
                    ids.add(d);
                }
            }
            Set<String> queues = new LinkedHashSet<>();
            List<Long> requested = new ArrayList<>();
            List<Long> done = cancelLocked(c, ids, rows, reason, statuses, queues, requested, false);
            List<Long> ordered = new ArrayList<>(done);
            ordered.sort((a, b) -> a == id ? -1 : b == id ? 1 : Long.compare(a, b));
            return new Cancelled(ordered, queues, requested);
        });
        committed.changed(statuses, result.queues());
        if (!result.requested().isEmpty()) {
            committed.cancelRequested(result.requested());
        }
        return result;
    }

    /**
     * Ends cancelled the rows whose cancel was requested and whose step will not return to a flush:
     * their lease lapsed (the step is presumed dead; the reaper asks), or their claim was given
     * back without running (a buffered row). Only rows with a request are touched; each is
     * cancelled with its gate slot returned, its key's next row let in and a waiting parent told.
     *
     * @return how many were cancelled
     */
    public int finishCancels(List<Long> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        Map<Long, String> statuses = new HashMap<>();
        Set<String> queues = new LinkedHashSet<>();
        int n = ctx.db().inTransaction(c -> {
            Map<Long, ControlSql.Locked> rows = lockWithParents(c, ids);
            List<Long> asked = ids.stream().filter(id -> rows.containsKey(id) && rows.get(id).cancelRequested()
                    && !rows.get(id).terminal()).toList();
            return asked.isEmpty() ? 0
                    : cancelLocked(c, asked, rows, null, statuses, queues, new ArrayList<>(), true).size();
        });
        committed.changed(statuses, queues);
        return n;
    }

    /** Locks {@code ids} and their parents in id order (lock waits bounded) @return the locked rows by id */
    private Map<Long, ControlSql.Locked> lockWithParents(Connection c, List<Long> ids) throws SQLException {
        sql.boundLockWaits(c);
        Set<Long> wanted = new LinkedHashSet<>(ids);
        wanted.addAll(sql.parents(c, ids));
        Map<Long, ControlSql.Locked> rows = new HashMap<>();
        for (ControlSql.Locked r : sql.lock(c, wanted, ctx.clock().instant())) {
            rows.put(r.id(), r);
        }
        return rows;
    }

    /**
     * Cancels the live ones of {@code ids} (a bulk batch): one transaction, rows and their parents
     * locked in id order, as {@link #cancel} does one.
     *
     * @return how many were cancelled
     */
    public int cancelMany(List<Long> ids, String reason) {
        if (ids.isEmpty()) {
            return 0;
        }
        Map<Long, String> statuses = new HashMap<>();
        Set<String> queues = new LinkedHashSet<>();
        List<Long> requested = new ArrayList<>();
        int n = ctx.db().inTransaction(c -> {
            Map<Long, ControlSql.Locked> rows = lockWithParents(c, ids);
            List<Long> live = ids.stream().filter(id -> rows.containsKey(id) && !rows.get(id).terminal()).toList();
            return live.isEmpty() ? 0 : cancelLocked(c, live, rows, reason, statuses, queues, requested, false).size();
        });
        committed.changed(statuses, queues);
        if (!requested.isEmpty()) {
            committed.cancelRequested(requested);
        }
        return n + requested.size();
    }

    /**
     * With {@code rows} (the targets and their parents) locked: cancels the live targets, returns
     * their gate slots, and decrements each waiting parent once per cancelled child. A target whose
     * step may be running (executing under a live lease) is not cancelled but asked to stop
     * ({@code requested}): it keeps its claim, its K = 1 key and its gate slot until its step's code
     * returns, and its outcome's flush ends it cancelled; {@code force} cancels such rows too (their
     * step is known not to return to a flush).
     */
    private List<Long> cancelLocked(Connection c, List<Long> ids, Map<Long, ControlSql.Locked> rows, String reason,
                                    Map<Long, String> statuses, Set<String> queues, List<Long> requested,
                                    boolean force) throws SQLException {
        Instant now = ctx.clock().instant();
        List<Long> running = force ? List.of() : ids.stream().filter(id -> rows.get(id).running()).toList();
        if (!running.isEmpty()) {
            requested.addAll(sql.requestCancel(c, running, reason, now));
            ids = ids.stream().filter(id -> !running.contains(id)).toList();
            if (ids.isEmpty()) {
                return List.of();
            }
        }
        List<Long> done = sql.cancel(c, ids, reason, now);
        Set<Long> cancelled = new HashSet<>(done);
        List<Limiter.Slot> slots = new ArrayList<>();
        List<Long> joining = new ArrayList<>();
        for (Long d : done) {
            ControlSql.Locked r = rows.get(d);
            statuses.put(d, "cancelled");
            queues.add(r.queue());
            if ("executing".equals(r.status()) && r.concurrencyShard() != null && r.concurrencyShard() >= 0) {
                slots.add(new Limiter.Slot(r.concurrencyKey(), r.concurrencyShard()));
            }
            Long p = r.parentId();
            if (p != null && !cancelled.contains(p) && rows.containsKey(p)) {
                joining.add(d);  // counts toward its parent's join if that awaits it (ChildrenSql.join)
            }
        }
        if (!slots.isEmpty()) {
            ctx.statements().of(BucketSql.class, BucketSql::new).credit(c, slots);
        }
        // a cancelled running row or head of a K = 1 key lets the key's next blocked row in (KeySql)
        Set<String> freedKeys = new HashSet<>();
        for (Long d : done) {
            ControlSql.Locked r = rows.get(d);
            if (("executing".equals(r.status()) || "runnable".equals(r.status()))
                    && r.concurrencyKey() != null && r.concurrencyShard() == null) {
                freedKeys.add(r.concurrencyKey());
            }
        }
        if (!freedKeys.isEmpty()) {
            queues.addAll(ctx.statements().of(KeySql.class, KeySql::new).unblock(c, freedKeys));
        }
        if (!joining.isEmpty()) {
            ctx.statements().of(ChildrenSql.class, ChildrenSql::new).join(c, joining, now).forEach((p, q) -> {
                statuses.put(p, "runnable");
                queues.add(q);
            });
        }
        return done;
    }

    /** @return how many of {@code ids} were ended and deleted (a finished child of an unfinished parent is kept) */
    public int purge(List<Long> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        return ctx.db().inTransaction(c -> {
            sql.boundLockWaits(c);
            return sql.purge(c, ids);
        });
    }

    /**
     * Makes a failed or cancelled instance runnable again: from {@code step} (or the step it ended
     * in), with {@code stateJson} (or its state), attempts counted from 1.
     *
     * @param state checks a replacement state against the row's FSM before anything is written
     * @throws NoSuchInstanceException     when there is no such instance
     * @throws InstanceStateException      when it is not failed or cancelled
     * @throws CorrelationKeyHeldException when another live instance holds its correlation key
     */
    public void retry(long id, String step, StateCheck state) {
        String queue = ctx.db().inTransaction(c -> {
            ControlSql.Locked row = lockOne(c, id);
            Status status = Status.fromDb(row.status());
            if (!RETRYABLE.contains(status)) {
                throw new InstanceStateException("retry", id, status, RETRYABLE);
            }
            String stateJson = state == null ? null : state.encode(row.fsm(), row.fsmVersion());
            Savepoint before = c.setSavepoint();
            try {
                sql.retry(c, id, step, stateJson, ctx.clock().instant());
            } catch (SQLException e) {
                if (!"23505".equals(e.getSQLState())) {
                    throw e;
                }
                c.rollback(before);
                throw new CorrelationKeyHeldException(id, row.correlationKey(), sql.holder(c, row.correlationKey()));
            }
            return row.queue();
        });
        committed.changed(Map.of(id, "runnable"), Set.of(queue));
    }

    /** Encodes a replacement state for a row's FSM, or fails naming what is wrong. */
    @FunctionalInterface
    public interface StateCheck {
        /**
         * @param fsm     the row's FSM name
         * @param version the row's FSM version
         * @return the state as JSON
         */
        String encode(String fsm, int version);
    }

    /**
     * Changes when a runnable instance runs, or its priority.
     *
     * @param runAt    the new due time, or null to keep it
     * @param priority the new priority (0 first), or null to keep it
     * @throws NoSuchInstanceException when there is no such instance
     * @throws InstanceStateException  when it is not runnable
     */
    public void reschedule(long id, Instant runAt, Integer priority) {
        String queue = ctx.db().inTransaction(c -> {
            ControlSql.Locked row = lockOne(c, id);
            Status status = Status.fromDb(row.status());
            if (status != Status.RUNNABLE) {
                throw new InstanceStateException("reschedule", id, status, EnumSet.of(Status.RUNNABLE));
            }
            Instant now = ctx.clock().instant();
            sql.reschedule(c, id, runAt, priority, now);
            if (row.concurrencyKey() != null && runAt != null && runAt.isAfter(now)) {
                // a K = 1 key's head moved to later: its next blocked row need not wait for it (KeySql)
                ctx.statements().of(KeySql.class, KeySql::new).unblock(c, List.of(row.concurrencyKey()));
            }
            return row.queue();
        });
        committed.changed(Map.of(), Set.of(queue));
    }

    /** Bounds this transaction's lock waits, then locks one row. */
    private ControlSql.Locked lockOne(Connection c, long id) throws SQLException {
        sql.boundLockWaits(c);
        List<ControlSql.Locked> rows = sql.lock(c, List.of(id), ctx.clock().instant());
        if (rows.isEmpty()) {
            throw new NoSuchInstanceException(id);
        }
        return rows.get(0);
    }

    /** Pauses {@code queue} on every node (again: updates who and why). */
    public void pause(String queue, String principal, String reason) {
        ctx.db().inTransaction(c -> {
            sql.pause(c, queue, principal, reason, ctx.clock().instant());
            return null;
        });
        committed.pausesChanged();  // this node starts none of the queue's prefetched rows from now
        committed.changed(Map.of(), Set.of(queue));
    }

    /** @return whether the queue was paused; every node claims from it again */
    public boolean resume(String queue) {
        boolean was = ctx.db().inTransaction(c -> sql.resume(c, queue));
        committed.pausesChanged();
        committed.changed(Map.of(), Set.of(queue));  // other nodes' schedulers read their pauses again
        return was;
    }

    /** @return the paused queues, by name */
    public List<PausedQueue> paused() {
        return ctx.db().inTransaction(sql::paused);
    }

}
