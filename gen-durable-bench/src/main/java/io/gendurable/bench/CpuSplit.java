package io.gendurable.bench;

import javax.sql.DataSource;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A CPU reading of the machine, this JVM and the database server, taken before a measurement;
 * {@link #since()} after it gives the split (what the JSON lines carry as {@code cpu}).
 * {@link Threads} splits this JVM's share by thread group.
 */
record CpuSplit(Cpu cpu, DbCpu db, DataSource ds) {
    /** @return a reading now; the database server's share only when its processes are visible here */
    static CpuSplit now(DataSource ds) {
        return new CpuSplit(Cpu.now(), DbCpu.of(ds), ds);
    }

    /**
     * @return wall seconds, machine busy %, the JVM's CPU seconds, the database server's
     * ({@code db_cpu_s}, when it runs here) and the rest of the machine's ({@code rest_cpu_s}:
     * other processes, e.g. other builds); GC pauses
     */
    Map<String, Object> since() {
        Map<String, Object> m = Cpu.now().since(cpu);
        DbCpu after = db == null ? null : DbCpu.of(ds);
        if (after != null) {
            double dbs = after.since(db);
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> {
                if (k.equals("other_cpu_s")) {
                    out.put("db_cpu_s", dbs);
                    out.put("rest_cpu_s", Math.max(0, (double) v - dbs));
                } else {
                    out.put(k, v);
                }
            });
            return out;
        }
        return m;
    }

    /** A CPU reading: machine-wide busy and total jiffies, and this process's CPU nanoseconds. */
    record Cpu(long busy, long total, long processNanos, long wallNanos, long gcMillis, long gcCount,
               JvmTasks tasks) {
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
            long gcMillis = 0;
            long gcCount = 0;
            for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                gcMillis += Math.max(0, gc.getCollectionTime());
                gcCount += Math.max(0, gc.getCollectionCount());
            }
            return new Cpu(busy, total, proc, System.nanoTime(), gcMillis, gcCount, JvmTasks.now());
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
                    if (tasks != null) {
                        tasks.since(before.tasks).forEach(m::put);
                    }
                    m.put("other_cpu_s", Math.max(0, busySeconds - jvm));
                }
            } else if (processNanos >= 0) {
                m.put("jvm_cpu_s", (processNanos - before.processNanos) / 1e9);
            }
            m.put("gc_pause_s", (gcMillis - before.gcMillis) / 1e3);
            m.put("gc_count", gcCount - before.gcCount);
            return m;
        }
    }

    /**
     * CPU ticks of this JVM's own native threads by kind, from /proc/self/task: the JIT's compiler
     * threads ({@code C1/C2 CompilerThre…}) and the garbage collector's ({@code GC Thread#…},
     * {@code G1 …}). Everything else (the engine's threads, pgjdbc's, the VM's housekeeping) is the
     * rest of {@code jvm_cpu_s}. Threads that ended between two readings are missed (the JIT stops
     * idle compiler threads), so the JIT's share is a lower bound.
     */
    record JvmTasks(long jitTicks, long gcTicks) {
        private static final double TICKS_PER_SECOND = 100.0;  // USER_HZ on Linux

        static JvmTasks now() {
            return of(Path.of("/proc/self"));
        }

        /** @return the JIT's and the collector's ticks of the JVM whose /proc directory is {@code proc} */
        static JvmTasks of(Path proc) {
            long jit = 0;
            long gc = 0;
            try (var tasks = Files.list(proc.resolve("task"))) {
                for (Path task : (Iterable<Path>) tasks::iterator) {
                    try {
                        String comm = Files.readString(task.resolve("comm")).strip();
                        boolean isJit = comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler");
                        boolean isGc = comm.startsWith("GC Thread") || comm.startsWith("G1 ");
                        if (isJit || isGc) {
                            String stat = Files.readString(task.resolve("stat"));
                            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                            long t = Long.parseLong(f[11]) + Long.parseLong(f[12]);  // utime, stime
                            if (isJit) {
                                jit += t;
                            } else {
                                gc += t;
                            }
                        }
                    } catch (IOException | RuntimeException e) {
                        // the thread ended while we read it
                    }
                }
            } catch (IOException | RuntimeException e) {
                return null;  // not Linux
            }
            return new JvmTasks(jit, gc);
        }

        /** @return {@code jvm_jit_cpu_s} and {@code jvm_gc_cpu_s} since {@code before}; empty when unknown */
        Map<String, Object> since(JvmTasks before) {
            Map<String, Object> m = new LinkedHashMap<>();
            if (before != null) {
                m.put("jvm_jit_cpu_s", Math.max(0, jitTicks - before.jitTicks) / TICKS_PER_SECOND);
                m.put("jvm_gc_cpu_s", Math.max(0, gcTicks - before.gcTicks) / TICKS_PER_SECOND);
            }
            return m;
        }
    }

    /**
     * CPU ticks of the database server's processes, when it runs on this machine: the pids
     * {@code pg_stat_activity} lists for the bench's database (its backends, whoever opened them:
     * this JVM or an application server) and the server's background processes (WAL writer,
     * checkpointer…), read from /proc. Other databases' backends are left out.
     */
    record DbCpu(Map<Integer, Long> ticks) {
        private static final double TICKS_PER_SECOND = 100.0;  // USER_HZ on Linux

        /** @return the snapshot, or null when the server's processes are not visible here */
        static DbCpu of(DataSource ds) {
            Map<Integer, Long> ticks = new java.util.HashMap<>();
            try (var c = ds.getConnection(); var st = c.createStatement();
                 var rs = st.executeQuery("SELECT pid FROM pg_stat_activity WHERE datname IS NULL OR datname = current_database()")) {
                while (rs.next()) {
                    long t = ticks(rs.getInt(1));
                    if (t >= 0) {
                        ticks.put(rs.getInt(1), t);
                    }
                }
            } catch (java.sql.SQLException e) {
                return null;
            }
            return ticks.isEmpty() ? null : new DbCpu(ticks);
        }

        /** @return the CPU ticks (user and system) of process {@code pid} whose name starts with {@code comm}, or -1 */
        static long processTicks(long pid, String comm) {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                if (!Files.readString(Path.of("/proc/" + pid + "/comm")).strip().startsWith(comm)) {
                    return -1;
                }
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                return Long.parseLong(f[11]) + Long.parseLong(f[12]);  // utime, stime
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }

        private static long ticks(int pid) {
            return processTicks(pid, "postgres");
        }

        /** @return CPU seconds the server's processes used since {@code before} */
        double since(DbCpu before) {
            long sum = 0;
            for (var e : ticks.entrySet()) {
                sum += e.getValue() - before.ticks.getOrDefault(e.getKey(), 0L);
            }
            return Math.max(0, sum) / TICKS_PER_SECOND;
        }
    }

    /** Per-thread CPU time of this JVM's live threads: id → (name, nanoseconds). */
    record Threads(Map<Long, String> names, Map<Long, Long> nanos) {
        static Threads now() {
            java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            Map<Long, String> names = new java.util.HashMap<>();
            Map<Long, Long> nanos = new java.util.HashMap<>();
            for (java.lang.management.ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
                if (t == null) {
                    continue;
                }
                long n = mx.getThreadCpuTime(t.getThreadId());
                if (n >= 0) {
                    names.put(t.getThreadId(), t.getThreadName());
                    nanos.put(t.getThreadId(), n);
                }
            }
            return new Threads(names, nanos);
        }

        /**
         * @return CPU seconds since {@code before} by thread group (the name without its numbers,
         * e.g. {@code worker-timer-}, {@code worker-step-}); threads that ended meanwhile are missed
         */
        Map<String, Object> since(Threads before) {
            Map<String, Double> groups = new java.util.TreeMap<>();
            nanos.forEach((id, n) -> {
                long delta = n - before.nanos.getOrDefault(id, 0L);
                if (delta > 0) {
                    groups.merge(names.get(id).replaceAll("[0-9]+", "N"), delta / 1e9, Double::sum);
                }
            });
            Map<String, Object> m = new LinkedHashMap<>();
            groups.entrySet().stream().filter(e -> e.getValue() >= 0.005)
                    .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .forEach(e -> m.put(e.getKey(), e.getValue()));
            return m;
        }
    }
}
