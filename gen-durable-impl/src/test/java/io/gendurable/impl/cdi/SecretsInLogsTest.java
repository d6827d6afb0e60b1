package io.gendurable.impl.cdi;

import io.gendurable.impl.cdi.resources.HikariPools;
import io.gendurable.GenDurable;
import io.gendurable.Inserted;
import io.gendurable.Status;
import io.gendurable.impl.cdi.TestFsms.Count;
import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.testing.SharedTestDatabase;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static io.gendurable.impl.cdi.CdiTestSupport.property;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * No secrets in logs: the start-up lines (the effective configuration, the DataSource's origin),
 * every log record at any level, the console, and a failed boot's exception never show
 * {@code gendurable.jdbc.password} nor a password carried in {@code gendurable.jdbc.url}.
 */
class SecretsInLogsTest {
    private static final String URL_SECRET = "url-s3cret-7f1c";
    private static final String KEY_SECRET = "key-s3cret-9d2e";

    private final List<String> records = new CopyOnWriteArrayList<>();
    private final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            StringBuilder b = new StringBuilder(r.getLoggerName() + " " + r.getLevel() + " " + r.getMessage());
            if (r.getParameters() != null) {
                for (Object p : r.getParameters()) {
                    b.append(' ').append(p);
                }
            }
            if (r.getThrown() != null) {
                StringWriter w = new StringWriter();
                r.getThrown().printStackTrace(new PrintWriter(w));
                b.append(' ').append(w);
            }
            records.add(b.toString());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level rootLevel;
    private PrintStream out;
    private PrintStream err;

    @BeforeEach
    void listen() {
        Logger root = Logger.getLogger("");
        rootLevel = root.getLevel();
        root.setLevel(Level.ALL);  // debug lines too (a pool's configuration dump, for instance)
        capture.setLevel(Level.ALL);
        root.addHandler(capture);
        out = System.out;
        err = System.err;
        PrintStream tee = new PrintStream(console, true, StandardCharsets.UTF_8);
        System.setOut(tee);
        System.setErr(tee);
    }

    @AfterEach
    void restore() {
        System.setOut(out);
        System.setErr(err);
        Logger root = Logger.getLogger("");
        root.removeHandler(capture);
        root.setLevel(rootLevel);
        CdiTestSupport.clearProperties();
    }

    private static String withUrlPassword(String url) {
        return url + (url.contains("?") ? "&" : "?") + "password=" + URL_SECRET;
    }

    private String everythingLogged() {
        return String.join("\n", records) + "\n" + console.toString(StandardCharsets.UTF_8);
    }

    @Test
    void a_boot_with_both_passwords_logs_the_effective_config_and_the_masked_url_but_neither_password() {
        String schema = SharedTestDatabase.newSchema("cdi_secrets");
        CdiTestSupport.jdbcProperties(schema);
        property("gendurable.jdbc.url", withUrlPassword(SharedTestDatabase.url()));
        property("gendurable.jdbc.password", KEY_SECRET);

        try (WeldContainer c = boot(Tally.class, Increments.class)) {
            GenDurable durable = c.select(GenDurable.class).get();
            Inserted r = durable.insert(Tally.class, new Count(0));
            await().atMost(Duration.ofSeconds(20)).until(() -> durable.find(r.id()).orElseThrow().status() == Status.DONE);
        }

        String logged = everythingLogged();
        assertThat(logged).contains("gen-durable starting: node-id=").contains("schema=" + schema)
                .contains("password=***");
        assertThat(logged).doesNotContain(URL_SECRET).doesNotContain(KEY_SECRET);
    }

    @Test
    void a_boot_that_cannot_connect_fails_without_printing_the_url_password() {
        String schema = SharedTestDatabase.newSchema("cdi_secrets_fail");
        CdiTestSupport.jdbcProperties(schema);
        property("gendurable.jdbc.url", withUrlPassword("jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=2"));
        property("gendurable.jdbc.password", KEY_SECRET);

        Throwable failure = catchThrowable(() -> boot(Tally.class, Increments.class).close());

        assertThat(failure).isNotNull();
        StringWriter trace = new StringWriter();
        failure.printStackTrace(new PrintWriter(trace));
        assertThat(trace.toString()).doesNotContain(URL_SECRET).doesNotContain(KEY_SECRET);
        assertThat(everythingLogged()).doesNotContain(URL_SECRET).doesNotContain(KEY_SECRET);
    }

    @Test
    void the_own_pool_takes_a_url_password_out_of_the_url_the_driver_logs_and_passes_it_as_a_property() {
        assertThat(HikariPools.withoutPassword("jdbc:postgresql://h/db?user=u&password=p%26w&ssl=true"))
                .containsExactly("jdbc:postgresql://h/db?user=u&ssl=true", "p&w");
        assertThat(HikariPools.withoutPassword("jdbc:postgresql://h/db?password=pw&user=u"))
                .containsExactly("jdbc:postgresql://h/db?user=u", "pw");
        assertThat(HikariPools.withoutPassword("jdbc:postgresql://h/db?user=u&PASSWORD=pw"))
                .containsExactly("jdbc:postgresql://h/db?user=u", "pw");
        assertThat(HikariPools.withoutPassword("jdbc:postgresql://h/db?sslpassword=k&user=u"))
                .containsExactly("jdbc:postgresql://h/db?sslpassword=k&user=u", null);
    }
}
