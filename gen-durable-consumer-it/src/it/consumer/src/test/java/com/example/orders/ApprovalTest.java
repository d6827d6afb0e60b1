package com.example.orders;

import io.gendurable.GenDurable;
import io.gendurable.SignalTarget;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@GenDurableTest(fsms = Approval.class)
class ApprovalTest {

    @Test
    void a_large_request_waits_for_a_decision(GenDurable durable, DurableTesting t) {
        long id = durable.insert(Approval.class, new Approval.Request("bob", 500)).id();
        assertEquals(1, t.drain().steps().size());
        t.assertAwaiting(id, "approved", "rejected");

        durable.signal(SignalTarget.id(id), "approved", null);
        t.drain();
        t.assertDone(id, "approved");
    }

    @Test
    void the_kit_and_the_engine_come_from_their_own_jars() {
        assertTrue(jarOf(GenDurableTest.class).contains("gen-durable-testing-"), jarOf(GenDurableTest.class));
        assertTrue(jarOf(GenDurable.class).contains("gen-durable-api-"), jarOf(GenDurable.class));
    }

    /** The one gen-durable-impl dependency brings Hibernate and the jboss-logging version it is tested with. */
    @Test
    void the_engine_brings_its_libraries_pinned() throws ClassNotFoundException {
        assertTrue(jarOf(Class.forName("org.hibernate.Version")).contains("hibernate-core-" + System.getProperty("expected.hibernate")),
                jarOf(Class.forName("org.hibernate.Version")));
        assertTrue(jarOf(Class.forName("org.jboss.logging.Logger")).contains("jboss-logging-" + System.getProperty("expected.jboss-logging")),
                jarOf(Class.forName("org.jboss.logging.Logger")));
    }

    private static String jarOf(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation().toString();
    }
}
