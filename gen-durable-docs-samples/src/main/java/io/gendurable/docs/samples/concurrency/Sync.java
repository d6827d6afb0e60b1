package io.gendurable.docs.samples.concurrency;

/**
 * The state of an account sync.
 *
 * @param account the account
 */
public record Sync(long account) {}
