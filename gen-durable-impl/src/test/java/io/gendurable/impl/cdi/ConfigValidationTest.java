package io.gendurable.impl.cdi;

import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.testing.SharedTestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static io.gendurable.impl.cdi.CdiTestSupport.layerThreadsAlive;
import static io.gendurable.impl.cdi.CdiTestSupport.property;
import static io.gendurable.impl.cdi.CdiTestSupport.schemaExists;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigValidationTest extends CdiTest {
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "gendurable.queues         | default:-1",
            "gendurable.lease-ttl      | abc",
            "gendurable.gc.enabled     | maybe",
            "gendurable.leese-ttl      | PT10S",
            "gendurable.schema         | Not-An-Identifier"})
    void an_invalid_value_fails_the_boot_naming_the_key_before_any_schema_or_thread_exists(String key, String value) {
        String schema = SharedTestDatabase.newSchema("cdi_bad_config");
        CdiTestSupport.jdbcProperties(schema);
        property(key, value);

        assertThatThrownBy(() -> boot(Tally.class, Increments.class).close()).hasMessageContaining(key);
        assertThat(schemaExists(db, schema)).isFalse();
        assertThat(layerThreadsAlive()).isFalse();
    }
}
