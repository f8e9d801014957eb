import { byRunOrder } from './hook-catalog.js';
import type { HookChainRun } from './hook-chain-run.js';
import { HookInvocation, type ToolCallContext } from './hook-invocation.js';
import { isThenable, recordHookOutcome } from './hook-outcome-record.js';
import { settle } from './hook-settle.js';
import { timedFromNow, timesEachHook, untimedEnd } from './hook-timing.js';
import type { HookOutcomeKind, HookResult } from './hook.types.js';
import type { HookChainPoint, RegisteredHook } from './hook-chain.types.js';

export { HookChainRun } from './hook-chain-run.js';
export { HookTimeoutError } from './hook-settle.js';
export type { HookChainPoint, HookOrigin, RegisteredHook } from './hook-chain.types.js';

/** `performance` is a lazy accessor on globalThis: reading it once here keeps a getter call off every clock read. */
const clock = performance;
const NO_RESULT: HookResult = Object.freeze({});
const NO_SIDE_EFFECTS: string[] = Object.freeze([]) as unknown as string[];

/** A hook that threw (or whose promise rejected or timed out): its failure policy applies. */
class HookFailure {
  constructor(readonly error: unknown) {}
}

/** A hook that returned a promise: the chain goes on once it settles (raced against its timeout). */
class HookPending {
  constructor(readonly promise: PromiseLike<HookResult | undefined>) {}
}

/** The chain's result, once the emitter is done with the stopping hook's event. */
class ChainStop<R> {
  constructor(
    readonly result: R,
    readonly emitted: PromiseLike<void> | undefined,
  ) {}
}

/** What concluding one hook leaves to do: nothing (go on), wait for the emitter then go on, or stop. */
type Step<R> = undefined | PromiseLike<void> | ChainStop<R>;

