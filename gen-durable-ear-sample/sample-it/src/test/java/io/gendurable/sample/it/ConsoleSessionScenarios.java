package io.gendurable.sample.it;

import jakarta.json.JsonObject;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console's sign-in through a session of the server ({@code POST/DELETE gendurable/session}):
 * over HTTP as a client sends it, and in headless Chromium, where nothing a script of the page can
 * read holds the password or a Basic header. Client side only.
 */
final class ConsoleSessionScenarios {
    static final String SESSION = AdminHttp.ADMIN + "/session";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private ConsoleSessionScenarios() {
    }

    /**
     * The sign-in is an action like any other, answers a wrong password with the console's 401,
     * keeps the user's roles in the server's session (a viewer reads and may not act; the admin's
     * action records the admin as who acted), gives a new session id at each sign-in, and ends on
     * sign-out, after which the cookie is refused. Over HTTPS it leaves no single-sign-on cookie.
     */
    static void theSessionSignInIsCheckedLikeTheApiAndEndsOnSignOut() throws Exception {
        String http = "http://localhost:" + System.getProperty("it.http.port", "9081");
        String https = "https://localhost:" + System.getProperty("it.https.port", "9444");
        String admin = signInBody(AdminHttp.ADMIN_USER);
        // no sign-in from a page of another site: the header, and a JSON body
        AdminHttp.problem(send(HTTP, http, "POST", SESSION, null, admin, "Content-Type", "application/json"),
                403, "cross-site-request", "X-Requested-With");
        AdminHttp.problem(send(HTTP, http, "POST", SESSION, null, admin, "X-Requested-With", "it",
                "Content-Type", "text/plain"), 415, "unsupported-media-type", "application/json");
        AdminHttp.problem(send(HTTP, http, "POST", SESSION, null, "{\"user\":\"admin\"}", "X-Requested-With", "it",
                "Content-Type", "application/json"), 400, "invalid-input", "password");

        HttpResponse<String> wrong = signIn(HTTP, http, "admin", "not-the-password", null);
        AdminHttp.problem(wrong, 401, "unauthenticated", "wrong user name or password");
        assertFalse(wrong.headers().allValues("WWW-Authenticate").stream().anyMatch(v -> v.startsWith("Basic")),
                () -> "no Basic challenge (a browser would prompt): " + wrong.headers().map());
        assertEquals(null, cookie(wrong, "JSESSIONID"), () -> "no session for a wrong password: " + wrong.headers().map());

        // a viewer: reads, may not act
        HttpResponse<String> viewerIn = signIn(HTTP, http, AdminHttp.VIEWER_USER, AdminHttp.VIEWER_USER + "-sample-only", null);
        JsonObject viewer = AdminHttp.ok(viewerIn);
        assertEquals("viewer", viewer.getString("user"));
        assertFalse(viewer.getBoolean("admin"));
        String viewerSession = cookie(viewerIn, "JSESSIONID");
        assertNotNull(viewerSession, () -> "a session cookie: " + viewerIn.headers().map());
        assertSessionCookieAttributes(viewerIn);
        assertEquals(200, send(HTTP, http, "GET", AdminHttp.ADMIN + "/summary", viewerSession, null).statusCode());
        assertEquals("viewer", AdminHttp.ok(send(HTTP, http, "GET", AdminHttp.ADMIN + "/me", viewerSession, null)).getString("user"));
        HttpResponse<String> refused = send(HTTP, http, "PUT", AdminHttp.ADMIN + "/queues/default/pause", viewerSession, "{}",
                "X-Requested-With", "it", "Content-Type", "application/json");
        assertEquals(403, refused.statusCode(), refused::body);

        // the admin signs in from the same browser: a new session id (the viewer's is worth nothing now)
        HttpResponse<String> adminIn = signIn(HTTP, http, AdminHttp.ADMIN_USER, AdminHttp.ADMIN_USER + "-sample-only", viewerSession);
        assertTrue(AdminHttp.ok(adminIn).getBoolean("admin"));
        String adminSession = cookie(adminIn, "JSESSIONID");
        assertNotNull(adminSession, () -> "a session cookie: " + adminIn.headers().map());
        assertNotEquals(viewerSession, adminSession, "the sign-in changes the session id");
        assertEquals(401, send(HTTP, http, "GET", AdminHttp.ADMIN + "/me", viewerSession, null).statusCode(),
                "the id before the sign-in is refused");
        try {
            JsonObject paused = AdminHttp.ok(send(HTTP, http, "PUT", AdminHttp.ADMIN + "/queues/default/pause", adminSession,
                    "{\"reason\":\"session\"}", "X-Requested-With", "it", "Content-Type", "application/json"));
            assertEquals("admin", paused.getString("pausedBy"), "the engine records the session's user: " + paused);
        } finally {
            AdminHttp.ok(send(HTTP, http, "DELETE", AdminHttp.ADMIN + "/queues/default/pause", adminSession, null,
                    "X-Requested-With", "it"));
        }

        // sign-out: refused without the header, then the session ends and its cookie is refused
        AdminHttp.problem(send(HTTP, http, "DELETE", SESSION, adminSession, null), 403, "cross-site-request", "X-Requested-With");
        assertEquals(200, send(HTTP, http, "GET", AdminHttp.ADMIN + "/me", adminSession, null).statusCode());
        assertEquals(204, send(HTTP, http, "DELETE", SESSION, adminSession, null, "X-Requested-With", "it").statusCode());
        assertReplayRefused(http, adminSession);

        // over HTTPS: the cookie is Secure, and the container's sign-in left no single-sign-on cookie
        HttpClient tls = CrossSiteScenarios.insecureHttps();
        HttpResponse<String> overTls = signIn(tls, https, AdminHttp.ADMIN_USER, AdminHttp.ADMIN_USER + "-sample-only", null);
        AdminHttp.ok(overTls);
        assertSessionCookieAttributes(overTls);
        assertFalse(overTls.headers().allValues("Set-Cookie").stream().anyMatch(c -> c.startsWith("LtpaToken2=")
                        && !c.startsWith("LtpaToken2=;") && !c.startsWith("LtpaToken2=\"\"") && !c.toLowerCase(Locale.ROOT).contains("max-age=0")),
                () -> "no single-sign-on cookie is left: " + overTls.headers().allValues("Set-Cookie"));
        String tlsSession = cookie(overTls, "JSESSIONID");
        assertEquals(204, send(tls, https, "DELETE", SESSION, tlsSession, null, "X-Requested-With", "it").statusCode());
    }

