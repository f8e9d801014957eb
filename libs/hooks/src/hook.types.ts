/**
 * The hook contract (DESIGN.md "The hook contract"). Everything else depends on this file; it depends on nothing
 * but the run event map's types (in the common lib, which depends on nothing) and its split-out tool-call metadata.
 */
import type { RunEventEmitter } from '@warden/common';
import type { ToolArgs, ToolCallMetadata } from './tool-call-metadata.types.js';

export * from './tool-call-metadata.types.js';

export enum HookPoint {
  SessionStart = 'SessionStart',
  /** The user's prompt, before the model sees it: block it, rewrite it (`modifiedResult`), add context. */
  UserPromptSubmit = 'UserPromptSubmit',
  /** Before each model call: block it, or choose another model (`modifiedModel`). */
  PreModelCall = 'PreModelCall',
  PreToolUse = 'PreToolUse',
  PostToolUse = 'PostToolUse',
  /** A tool call that failed, before PostToolUse: replace the error the model sees, add context. */
  PostToolUseFailure = 'PostToolUseFailure',
  /** The final answer, before the user sees it: rewrite it (`modifiedResult`), or block = make the model continue. */
  Stop = 'Stop',
}

/** Points whose hooks may block, and whose failing hooks block by default (fail closed). */
export const BLOCKING_POINTS: ReadonlySet<HookPoint> = new Set([
  HookPoint.PreToolUse,
  HookPoint.UserPromptSubmit,
  HookPoint.PreModelCall,
  HookPoint.Stop,
]);

/** Where a run was started. Eval runs bypass hooks on purpose (and say so). */
export type Surface = 'chat' | 'api' | 'dag' | 'delegate' | 'workflow' | 'eval';
export const SURFACES: readonly Surface[] = ['chat', 'api', 'dag', 'delegate', 'workflow', 'eval'];

/**
 * Lets a hook put an event on the run's stream (persisted in run_events first, then sent over SSE): typed by the run
 * event map (a type-only import from the common lib, which depends on nothing).
 */
export type { RunEventEmitter };

export interface HookContext {
  point: HookPoint;
  toolName: string;
  /** For PreToolUse: the args as rewritten by the hooks before this one. */
  toolArgs: ToolArgs;
  /**
   * The text the hooks of this point rewrite in turn, as left by the hooks before this one: the observation
   * (PostToolUse), the error observation (PostToolUseFailure), the user's prompt (UserPromptSubmit), the final
   * answer (Stop).
   */
  toolResult?: string;
  agentId: string;
  userId: string;
  orgId: string;
  runId: string;
  callId?: string;
  surface: Surface;
  metadata: ToolCallMetadata;
  /** Emits run events (e.g. `confirmation_pending`). A no-op in dry runs. */
  emit: RunEventEmitter;
  /** Aborted when the hook's timeout passes or the run is cancelled; long waits must honour it. */
  signal: AbortSignal;
}

export interface HookResult {
  /**
   * false blocks: the call (PreToolUse), the prompt (UserPromptSubmit), the model call (PreModelCall); Stop: the model
   * continues with `error` as the reason. Default true.
   */
  allow?: boolean;
  /** Why the call was blocked; the model reads `Tool call blocked by <hook>: <error>`. */
  error?: string;
  /** PreToolUse: replaces the args for the hooks after this one and for the tool. */
  modifiedArgs?: ToolArgs;
  /** PostToolUse / PostToolUseFailure: replaces the observation; UserPromptSubmit: the prompt; Stop: the answer. */
  modifiedResult?: string;
  /**
   * SessionStart: text appended to the run's system prompt;
   * UserPromptSubmit / PostToolUseFailure: appended to the prompt / observation.
   */
  additionalContext?: string;
  /** PreModelCall: the model to call instead (a downgrade). */
  modifiedModel?: string;
  /** Human-readable notes of what the hook did; recorded in the trace and streamed. */
  sideEffects?: string[];
  /**
   * PreToolUse: neither allow nor block — ask a human (Claude Code's `permissionDecision: "ask"`), with this reason.
   * The confirmation gate then handles the call as if the action required confirmation, and its card shows the reason.
   */
  ask?: string;
  /**
   * PreToolUse: nothing can be decided now (this instance is stopping, or lost the run, while the hook waited): the
   * chain stops, and the call is neither run nor recorded as blocked — the run is suspended and its next driver runs
   * the hooks again. The reason is logged. (A hook that cannot decide must say so; a block is a decision.)
   */
  suspend?: string;
  /**
   * PreToolUse, the confirmation gate only: the call waits for a decision stored in this confirmation, and the run
   * need not wait in memory for it. The chain stops without an outcome (the gate records one when the run resumes
   * at it), the call is neither run nor blocked, and the run is parked: no lease, no timer, no process holds it
   * until the decision (or the deadline) claims it again. Only given when `metadata.canPark` says the run may park.
   */
  park?: {
    confirmationId: string;
    /** ISO time: the request's deadline (the run is claimed then to expire it). */ expiresAt?: string;
  };
  /** Dry runs only: the hook would stop for a human approval. */
  wouldRequireConfirmation?: boolean;
  /**
   * The confirmation gate only: the approval this call ran under, bound to the digest of tool + args that the
   * approver saw. The runtime re-checks it against what it is about to send.
   */
  approval?: {
    confirmationId: string;
    argsDigest: string;
    note?: string;
    /** The approver changed the args: the call re-enters *decide* on them (the deciding hooks run again). */
    edited?: boolean;
    /**
     * The approver policy in force when the gate let the call through (the executor evaluates it on the final args).
     */
    policy?: PolicyInForce;
    /** The grants the call holds: the executor sends only when they satisfy `policy` on the digest it sends. */
    grants?: GrantStatement[];
  };
}

