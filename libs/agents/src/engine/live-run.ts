import type { PendingRunEvent, RunEventActiveStatus as ActiveRunStatus } from '@warden/common';
import type { AgentHookSettings, HookRegistry, RunEventEmitter, Surface } from '@warden/hooks';
import type { AgentConfig } from '../agents/agent-config.js';
import type { Agent } from '../agents/agent.entity.js';
import type { LlmProvider } from '../llm/llm-provider.js';
import type { SqlParams } from '@warden/database';
import type { AgentRun, EvalRunOptions, RunMode, RunState, RunStatus, ToolTurnState } from '../runs/run.entity.js';
import type { ResolvedTool } from '../tools/tool-registry.js';

export interface StartRunOptions {
  orgId: string;
  userId: string;
  agentId: string;
  message: string;
  surface: Surface;
  mode?: RunMode;
  parentRunId?: string;
  parentCallId?: string;
  conversationId?: string;
  /**
   * Eval runs and their children: the agent's hooks and the gate bypassed (recorded as `hooks: "bypassed"`; the
   * org's hooks and the audit log run) and tool calls simulated per these options — writes are never sent.
   */
  eval?: EvalRunOptions;
  /** Workflow AGENT nodes: the node's `confirmation` policy over the agent's. */
  confirmationOverride?: Record<string, unknown>;
}

export interface RunOutcome {
  runId: string;
  status: RunStatus;
  answer: string | null;
  error: string | null;
}

export interface StartedRun {
  runId: string;
  conversationId: string | null;
  /** Settles when the run reaches a final status; never rejects. */
  completion: Promise<RunOutcome>;
}

/**
 * Emitted (EventEmitter2) when a run ends; `RUN_CANCELLED` additionally when it was cancelled (pending approvals
 * expire).
 */
export const RUN_FINISHED = 'run.finished';
export const RUN_CANCELLED = 'run.cancelled';
/** Emitted when a drive of this process parked its run: the approvals it waits for, with their deadlines. */
export const RUN_PARKED = 'run.parked';
/** Emitted when a drive of this process stopped and left its run active (a database error): recovery takes it. */
export const RUN_LEFT = 'run.left';
export interface RunParkedEvent {
  runId: string;
  approvals: Array<{ confirmationId: string; expiresAt?: string }>;
}
export interface RunFinishedEvent {
  runId: string;
  orgId: string;
  status: string;
  surface?: string;
}
export interface RunCancelledEvent {
  runId: string;
  orgId: string;
}

declare module '@warden/common' {
  interface BusEvents {
    [RUN_FINISHED]: RunFinishedEvent;
    [RUN_CANCELLED]: RunCancelledEvent;
    [RUN_PARKED]: RunParkedEvent;
    [RUN_LEFT]: { runId: string };
  }
}

/** What a run needs in memory while it executes; all of it can be rebuilt from the database. */
export interface LiveRun {
  run: AgentRun;
  agent: Agent;
  config: AgentConfig;
  settings: AgentHookSettings;
  registry: HookRegistry;
  provider: LlmProvider;
  abort: AbortController;
  /** The fencing token this driver claimed the run with: every write is conditional on it. */
  epoch: number;
  /** The runs whose streams also carry this run's events (DAG parents, delegating callers), nearest first. */
  ancestors: Array<{ id: string }>;
  emit: RunEventEmitter;
  /** True once this instance is stopping: whatever cannot finish now is left for the run's next driver. */
  isStopping: () => boolean;
  /** The run may park on an approval (the gate's `park`) instead of waiting in this process (LiveRunBuilder). */
  canPark: boolean;
  /**
   * Hook outcome events not yet written: they wait in memory and are written with the run's next write (a tool
   * call's execution mark or result, the next event, the step's state), in its transaction.
   */
  deferred: PendingRunEvent[];
  /**
   * A status change named with a deferred event (the gate's decision: `running`), applied with the run's next
   * write.
   */
  deferredStatus?: ActiveRunStatus;
  /**
   * A model turn's output not written yet (a turn of one call, in a run without ancestors): its state and its call's
   * record go with the run's next write (RunStore.writeRun) — the call's execution mark records the call marked
   * already, one statement for both — its `tool_call` event waits in `deferred`. Lost in a crash, the turn is redone.
   */
  turn?: DeferredTurn;
  /** The write carrying `turn`, while it is in flight: the run's next write waits for it (it needs the call's row). */
  turnWrite?: Promise<unknown>;
  /** Calls this driver recorded `pending` in this drive: their execution mark claims them (no separate claim). */
  fresh: Set<string>;
  /** Results this driver stored in this turn, by call id: the model reads them without another query. */
  observed: Map<string, string>;
  /** Set when this driver ended the run: what its caller is told. */
  outcome?: RunOutcome;
  /** The tool catalog built for the current model turn, reused by that turn's tool calls. */
  catalog?: ResolvedTool[];
}

/** A model turn's output waiting for the run's next write (LiveRun.turn). */
export interface DeferredTurn {
  state: RunState;
  /** The write recording the turn's calls `pending` (a CTE of `RunStore.writeRun`). */
  record: (p: SqlParams) => [string, string];
}

/** What a run's parts need from the agent hook settings, the registry and the agent, before it has a provider. */
export type PreparedRun = Pick<LiveRun, 'agent' | 'config' | 'settings' | 'registry'>;

/**
 * Thrown when the instance stops while a call waits in its PreToolUse hooks (e.g. for an approval): the call was
 * not run and is put back to `pending`, and the run is left for another instance (or this one, restarted) to resume.
 */
export class RunSuspendedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RunSuspendedError';
  }
}

/**
 * A step's result: the next state (the driver saves it); one the step already saved with its writes; one the next
 * step saves with its own writes (`carry`: only for a step that is safe to redo from the previous state, since a
 * crash before that save redoes it); the calls of a tool turn parked at the gate (`park`: the driver parks the run,
 * whose turn then resumes at the gate); or the end.
 */
export type StepOutcome = RunState | { saved: RunState } | { carry: RunState } | { park: ToolTurnState } | 'finished';
