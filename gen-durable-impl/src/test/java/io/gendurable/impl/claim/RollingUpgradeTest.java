package io.gendurable.impl.claim;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.SignalTarget;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rolling upgrade on one database: an "old" node that has FSM {@code upgraded} version 1 and a
 * "new" one that has versions 1 and 2 run side by side. The old node never claims a version-2
 * row (neither by its queue's claim nor by the claim of a row its own signal woke): such rows
 * wait, runnable and unclaimed, for a node that has their version. No row fails, and every step
 * runs on a node that has the row's version.
 */
@EngineTest
class RollingUpgradeTest {
    public record Work(int n) {
    }

    /** Who ran each step: {@code id:step} to {@code node vN} (N: the version of the class that ran it). */
    static final Map<String, String> RUNS = new ConcurrentHashMap<>();

    /** Step "start" awaits signal "go", then "finish" ends; each records its node and version. */
    abstract static class Recorder implements Fsm<Work> {
        private final String node;
        private final int version;

        Recorder(String node, int version) {
            this.node = node;
            this.version = version;
        }

        @Override
        public Outcome step(String step, Work w, StepContext ctx) {
            String ran = node + " v" + version + (ctx.fsmVersion() == version ? "" : " for a row of v" + ctx.fsmVersion());
            RUNS.merge(ctx.id() + ":" + step, ran, (a, b) -> a + ", " + b);
            return step.equals("start") ? Outcome.await(Set.of("go"), "finish", w) : Outcome.done();
        }
    }

    @DurableFsm(name = "upgraded", version = 1)
    public static class V1 extends Recorder {
        public V1(String node) {
            super(node, 1);
        }
    }

    @DurableFsm(name = "upgraded", version = 2)
    public static class V2 extends Recorder {
        public V2(String node) {
            super(node, 2);
        }
    }

    private static List<Long> insert(Engine e, int n) {
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(new NewInstance("upgraded", new Work(i), null));
        }
        return e.insertAll(batch).stream().map(io.gendurable.Inserted::id).toList();
    }

    private static String in(List<Long> ids) {
        return ids.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElseThrow();
    }

    @Test
    void an_old_and_a_new_node_share_the_database_through_an_upgrade_and_no_row_fails(EngineHarness h) {
        RUNS.clear();
        // insert-only nodes (no queues: they claim nothing, not even their own inserts)
        Engine webOld = h.start("web-old", c -> c.queues(Map.of()), new V1("web-old"));
        Engine webNew = h.start("web-new", c -> c.queues(Map.of()), new V1("web-new"), new V2("web-new"));
        Engine old = h.start("old", c -> c.queues(Map.of("default", 4)), new V1("old"));

        // version-2 rows first (the more urgent: due earlier), then version-1 rows behind them
        List<Long> v2 = insert(webNew, 12);
        List<Long> v1 = insert(webOld, 12);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE fsm_version = 2 AND id IN (" + in(v2) + ")"))
                .isEqualTo(12);
        // the old node has claimed past the version-2 rows: every version-1 row has run its first step
        await().atMost(Duration.ofSeconds(30)).until(() -> h.queryLong(
                "SELECT count(*) FROM gen_durable WHERE status = 'awaiting_signal' AND id IN (" + in(v1) + ")") == 12);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'runnable' AND locked_by IS NULL"
                + " AND claim_token IS NULL AND last_error IS NULL AND id IN (" + in(v2) + ")"))
                .as("version-2 rows the old node left alone, runnable").isEqualTo(12);

        // the new node comes up and runs the version-2 rows' first step; then it goes away again
        Engine first = h.start("new", c -> c.queues(Map.of("default", 4)), new V1("new"), new V2("new"));
        await().atMost(Duration.ofSeconds(30)).until(() -> h.queryLong(
                "SELECT count(*) FROM gen_durable WHERE status = 'awaiting_signal' AND id IN (" + in(v2) + ")") == 12);
        first.stop();

        // the old node delivers every signal: it claims and runs the version-1 rows it wakes, not the others
        for (long id : v2) {
            old.signal(SignalTarget.id(id), "go", null);
        }
        for (long id : v1) {
            old.signal(SignalTarget.id(id), "go", null);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> h.queryLong(
                "SELECT count(*) FROM gen_durable WHERE status = 'done' AND id IN (" + in(v1) + ")") == 12);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'runnable' AND step = 'finish'"
                + " AND locked_by IS NULL AND last_error IS NULL AND id IN (" + in(v2) + ")"))
                .as("woken version-2 rows the old node left alone, runnable").isEqualTo(12);

        // the upgraded node returns, both run side by side, and both versions keep being inserted
        Engine upgraded = h.start("new-2", c -> c.queues(Map.of("default", 4)), new V1("new-2"), new V2("new-2"));
        List<Long> moreV1 = insert(webOld, 8);
        List<Long> moreV2 = insert(upgraded, 8);
        await().atMost(Duration.ofSeconds(30)).until(() -> h.queryLong(
                "SELECT count(*) FROM gen_durable WHERE status = 'awaiting_signal'") == 16);
        for (long id : moreV1) {
            upgraded.signal(SignalTarget.id(id), "go", null);
        }
        for (long id : moreV2) {
            old.signal(SignalTarget.id(id), "go", null);
        }
        h.awaitDone(12 + 12 + 8 + 8);

        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status <> 'done'")).isZero();
        List<Long> allV2 = new ArrayList<>(v2);
        allV2.addAll(moreV2);
        List<Long> allV1 = new ArrayList<>(v1);
        allV1.addAll(moreV1);
        for (long id : allV2) {
            for (String step : List.of("start", "finish")) {
                assertThat(RUNS.get(id + ":" + step)).as("row %d (v2), step %s", id, step).isIn("new v2", "new-2 v2");
            }
        }
        for (long id : allV1) {
            for (String step : List.of("start", "finish")) {
                assertThat(RUNS.get(id + ":" + step)).as("row %d (v1), step %s", id, step).isIn("old v1", "new v1", "new-2 v1");
            }
        }
        assertThat(RUNS).hasSize(2 * (allV1.size() + allV2.size()));
        assertThat(v1).allSatisfy(id -> assertThat(RUNS.get(id + ":start")).isEqualTo("old v1"));
    }
}
