package io.gendurable.impl.claim;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A queue's slots on this node (docs/internals.md, "Group commit"): the claimed rows waiting for
 * one (the buffer), the chains whose inline continue is durable (ready, taken first), the slots
 * taken (step code running, or reserved), and the steps whose code is done and whose outcome waits
 * for its flush (their slot runs another step meanwhile, up to {@link #awaitCap}). Drainers on the
 * step pool take a slot and an entry, run it, and look again ({@link #drain}): a stream of short
 * steps costs no thread hand-off per step, and each row still gets its own thread at once when the
 * steps are slow. Every field is thread-safe on its own: the claim thread, the step threads and
 * the flush threads all use them.
 */
public final class Slots {
    private static final Logger LOG = System.getLogger("io.gendurable.claim");

    /** What waits for a slot: a buffered row's step, or a chain's next step. */
    interface Entry extends Runnable {
        /** A drainer took a slot for it, right before it runs. */
        void started();
    }

    private final String queue;
    private final int concurrency;
    private final int awaitCap;
    private final ExecutorService steps;
    // the queue runs and is not paused: buffered rows may start (ready chains start regardless)
    private final BooleanSupplier feeding;
    private final ConcurrentLinkedQueue<Entry> buffer = new ConcurrentLinkedQueue<>();
    // the buffer's size: ConcurrentLinkedQueue.size() walks the queue, and every step that ends asks
    // it (the demand); counted after each add and poll, so it may lag the queue by the entries in transit
    private final AtomicInteger bufferSize = new AtomicInteger();
    // chains whose inline continue is durable, waiting for a slot to run their next step: taken
    // before the buffer, and even while stopping or paused (their rows are claimed and running)
    private final ConcurrentLinkedQueue<Entry> ready = new ConcurrentLinkedQueue<>();
    // slots taken: step code running, or reserved for a row claimed at its insert or wake-up
    private final AtomicInteger taken = new AtomicInteger();
    // drainers on the step pool that are looking for an entry (not in step code): see dispatch
    private final AtomicInteger searching = new AtomicInteger();
    // steps whose code is done and whose outcome waits for its flush, at most awaitCap
    private final AtomicInteger awaitingFlush = new AtomicInteger();
    private final Runnable drainer = this::drain;

    Slots(String queue, int concurrency, ExecutorService steps, BooleanSupplier feeding) {
        this.queue = queue;
        this.concurrency = concurrency;
        this.awaitCap = awaitCap(concurrency);
        this.steps = steps;
        this.feeding = feeding;
    }

    /**
     * How many steps of a queue may wait for their outcome's flush while their slots run other
     * steps (terminal outcomes, and inline continues whose chain goes on once theirs commits):
     * 1,024, or the concurrency if it is larger. An inline chain waits for a commit at every step,
     * so this bounds the chains in flight, and a flush takes everything waiting, so it bounds the
     * batch: a queue completes at most this many steps per flush time, whatever its concurrency.
     * A waiting outcome holds no thread and no slot, only its row's claim and a few hundred bytes.
     *
     * @param concurrency the queue's concurrency
     * @return the bound
     */
    public static int awaitCap(int concurrency) {
        return Math.max(concurrency, 1024);
    }

    int concurrency() {
        return concurrency;
    }

    /** @return slots taken: steps whose code runs, and reserved slots */
    int taken() {
        return taken.get();
    }

    /** @return steps whose code is done and whose outcome waits for its flush */
    int awaitingFlush() {
        return awaitingFlush.get();
    }

    int buffered() {
        return Math.max(0, bufferSize.get());
    }

    boolean bufferEmpty() {
        return buffer.isEmpty();
    }

    boolean readyEmpty() {
        return ready.isEmpty();
    }

    boolean awaitFull() {
        return awaitingFlush.get() >= awaitCap;
    }

    /** @param e a claimed row's step, to run when a slot is free */
    void buffer(Entry e) {
        buffer.add(e);
        bufferSize.incrementAndGet();
    }

    /** @return a buffered entry, taken out without a slot (to give its row back), or null */
    Entry unbuffer() {
        return polled(buffer.poll());
    }

    /** @return {@code e}, counted out of the buffer when it is an entry */
    private Entry polled(Entry e) {
        if (e != null) {
            bufferSize.decrementAndGet();
        }
        return e;
    }

    /** @param e a chain's next step, its inline continue durable: runs in the next free slot, before any buffered row */
    void resume(Entry e) {
        ready.add(e);
        dispatch();
    }

    /** @return a free slot taken for a reserved start, or false when none is free */
    boolean tryTake() {
        while (true) {
            int n = taken.get();
            if (n >= concurrency) {
                return false;
            }
            if (taken.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** A taken slot comes back (a reserved slot given back). */
    void giveBack() {
        taken.decrementAndGet();
    }

    /** A step's code is done and its outcome waits for a flush: its slot is free, its wait counted. */
    void codeDone() {
        awaitingFlush.incrementAndGet();
        taken.decrementAndGet();
    }

    /** A chain's wait for its inline continue's commit is over: it runs in the slot taken for it. */
    void resumed() {
        awaitingFlush.decrementAndGet();
    }

    /** @param waiting the ended step was waiting for its flush (else it held a slot) */
    void ended(boolean waiting) {
        (waiting ? awaitingFlush : taken).decrementAndGet();
    }

    /**
     * Runs a step in a slot already taken for it on the step pool, whose thread then drains as any
     * drainer does (counted in searching once its step is done).
     *
     * @return false when the pool refused it (logged): the slot and the row must come back
     */
    boolean runOnPool(Runnable step) {
        try {
            steps.execute(() -> {
                runOne(step);
                drain();
            });
            return true;
        } catch (RuntimeException e) {
            // refused, or any other failure to hand it over
            LOG.log(Level.WARNING, "gen-durable queue " + queue + ": the step executor refused work: " + e);
            return false;
        }
    }

    /**
     * Starts drainers on the step pool for the entries that can start now (a free slot each) and
     * that no searching drainer will take (every drainer busy in step code counts for nothing here).
     */
    void dispatch() {
        while (true) {
            int s = searching.get();
            if (s >= startable()) {
                return;
            }
            if (!searching.compareAndSet(s, s + 1)) {
                continue;
            }
            try {
                steps.execute(drainer);
            } catch (RuntimeException e) {
                // refused (or failed otherwise): this drainer never runs, so it searches for nothing
                searching.decrementAndGet();
                LOG.log(Level.WARNING, "gen-durable queue " + queue + ": the step executor refused work: " + e);
                return;
            }
        }
    }

    /**
     * @return entries that could start now, a free slot each: resumed chains always, buffered rows
     * while the queue runs, is not paused and fewer than {@link #awaitCap} outcomes wait
     */
    private int startable() {
        int rows = ready.isEmpty() ? 0 : ready.size();
        if (awaitingFlush.get() < awaitCap && !buffer.isEmpty() && feeding.getAsBoolean()) {
            rows += Math.max(1, buffered());  // (the count may lag an add in transit)
        }
        return rows == 0 ? 0 : Math.min(rows, concurrency - taken.get());
    }

    /**
     * One drainer on a step thread, counted in {@link #searching} while it looks for an entry: takes
     * a slot and an entry, runs it, and looks again; ends when there is no entry or no slot.
     */
    private void drain() {
        while (true) {
            Runnable row = take();
            if (row == null) {
                searching.decrementAndGet();
                // An entry added (or a slot freed) after take() looked, by a dispatch that saw this
                // drainer still searching, would wait for the next claim: look once more.
                int s = searching.get();
                if (startable() <= s || !searching.compareAndSet(s, s + 1)) {
                    return;
                }
                continue;
            }
            searching.decrementAndGet();
            runOne(row);
        }
    }

    /** Runs an entry in this drainer's thread, which then searches again (or dies of the entry's error, replaced). */
    private void runOne(Runnable entry) {
        try {
            entry.run();
        } catch (RuntimeException | Error e) {
            drainerLost(e);
            throw e;
        }
        searching.incrementAndGet();
    }

    /**
     * A step thread ends with {@code e} (a step's {@link VirtualMachineError}, rethrown so the
     * thread dies of it): it is not counted as searching, and the entries it would have taken get
     * a drainer of their own. Its row's slot and claim were ended already.
     */
    private void drainerLost(Throwable e) {
        try {
            dispatch();
        } catch (RuntimeException | Error again) {
            e.addSuppressed(again);
        }
    }

    /** @return a resumed chain, else a buffered row, with a slot taken for it; or null when there is none or no free slot */
    private Entry take() {
        while (true) {
            int n = taken.get();
            if (n >= concurrency) {
                return null;
            }
            if (!taken.compareAndSet(n, n + 1)) {
                continue;
            }
            Entry resumed = ready.poll();
            if (resumed != null) {
                resumed.started();
                return resumed;
            }
            Entry row = feeding.getAsBoolean() && awaitingFlush.get() < awaitCap ? polled(buffer.poll()) : null;
            if (row == null) {
                taken.decrementAndGet();
                return null;
            }
            row.started();
            return row;
        }
    }
}
