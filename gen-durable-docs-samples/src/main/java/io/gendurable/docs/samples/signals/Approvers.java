package io.gendurable.docs.samples.signals;

/** The application's own notification service. */
public interface Approvers {
    /**
     * Asks the approvers of a document.
     *
     * @param docId          the document
     * @param idempotencyKey stable across re-runs
     */
    void ask(String docId, String idempotencyKey);
}
