package io.gendurable;

/**
 * How a {@link Outcome.Next} moves: the rate limit and weight of the next step, and what happens
 * to the concurrency key. Build it through the withers of {@link Outcome.Next}.
 *
 * @param rateLimit      the rate-limit key of the next step ({@code name} or {@code name:partition}), or null
 * @param weight         the tokens the next step takes from its rate limit; 1 or more
 * @param keyChange      what happens to the concurrency key
 * @param concurrencyKey the new key with {@link KeyChange#SWITCH}, else null
 * @param inline         run the next step in the same worker (true), requeue it (false),
     *               or follow
 *                       {@link DurableFsm#inlineExecution()} (null)
 */
public record TransitionOptions(String rateLimit, int weight, KeyChange keyChange, String concurrencyKey,
                                Boolean inline) {

    /** What a transition does to the instance's concurrency key. */
    public enum KeyChange {
        /** the key persists (the default): the next step runs under the same key */
        KEEP,
        /** the next step runs with no key */
        RELEASE,
        /** the next step runs under a new key, admitted at its claim */
        SWITCH
    }

    private static final TransitionOptions DEFAULTS = new TransitionOptions(null, 1, KeyChange.KEEP, null, null);

    /**
     * Validates the fields.
     *
     * @param rateLimit the rate-limit key of the next step ({@code name} or {@code name:partition}), or null
     * @param weight the tokens the next step takes from its rate limit; 1 or more
     * @param keyChange what happens to the concurrency key
     * @param concurrencyKey the new key with {@link KeyChange#SWITCH}, else null
     * @param inline run the next step in the same worker (true), requeue it (false),
     *               or follow {@link DurableFsm#inlineExecution()} (null)
     */
    public TransitionOptions {
        Validation.optionalName("rateLimit", rateLimit);
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be 1 or more, got " + weight);
        }
        if (keyChange == null) {
            throw new IllegalArgumentException("keyChange must not be null; accepted: KEEP, RELEASE, SWITCH");
        }
        if ((keyChange == KeyChange.SWITCH) != (concurrencyKey != null)) {
            throw new IllegalArgumentException("concurrencyKey is set exactly when keyChange is SWITCH");
        }
        Validation.optionalName("concurrencyKey", concurrencyKey);
    }

    /** @return no rate limit, weight 1, the key kept */
    public static TransitionOptions defaults() {
        return DEFAULTS;
    }
}
