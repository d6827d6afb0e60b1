package io.gendurable;

import java.util.Objects;

/**
 * One instance to insert, for {@link GenDurable#insert(NewInstance)} and {@link GenDurable#insertAll}.
 *
 * @param fsm     the registered FSM name (see {@link DurableFsm#name()})
 * @param state   the initial state, serialized through JSON-B
 * @param options the options; never null
 */
public record NewInstance(String fsm, Object state, InsertOptions options) {

    /**
     * Validates the name and defaults the options.
     *
     * @param fsm the registered FSM name (see {@link DurableFsm#name()})
     * @param state the initial state, serialized through JSON-B
     * @param options the options; never null
     */
    public NewInstance {
        Validation.requireName("fsm", fsm);
        options = options == null ? InsertOptions.defaults() : options;
    }

    /**
     * @param fsm   the FSM class
     * @param state the initial state
     * @param <S>   the state type
     * @return the instance, with default options
     */
    public static <S> NewInstance of(Class<? extends Fsm<S>> fsm, S state) {
        return of(fsm, state, InsertOptions.defaults());
    }

    /**
     * @param fsm     the FSM class
     * @param state   the initial state
     * @param options the options
     * @param <S>     the state type
     * @return the instance
     */
    public static <S> NewInstance of(Class<? extends Fsm<S>> fsm, S state, InsertOptions options) {
        return new NewInstance(FsmNames.nameOf(Objects.requireNonNull(fsm, "fsm must not be null")), state, options);
    }
}
