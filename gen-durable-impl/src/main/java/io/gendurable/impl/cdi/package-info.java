/**
 * The container layer: the only package that knows CDI, MicroProfile Config, JNDI and managed
 * executors. {@link io.gendurable.impl.cdi.GenDurableExtension} finds the FSM beans and checks
 * their identities; {@link io.gendurable.impl.cdi.DurableBean} is the injectable
 * {@link io.gendurable.GenDurable} that starts the core engine with the application and drains
 * it when the application stops. Its adapters sit in sub-packages that know nothing of this one:
 * {@code metrics}, {@code health} and {@code resources}.
 */
package io.gendurable.impl.cdi;
