/**
 * The events of an agent run, by type: what each emitter passes (`emit` / `append*`), in one place that every lib
 * can import (this file depends on nothing). The wire (API.md "Chat (SSE)") is each payload plus the envelope the
 * run store adds (`RunEventEnvelope`); the names and fields here are the contract: do not rename them.
 * `run-event-map.spec.ts` proves that every type here is emitted somewhere and every emitted type is here.
 */

/** Where a run was started from (the hooks' `Surface`). */
export type RunEventSurface = 'chat' | 'api' | 'dag' | 'delegate' | 'workflow' | 'eval';

/** The hook points (the hooks' `HookPoint` values). */
export type RunEventHookPoint =
  'SessionStart' | 'UserPromptSubmit' | 'PreModelCall' | 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure' | 'Stop';

/** What one hook did (the hooks' `HookOutcomeKind`). */
export type RunEventHookOutcome = 'allow' | 'block' | 'rewrite' | 'ask' | 'error' | 'would_require_confirmation';

/** How a run ended. */
export type RunEventFinalStatus = 'completed' | 'failed' | 'refused' | 'cancelled';

/** Added by the run store to every stored event; `parent_call_id` on the copies in an ancestor's stream. */
// A type alias, not an interface: stored events are handed out as Record<string, unknown>
// (interfaces have no index signature).
// eslint-disable-next-line @typescript-eslint/consistent-type-definitions
export type RunEventEnvelope = {
  run_id: string;
  surface: RunEventSurface;
  parent_call_id?: string | null;
};

/** What one model call used, as the model server reported it (OpenAI's `usage`); absent when it reported none. */
export interface RunEventTokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface RunEventMap {
  /**
   * Always first. Emitted by RunFactory when the run row is inserted; read by the console (run and conversation ids).
   */
  run: {
    agent_id: string;
    conversation_id: string | null;
    surface: RunEventSurface;
    mode: 'react' | 'dag';
    hooks: 'active' | 'bypassed';
    parent_run_id: string | null;
    parent_call_id: string | null;
  };
  /**
   * A call the model proposed. Emitted by ReactSteps (and RunFactory for a tool run); read by the trace and console.
   */
  /** `usage`: the model call that proposed it, on the first call of a turn only. */
  tool_call: { call_id: string; tool: string; args: Record<string, unknown>; usage?: RunEventTokenUsage };
  /** One hook's outcome. Emitted by HookRegistry.record (written with the run's next write); read by trace, console. */
  hook: {
    call_id?: string;
    point: RunEventHookPoint;
    hook: string;
    outcome: RunEventHookOutcome;
    side_effects: string[];
    duration_ms: number;
    detail?: string;
  };
  /**
   * A call waits for a person. Emitted by the confirmation gate; read by the executor (run `waiting`), workflows,
   * console. `call_id` (here and below) is optional only in the hooks' context type: the gate runs at PreToolUse.
   */
  confirmation_pending: {
    call_id?: string;
    confirmation_id: string;
    tool: string;
    args: Record<string, unknown>;
    expires_at: string;
    channel: { id: string | null; type: string | null; name: string | null };
  };
  /**
   * A wait ended. Emitted by the confirmation gate; read by the executor (run `running` again), workflows, console.
   * `status` is never `pending` on the wire (the gate emits once the wait settled); it is in the type because the
   * row's status type has it.
   */
  confirmation_resolved: {
    call_id?: string;
    confirmation_id: string;
    status: 'pending' | 'approved' | 'rejected' | 'expired';
    responded_by: string | null;
    /** When the approver edited the call: the args it runs with, the model's args, and who edited them. */
    args?: Record<string, unknown>;
    original_args?: Record<string, unknown>;
    edited_by?: string | null;
  };
  /** A standing approval let a call through. Emitted by StandingApprovals; read by the console's trace (as is). */
  standing_approval_used: {
    call_id?: string;
    standing_approval_id: string;
    confirmation_id: string;
    approved_by: string;
    when: string;
    uses: number;
    max_calls: number;
    expires_at: string;
  };
  /**
   * A call's result as the model reads it. Emitted by ToolCallRunner; read by workflows (node failed?), trace, console.
   */
  observation: {
    call_id: string;
    tool: string;
    args: Record<string, unknown>;
    content: string;
    blocked: boolean;
    blocked_by?: string;
    ok?: boolean;
    simulated?: boolean;
    interrupted?: boolean;
  };
  /**
   * A call found in flight after a crash, not retried.
   * Emitted by ToolCallRunner on resume; read by the console (as is).
   */
  tool_interrupted: {
    call_id: string;
    tool: string;
    args: Record<string, unknown>;
    idempotency_key: string;
    retried: boolean;
    message: string;
  };
  /** The model endpoint failed and is tried again. Emitted by ReactSteps; read by the console (as is). */
  model_retry: { attempt: number; message: string; retry_in_ms: number };
  /** A DAG run's plan. Emitted by DagSteps; read by the trace. */
  plan: { steps: Array<{ id: string; task: string; depends_on: string[] }>; usage?: RunEventTokenUsage };
  /** A DAG plan the model must redo. Emitted by DagSteps; read by the trace. */
  plan_rejected: { problems: string[] };
  /** Part of the answer as it streams. Emitted by AnswerDeltaStream; read by the console. */
  answer_delta: { content: string };
  /** The final answer. Emitted by RunFinisher.finish; read by the console (replaces the deltas) and the trace. */
  answer: { content: string; usage?: RunEventTokenUsage };
  /** Why the run failed. Emitted by RunFinisher.finish; read by the trace and console. */
  error: { message: string };
  /** Always last, once. Emitted by RunFinisher.finish; read by the SSE writer and waitForRun (the end of a stream). */
  done: { run_id: string; status: RunEventFinalStatus };
}

export type RunEventType = keyof RunEventMap;

/** A payload as stored and sent: what its emitter passed plus the envelope. */
export type RunEventData<K extends RunEventType = RunEventType> = RunEventMap[K] & RunEventEnvelope;

/** An event not yet written (a deferred hook event, the events of a write): its type and payload together. */
export interface PendingRunEvent<K extends RunEventType = RunEventType> {
  type: K;
  data: RunEventMap[K];
}

/** The statuses a run moves between while it is active (the run engine's transition table names the moves). */
export type RunEventActiveStatus = 'running' | 'waiting';

/**
 * Puts an event on a run's stream (persisted first, then sent). A wrong type or field is a compile error. An event
 * changes no status by its name: an emitter whose event goes with a status change names it (`status`), and the run
 * engine applies it through its transition table in the same write (e.g. the gate's `confirmation_pending` with
 * `waiting`: a call waits for a person).
 */
export type RunEventEmitter = <K extends RunEventType>(
  type: K,
  data: RunEventMap[K],
  status?: RunEventActiveStatus,
) => Promise<void>;

/** Every type of the map, at run time (the object makes the compiler check the list is complete and exact). */
const EVERY_RUN_EVENT: Record<RunEventType, true> = {
  run: true,
  tool_call: true,
  hook: true,
  confirmation_pending: true,
  confirmation_resolved: true,
  standing_approval_used: true,
  observation: true,
  tool_interrupted: true,
  model_retry: true,
  plan: true,
  plan_rejected: true,
  answer_delta: true,
  answer: true,
  error: true,
  done: true,
};
export const RUN_EVENT_TYPES = Object.keys(EVERY_RUN_EVENT) as RunEventType[];
