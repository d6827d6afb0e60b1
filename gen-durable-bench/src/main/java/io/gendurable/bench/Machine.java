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

/** What the machine and the JVM did during a measurement: CPU split, heap. */
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

    /** A CPU reading: machine-wide busy and total jiffies, and this process's CPU nanoseconds. */
    record Cpu(long busy, long total, long processNanos, long wallNanos) {
        static Cpu now() {
            long busy = -1;
            long total = -1;
            try {
                String line = Files.readAllLines(Path.of("/proc/stat")).get(0);  // cpu  user nice system idle iowait irq softirq steal
                String[] f = line.trim().split("\\s+");
                long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
                total = 0;
                for (int i = 1; i < Math.min(f.length, 9); i++) {
                    total += Long.parseLong(f[i]);
                }
                busy = total - idle;
            } catch (IOException | RuntimeException ignored) {
                // not Linux
            }
            long proc = -1;
            if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
                proc = os.getProcessCpuTime();
            }
            return new Cpu(busy, total, proc, System.nanoTime());
        }

        /**
         * @return the split since {@code before}: seconds of wall time, machine busy %, the JVM's CPU
         * seconds and everyone else's (PostgreSQL, and whatever else runs on the machine)
         */
        Map<String, Object> since(Cpu before) {
            Map<String, Object> m = new LinkedHashMap<>();
            double wall = (wallNanos - before.wallNanos) / 1e9;
            int cores = Runtime.getRuntime().availableProcessors();
            m.put("wall_s", wall);
            if (busy >= 0 && before.busy >= 0 && total > before.total) {
                double busyFraction = (double) (busy - before.busy) / (total - before.total);
                double busySeconds = busyFraction * cores * wall;
                m.put("machine_busy_pct", 100 * busyFraction);
                if (processNanos >= 0) {
                    double jvm = (processNanos - before.processNanos) / 1e9;
                    m.put("jvm_cpu_s", jvm);
                    m.put("other_cpu_s", Math.max(0, busySeconds - jvm));
                }
            } else if (processNanos >= 0) {
                m.put("jvm_cpu_s", (processNanos - before.processNanos) / 1e9);
            }
            return m;
        }
    }

    /** @return heap used in MB, now */
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
