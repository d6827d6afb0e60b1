package io.gendurable.sample.it;

import org.openqa.selenium.By;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cross-site request forgery against the admin API, in headless Chromium ({@link ConsoleBrowser})
 * with pages of another site ({@link CrossSitePage}). Client side only: never added to the WAR.
 */
final class CrossSiteScenarios {
    /** Starts an order and waits until it is parked for its payment. */
    interface Orders {
        /** @return the parked instance's id */
        long parked(String orderId) throws Exception;
    }

    private CrossSiteScenarios() {
    }

    /**
     * A page of another site, in a real browser that holds the admin's credentials for the API,
     * submits forms and a no-cors fetch to the admin API: nothing it sends is run, and the answer
     * the browser shows is the refusal. Two browsers: one that answered the API's Basic challenge
     * (the browser caches and re-sends those credentials on its own), one holding only the server's
     * single-sign-on cookie (set as SameSite=None so that the browser does send it cross-site: what
     * a server without the shipped cookie settings would do), one signed in through the console's
     * form, holding only the session's cookie (shipped HttpOnly, Secure, SameSite=Strict; set again
     * as SameSite=None likewise). Before the check the first two cancelled the instances.
     */
    static void aCrossSitePageInTheAdminsBrowserRunsNoAction(Orders orders) throws Exception {
        String http = "http://localhost:" + System.getProperty("it.http.port", "9081");
        String https = "https://localhost:" + System.getProperty("it.https.port", "9444");
        // the server's own SSO cookie, as it sets it on a Basic login over HTTPS: SameSite=Strict, Secure, HttpOnly
        HttpResponse<String> login = insecureHttps().send(HttpRequest.newBuilder(URI.create(https + AdminHttp.ADMIN + "/summary"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        "admin:admin-sample-only".getBytes(StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, login.statusCode(), login.body());
        String sso = login.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("LtpaToken2="))
                .findFirst().orElseThrow(() -> new AssertionError("no LtpaToken2 in " + login.headers().map()));
        String attributes = sso.toLowerCase(Locale.ROOT).replace(" ", "");
        assertTrue(attributes.contains(";samesite=strict"), sso);
        assertTrue(attributes.contains(";secure"), sso);
        assertTrue(attributes.contains(";httponly"), sso);
        String token = sso.substring("LtpaToken2=".length(), sso.indexOf(';') < 0 ? sso.length() : sso.indexOf(';'));

        try (CrossSitePage site = CrossSitePage.start()) {
            for (String kind : new String[]{"basic", "cookie", "session"}) {
                long single = orders.parked("xs-" + kind + "-1");
                long bulk1 = orders.parked("xs-" + kind + "-bulk-1");
                long bulk2 = orders.parked("xs-" + kind + "-bulk-2");
                long fetched = orders.parked("xs-" + kind + "-2");
                String base = kind.equals("basic") ? http : https;
                try (ConsoleBrowser b = kind.equals("basic") ? ConsoleBrowser.open() : ConsoleBrowser.open("--ignore-certificate-errors")) {
                    if (kind.equals("basic")) {
                        // the admin answered the API's Basic challenge in this browser once
                        b.driver.get("http://admin:admin-sample-only@localhost:" + System.getProperty("it.http.port", "9081")
                                + AdminHttp.ADMIN + "/summary");
                        b.until(d -> d.findElement(By.tagName("body")).getText().contains("\"queues\""));
                    } else if (kind.equals("session")) {
                        // the console's sign-in: only the session's cookie, which scripts cannot read
                        b.signInAt(base + ConsoleBrowser.CONSOLE + "#/queues", AdminHttp.ADMIN_USER);
                        Map<String, Object> shipped = ConsoleSessionScenarios.browserCookie(b, "JSESSIONID");
                        assertTrue(shipped != null && "Strict".equals(shipped.get("sameSite"))
                                && Boolean.TRUE.equals(shipped.get("httpOnly")) && Boolean.TRUE.equals(shipped.get("secure")),
                                () -> "the session's cookie as shipped: " + shipped);
                        // sent cross-site (SameSite=None) as a server without the shipped setting would let it be
                        Map<String, Object> cookie = new HashMap<>();
                        cookie.put("url", base + "/");
                        cookie.put("name", "JSESSIONID");
                        cookie.put("value", shipped.get("value"));
                        cookie.put("path", shipped.get("path"));
                        cookie.put("httpOnly", true);
                        cookie.put("secure", true);
                        cookie.put("sameSite", "None");
                        b.driver.executeCdpCommand("Network.setCookie", cookie);
                        assertEquals("None", ConsoleSessionScenarios.browserCookie(b, "JSESSIONID").get("sameSite"));
                        Object status = b.asyncScript("const done = arguments[arguments.length - 1];"
                                + "fetch(arguments[0], {credentials: 'include'}).then(r => done(r.status), e => done(String(e)));",
                                base + AdminHttp.ADMIN + "/summary");
                        assertEquals(200L, status, "the session's cookie alone signs the admin in");
                    } else {
                        // only the SSO cookie, sent cross-site (SameSite=None) as a server without the
                        // shipped cookie settings would let it be
                        b.driver.get(base + "/sample/api/orders/instance/" + single);
                        Map<String, Object> cookie = new HashMap<>();
                        cookie.put("url", base + "/");
                        cookie.put("name", "LtpaToken2");
                        cookie.put("value", token);
                        cookie.put("path", "/");
                        cookie.put("httpOnly", true);
                        cookie.put("secure", true);
                        cookie.put("sameSite", "None");
                        b.driver.executeCdpCommand("Network.setCookie", cookie);
                        Object status = b.asyncScript("const done = arguments[arguments.length - 1];"
                                + "fetch(arguments[0], {credentials: 'include'}).then(r => done(r.status), e => done(String(e)));",
                                base + AdminHttp.ADMIN + "/summary");
                        assertEquals(200L, status, "the SSO cookie alone signs the admin in");
                    }
                    String api = base + AdminHttp.ADMIN;
                    // 1. a text/plain form whose body is JSON: {"reason":"xs-="}
                    b.driver.get(site.page("/" + kind + "-cancel", CrossSitePage.autoSubmittingForm(
                            api + "/instances/" + single + "/cancel", "text/plain", "{\"reason\":\"xs-", "\"}")));
                    String answer = shownAnswer(b, api);
                    assertTrue(answer.contains("urn:gendurable:problem:cross-site-request"), kind + ": " + answer);
                    // 2. an empty form to a bulk cancel
                    b.driver.get(site.page("/" + kind + "-bulk", CrossSitePage.autoSubmittingForm(
                            api + "/instances/bulk/cancel?correlationKeyPrefix=order:xs-" + kind + "-bulk-",
                            "application/x-www-form-urlencoded", null, null)));
                    answer = shownAnswer(b, api);
                    assertTrue(answer.contains("urn:gendurable:problem:cross-site-request"), kind + ": " + answer);
                    // 3. a no-cors fetch (its answer is opaque to the page)
                    b.driver.get(site.page("/" + kind + "-fetch", CrossSitePage.noCorsFetch(
                            api + "/instances/" + fetched + "/cancel", "{}")));
                    b.until(d -> d.getTitle().startsWith("sent"));
                }
                for (long id : new long[]{single, bulk1, bulk2, fetched}) {
                    assertEquals("AWAITING_SIGNAL", AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + id,
                            AdminHttp.VIEWER_USER)).getJsonObject("instance").getString("status"), kind + ": instance " + id);
                }
            }
        }
    }

    /** @return a client that trusts the test server's generated certificate */
    static HttpClient insecureHttps() throws Exception {
        // an X509ExtendedTrustManager: trusted as is, without the host name check a plain one gets
        TrustManager[] trustAll = {new X509ExtendedTrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
            }

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }};
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, trustAll, new SecureRandom());
        return HttpClient.newBuilder().sslContext(tls).version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** @return the text of the answer the browser shows after a form took it to the admin API */
    private static String shownAnswer(ConsoleBrowser b, String api) {
        return b.until(d -> {
            if (!d.getCurrentUrl().startsWith(api)) {
                return null;
            }
            String text = d.findElement(By.tagName("body")).getText();
            return text.isBlank() ? null : text;
        });
    }
}
