package io.gendurable;

import jakarta.inject.Qualifier;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Qualifier for a {@code javax.sql.DataSource} bean the application produces for the engine.
 * Optional: without one the engine looks up the JNDI name in {@code gendurable.datasource}
 * (default {@code jdbc/gendurable}), else builds a pool from {@code gendurable.jdbc.url},
 * {@code gendurable.jdbc.user} and {@code gendurable.jdbc.password}.
 */
@Qualifier
@Documented
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.FIELD, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
public @interface GenDurableDataSource {
}
