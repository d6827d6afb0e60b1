package io.gendurable.docs.samples.gettingstarted;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** The application's own entity. */
@Entity
public class Order {
    @Id
    private String id;

    /** @return the order id */
    public String id() {
        return id;
    }
}
