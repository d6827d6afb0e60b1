package io.gendurable.impl.cdi;

import io.gendurable.GenDurable;
import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.impl.cdi.health.LivenessCheck;
import io.gendurable.impl.cdi.health.ReadinessCheck;
import io.gendurable.impl.cdi.metrics.MeterRegistryLookup;
import io.gendurable.impl.cdi.metrics.MetricRegistryLookup;
import io.gendurable.impl.cdi.metrics.OpenTelemetryLookup;
import io.gendurable.testing.SharedTestDatabase;
import jakarta.enterprise.inject.Any;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class ImplBeanArchiveTest extends CdiTest {

    @Test
    void a_discovering_container_finds_durable_bean_once_and_makes_no_bean_of_a_core_class() {
        CdiTestSupport.jdbcProperties(SharedTestDatabase.newSchema("cdi_discovery"));

        // discovery on: the impl's classes are an annotated bean archive, its extension comes from META-INF/services
        try (WeldContainer c = new Weld("gendurable-discovery-" + UUID.randomUUID())
                .addBeanClasses(Tally.class, Increments.class).initialize()) {
            assertThat(c.select(GenDurable.class).isResolvable()).isTrue();
            assertThat(c.getBeanManager().getBeans(Object.class, Any.Literal.INSTANCE).stream()
                    .map(b -> b.getBeanClass().getName())
                    .filter(n -> n.startsWith("io.gendurable"))
                    .collect(Collectors.toSet()))
                    .containsExactlyInAnyOrder(DurableBean.class.getName(), GenDurableExtension.class.getName(),
                            MetricRegistryLookup.class.getName(),  // added by the extension: the Metrics API is here
                            MeterRegistryLookup.class.getName(),  // and Micrometer (provided scope)
                            OpenTelemetryLookup.class.getName(),  // and OpenTelemetry (provided scope)
                            ReadinessCheck.class.getName(), LivenessCheck.class.getName(),  // and so is the Health API
                            Tally.class.getName(), Increments.class.getName());
            assertThat(c.select(GenDurableExtension.class).get().registry().describe()).isEqualTo("[cdi-tally v1]");
        }
    }
}
