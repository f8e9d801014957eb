import { recordSpan, tracingEnabled, type HookStats } from '@warden/common';
import { isDroppedDatabaseConnection } from '@warden/database';
import { isRunInterruption } from './run-interrupted.js';
import {
  HookPoint,
  type AgentHookSettings,
  type BaseHook,
  type HookContext,
  type HookErrorPolicy,
  type HookOutcome,
  type HookOutcomeKind,
  type HookResult,
  type PostToolUseHook,
  type RunEventEmitter,
  type Surface,
  type ToolArgs,
  type ToolCallMetadata,
} from './hook.types.js';
import { byRunOrder } from './hook-catalog.js';
import { noteAsk } from './hook-ask.js';

/** What the runtime knows about one tool call (or the session, for SessionStart) before the hooks run. */
export type ToolCallContext = Omit<HookContext, 'point' | 'signal' | 'toolResult'> & {
  /** The run's own signal (cancellation); each hook additionally gets its timeout. */
  signal?: AbortSignal;
};

/** One hook as attached to one agent: the instance, its validated config and its execution policy. */
export interface RegisteredHook {
  name: string;
  point: HookPoint;
  priority: number;
  /** <= 0 or Infinity: no timeout (only for hooks that honour ctx.signal themselves). */
  timeoutMs: number;
  onError: HookErrorPolicy;
  hook: BaseHook<any>;
  config: unknown;
  source: 'class' | 'yaml';
  autoAttached: boolean;
  /** Runs after every other hook of its point (the confirmation gate). */
  runsLast?: boolean;
  /** Where this hook's outcomes and durations are counted (Prometheus); set by the resolver. */
  stats?: HookStats;
}

export interface PreToolUseVerdict {
  allow: boolean;
  /** The args as rewritten by the hooks; what the tool must receive. */
  args: ToolArgs;
  blockedBy?: string;
  /** Why the call was blocked (the hook's error, or the failure that closed the gate). */
  error?: string;
  wouldRequireConfirmation: boolean;
  outcomes: HookOutcome[];
  /** The approval the call passed the gate with (tool + args digest the approver saw), if the gate ran. */
  approval?: HookResult['approval'];
}

export const DEFAULT_HOOK_TIMEOUT_MS = 5000;

/** Why a call is blocked when the args to be sent are not the ones its approval covers. */
export const ARGS_CHANGED_AFTER_APPROVAL = 'args changed after approval: the call was not sent';
/** The name the confirmation gate blocks under (also when the runtime's own re-check of an approval fails). */
export const CONFIRMATION_GATE = 'confirmation_gate';

/** The observation the model reads for a blocked call (DESIGN.md). */
export function blockedObservation(hook: string, error: string): string {
  return `Tool call blocked by ${hook}: ${error}`;
}

export class HookTimeoutError extends Error {
  constructor(hook: string, timeoutMs: number) {
    super(`hook '${hook}' did not finish within ${timeoutMs} ms`);
  }
}

class RunCancelledError extends Error {
  constructor() { super('the run was cancelled'); }
}

/**
 * The context one hook invocation sees. Its `signal` is created on first read only, so a hook that never looks at
 * it (and returns synchronously) costs no AbortController; each invocation is its own object so that a hook still
 * running after its timeout never sees the args or signal of the hooks after it. The run's fields are read through
 * from the caller's context (getters), which keeps an invocation to five fields.
 */
export class HookInvocation implements HookContext {
  private controller: AbortController | undefined;
  private lazySignal: AbortSignal | undefined;
  private abortReason: unknown;

  constructor(
    private readonly base: ToolCallContext,
    readonly point: HookPoint,
    readonly toolArgs: ToolArgs,
    readonly toolResult: string | undefined,
  ) {}

  get toolName(): string { return this.base.toolName; }
  get agentId(): string { return this.base.agentId; }
  get userId(): string { return this.base.userId; }
  get orgId(): string { return this.base.orgId; }
  get runId(): string { return this.base.runId; }
  get callId(): string | undefined { return this.base.callId; }
  get surface(): Surface { return this.base.surface; }
  get metadata(): ToolCallMetadata { return this.base.metadata; }
  get emit(): RunEventEmitter { return this.base.emit; }

