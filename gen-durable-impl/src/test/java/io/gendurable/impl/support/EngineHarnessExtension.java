package io.gendurable.impl.support;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.util.Locale;

/**
 * Resolves {@link EngineHarness} parameters for {@link EngineTest} classes: one harness per test
 * method, kept in the test's store so that JUnit closes it (an {@link AutoCloseable}) when the
 * test ends, after its {@code @AfterEach} methods.
 */
public final class EngineHarnessExtension implements ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(EngineHarnessExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == EngineHarness.class && context.getTestMethod().isPresent();
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getStore(NAMESPACE).getOrComputeIfAbsent(EngineHarness.class,
                k -> new EngineHarness(hint(context)), EngineHarness.class);
    }

    private static String hint(ExtensionContext context) {
        String name = context.getRequiredTestClass().getSimpleName();
        if (name.endsWith("Test") && name.length() > 4) {
            name = name.substring(0, name.length() - 4);
        }
        return name.toLowerCase(Locale.ROOT);
    }
}
