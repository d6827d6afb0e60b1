package io.gendurable.impl.step;

/**
 * Ties the log lines a step writes to its instance (docs/logging.md): while the step's code runs
 * (its {@code step} and {@code onError}), the logging context of its thread holds
 * {@value #ID}, {@value #FSM}, {@value #STEP} and {@value #ATTEMPT}, and they are removed when it
 * returns or throws, so nothing leaks to the next task of the thread.
 *
 * <p>The context is SLF4J's MDC, when {@code org.slf4j.MDC} is visible to the engine and bound
 * to a provider that keeps one (WildFly's logging, Logback, Log4j 2): a pattern such as
 * {@code %X{gendurable.id}} prints it. Without SLF4J, or with its no-operation provider (Open
 * Liberty's JUL logging), this class does nothing but read one static field per step; the SLF4J
 * classes are then never loaded ({@link Slf4jMdc} is the only class that touches them).
 */
public final class StepLogContext {
    /** The instance's id. */
    public static final String ID = "gendurable.id";
    /** The FSM's name. */
    public static final String FSM = "gendurable.fsm";
    /** The step's name. */
    public static final String STEP = "gendurable.step";
    /** The attempt of the step, from 1. */
    public static final String ATTEMPT = "gendurable.attempt";

    /** The MDC, or null when there is none to fill. */
    private static final Slf4jMdc MDC = detect();

    private StepLogContext() {
    }

    private static Slf4jMdc detect() {
        try {
            Class.forName("org.slf4j.MDC", false, StepLogContext.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        try {
            return Slf4jMdc.ifKept();
        } catch (LinkageError | RuntimeException e) {
            return null;  // an SLF4J too old or broken: no context rather than failing steps
        }
    }

    /** @return whether step log lines carry the instance's keys in this application */
    public static boolean active() {
        return MDC != null;
    }

    /**
     * Puts the row's keys in the thread's logging context.
     *
     * @param row the claimed row whose step is about to run
     * @return whether anything was put: pass it to {@link #exit(boolean)} in a {@code finally}
     */
    static boolean enter(ClaimedRow row) {
        Slf4jMdc mdc = MDC;
        if (mdc == null) {
            return false;
        }
        mdc.put(row.id(), row.fsm(), row.step(), row.attempt());
        return true;
    }

    /** @param entered what {@link #enter} returned: removes the keys it put */
    static void exit(boolean entered) {
        if (entered) {
            MDC.clear();
        }
    }
}