    /**
     * After the console's sign-in in a real browser, nothing a script of the page can read
     * (sessionStorage, localStorage, document.cookie) holds the password or a Basic header; the
     * browser holds the session's cookie (HttpOnly, SameSite=Strict, Secure) and no single-sign-on
     * cookie. The console still works: its views load and an admin's action runs, recording the
     * admin. Sign-out ends the session: the cookie, replayed, is refused. Before, the console kept
     * {@code Basic base64(user:password)} in sessionStorage.
     */
    static void theConsoleKeepsNoPasswordWhereAScriptCanReadIt() throws Exception {
        String http = "http://localhost:" + System.getProperty("it.http.port", "9081");
        String password = AdminHttp.ADMIN_USER + "-sample-only";
        String basic = Base64.getEncoder().encodeToString((AdminHttp.ADMIN_USER + ":" + password).getBytes(StandardCharsets.UTF_8));
        try (ConsoleBrowser b = ConsoleBrowser.open()) {
            b.signIn(AdminHttp.ADMIN_USER);
            b.go("#/queues");
            b.find("#queue-default");
            String readable = (String) b.script("const out = {cookie: document.cookie};"
                    + "for (const [name, s] of [['session', sessionStorage], ['local', localStorage]])"
                    + "  for (let i = 0; i < s.length; i++) out[name + ':' + s.key(i)] = s.getItem(s.key(i));"
                    + "return JSON.stringify(out);");
            assertFalse(readable.contains(password), () -> "the password, readable by scripts: " + readable);
            assertFalse(readable.contains(basic), () -> "the Basic credentials, readable by scripts: " + readable);
            assertFalse(readable.toLowerCase(Locale.ROOT).contains("basic "), () -> "a Basic header, readable by scripts: " + readable);

            Map<String, Object> session = browserCookie(b, "JSESSIONID");
            assertNotNull(session, "the browser holds the session's cookie");
            assertEquals(Boolean.TRUE, session.get("httpOnly"), session::toString);
            assertEquals(Boolean.TRUE, session.get("secure"), session::toString);
            assertEquals("Strict", session.get("sameSite"), session::toString);
            assertEquals(null, browserCookie(b, "LtpaToken2"), "no single-sign-on cookie");
            String value = (String) session.get("value");
            assertFalse(readable.contains(value), "the session's cookie is not readable by scripts either");

            // the console works: an admin's action, recorded as the admin's
            b.click("button[aria-label='Pause queue default']");
            b.find("#pause-reason").sendKeys("console session");
            b.click("#dialog-confirm");
            b.find("#queue-default .badge.paused");
            try {
                String paused = AdminHttp.get(AdminHttp.ADMIN + "/queues/paused", AdminHttp.VIEWER_USER).body();
                assertTrue(paused.contains("\"pausedBy\":\"admin\""), paused);
                b.click("button[aria-label='Resume queue default']");
                b.click("#dialog-confirm");
                b.until(d -> d.findElements(org.openqa.selenium.By.cssSelector("#queue-default .badge.paused")).isEmpty());
            } finally {
                AdminHttp.call("DELETE", AdminHttp.ADMIN + "/queues/default/pause", AdminHttp.ADMIN_USER, null);
            }
            b.go("#/search?fsm=order");
            b.until(d -> !d.findElements(org.openqa.selenium.By.cssSelector("#results-table tbody tr")).isEmpty());

            // the cookie alone signs a client in (so that its refusal below is the sign-out's doing)
            assertEquals("admin", AdminHttp.ok(send(HTTP, http, "GET", AdminHttp.ADMIN + "/me", value, null)).getString("user"));
            b.signOut();
            assertReplayRefused(http, value);
            b.assertNoConsoleErrors();
        }
    }

