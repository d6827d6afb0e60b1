package io.gendurable.admin.problems;

import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * An error of the admin API on its way to the client: {@link ProblemTranslator} turns the
 * engine's exceptions into one, {@link ProblemMapper} writes it as {@code application/problem+json}.
 * Only the admin resources throw it, so the mapper never changes how the application's own
 * resources answer.
 */
public final class AdminProblem extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** the problem type URI */
    private final String type;
    /** its summary */
    private final String title;
    /** the HTTP status */
    private final int status;
    private final transient Map<String, Object> extensions;

    /**
     * @param type       the problem type URI
     * @param title      its summary
     * @param status     the HTTP status
     * @param detail     what happened
     * @param extensions extra members (strings, numbers, booleans or collections of strings), in order
     * @param cause      the exception it stands for, or null
     */
    public AdminProblem(String type, String title, int status, String detail, Map<String, Object> extensions,
                        Throwable cause) {
        super(detail, cause);
        this.type = Objects.requireNonNull(type, "type");
        this.title = Objects.requireNonNull(title, "title");
        this.status = status;
        this.extensions = extensions == null ? Map.of() : extensions;
    }

    /**
     * @param detail what is wrong, naming the field
     * @return a 400 invalid-input problem
     */
    public static AdminProblem invalidInput(String detail) {
        return new AdminProblem(Problem.TYPE_INVALID_INPUT, "Invalid input", 400, detail, null, null);
    }

    /**
     * A problem whose detail is fixed by its status, for an answer whose own text must not reach
     * the client (an exception's message, a runtime's error page): 404, 405, 415, another 4xx, or
     * a 5xx with a new {@code problemId}, which the caller logs with the cause.
     *
     * @param status the HTTP status
     * @param cause  what it stands for, or null
     * @return the problem
     */
    public static AdminProblem forStatus(int status, Throwable cause) {
        return switch (status) {
            case 404 -> new AdminProblem(Problem.TYPE_NOT_FOUND, "Not found", 404,
                    "no admin resource is at this path", null, cause);
            case 405 -> new AdminProblem(Problem.TYPE_METHOD_NOT_ALLOWED, "Method not allowed", 405,
                    "this path does not take this method", null, cause);
            case 415 -> new AdminProblem(Problem.TYPE_UNSUPPORTED_MEDIA_TYPE, "Unsupported media type", 415,
                    "an action's body must be sent as Content-Type: application/json", null, cause);
            default -> {
                if (status >= 500) {
                    String id = UUID.randomUUID().toString();
                    yield new AdminProblem(Problem.TYPE_INTERNAL_ERROR, "Internal error", status,
                            "the server could not complete the request; its log has the cause under problem id " + id,
                            Map.of("problemId", id), cause);
                }
                yield new AdminProblem(Problem.TYPE_REFUSED, "Request refused", status, "the server refused the request "
                        + "(HTTP " + status + ")", null, cause);
            }
        };
    }

    /** @return the problem id of a 5xx problem (its log record names it), or null */
    public String problemId() {
        Object id = extensions.get("problemId");
        return id == null ? null : id.toString();
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }

    /** @return the problem type URI */
    public String type() {
        return type;
    }

    /** @return the extension members */
    public Map<String, Object> extensions() {
        return extensions;
    }

    /**
     * @param instance the request's path, or null
     * @return the problem as a JSON object: type, title, status, detail, instance, then the extensions
     */
    public String toJson(String instance) {
        JsonObjectBuilder b = Json.createObjectBuilder()
                .add("type", type)
                .add("title", title)
                .add("status", status)
                .add("detail", getMessage() == null ? title : getMessage());
        if (instance != null) {
            b.add("instance", instance);
        }
        extensions.forEach((k, v) -> {
            if (v instanceof Number n) {
                b.add(k, n.longValue());
            } else if (v instanceof Boolean bool) {
                b.add(k, bool);
            } else if (v instanceof Iterable<?> items) {
                var a = Json.createArrayBuilder();
                items.forEach(i -> a.add(String.valueOf(i)));
                b.add(k, a);
            } else if (v != null) {
                b.add(k, String.valueOf(v));
            }
        });
        return b.build().toString();
    }
}
