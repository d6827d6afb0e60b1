package io.gendurable.sample.it;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.sample.Billing;
import io.gendurable.sample.InvoiceJob;
import io.gendurable.sample.OrderRejected;
import io.gendurable.sample.OrderService;
import io.gendurable.sample.OrderState;
import io.gendurable.sample.OrderWorkflow;
import io.gendurable.sample.otlp.OtlpReceiver;
import io.gendurable.sample.otlp.ReceivedPoint;
import io.gendurable.sample.otlp.ReceivedSpan;
import jakarta.json.JsonObject;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.transaction.UserTransaction;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
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
import java.nio.file.Path;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The sample EAR in a real Open Liberty, one server start for the whole class, in order: deploy;
 * an EJB and a CDI-injected {@code GenDurable} run workflows to done; transactional enqueue
 * commits and rolls back (EJB and UserTransaction); the REST flow over HTTP; {@code /metrics};
 * the admin REST API (gen-durable-admin in the WAR: roles, search and inspect, signals, cancel and
 * retry, queue pause with reschedule, problem answers, the OpenAPI document, through
 * {@link AdminHttp}); the web console in headless Chromium ({@link ConsoleScenarios}); then undeploy while steps are in flight, after which no row is left {@code executing}; last, a
 * copy of the EAR with {@code gendurable.queues=default:x} fails to deploy, naming the key.
 *
 * <p>In-container tests (no {@code @RunAsClient}) run inside the sample's WAR, where this class
 * is added; they use only the JDK, JUnit and the application's own classes. Client tests read
 * the tables through {@code it.db.url} (see {@link ItDatabase}).
 */
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SampleIT {
    private static final String DEPLOYMENT = "sample";
    /** GENDURABLE_SCHEMA in the failsafe configuration (it.schema), which the server inherits. */
    private static final String SCHEMA = System.getenv().getOrDefault("GENDURABLE_SCHEMA", "gendurable_it");
    /** GENDURABLE_ENGINES_BILLING_SCHEMA in the failsafe configuration: the billing engine's schema, from the environment. */
    private static final String BILLING_SCHEMA = System.getenv().getOrDefault("GENDURABLE_ENGINES_BILLING_SCHEMA",
            "gendurable_billing");
    private static final int SLOW_INSTANCES = 8;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @ArquillianResource
    private Deployer deployer;

    @Deployment(name = DEPLOYMENT, managed = false)
    static EnterpriseArchive sample() {
        File ear = new File(System.getProperty("sample.ear", "target/app/gen-durable-sample-ear.ear"));
        EnterpriseArchive archive = ShrinkWrap.createFromZipFile(EnterpriseArchive.class, ear);
        WebArchive war = archive.getAsType(WebArchive.class, "sample.war");
        war.addClasses(SampleIT.class, ReceivedSpan.class, ReceivedPoint.class, SlowSteps.class, SlowSteps.Countdown.class, AdminHttp.class,
                DrainSignals.class, DrainSignals.Role.class);
        return archive;
    }

    // ---- deploy ---------------------------------------------------------------------------------

    @Test
    @Order(1)
    @RunAsClient
    void theSampleDeploysAndItsEngineStarts() throws Exception {
        deployer.deploy(DEPLOYMENT);
        HttpResponse<String> r = get("/sample/api/orders/instance/1");  // the engine answers (no row yet)
        assertEquals(404, r.statusCode(), r.body());
        // a clean start prints nothing a user must look up: not the engine's Hibernate unit's
        // "Database JDBC URL [undefined/unknown] … Database version: 12.0" nor "No JTA platform"
        assertTrue(logShows("uses JNDI jdbc/gendurable"), "the engine's start-up line");
        List<String> hibernate = java.nio.file.Files.readAllLines(Path.of(System.getProperty("it.server.log"))).stream()
                .filter(l -> l.contains("HHH10001005") || l.contains("HHH000489") || l.contains("undefined/unknown")).toList();
        assertTrue(hibernate.isEmpty(), () -> "Hibernate's start-up lines in messages.log: " + hibernate);
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
        // the key is free: the rolled-back insert left nothing behind
        Inserted again = orders.insertInTransaction("ejb-rollback", false);
        assertFalse(again.duplicate());
    }

    @Test
    @Order(4)
    @OperateOnDeployment(DEPLOYMENT)
    void insertAllAndSignalJoinAUserTransactionAndRollBackWithIt() throws Exception {
        GenDurable durable = CDI.current().select(GenDurable.class).get();
        UserTransaction tx = lookup("java:comp/UserTransaction", UserTransaction.class);
        Inserted parked = durable.insert(OrderWorkflow.class, OrderState.placed("utx-parked", "acme", 1),
                InsertOptions.builder().correlationKey("order:utx-parked").build());
        awaitSettled(durable, parked.id());  // parked at await_payment

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
        for (int parcel = 1; parcel <= 3; parcel++) {
            assertTrue(done.body().contains("TRK-rest-42-" + parcel), done.body());
        }
    }

    @Test
    @Order(5)
    @RunAsClient
    void aStepsSpanContinuesTheTraceOfTheRequestThatInsertedItsInstance() throws Exception {
        // the caller's trace: Liberty's server span for the POST continues it, and the engine
        // stores that span's context with the row; each step's span is its child (docs/tracing.md)
        String traceId = java.util.HexFormat.of().formatHex(java.nio.ByteBuffer.allocate(16)
                .putLong(System.nanoTime()).putLong(0x9e3779b97f4a7c15L ^ System.currentTimeMillis()).array());
        HttpResponse<String> created = HTTP.send(HttpRequest.newBuilder(uri("/sample/api/orders/traced-1"))
                .timeout(Duration.ofSeconds(60)).header("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, created.statusCode(), created.body());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<ReceivedSpan> steps = List.of();
        while (steps.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
            steps = OtlpReceiver.spans().stream()
                    .filter(sp -> sp.traceId().equals(traceId) && sp.name().startsWith("gendurable.step "))
                    .toList();
        }
        assertFalse(steps.isEmpty(), () -> "no step span with the request's trace id " + traceId + " among "
                + OtlpReceiver.spans().size() + " received spans: " + OtlpReceiver.spans().stream()
                .map(ReceivedSpan::name).distinct().toList());
        List<String> serverSpans = OtlpReceiver.spans().stream().filter(sp -> sp.traceId().equals(traceId)
                && sp.parentSpanId().equals("00f067aa0ba902b7")).map(ReceivedSpan::spanId).toList();
        List<ReceivedSpan> found = steps;
        assertTrue(found.stream().anyMatch(sp -> serverSpans.contains(sp.parentSpanId())
                        || sp.parentSpanId().equals("00f067aa0ba902b7")),
                () -> "a step span hangs under the request's server span " + serverSpans + ": " + found);
    }

    @Test
    @Order(6)
    @RunAsClient
    void theRestEndpointsRejectBadInput() throws Exception {
        assertEquals(400, post("/sample/api/orders/bad%20id").statusCode());
        assertEquals(400, get("/sample/api/orders/instance/1?wait=soon").statusCode());
        assertEquals(400, get("/sample/api/orders/instance/abc").statusCode());
        assertEquals(400, post("/sample/api/orders/rest-p?parcels=many").statusCode());
        assertEquals(404, get("/sample/api/orders/instance/999999999").statusCode());
        assertEquals(404, post("/sample/api/orders/nobody/signals/payment_settled").statusCode());
        HttpResponse<String> rolledBack = post("/sample/api/orders/rest-tx/transactional?fail=true");
        assertEquals(409, rolledBack.statusCode(), rolledBack.body());
        assertEquals(404, get("/sample/api/orders/rest-tx").statusCode(), "the rolled-back workflow does not exist");
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
    void metricsShowTheStepTimerAndPickCountersAfterTheFlows() throws Exception {
        HttpResponse<String> r = get("/metrics?scope=application");
        assertEquals(200, r.statusCode(), r.body());
        double steps = sum(r.body(), "gendurable_step_duration_seconds_count", "fsm=\"order\"");
        double picks = sum(r.body(), "gendurable_pick_count_total", "queue=\"default\"");
        double shipmentPicks = sum(r.body(), "gendurable_pick_count_total", "queue=\"shipments\"");
        // every series names its engine: the default engine's, and the billing engine's under the same names
        assertTrue(r.body().lines().filter(l -> l.startsWith("gendurable_")).allMatch(l -> l.contains("engine=\"default\"")
                || l.contains("engine=\"billing\"")), r.body());
        assertTrue(sum(r.body(), "gendurable_pick_count_total", "engine=\"billing\"") > 0, r.body());
        assertTrue(r.body().lines().anyMatch(l -> l.startsWith("gendurable_scheduler_in_flight{") && l.contains("engine=\"billing\"")
                && l.contains("queue=\"invoices\"")), r.body());
        assertTrue(r.body().lines().anyMatch(l -> l.startsWith("gendurable_scheduler_released{") && l.contains("engine=\"default\"")
                && l.contains("queue=\"shipments\"")), "the drain's total, by queue\n" + r.body());
        assertTrue(steps >= 5, "order steps timed: " + steps + "\n" + r.body());
        assertTrue(picks > 0, "picks on default: " + picks + "\n" + r.body());
        assertTrue(shipmentPicks > 0, "picks on shipments: " + shipmentPicks + "\n" + r.body());
    }

    @Test
    @Order(7)
    @RunAsClient
    void theEngineMetricsAlsoReachOpenTelemetryWithTheSameNamesAndTags() throws Exception {
        // gendurable.metrics.backend=microprofile,opentelemetry (failsafe environment): the engine's
        // instruments on mpTelemetry's OpenTelemetry, exported over OTLP every second, beside /metrics
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        double steps = 0;
        while (steps < 5 && System.nanoTime() < deadline) {
            Thread.sleep(250);
            steps = otel("gendurable.step.duration", "fsm", "order").stream().mapToDouble(ReceivedPoint::value).sum();
        }
        String received = OtlpReceiver.points().stream().map(p -> p.metric() + p.attributes()).filter(k -> k.startsWith("gendurable.")).sorted()
                .collect(java.util.stream.Collectors.joining("\n"));
        assertTrue(steps >= 5, "order steps counted by the OpenTelemetry histogram: " + steps + "\n" + received);
        assertTrue(otel("gendurable.step.duration", "fsm", "order").stream()
                .allMatch(p -> p.unit().equals("s") && p.attributes().keySet().equals(Set.of("engine", "fsm", "step", "outcome"))),
                received);
        assertTrue(otel("gendurable.pick.count", "engine", "billing").stream().mapToDouble(ReceivedPoint::value).sum() > 0,
                received);
        assertTrue(otel("gendurable.pick.count", "queue", "default").stream().mapToDouble(ReceivedPoint::value).sum() > 0,
                received);
        assertTrue(otel("gendurable.picked.rows", "queue", "shipments").stream().mapToDouble(ReceivedPoint::value).sum() > 0,
                received);
        for (String status : List.of("runnable", "executing", "awaiting_signal", "awaiting_children")) {
            assertFalse(otel("gendurable.queue.instances", "status", status).isEmpty(), status + "\n" + received);
        }
        assertFalse(otel("gendurable.outcome.stale", null, null).isEmpty(), received);
        assertEquals(Set.of("s"), otel("gendurable.queue.oldest_runnable_age", "queue", "shipments").stream()
                .map(ReceivedPoint::unit).collect(java.util.stream.Collectors.toSet()), received);

        // and MicroProfile Metrics still serves the same series at /metrics
        HttpResponse<String> r = get("/metrics?scope=application");
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(sum(r.body(), "gendurable_step_duration_seconds_count", "fsm=\"order\"") >= 5, r.body());
    }

    /** @return the points the tests' OTLP receiver holds of {@code metric}, with {@code tag=value} when a tag is given */
    private static List<ReceivedPoint> otel(String metric, String tag, String value) {
        return OtlpReceiver.points().stream().filter(p -> p.metric().equals(metric)
                && (tag == null || value.equals(p.attributes().get(tag)))).toList();
    }

    @Test
    @Order(7)
    @RunAsClient
    void healthIsReadyAndLiveAndTheQueueGaugesArePublished() throws Exception {
        HttpResponse<String> ready = get("/health/ready");
        assertEquals(200, ready.statusCode(), ready.body());
        String readyBody = ready.body().replaceAll("\\s", "");
        assertTrue(readyBody.contains("\"name\":\"gendurable\""), ready.body());
        assertTrue(readyBody.contains("\"name\":\"gendurable:billing\""), "the billing engine's own check\n" + ready.body());
        // the migrated schema is the version this engine expects (whatever the release's latest is)
        java.util.regex.Matcher expected = java.util.regex.Pattern.compile("\"expectedversion\":\"(\\d+)\"").matcher(readyBody);
        assertTrue(expected.find(), ready.body());
        assertTrue(readyBody.contains("\"schemaversion\":\"" + expected.group(1) + "\""), ready.body());
        HttpResponse<String> live = get("/health/live");
        assertEquals(200, live.statusCode(), live.body());
        assertTrue(live.body().replaceAll("\\s", "").contains("\"name\":\"gendurable-loops\""), live.body());
        assertTrue(live.body().replaceAll("\\s", "").contains("\"name\":\"gendurable-loops:billing\""), live.body());

        // cluster-wide gauges: one series per queue and status, and the oldest due row's age
        HttpResponse<String> m = get("/metrics?scope=application");
        assertEquals(200, m.statusCode(), m.body());
        for (String status : List.of("runnable", "executing", "awaiting_signal", "awaiting_children")) {
            assertTrue(m.body().lines().anyMatch(l -> l.startsWith("gendurable_queue_instances{")
                    && l.contains("queue=\"default\"") && l.contains("status=\"" + status + "\"")), status + "\n" + m.body());
        }
        assertTrue(m.body().lines().anyMatch(l -> l.startsWith("gendurable_queue_oldest_runnable_age_seconds{")
                && l.contains("queue=\"shipments\"")), m.body());
        assertTrue(m.body().lines().anyMatch(l -> l.startsWith("gendurable_queue_paused{")), m.body());
    }

    // ---- the admin REST API (gen-durable-admin in the sample's WAR) -----------------------------

    @Test
    @Order(11)
    @RunAsClient
    void adminReadsNeedARoleAndActionsTheAdminRole() throws Exception {
        assertEquals(401, AdminHttp.get(AdminHttp.ADMIN + "/summary", null).statusCode());
        assertEquals(401, AdminHttp.post(AdminHttp.ADMIN + "/signals", null,
                "{\"id\":1,\"name\":\"x\"}").statusCode());
        HttpResponse<String> wrongPassword = AdminHttp.call("GET", AdminHttp.ADMIN + "/summary", "nobody", null);
        assertEquals(401, wrongPassword.statusCode(), wrongPassword.body());

        JsonObject summary = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/summary", AdminHttp.VIEWER_USER));
        JsonObject line = queueLine(summary, "default");
        assertTrue(line.getJsonObject("counts").getJsonNumber("DONE").longValue() >= 2, summary::toString);
        AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances?pageSize=1", AdminHttp.VIEWER_USER));
        HttpResponse<String> paused = AdminHttp.get(AdminHttp.ADMIN + "/queues/paused", AdminHttp.VIEWER_USER);
        assertEquals(200, paused.statusCode(), paused.body());
        assertEquals("[]", paused.body().strip());
        AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/summary", AdminHttp.ADMIN_USER));  // the admin reads too

        // the viewer reads but may not act: 403 before anything is looked at
        assertEquals(403, AdminHttp.post(AdminHttp.ADMIN + "/instances/1/run-now", AdminHttp.VIEWER_USER, null).statusCode());
        assertEquals(403, AdminHttp.post(AdminHttp.ADMIN + "/instances/1/cancel", AdminHttp.VIEWER_USER, "{}").statusCode());
        assertEquals(403, AdminHttp.call("PUT", AdminHttp.ADMIN + "/queues/default/pause", AdminHttp.VIEWER_USER, null).statusCode());
        assertEquals(403, AdminHttp.post(AdminHttp.ADMIN + "/signals", AdminHttp.VIEWER_USER,
                "{\"id\":1,\"name\":\"x\"}").statusCode());
        assertEquals(0, AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/summary", AdminHttp.VIEWER_USER))
                .getJsonArray("paused").size(), "the refused pause paused nothing");
    }

    @Test
    @Order(12)
    @RunAsClient
    void adminSearchPagesAndInspectShowsAParkedOrder() throws Exception {
        long first = parkedOrder("adm-1");
        long second = parkedOrder("adm-2");
        String query = AdminHttp.ADMIN + "/instances?correlationKeyPrefix=order:adm-&status=AWAITING_SIGNAL&fsm=order&pageSize=1";

        JsonObject page1 = AdminHttp.ok(AdminHttp.get(query, AdminHttp.VIEWER_USER));
        assertEquals(1, page1.getJsonArray("items").size(), page1::toString);
        JsonObject newest = page1.getJsonArray("items").getJsonObject(0);
        assertEquals(second, newest.getJsonNumber("id").longValue(), "newest first");
        assertEquals("AWAITING_SIGNAL", newest.getString("status"));
        assertEquals("order:adm-2", newest.getString("correlationKey"));
        assertEquals("adm-2", newest.getJsonObject("state").getString("orderId"), "the state as JSON");
        String cursor = page1.getString("nextCursor");

        JsonObject page2 = AdminHttp.ok(AdminHttp.get(query + "&cursor="
                + java.net.URLEncoder.encode(cursor, java.nio.charset.StandardCharsets.UTF_8), AdminHttp.VIEWER_USER));
        assertEquals(first, page2.getJsonArray("items").getJsonObject(0).getJsonNumber("id").longValue(), page2::toString);
        if (!page2.isNull("nextCursor")) {
            JsonObject page3 = AdminHttp.ok(AdminHttp.get(query + "&cursor="
                    + java.net.URLEncoder.encode(page2.getString("nextCursor"), java.nio.charset.StandardCharsets.UTF_8),
                    AdminHttp.VIEWER_USER));
            assertEquals(0, page3.getJsonArray("items").size(), page3::toString);
        }
        JsonObject oldest = AdminHttp.ok(AdminHttp.get(query.replace("pageSize=1", "pageSize=5") + "&order=OLDEST_FIRST",
                AdminHttp.VIEWER_USER));
        assertEquals(List.of(first, second), oldest.getJsonArray("items").stream()
                .map(v -> v.asJsonObject().getJsonNumber("id").longValue()).toList());

        JsonObject details = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + first, AdminHttp.VIEWER_USER));
        assertEquals(first, details.getJsonObject("instance").getJsonNumber("id").longValue());
        assertEquals("ship", details.getJsonObject("instance").getString("step"));
        assertEquals("payment_settled", details.getJsonObject("instance").getJsonArray("awaits").getString(0));
        assertEquals(0, details.getInt("pendingSignalCount"));
        assertEquals(0, details.getInt("childrenTotal"));
    }

    @Test
    @Order(13)
    @RunAsClient
    void adminSignalsByKeyWithADedupKeyAndById() throws Exception {
        // a name the workflow does not await stays in the inbox, so its dedup key holds
        String note = "{\"correlationKey\":\"order:adm-1\",\"name\":\"operator_note\",\"payload\":{\"ref\":\"n-1\"},"
                + "\"dedupKey\":\"note-1\"}";
        assertEquals("DELIVERED", AdminHttp.ok(AdminHttp.post(AdminHttp.ADMIN + "/signals", AdminHttp.ADMIN_USER, note))
                .getString("result"));
        assertEquals("DUPLICATE", AdminHttp.ok(AdminHttp.post(AdminHttp.ADMIN + "/signals", AdminHttp.ADMIN_USER, note))
                .getString("result"));
        long id = orderId("adm-1");
        JsonObject details = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + id, AdminHttp.VIEWER_USER));
        assertEquals(1, details.getInt("pendingSignalCount"), details::toString);
        JsonObject pending = details.getJsonArray("pendingSignals").getJsonObject(0);
        assertEquals("operator_note", pending.getString("name"));
        assertEquals("note-1", pending.getString("dedupKey"));
        assertEquals("n-1", pending.getJsonObject("payload").getString("ref"));

        assertEquals("DELIVERED", AdminHttp.ok(AdminHttp.post(AdminHttp.ADMIN + "/signals", AdminHttp.ADMIN_USER,
                "{\"correlationKey\":\"order:adm-1\",\"name\":\"payment_settled\",\"dedupKey\":\"adm-1-paid\"}"))
                .getString("result"));
        HttpResponse<String> done = get("/sample/api/orders/instance/" + id + "?wait=PT30S");
        assertEquals(200, done.statusCode(), done.body());
        assertTrue(done.body().contains("TRK-adm-1-2"), done.body());

        assertEquals("NO_TARGET", AdminHttp.ok(AdminHttp.post(AdminHttp.ADMIN + "/signals", AdminHttp.ADMIN_USER,
                "{\"id\":" + id + ",\"name\":\"payment_settled\"}")).getString("result"), "a finished instance");
    }

    @Test
    @Order(14)
    @RunAsClient
    void adminCancelsAndRetriesWithANewStepAndState() throws Exception {
        long id = orderId("adm-2");
        JsonObject cancelled = AdminHttp.ok(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + id + "/cancel",
                AdminHttp.ADMIN_USER, "{\"reason\":\"customer called\",\"withDescendants\":true}"));
        assertEquals("CANCELLED", cancelled.getJsonObject("instance").getString("status"));
        assertEquals("customer called", cancelled.getJsonObject("instance").getString("lastError"));
        assertEquals(0, cancelled.getInt("childrenCancelled"));
        JsonObject again = AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + id + "/cancel",
                AdminHttp.ADMIN_USER, null), 409, "instance-state", "CANCELLED");
        assertEquals("CANCELLED", again.getString("currentStatus"));
        assertEquals(id, again.getJsonNumber("id").longValue());

        // run again from await_payment with one parcel instead of two
        JsonObject state = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + id, AdminHttp.VIEWER_USER))
                .getJsonObject("instance").getJsonObject("state");
        assertEquals(2, state.getInt("parcels"));
        String newState = jakarta.json.Json.createObjectBuilder(state).add("parcels", 1).build().toString();
        JsonObject retried = AdminHttp.ok(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + id + "/retry",
                AdminHttp.ADMIN_USER, "{\"fromStep\":\"await_payment\",\"state\":" + newState + "}"));
        assertEquals(id, retried.getJsonNumber("id").longValue());
        assertEquals(1, retried.getInt("attempt"));
        assertEquals(1, retried.getJsonObject("state").getInt("parcels"));
        awaitParked(id);
        assertEquals("DELIVERED", AdminHttp.ok(AdminHttp.post(AdminHttp.ADMIN + "/signals", AdminHttp.ADMIN_USER,
                "{\"id\":" + id + ",\"name\":\"payment_settled\"}")).getString("result"));
        HttpResponse<String> done = get("/sample/api/orders/instance/" + id + "?wait=PT30S");
        assertEquals(200, done.statusCode(), done.body());
        assertTrue(done.body().contains("TRK-adm-2-1") && !done.body().contains("TRK-adm-2-2"), done.body());

        // a retry whose correlation key another live instance took meanwhile
        long old = parkedOrder("adm-3");
        AdminHttp.ok(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + old + "/cancel", AdminHttp.ADMIN_USER, null));
        long holder = parkedOrder("adm-3");
        JsonObject held = AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + old + "/retry",
                AdminHttp.ADMIN_USER, null), 409, "correlation-key-held", "order:adm-3");
        assertEquals(holder, held.getJsonNumber("holderId").longValue());
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + old + "/retry", AdminHttp.ADMIN_USER,
                "{\"state\":\"not an order\"}"), 400, "invalid-input", "state");
    }

    @Test
    @Order(15)
    @RunAsClient
    void adminPausesAQueueReschedulesWhileItWaitsAndResumesIt() throws Exception {
        String pause = AdminHttp.ADMIN + "/queues/default/pause";
        try {
            JsonObject paused = AdminHttp.ok(AdminHttp.call("PUT", pause, AdminHttp.ADMIN_USER, "{\"reason\":\"it: maintenance\"}"));
            assertEquals("default", paused.getString("queue"));
            assertEquals("it: maintenance", paused.getString("reason"));
            assertEquals(AdminHttp.ADMIN_USER, paused.getString("pausedBy"), "the caller's principal is recorded");
            JsonObject summary = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/summary", AdminHttp.VIEWER_USER));
            assertTrue(queueLine(summary, "default").getBoolean("paused"), summary::toString);
            assertTrue(AdminHttp.get(AdminHttp.ADMIN + "/queues/paused", AdminHttp.VIEWER_USER).body().contains("\"default\""));

            HttpResponse<String> created = post("/sample/api/orders/adm-4");
            assertEquals(201, created.statusCode(), created.body());
            long id = Long.parseLong(field(created.body(), "id"));
            String instance = AdminHttp.ADMIN + "/instances/" + id;

            JsonObject later = AdminHttp.ok(AdminHttp.post(instance + "/reschedule", AdminHttp.ADMIN_USER,
                    "{\"at\":\"2099-01-01T00:00:00Z\"}"));
            assertEquals("RUNNABLE", later.getString("status"), "nobody claims from a paused queue");
            assertEquals("2099-01-01T00:00:00Z", later.getString("eligibleAt"));
            assertEquals(3, AdminHttp.ok(AdminHttp.post(instance + "/priority", AdminHttp.ADMIN_USER, "{\"priority\":3}"))
                    .getInt("priority"));
            JsonObject now = AdminHttp.ok(AdminHttp.post(instance + "/run-now", AdminHttp.ADMIN_USER, null));
            assertTrue(java.time.Instant.parse(now.getString("eligibleAt")).isBefore(java.time.Instant.parse("2099-01-01T00:00:00Z")),
                    now::toString);
            assertEquals(3, now.getInt("priority"));

            assertTrue(AdminHttp.ok(AdminHttp.call("DELETE", pause, AdminHttp.ADMIN_USER, null)).getBoolean("wasPaused"));
            awaitParked(id);  // resumed: a node claims it again
            AdminHttp.problem(AdminHttp.post(instance + "/run-now", AdminHttp.ADMIN_USER, null), 409, "instance-state",
                    "AWAITING_SIGNAL");
        } finally {
            AdminHttp.call("DELETE", pause, AdminHttp.ADMIN_USER, null);
        }
        assertFalse(AdminHttp.ok(AdminHttp.call("DELETE", pause, AdminHttp.ADMIN_USER, null)).getBoolean("wasPaused"));
    }

    @Test
    @Order(16)
    @RunAsClient
    void adminErrorsAreProblemsNamingTheField() throws Exception {
        String admin = AdminHttp.ADMIN_USER;
        long parked = orderId("adm-4");
        AdminHttp.problem(AdminHttp.get(AdminHttp.ADMIN + "/instances/abc", admin), 400, "invalid-input", "id must be a whole number");
        AdminHttp.problem(AdminHttp.get(AdminHttp.ADMIN + "/instances?stauts=FAILED", admin), 400, "invalid-input", "'stauts'");
        AdminHttp.problem(AdminHttp.get(AdminHttp.ADMIN + "/instances?status=LOST", admin), 400, "invalid-input", "status must be");
        AdminHttp.problem(AdminHttp.get(AdminHttp.ADMIN + "/instances?pageSize=0", admin), 400, "invalid-input", "pageSize");
        AdminHttp.problem(AdminHttp.get(AdminHttp.ADMIN + "/instances?cursor=forged", admin), 400, "invalid-input", "cursor");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + parked + "/priority", admin, "{\"priority\":-1}"),
                400, "invalid-input", "priority must be 0 or more");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + parked + "/priority", admin, "{}"),
                400, "invalid-input", "priority is required");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + parked + "/reschedule", admin, "{\"at\":\"soon\"}"),
                400, "invalid-input", "at must be an ISO-8601 instant");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + parked + "/cancel", admin, "{\"withDescendents\":true}"),
                400, "invalid-input", "unknown field 'withDescendents'");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + parked + "/cancel", admin, "{not json"),
                400, "invalid-input", "the body must be a JSON object");
        AdminHttp.problem(AdminHttp.call("PUT", AdminHttp.ADMIN + "/queues/bad%20queue/pause", admin, null),
                400, "invalid-input", "queue must be");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/signals", admin, "{\"name\":\"x\"}"),
                400, "invalid-input", "exactly one of id and correlationKey");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/signals", admin, "{\"id\":" + parked + "}"),
                400, "invalid-input", "name is required");
        JsonObject missing = AdminHttp.problem(AdminHttp.get(AdminHttp.ADMIN + "/instances/999999999", AdminHttp.VIEWER_USER),
                404, "no-such-instance", "999999999");
        assertEquals(999999999L, missing.getJsonNumber("id").longValue());
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/999999999/retry", admin, null),
                404, "no-such-instance", "999999999");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + parked + "/retry", admin, null),
                409, "instance-state", "AWAITING_SIGNAL");
        assertEquals(0, AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/summary", admin)).getJsonArray("paused").size(),
                "the refused pause of 'bad queue' paused nothing");
    }

    @Test
    @Order(16)
    @RunAsClient
    void bulkActionsCountWhatTheyDidAndRefuseASearchWithoutFilter() throws Exception {
        String admin = AdminHttp.ADMIN_USER;
        JsonObject none = AdminHttp.ok(AdminHttp.post(AdminHttp.ADMIN + "/instances/bulk/retry?fsm=no-such-fsm", admin, null));
        assertEquals(0, none.getInt("matched"), none::toString);
        assertEquals(0, none.getInt("applied"), none::toString);
        HttpResponse<String> everything = AdminHttp.post(AdminHttp.ADMIN + "/instances/bulk/purge", admin, null);
        assertEquals(400, everything.statusCode(), everything.body());
        assertTrue(everything.body().contains("at least one filter"), everything.body());
        assertEquals(403, AdminHttp.post(AdminHttp.ADMIN + "/instances/bulk/cancel?fsm=order", AdminHttp.VIEWER_USER, "{}")
                .statusCode());
        long parked = parkedOrder("bulk-1");
        JsonObject cancelled = AdminHttp.ok(AdminHttp.post(AdminHttp.ADMIN
                + "/instances/bulk/cancel?correlationKey=order:bulk-1", admin, "{\"reason\":\"bulk test\"}"));
        assertEquals(1, cancelled.getInt("applied"), cancelled::toString);
        JsonObject details = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + parked, admin));
        assertEquals("CANCELLED", details.getJsonObject("instance").getString("status"), details::toString);
    }

    @Test
    @Order(26)
    @RunAsClient
    void readinessIsDownWhileTheDatabaseIsUnreachableAndUpAgainAfter() throws Exception {
        TcpProxy link = ItDatabase.serverLink;
        org.junit.jupiter.api.Assumptions.assumeTrue(link != null,
                "an external GENDURABLE_TEST_DB_URL: no proxy between the server and its database to cut");
        assertEquals(200, get("/health/ready").statusCode());
        link.mode(TcpProxy.Mode.REFUSE);
        try {
            long t0 = System.nanoTime();
            HttpResponse<String> down = get("/health/ready");
            while (down.statusCode() != 503 && System.nanoTime() - t0 < 15_000_000_000L) {
                Thread.sleep(200);
                down = get("/health/ready");
            }
            assertEquals(503, down.statusCode(), down.body());
            assertTrue(down.body().replaceAll("\\s", "").contains("\"status\":\"DOWN\""), down.body());
            assertEquals(200, get("/health/live").statusCode(), "a database outage makes the node unready, not dead");
            // an admin read meanwhile: a 5xx problem with a fixed detail and the id of the log record
            // holding the cause (before: the server's 500, with "JDBCConnectionException … 127.0.0.1:… refused" in a header)
            HttpResponse<String> failed = AdminHttp.get(AdminHttp.ADMIN + "/instances/1", AdminHttp.VIEWER_USER);
            JsonObject problem = AdminHttp.object(failed.body());
            assertTrue(failed.statusCode() >= 500, failed::body);
            assertEquals("urn:gendurable:problem:internal-error", problem.getString("type"), failed.body());
            String id = problem.getString("problemId");
            assertEquals("the server could not complete the request; its log has the cause under problem id " + id,
                    problem.getString("detail"));
            assertLeaksNothing(failed);
            assertTrue(logShows("gen-durable-admin: problem " + id), "the log names the problem id " + id);
        } finally {
            link.mode(TcpProxy.Mode.FORWARD);
        }
        long t1 = System.nanoTime();
        HttpResponse<String> up = get("/health/ready");
        while (up.statusCode() != 200 && System.nanoTime() - t1 < 30_000_000_000L) {
            Thread.sleep(500);
            up = get("/health/ready");
        }
        assertEquals(200, up.statusCode(), up.body());
    }

    @Test
    @Order(17)
    @RunAsClient
    void theOpenApiDocumentListsTheAdminPaths() throws Exception {
        HttpResponse<String> r = get("/openapi");
        assertEquals(200, r.statusCode(), r.body());
        for (String path : List.of("/gendurable/instances:", "/gendurable/instances/{id}:", "/gendurable/instances/{id}/cancel:",
                "/gendurable/instances/{id}/retry:", "/gendurable/instances/{id}/run-now:",
                "/gendurable/instances/{id}/reschedule:", "/gendurable/instances/{id}/priority:", "/gendurable/summary:",
                "/gendurable/queues/paused:", "/gendurable/queues/{queue}/pause:", "/gendurable/signals:")) {
            assertTrue(r.body().contains(path), () -> "the document lists " + path + "\n" + r.body());
        }
        assertTrue(r.body().contains("application/problem+json"), "problem responses are documented");
        assertTrue(r.body().contains("gendurable-basic"), "the security scheme is documented");
    }

    @Test
    @Order(16)
    @RunAsClient
    void adminActionsTakeOnlyOneJsonObjectWithAHeaderACrossSitePageCannotSend() throws Exception {
        long id = parkedOrder("adm-xs-rest");
        String cancel = AdminHttp.ADMIN + "/instances/" + id + "/cancel";
        String admin = AdminHttp.ADMIN_USER;
        String json = "application/json";
        // what a form or a no-cors fetch of another site makes a browser send, with the admin's credentials
        AdminHttp.problem(AdminHttp.raw("POST", cancel, admin, "{\"reason\":\"x\"}", "Content-Type", "text/plain"),
                403, "cross-site-request", "X-Requested-With");
        AdminHttp.problem(AdminHttp.raw("POST", cancel, admin, "", "Content-Type", "application/x-www-form-urlencoded",
                "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"), 403, "cross-site-request", "X-Requested-With");
        AdminHttp.problem(AdminHttp.raw("POST", AdminHttp.ADMIN + "/instances/bulk/cancel?correlationKeyPrefix=order:adm-xs-",
                admin, "", "Content-Type", "application/x-www-form-urlencoded"), 403, "cross-site-request", "X-Requested-With");
        // another site's Origin, even with the header and JSON
        AdminHttp.problem(AdminHttp.raw("POST", cancel, admin, "{}", "X-Requested-With", "x", "Content-Type", json,
                "Origin", "http://evil.example"), 403, "cross-site-request", "Origin");
        // the header, but not declared JSON
        AdminHttp.problem(AdminHttp.raw("POST", cancel, admin, "{}", "X-Requested-With", "x", "Content-Type", "text/plain"),
                415, "unsupported-media-type", "application/json");
        AdminHttp.problem(AdminHttp.raw("POST", AdminHttp.ADMIN + "/instances/" + id + "/run-now", admin, null,
                "X-Requested-With", "x"), 415, "unsupported-media-type", "application/json");
        // JSON and the header, but not exactly one object
        // (nesting 1,001 deep: before, past the parser's own limit, a 500)
        for (String body : new String[]{"", "{}{}", "{\"reason\":\"a\",\"reason\":\"b\"}", "{\"reason\":\"a\"} x", "[]",
                "{\"reason\":" + "[".repeat(1_001) + "]".repeat(1_001) + "}"}) {
            AdminHttp.problem(AdminHttp.raw("POST", cancel, admin, body, "X-Requested-With", "x", "Content-Type", json),
                    400, "invalid-input", "the body ");
        }
        assertEquals("AWAITING_SIGNAL", AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + id, AdminHttp.VIEWER_USER))
                .getJsonObject("instance").getString("status"), "none of these ran");
        // the server's own Origin alone is enough (a browser on the console's page); so is the header alone (curl)
        AdminHttp.problem(AdminHttp.raw("POST", AdminHttp.ADMIN + "/instances/" + id + "/run-now", admin, "{}",
                "Content-Type", json, "Origin", "http://localhost:" + System.getProperty("it.http.port", "9081")),
                409, "instance-state", "AWAITING_SIGNAL");
        JsonObject cancelled = AdminHttp.ok(AdminHttp.raw("POST", cancel, admin, "{\"reason\":\"it: the header\"}",
                "Content-Type", json, "X-Requested-With", "curl"));
        assertEquals("CANCELLED", cancelled.getJsonObject("instance").getString("status"));
    }

    @Test
    @Order(16)
    @RunAsClient
    void anOperatorsTextCannotForgeALogLineAndEveryActionLeavesOneAuditRecord() throws Exception {
        long id = parkedOrder("adm-log");
        String cancel = AdminHttp.ADMIN + "/instances/" + id + "/cancel";
        String forged = "gen-durable operator action RESUME_QUEUE on queue default by viewer";
        AdminHttp.problem(AdminHttp.post(cancel, AdminHttp.ADMIN_USER, "{\"reason\":\"x\\r\\n" + forged + "\"}"),
                400, "invalid-input", "reason must not contain control characters");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/instances/" + id + "/retry", AdminHttp.ADMIN_USER,
                "{\"fromStep\":\"ship\\n" + forged + "\"}"), 400, "invalid-input", "fromStep must not contain control characters");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/signals", AdminHttp.ADMIN_USER, "{\"id\":" + id
                + ",\"name\":\"payment_settled\\u2028" + forged + "\"}"), 400, "invalid-input", "name must not contain control characters");
        AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/signals", AdminHttp.ADMIN_USER, "{\"id\":" + id
                + ",\"name\":\"payment_settled\",\"dedupKey\":\"k\\u001b[2K\"}"), 400, "invalid-input",
                "dedupKey must not contain control characters");
        assertEquals("AWAITING_SIGNAL", AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/instances/" + id, AdminHttp.VIEWER_USER))
                .getJsonObject("instance").getString("status"));
        AdminHttp.ok(AdminHttp.post(cancel, AdminHttp.ADMIN_USER, "{\"reason\":\"it: audited\"}"));

        String done = "gen-durable-admin action {\"method\":\"POST\",\"path\":\"" + cancel + "\",\"user\":\"admin\",\"status\":200,"
                + "\"fields\":{\"reason\":\"it: audited\"}}";
        assertTrue(logShows(done), () -> "the audit record " + done + " in the server's log");
        List<String> all = java.nio.file.Files.readAllLines(Path.of(System.getProperty("it.server.log")));
        assertTrue(all.stream().anyMatch(l -> l.contains("gen-durable-admin action {\"method\":\"POST\",\"path\":\"" + cancel
                + "\",\"user\":\"admin\",\"status\":400,\"problem\":\"urn:gendurable:problem:invalid-input\",\"fields\":{\"reason\":\"x\\r\\n"
                + forged + "\"}}")), "the refused one is audited too, its reason escaped on the same line");
        assertFalse(all.stream().anyMatch(l -> l.startsWith(forged) || l.startsWith(" " + forged)), "no forged line");
        int at = all.indexOf(all.stream().filter(l -> l.contains(done)).findFirst().orElseThrow());
        assertTrue(at == all.size() - 1 || all.get(at + 1).startsWith("["), () -> "the record is one line: " + all.get(at + 1));
    }

    @Test
    @Order(16)
    @RunAsClient
    void adminErrorsAreProblemsWithFixedDetailsAndNoHeaderNamesAnException() throws Exception {
        // before: Open Liberty's MicroProfile Metrics added "io.openliberty….MetricsRestfulWsEMCallbackImpl.Exception:
        // <class: message>" to every answer of its own exception mapper, anonymous 404s included
        List<HttpResponse<String>> answers = List.of(
                AdminHttp.get(AdminHttp.ADMIN + "/console/nope.js", null),
                AdminHttp.get(AdminHttp.ADMIN + "/nope", null),
                AdminHttp.get(AdminHttp.ADMIN + "/instances/1/nope", AdminHttp.VIEWER_USER),
                AdminHttp.raw("DELETE", AdminHttp.ADMIN + "/summary", AdminHttp.VIEWER_USER, null, "X-Requested-With", "it"));
        for (HttpResponse<String> r : answers) {
            assertTrue(r.statusCode() == 404 || r.statusCode() == 405, () -> r.request().uri() + ": " + r.statusCode() + " " + r.body());
            assertEquals("nosniff", r.headers().firstValue("X-Content-Type-Options").orElse(null), r.headers().map()::toString);
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                    () -> r.request().uri() + ": " + r.headers().map() + " " + r.body());
            assertLeaksNothing(r);
        }
    }

    /**
     * @return whether a line of the server's messages.log contains {@code text}, reading it again
     * for up to 30 s (the server may write a record just after its answer)
     */
    private static boolean logShows(String text) throws Exception {
        Path log = Path.of(System.getProperty("it.server.log"));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            if (java.nio.file.Files.readAllLines(log).stream().anyMatch(l -> l.contains(text))) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(100);
        }
    }

    /** Asserts that no header is named after an exception or holds one, and that the body names none. */
    private static void assertLeaksNothing(HttpResponse<String> r) {
        r.headers().map().forEach((name, values) -> {
            assertFalse(name.toLowerCase(java.util.Locale.ROOT).contains("exception"), () -> r.request().uri() + ": " + name + ": " + values);
            values.forEach(v -> assertFalse(v.contains("Exception") || v.contains("54329"), () -> r.request().uri() + ": " + name + ": " + v));
        });
        assertFalse(r.body().contains("Exception") || r.body().contains("54329") || r.body().contains("127.0.0.1"),
                () -> r.request().uri() + ": " + r.body());
    }

    @Test
    @Order(16)
    @RunAsClient
    void theConsoleRedirectIgnoresTheHostHeader() throws Exception {
        // before: Location: http://evil.example/sample/api/gendurable/console/ (built from the Host header)
        String answer;
        try (java.net.Socket s = new java.net.Socket("localhost", Integer.parseInt(System.getProperty("it.http.port", "9081")))) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(("GET " + AdminHttp.ADMIN + "/console HTTP/1.1\r\nHost: evil.example\r\n"
                    + "Connection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        String head = answer.substring(0, Math.max(0, answer.indexOf("\r\n\r\n")));
        assertTrue(head.startsWith("HTTP/1.1 303"), head);
        assertTrue(head.lines().anyMatch(l -> l.equalsIgnoreCase("Location: console/")), head);
        assertFalse(head.contains("evil.example"), head);
    }

    @Test
    @Order(16)
    @RunAsClient
    void adminAnswersAreNeitherSniffedNorStoredAndQuoteLittle() throws Exception {
        HttpResponse<String> summary = AdminHttp.get(AdminHttp.ADMIN + "/summary", AdminHttp.VIEWER_USER);
        assertEquals(200, summary.statusCode());
        assertEquals("nosniff", summary.headers().firstValue("X-Content-Type-Options").orElse(null), summary.headers().map()::toString);
        assertEquals("no-store", summary.headers().firstValue("Cache-Control").orElse(null), summary.headers().map()::toString);
        HttpResponse<String> js = AdminHttp.get(AdminHttp.ADMIN + "/console/console.js", null);
        assertTrue(js.headers().firstValue("Cache-Control").orElse("").startsWith("no-cache"), "the console's files are revalidated");
        String name = "n".repeat(5_000);
        JsonObject unknown = AdminHttp.problem(AdminHttp.post(AdminHttp.ADMIN + "/schedules/" + name + "/trigger",
                AdminHttp.ADMIN_USER, null), 404, "no-such-schedule", "no schedule is named");
        assertTrue(unknown.getString("detail").length() < 200, () -> "the name is not echoed whole: " + unknown.getString("detail"));
        assertEquals("n".repeat(80) + "…", unknown.getString("name"));
    }

    /** {@link CrossSiteScenarios#aCrossSitePageInTheAdminsBrowserRunsNoAction}. */
    @Test
    @Order(16)
    @RunAsClient
    void aCrossSitePageInTheAdminsBrowserRunsNoAction() throws Exception {
        CrossSiteScenarios.aCrossSitePageInTheAdminsBrowserRunsNoAction(SampleIT::parkedOrder);
    }

    private static JsonObject queueLine(JsonObject summary, String queue) {
        return summary.getJsonArray("queues").stream().map(jakarta.json.JsonValue::asJsonObject)
                .filter(q -> q.getString("queue").equals(queue)).findFirst()
                .orElseThrow(() -> new AssertionError("no line for queue " + queue + " in " + summary));
    }

    /** Starts an order's workflow through the sample's API and waits until it is parked for its payment. */
    private static long parkedOrder(String orderId) throws Exception {
        HttpResponse<String> created = post("/sample/api/orders/" + orderId);
        assertEquals(201, created.statusCode(), created.body());
        long id = Long.parseLong(field(created.body(), "id"));
        awaitParked(id);
        return id;
    }

    private static void awaitParked(long id) throws Exception {
        HttpResponse<String> parked = get("/sample/api/orders/instance/" + id + "?wait=PT30S&until=settled");
        assertEquals(202, parked.statusCode(), parked.body());
        assertTrue(parked.body().contains("AWAITING_SIGNAL"), parked.body());
    }

    /** @return the id of the order's live workflow */
    private static long orderId(String orderId) throws Exception {
        HttpResponse<String> r = get("/sample/api/orders/" + orderId);
        assertEquals(200, r.statusCode(), r.body());
        return Long.parseLong(field(r.body(), "id"));
    }

    // ---- the web console in a real browser (ConsoleScenarios: Selenium, client side only) --------

    @Test
    @Order(18)
    @OperateOnDeployment(DEPLOYMENT)
    void workThatNoNodeRunsWaitsForTheConsolesAlerts() {
        // a job routed to a queue no node claims from, and one whose rate limit no node configures:
        // both stay runnable, and the summary's alerts (NO_NODE_SERVES, UNKNOWN_RATE_LIMIT) name them
        GenDurable durable = CDI.current().select(GenDurable.class).get();
        durable.insert(io.gendurable.sample.ShipmentJob.class, new io.gendurable.sample.Shipment("ui-alert", 1),
                InsertOptions.builder().queue("overnight").build());
        durable.insert(io.gendurable.sample.ShipmentJob.class, new io.gendurable.sample.Shipment("ui-alert", 2),
                InsertOptions.builder().rateLimit("carrier-api").build());
    }

    @Test
    @Order(18)
    @RunAsClient
    void theConsoleIsServedAndMeAnswersWithoutABasicChallenge() throws Exception {
        ConsoleScenarios.theConsoleIsServedAndMeAnswersWithoutABasicChallenge();
    }

    @Test
    @Order(19)
    @RunAsClient
    void consoleAWrongPasswordShowsTheFormsMessage() {
        ConsoleScenarios.aWrongPasswordShowsTheFormsMessage();
    }

    /** {@link ConsoleSessionScenarios#theSessionSignInIsCheckedLikeTheApiAndEndsOnSignOut}. */
    @Test
    @Order(19)
    @RunAsClient
    void consoleSessionSignInIsCheckedLikeTheApiAndEndsOnSignOut() throws Exception {
        ConsoleSessionScenarios.theSessionSignInIsCheckedLikeTheApiAndEndsOnSignOut();
    }

    /** {@link ConsoleSessionScenarios#theConsoleKeepsNoPasswordWhereAScriptCanReadIt}. */
    @Test
    @Order(19)
    @RunAsClient
    void consoleKeepsNoPasswordWhereAScriptCanReadIt() throws Exception {
        ConsoleSessionScenarios.theConsoleKeepsNoPasswordWhereAScriptCanReadIt();
    }

    @Test
    @Order(17)
    @OperateOnDeployment(DEPLOYMENT)
    void theBillingEngineRunsItsOwnJobOnItsOwnSchemaAndTheWorkNeverMixes() throws Exception {
        GenDurable orders = CDI.current().select(GenDurable.class).get();
        Billing billing = CDI.current().select(Billing.class).get();

        Inserted invoice = billing.invoice("engines-1");  // the IT database may keep rows of earlier runs
        AwaitResult done = billing.engine().await(invoice.id(), Duration.ofSeconds(60), AwaitUntil.TERMINAL);
        AwaitResult.Done d = assertInstanceOf(AwaitResult.Done.class, done, () -> "got " + done);
        assertEquals("\"INV-engines-1\"", d.result().json());

        DataSource ds = serverDataSource();
        // the billing engine's schema comes from GENDURABLE_ENGINES_BILLING_SCHEMA, over the sample's properties
        assertFalse(BILLING_SCHEMA.equals("gendurable_billing"), "the failsafe configuration sets the variable");
        assertEquals(1, count(ds, "SELECT count(*) FROM " + BILLING_SCHEMA + ".gen_durable WHERE fsm = 'invoice' AND id = "
                + invoice.id()));
        assertEquals(0, count(ds, "SELECT count(*) FROM " + BILLING_SCHEMA + ".gen_durable WHERE fsm <> 'invoice'"));
        assertEquals(0, countRows(ds, "fsm = 'invoice'"));
        // the default engine does not know the billing engine's job
        assertThrows(IllegalArgumentException.class, () -> orders.insert(InvoiceJob.class, "engines-2"));
        assertEquals(0, countRows(ds, "fsm = 'invoice'"));
    }

    @Test
    @Order(18)
    @RunAsClient
    void theAdminApiOperatesTheEngineItsEngineParameterNames() throws Exception {
        JsonObject engines = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/engines", AdminHttp.VIEWER_USER));
        assertEquals("[\"default\",\"billing\"]", engines.getJsonArray("engines").toString());

        // the billing engine's invoice is found through engine=billing, and only there
        String invoices = "/instances?fsm=invoice";
        JsonObject billing = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + invoices + "&engine=billing", AdminHttp.VIEWER_USER));
        assertFalse(billing.getJsonArray("items").isEmpty(), billing::toString);
        JsonObject byDefault = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + invoices, AdminHttp.VIEWER_USER));
        assertTrue(byDefault.getJsonArray("items").isEmpty(), byDefault::toString);
        JsonObject summary = AdminHttp.ok(AdminHttp.get(AdminHttp.ADMIN + "/summary?engine=billing", AdminHttp.VIEWER_USER));
        assertTrue(summary.toString().contains("\"queue\":\"invoices\""), summary::toString);
        assertFalse(summary.toString().contains("\"queue\":\"shipments\""), summary::toString);

        HttpResponse<String> unknown = AdminHttp.get(AdminHttp.ADMIN + "/summary?engine=nope", AdminHttp.VIEWER_USER);
        assertEquals(400, unknown.statusCode(), unknown.body());
        assertTrue(unknown.body().contains("no engine named 'nope'; engines: [default, billing]"), unknown.body());
    }

    @Test
    @Order(20)
    @RunAsClient
    void consoleAnAdminFindsAFailedOrderReadsItsErrorRetriesItAndSeesItDone() throws Exception {
        ConsoleScenarios.anAdminFindsAFailedOrderReadsItsErrorRetriesItAndSeesItDone();
    }

    @Test
    @Order(21)
    @RunAsClient
    void consoleAnAdminCancelsAParkedOrder() throws Exception {
        ConsoleScenarios.anAdminCancelsAParkedOrder();
    }

    @Test
    @Order(22)
    @RunAsClient
    void consoleAnAdminPausesAndResumesAQueueAndSeesTheCountsStopAndMove() throws Exception {
        ConsoleScenarios.anAdminPausesAndResumesAQueueAndSeesTheCountsStopAndMove();
    }

    @Test
    @Order(23)
    @RunAsClient
    void consoleABadSignalPayloadShowsTheApisMessage() throws Exception {
        ConsoleScenarios.aBadSignalPayloadShowsTheApisMessage();
    }

    @Test
    @Order(24)
    @RunAsClient
    void consoleTheFsmView() {
        ConsoleScenarios.theFsmView();
    }

    @Test
    @Order(24)
    @RunAsClient
    void consoleAnUnknownAddressShowsNoSuchView() {
        ConsoleScenarios.anUnknownAddressShowsNoSuchView();
    }

    @Test
    @Order(24)
    @RunAsClient
    void consoleTheEngineSelectorShowsTheBillingEnginesQueues() {
        ConsoleScenarios.theEngineSelectorShowsTheBillingEnginesQueues();
    }

    @Test
    @Order(25)
    @RunAsClient
    void consoleAViewerSeesNoActionsAndADirectPostIsRefused() throws Exception {
        try {
            ConsoleScenarios.aViewerSeesNoActionsAndADirectPostIsRefused();
        } finally {
            ConsoleScenarios.close();
        }
    }

    // ---- undeploy -------------------------------------------------------------------------------

    @Test
    @Order(27)
    @OperateOnDeployment(DEPLOYMENT)
    void slowWorkIsInFlight() throws Exception {
        GenDurable durable = CDI.current().select(GenDurable.class).get();
        List<NewInstance> slow = new ArrayList<>();
        for (int i = 0; i < SLOW_INSTANCES; i++) {
            slow.add(NewInstance.of(SlowSteps.class, new SlowSteps.Countdown(1000)));
        }
        durable.insertAll(slow);
        DataSource ds = serverDataSource();
        // a sender whose step signals a parked waiter while the undeploy drains (DrainSignals)
        long waiter = durable.insert(DrainSignals.class, new DrainSignals.Role(null)).id();
        awaitSettled(durable, waiter);
        durable.insert(DrainSignals.class, new DrainSignals.Role(waiter));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (countRows(ds, "fsm = 'it-slow' AND status = 'executing'") == 0) {
            if (System.nanoTime() > deadline) {
                fail("no it-slow step started within 30 s");
            }
            Thread.sleep(50);
        }
    }

    @Test
    @Order(28)
    @RunAsClient
    void undeployDrainsAndLeavesNoRowExecuting() throws Exception {
        String url = System.getProperty("it.db.url");
        try (Connection c = DriverManager.getConnection(url)) {
            // the 8 instances run in lock-step: each time they reach the inline-chain limit together,
            // all of them are briefly runnable, so look for a moment with steps in flight
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (count(c, "SELECT count(*) FROM " + SCHEMA + ".gen_durable WHERE fsm = 'it-slow' AND status = 'executing'") == 0) {
                assertTrue(System.nanoTime() < deadline, "steps are in flight before the undeploy");
                Thread.sleep(20);
            }
        }

        long t0 = System.nanoTime();
        deployer.undeploy(DEPLOYMENT);
        double seconds = (System.nanoTime() - t0) / 1e9;

        try (Connection c = DriverManager.getConnection(url)) {
            // the sender's step called the injected engine while the drain waited for it: served, not
            // blocked for the drain timeout (10 s) and refused; its outcome committed in the drain
            assertEquals(1, count(c, "SELECT count(*) FROM " + SCHEMA + ".gen_durable WHERE fsm = 'it-drain-signals'"
                    + " AND status = 'done' AND result::text = '\"DELIVERED\"'"), "the sender's signal was delivered in the drain");
            assertEquals(1, count(c, "SELECT count(*) FROM " + SCHEMA + ".gen_durable WHERE fsm = 'it-drain-signals'"
                    + " AND status = 'runnable' AND step = 'woken'"), "the waiter was woken");
            assertTrue(seconds < 8, "the undeploy took " + seconds + " s (the step 2.5 s, the drain timeout 10 s)");
            // the drain commits the in-flight outcomes and releases buffered claims before the
            // application is gone; no engine is left to reap anything afterwards
            assertEquals(0, count(c, "SELECT count(*) FROM " + SCHEMA + ".gen_durable WHERE status = 'executing'"));
            assertEquals(0, count(c, "SELECT count(*) FROM " + SCHEMA + ".gen_durable WHERE locked_by IS NOT NULL"));
            assertEquals(SLOW_INSTANCES, count(c, "SELECT count(*) FROM " + SCHEMA
                    + ".gen_durable WHERE fsm = 'it-slow' AND status = 'runnable'"), "the unfinished work waits for the next start");
        }
    }

    // ---- a broken configuration fails the deployment, naming the key ------------------------
    // (A missing DataSource fails too, at the application's start, naming gendurable.datasource:
    // Liberty then leaves the application INSTALLED and the adapter would wait its whole deploy
    // timeout, so docs/liberty.md shows that case instead of a test here.)

    @Deployment(name = "bad-queues", managed = false, testable = false)
    static EnterpriseArchive badQueues() {
        return withConfig("bad-queues.ear", "gendurable.queues=default:x\n" + BILLING_ENGINE);
    }

    /** The sample's second engine, which its InvoiceJob needs (a copy's properties replace the sample's). */
    private static final String BILLING_ENGINE = "gendurable.engines=billing\ngendurable.engines.billing.schema=gendurable_billing\n";

    @Deployment(name = "no-billing-engine", managed = false, testable = false)
    static EnterpriseArchive noBillingEngine() {
        return withConfig("no-billing-engine.ear", "gendurable.queues=default:2\n");
    }

    @Test
    @Order(29)
    @RunAsClient
    void aBadQueuesValueFailsTheDeploymentNamingTheKey() {
        assertDeploymentFails("bad-queues", "gendurable.queues");
    }

    @Test
    @Order(30)
    @RunAsClient
    void anEngineTheConfigurationLacksFailsTheDeployment() {
        // the sample injects @DurableEngine("billing"): CDI's own validation fails on that injection point
        // before the extension reports "@DurableFsm engine on …InvoiceJob names engine billing, which does not
        // exist" (NamedEnginesTest checks that message, with no injection point of the missing engine)
        assertDeploymentFails("no-billing-engine", "Unsatisfied dependencies for type GenDurable with qualifiers @DurableEngine");
    }

    /** Deploys, expects a failure whose messages name {@code named}, and removes the deployment. */
    private void assertDeploymentFails(String deployment, String named) {
        try {
            Exception e = assertThrows(Exception.class, () -> deployer.deploy(deployment));
            StringBuilder messages = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
            }
            assertTrue(messages.toString().contains(named), "the failure names " + named + ":\n" + messages);
        } finally {
            try {
                deployer.undeploy(deployment);
            } catch (RuntimeException ignored) {
                // nothing was started
            }
        }
    }

    /** @return the sample EAR (under another name) whose microprofile-config.properties is {@code properties} */
    private static EnterpriseArchive withConfig(String name, String properties) {
        File ear = new File(System.getProperty("sample.ear", "target/app/gen-durable-sample-ear.ear"));
        EnterpriseArchive archive = ShrinkWrap.createFromZipFile(EnterpriseArchive.class, ear);
        WebArchive war = archive.getAsType(WebArchive.class, "sample.war");
        war.addAsResource(new org.jboss.shrinkwrap.api.asset.StringAsset(properties), "META-INF/microprofile-config.properties");
        return ShrinkWrap.create(EnterpriseArchive.class, name).merge(archive);
    }

    // ---- helpers (JDK and JUnit only: they also load inside the server) --------------------------

    private static <T> T lookup(String name, Class<T> type) throws NamingException {
        return type.cast(new InitialContext().lookup(name));
    }

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

    private static void awaitSettled(GenDurable durable, long id) {
        AwaitResult r = durable.await(id, Duration.ofSeconds(60));
        assertInstanceOf(AwaitResult.Awaiting.class, r, () -> "expected the workflow parked, got " + r);
    }

    private static URI uri(String path) {
        return URI.create("http://localhost:" + System.getProperty("it.http.port", "9081") + path);
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
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
            if (line.startsWith(metric + "{") && line.contains(label)) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }
}