    /** A session cookie after its sign-out: every call that needs a role is refused, and me says no one. */
    private static void assertReplayRefused(String base, String session) throws Exception {
        HttpResponse<String> me = send(HTTP, base, "GET", AdminHttp.ADMIN + "/me", session, null);
        assertEquals(401, me.statusCode(), me::body);
        // as the console calls: its own challenge, which no browser answers with a prompt
        HttpResponse<String> summary = send(HTTP, base, "GET", AdminHttp.ADMIN + "/summary", session, null, "X-Requested-With", "it");
        AdminHttp.problem(summary, 401, "unauthenticated", "session");
        assertFalse(summary.headers().allValues("WWW-Authenticate").stream().anyMatch(v -> v.startsWith("Basic")),
                () -> "no Basic challenge for the console's call: " + summary.headers().map());
        HttpResponse<String> action = send(HTTP, base, "PUT", AdminHttp.ADMIN + "/queues/default/pause", session, "{}",
                "X-Requested-With", "it", "Content-Type", "application/json");
        assertEquals(401, action.statusCode(), action::body);
        assertFalse(AdminHttp.get(AdminHttp.ADMIN + "/queues/paused", AdminHttp.VIEWER_USER).body().contains("\"default\""),
                "nothing was paused");
    }

    private static void assertSessionCookieAttributes(HttpResponse<String> r) {
        String set = r.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("JSESSIONID=")).reduce((a, c) -> c)
                .orElseThrow(() -> new AssertionError("no session cookie in " + r.headers().map()));
        String attributes = set.toLowerCase(Locale.ROOT).replace(" ", "");
        assertTrue(attributes.contains(";httponly"), set);
        assertTrue(attributes.contains(";samesite=strict"), set);
        assertTrue(attributes.contains(";secure"), set);
    }

    static String signInBody(String user) {
        return "{\"user\":\"" + user + "\",\"password\":\"" + user + "-sample-only\"}";
    }

    /** @return the sign-in's answer (the session's cookie in its Set-Cookie) */
    static HttpResponse<String> signIn(HttpClient client, String base, String user, String password, String session) throws Exception {
        return send(client, base, "POST", SESSION, session, "{\"user\":\"" + user + "\",\"password\":\"" + password + "\"}",
                "X-Requested-With", "it", "Content-Type", "application/json");
    }

    /** @return the answer to a request carrying only the session's cookie (when given) and these headers */
    static HttpResponse<String> send(HttpClient client, String base, String method, String path, String session, String body,
                                     String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        if (session != null) {
            b.header("Cookie", "JSESSIONID=" + session);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return the value of the last Set-Cookie of that name that sets one, or null */
    static String cookie(HttpResponse<String> r, String name) {
        String value = null;
        for (String c : r.headers().allValues("Set-Cookie")) {
            if (c.startsWith(name + "=")) {
                int end = c.indexOf(';');
                String v = c.substring(name.length() + 1, end < 0 ? c.length() : end);
                value = v.isEmpty() || v.equals("\"\"") ? null : v;
            }
        }
        return value;
    }

    /** @return the browser's cookie of that name (any site), as the DevTools protocol describes it, or null */
    @SuppressWarnings("unchecked")
    static Map<String, Object> browserCookie(ConsoleBrowser b, String name) {
        Map<String, Object> all = b.driver.executeCdpCommand("Network.getAllCookies", Map.of());
        for (Map<String, Object> c : (List<Map<String, Object>>) all.get("cookies")) {
            if (name.equals(c.get("name"))) {
                return c;
            }
        }
        return null;
    }
}
