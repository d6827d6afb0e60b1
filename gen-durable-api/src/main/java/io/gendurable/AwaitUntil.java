package io.gendurable;

/** How long {@link GenDurable#await(long, java.time.Duration, AwaitUntil)} waits. */
public enum AwaitUntil {
    /** until done, failed or parked (awaiting a signal or children) */
    SETTLED,
    /** until done or failed, waiting through parks */
    TERMINAL
}
