package io.gendurable.sample;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;

/**
 * The sample order workflow: reserve, then charge, then done. Each step's outcome is committed
 * before the next runs. (Signals, rate limits and shipment children join it in later releases.)
 */
@DurableFsm(name = "order", version = 1)
@ApplicationScoped
public class OrderWorkflow implements Fsm<OrderState> {

    @Override
    public Outcome step(String step, OrderState s, StepContext ctx) {
        return switch (step) {
            case "start" -> Outcome.next("charge", new OrderState(s.orderId(), true, false));
            case "charge" -> Outcome.next("finish", new OrderState(s.orderId(), true, true));
            case "finish" -> Outcome.done(Map.of("orderId", s.orderId(), "charged", s.charged()));
            default -> Outcome.stop("unknown step " + step);
        };
    }
}
