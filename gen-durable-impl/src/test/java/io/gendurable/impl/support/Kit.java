package io.gendurable.impl.support;

import io.gendurable.impl.engine.Engine;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.SharedTestDatabase;

/**
 * The engine tests' extra reach into a test-kit engine ({@code @GenDurableTest},
 * {@link DurableTesting}): the engine behind it (its metrics, its configuration) and a
 * {@link Probe} on its schema, for the checks a rule test makes beyond the kit's assertions.
 */
public final class Kit {
    private Kit() {
    }

    /** @return the engine behind {@code t} */
    public static Engine engine(DurableTesting t) {
        return io.gendurable.testing.KitAccess.engine(t);
    }

    /** @return plain SQL on {@code t}'s schema */
    public static Probe probe(DurableTesting t) {
        return new Probe(SharedTestDatabase.dataSource(), engine(t).config().schema().name());
    }
}
