package io.gendurable.impl.db;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.Immutable;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

import java.time.OffsetDateTime;

/**
 * The instance row, mapped read-only for {@code find}, snapshots and the operations API's
 * search ({@code impl.ops}). The engine never writes
 * through this entity: every transition is a guarded native statement.
 */
@Entity
@Immutable
@Table(name = "gen_durable")
public class InstanceRow {
    @Id
    private long id;
    private String fsm;
    @Column(name = "fsm_version")
    private int fsmVersion;
    private String step;
    @JdbcTypeCode(SqlTypes.JSON)
    private String state;
    private int attempt;
    @JdbcTypeCode(SqlTypes.JSON)
    private String result;
    @Column(name = "last_error")
    private String lastError;
    private String status;
    private String queue;
    private int priority;
    @Column(name = "eligible_at")
    private OffsetDateTime eligibleAt;
    @Column(name = "correlation_key")
    private String correlationKey;
    @Column(name = "correlation_guard")
    private String correlationGuard;
    @Column(name = "concurrency_key")
    private String concurrencyKey;
    @Column(name = "rate_limit")
    private String rateLimit;
    private int weight;
    @Column(name = "locked_by")
    private String lockedBy;
    @Column(name = "lease_expires_at")
    private OffsetDateTime leaseExpiresAt;
    @JdbcTypeCode(SqlTypes.ARRAY)
    private String[] awaits;
    @Column(name = "await_deadline")
    private OffsetDateTime awaitDeadline;
    @Column(name = "parent_id")
    private Long parentId;
    @Column(name = "children_pending")
    private int childrenPending;
    @Column(name = "inserted_at")
    private OffsetDateTime insertedAt;
    @Column(name = "updated_at")
    private OffsetDateTime updatedAt;

    protected InstanceRow() {
    }

    public long id() { return id; }
    public String fsm() { return fsm; }
    public int fsmVersion() { return fsmVersion; }
    public String step() { return step; }
    public String state() { return state; }
    public int attempt() { return attempt; }
    public String result() { return result; }
    public String lastError() { return lastError; }
    public String status() { return status; }
    public String queue() { return queue; }
    public int priority() { return priority; }
    public OffsetDateTime eligibleAt() { return eligibleAt; }
    public String correlationKey() { return correlationKey; }
    public String concurrencyKey() { return concurrencyKey; }
    public String rateLimit() { return rateLimit; }
    public int weight() { return weight; }
    public String lockedBy() { return lockedBy; }
    public OffsetDateTime leaseExpiresAt() { return leaseExpiresAt; }
    public String[] awaits() { return awaits; }
    public OffsetDateTime awaitDeadline() { return awaitDeadline; }
    public Long parentId() { return parentId; }
    public int childrenPending() { return childrenPending; }
    public OffsetDateTime insertedAt() { return insertedAt; }
    public OffsetDateTime updatedAt() { return updatedAt; }
}