  get signal(): AbortSignal {
    if (!this.lazySignal) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
      const runSignal = this.base.signal;
      this.lazySignal = runSignal ? AbortSignal.any([runSignal, this.controller.signal]) : this.controller.signal;
    }
    return this.lazySignal;
  }

  abort(reason: unknown): void {
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}

const isThenable = <T>(v: T | PromiseLike<T>): v is PromiseLike<T> =>
  v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const round = (ms: number): number => Math.round(ms * 1000) / 1000;


/**
 * The hooks attached to one run, sorted per point, and the exact composition semantics of DESIGN.md: ascending
 * priority (ties by name), rewrites carried forward, first block short-circuits, per-hook timeout, fail closed for
 * PreToolUse. Every hook that triggers yields a HookOutcome and a `hook` run event, awaited before the next hook runs.
 * Cheap to build and to run: no database, no timer for hooks that return synchronously.
 */
export class HookRegistry {
  private readonly pre: RegisteredHook[];
  private readonly post: RegisteredHook[];
  private readonly sessionStart: RegisteredHook[];
  private readonly blockedListeners: RegisteredHook[];
  private readonly sorted: RegisteredHook[];

  constructor(hooks: RegisteredHook[], readonly agent?: AgentHookSettings) {
    const sorted = [...hooks].sort(byRunOrder);
    this.sorted = sorted;
    this.pre = sorted.filter((h) => h.point === HookPoint.PreToolUse);
    this.post = sorted.filter((h) => h.point === HookPoint.PostToolUse);
    this.sessionStart = sorted.filter((h) => h.point === HookPoint.SessionStart);
    this.blockedListeners = this.post.filter((h) => typeof (h.hook as PostToolUseHook).onBlocked === 'function');
  }

  /** A registry with no hooks at all (eval runs bypass hooks on purpose). */
  static empty(): HookRegistry {
    return new HookRegistry([]);
  }

  /** The hooks of one point in run order (the points run by hook-points.ts). */
  hooksAt(point: HookPoint): RegisteredHook[] {
    return this.sorted.filter((h) => h.point === point);
  }

  entries(): Array<{ name: string; point: HookPoint; priority: number; source: 'class' | 'yaml'; autoAttached: boolean }> {
    return [...this.sessionStart, ...this.pre, ...this.post].map((h) => ({
      name: h.name, point: h.point, priority: h.priority, source: h.source, autoAttached: h.autoAttached,
    }));
  }

  async runSessionStart(ctx: ToolCallContext): Promise<{ additionalContext: string[]; outcomes: HookOutcome[] }> {
    const additionalContext: string[] = [];
    const outcomes: HookOutcome[] = [];
    this.attachAgent(ctx);
    let started = performance.now();
    for (const entry of this.sessionStart) {
      const inv = new HookInvocation(ctx, HookPoint.SessionStart, ctx.toolArgs, undefined);
      if (!this.triggers(entry, inv)) continue;
      let kind: HookOutcomeKind = 'allow';
      let detail: string | undefined;
      let sideEffects: string[] = [];
      try {
        const returned = this.execute(entry, inv, ctx.signal);
        const result = isThenable(returned) ? await returned : returned;
        sideEffects = result.sideEffects ?? [];
        if (result.additionalContext !== undefined) {
          if (typeof result.additionalContext !== 'string') throw new Error('additionalContext must be a string');
          if (result.additionalContext.length > 0) additionalContext.push(result.additionalContext);
        }
      } catch (err) {
        kind = 'error';
        detail = messageOf(err);
      }
      const finished = performance.now();
      const pending = this.record(ctx, outcomes, entry, kind, sideEffects, finished - started, detail);
      if (pending) { await pending; started = performance.now(); } else started = finished;
    }
    return { additionalContext, outcomes };
  }

