package io.gendurable.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** Exact percentiles of a scenario's latency samples (a few thousand at most: sorting is enough). */
final class Percentiles {
    /** Marks a sample that never arrived: left out of the figures. */
    static final long MISSING = Long.MAX_VALUE;

    private Percentiles() {
    }

    /** @return {@code n}, then p50, p95, p99, max and mean in ms, of nanosecond samples */
    static Map<String, Object> ms(long[] nanos) {
        long[] s = Arrays.stream(nanos).filter(v -> v != MISSING).sorted().toArray();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", s.length);
        if (s.length == 0) {
            return m;
        }
        for (int p : new int[]{50, 95, 99}) {
            m.put("p" + p, s[Math.max(0, (int) Math.ceil(p / 100.0 * s.length) - 1)] / 1e6);
        }
        m.put("max", s[s.length - 1] / 1e6);
        m.put("mean", Arrays.stream(s).average().orElse(0) / 1e6);
        return m;
    }
}
