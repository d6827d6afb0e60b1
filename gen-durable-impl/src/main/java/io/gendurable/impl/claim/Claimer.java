package io.gendurable.impl.claim;

import io.gendurable.events.KeyContended;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.SqlErrors;
import io.gendurable.impl.flush.ChildrenSql;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.step.ClaimedRow;
import io.gendurable.impl.step.InboxSql;
import io.gendurable.impl.step.Claimed;
import io.gendurable.impl.trace.Tracing;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ObjLongConsumer;

/**
 * One claim for one queue's scheduler: the claim statement (with its inboxes and children loads
 * in the same transaction, only for rows that have any), then out-of-band admission for the
 * rows that name a gate or a rate limit, releasing the denied. A batch with neither never
 * calls the limiter: three statements at most, one when nothing has signals or children.
 */
public final class Claimer {
    private static final System.Logger LOG = System.getLogger("io.gendurable.claim");

    private final EngineContext ctx;
    private final String queue;
    private final String worker;
    private final EngineConfig config;
    private final ClaimSql claimSql;
    private final InboxSql inboxSql;
    private final ChildrenSql childrenSql;
    private final Limiter limiter;
    private final ClaimRelease releases;
    private final String[] gateNames;
    private final ObjLongConsumer<String> claimTimes;

    /**
     * @param ctx      the engine's context
     * @param queue    the queue to claim from
     * @param worker   the claimant, stored in {@code locked_by}
     * @param releases gives back the rows admission denies
     * @param limiter  admits the rows that name a gate or a rate limit
     * @param claimTimes told how long each claim statement took, in nanoseconds, with the queue (a long
     *                   one starts a key blocking run)
     */
    public Claimer(EngineContext ctx, String queue, String worker, ClaimRelease releases, Limiter limiter,
                  ObjLongConsumer<String> claimTimes) {
        this.claimTimes = claimTimes;
        this.ctx = ctx;
        this.queue = queue;
        this.worker = worker;
        this.config = ctx.config();
        this.claimSql = ctx.statements().of(ClaimSql.class, ClaimSql::new);
        this.inboxSql = ctx.statements().of(InboxSql.class, InboxSql::new);
        this.childrenSql = ctx.statements().of(ChildrenSql.class, ChildrenSql::new);
        this.limiter = limiter;
        this.releases = releases;
        this.gateNames = config.limits().concurrencyLimits().keySet().toArray(new String[0]);
    }

    /** @return the rows claimed and admitted, in claim order */
    public List<Claimed> claim(int demand) {
        return admit(claimRetried(demand));
    }

    /**
     * The claim, retried when a cross-node race on a K = 1 key trips the unique index. Losing that
     * race is expected under contention, not an error: when it outlasts the retries, the claim
     * takes nothing this time (the scheduler polls again, as after any empty claim), logs one INFO
     * line without a stack trace and counts {@code contendedDeferred}.
     */
    private List<Claimed> claimRetried(int demand) {
        for (int attempt = 1; ; attempt++) {
            try {
                List<Claimed> rows = ctx.db().inTransaction(c -> claimAndLoad(c, demand));
                if (attempt > 1) {
                    contended(attempt - 1, false);
                }
                return rows;
            } catch (RuntimeException e) {
                if (!SqlErrors.isUniqueViolation(e)) {
                    throw e;
                }
                if (attempt < 3) {
                    ctx.metrics().contended(queue);
                    continue;
                }
                ctx.metrics().contendedDeferred(queue);
                contended(attempt, true);
                LOG.log(System.Logger.Level.INFO, "gen-durable: K = 1 contention on queue "
                        + queue + ": another claim took the same concurrency key " + attempt
                        + " times running; retrying on the next poll");
                return List.of();
            }
        }
    }

    /** @param lost K = 1 races this claim lost @param deferred whether it gave up until the next poll */
    private void contended(int lost, boolean deferred) {
        if (ctx.bus().on(EventKind.KEY_CONTENDED)) {
            ctx.bus().publish(new KeyContended(queue, lost, deferred));
        }
    }

