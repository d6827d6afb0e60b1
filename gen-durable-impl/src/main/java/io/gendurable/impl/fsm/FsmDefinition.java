package io.gendurable.impl.fsm;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.FsmNames;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.format.DateTimeParseException;
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
 * @param stepTimeout     {@code @DurableFsm(stepTimeout)}: its steps' timeout, {@link Duration#ZERO} for none,
 *                        or null for {@code gendurable.step-timeout}
 * @param timeoutPerStep  whether the class overrides {@link Fsm#stepTimeout(String)} (asked before each step only then)
 * @param stateType       the state's type, for JSON-B
 * @param beanClass       the class that declared it
 * @param instance        the bean (a CDI contextual reference, or a plain object in tests)
 */
public record FsmDefinition(String name, int version, String initialStep, String queue, boolean inlineExecution,
                            int maxAttempts, boolean history, Duration stepTimeout, boolean timeoutPerStep,
                            Type stateType, Class<?> beanClass, Supplier<Fsm<Object>> instance) {

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
        if (stepTimeout != null && !stepTimeout.isZero() && !acceptedTimeout(stepTimeout)) {
            throw badTimeout(beanClass, stepTimeout.toString());
        }
    }

    /** The longest step timeout, as for every duration of the API: anything longer is a unit mistake. */
    private static final Duration MAX_TIMEOUT = Duration.ofDays(365L * 1000);

    /** @return whether a non-zero step timeout is accepted: from 1 ms (the timer counts in milliseconds) to 1,000 years */
    public static boolean acceptedTimeout(Duration d) {
        return !d.isNegative() && d.compareTo(Duration.ofMillis(1)) >= 0 && d.compareTo(MAX_TIMEOUT) <= 0;
    }

    private static IllegalArgumentException badTimeout(Class<?> beanClass, String given) {
        return new IllegalArgumentException("@DurableFsm stepTimeout must be an ISO-8601 duration from 1 ms to 1,000 "
                + "years (\"PT30S\", \"PT5M\"), \"PT0S\" for no timeout, or empty for gendurable.step-timeout, on "
                + beanClass.getName() + ", got '" + given + "'");
    }

    /** @return the annotation's step timeout: null when empty, else parsed (checked by the constructor) */
    private static Duration stepTimeout(Class<?> beanClass, String text) {
        if (text.isEmpty()) {
            return null;
        }
        Duration d;
        try {
            d = Duration.parse(text.trim());
        } catch (DateTimeParseException e) {
            throw badTimeout(beanClass, text);
        }
        if (!d.isZero() && !acceptedTimeout(d)) {
            throw badTimeout(beanClass, text);
        }
        return d;
    }

    /** @return whether the class overrides {@link Fsm#stepTimeout(String)} */
    private static boolean overridesStepTimeout(Class<?> beanClass) {
        try {
            return beanClass.getMethod("stepTimeout", String.class).getDeclaringClass() != Fsm.class;
        } catch (NoSuchMethodException e) {
            return false;
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
                a != null && a.history(), a == null ? null : stepTimeout(beanClass, a.stepTimeout()),
                overridesStepTimeout(beanClass), StateTypes.of(beanClass), beanClass,
                (Supplier<Fsm<Object>>) (Supplier<?>) instance);
    }

    /** @return a plain object FSM's definition (tests and plain-Java use) */
    public static FsmDefinition of(Fsm<?> fsm) {
        return of(fsm.getClass(), () -> fsm);
    }
}
