package io.gendurable.impl.cdi;

import io.gendurable.impl.cdi.TestFsms.DuplicateA;
import io.gendurable.impl.cdi.TestFsms.DuplicateB;
import io.gendurable.impl.cdi.TestFsms.DuplicateV2;
import io.gendurable.testing.SharedTestDatabase;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FsmIdentityValidationTest extends CdiTest {

    @Test
    void two_fsm_beans_with_one_name_and_version_fail_the_boot_naming_both_classes() {
        CdiTestSupport.jdbcProperties(SharedTestDatabase.newSchema("cdi_dup"));

        assertThatThrownBy(() -> boot(DuplicateA.class, DuplicateB.class).close())
                .hasMessageContaining("'dup' version 1")
                .hasMessageContaining(DuplicateA.class.getName())
                .hasMessageContaining(DuplicateB.class.getName());
    }

    @Test
    void one_name_in_two_versions_is_registered_as_two_fsms() {
        CdiTestSupport.jdbcProperties(SharedTestDatabase.newSchema("cdi_versions"));

        try (WeldContainer c = boot(DuplicateA.class, DuplicateV2.class)) {
            var registry = c.select(GenDurableExtension.class).get().registry();
            assertThat(registry.find("dup", 1)).get().extracting(d -> d.beanClass()).isEqualTo(DuplicateA.class);
            assertThat(registry.find("dup", 2)).get().extracting(d -> d.beanClass()).isEqualTo(DuplicateV2.class);
        }
    }
}
