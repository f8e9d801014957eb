import type { HookStats } from '@warden/common';
import type { HookChainRun } from './hook-chain-run.js';
import type { HookInvocation, ToolCallContext } from './hook-invocation.js';
import type { BaseHook, HookErrorPolicy, HookOutcomeKind, HookPoint, HookResult } from './hook.types.js';

/** Where a hook of a run's chain comes from: attached to every agent, the org's policy, or the agent's own config. */
export type HookOrigin = 'auto' | 'org' | 'agent';

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
  /** Set by the resolver; PreToolUse runs org hooks after the others (see byRunOrder). */
  origin?: HookOrigin;
  /** A check of the args against the action's schema: after the agent's transforms, or after the org's hooks. */
  checksArgs?: 'before-org' | 'before-gate';
  /** Where this hook's outcomes and durations are counted (Prometheus); set by the resolver. */
  stats?: HookStats;
}

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
