package io.gendurable.impl.db;

/**
 * The commit of one of the engine's transactions failed, so whether it was applied is unknown:
 * the connection can die after the server committed and before the answer arrived. Retrying the
 * same writes is only safe when they cannot apply twice; see {@code Flusher}.
 */
public final class UnknownCommitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param cause what the commit threw */
    public UnknownCommitException(RuntimeException cause) {
        super("the commit failed and may or may not have been applied: " + cause.getMessage(), cause);
    }
}
