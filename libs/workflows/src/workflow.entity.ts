import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { WorkflowDefinition } from './workflow-definition.js';

@Entity('workflows')
export class Workflow {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') orgId: string;
  @Column('text') name: string;
  @Column('jsonb') definition: WorkflowDefinition;
  @Column('uuid', { nullable: true }) createdBy: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

export type WorkflowRunStatus = 'running' | 'waiting' | 'completed' | 'failed';
export type NodeStatus = 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'skipped';

export interface NodeState {
  status: NodeStatus;
  output?: unknown;
  agent_run_id?: string;
  error?: string;
}

@Entity('workflow_runs')
export class WorkflowRun {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') orgId: string;
  @Column('uuid') workflowId: string;
  @Column('uuid') userId: string;
  @Column('text') status: WorkflowRunStatus;
  @Column('jsonb') inputs: Record<string, unknown>;
  @Column('jsonb') nodes: Record<string, NodeState>;
  @Column('text', { nullable: true }) error: string | null;
  @Column('text', { nullable: true }) lockedBy: string | null;
  @Column('timestamptz', { nullable: true }) leaseUntil: Date | null;
  /** Fencing token: incremented by every claim; a driver writes only while the row still carries its epoch. */
  @Column('int') leaseEpoch: number;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
