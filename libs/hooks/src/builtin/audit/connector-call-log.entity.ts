import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One connector call as seen by the audit_log hook (executed or blocked). Rows are written by AuditWriter only. */
@Entity('connector_call_logs')
@Index('connector_call_logs_org_created_idx', ['orgId', 'createdAt', 'id'])
@Index('connector_call_logs_org_agent_idx', ['orgId', 'agentId', 'createdAt'])
@Index('connector_call_logs_org_run_idx', ['orgId', 'runId'])
/** A call's one audit row: what the result, the audit batch and a restart's interruption find. */
@Index('connector_call_logs_call_idx', ['runId', 'callId'])
/** Rows written in flight and not yet completed by the audit batch: what the batch looks up. */
@Index('connector_call_logs_pending_idx', ['runId', 'callId'], { where: 'audit_pending' })
@Check('connector_call_logs_outcome_check', "outcome IN ('in_flight', 'completed', 'interrupted')")
export class ConnectorCallLog {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: string;
  @Column('uuid') orgId: string;
  @Column('text', { nullable: true }) agentId: string | null;
  @Column('text', { nullable: true }) userId: string | null;
  @Column('text', { nullable: true }) runId: string | null;
  @Column('text', { nullable: true }) callId: string | null;
  @Column('text') surface: string;
  @Column('text') tool: string;
  @Column('text', { nullable: true }) connectorId: string | null;
  @Column('text') connectorName: string;
  @Column('text') action: string;
  @Column('text') method: string;
  @Column('text') url: string;
  /** SHA-256 (hex) of the args as canonical JSON (object keys sorted). */
  @Column('text') argsDigest: string;
  /** Only when the hook's config says `store_args: true`. */
  @Column('jsonb', { nullable: true }) args: Record<string, unknown> | null;
  @Column('integer', { nullable: true }) status: number | null;
  @Column('integer', { nullable: true }) durationMs: number | null;
  @Column('boolean') success: boolean;
  @Column('text', { nullable: true }) error: string | null;
  /** The hook that blocked the call, or null when it ran. */
  @Column('text', { nullable: true }) blockedBy: string | null;
  /** An eval run's call that was simulated (not sent); false for every call that reached the target. */
  @Column('boolean', { default: false }) simulated: boolean;
  /**
   * `in_flight` from just before the request leaves until its result is recorded;
   * `interrupted` if its server died meanwhile.
   */
  @Column('text', { default: 'completed' }) outcome: 'in_flight' | 'completed' | 'interrupted';
  /**
   * Who approved the call and under which approval (a confirmation or a standing approval); null when none was needed.
   */
  @Column('text', { nullable: true }) approvedBy: string | null;
  /** Written in flight and not yet given its final values (and hash-chained audit event) by the AuditWriter. */
  @Column('boolean', { default: true }) auditPending: boolean;
  /** When the call happened (not when the batch reached the database). */
  @Column('timestamptz') createdAt: Date;
}
