package io.gendurable.sample;

/** The payment provider refused a charge because it is down (see {@link PaymentProvider}). */
public class PaymentProviderUnavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what was refused */
    public PaymentProviderUnavailable(String message) {
        super(message);
    }
}
