package io.gendurable.impl.cdi.health;

import io.gendurable.impl.engine.Engine;

/**
 * What the health checks ask of an engine's bean: its name, and its engine once built, never
 * building it. Implemented by the container layer's engine bean.
 */
public interface CheckedEngine {
    /** @return the engine's name */
    String engineName();

    /** @return the engine if it has been built and started (even if stopped since), else null */
    Engine builtEngine();
}
