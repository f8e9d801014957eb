import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export interface EvalCase { input: string; expect_contains?: string }
export interface EvalCaseResult { input: string; output: string | null; passed: boolean; tool_calls: Array<{ tool: string; args: Record<string, unknown> }>; run_id: string; error?: string }

@Entity('evals')
export class EvalRun {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') orgId: string;
  @Column('uuid') agentId: string;
  @Column('uuid') userId: string;
  @Column('text') status: 'running' | 'completed' | 'failed';
  /** Always 'bypassed': eval runs execute the agent without hooks on purpose, and say so. */
  @Column('text') hooks: 'bypassed';
  @Column('jsonb') cases: EvalCase[];
  @Column('jsonb') results: EvalCaseResult[];
  @Column('text', { nullable: true }) error: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
