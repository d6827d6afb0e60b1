package io.gendurable.impl.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Named meeting points between a test and the steps of its FSM on a started engine: a step
 * {@link #hold holds} under a label (it has entered, and waits), the test sees it
 * {@link #started} and {@link #release releases} it. An FSM that needs them extends this class.
 */
public class Latches {
    private final Map<String, CountDownLatch> entered = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> released = new ConcurrentHashMap<>();

    /** @return the latch {@code label}'s step counts down when it enters */
    public CountDownLatch entered(String label) {
        return entered.computeIfAbsent(label, k -> new CountDownLatch(1));
    }

    /** @return whether {@code label}'s step has entered */
    public boolean started(String label) {
        return entered(label).getCount() == 0;
    }

    /** Lets {@code label}'s step go on (before or after it entered). */
    public void release(String label) {
        released(label).countDown();
    }

    /**
     * Called by a step: says it entered under {@code label}, then waits up to 30 s for the test to
     * release it.
     *
     * @throws IllegalStateException when the test never does
     */
    public void hold(String label) throws InterruptedException {
        entered(label).countDown();
        if (!released(label).await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(label + " was never released");
        }
    }

    private CountDownLatch released(String label) {
        return released.computeIfAbsent(label, k -> new CountDownLatch(1));
    }
}
