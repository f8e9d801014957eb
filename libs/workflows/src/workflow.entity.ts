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
import type { WorkflowDefinition } from './workflow-definition.js';

@Entity('workflows')
@Unique('workflows_org_name_uq', ['orgId', 'name'])
export class Workflow {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'workflows_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('text') name: string;
  @Column('jsonb') definition: WorkflowDefinition;
  @ForeignKey('users', { name: 'workflows_created_by_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  createdBy: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

export type WorkflowRunStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';
export type NodeStatus = 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'skipped';

export interface NodeState {
  status: NodeStatus;
  output?: unknown;
  agent_run_id?: string;
  error?: string;
}

@Entity('workflow_runs')
@Index('workflow_runs_org_idx', ['orgId', 'createdAt'])
/** A workflow's runs, newest first (the designer's run list). */
@Index('workflow_runs_workflow_idx', ['workflowId', 'createdAt'])
/** The runs a recovery sweep looks at: only active ones, by lease expiry. */
@Index('workflow_runs_resumable_idx', ['leaseUntil'], { where: "status IN ('running', 'waiting')" })
@Check('workflow_runs_status_check', "status IN ('running', 'waiting', 'completed', 'failed', 'cancelled')")
export class WorkflowRun {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'workflow_runs_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @ForeignKey('workflows', { name: 'workflow_runs_workflow_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  workflowId: string;
  @ForeignKey('users', { name: 'workflow_runs_user_id_fkey' })
  @Column('uuid')
  userId: string;
  @Column('text') status: WorkflowRunStatus;
  @Column('jsonb', { default: {} }) inputs: Record<string, unknown>;
  @Column('jsonb', { default: {} }) nodes: Record<string, NodeState>;
  @Column('text', { nullable: true }) error: string | null;
  @Column('text', { nullable: true }) lockedBy: string | null;
  @Column('timestamptz', { nullable: true }) leaseUntil: Date | null;
  /** The sequence number of the run's latest event (workflow_run_events.seq). */
  @Column('int', { default: 0 }) eventSeq: number;
  /** Fencing token: incremented by every claim; a driver writes only while the row still carries its epoch. */
  @Column('int', { default: 0 }) leaseEpoch: number;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** A workflow run's event log (like run_events); appended and followed with SQL through the EventLog. */
@Entity('workflow_run_events')
export class WorkflowRunEvent {
  @ForeignKey('workflow_runs', { name: 'workflow_run_events_run_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  runId: string;
  @PrimaryColumn('int') seq: number;
  @Column('text') type: string;
  @Column('jsonb') data: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
