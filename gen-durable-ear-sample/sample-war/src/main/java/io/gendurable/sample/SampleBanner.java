package io.gendurable.sample;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/** Prints where to try the sample once it has started (the engine started just before, at the same event). */
@ApplicationScoped
public class SampleBanner {
    void started(@Observes @Initialized(ApplicationScoped.class) Object event) {
        // the EAR maps the web module to /sample (no ServletContext here: the servlet API is not
        // among the server's features, restfulWS alone does not expose it to applications)
        String contextPath = "/sample";
        Config config = ConfigProvider.getConfig();
        boolean wildFly = System.getProperty("jboss.home.dir") != null;
        // default.http.port is a server.xml variable, which MicroProfile Config sees in Open Liberty;
        // WildFly listens on 8080 (+ jboss.socket.binding.port-offset), its management port on 9990
        int offset = wildFly ? config.getOptionalValue("jboss.socket.binding.port-offset", Integer.class).orElse(0) : 0;
        String port = wildFly ? String.valueOf(config.getOptionalValue("jboss.http.port", Integer.class).orElse(8080) + offset)
                : config.getOptionalValue("default.http.port", String.class).orElse("9080");
        String metrics = wildFly ? "http://localhost:" + (9990 + offset) + "/prometheus          "
                : "http://localhost:" + port + "/metrics?scope=application";
        String base = "http://localhost:" + port + contextPath + "/api/orders";
        // System.out: the console shows it (Liberty's console level hides INFO log lines)
        System.out.println(String.join(System.lineSeparator(),
                "gen-durable sample is up: " + base,
                "  curl -s -X POST " + base + "/42                                  # start order 42's workflow",
                "  curl -s -X POST " + base + "/42/signals/payment_settled          # the payment provider's callback",
                "  curl -s '" + base + "/instance/<id>?wait=PT5S'                    # wait for the result",
                "  curl -s " + metrics + "  # the engine's metrics"));
    }
}
