package io.gendurable.docs.samples.gettingstarted;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

// tag::transactional[]
@Stateless
public class Orders {
    @PersistenceContext EntityManager em;
    @Inject GenDurable durable;

    public long place(Order order) {                      // REQUIRED: one transaction
        em.persist(order);
        return durable.insert(Checkout.class, new CheckoutState(order.id()),
                InsertOptions.builder().correlationKey("order:" + order.id()).build()).id();
    }                                                     // both commit, or neither does
}
// end::transactional[]
