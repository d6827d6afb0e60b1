package io.gendurable.impl.cdi.resources;

import io.gendurable.impl.config.ConfigReader;
import io.gendurable.impl.config.EngineConfig;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import javax.naming.NameNotFoundException;
import javax.naming.NoInitialContextException;
import javax.sql.DataSource;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DataSourceResolverTest {
    private static final JndiLookup NO_JNDI = name -> {
        throw new NoInitialContextException("no JNDI in Java SE");
    };

    private final PGSimpleDataSource bound = new PGSimpleDataSource();
    private final PGSimpleDataSource produced = new PGSimpleDataSource();

    private static DataSourceResolver resolver(Map<String, String> keys, JndiLookup jndi) {
        return new DataSourceResolver(ConfigReader.of(keys), EngineConfig.defaults(), jndi);
    }

    private JndiLookup binding(String boundName) {
        return name -> {
            if (name.equals(boundName)) {
                return bound;
            }
            throw new NameNotFoundException(name);
        };
    }

    @Test
    void the_qualified_bean_wins_over_jndi_and_jdbc_url_and_is_not_owned() {
        Optional<Supplier<DataSource>> bean = Optional.of(() -> produced);

        ResolvedDataSource r = resolver(Map.of("gendurable.jdbc.url", "jdbc:postgresql://127.0.0.1:1/x"),
                binding("jdbc/gendurable")).resolve(bean);

        assertThat(r.dataSource()).isSameAs(produced);
        assertThat(r.owned()).isFalse();
    }

    @Test
    void the_default_jndi_name_wins_over_jdbc_url() {
        ResolvedDataSource r = resolver(Map.of("gendurable.jdbc.url", "jdbc:postgresql://127.0.0.1:1/x"),
                binding("jdbc/gendurable")).resolve(Optional.empty());

        assertThat(r.dataSource()).isSameAs(bound);
        assertThat(r.owned()).isFalse();
        assertThat(r.origin()).isEqualTo("JNDI jdbc/gendurable");
    }

    @Test
    void a_configured_jndi_name_is_also_tried_as_a_resource_reference_under_java_comp_env() {
        ResolvedDataSource r = resolver(Map.of("gendurable.datasource", "jdbc/orders"),
                binding("java:comp/env/jdbc/orders")).resolve(Optional.empty());

        assertThat(r.dataSource()).isSameAs(bound);
    }

    @Test
    void with_nothing_available_the_message_lists_the_three_ways_and_what_was_tried() {
        assertThatThrownBy(() -> resolver(Map.of("gendurable.datasource", "jdbc/missing"), binding("jdbc/other"))
                .resolve(Optional.empty()))
                .hasMessageContaining("@GenDurableDataSource")
                .hasMessageContaining("gendurable.datasource (default jdbc/gendurable)")
                .hasMessageContaining("gendurable.jdbc.url")
                .hasMessageContaining("JNDI jdbc/missing: NameNotFoundException")
                .hasMessageContaining("JNDI java:comp/env/jdbc/missing");
    }

    @Test
    void a_jndi_name_bound_to_something_else_is_reported_and_skipped() {
        JndiLookup wrongType = name -> "not a data source";

        assertThatThrownBy(() -> resolver(Map.of(), wrongType).resolve(Optional.empty()))
                .hasMessageContaining("bound to java.lang.String, not a javax.sql.DataSource");
    }

    @Test
    void without_jndi_the_engine_builds_its_own_pool_from_jdbc_url_which_it_owns() {
        String url = io.gendurable.testing.SharedTestDatabase.url();
        try (ResolvedDataSource r = resolver(Map.of("gendurable.jdbc.url", url, "gendurable.jdbc.user", "postgres",
                "gendurable.jdbc.password", "secret"), NO_JNDI).resolve(Optional.empty())) {
            assertThat(r.owned()).isTrue();
            assertThat(r.origin()).contains("own HikariCP pool").doesNotContain("secret");
            assertThat(io.gendurable.testing.SharedTestDatabase.queryLong(r.dataSource(), "SELECT 1")).isEqualTo(1);
        }
    }

    @Test
    void without_the_session_keys_there_is_no_session_data_source_and_the_engines_own_serves() {
        assertThat(resolver(Map.of(), NO_JNDI).resolveSession()).isEmpty();
    }

    @Test
    void the_session_data_source_comes_from_jndi_and_is_not_owned() {
        Optional<ResolvedDataSource> r = resolver(Map.of("gendurable.session.datasource", "jdbc/direct"),
                binding("java:comp/env/jdbc/direct")).resolveSession();

        assertThat(r).get().satisfies(s -> {
            assertThat(s.dataSource()).isSameAs(bound);
            assertThat(s.owned()).isFalse();
        });
    }

    @Test
    void a_session_data_source_name_that_does_not_resolve_fails_naming_the_key_and_what_was_tried() {
        assertThatThrownBy(() -> resolver(Map.of("gendurable.session.datasource", "jdbc/missing"), binding("jdbc/other"))
                .resolveSession())
                .hasMessageContaining("gendurable.session.datasource=jdbc/missing")
                .hasMessageContaining("JNDI java:comp/env/jdbc/missing");
    }

    @Test
    void both_session_keys_at_once_are_refused_naming_both() {
        assertThatThrownBy(() -> resolver(Map.of("gendurable.session.datasource", "jdbc/direct",
                "gendurable.session.jdbc.url", "jdbc:postgresql://127.0.0.1:1/x"), binding("jdbc/direct")).resolveSession())
                .hasMessageContaining("gendurable.session.datasource")
                .hasMessageContaining("gendurable.session.jdbc.url")
                .hasMessageContaining("not both");
    }

    @Test
    void the_session_jdbc_url_builds_a_small_pool_of_its_own_with_the_jdbc_user_and_password() {
        String url = io.gendurable.testing.SharedTestDatabase.url();
        try (ResolvedDataSource r = resolver(Map.of("gendurable.session.jdbc.url", url, "gendurable.jdbc.user", "postgres",
                "gendurable.jdbc.password", "secret"), NO_JNDI).resolveSession().orElseThrow()) {
            assertThat(r.owned()).isTrue();
            assertThat(r.origin()).contains("own HikariCP pool (3 connections)").doesNotContain("secret");
            assertThat(io.gendurable.testing.SharedTestDatabase.queryLong(r.dataSource(), "SELECT 1")).isEqualTo(1);
        }
    }

    @Test
    void a_password_in_the_jdbc_url_is_masked_in_descriptions() {
        assertThat(DataSourceResolver.maskPassword("jdbc:postgresql://h/db?user=u&password=s3cret&ssl=true"))
                .isEqualTo("jdbc:postgresql://h/db?user=u&password=***&ssl=true");
    }
}
