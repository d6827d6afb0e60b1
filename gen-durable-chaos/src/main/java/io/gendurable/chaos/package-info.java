/**
 * The chaos suite: worker JVMs ({@link io.gendurable.chaos.ChaosWorker}) run engines against one
 * PostgreSQL the suite owns ({@link io.gendurable.chaos.ChaosDatabase}); the driver
 * ({@link io.gendurable.chaos.ChaosRun}) feeds a mixed workload, kills workers, terminates
 * backends and restarts the server, then checks the invariants ({@link io.gendurable.chaos.Invariants}).
 * See docs/reliability.md.
 */
package io.gendurable.chaos;
