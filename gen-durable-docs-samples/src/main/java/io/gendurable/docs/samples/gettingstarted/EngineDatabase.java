package io.gendurable.docs.samples.gettingstarted;

import io.gendurable.GenDurableDataSource;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import javax.sql.DataSource;

// tag::producer[]
@ApplicationScoped
public class EngineDatabase {
    @Resource(lookup = "jdbc/ordersNoTx")   // a transactional="false" dataSource on your database
    DataSource orders;

    @Produces @GenDurableDataSource
    DataSource engineDataSource() { return orders; }
}
// end::producer[]
