package io.gendurable.admin.access;

import io.gendurable.admin.requests.JsonBody;
import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.problems.AdminProblem;
import io.gendurable.admin.requests.Input;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The admin API's defence against cross-site request forgery: a request that changes something
 * (any method but {@code GET}, {@code HEAD} and {@code OPTIONS}) is accepted only when a page of
 * another site could not have sent it from a browser holding an operator's credentials (cached
 * Basic credentials, a single-sign-on cookie):
 * <ul>
 *   <li>it carries {@value #REQUESTED_WITH} (any value), a header no cross-site request can carry
 *       without the server's CORS consent, or an {@code Origin} equal to the server's own;</li>
 *   <li>an {@code Origin} it carries names the server itself (a cross-site page's browser always
 *       sends its own), and a {@code Sec-Fetch-Site} it carries is {@code same-origin} or
 *       {@code none};</li>
 *   <li>a {@code POST} or {@code PUT} declares {@code Content-Type: application/json} (optionally
 *       with {@code charset=utf-8}), a type an HTML form cannot send; its body must then be one JSON
 *       object ({@link JsonBody#strictObject}).</li>
 * </ul>
 * The server's own origin is the request's scheme and {@code Host} (HTTP/2: its authority), or {@code X-Forwarded-Proto}
 * and {@code X-Forwarded-Host} when a reverse proxy sets them (a cross-site page cannot set them
 * either).
 */
final class CrossSiteCheck {
    /** The header every scripted client and the console send with an action. */
    static final String REQUESTED_WITH = "X-Requested-With";
    /** The methods that change nothing, which need none of this. */
    private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS");

    private CrossSiteCheck() {
    }

    /**
     * @param method        the request's method
     * @param header        the request's headers, by name (case-insensitive), null when absent
     * @param request       the request's URI as the server rebuilt it (its scheme; its host and port
     *                      when no Host header is seen, as in HTTP/2, whose :authority takes its place)
     * @return the problem to answer instead of running the request, or empty to run it
     */
    static Optional<AdminProblem> refusal(String method, Function<String, String> header, URI request) {
        if (SAFE.contains(method.toUpperCase(Locale.ROOT))) {
            return Optional.empty();
        }
        String fetchSite = header.apply("Sec-Fetch-Site");
        if (fetchSite != null && !fetchSite.equalsIgnoreCase("same-origin") && !fetchSite.equalsIgnoreCase("none")) {
            return Optional.of(crossSite("the browser marked it Sec-Fetch-Site: " + Input.shown(fetchSite)));
        }
        String origin = header.apply("Origin");
        boolean sameOrigin = false;
        if (origin != null) {
            String own = ownOrigin(header, request);
            String theirs = normalized(origin.strip());
            if (own == null || !own.equals(theirs)) {
                return Optional.of(crossSite("its Origin is not this server's"));
            }
            sameOrigin = true;
        }
        String requestedWith = header.apply(REQUESTED_WITH);
        if (!sameOrigin && (requestedWith == null || requestedWith.isBlank())) {
            return Optional.of(crossSite("it carries neither " + REQUESTED_WITH + " nor this server's Origin"));
        }
        String m = method.toUpperCase(Locale.ROOT);
        if ((m.equals("POST") || m.equals("PUT") || m.equals("PATCH")) && !json(header.apply("Content-Type"))) {
            return Optional.of(new AdminProblem(Problem.TYPE_UNSUPPORTED_MEDIA_TYPE, "Unsupported media type", 415,
                    "an action's body must be sent as Content-Type: application/json (one JSON object, {} when there is "
                            + "nothing to say)", null, null));
        }
        return Optional.empty();
    }

    private static AdminProblem crossSite(String why) {
        return new AdminProblem(Problem.TYPE_CROSS_SITE, "Cross-site request refused", 403,
                "an action needs the header " + REQUESTED_WITH + " (any value) or an Origin equal to this server's; "
                        + "this request was refused because " + why, null, null);
    }

    /** @return whether the content type is application/json, with at most a charset of UTF-8 */
    static boolean json(String contentType) {
        if (contentType == null) {
            return false;
        }
        String[] parts = contentType.split(";");
        if (!parts[0].strip().equalsIgnoreCase("application/json")) {
            return false;
        }
        for (int i = 1; i < parts.length; i++) {
            String[] p = parts[i].split("=", 2);
            if (p.length != 2 || !p[0].strip().equalsIgnoreCase("charset")
                    || !p[1].strip().replace("\"", "").equalsIgnoreCase("utf-8")) {
                return false;
            }
        }
        return true;
    }

    /** @return the server's own origin as the client addressed it, normalized; null when unknown */
    private static String ownOrigin(Function<String, String> header, URI request) {
        String scheme = first(header.apply("X-Forwarded-Proto"));
        String host = first(header.apply("X-Forwarded-Host"));
        if (scheme == null) {
            scheme = request.getScheme();
        }
        if (host == null) {
            host = header.apply("Host");
        }
        if ((host == null || host.isBlank()) && request.getHost() != null) {
            host = request.getRawAuthority();
        }
        if (scheme == null || host == null || host.isBlank()) {
            return null;
        }
        return normalized(scheme.strip() + "://" + host.strip());
    }

    private static String first(String listed) {
        if (listed == null) {
            return null;
        }
        String f = listed.split(",", 2)[0].strip();
        return f.isEmpty() ? null : f;
    }

    /** @return scheme://host:port in lower case with the default port spelled out, or null when it is no origin */
    static String normalized(String origin) {
        try {
            URI u = new URI(origin);
            String scheme = u.getScheme();
            String host = u.getHost();
            if (scheme == null || host == null || (u.getRawPath() != null && !u.getRawPath().isEmpty())
                    || u.getRawQuery() != null || u.getRawFragment() != null || u.getRawUserInfo() != null) {
                return null;
            }
            scheme = scheme.toLowerCase(Locale.ROOT);
            int port = u.getPort();
            if (port == -1) {
                port = switch (scheme) {
                    case "http" -> 80;
                    case "https" -> 443;
                    default -> -1;
                };
            }
            return port == -1 ? null : scheme + "://" + host.toLowerCase(Locale.ROOT) + ":" + port;
        } catch (URISyntaxException e) {
            return null;
        }
    }
}
