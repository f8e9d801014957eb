import type { HookStats } from '@warden/common';
import { byRunOrder } from './hook-catalog.js';
import { HookInvocation, type ToolCallContext } from './hook-invocation.js';
import { isThenable, recordHookOutcome } from './hook-outcome-record.js';
import { isRunInterruption } from './run-interrupted.js';
import type { BaseHook, HookErrorPolicy, HookOutcome, HookOutcomeKind, HookPoint, HookResult, ToolArgs } from './hook.types.js';

/** One hook as attached to one agent: the instance, its validated config and its execution policy. */
export interface RegisteredHook {
  name: string;
  point: HookPoint;
  priority: number;
  /** <= 0 or Infinity: no timeout (only for hooks that honour ctx.signal themselves). */
  timeoutMs: number;
  onError: HookErrorPolicy;
  hook: BaseHook<unknown>;
  config: unknown;
  source: 'class' | 'yaml';
  autoAttached: boolean;
  /** Runs after every other hook of its point (the confirmation gate). */
  runsLast?: boolean;
  /** Where this hook's outcomes and durations are counted (Prometheus); set by the resolver. */
  stats?: HookStats;
}

/**
 * What one pass of a chain carries from hook to hook: what the next hook sees (`args`, `text`), what the hooks
 * added, and every outcome. One class for every point, so the runner reads one object shape.
 */
export class HookChainRun {
  readonly outcomes: HookOutcome[] = [];
  wouldRequireConfirmation = false;
  approval: HookResult['approval'] = undefined;
  model: string | undefined = undefined;
  /** The detail of an outcome that is neither a block nor an error (the blocked-call listeners name the block). */
  note: string | undefined = undefined;
  /** The call a PreToolUse hook blocked (the blocked-call listeners are told). */
  blocked: { blockedBy: string; error: string } | undefined = undefined;
  /** Why a PreToolUse hook could not decide (its `suspend`): the call is left for the run's next driver. */
  suspended: string | undefined = undefined;

  constructor(
    /** The tool args the next hook sees (PreToolUse hooks rewrite them). */
    public args: ToolArgs,
    /** The text the next hook sees as `toolResult` (rewritten by PostToolUse and the text points). */
    public text: string | undefined,
    /** Context the hooks add (SessionStart, the text points); empty and unused elsewhere. */
    readonly additionalContext: string[] = NO_CONTEXT,
  ) {}
}

const NO_CONTEXT: string[] = Object.freeze([]) as unknown as string[];

/**
 * What makes one hook point differ from another; the runner does the rest. Implementations are static objects
 * (no closure per call).
 */
export interface HookChainPoint<R> {
  /** The point the hooks' invocations name (the blocked-call listeners are PostToolUse hooks). */
  readonly point: HookPoint;
  /** The hook's side effects stay on its error outcome when its result was invalid (PostToolUse, SessionStart). */
  readonly keepsSideEffectsOfInvalidResult: boolean;
  /** Calls one hook. A promise is raced against the hook's timeout and the run's cancellation. */
  call(entry: RegisteredHook, inv: HookInvocation, run: HookChainRun): unknown;
  /** Checks a result and carries it forward (rewrites); 'block' stops the chain. Throwing means the hook failed. */
  apply(result: HookResult, entry: RegisteredHook, run: HookChainRun, ctx: ToolCallContext): HookOutcomeKind;
  /** Whether a failed hook stops the chain (fail closed). May rethrow a failure that must decide nothing. */
  stopsOnFailure(err: unknown, entry: RegisteredHook): boolean;
  /** The result when every hook ran or was skipped. */
  finish(run: HookChainRun): R;
  /** The result when `entry` stopped the chain: it blocked (`error` is its reason) or it failed closed (`failed`). */
  stopped(run: HookChainRun, entry: RegisteredHook, error: string, failed: boolean): R;
}

export class HookTimeoutError extends Error {
  constructor(hook: string, timeoutMs: number) {
    super(`hook '${hook}' did not finish within ${timeoutMs} ms`);
  }
}

class RunCancelledError extends Error {
  constructor() {
    super('the run was cancelled');
  }
}

/** `performance` is a lazy accessor on globalThis: reading it once here keeps a getter call off every clock read. */
const clock = performance;
const NO_RESULT: HookResult = Object.freeze({});
const NO_SIDE_EFFECTS: string[] = Object.freeze([]) as unknown as string[];

