import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The schema of the policy lifecycle (#34, migration PolicyLifecycle1766300800000). Rows are written with SQL by
 * DecisionStore, ShadowStore and PolicyTestStore.
 */

/** One live PreToolUse decision: the call as the chain received it and what the policy in force decided. */
@Entity('policy_decisions')
@Index('policy_decisions_org_time_idx', ['orgId', 'createdAt', 'id'])
@Index('policy_decisions_agent_time_idx', ['orgId', 'agentId', 'createdAt', 'id'])
@Check('policy_decisions_decision_check', "decision IN ('allow', 'ask', 'block')")
export class PolicyDecisionRow {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: string;
  @ForeignKey('orgs', { name: 'policy_decisions_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text', { nullable: true }) agentId: string | null;
  @Column('text', { nullable: true }) userId: string | null;
  @Column('text', { nullable: true }) runId: string | null;
  @Column('text', { nullable: true }) callId: string | null;
  @Column('text') tool: string;
  /** The model's args: what the chain decided on. */
  @Column('jsonb') args: Record<string, unknown>;
  @Column('text') decision: 'allow' | 'ask' | 'block';
  @Column('integer') approvals: number;
  @Column('integer', { nullable: true }) tier: number | null;
  @Column('text', { nullable: true }) blockedBy: string | null;
  @Column('text', { nullable: true }) reason: string | null;
  /** actionDigest of the args as the chain left them (what would be sent). */
  @Column('text') argsDigest: string;
  @Column('boolean') rewritten: boolean;
  @Column('jsonb', { nullable: true }) policyVersions: Record<string, unknown> | null;
  @Column('timestamptz') createdAt: Date;
}

/** A policy deployed as a shadow beside the live one (at most one active per subject). */
@Entity('policy_shadows')
@Index('policy_shadows_active_uq', ['subjectType', 'subjectId'], { unique: true, where: 'ended_at IS NULL' })
@Index('policy_shadows_org_active_idx', ['orgId'], { where: 'ended_at IS NULL' })
@Check('policy_shadows_subject_type_check', "subject_type IN ('agent', 'org_hooks')")
@Check('policy_shadows_ended_how_check', "ended_how IN ('promoted', 'discarded')")
export class PolicyShadowRow {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'policy_shadows_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text') subjectType: 'agent' | 'org_hooks';
  @Column('uuid') subjectId: string;
  @Column('jsonb') config: Record<string, unknown>;
  @Column('integer', { nullable: true }) liveVersion: number | null;
  @Column('text', { nullable: true }) comment: string | null;
  @Column('uuid', { nullable: true }) deployedBy: string | null;
  @Column('timestamptz', { default: () => 'now()' }) deployedAt: Date;
  @Column('timestamptz', { nullable: true }) endedAt: Date | null;
  @Column('text', { nullable: true }) endedHow: 'promoted' | 'discarded' | null;
}

/** What a shadow would have decided for one recorded live decision, and how that differs. */
@Entity('policy_shadow_results')
@Index('policy_shadow_results_decision_idx', ['decisionId'])
export class PolicyShadowResultRow {
  @ForeignKey('policy_shadows', { name: 'policy_shadow_results_shadow_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  shadowId: string;
  @ForeignKey('policy_decisions', { name: 'policy_shadow_results_decision_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('bigint')
  decisionId: string;
  @Column('text') decision: string;
  @Column('integer') approvals: number;
  @Column('integer', { nullable: true }) tier: number | null;
  @Column('text', { nullable: true }) blockedBy: string | null;
  @Column('text', { nullable: true }) reason: string | null;
  @Column('text') argsDigest: string;
  @Column('text', { array: true, default: () => "'{}'" }) skipped: string[];
  @Column('text', { array: true, default: () => "'{}'" }) differences: string[];
}

/** The test cases a policy carries (an agent's, or the org hooks'). */
@Entity('policy_tests')
@Check('policy_tests_subject_type_check', "subject_type IN ('agent', 'org_hooks')")
export class PolicyTestsRow {
  @PrimaryColumn('text') subjectType: 'agent' | 'org_hooks';
  @PrimaryColumn('uuid') subjectId: string;
  @ForeignKey('orgs', { name: 'policy_tests_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('jsonb') cases: unknown[];
  @Column('uuid', { nullable: true }) updatedBy: string | null;
  @Column('timestamptz', { default: () => 'now()' }) updatedAt: Date;
}
