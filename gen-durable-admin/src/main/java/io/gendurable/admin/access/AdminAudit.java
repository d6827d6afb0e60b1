package io.gendurable.admin.access;

import io.gendurable.admin.requests.JsonBody;
import io.gendurable.admin.problems.AdminProblem;

import jakarta.json.Json;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The audit record of every action sent to the admin API, whatever its outcome: one log record in
 * {@value #LOGGER} at INFO whose message is {@value #PREFIX} followed by one JSON object,
 * <pre>{"method":"POST","path":"/app/api/gendurable/instances/12/cancel","user":"admin","status":200,
 *  "fields":{"reason":"customer called"}}</pre>
 * with {@code query} when the request had one, {@code user} null when there was no principal,
 * {@code problem} (the problem type) when it was refused, and {@code fields} the body's top-level
 * fields ({@code state}, {@code payload} and a sign-in's {@code password} as {@code "(given)"}), or {@code body} saying why
 * there were none. Every value is JSON-escaped, so a record is always one line: no text an
 * operator sends can start a line of its own. The record has no parameters (Open Liberty would
 * print each on a line of its own after the message).
 */
public final class AdminAudit {
    /** The logger's name. */
    static final String LOGGER = "io.gendurable.admin.audit";
    /** What each record's message starts with. */
    public static final String PREFIX = "gen-durable-admin action ";
    private static final Logger LOG = Logger.getLogger(LOGGER);
    /** The fields recorded only as present: any JSON, possibly large or personal; a sign-in's password. */
    private static final Set<String> OPAQUE = Set.of("state", "payload", "password");
    /** The longest text kept of one field. */
    private static final int MAX_TEXT = 500;

    private AdminAudit() {
    }

    /** Logs one action. */
    static void log(String method, String path, String query, String user, int status, String problemType, byte[] body) {
        if (!LOG.isLoggable(Level.INFO)) {
            return;
        }
        JsonObject r = record(method, path, query, user, status, problemType, body);
        LogRecord record = new LogRecord(Level.INFO, PREFIX + r);
        record.setLoggerName(LOGGER);
        LOG.log(record);
    }

    /**
     * @param method      the HTTP method
     * @param path        the request's path
     * @param query       the query string, or null
     * @param user        the operator, or null when unknown
     * @param status      the response's status
     * @param problemType the problem's type when the action was refused, or null
     * @param body        the request's body as sent (a password in it is never shown)
     * @return the record's JSON object
     */
    public static JsonObject record(String method, String path, String query, String user, int status, String problemType, byte[] body) {
        JsonObjectBuilder b = Json.createObjectBuilder().add("method", method).add("path", path);
        if (query != null && !query.isEmpty()) {
            b.add("query", cut(query));
        }
        if (user == null) {
            b.addNull("user");
        } else {
            b.add("user", cut(user));
        }
        b.add("status", status);
        if (problemType != null) {
            b.add("problem", problemType);
        }
        if (body == null || body.length == 0) {
            b.add("body", "none");
        } else {
            try {
                JsonObject o = JsonBody.strictObject(new String(body, StandardCharsets.UTF_8));
                JsonObjectBuilder fields = Json.createObjectBuilder();
                o.forEach((k, v) -> fields.add(cut(k), field(k, v)));
                b.add("fields", fields);
            } catch (AdminProblem e) {
                b.add("body", "not one JSON object");
            }
        }
        return b.build();
    }

    private static JsonValue field(String name, JsonValue v) {
        if (OPAQUE.contains(name)) {
            return Json.createValue("(given)");
        }
        return switch (v.getValueType()) {
            case STRING -> Json.createValue(cut(((JsonString) v).getString()));
            case NUMBER -> (JsonNumber) v;
            case TRUE, FALSE, NULL -> v;
            default -> Json.createValue("(" + v.getValueType().name().toLowerCase(java.util.Locale.ROOT) + ")");
        };
    }

    private static String cut(String s) {
        return s.length() > MAX_TEXT ? s.substring(0, MAX_TEXT) + "…" : s;
    }
}
