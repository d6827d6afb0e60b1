package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The database's ceiling for the engine's shape, no engine involved: a bare JDBC loop on the
 * engine's own table and indexes that claims 100 rows ({@code SKIP LOCKED}, stamping a fencing
 * token as the engine's claim does), commits, then commits their next state ({@code done}) in one
 * {@code UPDATE … FROM unnest} matched on the token, as the engine's flush does.
 */
final class CeilingScenario implements Scenario.Body {
    private static final int BATCH = 100;

    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        line.put("params", Map.of("n", o.n, "batch", BATCH));
        Map<String, Object> results = new LinkedHashMap<>();
        for (int threads : new int[]{1, 4}) {
            try (Schema schema = Schema.fresh(db, o, "ceiling");
                 HikariDataSource ds = db.pool("bench-ceiling", Math.max(4, threads + 1))) {
                try (Node loader = Node.loader(ds, Engines.client(o, schema.name()), new BenchFsms.NoopJob())) {
                    loader.insertAll(o.n, 1, 1000, BenchFsms::noop);
                }
                BenchDb.exec(ds, "ANALYZE " + schema.instances());
                CpuSplit cpu = CpuSplit.now(ds);
                long t0 = System.nanoTime();
                long steps = loop(ds, schema.instances(), threads);
                double sec = (System.nanoTime() - t0) / 1e9;
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("threads", threads);
                r.put("steps", steps);
                r.put("seconds", sec);
                r.put("steps_per_s", steps / sec);
                r.put("cpu", cpu.since());
                results.put("threads_" + threads, r);
                line.put("complete", steps == o.n && !Boolean.FALSE.equals(line.get("complete")));
            }
        }
        line.put("results", results);
    }

    /** @return the rows set done by {@code threads} threads claiming and finishing until none is left */
    private static long loop(HikariDataSource ds, String t, int threads) throws Exception {
        String claimSql = "UPDATE " + t + " g SET status = 'executing', locked_by = ?, "
                + "lease_expires_at = now() + interval '1 minute', updated_at = now(), "
                + "claim_token = nextval('" + t + "_claim_token') "
                + "FROM (SELECT id FROM " + t + " WHERE queue = 'default' AND status = 'runnable' "
                + "AND eligible_at <= now() ORDER BY priority, eligible_at LIMIT ? "
                + "FOR NO KEY UPDATE SKIP LOCKED) c WHERE g.id = c.id RETURNING g.id, g.state, g.claim_token";
        String doneSql = "UPDATE " + t + " g SET status = 'done', locked_by = NULL, lease_expires_at = NULL, "
                + "claim_token = NULL, result = NULL, updated_at = now() "
                + "FROM unnest(?::bigint[], ?::bigint[]) AS u(id, token) "
                + "WHERE g.id = u.id AND g.claim_token = u.token AND g.locked_by = ? AND g.status = 'executing'";
        AtomicLong steps = new AtomicLong();
        Parallel.run(threads, th -> {
            String worker = "ceiling-" + th;
            try (var c = ds.getConnection(); var claim = c.prepareStatement(claimSql);
                 var done = c.prepareStatement(doneSql)) {
                c.setAutoCommit(false);
                while (true) {
                    claim.setString(1, worker);
                    claim.setInt(2, BATCH);
                    List<Long> ids = new ArrayList<>(BATCH);
                    List<Long> tokens = new ArrayList<>(BATCH);
                    try (var rs = claim.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getLong(1));
                            rs.getString(2);
                            tokens.add(rs.getLong(3));
                        }
                    }
                    c.commit();
                    if (ids.isEmpty()) {
                        return;
                    }
                    done.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                    done.setArray(2, c.createArrayOf("bigint", tokens.toArray()));
                    done.setString(3, worker);
                    steps.addAndGet(done.executeUpdate());
                    c.commit();
                }
            }
        });
        return steps.get();
    }
}
