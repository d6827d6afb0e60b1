package io.gendurable.impl.admission;

import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import io.gendurable.impl.support.Fsms.Noop;
import io.gendurable.impl.support.StatementCounter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What admission costs when nothing is limited: nothing. A pick of rows with no concurrency key
 * and no rate limit is one claim statement per batch, with no limiter statement, no release and
 * no inbox or children load, whether or not the engine has limits configured.
 */
@EngineTest
class AdmissionCostTest {
    static final int JOBS = 300;

    static final Predicate<String> CLAIM = sql -> sql.startsWith("WITH RECURSIVE prio");
    /** The limiter's statements: admission (lock, refill/debit, mint, stamp) and credit. */
    static final Predicate<String> LIMITER = sql -> sql.startsWith("WITH wanted") || sql.startsWith("WITH c AS")
            || sql.contains("gen_durable_buckets") || sql.contains("SET concurrency_shard = s.shard");
    static final Predicate<String> RELEASE = sql -> sql.startsWith("UPDATE")
            && sql.contains("SET status = 'runnable', locked_by = NULL");
    static final Predicate<String> INBOX_LOAD = sql -> sql.startsWith("SELECT id, target_id");
    static final Predicate<String> CHILDREN_LOAD = sql -> sql.startsWith("SELECT id, parent_id");

    EngineHarness h;
    StatementCounter statements;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
        // Migrate the schema first, unrecorded: what follows is the engines' own work.
        h.start("migrator", c -> c.queues(Map.of()), new Noop()).stop();
        statements = h.countStatements();
    }

    private List<Engine> runJobs(LimitsConfig limits, Noop fsm, InsertOptions options) {
        List<Engine> nodes = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            nodes.add(h.start("node" + i, c -> c.queues(Map.of("default", 8)).limits(limits), fsm));
        }
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            batch.add(new NewInstance(Noop.class.getName(), new Item(i), options));
        }
        nodes.get(0).insertAll(batch);
        await().atMost(Duration.ofSeconds(30)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == JOBS);
        // Stop picking before counting, so the metric and the statements describe the same picks.
        nodes.forEach(Engine::stop);
        return nodes;
    }

    private static long picks(List<Engine> nodes) {
        return nodes.stream().mapToLong(n -> n.metrics().picks.sum()).sum();
    }

    private void assertUnlimitedPicks(List<Engine> nodes, Noop fsm) {
        long picks = picks(nodes);
        System.out.printf("unlimited: %d jobs, %d picks, %d claim statements, %d limiter statements%n", JOBS, picks,
                statements.count(CLAIM), statements.count(LIMITER));
        assertThat(fsm.runs.get()).isEqualTo(JOBS);
        assertThat(picks).isPositive();
        assertThat((long) statements.count(CLAIM)).as("one claim statement per pick").isEqualTo(picks);
        assertThat(statements.count(LIMITER)).as("limiter statements").isZero();
        assertThat(statements.count(RELEASE)).as("releases of denied claims").isZero();
        assertThat(statements.count(INBOX_LOAD)).as("inbox loads").isZero();
        assertThat(statements.count(CHILDREN_LOAD)).as("children loads").isZero();
        assertThat(nodes.stream().mapToLong(n -> n.metrics().rateThrottled.sum() + n.metrics().gateThrottled.sum()
                + n.metrics().contended.sum()).sum()).isZero();
    }

    @Test
    void a_pick_of_unkeyed_unlimited_rows_is_one_claim_statement_and_no_limiter_statement() {
        Noop fsm = new Noop();
        assertUnlimitedPicks(runJobs(LimitsConfig.none(), fsm, InsertOptions.builder().build()), fsm);
    }

    @Test
    void configured_limits_cost_an_unlimited_pick_nothing_either() {
        Noop fsm = new Noop();
        LimitsConfig limits = new LimitsConfig(
                Map.of("api", new LimitsConfig.RateLimit("api", 10, Duration.ofSeconds(1), 10, 1)),
                Map.of("stripe", new LimitsConfig.Gate("stripe", 5, 1)));
        assertUnlimitedPicks(runJobs(limits, fsm, InsertOptions.builder().build()), fsm);
    }

    @Test
    void a_limited_pick_adds_one_admission_statement_which_the_counters_above_would_see() {
        Noop fsm = new Noop();
        LimitsConfig limits = new LimitsConfig(
                Map.of("api", new LimitsConfig.RateLimit("api", 100_000, Duration.ofSeconds(1), 100_000, 1)), Map.of());
        List<Engine> nodes = runJobs(limits, fsm, InsertOptions.builder().rateLimit("api").build());
        long picks = picks(nodes);
        int admissions = statements.count(sql -> sql.startsWith("WITH wanted"));
        System.out.printf("rate-limited: %d jobs, %d picks, %d claim statements, %d admission statements%n", JOBS,
                picks, statements.count(CLAIM), admissions);
        assertThat((long) statements.count(CLAIM)).isEqualTo(picks);
        assertThat(admissions).isPositive();
        assertThat((long) admissions).as("at most one admission per pick").isLessThanOrEqualTo(picks);
        assertThat(statements.count(LIMITER)).isGreaterThanOrEqualTo(admissions);
    }
}
