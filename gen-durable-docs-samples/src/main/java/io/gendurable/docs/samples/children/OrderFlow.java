package io.gendurable.docs.samples.children;

import io.gendurable.Child;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.docs.samples.children.OrderTypes.Line;
import io.gendurable.docs.samples.children.OrderTypes.Order;
import io.gendurable.docs.samples.children.OrderTypes.Shipment;
import io.gendurable.docs.samples.children.OrderTypes.Tracking;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

// tag::flow[]
@DurableFsm(name = "order")
@ApplicationScoped
public class OrderFlow implements Fsm<Order> {

    @Override
    public Outcome step(String step, Order o, StepContext ctx) {
        return switch (step) {
            case "start" -> Outcome.scheduleChildren(shipments(o, o.lines()), "shipped", o);
            case "shipped" -> {
                // the lines shipped by this round (and any earlier one still listed): from the results
                Set<Integer> now = ctx.children().stream()
                        .filter(c -> c.status() == Status.DONE)
                        .map(c -> c.result().as(Tracking.class).line())
                        .collect(Collectors.toSet());
                Order s = o.shippedNow(now);
                List<Line> missing = s.lines().stream().filter(l -> !s.shipped().contains(l.no())).toList();
                if (missing.isEmpty()) {
                    yield Outcome.done(Map.of("orderId", s.orderId(), "lines", s.shipped().size()));
                }
                if (s.round() >= 3) {
                    String why = ctx.children().stream().filter(c -> c.status() == Status.FAILED)
                            .map(Child::lastError).findFirst().orElse("?");
                    yield Outcome.stop(missing.size() + " lines not shipped after 3 rounds; e.g. " + why);
                }
                Order again = s.nextRound();
                yield Outcome.scheduleChildren(shipments(again, missing), "shipped", again);  // fan out the rest again
            }
            default -> Outcome.stop("unknown step " + step);
        };
    }

    private static List<NewInstance> shipments(Order o, List<Line> lines) {
        return lines.stream().map(l -> NewInstance.of(ShipLine.class, new Shipment(o.orderId(), l))).toList();
    }
}
// end::flow[]
