package io.gendurable.admin.problems;

import io.gendurable.CorrelationKeyHeldException;
import io.gendurable.EngineStoppedException;
import io.gendurable.InstanceStateException;
import io.gendurable.NoSuchInstanceException;
import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.WebApplicationException;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Turns what the engine throws at an admin resource into an {@link AdminProblem}:
 * <ul>
 *   <li>{@link IllegalArgumentException} (bad input, naming the field) → 400
 *       {@value Problem#TYPE_INVALID_INPUT}; one with a cause, or a {@link JsonbException} (a state
 *       or payload JSON-B cannot read or write, whose message names the application's classes),
 *       the same with a fixed detail and a {@code problemId} naming the log record of the cause;</li>
 *   <li>{@link NoSuchInstanceException} → 404 {@value Problem#TYPE_NO_SUCH_INSTANCE};</li>
 *   <li>{@link InstanceStateException} → 409 {@value Problem#TYPE_INSTANCE_STATE};</li>
 *   <li>{@link CorrelationKeyHeldException} → 409 {@value Problem#TYPE_CORRELATION_KEY_HELD};</li>
 *   <li>{@link EngineStoppedException} → 503 {@value Problem#TYPE_ENGINE_STOPPED}.</li>
 * </ul>
 * Anything else becomes a problem whose detail is fixed (nothing of its message reaches the
 * client, not even in a header): the status of a {@link WebApplicationException}, else 500
 * {@value Problem#TYPE_INTERNAL_ERROR} with a {@code problemId} that names the log record
 * ({@code io.gendurable.admin}, SEVERE) holding the exception. The translation happens here, not in
 * application-wide exception mappers, so that the application's own resources keep answering as
 * they did. Enabled for the whole application by its {@code @Priority}.
 */
@ProblemTranslation
@Interceptor
@Priority(Interceptor.Priority.LIBRARY_BEFORE + 500)
public class ProblemTranslator {
    private static final Logger LOG = Logger.getLogger("io.gendurable.admin");

    /**
     * @param ic the resource method's invocation
     * @return its answer
     * @throws Exception what it throws, translated when known
     */
    @AroundInvoke
    public Object translate(InvocationContext ic) throws Exception {
        try {
            return ic.proceed();
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    /**
     * @param e an exception thrown by an admin resource
     * @return the problem it stands for
     */
    static RuntimeException translate(RuntimeException e) {
        if (e instanceof AdminProblem) {
            return e;
        }
        if (e instanceof NoSuchInstanceException n) {
            return new AdminProblem(Problem.TYPE_NO_SUCH_INSTANCE, "No such instance", 404, n.getMessage(),
                    Map.of("id", n.id()), e);
        }
        if (e instanceof CorrelationKeyHeldException c) {
            Map<String, Object> ext = new LinkedHashMap<>();
            ext.put("id", c.id());
            ext.put("correlationKey", c.correlationKey());
            ext.put("holderId", c.holderId());
            return new AdminProblem(Problem.TYPE_CORRELATION_KEY_HELD, "Correlation key held by another live instance",
                    409, c.getMessage(), ext, e);
        }
        if (e instanceof InstanceStateException s) {
            Map<String, Object> ext = new LinkedHashMap<>();
            ext.put("id", s.id());
            ext.put("currentStatus", s.status().name());
            ext.put("acceptedStatuses", s.accepted().stream().map(Enum::name).sorted().collect(Collectors.toList()));
            return new AdminProblem(Problem.TYPE_INSTANCE_STATE, "Not in a status this action accepts", 409,
                    s.getMessage(), ext, e);
        }
        if (e instanceof EngineStoppedException) {
            return new AdminProblem(Problem.TYPE_ENGINE_STOPPED, "Engine stopped", 503, e.getMessage(), null, e);
        }
        if (e instanceof JsonbException || (e instanceof IllegalArgumentException && e.getCause() != null)) {
            // a value JSON-B could not read or write: its message names the application's classes
            // (the FSM's state type, a payload's) and quotes the value; the log keeps it
            String id = UUID.randomUUID().toString();
            LOG.log(Level.INFO, "gen-durable-admin: problem " + id + ": a value was refused", e);
            return new AdminProblem(Problem.TYPE_INVALID_INPUT, "Invalid input", 400, "a value in the body does not read "
                    + "as the type it must have (for a retry's state: the FSM's state type); the server's log has why under "
                    + "problem id " + id, Map.of("problemId", id), e);
        }
        if (e instanceof IllegalArgumentException) {
            return new AdminProblem(Problem.TYPE_INVALID_INPUT, "Invalid input", 400, e.getMessage(), null, e);
        }
        AdminProblem p = AdminProblem.forStatus(e instanceof WebApplicationException w && w.getResponse() != null
                ? w.getResponse().getStatus() : 500, e);
        if (p.status() >= 500) {
            LOG.log(Level.SEVERE, "gen-durable-admin: problem " + p.problemId() + ": an admin resource failed", e);
        }
        return p;
    }
}
