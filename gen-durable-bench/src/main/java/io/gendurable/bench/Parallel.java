package io.gendurable.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Running a body on N threads, and the waits the scenarios pace themselves with. */
final class Parallel {
    private Parallel() {
    }

    interface Body {
        void run(int thread) throws Exception;
    }

    /** Runs {@code body(0…threads-1)} on as many threads (one: this one) and waits for all; a failure is thrown. */
    static void run(int threads, Body body) throws Exception {
        if (threads == 1) {
            body.run(0);
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                fs.add(pool.submit(() -> {
                    body.run(thread);
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Parks until {@code System.nanoTime()} reaches {@code deadline}. */
    static void parkUntil(long deadline) {
        for (long d; (d = deadline - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(d);
        }
    }

    /** Polls every 20 ms until true, or until {@code seconds} pass. @return whether it became true */
    static boolean waitFor(BooleanSupplier c, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }
}
