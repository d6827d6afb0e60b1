/**
 * MicroProfile Health: the readiness and liveness checks of each engine, added by the extension
 * only when the API is visible. They read an engine through
 * {@link io.gendurable.impl.cdi.health.CheckedEngine}, never building it.
 */
package io.gendurable.impl.cdi.health;
