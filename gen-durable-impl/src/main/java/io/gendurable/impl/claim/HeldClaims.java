package io.gendurable.impl.claim;

import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.lease.LeaseSql;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.step.ClaimedRow;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The claims a queue's scheduler holds, buffered and running, until their outcome is durable, and
 * their heartbeat (docs/internals.md, "Leases, heartbeat, reaper"; "Fencing").
 */
final class HeldClaims {
    /**
     * One claim held: the row's id boxed once (the map's key), and its lease: the fencing token the
     * heartbeat presents (moved by inline continues) with the lease last written for that token.
     * Removed by identity, so a re-claim of the same row by this worker (a new holder) is never
     * removed by the old one's end. The lease is replaced whole: by the step thread on an inline
     * continue, by the heartbeat (only if the token it presented is still the current one) and by
     * the start check's renewal.
     */
    static final class Claim {
        final Long id;
        final AtomicReference<Lease> lease;
        // the thread running this claim's step code, while it does; guarded by this claim's monitor
        private Thread thread;
        private boolean interrupted;

        Claim(Long id, long token, Instant until) {
            this.id = id;
            this.lease = new AtomicReference<>(new Lease(token, until));
        }

        /** The calling thread starts running this claim's step code. */
        synchronized void enter() {
            thread = Thread.currentThread();
        }

        /** The calling thread's step code for this claim is done: an interrupt meant for it is not left behind. */
        synchronized void leave() {
            if (thread == Thread.currentThread()) {
                thread = null;
                if (interrupted) {
                    interrupted = false;
                    Thread.interrupted();
                }
            }
        }

        /** A cancel was requested: interrupts the step's code if it runs now. */
        synchronized void interrupt() {
            if (thread != null) {
                interrupted = true;
                thread.interrupt();
            }
        }
    }

    /** A claim's fencing token and the lease written for it (engine clock). */
    record Lease(long token, Instant until) {
    }

    private final EngineContext ctx;
    private final String queue;
    private final String worker;
    private final Limiter limiter;
    private final LeaseSql leaseSql;
    private final Duration ttl;
    private final Duration heartbeatInterval;
    // id → this worker's latest claim of it (a reaped row re-claimed by this same worker maps to the
    // new claim; the old one's outcome will be stale anyway); any thread
    private final Map<Long, Claim> claimed = new ConcurrentHashMap<>();

    HeldClaims(EngineContext ctx, String queue, String worker, Limiter limiter) {
        this.ctx = ctx;
        this.queue = queue;
        this.worker = worker;
        this.limiter = limiter;
        this.leaseSql = ctx.statements().of(LeaseSql.class, LeaseSql::new);
        this.ttl = ctx.config().lease().ttl();
        this.heartbeatInterval = ctx.config().lease().heartbeatInterval();
    }

    /** Registers the claim for the heartbeat; @return it */
    Claim track(ClaimedRow row) {
        Long id = row.id();
        Claim c = new Claim(id, row.claimToken(), row.leaseUntil());
        claimed.put(id, c);
        return c;
    }

    /** The claim is heartbeated no more (its step ended, its row was given back, or it was abandoned). */
    void forget(Claim c) {
        claimed.remove(c.id, c);
    }

    /**
     * A cancel of this row was requested (here, or seen by the heartbeat): the thread running its
     * step's code, if any, is interrupted.
     */
    void interrupt(long id) {
        Claim c = claimed.get(id);
        if (c != null) {
            c.interrupt();
        }
    }

    /** Extends the leases of every row held (the heartbeat's beat). */
    void heartbeatOnce() {
        Map<Long, Lease> presented = new HashMap<>(claimed.size() * 2);
        claimed.forEach((id, c) -> presented.put(id, c.lease.get()));
        renew(presented);
    }

    /**
     * Renews these claims, slots first (a lease-based limiter), then the rows: a row whose slot
     * could not be renewed keeps its old lease and lapses with it, so no row outlives its slot.
     * Each renewed claim whose token is still the one presented records its new lease.
     *
     * @return the ids renewed
     */
    private Set<Long> renew(Map<Long, Lease> presented) {
        Map<Long, Long> claims = new HashMap<>(presented.size() * 2);
        presented.forEach((id, l) -> claims.put(id, l.token()));
        Set<Long> unrenewed = limiter.renew(queue, Map.copyOf(claims));
        claims.keySet().removeAll(unrenewed);
        if (claims.isEmpty()) {
            return Set.of();
        }
        Instant until = ctx.clock().instant().plus(ttl);
        Set<Long> cancelling = new HashSet<>();
        Set<Long> renewed = ctx.db().inTransaction(c -> {
            cancelling.clear();
            return leaseSql.heartbeat(c, worker, claims, until, cancelling);
        });
        cancelling.forEach(this::interrupt);  // a cancel requested on another node: stop the step here
        for (Long id : renewed) {
            Claim c = claimed.get(id);
            Lease was = presented.get(id);
            if (c != null && was != null) {
                c.lease.compareAndSet(was, new Lease(was.token(), until));
            }
        }
        return renewed;
    }

    /**
     * Whether a claim may start its step: its lease is live beyond the next heartbeat, or a renewal
     * (fenced by its token, slot included) has just made it so. A lease that lapsed before its step
     * started (a statement or commit slower than the lease, a wait in the buffer that no heartbeat
     * covered) may have been reaped and claimed elsewhere: the step must not run here as well.
     */
    boolean leaseLive(Claim claim, ClaimedRow row) {
        Lease l = claim.lease.get();
        if (l.token() != row.claimToken()) {
            return false;
        }
        Instant now = ctx.clock().instant();
        if (l.until() != null && l.until().isAfter(now.plus(heartbeatInterval))) {
            return true;
        }
        return renew(Map.of(claim.id, l)).contains(claim.id);
    }
}
