package io.gendurable.docs.samples.signals;

/**
 * A signal payload.
 *
 * @param user who approved
 */
public record Vote(String user) {}
