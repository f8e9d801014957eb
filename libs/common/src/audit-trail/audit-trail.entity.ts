import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The schema of the hash-chained audit trail, so the entities describe every table (`test/medium/schema-diff.spec.ts`).
 * Rows are appended and read with SQL (`audit-chain.ts`, `audit-verifier.ts`, `audit-sink.ts`), never through these.
 */
@Entity('audit_events')
@Index('audit_events_kind_idx', ['orgId', 'kind', 'occurredAt'], { where: "kind <> 'connector_call'" })
@Index('audit_events_recorded_idx', ['recordedAt'])
export class AuditEventRow {
  @PrimaryColumn('uuid') orgId: string;
  @PrimaryColumn('bigint') seq: string;
  @Column('text') kind: string;
  @Column('text') action: string;
  @Column('text', { nullable: true }) entityType: string | null;
  @Column('text', { nullable: true }) entityId: string | null;
  @Column('text', { nullable: true }) actor: string | null;
  @Column('timestamptz') occurredAt: Date;
  @Column('jsonb') payload: Record<string, unknown>;
  @Column('text') prevHash: string;
  @Column('text') hash: string;
  @Column('timestamptz', { default: () => 'clock_timestamp()' }) recordedAt: Date;
}

/** Each org's chain head: the last event's number and hash (locked while an event is appended). */
@Entity('audit_chain_heads')
export class AuditChainHeadRow {
  @PrimaryColumn('uuid') orgId: string;
  @Column('bigint') seq: string;
  @Column('text') hash: string;
  @Column('timestamptz', { default: () => 'now()' }) updatedAt: Date;
}

/** How far the audit sink (AUDIT_SINK_URL) has delivered each org's events. */
@Entity('audit_sink_cursors')
export class AuditSinkCursorRow {
  @PrimaryColumn('uuid') orgId: string;
  @Column('bigint', { default: 0 }) seq: string;
  @Column('timestamptz', { default: () => 'now()' }) updatedAt: Date;
}