  async runPreToolUse(ctx: ToolCallContext): Promise<PreToolUseVerdict> {
    let args = ctx.toolArgs;
    const outcomes: HookOutcome[] = [];
    let wouldRequireConfirmation = false;
    let approval: PreToolUseVerdict['approval'];
    if (this.pre.length === 0) return { allow: true, args, wouldRequireConfirmation, outcomes };
    this.attachAgent(ctx);
    let started = performance.now();
    for (const entry of this.pre) {
      const inv = new HookInvocation(ctx, HookPoint.PreToolUse, args, undefined);
      if (!this.triggers(entry, inv)) continue;
      let result: HookResult;
      try {
        const returned = this.execute(entry, inv, ctx.signal);
        result = isThenable(returned) ? await returned : returned;
        if (result.modifiedArgs !== undefined && (typeof result.modifiedArgs !== 'object' || result.modifiedArgs === null || Array.isArray(result.modifiedArgs))) {
          throw new Error('modifiedArgs must be an object');
        }
      } catch (err) {
        // A dropped database connection decides nothing: the call is left for the run's next driver (recovery).
        if (isDroppedDatabaseConnection(err)) throw err;
        const detail = messageOf(err);
        const finished = performance.now();
        const pending = this.record(ctx, outcomes, entry, 'error', [], finished - started, detail);
        if (pending) { await pending; started = performance.now(); } else started = finished;
        if (entry.onError === 'allow') continue;
        return { allow: false, args, blockedBy: entry.name, error: `hook failed: ${detail}`, wouldRequireConfirmation, outcomes };
      }
      const sideEffects = result.sideEffects ?? [];
      if (result.allow === false) {
        const error = result.error || `Blocked by hook '${entry.name}'`;
        const pending = this.record(ctx, outcomes, entry, 'block', sideEffects, performance.now() - started, error);
        if (pending) await pending;
        return { allow: false, args, blockedBy: entry.name, error, wouldRequireConfirmation, outcomes };
      }
      let kind: HookOutcomeKind = 'allow';
      if (result.ask !== undefined) kind = noteAsk(ctx.metadata, entry.name, result.ask);
      if (result.wouldRequireConfirmation) { kind = 'would_require_confirmation'; wouldRequireConfirmation = true; }
      if (result.approval && entry.runsLast) approval = result.approval;
      if (result.modifiedArgs !== undefined) {
        args = result.modifiedArgs;
        if (kind === 'allow') kind = 'rewrite';
      }
      const finished = performance.now();
      const pending = this.record(ctx, outcomes, entry, kind, sideEffects, finished - started, undefined);
      if (pending) { await pending; started = performance.now(); } else started = finished;
    }
    return { allow: true, args, wouldRequireConfirmation, outcomes, ...(approval ? { approval } : {}) };
  }

  async runPostToolUse(ctx: ToolCallContext & { toolResult: string }): Promise<{ result: string; outcomes: HookOutcome[] }> {
    let observation = ctx.toolResult;
    const outcomes: HookOutcome[] = [];
    if (this.post.length === 0) return { result: observation, outcomes };
    this.attachAgent(ctx);
    let started = performance.now();
    for (const entry of this.post) {
      const inv = new HookInvocation(ctx, HookPoint.PostToolUse, ctx.toolArgs, observation);
      if (!this.triggers(entry, inv)) continue;
      let kind: HookOutcomeKind = 'allow';
      let detail: string | undefined;
      let sideEffects: string[] = [];
      try {
        const returned = this.execute(entry, inv, ctx.signal);
        const result = isThenable(returned) ? await returned : returned;
        sideEffects = result.sideEffects ?? [];
        if (result.modifiedResult !== undefined) {
          if (typeof result.modifiedResult !== 'string') throw new Error('modifiedResult must be a string');
          observation = result.modifiedResult;
          kind = 'rewrite';
        }
      } catch (err) {
        kind = 'error';
        detail = messageOf(err);
      }
      const finished = performance.now();
      const pending = this.record(ctx, outcomes, entry, kind, sideEffects, finished - started, detail);
      if (pending) { await pending; started = performance.now(); } else started = finished;
    }
    return { result: observation, outcomes };
  }

  /** Lets PostToolUse hooks that care (audit) see calls that a PreToolUse hook blocked. Errors are recorded only. */
  async runBlocked(ctx: ToolCallContext, blocked: { blockedBy: string; error: string }): Promise<HookOutcome[]> {
    const outcomes: HookOutcome[] = [];
    if (this.blockedListeners.length === 0) return outcomes;
    this.attachAgent(ctx);
    let started = performance.now();
    for (const entry of this.blockedListeners) {
      const inv = new HookInvocation(ctx, HookPoint.PostToolUse, ctx.toolArgs, undefined);
      if (!this.triggers(entry, inv)) continue;
      let kind: HookOutcomeKind = 'allow';
      let detail = `call blocked by ${blocked.blockedBy}`;
      try {
        const returned = (entry.hook as PostToolUseHook).onBlocked!(inv, blocked, entry.config as Record<string, unknown>);
        if (isThenable<void>(returned)) await this.settle(returned, entry, inv, ctx.signal);
      } catch (err) {
        kind = 'error';
        detail = messageOf(err);
      }
      const finished = performance.now();
      const pending = this.record(ctx, outcomes, entry, kind, [], finished - started, detail);
      if (pending) { await pending; started = performance.now(); } else started = finished;
    }
    return outcomes;
  }

