package io.gendurable.docs.samples.fsm;

/** The application's own mail service. */
public interface Mailer {
    /**
     * Sends a mail once per idempotency key.
     *
     * @param to             the address
     * @param subject        the subject
     * @param idempotencyKey stable across re-runs
     */
    void send(String to, String subject, String idempotencyKey);
}
