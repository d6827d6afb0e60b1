package io.gendurable;

import java.util.Objects;

/**
 * One instance to insert, for {@link GenDurable#insert(NewInstance)} and {@link GenDurable#insertAll}.
 *
 * @param fsm     the registered FSM name (see {@link DurableFsm#name()})
 * @param state   the initial state, serialized through JSON-B; not null (an FSM with no data
 *                starts from an empty record)
 * @param options the options; null means the defaults
 */
public record NewInstance(String fsm, Object state, InsertOptions options) {

    /**
     * Validates the name and the state, and defaults the options.
     *
     * @param fsm the registered FSM name (see {@link DurableFsm#name()})
     * @param state the initial state, serialized through JSON-B; not null
     * @param options the options; null means the defaults
     * @throws IllegalArgumentException if the name is blank or too long, or the state is null
     */
    public NewInstance {
        Validation.requireName("fsm", fsm);
        if (state == null) {
            // A forgotten argument would otherwise surface only inside the first step, as an NPE and retries.
            throw new IllegalArgumentException("state must not be null: a new '" + fsm
                    + "' starts from its initial state (an FSM with no data starts from an empty record)");
        }
        options = options == null ? InsertOptions.defaults() : options;
    }

    /**
     * @param fsm   the FSM class
     * @param state the initial state; not null
     * @param <S>   the state type
     * @return the instance, with default options
     */
    public static <S> NewInstance of(Class<? extends Fsm<S>> fsm, S state) {
        return of(fsm, state, InsertOptions.defaults());
    }

    /**
     * @param fsm     the FSM class
     * @param state   the initial state; not null
     * @param options the options
     * @param <S>     the state type
     * @return the instance
     */
    public static <S> NewInstance of(Class<? extends Fsm<S>> fsm, S state, InsertOptions options) {
        return new NewInstance(FsmNames.nameOf(Objects.requireNonNull(fsm, "fsm must not be null")), state, options);
    }
}
