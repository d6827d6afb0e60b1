package io.gendurable;

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
     * @param state the initial state
     * @param <S>   the state type
     * @return the id, or the live holder's id with {@code duplicate=true}
     */
    <S> Inserted insert(Class<? extends Fsm<S>> fsm, S state);

    /**
     * Inserts an instance.
     *
     * @param fsm     the FSM class (a registered bean)
     * @param state   the initial state
     * @param options queue, priority, schedule, correlation key…
     * @param <S>     the state type
     * @return the id, or the live holder's id with {@code duplicate=true}
     */
    <S> Inserted insert(Class<? extends Fsm<S>> fsm, S state, InsertOptions options);

    /**
     * Inserts an instance described by name.
     *
     * @param instance the instance
     * @return the id, or the live holder's id with {@code duplicate=true}
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
