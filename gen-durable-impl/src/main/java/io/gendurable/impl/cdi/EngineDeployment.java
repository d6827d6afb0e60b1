package io.gendurable.impl.cdi;

import io.gendurable.impl.fsm.FsmRegistry;

/**
 * What the deployment found for each engine, as its {@link DurableBean} reads it: implemented by
 * {@link GenDurableExtension}, which makes the beans (so a bean does not know the extension).
 */
public interface EngineDeployment {
    /** @param engine an engine's name @return its validated configuration */
    EngineSettings settings(String engine);

    /** @param engine an engine's name @return its FSM beans, by name and version */
    FsmRegistry registry(String engine);

    /** @param engine an engine's name: destroys the {@code @Dependent} FSM instances it used; called after it drained */
    void releaseFsmInstances(String engine);
}
