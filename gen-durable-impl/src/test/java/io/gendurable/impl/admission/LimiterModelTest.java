package io.gendurable.impl.admission;

import io.gendurable.Status;
import io.gendurable.TransitionOptions.KeyChange;
import io.gendurable.impl.claim.ClaimRelease;
import io.gendurable.impl.claim.Claimer;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimiterBackend;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.EnginePersistence;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.flush.FlushSql;
import io.gendurable.impl.flush.Transition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.lease.LeaseSql;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.step.ClaimedRow;
import io.gendurable.impl.step.Claimed;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.TestRedis;
import io.gendurable.impl.redis.RedisStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admission against a model, beside {@link io.gendurable.impl.claim.AdmissionModelTest} (which runs
 * two nodes on different {@code shards} through the scheduler's own pick): random sequences of the engine's own claim ({@link Claimer}), admission
 * ({@link PostgresLimiter}, and the inline continuation's admission of a next step), flush
 * ({@link FlushSql}, outcomes of every kind, stale ones included, keys kept, released and switched),
 * release ({@link ClaimRelease}, and releases that never happen: a worker that dies), heartbeat,
 * reaper, gate reconciler and rate-bucket sweep ({@link BucketSweeper}, with a page of 3 shards so
 * its cursor wraps), changes of a gate's and a rate limit's {@code shards} (on every node at once,
 * as the docs ask), for three workers on two nodes whose clocks disagree by up to {@link #SKEW}.
 * After every step, from the rows and the counters:
 * <ul>
 * <li>no gate key has more than {@link #K} admitted executing rows, and the free slots its current
 *     shards hold never exceed {@code K} minus them (nothing can be admitted beyond the limit next);</li>
 * <li>a key without counter rows (swept: it reads as full) has no admitted executing row;</li>
 * <li>in any window {@code [t1, t2]} of true time the rate limit admitted at most
 *     {@code burst + rate × (t2 - t1 + 2 × skew)} tokens (each admission's clock is within the skew of
 *     true time, and {@code last_refill} never moves back);</li>
 * <li>now and then a heal check: one round of reconciler passes over every key, after which each
 *     key's counters hold exactly {@code K} minus its admitted executing rows: no slot a crash, a
 *     reap, a lost release, a lost claim or a shard change leaked outlives a round.</li>
 * </ul>
 * The Redis mode ({@link #with_the_redis_limiter_through_flushes_restarts_and_restores_from_an_older_snapshot_no_gate_exceeds_its_limit})
 * runs the same steps against the Redis limiter and a private redis-server that loses its state.
 * A gate's limit is never changed here (only its shards), and every node always has the same
 * configuration: what docs/concurrency.md asks of a cluster.
 * <p>{@code mvn verify} runs a few fixed seeds (under 20 s for both modes);
 * {@code -Dadmission.model.seeds=20 -Dadmission.model.steps=600} runs more (the properties are
 * {@code AdmissionModelTest}'s too; seeds after the third are random; each failure prints its
 * seed and step), {@code -Dadmission.model.seed=N} replays one
 * and {@code -Dadmission.model.trace=true} prints each step with the holders and counters after it.
 * The Redis mode is not exactly replayable: its time follows real time.
 */
@EngineTest
class LimiterModelTest {
    static final int K = 3;
    static final String GATE = "api";
    static final String RATE = "rl";
    static final double RATE_ALLOWED = 4;
    static final Duration RATE_PERIOD = Duration.ofSeconds(10);
    static final double BURST = 3;
    /** Node b's clock is off true time (node a's) by up to this; the lease margin (30 s - 5 s) covers twice it. */
    static final Duration SKEW = Duration.ofSeconds(10);
    static final Duration TTL = Duration.ofSeconds(30);
    /** The Redis mode's, in real time (Redis's clock): a slot's lease is ttl + heartbeat, and lapses within a seed. */
    static final Duration REDIS_TTL = Duration.ofSeconds(3);
    static final Duration REDIS_HEARTBEAT = Duration.ofSeconds(1);
    static final Duration REDIS_SKEW = Duration.ofMillis(500);
    static final String[] KEYS = {"api:a", "api:b", "api:c", "api:d"};
    static final String QUEUE = "default";
    /** {@code -Dadmission.model.trace=true}: each step and the counters after it, to read a failure */
    static final boolean TRACE = Boolean.getBoolean("admission.model.trace");

    /** A node: its clock and, for the current shards, its context, limiter and reconciler. */
    final class Node {
        final String name;
        Duration offset = Duration.ZERO;
        EngineContext ctx;
        PostgresLimiter limiter;
        BucketSweeper sweeper;
        /** the Redis limiter's store (redis mode) */
        RedisStore store;

        Node(String name) {
            this.name = name;
        }

        Instant now() {
            return now.plus(offset);
        }

        void configure(int gateShards, int rateShards) {
            LimitsConfig limits = new LimitsConfig(
                    Map.of(RATE, new LimitsConfig.RateLimit(RATE, RATE_ALLOWED, RATE_PERIOD, BURST, rateShards)),
                    Map.of(GATE, new LimitsConfig.Gate(GATE, K, gateShards)));
            EngineConfig.Builder builder = h.configBuilder(name).queues(Map.of(QUEUE, 4)).lease(ttl, heartbeat).limits(limits);
            if (server != null) {
                builder.limiter(LimiterBackend.REDIS).redisUrl(server.url());
            }
            EngineConfig config = builder.build();
            FsmRegistry registry = new FsmRegistry();
            registry.register(io.gendurable.impl.fsm.FsmDefinition.of(new ModelFsm()));  // a node claims only the FSMs it has
            ctx = new EngineContext(config, registry, db, statements, this::now, new EngineMetrics(),
                    EngineEvents.NONE, new Json(), null, null);
            limiter = new PostgresLimiter(ctx);
            sweeper = new BucketSweeper(ctx);
            // a round of passes pages through the keys and the cursor wraps; a page of K shards
            // holds any one key whole (a key with more shards than a page is never whole: with the
            // default page of 10,000 that takes a gate with more than 10,000 shards)
            sweeper.batch(K);
            if (server != null && store == null) {
                store = new RedisStore(config);
            }
        }
    }

    /** A worker: its node and the claims it believes it holds, stale ones included. */
    final class Worker {
        final String name;
        final Node node;
        Limiter limiter;
        ClaimRelease releases;
        Claimer claimer;
        /** claimed, not admitted yet (each a claim's batch) */
        final List<List<Claimed>> pending = new ArrayList<>();
        /** an inline continue committed, its next step not admitted yet; with whether its key switched to a gate */
        final Map<Claimed, Boolean> inline = new LinkedHashMap<>();
        /** admitted (or needing no admission): their steps run */
        final List<Claimed> running = new ArrayList<>();

        Worker(String name, Node node) {
            this.name = name;
            this.node = node;
        }

        void configure() {
            if (server == null) {
                limiter = node.limiter;
            } else if (limiter == null) {
                // one scheduler's: it remembers its admissions to renew them
                limiter = new io.gendurable.impl.redis.RedisLimiter(node.ctx, node.store);
            }
            releases = new ClaimRelease(node.ctx, limiter);
            claimer = new Claimer(node.ctx, QUEUE, name, releases, limiter, (q, n) -> { });
        }

        Map<Long, Long> claims() {
            Map<Long, Long> out = new HashMap<>();
            pending.forEach(b -> b.forEach(p -> out.put(p.row().id(), p.row().claimToken())));
            inline.keySet().forEach(p -> out.put(p.row().id(), p.row().claimToken()));
            running.forEach(p -> out.put(p.row().id(), p.row().claimToken()));
            return out;
        }
    }

    private EngineHarness h;
    private Duration ttl = TTL;
    private Duration heartbeat = Duration.ofSeconds(5);
    private Duration skew = SKEW;
    /** redis mode: the limiter's private server (else null), and the test's own connection to it */
    private TestRedis.Server server;
    private io.lettuce.core.RedisClient client;
    private io.lettuce.core.api.StatefulRedisConnection<String, String> redis;
    /** redis mode: when (System.nanoTime) Redis lost state (flushed, restarted, restored) */
    private final List<Long> losses = new ArrayList<>();
    private long lastReal;
    /** redis mode: an admission ran in this step (the limiter then vouches for its state: rebuilt if it was lost) */
    private boolean admittedNow;
    /** redis mode: "id:token" of a claim → the Redis holder of its slot (an inline continue keeps its admission's) */
    private final Map<String, String> holders = new HashMap<>();
    private Instant start;
    private Db db;
    private Statements statements;
    private FlushSql flushSql;
    private LeaseSql leaseSql;
    private Instant now;
    private Node a;
    private Node b;
    private List<Worker> workers;
    private int gateShards;
    /** rate key → when its tokens were admitted, in order (nanoseconds: the model's true time; real time with Redis) */
    private final Map<String, List<Long>> rateAdmissions = new HashMap<>();
    private String where;
    private long steps;
    private final Map<String, Long> counts = new java.util.TreeMap<>();

    @AfterEach
    void down() {
        closeStores();
        if (client != null) {
            redis.close();
            client.shutdown();
        }
        if (server != null) {
            server.stop();
        }
        if (db != null) {
            db.close();
        }
    }

    private void closeStores() {
        for (Node node : a == null ? List.<Node>of() : List.of(a, b)) {
            if (node.store != null) {
                node.store.close();
                node.store = null;
            }
        }
    }

    @Test
    void random_claims_admissions_flushes_releases_reaps_reconciler_passes_and_shard_changes_never_exceed_a_limit(
            EngineHarness h) throws Exception {
        runSeeds(h, 3, 180);
        assertThat(counts.getOrDefault("heal checks", 0L)).as("heal checks").isPositive();
    }

    /**
     * The same with the Redis limiter ({@code gendurable.limiter=redis}) on a private redis-server
     * that now and then loses its state: flushed, snapshotted ({@code SAVE}) and killed and
     * restarted, from its last snapshot when there is one (an older state: the holders admitted
     * since are gone, as after a failover to a replica that is behind). Leases are short (3 s +
     * 1 s for a slot, in Redis's real time) and the model's time never runs slower than real time,
     * so a claim's lease lapses no later than its slot's. After every step: no gate key has more
     * than {@link #K} admitted rows whose lease is live; while the epoch names the running Redis
     * process, the key's live holders in Redis are at least as many; and every window admitted at
     * most {@code burst} (once, plus once per loss in it) {@code + rate × window} tokens of real time.
     * (No heal check: a leaked slot heals when its lease lapses in Redis, not by a reconciler.)
     */
    @Test
    void with_the_redis_limiter_through_flushes_restarts_and_restores_from_an_older_snapshot_no_gate_exceeds_its_limit(
            EngineHarness h, @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        server = TestRedis.startPrivate(dir);
        client = io.lettuce.core.RedisClient.create(server.url());
        redis = client.connect();
        ttl = REDIS_TTL;
        heartbeat = REDIS_HEARTBEAT;
        skew = REDIS_SKEW;
        runSeeds(h, 2, 120);
        assertThat(counts.getOrDefault("redis restarts", 0L)).as("restarts").isPositive();
    }

    private void runSeeds(EngineHarness h, int defaultSeeds, int defaultSteps) throws SQLException {
        this.h = h;
        SchemaName schema = new SchemaName(h.schema());
        Migrations.migrate(h.dataSource(), schema);
        db = new Db(EnginePersistence.create(h.dataSource(), schema));
        statements = new Statements(schema);
        flushSql = FlushSql.in(statements);
        leaseSql = new LeaseSql(schema);
        int seeds = Integer.getInteger("admission.model.seeds", defaultSeeds);
        int perSeed = Integer.getInteger("admission.model.steps", defaultSteps);
        List<Long> list = io.gendurable.impl.support.ModelSeeds.of(seeds);
        if (Long.getLong("admission.model.seed") != null) {  // one seed, to replay a failure
            list = List.of(Long.getLong("admission.model.seed"));
            seeds = 1;
        }
        for (long seed : list.subList(0, seeds)) {
            run(seed, perSeed);
        }
        System.out.println("limiter model" + (server == null ? "" : " (redis)") + ": " + steps + " steps over " + seeds
                + " seeds (seeds " + list.subList(0, seeds) + "): " + counts);
        assertThat(steps).isEqualTo((long) seeds * perSeed);
        assertThat(counts.getOrDefault("gate admitted", 0L)).as("gated rows admitted").isPositive();
        assertThat(counts.getOrDefault("gate denied", 0L)).as("gated rows denied").isPositive();
    }

    private void count(String what, long n) {
        counts.merge(what, n, Long::sum);
    }

    private void run(long seed, int n) throws SQLException {
        Random r = new Random(seed);
        h.exec("DELETE FROM gen_durable; DELETE FROM gen_durable_buckets");
        rateAdmissions.clear();
        losses.clear();
        holders.clear();
        now = Instant.parse("2026-01-01T00:00:00Z");
        start = now;
        closeStores();
        if (server != null) {
            redis.sync().flushall();
        }
        lastReal = System.nanoTime();
        a = new Node("a");
        b = new Node("b");
        b.offset = Duration.ofMillis((long) ((r.nextDouble() * 2 - 1) * skew.toMillis()));
        workers = List.of(new Worker("a:default@1", a), new Worker("a:default@2", a), new Worker("b:default@1", b));
        reconfigure(1 + r.nextInt(K), 1 + r.nextInt(2));
        for (int i = 0; i < 16; i++) {
            insert(r);
        }
        for (int step = 0; step < n; step++) {
            Worker w = workers.get(r.nextInt(workers.size()));
            Node node = r.nextBoolean() ? a : b;
            int op = r.nextInt(100);
            where = "seed " + seed + ", step " + step + " (b's clock " + b.offset + "): ";
            admittedNow = false;
            if (server != null) {
                // the model's time never runs slower than real time (Redis's): a claim's lease lapses before its slot's
                long real = System.nanoTime();
                now = now.plusNanos(real - lastReal);
                lastReal = real;
            }
            if (op < 16) {
                where += "claim by " + w.name;
                claim(w, 1 + r.nextInt(4));
            } else if (op < 34) {
                where += "admission by " + w.name;
                admit(w, r);
            } else if (op < 40) {
                where += "inline admission by " + w.name;
                admitInline(w, r);
            } else if (op < 56) {
                where += "flush by " + w.name;
                flush(w, r);
            } else if (op < 62) {
                boolean fails = r.nextInt(3) == 0;
                where += (fails ? "lost " : "") + "release by " + w.name;
                release(w, r, fails);
            } else if (op < 68) {
                where += "heartbeat of " + w.name;
                heartbeat(w);
            } else if (op < 76) {
                where += "time passes";
                long ms = ttl.toMillis();
                now = now.plus(r.nextInt(8) == 0 ? Duration.ofMillis(ms + ms / 30 + r.nextInt((int) ms / 3))
                        : Duration.ofMillis(ms / 150 + r.nextInt((int) ms / 7)));
            } else if (op < 80) {
                where += "reap by " + node.name;
                reap(node);
            } else if (op < 90 && server != null) {
                redisEvent(r);  // no counters in PostgreSQL to reconcile or sweep
            } else if (op < 86) {
                where += "reconciler pass by " + node.name;
                count("reconciled", node.sweeper.reconcileGates());
            } else if (op < 88) {
                where += "rate sweep by " + node.name;
                count("rate shards swept", node.sweeper.sweepRates());
            } else if (op < 90) {
                int g = 1 + r.nextInt(K);
                int rs = 1 + r.nextInt(2);
                where += "shards changed to gate " + g + ", rate " + rs;
                reconfigure(g, rs);
                count("shard changes", 1);
            } else if (op < 96) {
                where += "inserts, parked rows woken";
                h.exec("UPDATE gen_durable SET status = 'runnable', awaits = NULL WHERE status = 'awaiting_signal'");
                insert(r);
                insert(r);
            } else if (op < 98) {
                where += "finished rows back to runnable";
                h.exec("UPDATE gen_durable SET status = 'runnable', eligible_at = '" + now.minusSeconds(60)
                        + "' WHERE status IN ('done', 'failed')");
            } else if (server != null) {
                redisEvent(r);
            } else {
                where += "heal check: a round of reconciler passes by " + node.name;
                healCheck(node);
            }
            where += " | ";
            if (TRACE) {
                System.out.println(where + " -> held " + held() + ", counters " + counters());
            }
            check();
            steps++;
        }
    }

    private void reconfigure(int gate, int rate) {
        gateShards = gate;
        for (Node node : List.of(a, b)) {
            node.configure(gate, rate);
        }
        workers.forEach(Worker::configure);
    }

    /** The FSM the model's rows name. Its steps never run here. */
    @io.gendurable.DurableFsm(name = "model")
    public static class ModelFsm implements io.gendurable.Fsm<Object> {
        @Override
        public io.gendurable.Outcome step(String step, Object state, io.gendurable.StepContext ctx) {
            throw new AssertionError("the model claims and admits; it runs no step");
        }
    }

    private void insert(Random r) {
        String key = r.nextInt(5) == 0 ? null : KEYS[r.nextInt(KEYS.length)];
        String rate = key == null || r.nextInt(3) == 0 ? RATE + ":" + r.nextInt(2) : null;
        h.exec("INSERT INTO gen_durable (fsm, step, state, concurrency_key, rate_limit, weight, eligible_at) VALUES "
                + "('model', 'a', '{}', " + literal(key) + ", " + literal(rate) + ", " + (1 + r.nextInt(2)) + ", '"
                + now.minusSeconds(60) + "')");
    }

    private static String literal(String s) {
        return s == null ? "NULL" : "'" + s + "'";
    }

    private void claim(Worker w, int demand) {
        List<Claimed> claimed = db.inTransaction(c -> w.claimer.claimIn(c, demand));
        if (!claimed.isEmpty()) {
            w.pending.add(claimed);
        }
        count("claimed", claimed.size());
    }

    /** The picker's admission of one claimed batch: the denied go back, a lost claim gives back the batch. */
    private void admit(Worker w, Random r) {
        if (w.pending.isEmpty()) {
            return;
        }
        List<Claimed> batch = w.pending.remove(r.nextInt(w.pending.size()));
        List<Claimed> kept;
        try {
            kept = w.claimer.admit(batch);
        } catch (ClaimLostException e) {
            count("admissions of a lost claim", 1);
            return;  // the picker gave back the batch's claims that were still its own
        } catch (RuntimeException e) {
            if (server == null) {
                throw e;
            }
            count("admissions failed (Redis unreachable)", 1);
            return;  // nothing admitted: the picker gave back the batch
        }
        admittedNow = batch.stream().anyMatch(p -> p.row().gated() || p.row().rateLimit() != null);  // the limiter ran
        for (Claimed p : kept) {
            if (p.row().gated()) {
                assertThat(p.slot()).as(where + "an admitted gated row's slot").isNotNull();
            }
            admitted(p);
            running(w, p);
        }
        long gated = batch.stream().filter(p -> p.row().gated()).count();
        long gatedKept = kept.stream().filter(p -> p.row().gated()).count();
        count("gate admitted", gatedKept);
        count("gate denied", gated - gatedKept);
        long rated = batch.stream().filter(p -> p.row().rateLimit() != null).count();
        count("rate-limited denied", rated - kept.stream().filter(p -> p.row().rateLimit() != null).count());
    }

    private void admitted(Claimed p) {
        if (p.row().rateLimit() != null) {
            List<Long> tokens = rateAdmissions.computeIfAbsent(p.row().rateLimit(), k -> new ArrayList<>());
            long at = server == null ? Duration.between(start, now).toNanos() : System.nanoTime();
            for (int i = 0; i < p.row().weight(); i++) {
                tokens.add(at);
            }
            checkRate(p.row().rateLimit(), tokens);
            count("rate tokens admitted", p.row().weight());
        }
    }

    /** The inline continuation's admission of a next step (a rate token, a slot of a newly switched gate). */
    private void admitInline(Worker w, Random r) throws SQLException {
        if (w.inline.isEmpty()) {
            return;
        }
        List<Claimed> list = new ArrayList<>(w.inline.keySet());
        Claimed p = list.get(r.nextInt(list.size()));
        boolean newGate = w.inline.remove(p);
        ClaimedRow row = p.row();
        Limiter.Admission admission;
        try {
            admission = w.limiter.admit(List.of(new Limiter.Candidate(row.id(), row.claimToken(),
                    newGate ? row.concurrencyKey() : null, row.rateLimit(), row.weight())), QUEUE);
        } catch (ClaimLostException e) {
            count("inline admissions of a lost claim", 1);
            return;  // the step runner gives up the chain; the row is another claim's
        } catch (RuntimeException e) {
            if (server == null) {
                throw e;
            }
            count("inline admissions failed (Redis unreachable)", 1);
            return;  // the chain stops; its claim lapses to the reaper (a kept slot with it)
        }
        admittedNow = true;
        if (admission.denied().contains(row.id())) {
            // requeued through the flush, giving back a kept slot
            Transition t = new Transition.Requeue(claim(w, p), w.node.now(), p.slot());
            FlushSql.Flushed result = db.inTransaction(c -> flushSql.flush(c, List.of(t), w.node.now()));
            creditAfterCommit(w, List.of(t), result);
            count("inline denied", 1);
            return;
        }
        Limiter.Slot slot = admission.admitted().get(row.id());
        Claimed next = slot == null ? p : p.withSlot(slot);
        admitted(next);
        running(w, next);
        count("inline admitted", 1);
    }

    /** The claim's step runs: with a slot outside PostgreSQL, its holder is remembered by the claim (even once forgotten). */
    private void running(Worker w, Claimed p) {
        w.running.add(p);
        if (p.slot() != null && !p.slot().inBand()) {
            holders.put(p.row().id() + ":" + p.row().claimToken(), p.slot().holder());
        }
    }

    /** As the flusher does once a flush committed: the slots outside PostgreSQL of its committed outcomes go back. */
    private static void creditAfterCommit(Worker w, List<Transition> batch, FlushSql.Flushed result) {
        List<Limiter.Slot> slots = batch.stream().filter(result::committed).map(Transition::slot)
                .filter(slot -> slot != null && !slot.inBand()).toList();
        w.limiter.credit(slots);
    }

    private static Transition.Claim claim(Worker w, Claimed p) {
        return new Transition.Claim(p.row().id(), w.name, p.row().claimToken());
    }

    private void flush(Worker w, Random r) {
        List<Transition> batch = new ArrayList<>();
        List<Claimed> flushed = new ArrayList<>();
        List<Transition.NextStep> continues = new ArrayList<>();
        Instant at = w.node.now();
        for (Iterator<Claimed> it = w.running.iterator(); it.hasNext(); ) {
            Claimed p = it.next();
            if (r.nextInt(2) == 0) {
                continue;
            }
            it.remove();
            Transition.Claim claim = claim(w, p);
            Limiter.Slot slot = p.slot();
            int kind = r.nextInt(8);
            Transition t = switch (kind) {
                case 0 -> new Transition.Finish(claim, Status.DONE, "{}", null, null, slot);
                case 1 -> new Transition.Retry(claim, null, at.plusSeconds(1), slot, "boom");
                case 2 -> new Transition.Park(claim, "b", "{}", List.of("go"), null, List.of(), slot, null);
                case 3, 4 -> new Transition.Next(claim, nextStep(r), at, List.of(), slot, null);
                default -> {
                    Transition.NextStep next = nextStep(r);
                    // an inline continue keeps its slot with its key, and gives it back when it leaves it
                    yield new Transition.Continue(claim, next, at, at.plus(ttl), List.of(),
                            next.keyChange() == KeyChange.KEEP ? null : slot, null);
                }
            };
            batch.add(t);
            flushed.add(p);
            continues.add(t instanceof Transition.Continue c ? c.next() : null);
        }
        if (batch.isEmpty()) {
            return;
        }
        FlushSql.Flushed result = db.inTransaction(c -> flushSql.flush(c, batch, at));
        creditAfterCommit(w, batch, result);
        count("outcomes committed", result.committed().size());
        count("stale outcomes", batch.size() - result.committed().size());
        for (int i = 0; i < batch.size(); i++) {
            Transition.NextStep next = continues.get(i);
            Transition t = batch.get(i);
            if (next == null || !result.committed(t)) {
                continue;
            }
            Claimed p = flushed.get(i);
            long token = result.continued().get(t.claim());
            ClaimedRow old = p.row();
            String key = switch (next.keyChange()) {
                case KEEP -> old.concurrencyKey();
                case RELEASE -> null;
                case SWITCH -> next.newKey();
            };
            boolean gated = next.keyChange() == KeyChange.KEEP ? old.gated() : key != null;
            ClaimedRow row = new ClaimedRow(old.id(), old.fsm(), old.fsmVersion(), next.name(), next.stateJson(), 1, QUEUE,
                    old.priority(), at, old.insertedAt(), null, key, List.of(), false, null, false, next.rateLimit(),
                    next.weight(), gated, null, token, null, null, at.plus(ttl));
            Claimed continued = new Claimed(row, List.of(), List.of(), next.keyChange() == KeyChange.KEEP ? p.slot() : null);
            boolean newGate = next.keyChange() == KeyChange.SWITCH;
            if (newGate || next.rateLimit() != null) {
                w.inline.put(continued, newGate);
            } else {
                running(w, continued);
            }
        }
    }

    /** A next step: its key kept, released or switched to another gate key, with or without a rate limit. */
    private static Transition.NextStep nextStep(Random r) {
        String rate = r.nextInt(3) == 0 ? RATE + ":" + r.nextInt(2) : null;
        int weight = 1 + r.nextInt(2);
        return switch (r.nextInt(5)) {
            case 0 -> new Transition.NextStep("b", "{}", rate, weight, KeyChange.RELEASE, null);
            case 1 -> new Transition.NextStep("b", "{}", rate, weight, KeyChange.SWITCH, KEYS[r.nextInt(KEYS.length)]);
            default -> new Transition.NextStep("b", "{}", rate, weight, KeyChange.KEEP, null);
        };
    }

    /** A drain's release of claims that never ran (or a failed one: the worker forgets them, the reaper takes them). */
    private void release(Worker w, Random r, boolean fails) {
        List<Claimed> chosen = new ArrayList<>();
        for (Iterator<List<Claimed>> it = w.pending.iterator(); it.hasNext(); ) {
            List<Claimed> batch = it.next();
            if (r.nextBoolean()) {
                chosen.addAll(batch);
                it.remove();
            }
        }
        for (Iterator<Claimed> it = w.running.iterator(); it.hasNext(); ) {
            Claimed p = it.next();
            if (r.nextBoolean()) {
                chosen.add(p);
                it.remove();
            }
        }
        if (chosen.isEmpty()) {
            return;
        }
        if (fails) {
            count("claims forgotten", chosen.size());
            return;
        }
        count("released", w.releases.release(w.name, chosen));
    }

    private void heartbeat(Worker w) {
        Map<Long, Long> claims = w.claims();
        if (claims.isEmpty()) {
            return;
        }
        Set<Long> unrenewed = w.limiter.renew(QUEUE, Map.copyOf(claims));
        if (server == null) {
            assertThat(unrenewed).as(where + "a counter slot needs no renewal").isEmpty();
        }
        // as the scheduler's heartbeat: a row whose slot was not renewed keeps its lease, to lapse with it
        claims.keySet().removeAll(unrenewed);
        count("slots not renewed", unrenewed.size());
        if (claims.isEmpty()) {
            return;
        }
        Instant until = w.node.now().plus(ttl);
        db.inTransaction(c -> leaseSql.heartbeat(c, w.name, claims, until));
    }

    private void reap(Node node) {
        count("reaped", db.inTransaction(c -> leaseSql.reap(c, node.now(), 1000)).size());
    }

    /** The admitted executing rows of each gate key. */
    private Map<String, Long> held() throws SQLException {
        Map<String, Long> out = new HashMap<>();
        try (Connection c = h.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT concurrency_key, count(*) FROM " + h.schema() + ".gen_durable WHERE status = 'executing'"
                        + " AND concurrency_shard >= 0 GROUP BY 1"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getLong(2));
            }
        }
        return out;
    }

    /** Each gate key's counter rows: shard → available. */
    private Map<String, Map<Integer, Double>> counters() throws SQLException {
        Map<String, Map<Integer, Double>> out = new HashMap<>();
        try (Connection c = h.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT key, shard, available FROM " + h.schema() + ".gen_durable_buckets WHERE kind = 'conc'");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getString(1), k -> new HashMap<>()).put(rs.getInt(2), rs.getDouble(3));
            }
        }
        return out;
    }

    private double free(Map<Integer, Double> shards) {
        return shards.entrySet().stream().filter(e -> e.getKey() < gateShards).mapToDouble(Map.Entry::getValue).sum();
    }

    private void check() throws SQLException {
        if (server != null) {
            checkRedis();
            return;
        }
        Map<String, Long> held = held();
        Map<String, Map<Integer, Double>> counters = counters();
        for (String key : KEYS) {
            long n = held.getOrDefault(key, 0L);
            assertThat(n).as(where + "admitted executing rows of " + key).isLessThanOrEqualTo(K);
            Map<Integer, Double> shards = counters.get(key);
            if (shards == null) {
                assertThat(n).as(where + key + " has no counter rows (reads as full) while rows hold its slots").isZero();
            } else {
                assertThat(n + free(shards)).as(where + key + ": admitted executing rows + free slots of its "
                        + gateShards + " shards " + shards).isLessThanOrEqualTo(K + 1e-9);
            }
        }
    }

    /** A round of reconciler passes reaches every key: then each key's counters are exactly its truth. */
    private void healCheck(Node node) throws SQLException {
        long keys = h.queryLong("SELECT count(DISTINCT key) FROM gen_durable_buckets WHERE kind = 'conc'");
        for (long i = 0; i < 2 * keys + 2; i++) {
            node.sweeper.reconcileGates();
        }
        Map<String, Long> held = held();
        Map<String, Map<Integer, Double>> counters = counters();
        for (String key : KEYS) {
            long n = held.getOrDefault(key, 0L);
            Map<Integer, Double> shards = counters.get(key);
            if (shards != null) {
                for (int s = 0; s < gateShards; s++) {
                    assertThat(shards).as(where + key + "'s shards after a round").containsKey(s);
                }
                assertThat(n + free(shards)).as(where + key + ": admitted executing rows + free slots after a round "
                        + shards).isCloseTo(K, org.assertj.core.data.Offset.offset(1e-9));
            }
        }
        count("heal checks", 1);
    }

    /**
     * Redis: the admitted rows of each gate key whose lease is live in true time (a node's clock is
     * off by its offset) are at most {@link #K}, and, while the epoch names the running Redis
     * process (its state is not known lost) or an admission has just run (the limiter rebuilds a lost
     * state before it admits), each of them has a live holder in Redis.
     */
    private void checkRedis() throws SQLException {
        Map<String, Long> live = new HashMap<>();
        Map<String, List<String>> liveClaims = new HashMap<>();  // key → "id:token" of its live admitted claims
        try (Connection c = h.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT concurrency_key, locked_by, lease_expires_at, id, claim_token FROM " + h.schema() + ".gen_durable"
                        + " WHERE status = 'executing' AND concurrency_shard >= 0"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Node node = rs.getString(2).startsWith("a:") ? a : b;
                if (rs.getTimestamp(3).toInstant().minus(node.offset).isAfter(now)) {
                    live.merge(rs.getString(1), 1L, Long::sum);
                    liveClaims.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getLong(4) + ":" + rs.getLong(5));
                }
            }
        }
        var sync = redis.sync();
        String run;
        String epoch;
        long redisNow;
        try {
            run = sync.info("server").lines().filter(l -> l.startsWith("run_id:")).findFirst().orElseThrow().substring(7).trim();
            String prefix = "gendurable:" + h.schema() + ":";
            epoch = sync.get(prefix + "epoch");
            List<String> time = sync.time();
            redisNow = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        } catch (RuntimeException e) {
            run = null;  // Redis is restarting: only the limit is checked
            epoch = null;
            redisNow = 0;
        }
        for (String key : KEYS) {
            long n = live.getOrDefault(key, 0L);
            assertThat(n).as(where + "admitted rows of " + key + " whose lease is live").isLessThanOrEqualTo(K);
            // A Redis whose epoch is not its own lost state: nothing may be admitted before the rebuild,
            // so once an admission ran its holders are complete again
            if (run != null && (run.equals(epoch) || admittedNow)) {
                String set = "gendurable:" + h.schema() + ":conc:" + key;
                List<String> members = sync.zrangebyscore(set, io.lettuce.core.Range.create((double) redisNow, Double.POSITIVE_INFINITY));
                for (String claim : liveClaims.getOrDefault(key, List.of())) {
                    // a member of its row: its admission's holder, or what a rebuild registered for it
                    // ("id:token" of the claim it read, which an inline continue has since replaced)
                    String holder = holders.get(claim);
                    String id = claim.substring(0, claim.indexOf(':') + 1);
                    assertThat(members.stream().anyMatch(m -> m.startsWith(id)))
                            .as(where + key + ": the admitted claim " + claim + " (holder " + holder + ") with a live lease "
                                    + "has a live holder in Redis (epoch " + (run.equals(epoch) ? "current" : "stale")
                                    + "): " + members).isTrue();
                }
            }
        }
    }

    /** Redis loses state: flushed, snapshotted, or killed and restarted (from its last snapshot, if any). */
    private void redisEvent(Random r) {
        int kind = r.nextInt(10);
        if (kind < 3) {
            where += "Redis flushed";
            redis.sync().flushall();
            losses.add(System.nanoTime());
            count("redis flushes", 1);
        } else if (kind < 7) {
            where += "Redis snapshot (SAVE)";
            redis.sync().save();
            count("redis snapshots", 1);
        } else {
            // admissions since the last snapshot (if any) are what a restore loses
            Worker before = workers.get(r.nextInt(workers.size()));
            where += "a claim and an admission by " + before.name + ", then Redis killed and restarted from its last snapshot";
            claim(before, 1 + r.nextInt(4));
            admit(before, r);
            long began = System.nanoTime();
            losses.add(began);
            server.stop();
            server.start();
            awaitReconnected(redis);
            for (Node node : List.of(a, b)) {
                awaitReconnected(node.store.connection());
            }
            count("redis restarts", 1);
            count("redis restart ms", (System.nanoTime() - began) / 1_000_000);
            admittedNow = false;  // what vouches for the restarted Redis is an admission after the restart
            // and at once a claim and its admission: the first thing a restored Redis must not get wrong
            Worker w = workers.get(r.nextInt(workers.size()));
            where += ", then a claim and an admission by " + w.name;
            claim(w, 1 + r.nextInt(4));
            admit(w, r);
        }
    }

    private static void awaitReconnected(io.lettuce.core.api.StatefulRedisConnection<String, String> c) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                c.sync().ping();
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * Every window ending at the latest admission: at most burst + rate × (window + 2 × skew) tokens
     * (the model's true time), or with Redis (real time, Redis's clock) burst once plus once per loss
     * of its state in the window (a rate bucket cannot be rebuilt: it restarts full) + rate × window.
     */
    private void checkRate(String rateKey, List<Long> mine) {
        double perSecond = RATE_ALLOWED / RATE_PERIOD.toSeconds();
        double skew = server == null ? this.skew.toMillis() / 1000.0 : 0.05;
        long last = mine.get(mine.size() - 1);
        for (int i = mine.size() - 1; i >= 0; i--) {
            long from = mine.get(i);
            double window = (last - from) / 1e9;
            long lost = losses.stream().filter(t -> t >= from - 50_000_000L).count();
            int tokens = mine.size() - i;
            assertThat((double) tokens).as(where + "tokens of " + rateKey + " admitted in " + window + " s (" + lost
                    + " losses of Redis state)").isLessThanOrEqualTo(BURST * (1 + lost) + perSecond * (window + 2 * skew) + 1e-6);
        }
    }
}