  /** Hooks read the run's agent settings from the metadata; the runtime need not copy them into every call. @internal */
  attachAgent(ctx: ToolCallContext): void {
    if (this.agent && ctx.metadata.agent === undefined) ctx.metadata.agent = this.agent;
  }

  /** shouldTrigger is a filter: if it throws, the hook counts as triggered so that execute's failure policy applies. @internal */
  triggers(entry: RegisteredHook, inv: HookInvocation): boolean {
    try {
      return entry.hook.shouldTrigger(inv, entry.config);
    } catch {
      return true;
    }
  }

  /** @internal */
  execute(entry: RegisteredHook, inv: HookInvocation, runSignal: AbortSignal | undefined): HookResult | Promise<HookResult> {
    const returned = entry.hook.execute(inv, entry.config) as HookResult | undefined | PromiseLike<HookResult | undefined>;
    if (isThenable(returned)) return this.settle(returned, entry, inv, runSignal).then(orEmpty);
    return orEmpty(returned);
  }

  /** Races a hook's promise against its timeout and the run's cancellation, aborting the hook's signal on either. */
  private settle<T>(pending: PromiseLike<T>, entry: RegisteredHook, inv: HookInvocation, runSignal: AbortSignal | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const fail = (err: Error) => { cleanup(); inv.abort(err); reject(err); };
      // An interruption (lease lost, shutdown) keeps its reason: the hook must not take it for a cancel.
      const onCancel = () => fail(isRunInterruption(runSignal?.reason) ? runSignal.reason : new RunCancelledError());
      const timer = Number.isFinite(entry.timeoutMs) && entry.timeoutMs > 0
        ? setTimeout(() => fail(new HookTimeoutError(entry.name, entry.timeoutMs)), entry.timeoutMs)
        : undefined;
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        runSignal?.removeEventListener('abort', onCancel);
      };
      if (runSignal?.aborted) { onCancel(); return; }
      runSignal?.addEventListener('abort', onCancel, { once: true });
      pending.then((value) => { cleanup(); resolve(value); }, (err: unknown) => { cleanup(); reject(err); });
    });
  }

  /**
   * Records a hook's outcome and emits its `hook` event. Returns the emitter's promise, if it gave one, for the
   * caller to await before the next hook runs (so the stream shows this event first); a synchronous emitter costs
   * no promise and no microtask. Callers read the clock once per hook, and once more only after an awaited emit
   * (so that the emitter's wait is part of no hook's duration).
   */
  /** @internal */
  record(
    ctx: ToolCallContext, outcomes: HookOutcome[], entry: RegisteredHook, kind: HookOutcomeKind,
    sideEffects: string[], durationMs: number, detail: string | undefined,
  ): PromiseLike<void> | undefined {
    const duration = round(durationMs);
    const outcome: HookOutcome = { hook: entry.name, point: entry.point, callId: ctx.callId, outcome: kind, sideEffects, durationMs: duration };
    const event: Record<string, unknown> = {
      call_id: ctx.callId, point: entry.point, hook: entry.name, outcome: kind, side_effects: sideEffects, duration_ms: duration,
    };
    if (detail !== undefined) { outcome.detail = detail; event.detail = detail; }
    outcomes.push(outcome);
    entry.stats?.record(kind, durationMs / 1000);
    if (tracingEnabled()) {
      const attributes = { 'warden.hook': entry.name, 'warden.hook.point': entry.point, 'warden.hook.outcome': kind, 'warden.hook.duration_ms': duration, 'warden.call_id': ctx.callId ?? '' };
      recordSpan(`hook ${entry.name}`, detail === undefined ? attributes : { ...attributes, 'warden.hook.detail': detail }, durationMs, kind === 'error' ? detail : undefined);
    }
    const emitted = ctx.emit('hook', event) as Promise<void> | undefined;
    return isThenable(emitted) ? emitted : undefined;
  }
}

function orEmpty(result: HookResult | undefined): HookResult {
  return result ?? {};
}
