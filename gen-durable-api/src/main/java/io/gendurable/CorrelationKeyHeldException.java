package io.gendurable;

/**
 * A retry would make an instance live again while another live instance holds its correlation
 * key. Nothing was written; end or cancel the holder first, or leave the retried one ended. The
 * admin REST API answers it with 409.
 */
public class CorrelationKeyHeldException extends IllegalStateException {
    /** The serialized form's version. */
    private static final long serialVersionUID = 1L;

    /** The instance that was to be retried. */
    private final long id;
    /** Its correlation key. */
    private final String correlationKey;
    /** The live holder, or -1. */
    private final long holderId;

    /**
     * @param id             the instance that was to be retried
     * @param correlationKey its correlation key
     * @param holderId       the live instance holding that key, or -1 when it ended meanwhile (ask again)
     */
    public CorrelationKeyHeldException(long id, String correlationKey, long holderId) {
        super("retry of instance " + id + " refused: its correlation key '" + correlationKey + "' is held by "
                + (holderId < 0 ? "another live instance (which ended meanwhile: ask again)" : "live instance " + holderId));
        this.id = id;
        this.correlationKey = correlationKey;
        this.holderId = holderId;
    }

    /** @return the instance that was to be retried */
    public long id() {
        return id;
    }

    /** @return the key */
    public String correlationKey() {
        return correlationKey;
    }

    /** @return the live holder's id, or -1 when it ended meanwhile */
    public long holderId() {
        return holderId;
    }
}
