package io.gendurable.docs.samples.fsm;

/** The application's own exception. */
public class CardDeclinedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message why */
    public CardDeclinedException(String message) {
        super(message);
    }
}
