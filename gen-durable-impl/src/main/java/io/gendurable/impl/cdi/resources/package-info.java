/**
 * What the container provides, looked up: the engine's DataSources (a {@code @GenDurableDataSource}
 * bean, JNDI, or a pool of its own), its executors and thread factory, the JTA DataSource that joins
 * a caller's transaction, and which optional APIs the application sees.
 */
package io.gendurable.impl.cdi.resources;
