package io.gendurable.impl.redis;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.config.LimiterBackend;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With the Redis limiter as with PostgreSQL's: a row its bucket cannot cover stops the rows of its
 * rate key behind it in the same admission, so the tokens are kept for it. A bucket of 5 (one
 * token an hour) with 3 left, a row of weight 5 first in the queue, three of weight 1 behind it:
 * none of them is admitted (four denials in one admission), where the light rows used to pass.
 */
@EngineTest
class RedisRateStopTest {
    /** Records the labels whose step ran. */
    @DurableFsm(name = "rated")
    public static class Rated implements Fsm<String> {
        final Set<String> ran = ConcurrentHashMap.newKeySet();

        @Override
        public Outcome step(String step, String label, StepContext ctx) {
            ran.add(label);
            return Outcome.done();
        }
    }

    private static NewInstance row(String label, int weight) {
        return new NewInstance("rated", label, InsertOptions.builder().rateLimit("tenant").weight(weight).build());
    }

    @Test
    void a_row_the_bucket_cannot_cover_stops_the_lighter_rows_of_its_key_behind_it(EngineHarness h) {
        Rated fsm = new Rated();
        Engine e = h.start("n", c -> c.queues(Map.of("default", 4)).limiter(LimiterBackend.REDIS).redisUrl(TestRedis.url())
                .limits(new LimitsConfig(Map.of("tenant", new LimitsConfig.RateLimit("tenant", 1, Duration.ofHours(1), 5, 1)),
                        Map.of())), fsm);
        e.insert(row("light-1", 1));
        e.insert(row("light-2", 1));
        await().atMost(Duration.ofSeconds(20)).until(() -> fsm.ran.size() == 2);
        long before = e.metrics().rateThrottled.sum();
        // the heavy row first (inserted first: the earlier eligible_at), then three light ones, in one insert
        e.insertAll(java.util.List.of(row("heavy", 5), row("late-1", 1), row("late-2", 1), row("late-3", 1)));
        await().atMost(Duration.ofSeconds(20)).until(() -> e.metrics().rateThrottled.sum() - before >= 4);
        // the denials are counted in the admission, before the claim gives the rows back: wait for that
        await().atMost(Duration.ofSeconds(20))
                .until(() -> h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'") == 0);
        assertThat(fsm.ran).containsExactlyInAnyOrder("light-1", "light-2");
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'runnable'")).isEqualTo(4);
    }
}
