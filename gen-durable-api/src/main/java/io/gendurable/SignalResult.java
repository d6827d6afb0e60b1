package io.gendurable;

/** What became of a signal. */
public enum SignalResult {
    /** stored in the target's inbox (and the target woken if it awaited that name) */
    DELIVERED,
    /** the target already holds a signal with this dedup key: nothing changed */
    DUPLICATE,
    /** no live instance matches the target (unknown, or already done or failed) */
    NO_TARGET
}
