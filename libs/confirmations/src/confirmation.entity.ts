import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';

/**
 * The schema of `confirmation_requests` and `confirmation_votes`, so the entities describe every table
 * (`test/medium/schema-diff.spec.ts`). Rows are read and written with SQL by ConfirmationStore and
 * ConfirmationVotesStore (`rowToConfirmation` is the domain view), not through these classes.
 */
@Entity('confirmation_requests')
@Unique('confirmation_requests_run_call_uq', ['runId', 'callId'])
@Index('confirmation_requests_org_created_idx', ['orgId', 'createdAt'])
/** What the expiry sweep reads: only pending requests, by deadline. */
@Index('confirmation_requests_pending_idx', ['expiresAt'], { where: "status = 'pending'" })
@Check('confirmation_requests_status_check', "status IN ('pending', 'approved', 'rejected', 'expired')")
@Check(
  'confirmation_requests_approver_scope_check',
  "approver_scope IN ('initiator', 'agent_owner', 'org_members', 'org_admins')",
)
@Check('confirmation_requests_approvals_required_check', 'approvals_required BETWEEN 1 AND 5')
/** What the reminder and escalation timer claims: due steps of pending requests. */
@Index('confirmation_requests_remind_idx', ['remindAt'], {
  where: "status = 'pending' AND reminded_at IS NULL AND remind_at IS NOT NULL",
})
@Index('confirmation_requests_escalate_idx', ['escalateAt'], {
  where: "status = 'pending' AND escalated_at IS NULL AND escalate_at IS NOT NULL",
})
@Index('confirmation_requests_batch_idx', ['batchKey'], { where: 'batch_key IS NOT NULL' })
export class ConfirmationRequestEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'confirmation_requests_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('uuid', { nullable: true }) agentId: string | null;
  @Column('text', { nullable: true }) agentName: string | null;
  @Column('uuid') runId: string;
  @Column('text') callId: string;
  @Column('text') tool: string;
  @Column('jsonb', { default: {} }) args: Record<string, unknown>;
  @Column('text', { nullable: true }) argsDigest: string | null;
  @Column('text', { default: 'pending' }) status: string;
  @ForeignKey('users', { name: 'confirmation_requests_requested_by_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  requestedBy: string | null;
  @Column('text') approverScope: string;
  @Column('uuid', { nullable: true }) agentOwnerId: string | null;
  @Column('boolean', { default: false }) forbidSelfApproval: boolean;
  @Column('jsonb', { nullable: true }) approvers: unknown;
  @Column('integer', { nullable: true }) tier: number | null;
  @Column('jsonb', { nullable: true }) policy: unknown;
  @Column('text', { nullable: true }) policyVersion: string | null;
  @Column('jsonb', { nullable: true }) grants: unknown;
  @Column('integer', { default: 1 }) approvalsRequired: number;
  @Column('integer', { default: 0 }) approvalsGiven: number;
  @Column('jsonb', { nullable: true }) decisiveFields: unknown;
  @Column('text', { nullable: true }) channelId: string | null;
  @Column('text', { nullable: true }) channelType: string | null;
  @Column('text', { nullable: true }) platformMessageId: string | null;
  @Column('jsonb', { nullable: true }) sentCard: unknown;
  @Column('timestamptz') expiresAt: Date;
  @Column('timestamptz', { nullable: true }) respondedAt: Date | null;
  @ForeignKey('users', { name: 'confirmation_requests_responded_by_user_id_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  respondedByUserId: string | null;
  @Column('text', { nullable: true }) respondedByOpenId: string | null;
  @Column('text', { nullable: true }) respondedByPlatform: string | null;
  @Column('text', { nullable: true }) respondedByName: string | null;
  @Column('text', { nullable: true }) reason: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
  // Approve with changes, hooks that ask (#20)
  @Column('jsonb', { nullable: true }) argsSchema: unknown;
  @Column('jsonb', { nullable: true }) originalArgs: unknown;
  @ForeignKey('users', { name: 'confirmation_requests_edited_by_user_id_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  editedByUserId: string | null;
  @Column('text', { nullable: true }) editedByName: string | null;
  @Column('text', { nullable: true }) askReason: string | null;
  // Why and in what context (#32)
  @Column('text', { nullable: true }) trigger: string | null;
  @Column('text', { nullable: true }) memberMessage: string | null;
  // Reminders and escalation
  @Column('timestamptz', { nullable: true }) remindAt: Date | null;
  @Column('timestamptz', { nullable: true }) remindedAt: Date | null;
  @Column('timestamptz', { nullable: true }) escalateAt: Date | null;
  @Column('timestamptz', { nullable: true }) escalatedAt: Date | null;
  @Column('jsonb', { nullable: true }) escalateTo: unknown;
  @Column('text', { nullable: true }) escalationChannelId: string | null;
  @Column('jsonb', { nullable: true }) escalationCard: unknown;
  // One card per model turn
  @Column('text', { nullable: true }) batchKey: string | null;
  @Column('integer', { nullable: true }) batchPosition: number | null;
}

/** A reminder, escalation or reassignment of a request: its history. */
@Entity('confirmation_events')
@Index('confirmation_events_confirmation_idx', ['confirmationId', 'createdAt'])
@Check('confirmation_events_kind_check', "kind IN ('reminded', 'escalated', 'reassigned')")
export class ConfirmationEventEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('confirmation_requests', { name: 'confirmation_events_confirmation_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  confirmationId: string;
  @Column('text') kind: string;
  @Column('jsonb', { default: {} }) detail: Record<string, unknown>;
  @ForeignKey('users', { name: 'confirmation_events_by_user_id_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  byUserId: string | null;
  @Column('text') byName: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

/** The one card of a model turn's gated calls (claimed by the first gate of the turn). */
@Entity('confirmation_batches')
export class ConfirmationBatchEntity {
  @PrimaryColumn('text') batchKey: string;
  @ForeignKey('orgs', { name: 'confirmation_batches_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text') channelId: string;
  @Column('jsonb', { nullable: true }) sentCard: unknown;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

/** "This call and similar ones in this run": a CEL bound, at most `max_calls` uses, until `expires_at`. */
@Entity('standing_approvals')
@Index('standing_approvals_run_tool_idx', ['runId', 'tool'])
@Check('standing_approvals_max_calls_check', 'max_calls >= 1 AND max_calls <= 1000')
@Check('standing_approvals_uses_ck', 'uses <= max_calls')
@Unique('standing_approvals_confirmation_id_key', ['confirmationId'])
export class StandingApprovalEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'standing_approvals_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('uuid') runId: string;
  @Column('text') tool: string;
  @Column('text') condition: string;
  @Column('integer') maxCalls: number;
  @Column('integer', { default: 1 }) uses: number;
  @Column('timestamptz') expiresAt: Date;
  @ForeignKey('confirmation_requests', { name: 'standing_approvals_confirmation_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  confirmationId: string;
  @ForeignKey('users', { name: 'standing_approvals_granted_by_user_id_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  grantedByUserId: string | null;
  @Column('text') grantedByName: string;
  @Column('integer', { nullable: true }) tier: number | null;
  @Column('text', { nullable: true }) policyVersion: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

/** One call that passed under a standing approval (a call uses it at most once). */
@Entity('standing_approval_uses')
export class StandingApprovalUseEntity {
  @ForeignKey('standing_approvals', { name: 'standing_approval_uses_standing_approval_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  standingApprovalId: string;
  @PrimaryColumn('uuid') runId: string;
  @PrimaryColumn('text') callId: string;
  @Column('text') argsDigest: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

/** One person's approval or rejection of a request (a person votes once). */
@Entity('confirmation_votes')
@Unique('confirmation_votes_person_uq', ['confirmationId', 'userId'])
@Check('confirmation_votes_decision_check', "decision IN ('approve', 'reject')")
export class ConfirmationVoteEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('confirmation_requests', { name: 'confirmation_votes_confirmation_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  confirmationId: string;
  @ForeignKey('users', { name: 'confirmation_votes_user_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  userId: string;
  @Column('text') userName: string;
  @Column('text') decision: 'approve' | 'reject';
  @Column('text', { nullable: true }) platform: string | null;
  @Column('text', { nullable: true }) externalId: string | null;
  @Column('jsonb') approvers: unknown;
  @Column('integer', { nullable: true }) tier: number | null;
  @Column('text', { nullable: true }) argsDigest: string | null;
  @Column('text', { nullable: true }) policyVersion: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
