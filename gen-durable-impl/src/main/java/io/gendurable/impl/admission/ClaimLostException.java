package io.gendurable.impl.admission;

/**
 * A write for a claim found that the claim is no longer the row's current one (its fencing token
 * changed: the lease expired and the row was reaped, maybe claimed again) or that the row is
 * locked by another transaction. The write was rolled back; nothing of it was committed.
 */
final class ClaimLostException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    ClaimLostException(String message) {
        super(message);
    }
}
