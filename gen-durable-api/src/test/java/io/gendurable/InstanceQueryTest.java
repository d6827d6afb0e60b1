package io.gendurable;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link InstanceQuery}'s defaults and its refusals, each naming the field and what it accepts. */
class InstanceQueryTest {
    static final Instant T = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void defaults() {
        InstanceQuery q = InstanceQuery.all();
        assertThat(q.pageSize()).isEqualTo(50);
        assertThat(q.order()).isEqualTo(InstanceQuery.Order.NEWEST_FIRST);
        assertThat(q.statuses()).isNull();
        assertThat(q.cursor()).isNull();
        assertThat(q.after("abc").cursor()).isEqualTo("abc");
        assertThat(q.after("abc").pageSize()).isEqualTo(50);
        assertThat(new InstanceQuery(null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                10, null, null).order()).isEqualTo(InstanceQuery.Order.NEWEST_FIRST);
    }

    @Test
    void statuses_are_copied_and_unmodifiable() {
        java.util.Set<Status> mine = new java.util.HashSet<>(Set.of(Status.DONE));
        InstanceQuery q = InstanceQuery.builder().statuses(mine).build();
        mine.add(Status.FAILED);
        assertThat(q.statuses()).containsExactly(Status.DONE);
        assertThatThrownBy(() -> q.statuses().add(Status.RUNNABLE)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void bad_input_is_refused_naming_the_field() {
        bad(b -> b.pageSize(0), "pageSize must be between 1 and 1000, got 0");
        bad(b -> b.pageSize(1001), "pageSize must be between 1 and 1000, got 1001");
        bad(b -> b.status(), "statuses must name at least one status");
        bad(b -> b.status(Status.DONE, null), "statuses must not contain null");
        bad(b -> b.correlationKey("a").correlationKeyPrefix("b"), "correlationKey and correlationKeyPrefix are exclusive");
        bad(b -> b.correlationKeyPrefix(" "), "correlationKeyPrefix must not be null or blank");
        bad(b -> b.fsm("f", 0), "fsmVersion must be 1 or more");
        bad(b -> b.fsm(" "), "fsm must not be null or blank");
        bad(b -> b.queue("no spaces"), "queue must use only letters");
        bad(b -> b.step("x".repeat(256)), "step must be at most 255 characters");
        bad(b -> b.concurrencyKey("a\0b"), "concurrencyKey must not contain a NUL");
        bad(b -> b.parentId(0), "parentId must be an instance id");
        bad(b -> b.inserted(T, T), "insertedFrom must be before insertedTo");
        bad(b -> b.updated(T.plusSeconds(1), T), "updatedFrom must be before updatedTo");
        bad(b -> b.inserted(Instant.parse("+10000-01-01T00:00:00Z"), null), "insertedFrom must be within the years 1 to 9999");
        bad(b -> b.errorContains(""), "errorContains must not be empty");
        bad(b -> b.errorContains("x".repeat(1001)), "errorContains must be at most 1000 characters");
        bad(b -> b.after(" "), "cursor must be a nextCursor of an earlier page");
        assertThatThrownBy(() -> new InstanceQuery(null, 2, null, null, null, null, null, null, null, null, null, null,
                null, null, 50, null, null)).hasMessageContaining("fsmVersion needs fsm");
        assertThatThrownBy(() -> InstanceQuery.builder().order(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("order must not be null; accepted: [NEWEST_FIRST, OLDEST_FIRST]");
        assertThatThrownBy(() -> InstanceQuery.all().after(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("nextCursor must not be null");
    }

    private static void bad(java.util.function.UnaryOperator<InstanceQuery.Builder> b, String message) {
        assertThatThrownBy(() -> b.apply(InstanceQuery.builder()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }
}
