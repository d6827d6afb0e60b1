package io.gendurable.impl.core;

import io.gendurable.impl.sql.ClaimedRow;
import io.gendurable.impl.sql.InboxSql.SignalRow;

import java.util.List;

/**
 * A claimed row with the inbox loaded for it at pick time: everything its step needs, so a
 * step costs no extra query.
 *
 * @param row   the claimed row
 * @param inbox its pending signals, in delivery order
 */
record Picked(ClaimedRow row, List<SignalRow> inbox) {
    Picked {
        inbox = List.copyOf(inbox);
    }

    /** @return the inbox signals whose names the row awaited when it was woken */
    List<SignalRow> awaited() {
        if (row.awaits().isEmpty() || inbox.isEmpty()) {
            return List.of();
        }
        return inbox.stream().filter(s -> row.awaits().contains(s.name())).toList();
    }
}
