package io.gendurable.impl.insert;

import io.gendurable.Debounce;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Debounced inserts of one key by nodes that insert different versions of the FSM (an application's
 * rolling upgrade: version 1 on the old nodes, versions 1 and 2 on the new ones, whose inserts use
 * 2). The waiting instance runs with one version and one state, and they belong together: an
 * insert that gives it its state gives it its version and that version's step too. Before the fix
 * the instance kept the first insert's version and step and took the later insert's state: a
 * version 1 row with a version 2 state (or the reverse), which the version 1 bean cannot read.
 */
@EngineTest
class DebounceVersionsTest {
    private static final String NAME = "debounce-versioned";

    /** Version 1: a text, from {@code start}. */
    @DurableFsm(name = NAME, version = 1)
    public static class V1 implements Fsm<String> {
        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            return Outcome.done("v1 " + step + " " + s);
        }
    }

    /** Version 2's state. */
    public record Note(String text) {
    }

    /** Version 2: a record, from {@code begin}. */
    @DurableFsm(name = NAME, version = 2, initialStep = "begin")
    public static class V2 implements Fsm<Note> {
        @Override
        public Outcome step(String step, Note s, StepContext ctx) {
            return Outcome.done("v2 " + step + " " + s.text());
        }
    }

    @ParameterizedTest(name = "{0} node first, then the {1} node with {2}")
    @CsvSource({"old, new, LAST, 2, begin, v2 begin second",
            "new, old, LAST, 1, start, v1 start second",
            "old, new, FIRST, 1, start, v1 start first"})
    void the_waiting_instance_runs_with_the_version_of_the_state_it_holds(String firstNode, String secondNode,
                                                                         Debounce.State mode, int version, String step,
                                                                         String result, EngineHarness h) {
        // neither inserting node serves a queue: the instance waits until the runner starts
        Engine old = h.start("old", c -> c.queues(Map.of()), new V1());
        Engine upgraded = h.start("new", c -> c.queues(Map.of()), new V1(), new V2());
        Duration window = Duration.ofMillis(1);  // due at once: no node runs it until the runner starts
        Inserted first = insert(firstNode.equals("old") ? old : upgraded, firstNode.equals("new"), "first",
                InsertOptions.builder().debounce("k", window).build());
        Inserted second = insert(secondNode.equals("old") ? old : upgraded, secondNode.equals("new"), "second",
                InsertOptions.builder().debounce("k", window, mode).build());
        assertThat(second).as("the second insert moved the waiting instance").isEqualTo(new Inserted(first.id(), false, true));

        String row = h.queryString("SELECT fsm_version || ' ' || step || ' ' || state::text FROM gen_durable WHERE id = "
                + first.id());
        String state = version == 1 ? "\"" + result.substring(result.lastIndexOf(' ') + 1) + "\""
                : "{\"text\": \"" + result.substring(result.lastIndexOf(' ') + 1) + "\"}";
        assertThat(row).as("version, step and state of the waiting instance belong together")
                .isEqualTo(version + " " + step + " " + state);

        Engine runner = h.start("runner", c -> c, new V1(), new V2());
        await().alias("the runner ran the instance").atMost(Duration.ofSeconds(20))
                .until(() -> runner.find(first.id()).orElseThrow().status().isTerminal());
        assertThat(runner.find(first.id()).orElseThrow().status()).isEqualTo(Status.DONE);
        assertThat(runner.find(first.id()).orElseThrow().result().as(String.class)).isEqualTo(result);
    }

    private static Inserted insert(Engine node, boolean upgraded, String text, InsertOptions options) {
        // each node inserts the newest version it has: the upgraded one version 2
        return upgraded ? node.insert(V2.class, new Note(text), options) : node.insert(V1.class, text, options);
    }
}
