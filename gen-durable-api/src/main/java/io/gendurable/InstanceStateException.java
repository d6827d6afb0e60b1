package io.gendurable;

import java.util.Set;

/**
 * An operation does not apply to an instance in its current status: cancelling a finished one,
 * retrying a running one, rescheduling one that is not runnable. Nothing was written. The admin
 * REST API answers it with 409.
 */
public class InstanceStateException extends IllegalStateException {
    /** The serialized form's version. */
    private static final long serialVersionUID = 1L;

    /** The instance. */
    private final long id;
    /** Its status when the operation ran. */
    private final Status status;
    private final transient Set<Status> accepted;

    /**
     * @param operation what was asked (e.g. {@code cancel})
     * @param id        the instance
     * @param status    its status when the operation ran
     * @param accepted  the statuses the operation applies to
     */
    public InstanceStateException(String operation, long id, Status status, Set<Status> accepted) {
        super(operation + " of instance " + id + " refused: it is " + status + "; " + operation
                + " applies to " + accepted);
        this.id = id;
        this.status = status;
        this.accepted = Set.copyOf(accepted);
    }

    /** @return the instance */
    public long id() {
        return id;
    }

    /** @return its status when the operation ran */
    public Status status() {
        return status;
    }

    /** @return the statuses the operation applies to */
    public Set<Status> accepted() {
        return accepted;
    }
}
