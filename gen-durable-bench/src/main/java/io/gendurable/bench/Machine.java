package io.gendurable.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** The machine and the JVM a line was measured on: versions, heap, load; the CPU split is {@link CpuSplit}. */
final class Machine {
    private static final Properties VERSIONS = new Properties();

    static {
        try (InputStream in = Machine.class.getResourceAsStream("/io/gendurable/bench/bench.properties")) {
            if (in != null) {
                VERSIONS.load(in);
            }
        } catch (IOException ignored) {
            // versions unknown
        }
    }

    private Machine() {
    }

    /** @return a version from the filtered bench.properties ({@code gen-durable}, {@code postgresql-jdbc}…) */
    static String version(String key) {
        return VERSIONS.getProperty(key, "unknown");
    }

    /** @return heap used in MB, now */
    /**
     * Waits until the JIT has compiled nothing for 150 ms (at most {@code maxMillis}), so that a
     * measurement that starts next is not charged for compiling what ran before it (a fresh schema's
     * migration, the pre-insert): the C2 compiler works in the background, behind its queue.
     *
     * @return seconds waited
     */
    static double awaitJitQuiet(long maxMillis) {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        long t0 = System.nanoTime();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return 0;
        }
        long last = jit.getTotalCompilationTime();
        int quiet = 0;
        while (quiet < 3 && System.nanoTime() - t0 < maxMillis * 1_000_000L) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            long now = jit.getTotalCompilationTime();
            quiet = now == last ? quiet + 1 : 0;
            last = now;
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    static double heapUsedMb() {
        MemoryUsage u = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        return u.getUsed() / 1048576.0;
    }

    /** @return heap used in MB after a full GC */
    static double heapUsedAfterGcMb() {
        for (int i = 0; i < 2; i++) {
            System.gc();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return heapUsedMb();
    }

    static Map<String, Object> jvm() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("java", System.getProperty("java.version"));
        m.put("vm", System.getProperty("java.vm.name"));
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        m.put("max_heap_mb", Runtime.getRuntime().maxMemory() / 1048576);
        m.put("gc", ManagementFactory.getGarbageCollectorMXBeans().stream().map(b -> b.getName()).toList());
        return m;
    }

    /** @return the machine's load averages (1, 5, 15 min) from /proc/loadavg, or an empty list */
    static java.util.List<Double> loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return java.util.List.of(Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]));
        } catch (IOException | RuntimeException e) {
            return java.util.List.of();
        }
    }
}
