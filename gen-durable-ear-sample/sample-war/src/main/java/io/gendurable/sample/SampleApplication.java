package io.gendurable.sample;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The sample's JAX-RS root: {@code /api}. */
@ApplicationPath("api")
public class SampleApplication extends Application {
}
