package io.gendurable;

import jakarta.inject.Qualifier;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Qualifier naming one of the application's engines, on {@link GenDurable} and
 * {@link DurableOperations} injection points: {@code @Inject @DurableEngine("billing") GenDurable billing}.
 * The default engine is injected unqualified, or as {@code @DurableEngine("default")}. Each named
 * engine is listed in {@code gendurable.engines} and configured under
 * {@code gendurable.engines.<name>.*} (its own schema, DataSource, queues and limits); an FSM bean
 * joins it with {@link DurableFsm#engine()}.
 */
@Qualifier
@Documented
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.FIELD, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
public @interface DurableEngine {
    /** The name of the engine configured by the plain {@code gendurable.*} keys. */
    String DEFAULT = "default";

    /** @return the engine's name, as listed in {@code gendurable.engines}; default: the default engine */
    String value() default DEFAULT;
}
