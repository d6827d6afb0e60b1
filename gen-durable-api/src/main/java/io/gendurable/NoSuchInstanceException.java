package io.gendurable;

/**
 * An operation named an instance that does not exist: never inserted, or deleted by the GC after
 * its retention. The admin REST API answers it with 404.
 */
public class NoSuchInstanceException extends RuntimeException {
    /** The serialized form's version. */
    private static final long serialVersionUID = 1L;

    /** The id asked for. */
    private final long id;

    /** @param id the id asked for */
    public NoSuchInstanceException(long id) {
        super("no instance " + id + " (never inserted, or deleted by the GC after its retention)");
        this.id = id;
    }

    /** @return the id asked for */
    public long id() {
        return id;
    }
}
