import { Check, Column, CreateDateColumn, Entity, ForeignKey, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A call the agent is expected to make: this tool, with args that contain `args_subset` (deeply). */
export interface ExpectedToolCall {
  tool: string;
  args_subset?: Record<string, unknown>;
}

export interface EvalCase {
  input: string;
  expect_contains?: string;
  expect_tool_calls?: ExpectedToolCall[];
  /** `{ "<tool>": <response or list of successive responses> }`: what simulated calls of that tool observe. */
  fixtures?: Record<string, unknown>;
}

/** One call the agent made in a case: what was sent (or simulated) and how it ended. */
export interface EvalToolCall {
  tool: string;
  args: Record<string, unknown>;
  simulated: boolean;
  status: string;
}

export interface EvalCaseResult {
  input: string;
  output: string | null;
  passed: boolean;
  /** Why the case failed, one line per unmet expectation. */
  failures?: string[];
  tool_calls: EvalToolCall[];
  run_id: string;
  error?: string;
}

@Entity('evals')
@Check('evals_status_check', "status IN ('running', 'completed', 'failed')")
export class EvalRun {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'evals_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('uuid') agentId: string;
  @ForeignKey('users', { name: 'evals_user_id_fkey' })
  @Column('uuid')
  userId: string;
  @Column('text') status: 'running' | 'completed' | 'failed';
  /** Always 'bypassed': eval runs execute the agent without its own hooks and the gate on purpose (org hooks run), and say so. */
  @Column('text', { default: 'bypassed' }) hooks: 'bypassed';
  /** Whether connector reads run for real (`live`) or are simulated like writes (which always are). */
  @Column('text', { default: 'live' }) reads: 'live' | 'simulated';
  @Column('jsonb') cases: EvalCase[];
  @Column('jsonb', { default: [] }) results: EvalCaseResult[];
  @Column('text', { nullable: true }) error: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
