package io.gendurable.impl.support;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class of the engine's own multi-engine tests (real threads, real schedulers): a
 * parameter of type {@link EngineHarness} in a test method or a {@code @BeforeEach} method gets
 * one fresh harness per test (one schema, named after the class), the same one for both, and it
 * is closed after the test's {@code @AfterEach} methods. For single-threaded, deterministic tests
 * of the rules use the shipped kit instead ({@code DurableTesting}, {@code TestClock}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(EngineHarnessExtension.class)
public @interface EngineTest {
}
