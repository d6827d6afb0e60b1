package io.gendurable.testing;

import io.gendurable.GenDurable;
import io.gendurable.testing.TestingFsms.Count;
import io.gendurable.testing.TestingFsms.Counter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExtensionTest {

    @Nested
    @GenDurableTest(fsms = Counter.class, config = "gendurable.queues=default:1,side:1")
    class PerMethod {
        long firstId;

        @BeforeEach
        void insert(GenDurable durable) {
            firstId = durable.insert(Counter.class, new Count(0, 1)).id();
        }

        @Test
        void each_test_gets_a_fresh_schema(DurableTesting t) {
            assertThat(firstId).as("ids restart in a fresh schema").isEqualTo(1);
            assertThat(t.instances(Counter.class)).hasSize(1);
        }

        @Test
        void and_again(DurableTesting t) {
            assertThat(firstId).isEqualTo(1);
            assertThat(t.instances(Counter.class)).hasSize(1);
        }

        @Test
        void parameters_are_the_same_engine_and_clock(GenDurable durable, DurableTesting t, TestClock clock) {
            assertThat(durable).isSameAs(t.durable());
            assertThat(clock).isSameAs(t.clock());
            clock.advance(Duration.ofMinutes(1));
            assertThat(t.now()).isEqualTo(clock.instant());
            assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void an_fsm_object_can_be_registered_by_the_test(GenDurable durable, DurableTesting t) {
            t.register(new TestingFsms.SideJob());
            long id = durable.insert(TestingFsms.SideJob.class, new Count(4, 4)).id();
            t.drain();
            t.assertDone(id, 4);
            assertThatThrownBy(() -> t.register(new Counter())).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("name 'counter' version 1");
        }
    }

    @Nested
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    @GenDurableTest(fsms = Counter.class, isolation = GenDurableTest.Isolation.PER_CLASS,
            config = "gendurable.queues=default:2,extra:1")
    class PerClass {
        @Test
        @Order(1)
        void the_first_test_inserts(GenDurable durable, DurableTesting t) {
            durable.insert(Counter.class, new Count(0, 0));
            assertThat(t.drain().count()).isEqualTo(1);
        }

        @Test
        @Order(2)
        void the_second_sees_its_rows_and_the_configured_queues(DurableTesting t) {
            assertThat(t.instances(Counter.class)).hasSize(1);
            assertThat(t.drain(DrainOptions.defaults().queues("extra")).count()).isZero();
        }
    }

    @Test
    void a_bad_key_fails_the_build_naming_it() {
        assertThatThrownBy(() -> DurableTesting.builder().config("gendurable.qeues", "default:1").build())
                .hasMessageContaining("gendurable.qeues");
    }

    @Test
    void the_builder_works_without_junit_and_drops_its_schema_on_close() throws Exception {
        String hint = "builderdrop" + System.nanoTime();
        try (DurableTesting t = DurableTesting.builder().fsms(Counter.class).schemaHint(hint).build()) {
            long id = t.durable().insert(Counter.class, new Count(0, 2)).id();
            t.drain();
            t.assertDone(id, 2);
            assertThat(schemasNamed(hint)).isEqualTo(1);
        }
        assertThat(schemasNamed(hint)).isZero();
    }

    private static long schemasNamed(String hint) throws java.sql.SQLException {
        try (var c = TestDatabase.dataSource().getConnection();
             var ps = c.prepareStatement("SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE ?")) {
            ps.setString(1, "gdt\\_%\\_" + hint);
            try (var rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
