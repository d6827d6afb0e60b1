package io.gendurable.sample.it;

import jakarta.json.JsonObject;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The web console's scenarios in a real browser, run in order by {@link SampleIT} (one server
 * start for the suite): the console is served; an admin finds a failed order by its correlation
 * key, reads its error, retries it from the failed step and sees it done; cancels a parked order;
 * pauses and resumes a queue and sees the counts stop and move; a bad signal payload shows the
 * API's message; a viewer sees no action and a direct POST is refused; the FSM view. Each writes
 * screenshots ({@link ConsoleBrowser#screenshot}). Client side only.
 */
final class ConsoleScenarios {
    // HTTP/1.1 as browsers speak it to a plain-HTTP server (the JDK's default h2c upgrade meets a
    // Liberty 304 that never ends its HTTP/2 stream)
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static ConsoleBrowser browser;
    private static long parkedForSignals;

    private ConsoleScenarios() {
    }

    private static ConsoleBrowser browser() {
        if (browser == null) {
            browser = ConsoleBrowser.open();
        }
        return browser;
    }

    static void close() {
        if (browser != null) {
            browser.close();
            browser = null;
        }
    }

    // ---- the files and the sign-in answers --------------------------------------------------------

    static void theConsoleIsServedAndMeAnswersWithoutABasicChallenge() throws Exception {
        HttpResponse<String> bare = AdminHttp.get(AdminHttp.ADMIN + "/console", null);
        assertEquals(303, bare.statusCode(), bare.body());
        // to the folder, relative to the request (a Location built from the Host header would follow
        // whatever host the client named: SampleIT.theConsoleRedirectIgnoresTheHostHeader)
        assertEquals(AdminHttp.ADMIN + "/console/", bare.request().uri().resolve(bare.headers().firstValue("Location")
                .orElse("")).getRawPath(), () -> "redirect to the folder: " + bare.headers().map());
        HttpResponse<String> index = AdminHttp.get(ConsoleBrowser.CONSOLE, null);
        assertEquals(200, index.statusCode());
        assertEquals("text/html;charset=utf-8", index.headers().firstValue("Content-Type").orElse("").replace(" ", "").toLowerCase());
        assertTrue(index.body().contains("<script type=\"module\" src=\"console.js\">"), index.body());
        assertTrue(index.headers().firstValue("Content-Security-Policy").orElse("").contains("script-src 'self'"));
        assertEquals("nosniff", index.headers().firstValue("X-Content-Type-Options").orElse(""));
        assertTrue(index.headers().firstValue("Cache-Control").orElse("").contains("no-cache"));
        String etag = index.headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> again = HTTP.send(HttpRequest.newBuilder(uri(ConsoleBrowser.CONSOLE + "index.html"))
                .header("If-None-Match", etag).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(304, again.statusCode(), "a current copy is not sent again");
        HttpResponse<String> js = AdminHttp.get(ConsoleBrowser.CONSOLE + "console.js", null);
        assertEquals(200, js.statusCode());
        assertTrue(js.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"));
        assertTrue(AdminHttp.get(ConsoleBrowser.CONSOLE + "console.css", null).headers().firstValue("Content-Type")
                .orElse("").startsWith("text/css"));
        for (String module : new String[]{"api.js", "router.js", "views/queues.js", "views/instance.js"}) {
            HttpResponse<String> m = AdminHttp.get(ConsoleBrowser.CONSOLE + module, null);
            assertEquals(200, m.statusCode(), module);
            assertTrue(m.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"), module);
            assertTrue(m.headers().firstValue("Content-Security-Policy").orElse("").contains("script-src 'self'"), module);
        }
        for (String path : new String[]{"nope.js", "..%2Fsummary", "%2E%2E%2Fme", "META-INF%2Fbeans.xml",
                "ConsoleResource.class", "views/nope.js", "views/..%2Fconsole.js", "views/%2E%2E%2F%2E%2E%2Fme",
                "views/index.html", "views%2F..%2Fconsole.js", "other/queues.js", "views/sub/queues.js"}) {
            HttpResponse<String> r = AdminHttp.get(ConsoleBrowser.CONSOLE + path, null);
            assertTrue(r.statusCode() == 404 || r.statusCode() == 400, () -> path + " answered " + r.statusCode() + " " + r.body());
        }

        HttpResponse<String> anonymous = AdminHttp.get(AdminHttp.ADMIN + "/me", null);
        assertEquals(401, anonymous.statusCode(), anonymous.body());
        assertFalse(anonymous.headers().allValues("WWW-Authenticate").stream().anyMatch(v -> v.startsWith("Basic")),
                () -> "no Basic challenge (a browser would prompt): " + anonymous.headers().map());
        HttpResponse<String> wrong = AdminHttp.get(AdminHttp.ADMIN + "/me", "nobody");  // a wrong password
        assertEquals(401, wrong.statusCode(), wrong.body());
        assertFalse(wrong.headers().allValues("WWW-Authenticate").stream().anyMatch(v -> v.startsWith("Basic")),
                () -> "no Basic challenge for a wrong password either: " + wrong.headers().map());
        // why me answers its own 401: Liberty challenges with Basic on a protected resource
        HttpResponse<String> challenged = HTTP.send(HttpRequest.newBuilder(uri(AdminHttp.ADMIN + "/summary"))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, challenged.statusCode(), challenged::body);
        assertTrue(challenged.headers().allValues("WWW-Authenticate").stream().anyMatch(v -> v.startsWith("Basic")),
                () -> "Liberty's challenge: " + challenged.headers().map());
        // and a call of the console (X-Requested-With) without a session gets the console's own 401
        // instead (gen-durable-admin's SessionFilter), so that no prompt pops up when its session ends
        HttpResponse<String> consoleCall = HTTP.send(HttpRequest.newBuilder(uri(AdminHttp.ADMIN + "/summary"))
                .header("X-Requested-With", "XMLHttpRequest").timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        AdminHttp.problem(consoleCall, 401, "unauthenticated", "sign in");
        assertFalse(consoleCall.headers().allValues("WWW-Authenticate").stream().anyMatch(v -> v.startsWith("Basic")),
                () -> "no Basic challenge for the console's call: " + consoleCall.headers().map());
        // a Basic sign-in over plain HTTP leaves no single-sign-on cookie (the shipped ssoRequiresSSL;
        // over HTTPS the console's own sign-in leaves none either: ConsoleSessionScenarios)
        HttpResponse<String> signedIn = AdminHttp.get(AdminHttp.ADMIN + "/me", AdminHttp.ADMIN_USER);
        assertFalse(signedIn.headers().allValues("Set-Cookie").stream().anyMatch(c -> c.startsWith("LtpaToken2=")),
                () -> "no SSO cookie over plain HTTP: " + signedIn.headers().allValues("Set-Cookie"));
        JsonObject viewer = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/me", AdminHttp.VIEWER_USER));
        assertEquals("viewer", viewer.getString("user"));
        assertFalse(viewer.getBoolean("admin"));
        JsonObject admin = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/me", AdminHttp.ADMIN_USER));
        assertEquals("admin", admin.getString("user"));
        assertTrue(admin.getBoolean("admin"));
    }

    static void aWrongPasswordShowsTheFormsMessage() {
        ConsoleBrowser b = browser();
        b.go("#/queues");
        b.find("#sign-in-user").sendKeys("admin");
        b.driver.findElement(By.id("sign-in-password")).sendKeys("not-the-password");
        b.screenshot("sign-in");
        b.driver.findElement(By.id("sign-in-submit")).click();
        String error = b.text("#sign-in-error");
        assertTrue(error.contains("Wrong user name or password"), error);
        b.assertNoConsoleErrors();
    }

    // ---- an admin ---------------------------------------------------------------------------------

    static void anAdminFindsAFailedOrderReadsItsErrorRetriesItAndSeesItDone() throws Exception {
        long id;
        call("PUT", "/sample/api/psp/outage");
        try {
            id = createOrder("ui-failed-1");
            HttpResponse<String> failed = call("GET", "/sample/api/orders/instance/" + id + "?wait=PT30S");
            assertEquals(422, failed.statusCode(), "the charge fails 3 times, then the order: " + failed.body());
        } finally {
            call("DELETE", "/sample/api/psp/outage");
        }

        ConsoleBrowser b = browser();
        b.signIn(AdminHttp.ADMIN_USER);
        b.go("#/search");
        b.find("#f-correlationKey").sendKeys("order:ui-failed-1");
        b.click("input[name=status][value=FAILED]");
        b.click("#search-submit");
        b.find("#results-table tr[data-id='" + id + "'] a.instance-link");
        String hash = URLDecoder.decode(b.driver.getCurrentUrl().substring(b.driver.getCurrentUrl().indexOf('#')), StandardCharsets.UTF_8);
        assertTrue(hash.contains("correlationKey=order:ui-failed-1") && hash.contains("status=FAILED"),
                "the address holds the filters: " + hash);
        assertEquals(1, b.driver.findElements(By.cssSelector("#results-table tbody tr")).size());
        b.screenshot("search");

        // the shared link opens the same search in another tab of the session
        b.go(hash);
        b.find("#results-table tr[data-id='" + id + "']");
        b.click("#results-table tr[data-id='" + id + "'] a.instance-link");

        awaitStatus(b, "failed");
        assertEquals("charge", b.text("#instance-step"));
        String error = b.text("#instance-error");
        assertTrue(error.contains("PaymentProviderUnavailable: payment provider unavailable"), error);
        assertTrue(error.contains("at io.gendurable.sample.PaymentProvider.charge("), "the stack trace: " + error);
        b.find("#history li.failed");
        b.screenshot("instance-failed");

        b.click("#action-retry");
        WebElement from = b.find("#retry-from");
        assertEquals("", from.getAttribute("value"), "empty: the step it ended in");
        assertTrue(b.text("#retry-from-hint").contains("charge"));
        b.click("#dialog-confirm");
        b.until(ExpectedConditions.invisibilityOfElementLocated(By.id("action-dialog")));
        awaitStatus(b, "awaiting_signal");
        assertEquals("ship", b.text("#instance-step"), "the retry ran charge again, then parked until the payment settles");

        // the payment provider's callback, sent from the console
        b.click("#action-signal");
        assertEquals("payment_settled", b.find("#signal-name").getAttribute("value"), "the awaited signal is proposed");
        b.find("#signal-payload").sendKeys("{\"ref\": \"psp-ui-1\"}");
        b.click("#dialog-confirm");
        b.until(ExpectedConditions.invisibilityOfElementLocated(By.id("action-dialog")));
        awaitStatus(b, "done");
        assertTrue(b.text("#instance-result").contains("TRK-ui-failed-1-2"), b.text("#instance-result"));
        b.screenshot("instance");
        b.assertNoConsoleErrors();
        JsonObject details = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + id, AdminHttp.VIEWER_USER));
        assertEquals("DONE", details.getJsonObject("instance").getString("status"));

        // the id column sorts all pages (the API's order); the address says so
        b.go("#/search?fsm=order");
        b.find("#results-table");
        b.click("#results-table th button.sort");
        b.until(d -> d.getCurrentUrl().contains("order=OLDEST_FIRST"));
        b.find("#results-table");
    }

    static void anAdminCancelsAParkedOrder() throws Exception {
        long id = parkedOrder("ui-parked-1");
        ConsoleBrowser b = browser();
        b.go("#/instance/" + id);
        awaitStatus(b, "awaiting_signal");
        b.click("#action-cancel");
        b.find("#cancel-reason").sendKeys("customer called");
        b.click("#dialog-confirm");
        awaitStatus(b, "cancelled");
        assertEquals("customer called", b.text("#instance-error"));
        assertEquals("CANCELLED", AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + id, AdminHttp.VIEWER_USER))
                .getJsonObject("instance").getString("status"));
        // a second cancel is refused: the dialog shows the API's message
        b.click("#action-cancel");
        b.click("#dialog-confirm");
        String refused = b.text("#dialog-error");
        assertTrue(refused.contains("CANCELLED"), refused);
        b.click("#dialog-cancel");
        b.assertNoConsoleErrors();
    }

    static void anAdminPausesAndResumesAQueueAndSeesTheCountsStopAndMove() throws Exception {
        ConsoleBrowser b = browser();
        b.go("#/queues");
        b.find("#queue-default");
        long runnable = count(b, "default", "RUNNABLE");
        long parked = count(b, "default", "AWAITING_SIGNAL");

        // every alert of the summary is a badge on its queue's card, and there is no other
        JsonObject summary = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/summary", AdminHttp.VIEWER_USER));
        int alerts = 0;
        for (jakarta.json.JsonValue v : summary.getJsonArray("alerts")) {
            JsonObject a = v.asJsonObject();
            b.find("#queue-" + a.getString("queue") + " .badge.alert[data-alert='" + a.getString("kind") + "']");
            alerts++;
        }
        b.find("#queue-overnight .badge.alert[data-alert='NO_NODE_SERVES']");
        b.find("#queue-shipments .badge.alert[data-alert='UNKNOWN_RATE_LIMIT']");
        assertEquals(alerts, b.driver.findElements(By.cssSelector(".badge.alert")).size(), summary::toString);
        // the nodes' figures: who serves the queue, its outcomes per minute
        b.find("#queue-default .in-flight .node-chip");
        b.until(d -> b.text("#queue-shipments figure.chart figcaption strong").matches("[1-9]\\d*"));

        b.click("button[aria-label='Pause queue default']");
        b.find("#pause-reason").sendKeys("console test");
        b.click("#dialog-confirm");
        b.find("#queue-default .badge.paused");
        try {
            for (int i = 1; i <= 3; i++) {
                createOrder("ui-queue-" + i);
            }
            b.until(d -> count(b, "default", "RUNNABLE") == runnable + 3);
            b.awaitRefresh();
            b.awaitRefresh();
            assertEquals(runnable + 3, count(b, "default", "RUNNABLE"), "nobody claims from a paused queue");
            assertEquals(parked, count(b, "default", "AWAITING_SIGNAL"));
            b.screenshot("queues");

            b.size(ConsoleBrowser.PHONE);
            b.awaitRefresh();
            b.find("#queue-default");
            Object overflow = b.script("return document.documentElement.scrollWidth - window.innerWidth;");
            assertTrue(((Number) overflow).longValue() <= 0, "no sideways scrolling at a phone's width: " + overflow);
            b.screenshot("phone-queues");
            b.size(ConsoleBrowser.LAPTOP);

            b.click("button[aria-label='Resume queue default']");
            b.click("#dialog-confirm");
            b.until(d -> d.findElements(By.cssSelector("#queue-default .badge.paused")).isEmpty());
            b.until(d -> count(b, "default", "RUNNABLE") == runnable && count(b, "default", "AWAITING_SIGNAL") == parked + 3);
        } finally {
            AdminHttp.call("DELETE", AdminHttp.ADMIN + "/queues/default/pause", AdminHttp.ADMIN_USER, null);
        }
        b.assertNoConsoleErrors();
    }

    static void aBadSignalPayloadShowsTheApisMessage() throws Exception {
        long id = parkedOrder("ui-signal-1");
        parkedForSignals = id;
        ConsoleBrowser b = browser();
        b.go("#/instance/" + id);
        awaitStatus(b, "awaiting_signal");
        b.click("#action-signal");
        b.find("#signal-payload").sendKeys("{\"ref\": ");
        b.click("#dialog-confirm");
        String error = b.text("#dialog-error");
        JsonObject problem = AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/signals", AdminHttp.ADMIN_USER,
                "{\"id\":" + id + ",\"name\":\"payment_settled\",\"payload\":{\"ref\":}"), 400, "invalid-input",
                "the body must be a JSON object");
        assertEquals(problem.getString("detail"), error, "the API's own message");
        b.screenshot("signal-refused");
        b.click("#dialog-cancel");
        assertEquals("AWAITING_SIGNAL", AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + id, AdminHttp.VIEWER_USER))
                .getJsonObject("instance").getString("status"), "nothing was delivered");
        b.assertNoConsoleErrors();
    }

    static void theFsmView() {
        ConsoleBrowser b = browser();
        b.go("#/fsms");
        b.find("#nodes-table tr[data-node] .badge.live");
        b.find("#fsm-table tr[data-fsm='order']");
        b.find("#fsm-table tr[data-fsm='shipment']");
        b.find("#fsm-table tr[data-fsm='it-slow']");
        b.find("#timings tr[data-step='order/charge'] svg");
        b.find("#timings tr[data-step^='shipment/'] svg");
        b.find("#schedules-table tr[data-schedule='nightly-audit'] .badge.live");
        b.screenshot("fsms");
        // the admin triggers the nightly audit now: one instance, the schedule's next fire time unmoved
        b.click("#schedules-table tr[data-schedule='nightly-audit'] button.trigger");
        b.click("#dialog-confirm");
        String notice = b.find("#toast").getText();
        assertTrue(notice.matches("Instance \\d+ inserted\\."), notice);
        b.find("#schedules-table tr[data-schedule='nightly-audit'] button.pause");
        b.assertNoConsoleErrors();
    }

    /** An address that names no view, including the names every JavaScript object inherits, shows "No such view". */
    static void anUnknownAddressShowsNoSuchView() {
        ConsoleBrowser b = browser();
        for (String name : new String[] {"nope", "toString", "constructor", "__proto__", "hasOwnProperty"}) {
            b.go("#/queues");
            b.find("#queue-default");
            b.go("#/" + name);
            b.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#main h1"), "No such view"));
        }
        b.assertNoConsoleErrors();
    }

    static void theEngineSelectorShowsTheBillingEnginesQueues() {
        ConsoleBrowser b = browser();
        b.go("#/queues");
        b.find("#queue-default");
        new org.openqa.selenium.support.ui.Select(b.find("#engine-select")).selectByValue("billing");
        b.find("#queue-invoices");
        b.until(d -> d.findElements(By.cssSelector("#queue-default")).isEmpty());
        b.go("#/search?fsm=invoice");
        b.until(d -> !d.findElements(By.cssSelector("#results-table tbody tr")).isEmpty());
        new org.openqa.selenium.support.ui.Select(b.find("#engine-select")).selectByValue("default");
        b.find("#queue-default");
        b.assertNoConsoleErrors();
    }

    // ---- a viewer ---------------------------------------------------------------------------------

    static void aViewerSeesNoActionsAndADirectPostIsRefused() throws Exception {
        long id = parkedForSignals;
        ConsoleBrowser b = browser();
        b.signOut();
        b.signIn(AdminHttp.VIEWER_USER);
        assertTrue(b.text("#role").contains("viewer"));
        b.go("#/queues");
        b.find("#queue-default");
        assertEquals(0, b.driver.findElements(By.cssSelector("#queues button")).size(), "no pause or resume");
        // the auto-refresh pauses and resumes
        b.click("#refresh-toggle");
        assertEquals("true", b.attribute("#refresh-toggle", "aria-pressed"));
        assertEquals("Resume refresh", b.text("#refresh-toggle"));
        b.assertNoRefreshFor(Duration.ofSeconds(7));
        b.click("#refresh-toggle");
        assertEquals("false", b.attribute("#refresh-toggle", "aria-pressed"));
        b.awaitRefresh();
        b.go("#/instance/" + id);
        awaitStatus(b, "awaiting_signal");
        assertEquals(0, b.driver.findElements(By.cssSelector("#instance-actions, #instance button")).size(), "no action control");
        b.screenshot("viewer-instance");

        Object status = b.asyncScript("const done = arguments[arguments.length - 1];"
                + "fetch('../instances/' + arguments[0] + '/cancel', {method: 'POST', credentials: 'same-origin', headers: {"
                + "'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest'}, body: '{}'})"
                + ".then(r => done(r.status), e => done(String(e)));", id);
        assertEquals(403L, ((Number) status).longValue(), "the API refuses the viewer: " + status);
        assertEquals("AWAITING_SIGNAL", AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + id, AdminHttp.VIEWER_USER))
                .getJsonObject("instance").getString("status"));
        b.assertNoConsoleErrors();
        b.signOut();
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private static void awaitStatus(ConsoleBrowser b, String status) {
        b.until(d -> !d.findElements(By.cssSelector("#instance-status .badge.status-" + status)).isEmpty());
    }

    /** @return the count the queue's card shows for a status */
    private static long count(ConsoleBrowser b, String queue, String status) {
        return Long.parseLong(b.attribute("#queue-" + queue + " li[data-status='" + status + "']", "data-count"));
    }

    private static long createOrder(String orderId) throws Exception {
        HttpResponse<String> created = call("POST", "/sample/api/orders/" + orderId);
        assertEquals(201, created.statusCode(), created.body());
        Matcher m = Pattern.compile("\"id\"\\s*:\\s*(\\d+)").matcher(created.body());
        assertTrue(m.find(), created.body());
        return Long.parseLong(m.group(1));
    }

    private static long parkedOrder(String orderId) throws Exception {
        long id = createOrder(orderId);
        HttpResponse<String> parked = call("GET", "/sample/api/orders/instance/" + id + "?wait=PT30S&until=settled");
        assertEquals(202, parked.statusCode(), parked.body());
        assertTrue(parked.body().contains("AWAITING_SIGNAL"), parked.body());
        return id;
    }

    private static HttpResponse<String> call(String method, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(String path) {
        return URI.create("http://localhost:" + System.getProperty("it.http.port", "9081") + path);
    }
}
