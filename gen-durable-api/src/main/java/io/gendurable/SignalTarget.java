package io.gendurable;

/**
 * Where a signal goes: an instance id, or the business key of a live instance.
 * (Named SignalTarget, not Target: {@code java.lang.annotation.Target} would collide inside the package.)
 */
public sealed interface SignalTarget permits SignalTarget.Id, SignalTarget.CorrelationKey {

    /**
     * An instance by id.
     *
     * @param id the instance id
     */
    record Id(long id) implements SignalTarget {
    }

    /**
     * The live instance holding a correlation key.
     *
     * @param key the correlation key; not blank
     */
    record CorrelationKey(String key) implements SignalTarget {
        /**
         * Validates the key.
         *
         * @param key the correlation key; not blank
         */
        public CorrelationKey {
            Validation.requireName("correlationKey", key);
        }
    }

    /**
     * @param id an instance id
     * @return the target
     */
    static SignalTarget id(long id) {
        return new Id(id);
    }

    /**
     * @param key a correlation key
     * @return the target
     */
    static SignalTarget correlationKey(String key) {
        return new CorrelationKey(key);
    }
}
