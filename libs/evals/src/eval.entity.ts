import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

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

/** `interrupted`: continued after its driver stopped (a restart, a dead instance), the eval could not go on. */
export type EvalStatus = 'running' | 'completed' | 'failed' | 'interrupted';

@Entity('evals')
@Check('evals_status_check', "status IN ('running', 'completed', 'failed', 'interrupted')")
/** The evals a recovery sweep looks at: only running ones, by lease expiry. */
@Index('evals_active_idx', ['leaseUntil'], { where: "status = 'running'" })
export class EvalRun {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'evals_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('uuid') agentId: string;
  @ForeignKey('users', { name: 'evals_user_id_fkey' })
  @Column('uuid')
  userId: string;
  @Column('text') status: EvalStatus;
  /**
   * Always 'bypassed': eval runs execute the agent without its own hooks and the gate on purpose (org hooks run),
   * and say so.
   */
  @Column('text', { default: 'bypassed' }) hooks: 'bypassed';
  /** Whether connector reads run for real (`live`) or are simulated like writes (which always are). */
  @Column('text', { default: 'live' }) reads: 'live' | 'simulated';
  @Column('jsonb') cases: EvalCase[];
  @Column('jsonb', { default: [] }) results: EvalCaseResult[];
  @Column('text', { nullable: true }) error: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
  /** The instance driving the eval, under a lease (EvalDriver); another continues it once the lease lapses. */
  @Column('text', { nullable: true }) lockedBy: string | null;
  @Column('timestamptz', { nullable: true }) leaseUntil: Date | null;
  @Column('int', { default: 0 }) leaseEpoch: number;
  /** The run of the case under way: whoever continues the eval waits for it instead of starting the case again. */
  @Column('uuid', { nullable: true }) caseRunId: string | null;
}
