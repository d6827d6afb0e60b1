/**
 * Testing support for applications that use gen-durable: {@link io.gendurable.testing.GenDurableTest}
 * (a JUnit 5 extension giving each test a fresh schema and an engine that runs no thread),
 * {@link io.gendurable.testing.DurableTesting#drain()} (everything runnable, run in the calling
 * thread through the engine's production pick, step and flush path), await timeouts, a
 * {@link io.gendurable.testing.TestClock}, and assertions on status, result, error, awaits and
 * inserted instances. The user's guide is {@code docs/testing.md}.
 */
package io.gendurable.testing;
