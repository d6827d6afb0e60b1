package io.gendurable.docs.samples.operations;

import io.gendurable.DurableOperations;
import io.gendurable.InstanceDetails;
import io.gendurable.InstancePage;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Status;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** An operator's view of failed checkouts. */
@ApplicationScoped
public class FailedCheckouts {
    // tag::search[]
    @Inject DurableOperations operations;

    /** Every checkout that failed in the last day with a PSP timeout, newest first. */
    public List<InstanceSnapshot> pspTimeouts() {
        InstanceQuery query = InstanceQuery.builder()
                .fsm("checkout")
                .status(Status.FAILED)
                .updated(Instant.now().minus(1, ChronoUnit.DAYS), null)
                .errorContains("psp timeout")
                .pageSize(100)
                .build();
        List<InstanceSnapshot> all = new ArrayList<>();
        InstancePage page = operations.search(query);
        all.addAll(page.items());
        while (page.hasNext()) {
            page = operations.search(query.after(page.nextCursor()));
            all.addAll(page.items());
        }
        return all;
    }

    /** Why is this one stuck? */
    public String explain(long id) {
        return operations.inspect(id).map(d -> d.instance().status() + " at " + d.instance().step()
                + ", pending signals " + d.pendingSignalCount()
                + ", children " + d.children()
                + d.gate().map(g -> ", gate " + g.concurrencyKey() + " " + g.executing() + "/" + g.limit()).orElse("")
                + d.lastError().map(e -> ", last error: " + e).orElse(""))
                .orElse("no instance " + id);
    }
    // end::search[]

    /** @return the details (unused by the page; keeps the import honest) */
    InstanceDetails details(long id) {
        return operations.inspect(id).orElseThrow();
    }

    // tag::batch-done[]
    private static final Set<Status> LIVE =
            EnumSet.of(Status.RUNNABLE, Status.EXECUTING, Status.AWAITING_SIGNAL, Status.AWAITING_CHILDREN);

    /** Is the batch whose correlation keys start with {@code prefix} ("import-42:") finished? */
    public boolean batchDone(String prefix) {
        InstanceQuery live = InstanceQuery.builder()
                .correlationKeyPrefix(prefix)
                .statuses(LIVE)
                .pageSize(1)
                .build();
        return operations.search(live).items().isEmpty();
    }

    /** Are all the children of a parent finished? */
    public boolean childrenDone(long parentId) {
        return operations.inspect(parentId)
                .map(d -> LIVE.stream().mapToLong(s -> d.children().get(s)).sum() == 0)
                .orElse(true);
    }
    // end::batch-done[]
}
