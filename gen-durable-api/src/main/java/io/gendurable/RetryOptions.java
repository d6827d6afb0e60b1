package io.gendurable;

import java.util.Optional;

/**
 * How {@link DurableOperations#retry} restarts a failed or cancelled instance. Immutable: each
 * {@code with…} returns a copy. By default it runs again from the step it ended in, with the
 * state it had, attempts counted from 1.
 */
public final class RetryOptions {
    private static final RetryOptions DEFAULTS = new RetryOptions(null, false, null);

    private final String fromStep;
    private final boolean replaceState;
    private final Object state;

    private RetryOptions(String fromStep, boolean replaceState, Object state) {
        this.fromStep = fromStep;
        this.replaceState = replaceState;
        this.state = state;
    }

    /** @return run again from the step it ended in, with its state */
    public static RetryOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param step a step of the instance's FSM to run first (its name as the FSM declares it)
     * @return a copy that starts from {@code step}
     * @throws IllegalArgumentException when {@code step} is null, blank or longer than 255 characters
     */
    public RetryOptions fromStep(String step) {
        return new RetryOptions(Validation.requireName("fromStep", step), replaceState, state);
    }

    /**
     * @param newState the state to run with instead of the stored one, of the FSM's state type
     * @return a copy that replaces the state
     * @throws IllegalArgumentException when {@code newState} is null (a state is required)
     */
    public RetryOptions withState(Object newState) {
        if (newState == null) {
            throw new IllegalArgumentException("withState: the replacement state must not be null");
        }
        return new RetryOptions(fromStep, true, newState);
    }

    /** @return the step to start from, or empty for the step it ended in */
    public Optional<String> step() {
        return Optional.ofNullable(fromStep);
    }

    /** @return the replacement state, or empty to keep the stored one */
    public Optional<Object> state() {
        return replaceState ? Optional.of(state) : Optional.empty();
    }

    @Override
    public String toString() {
        return "RetryOptions[fromStep=" + fromStep + ", replaceState=" + replaceState + "]";
    }
}
