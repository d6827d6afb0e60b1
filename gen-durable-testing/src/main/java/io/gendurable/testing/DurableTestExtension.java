package io.gendurable.testing;

import io.gendurable.DurableOperations;
import io.gendurable.GenDurable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.util.Optional;

/**
 * The JUnit 5 extension behind {@link GenDurableTest} (usable alone with
 * {@code @ExtendWith(DurableTestExtension.class)}, then with no FSMs until the test registers
 * some). Builds a {@link DurableTesting} per test method or per test class, resolves parameters
 * of type {@link DurableTesting}, {@link GenDurable}, {@link DurableOperations} and {@link TestClock}, and closes the
 * engine and drops its schema afterwards. (Not {@code io.gendurable.impl.cdi.GenDurableExtension},
 * the CDI extension.)
 */
public final class DurableTestExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(DurableTestExtension.class);
    private static final String KEY = "durable-testing";

    /** Made by JUnit. */
    public DurableTestExtension() {
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        open(context, GenDurableTest.Isolation.PER_CLASS);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        open(context, GenDurableTest.Isolation.PER_METHOD);
    }

    /** Builds the engine of this scope when the test's isolation is {@code scope}. */
    private void open(ExtensionContext context, GenDurableTest.Isolation scope) {
        if (isolation(context) == scope) {
            context.getStore(NS).put(KEY, build(context));
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == DurableTesting.class || type == GenDurable.class || type == DurableOperations.class
                || type == TestClock.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        DurableTesting t = context.getStore(NS).get(KEY, DurableTesting.class);
        if (t == null) {
            throw new ParameterResolutionException("no gen-durable test engine here: with isolation PER_METHOD (the "
                    + "default) the engine exists in @BeforeEach, @Test and @AfterEach methods only; use "
                    + "@GenDurableTest(isolation = PER_CLASS) to take it in @BeforeAll or a constructor");
        }
        Class<?> type = parameter.getParameter().getType();
        if (type == GenDurable.class) {
            return t.durable();
        }
        if (type == DurableOperations.class) {
            return t.operations();
        }
        return type == TestClock.class ? t.clock() : t;
    }

    private static DurableTesting build(ExtensionContext context) {
        DurableTestingBuilder b = DurableTesting.builder().schemaHint(context.getRequiredTestClass().getSimpleName());
        annotation(context).ifPresent(a -> {
            b.fsms(a.fsms());
            for (String entry : a.config()) {
                int eq = entry.indexOf('=');
                if (eq < 1) {
                    throw new IllegalArgumentException("@GenDurableTest config entries are key=value, got '" + entry + "'");
                }
                b.config(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
            }
            if (!a.configFile().isEmpty()) {
                b.configFile(a.configFile());
            }
        });
        return b.build();
    }

    private static void close(ExtensionContext context) {
        DurableTesting t = context.getStore(NS).remove(KEY, DurableTesting.class);
        if (t != null) {
            t.close();
        }
    }

    private static GenDurableTest.Isolation isolation(ExtensionContext context) {
        return annotation(context).map(GenDurableTest::isolation).orElse(GenDurableTest.Isolation.PER_METHOD);
    }

    /** The annotation on the test class, or on a class enclosing a nested test class. */
    private static Optional<GenDurableTest> annotation(ExtensionContext context) {
        for (Class<?> c = context.getRequiredTestClass(); c != null; c = c.getEnclosingClass()) {
            GenDurableTest a = c.getAnnotation(GenDurableTest.class);
            if (a != null) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }
}
