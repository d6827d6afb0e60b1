/** CDI events the engine fires for applications that want hooks (observe with {@code @ObservesAsync}). */
package io.gendurable.events;
