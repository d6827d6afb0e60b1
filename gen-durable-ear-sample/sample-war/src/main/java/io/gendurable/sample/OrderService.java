package io.gendurable.sample;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

/**
 * Transactional enqueue: an EJB business method runs in a container-managed JTA transaction
 * ({@code REQUIRED}), and {@code GenDurable.insert} joins it. When the method throws, the
 * transaction rolls back and the workflow's row never appears; when it returns, the row commits
 * with the rest of the business work and is picked.
 */
@Stateless
public class OrderService {

    @Inject
    GenDurable durable;

    /**
     * @param orderId the order
     * @param fail    throw after the insert, rolling it back
     * @return the inserted instance (only when the transaction commits)
     * @throws OrderRejected when {@code fail}
     */
    public Inserted insertInTransaction(String orderId, boolean fail) {
        Inserted r = durable.insert(OrderWorkflow.class, OrderState.placed(orderId, "acme", 1),
                InsertOptions.builder().correlationKey(OrderResource.correlationKey(orderId)).build());
        // ... the rest of the business transaction: order rows, an outbox, ...
        if (fail) {
            throw new OrderRejected("order " + orderId + " rejected after its workflow was inserted");
        }
        return r;
    }
}
