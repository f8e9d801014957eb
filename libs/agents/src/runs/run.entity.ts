import type { Surface } from '@warden/hooks';
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
import type { ChatMessage } from '../llm/llm-provider.js';

export type RunStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'refused' | 'cancelled';
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['running', 'waiting'];
export type RunMode = 'react' | 'dag';
export type ToolCallStatus = 'pending' | 'running' | 'done' | 'failed' | 'blocked';

export interface PendingToolCall {
  call_id: string;
  tool: string;
  args: Record<string, unknown>;
}

/** A call the confirmation gate parked the run on: where and with what it resumes (at the gate, not before it). */
export interface ParkedToolCall {
  call_id: string;
  confirmation_id: string;
  /** The args as the hooks before the gate left them: what the request was opened for. */
  args: Record<string, unknown>;
  /** The hooks that asked for a human (`ask`) on the way to the gate; the gate reads them again. */
  asks?: Array<{ hook: string; reason: string }>;
  /** The request's deadline (ISO): the instance that parked the run claims it then, so the gate expires it. */
  expires_at?: string;
  /** The digest of the hook chain it parked under (HookRegistry.chainDigest): another chain decides it again. */
  chain?: string;
}

/**
 * How an eval run (hooks bypassed) treats tool calls: writes are always simulated — answered from `fixtures`
 * (`{ "<tool>": <response or list of successive responses> }`) or a synthetic observation — and reads run live
 * unless `reads` is `simulated`. Child runs (DAG steps, delegates) inherit it.
 */
export interface EvalRunOptions {
  reads: 'live' | 'simulated';
  fixtures?: Record<string, unknown>;
}

export interface PlanStep {
  id: string;
  task: string;
  depends_on: string[];
}
export interface StepProgress {
  status: 'pending' | 'running' | 'completed' | 'failed';
  run_id?: string;
  answer?: string;
  error?: string;
}

/** What every phase of a run's state carries: the conversation so far, the model calls made, how the run runs. */
interface RunStateBase {
  messages: ChatMessage[];
  /** Model calls made so far. */
  turns: number;
  /** How often a Stop hook made the model continue in this run. */
  stop_continuations?: number;
  /** Set for a one-call run (a workflow CONNECTOR node): no model, the call's observation is the answer. */
  tool_run?: ToolRunSpec;
  /** Set for eval runs and their children: calls are simulated per EvalRunOptions. */
  eval?: EvalRunOptions;
  /** A workflow AGENT node's `confirmation`, laid over the agent's own approval policy (kept for resumes). */
  confirmation_override?: Record<string, unknown>;
  /** The policy versions the run started under (absent in runs stored before versions existed). */
  policy_versions?: RunPolicyVersions;
}

/** Before the first step: SessionStart and UserPromptSubmit hooks. */
export interface StartState extends RunStateBase {
  phase: 'start';
}
/** A model turn is next. */
export interface ModelTurnState extends RunStateBase {
  phase: 'llm';
}
/** The calls of the model's last turn run next (recorded before any of them runs). */
export interface ToolTurnState extends RunStateBase {
  phase: 'tools';
  pending_calls: PendingToolCall[];
  /** The calls of this tool turn parked at the gate: they resume there when the run is claimed again. */
  parked_calls?: ParkedToolCall[];
  /** The trace of the drive that parked the run (`traceparent`): the drive that resumes it continues that trace. */
  trace?: Record<string, string>;
}
/** DAG mode: the model writes a plan (asked again once when it is invalid). */
export interface PlanState extends RunStateBase {
  phase: 'plan';
  plan_attempts?: number;
}
/** DAG mode: the plan's steps run as child runs (`steps`), then the model writes the answer (`synthesis`). */
export interface StepsState extends RunStateBase {
  phase: 'steps' | 'synthesis';
  plan_attempts?: number;
  plan: PlanStep[];
  steps: Record<string, StepProgress>;
}

/**
 * Everything a run needs to continue, persisted after every step so that any instance can pick it up; what else it
 * holds depends on its phase (a discriminated union: the tool turn's calls exist only in `tools`, the plan only in
 * `steps` and `synthesis`).
 */
export type RunState = StartState | ModelTurnState | ToolTurnState | PlanState | StepsState;
export type RunPhase = RunState['phase'];

/** Which versions of the agent's policy and of the org's hooks a run got (null: the subject had none). */
export interface RunPolicyVersions {
  agent: number | null;
  org_hooks: number | null;
}

/** Who a one-call run acts for, and the hooks it runs with (as an agent's model_config_json would declare them). */
export interface ToolRunSpec {
  owner_id: string;
  name: string;
  owner_user_id: string | null;
  model_config_json: Record<string, unknown>;
  /** The org whose org-wide hooks the call also runs (absent in runs stored before org hooks existed). */
  org_id?: string;
}