/**
 * The hooks of one point in run order (`runsLast` hooks last, then ascending priority, ties by name) and the one
 * loop that runs them (DESIGN.md): each hook sees what the hooks before it rewrote, the first block stops the chain,
 * a failing hook stops it too when the point says so (fail closed), a hook that returns a promise gets a timeout
 * (none for a hook that returns synchronously), and every outcome is recorded and its `hook` event emitted (and
 * awaited when the emitter returns a promise) before the next hook runs.
 */
export class HookChain<R> {
  readonly hooks: readonly RegisteredHook[];

  constructor(
    hooks: readonly RegisteredHook[],
    readonly spec: HookChainPoint<R>,
  ) {
    this.hooks = [...hooks].sort(byRunOrder);
  }

  /**
   * The clock is read once per hook boundary (the end of one hook is the start of the next), and once more only
   * after an awaited emit, so that the emitter's wait is part of no hook's duration. Nothing is awaited for a hook
   * that returns synchronously with a synchronous emitter.
   */
  async run(ctx: ToolCallContext, run: HookChainRun): Promise<R> {
    const { hooks, spec } = this;
    let inv = new HookInvocation(ctx, spec.point, run.args, run.text);
    let started = clock.now();
    for (const entry of hooks) {
      if (inv.reusable) {
        inv.toolArgs = run.args;
        inv.toolResult = run.text;
      } else inv = new HookInvocation(ctx, spec.point, run.args, run.text);
      if (!triggers(entry, inv)) continue;
      let kind: HookOutcomeKind;
      let detail: string | undefined;
      let sideEffects = NO_SIDE_EFFECTS;
      let result: HookResult | undefined;
      let stops: boolean;
      try {
        const returned = spec.call(entry, inv, run) as HookResult | undefined | PromiseLike<HookResult | undefined>;
        if (isThenable(returned)) {
          inv.keep();
          result = (await settle(returned, entry, inv, ctx.signal)) ?? NO_RESULT;
        } else result = returned ?? NO_RESULT;
        kind = spec.apply(result, entry, run, ctx);
        sideEffects = result.sideEffects ?? NO_SIDE_EFFECTS;
        stops = kind === 'block';
        // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing -- `||`: an empty reason gets the default too
        detail = stops ? result.error || `Blocked by hook '${entry.name}'` : run.note;
      } catch (err) {
        stops = spec.stopsOnFailure(err, entry);
        kind = 'error';
        detail = messageOf(err);
        if (result !== undefined && spec.keepsSideEffectsOfInvalidResult) sideEffects = result.sideEffects ?? NO_SIDE_EFFECTS;
      }
      const finished = clock.now();
      const pending = recordHookOutcome(ctx, run.outcomes, entry, kind, sideEffects, finished - started, detail);
      if (pending) {
        await pending;
        started = clock.now();
      } else started = finished;
      if (stops)
        return kind === 'error' ? spec.stopped(run, entry, `hook failed: ${detail}`, true) : spec.stopped(run, entry, detail ?? '', false);
    }
    return spec.finish(run);
  }
}

/** shouldTrigger is a filter: if it throws, the hook counts as triggered so that execute's failure policy applies. */
function triggers(entry: RegisteredHook, inv: HookInvocation): boolean {
  try {
    return entry.hook.shouldTrigger(inv, entry.config);
  } catch {
    return true;
  }
}

/** Races a hook's promise against its timeout and the run's cancellation, aborting the hook's signal on either. */
function settle<T>(pending: PromiseLike<T>, entry: RegisteredHook, inv: HookInvocation, runSignal: AbortSignal | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const fail = (err: Error) => {
      cleanup();
      inv.abort(err);
      reject(err);
    };
    // An interruption (lease lost, shutdown) keeps its reason: the hook must not take it for a cancel.
    const onCancel = () => fail(isRunInterruption(runSignal?.reason) ? runSignal.reason : new RunCancelledError());
    const timer =
      Number.isFinite(entry.timeoutMs) && entry.timeoutMs > 0
        ? setTimeout(() => fail(new HookTimeoutError(entry.name, entry.timeoutMs)), entry.timeoutMs)
        : undefined;
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      runSignal?.removeEventListener('abort', onCancel);
    };
    if (runSignal?.aborted) {
      onCancel();
      return;
    }
    runSignal?.addEventListener('abort', onCancel, { once: true });
    pending.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (err: unknown) => {
        cleanup();
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the hook's own rejection, passed on as is
        reject(err);
      },
    );
  });
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
