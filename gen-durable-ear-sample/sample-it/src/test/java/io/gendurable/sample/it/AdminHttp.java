package io.gendurable.sample.it;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;

import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP calls to the sample's admin REST API ({@code /sample/api/gendurable}) as the sample users of
 * liberty-config's basicRegistry, and JSON reads of the answers. Client side only (it is added to
 * the WAR beside {@link SampleIT} so that the class resolves there too).
 */
final class AdminHttp {
    static final String ADMIN = "/sample/api/gendurable";
    static final String VIEWER_USER = "viewer";
    static final String ADMIN_USER = "admin";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private AdminHttp() {
    }

    /**
     * @param method the HTTP method
     * @param path   the path from the server's root
     * @param user   {@link #VIEWER_USER}, {@link #ADMIN_USER}, or null for no credentials
     * @param body   a JSON body, or null for none
     * @return the response
     */
    static HttpResponse<String> call(String method, String path, String user, String body) throws Exception {
        if (body == null && (method.equals("POST") || method.equals("PUT"))) {
            body = "{}";  // every action carries one JSON object
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:"
                        + System.getProperty("it.http.port", "9081") + path))
                .timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("X-Requested-With", "gen-durable-it");  // what a scripted client sends with an action
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (user != null) {
            String password = user + "-sample-only";  // the defaults of liberty-config's server.xml
            b.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A request as the caller builds it: no header added, no body filled in.
     *
     * @param user    {@link #VIEWER_USER}, {@link #ADMIN_USER}, or null for no credentials
     * @param headers name, value, name, value…
     */
    static HttpResponse<String> raw(String method, String path, String user, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:"
                        + System.getProperty("it.http.port", "9081") + path))
                .timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":" + user + "-sample-only").getBytes(StandardCharsets.UTF_8)));
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(String path, String user) throws Exception {
        return call("GET", path, user, null);
    }

    static HttpResponse<String> post(String path, String user, String body) throws Exception {
        return call("POST", path, user, body);
    }

    /** @return the JSON object of a 200 answer (asserted) */
    static JsonObject ok(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), () -> r.request().method() + " " + r.request().uri() + ": " + r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
                () -> "content type " + r.headers().firstValue("Content-Type"));
        return object(r.body());
    }

    /**
     * Asserts a problem+json answer with the status and type, whose detail contains {@code detail}.
     *
     * @return the problem
     */
    static JsonObject problem(HttpResponse<String> r, int status, String type, String detail) {
        assertEquals(status, r.statusCode(), () -> r.request().method() + " " + r.request().uri() + ": " + r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                () -> "content type " + r.headers().firstValue("Content-Type") + " of " + r.body());
        JsonObject p = object(r.body());
        assertEquals(status, p.getInt("status"), r.body());
        assertEquals("urn:gendurable:problem:" + type, p.getString("type"), r.body());
        assertTrue(p.getString("title").length() > 0, r.body());
        assertTrue(p.getString("detail").contains(detail), () -> "detail names '" + detail + "': " + r.body());
        assertEquals(r.request().uri().getRawPath(), p.getString("instance"), r.body());
        return p;
    }

    static JsonObject object(String json) {
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            return reader.readObject();
        }
    }
}
