package io.gendurable.sample;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.RetryOptions;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.testing.DrainResult;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's order workflow, tested as an application's developer would: no server, the
 * engine in the test thread, the application's own gendurable.* configuration (queues, the psp
 * rate limit and gate).
 */
// tag::registered[]
@GenDurableTest(fsms = ShipmentJob.class, configFile = "META-INF/microprofile-config.properties")
class OrderWorkflowTest {

    private final PaymentProvider provider = new PaymentProvider();

    @BeforeEach
    void registerTheWorkflow(DurableTesting t) {
        OrderWorkflow workflow = new OrderWorkflow();
        workflow.paymentTimeout = Duration.ofMinutes(10);   // what @ConfigProperty injects in the server
        workflow.chargeAttempts = 3;
        workflow.provider = provider;                       // what CDI injects in the server
        t.register(workflow);
    }
    // end::registered[]

    private static long order(GenDurable durable, String orderId, String account, int parcels) {
        return durable.insert(OrderWorkflow.class, OrderState.placed(orderId, account, parcels),
                InsertOptions.builder().correlationKey(OrderResource.correlationKey(orderId)).build()).id();
    }

    @Test
    void a_settled_order_ships_every_parcel_and_ends_with_the_tracking_numbers(GenDurable durable, DurableTesting t) {
        long id = order(durable, "42", "acme", 3);

        assertThat(t.drain().stepNamesOf(id)).containsExactly("start", "charge", "await_payment");
        t.assertAwaiting(id, OrderWorkflow.PAYMENT_SETTLED);

        SignalTarget order42 = SignalTarget.correlationKey(OrderResource.correlationKey("42"));
        assertThat(durable.signal(order42, OrderWorkflow.PAYMENT_SETTLED, Map.of("amount", 12), "psp-evt-1"))
                .isEqualTo(SignalResult.DELIVERED);
        assertThat(durable.signal(order42, OrderWorkflow.PAYMENT_SETTLED, Map.of("amount", 12), "psp-evt-1"))
                .as("the provider's retry of the same callback").isEqualTo(SignalResult.DUPLICATE);
        DrainResult shipped = t.drain();

        assertThat(shipped.stepNamesOf(id)).containsExactly("ship", "finish");
        assertThat(shipped.countOf("shipment")).isEqualTo(3);
        t.assertDone(id, Map.of("orderId", "42", "account", "acme", "charged", true,
                "tracking", List.of("TRK-42-1", "TRK-42-2", "TRK-42-3")));
        assertThat(t.instances(ShipmentJob.class)).hasSize(3)
                .allSatisfy(s -> assertThat(s.queue()).isEqualTo("shipments"));
        t.assertInserted(ShipmentJob.class).result().as(Tracking.class);
    }

    @Test
    void an_order_whose_payment_never_settles_stops_after_the_payment_timeout(GenDurable durable, DurableTesting t) {
        Instant start = t.now();
        long id = order(durable, "43", "acme", 2);
        t.drain();

        assertThat(t.fireTimeouts()).isEqualTo(1);
        assertThat(t.now()).isEqualTo(start.plus(Duration.ofMinutes(10)));
        t.drain();

        t.assertFailed(id, "payment not settled within PT10M");
        assertThat(t.instances(ShipmentJob.class)).as("nothing shipped").isEmpty();
    }

    @Test
    void a_repeated_order_finds_the_live_workflow_instead_of_starting_another(GenDurable durable, DurableTesting t) {
        long id = order(durable, "44", "acme", 1);

        Inserted again = durable.insert(OrderWorkflow.class, OrderState.placed("44", "acme", 1),
                InsertOptions.builder().correlationKey(OrderResource.correlationKey("44")).build());

        assertThat(again.duplicate()).isTrue();
        assertThat(again.id()).isEqualTo(id);
        assertThat(t.instances(OrderWorkflow.class)).hasSize(1);
    }

    @Test
    void charges_are_admitted_through_the_psp_rate_limit_of_the_application_config(GenDurable durable,
                                                                                   DurableTesting t) {
        Instant start = t.now();
        for (int i = 0; i < 14; i++) {
            order(durable, "b" + i, "tenant" + i, 1);
        }

        t.drain();

        // burst 10, then 5 a second: the last 4 charges waited for the bucket to refill
        assertThat(t.instances(OrderWorkflow.class)).hasSize(14)
                .allSatisfy(s -> assertThat(s.awaits()).containsExactly(OrderWorkflow.PAYMENT_SETTLED));
        assertThat(Duration.between(start, t.now())).isBetween(Duration.ofMillis(800), Duration.ofMinutes(1));
    }

    @Test
    void a_charge_refused_during_an_outage_fails_the_order_with_its_stack_trace_and_a_retry_resumes_it(
            GenDurable durable, DurableTesting t) {
        provider.outage(true);
        long id = order(durable, "45", "acme", 1);

        t.drain();

        String error = t.assertFailed(id, "PaymentProviderUnavailable: payment provider unavailable");
        assertThat(error).contains("\n\tat io.gendurable.sample.PaymentProvider.charge(");
        assertThat(t.instance(id).step()).isEqualTo("charge");
        assertThat(t.instance(id).attempt()).isEqualTo(3);

        provider.outage(false);
        t.operations().retry(id, RetryOptions.defaults());
        t.drain();
        t.assertAwaiting(id, OrderWorkflow.PAYMENT_SETTLED);
    }
}
