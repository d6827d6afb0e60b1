package io.gendurable.docs.samples.children;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The records of the fan-out sample. */
public final class OrderTypes {
    private OrderTypes() {
    }

    // tag::types[]
    public record Line(int no, String sku, int qty) {}
    public record Order(String orderId, List<Line> lines, Set<Integer> shipped, int round) {
        Order shippedNow(Set<Integer> more) {
            Set<Integer> all = new HashSet<>(shipped);
            all.addAll(more);
            return new Order(orderId, lines, all, round);
        }
        Order nextRound() { return new Order(orderId, lines, shipped, round + 1); }
    }
    public record Shipment(String orderId, Line line) {}
    public record Tracking(int line, String number) {}
    // end::types[]
}
