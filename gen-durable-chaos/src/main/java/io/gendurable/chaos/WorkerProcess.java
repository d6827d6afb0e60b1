package io.gendurable.chaos;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One worker slot: a {@link ChaosWorker} JVM launched with this JVM's class path. It can be
 * killed with SIGKILL ({@code kill -9}: no drain, no shutdown hook) and started again, under
 * the same node id (start-up reclaim) or a new one (only the reaper can free the old claims).
 */
public final class WorkerProcess {
    private final String url;
    private final File logDir;
    private final String slot;
    private String node;
    private Process process;
    private File logFile;
    private int incarnation;
    private long launchedAt;
    private final java.util.concurrent.atomic.AtomicBoolean reserved = new java.util.concurrent.atomic.AtomicBoolean();
    private final List<String> jvmArgs;

    /** @param url the database @param logDir where each incarnation's output goes @param slot the slot name */
    public WorkerProcess(String url, File logDir, String slot) {
        this(url, logDir, slot, List.of());
    }

    /**
     * @param url     the database
     * @param logDir  where each incarnation's output goes
     * @param slot    the slot name
     * @param jvmArgs more JVM arguments for the worker (system properties)
     */
    public WorkerProcess(String url, File logDir, String slot, List<String> jvmArgs) {
        this.url = url;
        this.logDir = logDir;
        this.slot = slot;
        this.node = slot;
        this.jvmArgs = List.copyOf(jvmArgs);
    }

    /** @return whether this caller may take the slot for a fault (one fault per worker at a time) */
    public boolean tryReserve() {
        return reserved.compareAndSet(false, true);
    }

    /** Ends a fault on this slot. */
    public void unreserve() {
        reserved.set(false);
    }

    /** @return the node id of the current (or last) incarnation */
    public synchronized String node() {
        return node;
    }

    /** @return when the current incarnation was launched (epoch millis): its claims are all later */
    public synchronized long launchedAt() {
        return launchedAt;
    }

    /** @return the run's log directory (also where hold flags go) */
    public File logDir() {
        return logDir;
    }

    /** @return whether the JVM runs */
    public synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    /** Launches an incarnation under the current node id. */
    public synchronized void start() {
        incarnation++;
        launchedAt = System.currentTimeMillis();
        logFile = new File(logDir, "worker-" + slot + "-" + incarnation + "-" + node + ".log");
        List<String> cmd = new ArrayList<>(List.of(
                new File(System.getProperty("java.home"), "bin/java").getPath(),
                "-Xmx192m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
                "-Djava.util.logging.config.file=" + loggingConfig().getPath(),
                "-D" + StepLog.HOLD_DIR + "=" + logDir.getPath(),
                "-D" + ChaosRedis.LIMITER_PROPERTY + "=" + System.getProperty(ChaosRedis.LIMITER_PROPERTY, "postgres"),
                "-cp", System.getProperty("java.class.path")));
        cmd.addAll(cmd.size() - 2, jvmArgs);
        cmd.addAll(List.of(ChaosWorker.class.getName(), url, node));
        try {
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile)).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not launch worker " + node, e);
        }
    }

    /** Launches an incarnation under a new node id. */
    public synchronized void startAs(String newNode) {
        this.node = newNode;
        start();
    }

    /** Waits until the current incarnation printed {@link ChaosWorker#READY}. */
    public void awaitReady(long timeoutMillis) {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            File f;
            synchronized (this) {
                f = logFile;
                if (!process.isAlive()) {
                    throw new IllegalStateException("worker " + node + " exited with " + process.exitValue() + "; see " + f);
                }
            }
            try {
                if (f.exists() && Files.readString(f.toPath()).contains(ChaosWorker.READY)) {
                    return;
                }
                Thread.sleep(100);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new IllegalStateException("worker " + node + " not ready after " + timeoutMillis + " ms; see " + logFile);
    }

    /**
     * Waits for {@link ChaosWorker#READY}; a JVM that does not get there in time is killed and
     * launched once more (the caller reports it: a worker that cannot start is a harness problem
     * to look at in its log, not an engine invariant).
     *
     * @return whether a second launch was needed
     */
    public boolean awaitReadyOrRelaunch(long timeoutMillis) {
        try {
            awaitReady(timeoutMillis);
            return false;
        } catch (IllegalStateException e) {
            System.out.println("chaos: " + e.getMessage() + "; launching it again");
            kill9();
            start();
            awaitReady(timeoutMillis);
            return true;
        }
    }

    /** SIGKILL, and waits for the JVM to be gone. */
    public synchronized void kill9() {
        if (process != null) {
            process.destroyForcibly();
            waitGone();
        }
    }

    /**
     * SIGSTOP: the JVM freezes with everything it holds (claims, buffered rows, connections, open transactions).
     *
     * @return when it was surely stopped (epoch millis, after {@code kill} returned): nothing it does is later
     */
    public synchronized long pause() {
        signal("STOP");
        return System.currentTimeMillis();
    }

    /**
     * SIGCONT: the frozen JVM carries on where it stopped, unaware that time passed.
     *
     * @return the earliest it can have run again (epoch millis, before {@code kill} was started)
     */
    public synchronized long resume() {
        long at = System.currentTimeMillis();
        signal("CONT");
        return at;
    }

    /**
     * An undeploy of a frozen node: SIGTERM while it is stopped (the signal waits), then SIGCONT:
     * the JVM wakes with the shutdown already pending, so the engine's drain runs against
     * whatever it held when it froze. {@link #awaitExit} waits for the drain to end.
     *
     * @return the earliest it can have run again (epoch millis, before the SIGCONT)
     */
    public synchronized long wakeIntoGracefulStop() {
        signal("TERM");
        long at = System.currentTimeMillis();
        signal("CONT");
        return at;
    }

    /** Waits for the JVM to exit (SIGKILL after {@code timeoutMillis}). */
    public synchronized void awaitExit(long timeoutMillis) {
        try {
            if (process != null && !process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        waitGone();
    }

    private void signal(String sig) {
        if (process == null || !process.isAlive()) {
            return;
        }
        try {
            new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).inheritIO().start().waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException("kill -" + sig + " " + node, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGTERM (the engine drains in its shutdown hook); SIGKILL after 20 s. */
    public synchronized void stop() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            waitGone();
        }
    }

    private void waitGone() {
        try {
            process.waitFor(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private File loggingConfig() {
        File f = new File(logDir, "logging.properties");
        if (!f.exists()) {
            try {
                Files.writeString(f.toPath(), """
                        handlers=java.util.logging.ConsoleHandler
                        .level=INFO
                        org.hibernate.level=WARNING
                        com.zaxxer.hikari.level=WARNING
                        java.util.logging.ConsoleHandler.level=ALL
                        java.util.logging.SimpleFormatter.format=%1$tT.%1$tL %4$s %3$s: %5$s%6$s%n
                        """);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return f;
    }
}
