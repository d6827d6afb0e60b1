package io.gendurable.impl.fsm;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.FsmNames;

import java.lang.reflect.Type;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A registered FSM: its identity, defaults, state type and how to get the bean.
 *
 * @param name            the name stored in rows
 * @param version         the version stored in rows
 * @param initialStep     the first step
 * @param queue           the default queue
 * @param inlineExecution whether a next runs inline (a later release)
 * @param maxAttempts     attempts before the default onError stops
 * @param history         whether its steps are recorded in the step history whatever the configuration says
 * @param stateType       the state's type, for JSON-B
 * @param beanClass       the class that declared it
 * @param instance        the bean (a CDI contextual reference, or a plain object in tests)
 */
public record FsmDefinition(String name, int version, String initialStep, String queue, boolean inlineExecution,
                            int maxAttempts, boolean history, Type stateType, Class<?> beanClass,
                            Supplier<Fsm<Object>> instance) {

    public FsmDefinition {
        Objects.requireNonNull(name, "name");
        storableName("name", name, beanClass);
        storableName("initialStep", initialStep, beanClass);
        if (version < 1) {
            throw new IllegalArgumentException("@DurableFsm version must be 1 or more on " + beanClass.getName());
        }
        if (queue == null || !queue.matches("[A-Za-z0-9_.\\-]{1,255}")) {
            throw new IllegalArgumentException("@DurableFsm queue must use only letters, digits, '_', '.' and '-' on "
                    + beanClass.getName() + ", got '" + queue + "'");
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("@DurableFsm maxAttempts must be 1 or more on " + beanClass.getName());
        }
    }

    /** Names are stored in every row as text: not blank, at most 255 characters, no NUL. */
    private static void storableName(String field, String value, Class<?> beanClass) {
        if (value == null || value.isBlank() || value.length() > 255 || value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("@DurableFsm " + field + " must be a non-blank name of at most 255 "
                    + "characters without NUL on " + beanClass.getName() + ", got '" + value + "'");
        }
    }

    /**
     * Describes a bean class from its {@link DurableFsm} annotation (or the defaults).
     *
     * @param beanClass the FSM's class
     * @param instance  supplies the bean
     * @return the definition
     */
    @SuppressWarnings("unchecked")
    public static FsmDefinition of(Class<?> beanClass, Supplier<? extends Fsm<?>> instance) {
        if (!Fsm.class.isAssignableFrom(beanClass)) {
            throw new IllegalArgumentException(beanClass.getName() + " does not implement " + Fsm.class.getName());
        }
        DurableFsm a = beanClass.getAnnotation(DurableFsm.class);
        String name = FsmNames.nameOf(beanClass);
        return new FsmDefinition(name, a == null ? 1 : a.version(), a == null ? "start" : a.initialStep(),
                a == null ? "default" : a.queue(), a != null && a.inlineExecution(), a == null ? 20 : a.maxAttempts(),
                a != null && a.history(), StateTypes.of(beanClass), beanClass, (Supplier<Fsm<Object>>) (Supplier<?>) instance);
    }

    /** @return a plain object FSM's definition (tests and plain-Java use) */
    public static FsmDefinition of(Fsm<?> fsm) {
        return of(fsm.getClass(), () -> fsm);
    }
}
