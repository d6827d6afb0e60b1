package io.gendurable.docs.samples.children;

import io.gendurable.GenDurable;
import io.gendurable.docs.samples.children.OrderTypes.Line;
import io.gendurable.docs.samples.children.OrderTypes.Order;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;

/** Starting the parents of the children page. */
@ApplicationScoped
public class Starting {
    @Inject GenDurable durable;

    void order(String orderId, List<Line> lines) {
        // tag::start-order[]
        // the order starts with no line shipped
        durable.insert(OrderFlow.class, new Order(orderId, lines, Set.of(), 1));
        // end::start-order[]
    }

    void tree() {
        // tag::start-tree[]
        durable.insert(Kid.class, new Kid.Tree(3, 10));   // 1 + 10 + 100 + 1,000 instances; the root's result is 1000
        // end::start-tree[]
    }
}
