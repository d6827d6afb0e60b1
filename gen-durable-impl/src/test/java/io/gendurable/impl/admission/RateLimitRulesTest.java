package io.gendurable.impl.admission;

import io.gendurable.NewInstance;
import io.gendurable.Status;
import io.gendurable.impl.admission.RateLimitTest.Counted;
import io.gendurable.impl.support.Kit;
import io.gendurable.impl.support.Probe;
import io.gendurable.testing.DrainOptions;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.gendurable.impl.admission.RateLimitTest.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The rate-limit rules, on the test kit: weights, partitions and unknown limits. Each limit refills
 * one token an hour and the test clock stands still, so exactly its burst is ever admitted, and a drain
 * that does not collapse delays ends when the bucket refuses the rest. The races and the GC's sweep
 * are {@link RateLimitTest}'s.
 */
@GenDurableTest(config = {
        "gendurable.rate-limits.api.allowed=1", "gendurable.rate-limits.api.period=PT1H", "gendurable.rate-limits.api.burst=20",
        "gendurable.rate-limits.tenant.allowed=1", "gendurable.rate-limits.tenant.period=PT1H",
        "gendurable.rate-limits.tenant.burst=5"})
class RateLimitRulesTest {
    /** Runs what is due and admitted; rows the bucket refuses stay runnable. */
    private static final DrainOptions ADMITTED = DrainOptions.defaults().collapseDelays(false);

    Counted fsm;
    Probe db;

    @BeforeEach
    void up(DurableTesting t) {
        fsm = new Counted();
        t.register(fsm);
        db = Kit.probe(t);
    }

    private double tokens(String key) {
        return RateLimitTest.tokens(db, key);
    }

    private static List<NewInstance> times(int n, NewInstance one) {
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(one);
        }
        return batch;
    }

    @Test
    void a_row_the_bucket_cannot_cover_stops_the_lighter_rows_of_its_key_behind_it_until_it_fits(DurableTesting t) {
        // 5 tokens: two light starts leave 3
        t.durable().insertAll(times(2, job("light", "done", "tenant", 1)));
        t.drain(ADMITTED);
        assertThat(tokens("tenant")).isCloseTo(3, within(0.01));
        // a heavy row (weight 5) first in the queue, then three light ones behind it
        t.durable().insert(job("heavy", "done", "tenant", 5));
        t.clock().advance(java.time.Duration.ofSeconds(1));
        t.durable().insertAll(times(3, job("late", "done", "tenant", 1)));
        // the heavy row does not fit, and the light ones behind it wait with it: the tokens are kept for it
        assertThat(t.drain(ADMITTED).steps()).isEmpty();
        assertThat(fsm.starts("late/first")).isZero();
        assertThat(tokens("tenant")).isCloseTo(3, within(0.01));
        // two hours refill two tokens: the heavy row goes first, then nothing is left for the light ones
        t.clock().advance(java.time.Duration.ofHours(2));
        t.drain(ADMITTED);
        assertThat(fsm.starts("heavy/first")).isEqualTo(1);
        assertThat(fsm.starts("late/first")).isZero();
        assertThat(tokens("tenant")).isLessThan(0.01);
    }

    @Test
    void a_weight_takes_that_many_tokens_whether_set_at_insert_or_on_the_transition(DurableTesting t) {
        // Three starts of weight 5 take 15 of the 20 tokens.
        t.durable().insertAll(times(3, job("heavy", "done", "api", 5)));
        t.drain(ADMITTED);
        assertThat(fsm.starts("heavy/first")).isEqualTo(3);
        assertThat(tokens("api")).isCloseTo(5, within(0.01));

        // Three instances whose unlimited first step moves on to a weight-5 step: the 5 tokens left fit exactly one.
        t.durable().insertAll(times(3, RateLimitTest.moving(5)));
        t.drain(ADMITTED);
        assertThat(fsm.starts("moving/first")).isEqualTo(3);
        assertThat(fsm.starts("moving/second")).isEqualTo(1);
        // And a weight-1 start finds nothing left.
        t.durable().insert(job("light", "done", "api", 1));
        assertThat(t.drain(ADMITTED).steps()).isEmpty();
        assertThat(fsm.total()).isEqualTo(3 + 3 + 1);
        assertThat(fsm.starts("light/first")).isZero();
        assertThat(tokens("api")).isLessThan(0.01);
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE status = 'runnable' AND rate_limit = 'api' AND weight = 5"))
                .isEqualTo(2);
    }

    @Test
    void each_partition_of_a_limit_has_its_own_bucket(DurableTesting t) {
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(job("t1", "done", "tenant:t1", 1));
            batch.add(job("t2", "done", "tenant:t2", 1));
        }
        t.durable().insertAll(batch);
        t.drain(ADMITTED);
        assertThat(fsm.total()).isEqualTo(10);
        assertThat(fsm.starts("t1/first")).isEqualTo(5);
        assertThat(fsm.starts("t2/first")).isEqualTo(5);
        assertThat(db.count("SELECT count(*) FROM gen_durable_buckets WHERE kind = 'rate' AND key IN ('tenant:t1', 'tenant:t2')"))
                .isEqualTo(2);
        assertThat(db.count("SELECT count(*) FROM gen_durable_buckets WHERE key = 'tenant'")).isZero();
        assertThat(tokens("tenant:t1")).isLessThan(0.01);
        assertThat(tokens("tenant:t2")).isLessThan(0.01);
    }

    @Test
    void an_unknown_limit_stalls_its_row_counts_it_and_holds_no_one_else_back(DurableTesting t) {
        long stalled = t.durable().insert(job("nope", "done", "nope", 1)).id();
        t.durable().insertAll(List.of(job("free", "done", null, 1), job("known", "done", "api", 1)));
        t.drain(ADMITTED);
        assertThat(fsm.starts("free/first")).isEqualTo(1);
        assertThat(fsm.starts("known/first")).isEqualTo(1);
        long counted = Kit.engine(t).metrics().unknownRateLimit.sum();
        assertThat(counted).isPositive();
        // Every pick that meets the row counts it again, and still starts nothing.
        assertThat(t.drain(ADMITTED).steps()).isEmpty();
        assertThat(Kit.engine(t).metrics().unknownRateLimit.sum()).isGreaterThan(counted);
        assertThat(fsm.total()).isEqualTo(2);
        assertThat(fsm.starts("nope/first")).isZero();
        t.assertStatus(stalled, Status.RUNNABLE);
        assertThat(db.count("SELECT count(*) FROM gen_durable_buckets WHERE key = 'nope'")).isZero();
    }
}