@Entity('agent_runs')
@Index('agent_runs_org_idx', ['orgId', 'createdAt'])
@Index('agent_runs_parent_idx', ['parentRunId'])
/** The runs a recovery sweep looks at: only active ones, by lease expiry. */
@Index('agent_runs_active_idx', ['leaseUntil'], { where: "status IN ('running', 'waiting')" })
@Index('agent_runs_conversation_idx', ['conversationId', 'createdAt'], { where: 'conversation_id IS NOT NULL' })
@Check('agent_runs_surface_check', "surface IN ('chat', 'api', 'dag', 'delegate', 'workflow', 'eval')")
@Check('agent_runs_mode_check', "mode IN ('react', 'dag')")
@Check('agent_runs_status_check', "status IN ('running', 'waiting', 'completed', 'failed', 'refused', 'cancelled')")
@Check('agent_runs_hooks_check', "hooks IN ('active', 'bypassed')")
export class AgentRun {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'agent_runs_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('uuid') agentId: string;
  @Column('uuid') userId: string;
  @Column('uuid', { nullable: true }) conversationId: string | null;
  @ForeignKey('agent_runs', { name: 'agent_runs_parent_run_id_fkey', onDelete: 'SET NULL' })
  @Column('uuid', { nullable: true })
  parentRunId: string | null;
  @Column('text', { nullable: true }) parentCallId: string | null;
  @Column('text') surface: Surface;
  @Column('text') mode: RunMode;
  @Column('text') status: RunStatus;
  @Column('text') hooks: 'active' | 'bypassed';
  @Column('text') message: string;
  @Column('text', { nullable: true }) answer: string | null;
  @Column('text', { nullable: true }) error: string | null;
  @Column('jsonb', { default: {} }) state: RunState;
  @Column('int', { default: 0 }) eventSeq: number;
  @Column('text', { nullable: true }) lockedBy: string | null;
  @Column('timestamptz', { nullable: true }) leaseUntil: Date | null;
  /** The OpenTelemetry trace of the run's latest drive (null when tracing is off). */
  @Column('text', { nullable: true }) traceId: string | null;
  /** Fencing token: incremented by every claim; a driver writes only while the row still carries its epoch. */
  @Column('int', { default: 0 }) leaseEpoch: number;
  /**
   * Set while the run is parked on approvals (no lease, no process): the confirmations whose decision (or deadline)
   * makes it claimable again. Null otherwise.
   */
  @Column('uuid', { array: true, nullable: true }) parkedOn: string[] | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
  @Column('timestamptz', { nullable: true }) finishedAt: Date | null;
}

@Entity('run_events')
export class RunEvent {
  @ForeignKey('agent_runs', { name: 'run_events_run_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  runId: string;
  @PrimaryColumn('int') seq: number;
  @Column('text') type: string;
  @Column('jsonb') data: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

/**
 * The durable record of one tool call: claimed by an atomic update before it runs, its result stored before the run
 * moves on.
 */
@Entity('tool_calls')
@Unique('tool_calls_run_call_uq', ['runId', 'callId'])
@Check('tool_calls_status_check', "status IN ('pending', 'running', 'done', 'failed', 'blocked')")
export class ToolCallRecord {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('agent_runs', { name: 'tool_calls_run_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  runId: string;
  @Column('text') callId: string;
  @Column('int') position: number;
  @Column('text') tool: string;
  @Column('jsonb') args: Record<string, unknown>;
  @Column('jsonb', { nullable: true }) executedArgs: Record<string, unknown> | null;
  @Column('text') status: ToolCallStatus;
  @Column('text', { nullable: true }) result: string | null;
  @Column('text', { nullable: true }) fullResult: string | null;
  @Column('text', { nullable: true }) blockedBy: string | null;
  @Column('text', { nullable: true }) error: string | null;
  /** An eval run's call that was simulated (its observation came from a fixture), never sent. */
  @Column('boolean', { default: false }) simulated: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { nullable: true }) startedAt: Date | null;
  @Column('timestamptz', { nullable: true }) finishedAt: Date | null;
}

/** The message history of a chat: user messages and final answers, prepended to the next run of the conversation. */
@Entity('conversations')
// (updated_at DESC in the migration: the entity cannot say the direction.)
@Index('conversations_org_user_idx', ['orgId', 'userId', 'updatedAt'])
export class Conversation {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey('orgs', { name: 'conversations_org_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  orgId: string;
  @Column('uuid') agentId: string;
  @Column('uuid') userId: string;
  @Column('jsonb', { default: [] }) messages: Array<{ role: 'user' | 'assistant'; content: string }>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
