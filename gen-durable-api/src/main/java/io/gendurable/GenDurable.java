package io.gendurable;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The entry point: inject it ({@code @Inject GenDurable durable}) into EJBs, CDI beans and JAX-RS
 * resources. Thread-safe.
 */
public interface GenDurable {

    /**
     * Inserts an instance with default options.
     *
     * @param fsm   the FSM class (a registered bean)
     * @param state the initial state; not null ({@link IllegalArgumentException}, nothing written)
     * @param <S>   the state type
     * @return the id, or the live holder's id with {@code duplicate=true}
     */
    <S> Inserted insert(Class<? extends Fsm<S>> fsm, S state);

    /**
     * Inserts an instance.
     *
     * @param fsm     the FSM class (a registered bean)
     * @param state   the initial state; not null ({@link IllegalArgumentException}, nothing written)
     * @param options queue, priority, schedule, correlation key…
     * @param <S>     the state type
     * @return the id, or the live holder's id with {@code duplicate=true}, or a debounce key's waiting
     *         instance's id with {@code debounced=true}
     */
    <S> Inserted insert(Class<? extends Fsm<S>> fsm, S state, InsertOptions options);

    /**
     * Inserts an instance described by name.
     *
     * @param instance the instance
     * @return the id, or the live holder's id with {@code duplicate=true}, or a debounce key's waiting
     *         instance's id with {@code debounced=true}
     */
    Inserted insert(NewInstance instance);

    /**
     * Inserts many instances in one statement, whatever their number.
     *
     * @param instances the instances
     * @return one answer per instance, in input order
     */
    List<Inserted> insertAll(List<NewInstance> instances);

    /**
     * Delivers a durable signal: stored in the target's inbox, and wakes the target when it
     * awaits that name. One statement.
     *
     * @param target  an instance id, or the correlation key of a live instance
     * @param name    the signal name; not blank
     * @param payload any value JSON-B can write, or null
     * @return {@code DELIVERED}, or {@code NO_TARGET} for an unknown or terminal target
     */
    SignalResult signal(SignalTarget target, String name, Object payload);

    /**
     * Delivers a durable signal at most once per target and dedup key.
     *
     * @param target   an instance id, or the correlation key of a live instance
     * @param name     the signal name; not blank
     * @param payload  any value JSON-B can write, or null
     * @param dedupKey a key unique per target (e.g. the event id of the sender); null for none
     * @return {@code DELIVERED}, {@code DUPLICATE} (the key was seen) or {@code NO_TARGET}
     */
    SignalResult signal(SignalTarget target, String name, Object payload, String dedupKey);

    /**
     * Waits up to {@code timeout} for the instance to settle (done, failed or parked). Holds no
     * database connection and no transaction while waiting.
     *
     * @param id      the instance
     * @param timeout the longest wait; zero or more
     * @return the answer, read from the row; {@link AwaitResult.Busy} with the last snapshot read
     *         if the engine stops while the caller waits
     * @throws EngineStoppedException if the engine stopped before the row could be read once
     */
    AwaitResult await(long id, Duration timeout);

    /**
     * Waits up to {@code timeout} for the instance to settle or, with {@link AwaitUntil#TERMINAL},
     * to finish.
     *
     * @param id      the instance
     * @param timeout the longest wait; zero or more
     * @param until   what counts as settled
     * @return the answer, read from the row; {@link AwaitResult.Busy} with the last snapshot read
     *         if the engine stops while the caller waits
     * @throws EngineStoppedException if the engine stopped before the row could be read once
     */
    AwaitResult await(long id, Duration timeout, AwaitUntil until);

    /**
     * @param id an instance id
     * @return the instance as committed, if it exists
     */
    Optional<InstanceSnapshot> find(long id);

    /**
     * @param correlationKey a business key
     * @return the live instance holding the key (within its correlation scope), if any
     */
    Optional<InstanceSnapshot> find(String correlationKey);
}
