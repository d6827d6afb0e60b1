package io.gendurable.admin.requests;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;
import java.util.Set;

/**
 * The request bodies of the admin API, as the OpenAPI document describes them. Every {@code POST}
 * and {@code PUT} carries one, as {@code Content-Type: application/json}: exactly one JSON object,
 * {@code {}} when there is nothing to say. The resources read
 * bodies field by field ({@link JsonBody}) so that a wrong field is answered with a 400 naming it;
 * these records are its documentation, and their field names are the accepted ones.
 */
public final class Requests {
    private Requests() {
    }

    /**
     * The body of an action that takes no field ({@code run-now}, {@code bulk/retry},
     * {@code bulk/purge}, a schedule's {@code trigger}): {@code {}}.
     */
    @Schema(name = "EmptyRequest", description = "{}: the action takes no field")
    public record Empty() {
    }

    /**
     * {@code POST …/session}: the console's sign-in.
     *
     * @param user     the user's name in the server's registry
     * @param password the user's password (never logged: the audit record shows it as {@code "(given)"})
     */
    @Schema(name = "SignInRequest")
    public record SignIn(String user, String password) {
        /** The body\'s accepted fields: any other is refused with a problem naming it. */
        public static final Set<String> FIELDS = Set.of("user", "password");
    }

    /**
     * {@code POST …/instances/bulk/cancel}; {@code {}} for the default reason.
     *
     * @param reason why (kept as each instance's last error); default "cancelled by an operator"
     */
    @Schema(name = "BulkCancelRequest")
    public record BulkCancel(String reason) {
        /** The body\'s accepted fields: any other is refused with a problem naming it. */
        public static final Set<String> FIELDS = Set.of("reason");
    }

    /**
     * {@code POST …/instances/{id}/cancel}; {@code {}} for the defaults.
     *
     * @param reason          why (kept as the instance's last error); default "cancelled by an operator"
     * @param withDescendants also cancel its live children, their children and so on; default false
     */
    @Schema(name = "CancelRequest")
    public record Cancel(String reason, Boolean withDescendants) {
        /** The body\'s accepted fields: any other is refused with a problem naming it. */
        public static final Set<String> FIELDS = Set.of("reason", "withDescendants");
    }

    /**
     * {@code POST …/instances/{id}/retry}; {@code {}} for the defaults.
     *
     * @param fromStep the step to run from; default the step it ended in
     * @param state    a replacement state (any JSON the FSM's state type reads); default its state
     */
    @Schema(name = "RetryRequest")
    public record Retry(String fromStep, @Schema(description = "any JSON that reads as the FSM's state type") Object state) {
        /** The body\'s accepted fields: any other is refused with a problem naming it. */
        public static final Set<String> FIELDS = Set.of("fromStep", "state");
    }

    /**
     * {@code POST …/instances/{id}/reschedule}.
     *
     * @param at when it becomes due, ISO-8601 with an offset
     */
    @Schema(name = "RescheduleRequest", requiredProperties = "at")
    public record Reschedule(Instant at) {
        /** The body\'s accepted fields: any other is refused with a problem naming it. */
        public static final Set<String> FIELDS = Set.of("at");
    }

    /**
     * {@code POST …/instances/{id}/priority}.
     *
     * @param priority 0 or more; 0 is picked first
     */
    @Schema(name = "PriorityRequest", requiredProperties = "priority")
    public record Priority(int priority) {
        /** The body\'s accepted fields: any other is refused with a problem naming it. */
        public static final Set<String> FIELDS = Set.of("priority");
    }

    /**
     * {@code PUT …/queues/{queue}/pause} and {@code PUT …/schedules/{name}/pause}; {@code {}} for no reason.
     *
     * @param reason why, or nothing
     */
    @Schema(name = "PauseRequest")
    public record Pause(String reason) {
        /** The body\'s accepted fields: any other is refused with a problem naming it. */
        public static final Set<String> FIELDS = Set.of("reason");
    }

    /**
     * {@code POST …/signals}: exactly one of {@code id} and {@code correlationKey}.
     *
     * @param id             the target instance's id
     * @param correlationKey the correlation key of the target (its live holder)
     * @param name           the signal's name
     * @param payload        the payload, any JSON; default null
     * @param dedupKey       at most one delivery per target and dedup key
     */
    @Schema(name = "SignalRequest", requiredProperties = "name")
    public record Signal(Long id, String correlationKey, String name,
                         @Schema(description = "any JSON") Object payload, String dedupKey) {
        /** The body\'s accepted fields: any other is refused with a problem naming it. */
        public static final Set<String> FIELDS = Set.of("id", "correlationKey", "name", "payload", "dedupKey");
    }
}
