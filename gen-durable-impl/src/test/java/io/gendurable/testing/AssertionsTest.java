package io.gendurable.testing;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Status;
import io.gendurable.testing.TestingFsms.Count;
import io.gendurable.testing.TestingFsms.Counter;
import io.gendurable.testing.TestingFsms.Doomed;
import io.gendurable.testing.TestingFsms.Waiter;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@GenDurableTest(fsms = {Counter.class, Doomed.class, Waiter.class})
class AssertionsTest {
    public record Summary(String name, List<Integer> values) {
    }

    @Test
    void assert_status_names_what_the_instance_is_instead(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Waiter.class, new Count(0, 0)).id();
        t.drain();

        assertThat(t.assertStatus(id, Status.AWAITING_SIGNAL).step()).isEqualTo("woken");
        assertThatThrownBy(() -> t.assertStatus(id, Status.DONE)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("expected instance " + id + " to be DONE, but it is AWAITING_SIGNAL")
                .hasMessageContaining("step 'woken'").hasMessageContaining("awaits [go, stop]");
        assertThatThrownBy(() -> t.assertStatus(-5, Status.DONE)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("no instance -5");
    }

    @Test
    void assert_done_compares_the_result_as_json(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Counter.class, new Count(0, 2)).id();
        t.drain();

        t.assertDone(id, 2);
        t.assertDone(id, 2.0);   // numbers by value
        assertThat(t.assertDone(id).as(Integer.class)).isEqualTo(2);
        assertThatThrownBy(() -> t.assertDone(id, 3)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("DONE with result 2, expected 3");
    }

    @Test
    void assert_done_matches_objects_by_member_in_any_order(GenDurable durable, DurableTesting t) {
        // the JSON match itself: records, maps and reordered members
        assertThat(JsonMatch.sameValue("{\"a\":1,\"b\":[1,2]}", "{\"b\":[1.0,2],\"a\":1}")).isTrue();
        assertThat(JsonMatch.sameValue("{\"a\":1}", "{\"a\":1,\"b\":null}")).isFalse();
        assertThat(JsonMatch.sameValue("[1,2]", "[2,1]")).isFalse();
        long id = durable.insert(Counter.class, new Count(1, 1)).id();
        t.drain();
        assertThatThrownBy(() -> t.assertDone(id, Map.of("n", 1))).isInstanceOf(AssertionError.class);
    }

    @Test
    void assert_failed_checks_the_error_text(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Doomed.class, new Count(0, 0)).id();
        t.drain();

        assertThat(t.assertFailed(id)).contains("card declined");
        t.assertFailed(id, "IllegalArgumentException");
        assertThatThrownBy(() -> t.assertFailed(id, "timeout")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("expected it to contain 'timeout'");
        assertThatThrownBy(() -> t.assertDone(id)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("but it is FAILED").hasMessageContaining("card declined");
    }

    @Test
    void assert_awaiting_checks_the_signal_names_exactly(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Waiter.class, new Count(0, 0)).id();
        t.drain();

        t.assertAwaiting(id);
        t.assertAwaiting(id, "stop", "go");
        assertThatThrownBy(() -> t.assertAwaiting(id, "go")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("awaits [go, stop], expected [go]");
    }

    @Test
    void assert_inserted_matches_fsm_state_and_options(GenDurable durable, DurableTesting t) {
        Instant at = t.now().plusSeconds(60);
        long id = durable.insert(Counter.class, new Count(3, 9), InsertOptions.builder().priority(2).scheduleAt(at)
                .correlationKey("count:3").concurrencyKey("c:1").build()).id();

        assertThat(t.assertInserted(Counter.class).id()).isEqualTo(id);
        assertThat(t.assertInserted(Counter.class, new Count(3, 9)).id()).isEqualTo(id);
        assertThat(t.assertInserted(Counter.class, new Count(3, 9), InsertOptions.builder().priority(2)
                .scheduleAt(at).correlationKey("count:3").concurrencyKey("c:1").step("start").queue("default").build())
                .id()).isEqualTo(id);

        assertThatThrownBy(() -> t.assertInserted(Counter.class, new Count(4, 9))).isInstanceOf(AssertionError.class)
                .hasMessageContaining("no instance of FSM 'counter' with state {\"n\":4,\"to\":9}")
                .hasMessageContaining("#" + id + " RUNNABLE step 'start'")
                .hasMessageContaining("correlationKey 'count:3'");
        assertThatThrownBy(() -> t.assertInserted(Counter.class, null, InsertOptions.defaults()))
                .as("priority is always compared").isInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> t.assertInserted(Waiter.class)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("found none");
        assertThatThrownBy(() -> t.assertInserted(Counter.class, null, InsertOptions.builder().rateLimit("x").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rateLimit");
    }
}
