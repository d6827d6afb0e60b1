package io.gendurable.impl.redis;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.config.ConfigException;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.PokeTransport;
import io.gendurable.impl.config.LimiterBackend;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Latches;
import io.gendurable.impl.support.TcpProxy;
import io.gendurable.impl.support.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What only the Redis limiter has: leases. A lapsed holder (a crashed node's) is pruned by the
 * next admission; the heartbeat renews a long step's slot; a credit that cannot reach Redis leaks
 * the slot until its lease lapses and never admits more than the limit; a Redis that lost its data
 * is rebuilt from PostgreSQL before anything is admitted. And the deployment error when the Redis
 * client is missing.
 */
@EngineTest
class RedisLimiterTest {
    /** Holds each step under its label until the test releases it; tracks the most in flight. */
    public static class Holder extends Latches implements Fsm<String> {
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger max = new AtomicInteger();

        @Override
        public Outcome step(String step, String label, StepContext ctx) throws Exception {
            max.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                hold(label);
            } finally {
                inFlight.decrementAndGet();
            }
            return Outcome.done();
        }
    }

    EngineHarness h;
    RedisClient client;
    StatefulRedisConnection<String, String> redis;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    @AfterEach
    void down() {
        if (client != null) {
            redis.close();
            client.shutdown();
        }
    }

    private StatefulRedisConnection<String, String> redis(String url) {
        client = RedisClient.create(url);
        redis = client.connect();
        return redis;
    }

    private String gateKey(String key) {
        return "gendurable:" + h.schema() + ":conc:" + key;
    }

    private static UnaryOperator<EngineConfig.Builder> redisGate(String url, int limit, Duration lease, Duration heartbeat) {
        return c -> c.queues(Map.of("default", 8)).limiter(LimiterBackend.REDIS).redisUrl(url)
                .lease(lease, heartbeat)
                .limits(new LimitsConfig(Map.of(), Map.of("api", new LimitsConfig.Gate("api", limit, 1))));
    }

    private static NewInstance task(String label) {
        return new NewInstance(Holder.class.getName(), label, InsertOptions.builder().concurrencyKey("api:t").build());
    }

    private long done() {
        return h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'");
    }

    @Test
    void holders_whose_lease_lapsed_are_pruned_by_the_next_admission_and_live_ones_are_not() throws Exception {
        Holder fsm = new Holder();
        String url = TestRedis.url();
        Engine e = h.start("n1", redisGate(url, 2, Duration.ofSeconds(30), Duration.ofSeconds(5)), fsm);
        var r = redis(url).sync();
        e.insert(task("warm"));  // the first admission sets the epoch (nothing to rebuild)
        assertThat(fsm.entered("warm").await(10, TimeUnit.SECONDS)).isTrue();
        fsm.release("warm");
        await().atMost(Duration.ofSeconds(10)).until(() -> done() == 1);
        long now = System.currentTimeMillis();
        // Two holders of a crashed node, their leases lapsed a second ago: the gate of 2 is free for real.
        r.zadd(gateKey("api:t"), now - 1000, "9001:1");
        r.zadd(gateKey("api:t"), now - 1000, "9002:1");
        e.insert(task("A"));
        e.insert(task("B"));
        assertThat(fsm.entered("A").await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fsm.entered("B").await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(r.zscore(gateKey("api:t"), "9001:1")).isNull();
        fsm.release("A");
        fsm.release("B");
        await().atMost(Duration.ofSeconds(10)).until(() -> done() == 3);
        // A live holder (lease a minute ahead) keeps its slot: only one more starts.
        r.zadd(gateKey("api:t"), now + 60_000, "9003:1");
        e.insert(task("C"));
        e.insert(task("D"));
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.started("C") || fsm.started("D"));
        await("one start only").during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5))
                .until(() -> !(fsm.started("C") && fsm.started("D")));
        r.zrem(gateKey("api:t"), "9003:1");
        fsm.release("C");
        fsm.release("D");
        await().atMost(Duration.ofSeconds(10)).until(() -> done() == 5);
        assertThat(fsm.max.get()).isEqualTo(2);
    }

    /**
     * A holder pruned after its lease lapsed is not re-registered by a renewal (issue 35, defect 5).
     * H's slot lapsed (a paused node), an admission pruned it and granted the slot to X; then H's
     * node renews. RENEW was a plain {@code ZADD}: H was silently registered again beside X (two
     * holders under a gate of 1) and reported renewed, so the node extended H's row lease too. Now
     * only holders still registered are renewed ({@code ZADD XX}); H is reported unrenewed and its
     * row's lease is left to lapse.
     */
    @Test
    void a_renewal_does_not_bring_back_a_holder_pruned_after_its_lease_lapsed() throws Exception {
        Holder fsm = new Holder();
        String url = TestRedis.url();
        Engine e = h.start("n1", redisGate(url, 1, Duration.ofSeconds(60), Duration.ofSeconds(25)), fsm);
        var r = redis(url).sync();
        e.insert(task("H"));
        assertThat(fsm.entered("H").await(10, TimeUnit.SECONDS)).isTrue();
        String gate = gateKey("api:t");
        List<String> members = r.zrange(gate, 0, -1);
        assertThat(members).hasSize(1);
        String holderH = members.get(0);
        // H's slot lapsed and was pruned; X holds the gate's one slot now.
        r.zrem(gate, holderH);
        r.zadd(gate, System.currentTimeMillis() + 60_000, "9001:1");
        h.exec("UPDATE gen_durable SET lease_expires_at = now() + interval '5 seconds' WHERE status = 'executing'");
        EngineInternals.schedulers(e).forEach(s -> s.heartbeatOnce());
        assertThat(r.zscore(gate, holderH)).as("the pruned holder registered again").isNull();
        assertThat(r.zcard(gate)).isEqualTo(1);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing' "
                + "AND lease_expires_at > now() + interval '10 seconds'")).as("H's row lease extended").isZero();
        r.zrem(gate, "9001:1");
        fsm.release("H");
    }

    @Test
    void the_heartbeat_renews_a_long_steps_slot_so_it_is_never_pruned() throws Exception {
        Holder fsm = new Holder();
        String url = TestRedis.url();
        // Slot lease = lease + heartbeat = 1.8 s; the step holds for 4 s.
        Engine e = h.start("n1", redisGate(url, 1, Duration.ofMillis(1500), Duration.ofMillis(300)), fsm);
        e.insert(task("long"));
        assertThat(fsm.entered("long").await(10, TimeUnit.SECONDS)).isTrue();
        e.insert(task("next"));
        await("the next one waits while the long one runs").during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(8))
                .until(() -> !fsm.started("next"));
        fsm.release("long");
        assertThat(fsm.entered("next").await(10, TimeUnit.SECONDS)).isTrue();
        fsm.release("next");
        await().atMost(Duration.ofSeconds(10)).until(() -> done() == 2);
        assertThat(fsm.max.get()).isEqualTo(1);
    }

    @Test
    void a_credit_that_cannot_reach_redis_leaks_the_slot_until_its_lease_lapses_and_never_over_admits() throws Exception {
        Holder fsm = new Holder();
        URI target = URI.create(TestRedis.url());
        try (TcpProxy proxy = new TcpProxy(target.getHost(), target.getPort())) {
            String url = "redis://127.0.0.1:" + proxy.port();
            // Slot lease = 3 s + 0.5 s.
            Engine e = h.start("n1", redisGate(url, 1, Duration.ofSeconds(3), Duration.ofMillis(500)), fsm);
            e.insert(task("H"));
            assertThat(fsm.entered("H").await(10, TimeUnit.SECONDS)).isTrue();
            proxy.mode(TcpProxy.Mode.REFUSE);
            fsm.release("H");
            await().atMost(Duration.ofSeconds(10)).until(() -> done() == 1);  // committed; its credit failed
            long committedAt = System.nanoTime();
            proxy.mode(TcpProxy.Mode.FORWARD);
            e.insert(task("X"));
            assertThat(fsm.entered("X").await(20, TimeUnit.SECONDS)).isTrue();
            double waited = (System.nanoTime() - committedAt) / 1e9;
            // X waited for H's slot to lapse (H's last renewal + 3.5 s), not merely for the reconnection.
            assertThat(waited).as("seconds X waited after H committed").isGreaterThan(1.5);
            fsm.release("X");
            await().atMost(Duration.ofSeconds(10)).until(() -> done() == 2);
            assertThat(fsm.max.get()).isEqualTo(1);
        }
    }

    @Test
    void a_redis_that_lost_its_data_is_rebuilt_from_postgres_before_anything_is_admitted() throws Exception {
        Holder fsm = new Holder();
        TestRedis.Server server = TestRedis.startPrivate();
        try {
            Engine e = h.start("n1", redisGate(server.url(), 2, Duration.ofSeconds(30), Duration.ofSeconds(5)), fsm);
            e.insert(task("H0"));
            e.insert(task("H1"));
            assertThat(fsm.entered("H0").await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(fsm.entered("H1").await(10, TimeUnit.SECONDS)).isTrue();
            server.stop();   // SIGKILL, no persistence: every holder is gone
            server.start();
            e.insert(task("X"));
            await("X must wait: the rebuilt gate holds H0 and H1").during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(6)).until(() -> !fsm.started("X"));
            var r = redis(server.url()).sync();
            assertThat(r.zcard(gateKey("api:t"))).isEqualTo(2);
            fsm.release("H0");
            assertThat(fsm.entered("X").await(10, TimeUnit.SECONDS)).isTrue();
            fsm.release("H1");
            fsm.release("X");
            await().atMost(Duration.ofSeconds(10)).until(() -> done() == 3);
            assertThat(fsm.max.get()).isEqualTo(2);
            await().atMost(Duration.ofSeconds(10)).until(() -> r.zcard(gateKey("api:t")) == 0);
        } finally {
            server.stop();
        }
    }

    /**
     * A Redis restored from an older snapshot (a restart from its periodic RDB, a failover to a
     * replica that is behind) keeps the epoch and loses the holders admitted after the snapshot.
     * The limiter rebuilt only when the epoch was missing: it admitted X beside H, two in flight
     * under a gate of one, until the next renewal. The epoch now names the Redis process that set
     * it (its {@code run_id}); a restarted or failed-over server has another, and the limiter
     * rebuilds before admitting.
     */
    @Test
    void a_redis_restored_from_an_older_snapshot_is_rebuilt_before_anything_is_admitted(@org.junit.jupiter.api.io.TempDir
                                                                                               java.nio.file.Path dir)
            throws Exception {
        Holder fsm = new Holder();
        TestRedis.Server server = TestRedis.startPrivate(dir);
        try {
            Engine e = h.start("n1", redisGate(server.url(), 1, Duration.ofSeconds(30), Duration.ofSeconds(10)), fsm);
            e.insert(task("W"));
            assertThat(fsm.entered("W").await(10, TimeUnit.SECONDS)).isTrue();
            fsm.release("W");
            await().atMost(Duration.ofSeconds(10)).until(() -> done() == 1);
            var r = redis(server.url()).sync();
            assertThat(r.save()).isEqualTo("OK");  // the snapshot: the epoch, no holder
            e.insert(task("H"));
            assertThat(fsm.entered("H").await(10, TimeUnit.SECONDS)).isTrue();
            redis.close();
            client.shutdown();
            client = null;
            server.stop();   // SIGKILL; the restart loads the older snapshot
            server.start();
            e.insert(task("X"));
            await("X must wait: the rebuilt gate holds H").during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(6)).until(() -> !fsm.started("X"));
            fsm.release("H");
            assertThat(fsm.entered("X").await(10, TimeUnit.SECONDS)).isTrue();
            fsm.release("X");
            await().atMost(Duration.ofSeconds(10)).until(() -> done() == 3);
            assertThat(fsm.max.get()).as("never more than the gate's one").isEqualTo(1);
        } finally {
            server.stop();
        }
    }

    @Test
    void redis_configured_without_its_client_is_a_deployment_error_naming_the_key_and_the_artifact() {
        EngineConfig limiter = h.configBuilder("n1").limiter(LimiterBackend.REDIS).build();
        assertThatThrownBy(() -> RedisBackends.requireClient(limiter, getClass().getClassLoader(), "io.lettuce.core.Absent"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("gendurable.limiter")
                .hasMessageContaining("io.lettuce:lettuce-core")
                .hasMessageContaining("gendurable.limiter=postgres");
        EngineConfig poke = h.configBuilder("n1").poke(PokeTransport.REDIS).build();
        assertThatThrownBy(() -> RedisBackends.requireClient(poke, getClass().getClassLoader(), "io.lettuce.core.Absent"))
                .hasMessageContaining("gendurable.poke")
                .hasMessageContaining("io.lettuce:lettuce-core");
    }

    @Test
    void the_start_up_line_masks_a_password_in_the_redis_url() {
        EngineConfig c = h.configBuilder("n1").redisUrl("redis://app:s3cret@cache:6379/2").build();
        assertThat(c.describe()).contains("redis.url=redis://app:***@cache:6379/2").doesNotContain("s3cret");
    }
}
