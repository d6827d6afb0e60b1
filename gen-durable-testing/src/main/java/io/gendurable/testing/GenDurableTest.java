package io.gendurable.testing;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A JUnit 5 test of FSMs on a real PostgreSQL, with no engine thread: each test (or each test
 * class, see {@link #isolation()}) gets a fresh schema and an engine with these FSMs, and its
 * methods take {@link DurableTesting}, {@link io.gendurable.GenDurable} and {@link TestClock}
 * parameters. The database is {@code GENDURABLE_TEST_DB_URL} when set, else an embedded
 * PostgreSQL started once per JVM.
 *
 * <pre>{@code
 * @GenDurableTest(fsms = Checkout.class)
 * class CheckoutTest {
 *     @Test
 *     void pays(GenDurable durable, DurableTesting t) {
 *         long id = durable.insert(Checkout.class, new CheckoutState("42")).id();
 *         t.drain();
 *         t.assertDone(id, Map.of("paid", true));
 *     }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(DurableTestExtension.class)
public @interface GenDurableTest {

    /** @return FSM classes to register, each made through its no-argument constructor */
    Class<?>[] fsms() default {};

    /**
     * @return {@code gendurable.*} settings as {@code key=value}, e.g.
     * {@code "gendurable.rate-limits.psp.allowed=5"}; they win over {@link #configFile()}
     */
    String[] config() default {};

    /**
     * @return a properties file on the class path whose {@code gendurable.*} keys configure the
     * engine, e.g. {@code META-INF/microprofile-config.properties}; empty: none
     */
    String configFile() default "";

    /** @return whether each test method or each test class gets its own schema and engine */
    Isolation isolation() default Isolation.PER_METHOD;

    /** How far one engine and its schema are shared. */
    enum Isolation {
        /** a fresh schema and engine for every test method (the default) */
        PER_METHOD,
        /** one schema and engine for all the test methods of the class, in their order */
        PER_CLASS
    }
}
