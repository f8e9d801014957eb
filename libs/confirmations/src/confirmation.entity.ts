import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

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
@Check('confirmation_requests_approver_scope_check', "approver_scope IN ('initiator', 'agent_owner', 'org_members', 'org_admins')")
@Check('confirmation_requests_approvals_required_check', 'approvals_required BETWEEN 1 AND 5')
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
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