/**
 * The approver policy of a gated action as the kernel reads it (libs/policy): who may approve, how many, by tier.
 * Its canonical digest is the policy version a grant is given under.
 */
export interface PolicyInForce {
  approvers: string[] | null;
  approverScope: string;
  forbidSelfApproval: boolean;
  tiers: Array<{ when: string; approvals: number; approvers?: string[] }>;
}

/**
 * "Principal P allows digest D under policy version V at tier T" (docs/authorization.md): what an approval, an
 * approval with changes or a use of a standing grant states. Grants of other digests, versions or tiers count nothing.
 */
export interface GrantStatement {
  kind: 'vote' | 'edit' | 'standing';
  /** The Warden user who allowed it. */
  principal: string;
  digest: string;
  policyVersion: string;
  tier: number | null;
}

export type HookOutcomeKind = 'allow' | 'block' | 'rewrite' | 'ask' | 'error' | 'would_require_confirmation';

/** One hook's run, as recorded in the trace and sent as an SSE `hook` event. */
export interface HookOutcome {
  hook: string;
  point: HookPoint;
  callId?: string;
  outcome: HookOutcomeKind;
  sideEffects: string[];
  durationMs: number;
  /** The block reason or the error message. */
  detail?: string;
}

export type HookErrorPolicy = 'block' | 'allow';

/** A JSON-schema-like description of a hook's config (validated when an agent is saved and when a run starts). */
export interface HookConfigSchema {
  type: 'object';
  properties?: Record<
    string,
    {
      type: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';
      description?: string;
      minimum?: number;
      maximum?: number;
      enum?: unknown[];
      default?: unknown;
    }
  >;
  required?: string[];
  additionalProperties?: boolean;
}

export interface HookOptions {
  name: string;
  /** Lower runs first; ties by name. */
  priority: number;
  description: string;
  configSchema?: HookConfigSchema;
  /** Default 5000 ms. The confirmation gate sets its own (it waits for a human). */
  timeoutMs?: number;
  /** PreToolUse default 'block' (fail closed). */
  onError?: HookErrorPolicy;
  /** Attached to every agent whether declared or not, and cannot be removed. */
  autoAttach?: boolean;
  /**
   * Runs after every other hook of its point whatever the priorities say (the confirmation gate: it must see
   * the args that will be sent). Only such a hook's `approval` is trusted.
   */
  runsLast?: boolean;
  /** Auto-attached hooks only: still runs in runs whose hooks are bypassed (evals), e.g. the audit log. */
  keepWhenBypassed?: boolean;
}

type Awaitable<T> = T | Promise<T>;

/** Base of every hook class. `config` is the agent's validated config for this hook ({} when none). */
export abstract class BaseHook<C = Record<string, unknown>> {
  abstract readonly point: HookPoint;
  /** Cheap, synchronous filter; false means the hook does not run for this call (and records nothing). */
  shouldTrigger(_ctx: HookContext, _config: C): boolean {
    return true;
  }
  /** May return synchronously: the registry arms no timer for a hook that did not return a promise. */
  abstract execute(ctx: HookContext, config: C): Awaitable<HookResult>;
}

export abstract class PreToolUseHook<C = Record<string, unknown>> extends BaseHook<C> {
  readonly point = HookPoint.PreToolUse;
}
export abstract class PostToolUseHook<C = Record<string, unknown>> extends BaseHook<C> {
  readonly point = HookPoint.PostToolUse;
  /**
   * Optional: called (instead of execute) when a PreToolUse hook blocked the call, so that e.g. the audit log
   * records blocked calls too. Errors are recorded and ignored.
   */
  onBlocked?(ctx: HookContext, blocked: { blockedBy: string; error: string }, config: C): Awaitable<void>;
}
export abstract class SessionStartHook<C = Record<string, unknown>> extends BaseHook<C> {
  readonly point = HookPoint.SessionStart;
}
export abstract class UserPromptSubmitHook<C = Record<string, unknown>> extends BaseHook<C> {
  readonly point = HookPoint.UserPromptSubmit;
}
export abstract class PreModelCallHook<C = Record<string, unknown>> extends BaseHook<C> {
  readonly point = HookPoint.PreModelCall;
}
export abstract class PostToolUseFailureHook<C = Record<string, unknown>> extends BaseHook<C> {
  readonly point = HookPoint.PostToolUseFailure;
}
export abstract class StopHook<C = Record<string, unknown>> extends BaseHook<C> {
  readonly point = HookPoint.Stop;
}
