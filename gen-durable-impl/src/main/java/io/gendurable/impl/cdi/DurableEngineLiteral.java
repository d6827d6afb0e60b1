package io.gendurable.impl.cdi;

import io.gendurable.DurableEngine;
import jakarta.enterprise.util.AnnotationLiteral;

import java.util.Objects;

/** An instance of {@link DurableEngine}, for the synthetic beans and programmatic lookup (the API stays free of CDI's SPI). */
public final class DurableEngineLiteral extends AnnotationLiteral<DurableEngine> implements DurableEngine {
    private static final long serialVersionUID = 1L;
    private final String value;

    private DurableEngineLiteral(String value) {
        this.value = Objects.requireNonNull(value, "value");
    }

    /**
     * @param name an engine's name
     * @return the qualifier naming it
     */
    public static DurableEngineLiteral of(String name) {
        return new DurableEngineLiteral(name);
    }

    @Override
    public String value() {
        return value;
    }
}
