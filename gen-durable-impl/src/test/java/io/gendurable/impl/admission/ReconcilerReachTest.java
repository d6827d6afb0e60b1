package io.gendurable.impl.admission;

import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate reconciler reaches every key. Each pass took the first shards in (key, shard) order
 * up to its batch, with no cursor, and busy keys are never deleted: a key sorted after a batch of
 * busy shards was never reconciled, and its leaked slots never came back (10,000 tenants with work
 * in flight, in production). With a batch of 10 shards, 100 busy keys sort before a key whose one
 * slot leaked (its counter says 0 free, no row holds it): the passes page through the keys and
 * give it back within one round of them (12 passes: each page starts again at its previous page's
 * last key), and the round starts over after.
 */
@EngineTest
class ReconcilerReachTest {
    @Test
    void a_leaked_key_sorted_after_ten_batches_of_busy_keys_is_reconciled_within_one_round(EngineHarness h) {
        Engine e = h.start("n1", c -> c.queues(Map.of())
                .gc(new io.gendurable.impl.config.EngineConfig.GcConfig(false, java.time.Duration.ofHours(1),
                        java.time.Duration.ofDays(1), java.time.Duration.ofDays(7), 1000))  // no pass but ours
                .limits(new LimitsConfig(Map.of(), Map.of("api", new LimitsConfig.Gate("api", 1, 1)))));
        BucketSweeper sweeper = EngineInternals.gc(e).buckets();
        sweeper.batch(10);
        // 100 busy keys: a running holder each, their one slot taken
        h.exec("""
                INSERT INTO gen_durable (fsm, step, state, status, locked_by, lease_expires_at, claim_token,
                                         concurrency_key, concurrency_shard)
                SELECT 'busy', 'a', '{}', 'executing', 'n1:default@00000001', now() + interval '1 hour', i,
                       'api:busy-' || lpad(i::text, 3, '0'), 0
                FROM generate_series(1, 100) i;
                INSERT INTO gen_durable_buckets (kind, key, shard, capacity, available)
                SELECT 'conc', 'api:busy-' || lpad(i::text, 3, '0'), 0, 1, 0 FROM generate_series(1, 100) i;
                -- the leaked key: its counter says taken, no row holds it
                INSERT INTO gen_durable_buckets (kind, key, shard, capacity, available) VALUES ('conc', 'api:zz-leaked', 0, 1, 0);
                """);
        int passes = 0;
        while (h.queryLong("SELECT count(*) FROM gen_durable_buckets WHERE key = 'api:zz-leaked'") > 0 && passes < 30) {
            sweeper.reconcileGates();
            passes++;
        }
        assertThat(passes).as("passes until the leaked key was reconciled (idle: deleted, so it reads as full)")
                .isLessThanOrEqualTo(13);  // 101 keys, 9 new a pass: a page starts again at its last key (it may have more shards)
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable_buckets WHERE kind = 'conc' AND available = 0"))
                .as("the busy keys are left as they are").isEqualTo(100);
    }

    /**
     * A rate bucket's fullness is judged with the GC node's clock while its refills are stamped with
     * the admitting nodes' clocks: a GC node whose clock runs ahead deleted a bucket not yet full,
     * which the next admission then minted full (over-admission up to skew x rate). The sweep now
     * deletes a bucket only once it was full a lease margin ago by its clock ({@code lease-ttl} -
     * {@code heartbeat-interval}: the skew the engine tolerates for leases, reliability.md).
     */
    @Test
    void a_rate_bucket_full_by_a_clock_ahead_of_its_refills_by_less_than_the_lease_margin_is_kept(EngineHarness h) {
        java.time.Instant refilled = java.time.Instant.parse("2026-06-01T12:00:00Z");
        java.util.concurrent.atomic.AtomicReference<java.time.Instant> clock = new java.util.concurrent.atomic.AtomicReference<>();
        clock.set(refilled);
        Engine e = h.start("gc-node", c -> c.queues(Map.of())
                .lease(java.time.Duration.ofSeconds(30), java.time.Duration.ofSeconds(10))  // margin 20 s
                .gc(new io.gendurable.impl.config.EngineConfig.GcConfig(false, java.time.Duration.ofHours(1),
                        java.time.Duration.ofDays(1), java.time.Duration.ofDays(7), 1000))
                .limits(new LimitsConfig(Map.of("api", new LimitsConfig.RateLimit("api", 1, java.time.Duration.ofSeconds(10), 1, 1)),
                        Map.of())), clock::get);
        h.exec("INSERT INTO gen_durable_buckets (kind, key, shard, capacity, available, last_refill) VALUES "
                + "('rate', 'api:t', 0, 1, 0, '" + refilled + "')");  // one token taken at 'refilled' by an admitting node
        BucketSweeper sweeper = EngineInternals.gc(e).buckets();
        clock.set(refilled.plusSeconds(15));  // full by this clock (10 s a token), 15 s ahead of the admitting one
        sweeper.sweepRates();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable_buckets WHERE key = 'api:t'")).as("kept").isEqualTo(1);
        clock.set(refilled.plusSeconds(31));  // full a lease margin ago
        sweeper.sweepRates();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable_buckets WHERE key = 'api:t'")).as("deleted").isZero();
    }
}
