package io.gendurable.chaos;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The driver's side of the workload: a steady stream of orders (K = 1 keys over {@link #ACCOUNTS}
 * accounts, each paid by a signal sent 0–2 s after its insert, some of them twice) and fan-out
 * parents. Every call retries until the database answers: inserts are idempotent through their
 * correlation keys, signals through their dedup keys, so an ambiguous failure (the commit may
 * have happened) is safe to repeat.
 */
public final class Workload {
    /** Accounts, i.e. K = 1 concurrency keys {@code acct:0..}. */
    public static final int ACCOUNTS = 6;

    private final GenDurable durable;
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
    private final List<Integer> orders = new CopyOnWriteArrayList<>();
    private final List<Integer> parents = new CopyOnWriteArrayList<>();
    private final List<Integer> flows = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<Integer, SignalResult> nudges = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, SignalResult> firstSignal = new ConcurrentHashMap<>();
    private final java.util.Set<Integer> firstSignalRetried = ConcurrentHashMap.newKeySet();
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong duplicatesSent = new AtomicLong();
    private final AtomicInteger signalsPending = new AtomicInteger();
    private volatile boolean feeding;

    /** @param durable the driver's engine (it runs no chaos step itself) */
    public Workload(GenDurable durable) {
        this.durable = durable;
    }

    /** Starts feeding: one order every 100 ms, one flow every 200 ms, one parent every 400 ms. */
    public void start() {
        feeding = true;
        timer.scheduleWithFixedDelay(this::tick, 0, 100, TimeUnit.MILLISECONDS);
    }

    /** Stops inserting; scheduled signals still go out. */
    public void stopFeeding() {
        feeding = false;
    }

    /** Waits until every scheduled signal was accepted by the database. */
    public void awaitSignalsSent(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (signalsPending.get() > 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        if (signalsPending.get() > 0) {
            throw new IllegalStateException(signalsPending.get() + " signals still unsent after " + timeoutMillis + " ms");
        }
    }

    /** Stops the timer. */
    public void close() {
        timer.shutdownNow();
    }

    private void tick() {
        if (!feeding) {
            return;
        }
        int n = next.incrementAndGet();
        insertOrder(n);
        if (n % 4 == 0) {
            insertParent(n);
        }
        if (n % 2 == 1) {
            insertFlow(n);
        }
    }

    private void insertFlow(int n) {
        retrying(() -> durable.insert(new NewInstance("chaos-flow", new ChaosFlow.State(n, 0, null),
                InsertOptions.builder().correlationKey(flowKey(n)).concurrencyKey("flow:" + (n % ChaosFlow.KEYS)).build())));
        flows.add(n);
        if (nudged(n)) {
            signalsPending.incrementAndGet();
            timer.schedule(() -> {
                nudges.put(n, retrying(() -> durable.signal(SignalTarget.correlationKey(flowKey(n)), "nudge", nudge(n),
                        nudge(n))));
                signalsPending.decrementAndGet();
            }, ThreadLocalRandom.current().nextInt(1500), TimeUnit.MILLISECONDS);
        }
    }

    /** @param n a flow number @return whether the driver nudges it (else only its timeout wakes it) */
    public static boolean nudged(int n) {
        return n % 4 == 1;
    }

    /** @param n a flow number @return its correlation key */
    public static String flowKey(int n) {
        return "flow-" + n;
    }

    /** @param n a flow number @return the payload (and dedup key) of its nudge */
    public static String nudge(int n) {
        return "nudge-" + n;
    }

    /** @return the flows inserted */
    public List<Integer> flows() {
        return List.copyOf(flows);
    }

    /** @return each nudged flow's signal result (a nudge after the flow finished finds no target) */
    public java.util.Map<Integer, SignalResult> nudges() {
        return java.util.Map.copyOf(nudges);
    }

    private void insertOrder(int n) {
        retrying(() -> durable.insert(new NewInstance("chaos-order", new ChaosOrder.State(n, 0, null, null),
                InsertOptions.builder().correlationKey(orderKey(n)).concurrencyKey("acct:" + (n % ACCOUNTS)).build())));
        orders.add(n);
        signalsPending.incrementAndGet();
        timer.schedule(() -> sendSignal(n, true), ThreadLocalRandom.current().nextInt(2000), TimeUnit.MILLISECONDS);
    }

    private void insertParent(int n) {
        retrying(() -> durable.insert(new NewInstance("chaos-parent", new ChaosParent.State(n, 0, null),
                InsertOptions.builder().correlationKey(parentKey(n)).build())));
        parents.add(n);
    }

    private void sendSignal(int n, boolean first) {
        boolean[] retried = {false};
        SignalResult r = retrying(() -> durable.signal(SignalTarget.correlationKey(orderKey(n)), "paid", payment(n),
                payment(n)), () -> retried[0] = true);
        if (first) {
            if (retried[0]) {
                firstSignalRetried.add(n);
            }
            firstSignal.put(n, r);
            signalsPending.decrementAndGet();
            if (n % 5 == 0) {  // a redelivery: the dedup key makes it a no-op
                duplicatesSent.incrementAndGet();
                sendSignal(n, false);
            }
        }
    }

    private <T> T retrying(Supplier<T> call) {
        return retrying(call, () -> { });
    }

    private <T> T retrying(Supplier<T> call, Runnable onRetry) {
        while (true) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                retries.incrementAndGet();
                onRetry.run();
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** @param n an order number @return its correlation key */
    public static String orderKey(int n) {
        return "order:" + n;
    }

    /** @param n a parent number @return its correlation key */
    public static String parentKey(int n) {
        return "parent:" + n;
    }

    /** @param n an order number @return the payload (and dedup key) of its payment signal */
    public static String payment(int n) {
        return "pay-" + n;
    }

    /** @return the orders inserted */
    public List<Integer> orders() {
        return List.copyOf(orders);
    }

    /** @return the parents inserted */
    public List<Integer> parents() {
        return List.copyOf(parents);
    }

    /** @return each order's first signal's result */
    public java.util.Map<Integer, SignalResult> firstSignals() {
        return java.util.Map.copyOf(firstSignal);
    }

    /**
     * @return the orders whose first payment signal failed at least once before it got an answer:
     *         a failed commit may have landed, so the answer is the retry's (the order may have
     *         finished with the first attempt's signal in between)
     */
    public java.util.Set<Integer> firstSignalsRetried() {
        return java.util.Set.copyOf(firstSignalRetried);
    }

    /** @return calls repeated after a database error */
    public long retries() {
        return retries.get();
    }

    /** @return redeliveries sent */
    public long duplicatesSent() {
        return duplicatesSent.get();
    }

    /** @return the driver's current order counter (for progress lines) */
    public int inserted() {
        return next.get();
    }

}
