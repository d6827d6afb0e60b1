package io.gendurable.bench.server;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The bench's JAX-RS application: {@code /bench/api/bench/…} (the WAR's context root, then {@code api}). */
@ApplicationPath("api")
public class BenchApplication extends Application {
}
