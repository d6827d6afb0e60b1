package io.gendurable.testing;

import io.gendurable.impl.engine.Engine;

/** The project's own tests' reach into a kit: the engine behind a {@link DurableTesting} (package-private there). */
public final class KitAccess {
    private KitAccess() {
    }

    /** @return the engine behind {@code t} */
    public static Engine engine(DurableTesting t) {
        return t.engine();
    }
}
