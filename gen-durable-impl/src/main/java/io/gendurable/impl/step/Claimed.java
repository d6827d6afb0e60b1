package io.gendurable.impl.step;

import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.flush.ChildrenSql.ChildRow;
import io.gendurable.impl.step.InboxSql.SignalRow;

import java.util.List;

/**
 * A claimed row with the inbox loaded for it at claim time: everything its step needs, so a
 * step costs no extra query.
 *
 * @param row   the claimed row
 * @param inbox    its pending signals, in delivery order
 * @param children its children (after a fan-in), in id order
 * @param slot     the gate slot the limiter drew for it, or null
 */
public record Claimed(ClaimedRow row, List<SignalRow> inbox, List<ChildRow> children, Limiter.Slot slot) {
    public Claimed {
        inbox = List.copyOf(inbox);
        children = List.copyOf(children);
    }

    /** @return this row holding {@code slot} */
    public Claimed withSlot(Limiter.Slot slot) {
        return new Claimed(row, inbox, children, slot);
    }

    /** @return the inbox signals whose names the row awaited when it was woken */
    List<SignalRow> awaited() {
        if (row.awaits().isEmpty() || inbox.isEmpty()) {
            return List.of();
        }
        return inbox.stream().filter(s -> row.awaits().contains(s.name())).toList();
    }
}
