package com.example.greetings;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The JAX-RS application: POST /greetings/api/greetings/{name} (the WAR's context root, then api). */
@ApplicationPath("api")
public class GreetingsApplication extends Application {
}
