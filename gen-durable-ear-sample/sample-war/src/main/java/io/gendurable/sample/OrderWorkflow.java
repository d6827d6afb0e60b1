package io.gendurable.sample;

import io.gendurable.Child;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The sample's order workflow. Each step's outcome is committed before the next step runs:
 * <ol>
 *   <li>{@code start}: reserve the stock; the charge that follows is admitted through the
 *       {@code psp} rate limit and holds the concurrency key {@code psp:<account>}, a gate of
 *       {@code gendurable.concurrency-limits.psp.limit} charges at once per account;</li>
 *   <li>{@code charge}: ask the payment provider to charge, then release the key; while the
 *       provider is down the step fails, and after {@code sample.charge-attempts} attempts the
 *       order ends {@code FAILED} with the error and its stack trace ({@link #onError});</li>
 *   <li>{@code await_payment}: park until the {@code payment_settled} signal arrives, or
 *       {@code sample.payment-timeout} passes;</li>
 *   <li>{@code ship}: fan out one {@link ShipmentJob} per parcel and park until all finish
 *       (or stop when the payment never settled);</li>
 *   <li>{@code finish}: done, with the tracking numbers as the result.</li>
 * </ol>
 */
@DurableFsm(name = "order", version = 1)
@ApplicationScoped
public class OrderWorkflow implements Fsm<OrderState> {
    /** The signal the payment provider's callback sends. */
    public static final String PAYMENT_SETTLED = "payment_settled";

    @Inject
    @ConfigProperty(name = "sample.payment-timeout", defaultValue = "PT10M")
    Duration paymentTimeout;

    @Inject
    @ConfigProperty(name = "sample.charge-attempts", defaultValue = "3")
    int chargeAttempts;

    @Inject
    PaymentProvider provider;

    @Override
    public Outcome step(String step, OrderState s, StepContext ctx) {
        return switch (step) {
            case "start" -> Outcome.next("charge", s.reservedNow())
                    .rateLimit("psp")
                    .concurrencyKey("psp:" + s.account());
            case "charge" -> {
                provider.charge(s.orderId(), "order-" + ctx.id());
                yield Outcome.next("await_payment", s.chargedNow()).releaseConcurrencyKey();
            }
            case "await_payment" -> Outcome.await(Set.of(PAYMENT_SETTLED), "ship", s, paymentTimeout);
            case "ship" -> ctx.awaited().isEmpty()
                    ? Outcome.stop("payment not settled within " + paymentTimeout)  // the await timed out
                    : Outcome.scheduleChildren(shipments(s), "finish", s);
            case "finish" -> finish(s, ctx.children());
            default -> Outcome.stop("unknown step " + step);
        };
    }

    /**
     * A charge the provider refused is retried with the default backoff up to
     * {@code sample.charge-attempts} attempts; then the order stops with the error and the top of
     * its stack trace, which the operator reads in the console before retrying it. Other errors
     * take the default.
     */
    @Override
    public Outcome onError(String step, OrderState s, StepContext ctx, Throwable error) {
        if (error instanceof PaymentProviderUnavailable && ctx.attempt() >= chargeAttempts) {
            return Outcome.stop(withStackTrace(error));
        }
        return Fsm.super.onError(step, s, ctx, error);
    }

    /** @return the error's class and message, then its first stack frames */
    static String withStackTrace(Throwable error) {
        StringBuilder b = new StringBuilder(error.getClass().getName()).append(": ").append(error.getMessage());
        StackTraceElement[] frames = error.getStackTrace();
        int shown = Math.min(frames.length, 12);
        for (int i = 0; i < shown; i++) {
            b.append("\n\tat ").append(frames[i]);
        }
        if (frames.length > shown) {
            b.append("\n\t... ").append(frames.length - shown).append(" more");
        }
        return b.toString();
    }

    private static List<NewInstance> shipments(OrderState s) {
        return IntStream.rangeClosed(1, s.parcels())
                .mapToObj(n -> NewInstance.of(ShipmentJob.class, new Shipment(s.orderId(), n)))
                .toList();
    }

    private static Outcome finish(OrderState s, List<Child> children) {
        List<Child> failed = children.stream().filter(c -> c.status() != Status.DONE).toList();
        if (!failed.isEmpty()) {
            return Outcome.stop(failed.size() + " of " + children.size() + " shipments failed: "
                    + failed.get(0).lastError());
        }
        List<String> tracking = children.stream().map(c -> c.result().as(Tracking.class))
                .sorted(java.util.Comparator.comparingInt(Tracking::parcel))
                .map(Tracking::number).toList();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("orderId", s.orderId());
        result.put("account", s.account());
        result.put("charged", s.charged());
        result.put("tracking", tracking);
        return Outcome.done(result);
    }
}
