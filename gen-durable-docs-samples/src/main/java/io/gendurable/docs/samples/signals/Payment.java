package io.gendurable.docs.samples.signals;

/**
 * A signal payload.
 *
 * @param pspRef the PSP's reference
 * @param cents  the amount
 */
public record Payment(String pspRef, long cents) {}
