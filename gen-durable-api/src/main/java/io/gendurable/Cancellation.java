package io.gendurable;

/**
 * What {@link DurableOperations#cancel} did.
 *
 * @param instance          the instance, as committed: {@link Status#CANCELLED}; or still
 *                          {@link Status#EXECUTING} when a step was running for it ({@link #pending()})
 * @param childrenCancelled how many of its live descendants were cancelled with it (0 unless asked)
 */
public record Cancellation(InstanceSnapshot instance, int childrenCancelled) {
    /**
     * @return whether the cancel is pending: a step was running for the instance, so its thread was
     * interrupted and the instance keeps its concurrency key and gate slot until the step's code
     * returns; then its outcome is discarded and it ends {@link Status#CANCELLED} ({@code await}
     * answers {@code Cancelled} from then on)
     */
    public boolean pending() {
        return instance.status() == Status.EXECUTING;
    }
}
