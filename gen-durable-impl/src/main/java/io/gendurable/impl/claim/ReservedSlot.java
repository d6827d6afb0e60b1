package io.gendurable.impl.claim;

import io.gendurable.impl.insert.InsertStarts;
import io.gendurable.impl.signals.WakeStarts;

/**
 * A free slot of a queue reserved for a row claimed outside the queue's own claim: by its insert
 * ({@link InsertStarts}) or in the transaction of the signal that woke it ({@link WakeStarts}).
 * See docs/internals.md, "Start at insert and at wake-up".
 */
public interface ReservedSlot extends InsertStarts.Slot, WakeStarts.Slot {
}