/**
 * The hooks of one point in run order (byRunOrder: bands, then ascending priority, ties by name) and the one
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
   * Runs the hooks in a plain loop for as long as each returns synchronously and the emitter has nothing to wait
   * for (no await, no microtask: an await anywhere in the loop would make every hook pay for it); the first promise
   * hands the rest of the chain to `runAsync`. A timed run (hook-timing.ts) reads the clock at the start and once
   * per hook boundary (the end of one hook is the start of the next), and once more only after an awaited emit, so
   * that the emitter's wait is part of no hook's duration; an untimed one reads it at the start and the end only.
   */
  run(ctx: ToolCallContext, run: HookChainRun): Promise<R> {
    try {
      const result = this.start(ctx, run);
      return result instanceof Promise ? result : Promise.resolve(result);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what a hook or emitter threw, as is
      return Promise.reject(err);
    }
  }

  /**
   * `run` without the promise when every hook returned synchronously and nothing was awaited: the result itself, so
   * that a caller chaining passes of one call (transform, decide, gate: HookRegistry) pays for no extra microtask.
   * May throw synchronously (what a hook point or the emitter threw).
   */
  start(ctx: ToolCallContext, run: HookChainRun): R | Promise<R> {
    const { hooks, spec } = this;
    let inv = new HookInvocation(ctx, spec.point, run.args, run.text);
    run.timed = timesEachHook();
    run.started = clock.now();
    for (let i = 0; i < hooks.length; i++) {
      const entry = hooks[i];
      inv = nextInvocation(inv, ctx, run);
      if (!triggers(entry, inv)) continue;
      const returned = callHook(spec, entry, inv, run);
      if (returned instanceof HookPending) return this.runAsync(i, ctx, timedFromNow(run), inv, returned, undefined);
      const step = this.conclude(entry, ctx, run, returned);
      if (step === undefined) continue;
      if (step instanceof ChainStop && step.emitted === undefined) return untimedEnd(run, step.result);
      return this.runAsync(i + 1, ctx, timedFromNow(run), inv, undefined, step);
    }
    return untimedEnd(run, spec.finish(run));
  }

  /**
   * The rest of a chain once something is to be awaited: hook `i`'s promise (`pending`), or the emitter's
   * promise for the event of the hook before `i` (`emitted`; with the chain's result if that hook stopped it).
   */
  private async runAsync(
    i: number,
    ctx: ToolCallContext,
    run: HookChainRun,
    inv: HookInvocation,
    pending: HookPending | undefined,
    emitted: Step<R>,
  ): Promise<R> {
    const { hooks, spec } = this;
    for (;;) {
      if (emitted instanceof ChainStop) {
        if (emitted.emitted) await emitted.emitted;
        return emitted.result;
      }
      if (emitted !== undefined) {
        await emitted;
        run.started = clock.now();
      }
      if (i >= hooks.length) return spec.finish(run);
      const entry = hooks[i++];
      let returned: HookPending | HookFailure | HookResult | undefined = pending;
      pending = undefined;
      if (returned === undefined) {
        inv = nextInvocation(inv, ctx, run);
        if (!triggers(entry, inv)) continue;
        returned = callHook(spec, entry, inv, run);
      }
      if (returned instanceof HookPending) {
        inv.keep();
        returned = await settle(returned.promise, entry, inv, ctx.signal).catch((err: unknown) => new HookFailure(err));
      }
      emitted = this.conclude(entry, ctx, run, returned);
    }
  }

  /**
   * Applies one hook's result to the run, records its outcome and emits its `hook` event. A throw (the emitter's,
   * or a failure that must decide nothing) rejects the chain. The rare paths (failure, block) are methods of their
   * own: the common one stays small enough for V8 to inline into the loop.
   */
  private conclude(
    entry: RegisteredHook,
    ctx: ToolCallContext,
    run: HookChainRun,
    returned: HookResult | HookFailure | undefined,
  ): Step<R> {
    if (returned instanceof HookFailure) return this.failed(entry, ctx, run, returned.error, NO_SIDE_EFFECTS);
    const result = returned ?? NO_RESULT;
    let kind: HookOutcomeKind;
    let sideEffects: string[];
    let reason: string | undefined;
    try {
      kind = this.spec.apply(result, entry, run, ctx);
      sideEffects = result.sideEffects ?? NO_SIDE_EFFECTS;
      // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing -- `||`: an empty reason gets the default
      if (kind === 'block') reason = run.blockReason ?? (result.error || `Blocked by hook '${entry.name}'`);
    } catch (err) {
      const kept = this.spec.keepsSideEffectsOfInvalidResult ? result.sideEffects : undefined;
      return this.failed(entry, ctx, run, err, kept ?? NO_SIDE_EFFECTS);
    }
    if (reason === undefined) return this.record(entry, ctx, run, kind, sideEffects, run.note);
    // A parked call has no outcome yet: the gate records one when the run resumes at it.
    const emitted = run.parked === undefined ? this.record(entry, ctx, run, kind, sideEffects, reason) : undefined;
    return new ChainStop(this.spec.stopped(run, entry, reason, false), emitted);
  }

  /** A hook failed (threw, rejected, timed out, or returned an invalid result): its policy says if the chain stops. */
  private failed(
    entry: RegisteredHook,
    ctx: ToolCallContext,
    run: HookChainRun,
    err: unknown,
    sideEffects: string[],
  ): Step<R> {
    const stops = this.spec.stopsOnFailure(err, entry);
    const detail = messageOf(err);
    const emitted = this.record(entry, ctx, run, 'error', sideEffects, detail);
    return stops ? new ChainStop(this.spec.stopped(run, entry, `hook failed: ${detail}`, true), emitted) : emitted;
  }

  /** In a timed run the hook's duration runs from the last hook boundary to now, which is the next one. */
  private record(
    entry: RegisteredHook,
    ctx: ToolCallContext,
    run: HookChainRun,
    kind: HookOutcomeKind,
    sideEffects: string[],
    detail: string | undefined,
  ): PromiseLike<void> | undefined {
    const started = run.started;
    const finished = run.timed ? clock.now() : started;
    run.started = finished;
    return recordHookOutcome(
      ctx,
      run.outcomes,
      entry,
      kind,
      sideEffects,
      run.timed ? finished - started : undefined,
      detail,
    );
  }
}

/** The invocation for the next hook: the same object while no hook kept it (see HookInvocation), else a new one. */
function nextInvocation(inv: HookInvocation, ctx: ToolCallContext, run: HookChainRun): HookInvocation {
  if (!inv.reusable) return new HookInvocation(ctx, inv.point, run.args, run.text);
  inv.toolArgs = run.args;
  inv.toolResult = run.text;
  return inv;
}

/** Calls one hook; a throw is its failure, a promise (or any thenable) is waited for by the caller. */
function callHook<R>(
  spec: HookChainPoint<R>,
  entry: RegisteredHook,
  inv: HookInvocation,
  run: HookChainRun,
): HookPending | HookFailure | HookResult | undefined {
  try {
    const returned = spec.call(entry, inv, run) as HookResult | undefined | PromiseLike<HookResult | undefined>;
    return isThenable(returned) ? new HookPending(returned) : returned;
  } catch (err) {
    return new HookFailure(err);
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

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
