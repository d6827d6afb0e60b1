package io.gendurable.sample.wildfly;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.sample.OrderRejected;
import io.gendurable.sample.OrderService;
import io.gendurable.sample.OrderState;
import io.gendurable.sample.OrderWorkflow;
import io.gendurable.sample.otlp.OtlpReceiver;
import io.gendurable.sample.otlp.ReceivedSpan;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.transaction.UserTransaction;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The sample EAR, unchanged, in a real WildFly configured by wildfly-config's configure.cli, one
 * server start for the whole class, in order: deploy; an EJB runs a workflow to done and a failing
 * one rolls its insert back; insertAll and signal join a UserTransaction (through the JTA
 * DataSource {@code jdbc/gendurableTx}) and roll back with it; the REST flow over HTTP; bad input;
 * the engine's meters in WildFly's Prometheus scrape ({@code :9990/prometheus}, Micrometer);
 * the health endpoints; the admin API's roles through the Elytron realm; the step spans that MicroProfile
 * Telemetry exports over OTLP/HTTP to the tests' {@link OtlpReceiver} (the inserting request's trace
 * continued, a link to the signalling request); undeploy while steps are in flight,
 * after which no row is left {@code executing}; last, a copy of the EAR with
 * {@code gendurable.queues=default:x} fails to deploy, naming the key. The same checks as the
 * Open Liberty suite (sample-it) where they apply.
 *
 * <p>In-container tests (no {@code @RunAsClient}) run inside the sample's WAR, where this class is
 * added; they use only the JDK, JUnit and the application's classes. Client tests read the tables
 * through {@code it.db.url} (see {@link WildFlyDatabase}).
 */
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WildFlyIT {
    private static final String DEPLOYMENT = "sample";
    private static final String SCHEMA = "gendurable_it_wildfly";  // GENDURABLE_SCHEMA in the failsafe configuration
    /** GENDURABLE_ENGINES_BILLING_SCHEMA in the failsafe configuration: the billing engine's schema, from the environment. */
    private static final String BILLING_SCHEMA = SCHEMA + "_billing";
    private static final int SLOW_INSTANCES = 8;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @ArquillianResource
    private Deployer deployer;

    @Deployment(name = DEPLOYMENT, managed = false)
    static EnterpriseArchive sample() {
        EnterpriseArchive archive = ShrinkWrap.createFromZipFile(EnterpriseArchive.class, sampleEar());
        WebArchive war = archive.getAsType(WebArchive.class, "sample.war");
        war.addClasses(WildFlyIT.class, SlowSteps.class, SlowSteps.Countdown.class, ReceivedSpan.class, ReceivedSpan.Link.class);
        return archive;
    }

    // ---- deploy ---------------------------------------------------------------------------------

    @Test
    @Order(1)
    @RunAsClient
    void theSampleDeploysAndItsEngineStarts() throws Exception {
        long t0 = System.nanoTime();
        deployer.deploy(DEPLOYMENT);
        System.out.println("sample.ear deployed in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        HttpResponse<String> r = get("/sample/api/orders/instance/1");  // the engine answers (no row yet)
        assertEquals(404, r.statusCode(), r.body());
    }

    // ---- in the container -----------------------------------------------------------------------

    @Test
    @Order(2)
    @OperateOnDeployment(DEPLOYMENT)
    void anEjbInsertInItsTransactionCommitsAndTheWorkflowRunsToDone() throws Exception {
        GenDurable durable = CDI.current().select(GenDurable.class).get();
        OrderService orders = lookup("java:module/OrderService", OrderService.class);

        Inserted r = orders.insertInTransaction("ejb-commit", false);
        assertFalse(r.duplicate());
        assertTrue(durable.find(r.id()).isPresent(), "the committed row is visible");
        assertEquals(SignalResult.DELIVERED,
                durable.signal(SignalTarget.correlationKey("order:ejb-commit"), OrderWorkflow.PAYMENT_SETTLED, null));

        AwaitResult done = durable.await(r.id(), Duration.ofSeconds(60), AwaitUntil.TERMINAL);
        AwaitResult.Done d = assertInstanceOf(AwaitResult.Done.class, done, () -> "got " + done);
        assertTrue(d.result().json().contains("TRK-ejb-commit-1"), d.result().json());
    }

    @Test
    @Order(3)
    @OperateOnDeployment(DEPLOYMENT)
    void anEjbThatFailsAfterItsInsertRollsTheRowBack() throws Exception {
        GenDurable durable = CDI.current().select(GenDurable.class).get();
        OrderService orders = lookup("java:module/OrderService", OrderService.class);

        assertThrows(OrderRejected.class, () -> orders.insertInTransaction("ejb-rollback", true));

        assertTrue(durable.find("order:ejb-rollback").isEmpty());
        assertEquals(0, countRows(serverDataSource(), "correlation_key = 'order:ejb-rollback'"));
        Inserted again = orders.insertInTransaction("ejb-rollback", false);
        assertFalse(again.duplicate(), "the rolled-back insert left nothing behind");
    }

    @Test
    @Order(4)
    @OperateOnDeployment(DEPLOYMENT)
    void insertAllAndSignalJoinAUserTransactionAndRollBackWithIt() throws Exception {
        GenDurable durable = CDI.current().select(GenDurable.class).get();
        UserTransaction tx = lookup("java:comp/UserTransaction", UserTransaction.class);
        Inserted parked = durable.insert(OrderWorkflow.class, OrderState.placed("utx-parked", "acme", 1),
                InsertOptions.builder().correlationKey("order:utx-parked").build());
        AwaitResult settled = durable.await(parked.id(), Duration.ofSeconds(60));
        assertInstanceOf(AwaitResult.Awaiting.class, settled, () -> "expected the workflow parked, got " + settled);

        tx.begin();
        List<Inserted> batch = durable.insertAll(List.of(
                NewInstance.of(OrderWorkflow.class, OrderState.placed("utx-1", "acme", 1),
                        InsertOptions.builder().correlationKey("order:utx-1").build()),
                NewInstance.of(OrderWorkflow.class, OrderState.placed("utx-2", "acme", 1),
                        InsertOptions.builder().correlationKey("order:utx-2").build())));
        assertEquals(2, batch.size());
        assertEquals(SignalResult.DELIVERED, durable.signal(SignalTarget.correlationKey("order:utx-parked"),
                OrderWorkflow.PAYMENT_SETTLED, null, "utx-rolled-back"));
        tx.rollback();

        DataSource ds = serverDataSource();
        assertEquals(0, countRows(ds, "correlation_key IN ('order:utx-1', 'order:utx-2')"));
        assertEquals(0, count(ds, "SELECT count(*) FROM " + SCHEMA + ".signals WHERE dedup_key = 'utx-rolled-back'"));
        AwaitResult still = durable.await(parked.id(), Duration.ZERO);
        assertInstanceOf(AwaitResult.Awaiting.class, still, () -> "the rolled-back signal woke it: " + still);

        tx.begin();
        durable.signal(SignalTarget.correlationKey("order:utx-parked"), OrderWorkflow.PAYMENT_SETTLED, null, "utx-committed");
        tx.commit();
        AwaitResult done = durable.await(parked.id(), Duration.ofSeconds(60), AwaitUntil.TERMINAL);
        assertInstanceOf(AwaitResult.Done.class, done, () -> "the committed signal should finish it: " + done);
    }

    /**
     * An insert inside a JTA transaction the container timed out is never committed on its own
     * (issue 44, item 2): the caller-transaction lookup read every status but ACTIVE and
     * MARKED_ROLLBACK as "no transaction", so after a timeout (ROLLEDBACK on the thread) the insert
     * autocommitted while the business writes were gone. Now it joins (and fails or rolls back with
     * the transaction) or is refused; either way no instance exists.
     */
    @Test
    @Order(4)
    @OperateOnDeployment(DEPLOYMENT)
    void anInsertInATimedOutTransactionIsNeverCommittedOnItsOwn() throws Exception {
        GenDurable durable = CDI.current().select(GenDurable.class).get();
        UserTransaction tx = lookup("java:comp/UserTransaction", UserTransaction.class);
        tx.setTransactionTimeout(1);
        tx.begin();
        try {
            Thread.sleep(3_000);  // elapsed time is the subject: past the transaction's 1 s timeout
            try {
                durable.insert(OrderWorkflow.class, OrderState.placed("tx-timeout", "acme", 1),
                        InsertOptions.builder().correlationKey("order:tx-timeout").build());
            } catch (IllegalStateException refused) {
                // refused as a transaction that cannot be joined (ROLLEDBACK on the thread), or joined
                // and failed by the container (Liberty keeps it on the thread and refuses the enlistment)
            }
        } finally {
            try {
                tx.rollback();
            } catch (Exception alreadyRolledBack) {
                // the container rolled it back at the timeout
            }
            tx.setTransactionTimeout(0);
        }
        assertEquals(0, countRows(serverDataSource(), "correlation_key = 'order:tx-timeout'"),
                "an instance inserted in the timed-out transaction exists");
    }

    // ---- over HTTP ------------------------------------------------------------------------------

    @Test
    @Order(5)
    @RunAsClient
    void theRestFlowCreatesSignalsAndReadsAnOrderDone() throws Exception {
        HttpResponse<String> created = post("/sample/api/orders/rest-42?parcels=3");
        assertEquals(201, created.statusCode(), created.body());
        long id = Long.parseLong(field(created.body(), "id"));

        HttpResponse<String> again = post("/sample/api/orders/rest-42");
        assertEquals(200, again.statusCode(), again.body());
        assertEquals(String.valueOf(id), field(again.body(), "id"), "a repeat finds the live workflow");

        HttpResponse<String> parked = get("/sample/api/orders/instance/" + id + "?wait=PT20S&until=settled");
        assertEquals(202, parked.statusCode(), parked.body());
        assertTrue(parked.body().contains("payment_settled"), parked.body());

        HttpResponse<String> signalled = post("/sample/api/orders/rest-42/signals/payment_settled");
        assertEquals(202, signalled.statusCode(), signalled.body());

        HttpResponse<String> done = get("/sample/api/orders/instance/" + id + "?wait=PT20S");
        assertEquals(200, done.statusCode(), done.body());
        assertTrue(done.body().contains("\"DONE\""), done.body());
        for (int parcel = 1; parcel <= 3; parcel++) {  // the shipments queue of microprofile-config.properties ran them
            assertTrue(done.body().contains("TRK-rest-42-" + parcel), done.body());
        }
    }

    @Test
    @Order(6)
    @RunAsClient
    void theRestEndpointsRejectBadInputAndTheEjbRollsBackOverHttp() throws Exception {
        assertEquals(400, post("/sample/api/orders/bad%20id").statusCode());
        assertEquals(400, get("/sample/api/orders/instance/1?wait=soon").statusCode());
        assertEquals(400, get("/sample/api/orders/instance/abc").statusCode());
        assertEquals(400, post("/sample/api/orders/rest-p?parcels=many").statusCode());
        assertEquals(404, get("/sample/api/orders/instance/999999999").statusCode());
        assertEquals(404, post("/sample/api/orders/nobody/signals/payment_settled").statusCode());
        HttpResponse<String> rolledBack = post("/sample/api/orders/rest-tx/transactional?fail=true");
        assertEquals(409, rolledBack.statusCode(), rolledBack.body());
        assertEquals(404, get("/sample/api/orders/rest-tx").statusCode(), "the rolled-back workflow does not exist");
        HttpResponse<String> committed = post("/sample/api/orders/rest-tx/transactional");
        assertEquals(201, committed.statusCode(), committed.body());
        assertEquals(200, get("/sample/api/orders/rest-tx").statusCode(), "the committed workflow exists");
    }

    @Test
    @Order(7)
    @RunAsClient
    void anApplicationObserverSeesTheEnginesClaimsOnTheEventThread() throws Exception {
        // the sample's EngineActivity observes RowsClaimed (@Observes): the flows before claimed rows
        HttpResponse<String> r = get("/sample/api/engine-activity");
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().matches("(?s).*\"default\"\\s*:\\s*[1-9].*"), "rows claimed on default: " + r.body());
        assertTrue(r.body().contains("\"observerThread\":\"gendurable-events\""), "the observer's thread: " + r.body());
    }

    @Test
    @Order(7)
    @RunAsClient
    void prometheusShowsTheEngineMetersAfterTheFlows() throws Exception {
        HttpResponse<String> r = management("/prometheus");
        assertEquals(200, r.statusCode(), r.body());
        String body = r.body();
        double steps = sum(body, "gendurable_step_duration_seconds_count", "fsm=\"order\"");
        assertTrue(steps >= 5, "order steps timed: " + steps + "\n" + gendurableLines(body));
        assertTrue(sum(body, "gendurable_pick_count_total", "queue=\"default\"") > 0, gendurableLines(body));
        assertTrue(sum(body, "gendurable_pick_count_total", "queue=\"shipments\"") > 0, gendurableLines(body));
        assertTrue(sum(body, "gendurable_picked_rows_total", "queue=\"shipments\"") >= 3, gendurableLines(body));
        assertTrue(sum(body, "gendurable_flush_duration_seconds_count", "") > 0, gendurableLines(body));
        assertTrue(sum(body, "gendurable_flush_batch_size_count", "") > 0, gendurableLines(body));
        assertTrue(sum(body, "gendurable_signals_delivered", "") >= 3, gendurableLines(body));
        for (String status : List.of("runnable", "executing", "awaiting_signal", "awaiting_children")) {
            assertTrue(body.lines().anyMatch(l -> l.startsWith("gendurable_queue_instances{")
                    && l.contains("queue=\"default\"") && l.contains("status=\"" + status + "\"")), status + "\n" + gendurableLines(body));
        }
        assertTrue(body.lines().anyMatch(l -> l.startsWith("gendurable_queue_oldest_runnable_age_seconds{")
                && l.contains("queue=\"shipments\"")), gendurableLines(body));
        assertTrue(body.lines().anyMatch(l -> l.startsWith("gendurable_scheduler_in_flight{")
                && l.contains("queue=\"default\"")), gendurableLines(body));
        assertTrue(body.lines().anyMatch(l -> l.startsWith("gendurable_outcome_stale{")), gendurableLines(body));
        // every meter names its engine: the default engine's, and the billing engine's under the same names
        assertTrue(body.lines().filter(l -> l.startsWith("gendurable_")).allMatch(l -> l.contains("engine=\"default\"")
                || l.contains("engine=\"billing\"")), gendurableLines(body));
        assertTrue(sum(body, "gendurable_pick_count_total", "engine=\"billing\"") > 0, gendurableLines(body));
        assertTrue(body.lines().anyMatch(l -> l.startsWith("gendurable_scheduler_released{") && l.contains("engine=\"billing\"")
                && l.contains("queue=\"invoices\"")), "the drain's total, by queue\n" + gendurableLines(body));
    }

    @Test
    @Order(8)
    @OperateOnDeployment(DEPLOYMENT)
    void theBillingEngineTakesItsSchemaFromTheEnvironmentAndHasItsOwnHealthChecks() throws Exception {
        io.gendurable.sample.Billing billing = CDI.current().select(io.gendurable.sample.Billing.class).get();
        Inserted invoice = billing.invoice("wf-engines-" + System.nanoTime());
        AwaitResult done = billing.engine().await(invoice.id(), Duration.ofSeconds(60), AwaitUntil.TERMINAL);
        assertInstanceOf(AwaitResult.Done.class, done, () -> "got " + done);
        // GENDURABLE_ENGINES_BILLING_SCHEMA overrides the sample's gendurable.engines.billing.schema
        assertEquals(1, count(serverDataSource(), "SELECT count(*) FROM " + BILLING_SCHEMA
                + ".gen_durable WHERE fsm = 'invoice' AND id = " + invoice.id()));

        // WildFly's health endpoints do not see a web module in an EAR (healthAnswersOnTheManagementPort):
        // the checks are called as the server's MicroProfile Health would, through their beans
        java.util.Map<String, String> ready = new java.util.TreeMap<>();
        for (org.eclipse.microprofile.health.HealthCheck c : CDI.current().select(org.eclipse.microprofile.health.HealthCheck.class,
                org.eclipse.microprofile.health.Readiness.Literal.INSTANCE)) {
            org.eclipse.microprofile.health.HealthCheckResponse r = c.call();
            ready.put(r.getName(), r.getStatus().name());
        }
        assertEquals("UP", ready.get("gendurable"), ready.toString());
        assertEquals("UP", ready.get("gendurable:billing"), ready.toString());
        java.util.Map<String, String> live = new java.util.TreeMap<>();
        for (org.eclipse.microprofile.health.HealthCheck c : CDI.current().select(org.eclipse.microprofile.health.HealthCheck.class,
                org.eclipse.microprofile.health.Liveness.Literal.INSTANCE)) {
            org.eclipse.microprofile.health.HealthCheckResponse r = c.call();
            live.put(r.getName(), r.getStatus().name());
        }
        assertEquals("UP", live.get("gendurable-loops"), live.toString());
        assertEquals("UP", live.get("gendurable-loops:billing"), live.toString());
    }

    @Test
    @Order(8)
    @RunAsClient
    void healthAnswersOnTheManagementPort() throws Exception {
        // WildFly 39's MicroProfile Health does not look into a web module inside an EAR: the engine's
        // checks (gendurable, gendurable-loops) appear when the WAR is deployed on its own, not here
        // (docs/wildfly.md); the endpoints configure.cli adds answer, with the deployment's default check
        HttpResponse<String> ready = management("/health/ready");
        assertEquals(200, ready.statusCode(), ready.body());
        assertTrue(ready.body().replaceAll("\\s", "").contains("\"deployments-status\",\"status\":\"UP\""), ready.body());
        assertTrue(ready.body().contains("gen-durable-sample-ear.ear"), ready.body());
        HttpResponse<String> live = management("/health/live");
        assertEquals(200, live.statusCode(), live.body());
    }

    @Test
    @Order(9)
    @RunAsClient
    void theAdminApiChecksItsRolesAgainstTheElytronRealm() throws Exception {
        String admin = "/sample/api/gendurable";
        // no credentials: RESTEasy's role check refuses (403; Open Liberty challenges with 401); a call
        // of the console (X-Requested-With, which call sends) gets gen-durable-admin's own 401
        assertEquals(403, HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + System.getProperty("it.http.port", "8180") + admin + "/summary")).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode());
        assertEquals(401, call("GET", admin + "/summary", null, null).statusCode());
        assertEquals(401, call("GET", admin + "/summary", "viewer", "wrong").statusCode(), "a wrong password");
        HttpResponse<String> summary = call("GET", admin + "/summary", "viewer", "viewer-sample-only");
        assertEquals(200, summary.statusCode(), summary.body());
        assertTrue(summary.body().contains("\"queue\":\"default\""), summary.body());
        assertEquals(403, call("PUT", admin + "/queues/default/pause", "viewer", "viewer-sample-only").statusCode(),
                "the viewer reads but may not act");
        // what a cross-site page can make a browser send runs nothing, even with the admin's credentials
        HttpResponse<String> form = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + System.getProperty("it.http.port", "8180") + admin + "/queues/default/pause"))
                .timeout(Duration.ofSeconds(60)).PUT(HttpRequest.BodyPublishers.ofString("{}"))
                .header("Content-Type", "text/plain").header("Origin", "http://evil.example")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        "admin:admin-sample-only".getBytes(StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, form.statusCode(), form.body());
        assertTrue(form.body().contains("urn:gendurable:problem:cross-site-request"), form.body());
        HttpResponse<String> unpaused = call("GET", admin + "/queues/paused", "admin", "admin-sample-only");
        assertFalse(unpaused.body().contains("\"default\""), "nothing was paused: " + unpaused.body());
        try {
            HttpResponse<String> paused = call("PUT", admin + "/queues/default/pause", "admin", "admin-sample-only");
            assertEquals(200, paused.statusCode(), paused.body());
            assertTrue(paused.body().contains("\"pausedBy\":\"admin\""), "the caller's principal is recorded: " + paused.body());
        } finally {
            HttpResponse<String> resumed = call("DELETE", admin + "/queues/default/pause", "admin", "admin-sample-only");
            assertEquals(200, resumed.statusCode(), resumed.body());
        }
        HttpResponse<String> openapi = get("/openapi");
        assertEquals(200, openapi.statusCode(), openapi.body());
        assertTrue(openapi.body().contains("/gendurable/summary:"), "the OpenAPI document lists the admin paths");
    }

    /**
     * The console's sign-in (gen-durable-admin's POST/DELETE gendurable/session) against the
     * Elytron realm: the session's user and roles pass RESTEasy's role check (a viewer reads and may
     * not act, the admin acts and is recorded as who acted), the cookie is HttpOnly, Secure and
     * SameSite=Strict, the sign-in changes the session id, and after the sign-out the cookie is refused.
     */
    @Test
    @Order(9)
    @RunAsClient
    void theConsoleSignsInWithASessionThatRestEasysRoleCheckHonours() throws Exception {
        String admin = "/sample/api/gendurable";
        HttpResponse<String> wrong = session("POST", "{\"user\":\"admin\",\"password\":\"wrong\"}", null);
        assertEquals(401, wrong.statusCode(), wrong.body());
        assertFalse(wrong.headers().allValues("WWW-Authenticate").stream().anyMatch(v -> v.startsWith("Basic")), wrong.headers().map()::toString);

        HttpResponse<String> viewerIn = session("POST", "{\"user\":\"viewer\",\"password\":\"viewer-sample-only\"}", null);
        assertEquals(200, viewerIn.statusCode(), viewerIn.body());
        assertTrue(viewerIn.body().contains("\"admin\":false"), viewerIn.body());
        String viewer = sessionCookie(viewerIn);
        assertEquals(200, withSession("GET", admin + "/summary", viewer).statusCode());
        assertEquals(403, withSession("PUT", admin + "/queues/default/pause", viewer).statusCode(), "the viewer may not act");

        HttpResponse<String> adminIn = session("POST", "{\"user\":\"admin\",\"password\":\"admin-sample-only\"}", viewer);
        assertEquals(200, adminIn.statusCode(), adminIn.body());
        String signedIn = sessionCookie(adminIn);
        assertFalse(signedIn.equals(viewer), "the sign-in changes the session id");
        assertEquals(401, withSession("GET", admin + "/summary", viewer).statusCode(), "the id before the sign-in is refused");
        try {
            HttpResponse<String> paused = withSession("PUT", admin + "/queues/default/pause", signedIn);
            assertEquals(200, paused.statusCode(), paused.body());
            assertTrue(paused.body().contains("\"pausedBy\":\"admin\""), "the engine records the session's user: " + paused.body());
        } finally {
            assertEquals(200, withSession("DELETE", admin + "/queues/default/pause", signedIn).statusCode());
        }
        assertEquals(204, session("DELETE", null, signedIn).statusCode());
        assertEquals(401, withSession("GET", admin + "/me", signedIn).statusCode(), "the cookie after the sign-out");
        assertEquals(401, withSession("GET", admin + "/summary", signedIn).statusCode(), "the cookie after the sign-out");
        assertEquals(401, withSession("PUT", admin + "/queues/default/pause", signedIn).statusCode(), "the cookie after the sign-out");
    }

    private static final HttpClient HTTP1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** @return the answer of gendurable/session to that method and body, sent as the console sends it */
    private static HttpResponse<String> session(String method, String body, String cookie) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + System.getProperty("it.http.port", "8180")
                        + "/sample/api/gendurable/session")).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("X-Requested-With", "gen-durable-it");
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (cookie != null) {
            b.header("Cookie", "JSESSIONID=" + cookie);
        }
        return HTTP1.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return the answer to an admin call carrying only the session's cookie (and the console's header, and {} for PUT) */
    private static HttpResponse<String> withSession(String method, String path, String cookie) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + System.getProperty("it.http.port", "8180")
                        + path)).timeout(Duration.ofSeconds(60)).header("X-Requested-With", "gen-durable-it")
                .header("Cookie", "JSESSIONID=" + cookie);
        if (method.equals("PUT") || method.equals("POST")) {
            b.method(method, HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json");
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return HTTP1.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return the session id the answer sets, its cookie asserted HttpOnly, Secure and SameSite=Strict */
    private static String sessionCookie(HttpResponse<String> r) {
        String set = r.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("JSESSIONID=")).reduce((a, c) -> c)
                .orElseThrow(() -> new AssertionError("no session cookie: " + r.headers().map()));
        String attributes = set.toLowerCase(java.util.Locale.ROOT).replace(" ", "");
        assertTrue(attributes.contains(";httponly") && attributes.contains(";secure") && attributes.contains(";samesite=strict"), set);
        return set.substring("JSESSIONID=".length(), set.indexOf(';') < 0 ? set.length() : set.indexOf(';'));
    }

    @Test
    @Order(10)
    @OperateOnDeployment(DEPLOYMENT)
    void theEngineRunsTheBundledHibernateOnTheServersPersistenceApi() throws Exception {
        // docs/wildfly.md, "Hibernate and Jakarta Persistence": Hibernate 6.6 from WEB-INF/lib (no
        // persistence.xml, so WildFly's JPA subsystem deploys no unit and adds none of its Hibernate
        // 6.6.40), the Jakarta Persistence 3.1 API from the server
        ClassLoader war = OrderService.class.getClassLoader();
        Class<?> version = Class.forName("org.hibernate.Version", true, war);
        assertEquals(war, version.getClassLoader(), "Hibernate comes from the web module");
        String v = (String) version.getMethod("getVersionString").invoke(null);
        assertTrue(v.startsWith("6.6.") && !v.equals("6.6.40.Final"), "the bundled Hibernate, not the server's: " + v);
        Class<?> api = Class.forName("jakarta.persistence.EntityManager", true, war);
        assertTrue(api.getClassLoader() != war, "the Jakarta Persistence API is the server's module: " + api.getClassLoader());
    }

    @Test
    @Order(11)
    @RunAsClient
    void theStepSpansContinueTheInsertingRequestsTraceAndLinkTheSignallingOne() throws Exception {
        // MicroProfile Telemetry's server span for each POST continues the caller's traceparent; the
        // engine stores the insert's context with the row and the signal's with the signal
        // (docs/tracing.md); the spans reach the receiver as the server's OTLP/HTTP exporter sent them
        String insertTrace = randomTraceId();
        String signalTrace = randomTraceId();
        HttpResponse<String> created = traced("/sample/api/orders/traced-wf", insertTrace);
        assertEquals(201, created.statusCode(), created.body());
        long id = Long.parseLong(field(created.body(), "id"));
        HttpResponse<String> parked = get("/sample/api/orders/instance/" + id + "?wait=PT20S&until=settled");
        assertEquals(202, parked.statusCode(), parked.body());
        HttpResponse<String> signalled = traced("/sample/api/orders/traced-wf/signals/payment_settled", signalTrace);
        assertEquals(202, signalled.statusCode(), signalled.body());
        HttpResponse<String> done = get("/sample/api/orders/instance/" + id + "?wait=PT30S");
        assertEquals(200, done.statusCode(), done.body());

        ReceivedSpan start = awaitStepSpan(id, "start");
        assertEquals(insertTrace, start.traceId(), "the first step continues the inserting request's trace");
        assertEquals("gendurable.step order.start", start.name());
        assertEquals("order", start.attribute("gendurable.fsm"));
        assertEquals("start", start.attribute("gendurable.step"));
        assertEquals("1", start.attribute("gendurable.attempt"));
        assertEquals("default", start.attribute("gendurable.queue"));
        assertTrue(List.of("next", "next_inline").contains(start.attribute("gendurable.outcome")), start::toString);
        java.util.Map<String, String> parents = new java.util.HashMap<>();
        OtlpReceiver.spans().stream().filter(sp -> sp.traceId().equals(insertTrace))
                .forEach(sp -> parents.put(sp.spanId(), sp.parentSpanId()));
        String ancestor = start.parentSpanId();
        for (int up = 0; up < 5 && parents.containsKey(ancestor); up++) {
            ancestor = parents.get(ancestor);  // the POST's server span, and whatever WildFly nests under it
        }
        assertTrue(!start.parentSpanId().equals("00f067aa0ba902b7") && ancestor.equals("00f067aa0ba902b7"),
                () -> "the step hangs under the POST's server span, whose parent is the caller's: " + start
                        + "; received in the trace: " + parents);

        ReceivedSpan ship = awaitStepSpan(id, "ship");
        assertEquals(insertTrace, ship.traceId(), "the woken step stays in the inserting request's trace");
        assertTrue(ship.links().stream().anyMatch(l -> l.traceId().equals(signalTrace)
                        && OrderWorkflow.PAYMENT_SETTLED.equals(l.attributes().get("gendurable.signal"))),
                () -> "the step given the signal links to the signalling request's trace " + signalTrace + ": " + ship);
    }

    @Test
    @Order(12)
    @OperateOnDeployment(DEPLOYMENT)
    void aCleanStartLogsNoHibernateLineAUserMustLookUp() throws Exception {
        // not the engine's Hibernate unit's "Database JDBC URL [undefined/unknown] … Database
        // version: 12.0" nor "No JTA platform" (configure.cli logs org.hibernate at WARN)
        java.nio.file.Path log = java.nio.file.Path.of(System.getProperty("jboss.server.log.dir"), "server.log");
        List<String> hibernate = java.nio.file.Files.readAllLines(log).stream()
                .filter(l -> l.contains("HHH10001005") || l.contains("HHH000489") || l.contains("undefined/unknown")).toList();
        assertTrue(hibernate.isEmpty(), () -> "Hibernate's start-up lines in server.log: " + hibernate);
    }

    @Test
    @Order(12)
    @OperateOnDeployment(DEPLOYMENT)
    void aStepsLogLinesCarryItsInstanceThroughTheMdc() throws Exception {
        GenDurable durable = CDI.current().select(GenDurable.class).get();
        long id = durable.insert(SlowSteps.class, new SlowSteps.Countdown(2)).id();
        AwaitResult done = durable.await(id, Duration.ofSeconds(60), AwaitUntil.TERMINAL);
        assertInstanceOf(AwaitResult.Done.class, done, () -> "got " + done);
        // configure.cli's log-context pattern: [fsm#id step/attempt] from the engine's MDC keys
        java.nio.file.Path log = java.nio.file.Path.of(System.getProperty("jboss.server.log.dir"), "server.log");
        List<String> lines = java.nio.file.Files.readAllLines(log).stream().filter(l -> l.contains("it-slow: ")).toList();
        assertTrue(lines.stream().anyMatch(l -> l.contains("[it-slow#" + id + " start/1] it-slow: 2 left")), () -> String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(l -> l.contains("[it-slow#" + id + " start/1] it-slow: 1 left")), () -> String.join("\n", lines));
        // outside a step the keys are gone: the engine's own line after the step carries none
        assertTrue(java.nio.file.Files.readAllLines(log).stream().anyMatch(l -> l.contains("[# /]")), "lines outside steps");
    }

    // ---- undeploy -------------------------------------------------------------------------------

    @Test
    @Order(20)
    @OperateOnDeployment(DEPLOYMENT)
    void slowWorkIsInFlight() throws Exception {
        GenDurable durable = CDI.current().select(GenDurable.class).get();
        List<NewInstance> slow = new ArrayList<>();
        for (int i = 0; i < SLOW_INSTANCES; i++) {
            slow.add(NewInstance.of(SlowSteps.class, new SlowSteps.Countdown(1000)));
        }
        durable.insertAll(slow);
        DataSource ds = serverDataSource();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (countRows(ds, "fsm = 'it-slow' AND status = 'executing'") == 0) {
            if (System.nanoTime() > deadline) {
                fail("no it-slow step started within 30 s");
            }
            Thread.sleep(50);
        }
    }

    @Test
    @Order(21)
    @RunAsClient
    void undeployDrainsAndLeavesNoRowExecuting() throws Exception {
        String url = System.getProperty("it.db.url");
        try (Connection c = DriverManager.getConnection(url)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (count(c, "SELECT count(*) FROM " + SCHEMA + ".gen_durable WHERE fsm = 'it-slow' AND status = 'executing'") == 0) {
                assertTrue(System.nanoTime() < deadline, "steps are in flight before the undeploy");
                Thread.sleep(20);
            }
        }

        deployer.undeploy(DEPLOYMENT);

        try (Connection c = DriverManager.getConnection(url)) {
            assertEquals(0, count(c, "SELECT count(*) FROM " + SCHEMA + ".gen_durable WHERE status = 'executing'"));
            assertEquals(0, count(c, "SELECT count(*) FROM " + SCHEMA + ".gen_durable WHERE locked_by IS NOT NULL"));
            assertEquals(SLOW_INSTANCES, count(c, "SELECT count(*) FROM " + SCHEMA
                    + ".gen_durable WHERE fsm = 'it-slow' AND status = 'runnable'"), "the unfinished work waits for the next start");
        }
        HttpResponse<String> scrape = management("/prometheus");
        assertFalse(scrape.body().lines().anyMatch(l -> l.startsWith("gendurable_")),
                "the engine's meters left the server's registry with the application:\n" + gendurableLines(scrape.body()));
    }

    // ---- a broken configuration fails the deployment, naming the key ------------------------

    @Deployment(name = "bad-queues", managed = false, testable = false)
    static EnterpriseArchive badQueues() {
        EnterpriseArchive archive = ShrinkWrap.createFromZipFile(EnterpriseArchive.class, sampleEar());
        archive.getAsType(WebArchive.class, "sample.war").addAsResource(new StringAsset("gendurable.queues=default:x\n"
                        // the sample injects @DurableEngine("billing"): without the engine, CDI's unsatisfied
                        // injection point would fail the deployment before the engine's configuration does
                        + "gendurable.engines=billing\ngendurable.engines.billing.schema=gendurable_billing\n"
                        + "gendurable.engines.billing.datasource=jdbc/gendurable\n"
                        + "gendurable.engines.billing.jta-datasource=jdbc/gendurableTx\n"),
                "META-INF/microprofile-config.properties");
        return ShrinkWrap.create(EnterpriseArchive.class, "bad-queues.ear").merge(archive);
    }

    @Test
    @Order(22)
    @RunAsClient
    void aBadQueuesValueFailsTheDeploymentNamingTheKey() {
        try {
            Exception e = assertThrows(Exception.class, () -> deployer.deploy("bad-queues"));
            StringBuilder messages = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
            }
            assertTrue(messages.toString().contains("gendurable.queues"), "the failure names the key:\n" + messages);
        } finally {
            try {
                deployer.undeploy("bad-queues");
            } catch (RuntimeException ignored) {
                // nothing was started
            }
        }
    }

    // ---- helpers (JDK and JUnit only: they also load inside the server) --------------------------

    private static String randomTraceId() {
        return java.util.HexFormat.of().formatHex(java.nio.ByteBuffer.allocate(16)
                .putLong(System.nanoTime()).putLong(java.util.concurrent.ThreadLocalRandom.current().nextLong() | 1).array());
    }

    /** @return the answer to a POST that carries {@code 00-<traceId>-00f067aa0ba902b7-01} as its traceparent */
    private static HttpResponse<String> traced(String path, String traceId) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + System.getProperty("it.http.port", "8180") + path))
                .timeout(Duration.ofSeconds(60)).header("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return the span of instance {@code id}'s step, once the receiver has it (60 s at most) */
    private static ReceivedSpan awaitStepSpan(long id, String step) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            for (ReceivedSpan sp : OtlpReceiver.spans()) {
                if (String.valueOf(id).equals(sp.attribute("gendurable.id")) && step.equals(sp.attribute("gendurable.step"))) {
                    return sp;
                }
            }
            Thread.sleep(200);
        }
        return fail("no span of step " + step + " of instance " + id + " among " + OtlpReceiver.spans().size()
                + " received spans: " + OtlpReceiver.spans().stream().map(ReceivedSpan::name).distinct().toList());
    }

    private static File sampleEar() {
        return new File(System.getProperty("sample.ear", "target/app/gen-durable-sample-ear.ear"));
    }

    private static <T> T lookup(String name, Class<T> type) throws NamingException {
        return type.cast(new InitialContext().lookup(name));
    }

    /** @return the engine's DataSource, by the name the sample configures (bound as java:/jdbc/gendurable) */
    private static DataSource serverDataSource() throws NamingException {
        return lookup("jdbc/gendurable", DataSource.class);
    }

    private static long countRows(DataSource ds, String where) throws SQLException {
        return count(ds, "SELECT count(*) FROM " + SCHEMA + ".gen_durable WHERE " + where);
    }

    private static long count(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return count(c, sql);
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return call("GET", path, null, null);
    }

    private static HttpResponse<String> post(String path) throws Exception {
        return call("POST", path, null, null);
    }

    /** @return the answer of WildFly's management interface (Prometheus, health) */
    private static HttpResponse<String> management(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + System.getProperty("it.management.port", "10090") + path)).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> call(String method, String path, String user, String password) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + System.getProperty("it.http.port", "8180") + path))
                .timeout(Duration.ofSeconds(60));
        if (path.contains("/gendurable/") && (method.equals("POST") || method.equals("PUT"))) {
            // an admin action: one JSON object, and the header a cross-site page cannot send
            b.method(method, HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json")
                    .header("X-Requested-With", "gen-durable-it");
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
            if (path.contains("/gendurable/")) {
                b.header("X-Requested-With", "gen-durable-it");
            }
        }
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return a top-level scalar field of a flat JSON answer */
    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"?([^\",}]*)").matcher(json);
        assertTrue(m.find(), name + " in " + json);
        return m.group(1);
    }

    /** @return the sum of a Prometheus metric's samples whose labels contain {@code label} */
    private static double sum(String prometheus, String metric, String label) {
        double total = 0;
        for (String line : prometheus.split("\n")) {
            if ((line.startsWith(metric + "{") || line.startsWith(metric + " ")) && line.contains(label)) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    private static String gendurableLines(String prometheus) {
        return String.join("\n", prometheus.lines().filter(l -> l.startsWith("gendurable_")).toList());
    }
}
