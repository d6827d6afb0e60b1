package io.gendurable.impl.redis;

import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimiterBackend;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.EnginePersistence;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A row in an inline chain keeps its Redis slot through a rebuild (found reading the Redis limiter
 * while writing LimiterModelTest). A slot's holder is named after the claim that was admitted
 * ({@code <id>:<token>}); an inline continue that keeps its key keeps that slot but stamps a new
 * token on the row. A rebuild (Redis lost its state) registers each gated row under its current
 * token: the chained row's slot came back under another name than the one its scheduler renews,
 * the renewal reported it missing, and the row's lease was left to lapse while its step ran (the
 * reaper then re-ran it beside the running one). Forced here: R admitted (token 1001), continued
 * inline (token 1002), Redis flushed, another admission rebuilds, then R's renewal.
 */
@EngineTest
class RedisRebuildInlineTest {
    EngineHarness h;
    Db db;
    RedisStore store;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
        SchemaName schema = new SchemaName(h.schema());
        Migrations.migrate(h.dataSource(), schema);
        db = new Db(EnginePersistence.create(h.dataSource(), schema));
    }

    @AfterEach
    void down() {
        if (store != null) {
            store.close();
        }
        db.close();
    }

    private void executing(long id, long token, String key) {
        h.exec("INSERT INTO gen_durable (id, fsm, step, state, status, locked_by, lease_expires_at, claim_token, "
                + "concurrency_key, concurrency_shard) VALUES (" + id + ", 'f', 'a', '{}', 'executing', 'n:default@1', "
                + "now() + interval '1 hour', " + token + ", '" + key + "', -1)");
    }

    @Test
    void a_row_continued_inline_keeps_its_slot_through_a_rebuild_and_its_renewal() {
        EngineConfig config = h.configBuilder("n").limiter(LimiterBackend.REDIS).redisUrl(TestRedis.url())
                .lease(Duration.ofSeconds(30), Duration.ofSeconds(5))
                .limits(new LimitsConfig(Map.of(), Map.of("api", new LimitsConfig.Gate("api", 2, 1)))).build();
        EngineContext ctx = new EngineContext(config, new FsmRegistry(), db, new Statements(new SchemaName(h.schema())),
                InstantSource.system(), new EngineMetrics(), EngineEvents.NONE, new Json(), null, null);
        store = new RedisStore(config);
        RedisLimiter limiter = new RedisLimiter(ctx, store);
        executing(1, 1001, "api:t");
        assertThat(limiter.admit(List.of(new Limiter.Candidate(1, 1001, "api:t", null, 1)), "default").admitted())
                .containsKey(1L);
        h.exec("UPDATE gen_durable SET claim_token = 1002 WHERE id = 1");  // the inline continue: same slot, new token
        String set = store.prefix() + "conc:api:t";
        store.connection().sync().del(store.prefix() + "epoch", set);  // Redis lost its state
        executing(2, 2001, "api:u");
        assertThat(limiter.admit(List.of(new Limiter.Candidate(2, 2001, "api:u", null, 1)), "default").admitted())
                .as("the admission that rebuilds").containsKey(2L);

        Set<Long> unrenewed = limiter.renew("default", Map.of(1L, 1002L));

        assertThat(unrenewed).as("R's slot is renewed: its lease goes on with its step").isEmpty();
        assertThat(store.connection().sync().zrange(set, 0, -1)).as("one holder for R").hasSize(1);
    }
}
