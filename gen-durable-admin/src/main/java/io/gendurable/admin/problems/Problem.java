package io.gendurable.admin.problems;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * An error answer of the admin API, {@code application/problem+json} (RFC 9457). Problems about
 * one instance add {@code id}; an instance in the wrong status adds {@code currentStatus} and
 * {@code acceptedStatuses}; a held correlation key adds {@code correlationKey} and
 * {@code holderId}.
 *
 * @param type     a URI naming the kind of problem, one of the {@code TYPE_*} constants
 * @param title    a short summary of that kind
 * @param status   the HTTP status
 * @param detail   what happened this time, naming the field for bad input
 * @param instance the request's path
 */
@Schema(name = "Problem", description = "RFC 9457 problem details (application/problem+json)")
public record Problem(String type, String title, int status, String detail, String instance) {
    /** The media type of a problem. */
    public static final String MEDIA_TYPE = "application/problem+json";

    /** 400: a parameter, a path segment or a body field is not accepted; {@code detail} names it. */
    public static final String TYPE_INVALID_INPUT = "urn:gendurable:problem:invalid-input";
    /** 404: no instance has that id. */
    public static final String TYPE_NO_SUCH_INSTANCE = "urn:gendurable:problem:no-such-instance";
    /** 409: the action does not apply to the instance's current status. */
    public static final String TYPE_INSTANCE_STATE = "urn:gendurable:problem:instance-state";
    /** 409: a retry cannot take the correlation key again: another live instance holds it. */
    public static final String TYPE_CORRELATION_KEY_HELD = "urn:gendurable:problem:correlation-key-held";
    /** 404: no schedule has that name. */
    public static final String TYPE_NO_SUCH_SCHEDULE = "urn:gendurable:problem:no-such-schedule";
    /**
     * 403: an action without {@code X-Requested-With} or this server's {@code Origin}, or with
     * another site's {@code Origin}: what a cross-site page would send.
     */
    public static final String TYPE_CROSS_SITE = "urn:gendurable:problem:cross-site-request";
    /** 415: an action's body not sent as {@code Content-Type: application/json}. */
    public static final String TYPE_UNSUPPORTED_MEDIA_TYPE = "urn:gendurable:problem:unsupported-media-type";
    /**
     * 500: something the server did not expect; {@code detail} is fixed and {@code problemId}
     * names the log record that holds the cause.
     */
    public static final String TYPE_INTERNAL_ERROR = "urn:gendurable:problem:internal-error";
    /** 404: no admin resource at that path (or no console file of that name). */
    public static final String TYPE_NOT_FOUND = "urn:gendurable:problem:not-found";
    /** 405: the path does not take that method. */
    public static final String TYPE_METHOD_NOT_ALLOWED = "urn:gendurable:problem:method-not-allowed";
    /** Any other refusal by the JAX-RS runtime or the server (406, 401, 403…); {@code status} tells which. */
    public static final String TYPE_REFUSED = "urn:gendurable:problem:request-refused";
    /** 503: the engine is stopping or stopped (undeploy, shutdown). */
    public static final String TYPE_ENGINE_STOPPED = "urn:gendurable:problem:engine-stopped";
}
