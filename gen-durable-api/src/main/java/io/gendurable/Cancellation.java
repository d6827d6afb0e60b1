package io.gendurable;

/**
 * What {@link DurableOperations#cancel} did.
 *
 * @param instance          the cancelled instance, as committed ({@link Status#CANCELLED})
 * @param childrenCancelled how many of its live descendants were cancelled with it (0 unless asked)
 */
public record Cancellation(InstanceSnapshot instance, int childrenCancelled) {
}
