package io.gendurable.chaos;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Samples the gate {@link ChaosChild#GATE_KEY} during the run: in one statement (one snapshot),
 * its free slots and the executing rows holding a slot. Free plus held is the capacity when the
 * counter tells the truth; less is a leak (a crash between claim and credit, healed by the GC's
 * reconciler); more would be over-credit, which could over-admit. A missing key reads as full
 * (the reconciler deletes idle keys). Held means admitted: a claimed row awaiting admission has
 * shard -1 and holds nothing yet, as in the reconciler's own count. Every sample is also checked
 * against the limit itself: more admitted executing rows than {@link ChaosChild#GATE_LIMIT} at
 * any sample is over-admission, whatever the counter says. The run samples every
 * {@link #INTERVAL_MILLIS} ms (an over-credit lasts until the reconciler's next round, 2 s here).
 * With the Redis limiter the counter is the gate's sorted set in Redis ({@link #sampleRedis}).
 */
public final class GateProbe {
    private static final String SAMPLE = """
            SELECT (SELECT sum(available) FROM %1$s.gen_durable_buckets WHERE kind = 'conc' AND key = '%2$s'),
                   (SELECT sum(capacity) FROM %1$s.gen_durable_buckets WHERE kind = 'conc' AND key = '%2$s'),
                   (SELECT count(*) FROM %1$s.gen_durable WHERE status = 'executing' AND concurrency_key = '%2$s'
                      AND concurrency_shard >= 0)  -- -1: claimed, not yet admitted
            """.formatted(ChaosSchema.ENGINE, ChaosChild.GATE_KEY);

    // With the Redis limiter: the admitted executing rows whose lease runs (a row whose lease lapsed is
    // a zombie the reaper is about to take back, and its holder lapses a heartbeat after it), read
    // before and after the holders in Redis.
    private static final String HELD = """
            SELECT count(*) FILTER (WHERE lease_expires_at > now()), count(*) FROM %1$s.gen_durable
            WHERE status = 'executing' AND concurrency_key = '%2$s' AND concurrency_shard >= 0
            """.formatted(ChaosSchema.ENGINE, ChaosChild.GATE_KEY);

    /** The sampling interval. */
    public static final long INTERVAL_MILLIS = 100;

    private final DataSource ds;
    private int samples;
    private long maxHeld;
    private int overLimit;
    private int leaking;
    private long maxLeak;
    private int overCredited;

    /** What the probe saw. */
    public record Stats(int samples, int leaking, long maxLeak, int overCredited, long finalLeak, String finalState,
                        long maxHeld, int overLimit) {
    }

    private final ChaosRedis redis;

    /** @param ds a pool on the chaos database @param redis the run's Redis when the limiter is Redis's, else null */
    public GateProbe(DataSource ds, ChaosRedis redis) {
        this.ds = ds;
        this.redis = redis;
    }

    /** Takes one sample; a database error skips it (the server may be restarting). */
    public synchronized void sample() {
        try {
            long[] sample = sampleNow();
            long leak = sample[0];
            samples++;
            maxHeld = Math.max(maxHeld, sample[1]);
            if (sample[1] > ChaosChild.GATE_LIMIT) {
                overLimit++;
            }
            if (leak > 0) {
                leaking++;
                maxLeak = Math.max(maxLeak, leak);
            } else if (leak < 0) {
                overCredited++;
            }
        } catch (SQLException e) {
            // skipped
        }
    }

    /** @return the stats, with a final sample taken now (after the run settled) */
    public synchronized Stats finish() {
        try {
            long leak = sampleNow()[0];
            return new Stats(samples, leaking, maxLeak, overCredited, leak,
                    leak == 0 ? (redis != null ? "live holders in Redis = admitted live rows"
                            : "free + held = capacity (or the idle key was deleted: full)") : leak + " slots leaked",
                    maxHeld, overLimit);
        } catch (SQLException e) {
            throw new IllegalStateException("gate probe: " + e.getMessage(), e);
        }
    }

    /** @return {capacity - free - held (0: the truth), held} */
    private long[] sampleNow() throws SQLException {
        if (redis != null) {
            return sampleRedis();
        }
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(SAMPLE)) {
            rs.next();
            double free = rs.getDouble(1);
            boolean missing = rs.wasNull();
            double capacity = rs.getDouble(2);
            long held = rs.getLong(3);
            if (missing) {
                return new long[] {0, held};  // a missing key is minted full by the next claim
            }
            return new long[] {Math.round(capacity - free - held), held};
        }
    }

    /**
     * The Redis limiter: the gate's live holders (members whose lease has not lapsed) against the
     * admitted executing rows. The two stores cannot be read in one snapshot: PostgreSQL is read
     * before and after Redis and the smaller count kept (an admission adds its holder before it
     * stamps its row, a credit removes it after the row's commit, so holders never fall below that
     * minimum unless a slot was freed while still held). More holders than rows is a leak, healed
     * when its lease lapses.
     */
    private long[] sampleRedis() throws SQLException {
        long[] first = held();
        long holders = redis.liveHolders(ChaosChild.GATE_KEY);
        long[] second = held();
        long before = first[0];
        long after = second[0];
        if (holders < 0) {
            throw new SQLException("Redis does not answer");  // restarting: skipped
        }
        if (!redis.hasEpoch()) {
            // Redis lost its data and no admission has rebuilt it yet: nothing can be admitted until one
            // does, so the missing holders cannot over-admit. Not a sample.
            throw new SQLException("Redis not rebuilt yet");
        }
        long heldNow = Math.min(before, after);
        if (holders < heldNow) {
            System.out.printf("%tT gate probe: %d live holders in Redis against %d/%d admitted live rows%n",
                    System.currentTimeMillis(), holders, before, after);
        }
        // Against the limit: every admitted executing row, zombies included, as in the PostgreSQL mode.
        return new long[] {holders - heldNow, Math.max(first[1], second[1])};
    }

    /** @return {admitted executing rows whose lease runs, all admitted executing rows} */
    private long[] held() throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(HELD)) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }
}
