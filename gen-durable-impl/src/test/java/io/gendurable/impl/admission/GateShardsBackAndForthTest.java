package io.gendurable.impl.admission;

import io.gendurable.impl.config.EngineConfig;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.InstantSource;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lowering a gate's {@code shards} and raising it again never admits beyond the limit (found by
 * {@link LimiterModelTest}). Gate {@code api} of 3 in 3 shards of 1, a holder on each. Lowered to
 * 1 shard: the reconciler sizes shard 0 to the whole limit and takes the two holders of the retired
 * shards 1 and 2 off its free slots (0 free). The holder of shard 2 ends: its credit went back to
 * retired shard 2 (1 free there, nowhere drawn), the next pass frees its share on shard 0, and a
 * new row is admitted there (3 in flight). Raised to 3 shards again before the key went idle:
 * shard 2 came back with the slot its credit had put there, and a fourth row was admitted beside
 * the three (found by this branch's admission model before main's fix of the same class, for nodes
 * that disagree on shards, reached it). A pass now empties the retired shards it holds in the same
 * transaction that frees their holders' share on the remaining ones: a slot given back to a retired
 * shard stays there only until that pass.
 */
@EngineTest
class GateShardsBackAndForthTest {
    EngineHarness h;
    Db db;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
        SchemaName schema = new SchemaName(h.schema());
        Migrations.migrate(h.dataSource(), schema);
        db = new Db(EnginePersistence.create(h.dataSource(), schema));
    }

    @AfterEach
    void down() {
        db.close();
    }

    private int limit = 3;

    private EngineContext node(int shards) {
        LimitsConfig limits = new LimitsConfig(Map.of(), Map.of("api", new LimitsConfig.Gate("api", limit, shards)));
        EngineConfig config = h.configBuilder("n").limits(limits).build();
        return new EngineContext(config, new FsmRegistry(), db, new Statements(new SchemaName(h.schema())),
                InstantSource.system(), new EngineMetrics(), EngineEvents.NONE, new Json(), null, null);
    }

    private long tokens = 1000;

    /** @return a claimed gated row of api:t (its claim token = its id + 1000), not admitted yet */
    private long claimed() {
        long token = ++tokens;
        return h.queryLong("INSERT INTO gen_durable (id, fsm, step, state, status, locked_by, lease_expires_at, claim_token, "
                + "concurrency_key, concurrency_shard) VALUES (" + (token - 1000) + ", 'f', 'a', '{}', 'executing', 'n:default@1', "
                + "now() + interval '1 hour', " + token + ", 'api:t', -1) RETURNING id");
    }

    private static boolean admitted(PostgresLimiter limiter, long id) {
        return limiter.admit(List.of(new Limiter.Candidate(id, id + 1000, "api:t", null, 1)), "default").admitted().containsKey(id);
    }

    @Test
    void a_retired_shard_keeps_no_slot_for_when_shards_are_raised_again() {
        EngineContext three = node(3);
        PostgresLimiter limiter3 = new PostgresLimiter(three);
        long[] holders = new long[3];
        for (int i = 0; i < 3; i++) {
            holders[i] = claimed();
            assertThat(admitted(limiter3, holders[i])).as("holder " + i).isTrue();
        }
        assertThat(h.queryLong("SELECT count(DISTINCT concurrency_shard) FROM gen_durable")).as("one on each shard").isEqualTo(3);

        EngineContext one = node(1);
        PostgresLimiter limiter1 = new PostgresLimiter(one);
        BucketSweeper sweeper1 = new BucketSweeper(one);
        sweeper1.reconcileGates();
        // the holder of shard 2 ends: its outcome's flush credits the shard it drew from
        long onShard2 = h.queryLong("SELECT id FROM gen_durable WHERE concurrency_shard = 2");
        db.inTransaction(c -> {
            new BucketSql(new SchemaName(h.schema())).credit(c, List.of(new Limiter.Slot("api:t", 2)));
            return null;
        });
        h.exec("UPDATE gen_durable SET status = 'done', locked_by = NULL, lease_expires_at = NULL, claim_token = NULL, "
                + "concurrency_shard = NULL WHERE id = " + onShard2);
        sweeper1.reconcileGates();
        assertThat(admitted(limiter1, claimed())).as("the ended holder's slot, on shard 0").isTrue();
        assertThat(admitted(limiter1, claimed())).as("a fourth under the lowered shards").isFalse();

        // raised again before the key went idle: still 3 in flight, no free slot anywhere
        PostgresLimiter raised = new PostgresLimiter(node(3));
        assertThat(admitted(raised, claimed())).as("a fourth after raising shards again").isFalse();
        new BucketSweeper(node(3)).reconcileGates();
        assertThat(admitted(raised, claimed())).as("a fourth after the raised shards' reconcile").isFalse();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing' AND concurrency_shard >= 0"))
                .isEqualTo(3);
    }

    /** The holder of {@code shard} ends: its outcome's flush credits the shard it drew from. */
    private void ends(int shard) {
        long id = h.queryLong("SELECT id FROM gen_durable WHERE status = 'executing' AND concurrency_shard = " + shard
                + " ORDER BY id LIMIT 1");
        db.inTransaction(c -> {
            new BucketSql(new SchemaName(h.schema())).credit(c, List.of(new Limiter.Slot("api:t", shard)));
            return null;
        });
        h.exec("UPDATE gen_durable SET status = 'done', locked_by = NULL, lease_expires_at = NULL, claim_token = NULL, "
                + "concurrency_shard = NULL WHERE id = " + id);
    }

    /** A reconciler pass while another transaction (an admission) holds {@code shard}'s counter row. */
    private void passWhileHeld(BucketSweeper sweeper, int shard) throws Exception {
        try (java.sql.Connection c = h.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (var st = c.createStatement()) {
                st.execute("SELECT 1 FROM " + h.schema() + ".gen_durable_buckets WHERE key = 'api:t' AND shard = " + shard
                        + " FOR UPDATE");
                sweeper.reconcileGates();
            }
            c.rollback();
        }
    }

    /**
     * The same through passes that never hold every shard of the key (an admission holds the
     * retired one each time), found by {@link LimiterModelTest} after the fix above: gate of 2 in
     * 2 shards, a holder on each; lowered to 1 shard. A pass without shard 1 resized shard 0 to the
     * whole limit minus both holders (0 free); shard 1's holder ended and credited shard 1 (retired,
     * never emptied: no pass held it); the next such pass freed its share on shard 0 too, a row was
     * admitted there; raised to 2 shards again, shard 1's slot admitted a third row under a gate of
     * 2. A pass that does not hold every shard of a key now leaves a key whose shape changed
     * (shards or limit) as it is: the reshape is one pass's, over every shard.
     */
    @Test
    void a_pass_that_holds_only_some_shards_of_a_resharded_key_leaves_it_to_one_that_holds_them_all() throws Exception {
        limit = 2;
        PostgresLimiter two = new PostgresLimiter(node(2));
        for (int i = 0; i < 2; i++) {
            assertThat(admitted(two, claimed())).as("holder " + i).isTrue();
        }
        assertThat(h.queryLong("SELECT count(DISTINCT concurrency_shard) FROM gen_durable")).as("one on each shard").isEqualTo(2);
        EngineContext one = node(1);
        PostgresLimiter limiter1 = new PostgresLimiter(one);
        BucketSweeper sweeper1 = new BucketSweeper(one);
        passWhileHeld(sweeper1, 1);
        ends(1);
        passWhileHeld(sweeper1, 1);
        admitted(limiter1, claimed());  // admitted or not: the limit is what counts below
        PostgresLimiter raised = new PostgresLimiter(node(2));
        admitted(raised, claimed());
        admitted(raised, claimed());
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing' AND concurrency_shard >= 0"))
                .as("in flight under a gate of 2").isLessThanOrEqualTo(2);
        new BucketSweeper(node(2)).reconcileGates();
        admitted(raised, claimed());
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing' AND concurrency_shard >= 0"))
                .as("in flight under a gate of 2, after a whole pass").isEqualTo(2);
    }
}