    /**
     * The claim (with its inbox and children loads) on a connection whose transaction the caller
     * owns: a flush's, which the claim rides as its first statement. The rows are this node's only
     * once that transaction commits; then {@link #admit} them. A K = 1 race lost here fails the
     * whole transaction with a unique violation (the caller retries without the claim).
     *
     * @return the rows claimed, in claim order, not yet admitted
     */
    public List<Claimed> claimIn(Connection c, int demand) throws SQLException {
        return claimAndLoad(c, demand);
    }

    /**
     * Out-of-band admission of the claimed rows that name a gate or a rate limit; the denied go
     * back to runnable. A batch with neither never calls the limiter.
     *
     * @return the rows admitted, in claim order
     */
    public List<Claimed> admit(List<Claimed> rows) {
        List<Limiter.Candidate> candidates = new ArrayList<>();
        for (Claimed p : rows) {
            ClaimedRow r = p.row();
            if (r.gated() || r.rateLimit() != null) {
                candidates.add(new Limiter.Candidate(r.id(), r.claimToken(), r.gated() ? r.concurrencyKey() : null, r.rateLimit(),
                        r.weight(), r.fsm(), r.step()));
            }
        }
        if (candidates.isEmpty()) {
            return rows;
        }
        Limiter.Admission a;
        try {
            a = limiter.admit(candidates, queue);
        } catch (RuntimeException e) {
            // Nothing admitted: give every claimed row back rather than strand it until the reaper.
            Loops.guarded(LOG, "release after a failed admission in queue " + queue, ctx.metrics(),
                    () -> releases.release(worker, rows));
            throw e;
        }
        if (!a.denied().isEmpty()) {
            releases.release(worker, rows.stream().filter(p -> a.denied().contains(p.row().id())).toList());
        }
        List<Claimed> kept = new ArrayList<>(rows.size());
        for (Claimed p : rows) {
            long id = p.row().id();
            if (!a.denied().contains(id)) {
                Limiter.Slot slot = a.admitted().get(id);
                kept.add(slot == null ? p : p.withSlot(slot));
            }
        }
        return kept;
    }

    /**
     * Claims the row a signal has just woken, with its inbox (and children), on the signal's
     * connection: the rows are this node's only once that transaction commits. Only a row that
     * needs no admission is taken ({@link ClaimSql#claimById}).
     *
     * @param id the woken row
     * @return the row claimed, or null when it needs a claim of the queue's own
     */
    public Claimed claimWokenIn(Connection c, long id) throws SQLException {
        ClaimedRow row = claimSql.claimById(c, id, queue, worker, ctx.clock().instant(),
                ctx.clock().instant().plus(config.lease().ttl()), ctx.registry().claimKeys());
        return row == null ? null : withLoads(c, List.of(row)).get(0);
    }

    /** The claim, the inboxes and the children of the claimed rows that have any: one transaction. */
    private List<Claimed> claimAndLoad(Connection c, int demand) throws SQLException {
        long began = System.nanoTime();
        List<ClaimedRow> claimedRows = claimSql.claim(c, queue, worker, demand, ctx.clock().instant(),
                ctx.clock().instant().plus(config.lease().ttl()), gateNames, ctx.registry().claimKeys());
        claimTimes.accept(queue, System.nanoTime() - began);
        return withLoads(c, claimedRows);
    }

    /** @return the claimed rows with the inboxes and children of those that have any, loaded on {@code c} */
    private List<Claimed> withLoads(Connection c, List<ClaimedRow> claimedRows) throws SQLException {
        List<Long> withSignals = claimedRows.stream().filter(ClaimedRow::hasSignals).map(ClaimedRow::id).toList();
        Map<Long, List<InboxSql.SignalRow>> inboxes = withSignals.isEmpty() ? Map.of()
                : inboxSql.load(c, withSignals, ctx.tracing() != Tracing.NONE);
        List<Long> withChildren = claimedRows.stream().filter(ClaimedRow::hasChildren).map(ClaimedRow::id).toList();
        Map<Long, List<ChildrenSql.ChildRow>> children = withChildren.isEmpty() ? Map.of()
                : childrenSql.load(c, withChildren);
        List<Claimed> out = new ArrayList<>(claimedRows.size());
        for (ClaimedRow r : claimedRows) {
            out.add(new Claimed(r, inboxes.getOrDefault(r.id(), List.of()), children.getOrDefault(r.id(), List.of()),
                    null));
        }
        return out;
    }

}
