package io.gendurable.admin.access;

import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.problems.AdminProblem;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a cross-site page can make a browser send, and what the console and a scripted client
 * send: only the latter run. Before the check, every one of these ran (the resources read any
 * body of any type, with no header required).
 */
class CrossSiteCheckTest {
    private static Optional<AdminProblem> check(String method, String scheme, String... headers) {
        Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < headers.length; i += 2) {
            h.put(headers[i], headers[i + 1]);
        }
        return CrossSiteCheck.refusal(method, h::get, URI.create(scheme + "://" + h.getOrDefault("Host", "h2.example:8443") + "/api/x"));
    }

    private static void refused(int status, String type, Optional<AdminProblem> p) {
        assertThat(p).hasValueSatisfying(problem -> {
            assertThat(problem.status()).isEqualTo(status);
            assertThat(problem.type()).isEqualTo(type);
        });
    }

    @Test
    void readsNeedNothing() {
        for (String m : new String[]{"GET", "HEAD", "OPTIONS", "get"}) {
            assertThat(check(m, "http", "Host", "a:9080", "Origin", "https://evil.example")).as(m).isEmpty();
        }
    }

    @Test
    void whatAFormOrANoCorsFetchOfAnotherSiteSendsIsRefused() {
        // a form (text/plain, url-encoded, multipart) or fetch(mode: 'no-cors') from another site
        for (String type : new String[]{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}) {
            refused(403, Problem.TYPE_CROSS_SITE, check("POST", "http", "Host", "a:9080", "Origin", "http://evil.example",
                    "Content-Type", type, "Sec-Fetch-Site", "cross-site"));
            refused(403, Problem.TYPE_CROSS_SITE, check("POST", "http", "Host", "a:9080", "Origin", "http://evil.example",
                    "Content-Type", type));
            // a browser that sends no Origin (older ones, some redirects): no custom header either
            refused(403, Problem.TYPE_CROSS_SITE, check("POST", "http", "Host", "a:9080", "Content-Type", type));
        }
        // a sandboxed frame or a data: page sends Origin: null
        refused(403, Problem.TYPE_CROSS_SITE, check("POST", "http", "Host", "a:9080", "Origin", "null",
                "Content-Type", "application/json", "X-Requested-With", "x"));
        // a sibling sub-domain is the same site, not the same origin
        refused(403, Problem.TYPE_CROSS_SITE, check("POST", "http", "Host", "a:9080", "Sec-Fetch-Site", "same-site",
                "Content-Type", "application/json", "X-Requested-With", "x"));
        refused(403, Problem.TYPE_CROSS_SITE, check("DELETE", "http", "Host", "a:9080"));
        refused(403, Problem.TYPE_CROSS_SITE, check("PUT", "http", "Host", "a:9080", "Content-Type", "application/json"));
    }

    @Test
    void anotherSitesOriginIsRefusedEvenWithTheHeader() {
        // (a server whose CORS lets another site send custom headers)
        refused(403, Problem.TYPE_CROSS_SITE, check("POST", "http", "Host", "a:9080", "Origin", "http://evil.example:9080",
                "X-Requested-With", "XMLHttpRequest", "Content-Type", "application/json"));
        refused(403, Problem.TYPE_CROSS_SITE, check("POST", "http", "Host", "a:9080", "Origin", "https://a:9080",
                "X-Requested-With", "XMLHttpRequest", "Content-Type", "application/json"));
        refused(403, Problem.TYPE_CROSS_SITE, check("POST", "http", "Host", "a:9080", "Origin", "http://a:9081",
                "X-Requested-With", "XMLHttpRequest", "Content-Type", "application/json"));
    }

    @Test
    void theHeaderOrTheServersOwnOriginWithJsonRuns() {
        // curl and other scripts: the header, no Origin
        assertThat(check("POST", "http", "Host", "a:9080", "X-Requested-With", "curl", "Content-Type", "application/json")).isEmpty();
        assertThat(check("PUT", "http", "Host", "a:9080", "X-Requested-With", "x", "Content-Type", "application/json; charset=UTF-8"))
                .isEmpty();
        assertThat(check("DELETE", "http", "Host", "a:9080", "X-Requested-With", "x")).isEmpty();
        // the console: its own origin (default port left out as browsers do), the header, Sec-Fetch-Site
        assertThat(check("POST", "https", "Host", "Admin.Example", "Origin", "https://admin.example:443", "Sec-Fetch-Site",
                "same-origin", "X-Requested-With", "XMLHttpRequest", "Content-Type", "application/json")).isEmpty();
        // the same origin alone; over HTTP/2 (no Host header: the request's authority)
        assertThat(check("POST", "https", "Origin", "https://h2.example:8443", "Content-Type", "application/json")).isEmpty();
        refused(403, Problem.TYPE_CROSS_SITE, check("POST", "https", "Origin", "https://evil.example:8443",
                "Content-Type", "application/json"));
        assertThat(check("POST", "http", "Host", "a:9080", "Origin", "http://a:9080", "Content-Type", "application/json")).isEmpty();
        // behind a proxy that ends TLS
        assertThat(check("POST", "http", "Host", "backend:9080", "X-Forwarded-Proto", "https", "X-Forwarded-Host", "admin.example",
                "Origin", "https://admin.example", "Content-Type", "application/json")).isEmpty();
    }

    @Test
    void anActionsBodyMustBeDeclaredJson() {
        for (String type : new String[]{null, "text/plain", "application/x-www-form-urlencoded", "text/json",
                "application/json; charset=ISO-8859-1", "application/json-patch+json", "application/*", "garbage"}) {
            refused(415, Problem.TYPE_UNSUPPORTED_MEDIA_TYPE, check("POST", "http", "Host", "a:9080", "X-Requested-With", "x",
                    "Content-Type", type));
        }
    }
}
